//! Re-banding one corpus again and again, as the explorer does when the user changes b or
//! r: each band's buckets and each verified pair are remembered, so a new setting
//! computes only the bands and the pairs it has not seen before.
//!
//! Banding 100,000 signatures from scratch and verifying every candidate takes longer
//! than a frame; one more band (b + 1) costs a sixteenth of that, and most candidates of
//! a nearby setting were verified already.
//!
//! What is remembered is tied to what it depends on, never to what was asked before: a
//! pair's exact J to the shingle sets; a band's buckets to the band's signature values,
//! which are the same in every MinHash signature of one seed that reaches them (function
//! i depends only on the seed and i) and belong to one width of OPH signatures (a
//! shingle's bin depends on the number of bins); estimates to the signatures in use, so
//! they are always computed from them.

use crate::error::Result;
use crate::index::Index;
use crate::progress::Progress;
use crate::search::buckets::{self, BandBuffers, BandOut};
use crate::search::{Bucket, Found, Search, banding, verify};
use crate::shingle::ShingleSets;
use crate::sketch::SketchKind;
use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Instant;

/// Bands' pairs kept at most (8 bytes each); past it the cache starts again.
const MAX_BAND_PAIRS: usize = 8 << 20;
/// Verified pairs kept at most (16 bytes each); past it only the latest are kept.
const MAX_VERIFIED: usize = 2 << 20;

/// The signatures a band cache is valid for: the sketch, the seed, and for OPH the
/// width (MinHash's functions do not depend on how many there are).
type Family = (SketchKind, u64, usize);

fn family(index: &Index) -> Family {
    let p = index.params();
    let width = match p.sketch {
        SketchKind::MinHash => 0,
        SketchKind::Oph => index.num_perm(),
    };
    (p.sketch, p.seed, width)
}

/// What earlier re-bands of one corpus computed. Tied to the shingle sets it was filled
/// from (and its bands to their signatures): used with others, it starts empty.
#[derive(Default)]
pub struct Rebander {
    /// The shingle sets the cache belongs to (a weak pointer, so the allocation cannot be
    /// reused by other sets while it is compared against). Indexes that share them (more
    /// hash functions, another sketch) share the cache of verified pairs.
    shingles: Weak<ShingleSets>,
    /// Non-empty groups, the items banded.
    items: Vec<u32>,
    /// The signatures the band cache was filled from.
    family: Option<Family>,
    /// (rows, band) → that band's pairs (packed and sorted) and huge buckets.
    bands: HashMap<(usize, usize), BandOut>,
    band_pairs: usize,
    /// Verified pairs of groups, packed and sorted, with their exact J.
    verified: Vec<(u64, f64)>,
    buffers: BandBuffers,
    /// Buckets of more contents than this are not expanded (see [`Index::search`]).
    max_bucket: Option<usize>,
}

impl Rebander {
    /// An empty cache, tied to no index yet.
    pub fn new() -> Rebander {
        Rebander::default()
    }

    /// A re-bander that leaves buckets of more than `max_bucket` contents out of the
    /// candidates (listed in [`Found::huge`]).
    pub fn with_max_bucket(max_bucket: Option<usize>) -> Rebander {
        Rebander {
            max_bucket,
            ..Rebander::default()
        }
    }

    /// Buckets of more contents than this are left out of the candidates.
    pub fn max_bucket(&self) -> Option<usize> {
        self.max_bucket
    }

    /// The same as [`Index::find`] (`bands` × `rows`, pairs with J ≥ `threshold`), reusing
    /// what earlier calls computed; with `max_block`, pairs past it kept as blocks, as
    /// [`Index::spell_blocked`] keeps them. Also returns the search by content the pairs
    /// were spelled from (for streaming them all, as [`DocPairs`](crate::search::spell::DocPairs) does).
    pub fn find(
        &mut self,
        index: &Arc<Index>,
        bands: usize,
        rows: usize,
        threshold: f64,
        max_block: Option<u64>,
        progress: &dyn Progress,
    ) -> Result<(Found, Search)> {
        let t = Instant::now();
        let search = if self.fits(index, bands) {
            self.search(index, (bands, rows), threshold, progress)?
        } else {
            // Past what the budget leaves the searches nothing is remembered: a search
            // from scratch keeps to it (band keys and pairs through temporary files).
            *self = Rebander::with_max_bucket(self.max_bucket);
            index.search(bands, rows, threshold, self.max_bucket, progress)?
        };
        Ok((spelled(index, search.clone(), max_block, t)?, search))
    }

    /// Whether what it remembers and the work of computing `bands` bands at once (8
    /// bytes a content and band for the keys, as much again to sort and group them) fit
    /// in what the budget leaves the index's searches; always without a limit.
    fn fits(&self, index: &Index, bands: usize) -> bool {
        if !index.budget.is_limited() {
            return true;
        }
        let keys = (index.signatures.len() * bands) as u64 * 16;
        let kept = self.band_pairs as u64 * 8 + self.verified.len() as u64 * 16;
        keys + kept <= index.work_room()
    }

    /// The same as [`Index::search`] (`bands` × `rows`, pairs of contents with J ≥
    /// `threshold`, buckets over the re-bander's `max_bucket` left out), reusing what
    /// earlier calls computed.
    fn search(
        &mut self,
        index: &Arc<Index>,
        (bands, rows): (usize, usize),
        threshold: f64,
        progress: &dyn Progress,
    ) -> Result<Search> {
        assert!(bands >= 1 && rows >= 1, "bands and rows must be at least 1");
        self.attach(index);
        let t = Instant::now();
        let missing: Vec<usize> = (0..bands)
            .filter(|&band| !self.bands.contains_key(&(rows, band)))
            .collect();
        let computed = banding::band_pairs(
            &index.signatures,
            &self.items,
            rows,
            &missing,
            self.max_bucket,
            &mut self.buffers,
            (0, missing.len() as u64),
            progress,
        )?;
        self.remember_bands(rows, &missing, computed);
        let outs: Vec<&BandOut> = (0..bands).map(|b| &self.bands[&(rows, b)]).collect();
        let lists: Vec<&[u64]> = outs.iter().map(|o| o.pairs.as_slice()).collect();
        let huge: Vec<Bucket> = outs.iter().flat_map(|o| o.huge.iter().cloned()).collect();
        let packed = buckets::union(&lists)?;
        let band_time = t.elapsed();

        let t = Instant::now();
        let jaccards = self.jaccards(index, &packed, progress)?;
        let group_pairs = buckets::unpack(&packed);
        let kept: Vec<((u32, u32), f64)> = group_pairs
            .iter()
            .zip(&jaccards)
            .filter(|&(_, &j)| j >= threshold)
            .map(|(&p, &j)| (p, j))
            .collect();
        let kept = verify::with_estimates(&index.lookup(), kept)?;
        let groups = index.groups();
        let across: u64 = group_pairs.iter().map(|&(a, b)| groups.across(a, b)).sum();
        Ok(Search {
            group_pairs: kept,
            threshold,
            candidates: across + groups.within(),
            group_candidates: group_pairs.len(),
            huge,
            banding: Some((bands, rows)),
            band_time,
            verify_time: t.elapsed(),
        })
    }

    /// Starts afresh when `index` has other shingle sets than the cache was filled
    /// from; forgets the bands when its signatures are of another family.
    fn attach(&mut self, index: &Arc<Index>) {
        if !Weak::ptr_eq(&self.shingles, &Arc::downgrade(&index.shingles)) {
            *self = Rebander {
                shingles: Arc::downgrade(&index.shingles),
                items: index.groups().nonempty(),
                buffers: std::mem::take(&mut self.buffers),
                max_bucket: self.max_bucket,
                ..Rebander::default()
            };
        }
        let family = family(index);
        if self.family != Some(family) {
            self.family = Some(family);
            self.bands.clear();
            self.band_pairs = 0;
        }
    }

    fn remember_bands(&mut self, rows: usize, which: &[usize], computed: Vec<BandOut>) {
        let added: usize = computed.iter().map(|o| o.pairs.len()).sum();
        if self.band_pairs + added > MAX_BAND_PAIRS {
            self.bands.clear();
            self.band_pairs = 0;
        }
        self.band_pairs += added;
        for (&band, pairs) in which.iter().zip(computed) {
            self.bands.insert((rows, band), pairs);
        }
    }

    /// The exact J of each packed pair (sorted), computing only those not verified
    /// before.
    fn jaccards(
        &mut self,
        index: &Index,
        packed: &[u64],
        progress: &dyn Progress,
    ) -> Result<Vec<f64>> {
        // Both lists are sorted: one merge finds the pairs already verified.
        let mut known: Vec<Option<f64>> = Vec::with_capacity(packed.len());
        let mut new = Vec::new();
        let mut k = 0;
        for &p in packed {
            while k < self.verified.len() && self.verified[k].0 < p {
                k += 1;
            }
            match self.verified.get(k) {
                Some(&(q, j)) if q == p => known.push(Some(j)),
                _ => {
                    known.push(None);
                    new.push(p);
                }
            }
        }
        let budget = index.work_room() / 2;
        let computed = verify::jaccards(&index.shingles, &buckets::unpack(&new), budget, progress)?;
        let mut computed_iter = computed.iter();
        let all: Vec<f64> = known
            .into_iter()
            .map(|v| v.unwrap_or_else(|| *computed_iter.next().expect("one per new pair")))
            .collect();
        self.remember_verified(&new, &computed, packed, &all);
        Ok(all)
    }

    fn remember_verified(&mut self, new: &[u64], computed: &[f64], packed: &[u64], all: &[f64]) {
        if new.is_empty() {
            return;
        }
        if self.verified.len() + new.len() > MAX_VERIFIED {
            // Keep the latest setting's pairs: the next one is most likely near it.
            self.verified = packed
                .iter()
                .zip(all)
                .take(MAX_VERIFIED)
                .map(|(&p, &j)| (p, j))
                .collect();
            return;
        }
        let added = new.iter().zip(computed).map(|(&p, &j)| (p, j));
        let mut merged = Vec::with_capacity(self.verified.len() + new.len());
        let mut old = self.verified.iter().copied().peekable();
        for item in added {
            while let Some(o) = old.next_if(|o| o.0 < item.0) {
                merged.push(o);
            }
            merged.push(item);
        }
        merged.extend(old);
        self.verified = merged;
    }
}

/// The pairs `search` holds spelled out (pairs past `max_block` kept as blocks), timed
/// from `start`: the verification is the time since, less the banding's.
fn spelled(index: &Index, search: Search, max_block: Option<u64>, start: Instant) -> Result<Found> {
    let mut found = match max_block {
        Some(max) => index.spell_blocked(search, max)?,
        None => index.spell(search)?,
    };
    found.verify_time = start.elapsed() - found.band_time;
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Params;
    use crate::progress::Silent;
    use simtui_gen::{GenOptions, generate};

    fn index(docs: usize) -> Arc<Index> {
        let corpus = generate(&GenOptions::sized(docs, 3, 60)).docs;
        let corpus = crate::source::Corpus::from_texts(corpus.into_iter().map(|d| (d.id, d.text)));
        Arc::new(
            Index::builder(&Params::default())
                .build(corpus, &Silent)
                .unwrap(),
        )
    }

    fn same(a: &Found, b: &Found) {
        assert_eq!(a.candidates, b.candidates);
        assert_eq!(a.group_candidates, b.group_candidates);
        assert_eq!(a.pairs.len(), b.pairs.len());
        for (x, y) in a.pairs.iter().zip(&b.pairs) {
            assert_eq!((x.a, x.b), (y.a, y.b));
            assert_eq!(x.jaccard.to_bits(), y.jaccard.to_bits());
            assert_eq!(x.estimate.to_bits(), y.estimate.to_bits());
        }
    }

    #[test]
    fn every_setting_gives_what_a_fresh_find_gives() {
        let index = index(1500);
        let mut rebander = Rebander::new();
        // Up and down in b and r, back to settings seen, and a threshold.
        for (b, r, t) in [
            (16, 8, 0.0),
            (17, 7, 0.0),
            (16, 7, 0.0),
            (32, 4, 0.0),
            (16, 8, 0.0),
            (16, 8, 0.5),
            (4, 2, 0.3),
        ] {
            let fresh = index.find(b, r, t, &Silent).unwrap();
            let cached = rebander.find(&index, b, r, t, None, &Silent).unwrap().0;
            assert!(!fresh.pairs.is_empty(), "{b}x{r}");
            same(&fresh, &cached);
        }
    }

    /// Within a budget its bands' keys do not fit in, it remembers nothing (the
    /// explorer held 136 MB over `--memory 64M` at 500,000 files) and finds what a search
    /// from scratch finds, which keeps to the budget; without a limit it remembers.
    #[test]
    fn past_the_budget_nothing_is_remembered_and_the_pairs_are_the_same() {
        let corpus = generate(&GenOptions::sized(1500, 3, 60)).docs;
        let corpus = crate::source::Corpus::from_texts(corpus.into_iter().map(|d| (d.id, d.text)));
        let budget = crate::storage::Budget::new(64 << 10, None);
        let tight = Index::builder(&Params::default()).budget(&budget);
        let tight = Arc::new(tight.build(corpus, &Silent).unwrap());
        let mut rebander = Rebander::new();
        for (b, r) in [(16, 8), (17, 7), (16, 8)] {
            let fresh = tight.find(b, r, 0.0, &Silent).unwrap();
            let found = rebander.find(&tight, b, r, 0.0, None, &Silent).unwrap().0;
            same(&fresh, &found);
            assert!(rebander.bands.is_empty() && rebander.verified.is_empty());
        }
        let free = index(1500);
        rebander.find(&free, 16, 8, 0.0, None, &Silent).unwrap();
        assert_eq!(rebander.bands.len(), 16);
    }

    #[test]
    fn indexes_of_one_corpus_share_the_cache_and_still_give_a_fresh_find() {
        // The explorer's round trip 16x8 → 17x8 → 16x8, and a switch of sketch: each
        // setting on signatures of exactly b·r, as `pairs -b B -r R` computes them.
        let base = index(1000);
        for sketch in [SketchKind::Oph, SketchKind::MinHash] {
            let mut rebander = Rebander::new();
            for (b, r) in [(16, 8), (17, 8), (16, 8), (16, 7), (33, 4), (16, 8)] {
                let at = Arc::new(base.sketched(sketch, 1, b * r, &Silent).unwrap());
                let fresh = at.find(b, r, 0.0, &Silent).unwrap();
                let cached = rebander.find(&at, b, r, 0.0, None, &Silent).unwrap().0;
                same(&fresh, &cached);
                // MinHash bands of one seed stay valid whatever the width; OPH's go
                // with their width.
                assert_eq!(rebander.family, Some(family(&at)));
            }
        }
        // A MinHash signature twice as wide finds the same bands: none is banded again.
        let mut rebander = Rebander::new();
        let narrow = Arc::new(base.sketched(SketchKind::MinHash, 1, 128, &Silent).unwrap());
        rebander.find(&narrow, 16, 8, 0.0, None, &Silent).unwrap();
        let wide = Arc::new(narrow.with_width(256, &Silent).unwrap());
        let bands = rebander.bands.len();
        rebander.find(&wide, 16, 8, 0.0, None, &Silent).unwrap();
        assert_eq!(rebander.bands.len(), bands);
    }

    #[test]
    fn another_index_starts_afresh() {
        let (small, large) = (index(200), index(600));
        let mut rebander = Rebander::new();
        rebander.find(&small, 16, 8, 0.0, None, &Silent).unwrap();
        let cached = rebander.find(&large, 16, 8, 0.0, None, &Silent).unwrap().0;
        same(&large.find(16, 8, 0.0, &Silent).unwrap(), &cached);
    }

    #[test]
    fn known_pairs_are_not_verified_again() {
        let index = index(800);
        let mut rebander = Rebander::new();
        rebander.find(&index, 16, 8, 0.0, None, &Silent).unwrap();
        let verified = rebander.verified.len();
        assert!(verified > 0);
        // A subset of the bands: nothing new to verify, nothing new to band.
        rebander.find(&index, 15, 8, 0.0, None, &Silent).unwrap();
        assert_eq!(rebander.verified.len(), verified);
        assert_eq!(rebander.bands.len(), 16);
    }
}
