//! Parquet without arrow: what the engine reads and writes of Parquet files when it is
//! built without its `parquet` feature. The walk refuses Parquet files then
//! ([`Corpus::walk`](super::Corpus::walk)), so a Parquet row is never a document and
//! nothing here is reached but through a saved index made by a build that had it: each
//! answers that the feature is needed.

use super::container::{Container, Part};
use super::entry::Item;
use super::record::Record;
use super::skip::SkipReason;
use crate::error::{Error, Result};
use std::path::Path;
use std::sync::Arc;

/// Why a Parquet file is not read.
pub(crate) const NEEDS_FEATURE: &str =
    "a Parquet file: reading Parquet needs simtui-engine's `parquet` feature";

fn needs_feature() -> (SkipReason, String) {
    (SkipReason::Unreadable, NEEDS_FEATURE.to_string())
}

/// A Parquet file being read: never made without the feature.
#[allow(dead_code)] // `open` always fails without arrow; the fields keep the reader's shape.
pub(crate) struct ParquetStream {
    pub(crate) file: Arc<Container>,
    pub(crate) consumed: u64,
    pub(crate) records: u64,
}

impl ParquetStream {
    pub(crate) fn open(_file: Arc<Container>) -> Result<ParquetStream, (SkipReason, String)> {
        Err(needs_feature())
    }

    pub(crate) fn next_items(&mut self, _out: &mut Vec<Item>) -> bool {
        false
    }
}

pub(crate) fn read_row(_part: &Part) -> Result<Record, (SkipReason, String)> {
    Err(needs_feature())
}

pub(crate) fn columns(_c: &Container) -> Result<Vec<String>, (SkipReason, String)> {
    Err(needs_feature())
}

pub(crate) fn write_without(
    input: &Path,
    _target: &Path,
    _cuts: &[(u64, u64)],
    _progress: &dyn crate::progress::Progress,
) -> Result<()> {
    Err(Error::Unsupported {
        path: input.to_path_buf(),
        what: NEEDS_FEATURE,
    })
}
