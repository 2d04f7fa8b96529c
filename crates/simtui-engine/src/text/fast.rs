//! The fast path of word segmentation: UAX #29 restricted to ASCII and the non-ASCII
//! characters of [`kinds`] (2-byte letters and punctuation that joins nothing), on bit
//! masks of 64 bytes at a time, and the hashing of its words.
//!
//! Each 64-byte block is classified into three masks, one bit a byte: word bytes (letters,
//! digits, '_'), possible joiners ('.', '\'', ':', ',', ';') and non-ASCII bytes. Words are
//! then read off the masks' runs with `trailing_zeros`: no branch per byte, so none of the
//! mispredictions a byte loop pays at every word's end. The joining rules are looked at
//! only where a joiner sits between two word bytes.
//!
//! Words are hashed where they lie, a block's worth at a time: most are 8 ASCII bytes or
//! fewer, one load, a mask, a lowercase and a round of the hash. The others (longer,
//! non-ASCII, too near the end of the text for an 8-byte load) are noted in a bit mask
//! and hashed after the block's loop, which thus calls nothing.
//!
//! Classifying and hashing have an AVX2 version (`avx2`, taken when the processor has
//! it: nibble look-ups and `movemask`s, 4 words hashed at a time) and a portable one
//! (`swar`, SIMD within a register, and one word at a time) everywhere else, both built
//! on this module's span machinery; `words` picks one. Both are checked against each
//! other and against the reference segmenter.

use super::kinds;
use crate::hash::{token_round, token_start};

/// One bit per byte of a 64-byte block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Masks {
    /// Letters, digits and '_' (ASCII only; the caller adds non-ASCII letters).
    pub word: u64,
    /// '.', '\'', ':', ',' and ';': they may join the word bytes on either side.
    pub joiner: u64,
    /// Bytes of non-ASCII characters.
    pub high: u64,
}

/// The most words that end in a 64-byte block: each is followed by a byte outside it.
pub(super) const MAX_SPANS: usize = 32;

/// The segments that end in one block: `starts[..len]` and `ends[..len]`. The entries
/// past `len` are left over (from earlier blocks, or positions past the block), which a
/// hasher working on 16 at a time computes and ignores.
pub(super) struct Spans {
    pub starts: [usize; SPAN_SLOTS],
    pub ends: [usize; SPAN_SLOTS],
    pub len: usize,
}

/// Room for a block's spans written 16 at a time, one carried from before.
pub(super) const SPAN_SLOTS: usize = MAX_SPANS + 16;

impl Spans {
    pub fn starts(&self) -> &[usize] {
        &self.starts[..self.len]
    }

    pub fn ends(&self) -> &[usize] {
        &self.ends[..self.len]
    }
}

/// [`word_ranges`] with a given block classifier.
#[inline(always)]
pub(super) fn ranges_with(
    s: &[u8],
    classify: impl Fn(&[u8; 64]) -> Masks,
    mut emit: impl FnMut(usize, usize),
) {
    let complete = spans_with(s, classify, |spans| {
        for (&start, &end) in spans.starts().iter().zip(spans.ends()) {
            if has_letter_or_digit(&s[start..end]) {
                emit(start, end);
            }
        }
    });
    debug_assert!(complete, "only characters the fast path takes");
}

/// [`word_hashes`] with a given block classifier and span hasher, which appends the
/// hashes of a block's words to the Vec it gets.
#[inline(always)]
pub(super) fn hashes_with(
    s: &[u8],
    classify: impl Fn(&[u8; 64]) -> Masks,
    hash_spans: impl Fn(&[u8], &Spans, &mut Vec<u64>),
    out: &mut Vec<u64>,
) -> bool {
    let base = out.len();
    let complete = spans_with(s, classify, |spans| hash_spans(s, spans, out));
    if !complete {
        out.truncate(base);
    }
    complete
}

/// Calls `each` with the segments of `s` that UAX #29 makes of letters, digits, '_' and
/// the joiners between them, block by block (at most [`MAX_SPANS`] at a time), in order:
/// the words, and runs of '_' (which are no words). Blocks are classified by `classify`.
/// Stops and says false at a character the fast path does not take. Inlined into each
/// caller, so that the AVX2 version compiles the whole loop (and the caller's `each`)
/// with its features.
#[inline(always)]
pub(super) fn spans_with(
    s: &[u8],
    classify: impl Fn(&[u8; 64]) -> Masks,
    mut each: impl FnMut(&Spans),
) -> bool {
    let n = s.len();
    // One block more when the text fills its last one, so that every word ends in a block.
    let blocks = n / 64 + 1;
    // One call of `classify` (and of `block`), so that each is inlined.
    let mut tail = [0u8; 64];
    let mut cur = Masks::default();
    // The last bits of the previous block: a word byte, and inside a word.
    let (mut word_before, mut inside_before) = (0u64, 0u64);
    // Where the word running into this block started, if one does.
    let mut open: Option<usize> = None;
    let mut spans = Spans {
        starts: [0; SPAN_SLOTS],
        ends: [0; SPAN_SLOTS],
        len: 0,
    };
    // Block k is classified while block k - 1 is read: a joiner at the end of one looks
    // at the start of the next.
    for k in 0..=blocks {
        let next = if k < blocks {
            match block(s, k, &mut tail, &classify) {
                Some(next) => next,
                None => return false,
            }
        } else {
            Masks::default()
        };
        if k == 0 {
            cur = next;
            continue;
        }
        let at = 64 * (k - 1);
        let word = cur.word;
        let mut inside = word;
        let mut between =
            cur.joiner & ((word << 1) | word_before) & ((word >> 1) | (next.word << 63));
        while between != 0 {
            let i = between.trailing_zeros() as usize;
            between &= between - 1;
            if joins(s, at + i) {
                inside |= 1 << i;
            }
        }
        let before = (inside << 1) | inside_before;
        let (mut starts, mut stops) = (inside & !before, !inside & before);
        (word_before, inside_before) = (word >> 63, inside >> 63);
        cur = next;
        if stops == 0 {
            // No word ends here: one may start, or run on.
            if starts != 0 {
                open = Some(at + starts.trailing_zeros() as usize);
            }
            continue;
        }
        // Starts and stops alternate, and a word running in from before ends at the first
        // stop. 16 of each are written whatever their number (the rest ignored), so that
        // the loop has no exit to mispredict; more when there are more.
        let len = stops.count_ones() as usize;
        let carried = open.is_some() as usize;
        spans.starts[0] = open.unwrap_or(0);
        let all_starts = starts;
        write_positions(&mut spans.starts[carried..carried + 16], &mut starts, at);
        write_positions(&mut spans.ends[..16], &mut stops, at);
        if len > 16 {
            write_positions(
                &mut spans.starts[carried + 16..carried + 32],
                &mut starts,
                at,
            );
            write_positions(&mut spans.ends[16..32], &mut stops, at);
        }
        // The last byte inside a word: the last start's word runs on.
        open = (inside_before != 0).then(|| at + 63 - all_starts.leading_zeros() as usize);
        spans.len = len;
        each(&spans);
    }
    true
}

/// The masks of block `k` of `s` (copied into `tail` if it is the last, partial one: zero
/// is not a word byte, so it ends the last word), with the non-ASCII letters among the
/// word bytes; None if it holds a character the fast path does not take.
#[inline(always)]
fn block(
    s: &[u8],
    k: usize,
    tail: &mut [u8; 64],
    classify: &impl Fn(&[u8; 64]) -> Masks,
) -> Option<Masks> {
    let at = 64 * k;
    let bytes: &[u8; 64] = match s.get(at..at + 64) {
        Some(b) => b.try_into().expect("64 bytes"),
        None => {
            tail[..s.len() - at].copy_from_slice(&s[at..]);
            tail
        }
    };
    let mut m = classify(bytes);
    if m.high != 0 {
        m.word |= letter_bytes(s, at, m.high)?;
    }
    Some(m)
}

/// Writes `at` plus the positions of the lowest set bits of `bits` to `out` (64 past
/// the last bit), and clears them.
#[inline(always)]
fn write_positions(out: &mut [usize], bits: &mut u64, at: usize) {
    for slot in out {
        *slot = at + bits.trailing_zeros() as usize;
        *bits &= bits.wrapping_sub(1);
    }
}

// Word-break classes of the bytes around a joiner (UAX #29, table 3). A non-ASCII byte
// there is part of a word byte's character, which can only be a letter (kinds.rs).
const OTHER: u8 = 0;
const LETTER: u8 = 1; // ALetter
const NUMERIC: u8 = 2;
const MID_LETTER: u8 = 4; // ':'
const MID_NUM_LET: u8 = 5; // '.' and the Single_Quote '\'' (MidNumLetQ)
const MID_NUM: u8 = 6; // ',' ';'

const fn byte_classes() -> [u8; 256] {
    let mut t = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if c >= 0x80 || c.is_ascii_alphabetic() {
            LETTER
        } else if c.is_ascii_digit() {
            NUMERIC
        } else {
            match c {
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

static CLASS: [u8; 256] = byte_classes();

/// Whether the joiner at `s[i]`, between two word bytes, joins them into one word: a
/// single ':', '.' or '\'' between two letters (WB6/7), a single ',', ';', '.' or '\''
/// between two digits (WB11/12). Letters, digits and '_' join by themselves (WB5,
/// WB8-WB10, WB13a/b).
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

/// Only a run of '_' has no letter or digit (a joiner never joins '_').
#[inline(always)]
pub(super) fn has_letter_or_digit(word: &[u8]) -> bool {
    word[0] != b'_' || word.iter().any(|&b| b != b'_')
}

/// Which of the non-ASCII bytes `high` of the block at `at` belong to letters, or None
/// if one starts a character the fast path does not take.
#[cold]
fn letter_bytes(s: &[u8], at: usize, mut high: u64) -> Option<u64> {
    let mut letters = 0;
    while high != 0 {
        let i = high.trailing_zeros() as usize;
        high &= high - 1;
        if s[at + i] >= 0xc0 {
            kinds::fast_char_len(s, at + i)?;
        }
        if kinds::in_letter(s, at + i) {
            letters |= 1 << i;
        }
    }
    Some(letters)
}

/// Appends the hashes of the words among the spans to `out`, one word at a time.
#[inline(never)]
pub(super) fn hash_spans<const KEEP_CASE: bool>(s: &[u8], spans: &Spans, out: &mut Vec<u64>) {
    let (starts, ends) = (spans.starts(), spans.ends());
    let base = out.len();
    out.resize(base + spans.len, 0);
    let (mut hard, mut underscore) = (0u64, false);
    // Where a word can still be loaded 8 bytes at once.
    let last_load = s.len().saturating_sub(8);
    for (i, ((&start, &end), slot)) in starts.iter().zip(ends).zip(&mut out[base..]).enumerate() {
        let len = end - start;
        if len <= 8 && start <= last_load && s.len() >= 8 {
            let bytes = u64::from_le_bytes(s[start..start + 8].try_into().expect("8 bytes"));
            let (h, ascii) = hash_short_word::<KEEP_CASE>(bytes, len);
            *slot = h;
            hard |= (!ascii as u64) << i;
            underscore |= bytes as u8 == b'_';
        } else {
            hard |= 1 << i;
        }
    }
    finish_spans::<KEEP_CASE>(s, spans, out, base, hard, underscore)
}

/// The end of [`hash_spans`], whose `out[base..]` holds a hash for each span: hashes
/// the spans marked `hard`, and if some span may be a run of '_' (`underscore`, or a
/// hard span starting with one), drops those.
#[inline(always)]
pub(super) fn finish_spans<const KEEP_CASE: bool>(
    s: &[u8],
    spans: &Spans,
    out: &mut Vec<u64>,
    base: usize,
    mut hard: u64,
    mut underscore: bool,
) {
    let (starts, ends) = (spans.starts(), spans.ends());
    let hashes = &mut out[base..base + spans.len];
    while hard != 0 {
        let i = hard.trailing_zeros() as usize;
        hard &= hard - 1;
        hashes[i] = hash_word_at::<KEEP_CASE>(s, starts[i], ends[i]);
        underscore |= s[starts[i]] == b'_';
    }
    let mut kept = spans.len;
    if underscore {
        kept = 0;
        for (i, (&start, &end)) in starts.iter().zip(ends).enumerate() {
            if has_letter_or_digit(&s[start..end]) {
                hashes[kept] = hashes[i];
                kept += 1;
            }
        }
    }
    out.truncate(base + kept);
}

/// The hash of the word `s[start..end]` (see [`hash_word`]), two 8-byte loads for most
/// of those from 9 to 16 bytes.
#[inline(always)]
fn hash_word_at<const KEEP_CASE: bool>(s: &[u8], start: usize, end: usize) -> u64 {
    let len = end - start;
    if let Some(bytes) = s.get(start..start + 16)
        && (9..=16).contains(&len)
    {
        let first = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
        let second = u64::from_le_bytes(bytes[8..].try_into().expect("8 bytes"));
        let second = second & (u64::MAX >> (128 - 8 * len));
        if let (Some(first), Some(second)) = (
            normalise::<KEEP_CASE>(first),
            normalise::<KEEP_CASE>(second),
        ) {
            return token_round(token_round(token_start(len), first), second);
        }
    }
    hash_word::<KEEP_CASE>(&s[start..end])
}

/// The hash of a word of `len` bytes (1 to 8) that `bytes` starts with (see
/// [`hash_word`]), and whether it is right: whether those bytes are ASCII.
#[inline(always)]
pub(super) fn hash_short_word<const KEEP_CASE: bool>(bytes: u64, len: usize) -> (u64, bool) {
    let word = bytes & (u64::MAX >> (64 - 8 * len));
    let ascii = KEEP_CASE || word & HI == 0;
    let word = if KEEP_CASE {
        word
    } else {
        word_lowercase(word)
    };
    (token_round(token_start(len), word), ascii)
}

/// The hash of a word as the Unicode path normalises it (lowercased unless
/// `KEEP_CASE`), equal to `token_hash` of those bytes: loaded 8 bytes at a time,
/// lowercased in the register and hashed there, never copied. A word with non-ASCII
/// letters is lowercased through [`kinds`] instead.
#[inline(never)]
pub(super) fn hash_word<const KEEP_CASE: bool>(word: &[u8]) -> u64 {
    let mut h = token_start(word.len());
    let mut chunks = word.chunks_exact(8);
    for chunk in chunks.by_ref() {
        match normalise::<KEEP_CASE>(u64::from_le_bytes(chunk.try_into().expect("8 bytes"))) {
            Some(bytes) => h = token_round(h, bytes),
            None => return kinds::hash_lowercase(word),
        }
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        match normalise::<KEEP_CASE>(u64::from_le_bytes(last)) {
            Some(bytes) => h = token_round(h, bytes),
            None => return kinds::hash_lowercase(word),
        }
    }
    h
}

/// 8 bytes of a word lowercased unless `KEEP_CASE`, or None if they are not all ASCII
/// (and must be lowercased through [`kinds`]).
#[inline(always)]
fn normalise<const KEEP_CASE: bool>(word: u64) -> Option<u64> {
    if KEEP_CASE {
        Some(word)
    } else if word & HI != 0 {
        None
    } else {
        Some(word_lowercase(word))
    }
}

/// 8 bytes of an ASCII word lowercased: 'A'..='Z' gain 0x20. A word's bytes are letters,
/// digits, '_', joiners or zero padding, so a byte gains 0x20 when adding 0x25 sets its
/// bit 0x40: 'A'..='Z' (0x41..=0x5a) do, and so do the bytes that have 0x20 already
/// (digits, joiners), while 'a'..='z' and '_' (0x5f) carry into bit 0x80 instead and the
/// padding stays below. No byte carries into the next (all are below 0x80). Four
/// instructions and two constants, where a range test takes six and three.
#[inline(always)]
fn word_lowercase(v: u64) -> u64 {
    v | ((v.wrapping_add(LO * 0x25) >> 1) & (LO * 0x20))
}

pub(super) const LO: u64 = 0x0101_0101_0101_0101;
pub(super) const HI: u64 = 0x8080_8080_8080_8080;
