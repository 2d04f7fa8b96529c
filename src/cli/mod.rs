//! The headless commands: each parses its flags and drives the engine.

pub mod curve;
pub mod eval;
// `gen` is reserved in Rust 2024, hence the path attribute.
pub mod args;
#[path = "gen.rs"]
pub mod generate;
pub mod output;
pub mod pairs;

/// An error in what the user asked for (a bad flag value, a missing path): exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}
