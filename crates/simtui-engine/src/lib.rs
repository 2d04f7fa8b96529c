//! simtui's engine: find near-duplicate documents with MinHash, LSH and exact Jaccard.
//!
//! The pipeline reads one way, a module per stage:
//! [`source`] (walk and read) → [`text`] (normalise, tokenise) → [`shingle`] (k-shingles)
//! → [`minhash`] (signatures, then LSH banding) or [`simhash`] (fingerprints, block
//! tables) → [`verify`] (exact Jaccard). [`index`] runs the stages with progress and
//! cancellation and gives [`found`] pairs; [`analysis`] builds on an index (exact all
//! pairs, evaluation, clusters, queries, matrices); [`store`] saves an index to a file.
//! Nothing here touches the terminal.

pub mod analysis;
pub mod found;
pub mod hash;
pub mod index;
pub mod minhash;
pub mod progress;
pub mod rng;
pub mod shingle;
pub mod simhash;
pub mod source;
pub mod store;
pub mod text;
pub mod verify;
