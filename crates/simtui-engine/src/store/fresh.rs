//! A fresh index (nothing saved to reuse) under a memory limit: the table of files waits
//! on a temporary file ([`FileRows`]) while the index is built, is completed from the
//! build's documents onto another, and is written into the index file from there.
//!
//! Held, the table (a row and a path a file, ~200 bytes) sat beside everything the build
//! made: 100 MB at 500,000 files, over a 64 MB limit on its own. Only the walk's entries
//! (what the build reads) stay in memory, and the build lets go of them as it reads.

use super::file_recs::{FileRecs, Settle};
use super::file_rows::FileRows;
use super::files::{WalkFile, moved, table_bytes};
use super::update::{Update, unstamp_if_changed, whose_docs};
use super::update::{build, empty_path, hash_read, hollow, merged_index, read_record};
use crate::error::{Error, Result};
use crate::index::{Index, Params};
use crate::progress::Progress;
use crate::source::{Corpus, Skipped};
use crate::storage::Budget;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Files taken off the table at a time, its room cut to what is left after each.
const ROWS_AT_ONCE: usize = 1 << 12;

/// The index of every file of `files` (all to be read: nothing is saved to reuse),
/// their walk entries moved out of `corpus` into it, or copied when the caller keeps the
/// walk (`keep`); and their records, complete and settled (see [`Settle`]), on a
/// temporary file.
pub(super) fn index_fresh(
    (corpus, keep): (&mut Corpus, bool),
    mut files: Vec<WalkFile>,
    (params, budget): (&Params, &Budget),
    settle: &Settle,
    progress: &dyn Progress,
) -> Result<Update> {
    // Only the entries made of the table are held beside the build (about as much).
    let budget = &Budget {
        bytes: budget.left(table_bytes(&files)),
        ..budget.clone()
    };
    debug_assert!(
        files.iter().all(WalkFile::is_read),
        "nothing saved to reuse"
    );
    hash_read(&mut files, params);
    let listed = files.iter().all(|f| f.listed().is_some());
    let mut entries = match listed {
        true => moved(&mut corpus.entries, keep),
        false => Vec::with_capacity(files.iter().map(WalkFile::entry_count).sum()),
    };
    let (empty, room) = (empty_path(), budget.room(0));
    let hollow = || hollow(&empty);
    let mut rows = FileRows::new(room)?;
    // Taken from the end of the table turned round, which is cut to its length as it
    // goes: no row moves, and its room goes back as the entries made of it grow.
    files.reverse();
    while let Some(mut f) = files.pop() {
        if !listed {
            let mine = f.mine(&mut corpus.entries, 0);
            f.entries_into((mine, keep), &hollow, &mut entries);
        }
        rows.push(&f.rec)?;
        if files.capacity() - files.len() >= ROWS_AT_ONCE {
            files.shrink_to_fit();
        }
    }
    drop(files);
    let rows = rows.finish()?;
    let fresh = build(entries, (params, budget), progress)?;
    let skipped = corpus.skipped.clone();
    let (index, rows) = completed(rows, fresh, skipped, settle, (params, budget))?;
    Ok(Update {
        index,
        files: FileRecs::OnFile(rows),
        dirty: true,
        untitled: false,
    })
}

/// The index of the build `fresh` of the files of `rows`, and their records completed
/// onto a new temporary file: each file's number of documents (the build's, counted in
/// order) or why it was skipped, its stamp dropped when it changed while it was read or
/// is too recent to prove it unchanged next time. `skipped`: the walk's skips.
fn completed(
    rows: FileRows,
    mut fresh: Index,
    mut skipped: Vec<Skipped>,
    settle: &Settle,
    (params, budget): (&Params, &Budget),
) -> Result<(Index, FileRows)> {
    let built = std::mem::take(&mut fresh.docs);
    let sub_skipped = std::mem::take(&mut fresh.skipped);
    let sub_skips: HashMap<&Path, &Skipped> = (sub_skipped.iter())
        .map(|s| (s.path.as_path(), s))
        .collect();
    // Files skipped whole: their skips go in their records, the others (bad lines, too
    // short, ...) are the records'.
    let mut files_skipped = HashSet::new();
    let mut counted = built.iter().peekable();
    let mut out = FileRows::new(budget.room(0))?;
    rows.each_chunk::<Error>(ROWS_AT_ONCE, &mut |recs| {
        recs.par_iter_mut().for_each(unstamp_if_changed);
        for rec in recs.iter_mut() {
            let skip = sub_skips.get(&*rec.path).copied();
            if let Some(s) = skip {
                skipped.push(s.clone());
                files_skipped.insert(s.path.as_path());
            }
            let docs = whose_docs(&mut counted, &rec.path);
            read_record(rec, skip, docs);
            if rec.stamp.as_ref().is_some_and(|s| settle.is_racy(s)) {
                rec.unstamp();
            }
            out.push(rec)?;
        }
        Ok(())
    })?;
    debug_assert!(counted.next().is_none(), "every document built is a file's");
    drop((counted, rows));
    let of_records = sub_skipped
        .iter()
        .filter(|s| !files_skipped.contains(s.path.as_path()));
    skipped.extend(of_records.cloned());
    let index = merged_index(fresh, built, skipped, None, params)?;
    Ok((index, out.finish()?))
}
