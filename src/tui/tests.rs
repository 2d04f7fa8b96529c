//! State and render tests of the explorer: actions in, state and screen text out. Jobs
//! run synchronously on the test thread (the same `worker::execute` the threads run).

use super::app::App;
use super::diff_model as diff;
use super::jobs::Cmd;
use super::keys::Action;
use super::options::Settings;
use super::session::AllState;
use super::views;
use super::views::diff::DiffView;
use super::views::help::HelpView;
use super::views::list::Sort;
use super::widgets::theme::Theme;
use super::worker::{self, JobError, Msg, Reporter, Work};
use crate::output::diag::Log;
use crate::output::keyspec::KeyStroke;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier};
use simtui::corpus::WalkOptions;
use simtui::generator::{GenOptions, generate};
use simtui::index::Params;
use simtui::text::Unit;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;

/// A small generated corpus with planted near-duplicates, written to a folder.
pub(super) fn corpus_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let g = generate(&GenOptions {
        docs: 60,
        seed: 7,
        words: 120,
        dup_fraction: 0.4,
        ..Default::default()
    });
    simtui::generator::write(&g, &dir.path().join("c"), &dir.path().join("truth.jsonl")).unwrap();
    dir
}

pub(super) fn new_app(dir: &Path, size: (u16, u16)) -> App {
    App::new(
        vec![dir.join("c")],
        WalkOptions::default(),
        Params::default(),
        16,
        8,
        Theme::mono(),
        size,
    )
}

/// Runs every queued job to completion, feeding progress and results back, until the
/// app queues nothing more.
pub(super) fn pump(app: &mut App) {
    for _ in 0..100 {
        let cmds = app.take_outbox();
        if cmds.is_empty() {
            return;
        }
        for cmd in cmds {
            let Cmd::Spawn(job) = cmd else { continue };
            let (tx, rx) = mpsc::channel();
            let reporter = Reporter::new(job.id, tx, Arc::new(AtomicBool::new(false)));
            let out = worker::execute(job.work, &reporter);
            for m in rx.try_iter() {
                app.handle(m);
            }
            app.handle(match out {
                Ok(out) => Msg::Done {
                    id: job.id,
                    out: Box::new(out),
                },
                Err(JobError::Cancelled) => Msg::Cancelled { id: job.id },
                Err(JobError::Failed(error)) => Msg::Failed {
                    id: job.id,
                    error,
                    usage: false,
                },
                Err(JobError::Usage(error)) => Msg::Failed {
                    id: job.id,
                    error,
                    usage: true,
                },
            });
        }
    }
    panic!("jobs keep queueing more jobs");
}

pub(super) fn loaded(size: (u16, u16)) -> (tempfile::TempDir, App) {
    let dir = corpus_dir();
    let mut app = new_app(dir.path(), size);
    app.start();
    pump(&mut app);
    assert!(
        app.session().results().is_some(),
        "the first load produces results"
    );
    assert!(
        !app.list().visible().is_empty(),
        "the corpus has near-duplicates"
    );
    (dir, app)
}

pub(super) fn draw(app: &App) -> Buffer {
    let mut term = Terminal::new(TestBackend::new(app.size().0, app.size().1)).unwrap();
    term.draw(|f| app.render(f)).unwrap();
    term.backend().buffer().clone()
}

fn text(buf: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

pub(super) fn screen(app: &App) -> String {
    text(&draw(app))
}

/// Closes the help if it is open, as Esc does.
fn close_help(app: &mut App) {
    if app.top_as::<HelpView>().is_some() {
        app.update(Action::Back);
    }
}

fn ids(app: &App, pos: usize) -> (String, String) {
    let r = app.session().results().unwrap();
    let p = r.found.pairs[app.list().visible()[pos] as usize];
    (
        r.index.docs[p.a as usize].id.clone(),
        r.index.docs[p.b as usize].id.clone(),
    )
}

// ---------------------------------------------------------------------------------------
// Render tests

#[test]
fn loading_view_shows_every_stage_with_counts() {
    let dir = corpus_dir();
    let mut app = new_app(dir.path(), (100, 30));
    app.start();
    let s = screen(&app);
    assert!(s.contains("Indexing"), "{s}");
    assert!(s.contains("walking the folders"), "{s}");
    for stage in ["read", "shingle", "sketch", "band", "verify"] {
        assert!(s.contains(stage), "{stage} missing:\n{s}");
    }
    // A progress report from the running job shows counts.
    app.handle(Msg::Progress {
        id: 1,
        stage: simtui::progress::Stage::Read,
        done: 1000,
        total: 2000,
    });
    let s = screen(&app);
    assert!(s.contains("1,000 / 2,000"), "{s}");
    assert!(!s.contains("walking the folders"), "{s}");
    assert_eq!(app.context(), &views::loading::KEYS);
}

#[test]
fn pairs_view_shows_counts_ranks_and_both_ids() {
    let (_d, app) = loaded((100, 30));
    let s = screen(&app);
    let r = app.session().results().unwrap();
    let title = format!(
        "Pairs {} of {}",
        app.list().visible().len(),
        r.found.pairs.len()
    );
    assert!(s.contains(&title), "{s}");
    assert!(s.contains("candidates"), "{s}");
    let (a, b) = ids(&app, 0);
    let first = s
        .lines()
        .find(|l| l.contains(&a))
        .unwrap_or_else(|| panic!("{a} not shown:\n{s}"));
    assert!(first.contains(&b), "{first}");
    assert!(first.trim_start().starts_with('1'), "rank first: {first}");
    // The footer comes from the key table.
    assert!(s.lines().last().unwrap().contains("Enter diff"), "{s}");
    // Sorted by exact J, descending.
    let js: Vec<f64> = app
        .list()
        .visible()
        .iter()
        .map(|&i| r.found.pairs[i as usize].jaccard)
        .collect();
    assert!(js.windows(2).all(|w| w[0] >= w[1]));
}

#[test]
fn selection_is_visible_without_colour() {
    let (_d, mut app) = loaded((100, 30));
    app.update(Action::Down);
    let buf = draw(&app);
    // Row of the selected pair: title row + header row + its position.
    let y = 1 + 2 + app.list().cursor().selected as u16;
    for x in 0..buf.area.width {
        assert!(
            buf[(x, y)].modifier.contains(Modifier::REVERSED),
            "cell {x},{y} not reversed"
        );
    }
    assert!(!buf[(0, y + 1)].modifier.contains(Modifier::REVERSED));
    // NO_COLOR: not a single coloured cell anywhere.
    for cell in buf.content() {
        assert_eq!(cell.fg, Color::Reset);
        assert_eq!(cell.bg, Color::Reset);
    }
    // The same holds with the tuning panel and its chart.
    app.update(Action::ToggleTuning);
    for cell in draw(&app).content() {
        assert_eq!((cell.fg, cell.bg), (Color::Reset, Color::Reset));
    }
}

#[test]
fn tuning_view_shows_parameters_curve_and_real_recall() {
    let (_d, mut app) = loaded((100, 30));
    app.update(Action::ToggleTuning);
    assert_eq!(app.context(), &views::tuning::KEYS);
    let s = screen(&app);
    for want in [
        "Tuning",
        "k = 5",
        "b = 16",
        "r = 8",
        "N = b·r = 128",
        "threshold (1/b)^(1/r) = 0.707",
        "s = 0.80",
    ] {
        assert!(s.contains(want), "{want} missing:\n{s}");
    }
    assert!(s.contains("expected recall P(s) = 0.947"), "{s}");
    assert!(s.contains("real recall"), "{s}");
    assert!(s.contains("pairs J≥0.80"), "{s}");
    // The chart is drawn in Braille.
    assert!(
        s.chars().any(|c| ('\u{2801}'..='\u{28FF}').contains(&c)),
        "{s}"
    );
    // Moving s changes the prediction.
    app.update(Action::SimDown);
    assert!(screen(&app).contains("s = 0.75"));
}

#[test]
fn tuning_panel_is_readable_at_80_by_24() {
    let (_d, mut app) = loaded((80, 24));
    app.update(Action::ToggleTuning);
    let s = screen(&app);
    assert!(s.contains("threshold (1/b)^(1/r) = 0.707"), "{s}");
    assert!(s.contains("b = 16"), "{s}");
    // The list keeps some rows under the panel.
    let (a, _) = ids(&app, 0);
    assert!(s.contains(&a[..a.len().min(10)]), "{s}");
}

#[test]
fn diff_view_shows_header_and_aligned_columns() {
    let (_d, mut app) = loaded((100, 30));
    app.update(Action::Open);
    assert_eq!(app.context(), &views::diff::KEYS);
    assert!(screen(&app).contains("reading and diffing"));
    pump(&mut app);
    let s = screen(&app);
    let (a, b) = ids(&app, 0);
    assert!(s.contains(&format!("A {a}")), "{s}");
    assert!(s.contains(&format!("B {b}")), "{s}");
    assert!(s.contains("exact J"), "{s}");
    assert!(s.contains("estimate"), "{s}");
    assert!(s.contains("shingles"), "{s}");
    // Two columns with line numbers, split by a separator.
    let body: Vec<&str> = s.lines().skip(5).take(5).collect();
    assert!(
        body.iter().all(|l| l.contains('│') || l.contains('┃')),
        "{body:?}"
    );
    assert!(body[0].trim_start().starts_with('1'), "{body:?}");
    assert!(s.lines().last().unwrap().contains("Esc back"), "{s}");
}

#[test]
fn changed_words_are_marked_without_colour() {
    let (_d, mut app) = loaded((100, 30));
    // A pair that is not identical.
    let pos = app
        .list()
        .visible()
        .iter()
        .position(|&i| app.session().results().unwrap().found.pairs[i as usize].jaccard < 1.0)
        .unwrap();
    for _ in 0..pos {
        app.update(Action::Down);
    }
    app.update(Action::Open);
    pump(&mut app);
    let d = app.top_as::<DiffView>().unwrap();
    let first = *d
        .layout()
        .changes
        .first()
        .expect("a non-identical pair has a change");
    app.top_as_mut::<DiffView>().unwrap().set_scroll(first);
    let buf = draw(&app);
    let y0 = 1 + super::widgets::layout::DIFF_HEADER;
    let marked = (y0..buf.area.height - 1)
        .flat_map(|y| (0..buf.area.width).map(move |x| (x, y)))
        .any(|p| buf[p].modifier.contains(Modifier::REVERSED));
    assert!(marked, "{}", text(&buf));
}

#[test]
fn help_overlay_lists_the_views_key_table() {
    let (_d, mut app) = loaded((100, 40));
    app.update(Action::ToggleHelp);
    assert_eq!(app.context(), &views::help::KEYS);
    let s = screen(&app);
    assert!(s.contains("Help · Pairs"), "{s}");
    for (label, help) in super::keys::help(&views::list::KEYS) {
        assert!(s.contains(label), "{label} missing:\n{s}");
        assert!(s.contains(help), "{help} missing:\n{s}");
    }
    app.update(Action::Back);
    assert!(app.top_as::<HelpView>().is_none());
    // Scrolling stops at the end.
    app.update(Action::Resize(80, 20));
    app.update(Action::ToggleHelp);
    for _ in 0..500 {
        app.update(Action::Down);
    }
    let max = super::views::help::max_scroll(app.size(), false, &views::list::KEYS);
    assert!(max > 0);
    let help_scroll = |app: &App| app.top_as::<HelpView>().map(|h| h.scroll());
    assert_eq!(help_scroll(&app), Some(max));
    app.update(Action::Up);
    assert_eq!(help_scroll(&app), Some(max - 1));
    app.update(Action::ToggleHelp);
    // In the diff view the help is the diff's.
    app.update(Action::Open);
    app.update(Action::ToggleHelp);
    assert!(screen(&app).contains("Help · Diff"));
}

#[test]
fn too_small_terminal_shows_a_message() {
    let (_d, mut app) = loaded((100, 30));
    app.update(Action::Resize(50, 12));
    let s = screen(&app);
    assert!(s.contains("Terminal too small"), "{s}");
    assert!(s.contains("50×12"), "{s}");
    assert!(!s.contains("Pairs"), "{s}");
    app.update(Action::Resize(60, 15));
    assert!(screen(&app).contains("Pairs"));
}

#[test]
fn long_ids_are_shortened_in_the_middle() {
    let dir = tempfile::tempdir().unwrap();
    let long = "a-very-long-folder-name-that-goes-on/and-on-and-on/document";
    let text = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor";
    std::fs::create_dir_all(dir.path().join("c").join(long)).unwrap();
    std::fs::write(dir.path().join("c").join(long).join("one.txt"), text).unwrap();
    std::fs::write(
        dir.path().join("c").join(long).join("two.txt"),
        format!("{text} extra"),
    )
    .unwrap();
    let mut app = new_app(dir.path(), (70, 20));
    app.start();
    pump(&mut app);
    let s = screen(&app);
    let row = s.lines().nth(3).unwrap();
    assert!(row.contains('…'), "{row}");
    assert!(row.contains("one.txt") && row.contains("two.txt"), "{row}");
}

// ---------------------------------------------------------------------------------------
// State tests

#[test]
fn a_session_of_actions_rebands_without_rehashing() {
    let (_d, mut app) = loaded((100, 30));
    assert_eq!(app.session().counters().sketch_jobs, 1);
    assert_eq!(app.session().index().unwrap().num_perm(), 128);

    // down, Enter: the diff of the second pair.
    app.update(Action::Down);
    assert_eq!(app.list().cursor().selected, 1);
    let second = ids(&app, 1);
    app.update(Action::Open);
    pump(&mut app);
    let d = app.top_as::<DiffView>().unwrap();
    assert_eq!((d.docs().0.id.clone(), d.docs().1.id.clone()), second);
    assert!(matches!(d.model(), Some(Ok(_))));
    app.update(Action::Back);
    assert!(app.top_as::<DiffView>().is_none());

    // r−: 16 × 7 fits the 128 stored functions: re-banded, nothing re-hashed. The
    // selected pair stays selected (more pairs are found, so its rank may change).
    app.update(Action::Bottom);
    let chosen = ids(&app, app.list().cursor().selected);
    app.update(Action::RowsDown);
    assert_eq!(app.session().banding(), (16, 7));
    assert!(app.session().rebanding());
    pump(&mut app);
    let r = app.session().results().unwrap();
    assert_eq!((r.bands, r.rows), (16, 7));
    assert_eq!(ids(&app, app.list().cursor().selected), chosen);
    assert_eq!(
        app.session().counters().sketch_jobs,
        1,
        "re-banding must not re-hash"
    );
    assert_eq!(
        app.session().index().unwrap().num_perm(),
        128,
        "signatures unchanged"
    );
    assert_eq!(
        app.list().tuning().prev(),
        Some((16, 8)),
        "the curve before tuning is kept, dimmed"
    );

    // b+ to 19 × 7 = 133 > 128: more functions are hashed (in place of a rebuild).
    app.update(Action::BandsUp);
    app.update(Action::BandsUp);
    app.update(Action::BandsUp);
    pump(&mut app);
    assert_eq!(app.session().counters().sketch_jobs, 2);
    assert_eq!(app.session().index().unwrap().num_perm(), 160);
    let r = app.session().results().unwrap();
    assert_eq!((r.bands, r.rows), (19, 7));
    // Back down: fits again, no hashing.
    app.update(Action::BandsDown);
    pump(&mut app);
    assert_eq!(app.session().counters().sketch_jobs, 2);
    assert_eq!(app.session().index().unwrap().num_perm(), 160);
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
    assert!(screen(&app).contains("STALE"));
    let busy = app.summary().unwrap();
    assert!(busy.starts_with("re-indexing k=6 word: read"), "{busy}");
    assert!(screen(&app).contains(&busy));
    pump(&mut app);
    assert!(!app.session().stale());
    assert_eq!(app.session().results().unwrap().index.params.k, 6);
    assert_eq!(app.session().counters().index_jobs, 2);
    assert_eq!(app.session().counters().band_jobs, bands_before_k + 1);

    // u: character shingles, re-indexed in the background like a k change, at the
    // character k (the word k 6 is kept for the way back).
    let word_pairs = app.session().results().unwrap().found.pairs.clone();
    app.update(Action::ToggleUnit);
    assert_eq!(app.session().params().text.unit, Unit::Char);
    assert_eq!(app.session().params().k, super::session::CHAR_K);
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
    assert_eq!(reindex.k, super::session::CHAR_K);
    assert_eq!(app.session().results().unwrap().found.pairs, word_pairs);
    let s = screen(&app);
    assert!(s.contains("STALE (re-indexing k=9 char)"), "{s}");
    pump(&mut app);
    assert!(!app.session().stale());
    let index = app.session().results().unwrap().index.clone();
    assert_eq!(index.params.text.unit, Unit::Char);
    assert_eq!(index.params.k, super::session::CHAR_K);
    assert_eq!(app.session().counters().index_jobs, 3);
    // The shingles are those of characters: a document's set is that of its graphemes.
    let doc = &index.docs[0];
    let text = simtui::corpus::read_text(
        &simtui::corpus::Entry {
            id: doc.id.clone(),
            source: doc.source.clone(),
            bytes: doc.bytes,
        },
        index.params.max_bytes,
    )
    .unwrap();
    let mut tokens = Vec::new();
    simtui::text::Tokenizer::new(&index.params.text).token_hashes(&text, &mut tokens);
    let mut set = Vec::new();
    simtui::shingle::shingle_set(&tokens, super::session::CHAR_K, &mut set);
    assert_eq!(index.shingles.get(doc.group as usize), &set[..]);
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
    let r = app.session().results().unwrap();
    let est: Vec<f64> = app
        .list()
        .visible()
        .iter()
        .map(|&i| r.found.pairs[i as usize].estimate)
        .collect();
    assert!(est.windows(2).all(|w| w[0] >= w[1]));
    app.update(Action::CycleSort);
    assert_eq!(app.list().sort(), Sort::Path);
    let names: Vec<(String, String)> = (0..app.list().visible().len())
        .map(|p| ids(&app, p))
        .collect();
    assert!(names.windows(2).all(|w| w[0] <= w[1]));
    assert!(screen(&app).contains("by path"));
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
    let page = super::widgets::layout::list_rows(
        super::widgets::layout::pairs(
            super::widgets::layout::screen(super::widgets::layout::area(app.size())).body,
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
    app.update(Action::Open);
    pump(&mut app);
    app.update(Action::NextPair);
    pump(&mut app);
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
    app.update(Action::Open);
    pump(&mut app);
    let wide = app.top_as::<DiffView>().unwrap().layout().rows.len();
    app.update(Action::Resize(60, 30));
    let d = app.top_as::<DiffView>().unwrap();
    assert_eq!(
        d.layout().column,
        super::views::diff::column_width(app.size())
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
    assert_eq!(total, all.at_least(0.5));

    // 128 bands of one row: any pair sharing a shingle at J ≥ 0.5 is all but surely found.
    for _ in 0..7 {
        app.update(Action::RowsDown);
    }
    for _ in 0..112 {
        app.update(Action::BandsUp);
    }
    pump(&mut app);
    assert_eq!(app.session().banding(), (128, 1));
    assert_eq!(app.real_recall(), Some((total, total)));

    // One band of 64 rows: only near-identical contents collide.
    for _ in 0..127 {
        app.update(Action::BandsDown);
    }
    for _ in 0..63 {
        app.update(Action::RowsUp);
    }
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
            .any(|c| matches!(c, Cmd::Cancel(super::worker::Kind::Index)))
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
    app.update(Action::Open);
    pump(&mut app);
    assert!(matches!(
        app.top_as::<DiffView>().unwrap().model(),
        Some(Err(_))
    ));
    assert!(screen(&app).contains("unreadable"), "{}", screen(&app));
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
            if w >= super::widgets::layout::MIN_W && h >= super::widgets::layout::MIN_H {
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

// ---------------------------------------------------------------------------------------
// The config file's colours, keys, log and threshold

/// Installs `[explorer.keys]` and `[explorer.colors]` for this test's thread, and puts
/// the defaults back when dropped (even when the test fails).
struct Installed;

impl Installed {
    fn new(keys: &[(&'static str, &[&str])], colors: &[(&'static str, Color)]) -> Installed {
        let keys: BTreeMap<&'static str, Vec<KeyStroke>> = keys
            .iter()
            .map(|(a, ks)| (*a, ks.iter().map(|k| k.parse().unwrap()).collect()))
            .collect();
        super::keys::install(&keys, views::KEY_TABLES);
        super::widgets::theme::install_colors(&colors.iter().copied().collect());
        Installed
    }
}

impl Drop for Installed {
    fn drop(&mut self) {
        super::keys::install(&BTreeMap::new(), views::KEY_TABLES);
        super::widgets::theme::install_colors(&BTreeMap::new());
    }
}

fn press(app: &mut App, code: KeyCode) {
    app.handle(Msg::Input(Event::Key(KeyEvent::new(
        code,
        KeyModifiers::NONE,
    ))));
}

/// The screen's last line: the footer.
fn footer(app: &App) -> String {
    screen(app).lines().last().unwrap().to_string()
}

#[test]
fn config_names_match_actions_and_theme_roles() {
    use crate::output::colorspec::COLOR_ROLES;
    use crate::output::keyspec::ACTIONS;
    // Every action the config file accepts is an Action, and the other way round.
    for name in ACTIONS {
        let found = super::keys::NAMES.iter().find(|(n, _)| n == name);
        assert!(found.is_some(), "config action {name} is no Action");
        assert_eq!(found.unwrap().1.name(), Some(*name));
    }
    for (name, _) in super::keys::NAMES {
        assert!(
            ACTIONS.contains(name),
            "{name} is missing from config::ACTIONS"
        );
    }
    // Every action bound in a default table can be rebound, but text entry.
    let global = super::keys::bindings(&super::keys::GLOBAL);
    for &ctx in views::KEY_TABLES.iter().filter(|c| !c.text_entry) {
        for b in super::keys::bindings(ctx).iter().chain(global) {
            assert!(b.action.name().is_some(), "{ctx:?}: {:?}", b.action);
        }
    }
    // Every colour role is a Theme role, and an override of it reaches its style.
    let marker = Color::Rgb(1, 2, 3);
    for role in COLOR_ROLES {
        let style = Theme::new(true).role(role);
        assert!(
            style.is_some(),
            "config colour role {role} is no Theme role"
        );
        assert_ne!(style.unwrap().fg, Some(marker));
        let _i = Installed::new(&[], &[(role, marker)]);
        assert_eq!(
            Theme::new(true).role(role).unwrap().fg,
            Some(marker),
            "{role} ignores its override"
        );
    }
}

#[test]
fn a_remapped_key_drives_the_action_and_shows_in_the_footer_and_help() {
    let (_d, mut app) = loaded((120, 40));
    let _i = Installed::new(&[("cycle_sort", &["o"]), ("bands_down", &["N"])], &[]);
    assert_eq!(app.list().sort(), Sort::Jaccard);
    // The default key no longer sorts; the user's key does.
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(app.list().sort(), Sort::Jaccard);
    press(&mut app, KeyCode::Char('o'));
    assert_eq!(app.list().sort(), Sort::Estimate);
    let f = footer(&app);
    assert!(f.contains(" o sort "), "{f}");
    assert!(!f.contains(" s sort "), "{f}");
    // The help lists the user's key on the action's line.
    app.update(Action::ToggleHelp);
    let s = screen(&app);
    assert!(
        s.lines()
            .any(|l| l.contains("  o ") && l.contains("sort by exact J")),
        "{s}"
    );
    assert!(
        !s.lines()
            .any(|l| l.contains("  s ") && l.contains("sort by")),
        "{s}"
    );
    app.update(Action::Back);
    // A pair of rows ("b/B") is relabelled from both rows' keys, in every view.
    app.update(Action::ToggleTuning);
    let f = footer(&app);
    assert!(f.contains("b/N bands±"), "{f}");
    let bands = app.session().banding().0;
    press(&mut app, KeyCode::Char('N'));
    assert_eq!(app.session().banding().0, bands - 1);
    press(&mut app, KeyCode::Char('B'));
    assert_eq!(app.session().banding().0, bands - 1, "B is no longer bound");
}

#[test]
fn a_colour_override_changes_the_rendered_style_of_its_role() {
    let (_d, mut app) = loaded((100, 30));
    app.set_theme(Theme::new(true));
    let marker = Color::Rgb(10, 200, 30);
    let has = |buf: &Buffer, c: Color| buf.content.iter().any(|cell| cell.fg == c);
    let before = draw(&app);
    assert!(!has(&before, marker));
    assert!(
        has(&before, Color::Yellow),
        "footer keys are yellow by default"
    );
    let _i = Installed::new(&[], &[("key", marker)]);
    let after = draw(&app);
    assert!(has(&after, marker), "{}", text(&after));
    // The footer's keys carry the role's style: the first cell of " q" is the marker.
    let h = after.area.height - 1;
    let keys: Vec<_> = (0..after.area.width)
        .map(|x| &after[(x, h)])
        .filter(|c| c.fg == marker)
        .map(|c| c.symbol().to_string())
        .collect();
    assert!(keys.concat().contains('q'), "{keys:?}");
}

#[test]
fn without_colour_nothing_has_a_foreground_colour_even_with_overrides() {
    let (_d, mut app) = loaded((100, 30));
    let _i = Installed::new(&[], &[("key", Color::Red), ("dim", Color::Blue)]);
    // With colour the views do use foreground colours (so the check below can fail)...
    app.set_theme(Theme::new(true));
    assert!(draw(&app).content.iter().any(|c| c.fg != Color::Reset));
    app.set_theme(Theme::new(false));
    let views: [&[Action]; 4] = [
        &[],
        &[Action::ToggleTuning],
        &[Action::ToggleTuning, Action::Open],
        &[Action::ToggleHelp],
    ];
    for view in views {
        for &a in view {
            app.update(a);
        }
        pump(&mut app);
        let buf = draw(&app);
        let coloured: Vec<_> = buf
            .content
            .iter()
            .filter(|c| c.fg != Color::Reset)
            .map(|c| (c.symbol().to_string(), c.fg))
            .collect();
        assert!(
            coloured.is_empty(),
            "{view:?}: {coloured:?}\n{}",
            text(&buf)
        );
        close_help(&mut app);
        if app.top_as::<DiffView>().is_some() {
            app.update(Action::Back);
        }
        app.list_mut().tuning_mut().close();
    }
}

#[test]
fn the_log_records_start_stages_requests_errors_and_the_threshold_starts_s() {
    let dir = corpus_dir();
    let log_path = dir.path().join("explorer.log");
    let mut app = new_app(dir.path(), (100, 30));
    app.configure(&Settings {
        color: false,
        mouse: false,
        log: Some(Arc::new(Log::open(&log_path).unwrap())),
        verbose: 0,
        colors: BTreeMap::new(),
        keys: BTreeMap::new(),
        threshold: Some(0.72),
    });
    assert_eq!(app.list().tuning().s_pct(), 72);
    app.log_start();
    app.start();
    pump(&mut app);
    press(&mut app, KeyCode::Char('b'));
    pump(&mut app);
    for _ in 0..10 {
        press(&mut app, KeyCode::Char('R'));
        pump(&mut app);
    }
    let log = std::fs::read_to_string(&log_path).unwrap();
    for want in [
        "explorer: ",
        "params: k=5 bands=16 rows=8",
        "threshold s=0.72",
        "read done: 60 in",
        "indexed 60 documents",
        "re-band requested: bands=17 rows=8",
        "banded b=17 r=8: ",
        "shown: b and r are at least 1",
    ] {
        assert!(log.contains(want), "{want:?} missing:\n{log}");
    }
}

#[test]
fn diff_view_shows_records_of_a_json_lines_file_by_id() {
    // The generated corpus as JSON Lines: half plain, half gzip-compressed.
    let dir = tempfile::tempdir().unwrap();
    let g = generate(&GenOptions {
        docs: 40,
        seed: 7,
        words: 120,
        dup_fraction: 0.4,
        ..Default::default()
    });
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
        input: simtui::formats::InputOptions {
            id_field: Some("id".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let mut app = App::new(
        vec![c],
        walk,
        Params::default(),
        16,
        8,
        Theme::mono(),
        (120, 30),
    );
    app.start();
    pump(&mut app);
    assert!(
        !app.list().visible().is_empty(),
        "the records have near-duplicates"
    );
    app.update(Action::Open);
    pump(&mut app);
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
    use simtui::progress::Silent;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("c");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("a.txt"), "one two three four five six seven").unwrap();
    std::fs::write(root.join("b.txt"), "one two three four five six eight").unwrap();
    let file = dir.path().join("c.idx");
    let load = || worker::Work::Load {
        roots: vec![root.clone()],
        walk: Default::default(),
        params: Default::default(),
        store: Some(worker::StoreJob { file: file.clone() }),
    };
    let docs = |out: Result<worker::Output, JobError>| match out {
        Ok(worker::Output::Indexed { index, corpus, .. }) => {
            assert!(corpus.is_some());
            index.docs.len()
        }
        _ => panic!("not indexed"),
    };
    assert_eq!(docs(worker::execute(load(), &Silent)), 2);
    assert!(file.is_file());
    simtui::store::load(&file).unwrap();
    assert_eq!(docs(worker::execute(load(), &Silent)), 2);
}

#[test]
fn a_saved_index_is_decoded_after_the_first_frame_not_before() {
    use simtui::progress::Silent;
    let dir = corpus_dir();
    let root = dir.path().join("c");
    let file = dir.path().join("c.idx");
    // A saved index, written by a first load.
    let mut app = new_app(dir.path(), (100, 30));
    app.set_store(super::store_job(Some(&file), std::slice::from_ref(&root)).unwrap());
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
    let job = super::store_job(Some(&file), std::slice::from_ref(&root))
        .expect("the header is fine: decoding is the worker's")
        .unwrap();
    // The loading view is drawn and says what it waits for.
    let mut app = new_app(dir.path(), (100, 30));
    app.set_store(Some(job));
    app.start();
    assert!(screen(&app).contains("walking the folders"));
    let now = app.session().now();
    app.session_mut()
        .progress_mut()
        .update(simtui::progress::Stage::Read, 0, 60, now);
    let s = screen(&app);
    assert!(s.contains("opening the saved index"), "{s}");
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
        let e = super::store_job(Some(&file), std::slice::from_ref(&root))
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
        super::store_job(Some(&file), &[]).is_err(),
        "--index needs PATH"
    );
    // A good file opens through the worker as before.
    std::fs::write(&file, &good).unwrap();
    let job = super::store_job(Some(&file), std::slice::from_ref(&root)).unwrap();
    let out = worker::execute(
        worker::Work::Load {
            roots: vec![root.clone()],
            walk: Default::default(),
            params: Default::default(),
            store: job,
        },
        &Silent,
    );
    assert!(matches!(out, Ok(worker::Output::Indexed { .. })));
}

#[test]
fn more_hash_functions_share_the_shingles_and_equal_ensure_perms() {
    use simtui::progress::Silent;
    use simtui::sketch::SketchKind;
    let dir = corpus_dir();
    for sketch in [SketchKind::MinHash, SketchKind::Oph] {
        let params = Params {
            sketch,
            ..Params::default()
        };
        let corpus =
            simtui::corpus::Corpus::walk(&[dir.path().join("c")], &WalkOptions::default()).unwrap();
        let index = Arc::new(simtui::index::Index::build(corpus, &params, &Silent).unwrap());
        let before = index.signatures.data().to_vec();
        let out = worker::execute(
            Work::Extend {
                index: index.clone(),
                perms: 160,
            },
            &Silent,
        );
        let Ok(worker::Output::Extended(extended)) = out else {
            panic!("not extended")
        };
        // Bit-identical to extending a copy in place, as the worker used to.
        let mut copy = (*index).clone();
        copy.ensure_perms(160, &Silent).unwrap();
        assert_eq!(extended.num_perm(), 160, "{sketch:?}");
        assert_eq!(extended.params, copy.params, "{sketch:?}");
        assert_eq!(
            extended.signatures.data(),
            copy.signatures.data(),
            "{sketch:?}"
        );
        // The shingle sets are the original's, not a copy; the original is unchanged.
        assert!(Arc::ptr_eq(&extended.shingles, &index.shingles));
        assert_eq!(index.signatures.data(), &before[..]);
        assert_eq!(index.num_perm(), 128);
        // Fewer functions than it has: the same index.
        let same = index.extended(64, &Silent).unwrap();
        assert_eq!(same.signatures.data(), index.signatures.data());
        assert_eq!(same.params, index.params);
    }
}

#[test]
fn an_80_by_24_footer_always_shows_help_and_quit() {
    // The pairs list has more keys than 80 columns hold: its own keys are dropped, not
    // the way to get help or leave (they were cut off here before).
    let (_d, mut app) = loaded((80, 24));
    let check = |app: &App, view: &str| {
        let f = footer(app);
        assert!(f.contains("? help") && f.contains("q quit"), "{view}: {f}");
    };
    check(&app, "pairs");
    app.update(Action::ToggleTuning);
    check(&app, "tuning");
    app.update(Action::ToggleTuning);
    app.update(Action::Open);
    pump(&mut app);
    check(&app, "diff");
}

#[test]
fn without_colour_the_curve_before_tuning_is_drawn_in_dots() {
    let (_d, mut app) = loaded((120, 40));
    app.update(Action::ToggleTuning);
    assert!(!screen(&app).contains('•'), "no previous curve yet");
    press(&mut app, KeyCode::Char('R'));
    pump(&mut app);
    assert_eq!(app.list().tuning().prev(), Some((16, 8)));
    let s = screen(&app);
    assert!(s.contains('•'), "the previous curve, in dots:\n{s}");
    assert!(s.chars().any(|c| ('\u{2801}'..='\u{28ff}').contains(&c)));
}

#[test]
fn a_long_reason_in_the_tuning_panel_wraps_instead_of_being_cut() {
    // At 80x24 the panel beside the chart is narrow; "over 20,000 documents" was cut.
    let (_d, mut app) = loaded((80, 24));
    app.session_mut()
        .set_all(Some(AllState::Unavailable("over 20,000 documents".into())));
    app.update(Action::ToggleTuning);
    let s = screen(&app);
    assert!(s.contains("documents"), "{s}");
}

#[test]
fn the_stale_marker_shows_whole_beside_the_tuning_panel() {
    // At 160 columns the tuning panel sits beside the list and the title was cut inside
    // "STALE (re-indexing k=6 word)".
    let (_d, mut app) = loaded((160, 40));
    app.update(Action::ToggleTuning);
    app.update(Action::ShingleUp);
    assert!(app.session().stale());
    let s = screen(&app);
    assert!(s.contains("STALE (re-indexing k=6 word)"), "{s}");
}

#[test]
fn help_lines_wrap_at_80_by_24_and_scroll_to_the_end() {
    // The last line ("... est is its MinHash estimate.") was cut at 80 columns.
    let (_d, mut app) = loaded((80, 24));
    app.update(Action::ToggleHelp);
    for _ in 0..60 {
        press(&mut app, KeyCode::Down);
    }
    let s = screen(&app);
    let text: String = s
        .lines()
        .map(|l| l.trim_matches(|c: char| c == '│' || c == ' '))
        .collect::<Vec<_>>()
        .join(" ");
    assert!(text.contains("estimate."), "{s}");
    assert!(text.contains("Hamming distance"), "{s}");
}

#[test]
fn the_diff_says_when_a_side_is_truncated_or_the_diff_approximate() {
    let (_d, mut app) = loaded((140, 40));
    app.update(Action::Open);
    pump(&mut app);
    let s = screen(&app);
    assert!(
        !s.contains("TRUNCATED") && !s.contains("approximate diff"),
        "{s}"
    );
    // As the worker reports a file over the cap and a diff over its time limit.
    let d = app.top_as_mut::<DiffView>().unwrap();
    let mut m = (**d.model().unwrap().as_ref().unwrap()).clone();
    m.truncated = [true, false];
    m.approximate = true;
    let column = d.layout().column;
    d.set_model(m, column);
    let s = screen(&app);
    assert_eq!(s.matches("TRUNCATED to 256 KB").count(), 1, "{s}");
    assert!(s.contains("approximate diff (time limit)"), "{s}");
}
