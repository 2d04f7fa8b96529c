//! A newswire read as a newcomer reads it (issue 28): numeric ids and headlines, dates,
//! bodies hard-wrapped at 60 columns. Every view names documents by their titles, ids go
//! in natural order (4 before 16), the diff shows the dates unasked and joins wrapped
//! paragraphs, and a review whose ids match nothing says why.

use super::*;
use crate::input::removals;
use crate::tui::keep_list::KeepList;
use crate::tui::views::clusters::ClustersView;
use crate::tui::views::diff::DiffView;
use crate::tui::views::heatmap::HeatmapView;
use crate::tui::views::members::MembersView;
use crate::tui::views::neighbours::NeighboursView;
use crate::tui::views::review::{Review, ReviewView};
use simtui_engine::source::InputOptions;
use std::collections::BTreeSet;

/// A story's body: `words` pseudo-words drawn from `seed`, wrapped at 60 columns, the
/// paragraph indented as the wire indents them.
fn body(seed: u64, words: usize) -> String {
    const SYLLABLES: [&str; 16] = [
        "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "de", "fo", "ga", "hu", "pe", "qui", "ban",
        "cor",
    ];
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) as usize
    };
    let mut lines = vec![String::from("   ")];
    for _ in 0..words {
        let n = 1 + next() % 3;
        let word: String = (0..n).map(|_| SYLLABLES[next() % 16]).collect();
        let line = lines.last_mut().unwrap();
        if line.len() + 1 + word.len() > 60 {
            lines.push(word);
        } else {
            line.push(' ');
            line.push_str(&word);
        }
    }
    lines.join("\n") + "\n"
}

/// A record of the wire.
fn record(id: &str, title: &str, date: &str, text: &str) -> String {
    serde_json::json!({"id": id, "title": title, "date": date, "text": text}).to_string() + "\n"
}

/// `c/wire.jsonl`: the same "FED ADDS RESERVES" story on two days (ids 4 and 16), an oil
/// story in three versions a word apart (906, 1014, 1200), and four stories sent twice
/// (ids 1086, 1017, 10265, 1019, each with a copy named 2000x).
fn wire(dir: &Path) -> std::path::PathBuf {
    let c = dir.join("c");
    std::fs::create_dir_all(&c).unwrap();
    let (fed, oil) = (body(1, 90), body(2, 120));
    let stories = [
        ("16", "FED ADDS RESERVES", "3-APR-1987", fed.clone()),
        ("906", "OIL PRICES RISE", "1-APR-1987", oil.clone()),
        ("4", "FED ADDS RESERVES", "1-APR-1987", fed),
        (
            "1014",
            "OIL PRICES RISE",
            "2-APR-1987",
            oil.replacen("ka", "zzz", 1),
        ),
        (
            "1200",
            "OIL PRICES RISE",
            "4-APR-1987",
            oil.replacen("lo", "yyy", 1),
        ),
    ];
    let mut lines: Vec<String> = (stories.iter())
        .map(|(id, title, date, text)| record(id, title, date, text))
        .collect();
    for (i, id) in ["1086", "1017", "10265", "1019"].iter().enumerate() {
        let text = body(10 + i as u64, 80);
        let title = format!("STORY {i}");
        lines.push(record(id, &title, "1-APR-1987", &text));
        lines.push(record(&format!("2000{i}"), &title, "1-APR-1987", &text));
    }
    std::fs::write(c.join("wire.jsonl"), lines.concat()).unwrap();
    c
}

/// The explorer on the wire (written to a new folder), read by ids and titles, loaded.
fn explore() -> (tempfile::TempDir, App) {
    let dir = tempfile::tempdir().unwrap();
    let walk = WalkOptions {
        input: by_id(),
        ..Default::default()
    };
    let params = Params::default();
    let mut app = App::new(
        Opening {
            roots: vec![wire(dir.path())],
            walk,
            params,
            bands: 16,
            rows: 8,
        },
        Theme::mono(),
        (120, 36),
    );
    app.start();
    pump(&mut app);
    (dir, app)
}

/// Ids from the `id` field, titles from `title`; dates are not asked for.
fn by_id() -> InputOptions {
    InputOptions {
        id_field: Some("id".into()),
        title_field: Some("title".into()),
        ..Default::default()
    }
}

#[test]
fn ids_are_in_natural_order_within_pairs_and_among_ties() {
    let (_dir, app) = explore();
    let shown: Vec<(String, String)> = (0..app.list().visible().len())
        .map(|i| ids(&app, i))
        .collect();
    let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
    // J = 1 first: 4 before 16 (bytes put "16" first), then the copies by their
    // first ids as numbers: 1017, 1019, 1086, 10265 (bytes: 1017, 1019, 10265, 1086).
    assert_eq!(
        shown[..5],
        [
            pair("4", "16"),
            pair("1017", "20001"),
            pair("1019", "20003"),
            pair("1086", "20000"),
            pair("10265", "20002"),
        ],
        "{shown:?}"
    );
    assert!(shown.contains(&pair("906", "1014")), "{shown:?}");
    let s = screen(&app);
    let row = s.lines().find(|l| l.contains(" 1.000 ")).unwrap();
    let (four, sixteen) = (row.find(" 4 FED").unwrap(), row.find(" 16 FED").unwrap());
    assert!(four < sixteen, "{row}");
}

#[test]
fn every_view_names_documents_by_their_titles() {
    let (_dir, mut app) = explore();
    // The clusters, their members and their heatmap.
    act(&mut app, Action::Clusters);
    let clusters = app
        .top_as::<ClustersView>()
        .unwrap()
        .clusters()
        .unwrap()
        .to_vec();
    let oil = clusters.iter().position(|c| c.members.len() == 3).unwrap();
    let s = screen(&app);
    assert!(
        s.contains("OIL PRICES RISE") && s.contains("FED ADDS RESERVES"),
        "{s}"
    );
    for _ in 0..oil {
        app.update(Action::Down);
    }
    app.update(Action::Open);
    assert!(app.top_as::<MembersView>().is_some());
    let s = screen(&app);
    let titled = s.lines().filter(|l| l.contains("OIL PRICES RISE")).count();
    assert_eq!(titled, 3, "{s}");
    act(&mut app, Action::Heatmap);
    assert!(app.top_as::<HeatmapView>().is_some());
    let s = screen(&app);
    assert!(
        s.lines().filter(|l| l.contains("OIL PRICES RISE")).count() >= 4,
        "{s}"
    );
    // The members' neighbours.
    app.update(Action::Back);
    act(&mut app, Action::Neighbours);
    assert!(app.top_as::<NeighboursView>().is_some());
    let s = screen(&app);
    let titled = s.lines().filter(|l| l.contains("OIL PRICES RISE")).count();
    assert!(titled >= 3, "the title bar and both neighbours: {s}");
    // Members of a cluster are in natural order too.
    let members: Vec<String> = clusters[oil]
        .members
        .iter()
        .map(|&d| {
            app.session()
                .results()
                .unwrap()
                .index
                .docs()
                .id(d as usize)
                .into_owned()
        })
        .collect();
    assert_eq!(members, ["906", "1014", "1200"]);
}

#[test]
fn the_diff_shows_the_dates_unasked_and_joins_wrapped_paragraphs() {
    let (_dir, mut app) = explore();
    act(&mut app, Action::Open);
    assert_shows(&app, "≠date 1-APR-1987");
    assert_shows(&app, "≠date 3-APR-1987");
    let s = screen(&app);
    // The same text on two days: each body's wrapped lines joined into its paragraph.
    let d = app.top_as::<DiffView>().unwrap();
    assert!(d.joined(), "paragraphs joined first");
    let joined_rows = d.layout().rows.len();
    assert_eq!(d.layout().rows[0].left.as_ref().unwrap().line, Some(1));
    assert!(s.contains("paragraphs joined"), "{s}");
    // No word touches the separator: a blank column on each side of it.
    let sep_col = |l: &str| l.chars().position(|c| c == '│' || c == '┃');
    let mut rows = 0;
    for line in s.lines() {
        let chars: Vec<char> = line.chars().collect();
        if let Some(x) = sep_col(line).filter(|&x| x > 0 && x + 1 < chars.len()) {
            assert_eq!((chars[x - 1], chars[x + 1]), (' ', ' '), "{line}");
            rows += 1;
        }
    }
    assert!(rows > 5, "{s}");
    // w: the texts' own lines, numbered as they are; w again: joined.
    app.update(Action::ToggleLines);
    let d = app.top_as::<DiffView>().unwrap();
    assert!(!d.joined());
    let lines = d.model().unwrap().as_ref().unwrap().lines;
    assert!(lines[0] > 5, "{lines:?}");
    assert!(d.layout().rows.len() > joined_rows);
    assert!(!screen(&app).contains("paragraphs joined"));
    app.update(Action::ToggleLines);
    assert!(app.top_as::<DiffView>().unwrap().joined());
}

#[test]
fn a_review_whose_ids_match_nothing_says_where_ids_come_from() {
    let dir = tempfile::tempdir().unwrap();
    let list = "{\"id\":\"1014\",\"kept\":\"906\"}\n{\"id\":\"16\",\"kept\":\"4\"}\n";
    let path = dir.path().join("out.removed.jsonl");
    std::fs::write(&path, list).unwrap();
    let review = Review {
        list: path.clone(),
        format: "simtui",
        removed: Arc::new(removals::parse(list).unwrap()),
        tasks: None,
        keep_list: KeepList::new(removals::default_keep_list(&path)),
        kept: BTreeSet::new(),
    };
    // Read without --id-field: records are named FILE:LINE, which the list's ids are not.
    let walk = WalkOptions::default();
    let mut app = App::new(
        Opening {
            roots: vec![wire(dir.path())],
            walk,
            params: Params::default(),
            bands: 16,
            rows: 8,
        },
        Theme::mono(),
        (120, 36),
    );
    app.open_review(review);
    app.start();
    pump(&mut app);
    assert!(app.top_as::<ReviewView>().is_some());
    assert_shows(&app, "None of the list's 2 removals");
    assert_shows(&app, "FILE:LINE");
    assert_shows(&app, "fields: date, id, text, title");
    assert_shows(&app, "Try --id-field id");
    // Enter says it again, where the status line is.
    app.update(Action::Open);
    assert!(app.status().unwrap().contains("Try --id-field id"));
}

#[test]
fn identical_copies_are_listed_as_numbers() {
    let text = "the same page copied many times over with nothing changed at all";
    let names = ["copy_10", "copy_2", "copy_11", "copy_1", "copy_3"];
    let texts: Vec<(String, String)> = names
        .iter()
        .map(|n| (n.to_string(), text.to_string()))
        .collect();
    let corpus = simtui_engine::source::Corpus::from_texts(texts);
    let index = Arc::new(
        simtui_engine::index::Index::builder(&Params::default())
            .build(corpus, &simtui_engine::Silent)
            .unwrap(),
    );
    let links: Vec<simtui_engine::search::found::Pair> = (1..names.len() as u32)
        .map(|b| simtui_engine::search::found::Pair {
            a: 0,
            b,
            jaccard: 1.0,
            estimate: 1.0,
        })
        .collect();
    let keep = simtui_engine::Keep::Longest;
    let cluster = simtui_engine::analysis::cluster::clusters(&index, &links, keep).remove(0);
    let rep = cluster.representative;
    let view = MembersView::named(index.clone(), cluster, "Identical documents".into());
    let id = |d: u32| index.docs().id(d as usize);
    let rest: Vec<String> = view.order()[1..]
        .iter()
        .map(|&d| id(d).into_owned())
        .collect();
    let mut want: Vec<&str> = ["copy_1", "copy_2", "copy_3", "copy_10", "copy_11"].to_vec();
    want.retain(|n| *n != id(rep));
    assert_eq!(rest, want);
}
