//! Out of core = in memory: every limit gives the same searches and pairs as no limit.

use crate::index::{Index, Keep, Params};
use crate::progress::Silent;
use crate::search::banding;
use crate::search::buckets::{Expand, narrow};
use crate::search::found::{Pair, Search};
use crate::source::Corpus;
use crate::storage::runs::Spill;
use crate::storage::{Budget, Room, Spilled};
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
    let builder = Index::builder(&Params::default()).keep(keep).budget(budget);
    let index = builder.build(corpus, &Silent).unwrap();
    let remade = index.shingles().kept() == crate::storage::Kept::Remade;
    assert_eq!(remade, keep == Keep::ToSearch);
    index
}

fn stream(index: &Index, search: &Search, budget: usize) -> Vec<Pair> {
    let mut pairs = index.doc_pairs(search, budget as u64, &Silent).unwrap();
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
fn a_temporary_file_that_fails_stops_the_run_with_an_error() {
    use crate::error::Error;
    use crate::storage::Kept;
    let texts = texts(7, 200, 0);
    // Built past a tiny budget: sets and signatures on temporary files, which then fail
    // before they are read back.
    let budget = Budget::new(0, None);
    let index = build(&texts, &budget);
    assert_eq!(index.shingles().kept(), Kept::File);
    assert_eq!(index.signatures().kept(), Kept::File);
    assert!(index.search(16, 8, 0.5, None, &Silent).is_ok());
    budget.spilled.break_files();
    let err = index.search(16, 8, 0.5, None, &Silent).unwrap_err();
    assert!(matches!(err, Error::TempFile { .. }), "{err}");
    assert!(matches!(
        index.find(16, 8, 0.5, &Silent),
        Err(Error::TempFile { .. })
    ));
    // A lookup that answers every call counts the pair as unlike and keeps the failure
    // for the check, which hands it over once.
    assert_eq!(index.similarity(0, 1), (0.0, 0.0));
    assert!(matches!(index.check(), Err(Error::TempFile { .. })));
    assert!(index.check().is_ok());
    // Failing while it is built.
    let budget = Budget::new(0, None);
    budget.spilled.break_files();
    let corpus = Corpus::from_texts(texts.iter().cloned());
    let built = Index::builder(&Params::default())
        .budget(&budget)
        .build(corpus, &Silent);
    assert!(matches!(built, Err(Error::TempFile { .. })));
}

#[test]
fn sorted_runs_of_wide_keys_bucket_as_packed_words_do() {
    // Items too many to pack beside their keys (over 16 million) are sorted as (key,
    // item) pairs; packed words are sorted as words. Forced here on a few items, in a
    // room small enough for runs on disk: the same pairs and huge buckets either way.
    let texts = texts(11, 200, 0);
    let index = build(&texts, &Budget::unlimited());
    let items = index.groups().nonempty();
    assert!(narrow(items.len()));
    let spilled = Arc::new(Spilled::default());
    let room = Room {
        bytes: 2048,
        dir: None,
        spilled: &spilled,
    };
    for b in 0..16 {
        let expand = Expand {
            band: b,
            max_bucket: usize::MAX,
        };
        let band = |narrow: bool| {
            let (mut pairs, mut huge) = (Spill::in_room(&room, "pairs"), Vec::new());
            let out = &mut (&mut pairs, &mut huge);
            banding::sorted_band(index.signatures(), &items, 8, &expand, narrow, &room, out)
                .unwrap();
            let mut sorted = pairs.sorted().unwrap();
            let mut got: Vec<u64> = Vec::new();
            while let Some(p) = sorted.next_record().unwrap() {
                got.push(p);
            }
            (got, huge)
        };
        assert_eq!(band(false), band(true), "band {b}");
    }
    assert!(spilled.total() > 0, "the keys went through runs");
}

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
