//! Pairs computed elsewhere (`--pairs FILE`): the file's pairs listed with the J it
//! stores, ids found in the corpus, the diff opened on them, ids the corpus lacks said so.

use super::*;
use crate::input::pairs_file::{self, StoredPair};
use crate::output::pairs::Second;
use crate::tui::views::diff::DiffView;
use crate::tui::views::pairs_file::{PairsFile, PairsFileView};

/// The corpus, and a pairs file of the list's first three pairs written as `simtui pairs
/// --format parquet` writes it, read back, with one pair whose ids the corpus lacks
/// appended.
fn opened() -> (tempfile::TempDir, App, Vec<StoredPair>) {
    let (dir, app) = loaded((110, 30));
    let index = app.session().results().unwrap().index.clone();
    let mut shown = app.list().pairs_shown(app.session()).into_iter().take(3);
    let path = dir.path().join("pairs.parquet");
    let mut file = std::fs::File::create(&path).unwrap();
    let mut next = || Ok(shown.next());
    crate::output::parquet::write_pairs(&mut file, &index, &mut next, None, Second::Estimate)
        .unwrap();
    drop(file);
    let mut pairs = pairs_file::read(&path).unwrap();
    assert_eq!(pairs.len(), 3);
    for (i, p) in pairs.iter().enumerate() {
        let (a, b) = ids(&app, i);
        assert_eq!((&p.a, &p.b), (&a, &b), "the Parquet file's ids read back");
    }
    pairs.push(StoredPair {
        a: "gone.txt".into(),
        b: "also-gone.txt".into(),
        jaccard: 0.5,
        estimate: None,
    });
    let mut app = new_app(dir.path(), (110, 30));
    app.open_pairs_file(PairsFile {
        path,
        pairs: Arc::new(pairs.clone()),
    });
    app.start();
    pump(&mut app);
    (dir, app, pairs)
}

#[test]
fn the_files_pairs_are_listed_and_open_the_diff_with_the_stored_j() {
    let (_d, mut app, pairs) = opened();
    assert!(
        app.top_as::<PairsFileView>().is_some(),
        "the file's pairs are on top"
    );
    let shown = screen(&app);
    assert!(shown.contains("Pairs"), "{shown}");
    assert!(shown.contains("4 pairs"), "{shown}");
    assert!(shown.contains("1 not in the corpus"), "{shown}");
    assert!(shown.contains(&pairs[0].a), "{shown}");
    assert!(
        shown.contains(&format!("{:.3}", pairs[0].jaccard)),
        "{shown}"
    );
    app.update(Action::Down);
    app.update(Action::Open);
    let d = app.top_as::<DiffView>().expect("the diff opens");
    let shown = (d.docs().0.id.clone(), d.docs().1.id.clone());
    assert_eq!(shown, (pairs[1].a.clone(), pairs[1].b.clone()));
    assert_eq!(d.pair().jaccard, pairs[1].jaccard, "the J the file stores");
    // n in the diff: the file's next pair.
    app.update(Action::NextPair);
    let d = app.top_as::<DiffView>().expect("the next pair's diff");
    assert_eq!(d.docs().0.id, pairs[2].a);
    app.update(Action::Back);
    assert_eq!(app.top_as::<PairsFileView>().unwrap().selected(), 2);
    // The pair whose ids the corpus lacks is listed, said so, and opens nothing.
    app.update(Action::Bottom);
    assert_shows(&app, "(not in the corpus)");
    app.update(Action::Open);
    assert!(app.top_as::<PairsFileView>().is_some());
    assert!(app.status().unwrap().contains("not in the corpus"));
    // Esc leaves the file's pairs for the pairs found here.
    app.update(Action::Back);
    assert!(app.top_as::<PairsFileView>().is_none());
}

#[test]
fn a_stored_j_other_than_the_corpus_s_is_shown_beside_it() {
    let (dir, app) = loaded((110, 30));
    let (a, b) = ids(&app, 0);
    let path = dir.path().join("pairs.jsonl");
    std::fs::write(
        &path,
        format!("{{\"a\":{a:?},\"b\":{b:?},\"jaccard\":0.123,\"estimate\":0.25}}\n"),
    )
    .unwrap();
    let pairs = pairs_file::read(&path).unwrap();
    let mut app = new_app(dir.path(), (110, 30));
    app.open_pairs_file(PairsFile {
        path,
        pairs: Arc::new(pairs),
    });
    app.start();
    pump(&mut app);
    let screen = screen(&app);
    let row = screen.lines().find(|l| l.contains(&a)).expect("the row");
    assert!(row.contains("0.123") && row.contains("0.250"), "{row}");
    let here = app.session().results().unwrap().index.clone();
    let (ia, ib) = (
        here.docs().iter().position(|d| d.id == a).unwrap() as u32,
        here.docs().iter().position(|d| d.id == b).unwrap() as u32,
    );
    let j_here = format!("{:.3}", here.similarity(ia, ib).0);
    assert!(row.contains(&j_here), "the corpus's own J beside it: {row}");
}
