//! Stage *index*: a corpus read, shingled and sketched, ready to be searched; what
//! builds one ([`build`]: one builder) and what it answers (the pairs it finds,
//! [`find`](mod@find); a pair's similarity).
//!
//! Documents whose normalised token streams are identical form one *group* (a distinct
//! content) and are shingled, sketched, banded and verified once: 10,000 copies of a file
//! cost linear time and memory, and their pairs are only spelled out when the output asks
//! for them. Re-sketching a built index ([`resketch`]), its memory ([`memory`]) and its
//! documents' ids ([`ids`]) have a file each.

pub mod build;
pub(crate) mod doc;
pub mod docs;
pub mod find;
pub mod ids;
pub mod memory;
mod read;
pub mod resketch;

pub use build::{IndexBuilder, Parts};
pub use doc::Doc;
pub use docs::Docs;

use crate::error::{Error, Result};
use crate::progress::Stage;
use crate::search::{Groups, Lookup};
use crate::shingle::{ShingleSets, jaccard};
use crate::sketch::simhash::fingerprints::Fingerprints;
use crate::sketch::{Signatures, SketchKind, estimate};
use crate::source::Skipped;
use crate::storage::Budget;
use crate::text::TextOptions;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// What an index is built with.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// How text becomes tokens: words or characters, case, stop words.
    pub text: TextOptions,
    /// Tokens per shingle, at least 1 (default 5).
    pub k: usize,
    /// Seed of the MinHash functions (or of OPH's hashing): another seed, another sketch.
    pub seed: u64,
    /// Classic MinHash or one-permutation hashing.
    pub sketch: SketchKind,
    /// Number of MinHash functions to compute, the signatures' width (at least bands ×
    /// rows to band them; 0 computes none, for SimHash alone). Default 128.
    pub num_perm: usize,
    /// Files (and records of files of many documents) larger than this many bytes are
    /// skipped. Default 32 MiB.
    pub max_bytes: u64,
    /// Documents with fewer words than this are skipped (counted as too short); 0, the
    /// default, keeps every document.
    pub min_words: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            text: TextOptions::default(),
            k: 5,
            seed: 1,
            sketch: SketchKind::Oph,
            num_perm: 128,
            max_bytes: 32 << 20,
            min_words: 0,
        }
    }
}

/// What an index keeps of its corpus ([`IndexBuilder::keep`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Everything: the shingle sets (in memory, or past the budget on a temporary
    /// file), titles and metadata. What the explorer, the exact join, queries and saved
    /// indexes need: they compare each document with many others.
    Everything,
    /// Everything but the shingle sets when the corpus can be read again cheaply
    /// (files, texts in memory, uncompressed JSON Lines and SGML): each is made again
    /// from its text when asked for ([`crate::shingle::again`]), a batch at a time for the
    /// candidates, one at a time (the latest few kept per thread) for a cluster's
    /// similarities. What `clusters` needs for its table, which shows titles. Other
    /// corpora keep their sets.
    AllButSets,
    /// What removing duplicates needs (`simtui dedup`, and `clusters` in any form but
    /// its table): [`Keep::AllButSets`] without the titles, which are left empty; the
    /// metadata stays (the removal list gives it, `--keep FIELD` chooses by it).
    AllButTitles,
    /// What finding pairs needs (`simtui pairs`): [`Keep::AllButSets`] without the
    /// titles and metadata, which are left empty.
    ToSearch,
    /// What measuring against the exact pairs needs (`simtui eval`): the shingle sets, for
    /// the exact join, but not the titles and metadata, which are left empty.
    AllButLabels,
}

impl Keep {
    /// Whether the shingle sets are kept as they are made (else each is made again from
    /// its text when asked for, where the corpus can be read again cheaply).
    pub fn keeps_sets(self) -> bool {
        matches!(self, Keep::Everything | Keep::AllButLabels)
    }

    /// Whether the documents' titles are kept.
    pub fn keeps_titles(self) -> bool {
        matches!(self, Keep::Everything | Keep::AllButSets)
    }
}

/// Counters and stage times of a build.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Documents indexed (the skipped ones are not counted).
    pub docs: usize,
    /// Total size of their texts, in bytes as decoded.
    pub bytes: u64,
    /// Total number of tokens.
    pub tokens: u64,
    /// Total number of shingles of the distinct contents (each group counted once).
    pub shingles: u64,
    /// Documents with no tokens.
    pub empty: usize,
    /// Distinct normalised contents.
    pub groups: usize,
    /// Documents whose id, given by their record, another document has too: they are
    /// named `ID@FILE:LINE` instead.
    pub renamed: usize,
    /// Wall time of the read, shingle and sketch stages (banding and verifying are timed
    /// in each [`Found`](crate::search::Found)). For an index opened from a file: of what was indexed anew.
    pub times: StageTimes,
    /// The document read in this run with the most tokens, which held the most memory
    /// while it was read: a document is read, tokenised and shingled whole, whatever
    /// `--memory` says (see [`Largest::held`]). None when nothing was read.
    pub largest: Option<Largest>,
}

/// A document read whole, and what that held.
#[derive(Clone, Debug, PartialEq)]
pub struct Largest {
    /// Where it is (its file, or `FILE:LINE` for a record).
    pub place: std::path::PathBuf,
    /// Its text's size in bytes, as decoded.
    pub bytes: u64,
    /// Its tokens.
    pub tokens: u64,
}

impl Largest {
    /// Bytes of memory reading it held at its peak, about: its text, and per token its
    /// hash, its shingle's hash and the table of distinct shingles, with the room their
    /// vectors grow into. 40 bytes a token fits what was measured on a document of 500
    /// MB (peak RSS less the rest of the run: 44 bytes a token in word 5-grams, 33 in
    /// character 9-grams).
    pub fn held(&self) -> u64 {
        self.bytes.saturating_add(self.tokens.saturating_mul(40))
    }
}

/// Wall time spent in each stage.
#[derive(Clone, Copy, Debug, Default)]
pub struct StageTimes(pub(crate) [Duration; 5]);

impl StageTimes {
    /// The time spent in stage `s`.
    pub fn get(&self, s: Stage) -> Duration {
        self.0[s as usize]
    }
    pub(crate) fn add(&mut self, s: Stage, d: Duration) {
        self.0[s as usize] += d;
    }
}

/// A corpus read, shingled and sketched. Cloning copies everything but the shingle sets,
/// which are shared (see [`Index::sketched`]).
#[derive(Clone)]
pub struct Index {
    /// What it was built with; `num_perm` is the signatures' width.
    pub(crate) params: Params,
    /// The documents in corpus order. A document is known by its position here (a
    /// [`Pair`](crate::search::Pair)'s `a` and `b`, [`Index::members`], ...).
    pub(crate) docs: Docs,
    /// What the walk and the build left out, and why.
    pub(crate) skipped: Vec<Skipped>,
    /// Shingle sets of the groups. Shared: an index with more hash functions (and the
    /// explorer's previous index, still on screen meanwhile) holds the same sets, the
    /// largest part of an index, instead of a copy.
    pub(crate) shingles: Arc<ShingleSets>,
    /// Signatures of the groups, row `g` for group `g`.
    pub(crate) signatures: Signatures,
    /// SimHash fingerprints of the groups, when built or given with them.
    pub(crate) fingerprints: Option<Fingerprints>,
    /// Content hash of each group's normalised token stream (what makes documents
    /// identical): a saved index merges old and new documents by it.
    pub(crate) contents: Vec<u64>,
    /// The documents of each group.
    pub(crate) groups: Groups,
    /// Counters and stage times of the build.
    pub(crate) stats: Stats,
    /// The memory it and its searches may hold; past it, work goes to temporary files.
    pub(crate) budget: Budget,
    /// What it keeps of the corpus.
    pub(crate) keep: Keep,
    /// Heap bytes of the documents' ids, titles, metadata values and paths (each
    /// allocation counted with the allocator's least overhead, 16 bytes).
    pub(crate) text_bytes: u64,
    /// Each document's rank among the ids sorted, once asked for ([`Index::id_order`]).
    pub(crate) id_order: OnceLock<Vec<u32>>,
    /// The first failure of a lookup that cannot fail ([`Index::similarity`]), until
    /// [`Index::check`] hands it over.
    pub(crate) failure: Arc<Mutex<Option<Error>>>,
}

/// Read-only views of an index's parts: they hold invariants together (every document's
/// group is a row of the shingle sets and of the signatures, `params.num_perm` is the
/// signatures' width, the group → documents table follows the documents), so only the
/// engine changes them.
impl Index {
    /// What it was built with; `num_perm` is the signatures' width.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The documents in corpus order. A document is known by its position here (a
    /// [`Pair`](crate::search::Pair)'s `a` and `b`, [`Index::members`], ...).
    pub fn docs(&self) -> &Docs {
        &self.docs
    }

    /// What the walk and the build left out, and why.
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// Shingle sets of the groups (distinct contents), set `g` for group `g`.
    pub fn shingles(&self) -> &ShingleSets {
        &self.shingles
    }

    /// Signatures of the groups, row `g` for group `g`.
    pub fn signatures(&self) -> &Signatures {
        &self.signatures
    }

    /// SimHash fingerprints of the groups, when the index was built with them
    /// ([`IndexBuilder::fingerprints`]) or given them ([`Index::with_fingerprints`]).
    pub fn fingerprints(&self) -> Option<&Fingerprints> {
        self.fingerprints.as_ref()
    }

    /// The same index with these fingerprints of its groups.
    ///
    /// # Panics
    /// If there is not one fingerprint per group.
    pub fn with_fingerprints(mut self, fingerprints: Fingerprints) -> Index {
        assert_eq!(
            fingerprints.len(),
            self.groups.len(),
            "one fingerprint per group"
        );
        self.fingerprints = Some(fingerprints);
        self
    }

    /// The documents of each group, and the pairs they make.
    pub fn groups(&self) -> &Groups {
        &self.groups
    }

    /// Counters and stage times of the build.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// What it keeps of the corpus: without titles and metadata when built only to
    /// search ([`Keep::ToSearch`]).
    pub fn keeps(&self) -> Keep {
        self.keep
    }

    /// The memory it and its searches may hold, and what went to temporary files.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// The same index, its searches within `budget` (an index opened from a file is
    /// in memory whole; its searches' work keeps to the budget).
    pub fn with_budget(mut self, budget: Budget) -> Index {
        self.budget = budget;
        self
    }

    /// Number of MinHash functions computed.
    pub fn num_perm(&self) -> usize {
        self.signatures.width()
    }

    /// The documents of group `g`, in corpus order.
    pub fn members(&self, g: u32) -> &[u32] {
        self.groups.members(g)
    }

    /// Number of pairs of documents within group `g` (identical documents); 0 for the
    /// group of empty documents, which pair with nothing.
    pub fn pairs_within(&self, g: u32) -> u64 {
        self.groups.pairs_within(g)
    }

    /// What a search reads of it.
    pub(crate) fn lookup(&self) -> Lookup<'_> {
        Lookup {
            sets: &self.shingles,
            sigs: &self.signatures,
            groups: &self.groups,
        }
    }
}

/// One pair's similarity, for people and for analyses that ask pair by pair.
impl Index {
    /// (exact Jaccard, MinHash estimate) of documents `a` and `b` (positions in
    /// [`Index::docs`]). Identical documents have (1, 1), unless they are empty: an empty
    /// document is similar to nothing, itself included.
    ///
    /// Answers every call: when a set or signature cannot be read back (a temporary file
    /// that fails, a text changed since it was read) the pair counts as (0, 0) and the
    /// failure is kept for [`Index::check`], which the analyses built on these answers
    /// call before they return (see [`Index::try_similarity`] to see it at once).
    pub fn similarity(&self, a: u32, b: u32) -> (f64, f64) {
        let (ga, gb) = (self.docs.group(a as usize), self.docs.group(b as usize));
        self.group_similarity(ga, gb)
    }

    /// [`Index::similarity`] of two groups (distinct contents); a non-empty group is
    /// identical to itself.
    pub fn group_similarity(&self, ga: u32, gb: u32) -> (f64, f64) {
        self.try_group_similarity(ga, gb).unwrap_or_else(|e| {
            self.keep_failure(e);
            (0.0, 0.0)
        })
    }

    /// Keeps `e` for [`Index::check`] (the first since the last check): a lookup that
    /// answers every call met it.
    pub(crate) fn keep_failure(&self, e: crate::error::Error) {
        let mut failure = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        failure.get_or_insert(e);
    }

    /// [`Index::similarity`], or why a set or signature could not be read back.
    pub fn try_similarity(&self, a: u32, b: u32) -> Result<(f64, f64)> {
        let (ga, gb) = (self.docs.group(a as usize), self.docs.group(b as usize));
        self.try_group_similarity(ga, gb)
    }

    /// [`Index::group_similarity`], or why a set or signature could not be read back.
    pub fn try_group_similarity(&self, ga: u32, gb: u32) -> Result<(f64, f64)> {
        let empty = |g: u32| self.shingles.set_len(g as usize) == 0;
        let jaccard = if ga != gb {
            jaccard(
                &self.shingles.get(ga as usize)?,
                &self.shingles.get(gb as usize)?,
            )
        } else if empty(ga) {
            0.0
        } else {
            1.0
        };
        let estimate = if empty(ga) || empty(gb) {
            0.0
        } else {
            estimate(
                &self.signatures.row(ga as usize)?,
                &self.signatures.row(gb as usize)?,
            )
        };
        Ok((jaccard, estimate))
    }

    /// The first failure of [`Index::similarity`] since the last check, if any (the
    /// pairs it answered since then may be wrong): an error that stops the work.
    pub fn check(&self) -> Result<()> {
        let mut failure = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        failure.take().map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;
    use crate::sketch::SketchKind;
    use crate::source::Corpus;

    fn corpus(texts: &[(&str, &str)]) -> Corpus {
        Corpus::from_texts(texts.iter().map(|(i, t)| (i.to_string(), t.to_string())))
    }

    const BASE: &str = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat by the door";

    #[test]
    fn finds_near_duplicates_and_identical_groups() {
        // J = 15/17: a candidate at 32x4 bands whatever the sketch and seed.
        let near = BASE.replace("door", "gate");
        let c = corpus(&[
            ("a", BASE),
            ("b", &near),
            (
                "c",
                "completely different words that share nothing with the others at all here",
            ),
            ("d", &BASE.to_uppercase()),
            ("e", ""),
            ("f", ""),
        ]);
        let idx = Index::builder(&Params::default())
            .build(c, &Silent)
            .unwrap();
        assert_eq!(idx.stats.docs, 6);
        assert_eq!(idx.stats.empty, 2);
        // a and d share one group (case is normalised), e and f another.
        assert_eq!(idx.stats.groups, 4);
        let found = idx.find(32, 4, 0.0, &Silent).unwrap();
        let names: Vec<(String, String)> = found
            .pairs
            .iter()
            .map(|p| {
                (
                    idx.docs.at(p.a as usize).id.clone(),
                    idx.docs.at(p.b as usize).id.clone(),
                )
            })
            .collect();
        assert_eq!(names[0], ("a".into(), "d".into()));
        assert_eq!(found.pairs[0].jaccard, 1.0);
        assert!(names.contains(&("a".into(), "b".into())));
        assert!(names.contains(&("b".into(), "d".into())));
        assert!(
            !names
                .iter()
                .any(|(x, y)| x == "e" || y == "e" || x == "c" || y == "c")
        );
        let ab = found.pairs.iter().find(|p| p.jaccard < 1.0).unwrap();
        let (j, _) = idx.similarity(ab.a, ab.b);
        assert_eq!(ab.jaccard, j);
        assert!(found.pairs.windows(2).all(|w| w[0].jaccard >= w[1].jaccard));
    }

    #[test]
    fn threshold_filters_pairs() {
        // J = 15/17: a candidate at 32x4 bands whatever the sketch and seed.
        let near = BASE.replace("door", "gate");
        let c = corpus(&[("a", BASE), ("b", &near)]);
        let idx = Index::builder(&Params::default())
            .build(c, &Silent)
            .unwrap();
        let j = idx.find(32, 4, 0.0, &Silent).unwrap().pairs[0].jaccard;
        assert!(j < 1.0);
        assert!(idx.find(32, 4, j + 1e-9, &Silent).unwrap().pairs.is_empty());
        assert_eq!(idx.find(32, 4, j, &Silent).unwrap().pairs.len(), 1);
    }

    #[test]
    fn many_identical_copies_cost_one_group() {
        let texts: Vec<(String, String)> = (0..2000)
            .map(|i| (format!("{i:05}"), BASE.to_string()))
            .collect();
        let idx = Index::builder(&Params::default())
            .build(Corpus::from_texts(texts), &Silent)
            .unwrap();
        assert_eq!(idx.stats.groups, 1);
        assert_eq!(idx.shingles.len(), 1);
        assert_eq!(idx.signatures.len(), 1);
        let found = idx.find(16, 8, 0.0, &Silent).unwrap();
        assert_eq!(found.pairs.len(), 2000 * 1999 / 2);
        assert_eq!(found.group_candidates, 0);
    }

    #[test]
    fn extending_perms_matches_a_fresh_build() {
        // J = 15/17: a candidate at 32x4 bands whatever the sketch and seed.
        let near = BASE.replace("door", "gate");
        let texts = [("a", BASE), ("b", near.as_str())];
        let small = Params {
            num_perm: 32,
            ..Default::default()
        };
        let small = Params {
            sketch: SketchKind::MinHash,
            ..small
        };
        let idx = Index::builder(&small)
            .build(corpus(&texts), &Silent)
            .unwrap();
        let idx = idx.with_width(128, &Silent).unwrap();
        let fresh = Params {
            sketch: SketchKind::MinHash,
            ..Params::default()
        };
        let fresh = Index::builder(&fresh)
            .build(corpus(&texts), &Silent)
            .unwrap();
        assert_eq!(
            idx.signatures.data().unwrap(),
            fresh.signatures.data().unwrap()
        );
    }

    #[test]
    fn with_width_is_a_fresh_build_at_that_width_whatever_came_before() {
        // OPH's bins depend on their number: a wider signature's first 128 values are
        // not the 128-bin signature. Going 128 → 136 → 128 must come back to it.
        let c = simtui_gen::generate(&simtui_gen::GenOptions::sized(120, 5, 60));
        let corpus = || Corpus::from_texts(c.docs.iter().map(|d| (d.id.clone(), d.text.clone())));
        for sketch in [SketchKind::Oph, SketchKind::MinHash] {
            let at = |n: usize| Params {
                sketch,
                num_perm: n,
                ..Params::default()
            };
            let start = Index::builder(&at(128)).build(corpus(), &Silent).unwrap();
            let wider = start.with_width(136, &Silent).unwrap();
            let back = wider.with_width(128, &Silent).unwrap();
            for (index, n) in [(&wider, 136), (&back, 128)] {
                let fresh = Index::builder(&at(n)).build(corpus(), &Silent).unwrap();
                assert_eq!(index.num_perm(), n);
                assert_eq!(index.params().num_perm, n);
                assert_eq!(
                    index.signatures.data().unwrap(),
                    fresh.signatures.data().unwrap(),
                    "{sketch:?} {n}"
                );
                assert!(
                    Arc::ptr_eq(&index.shingles, &start.shingles),
                    "shared, not copied"
                );
            }
            if sketch == SketchKind::Oph {
                // The trap: the first 128 bins of 136 are another sketch.
                let prefix: Vec<u32> = wider.signatures.row(0).unwrap()[..128].to_vec();
                assert_ne!(prefix, start.signatures.row(0).unwrap().to_vec());
            }
            let other = start.sketched(sketch, 9, 128, &Silent).unwrap();
            let fresh = Index::builder(&Params { seed: 9, ..at(128) })
                .build(corpus(), &Silent)
                .unwrap();
            assert_eq!(
                other.signatures.data().unwrap(),
                fresh.signatures.data().unwrap()
            );
            assert_eq!(other.params().seed, 9);
        }
    }

    #[test]
    fn cancellation_stops_the_build() {
        let flag = crate::progress::CancelFlag::default();
        flag.cancel();
        assert!(
            Index::builder(&Params::default())
                .build(corpus(&[("a", BASE)]), &flag)
                .is_err()
        );
    }
}
