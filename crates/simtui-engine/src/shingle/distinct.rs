//! A document's shingles each once, in the order they first appear: the values of its
//! shingle set without sorting them.
//!
//! A sketch (MinHash's minimum per function, one-permutation hashing's minimum per bin)
//! depends on which values a set holds, not on their order, so a document sketched as it
//! is read and whose set is not kept needs no sorted set: only its distinct shingles (a
//! repeated one would cost another hash per function) and their number (the set's length,
//! which verification checks when it makes the set again). Marks of the values seen, and a
//! table for the few that may repeat, give both without sorting and with no allocation
//! per document, where the set was bucket-sorted and deduplicated before.

use super::shingle_hashes;

/// What finds one document's repeated values, kept from one document to the next so
/// that it is allocated once per thread.
#[derive(Debug, Default)]
pub struct Distinct {
    /// A bit per slot: whether a value of that slot was seen.
    seen: Vec<u64>,
    /// A bit per slot: whether two values or more fell in it.
    shared: Vec<u64>,
    /// The values of shared slots, an open-addressing table (0: free).
    table: Vec<u64>,
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
    /// The values are hashes (uniform over 64 bits), so their top bits pick a slot, and
    /// there are at least 32 slots a value. A first pass marks each slot a value falls in,
    /// and the slots two values or more fall in: a value alone in its slot is no repeat.
    /// Most documents repeat few of their shingles (under 4 % of word 5-grams), so only a
    /// few values are then looked up in a table, where every value went before: half the
    /// time. The table is at least twice the values of shared slots (a probe is about 1.5
    /// slots), 0 marks a free slot there, and the value 0 itself is counted aside.
    pub fn dedup(&mut self, values: &mut Vec<u64>) {
        let n = values.len();
        if n < 2 {
            return;
        }
        let bits = (32 * n).next_power_of_two().trailing_zeros();
        let again = self.mark(values, bits);
        if again == 0 {
            return;
        }
        // At most twice `again` values fall in shared slots: a table of four times that.
        let table_bits = (4 * again).next_power_of_two().trailing_zeros().max(4);
        self.table.clear();
        self.table.resize(1 << table_bits, 0);
        let (mut kept, mut zero) = (0, false);
        for i in 0..n {
            let x = values[i];
            let slot = (x >> (64 - bits)) as usize;
            let new = if self.shared[slot >> 6] & (1 << (slot & 63)) == 0 {
                true
            } else if x == 0 {
                !std::mem::replace(&mut zero, true)
            } else {
                self.insert(x, table_bits)
            };
            values[kept] = x;
            kept += new as usize;
        }
        values.truncate(kept);
    }

    /// Marks the slots of `values` (their top `bits` bits) in `seen`, and in `shared` those
    /// two or more fall in; how many values fell in a slot already marked (at least half
    /// the values of shared slots).
    fn mark(&mut self, values: &[u64], bits: u32) -> usize {
        let words = 1 << (bits - 6);
        for marks in [&mut self.seen, &mut self.shared] {
            marks.clear();
            marks.resize(words, 0);
        }
        let mut again = 0;
        for &x in values {
            let slot = (x >> (64 - bits)) as usize;
            let (word, bit) = (slot >> 6, 1u64 << (slot & 63));
            let seen = self.seen[word];
            if seen & bit != 0 {
                self.shared[word] |= bit;
                again += 1;
            }
            self.seen[word] = seen | bit;
        }
        again
    }

    /// Adds `x` (not 0) to the table of `bits` bits; whether it was not there yet.
    #[inline]
    fn insert(&mut self, x: u64, bits: u32) -> bool {
        let mask = (1usize << bits) - 1;
        let mut j = (x >> (64 - bits)) as usize;
        loop {
            let s = self.table[j];
            if s == x {
                return false;
            }
            if s == 0 {
                self.table[j] = x;
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
        fn dedup_keeps_the_first_of_each_value(
            // Mostly distinct hashes (a slot shared by chance), some small values (slot 0,
            // repeats), 0 and the largest value; up to thousands, so many words of marks.
            values in vec(prop_oneof![4 => any::<u64>(), 1 => 0u64..4, 1 => Just(u64::MAX)], 0..3000),
            repeats in vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 0..50),
        ) {
            let mut values = values;
            if !values.is_empty() {
                // Copies of earlier values put later: repeats far apart.
                for (from, to) in repeats {
                    let (a, b) = (from.index(values.len()), to.index(values.len()));
                    values[a.max(b)] = values[a.min(b)];
                }
            }
            let mut seen = std::collections::HashSet::new();
            let want: Vec<u64> = values.iter().copied().filter(|&v| seen.insert(v)).collect();
            let mut table = Distinct::new();
            let mut got = values.clone();
            table.dedup(&mut got);
            prop_assert_eq!(&got, &want);
            // Again with the same table, as a thread reuses it.
            table.dedup(&mut values);
            prop_assert_eq!(values, want);
        }

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
