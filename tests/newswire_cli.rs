//! The commands on a newswire as a newcomer reads it (issue 28): numeric ids, headlines,
//! dates. Tables name documents by their titles and put ids in natural order (4 before
//! 16); the machine outputs keep the engine's one order, ids by bytes, as every command
//! and the Spark job write them; `simtui diff` shows the dates unasked.

mod common;

use common::{jsonl, ok};
use std::path::Path;

/// A story: `n` words from `seed`, wrapped at 60 columns.
fn story(seed: usize, n: usize) -> String {
    let words: Vec<String> = (0..n)
        .map(|i| format!("w{}x{}", (seed * 7919 + i * 104_729) % 9973, i % 7))
        .collect();
    let mut lines = vec![String::new()];
    for w in words {
        let line = lines.last_mut().unwrap();
        if line.len() + w.len() + 1 > 60 {
            lines.push(w);
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&w);
        }
    }
    lines.join("\n") + "\n"
}

/// `wire.jsonl`: one story on two days (ids 4 and 16), another in three versions a word
/// apart (906, 1014, 1200), and an unrelated one (7).
fn wire(dir: &Path) -> String {
    let fed = story(1, 80);
    let oil = story(2, 100);
    let record = |id: &str, title: &str, date: &str, text: &str| {
        serde_json::json!({"id": id, "title": title, "date": date, "text": text}).to_string() + "\n"
    };
    let lines = [
        record("16", "FED ADDS RESERVES", "3-APR-1987", &fed),
        record("906", "OIL PRICES RISE", "1-APR-1987", &oil),
        record("4", "FED ADDS RESERVES", "1-APR-1987", &fed),
        record(
            "1014",
            "OIL PRICES RISE",
            "2-APR-1987",
            &oil.replacen("x1", "y1", 1),
        ),
        record(
            "1200",
            "OIL PRICES RISE",
            "4-APR-1987",
            &oil.replacen("x2", "y2", 1),
        ),
        record("7", "WEATHER", "1-APR-1987", &story(3, 60)),
    ];
    let path = dir.join("wire.jsonl");
    std::fs::write(&path, lines.concat()).unwrap();
    path.to_str().unwrap().to_string()
}

const BY_ID: [&str; 4] = ["--id-field", "id", "--title-field", "title"];

fn args<'a>(first: &[&'a str], rest: &[&'a str]) -> Vec<&'a str> {
    [first, &BY_ID[..], rest].concat()
}

#[test]
fn tables_are_in_natural_order_and_machine_outputs_by_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let w = wire(dir.path());
    let table = ok(&args(&["pairs", &w], &["-t", "0.5", "--format", "table"]));
    let first = table.lines().nth(1).unwrap();
    let cells: Vec<&str> = first.split_whitespace().collect();
    assert_eq!(cells[3..], ["4", "16"], "{table}");
    assert!(table.contains(" 906 "), "{table}");
    // JSON Lines (and CSV, Parquet): the documented order, ids by bytes.
    let rows = jsonl(&ok(&args(
        &["pairs", &w],
        &["-t", "0.5", "--format", "jsonl"],
    )));
    assert_eq!(
        (rows[0]["a"].as_str(), rows[0]["b"].as_str()),
        (Some("16"), Some("4"))
    );
    // Clusters: the table's members in natural order, named by their titles; JSON
    // Lines keeps its order.
    let table = ok(&args(
        &["clusters", &w],
        &["-t", "0.5", "--format", "table"],
    ));
    let oil: Vec<&str> = table
        .lines()
        .filter(|l| l.contains("OIL PRICES RISE"))
        .map(|l| {
            l.trim_start_matches([' ', '*'])
                .split_whitespace()
                .next()
                .unwrap()
        })
        .collect();
    assert_eq!(oil, ["906", "1014", "1200"], "{table}");
    let rows = jsonl(&ok(&args(
        &["clusters", &w],
        &["-t", "0.5", "--format", "jsonl"],
    )));
    let members = rows.iter().find(|r| r["size"] == 3).unwrap()["members"].clone();
    assert_eq!(members, serde_json::json!(["1014", "1200", "906"]));
}

#[test]
fn query_and_matrix_tables_name_documents_by_their_titles() {
    let dir = tempfile::tempdir().unwrap();
    let w = wire(dir.path());
    let table = ok(&args(&["query", &w, "906"], &["--format", "table"]));
    assert!(table.starts_with("query 906 (OIL PRICES RISE)"), "{table}");
    let rows: Vec<&str> = table
        .lines()
        .filter(|l| l.contains("OIL PRICES RISE"))
        .collect();
    assert_eq!(
        rows.len(),
        3,
        "the query's line and its two neighbours: {table}"
    );
    assert!(table.lines().nth(1).unwrap().ends_with("title"), "{table}");
    // The matrix: rows in natural order, each with its title after its cells.
    let table = ok(&args(&["matrix", &w], &["--format", "table"]));
    let ids: Vec<&str> = (table.lines().skip(1))
        .map(|l| l.split_whitespace().nth(1).unwrap())
        .collect();
    assert_eq!(ids, ["4", "7", "16", "906", "1014", "1200"], "{table}");
    assert!(
        table.lines().nth(1).unwrap().ends_with("FED ADDS RESERVES"),
        "{table}"
    );
    let csv = ok(&args(&["matrix", &w], &["--format", "csv"]));
    assert!(csv.starts_with("id,4,7,16,906,1014,1200\n"), "{csv}");
}

#[test]
fn the_headless_diff_shows_dates_unasked_and_counts_one_word() {
    let dir = tempfile::tempdir().unwrap();
    let w = wire(dir.path());
    let out = ok(&args(
        &["diff", "906", "1014", "--corpus", &w],
        &["--width", "100"],
    ));
    let header: Vec<&str> = out.lines().take(4).collect();
    assert!(header[0].contains("1 word only here"), "{out}");
    assert!(header[1].contains("≠date 1-APR-1987"), "{out}");
    assert!(header[3].contains("≠date 2-APR-1987"), "{out}");
    // --no-default-meta: only what --meta-field asks for.
    let out = ok(&args(
        &["diff", "906", "1014", "--corpus", &w],
        &["--no-default-meta"],
    ));
    assert!(!out.contains("date"), "{out}");
}
