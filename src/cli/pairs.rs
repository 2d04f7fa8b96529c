//! `simtui pairs`: every near-duplicate pair of a corpus, headless.

use super::args::{IndexArgs, MethodArgs, PathArgs};
use crate::output::format::{Format, with_stdout};
use crate::output::pairs::{Second, write_pairs};
use clap::Args;
use simtui::index::{Found, Index};
use simtui::progress::Stage;
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
    // -v (skipped files on stderr) is the global --verbose: see output::diag.
}

pub fn run(args: &PairsArgs) -> anyhow::Result<()> {
    super::check_similarity("--threshold", args.threshold)?;
    let start = Instant::now();
    // -vv: when each stage finishes.
    let progress = crate::output::diag::StageLog::default();
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
        with_stdout(|out| {
            write_pairs(
                out,
                &engine.index,
                &found.pairs,
                format,
                Second::Hamming(&engine),
            )
        })?;
    } else {
        with_stdout(|out| write_pairs(out, index, &found.pairs, format, Second::Estimate))?;
    }
    if args.stats {
        eprint!(
            "{}",
            stats_report(index, &found, args.threshold, walk_time, start.elapsed())
        );
    }
    if args.fail_empty && found.pairs.is_empty() {
        return Err(crate::output::error::NoResult(format!(
            "no pair with J >= {}",
            args.threshold
        ))
        .into());
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
