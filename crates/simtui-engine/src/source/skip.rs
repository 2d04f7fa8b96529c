//! Why a path or a record is not a document: the reasons every stage of reading shares.

use std::fmt;
use std::path::PathBuf;

/// Why a path is not a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipReason {
    /// A NUL byte in the first 8 KiB.
    Binary,
    /// Larger than `--max-bytes`.
    TooLarge,
    /// A FIFO, socket or device: never opened.
    Special,
    /// Could not be opened or read (permissions, vanished).
    Unreadable,
    /// The walk could not enter or follow it (permissions, a symlink loop).
    WalkError,
    /// A symbolic link, not followed (see `--follow`).
    Symlink,
    /// A record of a JSON Lines or SGML file that could not be read as a document (not
    /// JSON, no text field, a broken tag).
    BadRecord,
    /// An SGML article with no `<BODY>`.
    NoBody,
    /// Fewer words than `--min-words`.
    TooShort,
    /// Another path to a file already found: a second root over the same folder, a hard
    /// link, a followed symbolic link. A file is one document however it is reached.
    SameFile,
}

impl SkipReason {
    /// Every reason, in the order of the saved index's status codes (append only).
    pub(crate) const ALL: [SkipReason; 10] = [
        SkipReason::Binary,
        SkipReason::TooLarge,
        SkipReason::Special,
        SkipReason::Unreadable,
        SkipReason::WalkError,
        SkipReason::Symlink,
        SkipReason::BadRecord,
        SkipReason::NoBody,
        SkipReason::TooShort,
        SkipReason::SameFile,
    ];

    /// A few lowercase words for messages and summaries ("binary", "too large", ...).
    pub fn name(self) -> &'static str {
        match self {
            SkipReason::Binary => "binary",
            SkipReason::TooLarge => "too large",
            SkipReason::Special => "special file",
            SkipReason::Unreadable => "unreadable",
            SkipReason::WalkError => "walk error",
            SkipReason::Symlink => "symlink not followed",
            SkipReason::BadRecord => "bad record",
            SkipReason::NoBody => "no body",
            SkipReason::TooShort => "too short",
            SkipReason::SameFile => "same file as another path",
        }
    }
}

/// A path that is not a document, and why.
#[derive(Clone, Debug)]
pub struct Skipped {
    /// The file; `FILE:LINE` for a record of a file of many documents.
    pub path: PathBuf,
    /// Why it is not a document.
    pub reason: SkipReason,
    /// More about it for messages (an error, a size, the path it duplicates); may be empty.
    pub detail: String,
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.reason.name())?;
        if !self.detail.is_empty() {
            write!(f, " ({})", self.detail)?;
        }
        Ok(())
    }
}
