//! `simtui eval`: how much LSH finds, against the exact truth or a planted-pairs file.

use super::args::{IndexArgs, MethodArgs, PathArgs};
use super::eval_report::{Report, Sweeping};
use crate::output::color::Paint;
use crate::output::error::Interrupted;
use crate::output::format::{Format, with_stdout};
use clap::Args;
use simtui_engine::analysis::candidates::candidates_estimate;
use simtui_engine::analysis::eval::{THRESHOLDS, Truth, bandings, score};
use simtui_engine::analysis::exact::{Limits, all_pairs};
use simtui_engine::analysis::method::{Engine, Method};
use simtui_engine::error::Error;
use simtui_engine::index::{Index, Keep, Params};
use simtui_engine::progress::{Progress, Stage};
use simtui_engine::search::curve::{DEFAULT_FUNCTIONS, for_threshold, threshold};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct EvalArgs {
    #[command(flatten)]
    pub paths: PathArgs,
    #[command(flatten)]
    pub index: IndexArgs,
    #[command(flatten)]
    pub method: MethodArgs,
    #[command(flatten)]
    pub memory: super::args::MemoryArgs,
    /// Repeat over this many seeds, reporting mean ± sd
    ///
    /// The runs use --seed, --seed + 1, ...; each number is reported as its mean ±
    /// standard deviation over the runs.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    /// Also try every (b, r) with b·r = --bands × --rows (128)
    ///
    /// The banding -t chooses (as in every command, and `simtui curve --threshold`
    /// recommends) is tried too, and marked. Each row is printed as it finishes; Ctrl-C
    /// keeps the rows printed. A banding whose candidates would pass --max-candidates is
    /// skipped, with a note.
    #[arg(long)]
    pub sweep: bool,
    /// With --sweep: try these bandings instead, e.g. 16x8,32x4,8x16
    #[arg(long, value_delimiter = ',', value_name = "BxR")]
    pub bandings: Option<Vec<String>>,
    /// With --sweep: skip a banding of more candidates
    ///
    /// Estimated before any candidate is verified, from the banding's buckets (their
    /// pairs, summed over the bands, scaled down by a sample of them to the distinct
    /// pairs of contents). A banding past N is skipped with a note on stderr; a larger N
    /// includes it.
    #[arg(long, value_name = "N", default_value_t = 2_000_000)]
    pub max_candidates: u64,
    /// Similarity the banding and precision are for
    ///
    /// Without -b/-r, the banding is the one -t chooses in every command and the explorer
    /// at s = T (said on stderr); the sweep marks it, and its precision column is at T.
    #[arg(short = 't', long, default_value_t = 0.8)]
    pub threshold: f64,
    /// Score against a planted-pairs file instead of brute force
    ///
    /// JSON Lines with "a" and "b" (document ids), as `simtui gen` writes.
    #[arg(long, value_name = "FILE")]
    pub truth: Option<std::path::PathBuf>,
    /// Also write the exact pairs to FILE, as JSON Lines
    ///
    /// Every document pair with J >= the lowest threshold, as {"a","b","jaccard"}.
    #[arg(long, value_name = "FILE")]
    pub write_truth: Option<std::path::PathBuf>,
    /// Output format: auto, table or jsonl
    ///
    /// auto: a table on a terminal (coloured as --color says), JSON Lines when piped.
    /// (csv is accepted and prints the table.)
    #[arg(long, value_enum, default_value_t = Format::Auto, hide_possible_values = true)]
    pub format: Format,
}

/// Remembers the stage reached and stops on Ctrl-C, so an interrupted run can say how
/// far it got; draws the run's progress.
struct Tracker {
    cancel: AtomicBool,
    stage: AtomicU64,
    done: AtomicU64,
    total: AtomicU64,
    run: crate::output::progress::Run,
}

impl Progress for Tracker {
    fn update(&self, stage: Stage, done: u64, total: u64) {
        self.run.update(stage, done, total);
        self.stage.store(stage as u64, Ordering::Relaxed);
        self.done.store(done, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
    }
    fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

impl Tracker {
    fn where_(&self, what: &str) -> String {
        let stage = Stage::ALL[self.stage.load(Ordering::Relaxed) as usize];
        format!(
            "interrupted while {what} ({} {} of {})",
            stage.name(),
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed)
        )
    }
}

/// Writes every exact pair as document pairs (identical documents included, J = 1).
fn write_truth(
    index: &Index,
    exact: &simtui_engine::analysis::exact::ExactPairs,
    path: &std::path::Path,
) -> anyhow::Result<()> {
    crate::output::file::write_file(path, |out| write_exact(index, exact, out))
}

/// The lines of [`write_truth`].
fn write_exact(
    index: &Index,
    exact: &simtui_engine::analysis::exact::ExactPairs,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let id = |d: u32| index.docs().id(d as usize);
    let mut line = |a: u32, b: u32, j: f64| -> std::io::Result<()> {
        let (a, b) = if id(a) <= id(b) { (a, b) } else { (b, a) };
        writeln!(
            out,
            "{}",
            serde_json::json!({"a": id(a), "b": id(b), "jaccard": j})
        )
    };
    for g in 0..index.shingles().len() as u32 {
        if index.pairs_within(g) > 0 {
            let m = index.members(g);
            for (i, &a) in m.iter().enumerate() {
                for &b in &m[i + 1..] {
                    line(a, b, 1.0)?;
                }
            }
        }
    }
    for p in &exact.pairs {
        for &a in index.members(p.a) {
            for &b in index.members(p.b) {
                line(a, b, p.jaccard)?;
            }
        }
    }
    Ok(())
}

fn parse_banding(s: &str) -> Result<(usize, usize), crate::output::error::UsageError> {
    let bad = || {
        crate::output::error::UsageError(format!("--bandings wants BxR pairs like 16x8, got {s:?}"))
    };
    let (b, r) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let (b, r): (usize, usize) = (
        b.trim().parse().map_err(|_| bad())?,
        r.trim().parse().map_err(|_| bad())?,
    );
    if b == 0 || r == 0 {
        return Err(bad());
    }
    super::args::check_banding(b, r, &format!("--bandings {s}"))?;
    Ok((b, r))
}

/// The signals that stop a long evaluation early, cleanly (it says how far it got).
const STOP_SIGNALS: [i32; 3] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
];

pub fn run(args: &EvalArgs, startup: &super::startup::Startup) -> anyhow::Result<()> {
    super::check_similarity("--threshold", args.threshold)?;
    args.index.check()?;
    if let Some(file) = &args.write_truth {
        crate::output::file::check_output_file(file)?;
    }
    (crate::output::guard::Paths::new().inputs("the input", &args.paths.paths))
        .input("--truth", args.truth.as_deref())
        .output("--write-truth", args.write_truth.as_deref())
        .check()?;
    let minhash = matches!(args.method.method, super::args::MethodArg::Minhash);
    if !minhash && (args.sweep || args.bandings.is_some()) {
        return Err(crate::output::error::UsageError(
            "--sweep and --bandings try MinHash bandings; they do not apply to --method simhash"
                .into(),
        )
        .into());
    }
    // -t without -b/-r: the banding every command chooses for T, said once the corpus is
    // found (the explorer at s = T bands so too, and its panel counts as eval does).
    let mut index_args = args.index.clone();
    let note = super::banding::for_t(
        args.method.method,
        args.threshold,
        &mut index_args,
        startup.banding_given,
    );
    let method = args.method.method(&index_args)?;
    let simhash = !minhash;
    if let Some(truth) = &args.truth {
        // A regular file within a limit, checked before any work: a FIFO would block
        // the read, a device never end it.
        use crate::input::side_input;
        side_input::open(truth, side_input::WHOLE_FILE_LIMIT).map_err(|why| {
            crate::output::error::UsageError(side_input::named("--truth", truth, &why))
        })?;
    }
    let (bands, rows) = (index_args.bands as usize, index_args.rows as usize);
    // What -t chooses, whatever the functions of the banding asked for.
    let chosen = for_threshold(args.threshold, DEFAULT_FUNCTIONS).banding;
    let chosen = (chosen.bands, chosen.rows);
    let mut sweep: Vec<(usize, usize)> = match &args.bandings {
        Some(list) => list
            .iter()
            .map(|s| parse_banding(s))
            .collect::<Result<_, _>>()?,
        None if args.sweep => {
            // Every b·r = N of the banding given (16 × 8 by default, even when -t chose
            // another), and the banding -t chooses.
            let mut all = bandings((args.index.bands * args.index.rows) as usize);
            all.push(chosen);
            all
        }
        None => Vec::new(),
    };
    sweep.sort_unstable();
    sweep.dedup();
    // b·r functions, as `simtui pairs -b B -r R` computes: each setting of the sweep gets
    // signatures of its own width (an OPH signature's bins depend on their number).
    let params = args.method.params(&index_args);

    let tracker = Arc::new(Tracker {
        cancel: AtomicBool::new(false),
        stage: AtomicU64::new(0),
        done: AtomicU64::new(0),
        total: AtomicU64::new(0),
        run: args.memory.run()?,
    });
    {
        let t = tracker.clone();
        // Best effort: without the handlers a signal keeps its default action.
        if let Ok(mut signals) = signal_hook::iterator::Signals::new(STOP_SIGNALS) {
            std::thread::spawn(move || {
                if signals.forever().next().is_some() {
                    t.cancel.store(true, Ordering::Relaxed);
                }
            });
        }
    }
    let interrupted = |what: &str| interrupted(tracker.where_(what));

    let start = Instant::now();
    let budget = tracker.run.budget().clone();
    let (mut engine, _) = super::corpus::build(
        &args.paths.paths,
        &args.index,
        &params,
        method,
        (&budget, Keep::AllButLabels),
        &*tracker,
    )
    .map_err(|e| match e.downcast_ref::<Error>() {
        Some(Error::Cancelled) => interrupted("indexing"),
        _ => e,
    })?;
    let built = start.elapsed();
    if let Some(warning) = super::corpus::check_id_field(&engine.index, &args.index)? {
        crate::output::diag::note(0, warning);
    }
    tracker.run.suspend(|| super::banding::say("eval", note));

    let t = Instant::now();
    let truth = truth(args, &engine.index, &tracker, &interrupted)?;
    let truth_time = t.elapsed();

    let mut thresholds = THRESHOLDS.to_vec();
    if !thresholds.contains(&args.threshold) {
        thresholds.push(args.threshold);
        thresholds.sort_by(f64::total_cmp);
    }
    let method_fields = match method {
        Method::MinHash { .. } => {
            serde_json::json!({"method": "minhash", "bands": bands, "rows": rows})
        }
        Method::SimHash {
            hasher,
            max_distance,
        } => serde_json::json!({
            "method": "simhash", "bits": hasher.bits(), "weight": hasher.weight().name(),
            "max_distance": max_distance,
        }),
    };
    let format = args.format.resolve();
    let report = Report {
        runs: args.runs,
        threshold: args.threshold,
        format,
        // Coloured as `pairs`' table: only the table (`--format csv` prints it too, for
        // lack of a CSV form, and stays plain).
        paint: if format == Format::Table {
            Paint::stdout()
        } else {
            Paint::off()
        },
        thresholds,
        banding: (bands, rows),
        simhash,
        chosen,
        seed: params.seed,
        method_fields,
        heading: heading(&engine.index, args, &params, method),
    };
    let mut sweeping = Sweeping::new(sweep);
    let stopped = with_stdout(|out| {
        let stopped = evaluate(
            out,
            &mut engine,
            &truth,
            args,
            &report,
            &mut sweeping,
            &tracker,
        )?;
        tracker.run.finish();
        if report.format != Format::Jsonl && !sweeping.settings.is_empty() {
            report.sweep_footer(out)?;
        }
        if stopped.is_none() && report.format != Format::Jsonl {
            let runs = &sweeping.runs;
            writeln!(
                out,
                "time: index {:.2} s, truth {:.2} s, {}+verify {:.2} s per run",
                built.as_secs_f64(),
                truth_time.as_secs_f64(),
                if simhash { "block tables" } else { "banding" },
                runs.iter().map(|r| r.1.as_secs_f64()).sum::<f64>() / runs.len() as f64
            )?;
        }
        Ok(stopped)
    })?;
    match stopped {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// An interruption (Ctrl-C, SIGTERM, SIGHUP) and how far the run got: exit code 130, as
/// the explorer's.
fn interrupted(where_: String) -> anyhow::Error {
    anyhow::Error::new(Interrupted).context(where_)
}

/// The pairs LSH is scored against: a planted-pairs file, or every pair with J at least
/// the lowest threshold (written to --write-truth if asked).
fn truth(
    args: &EvalArgs,
    index: &Index,
    tracker: &Tracker,
    interrupted: &dyn Fn(&str) -> anyhow::Error,
) -> anyhow::Result<Truth> {
    if let Some(path) = &args.truth {
        let planted = simtui_gen::read_truth(path)
            .map_err(|e| crate::output::error::UsageError(format!("{e:#}")))?;
        let (truth, missing) =
            Truth::from_ids(index, planted.iter().map(|p| (p.a.as_str(), p.b.as_str())));
        if !missing.is_empty() {
            crate::output::diag::say(format_args!(
                "simtui eval: {} planted ids are not documents of the corpus (first: {})",
                missing.len(),
                missing[0]
            ));
        }
        return Ok(truth);
    }
    let floor = THRESHOLDS[0].min(args.threshold).max(1e-9);
    match all_pairs(index, floor, &Limits::default(), tracker) {
        Ok(exact) => {
            if let Some(path) = &args.write_truth {
                write_truth(index, &exact, path)?;
            }
            Ok(Truth::from_exact(&exact))
        }
        Err(Error::Cancelled) => Err(interrupted("computing the exact pairs")),
        Err(e) => Err(e.into()),
    }
}

/// The first line of the table: the corpus, the shingles, how candidates are found and
/// what they are scored against.
fn heading(index: &Index, args: &EvalArgs, params: &Params, method: Method) -> String {
    let s = index.stats();
    let candidates_by = match method {
        Method::MinHash { bands, rows } => format!(
            "{} {bands}x{rows} (threshold {:.3})",
            params.sketch.name(),
            threshold(bands, rows)
        ),
        Method::SimHash {
            hasher,
            max_distance,
        } => format!(
            "simhash {} bits {}, distance <= {max_distance}",
            hasher.bits(),
            hasher.weight().name()
        ),
    };
    let source = if args.truth.is_some() {
        "planted pairs"
    } else {
        "exact all pairs"
    };
    format!(
        "{} documents ({} distinct), k = {} {}, {candidates_by}, truth: {source}, {} run(s)",
        s.docs,
        s.groups,
        params.k,
        params.text.unit.name(),
        args.runs
    )
}

/// The runs and the sweep, each result written as soon as it is complete: JSON Lines a
/// line per run and setting; the table its rows of means once the last run has scored
/// them. An interruption ends it early with what was written kept (returned, to say after
/// the footer); other errors end it at once.
fn evaluate(
    out: &mut dyn std::io::Write,
    engine: &mut Engine,
    truth: &Truth,
    args: &EvalArgs,
    report: &Report,
    sweeping: &mut Sweeping,
    tracker: &Tracker,
) -> std::io::Result<Option<anyhow::Error>> {
    let stop = |what: String, e: Error| -> anyhow::Error {
        match e {
            Error::Cancelled => interrupted(format!(
                "{}; the rows printed are complete",
                tracker.where_(&what)
            )),
            e => e.into(),
        }
    };
    // The sweep's settings by width, so that each width is sketched once a run.
    let mut order: Vec<usize> = (0..sweeping.settings.len()).collect();
    order.sort_by_key(|&i| sweeping.settings[i].0 * sweeping.settings[i].1);
    let (b0, r0) = report.banding;
    for run in 0..args.runs as u64 {
        let last = run + 1 == args.runs as u64;
        let seed = report.seed + run;
        if run > 0
            && let Err(e) = engine.reseed(seed, tracker)
        {
            return Ok(Some(stop(format!("run {}", run + 1), e)));
        }
        let t = Instant::now();
        let found = match engine.find(0.0, tracker) {
            Ok(found) => found,
            Err(e) => return Ok(Some(stop(format!("run {}", run + 1), e))),
        };
        let mut scores = score(&engine.index, truth, &found, b0, r0, &report.thresholds);
        if report.simhash {
            // The S-curve is MinHash banding's; SimHash's candidate rate depends on the
            // angle between term-frequency vectors, not on J, so there is no prediction.
            scores.iter_mut().for_each(|s| s.predicted = f64::NAN);
        }
        sweeping.runs.push((scores, t.elapsed()));
        tracker.run.suspend(|| -> std::io::Result<()> {
            if report.format == Format::Jsonl {
                report.run_lines(out, run, &sweeping.runs[run as usize].0)?;
            } else if last {
                report.main_table(out, &sweeping.runs)?;
                if !sweeping.settings.is_empty() {
                    writeln!(out)?;
                    report.sweep_header(out)?;
                }
            }
            out.flush()
        })?;
        let mut at_width: Option<Index> = None;
        for &i in &order {
            let (b, r) = sweeping.settings[i];
            let what = format!("the sweep at {b}x{r}");
            if sweeping.skipped[i].is_some() {
                continue;
            }
            if at_width.as_ref().is_none_or(|x| x.num_perm() != b * r) {
                match engine.index.with_width(b * r, tracker) {
                    Ok(index) => at_width = Some(index),
                    Err(e) => return Ok(Some(stop(what, e))),
                }
            }
            let index = at_width.as_ref().expect("sketched just above");
            if run == 0 {
                let about = match candidates_estimate(index, b, r) {
                    Ok(about) => about,
                    Err(e) => return Ok(Some(stop(what, e))),
                };
                if about > args.max_candidates {
                    sweeping.skipped[i] = Some(about);
                    tracker.run.suspend(|| {
                        crate::output::diag::say(format_args!(
                            "simtui eval: skipped {b}x{r} in the sweep: about {about} candidates \
                             (estimated from its buckets), over --max-candidates {}; a larger \
                             --max-candidates includes it",
                            args.max_candidates
                        ))
                    });
                    continue;
                }
            }
            let t = Instant::now();
            let found = match index.find(b, r, 0.0, tracker) {
                Ok(found) => found,
                Err(e) => return Ok(Some(stop(what, e))),
            };
            let time = t.elapsed();
            let scores = score(index, truth, &found, b, r, &report.thresholds);
            sweeping.scores[i].push((scores, time));
            tracker.run.suspend(|| -> std::io::Result<()> {
                if report.format == Format::Jsonl {
                    report.sweep_lines(out, run, (b, r), sweeping.scores[i].last().unwrap())?;
                } else if last {
                    report.sweep_row(out, (b, r), &sweeping.scores[i])?;
                }
                out.flush()
            })?;
        }
    }
    Ok(None)
}
