//! `simtui eval`: how much LSH finds, against the exact truth or a planted-pairs file.

use super::args::{IndexArgs, MethodArgs, PathArgs};
use crate::output::color::Paint;
use crate::output::format::{Format, with_stdout};
use clap::Args;
use simtui_engine::analysis::eval::{Score, THRESHOLDS, Truth, bandings, mean_sd, score};
use simtui_engine::analysis::exact::{Limits, all_pairs};
use simtui_engine::analysis::method::{Engine, Method};
use simtui_engine::error::Error;
use simtui_engine::index::Index;
use simtui_engine::minhash::curve::{DEFAULT_FUNCTIONS, for_threshold, threshold};
use simtui_engine::progress::{Progress, Stage};
use simtui_engine::source::Corpus;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

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
    /// recommends) is tried too, and marked.
    #[arg(long)]
    pub sweep: bool,
    /// With --sweep: try these bandings instead, e.g. 16x8,32x4,8x16
    #[arg(long, value_delimiter = ',', value_name = "BxR")]
    pub bandings: Option<Vec<String>>,
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
    let id = |d: u32| index.docs()[d as usize].id.as_str();
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
    let simhash = matches!(method, Method::SimHash { .. });
    if simhash && (args.sweep || args.bandings.is_some()) {
        return Err(crate::output::error::UsageError(
            "--sweep and --bandings try MinHash bandings; they do not apply to --method simhash"
                .into(),
        )
        .into());
    }
    if let Some(truth) = &args.truth {
        // A regular file within a limit, checked before any work: a FIFO would block
        // the read, a device never end it.
        use crate::output::side_input;
        side_input::open(truth, side_input::WHOLE_FILE_LIMIT).map_err(|why| {
            crate::output::error::UsageError(side_input::named("--truth", truth, &why))
        })?;
    }
    let (bands, rows) = (index_args.bands as usize, index_args.rows as usize);
    // What -t chooses, whatever the functions of the banding asked for.
    let recommended = for_threshold(args.threshold, DEFAULT_FUNCTIONS).banding;
    let mut sweep: Vec<(usize, usize)> = match &args.bandings {
        Some(list) => list
            .iter()
            .map(|s| parse_banding(s))
            .collect::<Result<_, _>>()?,
        None if args.sweep => {
            // Every b·r = N of the banding given (16 × 8 by default, even when -t chose
            // another), and the banding -t chooses.
            let mut all = bandings((args.index.bands * args.index.rows) as usize);
            all.push((recommended.bands, recommended.rows));
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
    let interrupted = |what: &str| anyhow::anyhow!(tracker.where_(what));

    let start = Instant::now();
    let corpus = Corpus::walk(&args.paths.paths, &args.index.walk_options())
        .map_err(|e| crate::output::error::UsageError(e.to_string()))?;
    let budget = tracker.run.budget().clone();
    let mut engine =
        Engine::build_within(corpus, &params, method, &budget, &*tracker).map_err(|e| match e {
            Error::Cancelled => interrupted("indexing"),
            e => e.into(),
        })?;
    let built = start.elapsed();
    let index = &engine.index;
    if let Some(warning) = super::index_cmd::check_id_field(index, &args.index)? {
        crate::output::diag::note(0, warning);
    }
    super::banding::say("eval", note);

    let t = Instant::now();
    let truth = match &args.truth {
        Some(path) => {
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
            truth
        }
        None => {
            let floor = THRESHOLDS[0].min(args.threshold).max(1e-9);
            match all_pairs(index, floor, &Limits::default(), &*tracker) {
                Ok(exact) => {
                    if let Some(path) = &args.write_truth {
                        write_truth(index, &exact, path)?;
                    }
                    Truth::from_exact(&exact)
                }
                Err(Error::Cancelled) => return Err(interrupted("computing the exact pairs")),
                Err(e) => return Err(e.into()),
            }
        }
    };
    let truth_time = t.elapsed();

    let mut thresholds = THRESHOLDS.to_vec();
    if !thresholds.contains(&args.threshold) {
        thresholds.push(args.threshold);
        thresholds.sort_by(f64::total_cmp);
    }
    // Runs over seeds: each scores the banding asked for and every setting of the sweep
    // with that seed's hash functions.
    let mut runs = Vec::new();
    let mut swept: Vec<Vec<(Vec<Score>, Duration)>> = vec![Vec::new(); sweep.len()];
    for run in 0..args.runs as u64 {
        let stop = |_| interrupted(&format!("run {}", run + 1));
        if run > 0 {
            engine.reseed(params.seed + run, &*tracker).map_err(stop)?;
        }
        let t = Instant::now();
        let found = engine.find(0.0, &*tracker).map_err(stop)?;
        let mut scores = score(&engine.index, &truth, &found, bands, rows, &thresholds);
        if simhash {
            // The S-curve is MinHash banding's; SimHash's candidate rate depends on the
            // angle between term-frequency vectors, not on J, so there is no prediction.
            scores.iter_mut().for_each(|s| s.predicted = f64::NAN);
        }
        runs.push((scores, t.elapsed()));
        // The sweep's settings by width, so that each width is sketched once a run.
        let mut at_width: Option<Index> = None;
        let mut order: Vec<usize> = (0..sweep.len()).collect();
        order.sort_by_key(|&i| sweep[i].0 * sweep[i].1);
        for i in order {
            let (b, r) = sweep[i];
            let stop = |_| interrupted(&format!("the sweep at {b}x{r}"));
            if at_width.as_ref().is_none_or(|x| x.num_perm() != b * r) {
                at_width = Some(engine.index.with_width(b * r, &*tracker).map_err(stop)?);
            }
            let index = at_width.as_ref().expect("sketched just above");
            let t = Instant::now();
            let found = index.find(b, r, 0.0, &*tracker).map_err(stop)?;
            let time = t.elapsed();
            swept[i].push((score(index, &truth, &found, b, r, &thresholds), time));
        }
    }
    let index = &engine.index;
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
    let source = if args.truth.is_some() {
        "planted pairs"
    } else {
        "exact all pairs"
    };
    tracker.run.finish();
    with_stdout(|out| {
        if format == Format::Jsonl {
            for (run, (scores, _)) in runs.iter().enumerate() {
                for s in scores {
                    let mut obj = serde_json::json!({
                        "run": run + 1, "seed": params.seed + run as u64,
                        "threshold": s.threshold, "true_pairs": s.truth, "candidates": s.candidates,
                        "found": s.found, "recall": s.recall, "precision": s.precision, "predicted_recall": s.predicted,
                    });
                    for (k, v) in method_fields.as_object().unwrap() {
                        obj[k] = v.clone();
                    }
                    writeln!(out, "{obj}")?;
                }
            }
            for (&(b, r), per_run) in sweep.iter().zip(&swept) {
                for (run, (scores, time)) in per_run.iter().enumerate() {
                    for s in scores {
                        let obj = serde_json::json!({
                            "sweep": true, "run": run + 1, "seed": params.seed + run as u64,
                            "bands": b, "rows": r, "threshold": s.threshold, "true_pairs": s.truth,
                            "candidates": s.candidates, "found": s.found, "recall": s.recall, "precision": s.precision,
                            "predicted_recall": s.predicted, "seconds": time.as_secs_f64(),
                            "recommended": (b, r) == (recommended.bands, recommended.rows),
                        });
                        writeln!(out, "{obj}")?;
                    }
                }
            }
            return Ok(());
        }
        // Coloured as `pairs`' table: bold headers, and recall on the same scale as a
        // similarity (green from 0.9, yellow from 0.5). Only the table: `--format csv`
        // prints it too, for lack of a CSV form, and stays plain.
        let paint = if format == Format::Table {
            Paint::stdout()
        } else {
            Paint::off()
        };
        let s = &index.stats();
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
        writeln!(
            out,
            "{} documents ({} distinct), k = {} {}, {candidates_by}, truth: {source}, {} run(s)",
            s.docs,
            s.groups,
            params.k,
            params.text.unit.name(),
            runs.len()
        )?;
        let header = format!(
            "{:>5}  {:>10}  {:>10}  {:>10}  {:>15}  {:>15}  {:>15}",
            "J >=", "true pairs", "candidates", "found", "recall", "precision", "S-curve recall"
        );
        writeln!(out, "{}", paint.bold(&header))?;
        for (i, &t) in thresholds.iter().enumerate() {
            let mean_text = |f: &dyn Fn(&simtui_engine::analysis::eval::Score) -> f64,
                             count: bool| {
                let xs: Vec<f64> = runs.iter().map(|(sc, _)| f(&sc[i])).collect();
                let (m, sd) = mean_sd(&xs);
                let text = match (runs.len() > 1, count) {
                    _ if m.is_nan() => "-".to_string(),
                    (false, true) => format!("{m:.0}"),
                    (false, false) => format!("{m:.4}"),
                    (true, true) => format!("{m:.1} ± {sd:.1}"),
                    (true, false) => format!("{m:.4} ± {sd:.4}"),
                };
                (m, text)
            };
            let col = |f: &dyn Fn(&simtui_engine::analysis::eval::Score) -> f64, count: bool| {
                mean_text(f, count).1
            };
            // Padded before painting, so escape codes don't count as width.
            let (recall, text) = mean_text(&|s| s.recall, false);
            let recall = paint.similarity(recall, &format!("{text:>15}"));
            let first = &runs[0].0[i];
            writeln!(
                out,
                "{t:>5.2}  {:>10}  {:>10}  {:>10}  {recall}  {:>15}  {:>15}",
                first.truth,
                col(&|s| s.candidates as f64, true),
                col(&|s| s.found as f64, true),
                col(&|s| s.precision, false),
                col(&|s| s.predicted, false),
            )?;
        }
        if !sweep.is_empty() {
            writeln!(out)?;
            write_sweep(out, &paint, args, &sweep, &swept, recommended, &thresholds)?;
        }
        writeln!(
            out,
            "time: index {:.2} s, truth {:.2} s, {}+verify {:.2} s per run",
            built.as_secs_f64(),
            truth_time.as_secs_f64(),
            if simhash { "block tables" } else { "banding" },
            runs.iter().map(|r| r.1.as_secs_f64()).sum::<f64>() / runs.len() as f64
        )?;
        Ok(())
    })?;
    Ok(())
}

/// The sweep's table: one row per setting, each number the mean over the runs (± its
/// standard deviation with more than one run), the banding -t chooses marked.
fn write_sweep(
    out: &mut dyn std::io::Write,
    paint: &Paint,
    args: &EvalArgs,
    sweep: &[(usize, usize)],
    swept: &[Vec<(Vec<Score>, Duration)>],
    recommended: simtui_engine::minhash::curve::Banding,
    thresholds: &[f64],
) -> std::io::Result<()> {
    let several = args.runs > 1;
    let t_i = thresholds
        .iter()
        .position(|&x| x == args.threshold)
        .expect("the threshold is among those scored");
    let (rate_w, count_w) = if several { (15, 17) } else { (7, 10) };
    let mut header = format!(
        "{:>5} {:>4}  {:>9}  {:>count_w$}",
        "b", "r", "threshold", "candidates"
    );
    for t in &THRESHOLDS {
        header.push_str(&format!("  {:>rate_w$}", format!("R@{t}")));
    }
    header.push_str(&format!(
        "  {:>rate_w$}  {:>8}",
        format!("P@{}", args.threshold),
        "time"
    ));
    writeln!(out, "{}", paint.bold(&header))?;
    // (mean, its text) of one number over the runs.
    let over_runs = |per_run: &[(Vec<Score>, Duration)], f: &dyn Fn(&[Score]) -> f64, count| {
        let xs: Vec<f64> = per_run.iter().map(|(s, _)| f(s)).collect();
        let (m, sd) = mean_sd(&xs);
        let text = match (several, count) {
            _ if m.is_nan() => "-".to_string(),
            (false, true) => format!("{m:.0}"),
            (false, false) => format!("{m:.4}"),
            (true, true) => format!("{m:.1} ± {sd:.1}"),
            (true, false) => format!("{m:.4} ± {sd:.4}"),
        };
        (m, text)
    };
    for (&(b, r), per_run) in sweep.iter().zip(swept) {
        let mark = if (b, r) == (recommended.bands, recommended.rows) {
            " *"
        } else {
            ""
        };
        let (_, candidates) = over_runs(per_run, &|s| s[0].candidates as f64, true);
        write!(
            out,
            "{b:>5} {r:>4}  {:>9.3}  {candidates:>count_w$}",
            threshold(b, r)
        )?;
        for t in &THRESHOLDS {
            let at = |s: &[Score]| s.iter().find(|s| s.threshold == *t).unwrap().recall;
            let (recall, text) = over_runs(per_run, &at, false);
            write!(
                out,
                "  {}",
                paint.similarity(recall, &format!("{text:>rate_w$}"))
            )?;
        }
        let (_, precision) = over_runs(per_run, &|s| s[t_i].precision, false);
        let ms =
            per_run.iter().map(|x| x.1.as_secs_f64()).sum::<f64>() * 1e3 / per_run.len() as f64;
        writeln!(out, "  {precision:>rate_w$}  {ms:>6.0}ms{mark}")?;
    }
    let t = args.threshold;
    writeln!(
        out,
        "* the banding -t {t} chooses (pairs, clusters, dedup, eval, the explorer at s = {t}; `simtui curve --threshold {t}`): {}x{}",
        recommended.bands, recommended.rows
    )?;
    if several {
        writeln!(
            out,
            "each setting: mean ± sd over {} runs (seeds {}..={})",
            args.runs,
            args.index.seed,
            args.index.seed + args.runs as u64 - 1
        )?;
    }
    Ok(())
}
