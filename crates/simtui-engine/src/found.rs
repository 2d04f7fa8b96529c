//! What a search finds: verified pairs of documents. Shared by every way of finding
//! candidates (MinHash banding, SimHash tables) and everything that reads their result.

use std::time::Duration;

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

/// The result of banding and verifying.
#[derive(Clone, Debug, Default)]
pub struct Found {
    /// Verified pairs with exact J ≥ the threshold, by J descending then ids.
    pub pairs: Vec<Pair>,
    /// Candidate document pairs (before the threshold), identical documents included.
    pub candidates: u64,
    /// Candidate pairs of distinct contents, as banding produced them.
    pub group_candidates: usize,
    /// Time spent finding the candidates (LSH banding, or SimHash block tables).
    pub band_time: Duration,
    /// Time spent verifying the candidates and listing the document pairs.
    pub verify_time: Duration,
}
