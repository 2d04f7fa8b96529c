//! k-shingles: every run of k consecutive tokens, hashed to 64 bits.
//!
//! A document's shingle set is a sorted, deduplicated `Vec<u64>`; the exact Jaccard
//! similarity of two documents is that of their shingle sets.

use crate::hash::combine;

/// Appends the sorted, deduplicated shingle hashes of a token-hash stream to `out`
/// (which is cleared first). A document with fewer than `k` tokens (but at least one)
/// gets a single shingle of all its tokens, so short duplicates are still found; an
/// empty one gets none.
pub fn shingle_set(tokens: &[u64], k: usize, out: &mut Vec<u64>) {
    assert!(k >= 1, "k must be at least 1");
    out.clear();
    if tokens.is_empty() {
        return;
    }
    if tokens.len() < k {
        out.push(combine(tokens));
        return;
    }
    out.extend(tokens.windows(k).map(combine));
    sort_hashes(out);
    out.dedup();
}

/// Sorts uniformly distributed 64-bit hashes: a counting sort on the top bits puts each
/// value next to its place, then an insertion pass finishes the job. For the few hundred
/// shingles of a document this is about 3× faster than a comparison sort (measured with
/// `examples`-style timing on generated text); if the values are not spread out after all
/// (a bucket too full), it falls back to the standard sort.
pub fn sort_hashes(v: &mut Vec<u64>) {
    let n = v.len();
    if n < 64 {
        v.sort_unstable();
        return;
    }
    let bits = (usize::BITS - (n - 1).leading_zeros()).min(16);
    let shift = 64 - bits;
    let mut start = vec![0u32; (1 << bits) + 1];
    for &x in v.iter() {
        start[(x >> shift) as usize + 1] += 1;
    }
    if start.iter().any(|&c| c > 32) {
        v.sort_unstable();
        return;
    }
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    let mut sorted = vec![0u64; n];
    for &x in v.iter() {
        let b = (x >> shift) as usize;
        sorted[start[b] as usize] = x;
        start[b] += 1;
    }
    // Only values of the same bucket can be out of order, and buckets are tiny.
    for i in 1..n {
        let x = sorted[i];
        let mut j = i;
        while j > 0 && sorted[j - 1] > x {
            sorted[j] = sorted[j - 1];
            j -= 1;
        }
        sorted[j] = x;
    }
    *v = sorted;
}

/// The content hash of a normalised token stream: documents with equal streams are
/// identical for every k, and are indexed once.
pub fn content_hash(tokens: &[u64]) -> u64 {
    // Distinct from any shingle hash of the same tokens by a tag folded into the seed.
    combine(tokens) ^ 0xc0_47e4_7000_0000
}

/// All shingle sets of a corpus in one allocation: set `i` is `data[offsets[i]..offsets[i+1]]`.
#[derive(Clone, Debug, Default)]
pub struct ShingleSets {
    offsets: Vec<usize>,
    data: Vec<u64>,
}

impl ShingleSets {
    pub fn new() -> Self {
        ShingleSets {
            offsets: vec![0],
            data: Vec::new(),
        }
    }

    pub fn push(&mut self, set: &[u64]) {
        self.data.extend_from_slice(set);
        self.offsets.push(self.data.len());
    }

    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, i: usize) -> &[u64] {
        &self.data[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Total number of shingles over all sets.
    pub fn total(&self) -> usize {
        self.data.len()
    }

    pub fn heap_bytes(&self) -> usize {
        self.offsets.capacity() * 8 + self.data.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shingles_of_a_stream() {
        let t = [1u64, 2, 3, 4, 1, 2, 3];
        let mut s = Vec::new();
        shingle_set(&t, 3, &mut s);
        // windows: 123 234 341 412 123 -> 4 distinct
        assert_eq!(s.len(), 4);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        assert!(s.contains(&combine(&[1, 2, 3])));
        assert!(s.contains(&combine(&[4, 1, 2])));
    }

    #[test]
    fn short_and_empty_documents() {
        let mut s = vec![99];
        shingle_set(&[], 5, &mut s);
        assert!(s.is_empty());
        shingle_set(&[7, 8], 5, &mut s);
        assert_eq!(s, vec![combine(&[7, 8])]);
        shingle_set(&[7, 8, 9, 10, 11], 5, &mut s);
        assert_eq!(s, vec![combine(&[7, 8, 9, 10, 11])]);
    }

    #[test]
    fn sort_hashes_sorts_spread_and_clumped_values() {
        for n in [0usize, 1, 63, 64, 65, 300, 5000] {
            let mut v: Vec<u64> = (0..n as u64).map(crate::hash::mix64).collect();
            v.extend_from_slice(&v.clone()[..n / 3]); // duplicates
            let mut expect = v.clone();
            expect.sort_unstable();
            sort_hashes(&mut v);
            assert_eq!(v, expect);
        }
        // Not spread out: all in one bucket, falls back to the standard sort.
        let mut v: Vec<u64> = (0..500u64).rev().collect();
        sort_hashes(&mut v);
        assert!(v.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn sets_store_and_return() {
        let mut sets = ShingleSets::new();
        sets.push(&[1, 2]);
        sets.push(&[]);
        sets.push(&[3]);
        assert_eq!(sets.len(), 3);
        assert_eq!(sets.get(0), &[1, 2]);
        assert!(sets.get(1).is_empty());
        assert_eq!(sets.get(2), &[3]);
        assert_eq!(sets.total(), 3);
    }
}
