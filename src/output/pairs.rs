//! Pairs as `simtui pairs` prints them and the explorer exports them.

use super::color::Paint;
use super::format::{Format, csv_field, printable};
use simtui_engine::analysis::method::Engine;
use simtui_engine::index::Index;
use simtui_engine::search::found::Pair;
use std::io::{self, Write};

/// The column after `jaccard`: the MinHash estimate, or for SimHash the Hamming distance
/// of the two fingerprints (SimHash computes no MinHash signatures).
#[derive(Clone, Copy)]
pub enum Second<'a> {
    Estimate,
    Hamming(&'a Engine),
}

impl Second<'_> {
    pub(super) fn name(self) -> &'static str {
        match self {
            Second::Estimate => "estimate",
            Second::Hamming(_) => "hamming",
        }
    }

    pub(super) fn hamming(engine: &Engine, p: &Pair) -> u32 {
        engine.hamming(p.a, p.b).expect("a SimHash engine")
    }

    fn json(self, p: &Pair) -> serde_json::Value {
        match self {
            Second::Estimate => p.estimate.into(),
            Second::Hamming(e) => Second::hamming(e, p).into(),
        }
    }

    fn plain(self, p: &Pair) -> String {
        match self {
            Second::Estimate => p.estimate.to_string(),
            Second::Hamming(e) => Second::hamming(e, p).to_string(),
        }
    }

    /// The table's cell, as wide as the column's name.
    fn cell(self, p: &Pair) -> String {
        match self {
            Second::Estimate => format!("{:>8.4}", p.estimate),
            Second::Hamming(e) => format!("{:>7}", Second::hamming(e, p)),
        }
    }
}

/// Writes the pairs `next` gives, in the given (resolved) format, stopping after `limit`
/// pairs when given; returns how many were written. `width_a` is the table's width of
/// the `a` column (the longest `a` id): known before the first pair, so nothing is held.
pub fn write_pair_stream(
    out: &mut dyn Write,
    index: &Index,
    next: &mut dyn FnMut() -> io::Result<Option<Pair>>,
    width_a: usize,
    limit: Option<u64>,
    format: Format,
    second: Second,
) -> io::Result<u64> {
    let id = |i: u32| index.docs().id(i as usize);
    let name = second.name();
    let wa = width_a.max(1);
    let paint = Paint::stdout();
    match format {
        Format::Csv => writeln!(out, "a,b,jaccard,{name}")?,
        Format::Table => {
            let header = format!(
                "{:>6}  {:>7}  {name:>w$}  {:<wa$}  b",
                "rank",
                "jaccard",
                "a",
                w = name.len()
            );
            writeln!(out, "{}", paint.bold(&header))?;
        }
        Format::Jsonl | Format::Auto => {}
    }
    let mut written = 0u64;
    while limit.is_none_or(|l| written < l) {
        let Some(p) = next()? else { break };
        written += 1;
        match format {
            Format::Jsonl | Format::Auto => {
                let mut obj = serde_json::Map::new();
                obj.insert("a".into(), id(p.a).into());
                obj.insert("b".into(), id(p.b).into());
                obj.insert("jaccard".into(), p.jaccard.into());
                obj.insert(name.into(), second.json(&p));
                writeln!(out, "{}", serde_json::Value::Object(obj))?;
            }
            Format::Csv => {
                let (a, b) = (csv_field(&id(p.a)), csv_field(&id(p.b)));
                writeln!(out, "{a},{b},{},{}", p.jaccard, second.plain(&p))?;
            }
            Format::Table => {
                // Only the table is coloured: the other formats are for programs. Padded
                // before painting, so escape codes don't count as width. Names' control
                // characters are shown as escapes, never sent to the terminal.
                let jaccard = paint.similarity(p.jaccard, &format!("{:>7.4}", p.jaccard));
                writeln!(
                    out,
                    "{:>6}  {jaccard}  {}  {:<wa$}  {}",
                    written,
                    second.cell(&p),
                    printable(&id(p.a)),
                    printable(&id(p.b))
                )?;
            }
        }
    }
    Ok(written)
}
