//! The prefixes of the exact join and their inverted index: each set's rarest shingles
//! that another set holds too, laid out in probing order, and for each of them the sets
//! before it whose prefixes hold the same shingle.

use super::limits::heap;
use super::{index_prefix_len, prefix_len};
use crate::storage::Slab;
use crate::storage::memory::prefetch;
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
    /// Each prefix's shape, by rank.
    shapes: Vec<Shape>,
    /// Bytes held while they were built (their lengths and parts, then all of them).
    pub(super) building: u64,
}

/// A set's prefix: how long it is, the set's shingles no other set holds (the position of
/// prefix shingle `i` is `unique + i`), and its shingles within the shorter indexing
/// prefix.
#[derive(Clone, Copy)]
struct Shape {
    len: u32,
    unique: u32,
    indexed: u32,
}

/// One shingle of a prefix.
#[derive(Clone, Copy, Default)]
pub(super) struct Token {
    /// Its position in the set, rarest first.
    pub(super) pos: u32,
    /// The sets before it (in probing order) whose indexing prefixes hold the shingle:
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
        let shapes: Vec<Shape> = order
            .par_iter()
            .map(|&g| {
                let n = sets.get(g as usize).len();
                let unique = freq_of(g as usize)
                    .iter()
                    .filter(|f| f.load(Ordering::Relaxed) <= 1)
                    .count();
                let len = prefix_len(floor, n).saturating_sub(unique);
                let indexed = index_prefix_len(floor, n).saturating_sub(unique);
                Shape {
                    len: len as u32,
                    unique: unique as u32,
                    indexed: indexed as u32,
                }
            })
            .collect();
        let mut start = Vec::with_capacity(shapes.len() + 1);
        start.push(0);
        for shape in &shapes {
            start.push(start[start.len() - 1] + shape.len as usize);
        }
        let m = start[shapes.len()];
        let mut tokens = vec![Token::default(); m];
        let mut keys = vec![0u128; m];
        let mut parts: Vec<(&mut [Token], &mut [u128])> = Vec::with_capacity(shapes.len());
        let (mut rest, mut rest_keys) = (&mut tokens[..], &mut keys[..]);
        for shape in &shapes {
            let l = shape.len as usize;
            let (part, after) = rest.split_at_mut(l);
            let (part_keys, after_keys) = rest_keys.split_at_mut(l);
            parts.push((part, part_keys));
            (rest, rest_keys) = (after, after_keys);
        }
        let building = heap(&parts);
        order
            .par_iter()
            .zip(parts)
            .enumerate()
            .for_each(|(rank, (&g, (prefix, keys)))| {
                let (set, freq) = (sets.get(g as usize), freq_of(g as usize));
                let unique = shapes[rank].unique as usize;
                rarest(set, freq, prefix.len(), |i, hash| {
                    prefix[i].pos = (unique + i) as u32;
                    keys[i] = key(hash, rank, i);
                });
            });
        let mut prefixes = Prefixes {
            start,
            tokens,
            keys,
            shapes,
            building,
        };
        prefixes.building += prefixes.heap();
        prefixes
    }

    /// Bytes of the prefixes laid out (the keys until the index takes them).
    pub(super) fn heap(&self) -> u64 {
        heap(&self.start) + heap(&self.tokens) + heap(&self.keys) + heap(&self.shapes)
    }
}

/// One set in a list of the inverted index, whose indexing prefix holds the shingle: its
/// probing rank, and the shingle's position in it.
#[derive(Clone, Copy, Default)]
pub(super) struct Posting {
    pub(super) rank: u32,
    pub(super) pos: u32,
}

/// The inverted index of the prefixes: for the prefix shingle at `tokens[o]`, the sets
/// before it (in probing order) whose indexing prefixes hold that shingle are
/// `post[tokens[o].first..tokens[o].at]`, by rank.
pub(super) struct PrefixIndex {
    pub(super) post: Vec<Posting>,
    /// Σ over the prefix shingles of the postings before them in their lists: the most
    /// probes.
    pub(super) work: u64,
    /// Bytes held while it was built.
    pub(super) building: u64,
}

/// Sorts `keys`: into 256 runs by their top byte first, in place (an American flag
/// sort: each key swapped to where its run is filled next), then each run by itself, the
/// runs in parallel. A run of 20,000 documents' keys fits a core's cache, where a
/// parallel sort of them all went to memory and back at each level (0.6x its CPU).
fn sort_keys(keys: &mut [u128]) {
    let byte = |k: u128| (k >> 120) as usize;
    let mut count = [0usize; 256];
    for &k in keys.iter() {
        count[byte(k)] += 1;
    }
    let mut end = [0usize; 256];
    let mut next = [0usize; 256];
    let mut at = 0;
    for b in 0..256 {
        next[b] = at;
        at += count[b];
        end[b] = at;
    }
    for b in 0..256 {
        while next[b] < end[b] {
            // The key at the head of run b goes to the head of its own run, and the key
            // there moves on in turn, until one that belongs in run b comes back.
            let mut k = keys[next[b]];
            let mut d = byte(k);
            while d != b {
                std::mem::swap(&mut k, &mut keys[next[d]]);
                next[d] += 1;
                d = byte(k);
            }
            keys[next[b]] = k;
            next[b] += 1;
        }
    }
    let mut runs = Vec::with_capacity(256);
    let mut rest = keys;
    for &n in &count {
        let (run, after) = rest.split_at_mut(n);
        runs.push(run);
        rest = after;
    }
    runs.into_par_iter().for_each(|run| run.sort_unstable());
}

/// How many keys ahead the index asks for the token it will write.
const WRITE_AHEAD: usize = 16;

impl PrefixIndex {
    /// Sorts the prefixes' keys (then drops them): each run of one hash is a list, its
    /// sets by rank, as the probe needs them (sets are laid out in probing order).
    pub(super) fn build(prefixes: &mut Prefixes) -> PrefixIndex {
        let mut keys = std::mem::take(&mut prefixes.keys);
        sort_keys(&mut keys);
        let Prefixes {
            start,
            tokens,
            shapes,
            ..
        } = prefixes;
        let token = |k: u128| {
            let (rank, i) = ((k >> 32) as u32 as usize, k as u32);
            (rank, i, start[rank] + i as usize)
        };
        // Only the shingles of the indexing prefixes are postings: one beyond it is
        // probed with, never found (at s = 0.5, most of a prefix), and as a posting
        // every later probe of its list passed it over.
        let postings = shapes.iter().map(|s| s.indexed.min(s.len) as usize).sum();
        let mut post = Vec::with_capacity(postings);
        let mut work = 0u64;
        // Where this hash's keys begin, and its list.
        let (mut first, mut list) = (0, 0);
        for (at, &k) in keys.iter().enumerate() {
            // The token a few keys on, to be written soon: tokens are in set order, keys
            // in hash order, so each is a line of memory of its own.
            if let Some(&ahead) = keys.get(at + WRITE_AHEAD) {
                prefetch(tokens, token(ahead).2);
            }
            if k >> 64 != keys[first] >> 64 {
                (first, list) = (at, post.len());
            }
            let (rank, i, o) = token(k);
            tokens[o].first = list as u32;
            tokens[o].at = post.len() as u32;
            work += (post.len() - list) as u64;
            let shape = shapes[rank];
            if i < shape.indexed {
                post.push(Posting {
                    rank: rank as u32,
                    pos: shape.unique + i,
                });
            }
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
        /// The keys in the order of a plain sort: top bytes spread, few or all alike.
        #[test]
        fn keys_sort_as_a_plain_sort_would(
            raw in proptest::collection::vec((any::<u64>(), 0u32..40, 0u32..40), 0..600),
            top in prop_oneof![Just(None), (0u8..3).prop_map(Some)],
        ) {
            let mut keys: Vec<u128> = raw
                .iter()
                .map(|&(h, r, i)| {
                    let h = top.map_or(h, |t| (h >> 8) | (t as u64) << 56);
                    key(h, r as usize, i as usize)
                })
                .collect();
            let mut expected = keys.clone();
            expected.sort_unstable();
            sort_keys(&mut keys);
            prop_assert_eq!(keys, expected);
        }

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
