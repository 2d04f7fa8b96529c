//! The S-curve of banded LSH, its threshold, the banding simtui uses for a similarity
//! threshold ([`for_threshold`]: one rule for the explorer and every command), and the
//! weighted optimum of the areas under and over the curve ([`recommend`]).

/// Probability that two sets of Jaccard similarity `s` become candidates with `b` bands of
/// `r` rows: 1 − (1 − s^r)^b.
pub fn probability(s: f64, b: usize, r: usize) -> f64 {
    1.0 - (1.0 - s.powi(r as i32)).powi(b as i32)
}

/// The similarity where the S-curve is steepest, approximately (1/b)^(1/r).
pub fn threshold(b: usize, r: usize) -> f64 {
    (1.0 / b as f64).powf(1.0 / r as f64)
}

/// ∫ f over [lo, hi] by Simpson's rule with `n` (even) intervals.
fn integrate(f: impl Fn(f64) -> f64, lo: f64, hi: f64, n: usize) -> f64 {
    if hi <= lo {
        return 0.0;
    }
    let h = (hi - lo) / n as f64;
    let mut sum = f(lo) + f(hi);
    for i in 1..n {
        sum += f(lo + i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    sum * h / 3.0
}

/// The area under the curve below the threshold t: how much of the dissimilar range
/// becomes candidates (false positives).
pub fn false_positive_area(t: f64, b: usize, r: usize) -> f64 {
    integrate(|s| probability(s, b, r), 0.0, t, 200)
}

/// The area above the curve from t to 1: how much of the similar range is missed
/// (false negatives).
pub(crate) fn false_negative_area(t: f64, b: usize, r: usize) -> f64 {
    integrate(|s| 1.0 - probability(s, b, r), t, 1.0, 200)
}

/// A recommended banding.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Banding {
    /// Number of bands b.
    pub bands: usize,
    /// Rows per band r.
    pub rows: usize,
    /// Area under the S-curve from 0 to the threshold: how much of the dissimilar range
    /// becomes candidates (false positives), in [0, t].
    pub false_positive: f64,
    /// Area above the S-curve from the threshold to 1: how much of the similar range is
    /// missed (false negatives), in [0, 1 − t].
    pub false_negative: f64,
}

/// The (b, r) with b·r ≤ `perms` that minimises
/// `fp_weight` · FP area + `fn_weight` · FN area at threshold `t`. Tries every pair, about
/// `perms` · ln(`perms`) of them.
///
/// # Panics
/// If `perms` is 0.
pub fn recommend(t: f64, perms: usize, fp_weight: f64, fn_weight: f64) -> Banding {
    let mut best: Option<(f64, Banding)> = None;
    for b in 1..=perms {
        for r in 1..=perms / b {
            let fp = false_positive_area(t, b, r);
            let fneg = false_negative_area(t, b, r);
            let cost = fp_weight * fp + fn_weight * fneg;
            if best.is_none_or(|(c, _)| cost < c) {
                best = Some((
                    cost,
                    Banding {
                        bands: b,
                        rows: r,
                        false_positive: fp,
                        false_negative: fneg,
                    },
                ));
            }
        }
    }
    best.expect("perms must be at least 1").1
}

/// The least share of the pairs at J = t that a banding chosen for t finds: its S-curve
/// at t.
pub const WANTED_RECALL: f64 = 0.9;

/// The hash functions a banding is chosen within (as many as the default 16 × 8).
pub const DEFAULT_FUNCTIONS: usize = 128;

/// The banding simtui uses for a similarity threshold, and how it was chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// The banding, with its areas at the threshold.
    pub banding: Banding,
    /// Its S-curve reaches [`WANTED_RECALL`] at the threshold (else no banding within the
    /// functions does, and this is the equal-weights optimum of [`recommend`]).
    pub reaches: bool,
}

/// Of the bandings with at most `perms` functions whose S-curve at `t` reaches
/// [`WANTED_RECALL`], the one with the fewest false candidates (the least area under
/// its curve below `t`), then the fewest functions; none if no banding reaches it.
pub fn reaching(t: f64, perms: usize) -> Option<Banding> {
    (1..=perms)
        .flat_map(|b| (1..=perms / b).map(move |r| (b, r)))
        .filter(|&(b, r)| probability(t, b, r) >= WANTED_RECALL)
        .map(|(b, r)| (false_positive_area(t, b, r), b * r, b, r))
        .min_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)))
        .map(|(fp, _, b, r)| Banding {
            bands: b,
            rows: r,
            false_positive: fp,
            false_negative: false_negative_area(t, b, r),
        })
}

/// The banding simtui uses for similarity threshold `t` within `perms` functions: the
/// explorer for its s, `pairs`, `clusters`, `dedup` and `eval` for `-t` without `-b/-r`
/// (with [`DEFAULT_FUNCTIONS`]), `curve --threshold` as its recommendation and `eval
/// --sweep` as its marked row. [`reaching`], so that pairs at J = t are found with
/// probability at least [`WANTED_RECALL`] (the equal-weights optimum alone puts t at the
/// curve's midpoint: 9 × 13 at 0.8 finds 0.40 of them); when no banding reaches it, the
/// equal-weights optimum of [`recommend`].
///
/// # Panics
/// If `perms` is 0.
pub fn for_threshold(t: f64, perms: usize) -> Choice {
    match reaching(t, perms) {
        Some(banding) => Choice {
            banding,
            reaches: true,
        },
        None => Choice {
            banding: recommend(t, perms, 0.5, 0.5),
            reaches: false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curve_values() {
        assert_eq!(probability(0.0, 16, 8), 0.0);
        assert!((probability(1.0, 16, 8) - 1.0).abs() < 1e-12);
        // b = 1 is plain s^r; r = 1 is 1 - (1-s)^b.
        assert!((probability(0.5, 1, 3) - 0.125).abs() < 1e-12);
        assert!((probability(0.5, 2, 1) - 0.75).abs() < 1e-12);
        assert!((threshold(16, 8) - (1.0f64 / 16.0).powf(1.0 / 8.0)).abs() < 1e-12);
        // Monotone in s.
        let mut last = 0.0;
        for i in 0..=100 {
            let p = probability(i as f64 / 100.0, 20, 5);
            assert!(p >= last);
            last = p;
        }
    }

    #[test]
    fn areas_and_integration() {
        // ∫0^1 s^2 ds = 1/3 with b=1, r=2.
        assert!((false_positive_area(1.0, 1, 2) - 1.0 / 3.0).abs() < 1e-9);
        assert!((false_negative_area(0.0, 1, 2) - 2.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn recommender_fits_the_budget_and_puts_the_threshold_near_t() {
        for t in [0.5, 0.7, 0.8, 0.9] {
            let rec = recommend(t, 128, 0.5, 0.5);
            assert!(rec.bands * rec.rows <= 128);
            let th = threshold(rec.bands, rec.rows);
            assert!((th - t).abs() < 0.1, "t={t} got {rec:?} threshold {th}");
        }
    }

    #[test]
    fn the_banding_for_a_threshold_reaches_the_wanted_recall_with_fewest_false_candidates() {
        // At 0.5 within 128 functions: r = 4 needs b = 36 (144 functions); r = 3, b = 18.
        let pick = |t, n| for_threshold(t, n).banding;
        assert_eq!((pick(0.5, 128).bands, pick(0.5, 128).rows), (18, 3));
        assert_eq!((pick(0.8, 128).bands, pick(0.8, 128).rows), (13, 8));
        // Not one function (1x1 reaches 0.9 at 0.9, with a straight line of candidates).
        assert_eq!((pick(0.9, 128).bands, pick(0.9, 128).rows), (9, 14));
        for t in [0.3, 0.5, 0.7, 0.8, 0.9, 0.95] {
            let c = for_threshold(t, 128);
            let (b, r) = (c.banding.bands, c.banding.rows);
            assert!(c.reaches && b * r <= 128, "{t}: {c:?}");
            assert!(probability(t, b, r) >= WANTED_RECALL, "{t}: {c:?}");
            // No banding that reaches has fewer false candidates.
            for b2 in 1..=128 {
                for r2 in 1..=128 / b2 {
                    if probability(t, b2, r2) >= WANTED_RECALL {
                        assert!(false_positive_area(t, b2, r2) >= c.banding.false_positive);
                    }
                }
            }
        }
        // Nothing within 128 functions reaches 0.9 at J = 0.01: the equal-weights optimum.
        let low = for_threshold(0.01, 128);
        assert!(!low.reaches);
        assert_eq!(low.banding, recommend(0.01, 128, 0.5, 0.5));
    }
}
