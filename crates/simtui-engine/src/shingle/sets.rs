//! The shingle sets of an index's distinct contents, set `g` for content `g`, wherever
//! the budget puts them ([`Rows`]): in memory, on a temporary file, or made again from
//! the corpus's texts when asked for ([`super::again`]). Whoever reads them asks the same
//! way in every case, and every read is a [`Result`].

use super::again::Reshingle;
use crate::error::Result;
use crate::source::Source;
use crate::storage::file::SpillFile;
use crate::storage::rows::RowsWriter;
use crate::storage::{Kept, Picked, Room, Rows, RowsBuffer, Slab};
use crate::text::TextOptions;
use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

/// The shingle sets of a corpus's contents. Cloning copies sets in memory and shares
/// the others (an index shares its sets with its copies through an `Arc`).
#[derive(Clone, Debug)]
pub struct ShingleSets {
    rows: Rows<u64>,
}

impl Default for ShingleSets {
    fn default() -> Self {
        ShingleSets::new()
    }
}

impl ShingleSets {
    /// No sets yet, in memory ([`ShingleSets::push`] adds them).
    pub fn new() -> Self {
        ShingleSets {
            rows: Rows::varying(vec![0], Vec::new()).expect("no sets"),
        }
    }

    /// Sets from their parts (a saved index): set `i` is `data[offsets[i]..offsets[i+1]]`.
    /// `None` unless the offsets start at 0, never decrease and end at `data.len()`.
    pub(crate) fn from_parts(offsets: Vec<usize>, data: Vec<u64>) -> Option<Self> {
        Rows::varying(offsets, data).map(|rows| ShingleSets { rows })
    }

    /// Sets read from `file` when asked for (a saved index read in place), set `i` at
    /// values `offsets[i]..offsets[i + 1]` of it. `None` unless the offsets start at 0
    /// and never decrease.
    pub(crate) fn in_file(offsets: Vec<usize>, file: SpillFile) -> Option<Self> {
        Rows::varying_in(offsets, file).map(|rows| ShingleSets { rows })
    }

    /// Appends `set` as set number `len()`, to sets made in memory (by
    /// [`ShingleSets::new`]). It should be sorted and deduplicated, as
    /// [`shingle_set`](super::shingle_set) makes it (Jaccard similarities assume it;
    /// nothing checks).
    pub fn push(&mut self, set: &[u64]) {
        self.rows.push(set);
    }

    /// Number of sets.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there are no sets.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Number of shingles of set `i`. Panics if `i >= len()`.
    pub fn set_len(&self, i: usize) -> usize {
        self.rows.row_len(i)
    }

    /// Total number of shingles over all sets.
    pub fn total(&self) -> usize {
        self.rows.total()
    }

    /// Set `i`: its shingle hashes, ascending; an error when it cannot be read back or
    /// made again. Panics if `i >= len()`.
    pub fn get(&self, i: usize) -> Result<Cow<'_, [u64]>> {
        self.rows.row(i)
    }

    /// Sets `range` at once: borrowed when in memory, read in one piece or made again
    /// otherwise.
    pub fn sets(&self, range: Range<usize>) -> Result<Slab<'_, u64>> {
        self.rows.rows(range)
    }

    /// [`ShingleSets::sets`] read into `buffer` when not in memory (see [`Rows::rows_in`]).
    pub fn sets_in<'a>(
        &'a self,
        range: Range<usize>,
        buffer: &'a mut RowsBuffer<u64>,
    ) -> Result<Slab<'a, u64>> {
        self.rows.rows_in(range, buffer)
    }

    /// The sets of `groups` (ascending, distinct) at hand at once (see [`Rows::pick`]).
    pub fn pick(&self, groups: Vec<u32>) -> Result<Picked<'_, u64>> {
        self.rows.pick(groups)
    }

    /// Bytes of memory bringing set `g` in takes (nothing when the sets are in memory).
    pub fn load_bytes(&self, g: u32) -> u64 {
        self.rows.load_bytes(g as usize)
    }

    /// Bytes of sets one batch should bring in, given `budget` bytes for it.
    pub fn batch_bytes(&self, budget: u64) -> u64 {
        self.rows.batch_bytes(budget)
    }

    /// Where the sets are, to say it (see [`Kept`]).
    pub fn kept(&self) -> Kept {
        self.rows.kept()
    }

    /// What is worth telling people about where the sets are: that they are not kept
    /// but made again from the candidates' texts; nothing otherwise.
    pub fn note(&self) -> Option<&'static str> {
        (self.kept() == Kept::Remade)
            .then_some("shingle sets not kept: made again from the candidates' texts")
    }

    /// Heap memory held, in bytes (allocated capacity, not just what is used; nothing
    /// for the sets on file; for sets made again, where their texts are).
    pub fn heap_bytes(&self) -> usize {
        self.rows.heap_bytes()
    }
}

/// Shingle sets written one content at a time as an index is built: kept in memory until
/// the builder sends them to a temporary file ([`SetsWriter::spill`]), or, when the
/// corpus can be read again cheaply, not kept at all: only each one's length and where
/// its text is, to make it again when asked for.
pub(crate) struct SetsWriter {
    rows: RowsWriter<u64>,
    again: Option<Reshingle>,
}

impl SetsWriter {
    /// Sets kept: in memory, then wherever [`SetsWriter::spill`] sends them.
    pub(crate) fn kept() -> SetsWriter {
        SetsWriter {
            rows: RowsWriter::varying("shingle sets"),
            again: None,
        }
    }

    /// Sets not kept but made again from the corpus when asked for: texts tokenised
    /// with `text` into `k`-shingles, none over `max_bytes`.
    pub(crate) fn made_again(text: &TextOptions, k: usize, max_bytes: u64) -> SetsWriter {
        SetsWriter {
            rows: RowsWriter::varying("shingle sets"),
            again: Some(Reshingle::new(text, k, max_bytes)),
        }
    }

    /// Adds the next content's set (`len` shingles; `set` holds them when the sets are
    /// kept), with where its text is and the content hash of its tokens.
    pub(crate) fn push(
        &mut self,
        set: &[u64],
        len: usize,
        source: &Source,
        content: u64,
    ) -> Result<()> {
        match &mut self.again {
            Some(again) => {
                again.push(source.clone(), content)?;
                self.rows.push_len(len);
                Ok(())
            }
            None => self.rows.push(set),
        }
    }

    /// Adds the next set to sets kept ([`SetsWriter::kept`]).
    pub(crate) fn push_kept(&mut self, set: &[u64]) -> Result<()> {
        debug_assert!(self.again.is_none(), "sets kept");
        self.rows.push(set)
    }

    /// Heap bytes held: the sets in memory and their lengths.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.rows.heap_bytes()
    }

    /// Goes on in a temporary file in `room`, moving the sets so far there: nothing for
    /// sets made again, which hold no shingles.
    pub(crate) fn spill(&mut self, room: &Room) -> Result<()> {
        match self.again {
            Some(_) => Ok(()),
            None => self.rows.spill(room),
        }
    }

    /// For sets made again: from now on, where their texts are goes to a temporary file
    /// of `room` (nothing for sets kept, which [`SetsWriter::spill`] moves).
    pub(crate) fn sources_onto_file(&mut self, room: &Room) -> Result<()> {
        match &mut self.again {
            Some(again) => again.sources_onto_file(room),
            None => Ok(()),
        }
    }

    /// Room for `total` shingles in all, while in memory.
    pub(crate) fn reserve_total(&mut self, total: usize) {
        if self.again.is_none() {
            self.rows.reserve(total);
        }
    }

    /// Number of sets so far.
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    /// Number of shingles so far.
    pub(crate) fn total(&self) -> usize {
        self.rows.total()
    }

    /// The sets, every one readable.
    pub(crate) fn finish(self) -> Result<ShingleSets> {
        let rows = match self.again {
            Some(mut again) => {
                again.finish()?;
                self.rows.finish_remade(Arc::new(again))
            }
            None => self.rows.finish()?,
        };
        Ok(ShingleSets { rows })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_store_and_return() {
        let mut sets = ShingleSets::new();
        sets.push(&[1, 2]);
        sets.push(&[]);
        sets.push(&[3]);
        assert_eq!(sets.len(), 3);
        assert_eq!(&*sets.get(0).unwrap(), &[1, 2]);
        assert!(sets.get(1).unwrap().is_empty());
        assert_eq!(&*sets.get(2).unwrap(), &[3]);
        assert_eq!(sets.total(), 3);
        assert_eq!(sets.kept(), Kept::Memory);
        assert_eq!(sets.note(), None);
    }
}
