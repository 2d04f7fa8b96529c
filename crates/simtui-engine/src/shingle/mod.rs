//! Stage 3, *shingle*: k-shingles, every run of k consecutive tokens hashed to 64 bits.
//!
//! A document's shingle set is a sorted, deduplicated `Vec<u64>` ([`shingle_set`]); the
//! exact Jaccard similarity of two documents is that of their shingle sets
//! ([`jaccard`]). An index keeps the sets of its distinct contents as [`ShingleSets`]:
//! in memory, on a temporary file, or made again from the corpus when asked for
//! ([`again`]), wherever the budget puts them.

pub mod again;
pub mod distinct;
pub mod sets;

pub use distinct::Distinct;
pub use sets::ShingleSets;

use crate::hash::combine;

/// Appends the sorted, deduplicated shingle hashes of a token-hash stream to `out`
/// (which is cleared first). A document with fewer than `k` tokens (but at least one)
/// gets a single shingle of all its tokens, so short duplicates are still found; an
/// empty one gets none.
pub fn shingle_set(tokens: &[u64], k: usize, out: &mut Vec<u64>) {
    shingle_hashes(tokens, k, out);
    crate::hash::sort_by_hash(out, |&x| x);
    out.dedup();
}

/// Writes the shingle hashes of a token-hash stream to `out` (cleared first), in order,
/// repeats included: what [`shingle_set`] sorts and deduplicates.
fn shingle_hashes(tokens: &[u64], k: usize, out: &mut Vec<u64>) {
    assert!(k >= 1, "k must be at least 1");
    out.clear();
    if tokens.is_empty() {
        return;
    }
    if tokens.len() < k {
        out.push(combine(tokens));
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if crate::hash::avx512::available() {
        // SAFETY: the processor has AVX-512 F and DQ (checked just above), all that
        // `combine_windows` needs.
        unsafe { crate::hash::avx512::combine_windows(tokens, k, out) };
        return;
    }
    out.extend(tokens.windows(k).map(combine));
}

/// The content hash of a normalised token stream: documents with equal streams are
/// identical for every k, and are indexed once.
pub fn content_hash(tokens: &[u64]) -> u64 {
    // Distinct from any shingle hash of the same tokens by a tag folded into the seed.
    combine(tokens) ^ 0xc0_47e4_7000_0000
}

/// Exact Jaccard similarity |A ∩ B| / |A ∪ B| of two sorted, deduplicated sets, by a merge.
/// Two empty sets have similarity 0: an empty document is like nothing.
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let inter = intersection_size(a, b);
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// Values compared at once where two sets run equal (see [`intersection_size`]).
const RUN: usize = 8;

/// Equal steps in a row after which [`intersection_size`] tries a whole [`RUN`].
const STREAK: usize = 4;

/// |A ∩ B| for sorted, deduplicated slices.
///
/// A branch-light merge, with a shortcut for near-identical sets (many copies of a page,
/// the candidates of a high threshold), whose values run equal for long stretches: after
/// [`STREAK`] equal steps in a row, the next [`RUN`] values of both are compared at once
/// (one vector compare) and skipped when all equal. Sets that rarely agree seldom reach
/// a streak, so they keep the plain merge's speed; near-identical ones merge about 4×
/// faster.
pub(crate) fn intersection_size(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n, mut streak) = (0, 0, 0, 0);
    while i < a.len() && j < b.len() {
        if streak >= STREAK
            && let (Some(p), Some(q)) = (a.get(i..i + RUN), b.get(j..j + RUN))
        {
            // OR of XORs rather than `p == q`: no early exit, so it compiles to vector ops.
            if p.iter().zip(q).fold(0, |d, (x, y)| d | (x ^ y)) == 0 {
                (n, i, j) = (n + RUN, i + RUN, j + RUN);
                continue;
            }
            streak = 0;
        }
        let (x, y) = (a[i], b[j]);
        // Advance whichever is smaller (both when equal).
        let equal = (x == y) as usize;
        n += equal;
        i += (x <= y) as usize;
        j += (y <= x) as usize;
        streak = (streak + 1) * equal;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shingles_of_a_stream() {
        let t = [1u64, 2, 3, 4, 1, 2, 3];
        let mut s = Vec::new();
        shingle_set(&t, 3, &mut s);
        // windows: 123 234 341 412 123 -> 4 distinct
        assert_eq!(s.len(), 4);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        assert!(s.contains(&combine(&[1, 2, 3])));
        assert!(s.contains(&combine(&[4, 1, 2])));
    }

    #[test]
    fn short_and_empty_documents() {
        let mut s = vec![99];
        shingle_set(&[], 5, &mut s);
        assert!(s.is_empty());
        shingle_set(&[7, 8], 5, &mut s);
        assert_eq!(s, vec![combine(&[7, 8])]);
        shingle_set(&[7, 8, 9, 10, 11], 5, &mut s);
        assert_eq!(s, vec![combine(&[7, 8, 9, 10, 11])]);
    }

    #[test]
    fn known_similarities() {
        assert_eq!(jaccard(&[1, 2, 3], &[2, 3, 4]), 0.5);
        assert_eq!(jaccard(&[1, 2], &[1, 2]), 1.0);
        assert_eq!(jaccard(&[1], &[2]), 0.0);
        assert_eq!(jaccard(&[], &[]), 0.0);
    }

    use proptest::collection::btree_set;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn jaccard_is_symmetric_bounded_and_one_only_for_equal_sets(
            a in btree_set(0u64..200, 0..60),
            b in btree_set(0u64..200, 0..60),
        ) {
            let a: Vec<u64> = a.into_iter().collect();
            let b: Vec<u64> = b.into_iter().collect();
            let j = jaccard(&a, &b);
            prop_assert_eq!(j, jaccard(&b, &a));
            prop_assert!((0.0..=1.0).contains(&j));
            prop_assert_eq!(j == 1.0, !a.is_empty() && a == b);
            // Against a set-based reference.
            let sa: std::collections::HashSet<_> = a.iter().collect();
            let sb: std::collections::HashSet<_> = b.iter().collect();
            prop_assert_eq!(intersection_size(&a, &b), sa.intersection(&sb).count());
        }

        #[test]
        fn near_identical_sets_intersect_as_a_plain_merge_counts(
            a in btree_set(0u64..5000, 0..400),
            drop in proptest::collection::vec(0usize..400, 0..6),
            add in btree_set(0u64..5000, 0..6),
        ) {
            // b: a with a few values gone and a few others in, as a copy with a word
            // changed; long equal runs take the shortcut, the edits the plain merge.
            let a: Vec<u64> = a.into_iter().collect();
            let mut b: std::collections::BTreeSet<u64> = a
                .iter()
                .enumerate()
                .filter(|(i, _)| !drop.contains(i))
                .map(|(_, &x)| x)
                .collect();
            b.extend(add);
            let b: Vec<u64> = b.into_iter().collect();
            let sa: std::collections::HashSet<_> = a.iter().collect();
            let expected = b.iter().filter(|x| sa.contains(x)).count();
            prop_assert_eq!(intersection_size(&a, &b), expected);
            prop_assert_eq!(intersection_size(&b, &a), expected);
        }
    }
}
