//! The fast word path's entry points: each picks the AVX2 code ([`avx2`]) when the
//! processor has it, else the portable one ([`swar`]), both over [`fast`]'s spans.

#[cfg(target_arch = "x86_64")]
use super::avx2;
use super::fast::{hash_spans, hashes_with, ranges_with};
use super::swar;

/// Calls `emit(start, end)` for each word of `s`, exactly as `unicode_words` would split
/// it, provided `s` holds only ASCII and [`fast_char_len`](super::kinds::fast_char_len) characters.
pub(super) fn word_ranges(s: &[u8], emit: impl FnMut(usize, usize)) {
    #[cfg(target_arch = "x86_64")]
    if use_avx2() {
        // SAFETY: the processor has AVX2, BMI1 and BMI2, checked at run time just above.
        return unsafe { avx2::word_ranges(s, emit) };
    }
    ranges_with(s, swar::classify, emit)
}

/// Appends the hashes of the words of `s` to `out` (see [`word_ranges`],
/// [`hash_word`](super::fast::hash_word)) and says true; or says false, with `out` as it was, if `s` holds a
/// character that the fast path does not take.
pub(super) fn word_hashes(s: &[u8], keep_case: bool, out: &mut Vec<u64>) -> bool {
    // Case as a constant, so that the word loop does not look it up at every word.
    match keep_case {
        true => hashes_dispatch::<true>(s, out),
        false => hashes_dispatch::<false>(s, out),
    }
}

fn hashes_dispatch<const KEEP_CASE: bool>(s: &[u8], out: &mut Vec<u64>) -> bool {
    #[cfg(target_arch = "x86_64")]
    if use_avx2() {
        // SAFETY: the processor has AVX2, BMI1 and BMI2, checked at run time just above.
        return unsafe { avx2::word_hashes::<KEEP_CASE>(s, out) };
    }
    hashes_with(s, swar::classify, hash_spans::<KEEP_CASE>, out)
}

/// Whether to take the AVX2 code: the processor has it, and (in the tests) the portable
/// code is not forced on this thread.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn use_avx2() -> bool {
    #[cfg(test)]
    if FORCE_PORTABLE.get() {
        return false;
    }
    avx2::available()
}

#[cfg(test)]
thread_local! {
    /// Set by the tests (see `tests::Portable`) to run the portable code on a processor
    /// that has AVX2.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) static FORCE_PORTABLE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}
