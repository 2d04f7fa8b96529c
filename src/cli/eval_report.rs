//! What `simtui eval` prints: the table (the banding asked for, then the sweep, a row
//! per setting) or JSON Lines, each part written as soon as its numbers are complete, so
//! that an interrupted sweep keeps the rows it finished.

use crate::output::color::Paint;
use crate::output::format::Format;
use simtui_engine::analysis::eval::{Score, THRESHOLDS, mean_sd};
use simtui_engine::search::curve::threshold;
use std::io::{self, Write};
use std::time::Duration;

/// One run's (or one setting's run's) scores at every threshold, and its banding time.
pub type Scored = (Vec<Score>, Duration);

/// The sweep's settings and what is known of them so far.
pub struct Sweeping {
    /// (b, r), in the table's order.
    pub settings: Vec<(usize, usize)>,
    /// Each setting's runs so far.
    pub scores: Vec<Vec<Scored>>,
    /// Each setting skipped for its candidates: how many there could be.
    pub skipped: Vec<Option<u64>>,
    /// The banding asked for, each run.
    pub runs: Vec<Scored>,
}

impl Sweeping {
    pub fn new(settings: Vec<(usize, usize)>) -> Sweeping {
        let n = settings.len();
        Sweeping {
            settings,
            scores: vec![Vec::new(); n],
            skipped: vec![None; n],
            runs: Vec::new(),
        }
    }
}

/// How the results are written.
pub struct Report {
    /// Runs over seeds (`--runs`).
    pub runs: u32,
    /// The similarity the precision column is at, and the banding chosen for (`-t`).
    pub threshold: f64,
    pub format: Format,
    pub paint: Paint,
    pub thresholds: Vec<f64>,
    /// The banding asked for (or chosen for -t).
    pub banding: (usize, usize),
    pub simhash: bool,
    /// The banding -t chooses: marked in the sweep.
    pub chosen: (usize, usize),
    /// The first run's seed.
    pub seed: u64,
    /// The method's fields of each JSON line of the banding asked for.
    pub method_fields: serde_json::Value,
    /// The table's first line.
    pub heading: String,
}

/// A number over the runs: its mean, and the text of it (± its standard deviation with
/// more than one run; a count without decimals).
fn over(xs: &[f64], several: bool, count: bool) -> (f64, String) {
    let (m, sd) = mean_sd(xs);
    let text = match (several, count) {
        _ if m.is_nan() => "-".to_string(),
        (false, true) => format!("{m:.0}"),
        (false, false) => format!("{m:.4}"),
        (true, true) => format!("{m:.1} ± {sd:.1}"),
        (true, false) => format!("{m:.4} ± {sd:.4}"),
    };
    (m, text)
}

impl Report {
    fn several(&self) -> bool {
        self.runs > 1
    }

    /// JSON Lines: the banding asked for, one run, a line per threshold.
    pub fn run_lines(&self, out: &mut dyn Write, run: u64, scores: &[Score]) -> io::Result<()> {
        for s in scores {
            let mut obj = serde_json::json!({
                "run": run + 1, "seed": self.seed + run,
                "threshold": s.threshold, "true_pairs": s.truth, "candidates": s.candidates,
                "found": s.found, "recall": s.recall, "precision": s.precision, "predicted_recall": s.predicted,
            });
            for (k, v) in self.method_fields.as_object().expect("an object") {
                obj[k] = v.clone();
            }
            writeln!(out, "{obj}")?;
        }
        Ok(())
    }

    /// JSON Lines: one setting of the sweep, one run, a line per threshold.
    pub fn sweep_lines(
        &self,
        out: &mut dyn Write,
        run: u64,
        (b, r): (usize, usize),
        (scores, time): &Scored,
    ) -> io::Result<()> {
        for s in scores {
            let obj = serde_json::json!({
                "sweep": true, "run": run + 1, "seed": self.seed + run,
                "bands": b, "rows": r, "threshold": s.threshold, "true_pairs": s.truth,
                "candidates": s.candidates, "found": s.found, "recall": s.recall, "precision": s.precision,
                "predicted_recall": s.predicted, "seconds": time.as_secs_f64(),
                "recommended": (b, r) == self.chosen,
            });
            writeln!(out, "{obj}")?;
        }
        Ok(())
    }

    /// The table of the banding asked for: a row per threshold, each number the mean
    /// over the runs. Coloured as `pairs`' table: bold headers, and recall on the same
    /// scale as a similarity (green from 0.9, yellow from 0.5).
    pub fn main_table(&self, out: &mut dyn Write, runs: &[Scored]) -> io::Result<()> {
        let paint = &self.paint;
        writeln!(out, "{}", self.heading)?;
        let header = format!(
            "{:>5}  {:>10}  {:>10}  {:>10}  {:>15}  {:>15}  {:>15}",
            "J >=", "true pairs", "candidates", "found", "recall", "precision", "S-curve recall"
        );
        writeln!(out, "{}", paint.bold(&header))?;
        for (i, &t) in self.thresholds.iter().enumerate() {
            let col = |f: &dyn Fn(&Score) -> f64, count: bool| {
                let xs: Vec<f64> = runs.iter().map(|(sc, _)| f(&sc[i])).collect();
                over(&xs, self.several(), count)
            };
            // Padded before painting, so escape codes don't count as width.
            let (recall, text) = col(&|s| s.recall, false);
            let recall = paint.similarity(recall, &format!("{text:>15}"));
            writeln!(
                out,
                "{t:>5.2}  {:>10}  {:>10}  {:>10}  {recall}  {:>15}  {:>15}",
                runs[0].0[i].truth,
                col(&|s| s.candidates as f64, true).1,
                col(&|s| s.found as f64, true).1,
                col(&|s| s.precision, false).1,
                col(&|s| s.predicted, false).1,
            )?;
        }
        Ok(())
    }

    /// Widths of the sweep's (rate, count) columns.
    fn widths(&self) -> (usize, usize) {
        if self.several() { (15, 17) } else { (7, 10) }
    }

    /// The sweep table's header.
    pub fn sweep_header(&self, out: &mut dyn Write) -> io::Result<()> {
        let (rate_w, count_w) = self.widths();
        let mut header = format!(
            "{:>5} {:>4}  {:>9}  {:>count_w$}",
            "b", "r", "threshold", "candidates"
        );
        for t in &THRESHOLDS {
            header.push_str(&format!("  {:>rate_w$}", format!("R@{t}")));
        }
        header.push_str(&format!(
            "  {:>rate_w$}  {:>8}",
            format!("P@{}", self.threshold),
            "time"
        ));
        writeln!(out, "{}", self.paint.bold(&header))
    }

    /// One setting's row: each number the mean over its runs, the banding -t chooses
    /// marked.
    pub fn sweep_row(
        &self,
        out: &mut dyn Write,
        (b, r): (usize, usize),
        per_run: &[Scored],
    ) -> io::Result<()> {
        let (rate_w, count_w) = self.widths();
        let t_i = self
            .thresholds
            .iter()
            .position(|&x| x == self.threshold)
            .expect("the threshold is among those scored");
        let over_runs = |f: &dyn Fn(&[Score]) -> f64, count| {
            let xs: Vec<f64> = per_run.iter().map(|(s, _)| f(s)).collect();
            over(&xs, self.several(), count)
        };
        let mark = if (b, r) == self.chosen { " *" } else { "" };
        let (_, candidates) = over_runs(&|s| s[0].candidates as f64, true);
        write!(
            out,
            "{b:>5} {r:>4}  {:>9.3}  {candidates:>count_w$}",
            threshold(b, r)
        )?;
        for t in &THRESHOLDS {
            let at = |s: &[Score]| s.iter().find(|s| s.threshold == *t).unwrap().recall;
            let (recall, text) = over_runs(&at, false);
            let text = format!("{text:>rate_w$}");
            write!(out, "  {}", self.paint.similarity(recall, &text))?;
        }
        let (_, precision) = over_runs(&|s| s[t_i].precision, false);
        let ms =
            per_run.iter().map(|x| x.1.as_secs_f64()).sum::<f64>() * 1e3 / per_run.len() as f64;
        writeln!(out, "  {precision:>rate_w$}  {ms:>6.0}ms{mark}")
    }

    /// Under the sweep: what the mark means, and what the numbers are over.
    pub fn sweep_footer(&self, out: &mut dyn Write) -> io::Result<()> {
        let t = self.threshold;
        writeln!(
            out,
            "* the banding -t {t} chooses (pairs, clusters, dedup, eval, the explorer at s = {t}; `simtui curve --threshold {t}`): {}x{}",
            self.chosen.0, self.chosen.1
        )?;
        if self.several() {
            let seed = self.seed;
            writeln!(
                out,
                "each setting: mean ± sd over {} runs (seeds {seed}..={})",
                self.runs,
                seed + self.runs as u64 - 1
            )?;
        }
        Ok(())
    }
}
