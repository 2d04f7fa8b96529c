//! Tests of the views opened from the list (neighbours, clusters, members, heatmap) and
//! of exporting: actions in, state, engine truth and screen text out.

use super::{act, assert_shows, draw, loaded, new_app, pump, screen};
use crate::tui::app::App;
use crate::tui::keys::{Action, Context};
use crate::tui::views;
use crate::tui::views::clusters::ClustersView;
use crate::tui::views::diff::DiffView;
use crate::tui::views::export::ExportView;
use crate::tui::views::heatmap::HeatmapView;
use crate::tui::views::members::MembersView;
use crate::tui::views::neighbours::NeighboursView;
use crate::tui::views::view::{Cursor, View};
use ratatui::style::Modifier;
use simtui_engine::analysis::cluster::{Keep, clusters};
use simtui_engine::search::found::Pair;

/// e, a file name typed, Enter; then the write job, if one was started, runs.
fn export_to(app: &mut App, name: &str) {
    app.update(Action::Export);
    assert_eq!(app.context(), &views::export::KEYS);
    for c in name.chars() {
        app.update(Action::FilterChar(c));
    }
    app.update(Action::FilterKeep);
    pump(app);
}

/// A job's progress that says "cancelled" from its second question on: once the job
/// has begun.
#[derive(Default)]
struct CancelledOnceBegun(std::sync::atomic::AtomicBool);

impl simtui_engine::progress::Progress for CancelledOnceBegun {
    fn update(&self, _: simtui_engine::progress::Stage, _: u64, _: u64) {}
    fn is_cancelled(&self) -> bool {
        self.0.swap(true, std::sync::atomic::Ordering::Relaxed)
    }
}

/// The view on top, which must be a `T`.
fn top<T: View>(app: &App) -> &T {
    app.top_as::<T>().expect("the view on top")
}

#[test]
fn cursor_moves_clamp_and_keep_the_selection_on_screen() {
    let mut c = Cursor::default();
    assert!(c.apply(Action::Down, 10, 4));
    assert_eq!(c.selected, 1);
    c.apply(Action::Bottom, 10, 4);
    assert_eq!((c.selected, c.offset), (9, 6));
    c.apply(Action::PageUp, 10, 4);
    assert_eq!((c.selected, c.offset), (5, 5));
    c.apply(Action::Top, 10, 4);
    assert_eq!((c.selected, c.offset), (0, 0));
    c.apply(Action::Up, 10, 4);
    assert_eq!(c.selected, 0);
    assert!(!c.apply(Action::Open, 10, 4));
    c.apply(Action::Down, 0, 4);
    assert_eq!(c.selected, 0, "an empty list keeps row 0");
}

#[test]
fn neighbours_are_every_similar_document_by_exact_jaccard() {
    let (_dir, mut app) = loaded((120, 36));
    let pair = app.list().selected_pair(app.session()).unwrap();
    let index = app.session().results().unwrap().index.clone();
    app.update(Action::Neighbours);
    assert_eq!(app.context(), &views::neighbours::KEYS);
    assert_shows(&app, "searching");
    pump(&mut app);
    let v = top::<NeighboursView>(&app);
    assert_eq!(v.doc(), pair.a);
    let answer = v.answer().expect("answered");
    // 60 documents: fewer than the 100 asked for, so the scan fills up with every
    // document that shares a shingle; compare with brute force.
    let mut truth: Vec<(u32, f64)> = (0..index.docs().len() as u32)
        .filter(|&d| d != pair.a)
        .map(|d| (d, index.similarity(pair.a, d).0))
        .filter(|x| x.1 > 0.0)
        .collect();
    truth.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    let got: Vec<(u32, f64)> = answer
        .neighbours
        .iter()
        .map(|n| (n.doc, n.jaccard))
        .collect();
    let sims = |v: &[(u32, f64)]| v.iter().map(|x| x.1).collect::<Vec<_>>();
    assert_eq!(sims(&got), sims(&truth), "same similarities, best first");
    assert!(got.iter().any(|&(d, j)| d == pair.b && j == pair.jaccard));
    assert_shows(&app, "Neighbours of");
    let s = screen(&app);
    assert!(s.contains(&index.docs().at(pair.a as usize).id), "{s}");

    // Enter: the document and its best neighbour side by side; Esc comes back.
    app.update(Action::Open);
    assert_eq!(app.context(), &views::diff::KEYS);
    let d = app.top_as::<DiffView>().unwrap();
    assert_eq!((d.pair().a, d.pair().b), (pair.a, got[0].0));
    assert_shows(&app, "neighbour 1 of");
    // n in the diff steps to the next neighbour.
    app.update(Action::NextPair);
    assert_eq!(app.top_as::<DiffView>().unwrap().pair().b, got[1].0);
    app.update(Action::Back);
    assert_eq!(app.context(), &views::neighbours::KEYS);
    // The neighbours of a neighbour stack on top; Esc twice is back at the list.
    act(&mut app, Action::Neighbours);
    assert_eq!(app.depth(), 2);
    app.update(Action::Back);
    app.update(Action::Back);
    assert_eq!(app.context(), &views::list::KEYS);
}

#[test]
fn a_view_below_whose_job_was_replaced_starts_it_again() {
    let (_dir, mut app) = loaded((120, 36));
    app.update(Action::Neighbours);
    // Before the first answer arrives, another document's neighbours open on top.
    let index = app.session().results().unwrap().index.clone();
    let other = app.list().selected_pair(app.session()).unwrap().b;
    app.with_cx(|cx| {
        let view = NeighboursView::open(index, other, cx).expect("the banding fits");
        cx.push(view);
    });
    // One neighbours job runs at a time: the first view's job was replaced.
    act(&mut app, Action::Back);
    let v = top::<NeighboursView>(&app);
    assert!(
        v.answer().is_some(),
        "the view below was answered after all"
    );
}

#[test]
fn clusters_join_the_listed_pairs_at_the_threshold() {
    let (_dir, mut app) = loaded((120, 36));
    app.update(Action::Clusters);
    assert_eq!(app.context(), &views::clusters::KEYS);
    pump(&mut app);
    let check = |app: &App| {
        let v = top::<ClustersView>(app);
        let t = v.threshold();
        let pairs: Vec<Pair> = v
            .listed()
            .iter()
            .filter(|p| p.jaccard >= t)
            .copied()
            .collect();
        let want = clusters(v.index(), &pairs, Keep::Longest);
        assert_eq!(v.clusters().unwrap(), &want[..]);
        v.clusters().unwrap().len()
    };
    let at_80 = check(&app);
    assert!(at_80 > 0, "the corpus has clusters at 0.8");
    assert_shows(&app, "J ≥ 0.80");
    // ← lowers the threshold: clusters merge or appear, never vanish into nothing.
    act(&mut app, Action::SimDown);
    let v = top::<ClustersView>(&app);
    assert_eq!(v.threshold_pct(), 75);
    check(&app);
    assert_shows(&app, "J ≥ 0.75");

    // Enter: the members, the kept one first, then by J with it.
    app.update(Action::Open);
    assert_eq!(app.context(), &views::members::KEYS);
    let m = top::<MembersView>(&app);
    assert_eq!(m.order()[0], m.cluster().representative);
    assert!(m.sims().windows(2).skip(1).all(|w| w[0].0 >= w[1].0));
    let second = m.order()[1];
    let rep = m.cluster().representative;
    assert_shows(&app, "kept");
    // Enter on the representative explains; on a member, the diff with the kept one.
    app.update(Action::Open);
    assert!(app.top_as::<DiffView>().is_none());
    assert!(app.status().unwrap().contains("representative"));
    app.update(Action::Down);
    app.update(Action::Open);
    let d = app.top_as::<DiffView>().unwrap();
    assert_eq!((d.pair().a, d.pair().b), (rep, second));
    app.update(Action::Back);
    app.update(Action::Back);
    assert_eq!(app.context(), &views::clusters::KEYS);
    app.update(Action::Back);
    assert_eq!(app.context(), &views::list::KEYS);
}

#[test]
fn the_heatmap_is_symmetric_with_ones_on_the_diagonal() {
    let (_dir, mut app) = loaded((120, 36));
    act(&mut app, Action::Clusters);
    app.update(Action::Heatmap);
    assert_eq!(app.context(), &views::heatmap::KEYS);
    pump(&mut app);
    let v = top::<HeatmapView>(&app);
    let m = v.matrix().unwrap();
    assert_eq!(m.n, v.docs().len());
    for i in 0..m.n {
        assert_eq!(m.get(i, i), 1.0);
        for j in 0..m.n {
            assert_eq!(m.get(i, j), m.get(j, i));
            let (a, b) = (v.docs()[i], v.docs()[j]);
            assert_eq!(m.get(i, j), v.index().similarity(a, b).0);
        }
    }
    assert_eq!(v.at(), (1, 0), "the cursor starts off the diagonal");
    assert_shows(&app, "Heatmap of");
    let s = screen(&app);
    assert!(s.contains(&format!("J = {:.3}", m.get(1, 0))), "{s}");
    // The cursor's cell is reversed: visible without colour.
    let buf = draw(&app);
    let reversed = buf
        .content
        .iter()
        .filter(|c| c.modifier.contains(Modifier::REVERSED))
        .count();
    assert!(reversed >= 1, "the cursor cell is reversed");
    app.update(Action::Right);
    app.update(Action::Up);
    let v = top::<HeatmapView>(&app);
    assert_eq!(v.at(), (0, 1));
    app.update(Action::Open);
    assert_eq!(app.context(), &views::diff::KEYS);
}

#[test]
fn h_in_the_neighbours_opens_the_heatmap_of_the_document_and_its_neighbours() {
    let (_dir, mut app) = loaded((120, 36));
    let doc = app.list().selected_pair(app.session()).unwrap().a;
    app.update(Action::Neighbours);
    // Before the answer, h says why nothing opens.
    app.update(Action::Heatmap);
    assert_eq!(app.context(), &views::neighbours::KEYS);
    assert!(
        app.status().unwrap().contains("searching"),
        "{:?}",
        app.status()
    );
    pump(&mut app);
    let neighbours: Vec<u32> = top::<NeighboursView>(&app)
        .answer()
        .unwrap()
        .neighbours
        .iter()
        .map(|n| n.doc)
        .collect();
    assert!(!neighbours.is_empty());
    // The same key as the clusters' heatmap.
    let key = |ctx: Context| {
        ctx.defaults
            .iter()
            .find(|b| b.action == Action::Heatmap)
            .map(|b| b.label)
    };
    assert_eq!(key(&views::neighbours::KEYS), key(&views::clusters::KEYS));
    app.update(Action::Heatmap);
    assert_eq!(app.context(), &views::heatmap::KEYS);
    pump(&mut app);
    let v = top::<HeatmapView>(&app);
    // The document first, then its neighbours best first (at most the heatmap's limit).
    let want: Vec<u32> = std::iter::once(doc)
        .chain(neighbours.iter().copied())
        .take(views::heatmap::MAX_HEATMAP)
        .collect();
    assert_eq!(v.docs(), &want[..]);
    let m = v.matrix().unwrap();
    for (j, &other) in want.iter().enumerate() {
        assert_eq!(m.get(0, j), v.index().similarity(doc, other).0);
    }
    let s = screen(&app);
    let id = &v.index().docs().at(doc as usize).id;
    assert!(s.contains(&format!("Heatmap of {id} and its")), "{s}");
    // Enter on (1, 0): the neighbour beside the document; Esc twice back at the neighbours.
    app.update(Action::Open);
    let d = app.top_as::<DiffView>().unwrap();
    assert_eq!((d.pair().a, d.pair().b), (want[1], doc));
    app.update(Action::Back);
    app.update(Action::Back);
    assert_eq!(app.context(), &views::neighbours::KEYS);
}

#[test]
fn export_writes_the_listed_pairs_and_survives_an_unwritable_path() {
    let (dir, mut app) = loaded((120, 36));
    let out = dir.path().join("out.jsonl");
    app.update(Action::Export);
    assert_eq!(app.context(), &views::export::KEYS);
    assert_shows(&app, "Export to:");
    for c in out.to_str().unwrap().chars() {
        app.update(Action::FilterChar(c));
    }
    app.update(Action::FilterKeep);
    // A job writes the file: nothing is written during the update, the prompt says so.
    assert!(!out.exists());
    assert_shows(&app, "writing");
    pump(&mut app);
    assert!(app.top_as::<ExportView>().is_none(), "{:?}", app.status());
    assert!(
        app.status().unwrap().starts_with("wrote "),
        "{:?}",
        app.status()
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), app.list().visible().len());
    let r = app.session().results().unwrap();
    let p0 = app.list().pairs_shown(app.session())[0];
    assert_eq!(lines[0]["a"], *r.index.docs().id(p0.a as usize));
    assert_eq!(lines[0]["jaccard"], p0.jaccard);
    assert!(lines[0]["estimate"].is_f64());

    // An existing file needs Enter twice; a CSV by its name.
    export_to(&mut app, out.to_str().unwrap());
    let p = app.top_as::<ExportView>().expect("still asking");
    assert!(p.confirm().unwrap().1.contains("exists"));
    assert_shows(&app, "exists");
    app.update(Action::FilterClear);
    assert!(app.top_as::<ExportView>().is_none());

    // Inside the corpus, or the corpus itself: refused, Enter again or not (issue 26:
    // a second Enter wrote into the corpus).
    let c = dir.path().join("c");
    for path in [c.join("pairs.csv"), c.clone()] {
        export_to(&mut app, path.to_str().unwrap());
        act(&mut app, Action::FilterKeep);
        let p = app.top_as::<ExportView>().expect("the prompt stays open");
        let e = p.error().unwrap();
        assert!(e.contains("the input") && p.confirm().is_none(), "{e}");
        app.update(Action::FilterClear);
    }
    assert!(
        !c.join("pairs.csv").exists(),
        "nothing written into the corpus"
    );
    assert!(c.is_dir());

    // A folder that does not exist: an error in the prompt itself, where the next key
    // goes, and the explorer goes on.
    export_to(&mut app, "/no/such/simtui/dir/x.csv");
    let p = app.top_as::<ExportView>().expect("the prompt stays open");
    assert!(p.error().unwrap().contains("cannot write"));
    let prompt = screen(&app)
        .lines()
        .find(|l| l.contains("Export to:"))
        .unwrap()
        .to_string();
    assert!(prompt.contains("cannot write: No such file"), "{prompt}");
    assert!(app.fatal().is_none() && !app.quitting());
    assert_eq!(
        app.context(),
        &views::export::KEYS,
        "the name can be corrected"
    );
    // Editing the name clears the error.
    app.update(Action::FilterBackspace);
    assert!(app.top_as::<ExportView>().unwrap().error().is_none());
    app.update(Action::FilterClear);
    assert_eq!(app.context(), &views::list::KEYS);
}

#[test]
fn esc_cancels_an_export_being_written_and_its_partial_file_goes() {
    use crate::tui::jobs::Cmd;
    use crate::tui::worker::{self, JobError, Kind, Work};

    let (dir, mut app) = loaded((120, 36));
    let out = dir.path().join("cancelled.csv");
    app.update(Action::Export);
    for c in out.to_str().unwrap().chars() {
        app.update(Action::FilterChar(c));
    }
    app.update(Action::FilterKeep);
    let mut jobs = app.take_outbox();
    let Some(Cmd::Spawn(job)) = jobs.pop() else {
        panic!("Enter starts a job")
    };
    assert!(matches!(job.work, Work::Task(_)));
    // Keys wait for the write, but Esc: it cancels the job and closes the prompt.
    app.update(Action::FilterChar('x'));
    assert_eq!(app.context(), &views::export::KEYS);
    app.update(Action::FilterClear);
    assert_eq!(app.context(), &views::list::KEYS);
    assert!(
        app.outbox()
            .iter()
            .any(|c| matches!(c, Cmd::Cancel(Kind::Task("Export"))))
    );
    // The job, cancelled once it has created the file, removes it.
    let result = worker::execute(job.work, &CancelledOnceBegun::default());
    assert!(matches!(result, Err(JobError::Cancelled)));
    assert!(!out.exists(), "the partial file is removed");
}

/// Exploring the current folder (`simtui .`), the export's default name is not in it
/// (it would be refused) but in the home or the temporary folder.
#[test]
fn the_default_export_name_is_outside_the_corpus() {
    let (_dir, mut app) = loaded((160, 36));
    app.update(Action::Export);
    assert_shows(&app, "▏simtui-pairs.csv");
    app.update(Action::FilterClear);
    let cwd = std::env::current_dir().unwrap();
    app.set_paths(crate::output::guard::Paths::default().inputs("the input", &[cwd]));
    app.update(Action::Export);
    let prompt = screen(&app);
    let line = prompt.lines().find(|l| l.contains("Export to:")).unwrap();
    assert!(line.contains("/simtui-pairs.csv"), "{line}");
    assert!(!line.contains("▏simtui-pairs.csv"), "{line}");
}

/// An export over an existing file (confirmed), cancelled or failed half-way, leaves
/// the old file as it was and no temporary file (issue 26: the file was created at its
/// name and written there, so a cancel removed the old file and a full disk left a
/// truncated one).
#[test]
fn a_cancelled_export_over_a_file_leaves_the_old_file() {
    use crate::tui::worker::{self, JobError};

    let (dir, mut app) = loaded((120, 36));
    let out = dir.path().join("old.csv");
    std::fs::write(&out, "the old export\n").unwrap();
    export_to(&mut app, out.to_str().unwrap());
    app.update(Action::FilterKeep);
    let mut jobs = app.take_outbox();
    let Some(crate::tui::jobs::Cmd::Spawn(job)) = jobs.pop() else {
        panic!("the second Enter starts a job")
    };
    let result = worker::execute(job.work, &CancelledOnceBegun::default());
    let old = std::fs::read_to_string(&out);
    assert_eq!(old.ok().as_deref(), Some("the old export\n"));
    assert!(matches!(result, Err(JobError::Cancelled)));
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("old.csv"))
        .collect();
    assert_eq!(names, ["old.csv"], "no temporary file left");
}

#[test]
fn clusters_export_as_json_lines() {
    let (dir, mut app) = loaded((120, 36));
    act(&mut app, Action::Clusters);
    let out = dir.path().join("clusters.jsonl");
    export_to(&mut app, out.to_str().unwrap());
    let v = top::<ClustersView>(&app);
    let n = v.clusters().unwrap().len();
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().count(), n);
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert!(first["members"].as_array().unwrap().len() >= 2);
    assert!(first["representative"].is_string());
}

#[test]
fn m_switches_to_simhash_with_a_hamming_column_and_back() {
    let (_dir, mut app) = loaded((120, 36));
    let minhash: Vec<Pair> = app.session().results().unwrap().found.pairs.clone();
    app.update(Action::SwitchMethod);
    assert!(app.session().rebanding());
    pump(&mut app);
    let r = app.session().results().unwrap();
    let (setting, fps) = r.simhash.as_ref().expect("SimHash results");
    assert_eq!(setting.hasher.bits(), 64);
    // The same candidates and verification the headless `pairs --method simhash` uses.
    let silent = &simtui_engine::progress::Silent;
    let search = r
        .index
        .search_fingerprints(fps, setting.max_distance, 0.0, silent);
    let want = r.index.spell(search.unwrap()).unwrap();
    assert_eq!(r.found.pairs, want.pairs);
    assert_shows(&app, "SimHash 64 idf ≤10");
    assert_shows(&app, " ham ");
    let s = screen(&app);
    // Candidates sharing no shingle (J = 0, last) are said to be so in the title.
    let zero = r.found.pairs.iter().filter(|p| p.jaccard == 0.0).count();
    let said = format!("last {zero}: J = 0, close fingerprints sharing no shingle");
    assert_eq!(s.contains(&said), zero > 0, "{zero}\n{s}");
    // The first listed pair's distance is on its row.
    let p = app.list().pairs_shown(app.session())[0];
    let d = fps.distance(
        r.index.docs().group(p.a as usize),
        r.index.docs().group(p.b as usize),
    );
    let row = s
        .lines()
        .find(|l| l.trim_start().starts_with("1 "))
        .unwrap();
    assert!(row.contains(&format!(" {d:>3} ")), "{row}");
    // b, r and the tuning panel are MinHash's.
    app.update(Action::ToggleTuning);
    assert!(!app.list().tuning().is_open());
    assert!(app.status().unwrap().contains("MinHash"));
    // And back.
    act(&mut app, Action::SwitchMethod);
    let r = app.session().results().unwrap();
    assert!(r.simhash.is_none());
    assert_eq!(r.found.pairs, minhash);
    assert!(!screen(&app).contains(" ham "));
}

#[test]
fn every_view_draws_at_the_smallest_and_a_large_size() {
    use crate::tui::widgets::layout::{MIN_H, MIN_W};
    for size in [(MIN_W, MIN_H), (61, 16), (220, 60)] {
        let (_dir, mut app) = loaded(size);
        let mut seen = Vec::new();
        let look = |app: &App, seen: &mut Vec<Context>| {
            let s = screen(app);
            assert!(!s.contains("Terminal too small"), "{size:?}\n{s}");
            seen.push(app.context());
        };
        act(&mut app, Action::Neighbours);
        look(&app, &mut seen);
        app.update(Action::Back);
        act(&mut app, Action::Clusters);
        look(&app, &mut seen);
        app.update(Action::Open);
        look(&app, &mut seen);
        act(&mut app, Action::Heatmap);
        look(&app, &mut seen);
        app.update(Action::Back);
        app.update(Action::Back);
        app.update(Action::Export);
        look(&app, &mut seen);
        assert_eq!(
            seen,
            [
                &views::neighbours::KEYS,
                &views::clusters::KEYS,
                &views::members::KEYS,
                &views::heatmap::KEYS,
                &views::export::KEYS
            ]
        );
    }
}

#[test]
fn simhash_candidates_sharing_no_shingle_are_explained() {
    // The same words in reverse order: one fingerprint (SimHash weighs words, not their
    // order), not one shingle of five words in common.
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    std::fs::create_dir(&c).unwrap();
    let words: Vec<String> = (0..60).map(|i| format!("word{i}")).collect();
    let mut reversed = words.clone();
    reversed.reverse();
    std::fs::write(c.join("a.txt"), words.join(" ")).unwrap();
    std::fs::write(c.join("b.txt"), reversed.join(" ")).unwrap();
    std::fs::write(
        c.join("c.txt"),
        "other text entirely, nothing like the rest at all",
    )
    .unwrap();
    let mut app = new_app(dir.path(), (120, 30));
    app.start();
    pump(&mut app);
    act(&mut app, Action::SwitchMethod);
    let r = app.session().results().unwrap();
    assert!(r.simhash.is_some());
    assert_eq!(r.found.pairs.len(), 1);
    assert_eq!(r.found.pairs[0].jaccard, 0.0);
    assert_shows(&app, "last 1: J = 0, close fingerprints sharing no shingle");
}
