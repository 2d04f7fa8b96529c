//! Clusters of near-duplicates: the connected components of the verified pairs (union-find),
//! each with a representative to keep and its mean internal similarity.
//!
//! Components are transitive closures: a chain a~b~c is one cluster even when a and c
//! are not similar themselves. The mean internal similarity (the exact Jaccard of every
//! pair of members, not only of the pairs that linked them) shows how tight a cluster is.

use crate::found::{Pair, Search};
use crate::index::Index;
use crate::source::Source;
use rayon::prelude::*;
use std::time::SystemTime;

/// Which member of a cluster represents it (the one to keep).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Keep {
    /// The most tokens (then the most bytes): the most complete version.
    #[default]
    Longest,
    /// The fewest tokens (then the fewest bytes).
    Shortest,
    /// The earliest modification time (files only; documents without one come last).
    Oldest,
    /// The latest modification time (files only; documents without one come last).
    Newest,
    /// The first in corpus order (the sorted walk).
    First,
}

/// A cluster of two or more documents.
#[derive(Clone, Debug, PartialEq)]
pub struct Cluster {
    /// The documents (positions in the index's `docs`), sorted by id.
    pub members: Vec<u32>,
    /// The member chosen by [`Keep`].
    pub representative: u32,
    /// Mean exact Jaccard similarity over all pairs of members (estimated from a sample
    /// of them when `mean_sampled`).
    pub mean_jaccard: f64,
    /// Whether `mean_jaccard` was estimated from [`MEAN_SAMPLE`] random pairs of members,
    /// for a cluster of too many distinct contents to compare every pair of.
    pub mean_sampled: bool,
}

/// Pairs of distinct contents in a cluster past which its mean similarity is estimated
/// from this many random pairs of members (standard error about 0.3/√n ≈ 0.0003).
pub const MEAN_SAMPLE: u64 = 1_000_000;

impl Cluster {
    /// Every member but the representative: the documents a user might remove.
    pub fn duplicates(&self) -> impl Iterator<Item = u32> + '_ {
        self.members
            .iter()
            .copied()
            .filter(move |&d| d != self.representative)
    }
}

/// Union-find with path halving and union by size.
struct DisjointSets {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl DisjointSets {
    fn new(n: usize) -> Self {
        DisjointSets {
            parent: (0..n as u32).collect(),
            size: vec![1; n],
        }
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grandparent = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grandparent;
            x = grandparent;
        }
        x
    }

    fn union(&mut self, a: u32, b: u32) {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        if self.size[a as usize] < self.size[b as usize] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b as usize] = a;
        self.size[a as usize] += self.size[b as usize];
    }
}

/// The clusters formed by `pairs` (as [`Index::find`] gives them, already cut at a
/// threshold), largest first (then by first member id). Documents in no pair are in no
/// cluster.
pub fn clusters(index: &Index, pairs: &[Pair], keep: Keep) -> Vec<Cluster> {
    let mut sets = DisjointSets::new(index.docs.len());
    for p in pairs {
        sets.union(p.a, p.b);
    }
    let mut linked: Vec<u32> = pairs.iter().flat_map(|p| [p.a, p.b]).collect();
    linked.sort_unstable();
    linked.dedup();
    let by_root: Vec<(u32, u32)> = linked.iter().map(|&d| (sets.find(d), d)).collect();
    finish(index, by_root, keep)
}

/// The clusters of a search, by content: union-find over contents, never over pairs of
/// documents, so 20,000 copies of a page are one content in one cluster at the cost of
/// one. Contents are linked by the kept pairs, and the members of a bucket left out of
/// the candidates (over the search's `max_bucket`) by their similarity to a
/// representative: the bucket's first content takes every member within the threshold
/// of it, then the first of those left, for at most [`REP_ROUNDS`] rounds. Largest
/// first, as [`clusters`].
pub fn clusters_of(index: &Index, search: &Search, keep: Keep) -> Vec<Cluster> {
    let groups = index.shingles.len();
    let mut sets = DisjointSets::new(groups);
    for p in &search.group_pairs {
        sets.union(p.ga, p.gb);
    }
    for bucket in &search.huge {
        link_to_representatives(index, &bucket.groups, search.threshold, &mut sets);
    }
    // A content's documents go to its component; a component of one content counts when
    // that content has two documents or more (and some text).
    let mut size = vec![0u32; groups];
    let mut contents = vec![0u32; groups];
    for g in 0..groups as u32 {
        let root = sets.find(g) as usize;
        if !index.shingles.get(g as usize).is_empty() {
            size[root] += index.members(g).len() as u32;
            contents[root] += 1;
        }
    }
    let mut by_root = Vec::new();
    for g in 0..groups as u32 {
        let root = sets.find(g);
        if size[root as usize] >= 2 && !index.shingles.get(g as usize).is_empty() {
            by_root.extend(index.members(g).iter().map(|&d| (root, d)));
        }
    }
    finish(index, by_root, keep)
}

/// Rounds of [`clusters_of`]'s verification against a representative, per bucket: each
/// round takes one representative, so a bucket of mutually dissimilar contents costs at
/// most this many passes over it.
pub const REP_ROUNDS: usize = 16;

fn link_to_representatives(index: &Index, bucket: &[u32], threshold: f64, sets: &mut DisjointSets) {
    let mut rest = bucket.to_vec();
    for _ in 0..REP_ROUNDS {
        let Some((&rep, others)) = rest.split_first() else {
            return;
        };
        let near: Vec<bool> = others
            .par_iter()
            .map(|&g| index.group_similarity(rep, g).0 >= threshold)
            .collect();
        let mut far = Vec::new();
        for (&g, near) in others.iter().zip(near) {
            if near {
                sets.union(rep, g);
            } else {
                far.push(g);
            }
        }
        rest = far;
    }
}

/// Clusters from (component root, document) pairs.
fn finish(index: &Index, mut by_root: Vec<(u32, u32)>, keep: Keep) -> Vec<Cluster> {
    by_root.sort_unstable();
    let id = |d: u32| index.docs[d as usize].id.as_str();
    let mut out: Vec<Cluster> = by_root
        .chunk_by(|x, y| x.0 == y.0)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|component| {
            let mut members: Vec<u32> = component.iter().map(|x| x.1).collect();
            members.sort_by(|&a, &b| id(a).cmp(id(b)));
            let (mean_jaccard, mean_sampled) = mean_similarity(index, &members);
            Cluster {
                representative: representative(index, &members, keep),
                mean_jaccard,
                mean_sampled,
                members,
            }
        })
        .collect();
    out.sort_by(|x, y| {
        y.members
            .len()
            .cmp(&x.members.len())
            .then_with(|| id(x.members[0]).cmp(id(y.members[0])))
    });
    out
}

/// The member to keep. Ties go to the first in corpus order.
pub(crate) fn representative(index: &Index, members: &[u32], keep: Keep) -> u32 {
    let doc = |d: u32| &index.docs[d as usize];
    let first = *members.iter().min().expect("a cluster has members");
    let best_by = |key: &dyn Fn(u32) -> (u64, u64)| {
        // Highest key, then lowest index (corpus order).
        *members
            .iter()
            .max_by(|&&a, &&b| key(a).cmp(&key(b)).then(b.cmp(&a)))
            .unwrap()
    };
    match keep {
        Keep::First => first,
        Keep::Longest => best_by(&|d| (doc(d).tokens, doc(d).bytes)),
        Keep::Shortest => best_by(&|d| (u64::MAX - doc(d).tokens, u64::MAX - doc(d).bytes)),
        Keep::Oldest | Keep::Newest => {
            let times: Vec<(u32, Option<SystemTime>)> = members
                .iter()
                .map(|&d| (d, mtime(&doc(d).source)))
                .collect();
            let known = times.iter().filter_map(|&(d, t)| t.map(|t| (t, d)));
            let pick = if keep == Keep::Oldest {
                known.min_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)))
            } else {
                known.max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
            };
            pick.map_or(first, |(_, d)| d)
        }
    }
}

/// A file's modification time, read from the file system (never for texts in memory).
fn mtime(source: &Source) -> Option<SystemTime> {
    // A record of a file of many documents has its file's time.
    let path = source.path()?;
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The mean exact Jaccard over all pairs of members, and whether it was estimated from a
/// sample ([`MEAN_SAMPLE`] random pairs of members, when the members hold more pairs of
/// distinct contents than that).
pub fn mean_similarity(index: &Index, members: &[u32]) -> (f64, bool) {
    let mut groups: Vec<u32> = members
        .iter()
        .map(|&d| index.docs[d as usize].group)
        .collect();
    groups.sort_unstable();
    groups.dedup();
    let distinct = groups.len() as u64;
    if distinct * distinct.saturating_sub(1) / 2 <= MEAN_SAMPLE {
        return (mean_jaccard(index, members), false);
    }
    // Pairs of members drawn uniformly (two distinct places), seeded by the cluster.
    let seed = members[0] as u64;
    let m = members.len() as u64;
    let sum: f64 = (0..MEAN_SAMPLE)
        .into_par_iter()
        .map(|i| {
            let mut rng = crate::rng::Rng::derive(seed, i);
            let x = rng.below(m);
            let y = (x + 1 + rng.below(m - 1)) % m;
            let (gx, gy) = (
                index.docs[members[x as usize] as usize].group,
                index.docs[members[y as usize] as usize].group,
            );
            index.group_similarity(gx, gy).0
        })
        .sum();
    (sum / MEAN_SAMPLE as f64, true)
}

/// The mean exact Jaccard over all pairs of members. Computed per content: the members
/// of one group are identical (J = 1), and each pair of groups is compared once and
/// weighted by how many document pairs it stands for.
pub(crate) fn mean_jaccard(index: &Index, members: &[u32]) -> f64 {
    let m = members.len() as u64;
    if m < 2 {
        return 1.0;
    }
    let mut groups: Vec<u32> = members
        .iter()
        .map(|&d| index.docs[d as usize].group)
        .collect();
    groups.sort_unstable();
    let counts: Vec<(u32, u64)> = groups
        .chunk_by(|a, b| a == b)
        .map(|c| (c[0], c.len() as u64))
        .collect();
    let within: f64 = counts
        .iter()
        .map(|&(g, c)| (c * (c - 1) / 2) as f64 * index.group_similarity(g, g).0)
        .sum();
    let across: f64 = (0..counts.len())
        .into_par_iter()
        .map(|i| {
            let (gi, ci) = counts[i];
            counts[i + 1..]
                .iter()
                .map(|&(gj, cj)| (ci * cj) as f64 * index.group_similarity(gi, gj).0)
                .sum::<f64>()
        })
        .sum();
    (within + across) / (m * (m - 1) / 2) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Params;
    use crate::progress::Silent;
    use crate::source::Corpus;

    const BASE: &str = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen";

    #[test]
    fn components_representatives_and_mean_similarity() {
        let texts = [
            ("a", BASE.to_string()),
            ("b", format!("{BASE} seventeen eighteen")), // longest
            ("c", BASE.to_string()),                     // a copy of a
            (
                "d",
                "red green blue yellow purple orange brown black white grey pink".to_string(),
            ),
            (
                "e",
                "red green blue yellow purple orange brown black white grey".to_string(),
            ),
            ("f", "nothing like the others here, alone".to_string()),
        ];
        let index = Index::build(
            Corpus::from_texts(texts.iter().map(|(i, t)| (i.to_string(), t.clone()))),
            &Params::default(),
            &Silent,
        )
        .unwrap();
        let found = index.find(64, 2, 0.5, &Silent).unwrap();
        let cs = clusters(&index, &found.pairs, Keep::Longest);
        let ids = |c: &Cluster| -> Vec<&str> {
            c.members
                .iter()
                .map(|&d| index.docs[d as usize].id.as_str())
                .collect()
        };
        assert_eq!(cs.len(), 2);
        assert_eq!(ids(&cs[0]), ["a", "b", "c"]);
        assert_eq!(ids(&cs[1]), ["d", "e"]);
        assert_eq!(index.docs[cs[0].representative as usize].id, "b");
        assert_eq!(index.docs[cs[1].representative as usize].id, "d");
        assert!(cs[0].duplicates().all(|d| d != cs[0].representative));
        assert_eq!(cs[0].duplicates().count(), 2);

        // Mean over the three pairs: a~c = 1, a~b = b~c = J(a, b).
        let (jab, _) = index.similarity(0, 1);
        assert!((cs[0].mean_jaccard - (1.0 + 2.0 * jab) / 3.0).abs() < 1e-12);
        assert_eq!(cs[1].mean_jaccard, index.similarity(3, 4).0);

        let short = clusters(&index, &found.pairs, Keep::Shortest);
        assert_eq!(
            index.docs[short[0].representative as usize].id, "a",
            "a tie with c: corpus order"
        );
        assert_eq!(index.docs[short[1].representative as usize].id, "e");
        let first = clusters(&index, &found.pairs, Keep::First);
        assert_eq!(index.docs[first[0].representative as usize].id, "a");
        // Texts in memory have no modification time: the first is kept.
        let oldest = clusters(&index, &found.pairs, Keep::Newest);
        assert_eq!(index.docs[oldest[1].representative as usize].id, "d");
    }

    #[test]
    fn union_find_merges_chains() {
        let mut s = DisjointSets::new(6);
        s.union(0, 1);
        s.union(2, 3);
        s.union(1, 3);
        assert_eq!(s.find(0), s.find(2));
        assert_ne!(s.find(0), s.find(4));
        s.union(4, 4);
        assert_ne!(s.find(4), s.find(5));
    }

    #[test]
    fn clusters_by_content_are_the_clusters_of_the_document_pairs() {
        // Copies, near copies and strangers, among many unrelated documents.
        let mut texts = Vec::new();
        for i in 0..300 {
            let family = i % 40;
            let text = match i % 3 {
                0 => format!("{BASE} family {family}"),
                1 => format!("{BASE} family {family} and one more"),
                _ => format!("unrelated words number {i} {}", "filler ".repeat(i % 7)),
            };
            texts.push((format!("d{i:03}"), text));
        }
        let index = Index::build(Corpus::from_texts(texts), &Params::default(), &Silent).unwrap();
        for threshold in [0.3, 0.6, 0.9] {
            let search = index.search(32, 4, threshold, None, &Silent).unwrap();
            let by_pairs = clusters(
                &index,
                &index.spell(search.clone()).unwrap().pairs,
                Keep::Longest,
            );
            assert!(!by_pairs.is_empty());
            assert_eq!(
                clusters_of(&index, &search, Keep::Longest),
                by_pairs,
                "J >= {threshold}"
            );
        }
    }

    #[test]
    fn a_huge_bucket_is_linked_through_a_representative() {
        let page: Vec<String> = (0..400).map(|w| format!("w{}", w * 7919 % 1000)).collect();
        let page = page.join(" ");
        let mut texts: Vec<(String, String)> = (0..1100)
            .map(|i| (format!("n{i:04}"), format!("{page} extra{i}")))
            .collect();
        texts.push(("zz".into(), "nothing like the others".into()));
        let index = Index::build(Corpus::from_texts(texts), &Params::default(), &Silent).unwrap();
        let search = index.search(16, 8, 0.9, None, &Silent).unwrap();
        assert!(!search.huge.is_empty());
        let cs = clusters_of(&index, &search, Keep::First);
        assert_eq!(cs.len(), 1);
        assert_eq!(cs[0].members.len(), 1100);
        // 1,100 distinct contents: 604,450 pairs, compared one by one (under the sample).
        assert!(!cs[0].mean_sampled);
        assert!(cs[0].mean_jaccard > 0.99);
    }

    #[test]
    fn the_mean_of_a_cluster_of_many_contents_is_sampled_and_close() {
        let page: Vec<String> = (0..200).map(|w| format!("w{}", w * 7919 % 1000)).collect();
        let page = page.join(" ");
        // 1,500 contents: 1,124,250 pairs of them, over the sample of 10^6.
        let texts: Vec<(String, String)> = (0..1500)
            .map(|i| {
                (
                    format!("n{i:04}"),
                    format!("{page} extra{} more{}", i, i % 3),
                )
            })
            .collect();
        let index = Index::build(Corpus::from_texts(texts), &Params::default(), &Silent).unwrap();
        let members: Vec<u32> = (0..1500).collect();
        let (sampled, was) = mean_similarity(&index, &members);
        assert!(was);
        let exact = mean_jaccard(&index, &members);
        assert!((sampled - exact).abs() < 0.002, "{sampled} vs {exact}");
    }
}
