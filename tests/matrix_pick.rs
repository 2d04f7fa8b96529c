//! `simtui matrix` keeps to at most `--max-docs` documents (500), whatever holds them,
//! and picks documents of a corpus: by id, a cluster of `simtui clusters`, or a document
//! and its nearest neighbours.

mod common;

use common::{Corpus, assert_usage_error, jsonl, ok, simtui};

/// The ids of a matrix in CSV (its header).
fn ids_of(csv: &str) -> Vec<String> {
    let header = csv.lines().next().unwrap();
    header.split(',').skip(1).map(String::from).collect()
}

#[test]
fn records_past_the_limit_are_refused_with_how_to_pick_some() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("news.jsonl");
    let lines: Vec<String> = (0..600)
        .map(|i| serde_json::json!({"id": i.to_string(), "text": format!("story number {i} of the wire")}).to_string())
        .collect();
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let f = file.to_str().unwrap();
    // One file, 600 documents: refused, before a cell is computed.
    let args = [
        "matrix",
        f,
        "--id-field",
        "id",
        "--format",
        "csv",
        "--no-config",
    ];
    assert_usage_error(&args);
    // What it found, and each way to pick fewer.
    let said = [
        "600 documents found; a matrix takes at most 500",
        "--max-docs",
        "--ids",
        "--cluster N -t T",
        "--neighbours ID --top N",
    ];
    common::assert_stderr_has(&simtui(&args), &said);
    // Raised, it is computed; picked, only those.
    let all = ok(&[&args[..], &["--max-docs", "600"]].concat());
    assert_eq!(all.lines().count(), 601);
    let two = ok(&[&args[..], &["--ids", "7,3"]].concat());
    assert_eq!(ids_of(&two), ["7", "3"]);
    assert_eq!(two.lines().count(), 3);
    // An id the corpus lacks is a usage error that names it.
    assert_usage_error(&[&args[..], &["--ids", "7,nope"]].concat());
    let err = String::from_utf8(simtui(&[&args[..], &["--ids", "nope"]].concat()).stderr).unwrap();
    assert!(err.contains("nope"), "{err}");
}

#[test]
fn a_cluster_or_a_documents_neighbours_are_picked_as_the_commands_list_them() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 300, 23);
    let p = c.path();
    let clusters = jsonl(&ok(&[
        "clusters",
        p,
        "-t",
        "0.5",
        "--format",
        "jsonl",
        "--no-config",
    ]));
    assert!(!clusters.is_empty());
    let members = |n: usize| -> Vec<String> {
        clusters[n]["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect()
    };
    for n in [1, clusters.len()] {
        let csv = ok(&[
            "matrix",
            p,
            "--cluster",
            &n.to_string(),
            "-t",
            "0.5",
            "--format",
            "csv",
            "--no-config",
        ]);
        assert_eq!(ids_of(&csv), members(n - 1), "cluster {n}");
    }
    let past = (clusters.len() + 1).to_string();
    assert_usage_error(&["matrix", p, "--cluster", &past, "-t", "0.5", "--no-config"]);
    // --cluster needs -t, -t needs --cluster.
    assert_usage_error(&["matrix", p, "--cluster", "1", "--no-config"]);
    assert_usage_error(&["matrix", p, "-t", "0.5", "--no-config"]);

    let doc = members(0)[0].clone();
    let query = jsonl(&ok(&[
        "query",
        p,
        &doc,
        "--top",
        "2",
        "--exhaustive",
        "--format",
        "jsonl",
        "--no-config",
    ]));
    let mut expected = vec![doc.clone()];
    expected.extend(query.iter().map(|q| q["doc"].as_str().unwrap().to_string()));
    let csv = ok(&[
        "matrix",
        p,
        "--neighbours",
        &doc,
        "--top",
        "2",
        "--format",
        "csv",
        "--no-config",
    ]);
    assert_eq!(ids_of(&csv), expected);
    assert_eq!(expected.len(), 3);
}
