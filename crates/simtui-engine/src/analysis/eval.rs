//! Measuring LSH against the truth: recall, candidate precision and the S-curve's
//! prediction at a range of thresholds (`simtui eval`).
//!
//! Counts are in document pairs, as a user sees them: a pair of contents (groups of
//! identical documents) of similarity J stands for |A|·|B| document pairs, and the pairs
//! within a group (J = 1) are always found, as they are by any LSH.

use crate::analysis::exact::{ExactPairs, pack};
use crate::found::Found;
use crate::index::Index;
use crate::minhash::band::band_key;
use crate::minhash::curve::probability;
use rayon::prelude::*;
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
        let by_id: HashMap<&str, u32> = index
            .docs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.id.as_str(), i as u32))
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
                        index.docs[x as usize].group,
                        index.docs[y as usize].group,
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

/// Pairs a sample of [`candidates_estimate`] draws from the buckets.
const SAMPLES: f64 = 4096.0;

/// About how many candidate pairs of contents banding `bands` × `rows` gives (`bands` ×
/// `rows` must fit the functions computed), from its buckets alone, no pair listed or
/// verified: `eval --sweep` skips the bandings that would take too long by it. Each
/// band's bucket of n contents holds n(n − 1)/2 pairs; summed over the bands that counts
/// a pair once per band it shares (a near-copy, in most of 128 bands), so a sample of
/// those pairs, each weighed by one over the number of bands it shares, scales the sum
/// down to the distinct pairs (exact with one band). Two sorts of the contents' keys per
/// band, and b band keys per pair sampled; the same answer every run.
pub fn candidates_estimate(index: &Index, bands: usize, rows: usize) -> u64 {
    assert!(
        bands * rows <= index.num_perm(),
        "{bands} × {rows} over the functions"
    );
    let items = index.nonempty_groups();
    let keys = |band: usize| -> Vec<(u64, u32)> {
        let mut keys: Vec<(u64, u32)> = items
            .par_iter()
            .map(|&g| {
                let row = index.signatures.row(g as usize);
                (band_key(&row[band * rows..(band + 1) * rows], band), g)
            })
            .collect();
        keys.par_sort_unstable();
        keys
    };
    let pairs = |n: usize| (n as u64) * (n as u64).saturating_sub(1) / 2;
    let total: u64 = (0..bands)
        .map(|band| {
            keys(band)
                .chunk_by(|x, y| x.0 == y.0)
                .map(|b| pairs(b.len()))
                .sum::<u64>()
        })
        .sum();
    if total == 0 || bands == 1 {
        return total;
    }
    // The bands two contents share: at least the one they were drawn from.
    let shared = |x: u32, y: u32| -> u32 {
        let (rx, ry) = (
            index.signatures.row(x as usize),
            index.signatures.row(y as usize),
        );
        (0..bands)
            .filter(|&b| rx[b * rows..(b + 1) * rows] == ry[b * rows..(b + 1) * rows])
            .count()
            .max(1) as u32
    };
    let rate = SAMPLES / total as f64;
    let mut rng = crate::rng::Rng::new(0x5eed_ca4d);
    let (mut drawn, mut weight) = (0u64, 0f64);
    for band in 0..bands {
        for bucket in keys(band).chunk_by(|x, y| x.0 == y.0) {
            let n = bucket.len() as u64;
            let want = pairs(bucket.len()) as f64 * rate;
            let k = want.floor() as u64 + rng.chance(want.fract()) as u64;
            for _ in 0..k.min(pairs(bucket.len())) {
                let i = rng.below(n);
                let mut j = rng.below(n - 1);
                j += (j >= i) as u64;
                weight += 1.0 / shared(bucket[i as usize].1, bucket[j as usize].1) as f64;
                drawn += 1;
            }
        }
    }
    if drawn == 0 {
        return total;
    }
    (total as f64 * weight / drawn as f64).round() as u64
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
        let idx = Index::build(
            Corpus::from_texts(texts),
            &Params {
                k: 2,
                ..Default::default()
            },
            &Silent,
        )
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

    #[test]
    fn the_candidates_estimate_is_near_the_candidates_and_exact_with_one_band() {
        let c = simtui_gen::generate(&simtui_gen::GenOptions {
            docs: 600,
            seed: 9,
            words: 80,
            dup_fraction: 0.5,
            ..Default::default()
        });
        let texts = c.docs.iter().map(|d| (d.id.clone(), d.text.clone()));
        let params = Params {
            num_perm: 128,
            ..Default::default()
        };
        let idx = Index::build(Corpus::from_texts(texts), &params, &Silent).unwrap();
        for (b, r) in [(1, 2), (1, 1), (16, 8), (32, 4), (64, 2), (128, 1)] {
            // Candidate pairs of contents (identical documents are one content).
            let search = idx.search(b, r, 0.0, None, &Silent).unwrap();
            let estimate = candidates_estimate(&idx, b, r) as f64;
            let real = search.group_pairs.len() as f64;
            if b == 1 {
                assert_eq!(estimate, real, "{b}x{r}");
            }
            // Near-copies share most of 128 bands: the plain sum of bucket pairs would
            // count them ~100 times over.
            assert!(
                (estimate - real).abs() <= 0.1 * real + 5.0,
                "{b}x{r}: {estimate} vs {real}"
            );
        }
    }
}
