//! The index: a corpus read, shingled and sketched, ready to be banded and verified.
//!
//! Documents whose normalised token streams are identical form one *group* and are
//! shingled, sketched, banded and verified once: 10,000 copies of a file cost linear
//! time and memory, and their pairs are only spelled out when the output asks for them.

use crate::error::Result;
use crate::found::{Block, Found, GroupPair, Pair, Search};
use crate::minhash::band;
use crate::minhash::sketch::{RowsBuilder, Signatures, SketchKind, Sketcher, SpillTo};
use crate::ooc::Budget;
use crate::progress::{Cancelled, Counted, Progress, Stage, check};
use crate::reshingle::Reshingle;
use crate::shingle::{ShingleSets, content_hash, shingle_set};
use crate::simhash::fingerprint::{Digest, SimHasher};
use crate::simhash::fingerprints::{FingerprintBuilder, Fingerprints};
use crate::source::{
    Batches, Corpus, Entry, Item, Labels, SkipReason, Skipped, Source, extract_item,
};
use crate::text::{TextOptions, Tokenizer};
use crate::verify::{estimate, jaccard};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

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

/// What an index keeps of its corpus (see [`Index::build_keeping`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Everything: the shingle sets (in memory, or past the budget on a temporary
    /// file), titles and metadata. What the explorer, the exact join, queries and saved
    /// indexes need: they compare each document with many others.
    Everything,
    /// Everything but the shingle sets when the corpus can be read again cheaply
    /// (files, texts in memory, uncompressed JSON Lines and SGML): each is made again
    /// from its text when asked for ([`crate::reshingle`]), a batch at a time for the
    /// candidates, one at a time (the latest few kept per thread) for a cluster's
    /// similarities. What `clusters` and `dedup` need. Other corpora keep their sets.
    AllButSets,
    /// What finding pairs needs (`simtui pairs`): [`Keep::AllButSets`] without the
    /// titles and metadata, which are left empty ([`Index::build_to_search`]).
    ToSearch,
}

/// A document of the index.
#[derive(Clone, Debug)]
pub struct Doc {
    /// Its name: the path under the root it was found in (with '/'), or for a record of a
    /// file of many documents the id the record gives (`FILE:LINE` if none). A record
    /// whose id another document has too is renamed `ID@FILE:LINE`, so that the ids of
    /// files and records are unique.
    pub id: String,
    /// Where its text can be read again (the index keeps no text).
    pub source: Source,
    /// Size of its text in bytes (as decoded).
    pub bytes: u64,
    /// Number of tokens of its normalised text (stop words dropped, if they are); 0 for an
    /// empty document, which is similar to nothing.
    pub tokens: u64,
    /// Its group of identical documents (an index into the shingle sets and signatures).
    pub group: u32,
    /// What names it for people: the title its record gives (`--title-field`, SGML's
    /// `<TITLE>`), else its first non-empty line; white space collapsed, at most
    /// [`TITLE_MAX`](crate::source::TITLE_MAX) bytes.
    pub title: String,
    /// The values of the metadata fields read with it, named by its record's
    /// [`Part::meta_names`](crate::source::Part::meta_names): those asked for
    /// ([`InputOptions::meta_fields`](crate::source::InputOptions::meta_fields)), an
    /// empty string where it has none, then the format's usual fields up to the last it
    /// has; empty for a document that is a whole file.
    pub meta: Vec<String>,
}

impl Doc {
    /// Heap bytes of its id, title, metadata values and path, each allocation with the
    /// allocator's least overhead (16 bytes): what a million documents' labels take.
    fn text_bytes(&self) -> u64 {
        let string = |s: &String| {
            if s.capacity() == 0 {
                0
            } else {
                s.capacity() as u64 + 16
            }
        };
        let meta = self.meta.capacity() as u64 * std::mem::size_of::<String>() as u64;
        let path = match &self.source {
            Source::File(p) => p.capacity() as u64 + 16,
            _ => 0,
        };
        string(&self.id)
            + string(&self.title)
            + meta
            + self.meta.iter().map(string).sum::<u64>()
            + path
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
    /// in each [`Found`]). For an index opened from a file: of what was indexed anew.
    pub times: StageTimes,
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
/// which are shared (see [`Index::extended`]).
#[derive(Clone)]
pub struct Index {
    /// What it was built with; `num_perm` is the signatures' width.
    pub(crate) params: Params,
    /// The documents in corpus order. A document is known by its position here (a
    /// [`Pair`]'s `a` and `b`, [`Index::members`], ...).
    pub(crate) docs: Vec<Doc>,
    /// What the walk and the build left out, and why.
    pub(crate) skipped: Vec<Skipped>,
    /// Shingle sets of the groups. Shared: an index with more hash functions (and the
    /// explorer's previous index, still on screen meanwhile) holds the same sets, the
    /// largest part of an index, instead of a copy.
    pub(crate) shingles: Arc<ShingleSets>,
    /// Signatures of the groups, row `g` for group `g`.
    pub(crate) signatures: Signatures,
    /// Content hash of each group's normalised token stream (what makes documents
    /// identical): a saved index merges old and new documents by it.
    pub(crate) contents: Vec<u64>,
    /// Documents of each group: `members[member_start[g]..member_start[g + 1]]`.
    members: Vec<u32>,
    member_start: Vec<u32>,
    /// Counters and stage times of the build.
    pub(crate) stats: Stats,
    /// The memory it and its searches may hold; past it, work goes to temporary files.
    pub(crate) budget: Budget,
    /// What it keeps of the corpus.
    keep: Keep,
    /// Heap bytes of the documents' ids, titles, metadata values and paths (each allocation
    /// counted with the allocator's least overhead, 16 bytes).
    text_bytes: u64,
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
    /// [`Pair`]'s `a` and `b`, [`Index::members`], ...).
    pub fn docs(&self) -> &[Doc] {
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

    /// Counters and stage times of the build.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// What it keeps of the corpus: without titles and metadata when built only to
    /// search ([`Index::build_to_search`]).
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

    /// Approximate heap memory the index holds, in bytes (nothing for what is on
    /// temporary files).
    pub fn held(&self) -> u64 {
        self.held_bytes()
    }

    /// Where [`Index::held`] goes: documents (their records, then their ids' text),
    /// shingle sets, signatures, the group tables, in bytes.
    pub fn held_by_part(&self) -> [(&'static str, u64); 5] {
        [
            (
                "documents",
                (self.docs.capacity() * std::mem::size_of::<Doc>()) as u64,
            ),
            ("ids, titles", self.text_bytes),
            ("shingle sets", self.shingles.heap_bytes() as u64),
            ("signatures", self.signatures.heap_bytes() as u64),
            (
                "group tables",
                (self.contents.capacity() * 8
                    + (self.members.capacity() + self.member_start.capacity()) * 4)
                    as u64,
            ),
        ]
    }

    /// Heap bytes held: documents, shingle sets and signatures in memory, the group
    /// tables (nothing for what is on temporary files).
    pub(crate) fn held_bytes(&self) -> u64 {
        (self.shingles.heap_bytes()
            + self.signatures.heap_bytes()
            + self.contents.capacity() * 8
            + self.docs.capacity() * std::mem::size_of::<Doc>()
            + (self.members.capacity() + self.member_start.capacity()) * 4) as u64
            + self.text_bytes
    }

    /// Memory left for a search's work (band keys, sort buffers, sets read back).
    pub(crate) fn work_room(&self) -> u64 {
        self.budget.left(self.held_bytes())
    }

    /// Whether banding `bands` bands of `items` contents and verifying the candidates
    /// can be done in memory within the budget, as without one.
    fn fits_in_memory(&self, bands: usize, items: usize) -> bool {
        // Sets made again are read for the candidates in any case (verify_groups).
        let sets = !self.shingles.is_spilled() || self.shingles.is_read_again();
        let held = sets && !self.signatures.is_spilled();
        held && (!self.budget.is_limited()
            || crate::ooc::band::in_memory_bytes(bands, items) <= self.work_room())
    }

    /// The band keys of group `g`'s signature for `bands` × `rows`: what banding
    /// buckets it by, the same on every machine for the same text and parameters, so
    /// another engine (Spark) can group documents by them and find the pairs simtui
    /// finds. Keys of equal band values are equal in every index.
    ///
    /// # Panics
    /// If `bands × rows` is over the number of hash functions computed, or `g` is not a
    /// group of this index.
    pub fn band_keys(&self, g: u32, bands: usize, rows: usize) -> Vec<u64> {
        let row = self.signatures.row(g as usize);
        assert!(
            bands * rows <= row.len(),
            "{bands} × {rows} over {} functions",
            row.len()
        );
        (0..bands)
            .map(|b| band::band_key(&row[b * rows..(b + 1) * rows], b))
            .collect()
    }
}

/// Documents read and shingled per step: bounds the text held in memory at once and
/// paces progress reports.
const CHUNK: usize = 2048;

impl Index {
    /// Reads, shingles and sketches a corpus. Documents that cannot be read are skipped
    /// (see [`Index::skipped`]), not errors: fails only when cancelled.
    pub fn build(corpus: Corpus, params: &Params, progress: &dyn Progress) -> Result<Index> {
        Index::build_within(corpus, params, &Budget::unlimited(), progress)
    }

    /// [`Index::build`] in `budget` bytes of memory: past it, the shingle sets are
    /// written to a temporary file as they are made, and the signatures too when they
    /// don't fit either (see [`crate::ooc`]); the searches of the index keep to the
    /// budget too. Also fails when a temporary file cannot be written
    /// ([`Error::TempFile`](crate::Error::TempFile)).
    pub fn build_within(
        corpus: Corpus,
        params: &Params,
        budget: &Budget,
        progress: &dyn Progress,
    ) -> Result<Index> {
        Index::build_inner(corpus, params, None, Keep::Everything, budget, progress)
            .map(|(index, _)| index)
    }

    /// [`Index::build_within`] for an index that only searches (`simtui pairs`): when
    /// the corpus can be read again cheaply (files, texts in memory, uncompressed JSON
    /// Lines and SGML), its shingle sets are not kept but made again from the texts of
    /// the candidates when they are verified ([`crate::reshingle`]), and each document is
    /// sketched as it is read. The same pairs and values as [`Index::build_within`]'s
    /// index gives, in a fraction of the memory; other corpora are built as by
    /// [`Index::build_within`]. A text that changed since it was read makes the search
    /// fail ([`Error::File`](crate::Error::File)), never a wrong J.
    pub fn build_to_search(
        corpus: Corpus,
        params: &Params,
        budget: &Budget,
        progress: &dyn Progress,
    ) -> Result<Index> {
        Index::build_keeping(corpus, params, None, Keep::ToSearch, budget, progress)
            .map(|(index, _)| index)
    }

    /// The general build: SimHash fingerprints too when `simhash` is given (see
    /// [`Index::build_with_simhash`]), the shingle sets kept or made again (see
    /// [`Index::build_to_search`]), within `budget`.
    pub fn build_keeping(
        corpus: Corpus,
        params: &Params,
        simhash: Option<&SimHasher>,
        keep: Keep,
        budget: &Budget,
        progress: &dyn Progress,
    ) -> Result<(Index, Option<Fingerprints>)> {
        Index::build_inner(corpus, params, simhash, keep, budget, progress)
    }

    /// Like [`Index::build`], and also computes the SimHash fingerprint of every group
    /// (indexed like the signatures) from its token stream while it is at hand, so the
    /// text is read and tokenised once. `params.num_perm` may be 0 when no MinHash is
    /// wanted.
    pub fn build_with_simhash(
        corpus: Corpus,
        params: &Params,
        simhash: &SimHasher,
        progress: &dyn Progress,
    ) -> Result<(Index, Fingerprints)> {
        Index::build_with_simhash_within(corpus, params, simhash, &Budget::unlimited(), progress)
    }

    /// [`Index::build_with_simhash`] in `budget` bytes of memory (see
    /// [`Index::build_within`]).
    pub fn build_with_simhash_within(
        corpus: Corpus,
        params: &Params,
        simhash: &SimHasher,
        budget: &Budget,
        progress: &dyn Progress,
    ) -> Result<(Index, Fingerprints)> {
        let (index, fps) = Index::build_inner(
            corpus,
            params,
            Some(simhash),
            Keep::Everything,
            budget,
            progress,
        )?;
        Ok((index, fps.expect("fingerprints were asked for")))
    }

    fn build_inner(
        corpus: Corpus,
        params: &Params,
        simhash: Option<&SimHasher>,
        keep: Keep,
        budget: &Budget,
        progress: &dyn Progress,
    ) -> Result<(Index, Option<Fingerprints>)> {
        let mut fingerprints = simhash.map(|h| FingerprintBuilder::new(*h));
        let Corpus { entries, skipped } = corpus;
        let sketcher = Sketcher::new(params.sketch, params.seed, params.num_perm);
        // Sets made again: each document is sketched as it is read, its set dropped.
        let again = keep != Keep::Everything && Reshingle::can_read_again(&entries);
        let mut rows = again.then(|| RowsBuilder::new(params.num_perm));
        let shingles = if again {
            ShingleSets::read_again(&params.text, params.k, params.max_bytes)
        } else {
            ShingleSets::new()
        };
        let mut index = Index {
            params: params.clone(),
            docs: Vec::with_capacity(entries.len()),
            skipped,
            shingles: Arc::new(shingles),
            signatures: Signatures::default(),
            contents: Vec::new(),
            members: Vec::new(),
            member_start: Vec::new(),
            stats: Stats::default(),
            budget: budget.clone(),
            keep,
            text_bytes: 0,
        };
        let mut by_content: HashMap<u64, u32> = HashMap::new();
        let mut batches = Batches::new(entries, params.max_bytes);
        if batches.bytes().is_some() {
            progress.counting(Stage::Read, Counted::Bytes);
        }
        // The total last reported (it changes as files of many documents are read).
        let mut reported = 0;
        // A batch read and shingled, merged into the index while the next one is read:
        // the merge is serial, and this way the other threads don't wait for it.
        let mut pending: Option<Vec<ReadDoc>> = None;
        // Whether merging the last batch failed (a temporary file could not be written).
        let mut failed: Option<crate::Error> = None;
        loop {
            check(progress)?;
            let t = Instant::now();
            let batch = batches.next_batch(CHUNK);
            if batch.is_none() && pending.is_none() {
                break;
            }
            let clock = StageClock::default();
            let sketch = rows.as_ref().map(|_| &sketcher);
            let (shingled, ()) = rayon::join(
                || batch.map(|b| read_and_shingle(b, params, simhash, sketch, &clock)),
                || {
                    if let Some(p) = pending.take() {
                        let t = Instant::now();
                        let merged = index.merge(p, &mut fingerprints, &mut by_content, &mut rows);
                        if let Err(e) = merged {
                            failed = Some(e);
                        }
                        clock.add(Duration::ZERO, t.elapsed(), Duration::ZERO);
                    }
                },
            );
            if let Some(e) = failed {
                return Err(e);
            }
            pending = shingled;
            let (read, shingle, sketched) = clock.split(t.elapsed());
            index.stats.times.add(Stage::Read, read);
            index.stats.times.add(Stage::Shingle, shingle);
            index.stats.times.add(Stage::Sketch, sketched);
            let (done, total) = (batches.done(), batches.total_estimate());
            // Room for the shingles the whole corpus will have at this rate, so the matrix
            // is not copied again and again as it grows.
            let scale = |x: u64| x * total / (index.stats.docs as u64).max(1);
            let projected = scale(index.shingles.total() as u64);
            match &mut rows {
                Some(rows) => {
                    if !rows.is_spilled() && index.over_budget(0, total, by_content.len()) {
                        rows.spill(index.budget.dir(), &index.budget.spilled)?;
                    }
                    rows.reserve_rows(scale(by_content.len() as u64) as usize);
                }
                None => {
                    if !index.shingles.is_spilled()
                        && index.over_budget(projected, total, by_content.len())
                    {
                        let budget = &index.budget;
                        Arc::make_mut(&mut index.shingles).spill(budget.dir(), &budget.spilled)?;
                    }
                }
            }
            // Not shared while it is built: make_mut never copies here.
            Arc::make_mut(&mut index.shingles).reserve_total(projected as usize);
            reported = total;
            match batches.bytes() {
                Some((read, size)) => progress.update(Stage::Read, read, size),
                None => progress.update(Stage::Read, done, total),
            }
            progress.update(Stage::Shingle, done, total);
            if rows.is_some() {
                progress.update(Stage::Sketch, done, total);
            }
        }
        if reported != batches.done() {
            // The last estimate was off: say that everything is done.
            match batches.bytes() {
                Some((_, size)) => progress.update(Stage::Read, size, size),
                None => progress.update(Stage::Read, batches.done(), batches.done()),
            }
            progress.update(Stage::Shingle, batches.done(), batches.done());
            if rows.is_some() {
                progress.update(Stage::Sketch, batches.done(), batches.done());
            }
        }
        Arc::make_mut(&mut index.shingles).finish()?;
        Arc::make_mut(&mut index.shingles).shrink_to_fit();
        index.stats.renamed = unique_ids(&mut index.docs);
        index.text_bytes = index.docs.iter().map(Doc::text_bytes).sum();
        index.stats.groups = index.shingles.len();
        drop(by_content);
        index.group_members();

        if let Some(rows) = rows {
            index.signatures = rows.finish()?;
            return Ok((index, fingerprints.map(FingerprintBuilder::finish)));
        }
        let t = Instant::now();
        let room = index.budget.for_index().saturating_sub(index.held_bytes());
        let to = SpillTo {
            bytes: room,
            dir: index.budget.dir(),
            spilled: &index.budget.spilled,
            block: (index.budget.work() / 2).min(256 << 20),
        };
        index.signatures = Signatures::compute_within(&sketcher, &index.shingles, &to, progress)?;
        index.stats.times.add(Stage::Sketch, t.elapsed());
        Ok((index, fingerprints.map(FingerprintBuilder::finish)))
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
        let docs = self.docs.len() as u64 * std::mem::size_of::<Doc>() as u64 + self.text_bytes;
        // Per content: its offset, content hash, signature, and its entry while building.
        let per_group = 8 + 8 + 24 + self.params.num_perm as u64 * 4;
        let projected = shingles.saturating_mul(8)
            + scale(docs + 8 * self.stats.docs as u64)
            + scale(groups as u64 * per_group);
        projected > self.budget.for_index()
    }

    /// Adds a batch of documents read and shingled, in corpus order. Fails only when
    /// the sets are spilled and their file cannot be written.
    fn merge(
        &mut self,
        batch: Vec<ReadDoc>,
        fingerprints: &mut Option<FingerprintBuilder>,
        by_content: &mut HashMap<u64, u32>,
        rows: &mut Option<RowsBuilder>,
    ) -> Result<()> {
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
            let groups = self.shingles.len();
            self.add_doc(entry, labels, s, by_content, rows)?;
            if let Some(fps) = fingerprints
                .as_mut()
                .filter(|_| self.shingles.len() > groups)
            {
                fps.push(digest.expect("a digest for each document"));
            }
        }
        Ok(())
    }

    fn add_doc(
        &mut self,
        entry: Entry,
        labels: Labels,
        s: Shingled,
        by_content: &mut HashMap<u64, u32>,
        rows: &mut Option<RowsBuilder>,
    ) -> Result<()> {
        let next = self.shingles.len() as u32;
        let group = *by_content.entry(s.content).or_insert(next);
        if group == next {
            let sets = Arc::make_mut(&mut self.shingles);
            match rows {
                Some(rows) => {
                    sets.append_again(s.size, entry.source.clone(), s.content);
                    rows.push(s.row.as_deref().expect("a row for each document"))?;
                }
                None => sets.append(&s.set)?,
            }
            self.contents.push(s.content);
            self.stats.shingles += s.size as u64;
        }
        self.stats.docs += 1;
        self.stats.bytes += s.bytes;
        self.stats.tokens += s.tokens;
        self.stats.empty += (s.tokens == 0) as usize;
        // An index only to search leaves out what names documents for people: at ten
        // million documents their titles alone are 2 GB.
        let labels = match self.keep {
            Keep::Everything | Keep::AllButSets => labels,
            Keep::ToSearch => Labels::default(),
        };
        let doc = Doc {
            id: entry.id,
            source: entry.source,
            bytes: s.bytes,
            tokens: s.tokens,
            group,
            title: labels.title,
            meta: labels.meta,
        };
        self.text_bytes += doc.text_bytes();
        self.docs.push(doc);
        Ok(())
    }

    /// An index from its parts (a saved index, updated): the documents in corpus order,
    /// groups numbered in order of their first document, as [`Index::build`] numbers
    /// them. The counters are recomputed; stage times are zero.
    ///
    /// # Panics
    /// If a document's group is out of range, or the parts disagree on the number of
    /// groups (the caller validates a file before).
    pub fn from_parts(
        params: Params,
        docs: Vec<Doc>,
        skipped: Vec<Skipped>,
        shingles: ShingleSets,
        signatures: Signatures,
        contents: Vec<u64>,
    ) -> Index {
        let groups = shingles.len();
        assert_eq!(contents.len(), groups, "a content hash per group");
        assert!(
            signatures.width() == 0 || signatures.rows() == groups,
            "a signature per group"
        );
        assert!(docs.iter().all(|d| (d.group as usize) < groups));
        let mut stats = Stats {
            docs: docs.len(),
            groups,
            shingles: shingles.total() as u64,
            ..Stats::default()
        };
        for d in &docs {
            // Saturating: the sizes come from a file (checked, but not trusted to be sane).
            stats.bytes = stats.bytes.saturating_add(d.bytes);
            stats.tokens = stats.tokens.saturating_add(d.tokens);
            stats.empty += (d.tokens == 0) as usize;
        }
        let mut index = Index {
            params,
            docs,
            skipped,
            shingles: Arc::new(shingles),
            signatures,
            contents,
            members: Vec::new(),
            member_start: Vec::new(),
            stats,
            budget: Budget::unlimited(),
            keep: Keep::Everything,
            text_bytes: 0,
        };
        index.text_bytes = index.docs.iter().map(Doc::text_bytes).sum();
        index.group_members();
        index
    }

    /// Builds the group → documents table (counting sort by group).
    fn group_members(&mut self) {
        let groups = self.shingles.len();
        let mut start = vec![0u32; groups + 1];
        for d in &self.docs {
            start[d.group as usize + 1] += 1;
        }
        for g in 0..groups {
            start[g + 1] += start[g];
        }
        let mut fill = start.clone();
        let mut members = vec![0u32; self.docs.len()];
        for (i, d) in self.docs.iter().enumerate() {
            members[fill[d.group as usize] as usize] = i as u32;
            fill[d.group as usize] += 1;
        }
        self.members = members;
        self.member_start = start;
    }

    /// The documents of group `g`, in corpus order.
    pub fn members(&self, g: u32) -> &[u32] {
        &self.members
            [self.member_start[g as usize] as usize..self.member_start[g as usize + 1] as usize]
    }

    /// Of the records read with an id field asked for (`--id-field`, as
    /// [`InputOptions::id_field`](crate::source::InputOptions::id_field)): how many there
    /// are, and how many had no such field (or an empty one) and are named `FILE:LINE`
    /// instead. (0, 0) when no id field was asked for.
    pub fn unnamed_records(&self) -> (usize, usize) {
        let (mut records, mut unnamed) = (0, 0);
        for d in &self.docs {
            if let Source::Part(p) = &d.source
                && p.file.id_field.is_some()
            {
                records += 1;
                unnamed += (d.id == p.file.line_id(p.line)) as usize;
            }
        }
        (records, unnamed)
    }

    /// Number of MinHash functions computed.
    pub fn num_perm(&self) -> usize {
        self.signatures.width()
    }

    /// Computes more MinHash functions (for a larger b·r), keeping the ones computed;
    /// nothing when there are `n` already. An OPH signature of another width is another
    /// sketch: it is computed anew. Fails only when cancelled.
    pub fn ensure_perms(&mut self, n: usize, progress: &dyn Progress) -> Result<()> {
        if n > self.signatures.width() {
            let sketcher = Sketcher::new(self.params.sketch, self.params.seed, n);
            self.signatures
                .extend(&sketcher, &self.shingles, progress)?;
            self.params.num_perm = n;
        }
        Ok(())
    }

    /// A copy with at least `n` MinHash functions, as [`Index::ensure_perms`] would make
    /// it, without copying what does not change: the shingle sets are shared and the old
    /// signatures are only read. For the explorer, which keeps using this index while the
    /// copy is computed.
    pub fn extended(&self, n: usize, progress: &dyn Progress) -> Result<Index> {
        let mut params = self.params.clone();
        let signatures = if n > self.signatures.width() {
            params.num_perm = n;
            let sketcher = Sketcher::new(self.params.sketch, self.params.seed, n);
            self.signatures
                .extended(&sketcher, &self.shingles, progress)?
        } else {
            self.signatures.clone()
        };
        Ok(Index {
            params,
            docs: self.docs.clone(),
            skipped: self.skipped.clone(),
            shingles: self.shingles.clone(),
            signatures,
            contents: self.contents.clone(),
            members: self.members.clone(),
            member_start: self.member_start.clone(),
            stats: self.stats.clone(),
            budget: self.budget.clone(),
            keep: self.keep,
            text_bytes: self.text_bytes,
        })
    }

    /// A copy whose signatures are exactly those a fresh build with `num_perm = n` (the
    /// same sketch and seed) computes, so that banding b × r with b·r = n finds what a
    /// fresh run at b × r finds, estimates included. See [`Index::sketched`].
    pub fn with_width(&self, n: usize, progress: &dyn Progress) -> Result<Index> {
        self.sketched(self.params.sketch, self.params.seed, n, progress)
    }

    /// A copy whose signatures are exactly those a fresh build with this `sketch`, `seed`
    /// and `num_perm = n` computes (the shingle sets are shared, not copied). Only what
    /// differs is computed: MinHash of the same seed keeps the functions below `n` and
    /// computes the missing ones; an OPH signature of another width is another sketch
    /// (a shingle's bin depends on the number of bins), so it is computed anew, as is
    /// any other sketch or seed. Fails only when cancelled or when the signatures would
    /// not fit in memory.
    pub fn sketched(
        &self,
        sketch: SketchKind,
        seed: u64,
        n: usize,
        progress: &dyn Progress,
    ) -> Result<Index> {
        let width = self.signatures.width();
        let same = sketch == self.params.sketch && seed == self.params.seed;
        let sketcher = Sketcher::new(sketch, seed, n);
        let signatures = match sketch {
            _ if same && n == width => self.signatures.clone(),
            SketchKind::MinHash if same && n < width => self.signatures.truncated(n)?,
            SketchKind::MinHash if same => {
                self.signatures
                    .extended(&sketcher, &self.shingles, progress)?
            }
            _ => Signatures::compute(&sketcher, &self.shingles, progress)?,
        };
        Ok(self.with_signatures(signatures, seed, sketch))
    }

    /// A copy with other signatures (of this index's groups), sharing the shingle sets.
    fn with_signatures(&self, signatures: Signatures, seed: u64, sketch: SketchKind) -> Index {
        let params = Params {
            num_perm: signatures.width(),
            seed,
            sketch,
            ..self.params.clone()
        };
        Index {
            params,
            docs: self.docs.clone(),
            skipped: self.skipped.clone(),
            shingles: self.shingles.clone(),
            signatures,
            contents: self.contents.clone(),
            members: self.members.clone(),
            member_start: self.member_start.clone(),
            stats: self.stats.clone(),
            budget: self.budget.clone(),
            keep: self.keep,
            text_bytes: self.text_bytes,
        }
    }

    /// Recomputes every signature with another seed or sketch (the shingles are kept).
    pub(crate) fn resketch(
        &mut self,
        seed: u64,
        sketch: SketchKind,
        progress: &dyn Progress,
    ) -> Result<()> {
        let sketcher = Sketcher::new(sketch, seed, self.signatures.width());
        self.signatures = Signatures::compute(&sketcher, &self.shingles, progress)?;
        self.params.seed = seed;
        self.params.sketch = sketch;
        Ok(())
    }

    /// Number of pairs of documents within group `g` (identical documents); 0 for the
    /// group of empty documents, which pair with nothing.
    pub fn pairs_within(&self, g: u32) -> u64 {
        if self.shingles.set_len(g as usize) == 0 {
            return 0;
        }
        let m = self.members(g).len() as u64;
        m * m.saturating_sub(1) / 2
    }

    /// (exact Jaccard, MinHash estimate) of documents `a` and `b` (positions in
    /// [`Index::docs`]). Identical documents have (1, 1), unless they are empty: an empty
    /// document is similar to nothing, itself included.
    pub fn similarity(&self, a: u32, b: u32) -> (f64, f64) {
        let (ga, gb) = (self.docs[a as usize].group, self.docs[b as usize].group);
        (self.group_jaccard(ga, gb), self.group_estimate(ga, gb))
    }

    /// Exact Jaccard and estimate of two groups (contents); a non-empty group is
    /// identical to itself.
    pub(crate) fn group_similarity(&self, ga: u32, gb: u32) -> (f64, f64) {
        (self.group_jaccard(ga, gb), self.group_estimate(ga, gb))
    }

    /// The groups that can pair with anything: empty documents are similar to nothing.
    pub(crate) fn nonempty_groups(&self) -> Vec<u32> {
        (0..self.shingles.len() as u32)
            .filter(|&g| self.shingles.set_len(g as usize) != 0)
            .collect()
    }

    fn group_jaccard(&self, ga: u32, gb: u32) -> f64 {
        if ga == gb {
            return if self.shingles.set_len(ga as usize) == 0 {
                0.0
            } else {
                1.0
            };
        }
        jaccard(
            &self.shingles.get(ga as usize),
            &self.shingles.get(gb as usize),
        )
    }

    fn group_estimate(&self, ga: u32, gb: u32) -> f64 {
        if self.shingles.set_len(ga as usize) == 0 || self.shingles.set_len(gb as usize) == 0 {
            return 0.0;
        }
        estimate(
            &self.signatures.row(ga as usize),
            &self.signatures.row(gb as usize),
        )
    }

    /// Bands the signatures (`bands` × `rows`, which must fit the functions computed),
    /// verifies every candidate, and keeps the pairs with exact J ≥ `threshold`, spelled
    /// out as document pairs ([`Index::search`] without spelling them out).
    ///
    /// # Panics
    /// If `bands` or `rows` is 0, or `bands × rows` exceeds [`Index::num_perm`].
    pub fn find(
        &self,
        bands: usize,
        rows: usize,
        threshold: f64,
        progress: &dyn Progress,
    ) -> Result<Found> {
        let search = self.search(bands, rows, threshold, None, progress)?;
        self.spell(search)
    }

    /// Bands the signatures, verifies every candidate pair of contents and keeps those
    /// with exact J ≥ `threshold`, by content: nothing is spelled out per document, so
    /// 20,000 copies of one text cost one content, not 200 million pairs. Buckets of more
    /// than `max_bucket` contents are not expanded into candidates (they are listed in
    /// [`Search::huge`], with every bucket of [`HUGE_BUCKET`](band::HUGE_BUCKET)
    /// contents or more).
    pub fn search(
        &self,
        bands: usize,
        rows: usize,
        threshold: f64,
        max_bucket: Option<usize>,
        progress: &dyn Progress,
    ) -> Result<Search> {
        let t = Instant::now();
        let items = self.nonempty_groups();
        if !self.fits_in_memory(bands, items.len()) {
            return crate::ooc::search(
                self,
                &items,
                (bands, rows),
                threshold,
                max_bucket,
                progress,
            );
        }
        let (group_pairs, huge) =
            band::candidates_capped(&self.signatures, &items, bands, rows, max_bucket, progress)?;
        let band_time = t.elapsed();
        let mut search = self.verify_groups(&group_pairs, threshold, progress)?;
        search.huge = huge;
        search.banding = Some((bands, rows));
        search.band_time = band_time;
        Ok(search)
    }

    /// Verifies candidate pairs of groups (distinct, non-empty contents, as any candidate
    /// generator gives them: LSH banding, SimHash block tables) with exact Jaccard, keeps
    /// those with J ≥ `threshold`, and spells them out as document pairs, with every
    /// pair of identical documents. `band_time` is left at zero for the caller.
    pub fn verify(
        &self,
        group_pairs: &[(u32, u32)],
        threshold: f64,
        progress: &dyn Progress,
    ) -> Result<Found> {
        let search = self.verify_groups(group_pairs, threshold, progress)?;
        self.spell(search)
    }

    /// Verifies candidate pairs of groups and keeps those with J ≥ `threshold`, by
    /// content (see [`Index::verify`]). Candidates are verified in parallel chunks and only
    /// the kept pairs are held. `band_time` is left at zero for the caller.
    pub fn verify_groups(
        &self,
        group_pairs: &[(u32, u32)],
        threshold: f64,
        progress: &dyn Progress,
    ) -> Result<Search> {
        let t = Instant::now();
        if self.shingles.is_spilled() || self.signatures.is_spilled() {
            let mut pairs = group_pairs.iter().copied();
            let (kept, _, _) = crate::ooc::verify::stream(
                self,
                || Ok(pairs.next()),
                threshold,
                self.work_room() / 2,
                group_pairs.len() as u64,
                progress,
            )?;
            return Ok(Search {
                candidates: self.candidate_count(group_pairs),
                group_candidates: group_pairs.len(),
                group_pairs: kept,
                threshold,
                huge: Vec::new(),
                banding: None,
                band_time: Duration::ZERO,
                verify_time: t.elapsed(),
            });
        }
        // Small tasks, so that a few thousand pairs still spread over every core.
        const TASK: usize = 256;
        let total = group_pairs.len() as u64;
        let done = AtomicU64::new(0);
        let kept: Vec<GroupPair> = group_pairs
            .par_chunks(TASK)
            .map(|chunk| {
                check(progress)?;
                let out: Vec<GroupPair> = chunk
                    .iter()
                    .filter_map(|&(ga, gb)| {
                        let jaccard = self.group_jaccard(ga, gb);
                        (jaccard >= threshold).then(|| GroupPair {
                            ga,
                            gb,
                            jaccard,
                            estimate: self.group_estimate(ga, gb),
                        })
                    })
                    .collect();
                let d = done.fetch_add(chunk.len() as u64, Ordering::Relaxed);
                progress.update(Stage::Verify, d + chunk.len() as u64, total);
                Ok(out)
            })
            .collect::<Result<Vec<_>, Cancelled>>()?
            .concat();
        Ok(Search {
            candidates: self.candidate_count(group_pairs),
            group_candidates: group_pairs.len(),
            group_pairs: kept,
            threshold,
            huge: Vec::new(),
            banding: None,
            band_time: Duration::ZERO,
            verify_time: t.elapsed(),
        })
    }

    /// Candidate document pairs for these candidate pairs of groups, with every pair of
    /// identical documents.
    pub(crate) fn candidate_count(&self, group_pairs: &[(u32, u32)]) -> u64 {
        let across: u64 = group_pairs
            .iter()
            .map(|&(ga, gb)| (self.members(ga).len() * self.members(gb).len()) as u64)
            .sum();
        let within: u64 = (0..self.shingles.len() as u32)
            .map(|g| self.pairs_within(g))
            .sum();
        across + within
    }

    /// The sketch's estimate of each pair of groups (the third field is left alone), in
    /// parallel. Fails only when cancelled.
    pub(crate) fn estimates(
        &self,
        group_pairs: &[(u32, u32, f64)],
        progress: &dyn Progress,
    ) -> Result<Vec<f64>> {
        const TASK: usize = 4096;
        Ok(group_pairs
            .par_chunks(TASK)
            .map(|chunk| {
                check(progress)?;
                Ok(chunk
                    .iter()
                    .map(|&(ga, gb, _)| self.group_estimate(ga, gb))
                    .collect::<Vec<f64>>())
            })
            .collect::<Result<Vec<_>, Cancelled>>()?
            .concat())
    }

    /// The exact Jaccard similarity and the sketch's estimate of each pair of groups, in
    /// parallel.
    pub(crate) fn similarities(
        &self,
        group_pairs: &[(u32, u32)],
        progress: &dyn Progress,
    ) -> Result<Vec<(f64, f64)>> {
        // Small tasks, so that a few thousand pairs still spread over every core.
        const TASK: usize = 256;
        let total = group_pairs.len() as u64;
        let done = AtomicU64::new(0);
        Ok(group_pairs
            .par_chunks(TASK)
            .map(|chunk| {
                check(progress)?;
                let out: Vec<(f64, f64)> = chunk
                    .iter()
                    .map(|&(ga, gb)| (self.group_jaccard(ga, gb), self.group_estimate(ga, gb)))
                    .collect();
                let d = done.fetch_add(chunk.len() as u64, Ordering::Relaxed);
                progress.update(Stage::Verify, d + chunk.len() as u64, total);
                Ok(out)
            })
            .collect::<Result<Vec<_>, Cancelled>>()?
            .concat())
    }

    /// Verifies the candidates the huge buckets of a search stand for (the pairs each
    /// owns, see [`band::HugeOwners`]), a block of a bucket's rows at a time in parallel,
    /// and hands each row's pairs with J ≥ the search's threshold to `sink`, with the
    /// number of candidate document pairs it verified. Nothing is held beyond a block.
    pub fn verify_huge(
        &self,
        search: &Search,
        progress: &dyn Progress,
        mut sink: impl FnMut(Vec<GroupPair>, u64) -> Result<()>,
    ) -> Result<()> {
        let Some((bands, rows)) = search.banding else {
            return Ok(());
        };
        if search.huge.iter().all(|b| b.capped) {
            return Ok(());
        }
        if self.shingles.is_spilled() || self.signatures.is_spilled() {
            let budget = self.work_room() / 2;
            return crate::ooc::verify::huge(self, search, budget, progress, sink);
        }
        let owners = band::HugeOwners::new(&self.signatures, bands, rows, &search.huge);
        const BLOCK: usize = 64;
        let size = |g: u32| self.members(g).len() as u64;
        for bucket in search.huge.iter().filter(|b| !b.capped) {
            for start in (0..bucket.groups.len()).step_by(BLOCK) {
                check(progress)?;
                let end = (start + BLOCK).min(bucket.groups.len());
                let rows: Vec<(Vec<GroupPair>, u64)> = (start..end)
                    .into_par_iter()
                    .map(|i| {
                        let x = bucket.groups[i];
                        let (mut kept, mut candidates) = (Vec::new(), 0);
                        for y in owners.row(bucket, i) {
                            candidates += size(x) * size(y);
                            let jaccard = self.group_jaccard(x, y);
                            if jaccard >= search.threshold {
                                kept.push(GroupPair {
                                    ga: x,
                                    gb: y,
                                    jaccard,
                                    estimate: self.group_estimate(x, y),
                                });
                            }
                        }
                        (kept, candidates)
                    })
                    .collect();
                for (kept, candidates) in rows {
                    sink(kept, candidates)?;
                }
            }
        }
        Ok(())
    }

    /// The document pairs of a search, in memory: every pair of identical documents and
    /// of each kept pair of contents (those of huge buckets too), sorted by J descending
    /// then ids. [`Error::TooLarge`](crate::Error::TooLarge) when they would not fit in
    /// memory: [`DocPairs`](crate::doc_pairs::DocPairs) streams them instead.
    pub fn spell(&self, search: Search) -> Result<Found> {
        self.spell_ranked(search, None, None)
    }

    /// [`Index::spell`], except that a content of identical documents, or a pair of
    /// contents, standing for more than `max_block` document pairs is kept whole as one
    /// [`Block`] (in [`Found::blocks`]) instead of spelled out: what a reader pages
    /// through, in memory bounded by the pairs of contents however many copies there are
    /// (20,000 copies of a page are one block, not 200 million pairs).
    pub fn spell_blocked(&self, search: Search, max_block: u64) -> Result<Found> {
        self.spell_ranked(search, None, Some(max_block))
    }

    /// [`Index::spell`] (or [`Index::spell_blocked`], with `max_block`), with each
    /// document's rank among the ids sorted (from [`Index::id_order`]) when known, which
    /// makes the sort cheaper.
    pub(crate) fn spell_ranked(
        &self,
        mut search: Search,
        id_order: Option<&[u32]>,
        max_block: Option<u64>,
    ) -> Result<Found> {
        self.join_huge(&mut search)?;
        let blocked = |pairs: u64| max_block.is_some_and(|max| pairs > max);
        let within = |g: u32| self.pairs_within(g);
        let across = |p: &GroupPair| (self.members(p.ga).len() * self.members(p.gb).len()) as u64;
        let count: u64 = (0..self.shingles.len() as u32)
            .map(within)
            .filter(|&n| !blocked(n))
            .sum::<u64>()
            + search
                .group_pairs
                .iter()
                .map(across)
                .filter(|&n| !blocked(n))
                .sum::<u64>();
        let mut pairs = Vec::new();
        crate::memory::reserve(
            &mut pairs,
            usize::try_from(count).unwrap_or(usize::MAX),
            "the document pairs",
        )?;
        let before = |a: u32, b: u32| match id_order {
            Some(rank) => rank[a as usize] <= rank[b as usize],
            None => self.docs[a as usize]
                .id
                .cmp(&self.docs[b as usize].id)
                .is_le(),
        };
        let ordered = |a: u32, b: u32, jaccard: f64, estimate: f64| {
            let (a, b) = if before(a, b) { (a, b) } else { (b, a) };
            Pair {
                a,
                b,
                jaccard,
                estimate,
            }
        };
        // The first of a content's documents by id.
        let first = |g: u32| {
            let m = self.members(g);
            m.iter()
                .copied()
                .fold(m[0], |x, d| if before(d, x) { d } else { x })
        };
        let mut blocks = Vec::new();
        // Identical documents: every pair within a non-empty group, J = 1.
        for g in 0..self.shingles.len() as u32 {
            let n = within(g);
            if n == 0 {
                continue;
            }
            let m = self.members(g);
            if blocked(n) {
                let a = first(g);
                let b = m
                    .iter()
                    .copied()
                    .filter(|&d| d != a)
                    .fold(None, |x: Option<u32>, d| match x {
                        Some(x) if before(x, d) => Some(x),
                        _ => Some(d),
                    })
                    .expect("a group of two or more documents");
                blocks.push(Block {
                    ga: g,
                    gb: g,
                    jaccard: 1.0,
                    estimate: 1.0,
                    pairs: n,
                    first: ordered(a, b, 1.0, 1.0),
                });
                continue;
            }
            for (i, &a) in m.iter().enumerate() {
                for &b in &m[i + 1..] {
                    pairs.push(ordered(a, b, 1.0, 1.0));
                }
            }
        }
        for p in &search.group_pairs {
            let n = across(p);
            if blocked(n) {
                blocks.push(Block {
                    ga: p.ga,
                    gb: p.gb,
                    jaccard: p.jaccard,
                    estimate: p.estimate,
                    pairs: n,
                    first: ordered(first(p.ga), first(p.gb), p.jaccard, p.estimate),
                });
                continue;
            }
            for &a in self.members(p.ga) {
                for &b in self.members(p.gb) {
                    pairs.push(ordered(a, b, p.jaccard, p.estimate));
                }
            }
        }
        match id_order {
            Some(rank) => {
                let by = |x: &Pair, y: &Pair| {
                    y.jaccard
                        .total_cmp(&x.jaccard)
                        .then_with(|| rank[x.a as usize].cmp(&rank[y.a as usize]))
                        .then_with(|| rank[x.b as usize].cmp(&rank[y.b as usize]))
                };
                pairs.par_sort_unstable_by(by);
                blocks.sort_unstable_by(|x, y| by(&x.first, &y.first));
            }
            None => {
                self.sort_pairs(&mut pairs);
                blocks.sort_unstable_by(|x, y| self.pair_order(&x.first, &y.first));
            }
        }
        Ok(Found {
            pairs,
            blocks,
            candidates: search.candidates,
            group_candidates: search.group_candidates,
            huge: search.huge,
            band_time: search.band_time,
            verify_time: search.verify_time,
        })
    }

    /// Verifies the candidates of the search's huge buckets (those not capped) and adds
    /// the pairs kept to its pairs of contents.
    fn join_huge(&self, search: &mut Search) -> Result<()> {
        // At most every pair of each bucket.
        let most: u64 = search
            .huge
            .iter()
            .filter(|b| !b.capped)
            .map(|b| (b.groups.len() as u64).pow(2) / 2)
            .sum();
        let mut huge: Vec<GroupPair> = Vec::new();
        crate::memory::reserve(
            &mut huge,
            usize::try_from(most).unwrap_or(usize::MAX).min(1 << 20),
            "the pairs of huge buckets",
        )?;
        if (most as u128) * std::mem::size_of::<GroupPair>() as u128
            > crate::memory::physical().unwrap_or(u64::MAX) as u128
        {
            return Err(crate::Error::TooLarge {
                job: "the pairs in memory",
                why: format!("buckets of up to {most} pairs; a maximum bucket size caps them"),
            });
        }
        let mut extra = 0;
        self.verify_huge(search, &crate::progress::Silent, |kept, candidates| {
            huge.extend(kept);
            extra += candidates;
            Ok(())
        })?;
        search.group_pairs.extend(huge);
        search.candidates += extra;
        Ok(())
    }

    /// The pairs of distinct contents among what `found` holds, with their J: its
    /// document pairs mapped to their contents (each pair of contents as often as it
    /// has document pairs spelled out), and its blocks across two contents.
    pub fn content_pairs<'a>(
        &'a self,
        found: &'a Found,
    ) -> impl Iterator<Item = (u32, u32, f64)> + 'a {
        let spelled = found.pairs.iter().filter_map(|p| {
            let (ga, gb) = (self.docs[p.a as usize].group, self.docs[p.b as usize].group);
            (ga != gb).then_some((ga, gb, p.jaccard))
        });
        let blocks = found.blocks.iter().filter(|b| !b.is_within());
        spelled.chain(blocks.map(|b| (b.ga, b.gb, b.jaccard)))
    }

    /// Document pairs that kept pairs of contents stand for, with every pair of
    /// identical documents.
    pub fn pair_count(&self, group_pairs: &[GroupPair]) -> u64 {
        let across: u64 = group_pairs
            .iter()
            .map(|p| (self.members(p.ga).len() * self.members(p.gb).len()) as u64)
            .sum();
        let within: u64 = (0..self.shingles.len() as u32)
            .map(|g| self.pairs_within(g))
            .sum();
        across + within
    }

    /// Each document's rank among the ids in sorted order, for [`Index::spell_ranked`].
    pub(crate) fn id_order(&self) -> Vec<u32> {
        let mut by_id: Vec<u32> = (0..self.docs.len() as u32).collect();
        by_id
            .par_sort_unstable_by(|&x, &y| self.docs[x as usize].id.cmp(&self.docs[y as usize].id));
        let mut rank = vec![0u32; by_id.len()];
        for (r, &d) in by_id.iter().enumerate() {
            rank[d as usize] = r as u32;
        }
        rank
    }

    /// Sorts pairs by exact J descending, then by ids.
    pub(crate) fn sort_pairs(&self, pairs: &mut [Pair]) {
        pairs.par_sort_unstable_by(|x, y| self.pair_order(x, y));
    }

    /// The order of pairs everywhere: exact J descending, then ids.
    fn pair_order(&self, x: &Pair, y: &Pair) -> std::cmp::Ordering {
        y.jaccard
            .total_cmp(&x.jaccard)
            .then_with(|| self.docs[x.a as usize].id.cmp(&self.docs[y.a as usize].id))
            .then_with(|| self.docs[x.b as usize].id.cmp(&self.docs[y.b as usize].id))
    }

    /// Approximate heap memory held by the index.
    pub fn heap_bytes(&self) -> usize {
        self.shingles.heap_bytes()
            + self.signatures.heap_bytes()
            + self.contents.capacity() * 8
            + self
                .docs
                .iter()
                .map(|d| {
                    d.id.capacity()
                        + d.title.capacity()
                        + d.meta.iter().map(|m| m.capacity() + 24).sum::<usize>()
                        + std::mem::size_of::<Doc>()
                })
                .sum::<usize>()
            + (self.members.capacity() + self.member_start.capacity()) * 4
    }
}

/// One document after tokenising and shingling.
/// A document read and shingled (with its SimHash digest when asked for), or why not.
type ReadDoc = Result<(Entry, Labels, Shingled, Option<Digest>), Skipped>;

/// Reads and shingles a batch in parallel, in order. Each item is read and shingled on the
/// same thread, so its text is tokenised while still in cache and no thread waits for a
/// whole batch to be read first.
fn read_and_shingle(
    batch: Vec<Item>,
    params: &Params,
    simhash: Option<&SimHasher>,
    sketch: Option<&Sketcher>,
    clock: &StageClock,
) -> Vec<ReadDoc> {
    batch
        .into_par_iter()
        .map_init(
            || (Tokenizer::new(&params.text), Vec::new()),
            |(tok, buf), item| {
                let t0 = Instant::now();
                let read = extract_item(item, params.max_bytes);
                let t1 = Instant::now();
                let mut sketched = Duration::ZERO;
                let out = read.map(|(entry, text, labels)| {
                    let mut s = shingle_doc(&text, tok, buf, params.k);
                    if params.min_words > 0 {
                        s.words = count_words(&text, tok.options(), s.tokens);
                    }
                    // `buf` still holds the document's token stream.
                    let digest = simhash.map(|h| h.digest(buf));
                    if let Some(sketcher) = sketch {
                        // The set is made again when verified: only its sketch is kept.
                        let t = Instant::now();
                        s.row = Some(sketcher.sketch(&s.set));
                        s.set = Vec::new();
                        sketched = t.elapsed();
                    }
                    (entry, labels, s, digest)
                });
                clock.add(t1 - t0, t1.elapsed() - sketched, sketched);
                out
            },
        )
        .collect()
}

/// Time the threads of a pass spent reading, shingling (and merging) and sketching (when
/// documents are sketched as they are read), to share the pass's wall time between the
/// stages in proportion.
#[derive(Default)]
struct StageClock {
    read: AtomicU64,
    shingle: AtomicU64,
    sketch: AtomicU64,
}

impl StageClock {
    fn add(&self, read: Duration, shingle: Duration, sketch: Duration) {
        for (total, d) in [
            (&self.read, read),
            (&self.shingle, shingle),
            (&self.sketch, sketch),
        ] {
            total.fetch_add(d.as_nanos() as u64, Ordering::Relaxed);
        }
    }

    /// `wall` split into (read, shingle, sketch) in proportion to the time spent in each.
    fn split(&self, wall: Duration) -> (Duration, Duration, Duration) {
        let [read, shingle, sketch] =
            [&self.read, &self.shingle, &self.sketch].map(|t| t.load(Ordering::Relaxed) as f64);
        let all = read + shingle + sketch;
        if all == 0.0 {
            return (wall / 2, wall - wall / 2, Duration::ZERO);
        }
        let (read, sketch) = (wall.mul_f64(read / all), wall.mul_f64(sketch / all));
        (read, wall.saturating_sub(read + sketch), sketch)
    }
}

struct Shingled {
    /// Size of the decoded text in bytes.
    bytes: u64,
    content: u64,
    tokens: u64,
    /// Words, for `--min-words` (the tokens in word mode).
    words: u64,
    /// Its shingles: the set, emptied once sketched when sets are not kept, and
    /// their number.
    set: Vec<u64>,
    size: usize,
    /// Its signature, when documents are sketched as they are read.
    row: Option<Vec<u32>>,
}

fn shingle_doc(text: &str, tok: &mut Tokenizer, buf: &mut Vec<u64>, k: usize) -> Shingled {
    buf.clear();
    tok.token_hashes(text, buf);
    let mut set = Vec::new();
    shingle_set(buf, k, &mut set);
    Shingled {
        bytes: text.len() as u64,
        content: content_hash(buf),
        tokens: buf.len() as u64,
        words: buf.len() as u64,
        size: set.len(),
        set,
        row: None,
    }
}

/// The words of a text as `--min-words` counts them: its tokens in word mode (after stop
/// words are dropped, if they are), its Unicode words in character mode.
fn count_words(text: &str, opts: &TextOptions, tokens: u64) -> u64 {
    use unicode_segmentation::UnicodeSegmentation;
    match opts.unit {
        crate::text::Unit::Word => tokens,
        crate::text::Unit::Char => text.unicode_words().count() as u64,
    }
}

/// Makes the ids of documents unique where records named themselves: each document of a
/// file of many whose id another document has too is renamed `ID@FILE:LINE` (plain
/// files keep their paths, which are unique). Returns how many were renamed.
pub(crate) fn unique_ids(docs: &mut [Doc]) -> usize {
    if !docs.iter().any(|d| matches!(d.source, Source::Part(_))) {
        return 0;
    }
    let clashing: Vec<usize> = {
        let mut seen: HashMap<&str, u32> = HashMap::with_capacity(docs.len());
        for d in docs.iter() {
            *seen.entry(d.id.as_str()).or_default() += 1;
        }
        docs.iter()
            .enumerate()
            .filter(|(_, d)| seen[d.id.as_str()] > 1 && matches!(d.source, Source::Part(_)))
            .map(|(i, _)| i)
            .collect()
    };
    for &i in &clashing {
        let d = &mut docs[i];
        if let Source::Part(p) = &d.source {
            d.id = format!("{}@{}", d.id, p.file.line_id(p.line));
        }
    }
    clashing.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;

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
        let idx = Index::build(c, &Params::default(), &Silent).unwrap();
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
                    idx.docs[p.a as usize].id.clone(),
                    idx.docs[p.b as usize].id.clone(),
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
        let idx = Index::build(c, &Params::default(), &Silent).unwrap();
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
        let idx = Index::build(Corpus::from_texts(texts), &Params::default(), &Silent).unwrap();
        assert_eq!(idx.stats.groups, 1);
        assert_eq!(idx.shingles.len(), 1);
        assert_eq!(idx.signatures.rows(), 1);
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
        let mut idx = Index::build(corpus(&texts), &small, &Silent).unwrap();
        idx.ensure_perms(128, &Silent).unwrap();
        let fresh = Index::build(corpus(&texts), &Params::default(), &Silent).unwrap();
        assert_eq!(idx.signatures.row(0), fresh.signatures.row(0));
        assert_eq!(idx.signatures.row(1), fresh.signatures.row(1));
    }

    #[test]
    fn with_width_is_a_fresh_build_at_that_width_whatever_came_before() {
        // OPH's bins depend on their number: a wider signature's first 128 values are
        // not the 128-bin signature. Going 128 → 136 → 128 must come back to it.
        let c = simtui_gen::generate(&simtui_gen::GenOptions {
            docs: 120,
            seed: 5,
            words: 60,
            ..Default::default()
        });
        let corpus = || Corpus::from_texts(c.docs.iter().map(|d| (d.id.clone(), d.text.clone())));
        for sketch in [SketchKind::Oph, SketchKind::MinHash] {
            let at = |n: usize| Params {
                sketch,
                num_perm: n,
                ..Params::default()
            };
            let start = Index::build(corpus(), &at(128), &Silent).unwrap();
            let wider = start.with_width(136, &Silent).unwrap();
            let back = wider.with_width(128, &Silent).unwrap();
            for (index, n) in [(&wider, 136), (&back, 128)] {
                let fresh = Index::build(corpus(), &at(n), &Silent).unwrap();
                assert_eq!(index.num_perm(), n);
                assert_eq!(index.params().num_perm, n);
                assert_eq!(
                    index.signatures.data(),
                    fresh.signatures.data(),
                    "{sketch:?} {n}"
                );
                assert!(
                    Arc::ptr_eq(&index.shingles, &start.shingles),
                    "shared, not copied"
                );
            }
            if sketch == SketchKind::Oph {
                // The trap: the first 128 bins of 136 are another sketch.
                let prefix: Vec<u32> = wider.signatures.row(0)[..128].to_vec();
                assert_ne!(prefix, start.signatures.row(0).to_vec());
            }
            let other = start.sketched(sketch, 9, 128, &Silent).unwrap();
            let fresh = Index::build(corpus(), &Params { seed: 9, ..at(128) }, &Silent).unwrap();
            assert_eq!(other.signatures.data(), fresh.signatures.data());
            assert_eq!(other.params().seed, 9);
        }
    }

    #[test]
    fn cancellation_stops_the_build() {
        let flag = crate::progress::CancelFlag::default();
        flag.cancel();
        assert!(Index::build(corpus(&[("a", BASE)]), &Params::default(), &flag).is_err());
    }
}
