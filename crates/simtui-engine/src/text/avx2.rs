//! The AVX2 versions of the fast path's block classifier and word hasher, taken when
//! the processor has AVX2 (asked once, at run time).
//!
//! Classifying: each byte's class is the AND of two `vpshufb` look-ups, by its low and
//! its high nibble, and three `movemask`s give the masks: about 0.5 instructions a byte,
//! where the portable code takes about 6 (LLVM does not turn it into `movemask`s by
//! itself: packing a byte mask into bits is the cost).
//!
//! Hashing: the 8-byte words of 4 spans in the lanes of a vector, masked to their length,
//! lowercased and mixed together (the 64-bit multiplies of the hash from 32-bit ones),
//! about a third of the instructions of one word at a time. Measured on generated
//! English: see the bench (`cargo bench --bench engine -- tokenise`).
//!
//! One unsafe block, the gather of the 4 words (commented there, with the measurement
//! that keeps it); the callers in [`fast`] check the processor's features before calling
//! in.

use super::fast::{self, HI, LO, Masks, SPAN_SLOTS, Spans};
use crate::hash::{MIX_MUL, TOKEN_SEED, token_start};
use std::arch::x86_64::*;
use std::sync::OnceLock;

/// Whether this processor has AVX2, BMI1 and BMI2 (asked once).
pub(super) fn available() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
    })
}

/// [`words::word_ranges`](super::words::word_ranges) compiled for AVX2 and BMI (`tzcnt`, `blsr`, `shlx` in the word
/// loop), with `emit` inlined.
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(super) fn word_ranges(s: &[u8], emit: impl FnMut(usize, usize)) {
    fast::ranges_with(
        s,
        #[inline(always)]
        |b| classify(b),
        emit,
    )
}

/// [`words::word_hashes`](super::words::word_hashes) compiled for AVX2 and BMI, hashing 4 words at a time.
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(super) fn word_hashes<const KEEP_CASE: bool>(s: &[u8], out: &mut Vec<u64>) -> bool {
    fast::hashes_with(
        s,
        #[inline(always)]
        |b| classify(b),
        #[inline(always)]
        |s, spans, out| hash_spans::<KEEP_CASE>(s, spans, out),
        out,
    )
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
pub(super) fn classify(block: &[u8; 64]) -> Masks {
    let (w0, j0, h0) = half(block[..32].try_into().expect("32 bytes"));
    let (w1, j1, h1) = half(block[32..].try_into().expect("32 bytes"));
    Masks {
        word: w0 | w1 << 32,
        joiner: j0 | j1 << 32,
        high: h0 | h1 << 32,
    }
}

/// [`fast::hash_spans`], 4 spans at a time: 16 whatever their number, so that the loop
/// has no exit to mispredict (the hashes of the spans past the block's are dropped).
#[target_feature(enable = "avx2,bmi1,bmi2")]
fn hash_spans<const KEEP_CASE: bool>(s: &[u8], spans: &Spans, out: &mut Vec<u64>) {
    let Some(last_load) = s.len().checked_sub(8) else {
        return fast::hash_spans::<KEEP_CASE>(s, spans, out);
    };
    let base = out.len();
    let (mut hard, mut underscore) = (0u64, 0u64);
    let mut group = |g: usize, out: &mut Vec<u64>| {
        let four = |x: &[usize; SPAN_SLOTS]| -> [usize; 4] {
            x[4 * g..4 * g + 4].try_into().expect("4 spans")
        };
        let (hashes, bad, under) =
            hash4::<KEEP_CASE>(s, four(&spans.starts), four(&spans.ends), last_load);
        out.extend_from_slice(&hashes);
        hard |= (bad as u64) << (4 * g);
        underscore |= (under as u64) << (4 * g);
    };
    // 3 groups whatever the number of spans (a block of prose has about a dozen), so
    // that the common case has no loop exit to mispredict; then the rest.
    for g in 0..3 {
        group(g, out);
    }
    for g in 3..spans.len.div_ceil(4) {
        group(g, out);
    }
    out.truncate(base + spans.len);
    let spans_bits = u64::MAX >> (64 - spans.len);
    let (hard, underscore) = (hard & spans_bits, underscore & spans_bits != 0);
    fast::finish_spans::<KEEP_CASE>(s, spans, out, base, hard, underscore)
}

/// The hashes of the words of 4 spans, as [`fast::hash_short_word`] gives them; the lanes
/// whose hash is wrong (a word longer than 8 bytes, too near the end of the text for an
/// 8-byte load, or not ASCII) as the low 4 bits; and the lanes where the word may start
/// with '_'.
#[target_feature(enable = "avx2,bmi1,bmi2")]
fn hash4<const KEEP_CASE: bool>(
    s: &[u8],
    starts: [usize; 4],
    ends: [usize; 4],
    last_load: usize,
) -> ([u64; 4], u32, u32) {
    // Built from scalars: the spans were just stored one by one, and a vector load of
    // them would wait for the stores to retire (no store forwarding across them).
    let vector =
        |x: [usize; 4]| _mm256_setr_epi64x(x[0] as i64, x[1] as i64, x[2] as i64, x[3] as i64);
    let (starts, ends) = (vector(starts), vector(ends));
    let (bytes, far) = load8(s, starts, last_load);
    let eight = _mm256_set1_epi64x(8);
    let len = _mm256_sub_epi64(ends, starts);
    let long = _mm256_cmpgt_epi64(len, eight);
    let word = keep_low(bytes, _mm256_blendv_epi8(len, eight, long));
    let high = _mm256_and_si256(word, _mm256_set1_epi64x(HI as i64));
    let not_ascii = _mm256_xor_si256(
        _mm256_cmpeq_epi64(high, _mm256_setzero_si256()),
        _mm256_set1_epi64x(-1),
    );
    // token_start(len), then token_round with the 8 bytes.
    let start = _mm256_xor_si256(
        _mm256_set1_epi64x(TOKEN_SEED as i64),
        mul_small(len, length_mul()),
    );
    let h = mix64(_mm256_xor_si256(start, lowercase::<KEEP_CASE>(word)));
    let mut bad = _mm256_or_si256(long, far);
    if !KEEP_CASE {
        bad = _mm256_or_si256(bad, not_ascii);
    }
    let low_byte = _mm256_and_si256(bytes, _mm256_set1_epi64x(0xff));
    let under = _mm256_cmpeq_epi64(low_byte, _mm256_set1_epi64x(b'_' as i64));
    (
        std::array::from_fn(|j| lane(h, j)),
        lanes_set(bad),
        lanes_set(under),
    )
}

/// The 8 bytes of `s` at each offset, and the lanes whose offset is past `last_load`
/// (which get the last 8 bytes instead).
#[target_feature(enable = "avx2")]
#[inline]
fn load8(s: &[u8], offsets: __m256i, last_load: usize) -> (__m256i, __m256i) {
    let last = _mm256_set1_epi64x(last_load as i64);
    // Offsets are below 2^63, so signed comparisons order them.
    let far = _mm256_cmpgt_epi64(offsets, last);
    let at = _mm256_blendv_epi8(offsets, last, far);
    // SAFETY: each lane reads the 8 bytes of `s` at its offset, which is at most
    // `last_load = s.len() - 8` (and at least 0: offsets are positions in `s`), so all
    // within `s`. Why a gather: four bounds-checked loads and the moves that assemble
    // them took a third of the hashing's instructions, and tokenising words was 5-10 %
    // slower with them (criterion, thread CPU time, 6 runs of each build alternating:
    // generated English 872 against 918 MiB/s, Reuters-style news 837 against 927).
    let bytes = unsafe { _mm256_i64gather_epi64::<1>(s.as_ptr().cast(), at) };
    (bytes, far)
}

/// The low `n` bytes of each lane (`n` from 0 to 8), the others zero.
#[target_feature(enable = "avx2")]
#[inline]
fn keep_low(v: __m256i, n: __m256i) -> __m256i {
    let shift = _mm256_slli_epi64::<3>(_mm256_sub_epi64(_mm256_set1_epi64x(8), n));
    _mm256_srlv_epi64(_mm256_sllv_epi64(v, shift), shift)
}

/// [`fast::word_lowercase`] in each lane, unless `KEEP_CASE`.
#[target_feature(enable = "avx2")]
#[inline]
fn lowercase<const KEEP_CASE: bool>(v: __m256i) -> __m256i {
    if KEEP_CASE {
        return v;
    }
    let up = _mm256_srli_epi64::<1>(_mm256_add_epi64(v, _mm256_set1_epi64x((LO * 0x25) as i64)));
    _mm256_or_si256(
        v,
        _mm256_and_si256(up, _mm256_set1_epi64x((LO * 0x20) as i64)),
    )
}

/// The lanes of `mask` that are set, as 4 bits.
#[target_feature(enable = "avx2")]
#[inline]
fn lanes_set(mask: __m256i) -> u32 {
    _mm256_movemask_pd(_mm256_castsi256_pd(mask)) as u32
}

/// The multiplier `token_start` folds a token's length in with.
#[inline(always)]
fn length_mul() -> u64 {
    token_start(1) ^ TOKEN_SEED
}

/// Lane `j` of `v`.
#[target_feature(enable = "avx2")]
#[inline]
fn lane(v: __m256i, j: usize) -> u64 {
    let half = if j < 2 {
        _mm256_castsi256_si128(v)
    } else {
        _mm256_extracti128_si256::<1>(v)
    };
    (if j.is_multiple_of(2) {
        _mm_cvtsi128_si64(half)
    } else {
        _mm_extract_epi64::<1>(half)
    }) as u64
}

/// `x * c` in each lane, for `x` below 2^32 (a length).
#[target_feature(enable = "avx2")]
#[inline]
fn mul_small(x: __m256i, c: u64) -> __m256i {
    let low = _mm256_mul_epu32(x, _mm256_set1_epi64x(c as i64));
    let high = _mm256_mul_epu32(x, _mm256_set1_epi64x((c >> 32) as i64));
    _mm256_add_epi64(low, _mm256_slli_epi64::<32>(high))
}

/// `x * c` in each lane (wrapping), from 32-bit multiplies: AVX2 has no 64-bit one.
#[target_feature(enable = "avx2")]
#[inline]
fn mul(x: __m256i, c: u64) -> __m256i {
    let c_low = _mm256_set1_epi64x(c as i64);
    let low = _mm256_mul_epu32(x, c_low);
    let cross = _mm256_add_epi64(
        _mm256_mul_epu32(_mm256_srli_epi64::<32>(x), c_low),
        _mm256_mul_epu32(x, _mm256_set1_epi64x((c >> 32) as i64)),
    );
    _mm256_add_epi64(low, _mm256_slli_epi64::<32>(cross))
}

/// [`crate::hash::mix64`] in each lane (its multipliers; a test checks the two agree).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn mix64(x: __m256i) -> __m256i {
    let x = _mm256_xor_si256(x, _mm256_srli_epi64::<30>(x));
    let x = mul(x, MIX_MUL[0]);
    let x = _mm256_xor_si256(x, _mm256_srli_epi64::<27>(x));
    let x = mul(x, MIX_MUL[1]);
    _mm256_xor_si256(x, _mm256_srli_epi64::<31>(x))
}

/// [`mix64`] of 4 values (for the tests).
#[cfg(test)]
#[target_feature(enable = "avx2")]
pub(super) fn mix4(x: [u64; 4]) -> [u64; 4] {
    let v = mix64(_mm256_setr_epi64x(
        x[0] as i64,
        x[1] as i64,
        x[2] as i64,
        x[3] as i64,
    ));
    [lane(v, 0), lane(v, 1), lane(v, 2), lane(v, 3)]
}
