//! Sorting more records than memory holds: records gather in a buffer of a set size;
//! a full buffer is sorted and written to a temporary file as a *run*; at the end the
//! runs and what is left in the buffer are merged, each run read back in order through a
//! small buffer. Memory stays at the buffer's size plus a block per run, whatever the
//! number of records.
//!
//! The temporary files are anonymous (unlinked as soon as they are made, where the system
//! allows it): nothing is left behind when the process ends, however it ends.

use super::budget::{Room, Spilled};
use super::file::read_exact_at;
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A record that sorts in runs: ordered, and written as a fixed number of bytes.
pub trait Record: Copy + Ord + Send + Sync {
    /// Bytes of one record on disk.
    const BYTES: usize;
    /// Appends the record's bytes to `out`.
    fn put(&self, out: &mut Vec<u8>);
    /// The record of `BYTES` bytes.
    fn get(b: &[u8]) -> Self;
}

/// A record that sorts by its key and is written as 24 bytes: a 128-bit key and a
/// 64-bit value that rides along. Held as three words (24 bytes in memory too, where a
/// `u128` would align it to 32), in the order they compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Keyed {
    high: u64,
    low: u64,
    value: u64,
}

impl Keyed {
    /// The record of `key`, with `value` riding along.
    pub fn new(key: u128, value: u64) -> Keyed {
        Keyed {
            high: (key >> 64) as u64,
            low: key as u64,
            value,
        }
    }

    /// What records sort by, ascending.
    pub fn key(&self) -> u128 {
        ((self.high as u128) << 64) | self.low as u128
    }

    /// Carried with the key, not compared first.
    pub fn value(&self) -> u64 {
        self.value
    }
}

impl Record for Keyed {
    const BYTES: usize = 24;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.key().to_le_bytes());
        out.extend_from_slice(&self.value.to_le_bytes());
    }
    fn get(b: &[u8]) -> Keyed {
        let key = u128::from_le_bytes(b[..16].try_into().expect("16 bytes"));
        let value = u64::from_le_bytes(b[16..24].try_into().expect("8 bytes"));
        Keyed::new(key, value)
    }
}

/// A packed word (a band key above an item, a pair of contents).
impl Record for u64 {
    const BYTES: usize = 8;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(b: &[u8]) -> u64 {
        u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))
    }
}

/// A 64-bit key and an item (a band key and a content, when items are too many to pack
/// beside the key in one word).
impl Record for (u64, u32) {
    const BYTES: usize = 12;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
        out.extend_from_slice(&self.1.to_le_bytes());
    }
    fn get(b: &[u8]) -> (u64, u32) {
        let key = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
        let item = u32::from_le_bytes(b[8..12].try_into().expect("4 bytes"));
        (key, item)
    }
}

/// The fewest records a buffer holds, whatever the budget.
const MIN_RECORDS: usize = 16;
/// Records a buffer first makes room for, then twice as many each time it is full.
const MIN_GROWTH: usize = 4096;
/// Bytes read from a run at a time when merging: at most, and at least.
const RUN_BLOCK: usize = 1 << 20;
const MIN_BLOCK: usize = 4096;

/// Records gathered for sorting in bounded memory.
pub struct Spill<R: Record = Keyed> {
    buffer: Vec<R>,
    capacity: usize,
    /// Whether the capacity comes from a budget (not from its absence).
    limited: bool,
    /// The runs written so far, one after the other in one file.
    runs: Runs,
    dir: Option<PathBuf>,
    spilled: u64,
    /// Where the bytes written are counted, and as what.
    counter: Option<(Arc<Spilled>, &'static str)>,
    _records: std::marker::PhantomData<R>,
}

/// Sorted runs, one after another in a temporary file: each its byte range.
#[derive(Default)]
struct Runs {
    file: Option<File>,
    ranges: Vec<(u64, u64)>,
    end: u64,
}

impl<R: Record> Spill<R> {
    /// Sorts in `budget` bytes of memory; runs go to `dir` (the system's temporary folder
    /// when None).
    pub fn new(budget: usize, dir: Option<PathBuf>) -> Spill<R> {
        Spill {
            buffer: Vec::new(),
            capacity: (budget / R::BYTES.max(std::mem::size_of::<R>())).max(MIN_RECORDS),
            limited: budget != usize::MAX,
            runs: Runs::default(),
            dir,
            spilled: 0,
            counter: None,
            _records: std::marker::PhantomData,
        }
    }

    /// Sorts in `room`'s memory (without a limit: all in memory), its runs written where
    /// the room says and counted there as `what`.
    pub fn in_room(room: &Room, what: &'static str) -> Spill<R> {
        let mut spill = Spill::new(room.usize(), room.dir.map(Path::to_path_buf));
        spill.counter = Some((room.spilled.clone(), what));
        spill
    }

    /// Adds a record; a full buffer is sorted and written out as a run.
    pub fn push(&mut self, r: R) -> Result<()> {
        if self.buffer.len() == self.capacity {
            self.spill()?;
        }
        if self.buffer.len() == self.buffer.capacity() {
            // A buffer of a limited size takes it all at once: address space, which costs
            // nothing until written, and no copy as it fills. Without a limit it grows
            // as records come (or by what `reserve` was told).
            let want = if self.limited {
                self.capacity
            } else {
                (self.buffer.len() * 2).max(MIN_GROWTH).min(self.capacity)
            };
            crate::storage::memory::reserve(&mut self.buffer, want, "the sort buffer")?;
        }
        self.buffer.push(r);
        Ok(())
    }

    /// Room for `n` more records at once (at most the buffer's capacity): what a sort
    /// without a limit that knows what is coming takes, no more.
    pub fn reserve(&mut self, n: usize) -> Result<()> {
        let want = self.buffer.len().saturating_add(n).min(self.capacity);
        if want > self.buffer.capacity() {
            crate::storage::memory::reserve(&mut self.buffer, want, "the sort buffer")?;
        }
        Ok(())
    }

    /// Bytes written to temporary files so far.
    pub fn spilled_bytes(&self) -> u64 {
        self.spilled
    }

    fn dir(&self) -> PathBuf {
        self.dir.clone().unwrap_or_else(std::env::temp_dir)
    }

    fn new_file(&self) -> Result<File> {
        let dir = self.dir();
        let file = tempfile::tempfile_in(&dir).map_err(|e| io_error(&self.dir, e))?;
        if let Some((spilled, what)) = &self.counter {
            spilled.file_made(what, &file, &dir);
        }
        Ok(file)
    }

    /// Counts `n` bytes written.
    fn count(&mut self, n: u64) {
        self.spilled += n;
        if let Some((spilled, what)) = &self.counter {
            spilled.add(what, n);
        }
    }

    /// The failure a temporary file meets (see [`Spilled::fault`]).
    fn fault(&self) -> Result<()> {
        match &self.counter {
            Some((spilled, _)) => spilled.fault().map_err(|e| io_error(&self.dir, e)),
            None => Ok(()),
        }
    }

    fn spill(&mut self) -> Result<()> {
        self.fault()?;
        self.buffer.par_sort_unstable();
        if self.runs.file.is_none() {
            self.runs.file = Some(self.new_file()?);
        }
        let file = self.runs.file.as_ref().expect("made above");
        let mut out = BufWriter::with_capacity(RUN_BLOCK, file);
        let mut bytes = Vec::with_capacity(R::BYTES);
        for r in &self.buffer {
            bytes.clear();
            r.put(&mut bytes);
            out.write_all(&bytes).map_err(|e| io_error(&self.dir, e))?;
        }
        out.flush().map_err(|e| io_error(&self.dir, e))?;
        drop(out);
        let n = (self.buffer.len() * R::BYTES) as u64;
        self.runs.ranges.push((self.runs.end, self.runs.end + n));
        self.runs.end += n;
        self.count(n);
        self.buffer.clear();
        Ok(())
    }

    /// Every record pushed, in order. Runs too many to merge at once with a block each
    /// in the budget are first merged in groups into longer runs, in a new file.
    pub fn sorted(mut self) -> Result<Sorted<R>> {
        self.buffer.par_sort_unstable();
        self.into_sorted()
    }

    /// Every distinct record pushed, in order, each once: those still in memory made
    /// distinct at once (their buffer shrunk to them, so that what is read next does not
    /// hold the repeats), the others as the runs merge.
    pub fn sorted_distinct(mut self) -> Result<Sorted<R>> {
        self.buffer.par_sort_unstable();
        self.buffer.dedup();
        self.buffer.shrink_to_fit();
        let mut sorted = self.into_sorted()?;
        sorted.distinct = Some(None);
        Ok(sorted)
    }

    /// The records in order, the buffer sorted.
    fn into_sorted(mut self) -> Result<Sorted<R>> {
        let budget = self.capacity * R::BYTES;
        let fan = (budget / MIN_BLOCK).max(2);
        while self.runs.ranges.len() + 1 > fan {
            self.merge_pass(budget, fan)?;
        }
        let block = (budget / (self.runs.ranges.len() + 1)).clamp(MIN_BLOCK, RUN_BLOCK);
        let mut sources: Vec<Source<R>> = Vec::with_capacity(self.runs.ranges.len() + 1);
        if let Some(file) = self.runs.file.take() {
            let file = Arc::new(file);
            for &(from, to) in &self.runs.ranges {
                sources.push(Source::Run(RunReader::new(file.clone(), from, to, block)));
            }
        }
        sources.push(Source::Memory(std::mem::take(&mut self.buffer).into_iter()));
        let mut sorted = Sorted::new(sources, self.dir.clone(), self.spilled)?;
        sorted.fault = self.counter.as_ref().map(|(spilled, _)| spilled.clone());
        Ok(sorted)
    }

    /// Merges the runs in groups of `fan`, each into one run of a new file.
    fn merge_pass(&mut self, budget: usize, fan: usize) -> Result<()> {
        let file = Arc::new(self.runs.file.take().expect("runs to merge"));
        let block = (budget / (fan + 1)).clamp(MIN_BLOCK, RUN_BLOCK);
        let out_file = self.new_file()?;
        let mut ranges = Vec::new();
        let mut end = 0u64;
        for group in std::mem::take(&mut self.runs.ranges).chunks(fan) {
            let sources = group
                .iter()
                .map(|&(from, to)| Source::<R>::Run(RunReader::new(file.clone(), from, to, block)))
                .collect();
            let mut merged = Sorted::new(sources, self.dir.clone(), 0)?;
            let mut out = BufWriter::with_capacity(block, &out_file);
            let mut bytes = Vec::with_capacity(R::BYTES);
            let start = end;
            while let Some(r) = merged.next_record()? {
                bytes.clear();
                r.put(&mut bytes);
                out.write_all(&bytes).map_err(|e| io_error(&self.dir, e))?;
                end += R::BYTES as u64;
            }
            out.flush().map_err(|e| io_error(&self.dir, e))?;
            ranges.push((start, end));
        }
        self.count(end);
        self.runs = Runs {
            file: Some(out_file),
            ranges,
            end,
        };
        Ok(())
    }
}

fn io_error(dir: &Option<PathBuf>, source: std::io::Error) -> Error {
    Error::TempFile {
        dir: dir.clone().unwrap_or_else(std::env::temp_dir),
        source,
    }
}

/// A run read back in order, a block at a time, with positioned reads (the runs share
/// one file).
struct RunReader {
    file: Arc<File>,
    next: u64,
    end: u64,
    block: Vec<u8>,
    at: usize,
    size: usize,
}

impl RunReader {
    fn new(file: Arc<File>, from: u64, to: u64, size: usize) -> RunReader {
        RunReader {
            file,
            next: from,
            end: to,
            block: Vec::new(),
            at: 0,
            size,
        }
    }

    /// The next `n` bytes of the run, None at its end.
    fn take(&mut self, n: usize) -> std::io::Result<Option<&[u8]>> {
        if self.at + n > self.block.len() {
            if self.next >= self.end {
                return Ok(None);
            }
            // Whole records per block: `size` rounded down to a multiple of `n`.
            let want = ((self.size / n).max(1) * n) as u64;
            let len = want.min(self.end - self.next) as usize;
            self.block.resize(len, 0);
            read_exact_at(&self.file, &mut self.block, self.next)?;
            self.next += len as u64;
            self.at = 0;
        }
        let out = &self.block[self.at..self.at + n];
        self.at += n;
        Ok(Some(out))
    }
}

/// Where merged records come from: a run on disk or the last buffer.
enum Source<R> {
    Run(RunReader),
    Memory(std::vec::IntoIter<R>),
}

/// The records of a [`Spill`] in order.
pub struct Sorted<R: Record = Keyed> {
    sources: Vec<Source<R>>,
    heap: BinaryHeap<Reverse<(R, usize)>>,
    dir: Option<PathBuf>,
    spilled: u64,
    /// Where the runs' failures come from in tests (see [`Spilled::fault`]).
    fault: Option<Arc<Spilled>>,
    /// When records are read distinct: the last one read.
    distinct: Option<Option<R>>,
}

impl<R: Record> Sorted<R> {
    fn new(sources: Vec<Source<R>>, dir: Option<PathBuf>, spilled: u64) -> Result<Sorted<R>> {
        let mut sorted = Sorted {
            heap: BinaryHeap::with_capacity(sources.len()),
            sources,
            dir,
            spilled,
            fault: None,
            distinct: None,
        };
        // One source (everything fitted in memory) is read straight, without the heap.
        if sorted.sources.len() > 1 {
            for i in 0..sorted.sources.len() {
                if let Some(r) = sorted.next_of(i)? {
                    sorted.heap.push(Reverse((r, i)));
                }
            }
        }
        Ok(sorted)
    }

    /// Bytes that went through temporary files.
    pub fn spilled_bytes(&self) -> u64 {
        self.spilled
    }

    fn next_of(&mut self, i: usize) -> Result<Option<R>> {
        match &mut self.sources[i] {
            Source::Memory(it) => Ok(it.next()),
            Source::Run(reader) => {
                let fault = self.fault.as_ref().map_or(Ok(()), |s| s.fault());
                match fault.and_then(|()| reader.take(R::BYTES)) {
                    Ok(b) => Ok(b.map(R::get)),
                    Err(e) => Err(io_error(&self.dir, e)),
                }
            }
        }
    }

    /// The next record in order, None at the end.
    pub fn next_record(&mut self) -> Result<Option<R>> {
        loop {
            let r = self.next_merged()?;
            match &mut self.distinct {
                Some(last) if r.is_some() && *last == r => continue,
                Some(last) => *last = r,
                None => {}
            }
            return Ok(r);
        }
    }

    /// The next record of the merge of the sources.
    fn next_merged(&mut self) -> Result<Option<R>> {
        if self.sources.len() == 1 {
            return self.next_of(0);
        }
        let Some(Reverse((r, i))) = self.heap.pop() else {
            return Ok(None);
        };
        if let Some(next) = self.next_of(i)? {
            self.heap.push(Reverse((next, i)));
        }
        Ok(Some(r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(n: u64, seed: u64) -> Vec<Keyed> {
        (0..n)
            .map(|i| Keyed::new(crate::hash::mix64(i ^ seed) as u128 * 3 % 1000, i))
            .collect()
    }

    #[test]
    fn spilled_runs_merge_into_the_same_order_as_one_sort() {
        for (n, budget) in [
            (0, 1),
            (10, 1),
            (5000, 1),
            (5000, 1 << 30),
            (30_000, 24 * 1024),
            // More runs than a budget this small can merge at once: merged in passes.
            (200_000, 8 * 1024),
        ] {
            let input = records(n, 7);
            let mut spill: Spill = Spill::new(budget, None);
            for &r in &input {
                spill.push(r).unwrap();
            }
            let mut sorted = spill.sorted().unwrap();
            let spilled = sorted.spilled_bytes();
            let mut out = Vec::new();
            while let Some(r) = sorted.next_record().unwrap() {
                out.push(r);
            }
            let mut want = input.clone();
            want.sort_unstable();
            assert_eq!(out, want, "{n} records, {budget} bytes");
            // The buffer holds at least MIN_RECORDS; more than it holds spills.
            let capacity = (budget / std::mem::size_of::<Keyed>()).max(MIN_RECORDS);
            assert_eq!(
                spilled > 0,
                n as usize > capacity,
                "{n} records, {budget} bytes"
            );
        }
    }

    #[test]
    fn distinct_records_come_out_once_in_memory_or_from_runs() {
        let input: Vec<u64> = (0..20_000u64)
            .map(|i| crate::hash::mix64(i % 3000) % 5000)
            .collect();
        let mut want = input.clone();
        want.sort_unstable();
        want.dedup();
        for budget in [usize::MAX, 4096] {
            let mut spill: Spill<u64> = Spill::new(budget, None);
            for &r in &input {
                spill.push(r).unwrap();
            }
            let mut sorted = spill.sorted_distinct().unwrap();
            let mut out = Vec::new();
            while let Some(r) = sorted.next_record().unwrap() {
                out.push(r);
            }
            assert_eq!(out, want, "budget {budget}");
        }
    }
}
