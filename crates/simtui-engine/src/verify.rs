//! Verification: the exact Jaccard similarity of candidate pairs, and the MinHash estimate.

/// Exact Jaccard similarity |A ∩ B| / |A ∪ B| of two sorted, deduplicated sets, by a merge.
/// Two empty sets have similarity 0: an empty document is like nothing.
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let inter = intersection_size(a, b);
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// |A ∩ B| for sorted, deduplicated slices.
pub(crate) fn intersection_size(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        // Branch-light merge: advance whichever is smaller (both when equal).
        n += (x == y) as usize;
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
    n
}

/// The MinHash estimate of Jaccard similarity: the fraction of signature positions that
/// agree, in [0, 1]. The signatures must have the same width; empty ones give 0.
pub fn estimate(a: &[u32], b: &[u32]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    if a.is_empty() {
        return 0.0;
    }
    let agree = a.iter().zip(b).filter(|(x, y)| x == y).count();
    agree as f64 / a.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::collection::btree_set;
    use proptest::prelude::*;

    #[test]
    fn known_values() {
        assert_eq!(jaccard(&[1, 2, 3], &[2, 3, 4]), 0.5);
        assert_eq!(jaccard(&[1, 2], &[1, 2]), 1.0);
        assert_eq!(jaccard(&[1], &[2]), 0.0);
        assert_eq!(jaccard(&[], &[]), 0.0);
        assert_eq!(estimate(&[1, 2, 3, 4], &[1, 2, 0, 0]), 0.5);
    }

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
    }
}
