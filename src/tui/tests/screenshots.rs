//! The ignored test that writes `screenshots/*.svg` from the real rendering, on the demo
//! corpus (the SVG writer is the dev-only crate `crates/svg-screens`):
//!
//! ```sh
//! cargo test --bin simtui write_screenshots -- --ignored
//! ```

use crate::cli::matrix_svg::{self, Scale};
use crate::tui::app::App;
use crate::tui::keys::Action;
use crate::tui::session::Opening;
use crate::tui::views::diff::DiffView;
use crate::tui::views::heatmap::HeatmapView;
use crate::tui::widgets::layout;
use crate::tui::widgets::theme::Theme;
// Jobs run on this thread, as in the tests, so frames depend on the corpus alone.
use super::{act, pump};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use simtui_engine::index::Params;
use simtui_engine::source::WalkOptions;
use std::path::PathBuf;
use svg_screens::to_svg;

const SIZE: (u16, u16) = (120, 36);

/// The explorer as `simtui` with no path opens it: the generated demo corpus, the
/// default parameters, in colour.
fn demo_app() -> App {
    // As `simtui` starts without flags: banded as `-t 0.80` chooses (13 × 8).
    let start = simtui_engine::search::curve::for_threshold(0.8, 128).banding;
    let mut app = App::new(
        Opening {
            roots: Vec::new(),
            walk: WalkOptions::default(),
            params: Params::default(),
            bands: start.bands,
            rows: start.rows,
        },
        Theme { color: true },
        SIZE,
    );
    app.start();
    pump(&mut app);
    assert!(
        app.session().results().is_some() && !app.busy(),
        "indexing finished"
    );
    assert!(app.status().is_none(), "{:?}", app.status());
    app
}

fn svg(app: &App) -> String {
    let mut term = Terminal::new(TestBackend::new(app.size().0, app.size().1)).unwrap();
    term.draw(|f| app.render(f)).unwrap();
    to_svg(term.backend().buffer())
}

fn write(name: &str, svg: &str) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, svg).unwrap();
    println!("wrote {}", path.display());
}

/// Position in the list of the first pair with exact J at most `j`.
fn first_pair_below(app: &App, j: f64) -> usize {
    app.list()
        .pairs_shown(app.session())
        .iter()
        .position(|p| p.jaccard <= j)
        .expect("the demo corpus has pairs that differ")
}

/// The open diff changes 3 to 20 words on each side, on at least 4 rows.
fn scattered_edits(app: &App) -> bool {
    let d = app.top_as::<DiffView>().unwrap();
    let Some(Ok(m)) = &d.model() else {
        panic!("the diff is not ready")
    };
    m.changed_words.iter().all(|w| (3..=20).contains(w)) && d.layout().changes.len() >= 4
}

/// Rows of the pairs list on screen.
fn page(app: &App) -> usize {
    let body = layout::screen(layout::area(app.size())).body;
    layout::list_rows(layout::pairs(body, false, false).list)
}

/// Scrolls the list with the keys a user would press so that it shows the first
/// pairs below J = 1 (the top of the demo's list is all exact copies), with the
/// selection three rows below the top of the screen.
fn show_the_first_near_duplicates(app: &mut App) {
    let first = app
        .list()
        .pairs_shown(app.session())
        .iter()
        .position(|p| p.jaccard < 1.0)
        .unwrap_or(0);
    let page = page(app);
    let top = first.saturating_sub(page / 3);
    for _ in 0..top + page - 1 {
        app.update(Action::Down);
    }
    for _ in 0..page - 4 {
        app.update(Action::Up);
    }
    assert_eq!(
        (app.list().cursor().offset, app.list().cursor().selected),
        (top, top + 3)
    );
}

#[test]
#[ignore = "writes screenshots/*.svg: cargo test --bin simtui write_screenshots -- --ignored"]
fn write_screenshots() {
    let mut app = demo_app();

    show_the_first_near_duplicates(&mut app);
    write("pairs.svg", &svg(&app));

    // The tuning panel, with real recall measured over all pairs.
    act(&mut app, Action::ToggleTuning);
    assert!(app.real_recall().is_some(), "real recall is known");
    write("tuning.svg", &svg(&app));
    app.update(Action::ToggleTuning);

    // The diff of a near-duplicate pair with J ≤ 0.9 and scattered word edits: a few
    // words changed on each side, on several rows (many planted pairs differ by one
    // inserted or rewritten paragraph only), found with `n` as a user would.
    let target = first_pair_below(&app, 0.9);
    app.update(Action::Top);
    for _ in 0..target {
        app.update(Action::Down);
    }
    act(&mut app, Action::Open);
    while !scattered_edits(&app) {
        act(&mut app, Action::NextPair);
        let j = app.top_as::<DiffView>().unwrap().pair().jaccard;
        assert!(j >= 0.6, "no pair in 0.6..=0.9 with scattered word edits");
    }
    let d = app.top_as::<DiffView>().unwrap();
    let rows = layout::diff(layout::screen(layout::area(app.size())).body)
        .left
        .height;
    if d.layout()
        .changes
        .first()
        .is_none_or(|&c| c >= rows as usize)
    {
        app.update(Action::NextChange);
    }
    write("diff.svg", &svg(&app));
    app.update(Action::Back);

    // Clusters at J ≥ 0.5 (chains of edits join), and the largest one's heatmap.
    app.update(Action::Clusters);
    for _ in 0..6 {
        app.update(Action::SimDown);
    }
    pump(&mut app);
    write("clusters.svg", &svg(&app));
    act(&mut app, Action::Heatmap);
    write("heatmap.svg", &svg(&app));

    // The same documents as `simtui matrix --format svg` draws them.
    let v = app.top_as::<HeatmapView>().unwrap();
    let ids: Vec<String> = v
        .docs()
        .iter()
        .map(|&d| v.index().docs().id(d as usize).into_owned())
        .collect();
    let scale = Scale::Similarity {
        name: "exact Jaccard",
    };
    write(
        "matrix.svg",
        &matrix_svg::render(
            &ids.iter().map(String::as_str).collect::<Vec<_>>(),
            v.matrix().unwrap(),
            scale,
        ),
    );
}
