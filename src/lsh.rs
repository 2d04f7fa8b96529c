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

/// The key of one band of a signature: a 64-bit hash of its r values. The values are
/// weighted by independent odd constants and summed (no dependency chain between them,
/// unlike a fold of mixes), then the sum is mixed once. Public so that lookups of a single
/// signature (queries) bucket exactly as [`candidates`] does.
#[inline]
pub fn band_key(values: &[u32], band: usize) -> u64 {
    const K: [u64; 8] = [
        0x9e37_79b9_7f4a_7c15,
        0xc2b2_ae3d_27d4_eb4f,
        0x1656_67b1_9e37_79f9,
        0x85eb_ca77_c2b2_ae63,
        0x27d4_eb2f_1656_67c5,
        0xff51_afd7_ed55_8ccd,
        0xc4ce_b9fe_1a85_ec53,
        0xd6e8_feb8_6659_fd93,
    ];
    let mut h = mix64(band as u64 ^ 0xba4d_5eed);
    for chunk in values.chunks(8) {
        let mut sum = 0u64;
        for (v, k) in chunk.iter().zip(K) {
            sum = sum.wrapping_add((*v as u64 + 1).wrapping_mul(k));
        }
        h = mix64(h ^ sum);
    }
    h
}

/// Bits of a sort word that hold the item; the band key keeps the rest. Two different
/// band keys that agree on their top 40 bits make a false candidate, which verification
/// then rejects: expected about n²·b / 2^41 of them, 0.001 for 100,000 items and 16 bands.
const ITEM_BITS: u32 = 24;
const ITEM_MASK: u64 = (1 << ITEM_BITS) - 1;

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
    if sigs.rows() as u64 > ITEM_MASK + 1 {
        return candidates_wide(sigs, items, bands, rows, progress);
    }
    let done = std::sync::atomic::AtomicU64::new(0);
    let per_band: Vec<Vec<u64>> = (0..bands)
        .into_par_iter()
        .map(|band| {
            check(progress)?;
            // One u64 per item, band key above and item below, so a plain sort of
            // machine words groups equal keys (and orders items within them).
            let mut keyed: Vec<u64> = items
                .iter()
                .map(|&i| {
                    let row = sigs.row(i as usize);
                    let key = band_key(&row[band * rows..(band + 1) * rows], band);
                    (key & !ITEM_MASK) | i as u64
                })
                .collect();
            keyed.sort_unstable();
            let mut pairs = Vec::new();
            for bucket in keyed.chunk_by(|x, y| x & !ITEM_MASK == y & !ITEM_MASK) {
                push_bucket_pairs(bucket, |x| x & ITEM_MASK, &mut pairs);
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

/// Appends every pair of a bucket's items as packed (smaller << 32 | larger) words; the
/// items are distinct and ascending within a bucket.
fn push_bucket_pairs<T>(bucket: &[T], item: impl Fn(&T) -> u64, out: &mut Vec<u64>) {
    for (i, x) in bucket.iter().enumerate() {
        for y in &bucket[i + 1..] {
            out.push((item(x) << 32) | item(y));
        }
    }
}

/// [`candidates`] for item indices too large to fit beside a key in one word (over 16 million):
/// sorts (key, item) pairs instead.
fn candidates_wide(
    sigs: &Signatures,
    items: &[u32],
    bands: usize,
    rows: usize,
    progress: &dyn Progress,
) -> Result<Vec<(u32, u32)>, Cancelled> {
    let mut all = Vec::new();
    for band in 0..bands {
        check(progress)?;
        let mut keyed: Vec<(u64, u32)> = items
            .par_iter()
            .map(|&i| {
                (
                    band_key(&sigs.row(i as usize)[band * rows..(band + 1) * rows], band),
                    i,
                )
            })
            .collect();
        keyed.par_sort_unstable();
        for bucket in keyed.chunk_by(|x, y| x.0 == y.0) {
            push_bucket_pairs(bucket, |x| x.1 as u64, &mut all);
        }
        progress.update(Stage::Band, band as u64 + 1, bands as u64);
    }
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
    fn the_wide_path_finds_the_same_pairs() {
        let mut sets = ShingleSets::new();
        for i in 0..300u64 {
            // families of three near-identical sets
            let base = (i / 3) * 1000;
            let mut s: Vec<u64> = (base..base + 40).map(crate::hash::mix64).collect();
            s.push(crate::hash::mix64(1_000_000 + i));
            s.sort_unstable();
            sets.push(&s);
        }
        let sigs = Signatures::compute(&Sketcher::new(SketchKind::MinHash, 5, 64), &sets, &Silent)
            .unwrap();
        let items: Vec<u32> = (0..300).collect();
        let narrow = candidates(&sigs, &items, 16, 4, &Silent).unwrap();
        let wide = candidates_wide(&sigs, &items, 16, 4, &Silent).unwrap();
        assert!(narrow.len() >= 250, "{}", narrow.len());
        assert_eq!(narrow, wide);
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
