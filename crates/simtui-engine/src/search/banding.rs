//! Stage *search*, the MinHash way: locality-sensitive hashing by banding.
//!
//! A signature of b·r values is cut into b bands of r rows; two sets are candidates when
//! they agree on every row of at least one band, which happens with probability
//! 1 − (1 − s^r)^b for sets of Jaccard similarity s (see [`crate::search::curve`]).
//!
//! Band keys are computed in one place (`keys_of`), whatever the memory: every band's
//! keys at once when they fit, as many bands at a time as fit past the budget, and when
//! not even one band's keys fit, each band's keys sorted in runs on disk
//! (`sorted_band`, also the way for more items than fit beside a key in one word).
//! Buckets are found in each band ([`buckets`](super::buckets)); the candidate pairs of
//! every band are sorted together, in memory when they fit, and come out each once, in
//! order (`CandidateStream`).

use super::buckets::{BandBuffers, BandOut, Expand, Scratch, bucket_pairs, item_word, narrow};
use super::found::Bucket;
use crate::error::Result;
use crate::hash::mix64;
use crate::progress::{Progress, Stage, check};
use crate::sketch::Signatures;
use crate::storage::runs::{Sorted, Spill};
use crate::storage::{Room, RowsBuffer, Spilled};
use rayon::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

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

/// Items whose rows are read and keyed per parallel task.
const KEY_CHUNK: usize = 4096;

/// Bytes banding `bands` bands of `n` items at once takes in memory: every band's keys,
/// and a scratch copy of a band's keys (with its bucket table and shared words) per
/// thread.
pub(crate) fn in_memory_bytes(bands: usize, n: usize) -> u64 {
    let threads = rayon::current_num_threads().min(bands) as u64;
    (bands as u64 + 2 * threads) * n as u64 * 8
}

/// The candidate pairs of contents, sorted and each once, read from their sort.
pub(crate) struct CandidateStream {
    sorted: Sorted<u64>,
    /// Pairs pushed (repeats included): an upper bound of the stream's length.
    pub(crate) pushed: u64,
}

impl CandidateStream {
    /// The next pair (smaller, larger), None at the end.
    pub(crate) fn next_pair(&mut self) -> Result<Option<(u32, u32)>> {
        Ok(self
            .sorted
            .next_record()?
            .map(|p| ((p >> 32) as u32, p as u32)))
    }
}

/// The candidate pairs among `items` (row indices into `sigs`) for `bands` × `rows`, each
/// pair once, as (smaller, larger) row indices, sorted. Uses the first `bands * rows`
/// functions of each signature, which must exist. Fails only when cancelled, or when
/// the signatures cannot be read back.
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
    Ok(candidates_capped(sigs, items, bands, rows, None, progress)?.0)
}

/// Candidate pairs of contents, (smaller, larger) and sorted, with the huge buckets
/// whose pairs are not among them.
pub type Candidates = (Vec<(u32, u32)>, Vec<Bucket>);

/// [`candidates`], with buckets of more than `max_bucket` contents left out of the
/// candidates; returns the huge buckets too ([`HUGE_BUCKET`](super::buckets::HUGE_BUCKET)
/// contents or more, expanded or not), as each band found them. In memory.
pub fn candidates_capped(
    sigs: &Signatures,
    items: &[u32],
    bands: usize,
    rows: usize,
    max_bucket: Option<usize>,
    progress: &dyn Progress,
) -> Result<Candidates> {
    let spilled = Arc::new(Spilled::default());
    let room = Room {
        bytes: u64::MAX,
        dir: None,
        spilled: &spilled,
    };
    let (mut stream, huge) =
        candidate_stream(sigs, items, (bands, rows), max_bucket, &room, progress)?;
    let mut pairs = Vec::new();
    crate::storage::memory::reserve(&mut pairs, stream.pushed as usize, "the candidate pairs")?;
    while let Some(p) = stream.next_pair()? {
        pairs.push(p);
    }
    Ok((pairs, huge))
}

/// The candidates of `items` (ascending) for `bands` × `rows` in `room`'s memory, each
/// pair once, in order, with the huge buckets: the one way banding is done (see the
/// module's documentation).
///
/// # Panics
/// If `bands` or `rows` is 0, or the signatures have fewer than `bands * rows` functions.
pub(crate) fn candidate_stream(
    sigs: &Signatures,
    items: &[u32],
    (bands, rows): (usize, usize),
    max_bucket: Option<usize>,
    room: &Room,
    progress: &dyn Progress,
) -> Result<(CandidateStream, Vec<Bucket>)> {
    assert!(bands >= 1 && rows >= 1, "bands and rows must be at least 1");
    assert!(
        bands * rows <= sigs.width(),
        "{bands} bands × {rows} rows need {} hash functions, the signatures have {}",
        bands * rows,
        sigs.width()
    );
    let n = items.len();
    // A quarter of the room sorts the candidate pairs; the rest bands.
    let pair_room = (room.bytes / 4).max(1 << 10);
    let band_room = room.with_bytes(room.bytes - pair_room.min(room.bytes));
    let mut pairs: Spill<u64> = Spill::in_room(&room.with_bytes(pair_room), "candidate pairs");
    let (mut pushed, mut huge) = (0u64, Vec::new());
    let expand = |band| Expand {
        band,
        max_bucket: max_bucket.unwrap_or(usize::MAX),
    };
    // Bands a pass can take with their keys and scratch in memory (0: not even one).
    let per_pass = (1..=bands)
        .rev()
        .find(|&k| in_memory_bytes(k, n) <= band_room.bytes)
        .unwrap_or(0);
    if n > 0 && per_pass > 0 && narrow(sigs.len()) {
        let mut buffers = BandBuffers::default();
        let all: Vec<usize> = (0..bands).collect();
        for (pass, which) in all.chunks(per_pass).enumerate() {
            let counted = ((pass * per_pass) as u64, bands as u64);
            let outs = band_pairs(
                sigs,
                items,
                rows,
                which,
                max_bucket,
                &mut buffers,
                counted,
                progress,
            )?;
            pairs.reserve(outs.iter().map(|o| o.pairs.len()).sum())?;
            for out in outs {
                for &p in &out.pairs {
                    pairs.push(p)?;
                }
                pushed += out.pairs.len() as u64;
                huge.extend(out.huge);
            }
        }
    } else if n > 0 {
        for b in 0..bands {
            check(progress)?;
            let narrow = narrow(sigs.len());
            let out = &mut (&mut pairs, &mut huge);
            pushed += sorted_band(sigs, items, rows, &expand(b), narrow, &band_room, out)?;
            progress.update(Stage::Band, b as u64 + 1, bands as u64);
        }
    }
    let stream = CandidateStream {
        sorted: pairs.sorted_distinct()?,
        pushed,
    };
    Ok((stream, huge))
}

/// For each band in `which` (bands of `rows` rows), the pairs of items that agree on all
/// of its rows, packed as `smaller << 32 | larger` and sorted, and its huge buckets
/// (those over `max_bucket` items are left out), all in memory. The building block of
/// [`candidate_stream`], shared with re-banding
/// ([`Rebander`](crate::analysis::reband::Rebander)), which keeps the bands it has seen.
/// Progress counts bands: `counted` is (bands done before, bands in all).
#[allow(clippy::too_many_arguments)]
pub(crate) fn band_pairs(
    sigs: &Signatures,
    items: &[u32],
    rows: usize,
    which: &[usize],
    max_bucket: Option<usize>,
    buffers: &mut BandBuffers,
    counted: (u64, u64),
    progress: &dyn Progress,
) -> Result<Vec<BandOut>> {
    assert!(rows >= 1, "rows must be at least 1");
    let needed = which.iter().map(|&b| (b + 1) * rows).max().unwrap_or(0);
    assert!(
        needed <= sigs.width(),
        "{} bands × {rows} rows need {needed} hash functions, the signatures have {}",
        which.len(),
        sigs.width()
    );
    if items.is_empty() {
        return Ok(vec![BandOut::default(); which.len()]);
    }
    let expand = |band| Expand {
        band,
        max_bucket: max_bucket.unwrap_or(usize::MAX),
    };
    let done = AtomicU64::new(counted.0);
    let report = || {
        let d = done.fetch_add(1, Ordering::Relaxed) + 1;
        progress.update(Stage::Band, d, counted.1);
    };
    if !narrow(sigs.len()) {
        let spilled = Arc::new(Spilled::default());
        let room = Room {
            bytes: u64::MAX,
            dir: None,
            spilled: &spilled,
        };
        return which
            .iter()
            .map(|&band| {
                check(progress)?;
                let (mut pairs, mut huge) = (Spill::in_room(&room, "candidate pairs"), Vec::new());
                sorted_band(
                    sigs,
                    items,
                    rows,
                    &expand(band),
                    false,
                    &room,
                    &mut (&mut pairs, &mut huge),
                )?;
                let mut sorted = pairs.sorted()?;
                let mut out = BandOut {
                    pairs: Vec::new(),
                    huge,
                };
                while let Some(p) = sorted.next_record()? {
                    out.pairs.push(p);
                }
                report();
                Ok(out)
            })
            .collect();
    }
    check(progress)?;
    keys_of(sigs, items, rows, which, &mut buffers.keys, progress)?;
    let pool = &buffers.scratch;
    buffers
        .keys
        .par_chunks(items.len())
        .zip(which)
        .map(|(keyed, &band)| {
            check(progress)?;
            // One scratch per thread at a time, taken from and returned to the pool, so
            // it stays warm in the cache from one band to the next.
            let mut scratch: Scratch = pool
                .lock()
                .map(|mut p| p.pop())
                .ok()
                .flatten()
                .unwrap_or_default();
            let out = bucket_pairs(keyed, &expand(band), &mut scratch);
            if let Ok(mut p) = pool.lock() {
                p.push(scratch);
            }
            report();
            Ok(out)
        })
        .collect()
}

/// The keys of the bands in `which` for every item, band after band: the word for band
/// `which[j]` and item `items[i]` is at `j * items.len() + i`, the key's top bits above
/// the item. Computed in one pass over the signatures (each row read once, whatever the
/// number of bands), in parallel over runs of items, each run's rows read at once (in
/// one piece from a file, when they are on one).
fn keys_of(
    sigs: &Signatures,
    items: &[u32],
    rows: usize,
    which: &[usize],
    keys: &mut Vec<u64>,
    progress: &dyn Progress,
) -> Result<()> {
    let n = items.len();
    // Every word is written below, so a buffer kept from an earlier call is not cleared.
    let words = which.len().saturating_mul(n);
    keys.truncate(words);
    crate::storage::memory::reserve(keys, words, "the band keys")?;
    keys.resize(words, 0);
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
        .try_for_each_init(RowsBuffer::default, |buffer, (mut outs, run)| {
            check(progress)?;
            let first = run[0] as usize;
            let block = sigs.rows_in(first..*run.last().expect("a run") as usize + 1, buffer)?;
            for (j, &item) in run.iter().enumerate() {
                let row = block.get(item as usize - first);
                for ((out, &band), &seed) in outs.iter_mut().zip(which).zip(&seeds) {
                    let key = key_from(&row[band * rows..(band + 1) * rows], seed);
                    out[j] = item_word(key, item);
                }
            }
            Ok(())
        })
}

/// Where one band's buckets' pairs go, and its huge buckets.
type BandSink<'a> = (&'a mut Spill<u64>, &'a mut Vec<Bucket>);

/// A band's (key, item) records in key order, whichever way they were sorted.
type KeyStream<'a> = Box<dyn FnMut() -> Result<Option<(u64, u32)>> + 'a>;

/// One band's candidates through sorted runs: every item's key (packed with the item
/// when `narrow`, or beside it when items are too many to pack) sorted in `room`, the
/// buckets read off the sorted keys, their pairs pushed to `out`. Returns the number of
/// pairs pushed.
pub(crate) fn sorted_band(
    sigs: &Signatures,
    items: &[u32],
    rows: usize,
    expand: &Expand,
    narrow: bool,
    room: &Room,
    (pairs, huge): &mut BandSink,
) -> Result<u64> {
    let b = expand.band;
    let room = room.with_bytes(room.bytes.max(1 << 10));
    let mut words: Spill<u64> = Spill::in_room(&room, "band keys");
    let mut wide: Spill<(u64, u32)> = Spill::in_room(&room, "band keys");
    let seed = band_seed(b);
    let mut buffer = RowsBuffer::default();
    for run in items.chunks(KEY_CHUNK) {
        let first = run[0] as usize;
        let block = sigs.rows_in(first..*run.last().expect("a run") as usize + 1, &mut buffer)?;
        for &item in run {
            let row = block.get(item as usize - first);
            let key = key_from(&row[b * rows..(b + 1) * rows], seed);
            if narrow {
                words.push(item_word(key, item))?;
            } else {
                wide.push((key, item))?;
            }
        }
    }
    // Buckets as runs of equal keys; the items of a run are ascending.
    let mut pushed = 0u64;
    let mut out = Vec::new();
    let mut bucket: Vec<u32> = Vec::new();
    let mut current: Option<u64> = None;
    let mut close = |bucket: &mut Vec<u32>, pairs: &mut Spill<u64>| -> Result<()> {
        if bucket.len() > 1 {
            out.clear();
            expand.bucket(bucket, &mut out, huge);
            for &p in &out {
                pairs.push(p)?;
            }
            pushed += out.len() as u64;
        }
        bucket.clear();
        Ok(())
    };
    let mut next: KeyStream = if narrow {
        let mut sorted = words.sorted()?;
        Box::new(move || Ok(sorted.next_record()?.map(super::buckets::word_parts)))
    } else {
        let mut sorted = wide.sorted()?;
        Box::new(move || sorted.next_record())
    };
    while let Some((key, item)) = next()? {
        if current != Some(key) {
            close(&mut bucket, pairs)?;
            current = Some(key);
        }
        bucket.push(item);
    }
    close(&mut bucket, pairs)?;
    Ok(pushed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;
    use crate::search::buckets::{HUGE_BUCKET, HugeOwners};
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
        // Keys beside their items, as for more items than fit in a word with a key.
        let spilled = Arc::new(Spilled::default());
        let room = Room {
            bytes: u64::MAX,
            dir: None,
            spilled: &spilled,
        };
        let (mut pairs, mut huge) = (Spill::in_room(&room, "pairs"), Vec::new());
        for band in 0..16 {
            let out = &mut (&mut pairs, &mut huge);
            sorted_band(&sigs, &items, 4, &uncapped(band), false, &room, out).unwrap();
        }
        let mut sorted = pairs.sorted().unwrap();
        let mut wide = Vec::new();
        while let Some(p) = sorted.next_record().unwrap() {
            if wide.last() != Some(&p) {
                wide.push(p);
            }
        }
        let wide = crate::search::buckets::unpack(&wide);
        assert!(huge.is_empty());
        assert!(narrow.len() >= 250, "{}", narrow.len());
        assert_eq!(narrow, wide);
    }

    fn uncapped(band: usize) -> Expand {
        Expand {
            band,
            max_bucket: usize::MAX,
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

    /// Many contents whose signatures agree everywhere: one bucket in every band.
    fn alike(n: usize) -> (Signatures, Vec<u32>) {
        let mut sets = ShingleSets::new();
        for _ in 0..n {
            sets.push(&[7, 8, 9, 10]);
        }
        let sigs =
            Signatures::compute(&Sketcher::new(SketchKind::Oph, 1, 32), &sets, &Silent).unwrap();
        (sigs, (0..n as u32).collect())
    }

    /// Every pair the huge buckets own.
    fn owned(sigs: &Signatures, bands: usize, rows: usize, huge: &[Bucket]) -> Vec<(u32, u32)> {
        let owners = HugeOwners::new(sigs, bands, rows, huge).unwrap();
        let mut all = Vec::new();
        for b in huge {
            for i in 0..b.groups.len() {
                all.extend(owners.row(b, i).map(|y| (b.groups[i], y)));
            }
        }
        all.sort_unstable();
        all
    }

    #[test]
    fn a_huge_bucket_is_kept_whole_and_its_pairs_taken_once() {
        let (sigs, items) = alike(HUGE_BUCKET + 10);
        let n = items.len();
        let (pairs, huge) = candidates_capped(&sigs, &items, 8, 4, None, &Silent).unwrap();
        assert!(pairs.is_empty(), "not among the band's candidates");
        assert_eq!(huge.len(), 8, "one huge bucket per band");
        assert!(huge.iter().all(|b| !b.capped && b.groups.len() == n));
        let all = owned(&sigs, 8, 4, &huge);
        assert_eq!(
            all.len(),
            n * (n - 1) / 2,
            "each pair once, by the first band"
        );
        assert!(all.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn pairs_a_small_bucket_holds_are_not_taken_again_from_a_huge_one() {
        // One row a band. Band 0: every content alike (a huge bucket); band 1: contents
        // 0 and 1 alike (a small bucket); band 2: every content alike again. The pair
        // (0, 1) is a candidate of band 1's small bucket and must not come again from
        // the huge ones; every other pair comes once, from band 0's.
        let n = 1100u32;
        let data: Vec<u32> = (0..n).flat_map(|i| [7, 100 + i.max(1), 9]).collect();
        let sigs = Signatures::from_data(3, data).unwrap();
        let items: Vec<u32> = (0..n).collect();
        let (pairs, huge) = candidates_capped(&sigs, &items, 3, 1, None, &Silent).unwrap();
        assert_eq!(pairs, vec![(0, 1)]);
        assert_eq!(huge.len(), 2);
        let taken = owned(&sigs, 3, 1, &huge);
        assert!(!taken.contains(&(0, 1)));
        assert_eq!(
            taken.len() + 1,
            (n * (n - 1) / 2) as usize,
            "every other pair once"
        );
        // Both huge buckets over the cap: only the small bucket's pair is a candidate.
        let (pairs, huge) = candidates_capped(&sigs, &items, 3, 1, Some(1099), &Silent).unwrap();
        assert_eq!(pairs, vec![(0, 1)]);
        assert!(huge.iter().all(|b| b.capped));
        assert!(owned(&sigs, 3, 1, &huge).is_empty());
    }

    #[test]
    fn buckets_over_the_cap_are_reported_not_expanded() {
        let (sigs, items) = alike(300);
        let (pairs, huge) = candidates_capped(&sigs, &items, 4, 4, Some(100), &Silent).unwrap();
        assert!(pairs.is_empty());
        assert_eq!(huge.len(), 4);
        assert!(huge.iter().all(|b| b.capped && b.groups == items));
        assert!(
            owned(&sigs, 4, 4, &huge).is_empty(),
            "capped buckets own nothing"
        );
        let (pairs, huge) = candidates_capped(&sigs, &items, 4, 4, Some(300), &Silent).unwrap();
        assert_eq!(pairs.len(), 300 * 299 / 2);
        assert!(huge.is_empty(), "300 contents is not huge");
    }
}
