//! Pairs of ids read from a file (a pairs file computed elsewhere) found in the index on
//! screen. (The review finds its removals' documents by id, row or task:
//! `input::removal_map`.)

use crate::tui::session::Session;
use simtui_engine::index::Index;
use std::collections::HashMap;
use std::sync::Arc;

/// A pair's two documents in an index (None: an id the corpus lacks).
type Docs = Option<(u32, u32)>;

/// Each pair's documents in the index they were found in.
#[derive(Default)]
pub struct IdPairs {
    found: Option<(Arc<Index>, Vec<Docs>)>,
}

impl IdPairs {
    /// Finds `pairs`' ids in the index on screen, once per index (a new index, by a new
    /// k or a re-read, numbers its documents anew).
    pub fn resolve<'a>(
        &mut self,
        session: &Session,
        pairs: impl Iterator<Item = (&'a str, &'a str)>,
    ) {
        let Some(r) = session.results() else {
            return;
        };
        if self
            .found
            .as_ref()
            .is_some_and(|(index, _)| Arc::ptr_eq(index, &r.index))
        {
            return;
        }
        let by_id: HashMap<String, u32> = r
            .index
            .docs()
            .iter()
            .enumerate()
            .map(|(i, d)| (d.into_owned().id, i as u32))
            .collect();
        let found = pairs
            .map(|(a, b)| Some((*by_id.get(a)?, *by_id.get(b)?)))
            .collect();
        self.found = Some((r.index.clone(), found));
    }

    /// Pair `i`'s documents, if the corpus has both.
    pub fn get(&self, i: usize) -> Option<(&Arc<Index>, u32, u32)> {
        let (index, found) = self.found.as_ref()?;
        let (a, b) = (*found.get(i)?)?;
        Some((index, a, b))
    }

    /// How many pairs name an id the corpus lacks (0 until found).
    pub fn missing(&self) -> usize {
        self.found
            .as_ref()
            .map_or(0, |(_, f)| f.iter().filter(|x| x.is_none()).count())
    }
}
