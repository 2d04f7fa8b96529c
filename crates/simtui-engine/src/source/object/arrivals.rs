//! Objects still arriving. A URL's local copy is laid out at once (every file created at
//! its object's size, so the walk, the hard-link check and the progress's byte total see
//! the corpus as it will be) and filled in the background while the corpus is read: a
//! reader waits here for the one object it opens, not for the whole prefix, so fetching
//! and reading overlap. [`settled`] is the barrier after the read stage: everything has
//! arrived (what is read later, verification's second read, dedup's copy, file dates,
//! reads whole files), or the first failure, as an error.

use crate::error::{Error, Result};
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, LazyLock, Mutex, MutexGuard};

/// What is known of a file of a local copy that has not arrived whole.
enum Arrival {
    /// Still being fetched.
    Coming,
    /// Its fetch failed: the URL and why.
    Failed { url: String, why: String },
}

/// The files of local copies not whole yet. One per process ([`ARRIVALS`]); tests make
/// their own.
pub(super) struct Arrivals {
    files: Mutex<HashMap<PathBuf, Arrival>>,
    changed: Condvar,
    /// Files still coming.
    coming: AtomicUsize,
    /// Whether any file was ever expected: never, for a local corpus, whose readers
    /// then pass with one atomic load instead of a lock per file.
    used: AtomicBool,
}

/// The process's copies.
pub(super) static ARRIVALS: LazyLock<Arrivals> = LazyLock::new(Arrivals::default);

impl Default for Arrivals {
    fn default() -> Arrivals {
        Arrivals {
            files: Mutex::new(HashMap::new()),
            changed: Condvar::new(),
            coming: AtomicUsize::new(0),
            used: AtomicBool::new(false),
        }
    }
}

impl Arrivals {
    fn files(&self) -> MutexGuard<'_, HashMap<PathBuf, Arrival>> {
        self.files.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(
        &self,
        files: MutexGuard<'a, HashMap<PathBuf, Arrival>>,
    ) -> MutexGuard<'a, HashMap<PathBuf, Arrival>> {
        self.changed.wait(files).unwrap_or_else(|e| e.into_inner())
    }

    /// These files are coming: a reader of one waits until [`Arrivals::arrived`] or
    /// [`Arrivals::failed`].
    pub(super) fn expect(&self, paths: impl IntoIterator<Item = PathBuf>) {
        let mut files = self.files();
        self.used.store(true, Ordering::SeqCst);
        for path in paths {
            if files.insert(path, Arrival::Coming).is_none() {
                self.coming.fetch_add(1, Ordering::SeqCst);
            }
        }
    }

    /// `path` is whole.
    pub(super) fn arrived(&self, path: &Path) {
        let mut files = self.files();
        if matches!(files.remove(path), Some(Arrival::Coming)) {
            self.coming.fetch_sub(1, Ordering::SeqCst);
        }
        self.changed.notify_all();
    }

    /// `path`'s fetch failed: its readers, and [`Arrivals::settled`], get the error.
    pub(super) fn failed(&self, path: &Path, url: String, why: String) {
        let mut files = self.files();
        let was = files.insert(path.to_path_buf(), Arrival::Failed { url, why });
        if matches!(was, Some(Arrival::Coming)) {
            self.coming.fetch_sub(1, Ordering::SeqCst);
        }
        self.changed.notify_all();
    }

    /// Forgets every file (the copies are being removed): readers still waiting are
    /// told that theirs will not come.
    pub(super) fn forget(&self) {
        let mut files = self.files();
        for arrival in files.values_mut() {
            if matches!(arrival, Arrival::Coming) {
                *arrival = Arrival::Failed {
                    url: String::new(),
                    why: "the local copy was removed before it arrived".to_string(),
                };
            }
        }
        self.coming.store(0, Ordering::SeqCst);
        self.changed.notify_all();
    }

    /// Waits until `path` is whole when it is part of a copy still arriving; at once for
    /// any other path.
    pub(super) fn ready(&self, path: &Path) -> io::Result<()> {
        if !self.used.load(Ordering::SeqCst) {
            return Ok(());
        }
        let mut files = self.files();
        loop {
            match files.get(path) {
                None => return Ok(()),
                Some(Arrival::Failed { url, why }) => {
                    return Err(io::Error::other(format!("{url}: {why}")));
                }
                Some(Arrival::Coming) => files = self.wait(files),
            }
        }
    }

    /// Waits until every file has arrived; the first failure as an error.
    pub(super) fn settled(&self) -> Result<()> {
        let mut files = self.files();
        while self.coming.load(Ordering::SeqCst) > 0 {
            files = self.wait(files);
        }
        let failure = files.values().find_map(|a| match a {
            Arrival::Failed { url, why } => Some(Error::Object {
                url: url.clone(),
                why: why.clone(),
            }),
            Arrival::Coming => None,
        });
        failure.map_or(Ok(()), Err)
    }
}

/// Waits until `path` (a file about to be opened) is whole when it is part of an object
/// store's local copy still arriving; at once for any other path (in a run that reads no
/// URL, one atomic load).
pub fn ready(path: &Path) -> io::Result<()> {
    ARRIVALS.ready(path)
}

/// Waits until every file of every local copy has arrived; the first failure as an
/// error.
pub fn settled() -> Result<()> {
    ARRIVALS.settled()
}
