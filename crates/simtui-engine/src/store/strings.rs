//! A segment's string table as the decoder reads it: the paths, ids, titles and
//! metadata the file and document records name, a window at a time.

use super::bytes::{Bytes, Fault};
use super::format::{corrupt, le32, le64};
use crate::error::FormatError;

/// A segment's string table, read a window at a time: the strings of the records being
/// decoded, which name them in order (so the windows follow one another and the whole
/// table, tens of megabytes, is never held at once). Every offset is checked against the
/// whole table.
pub(super) struct Strings {
    /// Where the table starts in the segment, and its bytes.
    at: u64,
    size: u64,
    /// The window read: where it starts in the table, its bytes.
    start: u64,
    window: Vec<u8>,
}

impl Strings {
    /// The table of `size` bytes at `at`, none of it read yet.
    pub(super) fn new(at: u64, size: u64) -> Strings {
        Strings {
            at,
            size,
            start: 0,
            window: Vec::new(),
        }
    }

    /// Reads from `src` the part of the table the strings `spans` (offset and length
    /// each) lie in: a record's strings outside the table are an error.
    pub(super) fn load(
        &mut self,
        src: &(impl Bytes + ?Sized),
        spans: impl Iterator<Item = (u64, u64)>,
    ) -> Result<(), Fault> {
        let (mut lo, mut hi) = (u64::MAX, 0);
        for (off, len) in spans {
            let end = off.checked_add(len).filter(|&end| end <= self.size);
            let end = end.ok_or_else(|| corrupt("a string lies outside the string table"))?;
            (lo, hi) = (lo.min(off), hi.max(end));
        }
        self.window = Vec::new();
        (self.start, self.window) = match lo < hi {
            true => (lo, src.section(self.at + lo, hi - lo)?),
            false => (0, Vec::new()),
        };
        Ok(())
    }

    pub(super) fn get(&self, off: u64, len: u32, what: &str) -> Result<&[u8], FormatError> {
        let end = off.checked_add(len as u64);
        let window = self.start..=self.start + self.window.len() as u64;
        end.filter(|&end| end <= self.size && window.contains(&off) && window.contains(&end))
            .map(|end| &self.window[(off - self.start) as usize..(end - self.start) as usize])
            .ok_or_else(|| corrupt(format!("{what} lies outside the string table")))
    }
}

/// The strings a file record names: its path and detail.
pub(super) fn file_strings(r: &[u8]) -> (u64, u64) {
    (le64(r, 0), le32(r, 8) as u64 + le32(r, 12) as u64)
}

/// The strings a document record names: its id, title and metadata.
pub(super) fn doc_strings(r: &[u8]) -> (u64, u64) {
    let len = le32(r, 8) as u64 + le32(r, 56) as u64 + le32(r, 60) as u64;
    (le64(r, 0), len)
}
