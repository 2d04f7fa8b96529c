//! `simtui dedup`: the corpus without its near-duplicates, in the input's format, the
//! removal list beside it, and never a byte written into the input.

mod common;

use common::{assert_usage_error, jsonl, ok, simtui};
use std::collections::HashSet;
use std::fs;
use std::path::Path;

/// A JSON Lines file of `n` records: three families of near-copies and unrelated texts.
fn write_jsonl(path: &Path) -> Vec<String> {
    let base = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat \
                and the bird sings a song about the morning sun rising over the quiet hills";
    let mut lines = Vec::new();
    for i in 0..12 {
        let text = match i % 4 {
            0 => base.to_string(),
            1 => format!("{base} today"),
            2 => format!("{base} again and again"),
            _ => format!(
                "document {i} talks about something else entirely: {}",
                "word ".repeat(i)
            ),
        };
        let line = serde_json::json!({"id": format!("r{i}"), "text": text, "n": i}).to_string();
        lines.push(line);
    }
    fs::write(path, lines.join("\n") + "\n").unwrap();
    lines
}

fn args<'a>(input: &'a str, out: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["dedup", input, "-o", out, "-t", "0.7", "-k", "3"];
    a.extend_from_slice(&["--text-field", "text", "--id-field", "id"]);
    a.extend_from_slice(more);
    a
}

#[test]
fn json_lines_keep_their_bytes_and_the_removal_list_names_the_kept_ones() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    let lines = write_jsonl(&input);
    let before = fs::read(&input).unwrap();
    let out = dir.path().join("out.jsonl");
    let (i, o) = (input.to_str().unwrap(), out.to_str().unwrap());
    ok(&args(i, o, &[]));
    assert_eq!(fs::read(&input).unwrap(), before, "the input is untouched");
    let written = fs::read_to_string(&out).unwrap();
    let kept: Vec<&str> = written.lines().collect();
    // Every line written is one of the input's lines, byte for byte, in order.
    let mut it = lines.iter();
    for k in &kept {
        assert!(it.any(|l| l == k), "{k} not an input line in order");
    }
    let removed = jsonl(&fs::read_to_string(dir.path().join("out.jsonl.removed.jsonl")).unwrap());
    assert_eq!(kept.len() + removed.len(), lines.len());
    assert!(!removed.is_empty());
    let kept_ids: HashSet<String> = kept
        .iter()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    for r in &removed {
        let id = r["id"].as_str().unwrap();
        assert!(!kept_ids.contains(id), "{id} removed and kept");
        assert!(
            kept_ids.contains(r["kept"].as_str().unwrap()),
            "the kept one is in the output"
        );
        assert!(r["jaccard"].as_f64().unwrap() >= 0.7);
        assert!(r["source"].as_str().unwrap().contains("in.jsonl:"));
        assert!(r["cluster"].as_u64().unwrap() >= 1);
    }
}

#[test]
fn an_existing_output_or_one_inside_the_input_is_refused_and_dry_run_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    write_jsonl(&input);
    let out = dir.path().join("out.jsonl");
    let (i, o) = (input.to_str().unwrap(), out.to_str().unwrap());
    let dry = ok(&args(i, o, &["--dry-run"]));
    assert!(dry.contains("12 documents"), "{dry}");
    assert!(!out.exists(), "a dry run writes nothing");
    ok(&args(i, o, &[]));
    assert_usage_error(&args(i, o, &[]));
    ok(&args(i, o, &["--force"]));
    // A folder as input: the output may not be inside it.
    let corpus = dir.path().join("corpus");
    fs::create_dir(&corpus).unwrap();
    fs::write(corpus.join("a.txt"), "one two three four five six seven").unwrap();
    fs::write(corpus.join("b.txt"), "one two three four five six seven").unwrap();
    let inside = corpus.join("clean");
    let a = [
        "dedup",
        corpus.to_str().unwrap(),
        "-o",
        inside.to_str().unwrap(),
        "-t",
        "0.9",
    ];
    assert_usage_error(&a);
    assert!(!inside.exists());
    let names: Vec<_> = fs::read_dir(&corpus).unwrap().collect();
    assert_eq!(names.len(), 2, "nothing written into the input");
}

#[test]
fn a_folder_is_copied_without_the_removed_files_and_a_keep_list_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    fs::create_dir_all(corpus.join("sub")).unwrap();
    let text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu";
    fs::write(corpus.join("a.txt"), format!("{text} nu xi")).unwrap();
    fs::write(corpus.join("sub/b.txt"), text).unwrap();
    fs::write(
        corpus.join("c.txt"),
        "entirely other words here and there nothing shared",
    )
    .unwrap();
    let out = dir.path().join("clean");
    let (c, o) = (corpus.to_str().unwrap(), out.to_str().unwrap());
    ok(&["dedup", c, "-o", o, "-t", "0.5", "-k", "2"]);
    // The longest of the pair is kept: a.txt; b.txt goes.
    assert!(out.join("a.txt").exists() && out.join("c.txt").exists());
    assert!(!out.join("sub/b.txt").exists());
    assert_eq!(
        fs::read_to_string(out.join("a.txt")).unwrap(),
        format!("{text} nu xi")
    );
    // A review marked the removal wrong: the next run keeps it.
    let wrong = dir.path().join("wrong.txt");
    fs::write(&wrong, "# marked wrong\nsub/b.txt\n").unwrap();
    let w = wrong.to_str().unwrap();
    ok(&[
        "dedup",
        c,
        "-o",
        o,
        "-t",
        "0.5",
        "-k",
        "2",
        "--keep-list",
        w,
        "--force",
    ]);
    assert!(out.join("sub/b.txt").exists());
    let removed = fs::read_to_string(dir.path().join("clean.removed.jsonl")).unwrap();
    assert!(removed.is_empty(), "{removed}");
    let _ = simtui(&["--version"]);
}
