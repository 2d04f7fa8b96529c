//! A document's shingles each once, in the order they first appear: the values of its
//! shingle set without sorting them.
//!
//! A sketch (MinHash's minimum per function, one-permutation hashing's minimum per bin)
//! depends on which values a set holds, not on their order, so a document sketched as it
//! is read and whose set is not kept needs no sorted set: only its distinct shingles (a
//! repeated one would cost another hash per function) and their number (the set's length,
//! which verification checks when it makes the set again). An open-addressing table of the
//! values seen gives both in one pass, with no allocation per document, where the set
//! was bucket-sorted and deduplicated before.

use super::shingle_hashes;

/// The values seen so far in one document: an open-addressing table, kept from one
/// document to the next so that it is allocated once per thread.
#[derive(Debug, Default)]
pub struct Distinct {
    slots: Vec<u64>,
}

impl Distinct {
    /// An empty table (it grows with the first document).
    pub fn new() -> Distinct {
        Distinct::default()
    }

    /// Writes the distinct `k`-shingles of a token-hash stream to `out` (cleared first),
    /// in order of first appearance: the values of [`shingle_set`](super::shingle_set),
    /// unsorted.
    pub fn shingles(&mut self, tokens: &[u64], k: usize, out: &mut Vec<u64>) {
        shingle_hashes(tokens, k, out);
        self.dedup(out);
    }

    /// Keeps in `values` the first of each value, in order.
    ///
    /// The values are hashes (uniform over 64 bits), so their top bits pick the slot. The
    /// table is at least twice the values (load at most one half: a probe is about 1.5
    /// slots), 0 marks a free slot, and the value 0 itself is counted aside.
    pub fn dedup(&mut self, values: &mut Vec<u64>) {
        let n = values.len();
        if n < 2 {
            return;
        }
        let bits = (2 * n).next_power_of_two().trailing_zeros().max(4);
        let mask = (1usize << bits) - 1;
        self.slots.clear();
        self.slots.resize(mask + 1, 0);
        let (mut kept, mut zero) = (0, false);
        for i in 0..n {
            let x = values[i];
            let new = if x == 0 {
                !std::mem::replace(&mut zero, true)
            } else {
                self.insert(x, bits, mask)
            };
            values[kept] = x;
            kept += new as usize;
        }
        values.truncate(kept);
    }

    /// Adds `x` (not 0) to the table; whether it was not there yet.
    #[inline]
    fn insert(&mut self, x: u64, bits: u32, mask: usize) -> bool {
        let mut j = (x >> (64 - bits)) as usize;
        loop {
            let s = self.slots[j];
            if s == x {
                return false;
            }
            if s == 0 {
                self.slots[j] = x;
                return true;
            }
            j = (j + 1) & mask;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shingle::shingle_set;
    use crate::sketch::{SketchKind, Sketcher};
    use proptest::collection::vec;
    use proptest::prelude::*;

    #[test]
    fn repeats_and_zero_are_kept_once_in_first_order() {
        let mut d = Distinct::new();
        let mut v = vec![5, 0, 7, 5, 0, 9, 7, u64::MAX, 9, u64::MAX];
        d.dedup(&mut v);
        assert_eq!(v, vec![5, 0, 7, 9, u64::MAX]);
        let mut one = vec![3];
        d.dedup(&mut one);
        assert_eq!(one, vec![3]);
        let mut none: Vec<u64> = Vec::new();
        d.dedup(&mut none);
        assert!(none.is_empty());
    }

    #[test]
    fn values_with_equal_top_bits_probe_past_each_other() {
        // Every value lands in slot 0 of the table: the probes must walk on.
        let mut v: Vec<u64> = (1..=40u64).chain(1..=40).collect();
        Distinct::new().dedup(&mut v);
        assert_eq!(v, (1..=40).collect::<Vec<u64>>());
    }

    proptest! {
        #[test]
        fn distinct_shingles_are_the_set_and_sketch_the_same(
            // Few token values and long streams: many shingles repeat.
            tokens in vec(0u64..6, 0..400),
            k in 1usize..6,
            width in 1usize..130,
            seed in any::<u64>(),
        ) {
            let tokens: Vec<u64> = tokens.into_iter().map(crate::hash::mix64).collect();
            let mut set = Vec::new();
            shingle_set(&tokens, k, &mut set);
            // One table for every document, as a thread keeps it.
            let mut table = Distinct::new();
            let mut streamed = vec![42];
            table.shingles(&tokens[..tokens.len() / 2], k, &mut streamed);
            table.shingles(&tokens, k, &mut streamed);
            let mut sorted = streamed.clone();
            sorted.sort_unstable();
            prop_assert_eq!(&sorted, &set);
            for kind in [SketchKind::Oph, SketchKind::MinHash] {
                let sketcher = Sketcher::new(kind, seed, width);
                prop_assert_eq!(sketcher.sketch(&streamed), sketcher.sketch(&set));
            }
        }
    }
}
