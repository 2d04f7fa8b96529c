//! A document as a record of a file of many gives it.

/// A document extracted from a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Record {
    /// The id the record gives itself, if any.
    pub(crate) id: Option<String>,
    pub(crate) text: String,
    /// The title the record gives itself (`--title-field`, SGML's `<TITLE>`), if any;
    /// else the document's first non-empty line is its title ([`title_of`]).
    pub(crate) title: Option<String>,
    /// The values of the metadata fields asked for (`--meta-field`), in that order; an
    /// empty string where the record has none.
    pub(crate) meta: Vec<String>,
}

/// What names a document besides its id: its title, and its metadata (the values of the
/// fields asked for, in order; none for a plain file).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Labels {
    pub(crate) title: String,
    pub(crate) meta: Vec<String>,
}

/// Longest title kept, in bytes (cut at a character boundary): a title names a document
/// in a list row, and a corpus of millions keeps every one in memory.
pub const TITLE_MAX: usize = 200;

/// A document's title: the one its record gives if not blank, else the first line of its
/// text that is not blank; white space runs collapsed to one space, control characters
/// dropped, at most [`TITLE_MAX`] bytes.
pub fn title_of(given: Option<&str>, text: &str) -> String {
    let source = given
        .filter(|t| !t.trim().is_empty())
        .or_else(|| text.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("");
    let mut out = String::with_capacity(source.len().min(TITLE_MAX));
    // A word's control characters dropped, in a buffer only for the words that have any
    // (a String per word was about 5% of the CPU time of `pairs` on 50,000 files of one line,
    // in perf).
    let mut clean = String::new();
    for word in source.split_whitespace() {
        let word = if word.chars().any(char::is_control) {
            clean.clear();
            clean.extend(word.chars().filter(|c| !c.is_control()));
            clean.as_str()
        } else {
            word
        };
        if word.is_empty() {
            continue;
        }
        let room = TITLE_MAX.saturating_sub(out.len() + !out.is_empty() as usize);
        if room == 0 {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        let mut cut = word.len().min(room);
        while !word.is_char_boundary(cut) {
            cut -= 1;
        }
        out.push_str(&word[..cut]);
        if cut < word.len() {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_given_or_the_first_line() {
        assert_eq!(title_of(Some("  A  title\n"), "text"), "A title");
        assert_eq!(
            title_of(Some("   "), "\n\n  first   line \nsecond"),
            "first line"
        );
        assert_eq!(title_of(None, ""), "");
        assert_eq!(title_of(None, "tab\there\u{3}x"), "tab herex");
        let long = "é".repeat(150);
        let t = title_of(None, &long);
        assert!(
            t.len() <= TITLE_MAX && t.chars().all(|c| c == 'é'),
            "{}",
            t.len()
        );
        assert_eq!(t.len(), TITLE_MAX);
    }
}
