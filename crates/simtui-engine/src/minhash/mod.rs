//! Stages 4 and 5 the MinHash way: [`sketch`] computes each content's signature
//! (classic MinHash or one-permutation hashing, [`oph`]); [`band`] cuts signatures into
//! `b` bands of `r` rows and pairs contents that share a band; [`curve`] is the S-curve
//! of that banding; [`reband`] re-bands at another (b, r) from stored signatures;
//! [`accuracy`] measures the estimate's standard error against the theory's.

pub mod accuracy;
pub mod band;
pub mod curve;
pub mod oph;
pub mod reband;
pub mod sketch;
