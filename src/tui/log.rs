//! The explorer's log (`--log FILE`): what happens, for the user to read later. It never
//! writes to the terminal, which the explorer owns.

use crate::output::diag::Log;
use std::sync::Arc;

/// Where log lines go (nowhere without `--log`), and how much to say. Cheap to clone:
/// the app, the session and the jobs each hold one.
#[derive(Clone, Default)]
pub struct Logger {
    file: Option<Arc<Log>>,
    /// The `-v` count.
    verbose: u8,
}

impl Logger {
    pub fn new(file: Option<Arc<Log>>, verbose: u8) -> Logger {
        Logger { file, verbose }
    }

    /// There is a log file: worth computing what only the log says.
    pub fn is_on(&self) -> bool {
        self.file.is_some()
    }

    /// `-vv`: the log also says when each job starts.
    pub fn says_job_starts(&self) -> bool {
        self.verbose >= 2
    }

    /// Writes a line to the log, if there is one.
    pub fn write(&self, line: &str) {
        if let Some(file) = &self.file {
            file.write(line);
        }
    }
}
