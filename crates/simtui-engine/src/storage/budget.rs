//! The memory budget: how much an index and its searches may hold ([`Budget`]), the room
//! each holder is given within it ([`Room`]), and what went to temporary files past it
//! ([`Spilled`]).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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

    /// A room of `bytes` within this budget: its temporary files go where the budget's
    /// do and are counted with them.
    pub fn room(&self, bytes: u64) -> Room<'_> {
        Room {
            bytes,
            dir: self.dir(),
            spilled: &self.spilled,
        }
    }
}

/// What one holder of data (a matrix of signatures, a sort, a batch of sets read back)
/// may keep in memory, and where the rest goes. Every holder that can go to a temporary
/// file takes one, so a budget reaches each of them the same way.
#[derive(Clone, Copy, Debug)]
pub struct Room<'a> {
    /// Bytes it may hold in memory; [`u64::MAX`]: no limit.
    pub bytes: u64,
    /// The folder of its temporary files; None: the system's.
    pub dir: Option<&'a Path>,
    /// Where what it writes to temporary files is counted.
    pub spilled: &'a Arc<Spilled>,
}

impl Room<'_> {
    /// The same place, `bytes` of memory.
    pub fn with_bytes(self, bytes: u64) -> Self {
        Room { bytes, ..self }
    }

    /// The bytes as a buffer size (all of memory's addresses when there is no limit).
    pub(crate) fn usize(&self) -> usize {
        usize::try_from(self.bytes).unwrap_or(usize::MAX)
    }
}

/// What went to temporary files, by what it was ("shingle sets", "signatures", "band
/// keys", "candidate pairs", "document pairs"), and the files themselves. Shared and
/// updated as files are written, so progress can show it while the work goes on.
#[derive(Debug, Default)]
pub struct Spilled {
    bytes: Mutex<Vec<(&'static str, u64)>>,
    files: Mutex<Vec<String>>,
    /// Tests break the temporary files counted here, to see a failing disk stop the work
    /// with an error.
    #[cfg(test)]
    broken: std::sync::atomic::AtomicBool,
}

impl Spilled {
    /// From now on, every read and write of a temporary file counted here fails, as on a
    /// failing disk.
    #[cfg(test)]
    pub(crate) fn break_files(&self) {
        self.broken
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// The failure a read or write of a temporary file meets: none, but in tests that
    /// broke the files.
    pub(crate) fn fault(&self) -> std::io::Result<()> {
        #[cfg(test)]
        if self.broken.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(std::io::Error::other(
                "the temporary file failed (broken by a test)",
            ));
        }
        Ok(())
    }

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
