//! Re-banding one index again and again, as the explorer does when the user changes b or
//! r: each band's buckets and each verified pair are remembered, so a new setting
//! computes only the bands and the pairs it has not seen before.
//!
//! Banding 100,000 signatures from scratch and verifying every candidate takes longer
//! than a frame; one more band (b + 1) costs a sixteenth of that, and most candidates of
//! a nearby setting were verified already.

use crate::error::Result;
use crate::found::{Found, GroupPair, Search};
use crate::index::Index;
use crate::minhash::band;
use crate::progress::Progress;
use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// Bands' pairs kept at most (8 bytes each); past it the cache starts again.
const MAX_BAND_PAIRS: usize = 8 << 20;
/// Verified pairs kept at most (24 bytes each); past it only the latest are kept.
const MAX_VERIFIED: usize = 2 << 20;

/// What earlier re-bands of one index computed. Tied to the index it was filled from: used
/// with another, it starts empty.
#[derive(Default)]
pub struct Rebander {
    /// The index the cache belongs to (a weak pointer, so the allocation cannot be reused
    /// by another index while it is compared against).
    index: Weak<Index>,
    /// Non-empty groups, the items banded.
    items: Vec<u32>,
    /// Each document's rank by id, for sorting the pairs.
    id_order: Vec<u32>,
    /// (rows, band) → that band's pairs (packed and sorted) and huge buckets.
    bands: HashMap<(usize, usize), band::BandOut>,
    band_pairs: usize,
    /// Verified pairs of groups, packed and sorted, with (J, estimate).
    verified: Vec<(u64, f64, f64)>,
    buffers: band::BandBuffers,
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

    /// The same as [`Index::find`] (`bands` × `rows`, pairs with J ≥ `threshold`), reusing
    /// what earlier calls on this index computed.
    pub fn find(
        &mut self,
        index: &Arc<Index>,
        bands: usize,
        rows: usize,
        threshold: f64,
        progress: &dyn Progress,
    ) -> Result<Found> {
        assert!(bands >= 1 && rows >= 1, "bands and rows must be at least 1");
        self.attach(index);
        let t = Instant::now();
        let missing: Vec<usize> = (0..bands)
            .filter(|&band| !self.bands.contains_key(&(rows, band)))
            .collect();
        let computed = band::band_pairs(
            &index.signatures,
            &self.items,
            rows,
            &missing,
            self.max_bucket,
            &mut self.buffers,
            progress,
        )?;
        self.remember_bands(rows, &missing, computed);
        let outs: Vec<&band::BandOut> = (0..bands).map(|b| &self.bands[&(rows, b)]).collect();
        let lists: Vec<&[u64]> = outs.iter().map(|o| o.pairs.as_slice()).collect();
        let huge: Vec<band::Bucket> = outs.iter().flat_map(|o| o.huge.iter().cloned()).collect();
        let packed = band::union(&lists)?;
        let band_time = t.elapsed();

        let t = Instant::now();
        let similarities = self.similarities(index, &packed, progress)?;
        let group_pairs = band::unpack(&packed);
        let kept = group_pairs
            .iter()
            .zip(&similarities)
            .filter(|(_, s)| s.0 >= threshold)
            .map(|(&(ga, gb), &(jaccard, estimate))| GroupPair {
                ga,
                gb,
                jaccard,
                estimate,
            })
            .collect();
        let search = Search {
            group_pairs: kept,
            threshold,
            candidates: index.candidate_count(&group_pairs),
            group_candidates: group_pairs.len(),
            huge,
            banding: Some((bands, rows)),
            band_time,
            verify_time: Duration::ZERO,
        };
        let mut found = index.spell_ranked(search, Some(&self.id_order))?;
        found.verify_time = t.elapsed();
        Ok(found)
    }

    /// Starts afresh when `index` is not the one the cache was filled from.
    fn attach(&mut self, index: &Arc<Index>) {
        if Weak::ptr_eq(&self.index, &Arc::downgrade(index)) {
            return;
        }
        *self = Rebander {
            index: Arc::downgrade(index),
            items: index.nonempty_groups(),
            id_order: index.id_order(),
            buffers: std::mem::take(&mut self.buffers),
            ..Rebander::default()
        };
    }

    fn remember_bands(&mut self, rows: usize, which: &[usize], computed: Vec<band::BandOut>) {
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

    /// (J, estimate) of each packed pair (sorted), computing only those not verified
    /// before.
    fn similarities(
        &mut self,
        index: &Index,
        packed: &[u64],
        progress: &dyn Progress,
    ) -> Result<Vec<(f64, f64)>> {
        // Both lists are sorted: one merge finds the pairs already verified.
        let mut known: Vec<Option<(f64, f64)>> = Vec::with_capacity(packed.len());
        let mut new = Vec::new();
        let mut k = 0;
        for &p in packed {
            while k < self.verified.len() && self.verified[k].0 < p {
                k += 1;
            }
            match self.verified.get(k) {
                Some(&(q, j, e)) if q == p => known.push(Some((j, e))),
                _ => {
                    known.push(None);
                    new.push(p);
                }
            }
        }
        let computed = index.similarities(&band::unpack(&new), progress)?;
        let mut computed_iter = computed.iter();
        let all: Vec<(f64, f64)> = known
            .into_iter()
            .map(|v| v.unwrap_or_else(|| *computed_iter.next().expect("one per new pair")))
            .collect();
        self.remember_verified(&new, &computed, packed, &all);
        Ok(all)
    }

    fn remember_verified(
        &mut self,
        new: &[u64],
        computed: &[(f64, f64)],
        packed: &[u64],
        all: &[(f64, f64)],
    ) {
        if new.is_empty() {
            return;
        }
        if self.verified.len() + new.len() > MAX_VERIFIED {
            // Keep the latest setting's pairs: the next one is most likely near it.
            self.verified = packed
                .iter()
                .zip(all)
                .take(MAX_VERIFIED)
                .map(|(&p, &(j, e))| (p, j, e))
                .collect();
            return;
        }
        let added = new.iter().zip(computed).map(|(&p, &(j, e))| (p, j, e));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Params;
    use crate::progress::Silent;
    use simtui_gen::{GenOptions, generate};

    fn index(docs: usize) -> Arc<Index> {
        let corpus = generate(&GenOptions {
            docs,
            seed: 3,
            words: 60,
            ..Default::default()
        })
        .docs;
        let corpus = crate::source::Corpus::from_texts(corpus.into_iter().map(|d| (d.id, d.text)));
        Arc::new(Index::build(corpus, &Params::default(), &Silent).unwrap())
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
            let cached = rebander.find(&index, b, r, t, &Silent).unwrap();
            assert!(!fresh.pairs.is_empty(), "{b}x{r}");
            same(&fresh, &cached);
        }
    }

    #[test]
    fn another_index_starts_afresh() {
        let (small, large) = (index(200), index(600));
        let mut rebander = Rebander::new();
        rebander.find(&small, 16, 8, 0.0, &Silent).unwrap();
        let cached = rebander.find(&large, 16, 8, 0.0, &Silent).unwrap();
        same(&large.find(16, 8, 0.0, &Silent).unwrap(), &cached);
    }

    #[test]
    fn known_pairs_are_not_verified_again() {
        let index = index(800);
        let mut rebander = Rebander::new();
        rebander.find(&index, 16, 8, 0.0, &Silent).unwrap();
        let verified = rebander.verified.len();
        assert!(verified > 0);
        // A subset of the bands: nothing new to verify, nothing new to band.
        rebander.find(&index, 15, 8, 0.0, &Silent).unwrap();
        assert_eq!(rebander.verified.len(), verified);
        assert_eq!(rebander.bands.len(), 16);
    }
}
