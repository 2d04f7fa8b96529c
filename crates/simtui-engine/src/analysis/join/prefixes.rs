//! The prefixes of the exact join and their inverted index: each set's rarest shingles
//! that another set holds too, laid out in probing order, and for each of them the sets
//! before it whose prefixes hold the same shingle.

use super::limits::heap;
use super::{PROBE_ONLY, index_prefix_len, prefix_len};
use crate::storage::Slab;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering};

/// Each set's probing prefix, less the shingles no other set holds (they pair with
/// nothing), in probing order: set `order[i]`'s are `tokens[start[i]..start[i + 1]]`,
/// rarest first, each with its position among all of the set's shingles in that order
/// (the shingles no other set holds come first). Their shingles are apart, in `keys`,
/// for the inverted index to sort and take.
pub(super) struct Prefixes {
    pub(super) start: Vec<usize>,
    pub(super) tokens: Vec<Token>,
    /// Each prefix shingle as (hash, rank, i) packed in a u128, for the set of probing
    /// rank `rank` and its `i`-th prefix shingle (token `start[rank] + i`): sorted, a
    /// list of the index is a run of one hash, by rank, read in order with all the
    /// index needs (no token read back from where the sort left it).
    keys: Vec<u128>,
    /// Per rank: the shingles no other set holds (the position of prefix shingle `i` is
    /// `unique + i`), and the prefix shingles within the shorter indexing prefix.
    unique: Vec<u32>,
    indexed: Vec<u32>,
    /// Bytes held while they were built (their lengths and parts, then all of them).
    pub(super) building: u64,
}

/// One shingle of a prefix.
#[derive(Clone, Copy, Default)]
pub(super) struct Token {
    /// Its position in the set, rarest first.
    pub(super) pos: u32,
    /// The sets before it (in probing order) whose prefixes hold the shingle:
    /// `post[first..at]` of the [`PrefixIndex`], which sets these. Kept here rather than
    /// in arrays of their own: the probe reads them with its position.
    pub(super) first: u32,
    pub(super) at: u32,
}

/// A key of [`Prefixes::keys`].
fn key(hash: u64, rank: usize, i: usize) -> u128 {
    ((hash as u128) << 64) | ((rank as u128) << 32) | i as u128
}

/// Calls `put(i, hash)` for each of the `want` rarest shingles of `set` that another set
/// holds too (frequency above 1), `i` its place in (frequency, hash) order: the order
/// every set agrees on, so that positions bound the overlap. A counting sort on the
/// frequencies, the set being in hash order already (a sort of (frequency, hash) pairs
/// took 1.7x the CPU here).
fn rarest(set: &[u64], freq: &[AtomicU8], want: usize, mut put: impl FnMut(usize, u64)) {
    let f = |x: &AtomicU8| x.load(Ordering::Relaxed) as usize;
    let mut count = [0u32; 256];
    for x in freq {
        count[f(x)] += 1;
    }
    // Where each frequency's shingles start, up to the one that fills the prefix.
    let (mut at, mut taken, mut last) = ([0usize; 256], 0, 1);
    while taken < want && last < 255 {
        last += 1;
        at[last] = taken;
        taken += count[last] as usize;
    }
    for (&hash, x) in set.iter().zip(freq) {
        let f = f(x);
        if f > 1 && f <= last && at[f] < want {
            put(at[f], hash);
            at[f] += 1;
        }
    }
}

impl Prefixes {
    pub(super) fn build(
        sets: &Slab<u64>,
        order: &[u32],
        freq: &[AtomicU8],
        floor: f64,
    ) -> Prefixes {
        let freq_of = |g: usize| &freq[sets.start(g)..sets.start(g + 1)];
        // How long each prefix is, first: then each is written where it stays, not
        // collected into a vector of its own and copied.
        let shapes: Vec<(u32, u32, u32)> = order
            .par_iter()
            .map(|&g| {
                let n = sets.get(g as usize).len();
                let unique = freq_of(g as usize)
                    .iter()
                    .filter(|f| f.load(Ordering::Relaxed) <= 1)
                    .count();
                let len = prefix_len(floor, n).saturating_sub(unique);
                let indexed = index_prefix_len(floor, n).saturating_sub(unique);
                (len as u32, unique as u32, indexed as u32)
            })
            .collect();
        let mut start = Vec::with_capacity(shapes.len() + 1);
        start.push(0);
        for &(l, _, _) in &shapes {
            start.push(start[start.len() - 1] + l as usize);
        }
        let m = start[shapes.len()];
        let mut tokens = vec![Token::default(); m];
        let mut keys = vec![0u128; m];
        let mut parts: Vec<(&mut [Token], &mut [u128])> = Vec::with_capacity(shapes.len());
        let (mut rest, mut rest_keys) = (&mut tokens[..], &mut keys[..]);
        for &(l, _, _) in &shapes {
            let (part, after) = rest.split_at_mut(l as usize);
            let (part_keys, after_keys) = rest_keys.split_at_mut(l as usize);
            parts.push((part, part_keys));
            (rest, rest_keys) = (after, after_keys);
        }
        let building = heap(&shapes) + heap(&parts);
        order
            .par_iter()
            .zip(parts)
            .enumerate()
            .for_each(|(rank, (&g, (prefix, keys)))| {
                let (set, freq) = (sets.get(g as usize), freq_of(g as usize));
                let unique = shapes[rank].1 as usize;
                rarest(set, freq, prefix.len(), |i, hash| {
                    prefix[i].pos = (unique + i) as u32;
                    keys[i] = key(hash, rank, i);
                });
            });
        let unique = shapes.iter().map(|s| s.1).collect();
        let indexed = shapes.iter().map(|s| s.2).collect();
        let mut prefixes = Prefixes {
            start,
            tokens,
            keys,
            unique,
            indexed,
            building,
        };
        prefixes.building += prefixes.heap();
        prefixes
    }

    /// Bytes of the prefixes laid out (the keys until the index takes them).
    pub(super) fn heap(&self) -> u64 {
        heap(&self.start)
            + heap(&self.tokens)
            + heap(&self.keys)
            + heap(&self.unique)
            + heap(&self.indexed)
    }
}

/// One set in a list of the inverted index: its probing rank, flagged with
/// [`PROBE_ONLY`] when the shingle is beyond its indexing prefix (it is there to be
/// found, not to be probed), and the shingle's position in it.
#[derive(Clone, Copy, Default)]
pub(super) struct Posting {
    pub(super) rank: u32,
    pub(super) pos: u32,
}

/// The inverted index of the prefixes: for the prefix shingle at `tokens[o]`, the sets
/// before it (in probing order) whose prefixes hold that shingle are
/// `post[tokens[o].first..tokens[o].at]`, by rank.
pub(super) struct PrefixIndex {
    pub(super) post: Vec<Posting>,
    /// Σ over the lists of (length choose 2): the most probes.
    pub(super) work: u64,
    /// Bytes held while it was built.
    pub(super) building: u64,
}

impl PrefixIndex {
    /// Sorts the prefixes' keys (then drops them): each run of one hash is a list, its
    /// sets by rank, as the probe needs them (sets are laid out in probing order).
    pub(super) fn build(prefixes: &mut Prefixes) -> PrefixIndex {
        let mut keys = std::mem::take(&mut prefixes.keys);
        keys.par_sort_unstable();
        let Prefixes {
            start,
            tokens,
            unique,
            indexed,
            ..
        } = prefixes;
        let mut post = Vec::with_capacity(keys.len());
        let mut work = 0u64;
        for list in keys.chunk_by(|x, y| x >> 64 == y >> 64) {
            let first = post.len() as u32;
            for &k in list {
                let (rank, i) = ((k >> 32) as u32 as usize, k as u32);
                let t = &mut tokens[start[rank] + i as usize];
                t.first = first;
                t.at = post.len() as u32;
                let beyond = if i >= indexed[rank] { PROBE_ONLY } else { 0 };
                post.push(Posting {
                    rank: rank as u32 | beyond,
                    pos: unique[rank] + i,
                });
            }
            let l = list.len() as u64;
            work += l * (l - 1) / 2;
        }
        // The keys were counted with the prefixes (`Prefixes::heap`, taken before).
        let building = heap(&post);
        PrefixIndex {
            post,
            work,
            building,
        }
    }

    pub(super) fn heap(&self) -> u64 {
        heap(&self.post)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::collection::btree_map;
    use proptest::prelude::*;

    proptest! {
        /// The counting sort gives the `want` first shingles of a sort by (frequency,
        /// hash) of those held elsewhere too, each at its place in that order:
        /// frequencies few and repeated, or spread up to the 255 they saturate at.
        #[test]
        fn the_rarest_are_those_a_sort_by_frequency_and_hash_puts_first(
            set in btree_map(any::<u64>(), prop_oneof![1u8..4, 1u8..=255], 1..200),
            cut in 0.0f64..=1.0,
        ) {
            let hashes: Vec<u64> = set.keys().copied().collect();
            let freq: Vec<AtomicU8> = set.values().map(|&f| AtomicU8::new(f)).collect();
            let mut sorted: Vec<(u8, u64)> =
                set.iter().filter(|&(_, &f)| f > 1).map(|(&h, &f)| (f, h)).collect();
            sorted.sort_unstable();
            let want = (sorted.len() as f64 * cut) as usize;
            let mut got = vec![None; want];
            rarest(&hashes, &freq, want, |i, h| {
                assert!(got[i].replace(h).is_none(), "place {i} given twice");
            });
            let expected: Vec<Option<u64>> = sorted[..want].iter().map(|&(_, h)| Some(h)).collect();
            prop_assert_eq!(got, expected);
        }
    }
}
