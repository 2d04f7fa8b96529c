//! How results are written: a table on a terminal, JSON Lines when piped, or CSV; and
//! stdout for the commands, where a closed pipe is no error.

use clap::ValueEnum;
use std::io::{self, IsTerminal, Write};

// No doc comments on the variants: clap would print them as a long "Possible values"
// block in --help; the flags' help says what the values mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    // A table on a terminal, JSON Lines otherwise.
    Auto,
    // An aligned, human-readable table (coloured as --color says).
    Table,
    // One JSON object per line.
    Jsonl,
    // Comma-separated values with a header row.
    Csv,
}

impl Format {
    /// Resolves `Auto` by whether stdout is a terminal.
    pub fn resolve(self) -> Format {
        match self {
            Format::Auto if io::stdout().is_terminal() => Format::Table,
            Format::Auto => Format::Jsonl,
            f => f,
        }
    }
}

/// A CSV field, quoted when it must be.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Runs `f` with a buffered stdout; a closed pipe (`| head`) ends the output quietly
/// (with `T`'s default as the result).
pub fn with_stdout<T: Default>(f: impl FnOnce(&mut dyn Write) -> io::Result<T>) -> io::Result<T> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    match f(&mut out).and_then(|t| out.flush().map(|()| t)) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(T::default()),
        r => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quoting() {
        assert_eq!(csv_field("a.txt"), "a.txt");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
