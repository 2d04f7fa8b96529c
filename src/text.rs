//! Normalising and tokenising text.
//!
//! Word mode follows Unicode word segmentation (UAX #29, via unicode-segmentation's
//! `unicode_words`) and lowercases unless asked not to, so punctuation, case and white
//! space never make two documents differ. Character mode uses grapheme clusters with
//! white-space runs collapsed to one space.
//!
//! Segmentation is the slow part of the pipeline, so lines that are pure ASCII take a fast
//! path that applies the same UAX #29 rules restricted to ASCII (a line break always ends
//! a word, so lines can be classified independently). A property test checks that both
//! paths give identical tokens.

use crate::hash::token_hash;
use unicode_segmentation::UnicodeSegmentation;

/// What a token is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Unit {
    /// Unicode words.
    #[default]
    Word,
    /// Grapheme clusters (characters as a reader sees them).
    Char,
}

impl Unit {
    pub fn name(self) -> &'static str {
        match self {
            Unit::Word => "word",
            Unit::Char => "char",
        }
    }
}

/// How text becomes tokens.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TextOptions {
    pub unit: Unit,
    /// Keep letter case (default: lowercase everything).
    pub keep_case: bool,
    /// Drop the built-in English stop words (word mode only).
    pub stopwords: bool,
}

/// Turns text into a stream of 64-bit token hashes. Reuses its buffers between documents.
pub struct Tokenizer {
    opts: TextOptions,
    /// Sorted hashes of the stop words, when they are dropped.
    stop: Vec<u64>,
    buf: Vec<u8>,
}

impl Tokenizer {
    pub fn new(opts: &TextOptions) -> Self {
        let mut stop: Vec<u64> = if opts.stopwords && opts.unit == Unit::Word {
            crate::stopwords::ENGLISH
                .iter()
                .map(|w| token_hash(w.as_bytes()))
                .collect()
        } else {
            Vec::new()
        };
        stop.sort_unstable();
        Tokenizer {
            opts: opts.clone(),
            stop,
            buf: Vec::new(),
        }
    }

    pub fn options(&self) -> &TextOptions {
        &self.opts
    }

    /// Appends the hashes of `text`'s tokens to `out`.
    pub fn token_hashes(&mut self, text: &str, out: &mut Vec<u64>) {
        match self.opts.unit {
            Unit::Word => self.word_hashes(text, out),
            Unit::Char => self.char_hashes(text, out),
        }
    }

    fn word_hashes(&mut self, text: &str, out: &mut Vec<u64>) {
        let stop = &self.stop;
        let mut push = |h: u64| {
            if stop.is_empty() || stop.binary_search(&h).is_err() {
                out.push(h);
            }
        };
        let keep_case = self.opts.keep_case;
        let lower = &mut self.buf;
        if text.is_ascii() {
            // Most documents: one scan of the whole text. A line break is a non-word
            // byte that joins nothing, so this splits exactly as line by line would.
            ascii_hashes(text.as_bytes(), keep_case, lower, &mut push);
            return;
        }
        for line in text.split('\n') {
            if line.is_ascii() {
                ascii_hashes(line.as_bytes(), keep_case, lower, &mut push);
            } else {
                for w in line.unicode_words() {
                    push(hash_word(w, keep_case));
                }
            }
        }
    }

    fn char_hashes(&mut self, text: &str, out: &mut Vec<u64>) {
        let space = token_hash(b" ");
        // Whether the last token pushed was a (collapsed) space, or nothing was pushed yet:
        // both swallow further white space, which trims the start.
        let mut after_space = true;
        let mut push = |g: &str, out: &mut Vec<u64>| {
            if g.chars().all(char::is_whitespace) {
                if !after_space {
                    out.push(space);
                    after_space = true;
                }
            } else {
                out.push(token_hash(g.as_bytes()));
                after_space = false;
            }
        };
        let lowered;
        let text = if self.opts.keep_case {
            text
        } else {
            lowered = text.to_lowercase();
            &lowered
        };
        if text.is_ascii() {
            // Every ASCII byte is its own grapheme cluster, but for CR LF, which is white
            // space and collapses anyway.
            for i in 0..text.len() {
                push(&text[i..i + 1], out);
            }
        } else {
            for g in text.graphemes(true) {
                push(g, out);
            }
        }
        if after_space && out.last() == Some(&space) {
            out.pop(); // trim the end
        }
    }
}

/// The hashes of an ASCII text's words. Word classes don't depend on case, so the text is
/// scanned as it is and only the words that need it are lowercased (into `lower`).
fn ascii_hashes(s: &[u8], keep_case: bool, lower: &mut Vec<u8>, push: &mut impl FnMut(u64)) {
    ascii_words(s, |w| {
        if keep_case || !w.iter().any(u8::is_ascii_uppercase) {
            push(token_hash(w));
        } else {
            lower.clear();
            lower.extend(w.iter().map(u8::to_ascii_lowercase));
            push(token_hash(lower));
        }
    })
}

/// The hash of one word as the Unicode path normalises it.
fn hash_word(w: &str, keep_case: bool) -> u64 {
    if keep_case {
        token_hash(w.as_bytes())
    } else if w.is_ascii() {
        let lower: Vec<u8> = w.bytes().map(|b| b.to_ascii_lowercase()).collect();
        token_hash(&lower)
    } else {
        token_hash(w.to_lowercase().as_bytes())
    }
}

/// The normalised tokens of `text` as strings, by the reference (Unicode) path. Used where
/// the words themselves matter (tests, the diff view), not in the indexing hot path.
pub fn tokens(text: &str, opts: &TextOptions) -> Vec<String> {
    let norm = |s: &str| {
        if opts.keep_case {
            s.to_string()
        } else {
            s.to_lowercase()
        }
    };
    match opts.unit {
        Unit::Word => text
            .unicode_words()
            .map(norm)
            .filter(|w| !opts.stopwords || !crate::stopwords::ENGLISH.contains(&w.as_str()))
            .collect(),
        Unit::Char => {
            let text = norm(text);
            let mut out: Vec<String> = Vec::new();
            for g in text.graphemes(true) {
                if g.chars().all(char::is_whitespace) {
                    if out.last().is_some_and(|l| l != " ") {
                        out.push(" ".to_string());
                    }
                } else {
                    out.push(g.to_string());
                }
            }
            if out.last().is_some_and(|l| l == " ") {
                out.pop();
            }
            out
        }
    }
}

// Word-break classes of ASCII bytes (UAX #29, table 3).
const OTHER: u8 = 0;
const LETTER: u8 = 1; // ALetter
const NUMERIC: u8 = 2;
const EXTEND_NUM_LET: u8 = 3; // '_'
const MID_LETTER: u8 = 4; // ':'
const MID_NUM_LET: u8 = 5; // '.' and the Single_Quote '\'' (MidNumLetQ)
const MID_NUM: u8 = 6; // ',' ';'

const fn ascii_classes() -> [u8; 256] {
    let mut t = [OTHER; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        t[b] = if c.is_ascii_alphabetic() {
            LETTER
        } else if c.is_ascii_digit() {
            NUMERIC
        } else {
            match c {
                b'_' => EXTEND_NUM_LET,
                b':' => MID_LETTER,
                b'.' | b'\'' => MID_NUM_LET,
                b',' | b';' => MID_NUM,
                _ => OTHER,
            }
        };
        b += 1;
    }
    t
}

static CLASS: [u8; 256] = ascii_classes();

const fn word_bytes() -> [bool; 256] {
    let classes = ascii_classes();
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = matches!(classes[b], LETTER | NUMERIC | EXTEND_NUM_LET);
        b += 1;
    }
    t
}

/// Bytes that are part of a word by themselves: letters, digits, '_'.
static WORD: [bool; 256] = word_bytes();

/// Calls `emit` with each word of an ASCII line, exactly as `unicode_words` would split it:
/// letters, digits and '_' join (WB5, WB8–WB10, WB13a/b); a single ':', '.' or '\'' joins
/// two letters (WB6/7); a single ',', ';', '.' or '\'' joins two digits (WB11/12); segments
/// without a letter or digit are dropped.
///
/// The inner loop only asks "is this a word byte?", which is predictable; the rarer
/// punctuation rules are looked at only where a run of word bytes ends.
pub fn ascii_words(s: &[u8], mut emit: impl FnMut(&[u8])) {
    let n = s.len();
    let mut i = 0;
    loop {
        while i < n && !WORD[s[i] as usize] {
            i += 1;
        }
        if i == n {
            return;
        }
        let start = i;
        loop {
            while i < n && WORD[s[i] as usize] {
                i += 1;
            }
            // s[i - 1] is a word byte; s[i] is not (or the line ended).
            if i + 1 < n {
                let (prev, mid, next) = (
                    CLASS[s[i - 1] as usize],
                    CLASS[s[i] as usize],
                    CLASS[s[i + 1] as usize],
                );
                let letters =
                    prev == LETTER && next == LETTER && matches!(mid, MID_LETTER | MID_NUM_LET);
                let digits =
                    prev == NUMERIC && next == NUMERIC && matches!(mid, MID_NUM | MID_NUM_LET);
                if letters || digits {
                    i += 2;
                    continue;
                }
            }
            break;
        }
        let word = &s[start..i];
        // Only a run of '_' has no letter or digit (punctuation never joins to '_').
        if word[0] != b'_' || word.iter().any(|&b| b != b'_') {
            emit(word);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn words(text: &str) -> Vec<String> {
        tokens(text, &TextOptions::default())
    }

    fn fast_words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        ascii_words(text.as_bytes(), |w| {
            out.push(String::from_utf8(w.to_vec()).unwrap())
        });
        out
    }

    fn hashes(text: &str, opts: &TextOptions) -> Vec<u64> {
        let mut out = Vec::new();
        Tokenizer::new(opts).token_hashes(text, &mut out);
        out
    }

    #[test]
    fn words_ignore_case_punctuation_and_space() {
        let opts = TextOptions::default();
        assert_eq!(
            hashes("Hello,   world! It's 3.14 -- e.g. x_y", &opts),
            hashes("hello world\n\nit's 3.14 e.g x_y.", &opts)
        );
        assert_eq!(words("Hello, World!"), vec!["hello", "world"]);
        assert_eq!(
            words("don't stop: a:b 1,000.5 e.g. __ _x"),
            vec!["don't", "stop", "a:b", "1,000.5", "e.g", "_x"]
        );
    }

    #[test]
    fn keep_case_keeps_case() {
        let opts = TextOptions {
            keep_case: true,
            ..Default::default()
        };
        assert_ne!(hashes("Hello", &opts), hashes("hello", &opts));
        assert_eq!(
            hashes("Hello", &TextOptions::default()),
            hashes("hello", &TextOptions::default())
        );
    }

    #[test]
    fn stopwords_are_dropped() {
        let opts = TextOptions {
            stopwords: true,
            ..Default::default()
        };
        assert_eq!(
            hashes("the cat and THE hat", &opts),
            hashes("cat hat", &opts)
        );
        assert_eq!(tokens("The cat and the hat", &opts), vec!["cat", "hat"]);
    }

    #[test]
    fn unicode_text_is_segmented_and_lowercased() {
        let opts = TextOptions::default();
        assert_eq!(
            words("Grüße, ÉCOLE! Straße"),
            vec!["grüße", "école", "straße"]
        );
        // A non-ASCII line and an ASCII line hash the same words the same way.
        assert_eq!(hashes("Hello café", &opts)[0], hashes("hello", &opts)[0]);
    }

    #[test]
    fn char_mode_collapses_white_space() {
        let opts = TextOptions {
            unit: Unit::Char,
            ..Default::default()
        };
        assert_eq!(hashes("  A b\t\n c  ", &opts), hashes("a b c", &opts));
        assert_eq!(
            tokens("  A  é\u{301}x ", &opts),
            vec!["a", " ", "é\u{301}", "x"]
        );
        assert_eq!(hashes("  A  é\u{301}x ", &opts).len(), 4);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The ASCII fast path splits exactly like unicode_words.
        #[test]
        fn ascii_fast_path_matches_unicode_words(s in "[a-zA-Z0-9_.:',; \t!?()\"-]{0,40}") {
            let reference: Vec<String> = s.unicode_words().map(str::to_string).collect();
            prop_assert_eq!(fast_words(&s), reference);
        }

        /// The tokenizer's hashes equal the hashes of the reference tokens, on any text.
        #[test]
        fn hashes_match_reference_tokens(s in "[a-zA-Zé0-9_.:',; \n\t!ÄΣ-]{0,60}", keep_case: bool) {
            let opts = TextOptions { keep_case, ..Default::default() };
            let reference: Vec<u64> = tokens(&s, &opts).iter().map(|w| token_hash(w.as_bytes())).collect();
            prop_assert_eq!(hashes(&s, &opts), reference);
        }

        /// The same on ASCII text of several lines (CRLF too), which is scanned whole.
        #[test]
        fn ascii_text_scanned_whole_matches_reference_tokens(s in "[a-zA-Z0-9_.:',; \n\r\t!-]{0,80}", keep_case: bool) {
            let opts = TextOptions { keep_case, ..Default::default() };
            let reference: Vec<u64> = tokens(&s, &opts).iter().map(|w| token_hash(w.as_bytes())).collect();
            prop_assert_eq!(hashes(&s, &opts), reference);
        }

        #[test]
        fn char_hashes_match_reference_tokens(s in "[a-zA-Zé\u{301}0-9 \n\t\r.]{0,40}", keep_case: bool) {
            let opts = TextOptions { unit: Unit::Char, keep_case, ..Default::default() };
            let reference: Vec<u64> = tokens(&s, &opts).iter().map(|w| token_hash(w.as_bytes())).collect();
            prop_assert_eq!(hashes(&s, &opts), reference);
        }
    }
}
