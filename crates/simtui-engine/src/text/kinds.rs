//! Which non-ASCII characters the fast path takes, and how it lowercases them.
//!
//! The fast path ([`super::fast`]) knows three kinds of characters: word characters
//! (letters, digits, '_'), joiners, and the rest, which neither belong to a word nor
//! join one. Beyond ASCII it takes the 2-byte characters (U+0080..U+07FF: Latin-1,
//! Latin Extended, IPA, Greek, Cyrillic, Armenian, Arabic, ...) that UAX #29 treats as
//! plain letters (ALetter, whose lowercase is one character of 2 bytes, as in "é", "ß",
//! "Ж") or as the rest ("«", "¿", "×", no-break space), and the punctuation of General
//! Punctuation and Currency Symbols (U+2000..U+20FF) that is the rest (dashes, double
//! quotation marks, ellipsis, "€"). Everything else goes to the full segmenter:
//! combining marks and other Extend or Format characters, joiners such as U+2019 (’),
//! Hebrew letters, digits of other scripts, capital sigma (whose lowercase depends on
//! its neighbours), CJK, emoji.
//!
//! The table is not transcribed from the Unicode data but asked of the segmenter itself
//! once per process: a character counts as a letter only if it segments as 'a' does in
//! the contexts that tell the word-break classes apart, so the fast path cannot drift
//! from the crate's Unicode version.

use crate::hash::token_hash;
use std::sync::OnceLock;
use unicode_segmentation::UnicodeSegmentation;

/// A 2-byte character the fast path leaves to the full segmenter.
const SLOW: u16 = 0;
/// A 2-byte character that is neither part of a word nor joins one.
const REST: u16 = 1;
// Any other entry is a letter's: the code point of its lowercase, 2 bytes long too.

struct Kinds {
    /// By code point below U+0800 (the first 128, ASCII, unused).
    two: Vec<u16>,
    /// Whether each of U+2000..U+20FF is the rest.
    punct: Vec<bool>,
}

fn kinds() -> &'static Kinds {
    static KINDS: OnceLock<Kinds> = OnceLock::new();
    KINDS.get_or_init(Kinds::probe)
}

/// The code point of the 2-byte character with these bytes.
#[inline(always)]
fn code_point(lead: u8, cont: u8) -> usize {
    ((lead as usize & 0x1f) << 6) | (cont as usize & 0x3f)
}

/// The length of the character at `s[i]`, a non-ASCII character of UTF-8 text, if the
/// fast path takes it.
pub(super) fn fast_char_len(s: &[u8], i: usize) -> Option<usize> {
    let lead = s[i];
    if lead < 0xe0 {
        (kinds().two[code_point(lead, s[i + 1])] != SLOW).then_some(2)
    } else if lead == 0xe2 && s[i + 1] < 0x84 {
        let offset = ((s[i + 1] as usize & 0x3f) << 6) | (s[i + 2] as usize & 0x3f);
        kinds().punct[offset].then_some(3)
    } else {
        None
    }
}

/// Whether the non-ASCII byte `s[p]` belongs to a letter, in text of ASCII and
/// characters the fast path takes (so a letter's 2 bytes, or a character of the rest).
pub(super) fn in_letter(s: &[u8], p: usize) -> bool {
    let lead = if s[p] >= 0xc0 {
        p
    } else if p > 0 && s[p - 1] >= 0xc0 {
        p - 1
    } else {
        return false; // the last byte of a 3-byte character
    };
    s[lead] < 0xe0 && kinds().two[code_point(s[lead], s[lead + 1])] > REST
}

/// `token_hash` of a word of ASCII and 2-byte letters, lowercased.
#[cold]
pub(super) fn hash_lowercase(word: &[u8]) -> u64 {
    let mut small = [0u8; 64];
    let mut large = Vec::new();
    let out = if word.len() <= small.len() {
        &mut small[..word.len()]
    } else {
        large.resize(word.len(), 0);
        &mut large[..]
    };
    let two = &kinds().two;
    let mut i = 0;
    while i < word.len() {
        let b = word[i];
        if b < 0x80 {
            out[i] = b.to_ascii_lowercase();
            i += 1;
        } else {
            let lower = two[code_point(b, word[i + 1])];
            out[i] = 0xc0 | (lower >> 6) as u8;
            out[i + 1] = 0x80 | (lower & 0x3f) as u8;
            i += 2;
        }
    }
    token_hash(out)
}

impl Kinds {
    fn probe() -> Kinds {
        let two = (0..0x800)
            .map(|cp| match char::from_u32(cp) {
                Some(c) if cp >= 0x80 => two_byte_kind(c),
                _ => SLOW,
            })
            .collect();
        let punct = (0x2000..0x2100)
            .map(|cp| char::from_u32(cp).is_some_and(is_rest))
            .collect();
        Kinds { two, punct }
    }
}

/// The table entry of a 2-byte character.
fn two_byte_kind(c: char) -> u16 {
    if is_letter(c) && c != 'Σ' {
        let mut lower = c.to_lowercase();
        if let (Some(l), None) = (lower.next(), lower.next())
            && l.len_utf8() == 2
        {
            return l as u16;
        }
    }
    if is_rest(c) { REST } else { SLOW }
}

/// The words of `s` by the reference segmenter.
fn words(s: &str) -> Vec<&str> {
    s.unicode_words().collect()
}

/// Whether the segmenter treats `c` as it treats 'a': alone it is a word (so it is
/// alphabetic), it joins a letter before it (WB5), and ".a" after it (WB6/7: only after
/// ALetter or Hebrew_Letter), and not a single quote after it (WB7a: Hebrew_Letter).
fn is_letter(c: char) -> bool {
    let alone = c.to_string();
    let after_a = format!("a{c}");
    let before_dot_a = format!("{c}.a");
    c.is_alphabetic()
        && words(&alone) == [alone.as_str()]
        && words(&after_a) == [after_a.as_str()]
        && words(&before_dot_a) == [before_dot_a.as_str()]
        && words(&format!("{c}'")) == [alone.as_str()]
}

/// Whether the segmenter never makes `c` part of a word nor joins anything across it:
/// alone it is no word, and it splits letters (not a MidLetter, MidNumLet, Extend,
/// Format or ZWJ, which would join them) and digits (not a MidNum).
fn is_rest(c: char) -> bool {
    !c.is_alphanumeric()
        && words(&c.to_string()).is_empty()
        && words(&format!("a{c}a")) == ["a", "a"]
        && words(&format!("1{c}1")) == ["1", "1"]
}
