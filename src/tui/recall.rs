//! Real recall: how many of the corpus's truly similar pairs the current banding finds.
//!
//! The exact pairs of distinct contents with J ≥ a floor (the panel's s, or
//! [`DEFAULT_FLOOR`] if lower) are computed once per index and floor, at any corpus size,
//! by the engine's prefix-filtered join (`simtui_engine::analysis::exact::all_pairs`, as
//! `simtui eval` does). Matching those pairs against the candidates of a banding gives the
//! recall the S-curve only predicts. Everything here runs on worker threads.

use simtui_engine::analysis::exact::{self, Limits, pack};
use simtui_engine::error::Error;
use simtui_engine::found::Found;
use simtui_engine::index::Index;
use simtui_engine::progress::{Cancelled, Progress};

pub use simtui_engine::analysis::exact::{BINS, ExactPairs as AllPairs, Hist, bin};

/// The exact pairs are computed down to this similarity, or to the panel's s if lower
/// (a lower floor takes longer: the prefixes are longer).
pub const DEFAULT_FLOOR: f64 = 0.5;
/// Real recall is measured at s ≥ this only.
pub const FLOOR: f64 = 0.05;

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
};

/// Computes the pairs with J ≥ `floor`, or says why not (too many of them).
pub fn all_pairs(
    index: &Index,
    floor: f64,
    progress: &dyn Progress,
) -> Result<Result<AllPairs, String>, Cancelled> {
    match exact::all_pairs(index, floor, &LIMITS, progress) {
        Ok(all) => Ok(Ok(all)),
        Err(Error::TooLarge { why, .. }) => Ok(Err(format!("too large: {why}"))),
        Err(_) => Err(Cancelled),
    }
}

/// The candidate pairs of a banding, as pairs of distinct contents.
#[derive(Clone, Debug, PartialEq)]
pub struct FoundGroups {
    /// Packed (a, b) content pairs, sorted.
    pub keys: Vec<u64>,
    /// By J.
    pub hist: Hist,
}

/// The distinct-content pairs among the pairs a banding found.
pub fn found_groups(index: &Index, found: &Found) -> FoundGroups {
    let mut pairs: Vec<(u64, f64)> = found
        .pairs
        .iter()
        .filter_map(|p| {
            let (ga, gb) = (
                index.docs()[p.a as usize].group,
                index.docs()[p.b as usize].group,
            );
            (ga != gb).then(|| (pack(ga, gb), p.jaccard))
        })
        .collect();
    pairs.sort_unstable_by_key(|p| p.0);
    pairs.dedup_by_key(|p| p.0);
    let mut hist = [0u64; BINS];
    for p in &pairs {
        hist[bin(p.1)] += 1;
    }
    FoundGroups {
        keys: pairs.into_iter().map(|p| p.0).collect(),
        hist,
    }
}

/// Which of all the pairs a banding kept.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recall {
    /// `kept[i]`: how many of the first i pairs (by J descending) were found.
    pub kept: Vec<u32>,
}

impl Recall {
    pub fn new(all: &AllPairs, found: &FoundGroups) -> Recall {
        let mut kept = Vec::with_capacity(all.pairs.len() + 1);
        let mut n = 0u32;
        kept.push(0);
        for p in &all.pairs {
            n += found.keys.binary_search(&pack(p.a, p.b)).is_ok() as u32;
            kept.push(n);
        }
        Recall { kept }
    }

    /// (found, total) among the pairs with J ≥ s.
    pub fn at(&self, all: &AllPairs, s: f64) -> (usize, usize) {
        let m = all.at_least(s).min(self.kept.len() - 1);
        (self.kept[m] as usize, m)
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
        Index::build(
            c,
            &Params {
                k: 2,
                ..Default::default()
            },
            &Silent,
        )
        .unwrap()
    }

    #[test]
    fn all_pairs_keep_pairs_above_the_floor_only() {
        let index = idx(&[
            "a b c d e f g h",
            "a b c d e f g x",
            "a b q r s t u v",
            "z y x w v u t s",
        ]);
        let all = all_pairs(&index, FLOOR, &Silent).unwrap().unwrap();
        assert!(all.pairs.iter().all(|p| p.jaccard >= FLOOR));
        assert_eq!(all.total as usize, all.pairs.len());
        assert_eq!(all.hist.iter().sum::<u64>(), all.total);
        assert_eq!(floor_for(0.8), DEFAULT_FLOOR);
        assert_eq!(floor_for(0.3), 0.3);
        assert_eq!(floor_for(0.0), FLOOR);
    }

    #[test]
    fn recall_counts_found_pairs_above_s() {
        let index = idx(&[
            "a b c d e f g h",
            "a b c d e f g x",
            "a b c d y z w v",
            "q r s t u v w x",
        ]);
        let all = all_pairs(&index, FLOOR, &Silent).unwrap().unwrap();
        // Band with every hash function in one band: only near-identical pairs collide.
        let strict = index.find(1, 128, 0.0, &Silent).unwrap();
        let loose = index.find(128, 1, 0.0, &Silent).unwrap();
        let rs = Recall::new(&all, &found_groups(&index, &strict));
        let rl = Recall::new(&all, &found_groups(&index, &loose));
        let (kl, tl) = rl.at(&all, FLOOR);
        assert_eq!(
            kl, tl,
            "128 bands of one row find every pair sharing a shingle"
        );
        let (ks, ts) = rs.at(&all, FLOOR);
        assert_eq!(ts, tl);
        assert!(ks < ts);
        assert_eq!(rs.at(&all, 1.01), (0, 0));
    }
}
