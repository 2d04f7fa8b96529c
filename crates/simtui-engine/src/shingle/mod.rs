//! k-shingles: every run of k consecutive tokens, hashed to 64 bits.
//!
//! A document's shingle set is a sorted, deduplicated `Vec<u64>`; the exact Jaccard
//! similarity of two documents is that of their shingle sets.

use crate::error::Result;
pub mod again;

use crate::hash::combine;
use crate::shingle::again::Reshingle;
use crate::source::Source;
use crate::storage::Spilled;
use crate::storage::file::SpillFile;
use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

/// Appends the sorted, deduplicated shingle hashes of a token-hash stream to `out`
/// (which is cleared first). A document with fewer than `k` tokens (but at least one)
/// gets a single shingle of all its tokens, so short duplicates are still found; an
/// empty one gets none.
pub fn shingle_set(tokens: &[u64], k: usize, out: &mut Vec<u64>) {
    assert!(k >= 1, "k must be at least 1");
    out.clear();
    if tokens.is_empty() {
        return;
    }
    if tokens.len() < k {
        out.push(combine(tokens));
        return;
    }
    out.extend(tokens.windows(k).map(combine));
    crate::hash::sort_by_hash(out, |&x| x);
    out.dedup();
}

/// The content hash of a normalised token stream: documents with equal streams are
/// identical for every k, and are indexed once.
pub fn content_hash(tokens: &[u64]) -> u64 {
    // Distinct from any shingle hash of the same tokens by a tag folded into the seed.
    combine(tokens) ^ 0xc0_47e4_7000_0000
}

/// All shingle sets of a corpus in one allocation: set `i` is `data[offsets[i]..offsets[i+1]]`.
/// Past the memory limit the sets of an index are on a temporary file instead
/// (see [`Index::build_within`](crate::index::Index::build_within)), and read back from it.
#[derive(Clone, Debug, Default)]
pub struct ShingleSets {
    offsets: Vec<usize>,
    data: Vec<u64>,
    /// The sets written out to a temporary file: `data` then holds none of them, and
    /// set `i` is at `offsets[i] * 8` bytes in the file.
    file: Option<Arc<SpillFile>>,
    /// The sets kept nowhere but made again from the corpus when asked for (see
    /// [`crate::shingle::again`]): `data` then holds none of them; `offsets` give lengths.
    again: Option<Box<Reshingle>>,
}

/// Consecutive sets held in memory: borrowed from sets in memory, read from the file
/// for spilled ones (see [`ShingleSets::range`]).
pub struct SetRange<'a> {
    /// Offsets of the sets `from..to` and the one after, as in the whole.
    offsets: &'a [usize],
    data: Cow<'a, [u64]>,
}

impl SetRange<'_> {
    /// The `i`th set of the range.
    pub fn get(&self, i: usize) -> &[u64] {
        let base = self.offsets[0];
        &self.data[self.offsets[i] - base..self.offsets[i + 1] - base]
    }

    /// Number of sets in the range.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Where the `i`th set begins among the range's shingles (its first is number
    /// `start(i)` of [`total`](Self::total)).
    pub(crate) fn start(&self, i: usize) -> usize {
        self.offsets[i] - self.offsets[0]
    }

    /// Number of shingles of the range's sets.
    pub(crate) fn total(&self) -> usize {
        self.data.len()
    }

    /// Whether the range has no set.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl ShingleSets {
    /// No sets yet.
    pub fn new() -> Self {
        ShingleSets {
            offsets: vec![0],
            data: Vec::new(),
            file: None,
            again: None,
        }
    }

    /// No sets yet, and none to be kept: each is made again from the corpus when asked
    /// for (texts tokenised with `text` into `k`-shingles, none over `max_bytes`).
    pub(crate) fn read_again(text: &crate::text::TextOptions, k: usize, max_bytes: u64) -> Self {
        ShingleSets {
            again: Some(Box::new(Reshingle::new(text, k, max_bytes))),
            ..ShingleSets::new()
        }
    }

    /// Sets from their parts (a saved index): set `i` is `data[offsets[i]..offsets[i+1]]`.
    /// `None` unless the offsets start at 0, never decrease and end at `data.len()`.
    pub(crate) fn from_parts(offsets: Vec<usize>, data: Vec<u64>) -> Option<Self> {
        let valid = offsets.first() == Some(&0)
            && offsets.last() == Some(&data.len())
            && offsets.windows(2).all(|w| w[0] <= w[1]);
        valid.then_some(ShingleSets {
            offsets,
            data,
            file: None,
            again: None,
        })
    }

    /// Room for `total` shingles in all.
    pub(crate) fn reserve_total(&mut self, total: usize) {
        if !self.is_spilled() {
            self.data.reserve(total.saturating_sub(self.data.len()));
        }
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.data.shrink_to_fit();
        self.offsets.shrink_to_fit();
    }

    /// Appends `set` as set number `len()`. It should be sorted and deduplicated, as
    /// [`shingle_set`] makes it (Jaccard similarities assume it; nothing checks).
    ///
    /// # Panics
    /// If the sets are spilled (only an index spills its sets, and it appends with
    /// an append of its own).
    pub fn push(&mut self, set: &[u64]) {
        assert!(!self.is_spilled(), "push onto sets in memory only");
        self.data.extend_from_slice(set);
        self.offsets.push(self.data.len());
    }

    /// Appends `set`, to the file if the sets are spilled.
    pub(crate) fn append(&mut self, set: &[u64]) -> Result<()> {
        match &mut self.file {
            None => self.push(set),
            Some(file) => {
                let file = Arc::get_mut(file).expect("sets are not shared while appended to");
                file.append_u64s(set)?;
                let end = self.offsets[self.offsets.len() - 1] + set.len();
                self.offsets.push(end);
            }
        }
        Ok(())
    }

    /// Appends a set made again when asked for: its length, where its text is and the
    /// content hash of its tokens.
    ///
    /// # Panics
    /// Unless the sets are [made again](ShingleSets::read_again).
    pub(crate) fn append_again(&mut self, len: usize, source: Source, content: u64) {
        let again = self.again.as_mut().expect("sets made again");
        again.push(source, content);
        let end = self.offsets[self.offsets.len() - 1] + len;
        self.offsets.push(end);
    }

    /// Moves the sets to a temporary file in `dir` (the system's when None), counted
    /// in `spilled`: from now on they are appended there and read back from there.
    pub(crate) fn spill(&mut self, dir: Option<&Path>, spilled: &Arc<Spilled>) -> Result<()> {
        if self.is_spilled() {
            return Ok(());
        }
        let mut file = SpillFile::create(dir, "shingle sets", spilled)?;
        file.append_u64s(&self.data)?;
        self.data = Vec::new();
        self.file = Some(Arc::new(file));
        Ok(())
    }

    /// Writes out what is still buffered for the file: every set can be read back after.
    pub(crate) fn finish(&mut self) -> Result<()> {
        if let Some(file) = &mut self.file {
            Arc::get_mut(file)
                .expect("sets are not shared while appended to")
                .flush()?;
        }
        Ok(())
    }

    /// Whether the sets are not in memory: on a temporary file, or made again from the
    /// corpus when asked for.
    pub fn is_spilled(&self) -> bool {
        self.file.is_some() || self.again.is_some()
    }

    /// Whether the sets are made again from the corpus when asked for (see
    /// [`crate::shingle::again`]).
    pub fn is_read_again(&self) -> bool {
        self.again.is_some()
    }

    pub(crate) fn again(&self) -> Option<&Reshingle> {
        self.again.as_deref()
    }

    pub(crate) fn file(&self) -> Option<&SpillFile> {
        self.file.as_deref()
    }

    /// Number of sets.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there are no sets.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of shingles of set `i`. Panics if `i >= len()`.
    pub fn set_len(&self, i: usize) -> usize {
        self.offsets[i + 1] - self.offsets[i]
    }

    /// Where set `i` is: its first shingle's position over all sets, and its length.
    pub(crate) fn span(&self, i: usize) -> (usize, usize) {
        (self.offsets[i], self.set_len(i))
    }

    /// Set `i` of sets held in memory. Panics if the sets are spilled.
    pub(crate) fn in_memory(&self, i: usize) -> &[u64] {
        assert!(!self.is_spilled(), "the sets are in memory");
        &self.data[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Set `i`: its shingle hashes, ascending. Panics if `i >= len()`, and if a spilled
    /// set cannot be read back ([`ShingleSets::try_get`] says why instead).
    pub fn get(&self, i: usize) -> Cow<'_, [u64]> {
        self.try_get(i)
            .unwrap_or_else(|e| panic!("reading back a shingle set: {e}"))
    }

    /// Set `i`, or why a spilled set cannot be read back (or made again). Panics if
    /// `i >= len()`.
    pub fn try_get(&self, i: usize) -> Result<Cow<'_, [u64]>> {
        let (from, to) = (self.offsets[i], self.offsets[i + 1]);
        if let Some(again) = &self.again {
            return again.set(i).map(|set| Cow::Owned(set.to_vec()));
        }
        match &self.file {
            None => Ok(Cow::Borrowed(&self.data[from..to])),
            Some(file) => {
                let mut out = Vec::with_capacity(to - from);
                file.read_u64s(from as u64 * 8, to - from, &mut Vec::new(), &mut out)?;
                Ok(Cow::Owned(out))
            }
        }
    }

    /// Sets `from..to` at once: borrowed when in memory, read in one piece when spilled.
    pub fn range(&self, from: usize, to: usize) -> Result<SetRange<'_>> {
        let offsets = &self.offsets[from..=to];
        let (a, b) = (offsets[0], offsets[offsets.len() - 1]);
        if let Some(again) = &self.again {
            let groups: Vec<u32> = (from as u32..to as u32).collect();
            let (_, data) = again.sets(&groups, |g| self.set_len(g as usize))?;
            return Ok(SetRange {
                offsets,
                data: Cow::Owned(data),
            });
        }
        let data = match &self.file {
            None => Cow::Borrowed(&self.data[a..b]),
            Some(file) => {
                let mut out = Vec::with_capacity(b - a);
                file.read_u64s(a as u64 * 8, b - a, &mut Vec::new(), &mut out)?;
                Cow::Owned(out)
            }
        };
        Ok(SetRange { offsets, data })
    }

    /// Total number of shingles over all sets.
    pub fn total(&self) -> usize {
        self.offsets[self.offsets.len() - 1]
    }

    /// Heap memory held, in bytes (allocated capacity, not just what is used; nothing
    /// for the sets on file).
    pub fn heap_bytes(&self) -> usize {
        self.offsets.capacity() * 8
            + self.data.capacity() * 8
            + self.again.as_ref().map_or(0, |a| a.heap_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shingles_of_a_stream() {
        let t = [1u64, 2, 3, 4, 1, 2, 3];
        let mut s = Vec::new();
        shingle_set(&t, 3, &mut s);
        // windows: 123 234 341 412 123 -> 4 distinct
        assert_eq!(s.len(), 4);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        assert!(s.contains(&combine(&[1, 2, 3])));
        assert!(s.contains(&combine(&[4, 1, 2])));
    }

    #[test]
    fn short_and_empty_documents() {
        let mut s = vec![99];
        shingle_set(&[], 5, &mut s);
        assert!(s.is_empty());
        shingle_set(&[7, 8], 5, &mut s);
        assert_eq!(s, vec![combine(&[7, 8])]);
        shingle_set(&[7, 8, 9, 10, 11], 5, &mut s);
        assert_eq!(s, vec![combine(&[7, 8, 9, 10, 11])]);
    }

    #[test]
    fn sets_store_and_return() {
        let mut sets = ShingleSets::new();
        sets.push(&[1, 2]);
        sets.push(&[]);
        sets.push(&[3]);
        assert_eq!(sets.len(), 3);
        assert_eq!(&*sets.get(0), &[1, 2]);
        assert!(sets.get(1).is_empty());
        assert_eq!(&*sets.get(2), &[3]);
        assert_eq!(sets.total(), 3);
    }
}
