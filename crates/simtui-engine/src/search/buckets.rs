//! Buckets of one band: the contents whose band keys are equal, and the candidate pairs
//! they make. Keys come packed with their item in one word (`item_word`); the words of
//! a band are bucketed with a table that fits the cache (`bucket_pairs`). Buckets of
//! many contents are not expanded ([`HUGE_BUCKET`]): their pairs are taken one row at a
//! time when verified ([`HugeOwners`]).

use super::found::Bucket;
use crate::error::Result;
use crate::sketch::Signatures;
use crate::storage::Picked;
use rayon::prelude::*;

/// Bits of a packed word that hold the item; the band key keeps the rest. Two different
/// band keys that agree on their top 40 bits make a false candidate, which verification
/// then rejects: about n²/2 · b / 2^40 of them expected, 0.07 for 100,000 items and 16 bands.
const ITEM_BITS: u32 = 24;
const ITEM_MASK: u64 = (1 << ITEM_BITS) - 1;
/// Marks a free slot of the bucket table. No packed word equals it, because items stay
/// below `ITEM_MASK` (larger item indices take the wide path).
const FREE: u64 = u64::MAX;

/// A bucket of at least this many contents is not expanded into pairs while banding: it
/// is kept as a [`Bucket`], and whoever needs its pairs takes them one at a time
/// ([`HugeOwners`]), never all at once. Its pairs grow as the square of its size:
/// 10,000 near-identical copies of a page make one bucket of 50 million pairs in each band.
pub const HUGE_BUCKET: usize = 1000;

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

/// Whether item indices below `rows` fit beside a key in one word (under 16 million).
pub(crate) fn narrow(rows: usize) -> bool {
    (rows as u64) < ITEM_MASK
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
/// [`candidates_capped`](super::banding::candidates_capped) listed them) are candidates
/// still to take: a pair is *owned* by the first huge bucket its contents share, unless a
/// small bucket of some band holds it (then it is among the band's candidates already).
/// Capped buckets own nothing. Taken a row at a time ([`HugeOwners::row`]), the pairs of a
/// bucket never need to be held.
pub struct HugeOwners<'a> {
    sigs: Picked<'a, u32>,
    bands: usize,
    rows: usize,
    /// For each content in a huge bucket: the bands where it is in one, and whether that
    /// bucket is capped, by band.
    state: std::collections::HashMap<u32, Vec<(usize, bool)>>,
}

impl<'a> HugeOwners<'a> {
    /// The owners of `huge`'s pairs, the signatures of the buckets' contents at hand
    /// (read back once when they are on a file: an error when they cannot be).
    pub fn new(sigs: &'a Signatures, bands: usize, rows: usize, huge: &[Bucket]) -> Result<Self> {
        let mut groups: Vec<u32> = huge.iter().flat_map(|b| b.groups.iter().copied()).collect();
        groups.sort_unstable();
        groups.dedup();
        let sigs = sigs.pick(groups)?;
        let mut state: std::collections::HashMap<u32, Vec<(usize, bool)>> = Default::default();
        for b in huge {
            for &g in &b.groups {
                state.entry(g).or_default().push((b.band, b.capped));
            }
        }
        for v in state.values_mut() {
            v.sort_unstable();
        }
        Ok(HugeOwners {
            sigs,
            bands,
            rows,
            state,
        })
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
    pub(crate) keys: Vec<u64>,
    pub(crate) scratch: std::sync::Mutex<Vec<Scratch>>,
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
