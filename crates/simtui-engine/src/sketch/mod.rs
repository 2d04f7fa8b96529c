//! Sketches of each distinct content: MinHash signatures ([`minhash`], one-permutation
//! hashing [`oph`]) and SimHash fingerprints ([`simhash`]); [`accuracy`] measures the
//! MinHash estimate's error against the theory's.

pub mod accuracy;
pub mod minhash;
pub mod oph;
pub mod simhash;
