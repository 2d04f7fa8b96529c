//! The prefixes of the exact join and their inverted index: each set's rarest shingles
//! that another set holds too, laid out in probing order, and for each of them the sets
//! before it whose prefixes hold the same shingle.

use super::limits::heap;
use super::{PROBE_ONLY, bits_for, index_prefix_len, prefix_len};
use crate::storage::Slab;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering};

/// Each set's probing prefix, less the shingles no other set holds (they pair with
/// nothing), in probing order: set `order[i]`'s are `tokens[start[i]..start[i + 1]]`,
/// rarest first, each with its position among all of the set's shingles in that order
/// (the shingles no other set holds come first) and whether it is beyond the shorter
/// indexing prefix.
pub(super) struct Prefixes {
    pub(super) start: Vec<usize>,
    pub(super) tokens: Vec<Token>,
    /// Bytes held while they were built (their lengths and parts, then all of them).
    pub(super) building: u64,
}

/// One shingle of a prefix.
#[derive(Clone, Copy, Default)]
pub(super) struct Token {
    pub(super) hash: u64,
    /// Its position in the set, rarest first.
    pub(super) pos: u32,
    /// The set's probing rank, flagged with [`PROBE_ONLY`] when the shingle is beyond
    /// its indexing prefix (probed with, never probed): its posting in the index.
    pub(super) rank: u32,
    /// The sets before it (in probing order) whose prefixes hold the shingle:
    /// `post[first..at]` of the [`PrefixIndex`], which sets these. Kept here rather than
    /// in arrays of their own: the index writes them where it has just read the token,
    /// and the probe reads them with its position.
    pub(super) first: u32,
    pub(super) at: u32,
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
        let lens: Vec<usize> = order
            .par_iter()
            .map(|&g| {
                let n = sets.get(g as usize).len();
                let unique = freq_of(g as usize)
                    .iter()
                    .filter(|f| f.load(Ordering::Relaxed) <= 1)
                    .count();
                prefix_len(floor, n).saturating_sub(unique)
            })
            .collect();
        let mut start = Vec::with_capacity(lens.len() + 1);
        start.push(0);
        for &l in &lens {
            start.push(start[start.len() - 1] + l);
        }
        let mut tokens = vec![Token::default(); start[lens.len()]];
        let mut parts: Vec<&mut [Token]> = Vec::with_capacity(lens.len());
        let mut rest = &mut tokens[..];
        for &l in &lens {
            let (part, after) = rest.split_at_mut(l);
            parts.push(part);
            rest = after;
        }
        let building = heap(&lens) + heap(&parts);
        order.par_iter().zip(parts).enumerate().for_each_init(
            Vec::new,
            |shared, (rank, (&g, prefix))| {
                if prefix.is_empty() {
                    return;
                }
                let set = sets.get(g as usize);
                shared.clear();
                shared.extend(set.iter().zip(freq_of(g as usize)).filter_map(|(&h, f)| {
                    let f = f.load(Ordering::Relaxed);
                    (f > 1).then_some((f, h))
                }));
                let unique = set.len() - shared.len();
                let want = prefix.len();
                let indexed = index_prefix_len(floor, set.len()).saturating_sub(unique);
                if want < shared.len() {
                    shared.select_nth_unstable(want - 1);
                }
                // In the order every set agrees on, so that positions bound the overlap.
                let rarest = &mut shared[..want];
                rarest.sort_unstable();
                for (i, (t, &(_, hash))) in prefix.iter_mut().zip(rarest.iter()).enumerate() {
                    *t = Token {
                        hash,
                        pos: (unique + i) as u32,
                        rank: rank as u32 | if i >= indexed { PROBE_ONLY } else { 0 },
                        first: 0,
                        at: 0,
                    };
                }
            },
        );
        let mut prefixes = Prefixes {
            start,
            tokens,
            building,
        };
        prefixes.building += prefixes.heap();
        prefixes
    }

    pub(super) fn heap(&self) -> u64 {
        heap(&self.start) + heap(&self.tokens)
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
    pub(super) fn build(prefixes: &mut Prefixes) -> PrefixIndex {
        let tokens = &mut prefixes.tokens;
        let m = tokens.len();
        let o_bits = bits_for(m);
        let o_mask = (1u64 << o_bits) - 1;
        let mut keys: Vec<u64> = tokens
            .par_iter()
            .enumerate()
            .map(|(o, t)| (t.hash & !o_mask) | o as u64)
            .collect();
        keys.par_sort_unstable();
        let shift = o_bits;
        // A run of keys equal in their high bits holds one shingle, but for a rare merge
        // of two: those are sorted by hash, to keep each list exact. Occurrences ascend
        // within a list (the sort is stable), and so do ranks: sets are laid out in
        // probing order. A run's tokens are read where the sort put them, and again at
        // once (from the cache).
        let hash = |tokens: &[Token], k: u64| tokens[(k & o_mask) as usize].hash;
        let mut post = Vec::with_capacity(m);
        let mut work = 0u64;
        for run in keys.chunk_by_mut(|x, y| x >> shift == y >> shift) {
            let h = hash(tokens, run[0]);
            if run.iter().any(|&k| hash(tokens, k) != h) {
                run.sort_unstable_by_key(|&k| (hash(tokens, k), k));
            }
            // Each list: the keys of one hash (the tokens are written as it goes, so
            // the run is cut by hand rather than borrowed by `chunk_by`).
            let mut from = 0;
            while from < run.len() {
                let h = hash(tokens, run[from]);
                let begin = post.len() as u32;
                let mut to = from;
                while to < run.len() && hash(tokens, run[to]) == h {
                    let t = &mut tokens[(run[to] & o_mask) as usize];
                    t.first = begin;
                    t.at = post.len() as u32;
                    post.push(Posting {
                        rank: t.rank,
                        pos: t.pos,
                    });
                    to += 1;
                }
                let l = (to - from) as u64;
                work += l * (l - 1) / 2;
                from = to;
            }
        }
        let building = heap(&keys) + heap(&post);
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
