//! The review of a removal list: removed documents beside the kept ones, ids the corpus
//! lacks said so, marks written to a keep-list as they change.

use super::*;
use crate::input::removals;
use crate::tui::jobs::Cmd;
use crate::tui::keep_list::KeepList;
use crate::tui::views::diff::DiffView;
use crate::tui::views::review::{Review, ReviewView};
use crate::tui::worker::Kind;
use ratatui::crossterm::event::KeyCode;
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
        format: "simtui",
        removed: Arc::new(removals::parse(&list).unwrap()),
        tasks: None,
        keep_list: KeepList::new(removals::default_keep_list(&path)),
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
    act(&mut app, Action::MarkWrong);
    let kept = removals::keep_ids(&std::fs::read_to_string(&keep_list).unwrap());
    assert_eq!(kept, BTreeSet::from([pairs[0].1.clone()]));
    assert_shows(&app, "WRONG");
    app.update(Action::Down);
    act(&mut app, Action::MarkWrong);
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

/// x in the diff of a removal marks it as x in the review's list does, and the diff's
/// header says so (issue 28: x there was ignored).
#[test]
fn x_in_the_diff_of_a_removal_marks_it() {
    let (d, mut app, pairs) = reviewing();
    let keep_list = d.path().join("out.keep-list");
    app.update(Action::Down);
    act(&mut app, Action::Open);
    assert!(app.top_as::<DiffView>().is_some());
    assert!(!screen(&app).contains("marked WRONG"));
    press(&mut app, KeyCode::Char('x'));
    pump(&mut app);
    assert!(app.top_as::<DiffView>().is_some(), "the diff stays open");
    assert_shows(&app, "marked WRONG (x)");
    let kept = removals::keep_ids(&std::fs::read_to_string(&keep_list).unwrap());
    assert_eq!(kept, BTreeSet::from([pairs[1].1.clone()]));
    // x again: not wrong after all.
    press(&mut app, KeyCode::Char('x'));
    pump(&mut app);
    assert!(!screen(&app).contains("marked WRONG"));
    let kept = removals::keep_ids(&std::fs::read_to_string(&keep_list).unwrap());
    assert!(kept.is_empty(), "{kept:?}");
    // A diff opened from the pairs list has no removal to mark: x does nothing there.
    app.update(Action::Back);
    app.update(Action::Back);
    assert!(app.top_as::<ReviewView>().is_none());
    act(&mut app, Action::Open);
    assert!(app.top_as::<DiffView>().is_some());
    press(&mut app, KeyCode::Char('x'));
    pump(&mut app);
    assert!(app.top_as::<DiffView>().is_some());
    assert!(app.status().is_none_or(|s| !s.contains("wrong")));
}

// ---------------------------------------------------------------------------------------
// Other tools' removal lists, in their documented shapes, over a JSON Lines corpus

/// `c/a.jsonl` (3 records) and `c/b.jsonl` (2), b.jsonl's second record a copy of
/// a.jsonl's first with one word changed; `extra` is written beside them, the list is
/// read from `list` (under the temporary folder) and reviewed.
fn reviewing_other(
    extra: impl FnOnce(&std::path::Path) -> std::path::PathBuf,
    tasks: Option<u32>,
) -> (tempfile::TempDir, App) {
    let (dir, mut app) = started_other(extra, tasks);
    pump(&mut app);
    (dir, app)
}

/// As [`reviewing_other`], the first load queued but not run.
fn started_other(
    extra: impl FnOnce(&std::path::Path) -> std::path::PathBuf,
    tasks: Option<u32>,
) -> (tempfile::TempDir, App) {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    std::fs::create_dir(&c).unwrap();
    let words = |w: &str| {
        (0..60)
            .map(|i| format!("{w}{i}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let line = |text: &str| format!("{{\"text\":\"{text}\"}}\n");
    let copy = words("alpha").replace("alpha30", "omega");
    std::fs::write(
        c.join("a.jsonl"),
        [
            line(&words("alpha")),
            line(&words("beta")),
            line(&words("delta")),
        ]
        .concat(),
    )
    .unwrap();
    std::fs::write(
        c.join("b.jsonl"),
        [line(&words("gamma")), line(&copy)].concat(),
    )
    .unwrap();
    let path = extra(dir.path());
    let read = crate::input::foreign_removals::read(&path).unwrap();
    let review = Review {
        list: path.clone(),
        format: read.format,
        removed: Arc::new(read.removed),
        tasks,
        keep_list: KeepList::new(removals::default_keep_list(&path)),
        kept: BTreeSet::new(),
    };
    let mut app = new_app(dir.path(), (120, 30));
    app.open_review(review);
    app.start();
    (dir, app)
}

/// The diff opened on the selected removal: its (kept, removed) ids.
fn diffed(app: &mut App) -> (String, String) {
    app.update(Action::Open);
    let d = app.top_as::<DiffView>().expect("the diff opens");
    let shown = (d.docs().0.id.clone(), d.docs().1.id.clone());
    app.update(Action::Back);
    shown
}

#[test]
fn text_dedup_rows_are_reviewed_as_the_corpus_documents_they_number() {
    // save_to_disk's shape: a data-*.arrow stream with __INDEX__ and __CLUSTER__ (row 4,
    // b.jsonl's second record, kept out for row 0), beside its JSON files.
    let (d, mut app) = reviewing_other(
        |dir| {
            use arrow_array::{Int64Array, RecordBatch};
            use arrow_schema::{DataType, Field, Schema};
            let out = dir.join("deduped");
            std::fs::create_dir(&out).unwrap();
            let schema = Arc::new(Schema::new(vec![
                Field::new("__INDEX__", DataType::Int64, false),
                Field::new("__CLUSTER__", DataType::Int64, false),
            ]));
            let batch = RecordBatch::try_new(
                schema.clone(),
                vec![
                    Arc::new(Int64Array::from(vec![0, 1, 2, 3, 4, 9])),
                    Arc::new(Int64Array::from(vec![0, 1, 2, 3, 0, 1])),
                ],
            )
            .unwrap();
            let file = std::fs::File::create(out.join("data-00000-of-00001.arrow")).unwrap();
            let mut w = arrow_ipc::writer::StreamWriter::try_new(file, &schema).unwrap();
            w.write(&batch).unwrap();
            w.finish().unwrap();
            std::fs::write(out.join("state.json"), "{}\n").unwrap();
            out
        },
        None,
    );
    let screen = screen(&app);
    assert!(
        screen.contains("(text-dedup) · 1 not in the corpus · 2 removals"),
        "{screen}"
    );
    assert!(screen.contains("row 9 (not in the corpus)"), "{screen}");
    assert_eq!(diffed(&mut app), ("a.jsonl:1".into(), "b.jsonl:2".into()));
    // The keep-list gets the corpus's id of the removed row.
    act(&mut app, Action::MarkWrong);
    let kept = std::fs::read_to_string(d.path().join("deduped.keep-list")).unwrap();
    assert_eq!(
        removals::keep_ids(&kept),
        BTreeSet::from(["b.jsonl:2".to_string()])
    );
    // The unmatched row can't be marked, and says why.
    app.update(Action::Down);
    app.update(Action::MarkWrong);
    assert!(app.status().unwrap().contains("not in the corpus"));
}

/// Datatrove's `.remove` folder of two tasks: task 0 read a.jsonl, task 1 b.jsonl; task
/// 1 dropped its document 1 (a copy of a.jsonl's first), and a task 5 that read nothing
/// is named too. The first load queued.
fn started_datatrove() -> (tempfile::TempDir, App) {
    started_other(
        |dir| {
            let out = dir.join("remove");
            std::fs::create_dir(&out).unwrap();
            std::fs::write(out.join("000001.remove"), 1u32.to_le_bytes()).unwrap();
            std::fs::write(out.join("000005.remove"), 0u32.to_le_bytes()).unwrap();
            out
        },
        Some(2),
    )
}

/// The nearest documents' job kind.
const NEAREST: Kind = Kind::Task("Nearest");

/// Runs the queued jobs as [`pump`] does, but holds back the lookups of the nearest
/// documents, as a worker still busy with them would: those jobs, in the order queued.
fn pump_holding_lookups(app: &mut App) -> Vec<Job> {
    let mut held = Vec::new();
    for _ in 0..100 {
        let cmds = app.take_outbox();
        if cmds.is_empty() {
            return held;
        }
        for cmd in cmds {
            match cmd {
                Cmd::Spawn(job) if job.work.kind() == NEAREST => held.push(*job),
                Cmd::Spawn(job) => {
                    run_job(app, *job);
                }
                Cmd::Cancel(_) => {}
            }
        }
    }
    panic!("jobs keep queueing more jobs");
}

#[test]
fn datatrove_remove_files_are_reviewed_beside_the_nearest_document() {
    let (_d, mut app) = started_datatrove();
    pump(&mut app);
    assert_eq!(app.top_as::<ReviewView>().unwrap().looking(), None);
    let screen = screen(&app);
    assert!(
        screen.contains("(datatrove .remove) · 1 not in the corpus"),
        "{screen}"
    );
    assert!(screen.contains("nearest: a.jsonl:1"), "{screen}");
    assert!(screen.contains("(not named)"), "{screen}");
    assert!(screen.contains("task 5 document 0"), "{screen}");
    assert_eq!(diffed(&mut app), ("a.jsonl:1".into(), "b.jsonl:2".into()));
}

#[test]
fn datatrove_exclusion_documents_are_found_by_datatrove_names() {
    // The exclusion writer's gzipped JSON Lines; the input had no ids, so datatrove named
    // them FILE/LINE (from 0).
    let (_d, mut app) = reviewing_other(
        |dir| {
            use std::io::Write;
            let out = dir.join("removed");
            std::fs::create_dir(&out).unwrap();
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            let doc = "{\"text\":\"alpha0 alpha1\",\"id\":\"b.jsonl/1\",\"metadata\":{\"file_path\":\"/in/b.jsonl\"}}\n";
            gz.write_all(doc.as_bytes()).unwrap();
            std::fs::write(out.join("00001.jsonl.gz"), gz.finish().unwrap()).unwrap();
            out
        },
        None,
    );
    let screen = screen(&app);
    assert!(
        screen.contains("(datatrove exclusion) · 1 removal"),
        "{screen}"
    );
    assert_eq!(diffed(&mut app), ("a.jsonl:1".into(), "b.jsonl:2".into()));
}

#[test]
fn the_review_is_drawn_before_the_nearest_documents_are_found() {
    let (_d, mut app) = started_datatrove();
    let mut held = pump_holding_lookups(&mut app);
    assert_eq!(held.len(), 1, "one lookup, on a worker");
    // The rows are there, the one waiting for its nearest document says so.
    let screen = screen(&app);
    assert!(
        screen.contains("finding the nearest documents 0/1…"),
        "{screen}"
    );
    assert!(screen.contains("nearest: …"), "{screen}");
    assert!(screen.contains("task 5 document 0"), "{screen}");
    assert!(!screen.contains("nearest: a.jsonl:1"), "{screen}");
    // Enter on it opens nothing yet, and says why.
    app.update(Action::Open);
    assert!(app.top_as::<ReviewView>().is_some(), "no diff yet");
    assert!(
        app.status()
            .unwrap()
            .contains("still being looked up (0 of 1 done)"),
        "{:?}",
        app.status()
    );
    // Its progress reaches the title, then its result fills the row in.
    let job = held.remove(0);
    let (tx, rx) = std::sync::mpsc::channel();
    let reporter = Reporter::new(job.id, tx, Arc::new(AtomicBool::new(false)));
    let out = worker::execute(job.work, &reporter).ok().unwrap();
    for m in rx.try_iter() {
        app.handle(m);
    }
    let screen = super::screen(&app);
    assert!(
        screen.contains("finding the nearest documents 1/1…"),
        "{screen}"
    );
    assert_eq!(app.top_as::<ReviewView>().unwrap().looking(), Some((1, 1)));
    assert!(app.handle(Msg::Done {
        id: job.id,
        out: Box::new(out)
    }));
    let screen = super::screen(&app);
    assert!(!screen.contains("finding the nearest"), "{screen}");
    assert!(screen.contains("nearest: a.jsonl:1"), "{screen}");
    assert_eq!(diffed(&mut app), ("a.jsonl:1".into(), "b.jsonl:2".into()));
    let again = app
        .outbox()
        .iter()
        .any(|c| matches!(c, Cmd::Spawn(job) if job.work.kind() == NEAREST));
    assert!(!again, "looked up once");
}

#[test]
fn leaving_the_review_cancels_the_lookup_and_drops_its_result() {
    let (_d, mut app) = started_datatrove();
    let held = pump_holding_lookups(&mut app);
    app.update(Action::Back);
    assert!(app.top_as::<ReviewView>().is_none());
    assert!(
        app.outbox()
            .iter()
            .any(|c| matches!(c, Cmd::Cancel(k) if *k == NEAREST)),
        "the lookup is cancelled"
    );
    app.take_outbox();
    let before = screen(&app);
    for job in held {
        assert!(!run_job(&mut app, job), "its result is dropped");
    }
    assert_eq!(screen(&app), before);
    assert!(!app.busy(), "no job left running: the explorer idles");
}

#[test]
fn a_lookup_for_an_older_index_is_dropped() {
    let (_d, mut app) = started_datatrove();
    let mut old = pump_holding_lookups(&mut app);
    // A re-index (a new k) while the lookup runs: the new results get a lookup of their
    // own, which supersedes the old one.
    app.with_cx(|cx| cx.session.set_k(3, cx.jobs).unwrap());
    let mut new = pump_holding_lookups(&mut app);
    assert_eq!((old.len(), new.len()), (1, 1));
    assert_eq!(app.session().results().unwrap().index.params().k, 3);
    assert!(
        !run_job(&mut app, old.remove(0)),
        "the old index's result is dropped"
    );
    let screen = screen(&app);
    assert!(screen.contains("nearest: …"), "still waiting: {screen}");
    assert!(run_job(&mut app, new.remove(0)));
    let screen = super::screen(&app);
    assert!(screen.contains("nearest: a.jsonl:1"), "{screen}");
}
