//! Loading: JSON Lines records, saved indexes (opened after the first frame), and
//! more hash functions sharing the shingles.

use super::*;
use crate::tui::app::App;
use crate::tui::keys::Action;
use crate::tui::session::Opening;
use crate::tui::widgets::theme::Theme;
use crate::tui::worker::{self, JobError, Work};
use simtui_engine::index::Params;
use simtui_engine::source::WalkOptions;
use std::sync::Arc;

#[test]
fn diff_view_shows_records_of_a_json_lines_file_by_id() {
    // The generated corpus as JSON Lines: half plain, half gzip-compressed.
    let dir = tempfile::tempdir().unwrap();
    let g = generated(40);
    let c = dir.path().join("c");
    std::fs::create_dir_all(&c).unwrap();
    let lines: Vec<String> = g
        .docs
        .iter()
        .map(|d| serde_json::json!({"id": d.id, "text": d.text}).to_string() + "\n")
        .collect();
    std::fs::write(c.join("a.jsonl"), lines[..20].concat()).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, lines[20..].concat().as_bytes()).unwrap();
    std::fs::write(c.join("b.jsonl.gz"), gz.finish().unwrap()).unwrap();
    let walk = WalkOptions {
        input: simtui_engine::source::InputOptions {
            id_field: Some("id".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let mut app = App::new(
        Opening {
            roots: vec![c],
            walk,
            params: Params::default(),
            bands: 16,
            rows: 8,
        },
        Theme::mono(),
        (120, 30),
    );
    app.start();
    pump(&mut app);
    assert!(
        !app.list().visible().is_empty(),
        "the records have near-duplicates"
    );
    act(&mut app, Action::Open);
    let s = screen(&app);
    let (a, b) = ids(&app, 0);
    assert!(g.docs.iter().any(|d| d.id == a), "{a} is a record's own id");
    assert!(s.contains(&format!("A {a}")), "{s}");
    assert!(s.contains(&format!("B {b}")), "{s}");
    let text_a = &g.docs.iter().find(|d| d.id == a).unwrap().text;
    let first_words: String = text_a
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(s.contains(&first_words), "{first_words:?} in {s}");
}

#[test]
fn the_first_load_opens_and_creates_a_saved_index() {
    use simtui_engine::progress::Silent;
    let (dir, root) = two_files();
    let file = dir.path().join("c.idx");
    let load = || worker::Work::Load {
        roots: vec![root.clone()],
        walk: Default::default(),
        params: Default::default(),
        store: Some(worker::StoreJob { file: file.clone() }),
        budget: simtui_engine::storage::Budget::unlimited(),
    };
    let docs = |out: Result<worker::Output, JobError>| match out {
        Ok(worker::Output::Indexed { index, again, .. }) => {
            assert!(matches!(again, Some(worker::Again::Walk { .. })));
            index.docs().len()
        }
        _ => panic!("not indexed"),
    };
    assert_eq!(docs(worker::execute(load(), &Silent)), 2);
    assert!(file.is_file());
    simtui_engine::store::load(&file).unwrap();
    assert_eq!(docs(worker::execute(load(), &Silent)), 2);
}

#[test]
fn a_saved_index_is_decoded_after_the_first_frame_not_before() {
    use simtui_engine::progress::Silent;
    let dir = corpus_dir();
    let root = dir.path().join("c");
    let file = dir.path().join("c.idx");
    // A saved index, written by a first load.
    let mut app = new_app(dir.path(), (100, 30));
    app.set_store(
        crate::tui::event_loop::store_job(Some(&file), std::slice::from_ref(&root)).unwrap(),
    );
    app.start();
    pump(&mut app);
    assert!(app.session().results().is_some() && file.is_file());
    // Its body damaged (the checksum no longer matches): only decoding notices. What runs
    // before the terminal is entered only checks the header, and decodes nothing.
    let good = std::fs::read(&file).unwrap();
    let mut bad = good.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0x10;
    std::fs::write(&file, &bad).unwrap();
    // (A StoreJob holds only the file's path: nothing decoded comes with it.)
    let job = crate::tui::event_loop::store_job(Some(&file), std::slice::from_ref(&root))
        .expect("the header is fine: decoding is the worker's")
        .unwrap();
    // The loading view is drawn and says what it waits for.
    let mut app = new_app(dir.path(), (100, 30));
    app.set_store(Some(job));
    app.start();
    assert_shows(&app, "walking the folders");
    let now = app.session().now();
    app.session_mut()
        .progress_mut()
        .update(simtui_engine::progress::Stage::Read, 0, 60, now);
    assert_shows(&app, "opening the saved index");
    // Then the worker finds the damage: a usage error, as it was up front.
    pump(&mut app);
    let e = app.fatal().cloned().expect("fatal").message;
    assert!(e.contains("checksum"), "{e}");
    assert!(app.fatal().unwrap().usage);
    // What the header shows is still refused before the terminal (exit code 2).
    for (bytes, why) in [
        (&b"hello, not an index at all"[..], "not a simtui index"),
        (&good[..50], "truncated"),
    ] {
        std::fs::write(&file, bytes).unwrap();
        let e = crate::tui::event_loop::store_job(Some(&file), std::slice::from_ref(&root))
            .err()
            .expect("refused");
        assert!(
            e.downcast_ref::<crate::output::error::UsageError>()
                .is_some(),
            "{e}"
        );
        assert!(e.to_string().contains(why), "{e}");
    }
    assert!(
        crate::tui::event_loop::store_job(Some(&file), &[]).is_err(),
        "--index needs PATH"
    );
    // A good file opens through the worker as before.
    std::fs::write(&file, &good).unwrap();
    let job = crate::tui::event_loop::store_job(Some(&file), std::slice::from_ref(&root)).unwrap();
    let out = worker::execute(
        worker::Work::Load {
            roots: vec![root.clone()],
            walk: Default::default(),
            params: Default::default(),
            store: job,
            budget: simtui_engine::storage::Budget::unlimited(),
        },
        &Silent,
    );
    assert!(matches!(out, Ok(worker::Output::Indexed { .. })));
}

#[test]
fn signatures_of_another_width_or_sketch_share_the_shingles_and_equal_a_fresh_build() {
    use simtui_engine::progress::Silent;
    use simtui_engine::sketch::minhash::SketchKind;
    let dir = corpus_dir();
    let walk = || {
        simtui_engine::source::Corpus::walk(&[dir.path().join("c")], &WalkOptions::default())
            .unwrap()
    };
    for sketch in [SketchKind::MinHash, SketchKind::Oph] {
        let at = |sketch, num_perm| Params {
            sketch,
            num_perm,
            ..Params::default()
        };
        let index = Arc::new(
            simtui_engine::index::Index::builder(&at(sketch, 128))
                .build(walk(), &Silent)
                .unwrap(),
        );
        let before = index.signatures().data().unwrap().to_vec();
        // Wider, narrower, and the other sketch: each what a fresh build computes.
        let other = match sketch {
            SketchKind::MinHash => SketchKind::Oph,
            SketchKind::Oph => SketchKind::MinHash,
        };
        for (want, perms) in [(sketch, 160), (sketch, 112), (other, 128)] {
            let out = worker::execute(
                Work::Extend {
                    index: index.clone(),
                    sketch: want,
                    seed: 1,
                    perms,
                },
                &Silent,
            );
            let Ok(worker::Output::Extended(got)) = out else {
                panic!("no signatures")
            };
            let fresh = simtui_engine::index::Index::builder(&at(want, perms))
                .build(walk(), &Silent)
                .unwrap();
            assert_eq!(got.params(), fresh.params(), "{want:?} {perms}");
            assert_eq!(
                got.signatures().data().unwrap(),
                fresh.signatures().data().unwrap(),
                "{want:?} {perms}"
            );
            // The shingle sets are the original's, not a copy.
            assert!(
                std::ptr::eq(got.shingles(), index.shingles()),
                "the sets are shared"
            );
        }
        // The original is unchanged.
        assert_eq!(&*index.signatures().data().unwrap(), &before[..]);
        assert_eq!(index.num_perm(), 128);
    }
}

/// `--memory`: an explorer whose index spills everything to temporary files lists the
/// same pairs, with the same numbers, as one that holds it in memory.
#[test]
fn a_tiny_memory_budget_lists_the_same_pairs() {
    let dir = corpus_dir();
    let listed = |budget: simtui_engine::storage::Budget| {
        let mut app = new_app(dir.path(), (100, 30));
        app.set_budget(budget);
        app.start();
        pump(&mut app);
        let r = app.session().results().expect("results");
        let spilled = r.index.budget().spilled.total() > 0;
        let docs = r.index.docs();
        let pairs: Vec<(String, String, u64, u64)> = r
            .found
            .pairs
            .iter()
            .map(|p| {
                let id = |d: u32| docs.at(d as usize).id.clone();
                (id(p.a), id(p.b), p.jaccard.to_bits(), p.estimate.to_bits())
            })
            .collect();
        (pairs, spilled)
    };
    let (in_memory, limited) = listed(simtui_engine::storage::Budget::unlimited());
    assert!(!limited);
    let (bounded, limited) = listed(simtui_engine::storage::Budget::new(1, None));
    assert!(limited, "the index spilled to temporary files");
    assert!(!in_memory.is_empty());
    assert_eq!(bounded, in_memory);
}

/// A re-index (another k) walks the folder again rather than keep the first walk beside
/// the index, so it indexes the folder as it is then: the same documents as a fresh
/// build with that k, and a file added meanwhile too.
#[test]
fn a_reindex_walks_the_folder_again() {
    use simtui_engine::progress::Silent;
    let (_dir, root) = two_files();
    let load = Work::Load {
        roots: vec![root.clone()],
        walk: WalkOptions::default(),
        params: Params::default(),
        store: None,
        budget: simtui_engine::storage::Budget::unlimited(),
    };
    let Ok(worker::Output::Indexed { again, .. }) = worker::execute(load, &Silent) else {
        panic!("not indexed");
    };
    let again = again.expect("what to read again");
    assert!(matches!(again, worker::Again::Walk { .. }));
    std::fs::write(root.join("c.txt"), "one two three four nine ten").unwrap();
    let params = Params {
        k: 2,
        ..Params::default()
    };
    let reindex = Work::Reindex {
        again,
        params: params.clone(),
        budget: simtui_engine::storage::Budget::unlimited(),
    };
    let Ok(worker::Output::Indexed { index, again, .. }) = worker::execute(reindex, &Silent) else {
        panic!("not indexed");
    };
    assert!(again.is_none());
    let ids: Vec<String> = index.docs().iter().map(|d| d.into_owned().id).collect();
    assert_eq!(ids, ["a.txt", "b.txt", "c.txt"]);
    assert_eq!(index.params().k, 2);
}

/// A folder `c` of two near-duplicate files, in a temporary folder.
fn two_files() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("c");
    let texts = [
        ("a.txt", "one two three four five six seven"),
        ("b.txt", "one two three four five six eight"),
    ];
    simtui_gen::write_files(&root, &texts).unwrap();
    (dir, root)
}
