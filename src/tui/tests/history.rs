//! The list depends only on the settings in force, never on the keys pressed before
//! (issue 15): after any sequence of tuning keys (b, B, r, R, k, K, u, m, o), the pairs
//! on screen are those a fresh index and `find` at the same settings give, as `simtui
//! pairs` computes them, and the tuning panel's counts are `simtui eval`'s.

use super::{corpus_dir, new_app, pump, screen};
use crate::tui::app::App;
use crate::tui::keys::Action;
use proptest::prelude::*;
use simtui_engine::analysis::eval::{Score, Truth, score};
use simtui_engine::analysis::exact::{Limits, all_pairs};
use simtui_engine::index::Index;
use simtui_engine::progress::Silent;
use simtui_engine::sketch::minhash::SketchKind;
use simtui_engine::sketch::simhash::fingerprints::Fingerprints;
use simtui_engine::source::{Corpus, WalkOptions};
use std::path::Path;

/// A pair as the list and `pairs` show it: ids, exact J, and (MinHash) the estimate.
type Row = (String, String, f64, Option<f64>);

const KEYS: [Action; 9] = [
    Action::BandsUp,
    Action::BandsDown,
    Action::RowsUp,
    Action::RowsDown,
    Action::ShingleUp,
    Action::ShingleDown,
    Action::ToggleUnit,
    Action::SwitchMethod,
    Action::SwitchSketch,
];

/// The pairs on screen, and their candidate count.
fn listed(app: &App) -> (Vec<Row>, u64) {
    let r = app.session().results().unwrap();
    let docs = r.index.docs();
    let lsh = r.simhash.is_none();
    let rows = r
        .found
        .pairs
        .iter()
        .map(|p| {
            let est = lsh.then_some(p.estimate);
            let (a, b) = (&docs.at(p.a as usize).id, &docs.at(p.b as usize).id);
            (a.clone(), b.clone(), p.jaccard, est)
        })
        .collect();
    (rows, r.found.candidates)
}

/// What a fresh index and search at the session's wanted settings find, and (MinHash)
/// `simtui eval`'s scores at 0.5 and 0.8 for them.
fn fresh(dir: &Path, app: &App) -> ((Vec<Row>, u64), Option<Vec<Score>>) {
    let session = app.session();
    let (b, r) = session.banding();
    let mut params = session.params().clone();
    params.num_perm = b * r;
    let corpus = Corpus::walk(&[dir.join("c")], &WalkOptions::default()).unwrap();
    let index = Index::builder(&params).build(corpus, &Silent).unwrap();
    let (found, lsh) = match session.simhash() {
        None => (index.find(b, r, 0.0, &Silent).unwrap(), true),
        Some(s) => {
            let fps = Fingerprints::from_index(&index, s.hasher, &Silent).unwrap();
            let search = index.search_fingerprints(&fps, s.max_distance, 0.0, &Silent);
            let found = index.spell(search.unwrap()).unwrap();
            (found, false)
        }
    };
    let docs = index.docs();
    let rows = found
        .pairs
        .iter()
        .map(|p| {
            let (a, b) = (&docs.at(p.a as usize).id, &docs.at(p.b as usize).id);
            (a.clone(), b.clone(), p.jaccard, lsh.then_some(p.estimate))
        })
        .collect();
    // As `simtui eval` scores them: the exact pairs down to its lowest threshold.
    let scores = lsh.then(|| {
        let exact = all_pairs(&index, 0.5, &Limits::default(), &Silent).unwrap();
        score(
            &index,
            &Truth::from_exact(&exact),
            &found,
            b,
            r,
            &[0.5, 0.8],
        )
    });
    ((rows, found.candidates), scores)
}

/// The same counts, and the same ratios but for the order of a sum (the panel scores
/// 91 thresholds in one pass, eval five).
fn same(x: &Score, y: &Score) -> bool {
    let close = |a: f64, b: f64| (a.is_nan() && b.is_nan()) || (a - b).abs() < 1e-12;
    (x.threshold, x.truth, x.found, x.candidates) == (y.threshold, y.truth, y.found, y.candidates)
        && close(x.recall, y.recall)
        && close(x.precision, y.precision)
        && close(x.predicted, y.predicted)
}

/// Presses `keys` (each followed by its jobs) and checks the list after each.
fn check_sequence(keys: &[Action]) -> Result<(), TestCaseError> {
    let dir = corpus_dir();
    let mut app = new_app(dir.path(), (100, 30));
    app.start();
    pump(&mut app);
    app.update(Action::ToggleTuning);
    for (step, &key) in keys.iter().enumerate() {
        app.update(key);
        pump(&mut app);
        let s = app.session();
        prop_assert!(
            !s.stale() && !s.rebanding(),
            "step {step}: {key:?} not done"
        );
        let (b, r) = s.banding();
        let what = format!(
            "after {:?}: b={b} r={r} k={} {} {} {}",
            &keys[..=step],
            s.params().k,
            s.params().text.unit.name(),
            s.params().sketch.name(),
            if s.simhash().is_some() {
                "simhash"
            } else {
                "lsh"
            }
        );
        let (want, scores) = fresh(dir.path(), &app);
        prop_assert_eq!(listed(&app), want, "{}", what);
        // The panel's counts and recalls are eval's at the same settings.
        for score in scores.iter().flatten() {
            let panel = s.real_recall(score.threshold).expect("recall measured");
            prop_assert!(same(panel, score), "{what}: {panel:?} vs eval {score:?}");
        }
        if s.simhash().is_none() {
            // The panel's N is the width of the signatures banded.
            let r = s.results().unwrap();
            prop_assert_eq!(r.index.num_perm(), b * r.rows, "{}", what);
            prop_assert_eq!(r.index.params().sketch, s.params().sketch, "{}", what);
            let line = format!("N = b·r = {} {}", b * r.rows, s.params().sketch.name());
            let shown = screen(&app);
            prop_assert!(shown.contains(&line), "{what}: no {line:?} in\n{shown}");
            prop_assert!(!shown.contains("sketching"), "{what}\n{shown}");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn the_list_after_any_keys_is_a_fresh_find_at_the_settings_in_force(
        keys in prop::collection::vec(prop::sample::select(KEYS.to_vec()), 1..10)
    ) {
        check_sequence(&keys)?;
    }
}

/// The issue's round trips, always checked: 17 × 8 and back (OPH at 136 bins was kept
/// and its first 128 bins banded: 570 pairs instead of 556), r = 9 and back, and a
/// switch of sketch there and back.
#[test]
fn the_round_trips_of_the_issue_end_where_they_started() {
    use Action::*;
    for keys in [
        &[BandsUp, BandsDown][..],
        &[RowsUp, RowsDown],
        &[SwitchSketch, BandsUp, SwitchSketch, BandsDown],
        &[ShingleUp, BandsUp, ShingleDown, BandsDown],
        &[SwitchMethod, RowsUp, SwitchMethod, RowsUp, RowsDown],
    ] {
        check_sequence(keys).unwrap();
    }
    // The sketch both ways is the flag's.
    assert_eq!(SketchKind::Oph.name(), "oph");
}
