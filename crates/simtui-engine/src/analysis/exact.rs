//! Exact similarities of every pair that shares at least one shingle: the ground truth
//! that LSH is measured against (`simtui eval`, the explorer's real recall).
//!
//! A pair that shares no shingle has J = 0, so only pairs that meet in an inverted index
//! from shingles to contents are counted: for each content a, the contents after it in
//! the postings of its shingles are counted in a scratch array (intersection sizes), which
//! costs Σ over shingles of (postings choose 2), not n². Works on the index's groups of
//! identical documents; [`eval`](crate::analysis::eval) counts what that means in documents.

use crate::error::{Error, Result};
use crate::index::Index;
use crate::progress::{Cancelled, Progress, Stage, check};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// Histogram bins over J ∈ [0, 1].
pub const BINS: usize = 50;

/// Numbers of pairs by similarity: bin `i` counts J in [i/BINS, (i + 1)/BINS), the last
/// bin J = 1 too (see [`bin`]).
pub type Hist = [u64; BINS];

/// The histogram bin of a similarity J ∈ [0, 1]: ⌊J · BINS⌋, J = 1 in the last bin.
pub fn bin(j: f64) -> usize {
    ((j * BINS as f64) as usize).min(BINS - 1)
}

/// Two contents (groups of the index), `a < b`, and their exact Jaccard similarity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupPair {
    /// The first content: a group of the index, as [`Doc::group`](crate::index::Doc::group) numbers them.
    pub a: u32,
    /// The second content, `b > a`.
    pub b: u32,
    /// Exact Jaccard similarity of their shingle sets, in (0, 1].
    pub jaccard: f64,
}

/// Packs a pair of contents into one sortable key, smaller first.
pub fn pack(a: u32, b: u32) -> u64 {
    let (a, b) = if a < b { (a, b) } else { (b, a) };
    ((a as u64) << 32) | b as u64
}

/// Every pair of distinct contents that share a shingle.
#[derive(Clone, Debug, PartialEq)]
pub struct ExactPairs {
    /// The pairs with J ≥ the floor asked for, by J descending then (a, b).
    pub pairs: Vec<GroupPair>,
    /// Histogram of all of them, kept or not, by J.
    pub hist: Hist,
    /// How many pairs share at least one shingle.
    pub total: u64,
}

impl ExactPairs {
    /// Number of kept pairs with J ≥ s (s at or above the floor).
    pub fn at_least(&self, s: f64) -> usize {
        self.pairs.partition_point(|p| p.jaccard >= s)
    }
}

/// Bounds that keep an exhaustive pass from running away on a huge corpus.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Most pairs kept one by one (16 bytes each).
    pub max_pairs: usize,
    /// Most shingle occurrences indexed (16 bytes each while sorting).
    pub max_shingles: usize,
    /// Most counter increments (Σ over shingles of postings choose 2).
    pub max_work: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_pairs: 50_000_000,
            max_shingles: 400_000_000,
            max_work: 200_000_000_000,
        }
    }
}

/// Over a limit of an exhaustive pass.
fn too_large(why: String) -> Error {
    Error::TooLarge {
        job: "an exhaustive pass",
        why,
    }
}

/// Slices of the hash space the postings are built in, and the shift to a shingle's slice.
const SLICES: u64 = 16;
const SLICE_SHIFT: u32 = 60;

/// Computes every pair of distinct contents sharing a shingle, keeping those with
/// J ≥ `floor` (floor > 0). Reports `Stage::Verify` progress over contents. Fails with
/// [`Error::TooLarge`] past one of the `limits`, or when cancelled.
///
/// # Panics
/// If `floor` is not above 0.
pub fn all_pairs(
    index: &Index,
    floor: f64,
    limits: &Limits,
    progress: &dyn Progress,
) -> Result<ExactPairs> {
    assert!(
        floor > 0.0,
        "the floor must be above 0: every pair has J >= 0"
    );
    let sets = &index.shingles;
    let groups = sets.len();
    if sets.total() > limits.max_shingles {
        return Err(too_large(format!("{} shingles", sets.total())));
    }
    // Postings of the shingles that two contents or more share (the others pair
    // nothing: most shingles of a corpus are in one document only), each shingle's
    // contents ascending. Built a slice of the hash space at a time, so that the
    // (shingle, content) list sorted at once is a sixteenth of the corpus's.
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
    if work > limits.max_work {
        return Err(too_large(format!("{work} shared-shingle pairs to count")));
    }

    let kept = AtomicUsize::new(0);
    let done = AtomicU64::new(0);
    let too_many = AtomicBool::new(false);
    let per: Vec<(Vec<GroupPair>, Hist)> = (0..groups as u32)
        .into_par_iter()
        .map_init(
            || (vec![0u32; groups], Vec::<u32>::new()),
            |(count, touched), a| {
                check(progress)?;
                if too_many.load(Ordering::Relaxed) {
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
                if kept.fetch_add(pairs.len(), Ordering::Relaxed) + pairs.len() > limits.max_pairs {
                    too_many.store(true, Ordering::Relaxed);
                }
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                if d.is_multiple_of(256) || d == groups as u64 {
                    progress.update(Stage::Verify, d, groups as u64);
                }
                Ok((pairs, hist))
            },
        )
        .collect::<Result<_, Cancelled>>()
        .or_else(|c| {
            if too_many.load(Ordering::Relaxed) {
                Ok(Vec::new())
            } else {
                Err(c)
            }
        })?;
    if too_many.load(Ordering::Relaxed) {
        return Err(too_large(format!(
            "over {} pairs with J >= {floor}",
            limits.max_pairs
        )));
    }
    let mut out = ExactPairs {
        pairs: Vec::with_capacity(kept.load(Ordering::Relaxed)),
        hist: [0; BINS],
        total: 0,
    };
    for (pairs, hist) in per {
        out.pairs.extend(pairs);
        for (t, h) in out.hist.iter_mut().zip(hist) {
            *t += h;
        }
    }
    out.total = out.hist.iter().sum();
    out.pairs.par_sort_unstable_by(|x, y| {
        y.jaccard
            .total_cmp(&x.jaccard)
            .then(x.a.cmp(&y.a))
            .then(x.b.cmp(&y.b))
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Params;
    use crate::progress::Silent;
    use crate::source::Corpus;
    use crate::verify::jaccard;

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
        let idx = Index::build(
            c,
            &Params {
                k: 2,
                ..Default::default()
            },
            &Silent,
        )
        .unwrap();
        let exact = all_pairs(&idx, 1e-9, &Limits::default(), &Silent).unwrap();
        let n = idx.shingles.len() as u32;
        let mut brute = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                let j = jaccard(&idx.shingles.get(a as usize), &idx.shingles.get(b as usize));
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
        let c = simtui_gen::generate(&simtui_gen::GenOptions {
            docs: 400,
            seed: 9,
            words: 40,
            ..Default::default()
        })
        .docs;
        let c = crate::source::Corpus::from_texts(c.into_iter().map(|d| (d.id, d.text)));
        let idx = Index::build(c, &Params::default(), &Silent).unwrap();
        let exact = all_pairs(&idx, 1e-9, &Limits::default(), &Silent).unwrap();
        let n = idx.shingles.len();
        let mut brute = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                let j = jaccard(&idx.shingles.get(a), &idx.shingles.get(b));
                if j > 0.0 {
                    brute.push((a as u32, b as u32, j));
                }
            }
        }
        let mut got: Vec<_> = exact.pairs.iter().map(|p| (p.a, p.b, p.jaccard)).collect();
        got.sort_by_key(|p| (p.0, p.1));
        assert!(brute.len() > 50, "{}", brute.len());
        assert_eq!(got, brute);
        assert_eq!(exact.total as usize, brute.len());
    }

    #[test]
    fn limits_are_reported() {
        let c = Corpus::from_texts(
            (0..10).map(|i| (format!("d{i}"), format!("shared words here {i}"))),
        );
        let idx = Index::build(
            c,
            &Params {
                k: 2,
                ..Default::default()
            },
            &Silent,
        )
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
