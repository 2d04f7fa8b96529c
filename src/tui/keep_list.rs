//! The review's keep-list on disk. Each mark is written as it is made, by a job; jobs
//! may end out of order, so each writes the newest marks, one at a time. When the
//! keep-list cannot be written, the marks go to a file of the temporary folder whose
//! name the review shows, and quitting with marks that are not in the keep-list says
//! where they are and exits 1: a mark is never lost silently.

use crate::output::file::write_atomically;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// The keep-list of a review, shared by the view, its jobs and the exit.
#[derive(Clone, Debug)]
pub struct KeepList {
    path: PathBuf,
    /// Where the marks go when `path` cannot be written.
    fallback: PathBuf,
    state: Arc<Mutex<State>>,
    /// Held while a job writes: one write at a time.
    disk: Arc<Mutex<()>>,
}

#[derive(Debug, Default)]
struct State {
    /// The newest marks asked for: their number (from 1), text and count of ids.
    wanted: (u64, String, usize),
    /// The number of the marks the keep-list holds (0: none written by this run).
    written: u64,
    /// Why the last write failed, if it did.
    failed: Option<Failed>,
}

/// A keep-list that could not be written, and where its marks went instead.
#[derive(Clone, Debug, PartialEq)]
pub struct Failed {
    pub path: PathBuf,
    pub error: String,
    /// The file the marks were written to instead, or why that failed too.
    pub fallback: Result<PathBuf, (PathBuf, String)>,
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write {}: {}; ", self.path.display(), self.error)?;
        match &self.fallback {
            Ok(file) => write!(f, "the marks are kept in {}", file.display()),
            Err((file, e)) => write!(f, "nor {} ({e})", file.display()),
        }
    }
}

impl Failed {
    /// What the review's title says: where the marks are.
    pub fn short(&self) -> String {
        match &self.fallback {
            Ok(file) => format!("keep-list not written: marks kept in {}", file.display()),
            Err(_) => "keep-list not written: marks only in memory".to_string(),
        }
    }
}

impl KeepList {
    /// The keep-list at `path`; its fallback is named after it and this process, in the
    /// system's temporary folder.
    pub fn new(path: PathBuf) -> KeepList {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let fallback =
            std::env::temp_dir().join(format!("simtui-unsaved-{}-{name}", std::process::id()));
        KeepList {
            path,
            fallback,
            state: Arc::default(),
            disk: Arc::default(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records the newest marks (on the UI thread: it never waits for a write).
    pub fn want(&self, text: String, count: usize) {
        let mut state = self.state();
        state.wanted = (state.wanted.0 + 1, text, count);
    }

    /// Writes the newest marks, unless a later write already did (on a job); on a
    /// failure, writes them to the fallback file. The number of ids written.
    pub fn save(&self) -> Result<usize, Failed> {
        let _one_at_a_time = self.disk.lock().unwrap_or_else(|e| e.into_inner());
        let (number, text, count) = self.state().wanted.clone();
        {
            let state = self.state();
            if number <= state.written && state.failed.is_none() {
                return Ok(count);
            }
        }
        let written = write_atomically(&self.path, |w| w.write_all(text.as_bytes()));
        let mut state = self.state();
        match written {
            Ok(()) => {
                state.written = number;
                // The marks are where they belong: the fallback (this run's) goes.
                if let Some(Failed {
                    fallback: Ok(file), ..
                }) = state.failed.take()
                {
                    let _ = std::fs::remove_file(file);
                }
                Ok(count)
            }
            Err(e) => {
                let fallback = write_atomically(&self.fallback, |w| w.write_all(text.as_bytes()))
                    .map(|()| self.fallback.clone())
                    .map_err(|e2| (self.fallback.clone(), e2.to_string()));
                let failed = Failed {
                    path: self.path.clone(),
                    error: e.to_string(),
                    fallback,
                };
                state.failed = Some(failed.clone());
                Err(failed)
            }
        }
    }

    /// At the end of the explorer: the marks not yet in the keep-list are written (one
    /// more try); if they cannot be, the error says where they are (or, if nowhere,
    /// lists them).
    pub fn finish(&self) -> anyhow::Result<()> {
        let pending = {
            let state = self.state();
            state.wanted.0 > state.written || state.failed.is_some()
        };
        if !pending {
            return Ok(());
        }
        let Err(failed) = self.save() else {
            return Ok(());
        };
        let (_, text, count) = self.state().wanted.clone();
        let marks = match &failed.fallback {
            Ok(file) => format!("the {count} id(s) marked are in {}", file.display()),
            Err((file, e)) => {
                let ids: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
                format!(
                    "nor could {} be written ({e}); the {count} id(s) marked: {}",
                    file.display(),
                    ids.join(" ")
                )
            }
        };
        anyhow::bail!(
            "the review's keep-list {} could not be written ({}): {marks}",
            self.path.display(),
            failed.error
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_marks_win_and_a_failure_keeps_them_elsewhere() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.keep-list");
        let keep = KeepList::new(path.clone());
        keep.finish().unwrap();
        keep.want("a\n".into(), 1);
        keep.want("a\nb\n".into(), 2);
        assert_eq!(keep.save(), Ok(2));
        // An older job ending later writes nothing older.
        assert_eq!(keep.save(), Ok(2));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a\nb\n");
        keep.finish().unwrap();

        // The keep-list's folder is gone: the marks go to the fallback, and the exit
        // says where.
        let gone = dir.path().join("gone");
        std::fs::create_dir(&gone).unwrap();
        let keep = KeepList::new(gone.join("out.keep-list"));
        std::fs::remove_dir(&gone).unwrap();
        keep.want("# ids\nc\n".into(), 1);
        let failed = keep.save().unwrap_err();
        let fallback = failed.fallback.clone().unwrap();
        assert_eq!(std::fs::read_to_string(&fallback).unwrap(), "# ids\nc\n");
        assert!(failed.to_string().contains(&fallback.display().to_string()));
        let e = keep.finish().unwrap_err().to_string();
        assert!(
            e.contains("could not be written") && e.contains(&fallback.display().to_string()),
            "{e}"
        );
        // Written at last (the folder is back): nothing pending, the fallback gone.
        std::fs::create_dir(&gone).unwrap();
        keep.finish().unwrap();
        assert_eq!(
            std::fs::read_to_string(gone.join("out.keep-list")).unwrap(),
            "# ids\nc\n"
        );
        assert!(!fallback.exists());
    }
}
