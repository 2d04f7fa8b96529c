//! Locality-sensitive hashing by banding.
//!
//! A signature of b·r values is cut into b bands of r rows; two sets are candidates when
//! they agree on every row of at least one band, which happens with probability
//! 1 − (1 − s^r)^b for sets of Jaccard similarity s (see [`crate::search::curve`]).
//!
//! Buckets are built by sorting (band key, item) pairs rather than with hash maps of
//! vectors: one flat allocation per band, cache-friendly, and deterministic.

use crate::error::Result;
use crate::hash::mix64;
use crate::progress::{Progress, Stage, check};
use crate::search::verify::RowsOf;
use crate::sketch::minhash::Signatures;
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

/// A bucket of at least this many contents is not expanded into pairs while banding: it
/// is kept as a [`Bucket`], and whoever needs its pairs takes them one at a time
/// ([`HugeOwners`]), never all at once. Its pairs grow as the square of its size:
/// 10,000 near-identical copies of a page make one bucket of 50 million pairs in each band.
pub const HUGE_BUCKET: usize = 1000;

/// A bucket of one band with [`HUGE_BUCKET`] contents or more, or more than the
/// `max_bucket` asked for: its pairs are not among the band's candidates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bucket {
    /// The band it is a bucket of.
    pub band: usize,
    /// Its contents (group indices), ascending.
    pub groups: Vec<u32>,
    /// Over the `max_bucket` asked for: left out of the candidates altogether (else
    /// huge, and its pairs are candidates taken one at a time).
    pub capped: bool,
}

/// One band's banding: its candidate pairs, packed as `smaller << 32 | larger` and sorted,
/// and its huge buckets.
#[derive(Clone, Debug, Default)]
pub struct BandOut {
    /// Candidate pairs of the band's small buckets, packed and sorted.
    pub pairs: Vec<u64>,
    /// Its huge buckets, not expanded.
    pub huge: Vec<Bucket>,
}

/// How a band's buckets are treated: the band, and the largest bucket to expand.
pub(crate) struct Expand {
    pub(crate) band: usize,
    /// Buckets of more contents than this are left out (the user's `max_bucket`).
    pub(crate) max_bucket: usize,
}

/// An item's packed word: its band key's top bits above the item (narrow banding).
#[inline]
pub(crate) fn item_word(key: u64, item: u32) -> u64 {
    (key & !ITEM_MASK) | item as u64
}

/// A packed word's key bits and item.
#[inline]
pub(crate) fn word_parts(word: u64) -> (u64, u32) {
    (word & !ITEM_MASK, (word & ITEM_MASK) as u32)
}

impl Expand {
    /// Appends a bucket's pairs to `out`, or records it in `huge`. `items` are distinct
    /// and ascending.
    pub(crate) fn bucket(&self, items: &[u32], out: &mut Vec<u64>, huge: &mut Vec<Bucket>) {
        if items.len() >= HUGE_BUCKET || items.len() > self.max_bucket {
            huge.push(Bucket {
                band: self.band,
                groups: items.to_vec(),
                capped: items.len() > self.max_bucket,
            });
            return;
        }
        for (i, &x) in items.iter().enumerate() {
            for &y in &items[i + 1..] {
                out.push(((x as u64) << 32) | y as u64);
            }
        }
    }
}

/// Which pairs of the huge buckets of a banding (`bands` × `rows`, as
/// [`candidates_capped`] listed them) are candidates still to take: a pair is *owned* by
/// the first huge bucket its contents share, unless a small bucket of some band holds it
/// (then it is among the band's candidates already). Capped buckets own nothing. Taken a
/// row at a time ([`HugeOwners::row`]), the pairs of a bucket never need to be held.
pub struct HugeOwners<'a> {
    sigs: RowsOf<'a>,
    bands: usize,
    rows: usize,
    /// For each content in a huge bucket: the bands where it is in one, and whether that
    /// bucket is capped, by band.
    state: std::collections::HashMap<u32, Vec<(usize, bool)>>,
}

impl<'a> HugeOwners<'a> {
    /// The owners of `huge`'s pairs.
    ///
    /// # Panics
    /// If the signatures are on a temporary file and cannot be read back.
    pub fn new(sigs: &'a Signatures, bands: usize, rows: usize, huge: &[Bucket]) -> Self {
        let sigs = if sigs.is_spilled() {
            let mut groups: Vec<u32> = huge.iter().flat_map(|b| b.groups.clone()).collect();
            groups.sort_unstable();
            groups.dedup();
            crate::search::verify::load_rows(sigs, groups)
                .unwrap_or_else(|e| panic!("reading back signatures: {e}"))
        } else {
            RowsOf::Memory(sigs)
        };
        HugeOwners::with_rows(sigs, bands, rows, huge)
    }

    /// [`HugeOwners::new`] with the rows of the buckets' contents at hand.
    pub(crate) fn with_rows(sigs: RowsOf<'a>, bands: usize, rows: usize, huge: &[Bucket]) -> Self {
        let mut state: std::collections::HashMap<u32, Vec<(usize, bool)>> = Default::default();
        for b in huge {
            for &g in &b.groups {
                state.entry(g).or_default().push((b.band, b.capped));
            }
        }
        for v in state.values_mut() {
            v.sort_unstable();
        }
        HugeOwners {
            sigs,
            bands,
            rows,
            state,
        }
    }

    /// The contents after the `i`th of `bucket` whose pair with it `bucket` owns.
    pub fn row<'b>(&'b self, bucket: &'b Bucket, i: usize) -> impl Iterator<Item = u32> + 'b {
        let x = bucket.groups[i];
        let skip = bucket.capped;
        bucket.groups[i + 1..]
            .iter()
            .copied()
            .filter(move |&y| !skip && self.owns(x, y, bucket.band))
    }

    fn owns(&self, x: u32, y: u32, band: usize) -> bool {
        let (sx, sy) = (self.sigs.get(x), self.sigs.get(y));
        let at = |b: usize| {
            self.state
                .get(&x)
                .and_then(|v| v.binary_search_by_key(&b, |s| s.0).ok().map(|i| v[i].1))
        };
        (0..self.bands).all(|b| {
            let r = b * self.rows..(b + 1) * self.rows;
            if b == band || sx[r.clone()] != sy[r] {
                return true;
            }
            // They share band b: a small bucket holds the pair; an earlier huge one owns it.
            match at(b) {
                None => false,
                Some(capped) => capped || b > band,
            }
        })
    }
}

/// Whether item indices fit beside a key in one word (under 16 million items).
pub(crate) fn narrow(sigs: &Signatures) -> bool {
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
    Ok(candidates_capped(sigs, items, bands, rows, None, progress)?.0)
}

/// Candidate pairs of contents, (smaller, larger) and sorted, with the huge buckets
/// whose pairs are not among them.
pub type Candidates = (Vec<(u32, u32)>, Vec<Bucket>);

/// [`candidates`], with buckets of more than `max_bucket` contents left out of the
/// candidates; returns the huge buckets too ([`HUGE_BUCKET`] contents or more, expanded
/// or not), as each band found them.
pub fn candidates_capped(
    sigs: &Signatures,
    items: &[u32],
    bands: usize,
    rows: usize,
    max_bucket: Option<usize>,
    progress: &dyn Progress,
) -> Result<Candidates> {
    assert!(bands >= 1 && rows >= 1, "bands and rows must be at least 1");
    let which: Vec<usize> = (0..bands).collect();
    let mut buffers = BandBuffers::default();
    let per_band = band_pairs(
        sigs,
        items,
        rows,
        &which,
        max_bucket,
        &mut buffers,
        progress,
    )?;
    let lists: Vec<&[u64]> = per_band.iter().map(|b| b.pairs.as_slice()).collect();
    let pairs = unpack(&union(&lists)?);
    let huge = per_band.into_iter().flat_map(|b| b.huge).collect();
    Ok((pairs, huge))
}

/// For each band in `which` (bands of `rows` rows), the pairs of items that agree on all
/// of its rows, packed as `smaller << 32 | larger` and sorted, and its huge buckets
/// (those over `max_bucket` items are left out). The building block of [`candidates`],
/// shared with re-banding ([`super::reband`]), which keeps the bands it has already seen.
pub(crate) fn band_pairs(
    sigs: &Signatures,
    items: &[u32],
    rows: usize,
    which: &[usize],
    max_bucket: Option<usize>,
    buffers: &mut BandBuffers,
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
    if !narrow(sigs) {
        return which
            .iter()
            .enumerate()
            .map(|(done, &band)| {
                check(progress)?;
                progress.update(Stage::Band, done as u64, which.len() as u64);
                Ok(wide_band_pairs(sigs, rows, items, &expand(band)))
            })
            .collect();
    }
    band_keys(sigs, items, rows, which, &mut buffers.keys, progress)?;
    let done = std::sync::atomic::AtomicU64::new(0);
    let pool = &buffers.scratch;
    buffers
        .keys
        .par_chunks(items.len())
        .zip(which)
        .map(|(keyed, &band)| {
            check(progress)?;
            // One scratch per thread at a time, taken from and returned to the pool, so
            // it stays warm in the cache from one band to the next.
            let mut scratch = pool
                .lock()
                .map(|mut p| p.pop())
                .ok()
                .flatten()
                .unwrap_or_default();
            let out = bucket_pairs(keyed, &expand(band), &mut scratch);
            if let Ok(mut p) = pool.lock() {
                p.push(scratch);
            }
            let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress.update(Stage::Band, d, which.len() as u64);
            Ok(out)
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
pub(crate) fn bucket_pairs(keyed: &[u64], expand: &Expand, scratch: &mut Scratch) -> BandOut {
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
    let mut out = BandOut::default();
    let mut items = Vec::new();
    for bucket in shared.chunk_by(|x, y| x & !ITEM_MASK == y & !ITEM_MASK) {
        items.clear();
        items.extend(bucket.iter().map(|&w| (w & ITEM_MASK) as u32));
        expand.bucket(&items, &mut out.pairs, &mut out.huge);
    }
    out.pairs.sort_unstable();
    out
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
pub(crate) struct Scratch {
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
pub(crate) fn union(lists: &[impl AsRef<[u64]>]) -> Result<Vec<u64>> {
    let total = lists.iter().map(|l| l.as_ref().len()).sum();
    let mut all: Vec<u64> = Vec::new();
    crate::storage::memory::reserve(&mut all, total, "the candidate pairs")?;
    for list in lists {
        all.extend_from_slice(list.as_ref());
    }
    all.par_sort_unstable();
    all.dedup();
    Ok(all)
}

/// Packed pairs as (smaller, larger).
pub(crate) fn unpack(packed: &[u64]) -> Vec<(u32, u32)> {
    packed
        .iter()
        .map(|&p| ((p >> 32) as u32, p as u32))
        .collect()
}

/// One band's pairs for item indices too large to fit beside a key in one word (over 16
/// million): sorts (key, item) pairs instead.
pub(crate) fn wide_band_pairs(
    sigs: &Signatures,
    rows: usize,
    items: &[u32],
    expand: &Expand,
) -> BandOut {
    let band = expand.band;
    let mut keyed: Vec<(u64, u32)> = items
        .par_iter()
        .map(|&i| {
            let row = sigs.row(i as usize);
            (band_key(&row[band * rows..(band + 1) * rows], band), i)
        })
        .collect();
    keyed.par_sort_unstable();
    let mut out = BandOut::default();
    let mut members = Vec::new();
    for bucket in keyed.chunk_by(|x, y| x.0 == y.0) {
        if bucket.len() > 1 {
            members.clear();
            members.extend(bucket.iter().map(|x| x.1));
            expand.bucket(&members, &mut out.pairs, &mut out.huge);
        }
    }
    out.pairs.par_sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;
    use crate::shingle::ShingleSets;
    use crate::sketch::minhash::{SketchKind, Sketcher};

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
            .map(|band| wide_band_pairs(&sigs, 4, &items, &uncapped(band)).pairs)
            .collect();
        let wide = unpack(&union(&per_band).unwrap());
        assert!(narrow.len() >= 250, "{}", narrow.len());
        assert_eq!(narrow, wide);
    }

    fn uncapped(band: usize) -> Expand {
        Expand {
            band,
            max_bucket: usize::MAX,
        }
    }

    /// The reference: sort every word, list each run of equal keys.
    fn sorted_bucket_pairs(keyed: &[u64]) -> Vec<u64> {
        let mut sorted = keyed.to_vec();
        sorted.sort_unstable();
        let mut pairs = Vec::new();
        for bucket in sorted.chunk_by(|x, y| x & !ITEM_MASK == y & !ITEM_MASK) {
            for (i, x) in bucket.iter().enumerate() {
                for y in &bucket[i + 1..] {
                    pairs.push(((x & ITEM_MASK) << 32) | (y & ITEM_MASK));
                }
            }
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
            let found = bucket_pairs(&keyed, &uncapped(0), &mut scratch);
            assert_eq!(found.pairs, sorted_bucket_pairs(&keyed), "{distinct} keys");
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
        let owners = HugeOwners::new(sigs, bands, rows, huge);
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
