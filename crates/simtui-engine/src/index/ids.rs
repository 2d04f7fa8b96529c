//! Documents' ids: made unique where records named themselves (`unique_ids`), ranked
//! in sorted order (the order pairs come in, [`Index::id_order`]), and how many records
//! had no id of their own ([`Index::unnamed_records`]).

use super::{Doc, Docs, Index};
use crate::hash::{sort_by_hash, token_hash};
use crate::source::Source;
use rayon::prelude::*;

impl Index {
    /// Each document's rank among the ids in sorted order: the order pairs come in.
    /// Computed once, when first asked for.
    pub fn id_order(&self) -> &[u32] {
        self.id_order.get_or_init(|| {
            let docs = &self.docs;
            let mut by_id: Vec<u32> = (0..docs.len() as u32).collect();
            // Ties (ids given twice to texts in memory) in corpus order.
            by_id.par_sort_unstable_by(|&x, &y| {
                (docs.id(x as usize).cmp(&docs.id(y as usize))).then(x.cmp(&y))
            });
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
        for d in self.docs.iter() {
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
/// `records` says whether any document is a record (else none can clash).
pub(crate) fn unique_ids(docs: &mut Docs, records: bool) -> usize {
    if !records {
        return 0;
    }
    // Only the clashing documents are read whole (on a temporary file, one read each).
    let renames: Vec<(usize, String)> = shared_ids(docs.len(), |d| docs.id_ref(d))
        .into_iter()
        .filter_map(|d| unique_name(&docs.at(d)).map(|id| (d, id)))
        .collect();
    docs.rename(&renames);
    renames.len()
}

/// Of `n` ids (`id(d)` for `d` in `0..n`), those another has too, in order. The ids are
/// hashed in parallel and sorted by their hash, so that equal ones are neighbours (ids
/// that share a hash are told apart by comparing them): a map of a million ids spent
/// about a second on SipHash and reads all over memory, on one thread.
fn shared_ids<'a>(n: usize, id: impl Fn(usize) -> &'a str + Sync) -> Vec<usize> {
    let mut keyed: Vec<(u64, u32)> = (0..n)
        .into_par_iter()
        .map(|d| (token_hash(id(d).as_bytes()), d as u32))
        .collect();
    sort_by_hash(&mut keyed, |k| k.0);
    let mut shared = Vec::new();
    for run in keyed.chunk_by(|a, b| a.0 == b.0).filter(|r| r.len() > 1) {
        let mut run: Vec<u32> = run.iter().map(|k| k.1).collect();
        run.sort_by(|&a, &b| id(a as usize).cmp(id(b as usize)));
        for same in run.chunk_by(|&a, &b| id(a as usize) == id(b as usize)) {
            if same.len() > 1 {
                shared.extend(same.iter().map(|&d| d as usize));
            }
        }
    }
    shared.sort_unstable();
    shared
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// What a map of the ids finds.
    fn counted(ids: &[String]) -> Vec<usize> {
        let mut seen: HashMap<&str, u32> = HashMap::new();
        for id in ids {
            *seen.entry(id.as_str()).or_default() += 1;
        }
        (0..ids.len())
            .filter(|&d| seen[ids[d].as_str()] > 1)
            .collect()
    }

    proptest! {
        /// Ids from a small alphabet (many repeats) and of any length, some equal only
        /// in their first 8 bytes (one word of the hash).
        #[test]
        fn shared_ids_are_those_a_map_counts(ids in prop::collection::vec("[ab]{0,3}|x{8}[yz]{0,2}|[a-z0-9@:é]{0,20}", 0..300)) {
            prop_assert_eq!(shared_ids(ids.len(), |d| ids[d].as_str()), counted(&ids));
        }
    }

    #[test]
    fn many_ids_with_a_few_repeats() {
        let mut ids: Vec<String> = (0..5000).map(|i| format!("doc-{i}")).collect();
        ids[4321] = "doc-17".to_string();
        ids[99] = String::new();
        ids[100] = String::new();
        assert_eq!(
            shared_ids(ids.len(), |d| ids[d].as_str()),
            [17, 99, 100, 4321]
        );
    }
}
