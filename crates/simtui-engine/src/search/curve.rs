//! The S-curve of banded LSH, its threshold, and a recommender for (b, r).

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

/// The S-curve value at T a banding chosen for a threshold T must reach: pairs at J = T
/// are found with at least this probability, more similar ones more often.
pub const WANTED_RECALL: f64 = 0.9;

/// The banding with the fewest false candidates (the least area under its S-curve below
/// `t`) whose S-curve at `t` is at least [`WANTED_RECALL`], with at most `n` functions.
pub fn best_within(t: f64, n: usize) -> Option<(usize, usize)> {
    (1..=n)
        .flat_map(|b| (1..=n / b).map(move |r| (b, r)))
        .filter(|&(b, r)| probability(t, b, r) >= WANTED_RECALL)
        .map(|(b, r)| (false_positive_area(t, b, r), b * r, b, r))
        .min_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)))
        .map(|(_, _, b, r)| (b, r))
}

/// The banding chosen for a similarity threshold `t` when none is given (what `-t`
/// without `-b/-r` does, in every command and in the Python module): [`best_within`]
/// `functions`, else the one [`recommend`] puts `t` at the middle of (equal weights).
/// The recommender alone puts T at the curve's midpoint, where about half the pairs at
/// J = T are found (9x13 at 0.8: 0.40, below 16x8's 0.95): the banding with the fewest
/// false candidates that reaches [`WANTED_RECALL`] at T comes first.
///
/// # Panics
/// If `functions` is 0.
pub fn banding_for(t: f64, functions: usize) -> Chosen {
    match best_within(t, functions) {
        Some((bands, rows)) => Chosen {
            bands,
            rows,
            reaches: true,
        },
        None => {
            let rec = recommend(t, functions, 0.5, 0.5);
            Chosen {
                bands: rec.bands,
                rows: rec.rows,
                reaches: false,
            }
        }
    }
}

/// A banding [`banding_for`] chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chosen {
    /// Number of bands b.
    pub bands: usize,
    /// Rows per band r.
    pub rows: usize,
    /// Whether it reaches [`WANTED_RECALL`] at the threshold within the functions asked
    /// (else it is the recommender's).
    pub reaches: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_banding_for_a_threshold_reaches_the_wanted_recall_or_says_not() {
        let c = banding_for(0.8, 128);
        assert_eq!((c.bands, c.rows, c.reaches), (13, 8, true));
        assert!(probability(0.8, c.bands, c.rows) >= WANTED_RECALL);
        // No banding of 128 functions reaches 0.9 at J = 0.01: the recommender's.
        let c = banding_for(0.01, 128);
        assert!(!c.reaches && c.bands * c.rows <= 128);
    }

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
}
