//! Stages 4 and 5 the SimHash way: [`fingerprint`] computes weighted SimHash
//! fingerprints of token streams, [`fingerprints`] holds a corpus's, [`blocks`] finds
//! the pairs within a Hamming distance with permuted block tables, and [`search`] runs
//! that over an index, verifying with the same exact Jaccard as MinHash.

pub mod fingerprint;
pub mod fingerprints;
