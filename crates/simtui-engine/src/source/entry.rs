//! A document found by the walk, not read yet: its id and where its text comes from; and
//! an `Item`, what a batch of the corpus hands out to be read.

use super::container::{Container, Part};
use super::record::Record;
use super::skip::Skipped;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a document's text comes from.
#[derive(Clone, Debug)]
pub enum Source {
    /// A plain-text file, one document. Shared, not copied, by whatever else names the
    /// file (the walk's list of files, a saved index's file record, the sets made again
    /// for verification): at 500,000 files each copy of every path was ~40 MB.
    File(Arc<Path>),
    /// Text held in memory (the built-in demo corpus, tests).
    Memory(Arc<str>),
    /// A file of many documents, not split yet: the index expands it into its
    /// [`Source::Part`]s, and no document has it as its source.
    Container(Arc<Container>),
    /// One document of a file of many: a record read again by its place in the file.
    Part(Part),
}

impl Source {
    /// The file the text is read from, if any.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Source::File(p) => Some(p),
            Source::Memory(_) => None,
            Source::Container(c) => Some(&c.path),
            Source::Part(p) => Some(&p.file.path),
        }
    }
}

/// A document found in the corpus, not read yet.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Its name: the path relative to the root it was found under, with '/' separators
    /// (the root in front when there are several); for a record of a file of many
    /// documents, the id the record gives or `FILE:LINE`; for a text in memory, the id
    /// given.
    pub id: String,
    /// Where its text comes from.
    pub source: Source,
    /// Size in bytes: known for texts in memory, 0 for files until they are read.
    pub bytes: u64,
}

impl Entry {
    /// Where the entry is, for messages: its file (`FILE:LINE` for a record of a file of
    /// many documents), or its id for a text in memory.
    pub fn place(&self) -> PathBuf {
        match &self.source {
            Source::File(p) => p.to_path_buf(),
            Source::Memory(_) => self.id.clone().into(),
            Source::Container(c) => c.path.clone(),
            Source::Part(p) => p.place(),
        }
    }
}

/// One unit of work of a batch.
pub(crate) enum Item {
    /// A whole file (or text in memory): one document.
    Whole(Entry),
    /// A record already decoded (a Parquet row).
    #[cfg_attr(not(feature = "parquet"), allow(dead_code))]
    Parsed { part: Part, record: Record },
    /// A record of a container, to extract.
    Record {
        part: Part,
        block: Arc<Vec<u8>>,
        range: Range<usize>,
    },
    /// Not a document, known before extraction (an unreadable file, a record too large).
    Skip(Skipped),
}
