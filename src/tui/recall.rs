//! Real recall: how many of the corpus's truly similar pairs the current banding finds.
//!
//! The exact pairs of distinct contents with J ≥ a floor (the panel's s, or
//! [`DEFAULT_FLOOR`] if lower) are computed once per index and floor, at any corpus size,
//! by the engine's prefix-filtered join (`simtui_engine::analysis::exact::all_pairs`, as
//! `simtui eval` does). A banding's candidates are scored against those pairs by the same function
//! as `simtui eval`'s (`analysis::eval::score`): in document pairs, identical documents
//! included, with the S-curve's prediction averaged over the same pairs. Everything here
//! runs on worker threads.
//!
//! Under `--memory` the join has half the limit (the index and its searches keep to the
//! limit itself, so the explorer stays within 1.5 × it): when what the join needs is
//! more, it does not run and the panel says how much it needs; when its pairs take it
//! over, it stops. No recall is shown then, rather than one from part of the pairs.

use crate::output::progress::human;
use simtui_engine::analysis::eval::{self, Score, Truth};
use simtui_engine::analysis::exact::{self, Limits, pack};
use simtui_engine::analysis::join;
use simtui_engine::error::Error;
use simtui_engine::index::Index;
use simtui_engine::progress::{Cancelled, Progress};
use simtui_engine::search::found::Found;
use simtui_engine::storage::Budget;

pub use simtui_engine::analysis::exact::{BINS, ExactPairs as AllPairs, Hist, bin};

/// The exact pairs are computed down to this similarity, or to the panel's s if lower
/// (a lower floor takes longer: the prefixes are longer).
pub const DEFAULT_FLOOR: f64 = 0.5;
/// Real recall is measured at s ≥ this only.
pub const FLOOR: f64 = 0.1;

/// The floor of the exact pairs for recall at `s`.
pub fn floor_for(s: f64) -> f64 {
    s.clamp(FLOOR, DEFAULT_FLOOR)
}

/// Tighter than the engine's defaults on the pairs kept: this runs unasked, beside an
/// interactive UI, so it gives up rather than hold tens of millions of pairs.
const LIMITS: Limits = Limits {
    max_pairs: 4_000_000,
    max_shingles: 4_000_000_000,
    max_work: 20_000_000_000,
    max_bytes: u64::MAX,
};

/// The memory the exact pairs may take under `budget`: half of it (see the module's
/// comment).
pub fn share(budget: &Budget) -> u64 {
    if budget.is_limited() {
        budget.bytes / 2
    } else {
        u64::MAX
    }
}

/// Computes the pairs with J ≥ `floor`, or says why not, as the panel words it after
/// "real recall: " (too many of them, or more memory than `--memory` leaves them).
pub fn all_pairs(
    index: &Index,
    floor: f64,
    progress: &dyn Progress,
) -> Result<Result<AllPairs, String>, Cancelled> {
    let max_bytes = share(index.budget());
    let needs = join::memory_needed(index.shingles(), floor);
    if needs > max_bytes {
        return Ok(Err(format!(
            "not computed, needs ~{} over --memory {} (half of it for this)",
            human(needs),
            human(index.budget().bytes)
        )));
    }
    let limits = Limits {
        max_bytes,
        ..LIMITS
    };
    match exact::all_pairs(index, floor, &limits, progress) {
        Ok(all) => Ok(Ok(all)),
        Err(Error::TooLarge { why, .. }) => Ok(Err(format!("n/a (too large: {why})"))),
        Err(_) => Err(Cancelled),
    }
}

/// The pairs a banding found, by J, as pairs of distinct contents (the S-curve chart's
/// histogram, which counts contents and says so).
#[derive(Clone, Debug, PartialEq)]
pub struct FoundGroups {
    /// By J.
    pub hist: Hist,
}

/// The distinct-content pairs among the pairs a banding found.
pub fn found_groups(index: &Index, found: &Found) -> FoundGroups {
    let mut pairs: Vec<(u64, f64)> = index
        .content_pairs(found)
        .map(|(ga, gb, j)| (pack(ga, gb), j))
        .collect();
    pairs.sort_unstable_by_key(|p| p.0);
    pairs.dedup_by_key(|p| p.0);
    let mut hist = [0u64; BINS];
    for p in &pairs {
        hist[bin(p.1)] += 1;
    }
    FoundGroups { hist }
}

/// The similarities s the panel can show recall at, in hundredths: from [`FLOOR`] to 1.
const FLOOR_PCT: usize = 10;

/// A banding's scores against all pairs at each s the panel can show, as `simtui eval`
/// computes them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recall {
    /// The first s scored, in hundredths: [`FLOOR`], or the exact pairs' floor if higher.
    from_pct: usize,
    /// At s = (from_pct + i) / 100.
    scores: Vec<Score>,
}

impl Recall {
    /// Scores `found` (a search at threshold 0 with `bands` × `rows`, whose S-curve
    /// gives the prediction) against all pairs, at each s down to their floor.
    pub fn new(index: &Index, all: &AllPairs, found: &Found, bands: usize, rows: usize) -> Recall {
        let truth = Truth::from_exact(all);
        let from_pct = FLOOR_PCT.max((all.floor * 100.0 - 1e-9).ceil() as usize);
        let thresholds: Vec<f64> = (from_pct..=100).map(|p| p as f64 / 100.0).collect();
        Recall {
            from_pct,
            scores: eval::score(index, &truth, found, bands, rows, &thresholds),
        }
    }

    /// The scores at similarity `s` (to the hundredth), if the exact pairs reach down to
    /// it (and it is at least [`FLOOR`]).
    pub fn at(&self, s: f64) -> Option<&Score> {
        let pct = (s * 100.0).round() as usize;
        self.scores.get(pct.checked_sub(self.from_pct)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simtui_engine::index::Params;
    use simtui_engine::progress::Silent;
    use simtui_engine::source::Corpus;

    fn idx(texts: &[&str]) -> Index {
        let c = Corpus::from_texts(
            texts
                .iter()
                .enumerate()
                .map(|(i, t)| (format!("d{i}"), t.to_string())),
        );
        Index::builder(&Params {
            k: 2,
            ..Default::default()
        })
        .build(c, &Silent)
        .unwrap()
    }

    /// An index of `texts` and its pairs at the floor, all of them.
    fn indexed(texts: &[&str]) -> (Index, AllPairs) {
        let index = idx(texts);
        let all = all_pairs(&index, FLOOR, &Silent).unwrap().unwrap();
        (index, all)
    }

    #[test]
    fn all_pairs_keep_pairs_above_the_floor_only() {
        let texts = [
            "a b c d e f g h",
            "a b c d e f g x",
            "a b q r s t u v",
            "z y x w v u t s",
        ];
        let (_, all) = indexed(&texts);
        assert!(all.pairs.iter().all(|p| p.jaccard >= FLOOR));
        assert_eq!(all.total as usize, all.pairs.len());
        assert_eq!(all.hist.iter().sum::<u64>(), all.total);
        assert_eq!(floor_for(0.8), DEFAULT_FLOOR);
        assert_eq!(floor_for(0.3), 0.3);
        assert_eq!(floor_for(0.0), FLOOR);
    }

    #[test]
    fn all_pairs_keep_to_half_of_the_memory_limit_or_say_what_they_need() {
        let texts = ["a b c d e f g h", "a b c d e f g x", "a b c d y z w v"];
        let small = idx(&texts).with_budget(Budget::new(64, None));
        let why = all_pairs(&small, FLOOR, &Silent).unwrap().unwrap_err();
        assert!(
            why.starts_with("not computed, needs ~") && why.contains("over --memory 0.1 KB"),
            "{why}"
        );
        // What it needs, and room for the pairs: computed, the same as without a limit.
        let all = all_pairs(&idx(&texts), FLOOR, &Silent).unwrap().unwrap();
        let needs = join::memory_needed(small.shingles(), FLOOR);
        let room = 2 * (needs + join::PAIR_BYTES * all.pairs.len() as u64);
        let enough = idx(&texts).with_budget(Budget::new(room, None));
        assert_eq!(all_pairs(&enough, FLOOR, &Silent).unwrap().unwrap(), all);
        // Room for all but one pair: no recall from the others.
        let short = idx(&texts).with_budget(Budget::new(room - 2, None));
        let why = all_pairs(&short, FLOOR, &Silent).unwrap().unwrap_err();
        assert!(why.contains("the most its memory holds"), "{why}");
    }

    #[test]
    fn recall_counts_found_pairs_above_s() {
        let texts = [
            "a b c d e f g h",
            "a b c d e f g x",
            "a b c d y z w v",
            "q r s t u v w x",
        ];
        let (index, all) = indexed(&texts);
        // Band with every hash function in one band: only near-identical pairs collide.
        let strict = index.find(1, 128, 0.0, &Silent).unwrap();
        let loose = index.find(128, 1, 0.0, &Silent).unwrap();
        let rs = Recall::new(&index, &all, &strict, 1, 128);
        let rl = Recall::new(&index, &all, &loose, 128, 1);
        let l = rl.at(FLOOR).unwrap();
        assert_eq!(
            l.found, l.truth,
            "128 bands of one row find every pair sharing a shingle"
        );
        let st = rs.at(FLOOR).unwrap();
        assert_eq!(st.truth, l.truth);
        assert!(st.found < st.truth);
        assert!(rs.at(1.01).is_none() && rs.at(0.05).is_none());
        // eval's numbers, to the last digit.
        let truth = Truth::from_exact(&all);
        for s in [0.1, 0.35, 0.5, 0.8, 1.0] {
            let e = &eval::score(&index, &truth, &strict, 1, 128, &[s])[0];
            let got = rs.at(s).unwrap();
            assert_eq!(
                (got.truth, got.found, got.candidates),
                (e.truth, e.found, e.candidates)
            );
            // But for the order of a sum (NaN where no pair has J ≥ s).
            let close = |a: f64, b: f64| (a.is_nan() && b.is_nan()) || (a - b).abs() < 1e-12;
            assert!(close(got.recall, e.recall) && close(got.predicted, e.predicted));
        }
    }
}
