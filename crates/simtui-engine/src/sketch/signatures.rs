//! The signatures of an index's distinct contents: one row of `width` values per shingle
//! set, wherever the budget puts them ([`Rows`]: in memory, or on a temporary file past
//! the limit), read the same way in every case; and the estimate of Jaccard similarity
//! two signatures give.

use super::minhash::{SketchKind, Sketcher};
use crate::error::Result;
use crate::progress::{Progress, Stage, check};
use crate::shingle::ShingleSets;
use crate::storage::file::SpillFile;
use crate::storage::rows::RowsWriter;
use crate::storage::{Kept, Picked, Room, Rows, RowsBuffer, Slab};
use rayon::prelude::*;
use std::borrow::Cow;
use std::ops::Range;

/// The MinHash estimate of Jaccard similarity: the fraction of signature positions that
/// agree, in [0, 1]. The signatures must have the same width; empty ones give 0.
pub fn estimate(a: &[u32], b: &[u32]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    if a.is_empty() {
        return 0.0;
    }
    let agree = a.iter().zip(b).filter(|(x, y)| x == y).count();
    agree as f64 / a.len() as f64
}

/// The signatures of a corpus's contents: row `g` for content `g`, each
/// [`width`](Signatures::width) values. Cloning copies rows in memory and shares a file.
#[derive(Clone, Debug, Default)]
pub struct Signatures {
    width: usize,
    rows: Rows<u32>,
}

/// Rows sketched per parallel task.
const FILL_BATCH: usize = 4096;
/// Bytes of sets a parallel task reads back at once when they are not in memory, held by
/// its thread while it sketches them (4,096 sets of 300 shingles were 10 MB a thread).
const TASK_BYTES: u64 = 2 << 20;
/// Rows read back at a time when the signatures are copied (wider, narrower).
const COPY_BLOCK: usize = 4096;

impl Signatures {
    /// Computes the signatures of every set in parallel, in memory, reporting
    /// `Stage::Sketch` progress. Fails only when cancelled, or when a set cannot be read
    /// back.
    pub fn compute(
        sketcher: &Sketcher,
        sets: &ShingleSets,
        progress: &dyn Progress,
    ) -> Result<Signatures> {
        let n = sketcher.width();
        let cells = n.saturating_mul(sets.len());
        let mut data = crate::storage::memory::filled(cells, 0u32, "the signatures")?;
        fill_rows(sketcher, sets, 0, n, 0, &mut data, sets.len(), progress)?;
        Ok(Signatures::from_data(n, data).expect("whole rows"))
    }

    /// [`Signatures::compute`] when the matrix fits in `room`; else computed `block`
    /// bytes of rows at a time, each written to a temporary file in it.
    pub(crate) fn compute_in(
        sketcher: &Sketcher,
        sets: &ShingleSets,
        room: &Room,
        block: u64,
        progress: &dyn Progress,
    ) -> Result<Signatures> {
        let n = sketcher.width();
        let cells = n as u64 * sets.len() as u64;
        if n == 0 || cells * 4 <= room.bytes {
            return Signatures::compute(sketcher, sets, progress);
        }
        let mut writer = SigsWriter::new(n);
        writer.spill(room)?;
        let per_block = ((block / (n as u64 * 4)) as usize).max(FILL_BATCH);
        let mut buf: Vec<u32> = Vec::new();
        for from in (0..sets.len()).step_by(per_block) {
            let to = (from + per_block).min(sets.len());
            buf.clear();
            buf.resize((to - from) * n, 0);
            fill_rows(sketcher, sets, 0, n, from, &mut buf, sets.len(), progress)?;
            writer.rows.push_rows(&buf)?;
        }
        writer.finish()
    }

    /// New signatures of `sketcher.width()` functions, these left as they are: MinHash
    /// of a larger width computes only the new functions; an OPH signature of another
    /// width is a different sketch, computed anew. A copy when `sketcher` has no more
    /// functions. In memory when the new matrix fits in `room`, else on a temporary file
    /// in it; the new functions are computed `block` bytes of them at a time.
    pub(crate) fn extended_in(
        &self,
        sketcher: &Sketcher,
        sets: &ShingleSets,
        (room, block): (&Room, u64),
        progress: &dyn Progress,
    ) -> Result<Signatures> {
        let (old, new) = (self.width, sketcher.width());
        if new <= old {
            return Ok(self.clone());
        }
        if sketcher.kind() == SketchKind::Oph || old == 0 {
            return Signatures::compute_in(sketcher, sets, room, block, progress);
        }
        let rows = sets.len();
        let mut writer = SigsWriter::within(new, rows, room)?;
        let added = new - old;
        let per_block = ((block / (added as u64 * 4)) as usize).max(FILL_BATCH);
        let (mut extra, mut wide) = (Vec::new(), Vec::new());
        let mut buffer = RowsBuffer::default();
        for from in (0..rows).step_by(per_block) {
            let to = (from + per_block).min(rows);
            extra.clear();
            extra.resize((to - from) * added, 0u32);
            fill_rows(sketcher, sets, old, added, from, &mut extra, rows, progress)?;
            // Each row: its old functions, then the new ones.
            let mut more = extra.chunks_exact(added);
            for at in (from..to).step_by(COPY_BLOCK) {
                wide.clear();
                let old_rows = self.rows_in(at..(at + COPY_BLOCK).min(to), &mut buffer)?;
                for row in old_rows.values().chunks_exact(old) {
                    wide.extend_from_slice(row);
                    wide.extend_from_slice(more.next().expect("a row of new functions"));
                }
                writer.rows.push_rows(&wide)?;
            }
        }
        writer.finish()
    }

    /// [`Signatures::extended_in`] with no limit on memory.
    #[cfg(test)]
    pub(crate) fn extended(
        &self,
        sketcher: &Sketcher,
        sets: &ShingleSets,
        progress: &dyn Progress,
    ) -> Result<Signatures> {
        let spilled = std::sync::Arc::new(crate::storage::Spilled::default());
        let room = Room {
            bytes: u64::MAX,
            dir: None,
            spilled: &spilled,
        };
        self.extended_in(sketcher, sets, (&room, 256 << 20), progress)
    }

    /// The first `n` functions of every row (`n` at most the width), as a fresh MinHash
    /// computation of `n` functions gives them: function i depends only on the seed and i.
    /// Meaningless for OPH, whose bins depend on their number.
    #[cfg(test)]
    pub(crate) fn truncated(&self, n: usize) -> Result<Signatures> {
        let spilled = std::sync::Arc::new(crate::storage::Spilled::default());
        let room = Room {
            bytes: u64::MAX,
            dir: None,
            spilled: &spilled,
        };
        self.truncated_in(n, &room)
    }

    /// [`Signatures::truncated`], in memory when the new matrix fits in `room`, else
    /// on a temporary file in it (a saved index's signatures, read from its file, are
    /// narrowed for a banding of fewer functions).
    pub(crate) fn truncated_in(&self, n: usize, room: &Room) -> Result<Signatures> {
        assert!(
            n <= self.width,
            "truncating {} functions to {n}",
            self.width
        );
        if n == self.width {
            return Ok(self.clone());
        }
        let rows = self.len();
        let mut writer = SigsWriter::within(n, rows, room)?;
        if n > 0 {
            let mut narrow = Vec::with_capacity(COPY_BLOCK * n);
            let mut buffer = RowsBuffer::default();
            for from in (0..rows).step_by(COPY_BLOCK) {
                let block = self.rows_in(from..(from + COPY_BLOCK).min(rows), &mut buffer)?;
                narrow.clear();
                for row in block.values().chunks_exact(self.width) {
                    narrow.extend_from_slice(&row[..n]);
                }
                writer.rows.push_rows(&narrow)?;
            }
        }
        writer.finish()
    }

    /// Signatures from a row-major matrix of rows of `n` (a saved index). `None` unless
    /// the data is whole rows (no data when `n` is 0).
    pub(crate) fn from_data(n: usize, data: Vec<u32>) -> Option<Self> {
        let rows = if n == 0 {
            data.is_empty().then_some(0)?
        } else {
            data.len().is_multiple_of(n).then(|| data.len() / n)?
        };
        Some(Signatures {
            width: n,
            rows: Rows::fixed(n, rows, data)?,
        })
    }

    /// `rows` rows of `n` values read from `file` when asked for (a saved index read in
    /// place).
    pub(crate) fn in_file(n: usize, rows: usize, file: SpillFile) -> Self {
        let rows = if n == 0 {
            Rows::default()
        } else {
            Rows::fixed_in(n, rows, file)
        };
        Signatures { width: n, rows }
    }

    /// The row-major matrix, row `i` at `i * width()..(i + 1) * width()`: borrowed when
    /// in memory, read back whole from a temporary file.
    pub fn data(&self) -> Result<Cow<'_, [u32]>> {
        Ok(self.rows.rows(0..self.rows.len())?.into_values())
    }

    /// Number of hash functions per row.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Number of rows, one per shingle set; 0 when the width is 0, however many sets.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `i`, the signature of set `i`: [`width`](Signatures::width) values (none when
    /// the width is 0, whatever `i`); an error when it cannot be read back. Panics if `i`
    /// is out of range.
    pub fn row(&self, i: usize) -> Result<Cow<'_, [u32]>> {
        if self.width == 0 {
            return Ok(Cow::Borrowed(&[]));
        }
        self.rows.row(i)
    }

    /// Rows `range`, one after the other: borrowed when in memory, read in one piece
    /// when on a file. Panics if the range is out of bounds (any range when the width is
    /// 0: every row is empty).
    pub fn rows(&self, range: Range<usize>) -> Result<Slab<'_, u32>> {
        if self.width == 0 {
            return self.rows.rows(0..0);
        }
        self.rows.rows(range)
    }

    /// [`Signatures::rows`] read into `buffer` when on a file (see [`Rows::rows_in`]).
    pub fn rows_in<'a>(
        &'a self,
        range: Range<usize>,
        buffer: &'a mut RowsBuffer<u32>,
    ) -> Result<Slab<'a, u32>> {
        if self.width == 0 {
            return self.rows.rows_in(0..0, buffer);
        }
        self.rows.rows_in(range, buffer)
    }

    /// The rows of `groups` (ascending, distinct) at hand at once (see [`Rows::pick`]).
    pub fn pick(&self, groups: Vec<u32>) -> Result<Picked<'_, u32>> {
        self.rows.pick(groups)
    }

    /// Where the rows are, to say it.
    pub fn kept(&self) -> Kept {
        self.rows.kept()
    }

    /// Heap memory held, in bytes (nothing for rows on file).
    pub fn heap_bytes(&self) -> usize {
        self.rows.heap_bytes()
    }
}

/// Signature rows appended one content at a time, as an index whose shingle sets are
/// not kept sketches each document while it is read: in memory, or from when
/// [`SigsWriter::spill`] is called, on a temporary file.
pub(crate) struct SigsWriter {
    width: usize,
    rows: RowsWriter<u32>,
}

impl SigsWriter {
    /// No rows yet, each `width` values wide.
    pub(crate) fn new(width: usize) -> SigsWriter {
        SigsWriter {
            width,
            rows: RowsWriter::fixed(width, "signatures"),
        }
    }

    /// Room for `rows` rows `width` wide: in memory when they fit `room`, else on a
    /// temporary file.
    pub(crate) fn within(width: usize, rows: usize, room: &Room) -> Result<SigsWriter> {
        let mut writer = SigsWriter::new(width);
        if (width as u64).saturating_mul(rows as u64) * 4 > room.bytes {
            writer.spill(room)?;
        } else {
            writer.reserve_rows(rows);
        }
        Ok(writer)
    }

    /// Appends the next row (`width` values).
    pub(crate) fn push(&mut self, row: &[u32]) -> Result<()> {
        self.rows.push(row)
    }

    /// Moves the rows so far to a temporary file in `room`, and appends there from now
    /// on (nothing when already there, or the width is 0).
    pub(crate) fn spill(&mut self, room: &Room) -> Result<()> {
        self.rows.spill(room)
    }

    /// Heap bytes held: the rows in memory.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.rows.heap_bytes()
    }

    /// Room for `rows` rows in all, while in memory.
    pub(crate) fn reserve_rows(&mut self, rows: usize) {
        self.rows.reserve(rows.saturating_mul(self.width));
    }

    /// The signatures, every row readable.
    pub(crate) fn finish(self) -> Result<Signatures> {
        let rows = if self.width == 0 {
            Rows::fixed(0, 0, Vec::new()).expect("no rows")
        } else {
            self.rows.finish()?
        };
        Ok(Signatures {
            width: self.width,
            rows,
        })
    }
}

/// Fills `data` (rows of `width`) with functions `from..from + width` of sets
/// `first..`, one row per set; `total` is the number of rows progress counts to.
#[allow(clippy::too_many_arguments)]
fn fill_rows(
    sketcher: &Sketcher,
    sets: &ShingleSets,
    from: usize,
    width: usize,
    first: usize,
    data: &mut [u32],
    total: usize,
    progress: &dyn Progress,
) -> Result<()> {
    if width == 0 {
        return Ok(());
    }
    let done = std::sync::atomic::AtomicU64::new(first as u64);
    let batch = task_rows(sets);
    data.par_chunks_mut(width * batch)
        .enumerate()
        .try_for_each_init(RowsBuffer::default, |buffer, (chunk, rows)| {
            check(progress)?;
            let start = first + chunk * batch;
            let n = rows.len() / width;
            // One read for the task's sets when they are not in memory, into a buffer
            // its thread keeps from task to task.
            let range = sets.sets_in(start..start + n, buffer)?;
            for (i, row) in rows.chunks_exact_mut(width).enumerate() {
                sketcher.sketch_range(range.get(i), from, row);
            }
            let d = done.fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
            progress.update(Stage::Sketch, d + n as u64, total as u64);
            Ok(())
        })
}

/// Rows a parallel task sketches: [`FILL_BATCH`], or fewer when their sets are read back
/// (from a file, or made again) and would take more than [`TASK_BYTES`] on average.
fn task_rows(sets: &ShingleSets) -> usize {
    if sets.kept() == Kept::Memory || sets.is_empty() {
        return FILL_BATCH;
    }
    let per_set = (sets.total() as u64 * 8 / sets.len() as u64).max(8);
    ((TASK_BYTES / per_set) as usize).clamp(64, FILL_BATCH)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;
    use crate::storage::Spilled;
    use std::sync::Arc;

    fn sets() -> ShingleSets {
        let mut sets = ShingleSets::new();
        sets.push(&[5, 17, 99, 12345]);
        sets.push(&[1, 2]);
        sets.push(&[]);
        sets
    }

    #[test]
    fn wider_minhash_signatures_extend_narrower_ones() {
        let small = Sketcher::new(SketchKind::MinHash, 9, 16);
        let big = Sketcher::new(SketchKind::MinHash, 9, 48);
        let sets = sets();
        let sigs = Signatures::compute(&small, &sets, &Silent).unwrap();
        let wider = sigs.extended(&big, &sets, &Silent).unwrap();
        let fresh = Signatures::compute(&big, &sets, &Silent).unwrap();
        assert_eq!(wider.width(), 48);
        assert_eq!(wider.data().unwrap(), fresh.data().unwrap());
        assert_eq!(
            wider.truncated(16).unwrap().data().unwrap(),
            sigs.data().unwrap()
        );
    }

    /// A room of no bytes: every row goes to a file.
    fn no_room(spilled: &Arc<Spilled>) -> Room<'_> {
        Room {
            bytes: 0,
            dir: None,
            spilled,
        }
    }

    #[test]
    fn signatures_on_a_file_read_as_in_memory_and_fail_with_an_error() {
        let sketcher = Sketcher::new(SketchKind::Oph, 3, 32);
        let sets = sets();
        let memory = Signatures::compute(&sketcher, &sets, &Silent).unwrap();
        let spilled = Arc::new(Spilled::default());
        let room = no_room(&spilled);
        let file = Signatures::compute_in(&sketcher, &sets, &room, 0, &Silent).unwrap();
        assert_eq!(file.kept(), Kept::File);
        assert_eq!(file.data().unwrap(), memory.data().unwrap());
        for g in 0..3 {
            assert_eq!(file.row(g).unwrap(), memory.row(g).unwrap());
        }
        spilled.break_files();
        assert!(file.row(1).is_err());
    }

    #[test]
    fn sets_read_back_are_sketched_a_few_at_a_task_as_the_same_rows() {
        let mut writer = crate::shingle::sets::SetsWriter::kept();
        for d in 0..300u64 {
            let set: Vec<u64> = (0..1000).map(|i| d * 7 + i * 13).collect();
            writer.push_kept(&set).unwrap();
        }
        let spilled = Arc::new(Spilled::default());
        writer.spill(&no_room(&spilled)).unwrap();
        let on_file = writer.finish().unwrap();
        assert_eq!(on_file.kept(), Kept::File);
        // 8,000 bytes a set: 262 sets a task, not 4,096 (all 300 at once).
        assert_eq!(task_rows(&on_file), 262);
        assert_eq!(task_rows(&sets()), FILL_BATCH);
        let sketcher = Sketcher::new(SketchKind::MinHash, 5, 16);
        let read_back = Signatures::compute(&sketcher, &on_file, &Silent).unwrap();
        let mut in_memory = ShingleSets::new();
        for g in 0..on_file.len() {
            in_memory.push(&on_file.get(g).unwrap());
        }
        let held = Signatures::compute(&sketcher, &in_memory, &Silent).unwrap();
        assert_eq!(read_back.data().unwrap(), held.data().unwrap());
    }

    #[test]
    fn wider_signatures_past_their_room_go_to_a_file_with_the_same_values() {
        let (small, big) = (
            Sketcher::new(SketchKind::MinHash, 9, 16),
            Sketcher::new(SketchKind::MinHash, 9, 48),
        );
        let sets = sets();
        let sigs = Signatures::compute(&small, &sets, &Silent).unwrap();
        let spilled = Arc::new(Spilled::default());
        let room = no_room(&spilled);
        let wider = sigs.extended_in(&big, &sets, (&room, 0), &Silent).unwrap();
        assert_eq!(wider.kept(), Kept::File);
        let fresh = Signatures::compute(&big, &sets, &Silent).unwrap();
        assert_eq!(wider.data().unwrap(), fresh.data().unwrap());
        assert_eq!(spilled.total(), 3 * 48 * 4);
    }

    #[test]
    fn known_estimates() {
        assert_eq!(estimate(&[1, 2, 3, 4], &[1, 2, 0, 0]), 0.5);
        assert_eq!(estimate(&[], &[]), 0.0);
    }
}
