//! The two ways of finding candidate pairs, behind one interface ([`Engine`]): MinHash
//! signatures banded by LSH, or SimHash fingerprints looked up in permuted block tables.
//! Either way candidates are verified with the exact Jaccard of the shingle sets.

use crate::error::Result;
use crate::index::{Index, IndexBuilder};
use crate::progress::Progress;
use crate::search::{Found, Search};
use crate::sketch::simhash::fingerprints::Fingerprints;
use crate::source::Corpus;
use std::sync::Arc;

pub use crate::search::Method;

/// An index and the way it finds candidates.
#[derive(Clone)]
pub struct Engine {
    /// The index searched. Shared, so the explorer can query the index it already holds
    /// without a copy.
    pub index: Arc<Index>,
    /// How candidates are found. For SimHash its hasher is the one the index's
    /// fingerprints were computed with.
    pub method: Method,
}

impl Engine {
    /// Builds the index a method searches (see [`IndexBuilder::method`]) with what
    /// `builder` says (parameters, budget, what to keep).
    pub fn build(
        builder: IndexBuilder,
        method: Method,
        corpus: Corpus,
        progress: &dyn Progress,
    ) -> Result<Engine> {
        let index = builder.method(&method).build(corpus, progress)?;
        Ok(Engine {
            index: Arc::new(index),
            method,
        })
    }

    /// The verified pairs with exact J ≥ `threshold`, by J descending then ids, with
    /// every pair of identical documents. Fails only when cancelled.
    pub fn find(&self, threshold: f64, progress: &dyn Progress) -> Result<Found> {
        match self.method {
            Method::MinHash { bands, rows } => self.index.find(bands, rows, threshold, progress),
            Method::SimHash { max_distance, .. } => {
                let search = self.index.search_fingerprints(
                    self.fingerprints(),
                    max_distance,
                    threshold,
                    progress,
                )?;
                self.index.spell(search)
            }
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
            Method::SimHash { max_distance, .. } => self.index.search_fingerprints(
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
        self.index
            .fingerprints()
            .expect("a SimHash engine has fingerprints")
    }

    /// The Hamming distance of two documents' fingerprints (SimHash only).
    pub fn hamming(&self, a: u32, b: u32) -> Option<u32> {
        let fps = self.index.fingerprints()?;
        let docs = &self.index.docs;
        Some(fps.distance(docs.group(a as usize), docs.group(b as usize)))
    }

    /// Recomputes the sketches with another seed: new MinHash signatures, or new
    /// fingerprints (from the text, read again).
    pub fn reseed(&mut self, seed: u64, progress: &dyn Progress) -> Result<()> {
        match &mut self.method {
            Method::MinHash { .. } => {
                let (sketch, width) = (self.index.params.sketch, self.index.num_perm());
                self.index = Arc::new(self.index.sketched(sketch, seed, width, progress)?);
                Ok(())
            }
            Method::SimHash { hasher, .. } => {
                *hasher = hasher.reseeded(seed);
                let fps = Fingerprints::from_index(&self.index, *hasher, progress)?;
                Arc::make_mut(&mut self.index).fingerprints = Some(fps);
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Params;
    use crate::progress::Silent;
    use crate::sketch::simhash::fingerprint::{SimHasher, Weight};

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
            let corpus = Corpus::from_texts(texts.clone());
            let mut e = Engine::build(IndexBuilder::new(&params), method, corpus, &Silent).unwrap();
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
