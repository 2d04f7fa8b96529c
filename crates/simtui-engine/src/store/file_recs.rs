//! The records of the files an opened index would save: made by this run and held, or,
//! when every file was reused as it was saved, the saved index's own, read from the
//! file again only if it is written.

use super::encode::FileList;
use super::file_rows::FileRows;
use super::format::{FileRec, Stamp, corrupt};
use super::head::Later;
use crate::error::{Error, Result};

/// The records of an update's files, in order, as they will be saved.
pub(super) enum FileRecs {
    /// Made by this run.
    Held(Vec<FileRec>),
    /// The saved index's own, in its order (every file reused unchanged, in that order),
    /// but for the files `racy` (their stamps dropped: see [`Settle`]). Not held: at
    /// 500,000 files they were 104 MB of table and paths beside the index's documents,
    /// for an index that is rarely written again.
    AsSaved { count: usize, racy: Vec<u32> },
    /// Made by this run and on a temporary file (a fresh index under a memory limit:
    /// see [`FileRows`]), settled.
    OnFile(FileRows),
}

/// The records to write: this run's (held or on their temporary file), or the saved
/// index's, read again.
pub(super) enum RecsOut<'a> {
    Made(&'a dyn FileList),
    ReadAgain(Vec<FileRec>),
}

impl RecsOut<'_> {
    pub(super) fn list(&self) -> &dyn FileList {
        match self {
            RecsOut::Made(recs) => *recs,
            RecsOut::ReadAgain(recs) => recs,
        }
    }
}

impl FileRecs {
    pub(super) fn len(&self) -> usize {
        match self {
            FileRecs::Held(recs) => recs.len(),
            FileRecs::AsSaved { count, .. } => *count,
            FileRecs::OnFile(rows) => rows.count(),
        }
    }

    /// Drops the stamps (and hashes) of held records `settle` finds too close to when
    /// stamping began; whether there were any. Records as saved had theirs checked as
    /// they were reused, and records on file as they were written.
    pub(super) fn settle(&mut self, settle: &Settle) -> bool {
        let FileRecs::Held(files) = self else {
            return false;
        };
        let mut any = false;
        for f in files {
            if f.stamp.as_ref().is_some_and(|s| settle.is_racy(s)) {
                f.unstamp();
                any = true;
            }
        }
        any
    }

    /// The records, read again from the saved index (`later`) when they are its own.
    /// An error when that file no longer holds as many files.
    pub(super) fn get(&self, later: Option<&Later>) -> Result<RecsOut<'_>> {
        let (count, racy) = match self {
            FileRecs::Held(recs) => return Ok(RecsOut::Made(recs)),
            FileRecs::OnFile(rows) => return Ok(RecsOut::Made(rows)),
            FileRecs::AsSaved { count, racy } => (*count, racy),
        };
        let later = later.expect("records as saved come with their file");
        let mut recs = later
            .files()
            .map_err(|f| super::fault_error(later.path(), f))?;
        if recs.len() != count {
            let problem = corrupt(format!("{} files, {count} when opened", recs.len()));
            let path = later.path().to_path_buf();
            return Err(Error::IndexFile { path, problem });
        }
        for &i in racy {
            recs[i as usize].unstamp();
        }
        Ok(RecsOut::ReadAgain(recs))
    }
}

/// When stamping began, against which a file's stamp tells whether it proves the file
/// unchanged next time.
#[derive(Clone, Copy, Debug)]
pub(super) struct Settle {
    /// Seconds since the Unix epoch and nanoseconds.
    pub(super) stamped: (i64, u32),
}

impl Settle {
    /// Whether stamp `s` is too close to when stamping began to prove its file unchanged
    /// next time: a later edit at the same size could leave its size, times and inode as
    /// they were. With whole-second times (both times' nanoseconds 0), a file modified in
    /// the second stamping began, or the one before (a kernel clock tick late, or FAT's
    /// two-second times); with finer times, within 0.1 s before it (the kernel stamps
    /// files with a clock a tick behind) or after. A file with no stamp is read again
    /// next time; that is the files modified just before an index run, read once more.
    pub(super) fn is_racy(&self, s: &Stamp) -> bool {
        let nanos = |secs: i64, n: u32| i128::from(secs) * 1_000_000_000 + i128::from(n);
        let (secs, n) = self.stamped;
        if s.nanos == 0 && s.ctime_nanos == 0 {
            s.secs.max(s.ctime_secs) >= secs - 1
        } else {
            let since = nanos(secs, n) - 100_000_000;
            nanos(s.secs, s.nanos).max(nanos(s.ctime_secs, s.ctime_nanos)) >= since
        }
    }
}
