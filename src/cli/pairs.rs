//! `simtui pairs`: every near-duplicate pair of a corpus, headless.

use super::args::PathArgs;
use super::corpus::{CorpusArgs, Purpose};
use crate::output::file::{check_output_file, with_output};
use crate::output::format::{Format, Resolved, ResultFormat, printable};
use crate::output::pairs::{Second, write_pair_stream};
use clap::Args;
use simtui_engine::index::Index;
use simtui_engine::index::Keep;
use simtui_engine::progress::Stage;
use simtui_engine::search::found::{Found, Search};
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct PairsArgs {
    #[command(flatten)]
    pub paths: PathArgs,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    /// Keep pairs with exact Jaccard similarity at least this
    ///
    /// The default, 0, keeps every candidate pair. Without -b/-r, the banding is chosen
    /// for T (said on stderr): the one with the fewest false candidates whose S-curve at T
    /// reaches 0.9 within 128 functions; with -b/-r whose S-curve at T is below 0.9, a
    /// warning gives a banding that reaches it.
    #[arg(short = 't', long, default_value_t = 0.0)]
    pub threshold: f64,
    /// Output format: auto, table, jsonl, csv or parquet
    ///
    /// auto: a table on a terminal (coloured as --color says), JSON Lines when piped;
    /// with -o FILE, Parquet for a .parquet name, CSV for .csv, else JSON Lines. parquet:
    /// columns a, b (ids), jaccard and estimate (float64; hamming, uint32, with --method
    /// simhash), in row groups of 65,536 pairs; never onto a terminal.
    #[arg(long, value_enum, default_value_t = ResultFormat::Auto, hide_possible_values = true)]
    pub format: ResultFormat,
    /// Write the pairs to FILE instead of standard output
    ///
    /// Written under a temporary name beside FILE and renamed when complete: an error
    /// leaves no half-written FILE. FILE's folder must exist; FILE is replaced if it exists.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Print counts and per-stage times to stderr
    #[arg(long)]
    pub stats: bool,
    /// Exit with status 1 when no pair is output
    #[arg(long)]
    pub fail_empty: bool,
    /// Write at most N pairs (with more: stop, say so, exit status 1)
    ///
    /// The first N lines of the whole output, except where a band's bucket holds 1,000
    /// contents or more: those buckets' candidates are then verified in a fixed order
    /// only until N pairs are found in all, and the N written are the first N of the
    /// pairs found by then (the same whatever --memory or the threads; the note says so).
    #[arg(long, value_name = "N")]
    pub max_pairs: Option<u64>,
    /// Leave out buckets of more than N contents (reported on stderr)
    ///
    /// A band's bucket of N contents holds N(N-1)/2 candidate pairs: many near-identical
    /// copies of one page. Buckets of 1,000 contents or more are reported either way.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(2..))]
    pub max_bucket: Option<u64>,
    #[command(flatten)]
    pub against: super::against::AgainstArgs,
    // -v (skipped files on stderr) is the global --verbose: see output::diag.
}

pub fn run(args: &PairsArgs, startup: &super::startup::Startup) -> anyhow::Result<()> {
    let roots = &args.paths.paths;
    args.corpus.check(Some(args.threshold))?;
    // Where and how the pairs go is checked before any work.
    let output = args.output.as_deref();
    let resolved = args.format.resolve(output)?;
    if let Some(file) = output {
        check_output_file(file)?;
    }
    let reference = args.against.against.as_deref();
    (args.corpus.paths(roots))
        .input("--against", reference)
        .output("-o", output)
        .check()?;
    let start = Instant::now();
    let purpose = Purpose::at("pairs", args.threshold, startup, Keep::ToSearch);
    let index_args = args.corpus.index.clone();
    // With --against, the documents 0..n are the reference's: only pairs across count.
    let (opened, across) = match reference {
        Some(r) => {
            let with = super::against::open(&args.corpus, roots, r, index_args, purpose)?;
            (with.opened, Some(with.reference as u32))
        }
        None => (args.corpus.open(roots, index_args, purpose)?, None),
    };
    let (engine, progress, walk_time) = (&opened.engine, &opened.progress, opened.walk);
    let index = &engine.index;
    let max_bucket = args.max_bucket.map(|n| n as usize);
    let search = engine.search(args.threshold, max_bucket, progress)?;
    report_huge_buckets(index, &search, max_bucket);
    let second = if engine.index.fingerprints().is_some() {
        Second::Hamming(engine)
    } else {
        Second::Estimate
    };
    let budget = progress.budget();
    let sort_budget = if budget.is_limited() {
        (budget.bytes.saturating_sub(index.held()) / 2).clamp(1 << 20, SORT_BUDGET as u64) as usize
    } else {
        SORT_BUDGET
    };
    let natural;
    let rank = match resolved {
        // A table is for people: ids in natural order (numbers as numbers), within each
        // pair and among ties. The other formats keep the engine's order, ids by bytes,
        // as every command and the Spark job write them.
        Resolved::Text(Format::Table) => {
            natural = crate::output::order::natural_rank(index);
            &natural
        }
        _ => index.id_order(),
    };
    // With --max-pairs, the huge buckets' candidates are verified only until that many
    // pairs are found (see Index::doc_pairs_until).
    let mut stream =
        index.doc_pairs_until(&search, sort_budget as u64, progress, rank, args.max_pairs)?;
    progress.finish();
    let total = index.pair_count(&search.group_pairs) + stream.huge_pairs();
    let candidates = search.candidates + stream.huge_candidates();
    let width_a = match resolved {
        Resolved::Text(Format::Table) => a_width(index, &search, stream.id_rank()),
        _ => 0,
    };
    let mut next = || loop {
        let pair = stream
            .next_pair()
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        match (pair, across) {
            (Some(p), Some(n)) if (p.a < n) == (p.b < n) => continue,
            (pair, _) => return Ok(pair),
        }
    };
    let written = with_output(output, |out| match resolved {
        Resolved::Text(format) => write_pair_stream(
            out,
            index,
            &mut next,
            width_a,
            args.max_pairs,
            format,
            second,
        ),
        Resolved::Parquet => {
            crate::output::parquet::write_pairs(out, index, &mut next, args.max_pairs, second)
        }
    })?;
    // A document or similarity that could not be read back from a temporary file (it
    // was written as unknown meanwhile) fails the run rather than passing unnoticed.
    index.check()?;
    let spilled = stream.spilled_bytes();
    if spilled > 0 {
        crate::output::diag::note(
            1,
            format_args!("sorting the pairs used {spilled} bytes of temporary files"),
        );
    }
    progress.finish();
    // Across a reference, only the pairs written are known.
    let total = if across.is_some() { written } else { total };
    if args.stats {
        let found = Found {
            pairs: Vec::new(),
            blocks: Vec::new(),
            candidates,
            group_candidates: search.group_candidates,
            huge: Vec::new(),
            band_time: search.band_time,
            verify_time: search.verify_time,
        };
        crate::output::diag::say(format_args!(
            "{}{:<12}{}",
            stats_report(
                index,
                &found,
                total,
                args.threshold,
                walk_time,
                start.elapsed()
            ),
            "memory",
            crate::output::progress::stats_line(progress.budget()) + &sets_note(index)
        ));
    }
    if let Some(max) = args.max_pairs
        && stream.stopped_early()
    {
        anyhow::bail!(
            "stopped after {max} pairs (--max-pairs {max}): the candidates of the bands' \
             huge buckets were verified only until {max} pairs were found, so these are the \
             first {max} of those found, not necessarily of all pairs"
        );
    }
    if let Some(max) = args.max_pairs
        && across.is_some()
        && written == max
    {
        anyhow::bail!("stopped after {max} pairs across the reference (--max-pairs {max})");
    }
    if let Some(max) = args.max_pairs
        && total > written
        && written == max
    {
        anyhow::bail!("stopped after {max} of {total} pairs (--max-pairs {max})");
    }
    if args.fail_empty && total == 0 {
        return Err(crate::output::error::NoResult(format!(
            "no pair with J >= {}",
            args.threshold
        ))
        .into());
    }
    Ok(())
}

/// What `--stats` adds about where the shingle sets are, when it is worth saying (see
/// [`ShingleSets::note`](simtui_engine::shingle::ShingleSets::note)).
fn sets_note(index: &Index) -> String {
    index
        .shingles()
        .note()
        .map_or(String::new(), |note| format!("; {note}"))
}

/// Memory for sorting the pairs before they are written, at most (less when `--memory`
/// leaves less); past it they are sorted in temporary files (16 million pairs a run).
const SORT_BUDGET: usize = 512 << 20;

/// The width of the table's `a` column: the longest id of a document that comes first
/// in some pair (the earlier id of the two), found from the contents without spelling
/// out the pairs.
fn a_width(index: &Index, search: &Search, rank: &[u32]) -> usize {
    let len = |d: u32| printable(&index.docs().id(d as usize)).chars().count();
    let mut width = 0;
    // Every member of a content of several documents but its last (by id) comes first.
    for g in 0..index.shingles().len() as u32 {
        if index.pairs_within(g) > 0 {
            let members = index.members(g);
            let last = members.iter().max_by_key(|&&d| rank[d as usize]);
            for &d in members {
                if Some(&d) != last {
                    width = width.max(len(d));
                }
            }
        }
    }
    // Members of a huge bucket may come first in pairs taken from it (an upper bound:
    // the width only pads the column).
    for b in search.huge.iter().filter(|b| !b.capped) {
        let docs = b.groups.iter().flat_map(|&g| index.members(g));
        let last = docs.clone().max_by_key(|&&d| rank[d as usize]);
        for d in docs {
            if Some(d) != last {
                width = width.max(len(*d));
            }
        }
    }
    // In a pair of contents, a member comes first when the other content has a later id.
    let latest = |g: u32| index.members(g).iter().map(|&d| rank[d as usize]).max();
    for p in &search.group_pairs {
        for (g, other) in [(p.ga, p.gb), (p.gb, p.ga)] {
            let Some(late) = latest(other) else { continue };
            for &d in index.members(g) {
                if rank[d as usize] < late {
                    width = width.max(len(d));
                }
            }
        }
    }
    width
}

/// Says on stderr which bands found buckets of many contents: the pairs they hold grow
/// as the square of their size, and `--max-bucket` leaves them out. One line a bucket,
/// whatever the number of bands that found it.
fn report_huge_buckets(index: &Index, search: &Search, max_bucket: Option<usize>) {
    let mut seen: Vec<(&[u32], Vec<usize>, bool)> = Vec::new();
    for b in &search.huge {
        match seen.iter_mut().find(|s| s.0 == b.groups.as_slice()) {
            Some(s) => s.1.push(b.band),
            None => seen.push((&b.groups, vec![b.band], b.capped)),
        }
    }
    for (groups, bands, capped) in seen {
        let docs: u64 = groups.iter().map(|&g| index.members(g).len() as u64).sum();
        let n = groups.len() as u64;
        let example = &index.docs().at(index.members(groups[0])[0] as usize).id;
        let bands = match bands.as_slice() {
            [b] => format!("band {b}"),
            all => format!("{} bands", all.len()),
        };
        if !capped {
            crate::output::diag::note(
                0,
                format_args!(
                    "simtui: {bands}: a bucket of {n} contents ({docs} documents, e.g. {example}): {} candidate pairs; --max-bucket N leaves such buckets out",
                    n * (n - 1) / 2
                ),
            );
        } else {
            crate::output::diag::note(
                0,
                format_args!(
                    "simtui: {bands}: a bucket of {n} contents ({docs} documents, e.g. {example}) left out of the candidates (over --max-bucket {})",
                    max_bucket.unwrap_or(0)
                ),
            );
        }
    }
}

fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

/// The `--stats` report: counts and wall time per stage.
pub fn stats_report(
    index: &Index,
    found: &Found,
    pairs: u64,
    threshold: f64,
    walk: Duration,
    total: Duration,
) -> String {
    let s = &index.stats();
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
        .skipped()
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
        format!("{} (k = {})", s.shingles, index.params().k),
    );
    line(
        "candidates",
        format!(
            "{} pairs ({} between distinct contents)",
            found.candidates, found.group_candidates
        ),
    );
    line("pairs", format!("{pairs} with J >= {threshold}"));
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
