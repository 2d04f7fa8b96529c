//! The SimHash fingerprints of a corpus, one per group (distinct content) like its
//! signatures. The index collects them while it reads
//! ([`IndexBuilder::fingerprints`](crate::index::IndexBuilder::fingerprints)), or
//! computes them afterwards from the texts
//! ([`Fingerprints::from_index`]).

use super::fingerprint::{Digest, Idf, SimHasher, Weight, hamming};
use rayon::prelude::*;
use std::sync::Arc;

/// The fingerprints of a corpus's groups, indexed like its signatures.
#[derive(Clone, Debug)]
pub struct Fingerprints {
    hasher: SimHasher,
    data: Vec<u128>,
    /// The corpus's document frequencies ([`Weight::Idf`] only), to fingerprint texts
    /// from outside it (queries) on the same scale.
    idf: Option<Arc<Idf>>,
    /// Groups whose text could not be read again, or had changed, when the fingerprints
    /// were computed from an existing index ([`Fingerprints::from_index`]); 0 when they
    /// were computed with the index.
    pub stale: usize,
}

/// Collects the groups' digests in group order, then makes the fingerprints.
#[derive(Debug)]
pub(crate) struct FingerprintBuilder {
    hasher: SimHasher,
    digests: Vec<Digest>,
}

impl FingerprintBuilder {
    pub(crate) fn new(hasher: SimHasher) -> FingerprintBuilder {
        FingerprintBuilder {
            hasher,
            digests: Vec::new(),
        }
    }

    /// The next group's digest.
    pub(crate) fn push(&mut self, d: Digest) {
        self.digests.push(d);
    }

    /// The fingerprints: computed already with term-frequency weights; with idf weights,
    /// from the document frequencies of all the bags, then each bag in parallel.
    pub(crate) fn finish(self) -> Fingerprints {
        let hasher = self.hasher;
        let (data, idf) = match hasher.weight() {
            Weight::Tf => {
                let data = self
                    .digests
                    .into_iter()
                    .map(|d| match d {
                        Digest::Fingerprint(fp) => fp,
                        Digest::Bag(_) => unreachable!("a tf hasher makes fingerprints"),
                    })
                    .collect();
                (data, None)
            }
            Weight::Idf => {
                let bags: Vec<&[(u64, u32)]> = self
                    .digests
                    .iter()
                    .map(|d| match d {
                        Digest::Bag(b) => b.as_slice(),
                        Digest::Fingerprint(_) => unreachable!("an idf hasher makes bags"),
                    })
                    .collect();
                let idf = Idf::from_bags(bags.iter().copied());
                let data = bags.par_iter().map(|b| hasher.of_bag(b, &idf)).collect();
                (data, Some(Arc::new(idf)))
            }
        };
        Fingerprints {
            hasher,
            data,
            idf,
            stale: 0,
        }
    }
}

impl Fingerprints {
    /// The hasher they were computed with.
    pub fn hasher(&self) -> &SimHasher {
        &self.hasher
    }

    /// The corpus's document frequencies, with [`Weight::Idf`] (None with tf weights).
    pub fn idf(&self) -> Option<&Idf> {
        self.idf.as_deref()
    }

    /// Width of the fingerprints: one of [`WIDTHS`](super::fingerprint::WIDTHS).
    pub fn bits(&self) -> u32 {
        self.hasher.bits()
    }

    /// Number of fingerprints, one per group.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether there are none (an empty corpus).
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The fingerprint of group `g` (a 64-bit one in the low bits). Panics if `g` is out
    /// of range.
    pub fn get(&self, g: u32) -> u128 {
        self.data[g as usize]
    }

    /// Every fingerprint, element `g` for group `g`.
    pub fn as_slice(&self) -> &[u128] {
        &self.data
    }

    /// Heap bytes held: the fingerprints, and the document frequencies (a table entry
    /// of 12 bytes and its slot's overhead each, about 16).
    pub fn heap_bytes(&self) -> usize {
        self.data.capacity() * 16 + self.idf.as_ref().map_or(0, |idf| idf.terms() * 16)
    }

    /// The Hamming distance between groups `a` and `b`.
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        hamming(self.get(a), self.get(b))
    }

    /// The fingerprint of a text from outside the corpus (its token stream), on the
    /// corpus's scale: with idf weights, the corpus's document frequencies.
    pub(crate) fn of_tokens(&self, tokens: &[u64]) -> u128 {
        self.hasher.fingerprint(tokens, self.idf.as_deref())
    }
}
