//! The engine's one error type.
//!
//! Everything the engine can fail with: a cancellation asked for through
//! [`Progress`](crate::progress::Progress), a path that does not exist, a saved index
//! that cannot be read or used, a job over the limits set for it. A file that is not a
//! document (binary, unreadable, ...) is not an error: the walk and the index skip it
//! and say why ([`Skipped`](crate::source::Skipped)).

use crate::progress::Cancelled;
use std::fmt;
use std::io;
use std::path::PathBuf;

/// What the engine can fail with.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The work was cancelled through its [`Progress`](crate::progress::Progress).
    Cancelled,
    /// A path given to walk does not exist.
    MissingPath {
        /// The path as given.
        path: PathBuf,
        /// Why it could not be stat'ed.
        source: io::Error,
    },
    /// A saved index file cannot be used: not an index, another version, damaged.
    IndexFile {
        /// The index file.
        path: PathBuf,
        /// What is wrong with it.
        problem: FormatError,
    },
    /// A saved index file cannot be read or written.
    Io {
        /// The index file.
        path: PathBuf,
        /// The failure.
        source: io::Error,
    },
    /// A temporary file (work spilled past the memory limit) cannot be written or read
    /// back: a full disk, most often.
    TempFile {
        /// The folder the temporary files go to (the system's, or `--tmp-dir`).
        dir: PathBuf,
        /// The failure.
        source: io::Error,
    },
    /// Documents held in memory (the demo corpus) have no files to key a saved index by.
    InMemory,
    /// Over one of the limits set for a job.
    TooLarge {
        /// The job: "an exhaustive pass".
        job: &'static str,
        /// Which limit, and by how much.
        why: String,
    },
    /// A file of the corpus could not be read again, or an output file written
    /// (deduplication).
    File {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: io::Error,
    },
    /// An output that can't be written as asked: it exists, it would be inside the input,
    /// two inputs would share a name in it.
    Output(String),
    /// A saved index built with other parameters than those asked for, where it cannot
    /// be rebuilt (documents added to it, a reference corpus).
    Mismatch {
        /// The index file.
        path: PathBuf,
        /// What differs, in words (`it was built with k = 5 (asked for 3)`).
        why: String,
    },
    /// An object store could not be read or written: no such bucket or object,
    /// credentials refused, a server that does not answer.
    Object {
        /// The URL.
        url: String,
        /// What went wrong, on one line.
        why: String,
    },
    /// An input this build of the engine cannot read (a Parquet file without the
    /// `parquet` feature).
    Unsupported {
        /// The file.
        path: PathBuf,
        /// What it is, and what reading it needs.
        what: &'static str,
    },
}

/// A result with the engine's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Whether the user can fix it by asking otherwise: a missing path, an index file
    /// that can't be used or reached (not found, no permission, a folder), a limit. A
    /// cancellation is not, nor is an I/O failure such as a full disk.
    pub fn is_usage(&self) -> bool {
        use io::ErrorKind as K;
        match self {
            Error::Cancelled | Error::TempFile { .. } => false,
            Error::Io { source, .. } => matches!(
                source.kind(),
                K::NotFound
                    | K::PermissionDenied
                    | K::IsADirectory
                    | K::NotADirectory
                    | K::InvalidInput
                    | K::ReadOnlyFilesystem
            ),
            _ => true,
        }
    }
}

impl From<Cancelled> for Error {
    fn from(_: Cancelled) -> Self {
        Error::Cancelled
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Cancelled => f.write_str("cancelled"),
            Error::MissingPath { path, source } => write!(f, "{}: {source}", path.display()),
            Error::IndexFile {
                path,
                problem: FormatError::NotIndex,
            } => write!(
                f,
                "index file {}: not a simtui index file (simtui does not overwrite it)",
                path.display()
            ),
            Error::IndexFile { path, problem } => {
                write!(f, "index file {}: {problem}", path.display())
            }
            Error::Io { path, source } => write!(f, "index file {}: {source}", path.display()),
            Error::TempFile { dir, source } => write!(
                f,
                "temporary file in {}: {source} (work past --memory goes there; --tmp-dir DIR puts it elsewhere)",
                dir.display()
            ),
            Error::InMemory => f.write_str("documents held in memory cannot be saved"),
            Error::TooLarge { job, why } => write!(f, "too large for {job}: {why}"),
            Error::File { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Output(why) => f.write_str(why),
            Error::Unsupported { path, what } => write!(f, "{}: {what}", path.display()),
            Error::Mismatch { path, why } => write!(
                f,
                "index file {}: {why}: give the flags it was built with (its documents are not read again)",
                path.display()
            ),
            Error::Object { url, why } => write!(f, "{url}: {why}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::MissingPath { source, .. }
            | Error::Io { source, .. }
            | Error::TempFile { source, .. } => Some(source),
            Error::IndexFile { problem, .. } => Some(problem),
            _ => None,
        }
    }
}

/// Why bytes are not a usable index file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormatError {
    /// It does not start with [`MAGIC`](crate::store::format::MAGIC).
    NotIndex,
    /// Another format version.
    Version {
        /// The version the file says it is.
        found: u32,
        /// The newest version this simtui reads (and the one it writes; it reads 5 on).
        reads: u32,
    },
    /// Shorter than its header says (or than a header).
    Truncated {
        /// The size it should have, in bytes.
        expected: u64,
        /// The size it has.
        actual: u64,
    },
    /// The checksum does not match the contents.
    Checksum,
    /// The checksum matches but the contents are impossible.
    Corrupt(String),
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const REBUILD: &str = "rebuild it with `simtui index`";
        match self {
            FormatError::NotIndex => write!(f, "not a simtui index file"),
            FormatError::Version { found, reads } => write!(
                f,
                "written by another version of simtui (index format {found}; this simtui reads formats 5 to {reads}); {REBUILD}"
            ),
            FormatError::Truncated { expected, actual } => {
                write!(f, "truncated: {actual} bytes of {expected}; {REBUILD}")
            }
            FormatError::Checksum => write!(f, "corrupt: its checksum does not match; {REBUILD}"),
            FormatError::Corrupt(what) => write!(f, "corrupt: {what}; {REBUILD}"),
        }
    }
}

impl std::error::Error for FormatError {}
