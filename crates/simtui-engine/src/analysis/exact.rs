//! The exact pairs of a corpus: the ground truth that LSH is measured against (`simtui
//! eval`, the explorer's real recall).
//!
//! [`all_pairs`] finds the pairs with J ≥ a floor by the prefix-filtered join of
//! [`join`](crate::analysis::join), at any size. [`shared_pairs`] counts every pair that
//! shares a shingle (J > 0) through an inverted index from shingles to contents: for each
//! content a, the contents after it in the postings of its shingles are counted in a
//! scratch array (intersection sizes), which costs Σ over shingles of (postings choose
//! 2), not n², but grows with the corpus far faster than the join: it is the reference
//! the join is tested and benchmarked against. Both work on the index's groups of
//! identical documents; [`eval`](crate::analysis::eval) counts what that means in
//! documents.

pub use crate::analysis::join::{GroupPair, Limits};
use crate::analysis::join::{PairBudget, too_large};
use crate::error::Result;
use crate::index::Index;
use crate::progress::{Cancelled, Progress, Stage, check};
use crate::storage::Slab;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// Histogram bins over J ∈ [0, 1].
pub const BINS: usize = 50;

/// Numbers of pairs by similarity: bin `i` counts J in [i/BINS, (i + 1)/BINS), the last
/// bin J = 1 too (see [`bin`]).
pub type Hist = [u64; BINS];

/// The histogram bin of a similarity J ∈ [0, 1]: ⌊J · BINS⌋, J = 1 in the last bin.
pub fn bin(j: f64) -> usize {
    ((j * BINS as f64) as usize).min(BINS - 1)
}

/// Packs a pair of contents into one sortable key, smaller first.
pub fn pack(a: u32, b: u32) -> u64 {
    let (a, b) = if a < b { (a, b) } else { (b, a) };
    ((a as u64) << 32) | b as u64
}

/// The exact pairs of distinct contents down to a floor.
#[derive(Clone, Debug, PartialEq)]
pub struct ExactPairs {
    /// The pairs with J ≥ `floor`, by J descending then (a, b).
    pub pairs: Vec<GroupPair>,
    /// Histogram of the pairs counted, by J: complete from `floor` up ([`all_pairs`]:
    /// the bins below are empty), or over every pair sharing a shingle
    /// ([`shared_pairs`]).
    pub hist: Hist,
    /// How many pairs the histogram counts.
    pub total: u64,
    /// The floor asked for: every pair with J ≥ floor is in `pairs`.
    pub floor: f64,
}

impl ExactPairs {
    /// Number of kept pairs with J ≥ s (s at or above the floor).
    pub fn at_least(&self, s: f64) -> usize {
        self.pairs.partition_point(|p| p.jaccard >= s)
    }
}

/// Slices of the hash space the postings are built in, and the shift to a shingle's slice.
const SLICES: u64 = 16;
const SLICE_SHIFT: u32 = 60;

/// The pairs of distinct contents with J ≥ `floor` (floor > 0), by the prefix-filtered
/// join ([`similar_pairs`](crate::analysis::join::similar_pairs)): the same pairs and J as
/// [`shared_pairs`] keeps, much faster. Reports `Stage::Verify` progress. Fails with
/// [`Error::TooLarge`](crate::error::Error::TooLarge) past one of the `limits`, or when cancelled.
///
/// # Panics
/// If `floor` is not above 0.
pub fn all_pairs(
    index: &Index,
    floor: f64,
    limits: &Limits,
    progress: &dyn Progress,
) -> Result<ExactPairs> {
    let mut pairs = crate::analysis::join::similar_pairs(&index.shingles, floor, limits, progress)?;
    let mut hist = [0u64; BINS];
    for p in &pairs {
        hist[bin(p.jaccard)] += 1;
    }
    sort_pairs(&mut pairs);
    Ok(ExactPairs {
        total: pairs.len() as u64,
        pairs,
        hist,
        floor,
    })
}

/// By J descending, then (a, b).
fn sort_pairs(pairs: &mut [GroupPair]) {
    pairs.par_sort_unstable_by(|x, y| {
        y.jaccard
            .total_cmp(&x.jaccard)
            .then(x.a.cmp(&y.a))
            .then(x.b.cmp(&y.b))
    });
}

/// The postings of the shingles that two contents or more share (the others pair
/// nothing: most shingles of a corpus are in one document only): each such shingle
/// (`keys`, ascending) with its contents ascending (`members[starts[k]..starts[k + 1]]`),
/// and the pairs they make to count (`work`). Built a slice of the hash space at a time,
/// so that the (shingle, content) list sorted at once is a sixteenth of the corpus's.
struct Postings {
    keys: Vec<u64>,
    starts: Vec<usize>,
    members: Vec<u32>,
    work: u64,
}

fn postings(sets: &Slab<u64>, progress: &dyn Progress) -> Result<Postings> {
    let groups = sets.len();
    let mut keys: Vec<u64> = Vec::new();
    let mut starts: Vec<usize> = Vec::new();
    let mut members: Vec<u32> = Vec::new();
    let mut work = 0u64;
    let mut occ: Vec<(u64, u32)> = Vec::new();
    for slice in 0..SLICES {
        check(progress)?;
        occ.clear();
        for g in 0..groups {
            // The sets are sorted, so a slice of the hash space is a run of each.
            let set = sets.get(g);
            let from = set.partition_point(|&s| s >> SLICE_SHIFT < slice);
            let to = set.partition_point(|&s| s >> SLICE_SHIFT <= slice);
            occ.extend(set[from..to].iter().map(|&s| (s, g as u32)));
        }
        occ.par_sort_unstable();
        for run in occ.chunk_by(|x, y| x.0 == y.0) {
            if run.len() < 2 {
                continue;
            }
            keys.push(run[0].0);
            starts.push(members.len());
            members.extend(run.iter().map(|o| o.1));
            let p = run.len() as u64;
            work += p * (p - 1) / 2;
        }
    }
    starts.push(members.len());
    drop(occ);
    Ok(Postings {
        keys,
        starts,
        members,
        work,
    })
}

/// Computes every pair of distinct contents sharing a shingle, keeping those with
/// J ≥ `floor` (floor > 0), and a histogram of them all. Reports `Stage::Verify`
/// progress over contents. Fails with [`Error::TooLarge`](crate::error::Error::TooLarge) past one of the `limits`, or
/// when cancelled. The reference [`all_pairs`] is tested and benchmarked against.
///
/// # Panics
/// If `floor` is not above 0.
pub fn shared_pairs(
    index: &Index,
    floor: f64,
    limits: &Limits,
    progress: &dyn Progress,
) -> Result<ExactPairs> {
    assert!(
        floor > 0.0,
        "the floor must be above 0: every pair has J >= 0"
    );
    let groups = index.shingles.len();
    if index.shingles.total() > limits.max_shingles {
        return Err(too_large(format!("{} shingles", index.shingles.total())));
    }
    // Every set at hand (read back or made again once when not in memory).
    let sets = index.shingles.sets(0..groups)?;
    let Postings {
        keys,
        starts,
        members,
        work,
    } = postings(&sets, progress)?;
    if work > limits.max_work {
        return Err(too_large(format!("{work} shared-shingle pairs to count")));
    }

    let budget = PairBudget::new(limits);
    let done = AtomicU64::new(0);
    let per = (0..groups as u32)
        .into_par_iter()
        .map_init(
            || (vec![0u32; groups], Vec::<u32>::new()),
            |(count, touched), a| {
                check(progress)?;
                if budget.is_over() {
                    return Err(Cancelled);
                }
                let set_a = sets.get(a as usize);
                for s in set_a.iter() {
                    let Ok(k) = keys.binary_search(s) else {
                        continue; // in this content only
                    };
                    let post = &members[starts[k]..starts[k + 1]];
                    let from = post.partition_point(|&b| b <= a);
                    for &b in &post[from..] {
                        if count[b as usize] == 0 {
                            touched.push(b);
                        }
                        count[b as usize] += 1;
                    }
                }
                let mut pairs = Vec::new();
                let mut hist = [0u64; BINS];
                for &b in touched.iter() {
                    let inter = count[b as usize] as usize;
                    count[b as usize] = 0;
                    let union = set_a.len() + sets.get(b as usize).len() - inter;
                    let jaccard = inter as f64 / union as f64;
                    hist[bin(jaccard)] += 1;
                    if jaccard >= floor {
                        pairs.push(GroupPair { a, b, jaccard });
                    }
                }
                touched.clear();
                budget.add(pairs.len());
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                if d.is_multiple_of(256) || d == groups as u64 {
                    progress.update(Stage::Verify, d, groups as u64);
                }
                Ok((pairs, hist))
            },
        )
        .collect::<std::result::Result<Vec<(Vec<GroupPair>, Hist)>, Cancelled>>();
    let per = budget.finish(per, floor)?;
    let mut out = ExactPairs {
        pairs: Vec::with_capacity(budget.kept()),
        hist: [0; BINS],
        total: 0,
        floor,
    };
    for (pairs, hist) in per {
        out.pairs.extend(pairs);
        for (t, h) in out.hist.iter_mut().zip(hist) {
            *t += h;
        }
    }
    out.total = out.hist.iter().sum();
    sort_pairs(&mut out.pairs);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::index::Params;
    use crate::progress::Silent;
    use crate::shingle::jaccard;
    use crate::source::Corpus;

    #[test]
    fn matches_brute_force_over_all_pairs() {
        let texts = [
            "a b c d e f g h",
            "a b c d e f g x",
            "a b c d y y y y",
            "p q r s t u v w",
            "p q r s t u v z",
            "unrelated words here now",
        ];
        let c = Corpus::from_texts(
            texts
                .iter()
                .enumerate()
                .map(|(i, t)| (format!("d{i}"), t.to_string())),
        );
        let idx = Index::builder(&Params {
            k: 2,
            ..Default::default()
        })
        .build(c, &Silent)
        .unwrap();
        let exact = all_pairs(&idx, 1e-9, &Limits::default(), &Silent).unwrap();
        let n = idx.shingles.len() as u32;
        let mut brute = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                let (x, y) = (idx.shingles.get(a as usize), idx.shingles.get(b as usize));
                let j = jaccard(&x.unwrap(), &y.unwrap());
                if j > 0.0 {
                    brute.push((a, b, j));
                }
            }
        }
        assert_eq!(exact.total as usize, brute.len());
        assert_eq!(exact.pairs.len(), brute.len());
        for p in &exact.pairs {
            assert!(brute.contains(&(p.a, p.b, p.jaccard)), "{p:?}");
        }
        assert!(exact.pairs.windows(2).all(|w| w[0].jaccard >= w[1].jaccard));
        assert_eq!(
            exact.at_least(0.5),
            brute.iter().filter(|p| p.2 >= 0.5).count()
        );
    }

    #[test]
    fn matches_brute_force_on_a_generated_corpus() {
        // Families of near-duplicates among unrelated documents: shingles shared by many
        // contents, by two, and by one only, in every slice of the hash space.
        let c = simtui_gen::generate(&simtui_gen::GenOptions::sized(400, 9, 40)).docs;
        let c = crate::source::Corpus::from_texts(c.into_iter().map(|d| (d.id, d.text)));
        let idx = Index::builder(&Params::default())
            .build(c, &Silent)
            .unwrap();
        let exact = all_pairs(&idx, 1e-9, &Limits::default(), &Silent).unwrap();
        let n = idx.shingles.len();
        let mut brute = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                let j = jaccard(&idx.shingles.get(a).unwrap(), &idx.shingles.get(b).unwrap());
                if j > 0.0 {
                    brute.push((a as u32, b as u32, j));
                }
            }
        }
        let sorted = |e: &ExactPairs| {
            let mut got: Vec<_> = e.pairs.iter().map(|p| (p.a, p.b, p.jaccard)).collect();
            got.sort_by_key(|p| (p.0, p.1));
            got
        };
        assert!(brute.len() > 50, "{}", brute.len());
        assert_eq!(sorted(&exact), brute);
        assert_eq!(exact.total as usize, brute.len());
        // The reference agrees, and so do both at a floor, where the join's histogram
        // counts the kept pairs only.
        let shared = shared_pairs(&idx, 1e-9, &Limits::default(), &Silent).unwrap();
        assert_eq!(sorted(&shared), brute);
        for floor in [0.3, 0.5, 0.8] {
            let joined = all_pairs(&idx, floor, &Limits::default(), &Silent).unwrap();
            let reference = shared_pairs(&idx, floor, &Limits::default(), &Silent).unwrap();
            assert_eq!(joined.pairs, reference.pairs);
            assert_eq!(joined.total as usize, joined.pairs.len());
            assert_eq!(joined.floor, floor);
            assert_eq!(reference.total, shared.total);
            for (i, (&j, &r)) in joined.hist.iter().zip(&reference.hist).enumerate() {
                if (i as f64) / BINS as f64 >= floor {
                    assert_eq!(j, r, "bin {i}");
                }
            }
        }
    }

    #[test]
    fn limits_are_reported() {
        let c = Corpus::from_texts(
            (0..10).map(|i| (format!("d{i}"), format!("shared words here {i}"))),
        );
        let idx = Index::builder(&Params {
            k: 2,
            ..Default::default()
        })
        .build(c, &Silent)
        .unwrap();
        let tight = Limits {
            max_pairs: 3,
            ..Default::default()
        };
        assert!(matches!(
            all_pairs(&idx, 0.01, &tight, &Silent),
            Err(Error::TooLarge { .. })
        ));
    }
}
