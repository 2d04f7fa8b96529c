//! One-permutation hashing with optimal densification (Shrivastava, ICML 2017).
//!
//! Classic MinHash evaluates N hash functions per shingle. One-permutation hashing hashes
//! each shingle once: the hash picks one of N bins and the bin keeps its minimum, so a
//! signature costs about one hash per shingle whatever N is. Bins that no shingle reached
//! are then filled by *optimal densification*: empty bin i probes bins along a sequence
//! that depends only on (seed, i, attempt), and copies the first non-empty one it finds.
//! Because every document follows the same sequences, two documents agree on a bin with
//! probability equal to their Jaccard similarity, as with classic MinHash: the estimate
//! stays unbiased and the banding maths (the S-curve) is unchanged.

use crate::hash::mix64;

/// Sentinel of a bin no shingle reached (before densification).
const EMPTY: u32 = u32::MAX;

/// Writes the `out.len()`-bin OPH signature of a shingle set. An empty set's signature
/// is all `u32::MAX`, like classic MinHash's.
pub fn sketch(seed: u64, shingles: &[u64], out: &mut [u32]) {
    let n = out.len() as u64;
    out.fill(EMPTY);
    if shingles.is_empty() || n == 0 {
        return;
    }
    let key = mix64(seed ^ 0x0e9f_5eed_0000_0001);
    for &x in shingles {
        let h = mix64(x ^ key);
        // The top 32 bits pick the bin (Lemire's multiply-shift reduction), the low
        // 32 bits are the value; the two halves are independent for a mixed hash.
        let bin = (((h >> 32) * n) >> 32) as usize;
        let v = (h as u32).min(EMPTY - 1); // keep EMPTY free as a marker
        if v < out[bin] {
            out[bin] = v;
        }
    }
    densify(seed, out);
}

/// Fills each empty bin with the value of the first non-empty bin along its own probe
/// sequence. Probes look at the bins as hashed (never at filled-in copies), as the
/// optimal scheme requires.
fn densify(seed: u64, out: &mut [u32]) {
    let n = out.len() as u64;
    let empty: Vec<usize> = (0..out.len()).filter(|&i| out[i] == EMPTY).collect();
    if empty.is_empty() {
        return;
    }
    let filled: Vec<bool> = out.iter().map(|&v| v != EMPTY).collect();
    for i in empty {
        let base =
            mix64(seed ^ 0xde75_1f00_0000_0000 ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut attempt = 0u64;
        loop {
            attempt += 1;
            let j = (((mix64(base.wrapping_add(attempt)) >> 32) * n) >> 32) as usize;
            if filled[j] {
                out[i] = out[j];
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(seed: u64, set: &[u64], n: usize) -> Vec<u32> {
        let mut out = vec![0; n];
        sketch(seed, set, &mut out);
        out
    }

    #[test]
    fn identical_sets_agree_and_every_bin_is_filled() {
        let set: Vec<u64> = (0..40u64).map(mix64).collect();
        let a = sig(1, &set, 128);
        assert_eq!(a, sig(1, &set, 128));
        assert!(a.iter().all(|&v| v != EMPTY));
        // A single shingle fills every bin (all copies of one value).
        let one = sig(1, &[42], 64);
        assert!(one.iter().all(|&v| v == one[0] && v != EMPTY));
        assert!(sig(1, &[], 16).iter().all(|&v| v == EMPTY));
        assert_ne!(a, sig(2, &set, 128));
    }
}
