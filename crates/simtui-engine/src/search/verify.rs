//! Verification when the shingle sets (or the signatures) are on a temporary file:
//! candidates are taken in batches, each batch's distinct contents are read back once
//! (in file order, neighbouring sets in one read), and the batch is verified in
//! parallel. The kept pairs come out in candidate order, with the same values, as
//! [`Index::verify_groups`] gives them from memory.

use crate::error::Result;
use crate::index::Index;
use crate::progress::{Progress, Stage, check};
use crate::search::found::GroupPair;
use crate::shingle::ShingleSets;
use crate::sketch::minhash::Signatures;
use crate::storage::file::SpillFile;
use crate::verify::{estimate, jaccard};
use rayon::prelude::*;

/// Candidate pairs of a batch at most.
const MAX_PAIRS: usize = 1 << 20;
/// Bytes of sets a batch may hold at least, however small the budget: a few dozen
/// sets, so that a batch is not one pair.
const MIN_BATCH: u64 = 64 << 10;
/// Bytes of sets a batch made again from the corpus holds at most, however large the
/// budget: enough for the sets of tens of thousands of documents, so that a run in
/// memory stays far below what keeping every set would take.
const MAX_AGAIN: u64 = 256 << 20;
/// Two spans of the file this close are read as one (the gap read and dropped): fewer,
/// larger reads.
const GAP: u64 = 16 << 10;

/// Values (u64 shingles or u32 signature values) of some groups read back from a
/// file, found by group.
pub(crate) struct Loaded<T> {
    /// The groups held, ascending, and where each one's values start in `data`.
    groups: Vec<u32>,
    starts: Vec<usize>,
    data: Vec<T>,
}

impl<T> Loaded<T> {
    /// The values of group `g`, which must be one of those loaded.
    pub(crate) fn get(&self, g: u32) -> &[T] {
        let i = self
            .groups
            .binary_search(&g)
            .expect("a group of the batch is loaded");
        &self.data[self.starts[i]..self.starts[i + 1]]
    }
}

/// Shingle sets of some groups: all of them in memory, or those read back.
pub(crate) enum SetsOf<'a> {
    Memory(&'a ShingleSets),
    Read(Loaded<u64>),
}

impl SetsOf<'_> {
    /// The set of group `g` (one of those read back, if read back).
    pub(crate) fn get(&self, g: u32) -> &[u64] {
        match self {
            SetsOf::Memory(sets) => sets.in_memory(g as usize),
            SetsOf::Read(loaded) => loaded.get(g),
        }
    }
}

/// Signature rows of some groups: all of them in memory, or those read back.
pub(crate) enum RowsOf<'a> {
    Memory(&'a Signatures),
    Read(Loaded<u32>),
}

impl RowsOf<'_> {
    /// The row of group `g` (one of those read back, if read back).
    pub(crate) fn get(&self, g: u32) -> &[u32] {
        match self {
            RowsOf::Memory(sigs) => sigs.in_memory_row(g as usize),
            RowsOf::Read(loaded) => loaded.get(g),
        }
    }
}

/// Reads the values of `groups` (ascending, distinct) from `file`, group `g`'s being
/// `span(g) = (first value, number of values)` of `size` bytes each: in file order,
/// spans close together in one read.
fn read_groups<T: Clone + 'static>(
    file: &SpillFile,
    groups: Vec<u32>,
    span: impl Fn(u32) -> (usize, usize),
    size: usize,
    parse: impl Fn(&[u8]) -> T,
) -> Result<Loaded<T>> {
    let mut starts = Vec::with_capacity(groups.len() + 1);
    let mut data: Vec<T> = Vec::new();
    let mut bytes: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < groups.len() {
        // A run of groups whose spans are close enough to read at once.
        let (first, _) = span(groups[i]);
        let mut j = i + 1;
        let mut end = {
            let (f, l) = span(groups[i]);
            f + l
        };
        while j < groups.len() {
            let (f, l) = span(groups[j]);
            if ((f.saturating_sub(end)) * size) as u64 > GAP {
                break;
            }
            end = end.max(f + l);
            j += 1;
        }
        bytes.resize((end - first) * size, 0);
        file.read_at((first * size) as u64, &mut bytes)?;
        for &g in &groups[i..j] {
            let (f, l) = span(g);
            starts.push(data.len());
            let at = (f - first) * size;
            data.extend(bytes[at..at + l * size].chunks_exact(size).map(&parse));
        }
        i = j;
    }
    starts.push(data.len());
    Ok(Loaded {
        groups,
        starts,
        data,
    })
}

/// The shingle sets of `groups` (ascending, distinct): read back when spilled, all of
/// them when in memory.
pub(crate) fn load_sets(sets: &ShingleSets, groups: Vec<u32>) -> Result<SetsOf<'_>> {
    if let Some(again) = sets.again() {
        let (starts, data) = again.sets(&groups, |g| sets.set_len(g as usize))?;
        return Ok(SetsOf::Read(Loaded {
            groups,
            starts,
            data,
        }));
    }
    match sets.file() {
        Some(file) => Ok(SetsOf::Read(read_groups(
            file,
            groups,
            |g| sets.span(g as usize),
            8,
            |b| u64::from_le_bytes(b.try_into().expect("8 bytes")),
        )?)),
        None => Ok(SetsOf::Memory(sets)),
    }
}

/// The signature rows of `groups` (ascending, distinct): read back when spilled, all
/// of them when in memory.
pub(crate) fn load_rows(sigs: &Signatures, groups: Vec<u32>) -> Result<RowsOf<'_>> {
    let n = sigs.width();
    match sigs.file() {
        Some(file) => Ok(RowsOf::Read(read_groups(
            file,
            groups,
            |g| (g as usize * n, n),
            4,
            |b| u32::from_le_bytes(b.try_into().expect("4 bytes")),
        )?)),
        None => Ok(RowsOf::Memory(sigs)),
    }
}

/// Gathers candidate pairs into batches whose distinct contents' sets fit in `budget`
/// bytes (and at most [`MAX_PAIRS`] pairs), and verifies each batch as it is full.
pub(crate) struct Batches<'a> {
    index: &'a Index,
    threshold: f64,
    budget: u64,
    pairs: Vec<(u32, u32)>,
    /// The batch's distinct groups and the bytes of their sets.
    groups: std::collections::HashSet<u32>,
    bytes: u64,
    /// Candidates verified so far, and how many there are in all (for progress).
    pub(crate) done: u64,
    pub(crate) total: u64,
}

impl<'a> Batches<'a> {
    pub(crate) fn new(index: &'a Index, threshold: f64, budget: u64, total: u64) -> Self {
        Batches {
            index,
            threshold,
            budget: if index.shingles.is_read_again() {
                budget.min(MAX_AGAIN)
            } else {
                budget
            }
            .max(MIN_BATCH),
            pairs: Vec::new(),
            groups: Default::default(),
            bytes: 0,
            done: 0,
            total,
        }
    }

    fn set_bytes(&self, g: u32) -> u64 {
        self.index.shingles.set_len(g as usize) as u64 * 8
    }

    /// Adds a candidate; when the batch is full, verifies it first and returns its kept
    /// pairs (in candidate order).
    pub(crate) fn push(
        &mut self,
        pair: (u32, u32),
        progress: &dyn Progress,
    ) -> Result<Option<Vec<GroupPair>>> {
        let new: u64 = [pair.0, pair.1]
            .iter()
            .filter(|g| !self.groups.contains(g))
            .map(|&g| self.set_bytes(g))
            .sum();
        let full = self.pairs.len() >= MAX_PAIRS
            || (!self.pairs.is_empty() && self.bytes + new > self.budget);
        let out = if full {
            Some(self.flush(progress)?)
        } else {
            None
        };
        for g in [pair.0, pair.1] {
            if self.groups.insert(g) {
                self.bytes += self.set_bytes(g);
            }
        }
        self.pairs.push(pair);
        Ok(out)
    }

    /// Verifies what the batch holds, and empties it.
    pub(crate) fn flush(&mut self, progress: &dyn Progress) -> Result<Vec<GroupPair>> {
        check(progress)?;
        let pairs = std::mem::take(&mut self.pairs);
        let mut groups: Vec<u32> = self.groups.drain().collect();
        self.bytes = 0;
        groups.sort_unstable();
        let kept = verify_batch(self.index, &pairs, groups, self.threshold, progress)?;
        self.done += pairs.len() as u64;
        progress.update(Stage::Verify, self.done, self.total.max(self.done));
        Ok(kept)
    }
}

/// Verifies one batch of candidates, whose distinct groups are `groups` (ascending).
fn verify_batch(
    index: &Index,
    pairs: &[(u32, u32)],
    groups: Vec<u32>,
    threshold: f64,
    progress: &dyn Progress,
) -> Result<Vec<GroupPair>> {
    let loaded = load_sets(&index.shingles, groups)?;
    const TASK: usize = 256;
    let kept: Vec<(u32, u32, f64)> = pairs
        .par_chunks(TASK)
        .map(|chunk| {
            check(progress)?;
            Ok(chunk
                .iter()
                .filter_map(|&(ga, gb)| {
                    let j = group_jaccard(index, &loaded, ga, gb);
                    (j >= threshold).then_some((ga, gb, j))
                })
                .collect::<Vec<_>>())
        })
        .collect::<Result<Vec<_>, crate::progress::Cancelled>>()?
        .concat();
    drop(loaded);
    with_estimates(index, kept)
}

/// Exact Jaccard of two groups from loaded sets, as [`Index`] computes it from memory.
pub(crate) fn group_jaccard(index: &Index, sets: &SetsOf, ga: u32, gb: u32) -> f64 {
    if ga == gb {
        return if index.shingles.set_len(ga as usize) == 0 {
            0.0
        } else {
            1.0
        };
    }
    jaccard(sets.get(ga), sets.get(gb))
}

/// The kept pairs with their estimates, the rows of their groups read back once when
/// the signatures are on file.
pub(crate) fn with_estimates(index: &Index, kept: Vec<(u32, u32, f64)>) -> Result<Vec<GroupPair>> {
    let sets = &index.shingles;
    let empty = |g: u32| sets.set_len(g as usize) == 0;
    let pair = |ga: u32, gb: u32, jaccard: f64, estimate: f64| GroupPair {
        ga,
        gb,
        jaccard,
        estimate,
    };
    let mut groups: Vec<u32> = Vec::new();
    if index.signatures.is_spilled() {
        groups = kept.iter().flat_map(|&(a, b, _)| [a, b]).collect();
        groups.sort_unstable();
        groups.dedup();
    }
    let rows = load_rows(&index.signatures, groups)?;
    Ok(kept
        .into_iter()
        .map(|(ga, gb, j)| {
            let e = if empty(ga) || empty(gb) {
                0.0
            } else {
                estimate(rows.get(ga), rows.get(gb))
            };
            pair(ga, gb, j, e)
        })
        .collect())
}

/// Verifies a stream of candidate pairs of groups in batches within `budget` bytes of
/// sets: the kept pairs in candidate order, the number of candidates, and the candidate
/// document pairs they stand for (identical documents not included).
pub(crate) fn stream(
    index: &Index,
    mut next: impl FnMut() -> Result<Option<(u32, u32)>>,
    threshold: f64,
    budget: u64,
    total: u64,
    progress: &dyn Progress,
) -> Result<(Vec<GroupPair>, usize, u64)> {
    let mut batches = Batches::new(index, threshold, budget, total);
    let (mut kept, mut count, mut across) = (Vec::new(), 0usize, 0u64);
    while let Some(pair) = next()? {
        count += 1;
        across += (index.members(pair.0).len() * index.members(pair.1).len()) as u64;
        if let Some(k) = batches.push(pair, progress)? {
            kept.extend(k);
        }
    }
    kept.extend(batches.flush(progress)?);
    Ok((kept, count, across))
}

/// [`Index::verify_huge`] when the sets or the signatures are on file: the rows of the
/// huge buckets' contents are read back once, and each bucket's owned pairs are
/// verified in batches, in the order the in-memory pass takes them.
pub(crate) fn huge(
    index: &Index,
    search: &crate::search::found::Search,
    budget: u64,
    progress: &dyn Progress,
    mut sink: impl FnMut(Vec<GroupPair>, u64) -> Result<()>,
) -> Result<()> {
    let Some((bands, rows)) = search.banding else {
        return Ok(());
    };
    let open: Vec<&crate::search::found::Bucket> =
        search.huge.iter().filter(|b| !b.capped).collect();
    if open.is_empty() {
        return Ok(());
    }
    let mut groups: Vec<u32> = open.iter().flat_map(|b| b.groups.iter().copied()).collect();
    groups.sort_unstable();
    groups.dedup();
    let sig_rows = load_rows(&index.signatures, groups)?;
    let owners = crate::search::banding::HugeOwners::with_rows(sig_rows, bands, rows, &search.huge);
    let size = |g: u32| index.members(g).len() as u64;
    let mut batches = Batches::new(index, search.threshold, budget, 0);
    let mut candidates = 0u64;
    for bucket in open {
        for (i, &x) in bucket.groups.iter().enumerate() {
            check(progress)?;
            for y in owners.row(bucket, i) {
                candidates += size(x) * size(y);
                if let Some(kept) = batches.push((x, y), progress)? {
                    sink(kept, std::mem::take(&mut candidates))?;
                }
            }
        }
    }
    sink(batches.flush(progress)?, candidates)
}
