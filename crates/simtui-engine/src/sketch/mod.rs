//! Stage *sketch*: a small summary of each distinct content's shingle set. MinHash
//! signatures ([`minhash`]: classic MinHash or one-permutation hashing, [`oph`]) held as
//! [`Signatures`], whose agreement estimates Jaccard similarity ([`estimate`]); and
//! SimHash fingerprints ([`simhash`]). [`accuracy`] measures the estimate's error against
//! the theory's.

pub mod accuracy;
pub mod minhash;
pub mod oph;
pub mod signatures;
pub mod simhash;

pub use minhash::{MinHasher, SketchKind, Sketcher};
pub use signatures::{Signatures, estimate};
