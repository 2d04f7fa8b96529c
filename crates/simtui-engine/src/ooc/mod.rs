//! Bounded memory: what an index and a search do when their data does not fit in the
//! memory they are given ([`Budget`]).
//!
//! Under the limit nothing changes. Over it, the work goes out of core, and the output
//! stays the same, byte for byte:
//! - shingle sets are written to a temporary file as they are made, and read back with
//!   positioned reads, each candidate's set once per batch (an index built only to
//!   search keeps none: they are made again from the candidates' texts, see
//!   [`crate::reshingle`]);
//! - signatures, when they don't fit either, go to a file too; banding reads them back
//!   front to back, a run of rows at a time, and the estimate of a verified pair reads
//!   its two rows;
//! - band keys are computed for as many bands at a time as fit, or, when not even one
//!   band's keys fit, sorted in runs and merged; the candidate pairs of the
//!   bands are merged the same way.
//!
//! Temporary files are anonymous ([`tempfile::tempfile_in`]): the kernel removes them
//! when the process ends, however it ends. [`Spilled`] counts what went to them.

pub(crate) mod band;
pub(crate) mod file;
pub(crate) mod verify;

use crate::error::Result;
use crate::found::Search;
use crate::index::Index;
use crate::progress::Progress;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// [`Index::search`] out of core: the candidates banded in the memory the budget
/// leaves ([`band::candidates`]), then verified in batches as they come out of their
/// sort ([`verify::stream`]). The same [`Search`] as in memory.
pub(crate) fn search(
    index: &Index,
    items: &[u32],
    (bands, rows): (usize, usize),
    threshold: f64,
    max_bucket: Option<usize>,
    progress: &dyn Progress,
) -> Result<Search> {
    let t = Instant::now();
    let room = index.work_room();
    let budget = &index.budget;
    let place = band::Room {
        bytes: room,
        dir: budget.dir(),
        spilled: &budget.spilled,
    };
    let (mut stream, huge) = band::candidates(
        &index.signatures,
        items,
        bands,
        rows,
        max_bucket,
        &place,
        progress,
    )?;
    let band_time = t.elapsed();
    let t = Instant::now();
    let total = stream.pushed;
    let (group_pairs, group_candidates, across) = verify::stream(
        index,
        || stream.next_pair(),
        threshold,
        room / 2,
        total,
        progress,
    )?;
    let within: u64 = (0..index.shingles.len() as u32)
        .map(|g| index.pairs_within(g))
        .sum();
    Ok(Search {
        group_pairs,
        threshold,
        candidates: across + within,
        group_candidates,
        huge,
        banding: Some((bands, rows)),
        band_time,
        verify_time: t.elapsed(),
    })
}

/// How much memory an index and its searches may hold, and where the work that does not
/// fit goes.
#[derive(Clone, Debug)]
pub struct Budget {
    /// Bytes of memory for the index (documents, shingle sets, signatures) and the work
    /// of a search (band keys, sort buffers, batches of sets); [`u64::MAX`]: no limit.
    pub bytes: u64,
    /// The folder of the temporary files; None: the system's ([`std::env::temp_dir`]).
    pub tmp: Option<PathBuf>,
    /// What went to temporary files, shared with whoever reports it.
    pub spilled: Arc<Spilled>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget::unlimited()
    }
}

/// The least memory kept for a search's work, whatever the budget. Tiny: a budget that
/// small is slow (runs of a few records, one candidate per batch), but kept to.
const MIN_WORK: u64 = 4 << 10;

impl Budget {
    /// No limit: everything in memory, as if no budget were given.
    pub fn unlimited() -> Budget {
        Budget::new(u64::MAX, None)
    }

    /// `bytes` of memory, temporary files in `tmp` (the system's folder when None).
    pub fn new(bytes: u64, tmp: Option<PathBuf>) -> Budget {
        Budget {
            bytes,
            tmp,
            spilled: Arc::default(),
        }
    }

    /// Whether there is a limit at all.
    pub fn is_limited(&self) -> bool {
        self.bytes != u64::MAX
    }

    /// Memory set aside for the work of a search (band keys, sort buffers, batches of
    /// sets read back), which the index itself must leave free: a quarter of the budget.
    pub(crate) fn work(&self) -> u64 {
        if self.is_limited() {
            (self.bytes / 4).max(MIN_WORK)
        } else {
            u64::MAX
        }
    }

    /// Memory for the index's parts: the budget less [`Budget::work`].
    pub(crate) fn for_index(&self) -> u64 {
        if self.is_limited() {
            self.bytes.saturating_sub(self.work())
        } else {
            u64::MAX
        }
    }

    /// Memory left for a search's work when `held` bytes are held already: what the
    /// budget leaves, and at least [`Budget::work`].
    pub(crate) fn left(&self, held: u64) -> u64 {
        if self.is_limited() {
            self.bytes.saturating_sub(held).max(self.work())
        } else {
            u64::MAX
        }
    }

    pub(crate) fn dir(&self) -> Option<&Path> {
        self.tmp.as_deref()
    }
}

/// What went to temporary files, by what it was ("shingle sets", "signatures", "band
/// keys", "candidate pairs", "document pairs"), and the files themselves. Shared and
/// updated as files are written, so progress can show it while the work goes on.
#[derive(Debug, Default)]
pub struct Spilled {
    bytes: Mutex<Vec<(&'static str, u64)>>,
    files: Mutex<Vec<String>>,
}

impl Spilled {
    /// Counts `n` more bytes written for `what`.
    pub(crate) fn add(&self, what: &'static str, n: u64) {
        let mut bytes = self.bytes.lock().unwrap_or_else(|e| e.into_inner());
        match bytes.iter_mut().find(|(w, _)| *w == what) {
            Some((_, b)) => *b += n,
            None => bytes.push((what, n)),
        }
    }

    /// Bytes written to temporary files, by what they held, in the order first written.
    pub fn by_kind(&self) -> Vec<(&'static str, u64)> {
        self.bytes.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Bytes written to temporary files in all.
    pub fn total(&self) -> u64 {
        self.by_kind().iter().map(|(_, b)| b).sum()
    }

    /// The temporary files made, each as "what: name" (an anonymous file has the name
    /// the system shows for it, such as `/tmp/#123 (deleted)`).
    pub fn files(&self) -> Vec<String> {
        self.files.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub(crate) fn file_made(&self, what: &'static str, file: &std::fs::File, dir: &Path) {
        let name =
            file_name(file).unwrap_or_else(|| format!("an unnamed file in {}", dir.display()));
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        files.push(format!("{what}: {name}"));
    }
}

/// The name the system gives an open file (an unlinked one included), where it says.
#[cfg(target_os = "linux")]
fn file_name(file: &std::fs::File) -> Option<String> {
    use std::os::fd::AsRawFd;
    let link = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()?;
    Some(link.display().to_string())
}

#[cfg(not(target_os = "linux"))]
fn file_name(_file: &std::fs::File) -> Option<String> {
    None
}

#[cfg(test)]
mod tests;
