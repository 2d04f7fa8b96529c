//! The files of a walk, in order, each with its entries and its path: what opening or
//! adding to a saved index plans file by file (reuse its saved documents, or read it).

use super::{file_of, reading_of};
use crate::source::{Corpus, Source};
use std::path::Path;
use std::sync::Arc;

/// The files of a walk, in order: each with its entries. The path is the walk entry's
/// own, shared ([`Source::File`] holds an [`Arc`]): a copy a file is a copy a document
/// at 500,000 files.
pub(super) struct WalkFile {
    pub(super) path: Arc<Path>,
    /// The path made absolute (how the saved index names files), when it differs.
    pub(super) abs: Option<Arc<Path>>,
    /// How it is read (see `reading_of`), taken before its entries move into the index.
    pub(super) reading: String,
    pub(super) entries: std::ops::Range<usize>,
}

impl WalkFile {
    /// The absolute path, as the saved index names the file.
    pub(super) fn abs(&self) -> &Path {
        self.abs.as_deref().unwrap_or(&self.path)
    }

    /// The absolute path, shared with the file's record.
    pub(super) fn abs_shared(&self) -> Arc<Path> {
        self.abs.clone().unwrap_or_else(|| self.path.clone())
    }

    /// Lets go of its paths (its documents and record hold them now).
    pub(super) fn release(&mut self, empty: &Arc<Path>) {
        (self.path, self.abs) = (empty.clone(), None);
    }
}

/// The files of `corpus`'s entries, each sharing its path with its first entry (or the
/// file of many documents it is part of, copied once a file).
pub(super) fn walk_files(corpus: &Corpus, cwd: &Path) -> Vec<WalkFile> {
    // As many as the entries at most (a file of many documents is one file): reserved
    // once, not doubled as it grows (which held 1.5 times the list on average).
    let mut files: Vec<WalkFile> = Vec::with_capacity(corpus.entries.len());
    let entries = &corpus.entries;
    let path_of = |i: usize| file_of(&entries[i].source).expect("checked: every entry has a file");
    for (i, e) in entries.iter().enumerate() {
        match files.last_mut() {
            Some(last) if path_of(last.entries.start) == path_of(i) => last.entries.end = i + 1,
            _ => {
                let path = match &e.source {
                    Source::File(p) => p.clone(),
                    other => Arc::from(file_of(other).expect("checked")),
                };
                let abs = super::absolute(cwd, &path);
                files.push(WalkFile {
                    abs: (*abs != *path).then(|| Arc::from(abs)),
                    path,
                    reading: reading_of(&e.source),
                    entries: i..i + 1,
                })
            }
        }
    }
    files.shrink_to_fit();
    files
}
