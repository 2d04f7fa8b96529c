//! The two ways of finding candidate pairs, behind one interface: MinHash signatures
//! banded by LSH, or SimHash fingerprints looked up in permuted block tables. Either way
//! candidates are verified with the exact Jaccard of the shingle sets.

use crate::error::Result;
use crate::index::resketch as search;
use crate::index::{Index, Keep, Params};
use crate::progress::Progress;
use crate::search::found::{Found, Search};
use crate::sketch::simhash::fingerprint::SimHasher;
use crate::sketch::simhash::fingerprints::Fingerprints;
use crate::source::Corpus;
use crate::storage::Budget;
use std::sync::Arc;

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
        /// fingerprint's bits (see [`default_max_distance`](crate::sketch::simhash::fingerprint::default_max_distance)).
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

/// An index and what its method needs beyond it.
#[derive(Clone)]
pub struct Engine {
    /// The index searched. Shared, so the explorer can query the index it already holds
    /// without a copy.
    pub index: Arc<Index>,
    /// How candidates are found. For SimHash its hasher is the one `fingerprints` were
    /// computed with.
    pub method: Method,
    /// The groups' fingerprints, one per group of `index`: `Some` exactly for SimHash.
    pub fingerprints: Option<Fingerprints>,
}

impl Engine {
    /// Builds the index for a method. MinHash computes at least `bands × rows` functions;
    /// SimHash computes `params.num_perm` functions as given (0 skips MinHash, which
    /// SimHash does not need: estimates are then 0) and the fingerprints in the same pass.
    pub fn build(
        corpus: Corpus,
        params: &Params,
        method: Method,
        progress: &dyn Progress,
    ) -> Result<Engine> {
        Engine::build_within(corpus, params, method, &Budget::unlimited(), progress)
    }

    /// [`Engine::build`] in `budget` bytes of memory (see [`Index::build_within`]).
    pub fn build_within(
        corpus: Corpus,
        params: &Params,
        method: Method,
        budget: &Budget,
        progress: &dyn Progress,
    ) -> Result<Engine> {
        Engine::build_keeping(corpus, params, method, Keep::Everything, budget, progress)
    }

    /// [`Engine::build_within`], keeping of the corpus what `keep` says (see
    /// [`Keep`]): an engine that only finds pairs or clusters needs no shingle sets in
    /// memory when the corpus can be read again.
    pub fn build_keeping(
        corpus: Corpus,
        params: &Params,
        method: Method,
        keep: Keep,
        budget: &Budget,
        progress: &dyn Progress,
    ) -> Result<Engine> {
        let mut params = params.clone();
        let simhash = match method {
            Method::MinHash { bands, rows } => {
                params.num_perm = params.num_perm.max(bands * rows);
                None
            }
            Method::SimHash { hasher, .. } => Some(hasher),
        };
        let (index, fingerprints) =
            Index::build_keeping(corpus, &params, simhash.as_ref(), keep, budget, progress)?;
        Ok(Engine {
            index: Arc::new(index),
            method,
            fingerprints,
        })
    }

    /// The verified pairs with exact J ≥ `threshold`, by J descending then ids, with
    /// every pair of identical documents. Fails only when cancelled.
    pub fn find(&self, threshold: f64, progress: &dyn Progress) -> Result<Found> {
        match self.method {
            Method::MinHash { bands, rows } => self.index.find(bands, rows, threshold, progress),
            Method::SimHash { max_distance, .. } => search::find(
                &self.index,
                self.fingerprints(),
                max_distance,
                threshold,
                progress,
            ),
        }
    }

    /// The verified pairs of contents with exact J ≥ `threshold`, not spelled out as
    /// document pairs (see [`Index::search`]); MinHash buckets of more than `max_bucket`
    /// contents are left out of the candidates.
    pub fn search(
        &self,
        threshold: f64,
        max_bucket: Option<usize>,
        progress: &dyn Progress,
    ) -> Result<Search> {
        match self.method {
            Method::MinHash { bands, rows } => self
                .index
                .search(bands, rows, threshold, max_bucket, progress),
            Method::SimHash { max_distance, .. } => search::search(
                &self.index,
                self.fingerprints(),
                max_distance,
                threshold,
                progress,
            ),
        }
    }

    /// The fingerprints of a SimHash engine.
    ///
    /// # Panics
    /// For a MinHash engine, which has none.
    pub fn fingerprints(&self) -> &Fingerprints {
        self.fingerprints
            .as_ref()
            .expect("a SimHash engine has fingerprints")
    }

    /// The Hamming distance of two documents' fingerprints (SimHash only).
    pub fn hamming(&self, a: u32, b: u32) -> Option<u32> {
        let fps = self.fingerprints.as_ref()?;
        let docs = &self.index.docs;
        Some(fps.distance(docs[a as usize].group, docs[b as usize].group))
    }

    /// Recomputes the sketches with another seed: new MinHash signatures, or new
    /// fingerprints (from the text, read again).
    pub fn reseed(&mut self, seed: u64, progress: &dyn Progress) -> Result<()> {
        match &mut self.method {
            Method::MinHash { .. } => {
                let sketch = self.index.params.sketch;
                Arc::make_mut(&mut self.index).resketch(seed, sketch, progress)
            }
            Method::SimHash { hasher, .. } => {
                *hasher = hasher.reseeded(seed);
                self.fingerprints = Some(Fingerprints::from_index(&self.index, *hasher, progress)?);
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;
    use crate::sketch::simhash::fingerprint::Weight;

    #[test]
    fn both_methods_find_the_near_duplicate_and_reseed() {
        let base = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty";
        let texts = vec![
            ("a".to_string(), base.to_string()),
            // J = 15/17: a candidate at these bands whatever the hash functions.
            ("b".to_string(), base.replace("twenty", "20")),
            (
                "c".to_string(),
                "nothing in common with the others, at all".to_string(),
            ),
        ];
        let params = Params::default();
        for method in [
            Method::MinHash { bands: 32, rows: 4 },
            Method::SimHash {
                hasher: SimHasher::new(64, 1, Weight::Tf),
                max_distance: 12,
            },
            Method::SimHash {
                hasher: SimHasher::new(128, 1, Weight::Idf),
                max_distance: 24,
            },
        ] {
            let mut e =
                Engine::build(Corpus::from_texts(texts.clone()), &params, method, &Silent).unwrap();
            let found = e.find(0.3, &Silent).unwrap();
            assert_eq!(found.pairs.len(), 1, "{}", method.name());
            let p = found.pairs[0];
            assert_eq!((p.a, p.b), (0, 1));
            assert_eq!(e.hamming(0, 1).is_some(), method.name() == "simhash");
            e.reseed(2, &Silent).unwrap();
            assert_eq!(e.find(0.3, &Silent).unwrap().pairs[0].jaccard, p.jaccard);
        }
    }
}
