//! A built-in English stop-word list (`--stopwords`), lowercase: `crates/simtui-engine/assets/stopwords-en.txt`,
//! compiled in.

use std::sync::LazyLock;

/// The list as shipped: one word a line; blank lines and `#` comments ignored.
const SOURCE: &str = include_str!("../../assets/stopwords-en.txt");

/// The English stop words, in the file's (sorted) order.
pub(crate) static ENGLISH: LazyLock<Vec<&'static str>> = LazyLock::new(|| parse(SOURCE));

fn parse(text: &'static str) -> Vec<&'static str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_lowercase_sorted_unique_single_words() {
        assert_eq!(ENGLISH.len(), 126);
        assert_eq!(ENGLISH.first(), Some(&"a"));
        assert_eq!(ENGLISH.last(), Some(&"yourselves"));
        assert!(
            ENGLISH.windows(2).all(|w| w[0] < w[1]),
            "sorted, no duplicates"
        );
        for w in ENGLISH.iter() {
            assert!(
                w.chars().all(|c| c.is_lowercase()),
                "{w:?}: one lowercase word, as tokens are compared after lowercasing"
            );
        }
    }

    #[test]
    fn comments_and_blank_lines_are_ignored() {
        assert_eq!(parse("# c\n\n the \nof\r\n#x\n"), ["the", "of"]);
    }
}
