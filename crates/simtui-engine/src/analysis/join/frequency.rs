//! How common each shingle is: the order prefixes are taken in (rarest first).
//!
//! Counted in a table of saturating counters indexed by the hashes' high bits, with four
//! counters or more per shingle occurrence: two shingles that share a counter (at most
//! about one in four of those held once) only look commoner, which costs a little speed,
//! never a pair, and a count of 1 still means that no other set holds the shingle. The
//! table is counted a slice of the hash space at a time, each slice's counters small
//! enough to stay in a core's cache: the sets are sorted, so a slice is a run of each,
//! which a cursor per set walks. No shingle is sorted or moved (sorting every occurrence was the
//! join's largest cost on 20,000 documents of 9-grams).

use super::bits_for;
use crate::progress::{Cancelled, Progress, Stage, check};
use crate::storage::Slab;
use crate::storage::memory::prefetch;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

/// At least 2^SPREAD_BITS counters per shingle occurrence. Each slice of the table is a
/// visit to every set: eight counters made twice the slices of four, and the count took
/// 1.2-1.4x the CPU (20,000 documents of 9-grams), for no fewer probes.
const SPREAD_BITS: u32 = 2;
/// Counters of one slice: at most 2^SEGMENT_BITS bytes (2 MiB: a core's L2 cache on
/// recent x86; 1 MiB made twice the slices, each a visit to every set, for no fewer
/// misses on the counters).
const SEGMENT_BITS: u32 = 21;

/// The table's shape for `total` shingle occurrences with slices of at most
/// 2^`segment_bits` counters: its bits, and those of the number of slices.
fn shape(total: usize, segment_bits: u32) -> (u32, u32) {
    let table = (bits_for(total) + SPREAD_BITS).min(64);
    (table, table.saturating_sub(segment_bits))
}

/// The most bytes counting holds at once besides the frequencies: per worker, one
/// slice's counters and a cursor per set (of `n`).
pub(super) fn counting_bytes(total: usize, n: usize) -> u64 {
    let (table, slice) = shape(total, SEGMENT_BITS);
    rayon::current_num_threads() as u64 * ((1u64 << (table - slice)) + 8 * n as u64)
}

/// How many sets ahead [`visit`] asks for the shingle it will start at.
const AHEAD: usize = 16;

/// Calls `f(g, &mut cursor[g])` for each set `g` in turn, asking first for the shingles
/// at the cursor of the set [`AHEAD`] further on (three lines of memory: one made the
/// count take 1.1-1.2x the CPU). Each set's run in a slice is a few dozen
/// shingles, in lines of memory no other set shares: read in turn, every set costs a
/// wait for memory, and where its run ends is a branch the core cannot predict, so it
/// does not look ahead by itself. Asked for early, the lines of the next sets are on
/// their way while this one is counted.
fn visit(cursor: &mut [usize], values: &[u64], mut f: impl FnMut(usize, &mut usize)) {
    for g in 0..cursor.len() {
        if let Some(&ahead) = cursor.get(g + AHEAD) {
            // A set of 760 shingles (150 words' 9-grams) has runs of 24 on average in 32
            // slices: three lines.
            for line in [0, 8, 16] {
                prefetch(values, ahead + line);
            }
        }
        f(g, &mut cursor[g]);
    }
}

/// The top `bits` of `h` (none: 0).
fn top(h: u64, bits: u32) -> u64 {
    h.checked_shr(64 - bits).unwrap_or(0)
}

/// How common each shingle occurrence's shingle is, by the occurrence's position in the
/// sets' data: the count of its counter, saturating at 255 (at least how many sets hold
/// it; 1: no other set does). A function of the hash, so the same for every set.
/// Reports `Stage::Verify` progress over twice `n`, up to `n`.
pub(super) fn frequencies(
    sets: &Slab<u64>,
    progress: &dyn Progress,
    n: u64,
) -> Result<Vec<AtomicU8>, Cancelled> {
    counted(sets, progress, n, SEGMENT_BITS)
}

/// [`frequencies`] with slices of at most 2^`segment_bits` counters (tests make many
/// slices of small sets this way).
fn counted(
    sets: &Slab<u64>,
    progress: &dyn Progress,
    n: u64,
    segment_bits: u32,
) -> Result<Vec<AtomicU8>, Cancelled> {
    let total = sets.total();
    let (table_bits, slice_bits) = shape(total, segment_bits);
    let slices = 1usize << slice_bits;
    let segment_mask = (1u64 << (table_bits - slice_bits)) - 1;
    let counter = |h: u64| (top(h, table_bits) & segment_mask) as usize;
    let freq: Vec<AtomicU8> = std::iter::repeat_with(|| AtomicU8::new(0))
        .take(total)
        .collect();
    let values = sets.values();
    // Runs of slices, a few per worker, each walked with a cursor per set.
    let runs = (rayon::current_num_threads() * 4).min(slices);
    let done = AtomicU64::new(0);
    (0..runs).into_par_iter().try_for_each(|run| {
        let (first, end) = (run * slices / runs, (run + 1) * slices / runs);
        let mut count = vec![0u8; 1 << (table_bits - slice_bits)];
        let mut cursor: Vec<usize> = (0..sets.len())
            .map(|g| {
                let set = sets.get(g);
                sets.start(g) + set.partition_point(|&h| top(h, slice_bits) < first as u64)
            })
            .collect();
        for slice in first as u64..end as u64 {
            check(progress)?;
            count.fill(0);
            let run_end = |g: usize, from: usize| {
                let len = values[from..sets.start(g + 1)]
                    .iter()
                    .take_while(|&&h| top(h, slice_bits) == slice)
                    .count();
                from + len
            };
            visit(&mut cursor, values, |g, from| {
                for &h in &values[*from..run_end(g, *from)] {
                    let c = &mut count[counter(h)];
                    *c = c.saturating_add(1);
                }
            });
            visit(&mut cursor, values, |g, from| {
                let to = run_end(g, *from);
                for (i, &h) in values[*from..to].iter().enumerate() {
                    freq[*from + i].store(count[counter(h)], Ordering::Relaxed);
                }
                *from = to;
            });
            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
            progress.update(Stage::Verify, d * n / slices as u64, 2 * n);
        }
        Ok(())
    })?;
    Ok(freq)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;
    use crate::shingle::ShingleSets;
    use proptest::collection::{btree_set, vec};
    use proptest::prelude::*;

    proptest! {
        /// Each occurrence's count is at least the number of sets holding its shingle
        /// (saturating at 255), 1 only when no other set holds it, and the same for the
        /// same shingle: hashes spread over the space, or all in a few counters.
        #[test]
        fn counts_are_never_below_the_sets_holding_a_shingle(
            raw in vec(btree_set(0u64..300, 0..60), 0..40),
            spread in any::<bool>(),
            segment_bits in 0u32..22,
        ) {
            let mix = |x: u64| if spread { x.wrapping_mul(0x9e37_79b9_7f4a_7c15) } else { x };
            let mut sets = ShingleSets::new();
            for s in &raw {
                let mut v: Vec<u64> = s.iter().map(|&x| mix(x)).collect();
                v.sort_unstable();
                sets.push(&v);
            }
            let all = sets.sets(0..sets.len()).unwrap();
            // From one slice of every counter down to slices of one counter each.
            let freq = counted(&all, &Silent, raw.len() as u64, segment_bits).unwrap();
            let mut seen = std::collections::HashMap::new();
            for (g, s) in raw.iter().enumerate() {
                let set = all.get(g);
                for (i, &h) in set.iter().enumerate() {
                    let f = freq[all.start(g) + i].load(Ordering::Relaxed);
                    let holders = raw.iter().filter(|t| t.iter().any(|&x| mix(x) == h)).count();
                    prop_assert!(f as usize >= holders.min(255));
                    prop_assert!(f > 1 || holders == 1);
                    prop_assert_eq!(*seen.entry(h).or_insert(f), f);
                }
                prop_assert_eq!(set.len(), s.len());
            }
        }
    }
}
