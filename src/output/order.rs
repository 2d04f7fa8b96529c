//! Ids in the order people read them: numbers as numbers (`9 < 10 < 1014`, where byte
//! order gives `10 < 1014 < 9`), by [`natural_cmp`]. The explorer's views and exports and
//! the commands' tables list documents and pairs so; the machine outputs (JSON Lines,
//! CSV, Parquet, the Spark job) keep the engine's one order, ids by bytes.

use simtui_engine::analysis::cluster::Cluster;
use simtui_engine::index::Index;
use simtui_engine::natural::natural_ranks;
use simtui_engine::natural_cmp;
use simtui_engine::search::found::{Block, Found, Pair};

/// Each document's rank in the natural order of ids: `rank[a] < rank[b]` when `a`'s id
/// comes first.
pub fn natural_rank(index: &Index) -> Vec<u32> {
    natural_ranks(index.docs().len(), |d| index.docs().id(d as usize))
}

/// The pair with the document whose id comes first on the left.
pub fn ordered(rank: &[u32], p: Pair) -> Pair {
    if rank[p.a as usize] <= rank[p.b as usize] {
        p
    } else {
        Pair {
            a: p.b,
            b: p.a,
            ..p
        }
    }
}

/// Documents sorted by their ids in natural order.
pub fn sort_docs(index: &Index, docs: &mut [u32]) {
    let id = |d: u32| index.docs().id(d as usize);
    docs.sort_by(|&x, &y| natural_cmp(&id(x), &id(y)));
}

/// A cluster's members in natural order (the engine lists them by bytes).
pub fn sort_members(index: &Index, cluster: &mut Cluster) {
    sort_docs(index, &mut cluster.members);
}

/// Found pairs in natural order: each pair's first id on the left, each block's first
/// pair the first by natural ids, and both lists by J descending, then by ids.
pub fn order_found(index: &Index, rank: &[u32], found: &mut Found) {
    use rayon::prelude::*;
    let by = |p: &Pair| (rank[p.a as usize], rank[p.b as usize]);
    found
        .pairs
        .par_iter_mut()
        .for_each(|p| *p = ordered(rank, *p));
    found
        .pairs
        .par_sort_unstable_by(|x, y| y.jaccard.total_cmp(&x.jaccard).then(by(x).cmp(&by(y))));
    for block in &mut found.blocks {
        block.first = first_pair(index, rank, block);
    }
    found.blocks.sort_unstable_by(|x, y| {
        (y.jaccard.total_cmp(&x.jaccard)).then(by(&x.first).cmp(&by(&y.first)))
    });
}

/// A block's first pair in natural order: its first document, and the first of the
/// others it is paired with (of the same content within one, of the other across two).
fn first_pair(index: &Index, rank: &[u32], block: &Block) -> Pair {
    let first = |docs: &[u32], skip: Option<u32>| {
        docs.iter()
            .copied()
            .filter(|&d| Some(d) != skip)
            .min_by_key(|&d| rank[d as usize])
            .expect("a block's contents have documents")
    };
    let (ma, mb) = (index.members(block.ga), index.members(block.gb));
    let (a, b) = if block.is_within() {
        let a = first(ma, None);
        (a, first(ma, Some(a)))
    } else {
        (first(ma, None), first(mb, None))
    };
    ordered(
        rank,
        Pair {
            a,
            b,
            ..block.first
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use simtui_engine::index::Params;
    use simtui_engine::progress::Silent;
    use simtui_engine::source::Corpus;

    #[test]
    fn pairs_and_ties_in_natural_order() {
        let text = "the quick brown fox jumps over the lazy dog every day";
        let near = "the quick brown fox jumps over the lazy cat every day";
        let texts: Vec<(String, String)> = [
            ("906", text),
            ("1014", text.replace("day", "night").as_str()),
            ("16", near),
            ("4", near),
            ("1086", "nothing at all like the others here"),
        ]
        .iter()
        .map(|(id, t)| (id.to_string(), t.to_string()))
        .collect();
        let index = Index::builder(&Params::default())
            .build(Corpus::from_texts(texts), &Silent)
            .unwrap();
        let mut found = index.find(32, 2, 0.0, &Silent).unwrap();
        let rank = natural_rank(&index);
        order_found(&index, &rank, &mut found);
        let id = |d: u32| index.docs().id(d as usize);
        let shown: Vec<(String, String)> = (found.pairs.iter())
            .map(|p| (id(p.a).into_owned(), id(p.b).into_owned()))
            .collect();
        // Identical texts first, the smaller number on the left (bytes put "16" first).
        let has = |a: &str, b: &str| shown.iter().any(|s| (s.0.as_str(), s.1.as_str()) == (a, b));
        assert_eq!(
            (shown[0].0.as_str(), shown[0].1.as_str()),
            ("4", "16"),
            "{shown:?}"
        );
        assert!(has("906", "1014"), "{shown:?}");
        for w in found.pairs.windows(2) {
            assert!(w[0].jaccard >= w[1].jaccard);
        }
    }
}
