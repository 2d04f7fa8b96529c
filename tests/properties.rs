//! Statistical properties of the sketch and of banding, checked on sets of known Jaccard
//! similarity: the MinHash estimate's error shrinks like 1/sqrt(N), and the rate at which
//! pairs become LSH candidates follows the S-curve 1 - (1 - s^r)^b.

use proptest::prelude::*;
use simtui_engine::hash::mix64;
use simtui_engine::progress::Silent;
use simtui_engine::search::banding::candidates;
use simtui_engine::search::curve::probability;
use simtui_engine::shingle::{ShingleSets, jaccard};
use simtui_engine::sketch::{Signatures, SketchKind, Sketcher, estimate};

/// Two sets of `size` elements sharing `shared` of them, drawn from a random stream, so that
/// J = shared / (2·size − shared) exactly.
fn pair_with_overlap(seed: u64, size: usize, shared: usize) -> (Vec<u64>, Vec<u64>) {
    let mut next = seed.wrapping_mul(0x1000_0000_01b3);
    let mut draw = || {
        next = next.wrapping_add(1);
        mix64(next ^ seed.rotate_left(17))
    };
    let common: Vec<u64> = (0..shared).map(|_| draw()).collect();
    let mut a = common.clone();
    let mut b = common;
    a.extend((shared..size).map(|_| draw()));
    b.extend((shared..size).map(|_| draw()));
    a.sort_unstable();
    b.sort_unstable();
    (a, b)
}

/// Root-mean-square error of the N-function estimate over `pairs` pairs of similarity J.
fn rmse(
    kind: SketchKind,
    seed: u64,
    n: usize,
    size: usize,
    shared: usize,
    pairs: usize,
) -> (f64, f64) {
    let hasher = Sketcher::new(kind, seed, n);
    let mut sum_sq = 0.0;
    let mut j = 0.0;
    for p in 0..pairs {
        let (a, b) = pair_with_overlap(seed ^ (p as u64) << 20, size, shared);
        j = jaccard(&a, &b);
        let e = estimate(&hasher.sketch(&a), &hasher.sketch(&b));
        sum_sq += (e - j) * (e - j);
    }
    ((sum_sq / pairs as f64).sqrt(), j)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    /// The estimator is unbiased with variance J(1-J)/N, so its RMSE shrinks like 1/sqrt(N):
    /// 16× the functions, a quarter of the error.
    #[test]
    fn estimate_error_shrinks_like_inverse_sqrt_n(
        seed in any::<u64>(),
        overlap in 0.2f64..0.8,
        kind in prop_oneof![Just(SketchKind::MinHash), Just(SketchKind::Oph)],
    ) {
        // OPH's error is J(1-J)/N on sets several times larger than N. On smaller sets
        // its bins sample the union almost without replacement, and the error is lower
        // than that (N = 512 on 200-shingle sets: about 0.73 of it).
        let size = if kind == SketchKind::Oph { 4000 } else { 200 };
        let shared = (overlap * size as f64) as usize;
        let (e32, j) = rmse(kind, seed, 32, size, shared, 300);
        let (e512, _) = rmse(kind, seed, 512, size, shared, 300);
        let theory = |n: f64| (j * (1.0 - j) / n).sqrt();
        // Each RMSE within 25% of theory (300 pairs: its relative standard error is ~4%).
        prop_assert!((e32 / theory(32.0) - 1.0).abs() < 0.25, "{kind:?} N=32: rmse {e32}, theory {}", theory(32.0));
        prop_assert!((e512 / theory(512.0) - 1.0).abs() < 0.25, "{kind:?} N=512: rmse {e512}, theory {}", theory(512.0));
        let ratio = e32 / e512;
        prop_assert!((ratio - 4.0).abs() < 1.2, "ratio {ratio}, expected 4");
    }

    /// Pairs of similarity s become candidates at the rate the S-curve predicts.
    #[test]
    fn candidate_rate_matches_the_s_curve(
        seed in any::<u64>(),
        shared in 60usize..180,
        (bands, rows) in prop_oneof![Just((16usize, 8usize)), Just((32, 4)), Just((20, 5)), Just((8, 2))],
        kind in prop_oneof![Just(SketchKind::MinHash), Just(SketchKind::Oph)],
    ) {
        let size = 200;
        let trials = 600;
        let mut sets = ShingleSets::new();
        let mut j = 0.0;
        for t in 0..trials {
            let (a, b) = pair_with_overlap(seed ^ ((t as u64) << 24), size, shared);
            j = jaccard(&a, &b);
            sets.push(&a);
            sets.push(&b);
        }
        let sigs = Signatures::compute(&Sketcher::new(kind, seed, bands * rows), &sets, &Silent).unwrap();
        let items: Vec<u32> = (0..sets.len() as u32).collect();
        let found = candidates(&sigs, &items, bands, rows, &Silent).unwrap();
        let hits = found.iter().filter(|(x, y)| x % 2 == 0 && *y == x + 1).count();
        let rate = hits as f64 / trials as f64;
        let p = probability(j, bands, rows);
        let sigma = (p * (1.0 - p) / trials as f64).sqrt().max(1.0 / trials as f64);
        prop_assert!((rate - p).abs() <= 4.5 * sigma + 0.01,
            "{kind:?} b={bands} r={rows} s={j:.3}: rate {rate:.3}, S-curve {p:.3} (sigma {sigma:.4})");
        // Unrelated sets almost never collide.
        let cross = found.iter().filter(|(x, y)| !(x % 2 == 0 && *y == x + 1)).count();
        prop_assert!(cross <= 2, "{cross} unrelated pairs became candidates");
    }
}
