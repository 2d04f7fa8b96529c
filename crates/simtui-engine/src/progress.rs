//! Progress reporting and cancellation, shared by the headless commands and the explorer.

use std::sync::atomic::{AtomicBool, Ordering};

/// The stages of the pipeline, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// Reading the documents' texts; counted in documents, or in bytes of the corpus's
    /// files when some hold many documents ([`Counted::Bytes`]: their sizes are known
    /// before they are read, their records' number is not).
    Read,
    /// Tokenising and shingling the texts, done along with reading and counted the same.
    Shingle,
    /// Computing signatures; counted in distinct contents (groups).
    Sketch,
    /// Finding candidate pairs; counted in LSH bands (SimHash: block tables).
    Band,
    /// Exact Jaccard of the candidates; counted in candidate pairs of contents (the
    /// exhaustive pass: in contents).
    Verify,
}

impl Stage {
    /// Every stage, in pipeline order: `Stage::ALL[s as usize] == s`.
    pub const ALL: [Stage; 5] = [
        Stage::Read,
        Stage::Shingle,
        Stage::Sketch,
        Stage::Band,
        Stage::Verify,
    ];

    /// The stage's name in lowercase, as progress and timings print it.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Read => "read",
            Stage::Shingle => "shingle",
            Stage::Sketch => "sketch",
            Stage::Band => "band",
            Stage::Verify => "verify",
        }
    }
}

/// What a stage's counts are in, when it is not what [`Stage`] says by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counted {
    /// Units of work: documents, contents, bands or pairs, as [`Stage`] says.
    Items,
    /// Bytes of the files on disk (compressed files count as stored): the read stage of a
    /// corpus with files of many documents, whose total is exact from the start.
    Bytes,
}

/// Receives progress from the engine and tells it when to stop. Called from worker
/// threads, so implementations must be cheap and thread-safe.
pub trait Progress: Sync {
    /// `done` of `total` units of `stage` are finished.
    fn update(&self, _stage: Stage, _done: u64, _total: u64) {}
    /// From now on `stage` counts in `counted` (told before its first update of a
    /// build; a stage not told counts [`Counted::Items`]).
    fn counting(&self, _stage: Stage, _counted: Counted) {}
    /// Whether the work should stop as soon as it can.
    fn is_cancelled(&self) -> bool {
        false
    }
}

/// No reporting, never cancelled.
pub struct Silent;

impl Progress for Silent {}

/// A cancellation flag that can be shared with the thread that decides to cancel.
#[derive(Debug, Default)]
pub struct CancelFlag(AtomicBool);

impl CancelFlag {
    /// Asks the work to stop: from now on it reports [`Progress::is_cancelled`] (the
    /// flag is never cleared), and the engine returns [`Error::Cancelled`](crate::Error::Cancelled)
    /// at its next check.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl Progress for CancelFlag {
    fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// The work was cancelled before it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cancelled;

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("cancelled")
    }
}

impl std::error::Error for Cancelled {}

/// Returns `Err(Cancelled)` if the progress sink asks to stop.
pub fn check(p: &dyn Progress) -> Result<(), Cancelled> {
    if p.is_cancelled() {
        Err(Cancelled)
    } else {
        Ok(())
    }
}
