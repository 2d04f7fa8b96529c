//! The table of files on a temporary file: a record per file (a path, its stamp, hash,
//! status and number of documents) held while an index is built is about 200 bytes a
//! file with its path, 100 MB at 500,000 files, which no memory limit could otherwise
//! bound. Each file is written as the index file saves it (its 80-byte record, then its
//! path and detail), so one codec serves both, and read back in order, a block at a time.

use super::encode::{Failed, FileList};
use super::file_record::{file_record, put_file_record};
use super::format::{FILE_RECORD, FileRec, path_bytes};
use super::strings::file_strings;
use crate::error::{Error, Result};
use crate::storage::Room;
use crate::storage::file::SpillFile;

/// Bytes read from the file at a time.
const READ_BLOCK: usize = 1 << 20;

/// Records of files written in order, then read back in that order (see the module).
#[derive(Debug)]
pub(super) struct FileRows {
    file: SpillFile,
    count: usize,
    /// Bytes written.
    bytes: u64,
    scratch: Vec<u8>,
}

impl FileRows {
    /// An empty table on a temporary file of `room`.
    pub(super) fn new(room: Room<'_>) -> Result<FileRows> {
        Ok(FileRows {
            file: SpillFile::create(room.dir, "file records", room.spilled)?,
            count: 0,
            bytes: 0,
            scratch: Vec::new(),
        })
    }

    /// Appends file `f` (its path as it is, its strings right after its record).
    pub(super) fn push(&mut self, f: &FileRec) -> Result<()> {
        let path = path_bytes(&f.path);
        let out = &mut self.scratch;
        out.clear();
        put_file_record(out, 0, path.len(), f);
        out.extend_from_slice(&path);
        out.extend_from_slice(f.detail.as_bytes());
        self.file.append(out)?;
        self.bytes += out.len() as u64;
        self.count += 1;
        Ok(())
    }

    /// Everything pushed written out: from now on it is only read.
    pub(super) fn finish(mut self) -> Result<FileRows> {
        self.file.flush()?;
        self.scratch = Vec::new();
        Ok(self)
    }

    /// Calls `f` with the records in order, `chunk` of them at a time (fewer at the
    /// end), until it fails. The table must be [`FileRows::finish`]ed.
    pub(super) fn each_chunk<E: From<Error>>(
        &self,
        chunk: usize,
        f: &mut dyn FnMut(&mut Vec<FileRec>) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let mut reader = Reader {
            rows: self,
            block: Vec::new(),
            at: 0,
            read: 0,
        };
        let mut recs = Vec::with_capacity(chunk.min(self.count));
        for _ in 0..self.count {
            recs.push(reader.next()?);
            if recs.len() == chunk {
                f(&mut recs)?;
                recs.clear();
            }
        }
        if !recs.is_empty() {
            f(&mut recs)?;
        }
        Ok(())
    }

    /// Calls `f` with each record in order, until it fails.
    pub(super) fn each<E: From<Error>>(
        &self,
        f: &mut dyn FnMut(&FileRec) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        self.each_chunk(1024, &mut |recs| recs.iter().try_for_each(&mut *f))
    }
}

impl FileList for FileRows {
    fn count(&self) -> usize {
        self.count
    }
    fn each_rec(&self, f: &mut dyn FnMut(&FileRec) -> Result<(), Failed>) -> Result<(), Failed> {
        self.each(f)
    }
}

/// Reads a table's records in order: `block` holds the file's bytes from `read -
/// block.len()` on, the next record at `at` in it.
struct Reader<'a> {
    rows: &'a FileRows,
    block: Vec<u8>,
    at: usize,
    read: u64,
}

impl Reader<'_> {
    /// The next record (the caller counts them).
    fn next(&mut self) -> Result<FileRec> {
        self.fill(FILE_RECORD as usize)?;
        let (_, strings) = file_strings(&self.block[self.at..]);
        let len = FILE_RECORD as usize + strings as usize;
        self.fill(len)?;
        let r = &self.block[self.at..self.at + len];
        let (r, strings) = r.split_at(FILE_RECORD as usize);
        // Written by this process a moment ago: a record that does not decode is a
        // temporary file that changed under it.
        let rec = file_record(r, strings).map_err(|e| broken(&self.rows.file, e))?;
        self.at += len;
        Ok(rec)
    }

    /// At least `n` bytes from the next record on in the block (one record's strings
    /// may be longer than a block).
    fn fill(&mut self, n: usize) -> Result<()> {
        let have = self.block.len() - self.at;
        if have >= n {
            return Ok(());
        }
        let left = self.rows.bytes - self.read;
        let more = (n - have).max(READ_BLOCK).min(left as usize);
        if more < n - have {
            return Err(broken(&self.rows.file, "it ends inside a record"));
        }
        self.block.drain(..self.at);
        self.at = 0;
        let end = self.block.len();
        self.block.resize(end + more, 0);
        self.rows.file.read_at(self.read, &mut self.block[end..])?;
        self.read += more as u64;
        Ok(())
    }
}

/// A temporary file of file records that no longer reads as it was written.
fn broken(file: &SpillFile, why: impl std::fmt::Display) -> Error {
    let problem = std::io::Error::new(std::io::ErrorKind::InvalidData, why.to_string());
    file.error(problem)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SkipReason;
    use crate::storage::Budget;
    use crate::store::format::Stamp;
    use std::path::Path;

    fn rec(i: u32) -> FileRec {
        let long = "x".repeat(if i % 1000 == 7 {
            3 << 20
        } else {
            i as usize % 40
        });
        FileRec {
            path: Path::new(&format!("d{}/f{i}{long}.txt", i % 13)).into(),
            stamp: (!i.is_multiple_of(5)).then_some(Stamp {
                size: i as u64 * 3,
                secs: 1_700_000_000 + i as i64,
                nanos: i * 7,
                ctime_secs: 1_700_000_001 + i as i64,
                ctime_nanos: i * 11,
                inode: 1 << 40 | i as u64,
            }),
            hash_value: if i.is_multiple_of(3) {
                0
            } else {
                u64::MAX - i as u64
            },
            hashed: !i.is_multiple_of(3),
            status: i
                .is_multiple_of(4)
                .then_some(SkipReason::ALL[i as usize % SkipReason::ALL.len()]),
            detail: format!("detail {i}").into(),
            docs: if i.is_multiple_of(4) { 0 } else { i },
        }
    }

    /// Records of every kind (no stamp, no hash, skipped, paths over a block long) read
    /// back as they were pushed, in order, whatever the chunks.
    #[test]
    fn records_come_back_in_order_as_they_were_pushed() {
        let budget = Budget::new(1 << 20, None);
        let mut rows = FileRows::new(budget.room(0)).unwrap();
        let recs: Vec<FileRec> = (0..3_000).map(rec).collect();
        for r in &recs {
            rows.push(r).unwrap();
        }
        let rows = rows.finish().unwrap();
        assert_eq!(rows.count(), recs.len());
        for chunk in [1, 7, 4096] {
            let mut back = Vec::new();
            rows.each_chunk::<Error>(chunk, &mut |c| {
                assert!(c.len() <= chunk);
                back.append(c);
                Ok(())
            })
            .unwrap();
            assert_eq!(back, recs, "in chunks of {chunk}");
        }
        assert!(
            budget.spilled.total() > 3 << 20,
            "the table went to a temporary file"
        );
    }

    /// A failing disk fails the read with an error, not a record made up.
    #[test]
    fn a_broken_temporary_file_is_an_error() {
        let budget = Budget::new(1 << 20, None);
        let mut rows = FileRows::new(budget.room(0)).unwrap();
        rows.push(&rec(1)).unwrap();
        let rows = rows.finish().unwrap();
        budget.spilled.break_files();
        let read = rows.each::<Error>(&mut |_| Ok(()));
        assert!(matches!(read, Err(Error::TempFile { .. })), "{read:?}");
    }
}
