//! Progress reporting and cancellation, shared by the headless commands and the explorer.

use std::sync::atomic::{AtomicBool, Ordering};

/// The stages of the pipeline, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    Read,
    Shingle,
    Sketch,
    Band,
    Verify,
}

impl Stage {
    pub const ALL: [Stage; 5] = [
        Stage::Read,
        Stage::Shingle,
        Stage::Sketch,
        Stage::Band,
        Stage::Verify,
    ];

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

/// Receives progress from the engine and tells it when to stop. Called from worker
/// threads, so implementations must be cheap and thread-safe.
pub trait Progress: Sync {
    /// `done` of `total` units of `stage` are finished.
    fn update(&self, _stage: Stage, _done: u64, _total: u64) {}
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
