//! Which documents `simtui matrix` compares: all of a small corpus, or some picked from a
//! corpus of any size (ids, a cluster of `simtui clusters`, a document and its nearest
//! neighbours), never more than `--max-docs`.

use crate::output::error::UsageError;
use simtui_engine::analysis::cluster::{Keep, Linkage, clusters_by};
use simtui_engine::analysis::method::Engine;
use simtui_engine::analysis::query::{Probe, Searcher};
use simtui_engine::progress::Progress;
use std::collections::{HashMap, HashSet};

/// How documents are picked from the corpus.
pub enum Pick<'a> {
    /// Every document.
    All,
    /// These ids, in this order.
    Ids(&'a [String]),
    /// Cluster `number` (from 1) of `simtui clusters -t threshold`, its members in the
    /// order it lists them.
    Cluster { number: u32, threshold: f64 },
    /// A document and its `top` nearest neighbours, as `simtui query CORPUS ID --top N
    /// --exhaustive` lists them.
    Neighbours { id: &'a str, top: u32 },
}

impl Pick<'_> {
    /// Picking needs MinHash signatures (candidates to cluster, or neighbours).
    pub fn searches(&self) -> bool {
        matches!(self, Pick::Cluster { .. } | Pick::Neighbours { .. })
    }
}

/// What a refusal past the limit says: how to raise it, and how to pick documents.
pub fn too_many(n: usize, max: usize, picked: bool) -> UsageError {
    let what = if picked { "picked" } else { "found" };
    UsageError(format!(
        "{n} documents {what}; a matrix takes at most {max} (--max-docs N raises it). \
         Pick documents of the corpus with --ids ID,ID,..., --cluster N -t T (cluster N of \
         `simtui clusters -t T`) or --neighbours ID --top N (a document and its nearest \
         neighbours); `simtui pairs` and `simtui clusters` take the whole corpus"
    ))
}

/// The documents to compare, in the matrix's order; a usage error for an id the corpus
/// lacks, a cluster it has not, or more documents than `max`.
pub fn documents(
    engine: &Engine,
    pick: &Pick,
    max: usize,
    progress: &dyn Progress,
) -> anyhow::Result<Vec<u32>> {
    let index = &engine.index;
    let docs: Vec<u32> = match *pick {
        Pick::All => (0..index.docs().len() as u32).collect(),
        Pick::Ids(ids) => {
            let by_id = by_id(engine);
            let mut seen = HashSet::new();
            let mut docs = Vec::new();
            for id in ids {
                let d = *by_id.get(id.as_str()).ok_or_else(|| missing("--ids", id))?;
                if seen.insert(d) {
                    docs.push(d);
                }
            }
            docs
        }
        Pick::Cluster { number, threshold } => {
            // As `simtui clusters -t T` finds and numbers them (its default --max-bucket,
            // --keep and --cluster).
            let search = engine.search(threshold, Some(1000), progress)?;
            let clusters = clusters_by(index, &search, Keep::Longest, Linkage::Components)?;
            let Some(c) = clusters.get(number as usize - 1) else {
                return Err(UsageError(format!(
                    "--cluster {number}: at -t {threshold} there {} (`simtui clusters -t {threshold}` lists them)",
                    match clusters.len() {
                        0 => "is no cluster".to_string(),
                        1 => "is 1 cluster".to_string(),
                        n => format!("are {n} clusters"),
                    }
                ))
                .into());
            };
            c.members.clone()
        }
        Pick::Neighbours { id, top } => {
            let d = *by_id(engine)
                .get(id)
                .ok_or_else(|| missing("--neighbours", id))?;
            let probe = Probe::of_doc(engine, d)?;
            let answer = Searcher::new(engine)?.neighbours(&probe, top as usize, true)?;
            std::iter::once(d)
                .chain(answer.neighbours.iter().map(|n| n.doc))
                .collect()
        }
    };
    if docs.len() > max {
        return Err(too_many(docs.len(), max, !matches!(pick, Pick::All)).into());
    }
    Ok(docs)
}

fn by_id(engine: &Engine) -> HashMap<String, u32> {
    let docs = engine.index.docs();
    (docs.iter().enumerate())
        .map(|(d, doc)| (doc.into_owned().id, d as u32))
        .collect()
}

fn missing(flag: &str, id: &str) -> UsageError {
    UsageError(format!(
        "{flag}: no document of the corpus has the id {}",
        crate::output::format::printable(id)
    ))
}
