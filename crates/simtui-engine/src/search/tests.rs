//! Out of core = in memory: every limit gives the same searches and pairs as no limit.

use crate::index::Index;
use crate::index::{Keep, Params};
use crate::ooc::band;
use crate::progress::Silent;
use crate::search::found::Pair;
use crate::search::found::Search;
use crate::search::spell::DocPairs;
use crate::source::Corpus;
use crate::storage::{Budget, Spilled};
use proptest::prelude::*;
use std::sync::Arc;

/// Near-duplicate families (copies, one word changed, a sentence added), unrelated
/// texts, empty documents, and with `crowd` near-identical texts that make a huge bucket
/// in most bands.
fn texts(seed: u64, families: usize, crowd: usize) -> Vec<(String, String)> {
    let word = |i: u64| format!("w{}", crate::hash::mix64(i ^ seed) % 700);
    let mut out = Vec::new();
    for f in 0..families as u64 {
        let base: Vec<String> = (0..40 + f % 30).map(|i| word(f * 1000 + i)).collect();
        let text = base.join(" ");
        out.push(text.clone());
        match crate::hash::mix64(f ^ seed) % 5 {
            0 => out.push(text.clone()),
            1 => out.push(text.replacen(&base[3], "changed", 1)),
            2 => out.push(format!("{text} and one more sentence at the end")),
            3 => out.push(String::new()),
            _ => {}
        }
    }
    let page: Vec<String> = (0..120).map(|i| word(90_000 + i)).collect();
    let page = page.join(" ");
    for i in 0..crowd {
        out.push(format!("{page} extra{i}"));
    }
    // Ids not in corpus order, so that pair order is not document order.
    out.into_iter()
        .enumerate()
        .map(|(i, t)| {
            (
                format!("d{:05}x{i}", crate::hash::mix64(i as u64) % 100_000),
                t,
            )
        })
        .collect()
}

fn build(texts: &[(String, String)], budget: &Budget) -> Index {
    build_keeping(texts, budget, Keep::Everything)
}

fn build_keeping(texts: &[(String, String)], budget: &Budget, keep: Keep) -> Index {
    let corpus = Corpus::from_texts(texts.iter().cloned());
    let params = Params::default();
    let (index, _) = Index::build_keeping(corpus, &params, None, keep, budget, &Silent).unwrap();
    assert_eq!(index.shingles().is_read_again(), keep == Keep::ToSearch);
    index
}

fn stream(index: &Index, search: &Search, budget: usize) -> Vec<Pair> {
    let mut pairs = DocPairs::new(index, search, budget, None, &Silent).unwrap();
    let mut out = Vec::new();
    while let Some(p) = pairs.next_pair().unwrap() {
        out.push(p);
    }
    out
}

/// The parts of a search that must not depend on memory.
fn same_search(a: &Search, b: &Search, what: &str) {
    assert_eq!(a.group_pairs, b.group_pairs, "{what}: kept pairs");
    assert_eq!(a.candidates, b.candidates, "{what}: candidates");
    assert_eq!(
        a.group_candidates, b.group_candidates,
        "{what}: group candidates"
    );
    assert_eq!(a.huge, b.huge, "{what}: huge buckets");
    assert_eq!(a.banding, b.banding, "{what}: banding");
}

fn check_limit(texts: &[(String, String)], bytes: u64, bandings: &[(usize, usize, f64)]) -> Budget {
    check_sets(texts, bytes, Keep::Everything, bandings)
}

/// The searches of an index built within `bytes` (`u64::MAX`: no limit), its sets kept
/// or made again, against those of an index in memory.
fn check_sets(
    texts: &[(String, String)],
    bytes: u64,
    keep: Keep,
    bandings: &[(usize, usize, f64)],
) -> Budget {
    let memory = build(texts, &Budget::unlimited());
    let budget = Budget::new(bytes, None);
    let bounded = build_keeping(texts, &budget, keep);
    assert_eq!(bounded.docs().len(), memory.docs().len());
    for &(b, r, t) in bandings {
        for cap in [None, Some(1050)] {
            let what = format!("{bytes} bytes, {b}x{r}, t {t}, cap {cap:?}");
            let want = memory.search(b, r, t, cap, &Silent).unwrap();
            let got = bounded.search(b, r, t, cap, &Silent).unwrap();
            same_search(&want, &got, &what);
            let pairs = stream(&memory, &want, 1 << 30);
            assert_eq!(
                stream(&bounded, &got, (bytes / 4).min(1 << 30) as usize),
                pairs,
                "{what}: streamed"
            );
            if cap.is_some() {
                continue;
            }
            let spelled = bounded.spell(got).unwrap().pairs;
            if spelled != pairs {
                let i = spelled.iter().zip(&pairs).position(|(a, b)| a != b);
                panic!(
                    "{what}: spelled {} pairs, streamed {}, first difference at {i:?}: {:?} {:?}",
                    spelled.len(),
                    pairs.len(),
                    i.map(|i| spelled[i]),
                    i.map(|i| pairs[i])
                );
            }
        }
    }
    // Candidates from elsewhere (SimHash's tables): verified the same way.
    let candidates: Vec<(u32, u32)> = (0..memory.shingles().len() as u32)
        .flat_map(|a| (a + 1..(a + 4).min(memory.shingles().len() as u32)).map(move |b| (a, b)))
        .collect();
    let want = memory.verify_groups(&candidates, 0.2, &Silent).unwrap();
    let got = bounded.verify_groups(&candidates, 0.2, &Silent).unwrap();
    same_search(&want, &got, "verify_groups");
    // One pair at a time, read back.
    for (a, b) in [(0, 1), (2, 7), (5, 5)]
        .into_iter()
        .filter(|p| p.1 < memory.docs().len() as u32)
    {
        assert_eq!(memory.similarity(a, b), bounded.similarity(a, b));
    }
    budget
}

#[test]
fn a_tiny_limit_spills_everything_and_changes_nothing() {
    let texts = texts(7, 300, 1100);
    let budget = check_limit(&texts, 0, &[(16, 8, 0.5)]);
    let kinds: Vec<&str> = budget.spilled.by_kind().iter().map(|k| k.0).collect();
    for kind in [
        "shingle sets",
        "signatures",
        "band keys",
        "candidate pairs",
        "document pairs",
    ] {
        assert!(kinds.contains(&kind), "{kind} not spilled: {kinds:?}");
    }
    assert!(
        budget.spilled.files().len() >= 5,
        "{:?}",
        budget.spilled.files()
    );
}

#[test]
fn sets_made_again_change_nothing_under_any_limit() {
    let texts = texts(5, 300, 1100);
    // No limit: nothing spilled. A tiny one: signatures, keys and pairs spilled, never
    // the sets, which are made again from the texts.
    for bytes in [u64::MAX, 1_500_000, 0] {
        let budget = check_sets(&texts, bytes, Keep::ToSearch, &[(16, 8, 0.5), (8, 4, 0.3)]);
        let kinds: Vec<&str> = budget.spilled.by_kind().iter().map(|k| k.0).collect();
        assert!(!kinds.contains(&"shingle sets"), "{kinds:?}");
        if bytes == u64::MAX {
            assert!(kinds.is_empty(), "{kinds:?}");
        }
        if bytes == 0 {
            assert!(kinds.contains(&"signatures"), "{kinds:?}");
        }
    }
}

#[test]
fn limits_between_spill_some_parts_and_change_nothing() {
    let texts = texts(3, 300, 1100);
    // Sets spilled, signatures in memory, bands a few at a time; then everything in
    // memory but the work.
    for bytes in [300_000, 1_500_000, 4_000_000] {
        check_limit(&texts, bytes, &[(16, 8, 0.5)]);
    }
}

#[test]
fn sorted_runs_of_wide_keys_bucket_as_the_wide_path() {
    // Items too many to pack beside their keys (over 16 million) take the wide path in
    // memory; out of core they are sorted as (key, item). Forced here on a few items.
    let texts = texts(11, 200, 0);
    let index = build(&texts, &Budget::unlimited());
    let items = index.nonempty_groups();
    let spilled = Arc::new(Spilled::default());
    let room = band::Room {
        bytes: 2048,
        dir: None,
        spilled: &spilled,
    };
    for b in 0..16 {
        let expand = crate::search::banding::Expand {
            band: b,
            max_bucket: usize::MAX,
        };
        let want = crate::search::banding::wide_band_pairs(index.signatures(), 8, &items, &expand);
        let mut pairs: Spill<u64> = Spill::new(1024, None);
        let mut huge = Vec::new();
        let keys = band::KeyRoom {
            narrow: false,
            bytes: 2048,
        };
        band::sorted_band(
            index.signatures(),
            &items,
            8,
            &expand,
            &keys,
            &room,
            &mut pairs,
            &mut huge,
        )
        .unwrap();
        let mut sorted = pairs.sorted().unwrap();
        let mut got = Vec::new();
        while let Some(p) = sorted.next_record().unwrap() {
            got.push(p);
        }
        assert_eq!(got, want.pairs, "band {b}");
        assert_eq!(huge, want.huge);
    }
    assert!(spilled.total() > 0, "the keys went through runs");
}

use crate::storage::runs::Spill;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    #[test]
    fn any_limit_gives_the_pairs_of_no_limit(
        seed in 0u64..1000,
        families in 1usize..120,
        bytes in prop_oneof![0u64..20_000, 20_000u64..2_000_000],
        bands in 1usize..=32,
        threshold in 0.0f64..0.9,
        again in any::<bool>(),
    ) {
        let texts = texts(seed, families, 0);
        let rows = 128 / bands;
        let sets = if again { Keep::ToSearch } else { Keep::Everything };
        check_sets(&texts, bytes, sets, &[(bands, rows, threshold)]);
    }
}
