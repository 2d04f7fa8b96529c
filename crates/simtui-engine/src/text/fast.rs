//! The fast path of word segmentation: UAX #29 restricted to ASCII and the non-ASCII
//! characters of [`kinds`](super::kinds) (2-byte letters and punctuation that joins
//! nothing), on bit masks of 64 bytes at a time.
//!
//! Each 64-byte block is classified into three masks, one bit a byte: word bytes (letters,
//! digits, '_'), possible joiners ('.', '\'', ':', ',', ';') and non-ASCII bytes. Words are
//! then read off the masks' runs with `trailing_zeros`: no branch per byte, so none of the
//! mispredictions a byte loop pays at every word's end. The joining rules are looked at
//! only where a joiner sits between two word bytes.
//!
//! Classifying is most of the work per byte, so it has two versions: AVX2 (two nibble
//! look-ups and three `movemask`s per 32 bytes, about 0.5 instructions a byte), taken
//! when the processor has it, and portable SIMD-within-a-register code (8 bytes per u64,
//! about 6 instructions a byte) everywhere else. LLVM does not turn the portable version
//! into `movemask`s by itself (packing a byte mask into bits is the cost), hence the
//! intrinsics; both versions are checked against a byte loop.

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

/// Calls `emit(start, end)` for each word of `s`, exactly as `unicode_words` would split
/// it, provided `s` holds only ASCII and [`kinds::fast_char_len`] characters.
pub(super) fn word_ranges(s: &[u8], emit: impl FnMut(usize, usize)) {
    #[cfg(target_arch = "x86_64")]
    if avx2::available() {
        // SAFETY: the processor has AVX2, BMI1 and BMI2, checked at run time just above.
        return unsafe { avx2::word_ranges(s, emit) };
    }
    ranges_with(s, swar::classify, emit)
}

/// [`word_ranges`] with the portable classifier, whatever the processor (for the tests).
#[cfg(test)]
pub(super) fn word_ranges_portable(s: &[u8], emit: impl FnMut(usize, usize)) {
    ranges_with(s, swar::classify, emit)
}

/// [`word_ranges`] with a given block classifier. Inlined into each caller, so that the
/// AVX2 version compiles the whole loop (and the caller's `emit`) with its features.
#[inline(always)]
fn ranges_with(
    s: &[u8],
    classify: impl Fn(&[u8; 64]) -> Masks,
    mut emit: impl FnMut(usize, usize),
) {
    let n = s.len();
    // One block more when the text fills its last one, so that every word ends in a block.
    let blocks = n / 64 + 1;
    let block = |k: usize| {
        let at = 64 * k;
        let mut m = match s.get(at..at + 64) {
            Some(b) => classify(b.try_into().expect("64 bytes")),
            None => {
                let mut b = [0u8; 64]; // zero is not a word byte: it ends the last word
                b[..n - at].copy_from_slice(&s[at..]);
                classify(&b)
            }
        };
        if m.high != 0 {
            m.word |= letter_bytes(s, at, m.high);
        }
        m
    };
    let mut cur = block(0);
    // The last bits of the previous block: a word byte, and inside a word.
    let (mut word_before, mut inside_before) = (0u64, 0u64);
    // Where the word running into this block started, if one does.
    let mut open: Option<usize> = None;
    for k in 0..blocks {
        let at = 64 * k;
        let next = if k + 1 < blocks {
            block(k + 1)
        } else {
            Masks::default()
        };
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
        // Starts and stops alternate, a word open from before ending at the first stop.
        // One call of `emit`, so that it is inlined once.
        loop {
            let start = match open.take() {
                Some(start) => start,
                None if starts != 0 => {
                    let start = at + starts.trailing_zeros() as usize;
                    starts &= starts - 1;
                    start
                }
                None => break,
            };
            if stops == 0 {
                open = Some(start);
                break;
            }
            let end = at + stops.trailing_zeros() as usize;
            stops &= stops - 1;
            if has_letter_or_digit(&s[start..end]) {
                emit(start, end);
            }
        }
        (word_before, inside_before) = (word >> 63, inside >> 63);
        cur = next;
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
fn has_letter_or_digit(word: &[u8]) -> bool {
    word[0] != b'_' || word.iter().any(|&b| b != b'_')
}

/// Which of the non-ASCII bytes `high` of the block at `at` belong to letters.
#[cold]
fn letter_bytes(s: &[u8], at: usize, mut high: u64) -> u64 {
    let mut letters = 0;
    while high != 0 {
        let i = high.trailing_zeros() as usize;
        high &= high - 1;
        if kinds::in_letter(s, at + i) {
            letters |= 1 << i;
        }
    }
    letters
}

/// Calls `flush` with the hashes of the words of `s` (see [`word_ranges`],
/// [`hash_word`]), a few dozen at a time: the word loop only stores each hash, and
/// whatever the caller does with them (drop stop words, append to a Vec) runs in a loop
/// of its own.
pub(super) fn word_hashes(s: &[u8], keep_case: bool, flush: impl FnMut(&[u64])) {
    // Case as a constant, so that the word loop does not look it up at every word.
    if keep_case {
        hashes_buffered::<true>(s, flush)
    } else {
        hashes_buffered::<false>(s, flush)
    }
}

fn hashes_buffered<const KEEP_CASE: bool>(s: &[u8], mut flush: impl FnMut(&[u64])) {
    let mut buf = [0u64; 64];
    let mut len = 0;
    word_ranges(
        s,
        #[inline(always)]
        |start, end| {
            buf[len] = hash_word::<KEEP_CASE>(s, start, end);
            len += 1;
            if len == buf.len() {
                flush(&buf);
                len = 0;
            }
        },
    );
    flush(&buf[..len]);
}

/// The hash of the word `s[start..end]` as the Unicode path normalises it (lowercased
/// unless `KEEP_CASE`), equal to `token_hash` of those bytes: loaded 8 bytes at a time,
/// lowercased in the register and hashed there, never copied. A word with non-ASCII
/// letters is lowercased through [`kinds`] instead.
#[inline(always)]
fn hash_word<const KEEP_CASE: bool>(s: &[u8], start: usize, end: usize) -> u64 {
    let mut h = token_start(end - start);
    let mut at = start;
    loop {
        let mut word = load_le(s, at) & low_bytes(end - at);
        if !KEEP_CASE {
            if word & HI != 0 {
                return kinds::hash_lowercase(&s[start..end]);
            }
            word = ascii_lowercase(word);
        }
        h = token_round(h, word);
        at += 8;
        if at >= end {
            return h;
        }
    }
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

/// ASCII letters of 8 ASCII bytes lowercased: 'A'..='Z' gain 0x20.
#[inline(always)]
fn ascii_lowercase(v: u64) -> u64 {
    v | (swar::bytes_between(v, b'A', b'Z') >> 2)
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Bit tricks on 8 bytes in a u64 ("SIMD within a register"). On bytes below 0x80, adding
/// a constant below 0x80 to each never carries into the next byte, and a byte's high bit
/// answers a question about it; non-ASCII bytes are set aside first.
pub(super) mod swar {
    use super::{HI, LO, Masks};

    /// The bytes of `v` equal to `c`, as high bits: a byte of `v ^ c` plus 0x7f reaches
    /// 0x80 exactly when it is not zero.
    #[inline(always)]
    pub(super) fn bytes_equal(v: u64, c: u8) -> u64 {
        !(v ^ (LO * c as u64)).wrapping_add(LO * 0x7f) & HI
    }

    /// The bytes of `v` in `lo..=hi`, as high bits.
    #[inline(always)]
    pub(super) fn bytes_between(v: u64, lo: u8, hi: u8) -> u64 {
        let at_least = v.wrapping_add(LO * (0x80 - lo) as u64);
        let above = v.wrapping_add(LO * (0x7f - hi) as u64);
        at_least & !above & HI
    }

    /// The 8 high bits of `h` packed into its low byte (byte j's bit to bit j).
    #[inline(always)]
    pub(super) fn high_bits(h: u64) -> u64 {
        (h >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
    }

    /// The masks of a block, 8 bytes at a time.
    #[inline(always)]
    pub(in crate::text) fn classify(block: &[u8; 64]) -> Masks {
        let mut m = Masks::default();
        for (j, bytes) in block.chunks_exact(8).enumerate() {
            let raw = u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
            let (v, ascii) = (raw & !HI, !raw & HI);
            let w = bytes_between(v | (LO * 0x20), b'a', b'z')
                | bytes_between(v, b'0', b'9')
                | bytes_equal(v, b'_');
            let p = bytes_equal(v, b'.')
                | bytes_equal(v, b'\'')
                | bytes_equal(v, b':')
                | bytes_equal(v, b',')
                | bytes_equal(v, b';');
            m.word |= high_bits(w & ascii) << (8 * j);
            m.joiner |= high_bits(p & ascii) << (8 * j);
            m.high |= high_bits(raw & HI) << (8 * j);
        }
        m
    }
}

/// The block classifier on AVX2, taken when the processor has it.
#[cfg(target_arch = "x86_64")]
pub(super) mod avx2 {
    use super::Masks;
    use std::arch::x86_64::*;
    use std::sync::OnceLock;

    /// Whether this processor has AVX2, BMI1 and BMI2 (asked once).
    pub(in crate::text) fn available() -> bool {
        static HAS: OnceLock<bool> = OnceLock::new();
        *HAS.get_or_init(|| {
            is_x86_feature_detected!("avx2")
                && is_x86_feature_detected!("bmi1")
                && is_x86_feature_detected!("bmi2")
        })
    }

    /// [`super::word_ranges`] compiled for AVX2 and BMI (`tzcnt`, `blsr`, `shlx` in the
    /// word loop), with `emit` inlined.
    #[target_feature(enable = "avx2,bmi1,bmi2")]
    pub(super) fn word_ranges(s: &[u8], emit: impl FnMut(usize, usize)) {
        super::ranges_with(s, |b| classify(b), emit)
    }

    // Each byte's class is the AND of two look-ups, by its low and by its high nibble:
    // a bit for each rectangle of (high nibble, low nibbles) that a class covers.
    const J2: i8 = 0x01; // 0x27 ', 0x2C ,, 0x2E .
    const D3: i8 = 0x02; // 0x30..0x39 digits
    const J3: i8 = 0x04; // 0x3A :, 0x3B ;
    const L46: i8 = 0x08; // 0x41..0x4F, 0x61..0x6F letters
    const L57: i8 = 0x10; // 0x50..0x5A, 0x70..0x7A letters
    const U5: i8 = 0x20; // 0x5F _
    const WORD: i8 = D3 | L46 | L57 | U5;
    const JOINER: i8 = J2 | J3;

    /// The classes of each low nibble.
    const fn by_low() -> [i8; 16] {
        let mut t = [0i8; 16];
        let mut l = 0;
        while l < 16 {
            let mut c = 0;
            if l == 0x7 || l == 0xC || l == 0xE {
                c |= J2;
            }
            if l <= 9 {
                c |= D3;
            }
            if l == 0xA || l == 0xB {
                c |= J3;
            }
            if l >= 1 {
                c |= L46;
            }
            if l <= 0xA {
                c |= L57;
            }
            if l == 0xF {
                c |= U5;
            }
            t[l] = c;
            l += 1;
        }
        t
    }

    /// The classes of each high nibble (none for non-ASCII bytes).
    const BY_HIGH: [i8; 16] = [
        0,
        0,
        J2,
        D3 | J3,
        L46,
        L57 | U5,
        L46,
        L57,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
    ];
    const BY_LOW: [i8; 16] = by_low();

    /// A 16-entry table in both 128-bit lanes, as `vpshufb` looks up per lane.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn table(t: [i8; 16]) -> __m256i {
        let half = _mm_setr_epi8(
            t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11], t[12], t[13],
            t[14], t[15],
        );
        _mm256_broadcastsi128_si256(half)
    }

    /// 32 bytes as a vector (LLVM makes one unaligned load of it, without unsafe code).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn load(b: &[u8; 32]) -> __m256i {
        macro_rules! lanes {
            ($($i:literal)*) => { _mm256_setr_epi8($(b[$i] as i8),*) };
        }
        lanes!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
    }

    /// (word, joiner, non-ASCII) bits of 32 bytes.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn half(b: &[u8; 32]) -> (u64, u64, u64) {
        let v = load(b);
        let nibble = _mm256_set1_epi8(0x0f);
        let low = _mm256_and_si256(v, nibble);
        let high = _mm256_and_si256(_mm256_srli_epi16::<4>(v), nibble);
        let class = _mm256_and_si256(
            _mm256_shuffle_epi8(table(BY_LOW), low),
            _mm256_shuffle_epi8(table(BY_HIGH), high),
        );
        // Classes are below 0x80: one of the bits is set exactly when the byte is > 0.
        let any = |bits: i8| {
            let set = _mm256_cmpgt_epi8(
                _mm256_and_si256(class, _mm256_set1_epi8(bits)),
                _mm256_setzero_si256(),
            );
            _mm256_movemask_epi8(set) as u32 as u64
        };
        (
            any(WORD),
            any(JOINER),
            _mm256_movemask_epi8(v) as u32 as u64,
        )
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    pub(in crate::text) fn classify(block: &[u8; 64]) -> Masks {
        let (w0, j0, h0) = half(block[..32].try_into().expect("32 bytes"));
        let (w1, j1, h1) = half(block[32..].try_into().expect("32 bytes"));
        Masks {
            word: w0 | w1 << 32,
            joiner: j0 | j1 << 32,
            high: h0 | h1 << 32,
        }
    }
}
