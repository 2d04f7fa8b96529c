//! The mean similarity of a cluster's members: over every pair of its distinct contents,
//! or over a sample of pairs of members when there are too many.
//!
//! Either way the pairs are listed first and their sets brought in a block of contents
//! at a time (a block is as many contents as the budget's room for it holds), so each
//! set is brought in once per block pair, never once per pair: 5,000 near-identical
//! copies whose sets are made again from the corpus cost 5,000 reads, not the 2 million
//! a million sampled pairs would (one per side).

use super::held::Held;
use crate::error::Result;
use crate::index::Index;
use crate::shingle::{ShingleSets, jaccard};
use crate::storage::Picked;
use rayon::prelude::*;

/// Pairs of distinct contents in a cluster past which its mean similarity is estimated
/// from this many random pairs of members (standard error about 0.3/√n ≈ 0.0003).
pub const MEAN_SAMPLE: u64 = 1_000_000;

/// Pairs summed per parallel task: fixed, so the sum is the same whatever the threads.
const TASK: usize = 4096;

/// A pair of distinct contents (the lower first) and how many pairs of members it
/// stands for.
type Weighted = (u32, u32, u64);

/// The mean exact Jaccard over all pairs of members, and whether it was estimated from a
/// sample ([`MEAN_SAMPLE`] random pairs of members, when the members hold more pairs of
/// distinct contents than that).
pub fn mean_similarity(index: &Index, members: &[u32]) -> (f64, bool) {
    mean_similarity_held(&Held::none(index), members)
}

/// [`mean_similarity`], from the sets `held` when they include every member's.
pub(crate) fn mean_similarity_held(held: &Held, members: &[u32]) -> (f64, bool) {
    let index = held.index();
    let distinct = groups_of(index, members).chunk_by(|a, b| a == b).count() as u64;
    if distinct * distinct.saturating_sub(1) / 2 <= MEAN_SAMPLE {
        return (mean_jaccard(held, members), false);
    }
    (sampled_mean_held(held, members, MEAN_SAMPLE), true)
}

/// The mean exact Jaccard of `samples` pairs of members (two or more) drawn uniformly,
/// seeded by the members: a cheaper estimate of [`mean_similarity`]'s, with a standard
/// error of about 0.3/√`samples`.
pub fn sampled_mean(index: &Index, members: &[u32], samples: u64) -> f64 {
    sampled_mean_held(&Held::none(index), members, samples)
}

/// [`sampled_mean`], from the sets `held` when they include every member's.
fn sampled_mean_held(held: &Held, members: &[u32], samples: u64) -> f64 {
    let index = held.index();
    // Pairs of members drawn uniformly (two distinct places), seeded by the cluster.
    let seed = members[0] as u64;
    let m = members.len() as u64;
    let group = |x: u64| index.docs.group(members[x as usize] as usize);
    let drawn: Vec<(u32, u32)> = (0..samples)
        .into_par_iter()
        .map(|i| {
            let mut rng = crate::rng::Rng::derive(seed, i);
            let x = rng.below(m);
            let y = (x + 1 + rng.below(m - 1)) % m;
            let (gx, gy) = (group(x), group(y));
            (gx.min(gy), gx.max(gy))
        })
        .collect();
    // Two members of one content: identical (J = 1), unless empty.
    let same: f64 = drawn
        .iter()
        .filter(|p| p.0 == p.1)
        .map(|p| index.group_similarity(p.0, p.1).0)
        .sum();
    let across: Vec<Weighted> = drawn
        .into_iter()
        .filter(|p| p.0 != p.1)
        .map(|(a, b)| (a, b, 1))
        .collect();
    (same + weighted_jaccard_sum(held, across)) / samples as f64
}

/// The mean exact Jaccard over all pairs of members. Computed per content: the members
/// of one group are identical (J = 1), and each pair of groups is compared once and
/// weighted by how many document pairs it stands for.
pub(crate) fn mean_jaccard(held: &Held, members: &[u32]) -> f64 {
    let index = held.index();
    let m = members.len() as u64;
    if m < 2 {
        return 1.0;
    }
    let groups = groups_of(index, members);
    let counts: Vec<(u32, u64)> = groups
        .chunk_by(|a, b| a == b)
        .map(|c| (c[0], c.len() as u64))
        .collect();
    let within: f64 = counts
        .iter()
        .map(|&(g, c)| (c * (c - 1) / 2) as f64 * index.group_similarity(g, g).0)
        .sum();
    let across: Vec<Weighted> = counts
        .iter()
        .enumerate()
        .flat_map(|(i, &(gi, ci))| {
            counts[i + 1..]
                .iter()
                .map(move |&(gj, cj)| (gi, gj, ci * cj))
        })
        .collect();
    (within + weighted_jaccard_sum(held, across)) / (m * (m - 1) / 2) as f64
}

/// The members' contents, ascending, with repeats.
fn groups_of(index: &Index, members: &[u32]) -> Vec<u32> {
    let mut groups: Vec<u32> = members
        .iter()
        .map(|&d| index.docs.group(d as usize))
        .collect();
    groups.sort_unstable();
    groups
}

/// Σ weight × J over `pairs` of distinct contents. A set that cannot be brought in
/// counts as unlike (J = 0) and the failure is kept for [`Index::check`], as
/// [`Index::similarity`] does.
fn weighted_jaccard_sum(held: &Held, pairs: Vec<Weighted>) -> f64 {
    by_blocks(held, pairs).unwrap_or_else(|e| {
        held.index().keep_failure(e);
        0.0
    })
}

/// [`weighted_jaccard_sum`]: from the sets `held` when they include every content's (in
/// the order of one block); else the contents split into blocks whose sets fit the room
/// one cluster's mean may take (the search's room shared by the threads, two blocks at
/// once), each pair of blocks brought in once, its pairs summed in parallel.
fn by_blocks(held: &Held, mut pairs: Vec<Weighted>) -> Result<f64> {
    let sets = held.index().shingles();
    let mut groups: Vec<u32> = pairs.iter().flat_map(|p| [p.0, p.1]).collect();
    groups.sort_unstable();
    groups.dedup();
    if let Some(picked) = held.covering(&groups) {
        return Ok(sum_of(picked, &pairs));
    }
    let threads = rayon::current_num_threads() as u64;
    let room = sets.batch_bytes(held.index().work_room() / threads / 2);
    let starts = block_starts(sets, &groups, room);
    let block = |g: u32| starts.partition_point(|&s| groups[s] <= g) - 1;
    let range = |b: usize| starts[b]..starts.get(b + 1).copied().unwrap_or(groups.len());
    if starts.len() > 1 {
        // Full keys: the order, and so the sum, is the same whatever the sort.
        pairs.par_sort_unstable_by_key(|&(a, b, w)| (block(a), block(b), a, b, w));
    }
    let mut sum = 0.0;
    for chunk in pairs.chunk_by(|x, y| (block(x.0), block(x.1)) == (block(y.0), block(y.1))) {
        let (ba, bb) = (block(chunk[0].0), block(chunk[0].1));
        let mut wanted = groups[range(ba)].to_vec();
        if bb != ba {
            wanted.extend_from_slice(&groups[range(bb)]);
        }
        sum += sum_of(&sets.pick(wanted)?, chunk);
    }
    Ok(sum)
}

/// Σ weight × J over `pairs`, whose sets `picked` holds: summed in tasks of a fixed size,
/// then the tasks in order, so the sum is the same whatever the threads.
fn sum_of(picked: &Picked<u64>, pairs: &[Weighted]) -> f64 {
    let sums: Vec<f64> = pairs
        .par_chunks(TASK)
        .map(|task| {
            task.iter()
                .map(|&(a, b, w)| w as f64 * jaccard(picked.get(a), picked.get(b)))
                .sum::<f64>()
        })
        .collect();
    sums.iter().sum::<f64>()
}

/// Where each block of `groups` (ascending) starts: as many as `room` bytes of sets
/// brought in hold, one at least.
fn block_starts(sets: &ShingleSets, groups: &[u32], room: u64) -> Vec<usize> {
    let mut starts = vec![0];
    let mut bytes = 0;
    for (i, &g) in groups.iter().enumerate() {
        let cost = sets.load_bytes(g);
        if bytes > 0 && bytes + cost > room {
            starts.push(i);
            bytes = 0;
        }
        bytes += cost;
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Params;
    use crate::progress::Silent;
    use crate::source::Corpus;
    use crate::storage::{Budget, Kept};

    fn index(budget: &Budget) -> Index {
        index_keeping(budget, crate::index::Keep::Everything)
    }

    fn index_keeping(budget: &Budget, keep: crate::index::Keep) -> Index {
        let page: Vec<String> = (0..150).map(|w| format!("w{}", w * 7919 % 1000)).collect();
        let page = page.join(" ");
        let texts =
            (0..400).map(|i| (format!("n{i:04}"), format!("{page} extra{i} more{}", i % 7)));
        Index::builder(&Params::default())
            .budget(budget)
            .keep(keep)
            .build(Corpus::from_texts(texts), &Silent)
            .unwrap()
    }

    #[test]
    fn sets_brought_in_by_blocks_give_the_mean_of_sets_in_memory() {
        let held = index(&Budget::unlimited());
        // Sets on a temporary file, and a room of a few sets: many blocks of contents.
        let spilled = index(&Budget::new(0, None));
        assert_eq!(spilled.shingles().kept(), Kept::File);
        let members: Vec<u32> = (0..400).collect();
        let (all, sampled) = (
            mean_jaccard(&Held::none(&held), &members),
            mean_jaccard(&Held::none(&spilled), &members),
        );
        assert!((all - sampled).abs() < 1e-12, "{all} vs {sampled}");
        assert!(all > 0.9 && all < 1.0);
        let (a, b) = (
            sampled_mean(&held, &members, 5000),
            sampled_mean(&spilled, &members, 5000),
        );
        assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        spilled.check().unwrap();
    }

    #[test]
    fn sets_held_give_the_same_means_bit_for_bit() {
        // Sets not kept (made again from the texts): held once, or brought in by blocks.
        let index = index_keeping(&Budget::unlimited(), crate::index::Keep::AllButSets);
        assert_eq!(index.shingles().kept(), Kept::Remade);
        let members: Vec<u32> = (0..400).collect();
        let groups: Vec<u32> = (0..index.shingles().len() as u32).collect();
        let held = Held::bring(&index, groups.clone());
        assert!(held.covering(&groups).is_some());
        let none = Held::none(&index);
        for (x, y) in [
            (mean_jaccard(&held, &members), mean_jaccard(&none, &members)),
            (
                sampled_mean_held(&held, &members, 5000),
                sampled_mean_held(&none, &members, 5000),
            ),
        ] {
            assert_eq!(x.to_bits(), y.to_bits(), "{x} vs {y}");
        }
        index.check().unwrap();
    }
}
