//! Bounded memory: what an index and a search do when their data does not fit in the
//! memory they are given ([`Budget`](crate::storage::Budget)).
//!
//! Under the limit nothing changes. Over it, the work goes out of core, and the output
//! stays the same, byte for byte:
//! - shingle sets are written to a temporary file as they are made, and read back with
//!   positioned reads, each candidate's set once per batch (an index built only to
//!   search keeps none: they are made again from the candidates' texts, see
//!   [`crate::shingle::again`]);
//! - signatures, when they don't fit either, go to a file too; banding reads them back
//!   front to back, a run of rows at a time, and the estimate of a verified pair reads
//!   its two rows;
//! - band keys are computed for as many bands at a time as fit, or, when not even one
//!   band's keys fit, sorted in runs and merged; the candidate pairs of the
//!   bands are merged the same way.
//!
//! Temporary files are anonymous ([`tempfile::tempfile_in`]): the kernel removes them
//! when the process ends, however it ends. [`Spilled`](crate::storage::Spilled) counts what
//! went to them.

pub(crate) mod band;

use crate::error::Result;
use crate::index::Index;
use crate::progress::Progress;
use crate::search::found::Search;
use std::time::Instant;

/// [`Index::search`] out of core: the candidates banded in the memory the budget
/// leaves ([`band::candidates`]), then verified in batches as they come out of their
/// sort ([`verify::stream`](crate::search::verify::stream)). The same [`Search`] as in memory.
pub(crate) fn search(
    index: &Index,
    items: &[u32],
    (bands, rows): (usize, usize),
    threshold: f64,
    max_bucket: Option<usize>,
    progress: &dyn Progress,
) -> Result<Search> {
    let t = Instant::now();
    let room = index.work_room();
    let budget = &index.budget;
    let place = band::Room {
        bytes: room,
        dir: budget.dir(),
        spilled: &budget.spilled,
    };
    let (mut stream, huge) = band::candidates(
        &index.signatures,
        items,
        bands,
        rows,
        max_bucket,
        &place,
        progress,
    )?;
    let band_time = t.elapsed();
    let t = Instant::now();
    let total = stream.pushed;
    let (group_pairs, group_candidates, across) = crate::search::verify::stream(
        index,
        || stream.next_pair(),
        threshold,
        room / 2,
        total,
        progress,
    )?;
    let within: u64 = (0..index.shingles.len() as u32)
        .map(|g| index.pairs_within(g))
        .sum();
    Ok(Search {
        group_pairs,
        threshold,
        candidates: across + within,
        group_candidates,
        huge,
        banding: Some((bands, rows)),
        band_time,
        verify_time: t.elapsed(),
    })
}
