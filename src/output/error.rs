//! The errors that decide the exit code, shared by the commands and the explorer.

use simtui_engine::error::Error;

/// Declares an error that is its message, told apart from others by its type (which
/// decides the exit code).
macro_rules! message_error {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name(pub String);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl std::error::Error for $name {}
    };
}

message_error!(
    /// An error in what the user asked for (a bad flag value, a missing path): exit code 2.
    UsageError
);

message_error!(
    /// Nothing found where something was required (`--fail-empty` of `pairs`, `query` and
    /// `clusters`, with no pair, neighbour or cluster):
    /// exit code 1, quietly (the reason with `-v`), as `grep` finding no line.
    NoResult
);

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

/// An engine error as the exit code wants it: a usage or input error (2), or a failure
/// (1: a cancellation, a full disk).
pub fn store_error(e: Error) -> anyhow::Error {
    if e.is_usage() {
        UsageError(e.to_string()).into()
    } else {
        anyhow::Error::new(e)
    }
}
