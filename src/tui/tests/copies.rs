//! Many copies of one page: a content of many identical documents is one row of the
//! list, a bucket too big to compare is one row saying so, and the counts, the export
//! and the clusters still take every pair they stand for.

use super::*;
use crate::tui::rows::Row;
use crate::tui::views::clusters::ClustersView;
use crate::tui::views::members::MembersView;
use simtui_engine::progress::Silent;
use simtui_engine::search::found::Pair;

/// Identical copies of one page (a block of `copies`·(`copies`−1)/2 pairs), near copies
/// of another differing in one word each (one bucket of nearly all of them in most
/// bands), and a small generated corpus with planted near-duplicates.
fn copies_dir(copies: usize, near: usize) -> tempfile::TempDir {
    let dir = corpus_dir();
    let c = dir.path().join("c");
    let page = "the same page copied again and again by a crawler ".repeat(8);
    for i in 0..copies {
        std::fs::write(c.join(format!("copy-{i:04}.txt")), &page).unwrap();
    }
    let words: Vec<String> = (0..300).map(|i| format!("word{}", i * 7 % 101)).collect();
    for i in 0..near {
        let mut text = words.clone();
        text[150] = format!("changed{i}");
        std::fs::write(c.join(format!("near-{i:04}.txt")), text.join(" ")).unwrap();
    }
    dir
}

fn loaded_copies(copies: usize, near: usize, max_bucket: usize) -> (tempfile::TempDir, App) {
    let dir = copies_dir(copies, near);
    let mut app = new_app(dir.path(), (120, 30));
    app.session_mut().set_max_bucket(Some(max_bucket));
    app.start();
    pump(&mut app);
    assert!(app.session().results().is_some());
    (dir, app)
}

fn ids_of(app: &App, pairs: &[Pair]) -> Vec<(String, String, f64)> {
    let docs = app.session().results().unwrap().index.docs();
    pairs
        .iter()
        .map(|p| {
            let id = |d: u32| docs.at(d as usize).id.clone();
            (id(p.a), id(p.b), p.jaccard)
        })
        .collect()
}

/// What the export writes: every pair of the rows, in list order.
fn exported(app: &App) -> Vec<Pair> {
    let r = app.session().results().unwrap();
    let listed = app.list().listed_for_test(r);
    listed
        .pairs(&Silent)
        .unwrap()
        .collect::<std::io::Result<Vec<Pair>>>()
        .unwrap()
}

#[test]
fn identical_copies_are_one_row_and_a_huge_bucket_one_row_saying_so() {
    let (_d, mut app) = loaded_copies(120, 300, 50);
    let r = app.session().results().unwrap();
    let blocks: Vec<_> = r.found.blocks.iter().filter(|b| b.is_within()).collect();
    assert_eq!(blocks.len(), 1, "the 120 copies are one block");
    assert_eq!(blocks[0].pairs, 120 * 119 / 2);
    assert_eq!(
        r.capped.len(),
        1,
        "the near copies' buckets of every band are one row"
    );
    let rows = app.list().visible().to_vec();
    assert!(matches!(rows[0], Row::Bucket(_)), "buckets first: {rows:?}");
    // No pair of the copies is spelled out: one row stands for them.
    let copies_spelled = r.found.pairs.iter().filter(|p| {
        let id = |d: u32| r.index.docs().id(d as usize);
        id(p.a).contains("copy-") && id(p.b).contains("copy-")
    });
    assert_eq!(copies_spelled.count(), 0);
    assert_eq!(app.list().visible_pairs(), r.found.total_pairs());
    let screen = screen(&app);
    assert!(screen.contains("120 identical documents"), "{screen}");
    assert!(screen.contains("not compared"), "{screen}");
    assert!(screen.contains("too big to compare"), "{screen}");
    let total = fmt_count(r.found.total_pairs());
    assert!(screen.contains(&format!("of {total} in")), "{screen}");

    // Enter on the block lists its documents.
    let at = rows
        .iter()
        .position(|r| matches!(r, Row::Block(_)))
        .unwrap();
    for _ in 0..at {
        app.update(Action::Down);
    }
    app.update(Action::Open);
    let members = app.top_as::<MembersView>().expect("the block's documents");
    assert_eq!(members.cluster().members.len(), 120);
    assert_eq!(members.cluster().min_jaccard, 1.0);
    app.update(Action::Back);

    // Enter on the bucket lists its documents, not compared with each other.
    app.update(Action::Top);
    app.update(Action::Open);
    let members = app.top_as::<MembersView>().expect("the bucket's documents");
    assert!(members.cluster().members.len() > 50);
    assert!(
        members
            .cluster()
            .members
            .iter()
            .all(|&d| r_id(&app, d).contains("near-")),
        "a bucket of the near copies"
    );
}

fn r_id(app: &App, d: u32) -> String {
    app.session()
        .results()
        .unwrap()
        .index
        .docs()
        .at(d as usize)
        .id
        .clone()
}

fn fmt_count(n: u64) -> String {
    crate::tui::widgets::fmt::count(n)
}

#[test]
fn the_export_writes_every_pair_a_block_stands_for_as_simtui_pairs_does() {
    let (_d, mut app) = loaded_copies(60, 300, 50);
    let r = app.session().results().unwrap();
    assert!(!r.found.blocks.is_empty());
    // `simtui pairs --max-bucket 50` at this banding: every pair spelled, in its order.
    let (b, rows) = app.session().banding();
    let search = r.index.search(b, rows, 0.0, Some(50), &Silent).unwrap();
    let all = r.index.spell(search).unwrap();
    let written = exported(&app);
    assert_eq!(written.len() as u64, r.found.total_pairs());
    assert_eq!(ids_of(&app, &written), ids_of(&app, &all.pairs));

    // Filtered by one copy: the pairs with it, as counted in the title.
    app.update(Action::StartFilter);
    for c in "copy-0007".chars() {
        app.update(Action::FilterChar(c));
    }
    app.update(Action::FilterKeep);
    let written = exported(&app);
    assert_eq!(written.len() as u64, app.list().visible_pairs());
    assert_eq!(written.len(), 59, "copy-0007 with each other copy");
    // Sorted by estimate, the block's pairs follow its row.
    app.update(Action::CycleSort);
    assert_eq!(exported(&app).len(), 59);
}

#[test]
fn clusters_of_the_list_take_a_block_whole() {
    let (_d, mut app) = loaded_copies(60, 0, 1000);
    act(&mut app, Action::Clusters);
    let view = app.top_as::<ClustersView>().expect("the clusters");
    let largest = &view.clusters().expect("joined")[0];
    assert_eq!(largest.members.len(), 60);
}
