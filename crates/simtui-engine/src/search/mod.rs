//! Stage *search*: candidate pairs of contents, verified, spelled out as pairs of
//! documents.
//!
//! Candidates come from LSH banding of the signatures ([`banding`], its buckets in
//! [`buckets`], its S-curve in [`curve`]) or from SimHash block tables ([`blocks`]); they
//! are verified with the exact Jaccard of the contents' shingle sets (`verify`), and the
//! kept pairs of contents are spelled out as document pairs ([`spell`]) through the
//! documents each content stands for ([`groups`]). [`found`] holds what a search finds.
//! Each of these exists once, whether the sets and signatures are in memory, on a
//! temporary file or made again from the corpus: they read them through
//! [`storage`](crate::storage) and never ask where they are.

pub mod banding;
pub mod blocks;
pub mod buckets;
pub mod curve;
pub mod found;
pub mod groups;
pub mod spell;
pub(crate) mod verify;

pub use found::{Block, Bucket, Found, GroupPair, Pair, Search};
pub use groups::Groups;
pub use spell::DocPairs;

use crate::shingle::ShingleSets;
use crate::sketch::Signatures;
use crate::sketch::simhash::fingerprint::SimHasher;

/// What a search reads: each content's shingle set, signature and documents.
#[derive(Clone, Copy)]
pub(crate) struct Lookup<'a> {
    pub(crate) sets: &'a ShingleSets,
    pub(crate) sigs: &'a Signatures,
    pub(crate) groups: &'a Groups,
}

/// How candidates are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// MinHash signatures, `bands` × `rows` LSH banding.
    MinHash {
        /// Number of bands b, at least 1: more bands, more candidates.
        bands: usize,
        /// Hash functions per band r, at least 1: more rows, fewer candidates. The first
        /// b·r functions of each signature are used.
        rows: usize,
    },
    /// SimHash fingerprints; candidates are at most `max_distance` bits apart.
    SimHash {
        /// How the fingerprints are computed (bits, seed, weights).
        hasher: SimHasher,
        /// The largest Hamming distance of a candidate pair, in bits; below half the
        /// fingerprint's bits (see
        /// [`default_max_distance`](crate::sketch::simhash::fingerprint::default_max_distance)).
        max_distance: u32,
    },
}

impl Method {
    /// `"minhash"` or `"simhash"`, as the command line names the method.
    pub fn name(&self) -> &'static str {
        match self {
            Method::MinHash { .. } => "minhash",
            Method::SimHash { .. } => "simhash",
        }
    }
}

#[cfg(test)]
mod tests;
