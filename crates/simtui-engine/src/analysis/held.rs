//! The sets of some contents brought in once, when they fit the room the budget leaves a
//! search, for analyses that compare the same contents again and again (the huge buckets
//! of many copies of a page, one bucket per band): without it, each comparison makes a
//! set again from the corpus (one open, read and shingling per member per band). The
//! clusters those buckets form are then measured from the same sets (their least
//! similarity to the kept document, their mean similarity).

use crate::index::Index;
use crate::shingle::jaccard;
use crate::storage::Picked;
use rayon::prelude::*;

/// Sets at hand for [`Held::similarity`]; the others are looked up one by one.
pub(crate) struct Held<'a> {
    index: &'a Index,
    picked: Option<Picked<'a, u64>>,
}

impl<'a> Held<'a> {
    /// The sets of `groups` (ascending, distinct) brought in at once when they take no
    /// more than the search's room shared by the threads; none otherwise.
    pub(crate) fn bring(index: &'a Index, groups: Vec<u32>) -> Held<'a> {
        let sets = index.shingles();
        let room = sets.batch_bytes(index.work_room() / rayon::current_num_threads() as u64);
        let bytes: u64 = groups.iter().map(|&g| sets.load_bytes(g)).sum();
        let picked = (bytes <= room)
            .then(|| sets.pick(groups))
            .and_then(|p| p.map_err(|e| index.keep_failure(e)).ok());
        Held { index, picked }
    }

    /// The index whose sets these are.
    pub(crate) fn index(&self) -> &'a Index {
        self.index
    }

    /// Nothing held: every similarity looked up one by one.
    pub(crate) fn none(index: &'a Index) -> Held<'a> {
        Held {
            index,
            picked: None,
        }
    }

    /// The sets held, when they include those of every one of `groups`: a cluster whose
    /// contents all sat in the huge buckets is measured from them, without bringing any
    /// set in again.
    pub(crate) fn covering(&self, groups: &[u32]) -> Option<&Picked<'a, u64>> {
        let picked = self.picked.as_ref()?;
        groups
            .iter()
            .all(|&g| picked.try_get(g).is_some())
            .then_some(picked)
    }

    /// The least exact Jaccard of a content of `groups` to `kept` (1 for none).
    pub(crate) fn min_to(&self, kept: u32, groups: &[u32]) -> f64 {
        groups
            .par_iter()
            .map(|&g| self.similarity(kept, g))
            .reduce(|| 1.0, f64::min)
    }

    /// The exact Jaccard of contents `a` and `b`, as [`Index::group_similarity`] gives it.
    pub(crate) fn similarity(&self, a: u32, b: u32) -> f64 {
        if a != b
            && let Some(p) = &self.picked
            && let (Some(x), Some(y)) = (p.try_get(a), p.try_get(b))
        {
            return jaccard(x, y);
        }
        self.index.group_similarity(a, b).0
    }
}
