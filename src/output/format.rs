//! How results are written: a table on a terminal, JSON Lines when piped, or CSV; and
//! stdout for the commands, where a closed pipe is no error.

use super::error::UsageError;
use clap::ValueEnum;
use std::io::{self, IsTerminal, Write};
use std::path::Path;

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

/// `--format` of the commands whose results can also be written as Parquet (`pairs`,
/// `clusters`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ResultFormat {
    // A table on a terminal, JSON Lines otherwise (by extension for -o FILE).
    Auto,
    // An aligned, human-readable table (coloured as --color says).
    Table,
    // One JSON object per line.
    Jsonl,
    // Comma-separated values with a header row.
    Csv,
    // Apache Parquet: typed columns, written in row groups.
    Parquet,
}

/// A result format once `auto` is decided: text, or Parquet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolved {
    Text(Format),
    Parquet,
}

impl ResultFormat {
    /// Decides the format for standard output or for `-o FILE`. `auto` into a file goes
    /// by its name: `.parquet` Parquet, `.csv` CSV, anything else JSON Lines. Refused: a
    /// table into a file (colour and padding are for a terminal) and Parquet onto a
    /// terminal (binary).
    pub fn resolve(self, file: Option<&Path>) -> Result<Resolved, UsageError> {
        let ext = file
            .and_then(|f| f.extension())
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        let resolved = match (self, file) {
            (ResultFormat::Parquet, _) => Resolved::Parquet,
            (ResultFormat::Auto, Some(_)) => match ext.as_deref() {
                Some("parquet") => Resolved::Parquet,
                Some("csv") => Resolved::Text(Format::Csv),
                _ => Resolved::Text(Format::Jsonl),
            },
            (ResultFormat::Auto, None) => Resolved::Text(Format::Auto.resolve()),
            (ResultFormat::Table, _) => Resolved::Text(Format::Table),
            (ResultFormat::Jsonl, _) => Resolved::Text(Format::Jsonl),
            (ResultFormat::Csv, _) => Resolved::Text(Format::Csv),
        };
        if resolved == Resolved::Text(Format::Table) && file.is_some() {
            return Err(UsageError(
                "--format table is for a terminal; -o FILE takes jsonl, csv or parquet".into(),
            ));
        }
        if resolved == Resolved::Parquet && file.is_none() {
            refuse_terminal("Parquet")?;
        }
        Ok(resolved)
    }
}

/// Binary output is never written onto a terminal: it would garble it, and nobody can
/// read it there.
pub fn refuse_terminal(what: &str) -> Result<(), UsageError> {
    if io::stdout().is_terminal() {
        return Err(UsageError(format!(
            "{what} is binary and standard output is a terminal: write it with -o FILE, or into a pipe or a redirect (> FILE)"
        )));
    }
    Ok(())
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
/// (with `T`'s default as the result). Any other write error (a full disk) is an error
/// that names standard output, and so is a standard output that was closed before the
/// start (`>&-`), which the standard library would otherwise write into silently.
///
/// The writer is `Send` (stdout itself, not its lock; the buffer makes locking rare), as
/// the Parquet writer wants.
pub fn with_stdout<T: Default>(
    f: impl FnOnce(&mut (dyn Write + Send)) -> io::Result<T>,
) -> io::Result<T> {
    let named = |e: io::Error| io::Error::new(e.kind(), format!("writing standard output: {e}"));
    check_stdout_open().map_err(named)?;
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout());
    match f(&mut out).and_then(|t| out.flush().map(|()| t)) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(T::default()),
        r => r.map_err(named),
    }
}

/// Fails when standard output was closed when simtui started (`>&-`): the standard
/// library then puts /dev/null in its place before `main`, and every write would succeed
/// into nothing. Elsewhere than Linux, a descriptor that cannot be duplicated is closed.
fn check_stdout_open() -> io::Result<()> {
    if closed_at_start::stdout() {
        return Err(io::Error::other("it was closed when simtui started"));
    }
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .map_err(|_| io::Error::other("it is closed"))?;
    }
    Ok(())
}

/// Whether file descriptor 1 was closed when the process started. Only a function run
/// before `main` can tell: the standard library's start-up reopens a closed 0, 1 or 2 as
/// /dev/null (read-write), which is then the same as a `> /dev/null` made by a shell or
/// by Python's `subprocess.DEVNULL`. So, on Linux, a function in `.init_array` (run by
/// the C library before `main`) looks at /proc/self/fd/1 and remembers.
#[cfg(target_os = "linux")]
mod closed_at_start {
    use std::sync::atomic::{AtomicBool, Ordering};

    static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

    extern "C" fn look() {
        let proc_mounted = std::fs::metadata("/proc/self/fd").is_ok();
        if proc_mounted && std::fs::symlink_metadata("/proc/self/fd/1").is_err() {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
        }
    }

    // SAFETY: placing a function pointer in .init_array is how a function runs before
    // main; `look` takes no arguments, touches only an atomic and the file system, and
    // needs nothing the Rust runtime sets up (no thread-locals, no stdio). There is no
    // other way to see a closed stdout: by the time `main` runs it has been replaced.
    #[used]
    #[unsafe(link_section = ".init_array")]
    static LOOK: extern "C" fn() = look;

    pub fn stdout() -> bool {
        STDOUT_CLOSED.load(Ordering::Relaxed)
    }
}

#[cfg(not(target_os = "linux"))]
mod closed_at_start {
    pub fn stdout() -> bool {
        false
    }
}

/// Text for a terminal: every control character (a file name's escape sequence, a
/// newline or carriage return that would split or overwrite a row) as a visible escape
/// — `\e`, `\n`, `\r`, `\t`, `\xNN` or `\u{NN}` — so that no name can drive the
/// terminal.
pub fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\x1b' => out.push_str("\\e"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x80 && c.is_control() => {
                out.push_str(&format!("\\x{:02X}", c as u32))
            }
            c if c.is_control() => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_not_sent() {
        for (name, shown) in [
            ("plain.txt", "plain.txt"),
            ("osc\x1b]0;PWNED\x07.txt", "osc\\e]0;PWNED\\x07.txt"),
            ("a\nb\rc\td", "a\\nb\\rc\\td"),
            ("c1\u{9b}31m", "c1\\u{9B}31m"),
        ] {
            assert_eq!(printable(name), shown);
        }
        assert!(!printable("\x1b[31mred\x7f").chars().any(char::is_control));
    }

    #[test]
    fn csv_quoting() {
        assert_eq!(csv_field("a.txt"), "a.txt");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
