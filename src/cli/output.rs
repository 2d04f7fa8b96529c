//! Writing results: a table on a terminal, JSON Lines when piped, or CSV.

use super::color::Paint;
use clap::ValueEnum;
use simtui::index::{Index, Pair};
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

/// Writes pairs in the given (resolved) format.
pub fn write_pairs(
    out: &mut dyn Write,
    index: &Index,
    pairs: &[Pair],
    format: Format,
) -> io::Result<()> {
    let id = |i: u32| index.docs[i as usize].id.as_str();
    match format {
        Format::Jsonl | Format::Auto => {
            for p in pairs {
                let obj = serde_json::json!({
                    "a": id(p.a),
                    "b": id(p.b),
                    "jaccard": p.jaccard,
                    "estimate": p.estimate,
                });
                writeln!(out, "{obj}")?;
            }
        }
        Format::Csv => {
            writeln!(out, "a,b,jaccard,estimate")?;
            for p in pairs {
                writeln!(
                    out,
                    "{},{},{},{}",
                    csv_field(id(p.a)),
                    csv_field(id(p.b)),
                    p.jaccard,
                    p.estimate
                )?;
            }
        }
        Format::Table => {
            // Only the table is coloured: the other formats are for programs.
            let paint = Paint::stdout();
            let wa = pairs
                .iter()
                .map(|p| id(p.a).chars().count())
                .max()
                .unwrap_or(1)
                .max(1);
            let header = format!(
                "{:>6}  {:>7}  {:>8}  {:<wa$}  b",
                "rank", "jaccard", "estimate", "a"
            );
            writeln!(out, "{}", paint.bold(&header))?;
            for (i, p) in pairs.iter().enumerate() {
                // Padded before painting, so escape codes don't count as width.
                let jaccard = paint.similarity(p.jaccard, &format!("{:>7.4}", p.jaccard));
                writeln!(
                    out,
                    "{:>6}  {jaccard}  {:>8.4}  {:<wa$}  {}",
                    i + 1,
                    p.estimate,
                    id(p.a),
                    id(p.b)
                )?;
            }
        }
    }
    Ok(())
}

/// Runs `f` with a buffered stdout; a closed pipe (`| head`) ends the output quietly.
pub fn with_stdout(f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    match f(&mut out).and_then(|_| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
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
