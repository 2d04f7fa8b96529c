//! What the views draw: counts, columns, the selection without colour, the tuning
//! panel, the diff, the help, narrow and tiny terminals.

use super::*;
use crate::tui::app::App;
use crate::tui::keys::Action;
use crate::tui::session::AllState;
use crate::tui::views;
use crate::tui::views::diff::DiffView;
use crate::tui::views::help::HelpView;
use crate::tui::worker::Msg;
use ratatui::crossterm::event::KeyCode;
use ratatui::style::{Color, Modifier};

#[test]
fn loading_view_shows_every_stage_with_counts() {
    let dir = corpus_dir();
    let mut app = new_app(dir.path(), (100, 30));
    app.start();
    assert_shows(&app, "Indexing");
    assert_shows(&app, "walking the folders");
    let s = screen(&app);
    for stage in ["read", "shingle", "sketch", "band", "verify"] {
        assert!(s.contains(stage), "{stage} missing:\n{s}");
    }
    // A progress report from the running job shows counts.
    app.handle(Msg::Progress {
        id: 1,
        stage: simtui_engine::progress::Stage::Read,
        done: 1000,
        total: 2000,
    });
    assert_shows(&app, "1,000 / 2,000");
    let s = screen(&app);
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
    let js = shown(&app, |p| p.jaccard);
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
    assert!(s.contains("P(s), curve at s    = 0.947"), "{s}");
    assert!(s.contains("S-curve recall J≥s  = "), "{s}");
    assert!(s.contains("real recall J≥s     = "), "{s}");
    assert!(s.contains("pairs J≥0.80"), "{s}");
    // The chart is drawn in Braille.
    assert!(
        s.chars().any(|c| ('\u{2801}'..='\u{28FF}').contains(&c)),
        "{s}"
    );
    // Moving s changes the prediction.
    app.update(Action::SimDown);
    assert_shows(&app, "s = 0.75");
}

#[test]
fn tuning_panel_is_readable_at_80_by_24() {
    let (_d, mut app) = loaded((80, 24));
    app.update(Action::ToggleTuning);
    assert_shows(&app, "threshold (1/b)^(1/r) = 0.707");
    assert_shows(&app, "b = 16");
    let s = screen(&app);
    // The list keeps some rows under the panel.
    let (a, _) = ids(&app, 0);
    assert!(s.contains(&a[..a.len().min(10)]), "{s}");
}

#[test]
fn diff_view_shows_header_and_aligned_columns() {
    let (_d, mut app) = loaded((100, 30));
    app.update(Action::Open);
    assert_eq!(app.context(), &views::diff::KEYS);
    assert_shows(&app, "reading and diffing");
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
        .pairs_shown(app.session())
        .iter()
        .position(|p| p.jaccard < 1.0)
        .unwrap();
    for _ in 0..pos {
        app.update(Action::Down);
    }
    act(&mut app, Action::Open);
    let d = app.top_as::<DiffView>().unwrap();
    let first = *d
        .layout()
        .changes
        .first()
        .expect("a non-identical pair has a change");
    app.top_as_mut::<DiffView>().unwrap().set_scroll(first);
    let buf = draw(&app);
    let y0 = 1 + crate::tui::widgets::layout::DIFF_HEADER;
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
    assert_shows(&app, "Help · Pairs");
    let s = screen(&app);
    for (label, help) in crate::tui::keys::help(&views::list::KEYS) {
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
    let max = crate::tui::views::help::max_scroll(app.size(), false, &views::list::KEYS);
    assert!(max > 0);
    let help_scroll = |app: &App| app.top_as::<HelpView>().map(|h| h.scroll());
    assert_eq!(help_scroll(&app), Some(max));
    app.update(Action::Up);
    assert_eq!(help_scroll(&app), Some(max - 1));
    app.update(Action::ToggleHelp);
    // In the diff view the help is the diff's.
    app.update(Action::Open);
    app.update(Action::ToggleHelp);
    assert_shows(&app, "Help · Diff");
}

#[test]
fn too_small_terminal_shows_a_message() {
    let (_d, mut app) = loaded((100, 30));
    app.update(Action::Resize(50, 12));
    assert_shows(&app, "Terminal too small");
    assert_shows(&app, "50×12");
    let s = screen(&app);
    assert!(!s.contains("Pairs"), "{s}");
    app.update(Action::Resize(60, 15));
    assert_shows(&app, "Pairs");
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
    act(&mut app, Action::Open);
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
    // At 80x24 the panel beside the chart is narrow; a long reason was cut.
    let (_d, mut app) = loaded((80, 24));
    app.session_mut().set_all(Some(AllState::Unavailable(
        "n/a (too large: over 4000000 pairs with J >= 0.5 (the explorer's limit))".into(),
    )));
    app.update(Action::ToggleTuning);
    assert_shows(&app, "limit)");
}

#[test]
fn the_stale_marker_shows_whole_beside_the_tuning_panel() {
    // At 160 columns the tuning panel sits beside the list and the title was cut inside
    // "STALE (re-indexing k=6 word)".
    let (_d, mut app) = loaded((160, 40));
    app.update(Action::ToggleTuning);
    app.update(Action::ShingleUp);
    assert!(app.session().stale());
    assert_shows(&app, "STALE (re-indexing k=6 word)");
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
    act(&mut app, Action::Open);
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

#[test]
fn tuning_panel_at_60_by_15_keeps_threshold_s_and_both_recalls() {
    // The smallest screen drawn: the chart goes before any of these lines.
    let (_d, mut app) = loaded((60, 15));
    app.update(Action::ToggleTuning);
    let s = screen(&app);
    for want in [
        "threshold (1/b)^(1/r) = 0.707",
        "s = 0.80",
        "S-curve recall J≥s",
        "real recall J≥s",
        "pairs J≥0.80",
    ] {
        assert!(s.contains(want), "{want} missing:\n{s}");
    }
    assert!(
        !s.chars().any(|c| ('\u{2801}'..='\u{28FF}').contains(&c)),
        "the chart is left out:\n{s}"
    );
    if std::env::var("SHOW").is_ok() {
        eprintln!("{s}");
    }
    // At 100 × 30 there is room for everything, the chart included.
    let (_d, mut app) = loaded((100, 30));
    app.update(Action::ToggleTuning);
    let s = screen(&app);
    for want in ["k = 5", "N = b·r = 128 oph", "S-curve recall", "missed"] {
        assert!(s.contains(want), "{want} missing:\n{s}");
    }
    assert!(s.chars().any(|c| ('\u{2801}'..='\u{28FF}').contains(&c)));
}
