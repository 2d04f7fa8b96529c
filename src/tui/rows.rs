//! The rows of the pairs list when documents come in many copies: a row is one pair of
//! documents, or a block of many pairs of one similarity (a content's identical copies,
//! or two contents' copies across), or a bucket too big to compare. 20,000 copies of a
//! page are one row ("20,000 identical documents") that lists them on demand, not 200
//! million rows; the export and the clusters still take every pair they stand for.

use crate::output::order;
use simtui_engine::analysis::cluster::{self, Cluster, DisjointSets, Keep};
use simtui_engine::error::Error;
use simtui_engine::index::Index;
use simtui_engine::progress::Progress;
use simtui_engine::search::found::{Block, Found, Pair, Search};
use std::io;
use std::sync::Arc;

/// Buckets of more contents than this are rows of the list, their pairs not compared
/// (the explorer's `--max-bucket`).
pub const MAX_BUCKET: usize = 1000;
/// A content, or a pair of contents, standing for more document pairs than this is one
/// row: a content of 46 identical documents or more.
pub const MAX_BLOCK: u64 = 1000;

/// A row of the list: an index into the results' pairs, blocks or capped buckets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    Pair(u32),
    Block(u32),
    Bucket(u32),
}

/// Buckets of more than `--max-bucket` contents that share contents, in one or more
/// bands: their pairs were not compared. Many near copies of a page fall in a bucket of
/// nearly the same contents in every band; they are one row, not one per band. Its
/// documents make a cluster the members view can list.
#[derive(Clone, Debug)]
pub struct Capped {
    /// Its documents.
    pub docs: Vec<u32>,
    /// The one `clusters` would keep (the longest).
    pub kept: u32,
}

/// Pairs of a capped bucket's documents whose mean J the members view shows: a bucket's
/// pairs were not compared, and 10,000 of them give the mean to about ±0.003 in
/// milliseconds (a cluster's 10^6 took seconds on 20,000 near copies).
const CAPPED_SAMPLE: u64 = 10_000;

impl Capped {
    /// Its documents as a cluster, for the members view: the mean J sampled, the least J
    /// to the kept one exact (one comparison per content).
    pub fn cluster(&self, index: &Index) -> Cluster {
        let mut members = self.docs.clone();
        order::sort_docs(index, &mut members);
        Cluster {
            min_jaccard: cluster::min_to(index, &members, self.kept),
            mean_jaccard: cluster::sampled_mean(index, &members, CAPPED_SAMPLE),
            mean_sampled: true,
            representative: self.kept,
            members,
        }
    }
}

/// The capped buckets of a banding, those that share contents joined (union-find over
/// their contents).
pub fn capped(index: &Index, found: &Found) -> Vec<Capped> {
    let buckets: Vec<&[u32]> = found
        .huge
        .iter()
        .filter(|b| b.capped)
        .map(|b| b.groups.as_slice())
        .collect();
    let mut contents: Vec<u32> = buckets.iter().flat_map(|b| b.iter().copied()).collect();
    contents.sort_unstable();
    contents.dedup();
    let slot = |g: u32| contents.binary_search(&g).expect("a bucket's content") as u32;
    let mut sets = DisjointSets::new(contents.len());
    for bucket in &buckets {
        for &g in &bucket[1..] {
            sets.union(slot(bucket[0]), slot(g));
        }
    }
    let mut by_root: Vec<(u32, u32)> = (0..contents.len() as u32)
        .map(|i| (sets.find(i), contents[i as usize]))
        .collect();
    by_root.sort_unstable();
    by_root
        .chunk_by(|x, y| x.0 == y.0)
        .map(|joined| {
            let docs: Vec<u32> = joined
                .iter()
                .flat_map(|&(_, g)| index.members(g).iter().copied())
                .collect();
            Capped {
                kept: cluster::representative(index, &docs, Keep::Longest),
                docs,
            }
        })
        .collect()
}

/// The cluster of `docs` (two or more), as `simtui clusters` describes one.
fn cluster_of(index: &Index, docs: &[u32]) -> Cluster {
    let star: Vec<Pair> = docs[1..]
        .iter()
        .map(|&d| Pair {
            a: docs[0],
            b: d,
            jaccard: 0.0,
            estimate: 0.0,
        })
        .collect();
    let mut cluster = cluster::clusters(index, &star, Keep::Longest)
        .pop()
        .expect("two or more documents make one cluster");
    order::sort_members(index, &mut cluster);
    cluster
}

/// The documents of a block: one content's, or two contents'.
pub fn block_docs(index: &Index, block: &Block) -> Vec<u32> {
    let mut docs = index.members(block.ga).to_vec();
    if !block.is_within() {
        docs.extend_from_slice(index.members(block.gb));
    }
    docs
}

/// A block's documents as a cluster, for the members view.
pub fn block_cluster(index: &Index, block: &Block) -> Cluster {
    cluster_of(index, &block_docs(index, block))
}

/// Every pair of a block, `a`'s id before `b`'s in natural order (`rank`): by ids
/// within a content (its documents sorted by id), content by content across two.
pub fn block_pairs<'a>(
    rank: &'a [u32],
    index: &'a Index,
    block: &'a Block,
) -> Box<dyn Iterator<Item = Pair> + 'a> {
    let pair = move |x: u32, y: u32| {
        let p = Pair {
            a: x,
            b: y,
            jaccard: block.jaccard,
            estimate: block.estimate,
        };
        order::ordered(rank, p)
    };
    if block.is_within() {
        let mut docs = index.members(block.ga).to_vec();
        docs.sort_by_key(|&d| rank[d as usize]);
        // Shared by every run of pairs, not copied per run (20,000 copies: 20,000 runs).
        let docs: Arc<[u32]> = docs.into();
        Box::new((0..docs.len()).flat_map(move |i| {
            let docs = docs.clone();
            (i + 1..docs.len()).map(move |j| pair(docs[i], docs[j]))
        }))
    } else {
        let (a, b) = (index.members(block.ga), index.members(block.gb));
        Box::new(
            a.iter()
                .flat_map(move |&x| b.iter().map(move |&y| pair(x, y))),
        )
    }
}

/// Pairs that link a block's documents as its pairs do, for union-find: each document
/// to the first of its content, and the two contents' first ones (n − 1 pairs for n
/// documents, not n²/2).
pub fn block_links(index: &Index, block: &Block) -> Vec<Pair> {
    let link = |a: u32, b: u32, jaccard: f64| Pair {
        a,
        b,
        jaccard,
        estimate: jaccard,
    };
    let star = |g: u32| {
        let m = index.members(g);
        m[1..].iter().map(move |&d| link(m[0], d, 1.0))
    };
    let mut links: Vec<Pair> = star(block.ga).collect();
    if !block.is_within() {
        links.extend(star(block.gb));
        let (a, b) = (index.members(block.ga)[0], index.members(block.gb)[0]);
        links.push(link(a, b, block.jaccard));
    }
    links
}

/// How many of a block's pairs have a document that `hit` marks (those a filter lists).
pub fn block_hits(index: &Index, block: &Block, hit: &[bool]) -> u64 {
    let hits = |g: u32| {
        let m = index.members(g);
        (
            m.len() as u64,
            m.iter().filter(|&&d| hit[d as usize]).count() as u64,
        )
    };
    let (n, h) = hits(block.ga);
    if block.is_within() {
        let missed = n - h;
        return block.pairs - missed * missed.saturating_sub(1) / 2;
    }
    let (m, k) = hits(block.gb);
    block.pairs - (n - h) * (m - k)
}

/// What the list's export writes: the pairs its rows stand for, filtered as shown.
pub struct Listed {
    pub index: Arc<Index>,
    pub found: Arc<Found>,
    pub search: Arc<Search>,
    /// The rows, in list order.
    pub rows: Vec<Row>,
    /// The documents the filter matches (none: no filter).
    pub hit: Option<Arc<Vec<bool>>>,
    /// Sorted by exact J (then by ids, as `simtui pairs` sorts them).
    pub by_jaccard: bool,
    /// The pairs the rows stand for.
    pub pairs: u64,
    /// Each document's rank in the natural order of ids, which pairs are written in.
    pub natural: Arc<Vec<u32>>,
}

/// Memory for sorting the pairs of a list with blocks (temporary files past it).
const SORT_BUDGET: usize = 256 << 20;

impl Listed {
    /// Every pair the rows stand for, in list order, ids in natural order; with blocks,
    /// sorted by J then ids when the list is (streamed from the search, as `simtui
    /// pairs` does), a block's pairs by ids at its row otherwise.
    pub fn pairs<'a>(
        &'a self,
        progress: &dyn Progress,
    ) -> Result<Box<dyn Iterator<Item = io::Result<Pair>> + 'a>, Error> {
        let hit = self.hit.clone();
        let shown = move |p: &Pair| {
            hit.as_ref()
                .is_none_or(|h| h[p.a as usize] || h[p.b as usize])
        };
        let blocks = self.rows.iter().any(|r| matches!(r, Row::Block(_)));
        if blocks && self.by_jaccard {
            let mut stream = self.index.doc_pairs_ranked(
                &self.search,
                SORT_BUDGET as u64,
                progress,
                &self.natural,
            )?;
            let next = move || loop {
                match stream.next_pair() {
                    Ok(Some(p)) if !shown(&p) => continue,
                    Ok(p) => return p.map(Ok),
                    Err(e) => return Some(Err(io::Error::other(e.to_string()))),
                }
            };
            return Ok(Box::new(std::iter::from_fn(next)));
        }
        let (index, found, natural) = (&self.index, &self.found, &self.natural[..]);
        Ok(Box::new(
            self.rows
                .iter()
                .flat_map(move |&row| -> Box<dyn Iterator<Item = Pair> + 'a> {
                    match row {
                        Row::Pair(i) => Box::new(std::iter::once(found.pairs[i as usize])),
                        Row::Block(i) => block_pairs(natural, index, &found.blocks[i as usize]),
                        Row::Bucket(_) => Box::new(std::iter::empty()),
                    }
                })
                .filter(shown)
                .map(Ok),
        ))
    }
}
