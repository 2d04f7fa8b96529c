//! `simtui pairs`: every near-duplicate pair of a corpus, headless.

use super::args::{IndexArgs, MethodArgs, PathArgs};
use super::color::Paint;
use super::output::{Format, csv_field, with_stdout, write_pairs};
use clap::Args;
use simtui::index::{Found, Index, Pair};
use simtui::method::Engine;
use simtui::progress::Stage;
use std::io::{self, Write};
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct PairsArgs {
    #[command(flatten)]
    pub paths: PathArgs,
    #[command(flatten)]
    pub index: IndexArgs,
    #[command(flatten)]
    pub method: MethodArgs,
    #[command(flatten)]
    pub store: super::index_cmd::StoreArgs,
    /// Keep pairs with exact Jaccard similarity at least this
    ///
    /// The default, 0, keeps every candidate pair.
    #[arg(short = 't', long, default_value_t = 0.0)]
    pub threshold: f64,
    /// Output format: auto, table, jsonl or csv
    ///
    /// auto: a table on a terminal (coloured as --color says), JSON Lines when piped.
    #[arg(long, value_enum, default_value_t = Format::Auto, hide_possible_values = true)]
    pub format: Format,
    /// Print counts and per-stage times to stderr
    #[arg(long)]
    pub stats: bool,
    /// Exit with status 1 when no pair is output
    #[arg(long)]
    pub fail_empty: bool,
    // -v (skipped files on stderr) is the global --verbose: see cli::diag.
}

pub fn run(args: &PairsArgs) -> anyhow::Result<()> {
    super::check_similarity("--threshold", args.threshold)?;
    let start = Instant::now();
    // -vv: when each stage finishes.
    let progress = super::diag::StageLog::default();
    let (engine, walk_time) = super::index_cmd::engine(
        &args.paths.paths,
        &args.store,
        &args.index,
        &args.method,
        &progress,
    )?;
    let index = &engine.index;
    let found = engine.find(args.threshold, &progress)?;
    let format = args.format.resolve();
    if engine.fingerprints.is_some() {
        with_stdout(|out| write_simhash_pairs(out, &engine, &found.pairs, format))?;
    } else {
        with_stdout(|out| write_pairs(out, index, &found.pairs, format))?;
    }
    if args.stats {
        eprint!(
            "{}",
            stats_report(index, &found, args.threshold, walk_time, start.elapsed())
        );
    }
    if args.fail_empty && found.pairs.is_empty() {
        return Err(super::NoResult(format!("no pair with J >= {}", args.threshold)).into());
    }
    Ok(())
}

/// Writes SimHash pairs: the Hamming distance of their fingerprints in place of the
/// MinHash estimate (SimHash computes no MinHash signatures).
pub fn write_simhash_pairs(
    out: &mut dyn Write,
    engine: &Engine,
    pairs: &[Pair],
    format: Format,
) -> io::Result<()> {
    let id = |i: u32| engine.index.docs[i as usize].id.as_str();
    let hamming = |p: &Pair| engine.hamming(p.a, p.b).expect("a SimHash engine");
    match format {
        Format::Jsonl | Format::Auto => {
            for p in pairs {
                let obj = serde_json::json!({
                    "a": id(p.a),
                    "b": id(p.b),
                    "jaccard": p.jaccard,
                    "hamming": hamming(p),
                });
                writeln!(out, "{obj}")?;
            }
        }
        Format::Csv => {
            writeln!(out, "a,b,jaccard,hamming")?;
            for p in pairs {
                let (a, b) = (csv_field(id(p.a)), csv_field(id(p.b)));
                writeln!(out, "{a},{b},{},{}", p.jaccard, hamming(p))?;
            }
        }
        Format::Table => {
            let paint = Paint::stdout();
            let wa = pairs
                .iter()
                .map(|p| id(p.a).chars().count())
                .max()
                .unwrap_or(1);
            let header = format!(
                "{:>6}  {:>7}  {:>7}  {:<wa$}  b",
                "rank", "jaccard", "hamming", "a"
            );
            writeln!(out, "{}", paint.bold(&header))?;
            for (i, p) in pairs.iter().enumerate() {
                let jaccard = paint.similarity(p.jaccard, &format!("{:>7.4}", p.jaccard));
                writeln!(
                    out,
                    "{:>6}  {jaccard}  {:>7}  {:<wa$}  {}",
                    i + 1,
                    hamming(p),
                    id(p.a),
                    id(p.b)
                )?;
            }
        }
    }
    Ok(())
}

fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

/// The `--stats` report: counts and wall time per stage.
pub fn stats_report(
    index: &Index,
    found: &Found,
    threshold: f64,
    walk: Duration,
    total: Duration,
) -> String {
    let s = &index.stats;
    let mut out = String::new();
    let mut line = |k: &str, v: String| out.push_str(&format!("{k:<12}{v}\n"));
    line(
        "documents",
        format!(
            "{} read, {:.1} MB, {} tokens",
            s.docs,
            s.bytes as f64 / 1e6,
            s.tokens
        ),
    );
    let skips = index
        .skipped
        .iter()
        .fold(std::collections::BTreeMap::new(), |mut m, sk| {
            *m.entry(sk.reason.name()).or_insert(0usize) += 1;
            m
        });
    let skip_text = if skips.is_empty() {
        "0".to_string()
    } else {
        skips
            .iter()
            .map(|(r, n)| format!("{r} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    line("skipped", skip_text);
    line("empty", s.empty.to_string());
    if s.renamed > 0 {
        line(
            "renamed",
            format!("{} documents whose ids clashed, as ID@FILE:LINE", s.renamed),
        );
    }
    line("distinct", format!("{} contents", s.groups));
    line(
        "shingles",
        format!("{} (k = {})", s.shingles, index.params.k),
    );
    line(
        "candidates",
        format!(
            "{} pairs ({} between distinct contents)",
            found.candidates, found.group_candidates
        ),
    );
    line(
        "pairs",
        format!("{} with J >= {threshold}", found.pairs.len()),
    );
    let t = &s.times;
    line(
        "time",
        format!(
            "walk {} | read {} | shingle {} | sketch {} | band {} | verify {} | total {}",
            secs(walk),
            secs(t.get(Stage::Read)),
            secs(t.get(Stage::Shingle)),
            secs(t.get(Stage::Sketch)),
            secs(found.band_time),
            secs(found.verify_time),
            secs(total)
        ),
    );
    out
}
