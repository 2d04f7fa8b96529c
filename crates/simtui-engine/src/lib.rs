//! simtui's engine: find near-duplicate documents with MinHash, LSH and exact Jaccard.
//!
//! The pipeline reads one way, a module per stage:
//! [`source`] (walk and read) → [`text`] (normalise, tokenise) → [`shingle`] (k-shingles)
//! → [`minhash`] (signatures, then LSH banding) or [`simhash`] (fingerprints, block
//! tables) → [`verify`] (exact Jaccard). [`index`] runs the stages with progress and
//! cancellation and gives [`found`] pairs; [`analysis`] builds on an index (exact all
//! pairs, evaluation, clusters, queries, matrices); [`store`] saves an index to a file.
//! Nothing here touches the terminal.
//!
//! # Example
//!
//! Walk a folder, build the index (read, shingle, sketch), band it 16 × 8 and print the
//! verified pairs with their exact Jaccard similarity:
//!
//! ```
//! use simtui_engine::{Corpus, Index, Params, Silent, WalkOptions};
//!
//! # fn main() -> simtui_engine::Result<()> {
//! # let dir = tempfile::tempdir().unwrap();
//! # let folder = dir.path();
//! let text = "the quick brown fox jumps over the lazy dog while the cat sleeps on the mat";
//! std::fs::write(folder.join("a.txt"), text).unwrap();
//! std::fs::write(folder.join("b.txt"), text.replace("mat", "rug")).unwrap();
//! std::fs::write(folder.join("c.txt"), "nothing in common with the others at all").unwrap();
//!
//! let corpus = Corpus::walk(&[folder.to_path_buf()], &WalkOptions::default())?;
//! let index = Index::builder(&Params::default()).build(corpus, &Silent)?;
//! let found = index.find(16, 8, 0.5, &Silent)?;
//! for pair in &found.pairs {
//!     let (a, b) = (&index.docs()[pair.a as usize], &index.docs()[pair.b as usize]);
//!     println!("{} {} J = {:.3}", a.id, b.id, pair.jaccard);
//! }
//! assert_eq!(found.pairs.len(), 1);
//! assert_eq!(index.docs()[found.pairs[0].a as usize].id, "a.txt");
//! # Ok(())
//! # }
//! ```
//!
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
