//! SimHash (`--method simhash` on pairs, query and eval) and `simtui matrix`, end to end
//! on generated corpora. SimHash results are held against a brute-force all-pairs
//! Hamming scan of fingerprints computed here, and Jaccard against the words themselves.

mod common;

use common::{Corpus, assert_usage_error, jsonl, ok};
use simtui_engine::sketch::simhash::fingerprint::{Idf, SimHasher, Weight, bag, hamming};
use simtui_engine::text::{TextOptions, Tokenizer};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Every document's fingerprint, from its text, as simtui computes it (seed 1). Idf
/// weights count each distinct non-empty token stream (content) once.
fn fingerprints(c: &Corpus, bits: u32, weight: Weight) -> HashMap<String, u128> {
    let h = SimHasher::new(bits, 1, weight);
    let mut tok = Tokenizer::new(&TextOptions::default());
    let streams: Vec<(String, Vec<u64>)> = c
        .generated
        .docs
        .iter()
        .map(|d| {
            let mut t = Vec::new();
            tok.token_hashes(&d.text, &mut t);
            (d.id.clone(), t)
        })
        .collect();
    let contents: BTreeSet<&Vec<u64>> = streams.iter().map(|s| &s.1).collect();
    let bags: Vec<Vec<(u64, u32)>> = contents.iter().map(|t| bag(t)).collect();
    let idf = Idf::from_bags(bags.iter().map(Vec::as_slice));
    streams
        .iter()
        .map(|(id, t)| (id.clone(), h.fingerprint(t, Some(&idf))))
        .collect()
}

#[test]
fn simhash_pairs_are_exactly_the_pairs_within_the_distance_and_verified() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 400, 13);
    for (bits, weight, distance, flags) in [
        // The default weight is idf.
        (64, Weight::Idf, 10, vec![]),
        (64, Weight::Tf, 3, vec!["--weight", "tf"]),
        (128, Weight::Tf, 6, vec!["--weight", "tf", "--bits", "128"]),
        (
            64,
            Weight::Tf,
            9,
            vec!["--weight", "tf", "--max-distance", "9"],
        ),
        (64, Weight::Idf, 10, vec!["--weight", "idf"]),
        (
            128,
            Weight::Idf,
            14,
            vec!["--weight", "idf", "--bits", "128", "--max-distance", "14"],
        ),
    ] {
        let fps = fingerprints(&c, bits, weight);
        let mut args = vec![
            "pairs",
            c.path(),
            "--method",
            "simhash",
            "--format",
            "jsonl",
        ];
        args.extend(&flags);
        let rows = jsonl(&ok(&args));
        // Brute force: every pair of documents within the distance.
        let mut ids: Vec<&String> = fps.keys().collect();
        ids.sort();
        let mut expected = BTreeMap::new();
        for (i, a) in ids.iter().enumerate() {
            for b in &ids[i + 1..] {
                let d = hamming(fps[*a], fps[*b]);
                if d <= distance {
                    expected.insert((a.to_string(), b.to_string()), d);
                }
            }
        }
        assert!(
            expected.len() >= 20,
            "{bits} bits {weight:?}, distance {distance}"
        );
        let mut got = BTreeMap::new();
        for r in &rows {
            let (a, b) = (r["a"].as_str().unwrap(), r["b"].as_str().unwrap());
            let h = r["hamming"].as_u64().unwrap() as u32;
            assert!(h <= distance, "{r}");
            let j = r["jaccard"].as_f64().unwrap();
            assert!(
                (j - c.jaccard(a, b)).abs() < 1e-12,
                "{r}: verified with exact J"
            );
            assert!(r.get("estimate").is_none(), "no MinHash in SimHash mode");
            got.insert((a.to_string(), b.to_string()), h);
        }
        assert_eq!(rows.len(), got.len(), "each pair once");
        assert_eq!(got, expected, "{bits} bits {weight:?}, distance {distance}");
        let js: Vec<f64> = rows
            .iter()
            .map(|r| r["jaccard"].as_f64().unwrap())
            .collect();
        assert!(js.windows(2).all(|w| w[0] >= w[1]));

        // Planted copies are always found: same words, same fingerprint.
        for p in c.generated.truth.iter().filter(|p| p.jaccard == 1.0) {
            assert_eq!(got.get(&(p.a.clone(), p.b.clone())), Some(&0));
        }
    }
    let csv = ok(&["pairs", c.path(), "--method", "simhash", "--format", "csv"]);
    assert_eq!(csv.lines().next(), Some("a,b,jaccard,hamming"));
    let table = ok(&[
        "pairs",
        c.path(),
        "--method",
        "simhash",
        "--format",
        "table",
    ]);
    assert!(table.starts_with("  rank  jaccard  hamming"), "{table}");
}

#[test]
fn simhash_queries_and_eval() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 400, 17);
    let fps = fingerprints(&c, 64, Weight::Tf);
    let (a, _) = c.planted(0.9).into_iter().next().unwrap();
    let rows = jsonl(&ok(&[
        "query",
        c.path(),
        &a,
        "--method",
        "simhash",
        "--weight",
        "tf",
        "--max-distance",
        "8",
        "--format",
        "jsonl",
    ]));
    assert!(!rows.is_empty());
    for r in &rows {
        assert_eq!(
            r.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["doc", "hamming", "jaccard", "query", "rank"]
        );
        let d = r["doc"].as_str().unwrap();
        let h = r["hamming"].as_u64().unwrap() as u32;
        assert_eq!(h, hamming(fps[&a], fps[d]));
        assert!(h <= 8);
        assert!((r["jaccard"].as_f64().unwrap() - c.jaccard(&a, d)).abs() < 1e-12);
    }

    // eval scores SimHash's candidates like MinHash's; a larger distance never loses
    // recall.
    let eval = |d: &str| {
        jsonl(&ok(&[
            "eval",
            c.path(),
            "--method",
            "simhash",
            "--max-distance",
            d,
            "--format",
            "jsonl",
        ]))
    };
    let (narrow, wide) = (eval("2"), eval("10"));
    assert_eq!(narrow.len(), 5, "one line per threshold");
    for (n, w) in narrow.iter().zip(&wide) {
        assert_eq!(n["method"], "simhash");
        assert_eq!(n["bits"], 64);
        assert!(n["predicted_recall"].is_null(), "no S-curve for SimHash");
        let (rn, rw) = (n["recall"].as_f64().unwrap(), w["recall"].as_f64().unwrap());
        assert!((0.0..=1.0).contains(&rn) && rn <= rw, "{n} {w}");
        assert!(n["candidates"].as_u64() <= w["candidates"].as_u64());
        assert!(n["found"].as_u64() <= n["true_pairs"].as_u64());
    }
    let table = ok(&["eval", c.path(), "--method", "simhash", "--format", "table"]);
    // Idf weights by default, 10 of 64 bits.
    assert!(
        table.contains("simhash 64 bits idf, distance <= 10"),
        "{table}"
    );
    let tf = jsonl(&ok(&[
        "eval",
        c.path(),
        "--method",
        "simhash",
        "--weight",
        "tf",
        "--format",
        "jsonl",
    ]));
    assert_eq!(tf[0]["weight"], "tf");
    assert_eq!(tf[0]["max_distance"], 3);
    assert!(table.contains("block tables+verify"), "{table}");
    let truth = dir.path().join("truth.jsonl");
    let planted = jsonl(&ok(&[
        "eval",
        c.path(),
        "--method",
        "simhash",
        "--truth",
        truth.to_str().unwrap(),
        "--runs",
        "2",
        "--format",
        "jsonl",
    ]));
    assert_eq!(
        planted.len(),
        10,
        "5 thresholds × 2 runs (two SimHash seeds)"
    );
}

/// A matrix in CSV: the ids of the header, and the rows by id.
fn parse_csv(text: &str) -> (Vec<String>, Vec<(String, Vec<f64>)>) {
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    assert_eq!(header[0], "id");
    let rows = lines
        .map(|l| {
            let mut cells = l.split(',');
            let id = cells.next().unwrap().to_string();
            (id, cells.map(|x| x.parse().unwrap()).collect())
        })
        .collect();
    (header[1..].to_vec(), rows)
}

#[test]
fn the_matrix_is_symmetric_with_ones_on_the_diagonal() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 300, 19);
    // A planted family and two unrelated documents.
    let (a, b) = c.planted(0.5).into_iter().next().unwrap();
    let mut ids = vec![a.clone(), b.clone()];
    ids.extend(c.generated.docs.iter().rev().take(2).map(|d| d.id.clone()));
    let files: Vec<String> = ids
        .iter()
        .map(|id| c.file(id).to_str().unwrap().to_string())
        .collect();
    let file_args: Vec<&str> = files.iter().map(String::as_str).collect();
    let run = |extra: &[&str]| ok(&[&["matrix"][..], &file_args, extra].concat());

    let (header, rows) = parse_csv(&run(&["--format", "csv"]));
    assert_eq!(header, files, "a header row of ids");
    assert_eq!(rows.len(), 4);
    for (i, (id, row)) in rows.iter().enumerate() {
        assert_eq!(id, &files[i], "each row starts with its id");
        assert_eq!(row.len(), 4);
        assert_eq!(row[i], 1.0);
        for (k, v) in row.iter().enumerate() {
            assert_eq!(*v, rows[k].1[i], "symmetric");
            assert!((v - c.jaccard(&ids[i], &ids[k])).abs() < 1e-12);
        }
    }
    assert!(rows[0].1[1] >= 0.5, "the planted pair");

    let (_, est) = parse_csv(&run(&["--format", "csv", "--measure", "estimate"]));
    for (i, (_, row)) in est.iter().enumerate() {
        assert_eq!(row[i], 1.0);
        for (k, v) in row.iter().enumerate() {
            assert_eq!(*v, est[k].1[i]);
            assert!((v - rows[i].1[k]).abs() < 0.25, "the estimate is near J");
        }
    }

    let fps = fingerprints(&c, 128, Weight::Tf);
    let (_, ham) = parse_csv(&run(&[
        "--format",
        "csv",
        "--measure",
        "simhash",
        "--weight",
        "tf",
        "--bits",
        "128",
    ]));
    for (i, (_, row)) in ham.iter().enumerate() {
        assert_eq!(row[i], 0.0);
        for (k, v) in row.iter().enumerate() {
            assert_eq!(*v, hamming(fps[&ids[i]], fps[&ids[k]]) as f64);
        }
    }

    let table = run(&["--format", "table"]);
    assert_eq!(table.lines().count(), 5, "{table}");
    assert!(table.starts_with("#  id"), "{table}");

    // A folder is its documents.
    let folder = dir.path().join("four");
    std::fs::create_dir(&folder).unwrap();
    for (i, f) in files.iter().enumerate() {
        std::fs::copy(f, folder.join(format!("{i}.txt"))).unwrap();
    }
    let (header, rows) = parse_csv(&ok(&[
        "matrix",
        folder.to_str().unwrap(),
        "--format",
        "csv",
    ]));
    assert_eq!(header, ["0.txt", "1.txt", "2.txt", "3.txt"]);
    assert_eq!(rows[0].1[1], c.jaccard(&a, &b));
}

#[test]
fn bad_matrix_and_simhash_flags_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let many = dir.path().join("many");
    std::fs::create_dir(&many).unwrap();
    for i in 0..501 {
        std::fs::write(
            many.join(format!("{i:03}.txt")),
            format!("document number {i}"),
        )
        .unwrap();
    }
    let m = many.to_str().unwrap();
    assert_usage_error(&["matrix", m]);
    let out = common::simtui(&["matrix", m]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("at most 500"));
    std::fs::remove_file(many.join("500.txt")).unwrap();
    assert_eq!(
        ok(&["matrix", m, "--format", "csv"]).lines().count(),
        501,
        "500 is fine"
    );

    assert_usage_error(&["matrix", m, "--measure", "cosine"]);
    assert_usage_error(&["matrix", m, "--bits", "64"]);
    assert_usage_error(&["matrix", m, "--measure", "simhash", "--bits", "12"]);
    assert_usage_error(&["matrix", "/no/such/simtui/folder"]);
    assert_usage_error(&["pairs", m, "--method", "simhash", "--bits", "100"]);
    assert_usage_error(&["pairs", m, "--method", "simhash", "--max-distance", "32"]);
    assert_usage_error(&["pairs", m, "--bits", "128"]);
    assert_usage_error(&["pairs", m, "--weight", "idf"]);
    assert_usage_error(&["pairs", m, "--method", "simhash", "--weight", "bm25"]);
    assert_usage_error(&["matrix", m, "--weight", "idf"]);
    assert_usage_error(&["eval", m, "--method", "simhash", "--sweep"]);
}
