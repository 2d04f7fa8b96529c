//! Sorting more records than memory holds: records gather in a buffer of a set size;
//! a full buffer is sorted and written to a temporary file as a *run*; at the end the
//! runs and what is left in the buffer are merged, each run read back in order through a
//! small buffer. Memory stays at the buffer's size plus a block per run, whatever the
//! number of records.
//!
//! The temporary files are anonymous (unlinked as soon as they are made, where the system
//! allows it): nothing is left behind when the process ends, however it ends.

use crate::error::{Error, Result};
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

/// A record that sorts by its key and is written as 24 bytes: a 128-bit key and a
/// 64-bit value that rides along.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Keyed {
    /// What records sort by, ascending.
    pub key: u128,
    /// Carried with the key, not compared first.
    pub value: u64,
}

const RECORD: usize = 24;
/// The fewest records a buffer holds, whatever the budget.
const MIN_RECORDS: usize = 16;
/// Bytes read from a run at a time when merging.
const RUN_BLOCK: usize = 1 << 20;

impl Keyed {
    fn write(&self, out: &mut impl Write) -> std::io::Result<()> {
        out.write_all(&self.key.to_le_bytes())?;
        out.write_all(&self.value.to_le_bytes())
    }

    fn read(b: &[u8; RECORD]) -> Keyed {
        let key = u128::from_le_bytes(b[..16].try_into().expect("16 bytes"));
        let value = u64::from_le_bytes(b[16..].try_into().expect("8 bytes"));
        Keyed { key, value }
    }
}

/// Records gathered for sorting in bounded memory.
pub struct Spill {
    buffer: Vec<Keyed>,
    capacity: usize,
    runs: Vec<File>,
    dir: Option<PathBuf>,
    spilled: u64,
}

impl Spill {
    /// Sorts in `budget` bytes of memory; runs go to `dir` (the system's temporary folder
    /// when None).
    pub fn new(budget: usize, dir: Option<PathBuf>) -> Spill {
        Spill {
            buffer: Vec::new(),
            capacity: (budget / RECORD).max(MIN_RECORDS),
            runs: Vec::new(),
            dir,
            spilled: 0,
        }
    }

    /// Adds a record; a full buffer is sorted and written out as a run.
    pub fn push(&mut self, r: Keyed) -> Result<()> {
        if self.buffer.len() == self.capacity {
            self.spill()?;
        }
        if self.buffer.capacity() == 0 {
            crate::memory::reserve(&mut self.buffer, self.capacity, "the sort buffer")?;
        }
        self.buffer.push(r);
        Ok(())
    }

    /// Bytes written to temporary files so far.
    pub fn spilled_bytes(&self) -> u64 {
        self.spilled
    }

    fn spill(&mut self) -> Result<()> {
        self.buffer.par_sort_unstable();
        let file = match &self.dir {
            Some(d) => tempfile::tempfile_in(d),
            None => tempfile::tempfile(),
        }
        .map_err(|e| self.io_error(e))?;
        let mut out = BufWriter::with_capacity(RUN_BLOCK, file);
        for r in &self.buffer {
            r.write(&mut out).map_err(|e| self.io_error(e))?;
        }
        let mut file = out
            .into_inner()
            .map_err(|e| self.io_error(e.into_error()))?;
        file.seek(SeekFrom::Start(0))
            .map_err(|e| self.io_error(e))?;
        self.spilled += (self.buffer.len() * RECORD) as u64;
        self.runs.push(file);
        self.buffer.clear();
        Ok(())
    }

    fn io_error(&self, source: std::io::Error) -> Error {
        Error::Io {
            path: self.dir.clone().unwrap_or_else(std::env::temp_dir),
            source,
        }
    }

    /// Every record pushed, in key order.
    pub fn sorted(mut self) -> Result<Sorted> {
        self.buffer.par_sort_unstable();
        // The runs' read buffers share the budget the sort had.
        let budget = self.capacity * RECORD;
        let block = (budget / (self.runs.len() + 1)).clamp(4096, RUN_BLOCK);
        let mut sources: Vec<Source> = Vec::with_capacity(self.runs.len() + 1);
        for file in std::mem::take(&mut self.runs) {
            sources.push(Source::Run(BufReader::with_capacity(block, file)));
        }
        let dir = self.dir.clone();
        sources.push(Source::Memory(std::mem::take(&mut self.buffer).into_iter()));
        let mut heap = BinaryHeap::with_capacity(sources.len());
        let mut sorted = Sorted {
            sources,
            heap: BinaryHeap::new(),
            dir,
            spilled: self.spilled,
        };
        for i in 0..sorted.sources.len() {
            if let Some(r) = sorted.next_of(i)? {
                heap.push(Reverse((r, i)));
            }
        }
        sorted.heap = heap;
        Ok(sorted)
    }
}

/// Where merged records come from: a run on disk or the last buffer.
enum Source {
    Run(BufReader<File>),
    Memory(std::vec::IntoIter<Keyed>),
}

/// The records of a [`Spill`] in key order.
pub struct Sorted {
    sources: Vec<Source>,
    heap: BinaryHeap<Reverse<(Keyed, usize)>>,
    dir: Option<PathBuf>,
    spilled: u64,
}

impl Sorted {
    /// Bytes that went through temporary files.
    pub fn spilled_bytes(&self) -> u64 {
        self.spilled
    }

    fn next_of(&mut self, i: usize) -> Result<Option<Keyed>> {
        match &mut self.sources[i] {
            Source::Memory(it) => Ok(it.next()),
            Source::Run(reader) => {
                let mut b = [0u8; RECORD];
                match reader.read_exact(&mut b) {
                    Ok(()) => Ok(Some(Keyed::read(&b))),
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
                    Err(source) => Err(Error::Io {
                        path: self.dir.clone().unwrap_or_else(std::env::temp_dir),
                        source,
                    }),
                }
            }
        }
    }

    /// The next record in key order, None at the end.
    pub fn next_record(&mut self) -> Result<Option<Keyed>> {
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
            .map(|i| Keyed {
                key: crate::hash::mix64(i ^ seed) as u128 * 3 % 1000,
                value: i,
            })
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
        ] {
            let input = records(n, 7);
            let mut spill = Spill::new(budget, None);
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
            let capacity = (budget / RECORD).max(MIN_RECORDS);
            assert_eq!(
                spilled > 0,
                n as usize > capacity,
                "{n} records, {budget} bytes"
            );
        }
    }
}
