//! Progress of a headless run on stderr: a bar per stage with its rate and ETA (drawn
//! by indicatif), once the run has taken a second, only when stderr is a terminal and
//! not with `--quiet`; what went to temporary files beside it. The `-vv` stage log
//! (`diag::StageLog`) rides along. A command makes one with [`Run::start`] and ends it
//! with [`Run::finish`].

use super::diag::{self, StageLog};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use simtui_engine::progress::{Progress, Stage};
use simtui_engine::storage::{Budget, Spilled};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long a run goes before its progress is drawn: short runs draw nothing.
const QUIET_FOR: Duration = Duration::from_secs(1);

/// [`QUIET_FOR`], or `SIMTUI_PROGRESS_AFTER_MS` milliseconds: a hook for the tests, whose
/// runs may end within the second on a fast machine, and then would draw nothing to test.
fn quiet_for() -> Duration {
    std::env::var("SIMTUI_PROGRESS_AFTER_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
        .map_or(QUIET_FOR, Duration::from_millis)
}

/// A headless run's progress and memory: the engine reports to it, the command asks it
/// for the budget and ends it.
pub struct Run {
    log: StageLog,
    budget: Budget,
    start: Instant,
    /// None when nothing is drawn (not a terminal, or `--quiet`).
    bar: Option<Mutex<Bar>>,
    /// Temporary files already named at `-v`.
    named: AtomicUsize,
    shown: AtomicBool,
}

/// The bar of the stage running.
struct Bar {
    bar: ProgressBar,
    stage: Option<Stage>,
}

impl Run {
    /// A run within `budget`, drawing progress unless `quiet` or stderr is not a
    /// terminal.
    pub fn start(budget: Budget, quiet: bool) -> Run {
        let draw = !quiet && std::io::stderr().is_terminal();
        let bar = draw.then(|| {
            // Hidden until the run has taken a second (see `update`).
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
            Mutex::new(Bar { bar, stage: None })
        });
        Run {
            log: StageLog::default(),
            budget,
            start: Instant::now(),
            bar,
            named: AtomicUsize::new(0),
            shown: AtomicBool::new(false),
        }
    }

    /// The memory budget the engine works within.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// Runs `f` with the bar out of the way: what it writes to the terminal (a row of
    /// results, a note) is not drawn over.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) => bar.lock().unwrap_or_else(|e| e.into_inner()).bar.suspend(f),
            None => f(),
        }
    }

    /// Clears the bar and names any temporary file not named yet (`-v`).
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.lock()
                .unwrap_or_else(|e| e.into_inner())
                .bar
                .finish_and_clear();
        }
        self.name_files();
    }

    /// `-v`: each temporary file as it is made, with what it holds.
    fn name_files(&self) {
        if diag::level() < 1 {
            return;
        }
        let files = self.budget.spilled.files();
        let before = self.named.swap(files.len(), Ordering::Relaxed);
        for f in files.iter().skip(before) {
            let line = format!("simtui: temporary file for {f}");
            match &self.bar {
                Some(bar) => bar
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .bar
                    .suspend(|| diag::note(1, &line)),
                None => diag::note(1, &line),
            }
        }
    }
}

/// "spilled 1.2 GB": what went to temporary files, for the bar.
fn spill_message(spilled: &Spilled) -> String {
    match spilled.total() {
        0 => String::new(),
        n => format!("spilled {}", human(n)),
    }
}

/// Bytes in GB, MB or KB.
pub fn human(bytes: u64) -> String {
    const K: f64 = 1024.0;
    let b = bytes as f64;
    if b >= K * K * K {
        format!("{:.1} GB", b / (K * K * K))
    } else if b >= K * K {
        format!("{:.1} MB", b / (K * K))
    } else {
        format!("{:.1} KB", b / K)
    }
}

impl Progress for Run {
    fn update(&self, stage: Stage, done: u64, total: u64) {
        self.log.update(stage, done, total);
        if self.named.load(Ordering::Relaxed) < self.budget.spilled.files().len() {
            self.name_files();
        }
        let Some(bar) = &self.bar else { return };
        if self.start.elapsed() < quiet_for() {
            return;
        }
        let mut bar = bar.lock().unwrap_or_else(|e| e.into_inner());
        if !self.shown.swap(true, Ordering::Relaxed) {
            bar.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        if bar.stage != Some(stage) {
            bar.stage = Some(stage);
            bar.bar.reset();
            bar.bar.set_style(style());
            bar.bar.set_prefix(stage.name());
        }
        bar.bar.set_length(total.max(done));
        bar.bar.set_position(done);
        bar.bar.set_message(spill_message(&self.budget.spilled));
    }
}

fn style() -> ProgressStyle {
    ProgressStyle::with_template(
        "{prefix:>7} [{bar:30}] {human_pos}/{human_len} {per_sec} ETA {eta} {msg}",
    )
    .expect("a valid template")
    .progress_chars("=> ")
}

/// A run's budget as the `--stats` line says it: what went to temporary files, or
/// that nothing did.
pub fn stats_line(budget: &Budget) -> String {
    let limit = if budget.is_limited() {
        format!("--memory {}", human(budget.bytes))
    } else {
        "no memory limit".to_string()
    };
    let kinds = budget.spilled.by_kind();
    if kinds.is_empty() {
        return format!("nothing to temporary files ({limit})");
    }
    let parts: Vec<String> = kinds
        .iter()
        .map(|(what, n)| format!("{what} {}", human(*n)))
        .collect();
    format!(
        "{} to temporary files: {} ({limit})",
        human(budget.spilled.total()),
        parts.join(", ")
    )
}
