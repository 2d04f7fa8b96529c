//! MinHash signatures.
//!
//! Hash function i maps a shingle hash x to h_i(x) = ((a_i · x' + b_i) mod 2^64) >> 32,
//! where x' is x folded to 32 bits and a_i, b_i are random 64-bit numbers: Dietzfelbinger's
//! multiply-add-shift, which is 2-independent for 32-bit keys. It is chosen because its
//! inner loop is one multiply, one add and one shift per hash function, with no modulo
//! and no data-dependent branch, so it vectorises: a 32×64-bit multiply is two `pmuludq`
//! on x86 (the textbook `(a·x + b) mod (2^61 − 1)` needs a 128-bit product and a
//! reduction, and datasketch's wrapping 64-bit variant of it is not the textbook family).
//! Keys are themselves uniform hashes, so 2-independence is plenty in practice, which the
//! property tests check (estimator error and LSH collision rates).
//!
//! Signatures are u32 (the top half of the product), so a 128-permutation signature is
//! 512 bytes and a collision of two different minima costs 2^-32 of bias.

use crate::rng::Rng;

/// The parameters of `n` MinHash functions. Function i depends only on the seed and i,
/// so a larger hasher extends a smaller one and signatures can grow in place.
#[derive(Clone, Debug)]
pub struct MinHasher {
    seed: u64,
    a: Vec<u64>,
    b: Vec<u64>,
}

impl MinHasher {
    /// The first `n` hash functions of `seed`.
    pub fn new(seed: u64, n: usize) -> Self {
        let (a, b) = (0..n)
            .map(|i| {
                let mut r = Rng::derive(seed, i as u64);
                (r.next_u64(), r.next_u64())
            })
            .unzip();
        MinHasher { seed, a, b }
    }

    /// The seed the functions derive from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Number of hash functions.
    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// Whether there are no hash functions.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }

    /// Writes the signature of a shingle set over functions `from..from + out.len()`,
    /// which must exist (it panics otherwise). An empty set's signature is all `u32::MAX`.
    pub fn sketch_range(&self, shingles: &[u64], from: usize, out: &mut [u32]) {
        let to = from + out.len();
        let (a, b) = (&self.a[from..to], &self.b[from..to]);
        out.fill(u32::MAX);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above), which is all that
            // `sketch_avx2` requires. Measured: the sketch stage of 50k documents took
            // 0.27 s with the compiler-vectorised loop, 0.17 s with this one.
            unsafe { sketch_avx2(shingles, a, b, out) };
            return;
        }
        sketch_portable(shingles, a, b, out);
    }

    /// The signature of a shingle set over all functions.
    pub fn sketch(&self, shingles: &[u64]) -> Vec<u32> {
        let mut out = vec![0; self.len()];
        self.sketch_range(shingles, 0, &mut out);
        out
    }
}

/// Which sketch computes the signatures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SketchKind {
    /// Classic MinHash: N hash functions per shingle.
    MinHash,
    /// One-permutation hashing with optimal densification: one hash per shingle
    /// (see [`crate::sketch::oph`]). The default: measured with `simtui eval --runs`, its recall
    /// is MinHash's (within the spread over seeds) at a third of the sketching time.
    #[default]
    Oph,
}

impl SketchKind {
    /// `"minhash"` or `"oph"`, as `--sketch` names it.
    pub fn name(self) -> &'static str {
        match self {
            SketchKind::MinHash => "minhash",
            SketchKind::Oph => "oph",
        }
    }
}

/// Computes signatures of width `n` with the chosen sketch.
#[derive(Clone, Debug)]
pub struct Sketcher {
    kind: SketchKind,
    seed: u64,
    n: usize,
    minhash: MinHasher,
}

impl Sketcher {
    /// Signatures of `n` values (MinHash functions, or OPH bins) of the sketch `kind`,
    /// with hash functions derived from `seed`.
    pub fn new(kind: SketchKind, seed: u64, n: usize) -> Self {
        let minhash = MinHasher::new(seed, if kind == SketchKind::MinHash { n } else { 0 });
        Sketcher {
            kind,
            seed,
            n,
            minhash,
        }
    }

    /// The sketch computed.
    pub fn kind(&self) -> SketchKind {
        self.kind
    }

    /// Number of values in each signature.
    pub fn width(&self) -> usize {
        self.n
    }

    /// The signature of one set over functions (MinHash) `from..from + out.len()`; an
    /// OPH signature is computed whole (`from` must be 0, `out.len()` the width).
    pub(crate) fn sketch_range(&self, shingles: &[u64], from: usize, out: &mut [u32]) {
        match self.kind {
            SketchKind::MinHash => self.minhash.sketch_range(shingles, from, out),
            SketchKind::Oph => {
                debug_assert!(from == 0 && out.len() == self.n);
                crate::sketch::oph::sketch(self.seed, shingles, out)
            }
        }
    }

    /// The whole signature of one set.
    pub fn sketch(&self, shingles: &[u64]) -> Vec<u32> {
        let mut out = vec![0; self.n];
        self.sketch_range(shingles, 0, &mut out);
        out
    }
}

/// Folds a 64-bit shingle hash to the 32-bit key of the hash family.
#[inline(always)]
fn fold32(x: u64) -> u64 {
    (x ^ (x >> 32)) & 0xffff_ffff
}

/// Hash functions handled per pass over the shingles: their parameters and running minima
/// stay in registers (16 × u64 a, b and 16 × u32 minima fill ten AVX2 registers), so the
/// inner loop does no loads or stores but the shingle itself.
const BLOCK: usize = 16;

#[inline(always)]
fn sketch_body(shingles: &[u64], a: &[u64], b: &[u64], out: &mut [u32]) {
    let mut a_blocks = a.chunks_exact(BLOCK);
    let mut b_blocks = b.chunks_exact(BLOCK);
    let mut out_blocks = out.chunks_exact_mut(BLOCK);
    for ((a, b), out) in (&mut a_blocks).zip(&mut b_blocks).zip(&mut out_blocks) {
        let a: &[u64; BLOCK] = a.try_into().unwrap();
        let b: &[u64; BLOCK] = b.try_into().unwrap();
        let mut min = [u32::MAX; BLOCK];
        for &x in shingles {
            let x = fold32(x);
            for l in 0..BLOCK {
                min[l] = min[l].min((a[l].wrapping_mul(x).wrapping_add(b[l]) >> 32) as u32);
            }
        }
        out.copy_from_slice(&min);
    }
    let (a, b, out) = (
        a_blocks.remainder(),
        b_blocks.remainder(),
        out_blocks.into_remainder(),
    );
    for &x in shingles {
        let x = fold32(x);
        for ((o, &a), &b) in out.iter_mut().zip(a).zip(b) {
            *o = (*o).min((a.wrapping_mul(x).wrapping_add(b) >> 32) as u32);
        }
    }
}

/// The portable loop (SSE2 on x86-64, NEON on aarch64).
pub(crate) fn sketch_portable(shingles: &[u64], a: &[u64], b: &[u64], out: &mut [u32]) {
    sketch_body(shingles, a, b, out)
}

/// The AVX2 loop, 8 hash functions per register, 16 per pass. `((a·x + b) mod 2^64) >> 32`
/// for a 32-bit `x` is `hi32(a_lo·x + b) + lo32(a_hi·x)` (mod 2^32; `a_lo·x + b` cannot
/// overflow past the wrap that mod 2^64 does anyway), which is two 32×32→64 multiplies
/// (`vpmuludq`, even and odd functions), one 32-bit multiply (`vpmulld`), a shift, a blend
/// and three adds per 8 functions: bit-identical to [`sketch_portable`], and about twice as fast as what
/// the compiler makes of it (which spills its 64-bit lanes to the stack).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sketch_avx2(shingles: &[u64], a: &[u64], b: &[u64], out: &mut [u32]) {
    use std::arch::x86_64::*;
    // The constants of 8 functions: `vpmuludq` multiplies the low halves of 64-bit lanes,
    // so the even functions' `a` and `b` go in one register and the odd ones' in another.
    let lanes = |a: &[u64], b: &[u64]| {
        let pick = |v: &[u64], first: usize| {
            _mm256_setr_epi64x(
                v[first] as i64,
                v[first + 2] as i64,
                v[first + 4] as i64,
                v[first + 6] as i64,
            )
        };
        let hi = |i: usize| (a[i] >> 32) as i32;
        let a_high = _mm256_setr_epi32(hi(0), hi(1), hi(2), hi(3), hi(4), hi(5), hi(6), hi(7));
        (pick(a, 0), pick(a, 1), pick(b, 0), pick(b, 1), a_high)
    };
    // Function i's hash of `x` (in every 32-bit lane) in 32-bit lane i.
    macro_rules! hash8 {
        ($l:expr, $x:expr) => {{
            let (a_even, a_odd, b_even, b_odd, a_high) = $l;
            let even = _mm256_add_epi64(_mm256_mul_epu32(a_even, $x), b_even);
            let odd = _mm256_add_epi64(_mm256_mul_epu32(a_odd, $x), b_odd);
            let high = _mm256_blend_epi32::<0b1010_1010>(_mm256_srli_epi64::<32>(even), odd);
            _mm256_add_epi32(high, _mm256_mullo_epi32(a_high, $x))
        }};
    }
    let store = |min: __m256i, out: &mut [u32]| {
        out.copy_from_slice(&[
            _mm256_extract_epi32::<0>(min) as u32,
            _mm256_extract_epi32::<1>(min) as u32,
            _mm256_extract_epi32::<2>(min) as u32,
            _mm256_extract_epi32::<3>(min) as u32,
            _mm256_extract_epi32::<4>(min) as u32,
            _mm256_extract_epi32::<5>(min) as u32,
            _mm256_extract_epi32::<6>(min) as u32,
            _mm256_extract_epi32::<7>(min) as u32,
        ])
    };
    // 16 functions per pass over the shingles (12 registers of constants and minima), so
    // loading and folding each shingle is shared by 16 hashes.
    let mut a_blocks = a.chunks_exact(16);
    let mut b_blocks = b.chunks_exact(16);
    let mut out_blocks = out.chunks_exact_mut(16);
    for ((a, b), out) in (&mut a_blocks).zip(&mut b_blocks).zip(&mut out_blocks) {
        let (l0, l1) = (lanes(&a[..8], &b[..8]), lanes(&a[8..], &b[8..]));
        let (mut min0, mut min1) = (_mm256_set1_epi32(-1), _mm256_set1_epi32(-1));
        for &x in shingles {
            let x = _mm256_set1_epi32(fold32(x) as i32);
            min0 = _mm256_min_epu32(min0, hash8!(l0, x));
            min1 = _mm256_min_epu32(min1, hash8!(l1, x));
        }
        let (lo, hi) = out.split_at_mut(8);
        store(min0, lo);
        store(min1, hi);
    }
    let (a, b, out) = (
        a_blocks.remainder(),
        b_blocks.remainder(),
        out_blocks.into_remainder(),
    );
    let (mut a8, mut b8, mut out8) = (
        a.chunks_exact(8),
        b.chunks_exact(8),
        out.chunks_exact_mut(8),
    );
    for ((a, b), out) in (&mut a8).zip(&mut b8).zip(&mut out8) {
        let l = lanes(a, b);
        let mut min = _mm256_set1_epi32(-1);
        for &x in shingles {
            let x = _mm256_set1_epi32(fold32(x) as i32);
            min = _mm256_min_epu32(min, hash8!(l, x));
        }
        store(min, out);
    }
    sketch_body(
        shingles,
        a8.remainder(),
        b8.remainder(),
        out8.into_remainder(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_sets_identical_signatures_and_empty_is_max() {
        let h = MinHasher::new(1, 64);
        assert_eq!(h.sketch(&[1, 2, 3]), h.sketch(&[3, 2, 1]));
        assert!(h.sketch(&[]).iter().all(|&v| v == u32::MAX));
        assert_ne!(
            h.sketch(&[1, 2, 3]),
            MinHasher::new(2, 64).sketch(&[1, 2, 3])
        );
    }

    #[test]
    fn larger_hasher_extends_smaller() {
        let small = Sketcher::new(SketchKind::MinHash, 9, 16);
        let big = Sketcher::new(SketchKind::MinHash, 9, 48);
        let set = [5u64, 17, 99, 12345];
        assert_eq!(small.sketch(&set)[..], big.sketch(&set)[..16]);
    }

    #[test]
    fn every_code_path_gives_identical_signatures() {
        let set: Vec<u64> = (0..500u64).map(crate::hash::mix64).collect();
        // Whole blocks of 16, a block of 8 and a remainder, and only a remainder.
        for n in [128, 100, 31, 7] {
            let h = MinHasher::new(3, n);
            let dispatched = h.sketch(&set);
            let mut portable = vec![u32::MAX; n];
            sketch_portable(&set, &h.a, &h.b, &mut portable);
            assert_eq!(dispatched, portable);
            let naive: Vec<u32> = (0..n)
                .map(|i| {
                    set.iter()
                        .map(|&x| {
                            (h.a[i].wrapping_mul(fold32(x)).wrapping_add(h.b[i]) >> 32) as u32
                        })
                        .min()
                        .unwrap()
                })
                .collect();
            assert_eq!(dispatched, naive);
        }
    }

    #[test]
    fn signatures_are_pinned_across_machines() {
        // The signature of a fixed set under seed 42 must never change silently: saved
        // indexes and published results depend on it.
        let h = MinHasher::new(42, 4);
        let sig = h.sketch(&[1, 2, 3]);
        let expect: Vec<u32> = (0..4)
            .map(|i| {
                let mut r = Rng::derive(42, i);
                let (a, b) = (r.next_u64(), r.next_u64());
                [1u64, 2, 3]
                    .iter()
                    .map(|&x| (a.wrapping_mul(fold32(x)).wrapping_add(b) >> 32) as u32)
                    .min()
                    .unwrap()
            })
            .collect();
        assert_eq!(sig, expect);
        // Literal values too, so a change to the seeding (`Rng::derive`) is noticed.
        assert_eq!(sig, vec![1821888243, 316345032, 652496964, 885685952]);
    }
}
