//! simtui's engine: find near-duplicate documents with MinHash, LSH and exact Jaccard.
//!
//! The pipeline, one module per stage:
//! [`corpus`] (walk and read) → [`text`] (normalise, tokenise) → [`shingle`] (k-shingles)
//! → [`sketch`] (MinHash signatures) → [`lsh`] (banding) → [`verify`] (exact Jaccard).
//! [`index`] runs the stages with progress and cancellation; [`curve`] holds the S-curve
//! maths and [`generator`] makes synthetic corpora with planted near-duplicates.
//! Nothing here touches the terminal.

pub mod blocks;
pub mod cluster;
pub mod corpus;
pub mod curve;
pub mod eval;
pub mod exact;
pub mod fingerprints;
pub mod formats;
// `gen` is a reserved word in Rust 2024: the generator's module is `simtui::generator`.
#[path = "gen.rs"]
pub mod generator;
pub mod hash;
pub mod index;
pub mod lsh;
pub mod matrix;
pub mod method;
pub mod oph;
pub mod progress;
pub mod query;
pub mod reband;
pub mod rng;
pub mod shingle;
pub mod simhash;
pub mod sketch;
pub mod stopwords;
pub mod store;
pub mod text;
pub mod verify;
