//! How actions and jobs change the state: re-banding without re-hashing, re-indexing,
//! the filter, the sort, moving, the diff's n/p, real recall, quitting, crashes, limits.

use super::*;
use crate::output::diff_model as diff;
use crate::tui::jobs::Cmd;
use crate::tui::keys::Action;
use crate::tui::session::AllState;
use crate::tui::views;
use crate::tui::views::diff::DiffView;
use crate::tui::views::list::Sort;
use crate::tui::worker::{Msg, Work};
use simtui_engine::text::Unit;

#[test]
fn a_session_of_actions_rebands_without_rehashing() {
    let (_d, mut app) = loaded((100, 30));
    assert_eq!(app.session().counters().sketch_jobs, 1);
    assert_eq!(app.session().index().unwrap().num_perm(), 128);

    // down, Enter: the diff of the second pair.
    app.update(Action::Down);
    assert_eq!(app.list().cursor().selected, 1);
    let second = ids(&app, 1);
    act(&mut app, Action::Open);
    let d = app.top_as::<DiffView>().unwrap();
    assert_eq!((d.docs().0.id.clone(), d.docs().1.id.clone()), second);
    assert!(matches!(d.model(), Some(Ok(_))));
    app.update(Action::Back);
    assert!(app.top_as::<DiffView>().is_none());

    // r−: 16 × 7 bands OPH signatures of exactly 112 bins, as `pairs -b 16 -r 7`
    // computes them (the first 112 of 128 bins are another sketch): sketched in the
    // background, the old list shown meanwhile. The selected pair stays selected (more
    // pairs are found, so its rank may change).
    app.update(Action::Bottom);
    let chosen = ids(&app, app.list().cursor().selected);
    app.update(Action::RowsDown);
    assert_eq!(app.session().banding(), (16, 7));
    assert!(app.session().rebanding());
    assert!(app.summary().unwrap().starts_with("sketching 112 oph"));
    pump(&mut app);
    let r = app.session().results().unwrap();
    assert_eq!((r.bands, r.rows), (16, 7));
    assert_eq!(r.index.num_perm(), 112);
    assert_eq!(ids(&app, app.list().cursor().selected), chosen);
    assert_eq!(app.session().counters().sketch_jobs, 2);
    assert_eq!(
        app.list().tuning().prev(),
        Some((16, 8)),
        "the curve before tuning is kept, dimmed"
    );

    // b+ to 19 × 7 = 133: signatures of 133 bins; the keys pressed before the job
    // ended only start jobs the last one supersedes.
    app.update(Action::BandsUp);
    app.update(Action::BandsUp);
    act(&mut app, Action::BandsUp);
    assert_eq!(app.session().index().unwrap().num_perm(), 133);
    let r = app.session().results().unwrap();
    assert_eq!((r.bands, r.rows), (19, 7));
    // Back to 16 × 7 and 16 × 8: their signatures were kept, nothing is sketched.
    let sketched = app.session().counters().sketch_jobs;
    for _ in 0..3 {
        app.update(Action::BandsDown);
    }
    pump(&mut app);
    assert_eq!(app.session().index().unwrap().num_perm(), 112);
    act(&mut app, Action::RowsUp);
    assert_eq!(app.session().index().unwrap().num_perm(), 128);
    assert_eq!(
        app.session().counters().sketch_jobs,
        sketched + 2,
        "17x7 and 18x7 only"
    );
    let bands_before_k = app.session().counters().band_jobs;

    // k+: a background re-index; the old results stay, marked stale.
    let old_pairs = app.session().results().unwrap().found.pairs.len();
    app.update(Action::ToggleTuning);
    app.update(Action::ShingleUp);
    assert_eq!(app.session().params().k, 6);
    assert!(app.session().stale());
    assert_eq!(
        app.session().results().unwrap().found.pairs.len(),
        old_pairs
    );
    assert_shows(&app, "STALE");
    let busy = app.summary().unwrap();
    assert!(busy.starts_with("re-indexing k=6 word: read"), "{busy}");
    assert!(screen(&app).contains(&busy));
    pump(&mut app);
    assert!(!app.session().stale());
    assert_eq!(app.session().results().unwrap().index.params().k, 6);
    assert_eq!(app.session().counters().index_jobs, 2);
    assert_eq!(app.session().counters().band_jobs, bands_before_k + 1);

    // u: character shingles, re-indexed in the background like a k change, at the
    // character k (the word k 6 is kept for the way back).
    let word_pairs = app.session().results().unwrap().found.pairs.clone();
    app.update(Action::ToggleUnit);
    assert_eq!(app.session().params().text.unit, Unit::Char);
    assert_eq!(app.session().params().k, crate::tui::session::CHAR_K);
    assert!(app.session().stale());
    let reindex = app.outbox().iter().find_map(|c| match c {
        Cmd::Spawn(job) => match &job.work {
            Work::Reindex { params, .. } => Some(params.clone()),
            _ => None,
        },
        _ => None,
    });
    let reindex = reindex.expect("a re-index job");
    assert_eq!(reindex.text.unit, Unit::Char);
    assert_eq!(reindex.k, crate::tui::session::CHAR_K);
    assert_eq!(app.session().results().unwrap().found.pairs, word_pairs);
    assert_shows(&app, "STALE (re-indexing k=9 char)");
    pump(&mut app);
    assert!(!app.session().stale());
    let index = app.session().results().unwrap().index.clone();
    assert_eq!(index.params().text.unit, Unit::Char);
    assert_eq!(index.params().k, crate::tui::session::CHAR_K);
    assert_eq!(app.session().counters().index_jobs, 3);
    // The shingles are those of characters: a document's set is that of its graphemes.
    let doc = &index.docs().at(0);
    let text = simtui_engine::source::read_text(
        &simtui_engine::source::Entry {
            id: doc.id.clone(),
            source: doc.source.clone(),
            bytes: doc.bytes,
        },
        index.params().max_bytes,
    )
    .unwrap();
    let mut tokens = Vec::new();
    simtui_engine::text::Tokenizer::new(&index.params().text).token_hashes(&text, &mut tokens);
    let mut set = Vec::new();
    simtui_engine::shingle::shingle_set(&tokens, crate::tui::session::CHAR_K, &mut set);
    assert_eq!(
        &*index.shingles().get(doc.group as usize).unwrap(),
        &set[..]
    );
    assert!(
        doc.tokens > 2 * text.split_whitespace().count() as u64,
        "char tokens"
    );
    // u again: back to words at k=6.
    app.update(Action::ToggleUnit);
    assert_eq!(
        (app.session().params().text.unit, app.session().params().k),
        (Unit::Word, 6)
    );
    assert!(app.session().stale());
    pump(&mut app);
    assert!(!app.session().stale());
    assert_eq!(app.session().results().unwrap().found.pairs, word_pairs);
    // The unit alone makes results stale (k is not all stale() compares).
    app.session_mut().params_mut().text.unit = Unit::Char;
    assert!(app.session().stale());
    app.session_mut().params_mut().text.unit = Unit::Word;

    // filter: typed live, kept with Enter.
    app.update(Action::ToggleTuning);
    app.update(Action::StartFilter);
    assert_eq!(app.context(), &views::filter::KEYS);
    for c in "d000/doc00000".chars() {
        app.update(Action::FilterChar(c));
    }
    assert!(!app.list().visible().is_empty());
    for pos in 0..app.list().visible().len() {
        let (a, b) = ids(&app, pos);
        assert!(
            a.contains("d000/doc00000") || b.contains("d000/doc00000"),
            "{a} {b}"
        );
    }
    app.update(Action::FilterKeep);
    assert_eq!(app.context(), &views::list::KEYS);
    assert_eq!(app.list().filter().text(), "d000/doc00000");
    app.update(Action::Back);
    assert!(app.list().filter().text().is_empty());
    assert_eq!(
        app.list().visible().len(),
        app.session().results().unwrap().found.pairs.len()
    );
}

#[test]
fn a_filter_selects_its_first_match_and_enter_opens_it() {
    let (_d, mut app) = loaded((100, 30));
    // Select the last pair, then type a filter it still matches (every id has "doc"):
    // the selection goes to the first match, not the row it was on.
    app.update(Action::Bottom);
    assert!(app.list().cursor().selected > 0);
    app.update(Action::StartFilter);
    for c in "doc".chars() {
        app.update(Action::FilterChar(c));
    }
    assert_eq!(
        app.list().cursor().selected,
        0,
        "the first match is selected"
    );
    let first = ids(&app, 0);
    app.update(Action::FilterKeep);
    act(&mut app, Action::Open);
    let d = app.top_as::<DiffView>().expect("the diff opens");
    assert_eq!((d.docs().0.id.clone(), d.docs().1.id.clone()), first);
}

#[test]
fn filter_escape_clears_and_q_is_text_while_typing() {
    let (_d, mut app) = loaded((100, 30));
    let all = app.list().visible().len();
    app.update(Action::StartFilter);
    let ev = ratatui::crossterm::event::Event::Key(ratatui::crossterm::event::KeyEvent::new(
        ratatui::crossterm::event::KeyCode::Char('q'),
        ratatui::crossterm::event::KeyModifiers::NONE,
    ));
    app.handle(Msg::Input(ev));
    assert!(!app.quitting());
    assert_eq!(app.list().filter().text(), "q");
    app.update(Action::FilterClear);
    assert_eq!(app.list().filter().text(), "");
    assert_eq!(app.list().visible().len(), all);
    assert_eq!(app.context(), &views::list::KEYS);
}

#[test]
fn sort_cycles_and_keeps_the_selected_pair() {
    let (_d, mut app) = loaded((100, 30));
    app.update(Action::Down);
    app.update(Action::Down);
    let chosen = ids(&app, app.list().cursor().selected);
    app.update(Action::CycleSort);
    assert_eq!(app.list().sort(), Sort::Estimate);
    assert_eq!(ids(&app, app.list().cursor().selected), chosen);
    let est = shown(&app, |p| p.estimate);
    assert!(est.windows(2).all(|w| w[0] >= w[1]));
    app.update(Action::CycleSort);
    assert_eq!(app.list().sort(), Sort::Path);
    let names: Vec<(String, String)> = (0..app.list().visible().len())
        .map(|p| ids(&app, p))
        .collect();
    assert!(names.windows(2).all(|w| w[0] <= w[1]));
    assert_shows(&app, "by path");
    app.update(Action::CycleSort);
    assert_eq!(app.list().sort(), Sort::Jaccard);
}

#[test]
fn navigation_keys_stay_in_bounds_and_keep_the_selection_visible() {
    let (_d, mut app) = loaded((100, 16));
    let n = app.list().visible().len();
    app.update(Action::Up);
    assert_eq!(app.list().cursor().selected, 0);
    app.update(Action::Bottom);
    assert_eq!(app.list().cursor().selected, n - 1);
    let page = crate::tui::widgets::layout::list_rows(
        crate::tui::widgets::layout::pairs(
            crate::tui::widgets::layout::screen(crate::tui::widgets::layout::area(app.size())).body,
            false,
            false,
        )
        .list,
    );
    assert!(
        app.list().cursor().offset + page > app.list().cursor().selected
            && app.list().cursor().offset <= app.list().cursor().selected
    );
    app.update(Action::Down);
    assert_eq!(app.list().cursor().selected, n - 1);
    app.update(Action::Top);
    assert_eq!(
        (app.list().cursor().selected, app.list().cursor().offset),
        (0, 0)
    );
    app.update(Action::PageDown);
    assert_eq!(app.list().cursor().selected, page.min(n - 1));
    app.update(Action::WheelDown);
    assert_eq!(app.list().cursor().selected, (page + 3).min(n - 1));
    // The selected row is on screen.
    let (a, _) = ids(&app, app.list().cursor().selected);
    assert!(screen(&app).contains(&a));
}

#[test]
fn next_and_previous_pair_in_the_diff() {
    let (_d, mut app) = loaded((100, 30));
    act(&mut app, Action::Open);
    act(&mut app, Action::NextPair);
    assert_eq!(app.list().cursor().selected, 1);
    let d = app.top_as::<DiffView>().unwrap();
    assert_eq!((d.docs().0.id.clone(), d.docs().1.id.clone()), ids(&app, 1));
    assert!(matches!(d.model(), Some(Ok(_))));
    app.update(Action::PrevPair);
    app.update(Action::PrevPair); // already first: stays, says so
    pump(&mut app);
    assert_eq!(app.list().cursor().selected, 0);
    assert_eq!(app.status(), Some("first pair"));
    // Scrolling is clamped to the rows.
    for _ in 0..10_000 {
        app.update(Action::Down);
    }
    let d = app.top_as::<DiffView>().unwrap();
    assert!(d.scroll() < d.layout().rows.len().max(1));
}

#[test]
fn diff_rewraps_on_resize() {
    let (_d, mut app) = loaded((100, 30));
    act(&mut app, Action::Open);
    let wide = app.top_as::<DiffView>().unwrap().layout().rows.len();
    app.update(Action::Resize(60, 30));
    let d = app.top_as::<DiffView>().unwrap();
    assert_eq!(
        d.layout().column,
        crate::tui::views::diff::column_width(app.size())
    );
    assert!(
        d.layout().rows.len() > wide,
        "narrower columns wrap into more rows"
    );
}

#[test]
fn real_recall_is_measured_from_all_pairs() {
    let (_d, mut app) = loaded((100, 30));
    let Some(AllState::Ready { all, .. }) = app.session().all() else {
        panic!("all pairs computed")
    };
    let all = all.clone();
    assert!(all.total > 0);
    app.list_mut().tuning_mut().set_s_pct(50);
    let (found, total) = app.real_recall().expect("recall matched to the results");
    assert!(found <= total && total > 0);
    // Document pairs, as the list counts them: what it lists at J ≥ 0.5 is what was
    // found, of at least as many pairs as there are pairs of contents.
    let listed = app.session().results().unwrap().found.pairs.iter();
    assert_eq!(found, listed.filter(|p| p.jaccard >= 0.5).count());
    assert!(total >= all.at_least(0.5));

    // 128 bands of one row: any pair sharing a shingle at J ≥ 0.5 is all but surely found.
    repeat(&mut app, Action::RowsDown, 7);
    repeat(&mut app, Action::BandsUp, 112);
    pump(&mut app);
    assert_eq!(app.session().banding(), (128, 1));
    assert_eq!(app.real_recall(), Some((total, total)));

    // One band of 64 rows: only near-identical contents collide.
    repeat(&mut app, Action::BandsDown, 127);
    repeat(&mut app, Action::RowsUp, 63);
    pump(&mut app);
    assert_eq!(app.session().banding(), (1, 64));
    let (strict, t2) = app.real_recall().unwrap();
    assert_eq!(t2, total);
    assert!(strict < total, "{strict} of {total}");
    let s = {
        app.update(Action::ToggleTuning);
        screen(&app)
    };
    assert!(s.contains(&format!("{} missed", total - strict)), "{s}");
}

#[test]
fn quit_cancels_running_work() {
    let dir = corpus_dir();
    let mut app = new_app(dir.path(), (100, 30));
    app.start();
    let _ = app.take_outbox();
    app.update(Action::Quit);
    assert!(app.quitting());
    assert!(
        app.take_outbox()
            .iter()
            .any(|c| matches!(c, Cmd::Cancel(crate::tui::worker::Kind::Index)))
    );
    assert!(!app.busy());
}

#[test]
fn a_crashed_worker_is_fatal_and_stale_results_are_ignored() {
    let (_d, mut app) = loaded((100, 30));
    // A result for a job nobody waits for changes nothing.
    let before = app.session().results().unwrap().id;
    assert!(
        !app.handle(Msg::Cancelled { id: 9999 }) || app.session().results().unwrap().id == before
    );
    app.handle(Msg::Crashed {
        what: "band job".into(),
        message: "boom".into(),
    });
    assert!(app.fatal().unwrap().message.contains("boom"));
}

#[test]
fn limits_are_reported_not_applied() {
    let (_d, mut app) = loaded((100, 30));
    for _ in 0..10 {
        app.update(Action::RowsDown);
    }
    assert_eq!(app.session().banding().1, 1);
    assert!(app.status().unwrap().contains("at least 1"));
    app.update(Action::ToggleTuning);
    for _ in 0..10 {
        app.update(Action::ShingleDown);
    }
    assert_eq!(app.session().params().k, 1);
}

#[test]
fn missing_file_in_the_diff_is_an_error_message_not_a_crash() {
    let (dir, mut app) = loaded((100, 30));
    let (a, _) = ids(&app, 0);
    std::fs::remove_file(dir.path().join("c").join(&a)).unwrap();
    act(&mut app, Action::Open);
    assert!(matches!(
        app.top_as::<DiffView>().unwrap().model(),
        Some(Err(_))
    ));
    assert_shows(&app, "unreadable");
}

#[test]
fn diff_layout_of_a_real_pair_keeps_shared_lines_together() {
    // Independent of the app: two texts, one with an inserted paragraph.
    let a = "intro line\n\nshared paragraph one\n\nshared paragraph two\n";
    let b =
        "intro line\n\nA brand new paragraph.\n\nshared paragraph one\n\nshared paragraph two\n";
    let lay = diff::layout(&diff::build(a, b, diff::TIMEOUT), 30);
    for r in &lay.rows {
        if let (Some(l), Some(rr)) = (&r.left, &r.right) {
            let lt: String = l.segs.iter().map(|s| s.text.as_str()).collect();
            let rt: String = rr.segs.iter().map(|s| s.text.as_str()).collect();
            if lt.starts_with("shared") || rt.starts_with("shared") {
                assert_eq!(lt, rt);
            }
        }
    }
}

#[test]
fn every_view_draws_at_every_size_without_panicking() {
    let (_d, mut app) = loaded((100, 30));
    let sizes = [
        (1, 1),
        (20, 5),
        (59, 15),
        (60, 14),
        (60, 15),
        (61, 16),
        (80, 24),
        (149, 40),
        (150, 40),
        (240, 70),
    ];
    let views: [&[Action]; 6] = [
        &[],
        &[Action::ToggleTuning],
        &[Action::StartFilter, Action::FilterChar('d')],
        &[Action::Open],
        &[Action::ToggleHelp],
        &[Action::ToggleTuning, Action::ToggleHelp],
    ];
    for view in views {
        for &(w, h) in &sizes {
            app.update(Action::Resize(w, h));
            for &a in view {
                app.update(a);
            }
            pump(&mut app);
            let s = screen(&app);
            if w >= crate::tui::widgets::layout::MIN_W && h >= crate::tui::widgets::layout::MIN_H {
                assert!(!s.contains("too small"), "{w}x{h}:\n{s}");
            } else {
                assert!(w < 20 || s.contains("too small"), "{w}x{h}:\n{s}");
            }
            // Back to the plain list for the next round.
            close_help(&mut app);
            app.update(Action::Resize(100, 30));
            if app.top_as::<DiffView>().is_some() {
                app.update(Action::Back);
            }
            if app.list().filter().is_editing() {
                app.update(Action::FilterClear);
            }
            app.list_mut().tuning_mut().close();
        }
    }
}

#[test]
fn a_lower_s_computes_the_exact_pairs_again_down_to_it() {
    let (_d, mut app) = loaded((100, 30));
    let Some(AllState::Ready { all, .. }) = app.session().all() else {
        panic!("all pairs computed")
    };
    assert_eq!(all.floor, crate::tui::recall::DEFAULT_FLOOR);
    app.update(Action::ToggleTuning);
    // 0.80 → 0.50: the pairs known already cover it.
    for _ in 0..6 {
        app.update(Action::SimDown);
    }
    assert!(matches!(app.session().all(), Some(AllState::Ready { .. })));
    // 0.50 → 0.30: computed again, and the panel says so meanwhile.
    for _ in 0..4 {
        app.update(Action::SimDown);
    }
    assert!(matches!(
        app.session().all(),
        Some(AllState::Computing { floor, .. }) if *floor == 0.3
    ));
    assert_shows(&app, "exact pairs J≥0.30");
    pump(&mut app);
    let Some(AllState::Ready { all, .. }) = app.session().all() else {
        panic!("all pairs computed again")
    };
    assert_eq!(all.floor, 0.3);
    let index = app.session().index().unwrap().clone();
    let reference = simtui_engine::analysis::exact::shared_pairs(
        &index,
        0.3,
        &simtui_engine::analysis::exact::Limits::default(),
        &simtui_engine::progress::Silent,
    )
    .unwrap();
    assert_eq!(all.pairs, reference.pairs);
    // Known at s = 0.30 now, in document pairs (each content pair at least one).
    let (found, total) = app.real_recall().expect("recall at s = 0.30");
    assert!(total >= all.at_least(0.3) && all.at_least(0.3) > 0);
    assert!(found <= total);
}

/// The tuning panel's keys: j/k move in the list as with the panel closed (no re-index),
/// e exports the listed pairs as in the list, and +/- change the shingle size (issue 28:
/// k re-indexed there, e did nothing).
#[test]
fn in_the_tuning_panel_jk_move_e_exports_and_plus_minus_resize_shingles() {
    use ratatui::crossterm::event::KeyCode;
    let (_d, mut app) = loaded((120, 40));
    app.update(Action::ToggleTuning);
    let jobs = app.session().counters().index_jobs;
    for c in ['j', 'j', 'k'] {
        press(&mut app, KeyCode::Char(c));
    }
    assert_eq!(app.list().cursor().selected, 1);
    assert_eq!(app.session().params().k, 5);
    assert!(!app.session().stale());
    assert_eq!(app.session().counters().index_jobs, jobs);
    press(&mut app, KeyCode::Char('e'));
    assert!(
        app.top_as::<views::export::ExportView>().is_some(),
        "{}",
        screen(&app)
    );
    press(&mut app, KeyCode::Esc);
    assert!(app.top_as::<views::export::ExportView>().is_none());
    assert!(app.list().tuning().is_open());
    press(&mut app, KeyCode::Char('+'));
    assert_eq!(app.session().params().k, 6);
    assert!(app.session().stale());
    pump(&mut app);
    press(&mut app, KeyCode::Char('-'));
    assert_eq!(app.session().params().k, 5);
}

/// `a` bands as `-t s` does in every command, and the list's title and the panel say
/// whether the banding is that one (issue 28: the explorer banded 16 × 8 at s = 0.80,
/// where `clusters -t 0.8` chose 13 × 8).
#[test]
fn a_bands_as_t_s_does_and_the_title_says_so() {
    let (_d, mut app) = loaded((120, 40));
    assert_eq!(app.session().banding(), (16, 8));
    assert_shows(&app, "b=16 r=8 (-t 0.80: b=13 r=8)");
    app.update(Action::ToggleTuning);
    assert_shows(&app, "-t 0.80 bands b=13 r=8");
    act(&mut app, Action::ThresholdBanding);
    assert_eq!(app.session().banding(), (13, 8));
    assert_shows(&app, "b=13 r=8 as -t 0.80");
    assert_shows(&app, "= the banding -t 0.80 chooses");
    // s = 0.50: -t 0.5 chooses 18 × 3.
    for _ in 0..6 {
        app.update(Action::SimDown);
    }
    act(&mut app, Action::ThresholdBanding);
    assert_eq!(app.session().banding(), (18, 3));
    assert_shows(&app, "b=18 r=3 as -t 0.50");
}
