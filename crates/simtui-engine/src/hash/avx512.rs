//! The hashes of [`super`] eight lanes at a time, with AVX-512's 64-bit multiplies (AVX2
//! has none: made of 32-bit ones they cost about what one value at a time does). Taken
//! where the processor has AVX-512 F and DQ ([`available`], asked once at run time); the
//! values are those of the one-at-a-time functions, bit for bit (property tests below).

use super::{MIX_MUL, SHINGLE_MUL, combine};
use std::arch::x86_64::*;
use std::sync::OnceLock;

/// Whether this processor has AVX-512 F and DQ (asked once).
pub(crate) fn available() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512dq"))
}

/// [`mix64`](super::mix64) of each lane.
#[target_feature(enable = "avx512f,avx512dq")]
#[inline]
pub(crate) fn mix64(mut x: __m512i) -> __m512i {
    let (m1, m2) = (
        _mm512_set1_epi64(MIX_MUL[0] as i64),
        _mm512_set1_epi64(MIX_MUL[1] as i64),
    );
    x = _mm512_mullo_epi64(_mm512_xor_si512(x, _mm512_srli_epi64::<30>(x)), m1);
    x = _mm512_mullo_epi64(_mm512_xor_si512(x, _mm512_srli_epi64::<27>(x)), m2);
    _mm512_xor_si512(x, _mm512_srli_epi64::<31>(x))
}

/// Eight u64 from `s[at..at + 8]`, which must exist (it panics otherwise).
#[target_feature(enable = "avx512f,avx512dq")]
#[inline]
pub(crate) fn load(s: &[u64], at: usize) -> __m512i {
    let eight = &s[at..at + 8];
    // SAFETY: `eight` is 8 u64, the 64 bytes an unaligned 512-bit load reads.
    unsafe { _mm512_loadu_si512(eight.as_ptr().cast()) }
}

/// The lanes of `v`.
#[target_feature(enable = "avx512f,avx512dq")]
#[inline]
pub(crate) fn lanes(v: __m512i) -> [u64; 8] {
    let mut out = [0u64; 8];
    // SAFETY: `out` is 8 u64, the 64 bytes an unaligned 512-bit store writes.
    unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), v) };
    out
}

/// Appends [`combine`] of every window of `k` tokens, in order: the shingle hashes of a
/// document of at least `k` tokens. Eight windows at a time, lane `l` the window
/// starting `l` tokens on: its polynomial takes token `j` of all eight windows from one
/// load at `start + j`. A k-shingle costs k + 2 multiplies one at a time: perf put
/// them at 8 % of `pairs`' CPU on a million JSON Lines records.
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) fn combine_windows(tokens: &[u64], k: usize, out: &mut Vec<u64>) {
    let windows = tokens.len() + 1 - k;
    out.reserve(windows);
    let (mul, len) = (
        _mm512_set1_epi64(SHINGLE_MUL as i64),
        _mm512_set1_epi64(k as i64),
    );
    let mut start = 0;
    while start + 8 <= windows {
        let mut h = len;
        for j in 0..k {
            h = _mm512_add_epi64(_mm512_mullo_epi64(h, mul), load(tokens, start + j));
        }
        out.extend_from_slice(&lanes(mix64(h)));
        start += 8;
    }
    out.extend(tokens[start..].windows(k).map(combine));
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::collection::vec;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn windows_eight_at_a_time_are_those_one_at_a_time(
            tokens in vec(any::<u64>(), 1..120),
            k in 1usize..12,
        ) {
            prop_assume!(tokens.len() >= k);
            if !available() {
                return Ok(()); // nothing to compare on this processor
            }
            let mut eight = vec![7];
            // SAFETY: the processor has AVX-512 F and DQ (checked above).
            unsafe { combine_windows(&tokens, k, &mut eight) };
            let mut one = vec![7];
            one.extend(tokens.windows(k).map(combine));
            prop_assert_eq!(eight, one);
        }

        #[test]
        fn mix_eight_at_a_time_is_mix64(x in any::<[u64; 8]>()) {
            if !available() {
                return Ok(());
            }
            // SAFETY: as above.
            let mixed = unsafe { lanes(mix64(load(&x, 0))) };
            prop_assert_eq!(mixed, x.map(super::super::mix64));
        }
    }
}
