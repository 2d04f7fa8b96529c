//! Locality-sensitive hashing by banding.
//!
//! A signature of b·r values is cut into b bands of r rows; two sets are candidates when
//! they agree on every row of at least one band, which happens with probability
//! 1 − (1 − s^r)^b for sets of Jaccard similarity s (see [`crate::minhash::curve`]).
//!
//! Buckets are built by sorting (band key, item) pairs rather than with hash maps of
//! vectors: one flat allocation per band, cache-friendly, and deterministic.

use crate::error::Result;
use crate::hash::mix64;
use crate::minhash::sketch::Signatures;
use crate::progress::{Progress, Stage, check};
use rayon::prelude::*;

/// Odd constants weighting the values of a band (eight at a time) in [`band_key`].
const WEIGHTS: [u64; 8] = [
    0x9e37_79b9_7f4a_7c15,
    0xc2b2_ae3d_27d4_eb4f,
    0x1656_67b1_9e37_79f9,
    0x85eb_ca77_c2b2_ae63,
    0x27d4_eb2f_1656_67c5,
    0xff51_afd7_ed55_8ccd,
    0xc4ce_b9fe_1a85_ec53,
    0xd6e8_feb8_6659_fd93,
];

/// The key of one band of a signature: a 64-bit hash of its r values. The values are
/// weighted by independent odd constants and summed (no dependency chain between them,
/// unlike a fold of mixes), then the sum is mixed once. Shared with the lookups of a
/// single signature (queries), which must bucket exactly as [`candidates`] does.
#[inline]
pub(crate) fn band_key(values: &[u32], band: usize) -> u64 {
    key_from(values, band_seed(band))
}

/// The starting state of band `band`'s keys, so that equal values in different bands
/// give different keys.
fn band_seed(band: usize) -> u64 {
    mix64(band as u64 ^ 0xba4d_5eed)
}

#[inline]
fn key_from(values: &[u32], seed: u64) -> u64 {
    let mut h = seed;
    for chunk in values.chunks(8) {
        let mut sum = 0u64;
        for (v, k) in chunk.iter().zip(WEIGHTS) {
            sum = sum.wrapping_add((*v as u64 + 1).wrapping_mul(k));
        }
        h = mix64(h ^ sum);
    }
    h
}

/// Bits of a packed word that hold the item; the band key keeps the rest. Two different
/// band keys that agree on their top 40 bits make a false candidate, which verification
/// then rejects: about n²/2 · b / 2^40 of them expected, 0.07 for 100,000 items and 16 bands.
const ITEM_BITS: u32 = 24;
const ITEM_MASK: u64 = (1 << ITEM_BITS) - 1;
/// Marks a free slot of the bucket table. No packed word equals it, because items stay
/// below `ITEM_MASK` (larger item indices take the wide path).
const FREE: u64 = u64::MAX;
/// Items per parallel task when computing keys.
const KEY_CHUNK: usize = 4096;

/// Whether item indices fit beside a key in one word (under 16 million items).
fn narrow(sigs: &Signatures) -> bool {
    (sigs.rows() as u64) < ITEM_MASK
}

/// The candidate pairs among `items` (row indices into `sigs`) for `bands` × `rows`, each
/// pair once, as (smaller, larger) row indices, sorted. Uses the first `bands * rows`
/// functions of each signature, which must exist. Fails only when cancelled.
///
/// # Panics
/// If `bands` or `rows` is 0, or the signatures have fewer than `bands * rows` functions.
pub fn candidates(
    sigs: &Signatures,
    items: &[u32],
    bands: usize,
    rows: usize,
    progress: &dyn Progress,
) -> Result<Vec<(u32, u32)>> {
    assert!(bands >= 1 && rows >= 1, "bands and rows must be at least 1");
    let which: Vec<usize> = (0..bands).collect();
    let mut buffers = BandBuffers::default();
    let per_band = band_pairs(sigs, items, rows, &which, &mut buffers, progress)?;
    Ok(unpack(&union(&per_band)))
}

/// For each band in `which` (bands of `rows` rows), the pairs of items that agree on all
/// of its rows, packed as `smaller << 32 | larger` and sorted. The building block of
/// [`candidates`], shared with re-banding ([`super::reband`]), which keeps the bands it has
/// already seen.
pub(crate) fn band_pairs(
    sigs: &Signatures,
    items: &[u32],
    rows: usize,
    which: &[usize],
    buffers: &mut BandBuffers,
    progress: &dyn Progress,
) -> Result<Vec<Vec<u64>>> {
    assert!(rows >= 1, "rows must be at least 1");
    let needed = which.iter().map(|&b| (b + 1) * rows).max().unwrap_or(0);
    assert!(
        needed <= sigs.width(),
        "{} bands × {rows} rows need {needed} hash functions, the signatures have {}",
        which.len(),
        sigs.width()
    );
    if items.is_empty() {
        return Ok(vec![Vec::new(); which.len()]);
    }
    if !narrow(sigs) {
        return which
            .iter()
            .enumerate()
            .map(|(done, &band)| {
                check(progress)?;
                progress.update(Stage::Band, done as u64, which.len() as u64);
                Ok(wide_band_pairs(sigs, items, rows, band))
            })
            .collect();
    }
    band_keys(sigs, items, rows, which, &mut buffers.keys, progress)?;
    let done = std::sync::atomic::AtomicU64::new(0);
    let pool = &buffers.scratch;
    buffers
        .keys
        .par_chunks(items.len())
        .map(|keyed| {
            check(progress)?;
            // One scratch per thread at a time, taken from and returned to the pool, so
            // it stays warm in the cache from one band to the next.
            let mut scratch = pool
                .lock()
                .map(|mut p| p.pop())
                .ok()
                .flatten()
                .unwrap_or_default();
            let pairs = bucket_pairs(keyed, &mut scratch);
            if let Ok(mut p) = pool.lock() {
                p.push(scratch);
            }
            let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress.update(Stage::Band, d, which.len() as u64);
            Ok(pairs)
        })
        .collect()
}

/// The keys of the bands in `which` for every item, band after band: the word for band
/// `which[j]` and item `items[i]` is at `j * items.len() + i`, the key's top bits above
/// the item. Computed in one pass over the signatures (each row read once, whatever the
/// number of bands), in parallel over runs of items.
fn band_keys(
    sigs: &Signatures,
    items: &[u32],
    rows: usize,
    which: &[usize],
    keys: &mut Vec<u64>,
    progress: &dyn Progress,
) -> Result<()> {
    let n = items.len();
    // Every word is written below, so a buffer kept from an earlier call is not cleared.
    keys.truncate(which.len() * n);
    keys.resize(which.len() * n, 0);
    // Each task gets, for its run of items, one output slice per band.
    let mut outputs: Vec<Vec<&mut [u64]>> = (0..n.div_ceil(KEY_CHUNK))
        .map(|_| Vec::with_capacity(which.len()))
        .collect();
    for band in keys.chunks_mut(n) {
        for (task, part) in band.chunks_mut(KEY_CHUNK).enumerate() {
            outputs[task].push(part);
        }
    }
    let seeds: Vec<u64> = which.iter().map(|&b| band_seed(b)).collect();
    outputs
        .into_par_iter()
        .zip(items.par_chunks(KEY_CHUNK))
        .try_for_each(|(mut outs, run)| {
            check(progress)?;
            for (j, &item) in run.iter().enumerate() {
                let row = sigs.row(item as usize);
                for ((out, &band), &seed) in outs.iter_mut().zip(which).zip(&seeds) {
                    let key = key_from(&row[band * rows..(band + 1) * rows], seed);
                    out[j] = (key & !ITEM_MASK) | item as u64;
                }
            }
            Ok(())
        })
}

/// The pairs of items whose packed words share a key, sorted. The words are first split
/// by the top bits of their keys into parts small enough for the first-level cache; in
/// each part an open-addressing table finds the words whose key is already taken, in one
/// pass (much faster than sorting every word). Only those words are sorted afterwards, to
/// list each bucket's members. `scratch` is reused between bands.
fn bucket_pairs(keyed: &[u64], scratch: &mut Scratch) -> Vec<u64> {
    let parts = 1usize << PART_BITS;
    let part_of = |word: u64| (word >> (64 - PART_BITS)) as usize;
    let mut start = vec![0usize; parts + 1];
    for &word in keyed {
        start[part_of(word) + 1] += 1;
    }
    for p in 0..parts {
        start[p + 1] += start[p];
    }
    let mut next = start.clone();
    // Every word is written below, so what an earlier band left is not cleared.
    scratch.parted.truncate(keyed.len());
    scratch.parted.resize(keyed.len(), 0);
    for &word in keyed {
        let p = part_of(word);
        scratch.parted[next[p]] = word;
        next[p] += 1;
    }
    let mut shared = Vec::new();
    for p in 0..parts {
        let part = &scratch.parted[start[p]..start[p + 1]];
        shared_keys(part, &mut scratch.table, &mut shared);
    }
    shared.sort_unstable();
    shared.dedup();
    let mut pairs = Vec::new();
    for bucket in shared.chunk_by(|x, y| x & !ITEM_MASK == y & !ITEM_MASK) {
        push_bucket_pairs(bucket, |x| x & ITEM_MASK, &mut pairs);
    }
    pairs.sort_unstable();
    pairs
}

/// Bits of the key that choose a part in [`bucket_pairs`].
const PART_BITS: u32 = 8;

/// Buffers for banding, kept between calls by whoever bands again and again: fresh memory
/// costs a page fault per 4 KiB on first touch, about 3 ms for the keys of 100,000 items
/// in 16 bands on the machine this was measured on, a tenth of a re-band.
#[derive(Default)]
pub(crate) struct BandBuffers {
    keys: Vec<u64>,
    scratch: std::sync::Mutex<Vec<Scratch>>,
}

/// Scratch space of [`bucket_pairs`].
#[derive(Default)]
struct Scratch {
    parted: Vec<u64>,
    table: Vec<u64>,
}

/// Appends to `shared` every word of `part` whose key another word of it has (some
/// words more than once).
fn shared_keys(part: &[u64], table: &mut Vec<u64>, shared: &mut Vec<u64>) {
    if part.len() < 2 {
        return;
    }
    let bits = (part.len() * 2).next_power_of_two().trailing_zeros();
    let mask = (1usize << bits) - 1;
    table.clear();
    table.resize(1 << bits, FREE);
    for &word in part {
        let key = word & !ITEM_MASK;
        // The key's bits below the part's are a hash output too: they spread over the table.
        let mut slot = ((key << PART_BITS) >> (64 - bits)) as usize;
        loop {
            let held = table[slot];
            if held == FREE {
                table[slot] = word;
                break;
            }
            if held & !ITEM_MASK == key {
                shared.push(held);
                shared.push(word);
                break;
            }
            slot = (slot + 1) & mask;
        }
    }
}

/// Every pair in any of the lists, once, sorted.
pub(crate) fn union(lists: &[impl AsRef<[u64]>]) -> Vec<u64> {
    let mut all: Vec<u64> = Vec::with_capacity(lists.iter().map(|l| l.as_ref().len()).sum());
    for list in lists {
        all.extend_from_slice(list.as_ref());
    }
    all.par_sort_unstable();
    all.dedup();
    all
}

/// Packed pairs as (smaller, larger).
pub(crate) fn unpack(packed: &[u64]) -> Vec<(u32, u32)> {
    packed
        .iter()
        .map(|&p| ((p >> 32) as u32, p as u32))
        .collect()
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

/// One band's pairs for item indices too large to fit beside a key in one word (over 16
/// million): sorts (key, item) pairs instead.
fn wide_band_pairs(sigs: &Signatures, items: &[u32], rows: usize, band: usize) -> Vec<u64> {
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
    let mut pairs = Vec::new();
    for bucket in keyed.chunk_by(|x, y| x.0 == y.0) {
        push_bucket_pairs(bucket, |x| x.1 as u64, &mut pairs);
    }
    pairs.par_sort_unstable();
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::minhash::sketch::{SketchKind, Sketcher};
    use crate::progress::Silent;
    use crate::shingle::ShingleSets;

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
        let per_band: Vec<Vec<u64>> = (0..16)
            .map(|band| wide_band_pairs(&sigs, &items, 4, band))
            .collect();
        let wide = unpack(&union(&per_band));
        assert!(narrow.len() >= 250, "{}", narrow.len());
        assert_eq!(narrow, wide);
    }

    /// The reference: sort every word, list each run of equal keys.
    fn sorted_bucket_pairs(keyed: &[u64]) -> Vec<u64> {
        let mut sorted = keyed.to_vec();
        sorted.sort_unstable();
        let mut pairs = Vec::new();
        for bucket in sorted.chunk_by(|x, y| x & !ITEM_MASK == y & !ITEM_MASK) {
            push_bucket_pairs(bucket, |x| x & ITEM_MASK, &mut pairs);
        }
        pairs.sort_unstable();
        pairs
    }

    #[test]
    fn the_bucket_table_finds_what_sorting_finds() {
        let mut scratch = Scratch::default();
        // Few distinct keys (large buckets, long probe runs), then many (mostly singletons
        // spread over every part); keys sharing their top bits but differing below them.
        for distinct in [200u64, 3000, 50_000, 1 << 40] {
            let keyed: Vec<u64> = (0..20_000u64)
                .map(|i| {
                    let key = crate::hash::mix64(i % distinct + distinct);
                    let key = if i % 3 == 0 { key & !(0xff << 24) } else { key };
                    (key & !ITEM_MASK) | i
                })
                .collect();
            let found = bucket_pairs(&keyed, &mut scratch);
            assert_eq!(found, sorted_bucket_pairs(&keyed), "{distinct} keys");
        }
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
