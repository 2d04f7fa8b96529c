//! `simtui pairs`: every near-duplicate pair of a corpus, headless.

use super::args::{IndexArgs, PathArgs};
use super::output::{Format, with_stdout, write_pairs};
use clap::Args;
use simtui::corpus::Corpus;
use simtui::index::{Found, Index};
use simtui::progress::{Silent, Stage};
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct PairsArgs {
    #[command(flatten)]
    pub paths: PathArgs,
    #[command(flatten)]
    pub index: IndexArgs,
    /// Keep pairs whose exact Jaccard similarity is at least this (default: every candidate)
    #[arg(short = 't', long, default_value_t = 0.0)]
    pub threshold: f64,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    pub format: Format,
    /// Print counts and per-stage times to stderr
    #[arg(long)]
    pub stats: bool,
    /// List skipped files on stderr
    #[arg(short, long)]
    pub verbose: bool,
}

pub fn run(args: &PairsArgs) -> anyhow::Result<()> {
    if !(0.0..=1.0).contains(&args.threshold) {
        return Err(super::UsageError(format!(
            "--threshold must be between 0 and 1, got {}",
            args.threshold
        ))
        .into());
    }
    let start = Instant::now();
    let t = Instant::now();
    let corpus = Corpus::walk(&args.paths.paths, &args.index.walk_options())
        .map_err(|e| super::UsageError(e.to_string()))?;
    let walk_time = t.elapsed();
    let index = Index::build(corpus, &args.index.params(), &Silent)?;
    let found = index.find(
        args.index.bands as usize,
        args.index.rows as usize,
        args.threshold,
        &Silent,
    )?;
    let format = args.format.resolve();
    with_stdout(|out| write_pairs(out, &index, &found.pairs, format))?;
    if args.verbose {
        for s in &index.skipped {
            eprintln!("skipped {s}");
        }
    }
    if args.stats {
        eprint!(
            "{}",
            stats_report(&index, &found, args.threshold, walk_time, start.elapsed())
        );
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
