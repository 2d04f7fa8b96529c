//! What a search finds: verified pairs of contents ([`Search`]), and the pairs of
//! documents they stand for ([`Found`]). Shared by every way of finding candidates
//! (MinHash banding, SimHash tables) and everything that reads their result.

use std::time::Duration;

/// A bucket of one band with [`HUGE_BUCKET`](super::buckets::HUGE_BUCKET) contents or more, or more than the
/// `max_bucket` asked for: its pairs are not among the band's candidates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bucket {
    /// The band it is a bucket of.
    pub band: usize,
    /// Its contents (group indices), ascending.
    pub groups: Vec<u32>,
    /// Over the `max_bucket` asked for: left out of the candidates altogether (else
    /// huge, and its pairs are candidates taken one at a time).
    pub capped: bool,
}

/// A verified pair of distinct contents (groups of identical documents).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupPair {
    /// The smaller group index.
    pub ga: u32,
    /// The larger group index.
    pub gb: u32,
    /// Exact Jaccard similarity of the two contents' shingle sets.
    pub jaccard: f64,
    /// The sketch's estimate of it (0 for SimHash, which has none).
    pub estimate: f64,
}

/// What banding and verifying find, by content: the kept pairs of distinct contents.
/// Each stands for |A|·|B| document pairs, and each content of several identical
/// documents for all the pairs among them (J = 1); [`Index::spell`](crate::index::Index::spell)
/// and [`DocPairs`](crate::search::spell::DocPairs) spell them out.
#[derive(Clone, Debug, Default)]
pub struct Search {
    /// Verified pairs of contents with exact J ≥ `threshold`, in candidate order.
    pub group_pairs: Vec<GroupPair>,
    /// The threshold they were kept at.
    pub threshold: f64,
    /// Candidate document pairs (before the threshold), identical documents included.
    pub candidates: u64,
    /// Candidate pairs of distinct contents, as banding produced them.
    pub group_candidates: usize,
    /// Buckets of many contents, not expanded while banding (see
    /// [`HugeOwners`](super::buckets::HugeOwners)): those over the `max_bucket`
    /// asked for are left out of the candidates, the others' pairs are candidates taken
    /// one at a time when the pairs are spelled out.
    pub huge: Vec<Bucket>,
    /// The banding (bands, rows) the huge buckets come from; None for SimHash.
    pub banding: Option<(usize, usize)>,
    /// Time spent banding (or in the SimHash tables).
    pub band_time: Duration,
    /// Time spent verifying candidates.
    pub verify_time: Duration,
}

/// A verified pair of documents (indices into [`Index::docs`](crate::index::Index::docs), `a`'s id < `b`'s id).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair {
    /// The document whose id sorts first.
    pub a: u32,
    /// The other document.
    pub b: u32,
    /// Exact Jaccard similarity of the shingle sets, in [0, 1]; 1 for identical documents.
    pub jaccard: f64,
    /// MinHash estimate of it: the fraction of signature positions that agree (1 for
    /// identical documents, 0 when the index has no signatures, as with SimHash alone).
    pub estimate: f64,
}

/// Many document pairs of one similarity, kept as one entry by
/// [`Index::spell_blocked`](crate::index::Index::spell_blocked) instead of spelled out:
/// every pair of a content's identical documents (`ga == gb`, J = 1), or every pair
/// across two contents of several documents each (`ga < gb`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Block {
    /// A content (the smaller of the two).
    pub ga: u32,
    /// The other content, or `ga` for the pairs among one content's documents.
    pub gb: u32,
    /// Exact Jaccard similarity of every pair of the block (1 within a content).
    pub jaccard: f64,
    /// The sketch's estimate of it (1 within a content).
    pub estimate: f64,
    /// The document pairs it stands for.
    pub pairs: u64,
    /// Its first pair by ids (`a`'s id < `b`'s id, the smallest `a`, then `b`).
    pub first: Pair,
}

impl Block {
    /// The pairs among identical documents, not across two contents.
    pub fn is_within(&self) -> bool {
        self.ga == self.gb
    }
}

/// The result of banding and verifying.
#[derive(Clone, Debug, Default)]
pub struct Found {
    /// Verified pairs with exact J ≥ the threshold, by J descending then ids.
    pub pairs: Vec<Pair>,
    /// Pairs kept as blocks, not in `pairs` (only from
    /// [`Index::spell_blocked`](crate::index::Index::spell_blocked)), by J descending then
    /// their first pair's ids.
    pub blocks: Vec<Block>,
    /// Candidate document pairs (before the threshold), identical documents included.
    pub candidates: u64,
    /// Candidate pairs of distinct contents, as banding produced them.
    pub group_candidates: usize,
    /// Buckets of many contents (see [`Search::huge`]).
    pub huge: Vec<Bucket>,
    /// Time spent finding the candidates (LSH banding, or SimHash block tables).
    pub band_time: Duration,
    /// Time spent verifying the candidates and listing the document pairs.
    pub verify_time: Duration,
}

impl Found {
    /// Document pairs found: those spelled out and those of the blocks.
    pub fn total_pairs(&self) -> u64 {
        self.pairs.len() as u64 + self.blocks.iter().map(|b| b.pairs).sum::<u64>()
    }
}
