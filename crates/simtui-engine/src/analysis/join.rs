//! The exact pairs with J ≥ s of a whole corpus, by a prefix-filtered all-pairs
//! similarity join (AllPairs, Bayardo et al. 2007; PPJoin, Xiao et al. 2008).
//!
//! Order every shingle by its rarity over the corpus (document frequency, then hash).
//! Two sets x, y with J ≥ s share at least o ≥ s·max(|x|, |y|) shingles, so the first of
//! those shared shingles, in that order, is among x's first |x| − ⌈s·|x|⌉ + 1 shingles
//! (its prefix) and among y's: only the prefixes are indexed and probed, and only pairs
//! whose sizes allow J ≥ s (s·|x| ≤ |y| ≤ |x|) are verified, exactly, with the same
//! Jaccard every other stage reports. Rarest first makes prefixes mostly shingles found
//! in one document only, which pair with nothing: an unrelated document costs its
//! frequency count and no probe at all.
//!
//! Any order works as long as it is the same for every set, so the frequencies are
//! counted in a table of counters indexed by the top bits of the hashes (a merge of two
//! shingles in one counter only makes them look commoner, which costs a little speed,
//! never a pair: see [`frequency`]). The inverted index sorts the prefix shingles as
//! (hash, set, place) keys: a list is a run of one whole hash, exact as the positional
//! filter needs, read in order with all it needs.

mod bitmaps;
mod frequency;
mod limits;
mod prefixes;

use crate::error::Result;
use crate::progress::{Cancelled, Progress, Stage, check};
use crate::shingle::ShingleSets;
use crate::storage::Slab;
use crate::storage::memory::prefetch;
use bitmaps::Bitmaps;
use limits::{Held, heap};
pub use limits::{Limits, PAIR_BYTES};
pub(crate) use limits::{PairBudget, too_large};
use prefixes::{PrefixIndex, Prefixes, Token};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// Two sets (contents: groups of the index), `a < b`, and their exact Jaccard similarity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupPair {
    /// The first content: a group of the index, as [`Doc::group`](crate::index::Doc::group) numbers them.
    pub a: u32,
    /// The second content, `b > a`.
    pub b: u32,
    /// Exact Jaccard similarity of their shingle sets, in (0, 1].
    pub jaccard: f64,
}

// A pair is 16 bytes (see PAIR_BYTES).
const _: () = assert!(std::mem::size_of::<GroupPair>() == 16);

/// Most shingles a corpus may have here: positions, places in a prefix and in the
/// inverted index are u32.
const MAX_POSITION_BITS: u32 = 32;

/// Slack for rounding when comparing s·n with an integer: bounds are made looser by it,
/// never tighter, so that a pair whose computed J is ≥ s is never filtered out.
const SLACK: f64 = 1e-6;

/// ⌈x⌉ for a bound computed in floating point, rounded down by [`SLACK`], at least 1.
///
/// Without `f64::ceil`: x86-64's baseline has no instruction for it, so it is a call
/// into the C library, and the probe asks for a bound for every posting it reads (3 %
/// of `eval`'s samples were in `ceil`). `as` truncates towards 0 (and saturates, NaN to
/// 0), so for v ≥ 0 the truncation t has t ≤ v < t + 1, and ⌈v⌉ is t, or t + 1 when v
/// is not t.
fn ceil_loose(x: f64) -> usize {
    let v = x - SLACK;
    let t = v as usize;
    t.saturating_add(((t as f64) < v) as usize).max(1)
}

/// The fewest shingles a set of `n` must share with another for J ≥ `s` > 0: ⌈s·n⌉ but
/// at least 1 (rounded towards finding more), and also the fewest shingles the other set
/// can have.
pub fn min_overlap(s: f64, n: usize) -> usize {
    ceil_loose(s * n as f64)
}

/// The probing prefix of a set of `n` shingles at similarity `s`: n − ⌈s·n⌉ + 1, within
/// 1..=n (0 for an empty set). Two sets with J ≥ s share a shingle in these prefixes.
pub fn prefix_len(s: f64, n: usize) -> usize {
    (n + 1).saturating_sub(min_overlap(s, n)).min(n)
}

/// The indexing prefix of a set of `n` shingles, probed only by sets at least as large:
/// then J ≥ s needs an overlap of s/(1+s)·(n + |x|) ≥ 2s/(1+s)·n, so n − ⌈2s/(1+s)·n⌉ + 1
/// shingles are enough (AllPairs' shorter index).
pub fn index_prefix_len(s: f64, n: usize) -> usize {
    (n + 1)
        .saturating_sub(ceil_loose(2.0 * s / (1.0 + s) * n as f64))
        .min(n)
}

/// Bits needed to number `n` things (at least 1).
fn bits_for(n: usize) -> u32 {
    (usize::BITS - n.leading_zeros()).max(1)
}

/// The most the join of `sets` at `floor` holds in memory besides the pairs it finds
/// ([`PAIR_BYTES`] each), from the sets' sizes, before one is read: what
/// [`Limits::max_bytes`] is held against (see [`Held::bound`]).
pub fn memory_needed(sets: &ShingleSets, floor: f64) -> u64 {
    let prefix: u64 = (0..sets.len())
        .map(|g| prefix_len(floor, sets.set_len(g)) as u64)
        .sum();
    let read = (0..sets.len()).map(|g| sets.load_bytes(g as u32)).sum();
    let total = sets.total() as u64;
    let counting = frequency::counting_bytes(sets.total(), sets.len());
    let bitmaps = 8 * bitmaps::words_for(sets.total(), sets.len()) as u64 * sets.len() as u64;
    Held::bound(sets.len() as u64, total, read, prefix, (counting, bitmaps))
}

/// Every pair of distinct sets with Jaccard similarity ≥ `floor` (exactly the pairs a
/// comparison of every pair would keep, with the same J), in no particular order, `a <
/// b` in each. Empty sets pair with nothing. Reports `Stage::Verify` progress (counting
/// the frequencies, then probing, over twice the number of sets); fails with
/// [`Error::TooLarge`](crate::error::Error::TooLarge) past one of the `limits`, or
/// [`Error::Cancelled`](crate::error::Error::Cancelled).
///
/// # Panics
/// If `floor` is not above 0.
pub fn similar_pairs(
    sets: &ShingleSets,
    floor: f64,
    limits: &Limits,
    progress: &dyn Progress,
) -> Result<Vec<GroupPair>> {
    Ok(accounted(sets, floor, limits, progress)?.0)
}

/// [`similar_pairs`], and the most memory it held at once by its own account (what it
/// allocated, the pairs included), in bytes.
fn accounted(
    sets: &ShingleSets,
    floor: f64,
    limits: &Limits,
    progress: &dyn Progress,
) -> Result<(Vec<GroupPair>, u64)> {
    assert!(
        floor > 0.0,
        "the floor must be above 0: every pair has J >= 0"
    );
    let total = sets.total();
    if total > limits.max_shingles {
        return Err(too_large(format!("{total} shingles")));
    }
    let needed = memory_needed(sets, floor);
    if needed > limits.max_bytes {
        return Err(too_large(format!(
            "needs {needed} bytes of memory, over its {}",
            limits.max_bytes
        )));
    }
    let mut held = Held {
        read: (0..sets.len()).map(|g| sets.load_bytes(g as u32)).sum(),
        ..Held::default()
    };
    // Every set is probed and verified in an order of its own: the join holds them all in
    // memory (a spilled index's sets are read back, in one piece).
    let all = sets.sets(0..sets.len())?;
    let sets = &all;
    if total > limits.max_shingles
        || bits_for(total) > MAX_POSITION_BITS
        || sets.len() >= u32::MAX as usize
    {
        return Err(too_large(format!("{total} shingles")));
    }
    let n = sets.len() as u64;
    let freq = frequency::frequencies(sets, progress, n)?;
    held.freq = freq.len() as u64;
    held.counting = frequency::counting_bytes(total, sets.len());
    let order = by_size(sets);
    held.order = heap(&order);
    let mut prefixes = Prefixes::build(sets, &order, &freq, floor);
    (held.building, held.prefixes) = (prefixes.building, prefixes.heap());
    drop(freq);
    check(progress)?;
    let index = PrefixIndex::build(&mut prefixes);
    (held.indexing, held.index) = (index.building, index.heap());
    if index.work > limits.max_work {
        return Err(too_large(format!("{} prefix pairs to probe", index.work)));
    }
    let bitmaps = Bitmaps::build(sets);
    held.bitmaps = bitmaps.heap();
    let budget = PairBudget::within(limits, limits.max_bytes.saturating_sub(needed));
    let filters = (&prefixes, &index, &bitmaps);
    let (pairs, probing) = probe(sets, &order, filters, floor, &budget, progress)?;
    held.probing = probing;
    let held = held.peak() + PAIR_BYTES * pairs.len() as u64;
    Ok((pairs, held))
}

/// The non-empty sets by (size, number): the order sets are probed in, so that a set
/// only looks back at sets no larger than itself.
fn by_size(sets: &Slab<u64>) -> Vec<u32> {
    let mut order: Vec<u32> = (0..sets.len() as u32)
        .filter(|&g| !sets.get(g as usize).is_empty())
        .collect();
    order.par_sort_unstable_by_key(|&g| (sets.get(g as usize).len(), g));
    order
}

/// The overlap |x ∩ y| of two sorted sets, or `None` as soon as it cannot reach `need`.
fn overlap_at_least(x: &[u64], y: &[u64], need: usize) -> Option<usize> {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < x.len() && j < y.len() {
        if n + (x.len() - i).min(y.len() - j) < need {
            return None;
        }
        let (a, b) = (x[i], y[j]);
        n += (a == b) as usize;
        i += (a <= b) as usize;
        j += (b <= a) as usize;
    }
    (n >= need).then_some(n)
}

/// How many tokens ahead of the one probed its list is asked for.
const LIST_AHEAD: usize = 2;

/// A candidate's count once the positions have shown it cannot reach J ≥ s.
const PRUNED: u32 = u32::MAX;

/// One worker's scratch, kept across the sets it probes: the shared prefix shingles
/// counted so far per candidate (by rank; [`PRUNED`] once it cannot reach the floor),
/// and the candidates touched.
struct Scratch {
    count: Vec<u32>,
    touched: Vec<u32>,
}

/// The fewest shingles two sets of `nx` and `ny` must share for J ≥ `floor`:
/// J ≥ s ⇔ |x ∩ y| ≥ s/(1+s)·(|x| + |y|).
fn need_for(floor: f64, nx: usize, ny: usize) -> usize {
    ceil_loose(floor / (1.0 + floor) * (nx + ny) as f64)
}

/// The candidates of the set of rank `i` (`x`, of prefix `tokens`) among the sets before
/// it, counted in `scratch`: each shared prefix shingle adds one, unless the shingles
/// left after it on either side (their positions say how many) cannot make up the
/// overlap J ≥ s needs, and then the candidate is pruned (PPJoin's positional filter).
/// A common shingle before one found is in both prefixes, so it was counted: the count
/// plus what is left bounds the overlap.
fn candidates(
    i: usize,
    nx: usize,
    tokens: (std::ops::Range<usize>, &[Token]),
    index: &PrefixIndex,
    sizes: &[u32],
    floor: f64,
    scratch: &mut Scratch,
) {
    let smallest = min_overlap(floor, nx);
    let (range, all) = tokens;
    for o in range {
        // The list of a token a little further on: each list lies apart from the others.
        if let Some(next) = all.get(o + LIST_AHEAD) {
            prefetch(&index.post, next.first as usize);
        }
        let t = &all[o];
        let px = t.pos as usize;
        let list = &index.post[t.first as usize..t.at as usize];
        for p in list.iter().rev() {
            let y = p.rank as usize;
            let ny = sizes[y] as usize;
            if ny < smallest {
                break; // and so are all the sets before it
            }
            debug_assert!(y != i);
            let c = scratch.count[y];
            if c == PRUNED {
                continue;
            }
            let left = (nx - px - 1).min(ny - p.pos as usize - 1);
            if c as usize + 1 + left < need_for(floor, nx, ny) {
                scratch.count[y] = PRUNED;
            } else {
                scratch.count[y] = c + 1;
            }
            if c == 0 {
                scratch.touched.push(y as u32);
            }
        }
    }
}

/// Probes each set's prefix against the sets before it and verifies the candidates
/// their bitmaps do not rule out; the pairs, and the bytes of its workers' scratch and of
/// its vectors of pairs beyond the pairs' own [`PAIR_BYTES`].
fn probe(
    sets: &Slab<u64>,
    order: &[u32],
    (prefixes, index, bitmaps): (&Prefixes, &PrefixIndex, &Bitmaps),
    floor: f64,
    budget: &PairBudget,
    progress: &dyn Progress,
) -> Result<(Vec<GroupPair>, u64)> {
    let n = sets.len() as u64;
    let ranks = order.len();
    let sizes: Vec<u32> = order
        .iter()
        .map(|&g| sets.get(g as usize).len() as u32)
        .collect();
    let done = AtomicU64::new(0);
    let start = &prefixes.start;
    let per = (0..ranks)
        .into_par_iter()
        .map_init(
            || Scratch {
                count: vec![0; ranks],
                // A set touches each set before it at most once: never grown.
                touched: Vec::with_capacity(ranks),
            },
            |scratch, i| {
                if budget.is_over() {
                    return Err(Cancelled);
                }
                check(progress)?;
                let gx = order[i];
                let x = sets.get(gx as usize);
                let tokens = (start[i]..start[i + 1], &prefixes.tokens[..]);
                candidates(i, x.len(), tokens, index, &sizes, floor, scratch);
                let mut pairs = Vec::new();
                for &y in &scratch.touched {
                    let c = std::mem::take(&mut scratch.count[y as usize]);
                    if c == PRUNED {
                        continue;
                    }
                    let gy = order[y as usize];
                    let set_y = sets.get(gy as usize);
                    let need = need_for(floor, x.len(), set_y.len());
                    let (at_x, at_y) = ((gx as usize, x.len()), (gy as usize, set_y.len()));
                    if bitmaps.most_shared(at_x, at_y) < need {
                        continue;
                    }
                    let Some(inter) = overlap_at_least(x, set_y, need) else {
                        continue;
                    };
                    // As verify::jaccard computes it, to the bit.
                    let j = inter as f64 / (x.len() + set_y.len() - inter) as f64;
                    if j >= floor {
                        pairs.push(GroupPair {
                            a: gx.min(gy),
                            b: gx.max(gy),
                            jaccard: j,
                        });
                    }
                }
                scratch.touched.clear();
                // Held until all are gathered: no room to spare.
                pairs.shrink_to_fit();
                budget.add(pairs.len());
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                if d.is_multiple_of(1024) || d == ranks as u64 {
                    progress.update(Stage::Verify, n + d * n / ranks as u64, 2 * n);
                }
                Ok(pairs)
            },
        )
        .collect::<std::result::Result<Vec<Vec<GroupPair>>, Cancelled>>();
    let per = budget.finish(per, floor)?;
    let mut pairs = Vec::with_capacity(per.iter().map(Vec::len).sum());
    // Each worker's counts and candidates touched, and the sizes by rank.
    let scratch = 8 * ranks as u64 * rayon::current_num_threads() as u64 + heap(&sizes);
    let beyond = (heap(&per) + per.iter().map(heap).sum::<u64>() + heap(&pairs))
        .saturating_sub(PAIR_BYTES * pairs.capacity() as u64);
    for p in per {
        pairs.extend_from_slice(&p);
    }
    Ok((pairs, scratch + beyond))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::progress::{CancelFlag, Silent};
    use crate::shingle::jaccard;
    use proptest::collection::{btree_set, vec};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn ceil_loose_is_the_ceiling_less_the_slack_at_least_one(
            x in prop_oneof![-10.0f64..10.0, 0.0f64..1e12, (0u64..1_000_000).prop_map(|n| n as f64)],
        ) {
            let want = ((x - SLACK).ceil().max(0.0) as usize).max(1);
            prop_assert_eq!(ceil_loose(x), want);
        }
    }

    #[test]
    fn ceil_loose_at_the_edges() {
        for (x, want) in [
            (f64::NAN, 1),
            (-1.0, 1),
            (0.0, 1),
            (1.0, 1),
            (2.0, 2),
            (2.0 + 2.0 * SLACK, 3),
        ] {
            assert_eq!(ceil_loose(x), want, "{x}");
        }
        assert_eq!(ceil_loose(0.5 * 7.0), 4);
    }

    fn sets_of(sets: &[Vec<u64>]) -> ShingleSets {
        let mut out = ShingleSets::new();
        for s in sets {
            out.push(s);
        }
        out
    }

    /// Every pair compared: what the join must equal.
    fn brute_force(sets: &ShingleSets, floor: f64) -> Vec<(u32, u32, f64)> {
        let mut out = Vec::new();
        for a in 0..sets.len() {
            for b in a + 1..sets.len() {
                let j = jaccard(&sets.get(a).unwrap(), &sets.get(b).unwrap());
                if j >= floor {
                    out.push((a as u32, b as u32, j));
                }
            }
        }
        out
    }

    fn joined(sets: &ShingleSets, floor: f64) -> Vec<(u32, u32, f64)> {
        let mut got: Vec<_> = similar_pairs(sets, floor, &Limits::default(), &Silent)
            .unwrap()
            .into_iter()
            .map(|p| (p.a, p.b, p.jaccard))
            .collect();
        got.sort_by_key(|p| (p.0, p.1));
        got
    }

    #[test]
    fn bounds_round_towards_finding_more() {
        // 0.7 × 10 is 7.000000000000001 in floating point: 7 shared shingles are enough.
        assert_eq!(min_overlap(0.7, 10), 7);
        assert_eq!(min_overlap(0.5, 300), 150);
        assert_eq!(prefix_len(0.5, 300), 151);
        assert_eq!(prefix_len(0.8, 10), 3);
        assert_eq!(prefix_len(1.0, 5), 1);
        assert_eq!(prefix_len(1e-9, 5), 5);
        assert_eq!(prefix_len(0.5, 0), 0);
        assert_eq!(min_overlap(1e-9, 5), 1);
    }

    #[test]
    fn pairs_at_exactly_the_floor_are_kept() {
        // J = 7/10 exactly, and 0.7 as a float: the pair is kept at 0.7, not at 0.71.
        let a: Vec<u64> = (0..10).map(|i| i << 58).collect();
        let b = a[..7].to_vec();
        let sets = sets_of(&[a, b, vec![], vec![5]]);
        assert_eq!(joined(&sets, 0.7), brute_force(&sets, 0.7));
        assert_eq!(joined(&sets, 0.7).len(), 1);
        assert!(joined(&sets, 0.71).is_empty());
    }

    #[test]
    fn cancels_and_refuses_past_its_limits() {
        let sets = sets_of(&[vec![1, 2, 3], vec![1, 2, 3], vec![1, 2, 4]]);
        let flag = CancelFlag::default();
        flag.cancel();
        assert!(matches!(
            similar_pairs(&sets, 0.5, &Limits::default(), &flag),
            Err(Error::Cancelled)
        ));
        // Past the most pairs, or the most shingles.
        let d = Limits::default();
        let (tight, few) = (
            Limits { max_pairs: 1, ..d },
            Limits {
                max_shingles: 8,
                ..d
            },
        );
        for limits in [tight, few] {
            assert!(matches!(
                similar_pairs(&sets, 0.5, &limits, &Silent),
                Err(Error::TooLarge { .. })
            ));
        }
    }

    proptest! {
        /// The join keeps exactly the pairs (and J) a comparison of every pair keeps, on
        /// corpora of overlapping sets drawn from a small vocabulary: hashes spread over
        /// the whole space, or all small (every shingle in one counter, and in one run
        /// of the index's sort: slower, never wrong), at any floor.
        #[test]
        fn equals_brute_force(
            raw in vec(btree_set(0u64..48, 0..24), 0..40),
            spread in any::<bool>(),
            floor in prop_oneof![0.01f64..=1.0, Just(0.5), Just(1.0), Just(1e-9), Just(0.7)],
        ) {
            let sets: Vec<Vec<u64>> = raw
                .into_iter()
                .map(|s| {
                    let mut v: Vec<u64> = s
                        .into_iter()
                        .map(|x| if spread { x.wrapping_mul(0x9e37_79b9_7f4a_7c15) } else { x })
                        .collect();
                    v.sort_unstable();
                    v
                })
                .collect();
            let sets = sets_of(&sets);
            prop_assert_eq!(joined(&sets, floor), brute_force(&sets, floor));
        }

        /// Families of near-copies (a base set with a few shingles changed) among random
        /// sets: pairs near the floor, shingles shared by two sets and by many.
        #[test]
        fn equals_brute_force_on_families(
            bases in vec(btree_set(any::<u64>(), 1..40), 1..6),
            edits in vec((0usize..6, 0usize..8, any::<u64>()), 0..30),
            floor in 0.3f64..=1.0,
        ) {
            let mut sets: Vec<Vec<u64>> = bases.iter().map(|b| b.iter().copied().collect()).collect();
            for (base, drop, add) in edits {
                let mut s: Vec<u64> = bases[base % bases.len()].iter().copied().collect();
                let keep = s.len().saturating_sub(drop % s.len().max(1));
                s.truncate(keep.max(1));
                s.push(add);
                s.sort_unstable();
                s.dedup();
                sets.push(s);
            }
            let sets = sets_of(&sets);
            prop_assert_eq!(joined(&sets, floor), brute_force(&sets, floor));
        }
    }
}
