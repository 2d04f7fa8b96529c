//! Rows of values (a shingle set, a signature) kept where the budget allows, and handed
//! out the same way wherever they are.
//!
//! [`Rows`] is in memory, in a temporary file, or nowhere at all: made again from where
//! it came from when asked for ([`Remake`]: shingle sets made again from the corpus's
//! texts). Whoever reads them asks for consecutive rows ([`Rows::rows`]), one row
//! ([`Rows::row`]) or some rows at once ([`Rows::pick`]) and gets them borrowed when they
//! are in memory, read back or made again otherwise; every read is a [`Result`], so a
//! failing disk or a text changed since it was read stops the work with an error. No
//! stage above asks where the rows are: what a read costs is what [`Rows::load_bytes`]
//! says (nothing in memory), and [`Rows::batch_bytes`] says how much to bring in at once.
//!
//! Rows are written once, front to back, by a [`RowsWriter`], which can move what it has
//! to a temporary file at any point ([`RowsWriter::spill`]) and go on there.
//!
//! A cache of rows made again (the sets of many identical copies asked for again and
//! again) belongs in the reads of rows made again (`Place::Remade`), within a [`Room`] of the budget.

use super::budget::Room;
use super::file::{SpillFile, Value};
use crate::error::Result;
use std::borrow::Cow;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

/// Rows made again from where they came from, when they are not kept.
pub trait Remake<T>: Send + Sync + fmt::Debug {
    /// Row `i`.
    fn row(&self, i: usize) -> Result<Arc<[T]>>;
    /// Rows `rows` (ascending, distinct) into `out`, row `rows[j]` at
    /// `out[starts[j]..starts[j + 1]]`: an error when one cannot be made as it was.
    fn rows(&self, rows: &[u32], starts: &[usize], out: &mut [T]) -> Result<()>;
    /// Heap bytes held to make them again.
    fn heap_bytes(&self) -> usize;
}

/// Where the rows are: what [`Rows::kept`] tells, to say it to people (never to choose
/// a way of working: every read works wherever they are).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kept {
    /// In memory.
    Memory,
    /// On a temporary file, read back when asked for.
    File,
    /// Nowhere: made again from where they came from when asked for.
    Remade,
}

/// How rows are laid out among the values.
#[derive(Clone, Debug)]
enum Shape {
    /// Every row `width` values (none when 0, however many rows).
    Fixed { width: usize, rows: usize },
    /// Row `i` is values `offsets[i]..offsets[i + 1]`.
    Varying(Vec<usize>),
}

impl Shape {
    fn rows(&self) -> usize {
        match self {
            Shape::Fixed { rows, .. } => *rows,
            Shape::Varying(offsets) => offsets.len() - 1,
        }
    }

    /// Where row `i` starts among the values (`i` may be the number of rows: the end).
    fn start(&self, i: usize) -> usize {
        match self {
            Shape::Fixed { width, .. } => i * width,
            Shape::Varying(offsets) => offsets[i],
        }
    }

    fn len(&self, i: usize) -> usize {
        match self {
            Shape::Fixed { width, .. } => *width,
            Shape::Varying(offsets) => offsets[i + 1] - offsets[i],
        }
    }

    fn heap_bytes(&self) -> usize {
        match self {
            Shape::Fixed { .. } => 0,
            Shape::Varying(offsets) => offsets.capacity() * 8,
        }
    }

    /// The shape of rows `range`, as a [`Slab`] holds it.
    fn part(&self, range: Range<usize>) -> SlabShape<'_> {
        match self {
            Shape::Fixed { width, .. } => SlabShape::Fixed(*width, range.len()),
            Shape::Varying(offsets) => SlabShape::Offsets(&offsets[range.start..=range.end]),
        }
    }
}

/// Where the values are.
enum Place<T> {
    Memory(Vec<T>),
    File(Arc<SpillFile>),
    Remade(Arc<dyn Remake<T>>),
}

impl<T: Clone> Clone for Place<T> {
    fn clone(&self) -> Self {
        match self {
            Place::Memory(v) => Place::Memory(v.clone()),
            Place::File(f) => Place::File(f.clone()),
            Place::Remade(r) => Place::Remade(r.clone()),
        }
    }
}

impl<T> fmt::Debug for Place<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Memory(v) => write!(f, "Memory({} values)", v.len()),
            Place::File(file) => write!(f, "File({file:?})"),
            Place::Remade(r) => write!(f, "Remade({r:?})"),
        }
    }
}

/// Rows of values, in memory, on a temporary file or made again when asked for; see the
/// module's documentation. Cloning copies rows in memory and shares the others.
#[derive(Clone, Debug)]
pub struct Rows<T: Value> {
    shape: Shape,
    place: Place<T>,
}

/// Spans of a file this close are read as one (the gap read and dropped): fewer, larger
/// reads.
const GAP: u64 = 16 << 10;
/// Bytes of rows a batch may bring in at least, however small the budget: a few dozen
/// sets, so that a batch is not one pair.
const MIN_BATCH: u64 = 64 << 10;
/// Bytes of rows made again a batch brings in at most, however large the budget: enough
/// for the sets of tens of thousands of documents, so that a run in memory stays far
/// below what keeping every set would take.
const MAX_REMADE: u64 = 256 << 20;

impl<T: Value> Rows<T> {
    /// Rows of `width` values each, in memory: `None` unless `data` is whole rows (none
    /// when `width` is 0, which makes `rows` empty rows).
    pub fn fixed(width: usize, rows: usize, data: Vec<T>) -> Option<Self> {
        (data.len() == width * rows).then_some(Rows {
            shape: Shape::Fixed { width, rows },
            place: Place::Memory(data),
        })
    }

    /// Rows of any length, in memory, row `i` being `data[offsets[i]..offsets[i + 1]]`:
    /// `None` unless the offsets start at 0, never decrease and end at `data.len()`.
    pub fn varying(offsets: Vec<usize>, data: Vec<T>) -> Option<Self> {
        let valid = offsets.first() == Some(&0)
            && offsets.last() == Some(&data.len())
            && offsets.windows(2).all(|w| w[0] <= w[1]);
        valid.then_some(Rows {
            shape: Shape::Varying(offsets),
            place: Place::Memory(data),
        })
    }

    /// Rows of `width` values each, read from `file` when asked for (a saved index's
    /// signatures, read in place).
    pub(crate) fn fixed_in(width: usize, rows: usize, file: SpillFile) -> Self {
        Rows {
            shape: Shape::Fixed { width, rows },
            place: Place::File(Arc::new(file)),
        }
    }

    /// Rows of any length, read from `file` when asked for (a saved index's shingle
    /// sets, read in place), as [`Rows::varying`] lays them out: `None` unless the
    /// offsets start at 0 and never decrease.
    pub(crate) fn varying_in(offsets: Vec<usize>, file: SpillFile) -> Option<Self> {
        let valid = offsets.first() == Some(&0) && offsets.windows(2).all(|w| w[0] <= w[1]);
        valid.then(|| Rows {
            shape: Shape::Varying(offsets),
            place: Place::File(Arc::new(file)),
        })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.shape.rows()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of values of row `i`. Panics if `i` is out of range.
    pub fn row_len(&self, i: usize) -> usize {
        assert!(i < self.len(), "row {i} of {}", self.len());
        self.shape.len(i)
    }

    /// Number of values over all rows.
    pub fn total(&self) -> usize {
        self.shape.start(self.len())
    }

    /// Where the rows are, to say it (see [`Kept`]).
    pub fn kept(&self) -> Kept {
        match self.place {
            Place::Memory(_) => Kept::Memory,
            Place::File(_) => Kept::File,
            Place::Remade(_) => Kept::Remade,
        }
    }

    /// Row `i`: borrowed when in memory, read back or made again otherwise. Panics if `i`
    /// is out of range.
    pub fn row(&self, i: usize) -> Result<Cow<'_, [T]>> {
        match &self.place {
            Place::Remade(remake) => remake.row(i).map(|row| Cow::Owned(row.to_vec())),
            _ => Ok(self.rows(i..i + 1)?.data),
        }
    }

    /// Rows `range`, one after the other: borrowed when in memory, read in one piece or
    /// made again otherwise. Panics if the range is out of bounds.
    pub fn rows(&self, range: Range<usize>) -> Result<Slab<'_, T>> {
        let mut buffer = RowsBuffer::default();
        let data = match self.read_into(range.clone(), &mut buffer)? {
            Some(data) => Cow::Borrowed(data),
            None => Cow::Owned(buffer.values),
        };
        // After the read, which checks the range first.
        let shape = self.shape.part(range);
        Ok(Slab { shape, data })
    }

    /// [`Rows::rows`] read into `buffer` when not in memory: a caller that reads block
    /// after block keeps one buffer for them all (a search at a small `--memory` read its
    /// signatures back a block of 1.7 MB at a time, two new buffers a block: 3,000 a
    /// re-band at 500,000 documents, the allocator's free memory left in pieces).
    pub fn rows_in<'a>(
        &'a self,
        range: Range<usize>,
        buffer: &'a mut RowsBuffer<T>,
    ) -> Result<Slab<'a, T>> {
        let data = match self.read_into(range.clone(), buffer)? {
            Some(data) => data,
            None => &buffer.values,
        };
        let shape = self.shape.part(range);
        Ok(Slab {
            shape,
            data: Cow::Borrowed(data),
        })
    }

    /// The values of rows `range`: borrowed when in memory, else read or made again into
    /// `buffer.values` (None).
    fn read_into(&self, range: Range<usize>, buffer: &mut RowsBuffer<T>) -> Result<Option<&[T]>> {
        assert!(
            range.start <= range.end && range.end <= self.len(),
            "rows {range:?} of {}",
            self.len()
        );
        let (from, to) = (self.shape.start(range.start), self.shape.start(range.end));
        let out = &mut buffer.values;
        out.clear();
        match &self.place {
            Place::Memory(data) => return Ok(Some(&data[from..to])),
            Place::File(file) => {
                out.reserve_exact(to - from);
                let at = (from * T::BYTES) as u64;
                file.read_values(at, to - from, &mut buffer.bytes, out)?;
            }
            Place::Remade(remake) => {
                let rows: Vec<u32> = (range.start as u32..range.end as u32).collect();
                let mut starts: Vec<usize> =
                    range.clone().map(|i| self.shape.start(i) - from).collect();
                starts.push(to - from);
                out.resize(to - from, T::default());
                remake.rows(&rows, &starts, out)?;
            }
        }
        Ok(None)
    }

    /// Rows `rows` (ascending, distinct) at hand at once: every row borrowed when in
    /// memory; those asked for read back (in file order, close ones in one read) or made
    /// again otherwise.
    pub fn pick(&self, rows: Vec<u32>) -> Result<Picked<'_, T>> {
        debug_assert!(rows.windows(2).all(|w| w[0] < w[1]), "ascending rows");
        let (starts, data) = match &self.place {
            Place::Memory(data) => {
                return Ok(Picked {
                    of: self,
                    rows: Picking::All(data),
                });
            }
            Place::File(file) => self.read_rows(file, &rows)?,
            Place::Remade(remake) => {
                let mut starts = Vec::with_capacity(rows.len() + 1);
                starts.push(0);
                for &r in &rows {
                    starts.push(starts[starts.len() - 1] + self.shape.len(r as usize));
                }
                let mut data = vec![T::default(); starts[rows.len()]];
                remake.rows(&rows, &starts, &mut data)?;
                (starts, data)
            }
        };
        Ok(Picked {
            of: self,
            rows: Picking::Some { rows, starts, data },
        })
    }

    /// Reads `rows` (ascending) from `file`: runs of rows close enough in one read.
    fn read_rows(&self, file: &SpillFile, rows: &[u32]) -> Result<(Vec<usize>, Vec<T>)> {
        let span = |r: u32| (self.shape.start(r as usize), self.shape.len(r as usize));
        let mut starts = Vec::with_capacity(rows.len() + 1);
        let (mut data, mut bytes, mut run) = (Vec::new(), Vec::new(), Vec::new());
        let mut i = 0;
        while i < rows.len() {
            let (first, len) = span(rows[i]);
            let (mut j, mut end) = (i + 1, first + len);
            while j < rows.len() {
                let (f, l) = span(rows[j]);
                if (f.saturating_sub(end) * T::BYTES) as u64 > GAP {
                    break;
                }
                end = end.max(f + l);
                j += 1;
            }
            run.clear();
            file.read_values((first * T::BYTES) as u64, end - first, &mut bytes, &mut run)?;
            for &r in &rows[i..j] {
                let (f, l) = span(r);
                starts.push(data.len());
                data.extend_from_slice(&run[f - first..f - first + l]);
            }
            i = j;
        }
        starts.push(data.len());
        Ok((starts, data))
    }

    /// Bytes of memory bringing row `i` in takes: nothing when the rows are in memory.
    pub fn load_bytes(&self, i: usize) -> u64 {
        match self.place {
            Place::Memory(_) => 0,
            _ => (self.shape.len(i) * T::BYTES) as u64,
        }
    }

    /// Bytes of rows one batch should bring in, given `budget` bytes for it: at least a
    /// few dozen rows, and rows made again at most `MAX_REMADE` (making them is the
    /// cost; a smaller batch costs no more time and far less memory).
    pub fn batch_bytes(&self, budget: u64) -> u64 {
        match self.place {
            Place::Remade(_) => budget.min(MAX_REMADE),
            _ => budget,
        }
        .max(MIN_BATCH)
    }

    /// Heap memory held, in bytes: the values in memory (allocated, not only used), the
    /// shape, what making rows again takes; nothing for what is on a file.
    pub fn heap_bytes(&self) -> usize {
        self.shape.heap_bytes()
            + match &self.place {
                Place::Memory(data) => data.capacity() * T::BYTES,
                Place::File(_) => 0,
                Place::Remade(remake) => remake.heap_bytes(),
            }
    }

    /// Appends a row to rows made in memory ([`Rows::fixed`], [`Rows::varying`]).
    ///
    /// # Panics
    /// If the rows are not in memory (only a [`RowsWriter`] makes others, and nothing
    /// appends to them), or the row is not as wide as fixed rows are.
    pub fn push(&mut self, row: &[T]) {
        let Place::Memory(data) = &mut self.place else {
            panic!("rows are appended to in memory only");
        };
        data.extend_from_slice(row);
        match &mut self.shape {
            Shape::Fixed { width, rows } => {
                assert_eq!(row.len(), *width, "a row of the rows' width");
                *rows += 1;
            }
            Shape::Varying(offsets) => offsets.push(data.len()),
        }
    }
}

impl<T: Value> Default for Rows<T> {
    fn default() -> Self {
        Rows::fixed(0, 0, Vec::new()).expect("no rows")
    }
}

/// The shape of a [`Slab`]'s rows.
#[derive(Debug)]
enum SlabShape<'a> {
    /// `rows` rows of `width` values.
    Fixed(usize, usize),
    /// The offsets of the rows and the one after, as in the whole.
    Offsets(&'a [usize]),
}

/// Where [`Rows::rows_in`] reads rows that are not in memory: kept by a caller from one
/// block to the next.
#[derive(Debug)]
pub struct RowsBuffer<T> {
    bytes: Vec<u8>,
    values: Vec<T>,
}

impl<T> Default for RowsBuffer<T> {
    fn default() -> Self {
        RowsBuffer {
            bytes: Vec::new(),
            values: Vec::new(),
        }
    }
}

/// Consecutive rows at hand ([`Rows::rows`]).
#[derive(Debug)]
pub struct Slab<'a, T: Clone> {
    shape: SlabShape<'a>,
    data: Cow<'a, [T]>,
}

impl<T: Clone> Slab<'_, T> {
    /// The `i`th row of the slab.
    pub fn get(&self, i: usize) -> &[T] {
        &self.data[self.start(i)..self.start(i + 1)]
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        match self.shape {
            SlabShape::Fixed(_, rows) => rows,
            SlabShape::Offsets(offsets) => offsets.len() - 1,
        }
    }

    /// Whether the slab has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where the `i`th row begins among the slab's values.
    pub fn start(&self, i: usize) -> usize {
        match self.shape {
            SlabShape::Fixed(width, _) => i * width,
            SlabShape::Offsets(offsets) => offsets[i] - offsets[0],
        }
    }

    /// Number of values of the slab's rows.
    pub fn total(&self) -> usize {
        self.data.len()
    }

    /// Every value of the slab, row after row.
    pub fn values(&self) -> &[T] {
        &self.data
    }
}

impl<'a, T: Clone> Slab<'a, T> {
    /// Every value of the slab, borrowed from rows in memory, owned otherwise.
    pub fn into_values(self) -> Cow<'a, [T]> {
        self.data
    }
}

/// Some rows at hand ([`Rows::pick`]).
pub struct Picked<'a, T: Value> {
    of: &'a Rows<T>,
    rows: Picking<'a, T>,
}

enum Picking<'a, T: Value> {
    /// Every row, in memory.
    All(&'a [T]),
    /// The rows asked for, ascending, and where each one's values start in `data`.
    Some {
        rows: Vec<u32>,
        starts: Vec<usize>,
        data: Vec<T>,
    },
}

impl<T: Value> Picked<'_, T> {
    /// Row `r` if it was picked (or has no values, or every row is at hand).
    pub fn try_get(&self, r: u32) -> Option<&[T]> {
        match &self.rows {
            Picking::Some { rows, .. } if rows.binary_search(&r).is_err() => {
                (self.of.shape.len(r as usize) == 0).then_some(&[][..])
            }
            _ => Some(self.get(r)),
        }
    }

    /// Row `r`, which must be one of those picked, or have no values.
    pub fn get(&self, r: u32) -> &[T] {
        match &self.rows {
            Picking::All(data) => {
                let from = self.of.shape.start(r as usize);
                &data[from..from + self.of.shape.len(r as usize)]
            }
            Picking::Some { rows, starts, data } => match rows.binary_search(&r) {
                Ok(i) => &data[starts[i]..starts[i + 1]],
                Err(_) if self.of.shape.len(r as usize) == 0 => &[],
                Err(_) => panic!("row {r} was not picked"),
            },
        }
    }
}

/// Rows written one after another, in memory until told to go on in a temporary file
/// ([`RowsWriter::spill`]); or only their lengths, for rows made again.
pub struct RowsWriter<T: Value> {
    shape: Shape,
    data: Vec<T>,
    file: Option<SpillFile>,
    /// What the rows are ("shingle sets"), for the counters and messages.
    what: &'static str,
}

impl<T: Value> RowsWriter<T> {
    /// No rows yet, each `width` values.
    pub fn fixed(width: usize, what: &'static str) -> Self {
        RowsWriter {
            shape: Shape::Fixed { width, rows: 0 },
            data: Vec::new(),
            file: None,
            what,
        }
    }

    /// No rows yet, of any length.
    pub fn varying(what: &'static str) -> Self {
        RowsWriter {
            shape: Shape::Varying(vec![0]),
            data: Vec::new(),
            file: None,
            what,
        }
    }

    /// Appends the next row.
    pub fn push(&mut self, row: &[T]) -> Result<()> {
        match &mut self.file {
            Some(file) => file.append_values(row)?,
            None => self.data.extend_from_slice(row),
        }
        self.grow(row.len());
        Ok(())
    }

    /// Appends whole rows of fixed width, one after the other in `data`.
    pub fn push_rows(&mut self, data: &[T]) -> Result<()> {
        let Shape::Fixed { width, rows } = &mut self.shape else {
            panic!("whole rows of a fixed width");
        };
        if *width > 0 {
            debug_assert!(data.len().is_multiple_of(*width), "whole rows");
            *rows += data.len() / *width;
        }
        match &mut self.file {
            Some(file) => file.append_values(data),
            None => {
                self.data.extend_from_slice(data);
                Ok(())
            }
        }
    }

    /// Appends the next row by its length alone, for rows made again when asked for.
    pub fn push_len(&mut self, len: usize) {
        self.grow(len);
    }

    fn grow(&mut self, len: usize) {
        match &mut self.shape {
            Shape::Fixed { width, rows } => {
                debug_assert_eq!(len, *width, "a row of the rows' width");
                *rows += 1;
            }
            Shape::Varying(offsets) => offsets.push(offsets[offsets.len() - 1] + len),
        }
    }

    /// Number of rows so far.
    pub fn len(&self) -> usize {
        self.shape.rows()
    }

    /// Whether no row was written yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of values so far.
    pub fn total(&self) -> usize {
        self.shape.start(self.len())
    }

    /// Room for `values` values in all, when in memory (so the rows are not copied again
    /// and again as they grow).
    pub fn reserve(&mut self, values: usize) {
        if self.file.is_none() {
            self.data.reserve(values.saturating_sub(self.data.len()));
        }
    }

    /// Moves the rows so far to a temporary file in `room`, and appends there from now
    /// on; nothing when they are there already, or have no values to hold.
    pub fn spill(&mut self, room: &Room) -> Result<()> {
        if self.file.is_some() || matches!(self.shape, Shape::Fixed { width: 0, .. }) {
            return Ok(());
        }
        let mut file = SpillFile::create(room.dir, self.what, room.spilled)?;
        file.append_values(&self.data)?;
        self.data = Vec::new();
        self.file = Some(file);
        Ok(())
    }

    /// Heap bytes held: the values in memory and the shape.
    pub fn heap_bytes(&self) -> usize {
        self.data.capacity() * T::BYTES + self.shape.heap_bytes()
    }

    /// The rows written, every one readable (what is buffered for the file is written
    /// out).
    pub fn finish(self) -> Result<Rows<T>> {
        let RowsWriter {
            mut shape,
            mut data,
            file,
            ..
        } = self;
        if let Shape::Varying(offsets) = &mut shape {
            offsets.shrink_to_fit();
        }
        let place = match file {
            Some(mut file) => {
                file.flush()?;
                Place::File(Arc::new(file))
            }
            None => {
                data.shrink_to_fit();
                Place::Memory(data)
            }
        };
        Ok(Rows { shape, place })
    }

    /// The rows, made again by `remake` when asked for (only their lengths were
    /// written).
    pub fn finish_remade(self, remake: Arc<dyn Remake<T>>) -> Rows<T> {
        let mut shape = self.shape;
        if let Shape::Varying(offsets) = &mut shape {
            offsets.shrink_to_fit();
        }
        Rows {
            shape,
            place: Place::Remade(remake),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::budget::Spilled;

    fn sets() -> Vec<Vec<u64>> {
        (0..300u64)
            .map(|i| (0..i % 17).map(|x| x * 1000 + i).collect())
            .collect()
    }

    fn write(spill_at: Option<usize>, spilled: &Arc<Spilled>) -> Rows<u64> {
        let room = Room {
            bytes: 0,
            dir: None,
            spilled,
        };
        let mut w = RowsWriter::varying("shingle sets");
        for (i, s) in sets().iter().enumerate() {
            if Some(i) == spill_at {
                w.spill(&room).unwrap();
            }
            w.push(s).unwrap();
        }
        w.finish().unwrap()
    }

    #[test]
    fn rows_read_the_same_in_memory_and_from_a_file() {
        let spilled = Arc::new(Spilled::default());
        let want = sets();
        for at in [None, Some(0), Some(150)] {
            let rows = write(at, &spilled);
            assert_eq!(rows.kept() == Kept::File, at.is_some());
            assert_eq!(rows.len(), want.len());
            for (i, s) in want.iter().enumerate() {
                assert_eq!(&*rows.row(i).unwrap(), &s[..]);
                assert_eq!(rows.row_len(i), s.len());
            }
            let slab = rows.rows(10..60).unwrap();
            for i in 0..50 {
                assert_eq!(slab.get(i), &want[10 + i][..]);
            }
            let picked = rows.pick(vec![3, 4, 90, 299]).unwrap();
            for r in [3, 4, 90, 299] {
                assert_eq!(picked.get(r), &want[r as usize][..]);
            }
        }
        assert!(spilled.total() > 0);
    }

    #[test]
    fn a_failing_file_is_an_error_not_a_panic() {
        let spilled = Arc::new(Spilled::default());
        let rows = write(Some(0), &spilled);
        spilled.break_files();
        assert!(rows.row(5).is_err());
        assert!(rows.rows(0..10).is_err());
        assert!(rows.pick(vec![1, 2]).is_err());
    }
}
