//! Locality-sensitive hashing by banding.
//!
//! A signature of b·r values is cut into b bands of r rows; two sets are candidates when
//! they agree on every row of at least one band, which happens with probability
//! 1 − (1 − s^r)^b for sets of Jaccard similarity s (see [`crate::curve`]).
//!
//! Buckets are built by sorting (band key, item) pairs rather than with hash maps of
//! vectors: one flat allocation per band, cache-friendly, and deterministic.

use crate::hash::mix64;
use crate::progress::{Cancelled, Progress, Stage, check};
use crate::sketch::Signatures;
use rayon::prelude::*;

/// The key of one band of a signature: a 64-bit hash of its r values.
#[inline]
fn band_key(values: &[u32], band: usize) -> u64 {
    let mut h = mix64(band as u64 ^ 0xba4d_5eed);
    for &v in values {
        h = mix64(h ^ v as u64);
    }
    h
}

/// The candidate pairs among `items` (row indices into `sigs`) for `bands` × `rows`, each
/// pair once, as (smaller, larger) row indices, sorted. Uses the first `bands * rows`
/// functions of each signature, which must exist.
pub fn candidates(
    sigs: &Signatures,
    items: &[u32],
    bands: usize,
    rows: usize,
    progress: &dyn Progress,
) -> Result<Vec<(u32, u32)>, Cancelled> {
    assert!(bands >= 1 && rows >= 1, "bands and rows must be at least 1");
    assert!(
        bands * rows <= sigs.width(),
        "{bands}×{rows} needs {} hash functions, the signatures have {}",
        bands * rows,
        sigs.width()
    );
    let done = std::sync::atomic::AtomicU64::new(0);
    let per_band: Vec<Vec<u64>> = (0..bands)
        .into_par_iter()
        .map(|band| {
            check(progress)?;
            let mut keyed: Vec<(u64, u32)> = items
                .iter()
                .map(|&i| {
                    let row = sigs.row(i as usize);
                    (band_key(&row[band * rows..(band + 1) * rows], band), i)
                })
                .collect();
            keyed.sort_unstable();
            let mut pairs = Vec::new();
            for bucket in keyed.chunk_by(|x, y| x.0 == y.0) {
                for (i, x) in bucket.iter().enumerate() {
                    for y in &bucket[i + 1..] {
                        // items are distinct and sorted within a bucket: x.1 < y.1
                        pairs.push(((x.1 as u64) << 32) | y.1 as u64);
                    }
                }
            }
            pairs.sort_unstable();
            pairs.dedup();
            let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress.update(Stage::Band, d, bands as u64);
            Ok(pairs)
        })
        .collect::<Result<_, Cancelled>>()?;
    let mut all: Vec<u64> = per_band.concat();
    all.par_sort_unstable();
    all.dedup();
    Ok(all
        .into_iter()
        .map(|p| ((p >> 32) as u32, p as u32))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;
    use crate::shingle::ShingleSets;
    use crate::sketch::{SketchKind, Sketcher};

    #[test]
    fn identical_signatures_collide_and_distinct_ones_do_not() {
        let mut sets = ShingleSets::new();
        sets.push(&[1, 2, 3, 4]);
        sets.push(&[1, 2, 3, 4]);
        sets.push(&(100..200).collect::<Vec<u64>>());
        let sigs = Signatures::compute(&Sketcher::new(SketchKind::MinHash, 1, 32), &sets, &Silent)
            .unwrap();
        let c = candidates(&sigs, &[0, 1, 2], 8, 4, &Silent).unwrap();
        assert_eq!(c, vec![(0, 1)]);
        // Only the items asked for take part.
        assert!(
            candidates(&sigs, &[0, 2], 8, 4, &Silent)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn pairs_are_emitted_once_across_bands() {
        let mut sets = ShingleSets::new();
        for _ in 0..4 {
            sets.push(&[7, 8, 9]);
        }
        let sigs =
            Signatures::compute(&Sketcher::new(SketchKind::Oph, 1, 64), &sets, &Silent).unwrap();
        let c = candidates(&sigs, &[0, 1, 2, 3], 16, 4, &Silent).unwrap();
        assert_eq!(c.len(), 6);
    }
}
