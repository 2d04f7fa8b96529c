//! Running the engine from Python: the work on a thread of its own with the GIL
//! released, while the calling thread (Python's main thread, where signal handlers run)
//! checks for Ctrl-C and reports progress. An interrupt cancels the engine through its
//! [`Progress`] trait and raises the KeyboardInterrupt once the work has stopped.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use simtui_engine::{Error, Progress, Stage};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

pyo3::create_exception!(
    _simtui,
    SimtuiError,
    pyo3::exceptions::PyException,
    "An error of the engine, with the message the simtui command gives."
);

/// The engine's view of the call: where it is, and whether to stop.
#[derive(Default)]
pub struct Tracker {
    cancelled: AtomicBool,
    stage: Mutex<Option<Stage>>,
    done: AtomicU64,
    total: AtomicU64,
}

impl Progress for Tracker {
    fn update(&self, stage: Stage, done: u64, total: u64) {
        *self.stage.lock().unwrap_or_else(|e| e.into_inner()) = Some(stage);
        self.done.store(done, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
    }

    fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
}

impl Tracker {
    /// Calls `bar(stage, done, total)` with the latest progress, if any was reported.
    fn report(&self, bar: &Bound<'_, PyAny>) -> PyResult<()> {
        let stage = *self.stage.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(stage) = stage {
            let (done, total) = (
                self.done.load(Ordering::Relaxed),
                self.total.load(Ordering::Relaxed),
            );
            bar.call1((stage.name(), done, total))?;
        }
        Ok(())
    }
}

/// The longest the calling thread waits between two looks at signals and progress.
const POLL: Duration = Duration::from_millis(50);

/// Runs `work` on a thread of its own, the GIL released, and waits for it: checking
/// Python's signals (Ctrl-C cancels the work, then raises) and calling `bar` with the
/// progress, if given. An engine error is a [`SimtuiError`] with the engine's message.
pub fn run<T: Send>(
    py: Python<'_>,
    bar: Option<&Bound<'_, PyAny>>,
    work: impl FnOnce(&Tracker) -> simtui_engine::Result<T> + Send,
) -> PyResult<T> {
    let tracker = Tracker::default();
    let mut interrupt: Option<PyErr> = None;
    let outcome = std::thread::scope(|s| {
        let handle = s.spawn(|| work(&tracker));
        // Short calls return at once: the wait grows from 1 ms to POLL.
        let mut wait = Duration::from_millis(1);
        while !handle.is_finished() {
            py.detach(|| std::thread::sleep(wait));
            wait = (wait * 2).min(POLL);
            if interrupt.is_none()
                && let Err(e) = py.check_signals()
            {
                tracker.cancelled.store(true, Ordering::Relaxed);
                interrupt = Some(e);
            }
            if let (Some(bar), None) = (bar, &interrupt)
                && let Err(e) = tracker.report(bar)
            {
                tracker.cancelled.store(true, Ordering::Relaxed);
                interrupt = Some(e);
            }
        }
        handle.join()
    });
    if let Some(e) = interrupt {
        return Err(e);
    }
    if let Some(bar) = bar {
        tracker.report(bar)?;
    }
    match outcome {
        Ok(result) => result.map_err(engine_error),
        Err(panic) => {
            let why = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            Err(PyRuntimeError::new_err(format!("simtui failed: {why}")))
        }
    }
}

/// An engine error as Python raises it.
pub fn engine_error(e: Error) -> PyErr {
    SimtuiError::new_err(e.to_string())
}
