//! Verification: the exact Jaccard similarity of candidate pairs of contents, and the
//! sketch's estimate of those kept, whatever found the candidates (LSH banding, SimHash
//! tables, the huge buckets' owned pairs) and wherever the sets are.
//!
//! Candidates are taken in batches: a batch grows until the sets it would bring in pass
//! its budget (sets in memory cost nothing to bring in, so only its size bounds it); its
//! distinct contents' sets are then brought in at once ([`ShingleSets::pick`]: borrowed in
//! memory, read back in file order, or made again from the corpus) and the batch is
//! verified in parallel. The kept pairs come out in candidate order, with the same values,
//! wherever the sets were.

use super::Lookup;
use super::buckets::HugeOwners;
use super::found::{Bucket, GroupPair, Search};
use crate::error::Result;
use crate::progress::{Cancelled, Progress, Stage, check};
use crate::shingle::{ShingleSets, jaccard};
use crate::sketch::estimate;
use crate::storage::Picked;
use rayon::prelude::*;
use std::collections::HashSet;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};

/// Candidate pairs of a batch at most.
pub(crate) const MAX_PAIRS: usize = 1 << 20;
/// The first batch of a verification that may stop early (see [`huge`]): each next one
/// twice as large, up to [`MAX_PAIRS`], so that a reader wanting a few pairs waits for
/// few verified, and one wanting many for few batches.
pub(crate) const FIRST_PAIRS: usize = 1 << 16;
/// Pairs verified per parallel task: small, so that a few thousand pairs still spread
/// over every core.
const TASK: usize = 256;
/// Rows of a huge bucket whose owned pairs are listed in parallel at a time.
const HUGE_ROWS: usize = 64;

/// What verifying a stream of candidates gives.
#[derive(Debug, Default)]
pub(crate) struct Verified {
    /// The pairs with J ≥ the threshold, in candidate order, with their estimates.
    pub(crate) kept: Vec<GroupPair>,
    /// Candidate pairs of contents verified.
    pub(crate) candidates: usize,
    /// The candidate document pairs they stand for (identical documents not included).
    pub(crate) across: u64,
}

/// Candidate pairs gathered until the sets they need would pass the batch's budget.
struct Batch {
    pairs: Vec<(u32, u32)>,
    /// The contents whose sets cost memory to bring in, and that memory.
    groups: HashSet<u32>,
    bytes: u64,
    budget: u64,
    /// Pairs at most.
    max_pairs: usize,
}

impl Batch {
    fn new(sets: &ShingleSets, budget: u64) -> Batch {
        Batch {
            pairs: Vec::new(),
            groups: HashSet::new(),
            bytes: 0,
            budget: sets.batch_bytes(budget),
            max_pairs: MAX_PAIRS,
        }
    }

    /// Whether `pair` would take the batch past its size or budget: then the batch is
    /// verified first.
    fn is_full_for(&self, sets: &ShingleSets, (a, b): (u32, u32)) -> bool {
        if self.pairs.len() >= self.max_pairs {
            return true;
        }
        let new: u64 = [a, b]
            .iter()
            .filter(|g| !self.groups.contains(g))
            .map(|&g| sets.load_bytes(g))
            .sum();
        !self.pairs.is_empty() && new > 0 && self.bytes + new > self.budget
    }

    fn push(&mut self, sets: &ShingleSets, pair: (u32, u32)) {
        for g in [pair.0, pair.1] {
            let bytes = sets.load_bytes(g);
            if bytes > 0 && self.groups.insert(g) {
                self.bytes += bytes;
            }
        }
        self.pairs.push(pair);
    }

    /// The pairs, and the contents whose sets are to be brought in, ascending.
    fn take(&mut self) -> (Vec<(u32, u32)>, Vec<u32>) {
        let mut groups: Vec<u32> = self.groups.drain().collect();
        groups.sort_unstable();
        self.bytes = 0;
        (std::mem::take(&mut self.pairs), groups)
    }
}

/// Progress through the candidates: how many were verified, of how many.
struct Count<'a> {
    done: AtomicU64,
    total: u64,
    progress: &'a dyn Progress,
}

impl Count<'_> {
    fn add(&self, n: u64) {
        let done = self.done.fetch_add(n, Ordering::Relaxed) + n;
        self.progress
            .update(Stage::Verify, done, self.total.max(done));
    }
}

/// Exact Jaccard of two contents from sets at hand; a non-empty content is identical to
/// itself, an empty one similar to nothing.
fn group_jaccard(sets: &ShingleSets, picked: &Picked<u64>, ga: u32, gb: u32) -> f64 {
    if ga == gb {
        return if sets.set_len(ga as usize) == 0 {
            0.0
        } else {
            1.0
        };
    }
    jaccard(picked.get(ga), picked.get(gb))
}

/// What `keep` makes of each pair of `pairs` and its exact Jaccard (the pairs it
/// returns nothing for left out), in order; the sets of the contents that cost memory to
/// bring in (`groups`) brought in once, the pairs verified in parallel.
fn batch_jaccards<T: Send>(
    sets: &ShingleSets,
    pairs: &[(u32, u32)],
    groups: Vec<u32>,
    count: &Count,
    keep: impl Fn((u32, u32), f64) -> Option<T> + Sync,
) -> Result<Vec<T>> {
    check(count.progress)?;
    let picked = sets.pick(groups)?;
    Ok(pairs
        .par_chunks(TASK)
        .map(|chunk| {
            check(count.progress)?;
            let kept: Vec<T> = chunk
                .iter()
                .filter_map(|&(ga, gb)| keep((ga, gb), group_jaccard(sets, &picked, ga, gb)))
                .collect();
            count.add(chunk.len() as u64);
            Ok(kept)
        })
        .collect::<Result<Vec<_>, Cancelled>>()?
        .into_iter()
        .flatten()
        .collect())
}

/// The sketch's estimate of each pair (0 when either content is empty), the signatures
/// of their contents brought in once.
pub(crate) fn estimates(look: &Lookup, pairs: &[(u32, u32)]) -> Result<Vec<f64>> {
    let mut groups: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    groups.sort_unstable();
    groups.dedup();
    let rows = look.sigs.pick(groups)?;
    let empty = |g: u32| look.sets.set_len(g as usize) == 0;
    Ok(pairs
        .par_iter()
        .map(|&(ga, gb)| {
            if empty(ga) || empty(gb) {
                0.0
            } else {
                estimate(rows.get(ga), rows.get(gb))
            }
        })
        .collect())
}

/// The exact Jaccard of every pair of `pairs`, in batches of sets within `budget` bytes
/// (for re-banding, which keeps the J of every candidate).
pub(crate) fn jaccards(
    sets: &ShingleSets,
    pairs: &[(u32, u32)],
    budget: u64,
    progress: &dyn Progress,
) -> Result<Vec<f64>> {
    let count = Count {
        done: AtomicU64::new(0),
        total: pairs.len() as u64,
        progress,
    };
    let mut batch = Batch::new(sets, budget);
    let mut out = Vec::with_capacity(pairs.len());
    let all = |_, j| Some(j);
    for &pair in pairs {
        if batch.is_full_for(sets, pair) {
            let (batched, groups) = batch.take();
            out.extend(batch_jaccards(sets, &batched, groups, &count, all)?);
        }
        batch.push(sets, pair);
    }
    let (batched, groups) = batch.take();
    out.extend(batch_jaccards(sets, &batched, groups, &count, all)?);
    Ok(out)
}

/// Pairs of contents with their exact J, as [`GroupPair`]s with their estimates.
pub(crate) fn with_estimates(
    look: &Lookup,
    kept: Vec<((u32, u32), f64)>,
) -> Result<Vec<GroupPair>> {
    let pairs: Vec<(u32, u32)> = kept.iter().map(|&(p, _)| p).collect();
    let estimates = estimates(look, &pairs)?;
    Ok(kept
        .into_iter()
        .zip(estimates)
        .map(|(((ga, gb), jaccard), estimate)| GroupPair {
            ga,
            gb,
            jaccard,
            estimate,
        })
        .collect())
}

/// Verifies a batch: the pairs with J ≥ `threshold`, in order, with their estimates.
fn verify_batch(
    look: &Lookup,
    batch: &mut Batch,
    threshold: f64,
    count: &Count,
) -> Result<Vec<GroupPair>> {
    let (pairs, groups) = batch.take();
    let keep = |pair, j: f64| (j >= threshold).then_some((pair, j));
    let kept = batch_jaccards(look.sets, &pairs, groups, count, keep)?;
    with_estimates(look, kept)
}

/// Verifies a stream of candidate pairs of contents (distinct, non-empty contents) in
/// batches of sets within `budget` bytes, keeping those with J ≥ `threshold`. `total` is
/// how many candidates progress counts to (an upper bound will do).
pub(crate) fn stream(
    look: &Lookup,
    mut next: impl FnMut() -> Result<Option<(u32, u32)>>,
    threshold: f64,
    budget: u64,
    total: u64,
    progress: &dyn Progress,
) -> Result<Verified> {
    let count = Count {
        done: AtomicU64::new(0),
        total,
        progress,
    };
    let mut batch = Batch::new(look.sets, budget);
    let mut out = Verified::default();
    while let Some(pair) = next()? {
        out.candidates += 1;
        out.across += look.groups.across(pair.0, pair.1);
        if batch.is_full_for(look.sets, pair) {
            out.kept
                .extend(verify_batch(look, &mut batch, threshold, &count)?);
        }
        batch.push(look.sets, pair);
    }
    out.kept
        .extend(verify_batch(look, &mut batch, threshold, &count)?);
    Ok(out)
}

/// Verifies the candidates the huge buckets of a search stand for (the pairs each owns,
/// see [`HugeOwners`]), listed a block of a bucket's rows at a time in parallel and
/// verified in batches, and hands the pairs kept (J ≥ the search's threshold, in the
/// order of the candidates: bucket by bucket, row by row) to `sink`, with the number of
/// candidate document pairs verified. Nothing is held beyond a batch. When `sink` says
/// [`ControlFlow::Break`], no more candidates are verified. The first batch holds at
/// most `first` pairs, each next one twice as many (up to [`MAX_PAIRS`]). Whether every
/// candidate was verified.
pub(crate) fn huge(
    look: &Lookup,
    search: &Search,
    (budget, first): (u64, usize),
    progress: &dyn Progress,
    mut sink: impl FnMut(Vec<GroupPair>, u64) -> Result<ControlFlow<()>>,
) -> Result<bool> {
    let Some((bands, rows)) = search.banding else {
        return Ok(true);
    };
    let open: Vec<&Bucket> = search.huge.iter().filter(|b| !b.capped).collect();
    if open.is_empty() {
        return Ok(true);
    }
    let owners = HugeOwners::new(look.sigs, bands, rows, &search.huge)?;
    let count = Count {
        done: AtomicU64::new(0),
        total: 0,
        progress,
    };
    let mut batch = Batch::new(look.sets, budget);
    batch.max_pairs = first.min(MAX_PAIRS);
    let mut candidates = 0u64;
    for bucket in open {
        for start in (0..bucket.groups.len()).step_by(HUGE_ROWS) {
            check(progress)?;
            let end = (start + HUGE_ROWS).min(bucket.groups.len());
            let owned: Vec<Vec<u32>> = (start..end)
                .into_par_iter()
                .map(|i| owners.row(bucket, i).collect())
                .collect();
            for (i, ys) in (start..end).zip(owned) {
                let x = bucket.groups[i];
                for y in ys {
                    candidates += look.groups.across(x, y);
                    if batch.is_full_for(look.sets, (x, y)) {
                        let kept = verify_batch(look, &mut batch, search.threshold, &count)?;
                        if sink(kept, std::mem::take(&mut candidates))?.is_break() {
                            return Ok(false);
                        }
                        batch.max_pairs = (batch.max_pairs * 2).min(MAX_PAIRS);
                    }
                    batch.push(look.sets, (x, y));
                }
            }
        }
    }
    let kept = verify_batch(look, &mut batch, search.threshold, &count)?;
    sink(kept, candidates).map(|_| true)
}
