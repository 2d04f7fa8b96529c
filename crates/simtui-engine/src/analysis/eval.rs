//! Measuring LSH against the truth: recall, candidate precision and the S-curve's
//! prediction at a range of thresholds (`simtui eval`).
//!
//! Counts are in document pairs, as a user sees them: a pair of contents (groups of
//! identical documents) of similarity J stands for |A|·|B| document pairs, and the pairs
//! within a group (J = 1) are always found, as they are by any LSH.

use crate::analysis::exact::{ExactPairs, pack};
use crate::index::Index;
use crate::search::curve::probability;
use crate::search::found::Found;
use std::collections::HashMap;

/// The thresholds `simtui eval` reports on.
pub const THRESHOLDS: [f64; 5] = [0.5, 0.6, 0.7, 0.8, 0.9];

/// The pairs that are truly similar: contents with their exact J.
#[derive(Clone, Debug, Default)]
pub struct Truth {
    /// (content a, content b, J), a ≠ b.
    pub(crate) pairs: Vec<(u32, u32, f64)>,
    /// Whether pairs of identical documents count (brute force: yes; a planted-pairs
    /// file lists its own).
    pub(crate) include_identical: bool,
}

impl Truth {
    /// The pairs the exhaustive pass kept (J at or above its floor), and every pair of
    /// identical documents.
    pub fn from_exact(exact: &ExactPairs) -> Truth {
        Truth {
            pairs: exact.pairs.iter().map(|p| (p.a, p.b, p.jaccard)).collect(),
            include_identical: true,
        }
    }

    /// The pairs of a planted-pairs file, by document id; ids not in the index are
    /// returned as missing.
    pub fn from_ids<'a>(
        index: &Index,
        ids: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> (Truth, Vec<String>) {
        let by_id: HashMap<String, u32> = index
            .docs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.into_owned().id, i as u32))
            .collect();
        let mut truth = Truth::default();
        let mut missing = Vec::new();
        for (a, b) in ids {
            match (by_id.get(a), by_id.get(b)) {
                (Some(&x), Some(&y)) => {
                    let (j, _) = index.similarity(x, y);
                    // Stored as document pairs mapped to their contents; identical
                    // documents map to one content and are kept with a == b.
                    truth.pairs.push((
                        index.docs.group(x as usize),
                        index.docs.group(y as usize),
                        j,
                    ));
                }
                (None, _) => missing.push(a.to_string()),
                (_, None) => missing.push(b.to_string()),
            }
        }
        (truth, missing)
    }
}

/// One threshold's scores.
#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    /// The similarity threshold J these scores are at.
    pub threshold: f64,
    /// True pairs with J ≥ threshold, in document pairs.
    pub truth: u64,
    /// Of those, found by LSH.
    pub found: u64,
    /// Candidate pairs (all, whatever their J).
    pub candidates: u64,
    /// found / truth (NaN when there is no true pair).
    pub recall: f64,
    /// found / candidates (NaN when there is no candidate).
    pub precision: f64,
    /// Mean P(J) over the true pairs: the recall the S-curve predicts (NaN as recall).
    pub predicted: f64,
}

/// Scores one banding's candidates against the truth at each threshold. `found` must
/// list every candidate, that is come from a search at threshold 0, with `bands` ×
/// `rows` (which give the S-curve's prediction). The explorer's tuning panel reads its
/// recall and predicted recall from here too, so that both say the same numbers.
///
/// One pass over the truth whatever the number of thresholds (they may come in any
/// order; the scores follow it).
pub fn score(
    index: &Index,
    truth: &Truth,
    found: &Found,
    bands: usize,
    rows: usize,
    thresholds: &[f64],
) -> Vec<Score> {
    // Candidate content pairs (the found pairs are all candidates, verified at J ≥ 0).
    let mut cand: Vec<u64> = index
        .content_pairs(found)
        .map(|(ga, gb, _)| pack(ga, gb))
        .collect();
    cand.sort_unstable();
    cand.dedup();
    let weight = |a: u32, b: u32| -> u64 {
        if a == b {
            1 // a planted pair of identical documents
        } else {
            (index.members(a).len() * index.members(b).len()) as u64
        }
    };
    let (identical, from_file) = if truth.include_identical {
        (
            (0..index.shingles.len() as u32)
                .map(|g| index.pairs_within(g))
                .sum::<u64>(),
            false,
        )
    } else {
        (0, true)
    };
    // The thresholds ascending; each pair adds to the slot of the highest it reaches,
    // and the sums from the top give each threshold's totals.
    let mut order: Vec<usize> = (0..thresholds.len()).collect();
    order.sort_by(|&x, &y| thresholds[x].total_cmp(&thresholds[y]));
    let sorted: Vec<f64> = order.iter().map(|&i| thresholds[i]).collect();
    let mut slots = vec![(0u64, 0u64, 0f64); sorted.len()];
    for &(a, b, j) in &truth.pairs {
        let reached = sorted.partition_point(|&t| t <= j);
        let Some(slot) = reached.checked_sub(1).map(|i| &mut slots[i]) else {
            continue;
        };
        let w = if from_file { 1 } else { weight(a, b) };
        slot.0 += w;
        slot.2 += w as f64
            * if a == b {
                1.0
            } else {
                probability(j, bands, rows)
            };
        if a == b || cand.binary_search(&pack(a, b)).is_ok() {
            slot.1 += w;
        }
    }
    let mut at_least = vec![(identical, identical, identical as f64); sorted.len()];
    let mut sum = (0u64, 0u64, 0f64);
    for i in (0..sorted.len()).rev() {
        sum = (sum.0 + slots[i].0, sum.1 + slots[i].1, sum.2 + slots[i].2);
        at_least[i].0 += sum.0;
        at_least[i].1 += sum.1;
        at_least[i].2 += sum.2;
    }
    let mut scores = vec![None; thresholds.len()];
    for (k, &i) in order.iter().enumerate() {
        let (n, hit, p_sum) = at_least[k];
        let ratio = |x: f64, y: f64| if y > 0.0 { x / y } else { f64::NAN };
        scores[i] = Some(Score {
            threshold: thresholds[i],
            truth: n,
            found: hit,
            candidates: found.candidates,
            recall: ratio(hit as f64, n as f64),
            precision: ratio(hit as f64, found.candidates as f64),
            predicted: ratio(p_sum, n as f64),
        });
    }
    scores
        .into_iter()
        .map(|s| s.expect("one per threshold"))
        .collect()
}

/// Mean and (sample) standard deviation: (x, 0) for one value x; the mean of none is NaN.
pub fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = if xs.len() > 1 {
        xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (mean, var.sqrt())
}

/// Every (b, r) with b·r = n.
pub fn bandings(n: usize) -> Vec<(usize, usize)> {
    (1..=n)
        .filter(|b| n.is_multiple_of(*b))
        .map(|b| (b, n / b))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::exact::{Limits, all_pairs};
    use crate::index::Params;
    use crate::progress::Silent;
    use crate::source::Corpus;

    #[test]
    fn recall_is_one_with_a_permissive_banding_and_counts_documents() {
        let base =
            "one two three four five six seven eight nine ten eleven twelve thirteen fourteen";
        let texts = vec![
            ("a".to_string(), base.to_string()),
            ("b".to_string(), base.replace("six", "6")),
            ("c".to_string(), base.to_string()),
            (
                "d".to_string(),
                "entirely other words that do not overlap at all with the first".to_string(),
            ),
        ];
        let idx = Index::builder(&Params {
            k: 2,
            ..Default::default()
        })
        .build(Corpus::from_texts(texts), &Silent)
        .unwrap();
        let exact = all_pairs(&idx, 0.01, &Limits::default(), &Silent).unwrap();
        let truth = Truth::from_exact(&exact);
        // 128 bands of 1 row: anything similar is a candidate.
        let found = idx.find(128, 1, 0.0, &Silent).unwrap();
        let s = score(&idx, &truth, &found, 128, 1, &[0.5]);
        // a~c identical (1), a~b and c~b (2 document pairs from one content pair).
        assert_eq!(s[0].truth, 3);
        assert_eq!(s[0].found, 3);
        assert_eq!(s[0].recall, 1.0);
        assert!(s[0].predicted > 0.99);
        assert_eq!(
            bandings(12),
            vec![(1, 12), (2, 6), (3, 4), (4, 3), (6, 2), (12, 1)]
        );
        // Thresholds in any order, one pass: each as if scored alone.
        let many = [0.9, 0.1, 0.5, 1.0, 0.3, 0.5];
        let all = score(&idx, &truth, &found, 16, 8, &many);
        for (t, got) in many.iter().zip(&all) {
            let alone = &score(&idx, &truth, &found, 16, 8, &[*t])[0];
            assert_eq!(got.threshold, *t);
            assert_eq!((got.truth, got.found), (alone.truth, alone.found));
            assert!((got.predicted - alone.predicted).abs() < 1e-12);
        }
        assert_eq!(all[1].truth, 3, "d shares nothing: {all:?}");
        let (m, sd) = mean_sd(&[1.0, 3.0]);
        assert_eq!(m, 2.0);
        assert!((sd - 2f64.sqrt()).abs() < 1e-12);
    }
}
