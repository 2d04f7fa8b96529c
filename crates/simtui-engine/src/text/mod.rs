//! Normalising and tokenising text.
//!
//! Word mode follows Unicode word segmentation (UAX #29, via unicode-segmentation's
//! `unicode_words`) and lowercases unless asked not to, so punctuation, case and white
//! space never make two documents differ. Character mode uses grapheme clusters with
//! white-space runs collapsed to one space.
//!
//! Segmentation is the slow part of the pipeline, so words take a fast path ([`fast`])
//! that applies the same UAX #29 rules restricted to ASCII and the common non-ASCII
//! letters and punctuation ([`kinds`]), on bit masks of 64 bytes at a time. Only the
//! pieces of text around other characters (combining marks, CJK, emoji, ...) go through
//! the full segmenter, cut where it always breaks ([`pieces`]); character mode is cut
//! the same way ([`chars`]). Property tests check that every path gives exactly the
//! reference's tokens.
//!
//! Cleaning, in word mode only and in this order: `letters_only` drops the tokens that
//! hold a digit or no letter at all (as the tm package's `removeNumbers` and
//! `removePunctuation` leave a Reuters text), `stopwords` drops a language's stop words,
//! and `stem` reduces each remaining word to its Snowball stem. These look at each
//! word's text, so they take a slower path that spells the words out.

#[cfg(target_arch = "x86_64")]
mod avx2;
mod chars;
mod fast;
mod kinds;
pub mod lang;
mod pieces;
pub mod stopwords;
mod swar;
#[cfg(test)]
mod tests;
mod words;

pub use lang::Language;

use crate::hash::token_hash;
use pieces::{Piece, Pieces, WORDS};
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
        let (keep_case, base) = (self.opts.keep_case, out.len());
        // Most documents take the fast path whole; the others are cut into pieces.
        if !words::word_hashes(text.as_bytes(), keep_case, out) {
            for piece in Pieces::new(text, WORDS) {
                match piece {
                    Piece::Fast(t) => {
                        let taken = words::word_hashes(t.as_bytes(), keep_case, out);
                        debug_assert!(taken, "a fast piece");
                    }
                    Piece::Slow(t) => {
                        out.extend(t.unicode_words().map(|w| hash_word(w, keep_case)))
                    }
                }
            }
        }
        if !self.stop.is_empty() {
            let mut kept = base;
            for i in base..out.len() {
                if self.stop.binary_search(&out[i]).is_err() {
                    out[kept] = out[i];
                    kept += 1;
                }
            }
            out.truncate(kept);
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
        for piece in Pieces::new(text, WORDS) {
            match piece {
                Piece::Fast(t) => {
                    words::word_ranges(t.as_bytes(), |start, end| each(&t[start..end]))
                }
                Piece::Slow(t) => t.unicode_words().for_each(&mut each),
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
        chars::char_hashes(text, self.opts.keep_case, out)
    }
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
