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
    crate::hash::sort_by_hash(out, |&x| x);
    out.dedup();
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
    /// No sets yet.
    pub fn new() -> Self {
        ShingleSets {
            offsets: vec![0],
            data: Vec::new(),
        }
    }

    /// Sets from their parts (a saved index): set `i` is `data[offsets[i]..offsets[i+1]]`.
    /// `None` unless the offsets start at 0, never decrease and end at `data.len()`.
    pub(crate) fn from_parts(offsets: Vec<usize>, data: Vec<u64>) -> Option<Self> {
        let valid = offsets.first() == Some(&0)
            && offsets.last() == Some(&data.len())
            && offsets.windows(2).all(|w| w[0] <= w[1]);
        valid.then_some(ShingleSets { offsets, data })
    }

    /// Room for `total` shingles in all.
    pub(crate) fn reserve_total(&mut self, total: usize) {
        self.data.reserve(total.saturating_sub(self.data.len()));
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.data.shrink_to_fit();
        self.offsets.shrink_to_fit();
    }

    /// Appends `set` as set number `len()`. It should be sorted and deduplicated, as
    /// [`shingle_set`] makes it (Jaccard similarities assume it; nothing checks).
    pub fn push(&mut self, set: &[u64]) {
        self.data.extend_from_slice(set);
        self.offsets.push(self.data.len());
    }

    /// Number of sets.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there are no sets.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Set `i`: its shingle hashes, ascending. Panics if `i >= len()`.
    pub fn get(&self, i: usize) -> &[u64] {
        &self.data[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Where set `i` begins among all the sets' shingles (the first of them is number
    /// `start(i)` of [`total`](Self::total)). Panics if `i >= len()`.
    pub(crate) fn start(&self, i: usize) -> usize {
        self.offsets[i]
    }

    /// Total number of shingles over all sets.
    pub fn total(&self) -> usize {
        self.data.len()
    }

    /// Heap memory held, in bytes (allocated capacity, not just what is used).
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
