//! The headless commands: each parses its flags and drives the engine.

pub mod curve;
pub mod eval;
// `gen` is reserved in Rust 2024, hence the path attribute.
pub mod args;
#[path = "gen.rs"]
pub mod generate;
pub mod output;
pub mod pairs;
// Issue 4: queries, clusters, the similarity matrix.
pub mod clusters;
pub mod matrix;
pub mod query;
// Conventions shared by every command: help, config file, colour, diagnostics.
pub mod color;
pub mod completions;
pub mod config;
pub mod config_cmd;
pub mod diag;
pub mod explorer;
pub mod help;
pub mod index_cmd;
pub mod keyspec;
pub mod man;
pub mod startup;

/// Checks that a similarity flag (`--threshold`) lies in [0, 1].
pub fn check_similarity(flag: &str, value: f64) -> Result<(), UsageError> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(UsageError(format!(
            "{flag} must be between 0 and 1, got {value}"
        )))
    }
}

/// An error in what the user asked for (a bad flag value, a missing path): exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Nothing found where something was required (`--fail-empty` of `pairs`, `query` and
/// `clusters`, with no pair, neighbour or cluster):
/// exit code 1, quietly (the reason with `-v`), as `grep` finding no line.
#[derive(Debug)]
pub struct NoResult(pub String);

impl std::fmt::Display for NoResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NoResult {}

/// The explorer was stopped by SIGINT, SIGTERM or SIGHUP: exit code 130, as a shell
/// reports a command interrupted by Ctrl-C.
#[derive(Debug)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted by a signal")
    }
}

impl std::error::Error for Interrupted {}

/// The exit code of a command's result, after saying on stderr what went wrong:
/// 0 success, 1 no result or a failed run, 2 a usage or input error.
pub fn exit_code(result: anyhow::Result<()>) -> std::process::ExitCode {
    use std::process::ExitCode;
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is::<NoResult>() => {
            diag::note(1, format_args!("simtui: {e}"));
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("simtui: {e:#}");
            if e.is::<UsageError>() {
                ExitCode::from(2)
            } else if e.is::<Interrupted>() {
                ExitCode::from(130)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
