//! `simtui matrix`: every pair of a handful of documents compared, as a table, CSV or an
//! SVG heatmap.

use super::args::{IndexArgs, PathArgs, WeightArg, bits_parser};
use super::matrix_pick::{self, Pick};
use super::matrix_svg::{self, Scale};
use crate::output::color::Paint;
use crate::output::error::UsageError;
use crate::output::format::printable;
use crate::output::format::{csv_field, with_stdout};
use crate::output::label;
use clap::{Args, ValueEnum};
use simtui_engine::analysis::matrix::{Matrix, Measure, compute_docs};
use simtui_engine::analysis::method::{Engine, Method};
use simtui_engine::index::Index;
use simtui_engine::sketch::simhash::fingerprint::{SimHasher, Weight};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

/// The most documents a matrix takes unless `--max-docs` says more: 500² cells is already
/// far more than anyone reads; larger corpora want documents picked (`matrix_pick`), or
/// `simtui pairs` or `simtui clusters`.
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
    /// Only these documents of the corpus, by id (e.g. --ids a.txt,b.txt)
    #[arg(long, value_delimiter = ',', value_name = "ID", conflicts_with_all = ["cluster", "neighbours"])]
    pub ids: Option<Vec<String>>,
    /// Only the members of cluster N of `simtui clusters -t T` (give -t)
    ///
    /// The clusters found as `simtui clusters -t T` finds and numbers them (largest
    /// first), with the same banding; the matrix lists the members in its order.
    #[arg(long, value_name = "N", requires = "threshold", conflicts_with = "neighbours", value_parser = clap::value_parser!(u32).range(1..))]
    pub cluster: Option<u32>,
    /// With --cluster: the clusters' similarity threshold
    #[arg(short = 't', long, value_name = "T", requires = "cluster")]
    pub threshold: Option<f64>,
    /// Only document ID and its nearest neighbours (--top)
    ///
    /// As `simtui query CORPUS ID --top N --exhaustive` lists them: its LSH candidates by
    /// exact J, filled up from a scan of the corpus when there are fewer than N.
    #[arg(long, value_name = "ID")]
    pub neighbours: Option<String>,
    /// With --neighbours: how many
    #[arg(long, value_name = "N", default_value_t = 10, requires = "neighbours", value_parser = clap::value_parser!(u32).range(1..))]
    pub top: u32,
    /// The most documents a matrix takes
    ///
    /// Past it the matrix is refused, before any is compared (a corpus of more files
    /// before any is read), with how to pick documents.
    #[arg(long, value_name = "N", default_value_t = MAX_DOCS)]
    pub max_docs: usize,
}

/// The documents asked for: by --ids, --cluster with -t, --neighbours, else all.
fn pick(args: &MatrixArgs) -> Pick<'_> {
    if let Some(ids) = &args.ids {
        Pick::Ids(ids)
    } else if let (Some(number), Some(threshold)) = (args.cluster, args.threshold) {
        Pick::Cluster { number, threshold }
    } else if let Some(id) = &args.neighbours {
        Pick::Neighbours { id, top: args.top }
    } else {
        Pick::All
    }
}

pub fn run(args: &MatrixArgs, startup: &super::startup::Startup) -> anyhow::Result<()> {
    if (args.bits.is_some() || args.weight.is_some()) && args.measure != MeasureArg::Simhash {
        return Err(UsageError("--bits and --weight are for --measure simhash".into()).into());
    }
    if let Some(t) = args.threshold {
        super::check_similarity("--threshold", t)?;
    }
    args.index.check()?;
    (crate::output::guard::Paths::new().inputs("the input", &args.paths.paths))
        .output("-o", args.output.as_deref())
        .check()?;
    let pick = pick(args);
    let mut index_args = args.index.clone();
    // The clusters of `simtui clusters -t T`: the same banding for T.
    let note = match pick {
        Pick::Cluster { threshold, .. } => super::banding::for_threshold(
            threshold,
            &format!("-t {threshold}"),
            &mut index_args,
            startup.banding_given,
        ),
        _ => None,
    };
    let corpus = index_args.walk(&args.paths.paths)?;
    // Counted before anything is read: each file is a document at least.
    if matches!(pick, Pick::All) && corpus.entries.len() > args.max_docs {
        return Err(matrix_pick::too_many(corpus.entries.len(), args.max_docs, false).into());
    }
    let (bands, rows) = (index_args.bands as usize, index_args.rows as usize);
    let mut params = index_args.params();
    // Exact J needs no signatures, unless documents are picked by LSH.
    if args.measure != MeasureArg::Estimate && !pick.searches() {
        params.num_perm = 0;
    }
    // -vv: when each stage finishes.
    let progress = crate::output::diag::StageLog::default();
    let (index, fps) = match args.measure {
        MeasureArg::Simhash => {
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
        _ => (Index::builder(&params).build(corpus, &progress)?, None),
    };
    let engine = Engine {
        index: std::sync::Arc::new(index),
        method: Method::MinHash { bands, rows },
    };
    let docs = matrix_pick::documents(&engine, &pick, args.max_docs, &progress)?;
    // Said once the cluster is found: a refusal stays one line.
    super::banding::say("matrix", note);
    let index = &engine.index;
    for s in index.skipped() {
        crate::output::diag::note(1, format_args!("skipped {s}"));
    }
    let measure = match args.measure {
        MeasureArg::Jaccard => Measure::Jaccard,
        MeasureArg::Estimate => Measure::Estimate,
        MeasureArg::Simhash => Measure::Hamming,
    };
    // All of them: in the order of the paths given, natural within each.
    let docs = match pick {
        Pick::All => in_order(index, &args.paths.paths),
        _ => docs,
    };
    let m = compute_docs(index, &docs, measure, fps.as_ref());
    let format = resolve_format(args.format, args.output.as_deref());
    let csv = format == MatrixFormat::Csv;
    let doc = |i: usize| index.docs().at(docs[i] as usize);
    let ids: Vec<String> = (0..docs.len()).map(|i| doc(i).id.clone()).collect();
    let titles: Vec<String> = (0..docs.len())
        .map(|i| doc(i).title().to_string())
        .collect();
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
        MatrixFormat::Csv => write_csv(out, &strs(&ids), &m, &cell),
        // Hamming distances are not similarities: only their header is styled.
        _ => write_table(
            out,
            (&strs(&ids), &strs(&titles)),
            &m,
            &cell,
            measure != Measure::Hamming,
        ),
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
        let doc = index.docs().at(d as usize);
        let found = doc
            .source
            .path()
            .and_then(|p| roots.iter().position(|r| p.starts_with(r)));
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

/// The strings of `v`, borrowed.
fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}
