//! Permuted block tables (Manku, Jain & Das Sarma, WWW 2007): every pair of fingerprints
//! within Hamming distance D, without comparing all pairs.
//!
//! The fingerprint's bits are split into B ≥ D + 1 blocks. Two fingerprints that differ
//! in at most D bits differ in at most D blocks, so they agree exactly on every block of
//! at least one choice of B − D blocks. There is one table per choice, keyed by the
//! fingerprint's bits in those blocks; only fingerprints with equal keys are compared.
//! Manku et al. permute the bits so that the key blocks lead and binary-search a sorted
//! table; sorting (masked fingerprint, item) pairs groups exactly the same fingerprints,
//! so a mask stands for the permutation here.
//!
//! More blocks mean longer keys (fewer chance collisions to check) but C(B, D) tables;
//! [`BlockTables::new`] picks B for the number of fingerprints from a simple cost model.
//! A pair that agrees on the keys of several tables is reported by the first one only
//! (checked from the XOR of the two fingerprints), so no global deduplication is needed.

use crate::error::Result;
use crate::progress::{Cancelled, Progress, Stage, check};
use crate::sketch::simhash::fingerprint::WIDTHS;
use rayon::prelude::*;

/// The most tables a layout may use (the cost model rarely wants more than a dozen).
const MAX_TABLES: u128 = 256;
/// The most blocks: enough for any useful distance (below bits/2, at most 63), and
/// subsets of blocks fit in a u128 mask with room for Gosper's hack to overflow into.
const MAX_BLOCKS: u32 = 64;

/// The block layout and the key mask of every table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockTables {
    bits: u32,
    max_distance: u32,
    blocks: u32,
    masks: Vec<u128>,
}

impl BlockTables {
    /// Tables for `n` fingerprints of `bits` bits and pairs at most `max_distance` apart,
    /// with the number of blocks that minimises the estimated work.
    ///
    /// # Panics
    /// If `bits` is not one of [`WIDTHS`], or `max_distance` is not below `bits / 2`
    /// (no better than chance).
    pub fn new(bits: u32, max_distance: u32, n: usize) -> BlockTables {
        check_args(bits, max_distance);
        let d = max_distance;
        let n = n.max(2) as f64;
        // Per table: building and sorting n keys (about n·log2 n steps), plus comparing
        // the pairs that share a key by chance, n²/2 · 2^-key bits for uniform
        // fingerprints (real ones are less uniform, so this favours fewer, cheaper
        // tables only when the collisions are clearly negligible).
        let cost = |b: u32| -> Option<f64> {
            let tables = binomial(b, d);
            if tables > MAX_TABLES {
                return None;
            }
            let key_bits = shortest_key(bits, b, d) as f64;
            Some(tables as f64 * (n * n.log2() + n * n / 2f64.powf(key_bits + 1.0)))
        };
        let best = (d + 1..=bits.min(d + 16).min(MAX_BLOCKS))
            .filter_map(|b| cost(b).map(|c| (b, c)))
            .min_by(|x, y| x.1.total_cmp(&y.1))
            .map_or(d + 1, |(b, _)| b);
        BlockTables::with_blocks(bits, max_distance, best)
    }

    /// Tables for an explicit number of blocks (`max_distance` < `blocks` ≤ 64, and at
    /// most `bits`: every block has a bit).
    ///
    /// # Panics
    /// As [`BlockTables::new`], and if `blocks` is out of that range.
    pub fn with_blocks(bits: u32, max_distance: u32, blocks: u32) -> BlockTables {
        check_args(bits, max_distance);
        assert!(
            blocks > max_distance && blocks <= MAX_BLOCKS.min(bits),
            "{blocks} blocks cannot guarantee distance {max_distance} in {bits} bits"
        );
        // Blocks of contiguous bits, sizes differing by at most one.
        let block_masks: Vec<u128> = (0..blocks)
            .scan(0u32, |start, i| {
                let size = bits / blocks + (i < bits % blocks) as u32;
                let mask = ones(size) << *start;
                *start += size;
                Some(mask)
            })
            .collect();
        // One table per choice of the D blocks left out of the key.
        let mut masks = Vec::new();
        for_each_subset(blocks, max_distance, &mut |left_out: u128| {
            let key = (0..blocks as usize)
                .filter(|&i| left_out >> i & 1 == 0)
                .fold(0u128, |m, i| m | block_masks[i]);
            masks.push(key);
        });
        BlockTables {
            bits,
            max_distance,
            blocks,
            masks,
        }
    }

    /// Number of blocks the fingerprint's bits are cut into.
    pub fn blocks(&self) -> u32 {
        self.blocks
    }

    /// Number of tables: C(blocks, max_distance), one per choice of blocks left out of
    /// the key.
    pub fn tables(&self) -> usize {
        self.masks.len()
    }

    /// The largest Hamming distance of a pair, in bits.
    pub fn max_distance(&self) -> u32 {
        self.max_distance
    }

    /// Whether table `t` is the first whose key two fingerprints with this XOR share.
    #[inline]
    fn first_table_is(&self, diff: u128, t: usize) -> bool {
        diff & self.masks[t] == 0 && self.masks[..t].iter().all(|m| diff & m != 0)
    }

    /// Every pair of `items` (distinct indices into `fps`) whose fingerprints are at most
    /// `max_distance` apart, as (smaller, larger), each once, sorted. Reports
    /// `Stage::Band` progress in tables; fails only when cancelled.
    pub fn pairs(
        &self,
        fps: &[u128],
        items: &[u32],
        progress: &dyn Progress,
    ) -> Result<Vec<(u32, u32)>> {
        let done = std::sync::atomic::AtomicU64::new(0);
        let per_table: Vec<Vec<u64>> = (0..self.tables())
            .into_par_iter()
            .map(|t| {
                check(progress)?;
                let sorted = self.table(fps, items, t);
                let mut out = Vec::new();
                for bucket in sorted.chunk_by(|x, y| x.0 == y.0) {
                    for (i, x) in bucket.iter().enumerate() {
                        let fx = fps[x.1 as usize];
                        for y in &bucket[i + 1..] {
                            let diff = fx ^ fps[y.1 as usize];
                            if diff.count_ones() <= self.max_distance
                                && self.first_table_is(diff, t)
                            {
                                // Sorted by (key, item): x.1 < y.1.
                                out.push((x.1 as u64) << 32 | y.1 as u64);
                            }
                        }
                    }
                }
                let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                progress.update(Stage::Band, d, self.tables() as u64);
                Ok(out)
            })
            .collect::<Result<_, Cancelled>>()?;
        let mut all = per_table.concat();
        all.par_sort_unstable();
        Ok(all
            .into_iter()
            .map(|p| ((p >> 32) as u32, p as u32))
            .collect())
    }

    /// Table `t`: (key, item) for every item, sorted.
    fn table(&self, fps: &[u128], items: &[u32], t: usize) -> Vec<(u128, u32)> {
        let mask = self.masks[t];
        let mut keyed: Vec<(u128, u32)> =
            items.iter().map(|&i| (fps[i as usize] & mask, i)).collect();
        keyed.sort_unstable();
        keyed
    }
}

/// Block tables kept for lookups: the items within `max_distance` of any fingerprint
/// (a query), by binary search in each table.
#[derive(Clone, Debug)]
pub(crate) struct BlockIndex {
    layout: BlockTables,
    sorted: Vec<Vec<(u128, u32)>>,
}

impl BlockIndex {
    pub(crate) fn new(layout: BlockTables, fps: &[u128], items: &[u32]) -> BlockIndex {
        let sorted = (0..layout.tables())
            .into_par_iter()
            .map(|t| layout.table(fps, items, t))
            .collect();
        BlockIndex { layout, sorted }
    }

    /// The items whose fingerprints (in `fps`, as given to [`BlockIndex::new`]) are at
    /// most `max_distance` from `fp`, sorted.
    pub(crate) fn near(&self, fp: u128, fps: &[u128]) -> Vec<u32> {
        let mut out = Vec::new();
        for (t, table) in self.sorted.iter().enumerate() {
            let key = fp & self.layout.masks[t];
            let start = table.partition_point(|x| x.0 < key);
            for &(k, item) in &table[start..] {
                if k != key {
                    break;
                }
                let diff = fp ^ fps[item as usize];
                if diff.count_ones() <= self.layout.max_distance
                    && self.layout.first_table_is(diff, t)
                {
                    out.push(item);
                }
            }
        }
        out.sort_unstable();
        out
    }
}

fn check_args(bits: u32, max_distance: u32) {
    assert!(
        WIDTHS.contains(&bits),
        "fingerprints are 8, 16, 32, 64 or 128 bits, not {bits}"
    );
    assert!(
        max_distance < bits / 2,
        "a distance of {max_distance} bits of {bits} is no better than chance"
    );
}

/// `n` low bits set.
fn ones(n: u32) -> u128 {
    if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    }
}

/// C(n, k), saturating.
fn binomial(n: u32, k: u32) -> u128 {
    let k = k.min(n - k);
    (0..k).fold(1u128, |c, i| {
        c.saturating_mul((n - i) as u128) / (i + 1) as u128
    })
}

/// The fewest key bits of any table: the B − D smallest blocks.
fn shortest_key(bits: u32, blocks: u32, d: u32) -> u32 {
    // Blocks have size ⌊bits/B⌋ or one more; the smallest come last.
    let small = blocks - bits % blocks;
    let keep = blocks - d;
    keep * (bits / blocks) + keep.saturating_sub(small)
}

/// Calls `f` with every `k`-subset of `0..n` as a bit mask, in increasing order
/// (Gosper's hack).
fn for_each_subset(n: u32, k: u32, f: &mut impl FnMut(u128)) {
    if k == 0 {
        f(0);
        return;
    }
    let mut s: u128 = ones(k);
    let limit = 1u128 << n;
    while s < limit {
        f(s);
        let c = s & s.wrapping_neg();
        let r = s + c;
        s = (((r ^ s) >> 2) / c) | r;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;
    use crate::rng::Rng;
    use crate::sketch::simhash::fingerprint::hamming;
    use proptest::prelude::*;

    fn brute_pairs(fps: &[u128], items: &[u32], d: u32) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for (i, &a) in items.iter().enumerate() {
            for &b in &items[i + 1..] {
                if hamming(fps[a as usize], fps[b as usize]) <= d {
                    out.push((a.min(b), a.max(b)));
                }
            }
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn layouts() {
        let t = BlockTables::with_blocks(64, 3, 4);
        assert_eq!(t.tables(), 4);
        assert!(t.masks.iter().all(|m| m.count_ones() == 16));
        let t = BlockTables::with_blocks(64, 3, 5);
        assert_eq!(t.tables(), 10);
        // Blocks of 13, 13, 13, 13, 12 bits: keys of two blocks, 25 or 26 bits.
        assert!(t.masks.iter().all(|m| (25..=26).contains(&m.count_ones())));
        assert_eq!(shortest_key(64, 5, 3), 25);
        assert_eq!(shortest_key(64, 4, 3), 16);
        assert_eq!(shortest_key(128, 7, 6), 18);
        let t = BlockTables::with_blocks(128, 0, 1);
        assert_eq!(t.masks, vec![u128::MAX]);
        assert_eq!(binomial(10, 3), 120);
        // A small corpus wants D + 1 tables; a large one longer keys.
        assert_eq!(BlockTables::new(64, 3, 1000).blocks(), 4);
        assert!(BlockTables::new(64, 3, 10_000_000).blocks() > 4);
        assert!(BlockTables::new(128, 6, 100_000).tables() <= MAX_TABLES as usize);
    }

    /// Fingerprints in clusters, so that many pairs are within the distance and many
    /// fall just outside it.
    fn clustered(seed: u64, n: usize, bits: u32, spread: u32) -> Vec<u128> {
        let mut rng = Rng::new(seed);
        let word = |rng: &mut Rng| {
            let x = rng.next_u64() as u128 | (rng.next_u64() as u128) << 64;
            x & ones(bits)
        };
        let bases: Vec<u128> = (0..(n / 4).max(1)).map(|_| word(&mut rng)).collect();
        (0..n)
            .map(|_| {
                let mut fp = bases[rng.below(bases.len() as u64) as usize];
                for _ in 0..rng.below(spread as u64 + 1) {
                    fp ^= 1u128 << rng.below(bits as u64);
                }
                fp
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn block_tables_find_exactly_the_brute_force_pairs(
            seed in any::<u64>(),
            n in 2usize..300,
            width in 0usize..5,
            d in 0u32..9,
            extra_blocks in 0u32..4,
        ) {
            let bits = WIDTHS[width];
            // Below half the bits, as the commands require.
            let d = d.min(bits / 2 - 1);
            let fps = clustered(seed, n, bits, 2 * d + 2);
            // Every other item, so that items are not simply 0..n.
            let items: Vec<u32> = (0..n as u32).filter(|i| i % 3 != 1).collect();
            let expected = brute_pairs(&fps, &items, d);
            let chosen = BlockTables::new(bits, d, items.len());
            prop_assert_eq!(&chosen.pairs(&fps, &items, &Silent).unwrap(), &expected);
            let layout = BlockTables::with_blocks(bits, d, (d + 1 + extra_blocks).min(bits));
            prop_assert_eq!(&layout.pairs(&fps, &items, &Silent).unwrap(), &expected);

            // Lookups of single fingerprints agree with a scan.
            let index = BlockIndex::new(layout, &fps, &items);
            for q in fps.iter().take(20) {
                let scan: Vec<u32> = items
                    .iter()
                    .copied()
                    .filter(|&i| hamming(fps[i as usize], *q) <= d)
                    .collect();
                prop_assert_eq!(index.near(*q, &fps), scan);
            }
        }
    }
}
