//! A tiny deterministic random number generator (SplitMix64).
//!
//! Seeds, hash parameters and generated corpora must be identical across runs, machines
//! and crate versions, which general-purpose RNG crates do not promise; SplitMix64 is
//! fully specified by a dozen lines and passes BigCrush.

/// SplitMix64 (Steele, Lea and Flood, 2014).
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator seeded with `seed`: the same seed gives the same stream everywhere.
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    /// An independent stream for a sub-task, derived from this seed and a label.
    pub fn derive(seed: u64, label: u64) -> Self {
        Rng::new(crate::hash::mix64(
            seed ^ crate::hash::mix64(label.wrapping_add(0x9e37_79b9_7f4a_7c15)),
        ))
    }

    /// The next 64 uniformly distributed bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        crate::hash::mix64(self.state)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [0, n); n must be > 0. Lemire's multiply-shift, bias below 2^-32 for our n.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// True with probability p.
    pub fn chance(&mut self, p: f64) -> bool {
        self.next_f64() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // First outputs of the reference SplitMix64 seeded with 0.
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = Rng::new(7);
        for n in [1u64, 2, 3, 10, 1000] {
            for _ in 0..1000 {
                assert!(r.below(n) < n);
            }
        }
    }
}
