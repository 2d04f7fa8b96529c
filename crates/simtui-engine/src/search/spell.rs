//! Spelling out: the document pairs a search by content stands for, in order (J
//! descending, then the ids of both documents), each pair once.
//!
//! Every document pair is a record of one key ([`Keyed`]: J's bits inverted, then both
//! documents' ranks among the ids sorted), so one order serves every way out: pairs of
//! identical documents (every pair within a content of several documents, J = 1) come
//! from `Identical` in order, generated as they are needed; the pairs that kept pairs
//! of contents stand for are listed by `across`. `spell` holds them all in memory
//! (what the explorer and [`Found`] need), with the contents of more than `max_block`
//! pairs kept whole as [`Block`]s; [`DocPairs`] streams them in bounded memory (what
//! `simtui pairs` writes): the identical pairs generated, never held (20,000 copies of a
//! page are 200 million pairs and cost a few bytes per document), the others sorted
//! through a [`Spill`], in memory up to its room and in temporary files past it, and the
//! two merged.

use super::Lookup;
use super::found::{Block, Found, GroupPair, Pair, Search};
use super::groups::Groups;
use super::verify;
use crate::error::Result;
use crate::progress::{Progress, Silent};
use crate::storage::Room;
use crate::storage::runs::{Keyed, Sorted, Spill};
use rayon::prelude::*;
use std::ops::ControlFlow;

/// The order of pairs as one 128-bit key: J descending (the bits of a non-negative f64
/// order like the number), then the ids' ranks of both documents.
fn key(jaccard: f64, rank_a: u32, rank_b: u32) -> u128 {
    let j = u64::MAX - jaccard.to_bits();
    ((j as u128) << 64) | ((rank_a as u128) << 32) | rank_b as u128
}

/// A pair of documents of ranks `ra` and `rb` (any order) as a record.
fn keyed(jaccard: f64, estimate: f64, ra: u32, rb: u32) -> Keyed {
    let (ra, rb) = if ra < rb { (ra, rb) } else { (rb, ra) };
    Keyed::new(key(jaccard, ra, rb), estimate.to_bits())
}

/// The pair a record stands for; `by_rank` is the document of each rank.
fn pair_of(r: Keyed, by_rank: &[u32]) -> Pair {
    let k = r.key();
    let (ra, rb) = ((k >> 32) as u32, k as u32);
    debug_assert!(ra < rb && (rb as usize) < by_rank.len());
    Pair {
        a: by_rank[ra as usize],
        b: by_rank[rb as usize],
        jaccard: f64::from_bits(u64::MAX - (k >> 64) as u64),
        estimate: f64::from_bits(r.value()),
    }
}

/// The document of each rank: the inverse of `rank`.
fn by_rank(rank: &[u32]) -> Vec<u32> {
    let mut by_rank = vec![0u32; rank.len()];
    for (d, &r) in rank.iter().enumerate() {
        by_rank[r as usize] = d as u32;
    }
    by_rank
}

/// Pairs of identical documents, generated in order: for each document in id order, the
/// later members of its content, in id order.
struct Identical {
    /// Members of each content of two or more (non-empty) documents, by id rank.
    members: Vec<Vec<u32>>,
    /// For each rank: its content's list in `members` (u32::MAX: none) and place in it.
    place: Vec<(u32, u32)>,
    /// The rank whose pairs are being generated, and the next partner's place.
    at: usize,
    partner: usize,
}

impl Identical {
    /// The pairs within each content of `groups` but those `skip` says.
    fn new(groups: &Groups, rank: &[u32], skip: impl Fn(u32) -> bool) -> Identical {
        let mut place = vec![(u32::MAX, 0u32); rank.len()];
        let mut members = Vec::new();
        for g in 0..groups.len() as u32 {
            if groups.pairs_within(g) == 0 || skip(g) {
                continue;
            }
            let mut ranks: Vec<u32> = groups
                .members(g)
                .iter()
                .map(|&d| rank[d as usize])
                .collect();
            ranks.sort_unstable();
            for (i, &r) in ranks.iter().enumerate() {
                place[r as usize] = (members.len() as u32, i as u32);
            }
            members.push(ranks);
        }
        Identical {
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
                    return Some(keyed(1.0, 1.0, self.at as u32, members[p]));
                }
            }
            self.at += 1;
            self.partner = 0;
        }
        None
    }
}

/// The document pairs across the two contents of a kept pair, as records.
fn across(
    groups: &Groups,
    rank: &[u32],
    p: &GroupPair,
    mut push: impl FnMut(Keyed) -> Result<()>,
) -> Result<()> {
    for &a in groups.members(p.ga) {
        for &b in groups.members(p.gb) {
            push(keyed(
                p.jaccard,
                p.estimate,
                rank[a as usize],
                rank[b as usize],
            ))?;
        }
    }
    Ok(())
}

/// Verifies the candidates of the search's huge buckets (those not capped) and adds the
/// pairs kept to its pairs of contents, within `budget` bytes of sets.
fn join_huge(look: &Lookup, search: &mut Search, budget: u64) -> Result<()> {
    // At most every pair of each bucket.
    let most: u64 = search
        .huge
        .iter()
        .filter(|b| !b.capped)
        .map(|b| (b.groups.len() as u64).pow(2) / 2)
        .sum();
    if (most as u128) * std::mem::size_of::<GroupPair>() as u128
        > crate::storage::memory::physical().unwrap_or(u64::MAX) as u128
    {
        return Err(crate::Error::TooLarge {
            job: "the pairs in memory",
            why: format!("buckets of up to {most} pairs; a maximum bucket size caps them"),
        });
    }
    let mut huge: Vec<GroupPair> = Vec::new();
    crate::storage::memory::reserve(
        &mut huge,
        usize::try_from(most).unwrap_or(usize::MAX).min(1 << 20),
        "the pairs of huge buckets",
    )?;
    let mut extra = 0;
    let sizes = (budget, verify::MAX_PAIRS);
    verify::huge(look, search, sizes, &Silent, |kept, candidates| {
        huge.extend(kept);
        extra += candidates;
        Ok(ControlFlow::Continue(()))
    })?;
    search.group_pairs.extend(huge);
    search.candidates += extra;
    Ok(())
}

/// The document pairs of a search, in memory: every pair of identical documents and of
/// each kept pair of contents (those of huge buckets too, verified here within `budget`
/// bytes of sets), by J descending then ids (`rank` is each document's rank among the ids
/// sorted). A content of identical documents, or a pair of contents, standing for more
/// than `max_block` document pairs is kept whole as one [`Block`] instead.
/// [`Error::TooLarge`](crate::Error::TooLarge) when the pairs would not fit in memory.
pub(crate) fn spell(
    look: &Lookup,
    rank: &[u32],
    mut search: Search,
    max_block: Option<u64>,
    budget: u64,
) -> Result<Found> {
    join_huge(look, &mut search, budget)?;
    let groups = look.groups;
    let blocked = |pairs: u64| max_block.is_some_and(|max| pairs > max);
    let across_of = |p: &GroupPair| groups.across(p.ga, p.gb);
    let count: u64 = (0..groups.len() as u32)
        .map(|g| groups.pairs_within(g))
        .filter(|&n| !blocked(n))
        .sum::<u64>()
        + search
            .group_pairs
            .iter()
            .map(across_of)
            .filter(|&n| !blocked(n))
            .sum::<u64>();
    let mut records: Vec<Keyed> = Vec::new();
    crate::storage::memory::reserve(
        &mut records,
        usize::try_from(count).unwrap_or(usize::MAX),
        "the document pairs",
    )?;
    let mut identical = Identical::new(groups, rank, |g| blocked(groups.pairs_within(g)));
    while let Some(r) = identical.next() {
        records.push(r);
    }
    let mut push = |r| {
        records.push(r);
        Ok(())
    };
    for p in search.group_pairs.iter().filter(|p| !blocked(across_of(p))) {
        across(groups, rank, p, &mut push)?;
    }
    records.par_sort_unstable();
    let by_rank = by_rank(rank);
    // Records and pairs are both 24 bytes: the vector is reused in place.
    let pairs: Vec<Pair> = records.into_iter().map(|r| pair_of(r, &by_rank)).collect();
    let mut blocks = blocks(groups, rank, &search, &blocked);
    blocks.sort_unstable_by_key(|b| {
        key(
            b.jaccard,
            rank[b.first.a as usize],
            rank[b.first.b as usize],
        )
    });
    Ok(Found {
        pairs,
        blocks,
        candidates: search.candidates,
        group_candidates: search.group_candidates,
        huge: search.huge,
        band_time: search.band_time,
        verify_time: search.verify_time,
    })
}

/// The blocks of a search: the contents and pairs of contents whose document pairs are
/// `blocked`, each with its first pair by ids.
fn blocks(
    groups: &Groups,
    rank: &[u32],
    search: &Search,
    blocked: &dyn Fn(u64) -> bool,
) -> Vec<Block> {
    let by = |d: &&u32| rank[**d as usize];
    let ordered = |a: u32, b: u32, jaccard: f64, estimate: f64| {
        let (a, b) = if rank[a as usize] < rank[b as usize] {
            (a, b)
        } else {
            (b, a)
        };
        Pair {
            a,
            b,
            jaccard,
            estimate,
        }
    };
    // The first of a content's documents by id.
    let first = |g: u32| *groups.members(g).iter().min_by_key(by).expect("a member");
    let mut blocks = Vec::new();
    for g in 0..groups.len() as u32 {
        let n = groups.pairs_within(g);
        if n == 0 || !blocked(n) {
            continue;
        }
        let a = first(g);
        let b = *groups
            .members(g)
            .iter()
            .filter(|&&d| d != a)
            .min_by_key(by)
            .expect("a group of two or more documents");
        blocks.push(Block {
            ga: g,
            gb: g,
            jaccard: 1.0,
            estimate: 1.0,
            pairs: n,
            first: ordered(a, b, 1.0, 1.0),
        });
    }
    for p in &search.group_pairs {
        let n = groups.across(p.ga, p.gb);
        if blocked(n) {
            blocks.push(Block {
                ga: p.ga,
                gb: p.gb,
                jaccard: p.jaccard,
                estimate: p.estimate,
                pairs: n,
                first: ordered(first(p.ga), first(p.gb), p.jaccard, p.estimate),
            });
        }
    }
    blocks
}

/// The document pairs of a search, in order, in bounded memory; see the module's
/// documentation.
pub struct DocPairs<'a> {
    /// Each document's rank among the ids, and the document of each rank.
    rank: &'a [u32],
    by_rank: Vec<u32>,
    identical: Identical,
    next_identical: Option<Keyed>,
    sorted: Sorted,
    next_sorted: Option<Keyed>,
    /// Candidate document pairs of the huge buckets, verified while sorting.
    huge_candidates: u64,
    /// Document pairs kept from the huge buckets.
    huge_pairs: u64,
    /// Whether candidates of the huge buckets were left unverified (enough pairs found).
    stopped_early: bool,
}

impl<'a> DocPairs<'a> {
    /// The pairs of `search` (`rank` each document's rank among the ids sorted), sorting
    /// in `room`. The candidates of huge buckets are verified here, as they are taken,
    /// within `budget` bytes of sets, and only until `wanted` pairs are found (see
    /// [`Index::doc_pairs_until`](crate::index::Index::doc_pairs_until)).
    pub(crate) fn new(
        look: &Lookup,
        rank: &'a [u32],
        search: &Search,
        room: &Room,
        budget: u64,
        progress: &dyn Progress,
        wanted: Option<u64>,
    ) -> Result<DocPairs<'a>> {
        let groups = look.groups;
        let mut spill = Spill::in_room(room, "document pairs");
        let mut found: u64 = (0..groups.len() as u32)
            .map(|g| groups.pairs_within(g))
            .sum();
        for p in &search.group_pairs {
            found += groups.across(p.ga, p.gb);
            across(groups, rank, p, |r| spill.push(r))?;
        }
        let enough = |found: u64| wanted.is_some_and(|n| found >= n);
        let (mut huge_candidates, mut huge_pairs) = (0, 0);
        let mut stopped_early = enough(found) && search.huge.iter().any(|b| !b.capped);
        if !stopped_early {
            let first = match wanted {
                Some(_) => verify::FIRST_PAIRS,
                None => verify::MAX_PAIRS,
            };
            let all = verify::huge(
                look,
                search,
                (budget, first),
                progress,
                |kept, candidates| {
                    huge_candidates += candidates;
                    // In the candidates' order, so where it stops depends on nothing else.
                    for p in &kept {
                        if enough(found) {
                            stopped_early = true;
                            return Ok(ControlFlow::Break(()));
                        }
                        found += groups.across(p.ga, p.gb);
                        huge_pairs += groups.across(p.ga, p.gb);
                        across(groups, rank, p, |r| spill.push(r))?;
                    }
                    Ok(match enough(found) {
                        true => ControlFlow::Break(()),
                        false => ControlFlow::Continue(()),
                    })
                },
            )?;
            stopped_early |= !all;
        }
        let mut sorted = spill.sorted()?;
        let mut identical = Identical::new(groups, rank, |_| false);
        Ok(DocPairs {
            rank,
            by_rank: by_rank(rank),
            next_identical: identical.next(),
            identical,
            next_sorted: sorted.next_record()?,
            sorted,
            huge_candidates,
            huge_pairs,
            stopped_early,
        })
    }

    /// Whether candidates of the huge buckets were left unverified because the pairs
    /// wanted were found before them: the pairs streamed are then not all there are.
    pub fn stopped_early(&self) -> bool {
        self.stopped_early
    }

    /// Candidate document pairs that the huge buckets stood for (verified while sorting).
    pub fn huge_candidates(&self) -> u64 {
        self.huge_candidates
    }

    /// Document pairs kept from the huge buckets (beyond
    /// [`Index::pair_count`](crate::index::Index::pair_count) of the search's pairs of
    /// contents).
    pub fn huge_pairs(&self) -> u64 {
        self.huge_pairs
    }

    /// Each document's rank among the ids sorted (the order pairs come in).
    pub fn id_rank(&self) -> &[u32] {
        self.rank
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
            (Some(i), Some(s)) => i.key() <= s.key(),
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
        Ok(Some(pair_of(
            r.expect("chosen because it is there"),
            &self.by_rank,
        )))
    }
}

#[cfg(test)]
mod tests {
    use crate::index::{Index, Params};
    use crate::progress::Silent;
    use crate::source::Corpus;

    const BASE: &str = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat by the door";

    #[test]
    fn ranked_streams_put_ids_in_the_order_given() {
        // Copies named by numbers: bytes put "16" before "4", numbers the other way.
        let ids = ["16", "4", "1086", "10265", "1014", "1017", "9"];
        let texts: Vec<(String, String)> = ids
            .iter()
            .map(|id| (id.to_string(), BASE.to_string()))
            .collect();
        let index = Index::builder(&Params::default())
            .build(Corpus::from_texts(texts), &Silent)
            .unwrap();
        let search = index.search(32, 4, 0.0, None, &Silent).unwrap();
        let all: Vec<String> = index.docs().iter().map(|d| d.into_owned().id).collect();
        let id = |d: u32| all[d as usize].as_str();
        let natural = crate::natural::natural_ranks(ids.len(), id);
        let mut stream = index
            .doc_pairs_ranked(&search, 1 << 20, &Silent, &natural)
            .unwrap();
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
        let mut bytes = index.doc_pairs(&search, 1 << 20, &Silent).unwrap();
        let p = bytes.next_pair().unwrap().unwrap();
        assert_eq!((id(p.a), id(p.b)), ("1014", "1017"));
    }

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
        let index = Index::builder(&Params::default())
            .build(Corpus::from_texts(texts), &Silent)
            .unwrap();
        let search = index.search(32, 4, 0.0, None, &Silent).unwrap();
        let want = index.spell(search.clone()).unwrap().pairs;
        assert!(want.len() > 300, "{}", want.len());
        for budget in [0, 1 << 30] {
            let mut stream = index.doc_pairs(&search, budget, &Silent).unwrap();
            let mut got = Vec::new();
            while let Some(p) = stream.next_pair().unwrap() {
                got.push(p);
            }
            assert_eq!(got, want, "budget {budget}");
            assert_eq!(stream.spilled_bytes() > 0, budget == 0);
        }
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
        let index = Index::builder(&Params::default())
            .build(Corpus::from_texts(texts), &Silent)
            .unwrap();
        let search = index.search(16, 8, 0.9, None, &Silent).unwrap();
        assert!(
            search.huge.iter().any(|b| !b.capped),
            "{:?}",
            search.huge.len()
        );
        let mut stream = index.doc_pairs(&search, 1 << 16, &Silent).unwrap();
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
