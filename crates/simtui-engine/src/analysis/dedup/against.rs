//! Deduplication against a reference corpus (`dedup --against REF`): the index holds
//! the reference's documents first, then the new ones. The reference is never touched:
//! every new document within the threshold of a reference document is removed (in place
//! of the reference document most like it), and the new documents left are deduplicated
//! among themselves as usual, so none is removed for a document that is removed itself.

use super::Removal;
use crate::analysis::cluster::{Cluster, Keep, Linkage, clusters_by};
use crate::error::Result;
use crate::index::Index;
use crate::search::Search;
use rayon::prelude::*;
use std::collections::HashSet;

/// What deduplicating against a reference decided.
#[derive(Clone, Debug, Default)]
pub struct Against {
    /// The clusters among the new documents not removed for the reference, numbered
    /// from 1 in this order (as [`clusters_by`] gives them).
    pub clusters: Vec<Cluster>,
    /// The removals of those clusters, then (numbered after them, one cluster per
    /// reference document) the new documents removed for the reference, each with the
    /// reference document most like it as `kept`.
    pub removals: Vec<Removal>,
    /// How many of `removals` are for the reference (the last ones).
    pub for_reference: usize,
}

/// Each content's reference document, if it has one (its first).
fn reference_docs(index: &Index, reference: usize) -> Vec<Option<u32>> {
    (0..index.shingles.len() as u32)
        .map(|g| {
            (index.members(g).iter().copied())
                .filter(|&d| (d as usize) < reference)
                .min()
        })
        .collect()
}

/// The documents `0..reference` of `index` are the reference corpus, the others the new
/// documents; `search` is the index's search at the threshold. Returns the clusters and
/// removals of the new documents (see [`Against`]); ids in `keep_list` are never removed.
/// A content found in both (identical documents) is removed with J = 1; an empty
/// document is like nothing, as everywhere.
pub fn against(
    index: &Index,
    search: &Search,
    reference: usize,
    (keep, linkage): (Keep, Linkage),
    keep_list: &HashSet<String>,
) -> Result<Against> {
    let groups = index.shingles.len();
    let ref_doc = reference_docs(index, reference);
    let nonempty = |g: u32| index.shingles.set_len(g as usize) != 0;
    // Each new content's best reference document and J (J = 1: it is one itself).
    let mut best: Vec<Option<(f64, u32)>> = (0..groups as u32)
        .map(|g| {
            ref_doc[g as usize]
                .filter(|_| nonempty(g))
                .map(|d| (1.0, d))
        })
        .collect();
    let mut offer = |g: u32, j: f64, d: u32| {
        let b = &mut best[g as usize];
        // The most alike; ties to the first reference document.
        if b.is_none_or(|(bj, bd)| j > bj || (j == bj && d < bd)) {
            *b = Some((j, d));
        }
    };
    let new_only = |g: u32| ref_doc[g as usize].is_none();
    for p in &search.group_pairs {
        for (x, y) in [(p.ga, p.gb), (p.gb, p.ga)] {
            if let (true, Some(d)) = (new_only(x), ref_doc[y as usize]) {
                offer(x, p.jaccard, d);
            }
        }
    }
    // Buckets of many contents are not in the pairs: each new content of one is
    // verified against each reference content of it.
    for b in search.huge.iter().filter(|b| !b.capped) {
        let (refs, news): (Vec<u32>, Vec<u32>) =
            b.groups.iter().copied().partition(|&g| !new_only(g));
        let ref_doc = &ref_doc;
        let found: Vec<(u32, f64, u32)> = news
            .par_iter()
            .filter(|&&g| nonempty(g))
            .flat_map_iter(|&g| {
                let refs = &refs;
                refs.iter().filter_map(move |&r| {
                    let j = index.group_similarity(g, r).0;
                    (j >= search.threshold && nonempty(r))
                        .then(|| (g, j, ref_doc[r as usize].expect("a reference content")))
                })
            })
            .collect();
        for (g, j, d) in found {
            offer(g, j, d);
        }
    }
    // The new contents left, deduplicated among themselves.
    let free = |g: u32| new_only(g) && best[g as usize].is_none();
    let mut among = search.clone();
    among.group_pairs.retain(|p| free(p.ga) && free(p.gb));
    for b in &mut among.huge {
        b.groups.retain(|&g| free(g));
    }
    among.huge.retain(|b| b.groups.len() > 1);
    let mut clusters = clusters_by(index, &among, keep, linkage)?;
    // Clusters of identical documents of a content taken out above.
    clusters.retain(|c| {
        c.members
            .iter()
            .all(|&d| free(index.docs.group(d as usize)))
    });
    let mut removals = super::removals(index, &clusters, keep_list);
    let internal = removals.len();
    let mut cluster_of_ref: std::collections::BTreeMap<u32, Vec<(u32, f64)>> = Default::default();
    for d in reference as u32..index.docs.len() as u32 {
        let doc = &index.docs.at(d as usize);
        if let Some((j, r)) = best[doc.group as usize]
            && !keep_list.contains(&doc.id)
        {
            cluster_of_ref.entry(r).or_default().push((d, j));
        }
    }
    let rank = index.id_order();
    // Numbered after the clusters among the new documents, by the reference's ids.
    let mut by_ref: Vec<(u32, Vec<(u32, f64)>)> = cluster_of_ref.into_iter().collect();
    by_ref.sort_by_key(|x| rank[x.0 as usize]);
    for (i, (kept, mut removed)) in by_ref.into_iter().enumerate() {
        removed.sort_by_key(|x| rank[x.0 as usize]);
        removals.extend(removed.into_iter().map(|(d, jaccard)| Removal {
            removed: d,
            kept,
            jaccard,
            cluster: (clusters.len() + i) as u32 + 1,
        }));
    }
    index.check()?;
    Ok(Against {
        clusters,
        for_reference: removals.len() - internal,
        removals,
    })
}
