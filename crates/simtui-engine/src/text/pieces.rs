//! Text that is not all ASCII: the stretches the fast path segments exactly, and the
//! pieces around the other characters, which the full segmenter takes.
//!
//! Pieces are cut where UAX #29 puts a word boundary whatever the text on either side:
//! after an ASCII character that is always a segment of its own (white space, control
//! characters and the punctuation that never joins a word, so not a letter, digit, '_',
//! '.', '\'', ':', ',', ';' or '"') when an ASCII character follows. An ASCII character
//! is never Extend, Format or ZWJ (which WB4 would attach to the one before), nor a
//! regional indicator or an emoji (WB3c, WB15/16), so the segment ends there. The two
//! exceptions: a space followed by a space (WB3d keeps white space together) and CR LF
//! (WB3). A segment never looks past such a cut either, so segmenting each piece on its
//! own gives the words of the whole text, in order. Grapheme clusters (character mode)
//! are cut the same way, by their own rules ([`GRAPHEMES`]).

use super::kinds;

/// A slice of the text and who segments it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Piece<'a> {
    /// The fast path, exactly.
    Fast(&'a str),
    /// The full segmenter.
    Slow(&'a str),
}

/// Where pieces start and end: the characters that need the full segmenter, and the
/// places it would always break at.
#[derive(Clone, Copy)]
pub(super) struct Rules {
    /// Where the first character from the given byte on that needs the full segmenter
    /// starts, if any does.
    next_slow: fn(&[u8], usize) -> Option<usize>,
    /// Whether a piece may start at the given byte.
    is_cut: fn(&[u8], usize) -> bool,
}

/// Word segmentation (UAX #29 words): the rules of this module's documentation.
pub(super) const WORDS: Rules = Rules {
    next_slow: next_slow_word_char,
    is_cut: is_word_cut,
};

/// Grapheme clusters: every non-ASCII character goes to the full segmenter, and a
/// boundary between two ASCII characters is certain (GB3-GB5, GB999) but in CR LF: no
/// ASCII character is Extend, ZWJ, SpacingMark, Prepend or a regional indicator, and the
/// rules that look back (GB9c, GB11, GB12/13) stop at an ASCII character.
pub(super) const GRAPHEMES: Rules = Rules {
    next_slow: next_high,
    is_cut: is_grapheme_cut,
};

/// The consecutive pieces of a text, which together make it up.
pub(super) struct Pieces<'a> {
    text: &'a str,
    rules: Rules,
    /// Where the next piece starts.
    done: usize,
    /// A slow piece found after the fast stretch just given out.
    pending: Option<(usize, usize)>,
}

impl<'a> Pieces<'a> {
    pub(super) fn new(text: &'a str, rules: Rules) -> Self {
        Pieces {
            text,
            rules,
            done: 0,
            pending: None,
        }
    }
}

impl<'a> Iterator for Pieces<'a> {
    type Item = Piece<'a>;

    fn next(&mut self) -> Option<Piece<'a>> {
        let (text, s) = (self.text, self.text.as_bytes());
        if let Some((start, end)) = self.pending.take() {
            self.done = end;
            return Some(Piece::Slow(&text[start..end]));
        }
        let done = self.done;
        if done >= s.len() {
            return None;
        }
        let Some(i) = (self.rules.next_slow)(s, done) else {
            self.done = s.len();
            return Some(Piece::Fast(&text[done..]));
        };
        let is_cut = self.rules.is_cut;
        let start = (done + 1..=i).rev().find(|&p| is_cut(s, p)).unwrap_or(done);
        let end = (i + 1..s.len()).find(|&p| is_cut(s, p)).unwrap_or(s.len());
        if start > done {
            self.pending = Some((start, end));
            self.done = start;
            Some(Piece::Fast(&text[done..start]))
        } else {
            self.done = end;
            Some(Piece::Slow(&text[start..end]))
        }
    }
}

/// Where the first non-ASCII byte from `at` on is.
fn next_high(s: &[u8], at: usize) -> Option<usize> {
    let rest = &s[at..];
    let mut chunks = rest.chunks_exact(16);
    for (k, chunk) in chunks.by_ref().enumerate() {
        let high =
            u128::from_le_bytes(chunk.try_into().expect("16 bytes")) & (u128::MAX / 0xff * 0x80);
        if high != 0 {
            return Some(at + 16 * k + high.trailing_zeros() as usize / 8);
        }
    }
    let tail = rest.len() - chunks.remainder().len();
    let i = chunks.remainder().iter().position(|&b| b >= 0x80)?;
    Some(at + tail + i)
}

/// Where the first character from `at` on that the fast word path does not take starts.
fn next_slow_word_char(s: &[u8], mut at: usize) -> Option<usize> {
    loop {
        at = next_high(s, at)?;
        match kinds::fast_char_len(s, at) {
            Some(len) => at += len,
            None => return Some(at),
        }
    }
}

/// Whether UAX #29 has a word boundary at `p` (inside `s`) whatever precedes `s[p - 1]`
/// and follows `s[p]`.
fn is_word_cut(s: &[u8], p: usize) -> bool {
    let (x, y) = (s[p - 1], s[p]);
    y < 0x80 && ALONE[x as usize] && !(x == b' ' && y == b' ') && !(x == b'\r' && y == b'\n')
}

/// Whether a grapheme cluster always ends at `p` (inside `s`).
fn is_grapheme_cut(s: &[u8], p: usize) -> bool {
    let (x, y) = (s[p - 1], s[p]);
    x < 0x80 && y < 0x80 && !(x == b'\r' && y == b'\n')
}

/// ASCII characters that are always a segment of their own (or of a run of spaces, or
/// CR LF): Word_Break Other, CR, LF, Newline or WSegSpace.
const fn alone() -> [bool; 256] {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        t[b] = !(c.is_ascii_alphanumeric()
            || matches!(c, b'_' | b'.' | b'\'' | b':' | b',' | b';' | b'"'));
        b += 1;
    }
    t
}

static ALONE: [bool; 256] = alone();
