//! The files of a walk, in order, each with its entries and its path: what opening or
//! adding to a saved index plans file by file (reuse its saved documents, or read it).

use super::{file_of, reading_of};
use crate::source::{self, Corpus, Source};
use std::path::{Path, PathBuf};

/// The files of a walk, in order: each with its entries. The path is held once when it
/// is absolute already (a copy a file is a copy a document at 500,000 files), and once
/// beside the walk's entries when [`walk_files`] takes it from them.
pub(super) struct WalkFile {
    pub(super) path: PathBuf,
    /// The path made absolute (how the saved index names files), when it differs.
    pub(super) abs: Option<PathBuf>,
    /// How it is read (see `reading_of`), taken before its entries move into the index.
    pub(super) reading: String,
    pub(super) entries: std::ops::Range<usize>,
}

impl WalkFile {
    /// The absolute path, as the saved index names the file.
    pub(super) fn abs(&self) -> &Path {
        self.abs.as_deref().unwrap_or(&self.path)
    }

    /// The absolute path, moved out for the file's record: the file's last use.
    pub(super) fn take_abs(&mut self) -> PathBuf {
        self.abs
            .take()
            .unwrap_or_else(|| std::mem::take(&mut self.path))
    }
}

/// The files of `corpus`'s entries. With `take`, the path of a file that is one
/// document is moved out of its entry (left empty: [`give_back`] or `update::reuse_file` gives
/// it to the document) instead of copied, so that opening a saved index does not hold
/// every path twice while it plans.
pub(super) fn walk_files(corpus: &mut Corpus, cwd: &Path, take: bool) -> Vec<WalkFile> {
    // As many as the entries at most (a file of many documents is one file): reserved
    // once, not doubled as it grows (which held 1.5 times the list on average).
    let mut files: Vec<WalkFile> = Vec::with_capacity(corpus.entries.len());
    let entries = &corpus.entries;
    let path_of = |i: usize| file_of(&entries[i].source).expect("checked: every entry has a file");
    for (i, e) in entries.iter().enumerate() {
        match files.last_mut() {
            Some(last) if path_of(last.entries.start) == path_of(i) => last.entries.end = i + 1,
            _ => files.push(WalkFile {
                path: PathBuf::new(),
                abs: None,
                reading: reading_of(&e.source),
                entries: i..i + 1,
            }),
        }
    }
    for f in &mut files {
        let first = &mut corpus.entries[f.entries.start].source;
        f.path = match first {
            Source::File(p) if take && f.entries.len() == 1 => std::mem::take(p),
            other => file_of(other).expect("checked").to_path_buf(),
        };
        let abs = super::absolute(cwd, &f.path);
        f.abs = (abs != f.path).then_some(abs);
    }
    files.shrink_to_fit();
    files
}

/// Gives the entries of a file their path back where [`walk_files`] took it.
pub(super) fn give_back(entries: &mut [source::Entry], f: &WalkFile) {
    for e in entries {
        if let Source::File(p) = &mut e.source
            && p.as_os_str().is_empty()
        {
            *p = f.path.clone();
        }
    }
}
