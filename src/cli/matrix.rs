//! `simtui matrix`: every pair of a handful of documents compared, as a table or CSV.

use super::UsageError;
use super::args::{IndexArgs, PathArgs, WeightArg, bits_parser};
use super::output::{csv_field, with_stdout};
use clap::{Args, ValueEnum};
use simtui::corpus::Corpus;
use simtui::index::Index;
use simtui::matrix::{Matrix, Measure, compute};
use simtui::simhash::SimHasher;
use std::io::{self, IsTerminal, Write};

/// The most documents a matrix takes: 500² cells is already far more than anyone reads;
/// larger corpora want `simtui pairs` or `simtui clusters`.
pub const MAX_DOCS: usize = 500;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MeasureArg {
    Jaccard,
    Estimate,
    Simhash,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MatrixFormat {
    Auto,
    Table,
    Csv,
}

#[derive(Args, Debug)]
pub struct MatrixArgs {
    #[command(flatten)]
    pub paths: PathArgs,
    #[command(flatten)]
    pub index: IndexArgs,
    /// What each cell holds: exact Jaccard, its MinHash estimate, or the Hamming distance of SimHash fingerprints
    #[arg(long, value_enum, default_value_t = MeasureArg::Jaccard)]
    pub measure: MeasureArg,
    /// SimHash fingerprint width in bits, with --measure simhash [default: 64]
    #[arg(long, value_parser = bits_parser())]
    pub bits: Option<u32>,
    /// SimHash token weights with --measure simhash: tf (term frequency) or idf (times inverse document frequency over these documents) [default: idf]
    #[arg(long, value_enum)]
    pub weight: Option<WeightArg>,
    /// Output format: a table on a terminal and CSV when piped, or either (CSV: a header row of ids, then one row per document, its id first)
    #[arg(long, value_enum, default_value_t = MatrixFormat::Auto)]
    pub format: MatrixFormat,
}

pub fn run(args: &MatrixArgs) -> anyhow::Result<()> {
    if (args.bits.is_some() || args.weight.is_some()) && args.measure != MeasureArg::Simhash {
        return Err(UsageError("--bits and --weight are for --measure simhash".into()).into());
    }
    let corpus = Corpus::walk(&args.paths.paths, &args.index.walk_options())
        .map_err(|e| UsageError(e.to_string()))?;
    // Counted before anything is read.
    if corpus.entries.len() > MAX_DOCS {
        return Err(UsageError(format!(
            "{} documents found; a matrix takes at most {MAX_DOCS} (for more, use `simtui pairs` or `simtui clusters`)",
            corpus.entries.len()
        ))
        .into());
    }
    let mut params = args.index.params();
    // -vv: when each stage finishes.
    let progress = super::diag::StageLog::default();
    let (index, fps) = match args.measure {
        MeasureArg::Simhash => {
            params.num_perm = 0;
            let weight = WeightArg::weight(args.weight);
            let hasher = SimHasher::new(args.bits.unwrap_or(64), params.seed, weight);
            let (index, fps) = Index::build_with_simhash(corpus, &params, &hasher, &progress)?;
            (index, Some(fps))
        }
        MeasureArg::Jaccard => {
            params.num_perm = 0; // exact only: no signatures needed
            (Index::build(corpus, &params, &progress)?, None)
        }
        MeasureArg::Estimate => (Index::build(corpus, &params, &progress)?, None),
    };
    for s in &index.skipped {
        super::diag::note(1, format_args!("skipped {s}"));
    }
    let measure = match args.measure {
        MeasureArg::Jaccard => Measure::Jaccard,
        MeasureArg::Estimate => Measure::Estimate,
        MeasureArg::Simhash => Measure::Hamming,
    };
    let m = compute(&index, measure, fps.as_ref());
    let csv = match args.format {
        MatrixFormat::Auto => !io::stdout().is_terminal(),
        f => f == MatrixFormat::Csv,
    };
    let ids: Vec<&str> = index.docs.iter().map(|d| d.id.as_str()).collect();
    let cell = |v: f64| -> String {
        if measure == Measure::Hamming {
            format!("{v}")
        } else if csv {
            v.to_string() // the shortest decimal that reads back as the same value
        } else {
            format!("{v:.4}")
        }
    };
    with_stdout(|out| {
        if csv {
            write_csv(out, &ids, &m, &cell)
        } else {
            write_table(out, &ids, &m, &cell)
        }
    })?;
    Ok(())
}

fn write_csv(
    out: &mut dyn Write,
    ids: &[&str],
    m: &Matrix,
    cell: &dyn Fn(f64) -> String,
) -> io::Result<()> {
    write!(out, "id")?;
    for id in ids {
        write!(out, ",{}", csv_field(id))?;
    }
    writeln!(out)?;
    for (i, id) in ids.iter().enumerate() {
        write!(out, "{}", csv_field(id))?;
        for &v in m.row(i) {
            write!(out, ",{}", cell(v))?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// Columns are numbered (ids are too long for headers); each row gives its number and id.
fn write_table(
    out: &mut dyn Write,
    ids: &[&str],
    m: &Matrix,
    cell: &dyn Fn(f64) -> String,
) -> io::Result<()> {
    let n = ids.len();
    let num_w = n.to_string().len();
    let id_w = ids
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(2)
        .max(2);
    let cells: Vec<Vec<String>> = (0..n)
        .map(|i| m.row(i).iter().map(|&v| cell(v)).collect())
        .collect();
    let w = cells
        .iter()
        .flatten()
        .map(|s| s.len())
        .max()
        .unwrap_or(1)
        .max(num_w);
    write!(out, "{:>num_w$}  {:<id_w$}", "#", "id")?;
    for j in 1..=n {
        write!(out, "  {j:>w$}")?;
    }
    writeln!(out)?;
    for (i, row) in cells.iter().enumerate() {
        write!(out, "{:>num_w$}  {:<id_w$}", i + 1, ids[i])?;
        for c in row {
            write!(out, "  {c:>w$}")?;
        }
        writeln!(out)?;
    }
    Ok(())
}
