//! What an index answers: the pairs it finds, by MinHash banding ([`Index::search`]) or
//! SimHash tables ([`Index::search_fingerprints`]), verified and kept by content, then
//! spelled out as document pairs ([`Index::spell`], [`Index::doc_pairs`]). Each step is
//! the search stage's one way of doing it ([`crate::search`]), given the index's sets,
//! signatures and documents and the memory its budget leaves.

use super::Index;
use crate::error::Result;
use crate::progress::{Progress, Stage};
use crate::search::blocks::BlockTables;
use crate::search::{DocPairs, Found, GroupPair, Search, banding, spell, verify};
use crate::sketch::simhash::fingerprints::Fingerprints;
use std::time::{Duration, Instant};

impl Index {
    /// Bands the signatures (`bands` × `rows`, which must fit the functions computed),
    /// verifies every candidate, and keeps the pairs with exact J ≥ `threshold`, spelled
    /// out as document pairs ([`Index::search`] then [`Index::spell`]).
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
    /// [`Search::huge`], with every bucket of
    /// [`HUGE_BUCKET`](crate::search::buckets::HUGE_BUCKET) contents or more). Within the
    /// budget's memory: what does not fit goes through temporary files, with the same
    /// result.
    pub fn search(
        &self,
        bands: usize,
        rows: usize,
        threshold: f64,
        max_bucket: Option<usize>,
        progress: &dyn Progress,
    ) -> Result<Search> {
        let t = Instant::now();
        self.give_back_freed();
        let items = self.groups.nonempty();
        let room = self.work_room();
        let (mut stream, huge) = banding::candidate_stream(
            &self.signatures,
            &items,
            (bands, rows),
            max_bucket,
            &self.budget.room(room),
            progress,
        )?;
        let band_time = t.elapsed();
        let t = Instant::now();
        self.give_back_freed();
        let total = stream.pushed;
        let next = || stream.next_pair();
        let verified = verify::stream(&self.lookup(), next, threshold, room / 2, total, progress)?;
        Ok(Search {
            group_pairs: verified.kept,
            threshold,
            candidates: verified.across + self.groups.within(),
            group_candidates: verified.candidates,
            huge,
            banding: Some((bands, rows)),
            band_time,
            verify_time: t.elapsed(),
        })
    }

    /// Every pair of contents whose fingerprints are within `max_distance` bits (found
    /// with permuted block tables, not by comparing all pairs), verified with exact
    /// Jaccard and kept when J ≥ `threshold`, as [`Index::search`] keeps them; the time
    /// in the tables is its `band_time`.
    ///
    /// # Panics
    /// If `fps` has not one fingerprint per group, or `max_distance` is not below half
    /// the fingerprints' bits.
    pub fn search_fingerprints(
        &self,
        fps: &Fingerprints,
        max_distance: u32,
        threshold: f64,
        progress: &dyn Progress,
    ) -> Result<Search> {
        assert_eq!(fps.len(), self.groups.len(), "one fingerprint per group");
        let t = Instant::now();
        let items = self.groups.nonempty();
        let tables = BlockTables::new(fps.bits(), max_distance, items.len());
        let group_pairs = tables.pairs(fps.as_slice(), &items, progress)?;
        let band_time = t.elapsed();
        progress.update(Stage::Band, 1, 1);
        let mut search = self.verify_groups(&group_pairs, threshold, progress)?;
        search.band_time = band_time;
        Ok(search)
    }

    /// Verifies candidate pairs of groups (distinct, non-empty contents, as any candidate
    /// generator gives them) with exact Jaccard and keeps those with J ≥ `threshold`, by
    /// content. `band_time` is left at zero for the caller.
    pub fn verify_groups(
        &self,
        group_pairs: &[(u32, u32)],
        threshold: f64,
        progress: &dyn Progress,
    ) -> Result<Search> {
        let t = Instant::now();
        let mut pairs = group_pairs.iter().copied();
        let next = || Ok(pairs.next());
        let (budget, total) = (self.work_room() / 2, group_pairs.len() as u64);
        let verified = verify::stream(&self.lookup(), next, threshold, budget, total, progress)?;
        Ok(Search {
            group_pairs: verified.kept,
            threshold,
            candidates: verified.across + self.groups.within(),
            group_candidates: verified.candidates,
            huge: Vec::new(),
            banding: None,
            band_time: Duration::ZERO,
            verify_time: t.elapsed(),
        })
    }

    /// Verifies the candidates the huge buckets of a search stand for (the pairs each
    /// owns, see [`HugeOwners`](crate::search::buckets::HugeOwners)) and hands the pairs
    /// with J ≥ the search's threshold to `sink`, with the number of candidate document
    /// pairs verified. Nothing is held beyond a batch.
    pub fn verify_huge(
        &self,
        search: &Search,
        progress: &dyn Progress,
        mut sink: impl FnMut(Vec<GroupPair>, u64) -> Result<()>,
    ) -> Result<()> {
        let sizes = (self.work_room() / 2, verify::MAX_PAIRS);
        verify::huge(
            &self.lookup(),
            search,
            sizes,
            progress,
            |kept, candidates| sink(kept, candidates).map(std::ops::ControlFlow::Continue),
        )
        .map(|_| ())
    }

    /// The document pairs of a search, in memory: every pair of identical documents and
    /// of each kept pair of contents (those of huge buckets too), sorted by J descending
    /// then ids. [`Error::TooLarge`](crate::Error::TooLarge) when they would not fit in
    /// memory: [`Index::doc_pairs`] streams them instead.
    pub fn spell(&self, search: Search) -> Result<Found> {
        let budget = self.work_room() / 2;
        spell::spell(&self.lookup(), self.id_order(), search, None, budget)
    }

    /// [`Index::spell`], except that a content of identical documents, or a pair of
    /// contents, standing for more than `max_block` document pairs is kept whole as one
    /// [`Block`](crate::search::Block) (in [`Found::blocks`]) instead of spelled out: what
    /// a reader pages through, in memory bounded by the pairs of contents however many
    /// copies there are (20,000 copies of a page are one block, not 200 million pairs).
    pub fn spell_blocked(&self, search: Search, max_block: u64) -> Result<Found> {
        let budget = self.work_room() / 2;
        spell::spell(
            &self.lookup(),
            self.id_order(),
            search,
            Some(max_block),
            budget,
        )
    }

    /// The document pairs of a search, streamed in order in bounded memory: sorted in
    /// `sort_bytes` of memory (temporary files past it, where the budget puts them); the
    /// candidates of huge buckets verified as they are taken.
    pub fn doc_pairs(
        &self,
        search: &Search,
        sort_bytes: u64,
        progress: &dyn Progress,
    ) -> Result<DocPairs<'_>> {
        self.doc_pairs_ranked(search, sort_bytes, progress, self.id_order())
    }

    /// As [`Index::doc_pairs`], with the ids in another order: `rank` gives each
    /// document's place in it (a permutation of the documents), such as the natural
    /// order of [`natural_cmp`](crate::natural::natural_cmp) for people. Within each
    /// pair, `a` is the one that comes first; ties on J come in that order.
    pub fn doc_pairs_ranked<'a>(
        &'a self,
        search: &Search,
        sort_bytes: u64,
        progress: &dyn Progress,
        rank: &'a [u32],
    ) -> Result<DocPairs<'a>> {
        self.doc_pairs_until(search, sort_bytes, progress, rank, None)
    }

    /// As [`Index::doc_pairs_ranked`], for a reader that takes at most `wanted` pairs:
    /// the huge buckets' candidates are verified, in their fixed order (bucket by bucket,
    /// row by row), only until the pairs found in all (identical documents, kept pairs of
    /// contents, then the huge buckets' pairs in that order) number `wanted`; the pairs
    /// past that point are never looked at ([`DocPairs::stopped_early`] says so). The
    /// stream is then the pairs found, in the usual order: its first `wanted` are the
    /// first `wanted` of [`Index::doc_pairs_ranked`] when no bucket is huge, and depend
    /// only on the settings (never on the memory, the threads or the time) in any case.
    pub fn doc_pairs_until<'a>(
        &'a self,
        search: &Search,
        sort_bytes: u64,
        progress: &dyn Progress,
        rank: &'a [u32],
        wanted: Option<u64>,
    ) -> Result<DocPairs<'a>> {
        assert_eq!(rank.len(), self.docs.len(), "a rank per document");
        let (room, budget) = (self.budget.room(sort_bytes), self.work_room() / 2);
        let look = self.lookup();
        DocPairs::new(&look, rank, search, &room, budget, progress, wanted)
    }

    /// The pairs of distinct contents among what `found` holds, with their J: its
    /// document pairs mapped to their contents (each pair of contents as often as it
    /// has document pairs spelled out), and its blocks across two contents.
    pub fn content_pairs<'a>(
        &'a self,
        found: &'a Found,
    ) -> impl Iterator<Item = (u32, u32, f64)> + 'a {
        let spelled = found.pairs.iter().filter_map(|p| {
            let (ga, gb) = (self.docs.group(p.a as usize), self.docs.group(p.b as usize));
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
            .map(|p| self.groups.across(p.ga, p.gb))
            .sum();
        across + self.groups.within()
    }

    /// The band keys of group `g`'s signature for `bands` × `rows`: what banding
    /// buckets it by, the same on every machine for the same text and parameters, so
    /// another engine (Spark) can group documents by them and find the pairs simtui
    /// finds. Keys of equal band values are equal in every index. An error when the
    /// signature cannot be read back.
    ///
    /// # Panics
    /// If `bands × rows` is over the number of hash functions computed, or `g` is not a
    /// group of this index.
    pub fn band_keys(&self, g: u32, bands: usize, rows: usize) -> Result<Vec<u64>> {
        let row = self.signatures.row(g as usize)?;
        assert!(
            bands * rows <= row.len(),
            "{bands} × {rows} over {} functions",
            row.len()
        );
        Ok((0..bands)
            .map(|b| banding::band_key(&row[b * rows..(b + 1) * rows], b))
            .collect())
    }

    /// Group `g`'s key in band `band` of `rows` rows, as [`Index::band_keys`] gives it.
    ///
    /// # Panics
    /// If the band ends past the functions computed, or `g` is not a group of this index.
    pub fn band_key(&self, g: u32, band: usize, rows: usize) -> Result<u64> {
        let row = self.signatures.row(g as usize)?;
        Ok(banding::band_key(
            &row[band * rows..(band + 1) * rows],
            band,
        ))
    }
}
