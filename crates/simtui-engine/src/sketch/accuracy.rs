//! How accurate the estimate of J is with N hash functions: the standard error measured
//! on generated pairs of sets with a known Jaccard similarity, beside the theory's.
//!
//! Classic MinHash: each function agrees with probability J, independently, so the
//! estimate is Binomial(N, J)/N and its standard error √(J(1−J)/N). One-permutation
//! hashing samples N bins of one permutation, which is sampling the union of the two
//! sets without replacement: the same variance times the finite-population correction
//! (U − N)/(U − 1), U the size of the union (Li, Owen & Zhang, NIPS 2012), so OPH is the
//! more accurate when N is a large part of U. Empty bins, filled by further rounds, make
//! the correction approximate when N comes close to U.

use crate::rng::Rng;
use crate::sketch::estimate;
use crate::sketch::minhash::{SketchKind, Sketcher};
use rayon::prelude::*;

/// The theory's standard error of the estimate of `j` with `n` functions of `kind`, for
/// sets whose union has `union` elements.
pub fn theory(kind: SketchKind, n: usize, j: f64, union: usize) -> f64 {
    let binomial = j * (1.0 - j) / n as f64;
    let variance = match kind {
        SketchKind::MinHash => binomial,
        SketchKind::Oph if union > 1 => {
            binomial * (union.saturating_sub(n)) as f64 / (union - 1) as f64
        }
        SketchKind::Oph => 0.0,
    };
    variance.sqrt()
}

/// What [`measure`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// The root mean square error of the estimate against the exact J: its standard
    /// error, bias included.
    pub rmse: f64,
    /// The mean of estimate − J (0 for an unbiased estimator, up to the sampling error).
    pub bias: f64,
    /// The exact J of the pairs (the nearest to the one asked for that the union's size
    /// allows).
    pub jaccard: f64,
}

/// Sketches `pairs` generated pairs of sets, each of random 64-bit shingles with a union
/// of `union` elements and a Jaccard similarity of `j` (rounded to a whole number of
/// shared elements), with `n` functions of `kind`, and measures the estimate's error.
/// Deterministic for a seed: pair `p` is drawn from its own stream.
///
/// # Panics
/// If `union` or `n` or `pairs` is 0, or `j` is not in [0, 1].
pub fn measure(
    kind: SketchKind,
    n: usize,
    j: f64,
    union: usize,
    pairs: usize,
    seed: u64,
) -> Measured {
    assert!(union > 0 && n > 0 && pairs > 0 && (0.0..=1.0).contains(&j));
    let shared = (j * union as f64).round() as usize;
    let exact = shared as f64 / union as f64;
    let sketcher = Sketcher::new(kind, seed, n);
    let errors: Vec<f64> = (0..pairs)
        .into_par_iter()
        .map(|p| {
            let mut rng = Rng::derive(seed, p as u64);
            let elements: Vec<u64> = (0..union).map(|_| rng.next_u64()).collect();
            // The shared elements, then the others split between the two sets.
            let only = union - shared;
            let a_only = only / 2 + (only % 2 == 1 && rng.chance(0.5)) as usize;
            let mut a: Vec<u64> = elements[..shared + a_only].to_vec();
            let mut b: Vec<u64> = elements[..shared].to_vec();
            b.extend_from_slice(&elements[shared + a_only..]);
            a.sort_unstable();
            b.sort_unstable();
            estimate(&sketcher.sketch(&a), &sketcher.sketch(&b)) - exact
        })
        .collect();
    let n = errors.len() as f64;
    Measured {
        rmse: (errors.iter().map(|e| e * e).sum::<f64>() / n).sqrt(),
        bias: errors.iter().sum::<f64>() / n,
        jaccard: exact,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn theory_is_the_binomial_error_and_oph_corrects_it_for_the_union() {
        let t = theory(SketchKind::MinHash, 128, 0.5, 2000);
        assert!((t - (0.25f64 / 128.0).sqrt()).abs() < 1e-15);
        let o = theory(SketchKind::Oph, 128, 0.5, 2000);
        assert!((o / t - (1872.0f64 / 1999.0).sqrt()).abs() < 1e-12);
        assert_eq!(theory(SketchKind::MinHash, 64, 1.0, 100), 0.0);
        // Four times the functions, half the error.
        let q = theory(SketchKind::MinHash, 512, 0.5, 2000);
        assert!((t / q - 2.0).abs() < 1e-12);
    }

    /// The measured standard error is within 20% of the theory's, for both sketches and
    /// every N from 16 to 256 (the command measures up to 1024, with more pairs).
    #[test]
    fn measured_error_is_within_20_percent_of_theory() {
        for kind in [SketchKind::MinHash, SketchKind::Oph] {
            for n in [16, 32, 64, 128, 256] {
                let m = measure(kind, n, 0.5, 4000, 400, 7);
                assert_eq!(m.jaccard, 0.5);
                let t = theory(kind, n, 0.5, 4000);
                let ratio = m.rmse / t;
                assert!(
                    (0.8..1.2).contains(&ratio),
                    "{kind:?} N = {n}: {} against {t}",
                    m.rmse
                );
                // Unbiased: the mean error is a few standard errors of the mean at most.
                assert!(
                    m.bias.abs() < 4.0 * t / 20.0,
                    "{kind:?} N = {n}: bias {}",
                    m.bias
                );
            }
        }
        // Deterministic.
        assert_eq!(
            measure(SketchKind::Oph, 32, 0.3, 500, 20, 1),
            measure(SketchKind::Oph, 32, 0.3, 500, 20, 1)
        );
    }
}
