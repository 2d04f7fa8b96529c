//! The review of a removal list: removed documents beside the kept ones, ids the corpus
//! lacks said so, marks written to a keep-list as they change.

use super::*;
use crate::output::removals;
use crate::tui::views::diff::DiffView;
use crate::tui::views::review::{Review, ReviewView};
use std::collections::BTreeSet;

/// The corpus, and a removal list of its first three pairs (the second document removed
/// for the first) and one removal whose ids it lacks.
fn reviewing() -> (tempfile::TempDir, App, Vec<(String, String)>) {
    let (dir, app) = loaded((110, 30));
    let pairs: Vec<(String, String)> = (0..3).map(|i| ids(&app, i)).collect();
    let mut list = String::new();
    for (kept, removed) in &pairs {
        list.push_str(&format!(
            "{{\"id\":{removed:?},\"source\":{removed:?},\"kept\":{kept:?},\"jaccard\":0.9,\"cluster\":0}}\n"
        ));
    }
    list.push_str("{\"id\":\"gone.txt\",\"kept\":\"also-gone.txt\"}\n");
    let path = dir.path().join("out.removed.jsonl");
    std::fs::write(&path, &list).unwrap();
    let review = Review {
        list: path.clone(),
        removed: Arc::new(removals::parse(&list).unwrap()),
        keep_list: removals::default_keep_list(&path),
        kept: BTreeSet::new(),
    };
    let mut app = new_app(dir.path(), (110, 30));
    app.open_review(review);
    app.start();
    pump(&mut app);
    (dir, app, pairs)
}

#[test]
fn the_review_lists_removals_and_opens_kept_beside_removed() {
    let (_d, mut app, pairs) = reviewing();
    assert!(app.top_as::<ReviewView>().is_some(), "the review is on top");
    let screen = screen(&app);
    assert!(screen.contains("Review"), "{screen}");
    assert!(screen.contains("4 removals"), "{screen}");
    assert!(screen.contains("1 not in the corpus"), "{screen}");
    assert!(screen.contains(&pairs[0].1), "{screen}");
    app.update(Action::Down);
    app.update(Action::Open);
    let d = app.top_as::<DiffView>().expect("the diff opens");
    let shown = (d.docs().0.id.clone(), d.docs().1.id.clone());
    assert_eq!(shown, pairs[1], "kept on the left, removed on the right");
    app.update(Action::Back);
    // The removal whose ids the corpus lacks opens nothing, and says why.
    app.update(Action::Bottom);
    app.update(Action::Open);
    assert!(app.top_as::<ReviewView>().is_some());
    assert!(app.status().unwrap().contains("not in the corpus"));
}

#[test]
fn marks_are_written_to_the_keep_list_as_they_change() {
    let (d, mut app, pairs) = reviewing();
    let keep_list = d.path().join("out.keep-list");
    app.update(Action::MarkWrong);
    pump(&mut app);
    let kept = removals::keep_ids(&std::fs::read_to_string(&keep_list).unwrap());
    assert_eq!(kept, BTreeSet::from([pairs[0].1.clone()]));
    assert!(screen(&app).contains("WRONG"));
    app.update(Action::Down);
    app.update(Action::MarkWrong);
    pump(&mut app);
    app.update(Action::Top);
    app.update(Action::MarkWrong); // unmarked again
    pump(&mut app);
    let kept = removals::keep_ids(&std::fs::read_to_string(&keep_list).unwrap());
    assert_eq!(kept, BTreeSet::from([pairs[1].1.clone()]));
    let review = app.top_as::<ReviewView>().unwrap();
    assert_eq!(review.marked(), &kept);
    // Esc leaves the review for the pairs list.
    app.update(Action::Back);
    assert!(app.top_as::<ReviewView>().is_none());
}
