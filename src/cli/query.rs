//! `simtui query`: the nearest neighbours of documents of a corpus, or of files outside it.

use super::corpus::{CorpusArgs, Purpose};
use crate::output::color::Paint;
use crate::output::error::UsageError;
use crate::output::format::printable;
use crate::output::format::{Format, csv_field, with_stdout};
use crate::output::label;
use clap::{Args, ValueEnum};
use rayon::prelude::*;
use simtui_engine::analysis::method::Engine;
use simtui_engine::analysis::query::{Answer, Ask, Probe, Rank, Searcher};
use simtui_engine::source::{self, Corpus, Entry, Source};
use simtui_engine::text::Tokenizer;
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct QueryArgs {
    /// The corpus to search: a folder or a file
    #[arg(id = "corpus", value_name = "CORPUS")]
    pub root: PathBuf,
    /// Ids of CORPUS documents, or files and folders anywhere
    ///
    /// Each file found is a query; a file of CORPUS named by its path is that document.
    #[arg(required = true, value_name = "QUERY")]
    pub queries: Vec<PathBuf>,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    /// Neighbours per query
    #[arg(short = 'n', long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub top: u32,
    /// Fill up to --top neighbours from a brute-force scan when LSH finds fewer
    ///
    /// When a query has fewer than --top candidates, every other document is compared
    /// with it (exact Jaccard) and the most similar fill the list, marked (scan).
    #[arg(long)]
    pub exhaustive: bool,
    /// Only neighbours with exact Jaccard at least T
    ///
    /// Applied before the cut to --top, and to what --exhaustive adds. [default: none,
    /// every candidate]
    #[arg(short = 't', long, value_name = "T")]
    pub threshold: Option<f64>,
    /// Rank neighbours by jaccard or estimate
    ///
    /// jaccard: exact Jaccard, descending. estimate: the signature's estimate,
    /// descending (with --method simhash, the Hamming distance, ascending), as an index
    /// without verification ranks them: the --top kept are the best by it, and J is
    /// still shown, exact.
    #[arg(long, value_enum, value_name = "BY", default_value_t = RankArg::Jaccard, hide_possible_values = true)]
    pub rank: RankArg,
    /// Output format: auto, table, jsonl or csv
    ///
    /// auto: a table on a terminal (coloured as --color says), JSON Lines when piped.
    #[arg(long, value_enum, default_value_t = Format::Auto, hide_possible_values = true)]
    pub format: Format,
    /// Exit with status 1 when no query has a neighbour
    #[arg(long)]
    pub fail_empty: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RankArg {
    Jaccard,
    Estimate,
}

/// One query, resolved.
enum Target {
    /// A document of the corpus.
    Doc(u32),
    /// A file outside it, read when its turn comes.
    File(Entry),
}

struct Query {
    /// As the user named it: a document id, or the path of a file as found.
    label: String,
    target: Target,
}

/// Queries are answered in parallel, this many at a time, and written in order.
const BATCH: usize = 256;

pub fn run(args: &QueryArgs) -> anyhow::Result<()> {
    if let Some(t) = args.threshold {
        super::check_similarity("--threshold", t)?;
    }
    // The saved index, written when missing, is no corpus file and no query.
    let roots = std::slice::from_ref(&args.root);
    (args.corpus.paths(roots))
        .inputs("QUERY", &args.queries)
        .check()?;
    let purpose = Purpose {
        command: "query",
        // -t here only filters the neighbours.
        threshold: None,
        banding_given: false,
        keep: simtui_engine::index::Keep::Everything,
        refuse: None,
    };
    let opened = args
        .corpus
        .open(roots, args.corpus.index.clone(), purpose)?;
    opened.progress.finish();
    let engine = opened.engine;
    let queries = resolve(args, &engine)?;
    let searcher = Searcher::new(&engine)?;
    let top = args.top as usize;
    let ask = Ask {
        top,
        exhaustive: args.exhaustive,
        min_jaccard: args.threshold.unwrap_or(0.0),
        rank: match args.rank {
            RankArg::Jaccard => Rank::Jaccard,
            RankArg::Estimate => Rank::Estimate,
        },
    };
    let format = args.format.resolve();
    let index = &engine.index;
    let simhash = engine.index.fingerprints().is_some();

    let one = queries.len() == 1;
    let mut short = 0usize;
    let mut found = 0usize;
    with_stdout(|out| {
        if format == Format::Csv {
            let measure = if simhash { "hamming" } else { "estimate" };
            writeln!(out, "query,doc,jaccard,{measure},rank")?;
        }
        for batch in queries.chunks(BATCH) {
            let answers: Vec<Result<Answer, String>> = batch
                .par_iter()
                .map_init(
                    || Tokenizer::new(&index.params().text),
                    |tok, q| {
                        let probe = match &q.target {
                            Target::Doc(d) => {
                                Probe::of_doc(&engine, *d).map_err(|e| e.to_string())?
                            }
                            Target::File(e) => match source::read_text(e, index.params().max_bytes)
                            {
                                Ok(text) => Probe::of_text(&engine, tok, &text),
                                Err((reason, _)) => return Err(reason.name().to_string()),
                            },
                        };
                        if probe.shingles.is_empty() {
                            return Err("no tokens".to_string());
                        }
                        searcher.ask(&probe, &ask).map_err(|e| e.to_string())
                    },
                )
                .collect();
            for (q, answer) in batch.iter().zip(answers) {
                match answer {
                    Ok(a) => {
                        short += note_shortfall(&q.label, &a, top, args.exhaustive, one) as usize;
                        found += a.neighbours.len();
                        write_answer(out, &engine, &q.label, &a, format, &ask)?;
                    }
                    Err(why) => crate::output::diag::say(format_args!(
                        "simtui query: {}: skipped ({why})",
                        q.label
                    )),
                }
            }
        }
        Ok(())
    })?;
    if short > 0 && !one {
        let then = if args.exhaustive {
            "filled up from a brute-force scan"
        } else {
            "--exhaustive fills up from a brute-force scan"
        };
        crate::output::diag::say(format_args!(
            "simtui query: {short} of {} queries had fewer than --top {top} candidates; {then} (-v names them)",
            queries.len()
        ));
    }
    if args.fail_empty && found == 0 {
        let what = match queries.as_slice() {
            [q] => q.label.clone(),
            qs => format!("any of {} queries", qs.len()),
        };
        return Err(crate::output::error::NoResult(format!("no neighbour for {what}")).into());
    }
    Ok(())
}

/// Resolves every query before anything is written, so that a bad one is a usage error
/// with nothing on stdout. An id of the corpus wins over a path of the same name.
fn resolve(args: &QueryArgs, engine: &Engine) -> Result<Vec<Query>, UsageError> {
    let docs = &engine.index.docs();
    let by_id: HashMap<String, u32> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.into_owned().id, i as u32))
        .collect();
    // Files of the corpus named by path are its documents (not their own neighbours).
    let mut by_path: Option<HashMap<PathBuf, u32>> = None;
    let walk = args.corpus.index.walk_options();
    let mut out = Vec::new();
    for q in &args.queries {
        let text = q.to_string_lossy();
        if let Some(&d) = by_id.get(text.as_ref()) {
            out.push(Query {
                label: text.into_owned(),
                target: Target::Doc(d),
            });
            continue;
        }
        if !q.exists() {
            return Err(UsageError(format!(
                "{}: neither a document id of {} nor an existing file or folder",
                q.display(),
                args.root.display()
            )));
        }
        let found =
            Corpus::walk(std::slice::from_ref(q), &walk).map_err(|e| UsageError(e.to_string()))?;
        for s in &found.skipped {
            crate::output::diag::note(1, format_args!("skipped query {s}"));
        }
        let by_path = by_path.get_or_insert_with(|| corpus_paths(engine));
        let before = out.len();
        let mut many = Vec::new();
        for entry in found.entries {
            let Source::File(path) = &entry.source else {
                many.push(entry.place());
                continue;
            };
            let label = path.to_string_lossy().into_owned();
            let target = match canonical(path).and_then(|p| by_path.get(&p)) {
                Some(&d) => Target::Doc(d),
                None => Target::File(entry),
            };
            out.push(Query { label, target });
        }
        if out.len() == before {
            // A FIFO, a device, a folder of nothing to query: never an empty success.
            return Err(UsageError(format!(
                "query {}: {}",
                q.display(),
                no_query(q, &many, &found.skipped)
            )));
        }
        for file in many {
            crate::output::diag::note(
                0,
                format_args!(
                    "{}: holds many documents: query by their ids instead",
                    file.display()
                ),
            );
        }
    }
    Ok(out)
}

/// Why a query path gave no query: a file of many documents, what the walk skipped
/// (a FIFO, a device, a link not followed), or nothing in it.
fn no_query(q: &Path, many: &[PathBuf], skipped: &[simtui_engine::Skipped]) -> String {
    match (many.first(), skipped) {
        (Some(file), _) => format!(
            "{} holds many documents: query by their ids instead",
            file.display()
        ),
        (None, [skip]) => {
            let mut why = skip.reason.name().to_string();
            if !skip.detail.is_empty() {
                why.push_str(&format!(" ({})", skip.detail));
            }
            if skip.path != q {
                why = format!("{}: {why}", skip.path.display());
            }
            why
        }
        (None, []) => "no file in it".to_string(),
        (None, more) => format!("{} paths, none a file to query (-v names them)", more.len()),
    }
}

/// The corpus's files by canonical path.
fn corpus_paths(engine: &Engine) -> HashMap<PathBuf, u32> {
    let mut paths = HashMap::new();
    let mut first = 0u32;
    for batch in engine.index.docs().chunks(4096) {
        paths.par_extend(
            batch
                .par_iter()
                .enumerate()
                .filter_map(|(i, d)| match &d.source {
                    Source::File(p) => canonical(p).map(|c| (c, first + i as u32)),
                    _ => None,
                }),
        );
        first += batch.len() as u32;
    }
    paths
}

fn canonical(p: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(p).ok()
}

/// Says when a query has fewer candidates than asked for, and whether it did: on stderr
/// for a single query; with many, at `-v`, and the caller sums them up in one line.
fn note_shortfall(label: &str, a: &Answer, top: usize, exhaustive: bool, one: bool) -> bool {
    if a.candidates >= top {
        return false;
    }
    let scanned = a.neighbours.iter().filter(|n| n.scanned).count();
    let msg = if !exhaustive {
        format!(
            "{} candidate(s), fewer than --top {top} (--exhaustive fills up from a brute-force scan)",
            a.candidates
        )
    } else if a.neighbours.len() < top {
        format!(
            "{} candidate(s) and {scanned} more from a brute-force scan: no other document shares a shingle with it",
            a.candidates
        )
    } else {
        format!(
            "{} candidate(s), filled up to {top} from a brute-force scan",
            a.candidates
        )
    };
    if one {
        crate::output::diag::say(format_args!("simtui query: {label}: {msg}"));
    } else {
        crate::output::diag::note(1, format_args!("simtui query: {label}: {msg}"));
    }
    true
}

fn write_answer(
    out: &mut dyn Write,
    engine: &Engine,
    label: &str,
    a: &Answer,
    format: Format,
    ask: &Ask,
) -> io::Result<()> {
    let id = |d: u32| engine.index.docs().id(d as usize);
    let simhash = engine.index.fingerprints().is_some();
    match format {
        Format::Jsonl | Format::Auto => {
            for (rank, n) in a.neighbours.iter().enumerate() {
                let mut obj = serde_json::json!({
                    "query": label,
                    "doc": id(n.doc),
                    "jaccard": n.jaccard,
                    "rank": rank + 1,
                });
                // SimHash computes no MinHash: its measure is the Hamming distance.
                obj[if simhash { "hamming" } else { "estimate" }] = match n.hamming {
                    Some(h) => h.into(),
                    None => n.estimate.into(),
                };
                writeln!(out, "{obj}")?;
            }
        }
        Format::Csv => {
            for (rank, n) in a.neighbours.iter().enumerate() {
                let measure = match n.hamming {
                    Some(h) => h.to_string(),
                    None => n.estimate.to_string(),
                };
                writeln!(
                    out,
                    "{},{},{},{measure},{}",
                    csv_field(label),
                    csv_field(&id(n.doc)),
                    n.jaccard,
                    rank + 1
                )?;
            }
        }
        Format::Table => {
            // Coloured as `pairs`' table: a bold title and header, J by its value.
            let paint = Paint::stdout();
            let docs = engine.index.docs();
            // A document of the corpus is named by its title too.
            let named = docs
                .iter()
                .find(|d| d.id == label)
                .map(|d| d.title().to_string());
            let about = match named.map(|t| label::title(&t, label::columns(label) + 20)) {
                Some(t) if !t.is_empty() => format!(" ({t})"),
                _ => String::new(),
            };
            let mut title = format!(
                "query {}{about}: {} candidate(s)",
                printable(label),
                a.candidates
            );
            if ask.min_jaccard > 0.0 {
                title.push_str(&format!(", J ≥ {}", ask.min_jaccard));
            }
            if ask.rank == Rank::Estimate {
                let by = if simhash {
                    "Hamming distance"
                } else {
                    "estimate"
                };
                title.push_str(&format!(", ranked by {by}"));
            }
            writeln!(out, "{}", paint.bold(&title))?;
            let measure = if simhash { "hamming" } else { "estimate" };
            // Ids padded to the longest, titles after them.
            let id_w = (a.neighbours.iter())
                .map(|n| label::columns(&id(n.doc)))
                .max()
                .unwrap_or(3)
                .max(3);
            let header = format!(
                "{:>6}  {:>7}  {measure:>8}  {:<id_w$}  title",
                "rank", "jaccard", "doc"
            );
            writeln!(out, "{}", paint.bold(&header))?;
            for (rank, n) in a.neighbours.iter().enumerate() {
                let m = match n.hamming {
                    Some(h) => h.to_string(),
                    None => format!("{:.4}", n.estimate),
                };
                let mark = if n.scanned { "(scan)  " } else { "" };
                // Padded before painting, so escape codes don't count as width.
                let jaccard = paint.similarity(n.jaccard, &format!("{:>7.4}", n.jaccard));
                let named = id(n.doc);
                let name = printable(&named);
                let pad = id_w.saturating_sub(label::columns(&named));
                let used = 6 + 2 + 7 + 2 + 8 + 2 + id_w + 2 + mark.len();
                let doc = engine.index.docs().at(n.doc as usize);
                let title = label::title(doc.title(), used);
                let row = format!(
                    "{:>6}  {jaccard}  {m:>8}  {name}{}  {mark}{}",
                    rank + 1,
                    " ".repeat(pad),
                    label::dim(&paint, &title)
                );
                writeln!(out, "{}", row.trim_end())?;
            }
            writeln!(out)?;
        }
    }
    Ok(())
}
