//! The commands: each parses its flags and drives the engine; `explorer` starts the
//! explorer (`tui`). What the commands share with the explorer (the writers, the errors,
//! diagnostics, key names) is in `output`.

pub mod curve;
pub mod eval;
mod eval_report;
// `gen` is reserved in Rust 2024, hence the path attribute.
pub mod against;
pub mod args;
pub mod banding;
#[path = "gen.rs"]
pub mod generate;
pub mod pairs;
// Issue 4: queries, clusters, the similarity matrix.
pub mod clusters;
pub mod dedup;
pub mod matrix;
mod matrix_pick;
pub mod matrix_svg;
// Issue 19: what the classic studies did, from the command line.
pub mod diff;
pub mod fingerprint;
pub mod query;
pub mod resume;
pub mod sketch;
// Conventions shared by every command: help, config file, colour.
pub mod completions;
pub mod config;
pub mod config_cmd;
pub mod corpus;
pub mod explorer;
pub mod help;
pub mod index_cmd;
pub mod man;
pub mod startup;

use crate::output::diag;
use crate::output::error::{Interrupted, NoResult, UsageError};

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

/// An error and its causes, each said once: a cause its error's message already holds
/// (the engine's errors say their cause, and also give it as their source) is not
/// repeated after it.
fn message(e: &anyhow::Error) -> String {
    let mut out = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !out.contains(&cause) {
            out.push_str(": ");
            out.push_str(&cause);
        }
    }
    out
}

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
            crate::output::diag::say(format_args!("simtui: {}", message(&e)));
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

#[cfg(test)]
mod tests {
    #[test]
    fn a_cause_the_message_holds_is_said_once() {
        let full = simtui_engine::Error::TempFile {
            dir: "tt".into(),
            source: std::io::Error::other("File too large"),
        };
        let said = super::message(&anyhow::Error::new(full));
        assert_eq!(said.matches("File too large").count(), 1, "{said}");
        let wrapped = anyhow::Error::new(std::io::Error::other("disk full")).context("writing x");
        assert_eq!(super::message(&wrapped), "writing x: disk full");
    }
}
