//! The SimHash sketch: [`fingerprint`] computes weighted SimHash fingerprints of token
//! streams, [`fingerprints`] holds a corpus's. The pairs within a Hamming distance are
//! found with permuted block tables ([`blocks`](crate::search::blocks)) and verified
//! with the same exact Jaccard as MinHash's
//! ([`Index::search_fingerprints`](crate::index::Index::search_fingerprints)).

pub mod fingerprint;
pub mod fingerprints;
