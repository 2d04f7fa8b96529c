//! The join's limits ([`Limits`]), the pairs it keeps against them ([`PairBudget`]), and
//! its account of its memory ([`Held`]): what it holds at each step, bounded from the
//! sets' sizes before it starts and counted from what it allocated as it goes, so that
//! the tests hold the one to the other.

use crate::error::{Error, Result};
use crate::progress::Cancelled;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Bounds that keep an exhaustive pass from running away on a huge corpus.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Most pairs kept one by one (16 bytes each).
    pub max_pairs: usize,
    /// Most shingle occurrences indexed (16 bytes each while sorting).
    pub max_shingles: usize,
    /// Most counter increments (Σ over shingles of postings choose 2).
    pub max_work: u64,
    /// Most bytes of memory the join may hold, the pairs it finds included (see
    /// [`memory_needed`]); [`u64::MAX`]: no limit. The join does not start when what it
    /// needs besides the pairs is over it, and stops when the pairs take it over.
    pub max_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_pairs: 50_000_000,
            max_shingles: 400_000_000,
            max_work: 200_000_000_000,
            max_bytes: u64::MAX,
        }
    }
}

/// Memory one pair found takes while the join runs: its own 16 bytes, and as much again
/// while the workers' pairs are gathered into one vector.
pub const PAIR_BYTES: u64 = 2 * 16;

/// Over a limit of an exhaustive pass (the join, or the count of shared shingles).
pub(crate) fn too_large(why: String) -> Error {
    Error::TooLarge {
        job: "an exhaustive pass",
        why,
    }
}

/// The pairs the workers of an exhaustive pass have kept, against [`Limits::max_pairs`]:
/// once over it, every worker stops (as if cancelled) and the pass fails with
/// [`Error::TooLarge`].
pub(crate) struct PairBudget {
    kept: AtomicUsize,
    over: AtomicBool,
    max_pairs: usize,
    /// The memory limit is what bounds the pairs (not [`Limits::max_pairs`]).
    by_memory: bool,
}

impl PairBudget {
    pub(crate) fn new(limits: &Limits) -> PairBudget {
        PairBudget::within(limits, u64::MAX)
    }

    /// At most the pairs that `bytes` of memory hold ([`PAIR_BYTES`] each) too.
    pub(super) fn within(limits: &Limits, bytes: u64) -> PairBudget {
        let fit = usize::try_from(bytes / PAIR_BYTES).unwrap_or(usize::MAX);
        PairBudget {
            kept: AtomicUsize::new(0),
            over: AtomicBool::new(false),
            max_pairs: limits.max_pairs.min(fit),
            by_memory: fit < limits.max_pairs,
        }
    }

    /// A worker kept `n` more pairs.
    pub(crate) fn add(&self, n: usize) {
        if self.kept.fetch_add(n, Ordering::Relaxed) + n > self.max_pairs {
            self.over.store(true, Ordering::Relaxed);
        }
    }

    /// Over the limit: the workers stop.
    pub(crate) fn is_over(&self) -> bool {
        self.over.load(Ordering::Relaxed)
    }

    pub(crate) fn kept(&self) -> usize {
        self.kept.load(Ordering::Relaxed)
    }

    /// What the workers found, or why the pass failed: over the limit (the workers that
    /// stopped for it said Cancelled), or cancelled.
    pub(crate) fn finish<T>(
        &self,
        found: std::result::Result<T, Cancelled>,
        floor: f64,
    ) -> Result<T> {
        if self.is_over() {
            let memory = if self.by_memory {
                ", the most its memory holds"
            } else {
                ""
            };
            return Err(too_large(format!(
                "over {} pairs with J >= {floor}{memory}",
                self.max_pairs
            )));
        }
        Ok(found?)
    }
}

/// What the join holds at once, in bytes, at each of its steps (the pairs found aside).
/// [`memory_needed`](super::memory_needed) fills it with bounds known from the sets' sizes; the join, with what
/// it allocated, to check them.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Held {
    /// The sets read back (none when they are in memory).
    pub(super) read: u64,
    /// A frequency byte per shingle.
    pub(super) freq: u64,
    /// Counting the frequencies: each worker's counters and cursors.
    pub(super) counting: u64,
    /// The sets in probing order.
    pub(super) order: u64,
    /// The prefixes as they are written: each one's length and place, and all of them.
    pub(super) building: u64,
    /// The prefixes laid out.
    pub(super) prefixes: u64,
    /// Their inverted index as it is built (its sort keys included), then as it is kept.
    pub(super) indexing: u64,
    pub(super) index: u64,
    /// The probing workers' scratch, and each set's vector of pairs.
    pub(super) probing: u64,
    /// A bitmap per set, made for the probe.
    pub(super) bitmaps: u64,
}

impl Held {
    /// Bounds of what the join holds at each step, from the number of sets `n`, their
    /// shingles (`total`), the bytes of them read back, the most prefix shingles
    /// (`prefix`), the bytes counting the frequencies takes and those of the bitmaps.
    pub(super) fn bound(
        n: u64,
        total: u64,
        read: u64,
        prefix: u64,
        (counting, bitmaps): (u64, u64),
    ) -> u64 {
        let threads = rayon::current_num_threads() as u64;
        Held {
            read,
            freq: total,
            counting,
            // Collected from a filter: up to twice what it holds.
            order: 8 * n,
            // Each prefix's parts (32 bytes) while they are written; its tokens (12 bytes
            // a shingle) and keys (16), its start and its shape (12).
            building: 32 * n + 28 * prefix + 8 * (n + 1) + 12 * n,
            prefixes: 28 * prefix + 8 * (n + 1) + 12 * n,
            // The keys, taken from the prefixes and sorted, and the postings (rank and
            // position).
            indexing: 8 * prefix,
            index: 8 * prefix,
            // Counts and candidates per worker, sizes, a vector of pairs per set.
            probing: 8 * n * threads + 4 * n + 24 * n,
            bitmaps,
        }
        .peak()
    }

    /// The most held at once: the steps overlap where one's data outlives it.
    pub(super) fn peak(&self) -> u64 {
        let h = self;
        [
            h.freq + h.counting,
            h.freq + h.order + h.building,
            h.order + h.prefixes + h.indexing,
            h.order + h.prefixes + h.index + h.bitmaps + h.probing,
        ]
        .into_iter()
        .max()
        .unwrap_or(0)
            + h.read
    }
}

/// Bytes of a vector's allocation.
pub(super) fn heap<T>(v: &Vec<T>) -> u64 {
    (v.capacity() * std::mem::size_of::<T>()) as u64
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use crate::error::Error;
    use crate::progress::Silent;

    /// Families of near-copies: `families` bases of `size` shingles, each with `copies`
    /// copies that have about one shingle in `change` replaced (long shared prefixes,
    /// many pairs).
    fn families(families: u64, copies: u64, size: u64, change: u64) -> ShingleSets {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut out = Vec::new();
        for _ in 0..families {
            let base: Vec<u64> = (0..size).map(|_| next()).collect();
            for _ in 0..copies {
                let mut set: Vec<u64> = base
                    .iter()
                    .map(|&h| if next() % change == 0 { next() } else { h })
                    .collect();
                set.sort_unstable();
                set.dedup();
                out.push(set);
            }
        }
        let mut sets = ShingleSets::new();
        for set in &out {
            sets.push(set);
        }
        sets
    }

    #[test]
    fn holds_no_more_memory_than_it_said_it_needs() {
        let sets = families(12, 8, 300, 40);
        for floor in [0.2, 0.5, 0.8, 1.0] {
            let needed = memory_needed(&sets, floor);
            let (pairs, held) = accounted(&sets, floor, &Limits::default(), &Silent).unwrap();
            let with_pairs = needed + PAIR_BYTES * pairs.len() as u64;
            assert!(
                held > 0 && held <= with_pairs,
                "{floor}: {held} > {with_pairs}"
            );
            assert!(floor == 1.0 || !pairs.is_empty());
            // Exactly what it needs: the same pairs.
            let exact = Limits {
                max_bytes: with_pairs,
                ..Limits::default()
            };
            assert_eq!(similar_pairs(&sets, floor, &exact, &Silent).unwrap(), pairs);
            // Less than it needs before any pair: refused before a set is read; room for
            // all pairs but one: stopped, no pairs.
            let mut short = vec![needed - 1];
            if !pairs.is_empty() {
                short.push(with_pairs - 1);
            }
            for max_bytes in short {
                let limits = Limits {
                    max_bytes,
                    ..Limits::default()
                };
                let err = similar_pairs(&sets, floor, &limits, &Silent).unwrap_err();
                assert!(matches!(err, Error::TooLarge { .. }), "{err}");
            }
        }
    }
}
