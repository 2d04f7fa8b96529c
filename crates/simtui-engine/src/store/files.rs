//! The files of a walk, in order, each with its entries, its plan and the record it will
//! be saved as: what opening or adding to a saved index works through file by file
//! (reuse its saved documents, or read it).

use super::format::FileRec;
use super::stamps::stamp;
use super::{absolute_cow, file_of, reading_of};
use crate::source::{Corpus, Source};
use rayon::prelude::*;
use std::borrow::Cow;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

/// What to do with a file of the walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Plan {
    /// Take saved file `i`'s documents (with the file's stamp now, which this walk took).
    Reuse(usize),
    /// Index it again (or for the first time).
    Read,
}

/// A file of the walk: its entries, its plan, and its record as it will be saved, filled
/// in as the update goes. One table a file, where a list of files, their stamps, plans
/// and hashes and then the records made of them were each a table of their own (273
/// bytes a file, held together while the documents were merged; 120 now).
pub(super) struct WalkFile {
    /// Its record: the path as walked (how its entries and documents name the file,
    /// shared with them: [`Source::File`] holds an [`Arc`]; the saved index names it by
    /// [`WalkFile::abs`], made when the record is written), its stamp taken before it is
    /// read (dropped should it change while read), how it is read (`detail`: see
    /// `reading_of`, taken before its entries move into the index), and, once the update
    /// has seen it, its hash, status and number of documents.
    pub(super) rec: FileRec,
    /// Its entries in the walk: 32 bits are enough, every entry being held in memory.
    entries: Range<u32>,
    /// Its [`Plan`]: the saved file to reuse, or [`READ`].
    plan: u32,
}

// Its size is the memory of a file of the walk while an index is opened or brought up
// to date (half a million files: 57 MiB). It held the absolute path beside the walked
// one when that was relative (16 bytes and a second path a file).
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<WalkFile>() <= 120);

/// A [`WalkFile::plan`] that reads the file.
const READ: u32 = u32::MAX;

impl WalkFile {
    /// The path as walked: how its documents name it, and where it is read.
    pub(super) fn path(&self) -> &Arc<Path> {
        &self.rec.path
    }

    /// The absolute path (against `cwd`, the folder the walk's paths are relative to),
    /// as the saved index names the file: made when asked for, not held.
    pub(super) fn abs(&self, cwd: &Path) -> Cow<'_, Path> {
        absolute_cow(cwd, &self.rec.path)
    }

    /// Whether it is to be read (not reused).
    pub(super) fn is_read(&self) -> bool {
        self.plan == READ
    }

    pub(super) fn plan(&self) -> Plan {
        match self.plan {
            READ => Plan::Read,
            i => Plan::Reuse(i as usize),
        }
    }

    pub(super) fn set_plan(&mut self, plan: Plan) {
        self.plan = match plan {
            Plan::Read => READ,
            // A saved index's files are numbered in u32 (see `plan::Planner`).
            Plan::Reuse(i) => u32::try_from(i).expect("a saved file's number fits 32 bits"),
        };
    }

    /// Its entries in the walk.
    pub(super) fn entries(&self) -> Range<usize> {
        self.entries.start as usize..self.entries.end as usize
    }
}

/// The files of `corpus`'s entries, each sharing its path with its first entry (or the
/// file of many documents it is part of, copied once a file), to be read, not stamped
/// yet.
pub(super) fn walk_files(corpus: &Corpus) -> Vec<WalkFile> {
    // As many as the entries at most (a file of many documents is one file): reserved
    // once, not doubled as it grows (which held 1.5 times the list on average).
    let mut files: Vec<WalkFile> = Vec::with_capacity(corpus.entries.len());
    let entries = &corpus.entries;
    let path_of = |i: usize| file_of(&entries[i].source).expect("checked: every entry has a file");
    for (i, e) in entries.iter().enumerate() {
        let at = u32::try_from(i).expect("fewer than 2^32 entries: each is held in memory");
        match files.last_mut() {
            Some(last) if path_of(last.entries.start as usize) == path_of(i) => {
                last.entries.end = at + 1
            }
            _ => {
                let path = match &e.source {
                    Source::File(p) => p.clone(),
                    other => Arc::from(file_of(other).expect("checked")),
                };
                files.push(WalkFile {
                    rec: FileRec {
                        path,
                        stamp: None,
                        hash: None,
                        status: None,
                        detail: reading_of(&e.source).into(),
                        docs: 0,
                    },
                    entries: at..at + 1,
                    plan: READ,
                })
            }
        }
    }
    files.shrink_to_fit();
    files
}

/// Takes every file's stamp, as it is before anything reads it.
pub(super) fn stamp_all(files: &mut [WalkFile]) {
    files
        .par_iter_mut()
        .for_each(|f| f.rec.stamp = stamp(f.path()));
}

/// The records of `files`, in order, made in the table's own memory.
pub(super) fn records(files: Vec<WalkFile>) -> Vec<FileRec> {
    files.into_iter().map(|f| f.rec).collect()
}
