//! Normalising and tokenising text.
//!
//! Word mode follows Unicode word segmentation (UAX #29, via unicode-segmentation's
//! `unicode_words`) and lowercases unless asked not to, so punctuation, case and white
//! space never make two documents differ. Character mode uses grapheme clusters with
//! white-space runs collapsed to one space.
//!
//! Segmentation is the slow part of the pipeline, so ASCII text (a whole document, or each
//! ASCII line of another: a line break always ends a word) takes a fast path that applies
//! the same UAX #29 rules restricted to ASCII, on bit masks of 64 bytes at a time. Property
//! tests check that both paths give identical tokens.
//!
//! Cleaning, in word mode only and in this order: `letters_only` drops the tokens that
//! hold a digit or no letter at all (as the tm package's `removeNumbers` and
//! `removePunctuation` leave a Reuters text), `stopwords` drops a language's stop words,
//! and `stem` reduces each remaining word to its Snowball stem. These look at each
//! word's text, so they take a slower path that spells the words out.

pub mod lang;
pub mod stopwords;

pub use lang::Language;

use crate::hash::{token_hash, token_round, token_start};
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
    /// `"word"` or `"char"`, as `--unit` names it.
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
    /// What a token is: a word or a character.
    pub unit: Unit,
    /// Keep letter case (default: lowercase everything).
    pub keep_case: bool,
    /// Drop this language's stop words (word mode only): English is the built-in list.
    pub stopwords: Option<Language>,
    /// Reduce words to their stems with this language's Snowball stemmer (word mode
    /// only; a language without one, see [`Language::stemmed`], stems nothing). Stemmers
    /// expect lowercase words: with `keep_case`, capitalised words are stemmed as written.
    pub stem: Option<Language>,
    /// Drop the words that hold a digit, or no letter at all (word mode only).
    pub letters_only: bool,
}

impl TextOptions {
    /// Whether the words must be spelled out (stemmed or checked letter by letter)
    /// rather than hashed where they lie.
    fn spells_words(&self) -> bool {
        self.unit == Unit::Word && (self.stem.is_some() || self.letters_only)
    }

    /// The cleaning steps in force, as the command line names them (`--letters-only
    /// --stopwords english --stem english`); empty when there are none. Character mode
    /// has none, whatever the options say.
    pub fn cleaning(&self) -> String {
        let mut out = Vec::new();
        if self.unit == Unit::Word {
            if self.letters_only {
                out.push("--letters-only".to_string());
            }
            if let Some(l) = self.stopwords {
                out.push(format!("--stopwords {l}"));
            }
            if let Some(l) = self.stem {
                out.push(format!("--stem {l}"));
            }
        }
        out.join(" ")
    }
}

/// Whether a word is kept by `letters_only`: it has a letter and no digit.
pub fn letters_only(word: &str) -> bool {
    word.chars().any(char::is_alphabetic) && !word.chars().any(char::is_numeric)
}

/// Turns text into a stream of 64-bit token hashes.
pub struct Tokenizer {
    opts: TextOptions,
    /// Sorted hashes of the stop words, when they are dropped.
    stop: Vec<u64>,
    /// The stemmer, when words are stemmed.
    stemmer: Option<rust_stemmers::Stemmer>,
    /// A word being spelled out (lowercased), reused.
    word: String,
}

impl Tokenizer {
    /// A tokenizer for `opts`.
    pub fn new(opts: &TextOptions) -> Self {
        let word_mode = opts.unit == Unit::Word;
        let mut stop: Vec<u64> = match opts.stopwords.filter(|_| word_mode) {
            Some(lang) => lang
                .stopwords()
                .iter()
                .map(|w| token_hash(w.as_bytes()))
                .collect(),
            None => Vec::new(),
        };
        stop.sort_unstable();
        let stemmer = opts
            .stem
            .filter(|_| word_mode)
            .and_then(Language::algorithm)
            .map(rust_stemmers::Stemmer::create);
        Tokenizer {
            opts: opts.clone(),
            stop,
            stemmer,
            word: String::new(),
        }
    }

    /// The options it tokenises with.
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
        if self.opts.spells_words() {
            return self.spelled_word_hashes(text, out);
        }
        let stop = &self.stop;
        let mut push = |h: u64| {
            if stop.is_empty() || stop.binary_search(&h).is_err() {
                out.push(h);
            }
        };
        let keep_case = self.opts.keep_case;
        if text.is_ascii() {
            // Most documents: one scan of the whole text. A line break is a non-word
            // byte that joins nothing, so this splits exactly as line by line would.
            ascii_hashes(text.as_bytes(), keep_case, &mut push);
            return;
        }
        for line in text.split('\n') {
            if line.is_ascii() {
                ascii_hashes(line.as_bytes(), keep_case, &mut push);
            } else {
                for w in line.unicode_words() {
                    push(hash_word(w, keep_case));
                }
            }
        }
    }

    /// Word hashes when the words' letters matter (stemming, `letters_only`): each word
    /// is lowercased into a buffer, checked, stemmed and hashed.
    fn spelled_word_hashes(&mut self, text: &str, out: &mut Vec<u64>) {
        let mut word = std::mem::take(&mut self.word);
        let mut each = |w: &str| {
            word.clear();
            if self.opts.keep_case {
                word.push_str(w);
            } else if w.is_ascii() {
                word.extend(w.bytes().map(|b| b.to_ascii_lowercase() as char));
            } else {
                word.push_str(&w.to_lowercase());
            }
            if let Some(h) = self.clean(&word) {
                out.push(h);
            }
        };
        for line in text.split('\n') {
            if line.is_ascii() {
                let s = line.as_bytes();
                ascii_word_ranges(s, |start, end| each(&line[start..end]));
            } else {
                line.unicode_words().for_each(&mut each);
            }
        }
        self.word = word;
    }

    /// The hash of a normalised word after cleaning, or None when it is dropped.
    fn clean(&self, word: &str) -> Option<u64> {
        if self.opts.letters_only && !letters_only(word) {
            return None;
        }
        let h = token_hash(word.as_bytes());
        if !self.stop.is_empty() && self.stop.binary_search(&h).is_ok() {
            return None;
        }
        Some(match &self.stemmer {
            Some(s) => token_hash(s.stem(word).as_bytes()),
            None => h,
        })
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

/// The hashes of an ASCII text's words, equal to [`token_hash`] of each word lowercased
/// (unless `keep_case`). A word is loaded 8 bytes at a time, lowercased in the register and
/// hashed there, never copied.
fn ascii_hashes(s: &[u8], keep_case: bool, push: &mut impl FnMut(u64)) {
    ascii_word_ranges(s, |start, end| {
        let mut h = token_start(end - start);
        for at in (start..end).step_by(8) {
            let mut word = load_le(s, at) & low_bytes(end - at);
            if !keep_case {
                word = ascii_lowercase(word);
            }
            h = token_round(h, word);
        }
        push(h);
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
        Unit::Word => {
            let stop = opts.stopwords.map_or(&[][..], Language::stopwords);
            let stemmer = opts
                .stem
                .and_then(Language::algorithm)
                .map(rust_stemmers::Stemmer::create);
            text.unicode_words()
                .map(norm)
                .filter(|w| !opts.letters_only || letters_only(w))
                .filter(|w| !stop.contains(&w.as_str()))
                .map(|w| match &stemmer {
                    Some(s) => s.stem(&w).into_owned(),
                    None => w,
                })
                .collect()
        }
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

/// Calls `emit(start, end)` for each word of an ASCII text, exactly as `unicode_words`
/// would split it: letters, digits and '_' join (WB5, WB8–WB10, WB13a/b); a single ':',
/// '.' or '\'' joins two letters (WB6/7); a single ',', ';', '.' or '\'' joins two digits
/// (WB11/12); segments without a letter or digit are dropped.
///
/// The text is classified 64 bytes at a time into bit masks (8 bytes per register, see
/// [`classify`]), and words are read off the masks' runs with `trailing_zeros`: no branch
/// per byte, so none of the mispredictions a byte loop pays at every word's end. The
/// punctuation rules are looked at only where a possible joiner sits between word bytes.
fn ascii_word_ranges(s: &[u8], mut emit: impl FnMut(usize, usize)) {
    let n = s.len();
    let blocks = n.div_ceil(64);
    let block = |k: usize| {
        let at = 64 * k;
        match s.get(at..at + 64) {
            Some(b) => classify(b.try_into().expect("64 bytes")),
            None => {
                let mut b = [0u8; 64]; // zero is not a word byte: it ends the last word
                b[..n - at].copy_from_slice(&s[at..]);
                classify(&b)
            }
        }
    };
    let (mut word, mut joiner) = if blocks > 0 { block(0) } else { (0, 0) };
    // The last bits of the previous block: a word byte, and inside a word.
    let (mut word_before, mut inside_before) = (0u64, 0u64);
    // Where the word being read started, if one is.
    let mut open: Option<usize> = None;
    for k in 0..blocks {
        let at = 64 * k;
        let (next_word, next_joiner) = if k + 1 < blocks { block(k + 1) } else { (0, 0) };
        let mut inside = word;
        let mut between = joiner & ((word << 1) | word_before) & ((word >> 1) | (next_word << 63));
        while between != 0 {
            let i = between.trailing_zeros() as usize;
            between &= between - 1;
            if joins(s, at + i) {
                inside |= 1 << i;
            }
        }
        let before = (inside << 1) | inside_before;
        let (mut starts, mut stops) = (inside & !before, !inside & before);
        loop {
            match open {
                Some(start) => {
                    if stops == 0 {
                        break;
                    }
                    let end = at + stops.trailing_zeros() as usize;
                    stops &= stops - 1;
                    if has_letter_or_digit(&s[start..end]) {
                        emit(start, end);
                    }
                    open = None;
                }
                None => {
                    if starts == 0 {
                        break;
                    }
                    open = Some(at + starts.trailing_zeros() as usize);
                    starts &= starts - 1;
                }
            }
        }
        (word_before, inside_before) = (word >> 63, inside >> 63);
        (word, joiner) = (next_word, next_joiner);
    }
    if let Some(start) = open.filter(|&start| has_letter_or_digit(&s[start..])) {
        emit(start, n);
    }
}

/// Whether the punctuation at `s[i]`, between two word bytes, joins them into one word.
fn joins(s: &[u8], i: usize) -> bool {
    let (prev, mid, next) = (
        CLASS[s[i - 1] as usize],
        CLASS[s[i] as usize],
        CLASS[s[i + 1] as usize],
    );
    let letters = prev == LETTER && next == LETTER && matches!(mid, MID_LETTER | MID_NUM_LET);
    let digits = prev == NUMERIC && next == NUMERIC && matches!(mid, MID_NUM | MID_NUM_LET);
    letters || digits
}

/// Only a run of '_' has no letter or digit (punctuation never joins to '_').
fn has_letter_or_digit(word: &[u8]) -> bool {
    word[0] != b'_' || word.iter().any(|&b| b != b'_')
}

// Bit tricks on 8 ASCII bytes in a u64 ("SIMD within a register"): every byte is below
// 0x80, so adding a constant below 0x80 to each never carries into the next byte, and a
// byte's high bit answers a question about it.
const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The bytes of `v` equal to `c`, as high bits: a byte of `v ^ c` plus 0x7f reaches 0x80
/// exactly when it is not zero.
#[inline(always)]
fn bytes_equal(v: u64, c: u8) -> u64 {
    !(v ^ (LO * c as u64)).wrapping_add(LO * 0x7f) & HI
}

/// The bytes of `v` in `lo..=hi`, as high bits.
#[inline(always)]
fn bytes_between(v: u64, lo: u8, hi: u8) -> u64 {
    let at_least = v.wrapping_add(LO * (0x80 - lo) as u64);
    let above = v.wrapping_add(LO * (0x7f - hi) as u64);
    at_least & !above & HI
}

/// The 8 high bits of `h` packed into its low byte (byte j's bit to bit j).
#[inline(always)]
fn high_bits(h: u64) -> u64 {
    (h >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// One bit per byte of a 64-byte ASCII block: (word bytes: letters, digits and '_';
/// possible joiners: '.', '\'', ':', ',' and ';').
#[inline(always)]
fn classify(block: &[u8; 64]) -> (u64, u64) {
    let (mut word, mut joiner) = (0, 0);
    for (j, bytes) in block.chunks_exact(8).enumerate() {
        let v = u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
        let w = bytes_between(v | (LO * 0x20), b'a', b'z')
            | bytes_between(v, b'0', b'9')
            | bytes_equal(v, b'_');
        let p = bytes_equal(v, b'.')
            | bytes_equal(v, b'\'')
            | bytes_equal(v, b':')
            | bytes_equal(v, b',')
            | bytes_equal(v, b';');
        word |= high_bits(w) << (8 * j);
        joiner |= high_bits(p) << (8 * j);
    }
    (word, joiner)
}

/// 8 bytes of `s` from `at`, little-endian, zero-padded past its end.
#[inline(always)]
fn load_le(s: &[u8], at: usize) -> u64 {
    match s.get(at..at + 8) {
        Some(b) => u64::from_le_bytes(b.try_into().expect("8 bytes")),
        None => {
            let mut b = [0u8; 8];
            b[..s.len() - at].copy_from_slice(&s[at..]);
            u64::from_le_bytes(b)
        }
    }
}

/// A mask of the low `n` bytes (all 8 when `n >= 8`).
#[inline(always)]
fn low_bytes(n: usize) -> u64 {
    if n >= 8 { !0 } else { (1 << (8 * n)) - 1 }
}

/// ASCII letters of 8 bytes lowercased: 'A'..='Z' gain 0x20.
#[inline(always)]
fn ascii_lowercase(v: u64) -> u64 {
    v | (bytes_between(v, b'A', b'Z') >> 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn words(text: &str) -> Vec<String> {
        tokens(text, &TextOptions::default())
    }

    fn fast_words(text: &str) -> Vec<String> {
        let s = text.as_bytes();
        let mut out = Vec::new();
        ascii_word_ranges(s, |start, end| {
            out.push(String::from_utf8(s[start..end].to_vec()).unwrap())
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
            stopwords: Some(Language::English),
            ..Default::default()
        };
        assert_eq!(
            hashes("the cat and THE hat", &opts),
            hashes("cat hat", &opts)
        );
        assert_eq!(tokens("The cat and the hat", &opts), vec!["cat", "hat"]);
    }

    #[test]
    fn letters_only_drops_numbers_and_words_with_digits() {
        let opts = TextOptions {
            letters_only: true,
            ..Default::default()
        };
        assert_eq!(
            tokens(
                "In 1987 the B2B price rose 3.5% to $12, said Reuters' x_1 and _",
                &opts
            ),
            vec!["in", "the", "price", "rose", "to", "said", "reuters", "and"]
        );
        assert_eq!(
            hashes("In 1987 the B2B price rose", &opts),
            hashes("in the price rose", &TextOptions::default())
        );
        // Letters of any script count; digits of any script too.
        assert!(letters_only("école") && letters_only("don't"));
        assert!(!letters_only("٣") && !letters_only("x²") && !letters_only("__"));
    }

    #[test]
    fn stemming_reduces_words_to_their_snowball_stems() {
        let en = TextOptions {
            stem: Some(Language::English),
            ..Default::default()
        };
        assert_eq!(
            tokens(
                "Connected connections are CONNECTING the running runner",
                &en
            ),
            vec![
                "connect", "connect", "are", "connect", "the", "run", "runner"
            ]
        );
        assert_eq!(
            hashes("connected connecting", &en),
            hashes("connect connect", &TextOptions::default())
        );
        let de = TextOptions {
            stem: Some(Language::German),
            stopwords: Some(Language::German),
            ..Default::default()
        };
        // Stop words go before stemming: "und" and "die" are dropped, not stemmed.
        assert_eq!(tokens("Häuser und die Katzen", &de), vec!["haus", "katz"]);
        assert_eq!(
            hashes("Häuser und die Katzen", &de),
            hashes("haus katz", &TextOptions::default())
        );
        // A language without a stemmer stems nothing.
        let ca = TextOptions {
            stem: Some(Language::Catalan),
            ..Default::default()
        };
        assert_eq!(tokens("cases", &ca), vec!["cases"]);
        // Character mode has no words to clean.
        let chars = TextOptions {
            unit: Unit::Char,
            stem: Some(Language::English),
            letters_only: true,
            stopwords: Some(Language::English),
            ..Default::default()
        };
        assert_eq!(tokens("a 1", &chars), vec!["a", " ", "1"]);
        assert_eq!(chars.cleaning(), "");
        assert_eq!(
            TextOptions {
                letters_only: true,
                ..de.clone()
            }
            .cleaning(),
            "--letters-only --stopwords german --stem german"
        );
    }

    #[test]
    fn stop_word_lists_of_other_languages() {
        let fr = TextOptions {
            stopwords: Some(Language::French),
            ..Default::default()
        };
        assert_eq!(tokens("Le chat et la souris", &fr), vec!["chat", "souris"]);
        assert_eq!(
            hashes("Le chat et la souris", &fr),
            hashes("chat souris", &fr)
        );
        let ru = TextOptions {
            stopwords: Some(Language::Russian),
            ..Default::default()
        };
        assert_eq!(tokens("Кошка и собака", &ru), vec!["кошка", "собака"]);
        // A bare --stopwords, English, is the built-in list.
        assert_eq!(Language::English.stopwords(), &stopwords::ENGLISH[..]);
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

        /// Long ASCII texts, whose words and joiners straddle the 64-byte blocks the
        /// fast path classifies at a time, and words longer than 8 bytes.
        #[test]
        fn long_ascii_texts_match_reference_tokens(
            words in proptest::collection::vec("[a-zA-Z0-9_]{1,19}", 0..40),
            seps in proptest::collection::vec("[ .:',;\n_-]{1,2}", 40),
            keep_case: bool,
        ) {
            let s: String = words.iter().zip(&seps).map(|(w, p)| format!("{w}{p}")).collect();
            let opts = TextOptions { keep_case, ..Default::default() };
            let reference: Vec<String> = s.unicode_words().map(str::to_string).collect();
            prop_assert_eq!(fast_words(&s), reference);
            let reference: Vec<u64> = tokens(&s, &opts).iter().map(|w| token_hash(w.as_bytes())).collect();
            prop_assert_eq!(hashes(&s, &opts), reference);
        }

        /// The bit tricks answer as a byte loop does, for every ASCII byte in every lane.
        #[test]
        fn byte_masks_match_a_byte_loop(bytes in proptest::array::uniform8(0u8..128)) {
            let v = u64::from_le_bytes(bytes);
            let expect = |f: &dyn Fn(u8) -> bool| {
                bytes.iter().enumerate().fold(0u64, |m, (i, &b)| m | ((f(b) as u64) << i))
            };
            prop_assert_eq!(high_bits(bytes_equal(v, b'.')), expect(&|b| b == b'.'));
            prop_assert_eq!(high_bits(bytes_between(v, b'0', b'9')), expect(&|b| b.is_ascii_digit()));
            prop_assert_eq!(high_bits(bytes_between(v | (LO * 0x20), b'a', b'z')), expect(&|b| b.is_ascii_alphabetic()));
            let lower: Vec<u8> = bytes.iter().map(u8::to_ascii_lowercase).collect();
            prop_assert_eq!(ascii_lowercase(v).to_le_bytes().to_vec(), lower);
        }

        /// With every cleaning option, the spelled-out path hashes the reference tokens.
        #[test]
        fn cleaned_hashes_match_reference_tokens(
            s in "[a-zA-Zéü0-9_.:',; \n\t!ÄΣ-]{0,60}|(the|and|running|Connected|x1|2|und|die|Häuser| )+",
            keep_case: bool,
            letters: bool,
            stop in proptest::option::of(0u8..4),
            stem in proptest::option::of(0u8..4),
        ) {
            let langs = [Language::English, Language::German, Language::French, Language::Catalan];
            let opts = TextOptions {
                keep_case,
                letters_only: letters,
                stopwords: stop.map(|i| langs[i as usize]),
                stem: stem.map(|i| langs[i as usize]),
                ..Default::default()
            };
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
