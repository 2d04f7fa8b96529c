//! Building an index: one builder ([`IndexBuilder`]) says with what (the parameters),
//! in how much memory ([`Budget`]), keeping what of the corpus ([`Keep`]), and for which
//! way of finding pairs ([`Method`]: MinHash's width, or SimHash fingerprints too); it
//! builds from a corpus ([`IndexBuilder::build`]) or puts a saved index's parts together
//! ([`IndexBuilder::from_parts`]).
//!
//! A build reads the corpus in batches, each read, tokenised and shingled in parallel
//! (`read`) while the one before is merged in: identical contents become
//! one group, each new content's set written where the budget allows (in memory, on a
//! temporary file past it, or not at all when the corpus can be read again cheaply: then
//! each document is sketched as it is read and its set made again when needed). The
//! signatures are computed last, from the sets, unless they were made along the way.

use super::docs::DocsWriter;
use super::read::{ReadDoc, Shingled, StageClock, read_and_shingle};
use super::{Doc, Index, Keep, Params, Stats};
use crate::error::Result;
use crate::progress::{Counted, Progress, Stage, check};
use crate::search::{Groups, Method};
use crate::shingle::ShingleSets;
use crate::shingle::again::Reshingle;
use crate::shingle::sets::SetsWriter;
use crate::sketch::signatures::SigsWriter;
use crate::sketch::simhash::fingerprint::SimHasher;
use crate::sketch::simhash::fingerprints::FingerprintBuilder;
use crate::sketch::{Signatures, Sketcher};
use crate::source::{Batches, Corpus, Entry, Labels, SkipReason, Skipped};
use crate::storage::Budget;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Documents read and shingled per step: bounds the text held in memory at once and
/// paces progress reports.
const CHUNK: usize = 2048;

/// How an index is built; see the module's documentation.
///
/// ```
/// use simtui_engine::index::{Index, Keep};
/// use simtui_engine::{Budget, Corpus, Params, Silent};
///
/// let corpus = Corpus::from_texts([("a".to_string(), "some words here".to_string())]);
/// let index = Index::builder(&Params::default())
///     .budget(&Budget::new(64 << 20, None))
///     .keep(Keep::ToSearch)
///     .build(corpus, &Silent)?;
/// assert_eq!(index.docs().len(), 1);
/// # Ok::<(), simtui_engine::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct IndexBuilder {
    params: Params,
    budget: Budget,
    keep: Keep,
    simhash: Option<SimHasher>,
}

/// The parts of a saved index: the documents in corpus order (their groups numbered in
/// order of their first document, as a build numbers them), what was skipped, and per
/// group its shingle set, signature and content hash.
#[derive(Debug)]
pub struct Parts {
    /// The documents, in corpus order.
    pub docs: Vec<Doc>,
    /// What was left out, and why.
    pub skipped: Vec<Skipped>,
    /// The groups' shingle sets.
    pub shingles: ShingleSets,
    /// The groups' signatures (of width 0 when there are none).
    pub signatures: Signatures,
    /// The groups' content hashes.
    pub contents: Vec<u64>,
}

impl Index {
    /// A builder of indexes with `params` (see [`IndexBuilder`]).
    pub fn builder(params: &Params) -> IndexBuilder {
        IndexBuilder::new(params)
    }
}

impl IndexBuilder {
    /// Builds with `params`, without a memory limit, keeping everything, MinHash only.
    pub fn new(params: &Params) -> IndexBuilder {
        IndexBuilder {
            params: params.clone(),
            budget: Budget::unlimited(),
            keep: Keep::Everything,
            simhash: None,
        }
    }

    /// Builds in `budget` bytes of memory: past it, the shingle sets are written to a
    /// temporary file as they are made, and the signatures too when they don't fit
    /// either; the searches of the index keep to the budget too. A build then also fails
    /// when a temporary file cannot be written
    /// ([`Error::TempFile`](crate::Error::TempFile)).
    pub fn budget(mut self, budget: &Budget) -> IndexBuilder {
        self.budget = budget.clone();
        self
    }

    /// Keeps of the corpus what `keep` says: without the shingle sets, made again from
    /// the texts when needed, when the corpus can be read again cheaply (files, texts in
    /// memory, uncompressed JSON Lines and SGML); the same pairs and values in a fraction
    /// of the memory. A text that changed since it was read then makes the search fail
    /// ([`Error::File`](crate::Error::File)), never a wrong J.
    pub fn keep(mut self, keep: Keep) -> IndexBuilder {
        self.keep = keep;
        self
    }

    /// Also computes the SimHash fingerprint of every group ([`Index::fingerprints`])
    /// from its token stream while it is at hand, so the text is read and tokenised
    /// once. `params.num_perm` may be 0 when no MinHash is wanted.
    pub fn fingerprints(mut self, hasher: SimHasher) -> IndexBuilder {
        self.simhash = Some(hasher);
        self
    }

    /// Builds what `method` searches with: MinHash computes at least `bands × rows`
    /// functions; SimHash computes `params.num_perm` functions as given (0 skips MinHash,
    /// which SimHash does not need: estimates are then 0) and the fingerprints.
    pub fn method(self, method: &Method) -> IndexBuilder {
        match *method {
            Method::MinHash { bands, rows } => {
                let mut b = self;
                b.params.num_perm = b.params.num_perm.max(bands * rows);
                b
            }
            Method::SimHash { hasher, .. } => self.fingerprints(hasher),
        }
    }

    /// Reads, shingles and sketches a corpus. Documents that cannot be read are skipped
    /// (see [`Index::skipped`]), not errors: fails only when cancelled, or when a
    /// temporary file cannot be written or read back.
    pub fn build(self, corpus: Corpus, progress: &dyn Progress) -> Result<Index> {
        let Corpus { entries, skipped } = corpus;
        let sketcher = Sketcher::new(self.params.sketch, self.params.seed, self.params.num_perm);
        // Sets made again: each document is sketched as it is read, its set dropped.
        let again = !self.keep.keeps_sets() && Reshingle::can_read_again(&entries);
        let mut building = Building::new(&self, skipped, entries.len(), again);
        let batches = Batches::new(entries, self.params.max_bytes);
        let sketch = again.then_some(&sketcher);
        building.read_all(batches, sketch, progress)?;
        // Objects fetched while the corpus was read: all of them whole before anything
        // reads a file again (verification, dedup's copy), or the fetch's error.
        crate::source::object::settled()?;
        building.finish(&self, &sketcher, progress)
    }

    /// An index from a saved index's parts, whose counters are recomputed (stage times
    /// are zero).
    ///
    /// # Panics
    /// If a document's group is out of range, or the parts disagree on the number of
    /// groups (the caller validates a file before).
    pub fn from_parts(self, parts: Parts) -> Index {
        let Parts {
            docs,
            skipped,
            shingles,
            signatures,
            contents,
        } = parts;
        let docs = (super::Docs::from_vec(docs), Failure::default());
        self.assemble(docs, skipped, (shingles, signatures, contents))
    }

    /// [`IndexBuilder::from_parts`] for documents wherever they are (an index's, taken
    /// with the failure slot their reads report to).
    pub(crate) fn assemble(
        self,
        (docs, failure): (super::Docs, Failure),
        skipped: Vec<Skipped>,
        (shingles, signatures, contents): (ShingleSets, Signatures, Vec<u64>),
    ) -> Index {
        let groups = shingles.len();
        assert_eq!(contents.len(), groups, "a content hash per group");
        assert!(
            signatures.width() == 0 || signatures.len() == groups,
            "a signature per group"
        );
        assert!((0..docs.len()).all(|d| (docs.group(d) as usize) < groups));
        let mut stats = Stats {
            docs: docs.len(),
            groups,
            shingles: shingles.total() as u64,
            ..Stats::default()
        };
        for d in 0..docs.len() {
            // Saturating: the sizes come from a file (checked, but not trusted to be sane).
            stats.bytes = stats.bytes.saturating_add(docs.bytes(d));
            stats.tokens = stats.tokens.saturating_add(docs.tokens(d));
            stats.empty += (docs.tokens(d) == 0) as usize;
        }
        let mut index = self.index((docs, failure), skipped, shingles, contents, stats);
        index.signatures = signatures;
        index
    }

    /// The index of these parts, its signatures and fingerprints still to come.
    fn index(
        &self,
        (docs, failure): (super::Docs, Failure),
        skipped: Vec<Skipped>,
        shingles: ShingleSets,
        contents: Vec<u64>,
        stats: Stats,
    ) -> Index {
        let blank = (0..shingles.len() as u32)
            .filter(|&g| shingles.set_len(g as usize) == 0)
            .collect();
        let groups = Groups::new(
            (0..docs.len()).map(|d| docs.group(d)),
            shingles.len(),
            blank,
        );
        Index {
            params: self.params.clone(),
            text_bytes: docs.text_bytes(),
            docs,
            skipped,
            shingles: Arc::new(shingles),
            signatures: Signatures::default(),
            fingerprints: None,
            contents,
            groups,
            stats,
            budget: self.budget.clone(),
            keep: self.keep,
            id_order: OnceLock::new(),
            failure,
        }
    }
}

/// Where a read that cannot fail keeps its failure for [`Index::check`].
pub(crate) type Failure = Arc<Mutex<Option<crate::error::Error>>>;

/// An index being built: what the batches merged so far made.
struct Building<'a> {
    params: &'a Params,
    budget: &'a Budget,
    keep: Keep,
    docs: DocsWriter,
    /// The index's failure slot, which its documents on a file report to.
    failure: Failure,
    skipped: Vec<Skipped>,
    sets: SetsWriter,
    /// The signatures, when each document is sketched as it is read.
    rows: Option<SigsWriter>,
    fingerprints: Option<FingerprintBuilder>,
    simhash: Option<SimHasher>,
    /// Each group's content hash, and the group of each content hash.
    contents: Vec<u64>,
    by_content: ContentGroups,
    stats: Stats,
}

impl<'a> Building<'a> {
    fn new(b: &'a IndexBuilder, skipped: Vec<Skipped>, docs: usize, again: bool) -> Self {
        let p = &b.params;
        Building {
            params: p,
            budget: &b.budget,
            keep: b.keep,
            docs: DocsWriter::new(docs),
            failure: Arc::new(Mutex::new(None)),
            skipped,
            sets: match again {
                true => SetsWriter::made_again(&p.text, p.k, p.max_bytes),
                false => SetsWriter::kept(),
            },
            rows: again.then(|| SigsWriter::new(p.num_perm)),
            fingerprints: b.simhash.map(FingerprintBuilder::new),
            simhash: b.simhash,
            contents: Vec::new(),
            by_content: ContentGroups::default(),
            stats: Stats::default(),
        }
    }

    /// Reads every batch: each read and shingled in parallel while the one before is
    /// merged in and the one after is taken from the corpus (the merge is serial, and so
    /// is taking a batch, which for a file of many documents reads and splits its next
    /// 16 MB: done one after the other, a core waited on each, 18 % of the reading's
    /// time on a million JSON Lines records).
    fn read_all(
        &mut self,
        mut batches: Batches,
        sketch: Option<&Sketcher>,
        progress: &dyn Progress,
    ) -> Result<()> {
        if batches.bytes().is_some() {
            progress.counting(Stage::Read, Counted::Bytes);
        }
        let simhash = self.simhash;
        // The total last reported (it changes as files of many documents are read).
        let mut reported = 0;
        let mut pending: Option<Vec<ReadDoc>> = None;
        let mut batch = batches.next_batch(CHUNK);
        loop {
            check(progress)?;
            let t = Instant::now();
            if batch.is_none() && pending.is_none() {
                break;
            }
            let clock = StageClock::default();
            let (params, labels) = (
                self.params,
                !matches!(self.keep, Keep::ToSearch | Keep::AllButLabels),
            );
            let this = batch.take();
            let (shingled, (merged, next, ahead)) = rayon::join(
                || {
                    this.map(|b| {
                        read_and_shingle(b, params, labels, simhash.as_ref(), sketch, &clock)
                    })
                },
                || {
                    let t = Instant::now();
                    let merged = pending.take().map_or(Ok(()), |p| self.merge(p));
                    clock.add(Duration::ZERO, t.elapsed(), Duration::ZERO);
                    let (t, before) = (Instant::now(), batches.done());
                    let next = batches.next_batch(CHUNK);
                    clock.add(t.elapsed(), Duration::ZERO, Duration::ZERO);
                    (merged, next, batches.done() - before)
                },
            );
            merged?;
            (pending, batch) = (shingled, next);
            let (read, shingle, sketched) = clock.split(t.elapsed());
            self.stats.times.add(Stage::Read, read);
            self.stats.times.add(Stage::Shingle, shingle);
            self.stats.times.add(Stage::Sketch, sketched);
            reported = batches.total_estimate();
            self.keep_to_budget(reported)?;
            self.report(&batches, ahead, false, progress);
        }
        if reported != batches.done() {
            // The last estimate was off: say that everything is done.
            self.report(&batches, 0, true, progress);
        }
        Ok(())
    }

    /// Says how far reading (and shingling, and sketching as read) is, not counting the
    /// `ahead` items taken for the next step; at the `end`, that everything is done.
    fn report(&self, batches: &Batches, ahead: u64, end: bool, progress: &dyn Progress) {
        let done = batches.done() - ahead;
        let total = if end { done } else { batches.total_estimate() };
        match batches.bytes() {
            Some((_, size)) if end => progress.update(Stage::Read, size, size),
            Some((read, size)) => progress.update(Stage::Read, read, size),
            None => progress.update(Stage::Read, done, total),
        }
        progress.update(Stage::Shingle, done, total);
        if self.rows.is_some() {
            progress.update(Stage::Sketch, done, total);
        }
    }

    /// Makes room for the corpus as it will be with `total` documents at this rate (so
    /// the matrices are not copied again and again as they grow), or, past the budget,
    /// sends what is written to a temporary file: the sets, or the signatures when each
    /// document is sketched as it is read.
    fn keep_to_budget(&mut self, total: u64) -> Result<()> {
        let scale = |x: u64| x * total / (self.stats.docs as u64).max(1);
        let projected = scale(self.sets.total() as u64);
        let groups = self.by_content.len();
        let budget: &Budget = self.budget;
        let room = budget.room(u64::MAX);
        // Sets kept count; signatures made as read count per content.
        let sets = if self.rows.is_some() { 0 } else { projected };
        // The documents first: nothing in the build or a search reads their records.
        if !self.docs.on_file() && self.over_budget(sets, total, groups) {
            self.docs.onto_file(budget.room(0), self.failure.clone())?;
            self.sets.sources_onto_file(&budget.room(0))?;
        }
        if self.over_budget(sets, total, groups) {
            match &mut self.rows {
                Some(rows) => rows.spill(&room)?,
                None => self.sets.spill(&room)?,
            }
        }
        if let Some(rows) = &mut self.rows {
            rows.reserve_rows(scale(groups as u64) as usize);
        }
        let more_groups = (scale(groups as u64) as usize).saturating_sub(groups);
        self.by_content.reserve(more_groups, &self.contents);
        self.sets.reserve_total(projected as usize);
        // What the batch just merged freed (its texts, its tokens) is kept by the
        // allocator for the next ones, not for the limit: handed back past it.
        crate::storage::memory::give_back_past(budget.bytes);
        Ok(())
    }

    /// Whether the index, at `shingles` shingles held, `groups` contents and the
    /// documents read so far, and as it will be with `total` documents (signatures
    /// included), is past the memory its budget leaves it: then its sets (or, when the
    /// sets are not kept, its signatures) go to a temporary file.
    fn over_budget(&self, shingles: u64, total: u64, groups: usize) -> bool {
        if !self.budget.is_limited() {
            return false;
        }
        let done = (self.stats.docs as u64).max(1);
        let scale = |x: u64| x.saturating_mul(total.max(done)) / done;
        let docs = self.docs.held_bytes();
        // Per content: its offset, content hash, signature, and its entry while building.
        let per_group = 8 + 8 + 24 + self.params.num_perm as u64 * 4;
        let projected = shingles.saturating_mul(8)
            + scale(docs + 8 * self.stats.docs as u64)
            + scale(groups as u64 * per_group);
        projected > self.budget.for_index()
    }

    /// Adds a batch of documents read and shingled, in corpus order. Fails only when a
    /// temporary file cannot be written.
    fn merge(&mut self, batch: Vec<ReadDoc>) -> Result<()> {
        for read in batch {
            let (entry, labels, s, digest) = match read {
                Ok(read) => read,
                Err(skip) => {
                    self.skipped.push(skip);
                    continue;
                }
            };
            if s.words < self.params.min_words {
                self.skipped.push(Skipped {
                    path: entry.place(),
                    reason: SkipReason::TooShort,
                    detail: format!("{} of {} words", s.words, self.params.min_words),
                });
                continue;
            }
            let groups = self.sets.len();
            self.add_doc(entry, labels, s)?;
            if let Some(fps) = self
                .fingerprints
                .as_mut()
                .filter(|_| self.sets.len() > groups)
            {
                fps.push(digest.expect("a digest for each document"));
            }
        }
        Ok(())
    }

    fn add_doc(&mut self, entry: Entry, labels: Labels, s: Shingled) -> Result<()> {
        let next = self.sets.len() as u32;
        let group = self.by_content.group(s.content, next, &self.contents);
        if group == next {
            self.sets.push(&s.set, s.size, &entry.source, s.content)?;
            if let Some(rows) = &mut self.rows {
                rows.push(s.row.as_deref().expect("a row for each document"))?;
            }
            self.contents.push(s.content);
            self.stats.shingles += s.size as u64;
        }
        if self
            .stats
            .largest
            .as_ref()
            .is_none_or(|l| s.tokens > l.tokens)
        {
            self.stats.largest = Some(super::Largest {
                place: entry.place(),
                bytes: s.bytes,
                tokens: s.tokens,
            });
        }
        self.stats.docs += 1;
        self.stats.bytes += s.bytes;
        self.stats.tokens += s.tokens;
        self.stats.empty += (s.tokens == 0) as usize;
        // An index only to search leaves out what names documents for people: at ten
        // million documents their titles alone are 2 GB.
        let labels = match self.keep {
            Keep::Everything | Keep::AllButSets => labels,
            Keep::AllButTitles => Labels {
                title: String::new(),
                ..labels
            },
            Keep::ToSearch | Keep::AllButLabels => Labels::default(),
        };
        let doc = Doc::new(entry.id, entry.source, s.bytes, s.tokens, group)
            .labelled(labels.title, labels.meta);
        self.docs.push(doc)?;
        Ok(())
    }

    /// The index: its sets finished, ids made unique, and its signatures, made along the
    /// way or computed now from the sets (in memory when they fit what the budget leaves,
    /// else on a temporary file).
    fn finish(
        mut self,
        builder: &IndexBuilder,
        sketcher: &Sketcher,
        progress: &dyn Progress,
    ) -> Result<Index> {
        let records = self.docs.records();
        let mut docs = self.docs.finish()?;
        self.stats.renamed = super::ids::unique_ids(&mut docs, records);
        self.stats.groups = self.sets.len();
        drop(std::mem::take(&mut self.by_content));
        let shingles = self.sets.finish()?;
        let (rows, fingerprints) = (self.rows, self.fingerprints);
        let docs = (docs, self.failure);
        let mut index = builder.index(docs, self.skipped, shingles, self.contents, self.stats);
        index.docs_to_file_past_budget()?;
        index.fingerprints = fingerprints.map(FingerprintBuilder::finish);
        if let Some(rows) = rows {
            index.signatures = rows.finish()?;
            return Ok(index);
        }
        let t = Instant::now();
        let budget = &index.budget;
        let room = budget.room(budget.for_index().saturating_sub(index.held()));
        let block = (budget.work() / 2).min(256 << 20);
        index.signatures =
            Signatures::compute_in(sketcher, &index.shingles, &room, block, progress)?;
        index.stats.times.add(Stage::Sketch, t.elapsed());
        Ok(index)
    }
}

/// The group of each content hash met so far: a table of group numbers, each found by
/// its content hash in the build's list of them (already a well-mixed 64-bit hash, used
/// as it is).
#[derive(Default)]
struct ContentGroups {
    table: hashbrown::HashTable<u32>,
}

impl ContentGroups {
    /// The group of `content`; `next` when it is new (then `contents` must get it next).
    fn group(&mut self, content: u64, next: u32, contents: &[u64]) -> u32 {
        let entry = self.table.entry(
            content,
            |&g| contents[g as usize] == content,
            |&g| contents[g as usize],
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(o) => *o.get(),
            hashbrown::hash_table::Entry::Vacant(v) => *v.insert(next).get(),
        }
    }

    /// Room for `more` contents beyond these, made while the table is small rather than
    /// by doubling a large one (old and new table side by side).
    fn reserve(&mut self, more: usize, contents: &[u64]) {
        self.table.reserve(more, |&g| contents[g as usize]);
    }

    fn len(&self) -> usize {
        self.table.len()
    }
}

#[cfg(test)]
mod tests {
    use super::ContentGroups;
    use proptest::prelude::*;
    use std::collections::HashMap;

    proptest! {
        /// Each content hash gets the group a map gives it: the first new one 0, the next
        /// new one 1, ..., a repeat the group of its first; with room made ahead or not.
        /// Hashes from a small set (many repeats) or any (top bits, which the table also
        /// uses, all alike or not).
        #[test]
        fn groups_are_those_a_map_gives(
            hashes in prop::collection::vec(prop_oneof![0u64..40, any::<u64>(), (0u64..40).prop_map(|x| x << 60)], 0..600),
            reserve in 0usize..300,
        ) {
            let (mut table, mut contents) = (ContentGroups::default(), Vec::new());
            table.reserve(reserve, &contents);
            let mut map: HashMap<u64, u32> = HashMap::new();
            for h in hashes {
                let next = contents.len() as u32;
                let group = table.group(h, next, &contents);
                if group == next {
                    contents.push(h);
                }
                prop_assert_eq!(group, *map.entry(h).or_insert(next));
            }
            prop_assert_eq!(table.len(), map.len());
        }
    }
}
