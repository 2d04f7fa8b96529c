//! The document pairs of a search, in order (J descending, then the ids of both
//! documents), in bounded memory: what `simtui pairs` writes.
//!
//! Pairs of identical documents (every pair within a content of several documents,
//! J = 1) are generated as they are needed, never held: 20,000 copies of a page are 200
//! million pairs and cost a few bytes per document. The pairs that kept pairs of
//! contents stand for are sorted through a [`Spill`], in memory up to its budget and in
//! temporary files past it. The two streams are merged.

use crate::error::Result;
use crate::found::{GroupPair, Pair, Search};
use crate::index::Index;
use crate::progress::Progress;
use crate::spill::{Keyed, Sorted, Spill};
use std::path::PathBuf;

/// The order of pairs as one 128-bit key: J descending (the bits of a non-negative f64
/// order like the number), then the ids' ranks of both documents.
fn key(jaccard: f64, rank_a: u32, rank_b: u32) -> u128 {
    let j = u64::MAX - jaccard.to_bits();
    ((j as u128) << 64) | ((rank_a as u128) << 32) | rank_b as u128
}

/// The document pairs of a search, in order; see the module's documentation.
pub struct DocPairs<'a> {
    index: &'a Index,
    /// Document of each id rank.
    by_rank: Vec<u32>,
    identical: Identical,
    next_identical: Option<Keyed>,
    sorted: Sorted,
    next_sorted: Option<Keyed>,
    /// Candidate document pairs of the huge buckets, verified while sorting.
    huge_candidates: u64,
    /// Document pairs kept from the huge buckets.
    huge_pairs: u64,
}

/// Pairs of identical documents, generated in order: for each document in id order, the
/// later members of its content, in id order.
struct Identical {
    /// Each document's id rank.
    rank: Vec<u32>,
    /// Members of each content of two or more (non-empty) documents, by id rank.
    members: Vec<Vec<u32>>,
    /// For each rank: its content's list in `members` (u32::MAX: none) and place in it.
    place: Vec<(u32, u32)>,
    /// The rank whose pairs are being generated, and the next partner's place.
    at: usize,
    partner: usize,
}

impl Identical {
    fn new(index: &Index, rank: Vec<u32>) -> Identical {
        let mut place = vec![(u32::MAX, 0u32); rank.len()];
        let mut members = Vec::new();
        for g in 0..index.shingles.len() as u32 {
            let m = index.members(g);
            if m.len() < 2 || index.shingles.set_len(g as usize) == 0 {
                continue;
            }
            let mut ranks: Vec<u32> = m.iter().map(|&d| rank[d as usize]).collect();
            ranks.sort_unstable();
            for (i, &r) in ranks.iter().enumerate() {
                place[r as usize] = (members.len() as u32, i as u32);
            }
            members.push(ranks);
        }
        Identical {
            rank,
            members,
            place,
            at: 0,
            partner: 0,
        }
    }

    fn next(&mut self) -> Option<Keyed> {
        while self.at < self.place.len() {
            let (list, i) = self.place[self.at];
            if list != u32::MAX {
                let members = &self.members[list as usize];
                let p = i as usize + 1 + self.partner;
                if p < members.len() {
                    self.partner += 1;
                    return Some(Keyed {
                        key: key(1.0, self.at as u32, members[p]),
                        value: 1f64.to_bits(),
                    });
                }
            }
            self.at += 1;
            self.partner = 0;
        }
        None
    }
}

impl<'a> DocPairs<'a> {
    /// The pairs of `search` over `index`, sorting in `budget` bytes of memory (temporary
    /// files in `tmp`, or the system's, past it). The candidates of huge buckets are
    /// verified here, as they are taken ([`Index::verify_huge`]).
    pub fn new(
        index: &'a Index,
        search: &Search,
        budget: usize,
        tmp: Option<PathBuf>,
        progress: &dyn Progress,
    ) -> Result<DocPairs<'a>> {
        Self::ranked(index, search, budget, tmp, progress, index.id_order())
    }

    /// As [`DocPairs::new`], with the ids in another order: `rank` gives each
    /// document's place in it (a permutation of the documents), such as the natural
    /// order of [`natural_cmp`](crate::natural::natural_cmp) for people. Within each
    /// pair, `a` is the one that comes first; ties on J come in that order.
    pub fn ranked(
        index: &'a Index,
        search: &Search,
        budget: usize,
        tmp: Option<PathBuf>,
        progress: &dyn Progress,
        rank: Vec<u32>,
    ) -> Result<DocPairs<'a>> {
        assert_eq!(rank.len(), index.docs().len(), "a rank per document");
        let mut by_rank = vec![0u32; rank.len()];
        for (d, &r) in rank.iter().enumerate() {
            by_rank[r as usize] = d as u32;
        }
        let mut spill = Spill::counted(budget, tmp, &index.budget.spilled, "document pairs");
        let push = |spill: &mut Spill, p: &GroupPair| -> Result<()> {
            for &a in index.members(p.ga) {
                for &b in index.members(p.gb) {
                    let (ra, rb) = (rank[a as usize], rank[b as usize]);
                    let (ra, rb) = if ra < rb { (ra, rb) } else { (rb, ra) };
                    spill.push(Keyed {
                        key: key(p.jaccard, ra, rb),
                        value: p.estimate.to_bits(),
                    })?;
                }
            }
            Ok(())
        };
        for p in &search.group_pairs {
            push(&mut spill, p)?;
        }
        let (mut huge_candidates, mut huge_pairs) = (0, 0);
        index.verify_huge(search, progress, |kept, candidates| {
            huge_candidates += candidates;
            for p in &kept {
                huge_pairs += (index.members(p.ga).len() * index.members(p.gb).len()) as u64;
                push(&mut spill, p)?;
            }
            Ok(())
        })?;
        let mut sorted = spill.sorted()?;
        let mut identical = Identical::new(index, rank);
        Ok(DocPairs {
            index,
            by_rank,
            next_identical: identical.next(),
            identical,
            next_sorted: sorted.next_record()?,
            sorted,
            huge_candidates,
            huge_pairs,
        })
    }

    /// Candidate document pairs that the huge buckets stood for (verified while sorting).
    pub fn huge_candidates(&self) -> u64 {
        self.huge_candidates
    }

    /// Document pairs kept from the huge buckets (beyond
    /// [`Index::pair_count`] of the search's pairs of contents).
    pub fn huge_pairs(&self) -> u64 {
        self.huge_pairs
    }

    /// Each document's rank among the ids sorted (the order pairs come in).
    pub fn id_rank(&self) -> &[u32] {
        &self.identical.rank
    }

    /// Bytes that went through temporary files to sort the pairs.
    pub fn spilled_bytes(&self) -> u64 {
        self.sorted.spilled_bytes()
    }

    /// The next pair in order, None at the end.
    pub fn next_pair(&mut self) -> Result<Option<Pair>> {
        let take_identical = match (&self.next_identical, &self.next_sorted) {
            (None, None) => return Ok(None),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(i), Some(s)) => i.key <= s.key,
        };
        let r = if take_identical {
            let r = self.next_identical.take();
            self.next_identical = self.identical.next();
            r
        } else {
            let r = self.next_sorted.take();
            self.next_sorted = self.sorted.next_record()?;
            r
        };
        let r = r.expect("chosen because it is there");
        let (ra, rb) = ((r.key >> 32) as u32, r.key as u32);
        let jaccard = f64::from_bits(u64::MAX - (r.key >> 64) as u64);
        debug_assert!(ra < rb && (ra as usize) < self.by_rank.len());
        let _ = self.index;
        Ok(Some(Pair {
            a: self.by_rank[ra as usize],
            b: self.by_rank[rb as usize],
            jaccard,
            estimate: f64::from_bits(r.value),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Params;
    use crate::progress::Silent;
    use crate::source::Corpus;

    const BASE: &str = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat by the door";

    #[test]
    fn the_stream_gives_what_spelling_out_gives_in_memory_or_spilled() {
        // Copies of two near-duplicate texts, an unrelated one, empty ones: identical
        // pairs, pairs of contents standing for several document pairs, J ties.
        let near = BASE.replace("door", "gate");
        let mut texts = Vec::new();
        for i in 0..40 {
            let t = match i % 5 {
                0 | 1 => BASE.to_string(),
                2 => near.clone(),
                3 => format!("{BASE} and more {}", i / 5),
                _ => String::new(),
            };
            texts.push((format!("d{:02}", (i * 7) % 40), t));
        }
        let index = Index::build(Corpus::from_texts(texts), &Params::default(), &Silent).unwrap();
        let search = index.search(32, 4, 0.0, None, &Silent).unwrap();
        let want = index.spell(search.clone()).unwrap().pairs;
        assert!(want.len() > 300, "{}", want.len());
        for budget in [0, 1 << 30] {
            let mut stream = DocPairs::new(&index, &search, budget, None, &Silent).unwrap();
            let mut got = Vec::new();
            while let Some(p) = stream.next_pair().unwrap() {
                got.push(p);
            }
            assert_eq!(got, want, "budget {budget}");
            assert_eq!(stream.spilled_bytes() > 0, budget == 0);
        }
    }

    #[test]
    fn ranked_streams_put_ids_in_the_order_given() {
        // Copies named by numbers: bytes put "16" before "4", numbers the other way.
        let ids = ["16", "4", "1086", "10265", "1014", "1017", "9"];
        let texts: Vec<(String, String)> = ids
            .iter()
            .map(|id| (id.to_string(), BASE.to_string()))
            .collect();
        let index = Index::build(Corpus::from_texts(texts), &Params::default(), &Silent).unwrap();
        let search = index.search(32, 4, 0.0, None, &Silent).unwrap();
        let id = |d: u32| index.docs()[d as usize].id.as_str();
        let natural = crate::natural::natural_ranks(ids.len(), id);
        let mut stream =
            DocPairs::ranked(&index, &search, 1 << 20, None, &Silent, natural).unwrap();
        let mut got = Vec::new();
        while let Some(p) = stream.next_pair().unwrap() {
            got.push((id(p.a), id(p.b)));
        }
        assert_eq!(got.len(), 21);
        assert_eq!(got[..3], [("4", "9"), ("4", "16"), ("4", "1014")]);
        let firsts: Vec<&str> = got.iter().map(|p| p.0).collect();
        assert!(
            firsts.is_sorted_by(|a, b| crate::natural_cmp(a, b).is_le()),
            "{firsts:?}"
        );
        // The engine's own order is by bytes.
        let mut bytes = DocPairs::new(&index, &search, 1 << 20, None, &Silent).unwrap();
        let p = bytes.next_pair().unwrap().unwrap();
        assert_eq!((id(p.a), id(p.b)), ("1014", "1017"));
    }

    #[test]
    fn pairs_of_huge_buckets_are_streamed_once_and_match_brute_force() {
        // 1,100 near-identical texts (one word added to each): a huge bucket in most
        // bands, whose pairs are taken one row at a time while sorting.
        let page: Vec<String> = (0..400).map(|w| format!("w{}", w * 7919 % 1000)).collect();
        let page = page.join(" ");
        let texts: Vec<(String, String)> = (0..1100)
            .map(|i| (format!("n{i:04}"), format!("{page} extra{i}")))
            .collect();
        let index = Index::build(Corpus::from_texts(texts), &Params::default(), &Silent).unwrap();
        let search = index.search(16, 8, 0.9, None, &Silent).unwrap();
        assert!(
            search.huge.iter().any(|b| !b.capped),
            "{:?}",
            search.huge.len()
        );
        let mut stream = DocPairs::new(&index, &search, 1 << 16, None, &Silent).unwrap();
        let mut got = Vec::new();
        while let Some(p) = stream.next_pair().unwrap() {
            got.push(p);
        }
        assert_eq!(
            stream.huge_pairs() + index.pair_count(&search.group_pairs),
            got.len() as u64
        );
        assert_eq!(got, index.spell(search).unwrap().pairs);
        // Every pair is within J ≥ 0.9 of the others: all of them, each once.
        assert_eq!(got.len(), 1100 * 1099 / 2);
        let mut ids: Vec<(u32, u32)> = got.iter().map(|p| (p.a, p.b)).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), got.len());
    }
}
