//! Documents' ids: made unique where records named themselves (`unique_ids`), ranked
//! in sorted order (the order pairs come in, [`Index::id_order`]), and how many records
//! had no id of their own ([`Index::unnamed_records`]).

use super::{Doc, Index};
use crate::source::Source;
use rayon::prelude::*;
use std::collections::HashMap;

impl Index {
    /// Each document's rank among the ids in sorted order: the order pairs come in.
    /// Computed once, when first asked for.
    pub fn id_order(&self) -> &[u32] {
        self.id_order.get_or_init(|| {
            let docs = &self.docs;
            let mut by_id: Vec<u32> = (0..docs.len() as u32).collect();
            by_id.par_sort_unstable_by(|&x, &y| docs[x as usize].id.cmp(&docs[y as usize].id));
            let mut rank = vec![0u32; by_id.len()];
            for (r, &d) in by_id.iter().enumerate() {
                rank[d as usize] = r as u32;
            }
            rank
        })
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
}

/// What a record's id becomes when another document has it too: `ID@FILE:LINE`. None
/// for a document that is no record (a file's path is unique).
pub fn unique_name(doc: &Doc) -> Option<String> {
    match &doc.source {
        Source::Part(p) => Some(format!("{}@{}", doc.id, p.file.line_id(p.line))),
        _ => None,
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
        if let Some(id) = unique_name(&docs[i]) {
            docs[i].id = id;
        }
    }
    clashing.len()
}
