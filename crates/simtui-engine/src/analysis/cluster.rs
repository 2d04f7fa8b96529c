//! Clusters of near-duplicates, each with a representative to keep, its mean internal
//! similarity and its members' least similarity to the one kept.
//!
//! Two ways to form them ([`Linkage`]). *Components* (union-find over the verified
//! pairs) are transitive closures: a chain a~b~c is one cluster even when a and c are not
//! similar themselves, and at scale chains join unrelated documents into giant clusters.
//! *Stars* never chain: the document to keep first (by the [`Keep`] rule, e.g. the
//! longest), with every document still free within the threshold of it, then the next
//! free one, so each member is within the threshold of its cluster's kept document.
//! The mean internal similarity (the exact Jaccard of every pair of members, not only
//! of the pairs that linked them) shows how tight a cluster is; the minimum similarity
//! to the kept document shows whether removing the others is safe.

use super::held::Held;
use super::mean::mean_similarity_held;
pub use super::mean::{MEAN_SAMPLE, mean_similarity, sampled_mean};
use crate::error::Result;
use crate::index::Index;
use crate::search::found::{Pair, Search};
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
    /// By a metadata field (the `field`-th of
    /// [`InputOptions::meta_fields`](crate::source::InputOptions::meta_fields)): the
    /// earliest value, or the latest with `last`. Dates compare as dates (ISO 8601, or
    /// `26-FEB-1987 15:01:01.79` as Reuters writes them), numbers as numbers, anything
    /// else as text in natural order; documents without a value come last.
    Field {
        /// Which metadata value, by position.
        field: usize,
        /// The latest value rather than the earliest.
        last: bool,
    },
}

/// How verified pairs become clusters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Linkage {
    /// Connected components (union-find): transitive, so chains a~b~c join documents
    /// that are not similar themselves.
    #[default]
    Components,
    /// Stars around the documents to keep: taken in [`Keep`] order, each free document
    /// becomes a cluster's kept one with every free document within the threshold of it.
    /// Every member is within the threshold of the kept one; nothing chains.
    Star,
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
    /// The least exact Jaccard similarity of a member to the representative (1 when all
    /// are identical to it). A star cluster's is at least its threshold; a component's
    /// can be far below (a chain).
    pub min_jaccard: f64,
}

impl Cluster {
    /// Every member but the representative: the documents a user might remove.
    pub fn duplicates(&self) -> impl Iterator<Item = u32> + '_ {
        self.members
            .iter()
            .copied()
            .filter(move |&d| d != self.representative)
    }
}

/// Union-find with path halving and union by size, over the numbers 0..n.
pub struct DisjointSets {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl DisjointSets {
    /// `n` sets of one number each.
    pub fn new(n: usize) -> Self {
        DisjointSets {
            parent: (0..n as u32).collect(),
            size: vec![1; n],
        }
    }

    /// The root of `x`'s set.
    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grandparent = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grandparent;
            x = grandparent;
        }
        x
    }

    /// Joins the sets of `a` and `b`.
    pub fn union(&mut self, a: u32, b: u32) {
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
/// cluster. Their similarities are looked up pair by pair ([`Index::similarity`]): a set
/// that cannot be read back is kept for [`Index::check`].
pub fn clusters(index: &Index, pairs: &[Pair], keep: Keep) -> Vec<Cluster> {
    let mut sets = DisjointSets::new(index.docs.len());
    for p in pairs {
        sets.union(p.a, p.b);
    }
    let mut linked: Vec<u32> = pairs.iter().flat_map(|p| [p.a, p.b]).collect();
    linked.sort_unstable();
    linked.dedup();
    let by_root: Vec<(u32, u32)> = linked.iter().map(|&d| (sets.find(d), d)).collect();
    finish(&Held::none(index), by_root, keep)
}

/// The clusters of a search, by content: union-find over contents, never over pairs of
/// documents, so 20,000 copies of a page are one content in one cluster at the cost of
/// one. Contents are linked by the kept pairs, and the members of a bucket left out of
/// the candidates (over the search's `max_bucket`) by their similarity to a
/// representative: the bucket's first content takes every member within the threshold
/// of it, then the first of those left, for at most [`REP_ROUNDS`] rounds. Largest
/// first, as [`clusters`]. An error when a set could not be read back for a similarity
/// (see [`Index::check`]).
pub fn clusters_of(index: &Index, search: &Search, keep: Keep) -> Result<Vec<Cluster>> {
    let groups = index.shingles.len();
    let mut sets = DisjointSets::new(groups);
    for p in &search.group_pairs {
        sets.union(p.ga, p.gb);
    }
    let held = held_huge(index, search);
    for bucket in &search.huge {
        link_to_representatives(&held, &bucket.groups, search.threshold, &mut sets);
    }
    // A content's documents go to its component; a component of one content counts when
    // that content has two documents or more (and some text).
    let mut size = vec![0u32; groups];
    let mut contents = vec![0u32; groups];
    for g in 0..groups as u32 {
        let root = sets.find(g) as usize;
        if index.shingles.set_len(g as usize) != 0 {
            size[root] += index.members(g).len() as u32;
            contents[root] += 1;
        }
    }
    let mut by_root = Vec::new();
    for g in 0..groups as u32 {
        let root = sets.find(g);
        if size[root as usize] >= 2 && index.shingles.set_len(g as usize) != 0 {
            by_root.extend(index.members(g).iter().map(|&d| (root, d)));
        }
    }
    let clusters = finish(&held, by_root, keep);
    index.check()?;
    Ok(clusters)
}

/// The clusters of a search, linked as `linkage` says: [`clusters_of`] for components,
/// [`stars_of`] for stars.
pub fn clusters_by(
    index: &Index,
    search: &Search,
    keep: Keep,
    linkage: Linkage,
) -> Result<Vec<Cluster>> {
    match linkage {
        Linkage::Components => clusters_of(index, search, keep),
        Linkage::Star => stars_of(index, search, keep),
    }
}

/// Star clusters of a search, by content (20,000 copies of a page cost one content).
/// Contents are taken in the order of their best document by `keep` (each content's
/// documents are identical, so its best one is the one a cluster would keep); a content
/// not in a cluster yet starts one, kept document and all, and takes every free content
/// within the threshold of it (a verified pair of the search, or a member of a huge
/// bucket it shares, verified against it: each bucket for at most [`REP_ROUNDS`]
/// centres, as [`clusters_of`] does). Every member is within the threshold of the kept
/// document, which is the best of its cluster by `keep`. Largest first, as [`clusters`].
/// An error when a set could not be read back for a similarity (see [`Index::check`]).
pub fn stars_of(index: &Index, search: &Search, keep: Keep) -> Result<Vec<Cluster>> {
    let groups = index.shingles.len();
    let nonempty = |g: u32| index.shingles.set_len(g as usize) != 0;
    // Each content's neighbours within the threshold (both directions), with their J.
    let mut start = vec![0u32; groups + 1];
    for p in &search.group_pairs {
        start[p.ga as usize + 1] += 1;
        start[p.gb as usize + 1] += 1;
    }
    for g in 0..groups {
        start[g + 1] += start[g];
    }
    let mut fill = start.clone();
    let mut near = vec![(0u32, 0f64); start[groups] as usize];
    for p in &search.group_pairs {
        for (x, y) in [(p.ga, p.gb), (p.gb, p.ga)] {
            near[fill[x as usize] as usize] = (y, p.jaccard);
            fill[x as usize] += 1;
        }
    }
    // The huge buckets each content is in, and how many centres each bucket had.
    let mut in_huge: std::collections::HashMap<u32, Vec<usize>> = Default::default();
    for (i, b) in search.huge.iter().enumerate() {
        for &g in &b.groups {
            in_huge.entry(g).or_default().push(i);
        }
    }
    let mut rounds = vec![0usize; search.huge.len()];
    let held = held_huge(index, search);
    // Contents in keep order of their best documents.
    let best: Vec<u32> = (0..groups as u32)
        .into_par_iter()
        .map(|g| representative(index, index.members(g), keep))
        .collect();
    let order = keep_order(index, &best, keep);
    // The centre each content joined (u32::MAX: free), and its J to it.
    let mut centre = vec![u32::MAX; groups];
    let mut to_centre = vec![1.0f64; groups];
    let mut out = Vec::new();
    for &c in &order {
        if centre[c as usize] != u32::MAX || !nonempty(c) {
            continue;
        }
        centre[c as usize] = c;
        let mut joined = vec![c];
        for &(g, j) in &near[start[c as usize] as usize..start[c as usize + 1] as usize] {
            if centre[g as usize] == u32::MAX {
                centre[g as usize] = c;
                to_centre[g as usize] = j;
                joined.push(g);
            }
        }
        for &b in in_huge.get(&c).map_or(&[][..], Vec::as_slice) {
            if rounds[b] >= REP_ROUNDS {
                continue;
            }
            rounds[b] += 1;
            let free: Vec<u32> = search.huge[b]
                .groups
                .iter()
                .copied()
                .filter(|&g| centre[g as usize] == u32::MAX && nonempty(g))
                .collect();
            let sims: Vec<f64> = free.par_iter().map(|&g| held.similarity(c, g)).collect();
            for (g, j) in free.into_iter().zip(sims) {
                if j >= search.threshold {
                    centre[g as usize] = c;
                    to_centre[g as usize] = j;
                    joined.push(g);
                }
            }
        }
        let members: Vec<u32> = joined
            .iter()
            .flat_map(|&g| index.members(g).iter().copied())
            .collect();
        if members.len() < 2 {
            continue;
        }
        let min_jaccard = joined[1..]
            .iter()
            .map(|&g| to_centre[g as usize])
            .fold(1.0, f64::min);
        out.push((best[c as usize], members, min_jaccard));
    }
    let rank = index.id_order();
    let mut clusters: Vec<Cluster> = out
        .into_par_iter()
        .map(|(representative, mut members, min_jaccard)| {
            members.sort_by_key(|&d| rank[d as usize]);
            let (mean_jaccard, mean_sampled) = mean_similarity_held(&held, &members);
            Cluster {
                members,
                representative,
                mean_jaccard,
                mean_sampled,
                min_jaccard,
            }
        })
        .collect();
    sort_clusters(index, &mut clusters);
    index.check()?;
    Ok(clusters)
}

/// Contents (by their best documents `best`) from the one to keep first to the last,
/// ties in corpus order.
fn keep_order(index: &Index, best: &[u32], keep: Keep) -> Vec<u32> {
    let mut order: Vec<u32> = (0..best.len() as u32).collect();
    let size = |g: u32| size_of(index, best[g as usize]);
    match keep {
        Keep::First => order.sort_by_key(|&g| best[g as usize]),
        Keep::Longest => order.sort_by(|&x, &y| {
            (size(y).cmp(&size(x))).then(best[x as usize].cmp(&best[y as usize]))
        }),
        Keep::Shortest => order.sort_by(|&x, &y| {
            (size(x).cmp(&size(y))).then(best[x as usize].cmp(&best[y as usize]))
        }),
        Keep::Oldest | Keep::Newest | Keep::Field { .. } => {
            let key: Vec<Option<SortKey>> =
                best.par_iter().map(|&d| sort_key(index, d, keep)).collect();
            let newest = matches!(keep, Keep::Newest | Keep::Field { last: true, .. });
            order.sort_by(|&x, &y| {
                let (kx, ky) = (&key[x as usize], &key[y as usize]);
                let by_key = match (kx, ky) {
                    (Some(a), Some(b)) if newest => b.cmp(a),
                    (Some(a), Some(b)) => a.cmp(b),
                    // Without a value: last.
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                };
                by_key.then(best[x as usize].cmp(&best[y as usize]))
            });
        }
    }
    order
}

/// Rounds of [`clusters_of`]'s verification against a representative, per bucket: each
/// round takes one representative, so a bucket of mutually dissimilar contents costs at
/// most this many passes over it.
pub const REP_ROUNDS: usize = 16;

/// The sets of the contents of every huge bucket, brought in once when they fit: each
/// band's bucket of the same copies compares the same contents.
fn held_huge<'a>(index: &'a Index, search: &Search) -> Held<'a> {
    let mut groups: Vec<u32> = search
        .huge
        .iter()
        .flat_map(|b| b.groups.iter().copied())
        .collect();
    groups.sort_unstable();
    groups.dedup();
    Held::bring(index, groups)
}

fn link_to_representatives(held: &Held, bucket: &[u32], threshold: f64, sets: &mut DisjointSets) {
    let mut rest = bucket.to_vec();
    for _ in 0..REP_ROUNDS {
        let Some((&rep, others)) = rest.split_first() else {
            return;
        };
        let near: Vec<bool> = others
            .par_iter()
            .map(|&g| held.similarity(rep, g) >= threshold)
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
fn finish(held: &Held, mut by_root: Vec<(u32, u32)>, keep: Keep) -> Vec<Cluster> {
    let index = held.index();
    by_root.sort_unstable();
    let rank = index.id_order();
    let mut out: Vec<Cluster> = by_root
        .chunk_by(|x, y| x.0 == y.0)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|component| {
            let mut members: Vec<u32> = component.iter().map(|x| x.1).collect();
            members.sort_by_key(|&d| rank[d as usize]);
            let (mean_jaccard, mean_sampled) = mean_similarity_held(held, &members);
            let representative = representative(index, &members, keep);
            Cluster {
                min_jaccard: min_to_held(held, &members, representative),
                representative,
                mean_jaccard,
                mean_sampled,
                members,
            }
        })
        .collect();
    sort_clusters(index, &mut out);
    out
}

/// Largest first, then by first member id.
fn sort_clusters(index: &Index, out: &mut [Cluster]) {
    let rank = index.id_order();
    out.sort_by(|x, y| {
        y.members
            .len()
            .cmp(&x.members.len())
            .then_with(|| rank[x.members[0] as usize].cmp(&rank[y.members[0] as usize]))
    });
}

/// The least exact Jaccard of a member to `kept`: one comparison per distinct content.
pub fn min_to(index: &Index, members: &[u32], kept: u32) -> f64 {
    min_to_held(&Held::none(index), members, kept)
}

/// [`min_to`], from the sets `held` where it has them.
fn min_to_held(held: &Held, members: &[u32], kept: u32) -> f64 {
    let index = held.index();
    let kept_group = index.docs.group(kept as usize);
    let mut groups: Vec<u32> = members
        .iter()
        .map(|&d| index.docs.group(d as usize))
        .filter(|&g| g != kept_group)
        .collect();
    groups.sort_unstable();
    groups.dedup();
    held.min_to(kept_group, &groups)
}

/// The member to keep. Ties go to the first in corpus order.
pub fn representative(index: &Index, members: &[u32], keep: Keep) -> u32 {
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
        Keep::Longest => best_by(&|d| size_of(index, d)),
        Keep::Shortest => best_by(&|d| {
            let (tokens, bytes) = size_of(index, d);
            (u64::MAX - tokens, u64::MAX - bytes)
        }),
        Keep::Oldest | Keep::Newest | Keep::Field { .. } => {
            let keys: Vec<(u32, Option<SortKey>)> = members
                .iter()
                .map(|&d| (d, sort_key(index, d, keep)))
                .collect();
            let known = keys.iter().filter_map(|(d, k)| k.as_ref().map(|k| (k, *d)));
            let latest = matches!(keep, Keep::Newest | Keep::Field { last: true, .. });
            let pick = if latest {
                known.max_by(|a, b| a.0.cmp(b.0).then(b.1.cmp(&a.1)))
            } else {
                known.min_by(|a, b| a.0.cmp(b.0).then(a.1.cmp(&b.1)))
            };
            pick.map_or(first, |(_, d)| d)
        }
    }
}

/// A document's tokens and bytes: what the length rules order documents by.
fn size_of(index: &Index, d: u32) -> (u64, u64) {
    (index.docs.tokens(d as usize), index.docs.bytes(d as usize))
}

/// What the time and field rules order documents by.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum SortKey {
    Time(SystemTime),
    Value(MetaValue),
}

/// A document's key for the time and field rules: None when it has none (no file time,
/// an empty value).
fn sort_key(index: &Index, d: u32, keep: Keep) -> Option<SortKey> {
    let doc = &index.docs.at(d as usize);
    match keep {
        Keep::Oldest | Keep::Newest => mtime(&doc.source).map(SortKey::Time),
        Keep::Field { field, .. } => {
            let v = doc.meta().get(field).map(|v| v.trim()).unwrap_or("");
            (!v.is_empty()).then(|| SortKey::Value(MetaValue::parse(v)))
        }
        _ => None,
    }
}

/// A metadata value as the field rule orders it: dates before numbers before text, each
/// in its own order (a field holds one kind in practice).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MetaValue {
    /// A date and time: (year, month, day, hours, minutes, seconds, fraction digits).
    Date([u32; 6], String),
    /// A number, as an order-preserving integer of its bits.
    Number(i64),
    /// Anything else, in natural order.
    Text(NaturalText),
}

/// Text ordered by [`natural_cmp`](crate::natural::natural_cmp).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NaturalText(pub String);

impl PartialOrd for NaturalText {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for NaturalText {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        crate::natural::natural_cmp(&self.0, &other.0)
    }
}

impl MetaValue {
    /// Reads a value: an ISO 8601 date (`1987-02-26`, `1987-02-26T15:01:01Z`, ...), a
    /// Reuters date (`26-FEB-1987 15:01:01.79`), a number, or else text.
    pub fn parse(v: &str) -> MetaValue {
        if let Some(d) = iso_date(v).or_else(|| reuters_date(v)) {
            return d;
        }
        if let Ok(x) = v.parse::<f64>()
            && x.is_finite()
        {
            // Order-preserving: flip the sign bit of positives, every bit of negatives.
            let bits = x.to_bits() as i64;
            return MetaValue::Number(bits ^ (((bits >> 63) as u64) >> 1) as i64);
        }
        MetaValue::Text(NaturalText(v.to_string()))
    }
}

/// Digits of `s` as a number, if all are ASCII digits.
fn digits(s: &str) -> Option<u32> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// `HH:MM[:SS[.fff]]` (maybe followed by a zone, ignored): hours, minutes, seconds, and
/// the fraction's digits.
fn time_of(s: &str) -> Option<([u32; 3], String)> {
    let s = s.trim_end_matches(|c: char| c == 'Z' || c.is_ascii_alphabetic());
    let s = s.split(['+']).next()?;
    let mut parts = s.split(':');
    let h = digits(parts.next()?)?;
    let m = digits(parts.next()?)?;
    let (sec, frac) = match parts.next() {
        Some(x) => match x.split_once('.') {
            Some((a, f)) => (digits(a)?, f.to_string()),
            None => (digits(x)?, String::new()),
        },
        None => (0, String::new()),
    };
    Some(([h, m, sec], frac))
}

fn date(y: u32, mo: u32, d: u32, time: Option<([u32; 3], String)>) -> Option<MetaValue> {
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
        return None;
    }
    let ([h, mi, s], frac) = time.unwrap_or_default();
    Some(MetaValue::Date([y, mo, d, h, mi, s], frac))
}

/// `YYYY-MM-DD`, then maybe `T` or a space and a time.
fn iso_date(v: &str) -> Option<MetaValue> {
    let (day, time) = match v.split_once(['T', ' ']) {
        Some((d, t)) => (d, Some(time_of(t.trim())?)),
        None => (v, None),
    };
    let mut p = day.split('-');
    let (y, m, d) = (p.next()?, p.next()?, p.next()?);
    if p.next().is_some() || y.len() != 4 {
        return None;
    }
    date(digits(y)?, digits(m)?, digits(d)?, time)
}

/// `DD-MON-YYYY` (month by its English abbreviation), then maybe a time.
fn reuters_date(v: &str) -> Option<MetaValue> {
    const MONTHS: [&str; 12] = [
        "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
    ];
    let (day, time) = match v.split_once(' ') {
        Some((d, t)) => (d, Some(time_of(t.trim())?)),
        None => (v, None),
    };
    let mut p = day.split('-');
    let (d, m, y) = (p.next()?, p.next()?, p.next()?);
    let month = MONTHS.iter().position(|x| x.eq_ignore_ascii_case(m))? as u32 + 1;
    date(digits(y)?, month, digits(d)?, time)
}

/// A file's modification time, read from the file system (never for texts in memory).
fn mtime(source: &Source) -> Option<SystemTime> {
    // A record of a file of many documents has its file's time.
    let path = source.path()?;
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::mean::mean_jaccard;
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
        let index = Index::builder(&Params::default())
            .build(
                Corpus::from_texts(texts.iter().map(|(i, t)| (i.to_string(), t.clone()))),
                &Silent,
            )
            .unwrap();
        let found = index.find(64, 2, 0.5, &Silent).unwrap();
        let cs = clusters(&index, &found.pairs, Keep::Longest);
        let ids = |c: &Cluster| -> Vec<String> {
            c.members
                .iter()
                .map(|&d| index.docs.at(d as usize).id.clone())
                .collect()
        };
        assert_eq!(cs.len(), 2);
        assert_eq!(ids(&cs[0]), ["a", "b", "c"]);
        assert_eq!(ids(&cs[1]), ["d", "e"]);
        assert_eq!(index.docs.at(cs[0].representative as usize).id, "b");
        assert_eq!(index.docs.at(cs[1].representative as usize).id, "d");
        assert!(cs[0].duplicates().all(|d| d != cs[0].representative));
        assert_eq!(cs[0].duplicates().count(), 2);

        // Mean over the three pairs: a~c = 1, a~b = b~c = J(a, b).
        let (jab, _) = index.similarity(0, 1);
        assert!((cs[0].mean_jaccard - (1.0 + 2.0 * jab) / 3.0).abs() < 1e-12);
        assert_eq!(cs[1].mean_jaccard, index.similarity(3, 4).0);

        let short = clusters(&index, &found.pairs, Keep::Shortest);
        assert_eq!(
            index.docs.at(short[0].representative as usize).id,
            "a",
            "a tie with c: corpus order"
        );
        assert_eq!(index.docs.at(short[1].representative as usize).id, "e");
        let first = clusters(&index, &found.pairs, Keep::First);
        assert_eq!(index.docs.at(first[0].representative as usize).id, "a");
        // Texts in memory have no modification time: the first is kept.
        let oldest = clusters(&index, &found.pairs, Keep::Newest);
        assert_eq!(index.docs.at(oldest[1].representative as usize).id, "d");
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
        let index = Index::builder(&Params::default())
            .build(Corpus::from_texts(texts), &Silent)
            .unwrap();
        for threshold in [0.3, 0.6, 0.9] {
            let search = index.search(32, 4, threshold, None, &Silent).unwrap();
            let by_pairs = clusters(
                &index,
                &index.spell(search.clone()).unwrap().pairs,
                Keep::Longest,
            );
            assert!(!by_pairs.is_empty());
            assert_eq!(
                clusters_of(&index, &search, Keep::Longest).unwrap(),
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
        let index = Index::builder(&Params::default())
            .build(Corpus::from_texts(texts), &Silent)
            .unwrap();
        let search = index.search(16, 8, 0.9, None, &Silent).unwrap();
        assert!(!search.huge.is_empty());
        let cs = clusters_of(&index, &search, Keep::First).unwrap();
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
        let index = Index::builder(&Params::default())
            .build(Corpus::from_texts(texts), &Silent)
            .unwrap();
        let members: Vec<u32> = (0..1500).collect();
        let (sampled, was) = mean_similarity(&index, &members);
        assert!(was);
        let exact = mean_jaccard(&Held::none(&index), &members);
        assert!((sampled - exact).abs() < 0.002, "{sampled} vs {exact}");
    }
}
