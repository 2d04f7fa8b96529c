//! `simtui matrix`: every pair of a handful of documents compared, as a table, CSV or an
//! SVG heatmap.

use super::args::{IndexArgs, PathArgs, WeightArg, bits_parser};
use super::matrix_svg::{self, Scale};
use crate::output::color::Paint;
use crate::output::error::UsageError;
use crate::output::format::printable;
use crate::output::format::{csv_field, with_stdout};
use crate::output::label;
use clap::{Args, ValueEnum};
use simtui_engine::analysis::matrix::{Matrix, Measure, compute_docs};
use simtui_engine::index::Index;
use simtui_engine::sketch::simhash::fingerprint::{SimHasher, Weight};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

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
    Svg,
}

#[derive(Args, Debug)]
pub struct MatrixArgs {
    #[command(flatten)]
    pub paths: PathArgs,
    #[command(flatten)]
    pub index: IndexArgs,
    /// What each cell holds: jaccard, estimate or simhash
    ///
    /// jaccard: exact Jaccard similarity. estimate: its MinHash estimate. simhash: the
    /// Hamming distance of SimHash fingerprints.
    #[arg(long, value_enum, default_value_t = MeasureArg::Jaccard, hide_possible_values = true)]
    pub measure: MeasureArg,
    /// With --measure simhash: bits, 8, 16, 32, 64 or 128 [default: 64]
    #[arg(long, value_parser = bits_parser(), hide_possible_values = true)]
    pub bits: Option<u32>,
    /// With --measure simhash: token weights, tf or idf [default: tf]
    ///
    /// tf: term frequency, the default here. idf: term frequency × inverse document
    /// frequency over these documents: over a handful of them, the words they all share
    /// weigh 0 (a text and its own first half are then far apart), which is why a
    /// matrix weighs by tf unless told otherwise.
    #[arg(long, value_enum, hide_possible_values = true)]
    pub weight: Option<WeightArg>,
    /// Output format: auto, table, csv or svg
    ///
    /// auto: a table on a terminal (coloured as --color says), CSV when piped; with -o,
    /// SVG for a name ending in .svg, else CSV. CSV: a header row of ids, then one row per
    /// document, its id first. svg: a heatmap picture, ids (shortened) along both sides,
    /// each cell shaded by its value and printing it, and a legend of the shades.
    #[arg(long, value_enum, default_value_t = MatrixFormat::Auto, hide_possible_values = true)]
    pub format: MatrixFormat,
    /// Write to FILE instead of standard output
    ///
    /// Created or replaced once the matrix is computed; never one of the documents read.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn run(args: &MatrixArgs) -> anyhow::Result<()> {
    if (args.bits.is_some() || args.weight.is_some()) && args.measure != MeasureArg::Simhash {
        return Err(UsageError("--bits and --weight are for --measure simhash".into()).into());
    }
    args.index.check()?;
    (crate::output::guard::Paths::new().inputs("the input", &args.paths.paths))
        .output("-o", args.output.as_deref())
        .check()?;
    let corpus = args.index.walk(&args.paths.paths)?;
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
    let progress = crate::output::diag::StageLog::default();
    let (index, fps) = match args.measure {
        MeasureArg::Simhash => {
            params.num_perm = 0;
            // tf unless asked: see --weight's help.
            let weight = match args.weight {
                None => Weight::Tf,
                Some(w) => WeightArg::weight(Some(w)),
            };
            if weight == Weight::Idf && corpus.entries.len() < 10 {
                crate::output::diag::note(
                    0,
                    format_args!(
                        "simtui matrix: idf weights over {} documents: a word in all of them weighs 0",
                        corpus.entries.len()
                    ),
                );
            }
            let hasher = SimHasher::new(args.bits.unwrap_or(64), params.seed, weight);
            let index = Index::builder(&params)
                .fingerprints(hasher)
                .build(corpus, &progress)?;
            let fps = index.fingerprints().cloned();
            (index, fps)
        }
        MeasureArg::Jaccard => {
            params.num_perm = 0; // exact only: no signatures needed
            (Index::builder(&params).build(corpus, &progress)?, None)
        }
        MeasureArg::Estimate => (Index::builder(&params).build(corpus, &progress)?, None),
    };
    for s in index.skipped() {
        crate::output::diag::note(1, format_args!("skipped {s}"));
    }
    let measure = match args.measure {
        MeasureArg::Jaccard => Measure::Jaccard,
        MeasureArg::Estimate => Measure::Estimate,
        MeasureArg::Simhash => Measure::Hamming,
    };
    let docs = in_order(&index, &args.paths.paths);
    let m = compute_docs(&index, &docs, measure, fps.as_ref());
    let format = resolve_format(args.format, args.output.as_deref());
    let csv = format == MatrixFormat::Csv;
    let doc = |i: usize| &index.docs()[docs[i] as usize];
    let ids: Vec<&str> = (0..docs.len()).map(|i| doc(i).id.as_str()).collect();
    let titles: Vec<&str> = (0..docs.len()).map(|i| doc(i).title.as_str()).collect();
    // The picture's labels name a document by its id and title.
    let labels: Vec<String> = (ids.iter().zip(&titles))
        .map(|(id, t)| match t.is_empty() {
            true => id.to_string(),
            false => format!("{id} {t}"),
        })
        .collect();
    let cell = |v: f64| -> String {
        if measure == Measure::Hamming {
            format!("{v}")
        } else if csv {
            v.to_string() // the shortest decimal that reads back as the same value
        } else {
            format!("{v:.4}")
        }
    };
    let scale = match measure {
        Measure::Jaccard => Scale::Similarity {
            name: "exact Jaccard",
        },
        Measure::Estimate => Scale::Similarity {
            name: "MinHash estimate of Jaccard",
        },
        Measure::Hamming => Scale::Hamming {
            bits: args.bits.unwrap_or(64),
        },
    };
    let write = |out: &mut dyn Write| match format {
        MatrixFormat::Svg => {
            let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
            matrix_svg::write(out, &labels, &m, scale)
        }
        MatrixFormat::Csv => write_csv(out, &ids, &m, &cell),
        // Hamming distances are not similarities: only their header is styled.
        _ => write_table(out, (&ids, &titles), &m, &cell, measure != Measure::Hamming),
    };
    match &args.output {
        None => with_stdout(|out| write(out))?,
        Some(path) => crate::output::file::write_file(path, |out| write(out))?,
    }
    Ok(())
}

/// The documents in the order of the paths given, each path's documents (a folder's
/// files, a file's records) in the natural order of their ids: numbers as numbers
/// (`1125` before `10503`), in every format.
fn in_order(index: &Index, roots: &[PathBuf]) -> Vec<u32> {
    let root = |d: u32| {
        let path = index.docs()[d as usize].source.path();
        let found = path.and_then(|p| roots.iter().position(|r| p.starts_with(r)));
        found.unwrap_or(roots.len())
    };
    let mut docs: Vec<u32> = (0..index.docs().len() as u32).collect();
    crate::output::order::sort_docs(index, &mut docs);
    // Stable: by path given, natural within each.
    docs.sort_by_key(|&d| root(d));
    docs
}

/// `auto` made concrete: on standard output a table on a terminal and CSV in a pipe; into
/// a file by its name's extension, since a file is never a terminal.
fn resolve_format(asked: MatrixFormat, output: Option<&Path>) -> MatrixFormat {
    match (asked, output) {
        (MatrixFormat::Auto, Some(p)) => {
            let svg = p.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg"));
            if svg {
                MatrixFormat::Svg
            } else {
                MatrixFormat::Csv
            }
        }
        (MatrixFormat::Auto, None) if io::stdout().is_terminal() => MatrixFormat::Table,
        (MatrixFormat::Auto, None) => MatrixFormat::Csv,
        (f, _) => f,
    }
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

/// Columns are numbered (ids are too long for headers); each row gives its number and id,
/// and after its cells the document's title. Coloured as `pairs`' table: a bold header,
/// and with `similarity`, cells by value and the diagonal (each document against itself)
/// faint.
fn write_table(
    out: &mut dyn Write,
    (ids, titles): (&[&str], &[&str]),
    m: &Matrix,
    cell: &dyn Fn(f64) -> String,
    similarity: bool,
) -> io::Result<()> {
    let paint = Paint::stdout();
    // A name's control characters are shown as escapes, never sent to the terminal.
    let shown: Vec<String> = ids.iter().map(|s| printable(s).into_owned()).collect();
    let ids = &shown;
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
    let mut header = format!("{:>num_w$}  {:<id_w$}", "#", "id");
    for j in 1..=n {
        header.push_str(&format!("  {j:>w$}"));
    }
    header.push_str("  title");
    writeln!(out, "{}", paint.bold(&header))?;
    let used = num_w + 2 + id_w + n * (w + 2) + 2;
    for (i, row) in cells.iter().enumerate() {
        let pad = id_w - ids[i].chars().count();
        write!(out, "{:>num_w$}  {}{}", i + 1, ids[i], " ".repeat(pad))?;
        for (j, (c, &v)) in row.iter().zip(m.row(i)).enumerate() {
            // Padded before painting, so escape codes don't count as width.
            let c = format!("{c:>w$}");
            let c = match (similarity, i == j) {
                (false, _) => c,
                (true, true) => paint.dim(&c),
                (true, false) => paint.similarity(v, &c),
            };
            write!(out, "  {c}")?;
        }
        let title = label::title(titles[i], used);
        if !title.is_empty() {
            write!(out, "  {}", paint.dim(&title))?;
        }
        writeln!(out)?;
    }
    Ok(())
}
