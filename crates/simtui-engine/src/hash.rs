//! Hashing of tokens and shingles.
//!
//! A token's normalised bytes are hashed 8 at a time through the SplitMix64 finaliser, and
//! a shingle's hash combines its tokens' hashes, so the text is scanned once and a
//! k-shingle costs k multiply-adds rather than hashing k words again. The token hash is
//! defined on 8-byte little-endian words (the last one zero-padded) so that the ASCII
//! tokenizer can load, lowercase and hash a word in registers, without copying it; it is
//! portable: the same value on every machine.

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;

/// Seed of the token hash. Fixed, so shingle sets are comparable across runs and indexes.
pub const TOKEN_SEED: u64 = 0x5eed_0f51_b7a1_c0de;

/// The 64-bit finaliser of MurmurHash3 / SplitMix64: a bijection with full avalanche.
#[inline]
pub fn mix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(MIX_MUL[0]);
    x = (x ^ (x >> 27)).wrapping_mul(MIX_MUL[1]);
    x ^ (x >> 31)
}

/// The multipliers of [`mix64`] (its vector forms use them too).
pub(crate) const MIX_MUL: [u64; 2] = [0xbf58_476d_1ce4_e5b9, 0x94d0_49bb_1331_11eb];

/// Hash of one token's bytes (already normalised).
pub(crate) fn token_hash(bytes: &[u8]) -> u64 {
    let mut h = token_start(bytes.len());
    if bytes.is_empty() {
        return token_round(h, 0);
    }
    for chunk in bytes.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h = token_round(h, u64::from_le_bytes(word));
    }
    h
}

/// The state of the token hash before the first 8 bytes of a token of `len` bytes: the
/// length is folded in so that tokens differing only in trailing zero bytes differ.
#[inline(always)]
pub(crate) fn token_start(len: usize) -> u64 {
    TOKEN_SEED ^ (len as u64).wrapping_mul(SHINGLE_MUL)
}

/// One step of the token hash: the next 8 bytes (little-endian, zero-padded).
#[inline(always)]
pub(crate) fn token_round(h: u64, word: u64) -> u64 {
    mix64(h ^ word)
}

/// Odd multiplier of the polynomial that combines token hashes.
const SHINGLE_MUL: u64 = 0x9e37_79b9_7f4a_7c15;

/// Hash of a run of token hashes, order-sensitive: mix(Σ t_j · P^(n-1-j)).
/// The inputs are already uniform 64-bit hashes, so a polynomial over Z/2^64 followed by
/// a full-avalanche finaliser is enough; the length is folded in so that runs of
/// different lengths (short documents) do not collide by construction.
#[inline]
pub(crate) fn combine(tokens: &[u64]) -> u64 {
    let mut h = tokens.len() as u64;
    for &t in tokens {
        h = h.wrapping_mul(SHINGLE_MUL).wrapping_add(t);
    }
    mix64(h)
}

/// Sorts values whose order starts with a uniformly distributed 64-bit hash `key`: a
/// counting sort on the key's top bits scatters every value into its bucket, then one
/// insertion sort over the whole array finishes the (tiny) buckets. The result is exactly
/// `v.sort_unstable()`'s, provided `T`'s order compares `key(t)` first; it is linear in
/// practice (measured about 3× a comparison sort on a document's shingles). One pass of
/// insertion sort rather than a loop over the buckets: the buckets outnumber the values,
/// and a branch on each bucket's size mispredicted about half the time. A bucket that is
/// not tiny after all (many equal keys) makes the buckets be sorted one by one instead.
pub(crate) fn sort_by_hash<T: Copy + Ord + Default>(v: &mut Vec<T>, key: impl Fn(&T) -> u64) {
    let n = v.len();
    if n < 64 {
        v.sort_unstable();
        return;
    }
    let bits = (usize::BITS - (n - 1).leading_zeros()).min(20);
    let shift = 64 - bits;
    let bucket = |t: &T| (key(t) >> shift) as usize;
    // start[b + 1] counts bucket b, then start[b] is where bucket b begins.
    let mut start = vec![0u32; (1 << bits) + 1];
    for t in v.iter() {
        start[bucket(t) + 1] += 1;
    }
    let mut largest = 0;
    for i in 1..start.len() {
        largest = largest.max(start[i]);
        start[i] += start[i - 1];
    }
    let mut sorted = vec![T::default(); n];
    for t in v.iter() {
        let b = bucket(t);
        sorted[start[b] as usize] = *t;
        start[b] += 1; // ends as where bucket b ends
    }
    if largest <= 16 {
        // Every value is fewer than 16 places from where it belongs, inside its bucket.
        for i in 1..n {
            let x = sorted[i];
            let mut j = i;
            while j > 0 && sorted[j - 1] > x {
                sorted[j] = sorted[j - 1];
                j -= 1;
            }
            sorted[j] = x;
        }
    } else {
        let mut from = 0;
        for &end in &start[..1 << bits] {
            sorted[from..end as usize].sort_unstable();
            from = end as usize;
        }
    }
    *v = sorted;
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn sort_by_hash_equals_a_comparison_sort(
            seeds in proptest::collection::vec(any::<u64>(), 0..600),
            clump in 0usize..4,
        ) {
            // Uniform keys, or (clump > 0) many equal keys, as banding produces.
            let mut v: Vec<(u64, u32)> = seeds
                .iter()
                .enumerate()
                .map(|(i, &s)| (if clump > 0 { mix64(s % clump as u64) } else { mix64(s) }, i as u32))
                .collect();
            let mut expect = v.clone();
            expect.sort_unstable();
            sort_by_hash(&mut v, |t| t.0);
            prop_assert_eq!(v, expect);
        }
    }

    #[test]
    fn combine_is_order_sensitive() {
        let a = token_hash(b"alpha");
        let b = token_hash(b"beta");
        assert_ne!(combine(&[a, b]), combine(&[b, a]));
        assert_ne!(combine(&[a]), combine(&[a, a]));
    }

    #[test]
    fn token_hash_is_stable() {
        // Pinned values, computed by an independent Python transcription of the definition:
        // shingle sets (and saved indexes) are only comparable if the token hash never
        // changes; a change here needs a new index format version.
        assert_eq!(token_hash(b"simtui"), 0x3952_dc6c_7dfa_1712);
        assert_eq!(token_hash(b"near-duplicates"), 0x1eb1_73ad_33b0_7bff);
        assert_eq!(token_hash(b""), 0x19b6_1cb0_0a0f_3f44);
        assert_ne!(token_hash(b"a"), token_hash(b"b"));
        assert_ne!(token_hash(b"a"), token_hash(b"a\0"));
    }

    #[test]
    fn mix64_is_a_bijection_on_samples() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..10_000u64 {
            assert!(seen.insert(mix64(i)));
        }
    }
}
