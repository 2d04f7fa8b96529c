//! `simtui curve`: the S-curve of a banding, or the banding to use for a threshold.

use crate::output::color::Paint;
use crate::output::format::with_stdout;
use clap::Args;
use simtui_engine::search::curve::{
    DEFAULT_FUNCTIONS, WANTED_RECALL, for_threshold, probability, recommend, threshold,
};
use std::io::{self, Write};

#[derive(Args, Debug)]
pub struct CurveArgs {
    /// Bands (b)
    #[arg(short = 'b', long, default_value_t = 16)]
    pub bands: usize,
    /// Rows per band (r)
    #[arg(short = 'r', long, default_value_t = 8)]
    pub rows: usize,
    /// Recommend (b, r) for this threshold instead of printing a curve
    ///
    /// The banding `-t T` chooses in `pairs`, `clusters`, `dedup`, `eval` and the explorer
    /// (at s = T): of those whose S-curve at T reaches 0.9, the one with the fewest false
    /// candidates (the least area under the curve below T); its curve is printed. The
    /// optimum of the weighted areas (--fp-weight, --fn-weight) is shown beside it.
    #[arg(short = 't', long)]
    pub threshold: Option<f64>,
    /// With --threshold: the most hash functions (b·r) to use
    #[arg(long, default_value_t = 128)]
    pub perms: usize,
    /// Weighted optimum: the cost weight of false positives
    #[arg(long, default_value_t = 0.5)]
    pub fp_weight: f64,
    /// Weighted optimum: the cost weight of false negatives
    #[arg(long, default_value_t = 0.5)]
    pub fn_weight: f64,
    /// Steps of s from 0 to 1 in the printed curve
    #[arg(long, default_value_t = 20)]
    pub steps: usize,
    /// Print the estimate's error for N = 16 … 1024 functions
    ///
    /// For each N, the bytes a document's signature takes and the standard error of the
    /// estimate of J (--at), from theory and measured on --pairs generated pairs of sets
    /// of --shingles shingles in all, for classic MinHash and OPH side by side.
    #[arg(long)]
    pub accuracy: bool,
    /// With --accuracy: J of the generated pairs
    #[arg(long, value_name = "J", default_value_t = 0.5)]
    pub at: f64,
    /// With --accuracy: the number of generated pairs
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u32).range(2..))]
    pub pairs: u32,
    /// With --accuracy: shingles of a pair (their union)
    #[arg(long, value_name = "U", default_value_t = 4000, value_parser = clap::value_parser!(u32).range(1..))]
    pub shingles: u32,
    /// With --accuracy: seed of the pairs and hash functions
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The numbers of functions of the accuracy table.
const ACCURACY_N: [usize; 7] = [16, 32, 64, 128, 256, 512, 1024];

/// `curve --accuracy`: bytes per document and the estimate's standard error by N.
fn accuracy(args: &CurveArgs) -> anyhow::Result<()> {
    use simtui_engine::sketch::accuracy::{measure, theory};
    use simtui_engine::sketch::minhash::SketchKind;
    super::check_similarity("--at", args.at)?;
    let paint = Paint::stdout();
    let (pairs, union) = (args.pairs as usize, args.shingles as usize);
    let rows: Vec<_> = ACCURACY_N
        .iter()
        .map(|&n| {
            let per = [SketchKind::MinHash, SketchKind::Oph].map(|kind| {
                (
                    theory(kind, n, args.at, union),
                    measure(kind, n, args.at, union, pairs, args.seed),
                )
            });
            (n, per)
        })
        .collect();
    let j = rows[0].1[0].1.jaccard;
    with_stdout(|out| {
        writeln!(
            out,
            "standard error of the estimate at J = {j}, over {pairs} generated pairs of {union} shingles (their union)"
        )?;
        writeln!(
            out,
            "{}",
            paint.bold(&format!(
                "{:>5}  {:>9}  {:>14} {:>9} {:>6}  {:>14} {:>9} {:>6}",
                "N",
                "bytes/doc",
                "minhash theory",
                "measured",
                "ratio",
                "oph theory",
                "measured",
                "ratio"
            ))
        )?;
        for (n, per) in rows {
            let mut line = format!("{n:>5}  {:>9}", 4 * n);
            for (t, m) in per {
                let ratio = if t > 0.0 {
                    format!("{:.2}", m.rmse / t)
                } else {
                    "-".into()
                };
                line.push_str(&format!("  {t:>14.4} {:>9.4} {ratio:>6}", m.rmse));
            }
            writeln!(out, "{line}")?;
        }
        writeln!(
            out,
            "theory: minhash sqrt(J(1-J)/N); oph the same times sqrt((U-N)/(U-1)), sampling the union without replacement"
        )?;
        Ok(())
    })?;
    Ok(())
}

pub fn run(args: &CurveArgs) -> anyhow::Result<()> {
    let usage = |m: String| -> anyhow::Error { crate::output::error::UsageError(m).into() };
    if args.accuracy {
        return accuracy(args);
    }
    if args.bands == 0 || args.rows == 0 || args.perms == 0 || args.steps == 0 {
        return Err(usage(
            "--bands, --rows, --perms and --steps must be at least 1".into(),
        ));
    }
    if args.steps > MAX_STEPS {
        return Err(usage(format!("--steps is at most {MAX_STEPS}")));
    }
    let (b, r) = match args.threshold {
        Some(t) => {
            super::check_similarity("--threshold", t)?;
            let rec = for_threshold(t, args.perms).banding;
            (rec.bands, rec.rows)
        }
        None => (args.bands, args.rows),
    };
    with_stdout(|out| write_curve(out, args, b, r))?;
    Ok(())
}

/// Steps of the printed curve, at most: a line each.
const MAX_STEPS: usize = 100_000;

/// The recommendation (with `--threshold`) and the curve of `b` × `r`. Coloured as
/// `pairs`' table: the recommendation and the header bold, P(s) and its bar on the
/// similarity scale (green from 0.9, yellow from 0.5).
fn write_curve(out: &mut dyn Write, args: &CurveArgs, b: usize, r: usize) -> io::Result<()> {
    let paint = Paint::stdout();
    if let Some(t) = args.threshold {
        write_recommendation(out, &paint, args, t)?;
    }
    writeln!(
        out,
        "b = {b}, r = {r}, threshold (1/b)^(1/r) = {:.4}",
        threshold(b, r)
    )?;
    writeln!(out, "{}", paint.bold(&format!("{:>6}  {:>8}", "s", "P(s)")))?;
    for i in 0..=args.steps {
        let s = i as f64 / args.steps as f64;
        let p = probability(s, b, r);
        let bar = "#".repeat((p * 40.0).round() as usize);
        let value = paint.similarity(p, &format!("{p:>8.5}  {bar}"));
        writeln!(out, "{s:>6.3}  {value}")?;
    }
    Ok(())
}

/// `--threshold T`: the banding `-t T` chooses (the one rule), its areas, and the
/// weighted optimum, named as such, where it differs.
fn write_recommendation(
    out: &mut dyn Write,
    paint: &Paint,
    args: &CurveArgs,
    t: f64,
) -> io::Result<()> {
    let choice = for_threshold(t, args.perms);
    let rec = choice.banding;
    let (b, r) = (rec.bands, rec.rows);
    writeln!(
        out,
        "recommended for threshold {t} with at most {} hash functions: {} ({} functions)",
        args.perms,
        paint.bold(&format!("--bands {b} --rows {r}")),
        b * r
    )?;
    let why = if choice.reaches {
        format!(
            "the fewest false candidates of the bandings whose S-curve reaches {WANTED_RECALL} at J = {t}"
        )
    } else {
        format!(
            "no banding of {} functions reaches {WANTED_RECALL} at J = {t}: the equal-weights optimum",
            args.perms
        )
    };
    let whose = if args.perms == DEFAULT_FUNCTIONS {
        format!("as -t {t} chooses (pairs, clusters, dedup, eval, the explorer at s = {t})")
    } else {
        format!("by the rule -t {t} follows (there within {DEFAULT_FUNCTIONS} functions)")
    };
    writeln!(out, "{whose}: {why}")?;
    writeln!(
        out,
        "S-curve at J = {t}: {:.3} (the least share of pairs with J >= {t} found)",
        probability(t, b, r)
    )?;
    writeln!(
        out,
        "false-positive area (integral of P over [0, {t}]):     {:.6}",
        rec.false_positive
    )?;
    writeln!(
        out,
        "false-negative area (integral of 1-P over [{t}, 1]):   {:.6}",
        rec.false_negative
    )?;
    let opt = recommend(t, args.perms, args.fp_weight, args.fn_weight);
    if (opt.bands, opt.rows) != (b, r) {
        writeln!(
            out,
            "weighted optimum (--fp-weight {} --fn-weight {}), not what -t uses: --bands {} --rows {}, S-curve at J = {t}: {:.3}, false-positive area {:.6}, false-negative area {:.6}",
            args.fp_weight,
            args.fn_weight,
            opt.bands,
            opt.rows,
            probability(t, opt.bands, opt.rows),
            opt.false_positive,
            opt.false_negative
        )?;
    }
    Ok(())
}
