//! The sets of some contents brought in once, when they fit the room the budget leaves a
//! search, for analyses that compare the same contents again and again (the huge buckets
//! of many copies of a page, one bucket per band): without it, each comparison makes a
//! set again from the corpus (one open, read and shingling per member per band).

use crate::index::Index;
use crate::shingle::jaccard;
use crate::storage::Picked;

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
