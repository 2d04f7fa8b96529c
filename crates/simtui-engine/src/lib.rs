//! simtui's engine: find near-duplicate documents with MinHash, LSH and exact Jaccard.
//!
//! The pipeline reads one way, a module per stage, each importing only the stages
//! before it:
//! [`source`] (walk and read) → [`text`] (normalise, tokenise) → [`shingle`] (k-shingles)
//! → [`sketch`] (MinHash signatures, SimHash fingerprints) → [`search`] (candidates by
//! LSH banding or fingerprint blocks, verified with exact Jaccard, spelled out as pairs
//! of documents) → [`index`] (builds and answers) → [`analysis`] (exact all pairs,
//! evaluation, clusters, queries, matrices, deduplication) and [`store`] (a saved
//! index). Under them all, [`storage`] keeps what does not fit the memory budget on
//! temporary files, or makes it again from the corpus, and no stage asks where its
//! data is. Nothing here touches the terminal.
//!
//! # Example
//!
//! Build the index of three texts (read, shingle, sketch), band it 16 × 8 and print
//! the verified pairs with their exact Jaccard similarity:
//!
//! ```
//! use simtui_engine::{Corpus, Index, Params, Silent};
//!
//! # fn main() -> simtui_engine::Result<()> {
//! let text = "the quick brown fox jumps over the lazy dog while the cat sleeps on the mat";
//! let corpus = Corpus::from_texts([
//!     ("a".to_string(), text.to_string()),
//!     ("b".to_string(), text.replace("mat", "rug")),
//!     ("c".to_string(), "nothing in common with the others at all".to_string()),
//! ]);
//! let index = Index::builder(&Params::default()).build(corpus, &Silent)?;
//! let found = index.find(16, 8, 0.5, &Silent)?;
//! for pair in &found.pairs {
//!     let (a, b) = (&index.docs().at(pair.a as usize), &index.docs().at(pair.b as usize));
//!     println!("{} {} J = {:.3}", a.id, b.id, pair.jaccard);
//! }
//! assert_eq!(found.pairs.len(), 1);
//! assert_eq!(index.docs().at(found.pairs[0].a as usize).id, "a");
//! # Ok(())
//! # }
//! ```
//!
//! Folders and files are read with [`Corpus::walk`]; [`Index::builder`] also takes a
//! memory budget ([`Budget`]), what to keep of the corpus
//! ([`Keep`](index::Keep)) and the way of finding pairs ([`Method`]).
//! [`Progress`] receives each stage's progress and can cancel the work ([`CancelFlag`]);
//! [`Silent`] does neither.

#![warn(missing_docs)]

pub mod analysis;
pub mod error;
pub mod hash;
pub mod index;
pub mod natural;
pub mod progress;
pub mod rng;
pub mod search;
pub mod shingle;
pub mod sketch;
pub mod source;
pub mod storage;
pub mod store;
pub mod text;

pub use analysis::cluster::{Cluster, Keep};
pub use analysis::method::Engine;
pub use error::{Error, Result};
pub use index::{Doc, Index, IndexBuilder, Params};
pub use natural::natural_cmp;
pub use progress::{CancelFlag, Cancelled, Counted, Progress, Silent, Stage};
pub use search::curve::{probability, threshold};
pub use search::{Found, Method, Pair};
pub use sketch::SketchKind;
pub use sketch::simhash::fingerprint::{SimHasher, Weight};
pub use sketch::simhash::fingerprints::Fingerprints;
pub use source::{Corpus, Entry, SkipReason, Skipped, Source, WalkOptions};
pub use storage::{Budget, Room, Spilled};
pub use text::{TextOptions, Unit};
