//! A Parquet file read as a stream of records, in file order. Small row groups are
//! decoded whole, a few at once on as many threads; a row group too large for that is
//! read a slice of rows at a time, so memory holds a few megabytes of texts however
//! large a row group is (a file written as one row group of 100,000 rows was decoded
//! whole: 674 MB at `--memory 64M` for 200 MB of text).

use super::{ParquetFile, open, place, record};
use crate::source::container::{Container, Part};
use crate::source::entry::Item;
use crate::source::skip::{SkipReason, Skipped};
use arrow_array::RecordBatch;
use parquet::arrow::arrow_reader::ParquetRecordBatchReader;
use rayon::prelude::*;
use std::sync::Arc;

/// Row groups whose columns read take at most this many bytes decoded are decoded whole
/// (as many at once as there are threads); a larger one is read a slice at a time.
const WHOLE_GROUP: u64 = 16 << 20;

/// The texts a slice of a large row group holds: whole batches of rows, until this many
/// bytes or the group's end.
const SLICE_BYTES: usize = 4 << 20;

/// A Parquet file being read.
pub(crate) struct ParquetStream {
    pub(crate) file: Arc<Container>,
    pf: ParquetFile,
    /// The next row group to read, and the file's row it starts at.
    next: usize,
    first_row: u64,
    /// The large row group `next`, being read a slice at a time.
    open: Option<OpenGroup>,
    /// [`WHOLE_GROUP`] and [`SLICE_BYTES`] (tests make them small).
    whole_group: u64,
    slice_bytes: usize,
    /// Bytes (compressed) of the row groups read, for progress.
    pub(crate) consumed: u64,
    pub(crate) records: u64,
}

/// A large row group being read: its reader, and the next row (in the group).
struct OpenGroup {
    reader: ParquetRecordBatchReader,
    row: u64,
}

impl ParquetStream {
    pub(crate) fn open(file: Arc<Container>) -> Result<ParquetStream, (SkipReason, String)> {
        let pf = open(&file)?;
        Ok(ParquetStream {
            file,
            pf,
            next: 0,
            first_row: 0,
            open: None,
            whole_group: WHOLE_GROUP,
            slice_bytes: SLICE_BYTES,
            consumed: 0,
            records: 0,
        })
    }

    /// Appends the next records to `out`, in order: the next small row groups (as many as
    /// there are threads, read in parallel), or the next slice of a large one. Returns
    /// false once the file is done.
    pub(crate) fn next_items(&mut self, out: &mut Vec<Item>) -> bool {
        let groups = self.pf.row_groups();
        if self.open.is_none() && self.next < groups && self.is_large(self.next) {
            match self.pf.reader(self.next, None) {
                Ok(reader) => self.open = Some(OpenGroup { reader, row: 0 }),
                Err(e) => {
                    let skip = self.damaged(0, e);
                    self.push(out, vec![skip]);
                    self.end_group();
                }
            }
        }
        if self.open.is_some() {
            self.next_slice(out);
        } else if self.next < groups {
            self.next_small_groups(out);
        }
        self.next < groups
    }

    fn is_large(&self, g: usize) -> bool {
        self.pf.decoded_bytes(g) > self.whole_group
    }

    /// Row groups decoded whole up to `whole_group` bytes, slices of `slice_bytes`.
    #[cfg(test)]
    pub(super) fn with_limits(mut self, whole_group: u64, slice_bytes: usize) -> Self {
        (self.whole_group, self.slice_bytes) = (whole_group, slice_bytes);
        self
    }

    /// The small row groups from `next` on, up to one per thread, decoded in parallel.
    fn next_small_groups(&mut self, out: &mut Vec<Item>) {
        let groups = self.pf.row_groups();
        let threads = rayon::current_num_threads().max(1);
        let mut starts = Vec::new();
        let mut row = self.first_row;
        for g in self.next..groups {
            if starts.len() == threads || self.is_large(g) {
                break;
            }
            starts.push((g, row));
            row += self.pf.rows(g);
        }
        let read: Vec<Vec<Item>> = starts
            .par_iter()
            .map(|&(g, first)| whole_group(&self.pf, &self.file, g, first))
            .collect();
        for items in read {
            self.push(out, items);
            self.end_group();
        }
    }

    /// The next batches of the open row group, until `slice_bytes` of texts or its end
    /// (or the batch its damage stops it at).
    fn next_slice(&mut self, out: &mut Vec<Item>) {
        let Some(open) = self.open.as_mut() else {
            return;
        };
        let (g, first) = (self.next, self.first_row);
        let mut items = Vec::new();
        let mut bytes = 0;
        let mut ended = false;
        while bytes < self.slice_bytes {
            match open.reader.next() {
                None => {
                    ended = true;
                    break;
                }
                Some(Ok(batch)) => {
                    bytes += rows_of(&self.file, &batch, (g, first, open.row), &mut items);
                    open.row += batch.num_rows() as u64;
                    // Its last rows: done now, not at a call that finds nothing more.
                    if open.row >= self.pf.rows(g) {
                        ended = true;
                        break;
                    }
                }
                Some(Err(e)) => {
                    let row = open.row;
                    items.push(self.damaged(row, e.to_string()));
                    ended = true;
                    break;
                }
            }
        }
        self.push(out, items);
        if ended {
            self.open = None;
            self.end_group();
        }
    }

    /// The skip of the rest of row group `next` from its row `row` (from 0), which
    /// cannot be decoded.
    fn damaged(&self, row: u64, e: String) -> Item {
        damaged_rows(&self.file, (self.next, self.first_row, row), e)
    }

    fn push(&mut self, out: &mut Vec<Item>, items: Vec<Item>) {
        self.records += items.len() as u64;
        out.extend(items);
    }

    /// Moves on past row group `next`.
    fn end_group(&mut self) {
        self.first_row += self.pf.rows(self.next);
        self.consumed += self.pf.stored_bytes(self.next);
        self.next += 1;
    }
}

/// The records of row group `g`, whose first row is row `first` of the file (from 0),
/// decoded whole: a record per row, or a skip for a row with no text; where a batch
/// cannot be decoded, one skip for the rows from there to the group's end.
fn whole_group(pf: &ParquetFile, c: &Arc<Container>, g: usize, first: u64) -> Vec<Item> {
    let reader = match pf.reader(g, None) {
        Ok(r) => r,
        Err(e) => return vec![damaged_rows(c, (g, first, 0), e)],
    };
    let mut out = Vec::with_capacity(pf.rows(g) as usize);
    let mut row = 0u64;
    for batch in reader {
        match batch {
            Ok(batch) => {
                rows_of(c, &batch, (g, first, row), &mut out);
                row += batch.num_rows() as u64;
            }
            Err(e) => {
                out.push(damaged_rows(c, (g, first, row), e.to_string()));
                break;
            }
        }
    }
    out
}

/// Appends the records of `batch`, whose rows start at row `row` of row group `g` (whose
/// first row is the file's row `first`), to `out`: the bytes of their texts.
fn rows_of(
    c: &Arc<Container>,
    batch: &RecordBatch,
    (g, first, row): (usize, u64, u64),
    out: &mut Vec<Item>,
) -> usize {
    let mut bytes = 0;
    for i in 0..batch.num_rows() {
        let at = row + i as u64;
        let part = Part {
            file: c.clone(),
            offset: g as u64,
            len: at,
            line: first + at + 1,
        };
        out.push(match record(c, batch, i) {
            Ok(record) => {
                bytes += record.text.len();
                Item::Parsed { part, record }
            }
            Err((reason, detail)) => Item::Skip(Skipped {
                path: part.place(),
                reason,
                detail,
            }),
        });
    }
    bytes
}

/// The skip of row group `g`'s rows from its row `row` (from 0) on, which cannot be
/// decoded (`e`); the group's first row is the file's row `first`.
fn damaged_rows(c: &Container, (g, first, row): (usize, u64, u64), e: String) -> Item {
    let detail = match row {
        0 => format!("row group {g}: {e}"),
        _ => format!("row group {g} from its row {}: {e}", row + 1),
    };
    Item::Skip(Skipped {
        path: place(c, first + row),
        reason: SkipReason::Unreadable,
        detail,
    })
}
