//! Diagnostics: `-v` / `-vv` notes for the headless commands on stderr, and the
//! explorer's log file (`--log FILE`), which takes the same notes instead, because the
//! explorer owns the terminal and must never write to it.
//!
//! Levels: 1 (`-v`) says which config file is in use and which of its settings apply,
//! and lists skipped files; 2 (`-vv`) adds when each pipeline stage finishes.
//! Notes made before the destination is chosen (while the command line is parsed) are
//! held, then written or dropped when [`to_stderr`], [`to_log`] or [`discard`] is called.

use super::error::UsageError;
use simtui_engine::progress::{Progress, Stage};
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU8, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

static LEVEL: AtomicU8 = AtomicU8::new(0);

enum Sink {
    Held(Vec<String>),
    Stderr,
    Log(Arc<Log>),
    Discard,
}

static SINK: Mutex<Sink> = Mutex::new(Sink::Held(Vec::new()));

pub fn set_level(level: u8) {
    LEVEL.store(level, Ordering::Relaxed);
}

pub fn level() -> u8 {
    LEVEL.load(Ordering::Relaxed)
}

/// Writes one line to stderr, its control characters shown as escapes (a file name
/// cannot drive the terminal), ignoring a failed write: with stderr on a full disk or
/// closed, the command still ends with its own exit status (`eprintln!` would panic).
pub fn say(message: impl std::fmt::Display) {
    use std::io::Write;
    let text = message.to_string();
    let mut err = std::io::stderr().lock();
    for line in text.lines() {
        let _ = writeln!(err, "{}", super::format::printable(line));
    }
}

/// Writes `message` if the verbosity is at least `level`. Notes are rare (never per
/// document), so a lock per note costs nothing.
pub fn note(level: u8, message: impl std::fmt::Display) {
    if self::level() < level {
        return;
    }
    let mut sink = SINK.lock().unwrap_or_else(|e| e.into_inner());
    match &mut *sink {
        Sink::Held(held) => held.push(message.to_string()),
        Sink::Stderr => say(message),
        Sink::Log(log) => log.write(&message.to_string()),
        Sink::Discard => {}
    }
}

fn route(to: Sink) {
    let mut sink = SINK.lock().unwrap_or_else(|e| e.into_inner());
    let held = match std::mem::replace(&mut *sink, to) {
        Sink::Held(held) => held,
        _ => Vec::new(),
    };
    for m in held {
        match &*sink {
            Sink::Stderr => say(m),
            Sink::Log(log) => log.write(&m),
            _ => {}
        }
    }
}

/// Notes go to stderr (the headless commands).
pub fn to_stderr() {
    route(Sink::Stderr);
}

/// Notes go to the explorer's log file.
pub fn to_log(log: Arc<Log>) {
    route(Sink::Log(log));
}

/// Notes are dropped (the explorer without `--log`).
pub fn discard() {
    route(Sink::Discard);
}

/// The explorer's log: lines stamped with seconds since start, appended to a file.
pub struct Log {
    file: Mutex<File>,
    start: Instant,
}

impl Log {
    /// Opens (creating or appending to) the log file. Failing here, before the terminal
    /// is touched, is a usage error the user can fix.
    pub fn open(path: &Path) -> Result<Log, UsageError> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| UsageError(format!("--log {}: {e}", path.display())))?;
        Ok(Log {
            file: Mutex::new(file),
            start: Instant::now(),
        })
    }

    /// Appends one line. A failing log must not stop the explorer, so errors are ignored.
    pub fn write(&self, message: &str) {
        let t = self.start.elapsed().as_secs_f64();
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(file, "{t:10.3} {message}");
    }
}

/// Progress that notes (at `-vv`) when each stage finishes, with the time since start.
/// `update` is called from worker threads many times a second: it only touches an
/// atomic until a stage completes.
pub struct StageLog {
    start: Instant,
    finished: AtomicU32,
}

impl Default for StageLog {
    fn default() -> Self {
        StageLog {
            start: Instant::now(),
            finished: AtomicU32::new(0),
        }
    }
}

impl Progress for StageLog {
    fn update(&self, stage: Stage, done: u64, total: u64) {
        if done < total || level() < 2 {
            return;
        }
        let bit = 1 << stage as u32;
        if self.finished.fetch_or(bit, Ordering::Relaxed) & bit == 0 {
            note(
                2,
                format_args!(
                    "{:>7.3} s  {} done ({total})",
                    self.start.elapsed().as_secs_f64(),
                    stage.name()
                ),
            );
        }
    }
}

/// What `--id-field NAME` found, for the commands and the explorer alike: a usage error
/// when records were read and none had the field (a misspelt name would otherwise give
/// `FILE:LINE` ids without a word), a warning when some had it and others not.
pub fn id_field(
    index: &simtui_engine::Index,
    name: Option<&str>,
) -> Result<Option<String>, UsageError> {
    let Some(name) = name else {
        return Ok(None);
    };
    let (records, unnamed) = index.unnamed_records();
    if unnamed == 0 {
        return Ok(None);
    }
    if unnamed == records {
        return Err(UsageError(format!(
            "--id-field {name}: no record of the {records} read has it (a JSON Lines field, or an attribute of <REUTERS>); every id would be FILE:LINE"
        )));
    }
    Ok(Some(format!(
        "simtui: --id-field {name}: {unnamed} of {records} records have none; they are named FILE:LINE"
    )))
}
