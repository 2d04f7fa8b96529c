//! What the classic studies did, from the command line (issue 19): query thresholds and
//! ranking, cleaning (letters only, stop words, stemming), SimHash fingerprints at any
//! width. Each held against an independent computation.

mod common;

use common::{Corpus, assert_usage_error, jsonl, ok, simtui};
use std::collections::BTreeSet;

/// Every neighbour of every query, as JSON rows, with `extra` flags.
fn neighbours(c: &Corpus, queries: &[String], extra: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec!["query", c.path()];
    args.extend(queries.iter().map(String::as_str));
    args.extend(["-b", "32", "-r", "4", "--format", "jsonl"]);
    args.extend(extra);
    jsonl(&ok(&args))
}

fn queries(c: &Corpus) -> Vec<String> {
    let mut q: Vec<String> = c
        .planted(0.3)
        .into_iter()
        .flat_map(|(a, b)| [a, b])
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    q.truncate(20);
    q
}

#[test]
fn query_threshold_keeps_exactly_the_neighbours_at_or_above_it() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 300, 5);
    let q = queries(&c);
    let all = neighbours(&c, &q, &["--top", "50", "--exhaustive"]);
    for t in ["0.2", "0.5", "0.8"] {
        let tf: f64 = t.parse().unwrap();
        let got = neighbours(&c, &q, &["--top", "50", "--exhaustive", "--threshold", t]);
        let want: Vec<&serde_json::Value> = all
            .iter()
            .filter(|r| r["jaccard"].as_f64().unwrap() >= tf)
            .collect();
        assert!(!want.is_empty() && want.len() < all.len(), "t = {t}");
        let key = |r: &serde_json::Value| (r["query"].to_string(), r["doc"].to_string());
        assert_eq!(
            got.iter().map(key).collect::<Vec<_>>(),
            want.iter().map(|r| key(r)).collect::<Vec<_>>(),
            "t = {t}"
        );
        for r in &got {
            // Exact J, from the words themselves.
            let (a, b) = (r["query"].as_str().unwrap(), r["doc"].as_str().unwrap());
            assert!((r["jaccard"].as_f64().unwrap() - c.jaccard(a, b)).abs() < 1e-12);
        }
    }
    assert_usage_error(&["query", c.path(), &q[0], "--threshold", "1.5"]);
}

#[test]
fn query_rank_estimate_orders_by_the_signature_and_keeps_j_exact() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 300, 6);
    let q = queries(&c);
    let all = neighbours(&c, &q, &["--top", "100"]);
    let ranked = neighbours(&c, &q, &["--top", "3", "--rank", "estimate"]);
    let mut checked = 0;
    for query in &q {
        let mine: Vec<&serde_json::Value> = all.iter().filter(|r| r["query"] == *query).collect();
        let got: Vec<&serde_json::Value> = ranked.iter().filter(|r| r["query"] == *query).collect();
        // The best three by estimate (ties by J, then id) of every candidate.
        let mut want = mine.clone();
        want.sort_by(|x, y| {
            let f = |r: &serde_json::Value, k: &str| r[k].as_f64().unwrap();
            f(y, "estimate")
                .total_cmp(&f(x, "estimate"))
                .then(f(y, "jaccard").total_cmp(&f(x, "jaccard")))
                .then(x["doc"].as_str().cmp(&y["doc"].as_str()))
        });
        want.truncate(3);
        let docs = |v: &[&serde_json::Value]| -> Vec<String> {
            v.iter().map(|r| r["doc"].to_string()).collect()
        };
        assert_eq!(docs(&got), docs(&want), "{query}");
        for (i, r) in got.iter().enumerate() {
            assert_eq!(r["rank"], i + 1);
            let d = r["doc"].as_str().unwrap();
            assert!((r["jaccard"].as_f64().unwrap() - c.jaccard(query, d)).abs() < 1e-12);
        }
        checked += usize::from(got.len() > 1);
    }
    assert!(checked >= 5, "queries with several neighbours: {checked}");
    // SimHash: closest fingerprints first.
    let rows = neighbours(
        &c,
        &q,
        &[
            "--method",
            "simhash",
            "--rank",
            "estimate",
            "--max-distance",
            "20",
        ],
    );
    for query in &q {
        let h: Vec<u64> = rows
            .iter()
            .filter(|r| r["query"] == *query)
            .map(|r| r["hamming"].as_u64().unwrap())
            .collect();
        assert!(h.windows(2).all(|w| w[0] <= w[1]), "{query}: {h:?}");
    }
    assert_usage_error(&["query", c.path(), &q[0], "--rank", "bm25"]);
}

/// The J of the two files of a folder, with `flags`.
fn pair_j(dir: &std::path::Path, flags: &[&str]) -> f64 {
    // 64 bands of 2 rows: a pair with J above 0.2 is a candidate.
    let mut args = vec![
        "pairs",
        dir.to_str().unwrap(),
        "-k",
        "2",
        "-b",
        "64",
        "-r",
        "2",
    ];
    args.extend(["--format", "jsonl"]);
    args.extend(flags);
    let rows = jsonl(&ok(&args));
    rows.first().map_or(0.0, |r| r["jaccard"].as_f64().unwrap())
}

#[test]
fn cleaning_flags_make_the_studies_matches() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, files: [&str; 2]| {
        let d = dir.path().join(name);
        std::fs::create_dir(&d).unwrap();
        std::fs::write(d.join("a.txt"), files[0]).unwrap();
        std::fs::write(d.join("b.txt"), files[1]).unwrap();
        d
    };
    // Inflections: only a stemmer makes these the same words.
    let inflected = write(
        "stem",
        [
            "the connected runners were jumping over fences quickly",
            "the connecting runner was jumped over fence quickly",
        ],
    );
    assert!(pair_j(&inflected, &[]) < 0.2);
    let stemmed = pair_j(&inflected, &["--stem", "english"]);
    // "was"/"were" stay apart: two of the seven 2-shingles differ on each side.
    assert!(stemmed > 0.4, "{stemmed}");
    assert_eq!(
        pair_j(&inflected, &["--stem", "en", "--stopwords", "-t", "0"]),
        1.0,
        "were and was are stop words"
    );
    // Numbers: the R study's removeNumbers.
    let numbers = write(
        "numbers",
        [
            "shares rose 12 pct to 3.50 dlrs in 1987 trading",
            "shares rose 15 pct to 4.25 dlrs in 1986 trading",
        ],
    );
    assert!(pair_j(&numbers, &[]) < 0.3);
    assert_eq!(pair_j(&numbers, &["--letters-only"]), 1.0);
    // A French stop-word list.
    let french = write(
        "french",
        [
            "le chat noir et la souris grise dans une maison",
            "un chat noir avec une souris grise sur la maison",
        ],
    );
    assert!(pair_j(&french, &["--stopwords"]) < 0.5);
    assert_eq!(pair_j(&french, &["--stopwords=french"]), 1.0);
    assert_eq!(pair_j(&french, &["--stopwords=none"]), pair_j(&french, &[]));
    // Bad languages are usage errors that name the choices.
    assert_usage_error(&["pairs", french.to_str().unwrap(), "--stem", "catalan"]);
    assert_usage_error(&["pairs", french.to_str().unwrap(), "--stopwords=klingon"]);
    let err = simtui(&["pairs", french.to_str().unwrap(), "--stem", "xx"]);
    assert!(String::from_utf8_lossy(&err.stderr).contains("english"));
}

#[test]
fn cleaning_is_in_the_config_file_and_the_saved_index() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    let texts = [
        ("a.txt", "the runners were jumping in 1987"),
        ("b.txt", "the runner was jumped in 1986"),
    ];
    simtui_gen::write_files(&corpus, &texts).unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "[index]\nletters_only = true\nstopwords = \"english\"\nstem = \"english\"\n",
    )
    .unwrap();
    let c = corpus.to_str().unwrap();
    let cfg = config.to_str().unwrap();
    let j = |args: &[&str]| -> f64 {
        let mut a = vec!["pairs", c, "-k", "2", "--format", "jsonl"];
        a.extend(args);
        jsonl(&ok(&a))
            .first()
            .map_or(0.0, |r| r["jaccard"].as_f64().unwrap())
    };
    assert_eq!(j(&["--config", cfg]), 1.0);
    assert_eq!(
        j(&[
            "--letters-only",
            "--stopwords",
            "--stem",
            "english",
            "--no-config"
        ]),
        1.0
    );
    assert!(j(&["--no-config"]) < 1.0);
    // The command line wins over the file.
    assert!(j(&["--config", cfg, "--stem", "none", "--stopwords=none"]) < 1.0);
    // A bad value is named at its line.
    std::fs::write(&config, "[index]\nstem = \"klingon\"\n").unwrap();
    let out = simtui(&["pairs", c, "--config", cfg]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(":2: key `index.stem`"));
    std::fs::write(&config, "[index]\nletters_only = \"yes\"\n").unwrap();
    assert_eq!(
        simtui(&["pairs", c, "--config", cfg]).status.code(),
        Some(2)
    );

    // The saved index records them: asked for other cleaning, it is rebuilt.
    let idx = dir.path().join("c.idx");
    let idx = idx.to_str().unwrap();
    ok(&[
        "index",
        c,
        "-o",
        idx,
        "--stem",
        "english",
        "--letters-only",
        "--no-config",
    ]);
    let german = [
        "pairs",
        c,
        "--index",
        idx,
        "--stem",
        "german",
        "--no-config",
    ];
    let out = simtui(&german);
    common::assert_ok_saying(
        &out,
        &["--stem english (asked for german)", "letters-only on"],
    );
    // Asked for the same, it is used as saved.
    let out = simtui(&german);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("rebuilt"));
}

/// Fingerprints of a corpus as `simtui fingerprint` prints them: doc → (hex, tokens).
fn fingerprints(c: &Corpus, flags: &[&str]) -> Vec<(String, u128)> {
    let mut args = vec!["fingerprint", c.path(), "--format", "jsonl"];
    args.extend(flags);
    jsonl(&ok(&args))
        .iter()
        .map(|r| {
            let hex = r["fingerprint"].as_str().unwrap();
            (
                r["doc"].as_str().unwrap().to_string(),
                u128::from_str_radix(hex, 16).unwrap(),
            )
        })
        .collect()
}

#[test]
fn fingerprints_at_every_width_are_what_pairs_compares() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 120, 9);
    for (bits, d) in [(8u32, "1"), (16, "2"), (32, "4"), (64, "8"), (128, "14")] {
        let b = bits.to_string();
        let fps = fingerprints(&c, &["--bits", &b]);
        assert_eq!(fps.len(), 120);
        let rows = jsonl(&ok(&[
            "fingerprint",
            c.path(),
            "--bits",
            &b,
            "--format",
            "jsonl",
        ]));
        for r in &rows {
            assert_eq!(r["fingerprint"].as_str().unwrap().len(), bits as usize / 4);
            assert_eq!(r["bits"], bits);
        }
        // Narrow fingerprints are the low bits of the 64-bit one.
        if bits < 64 {
            let wide = fingerprints(&c, &["--bits", "64"]);
            for ((_, n), (_, w)) in fps.iter().zip(&wide) {
                assert_eq!(*n, w & ((1 << bits) - 1));
            }
        }
        // Every pair within the distance, by brute force over the printed fingerprints,
        // is a candidate of pairs --method simhash (-t 0 keeps every candidate).
        let max: u32 = d.parse().unwrap();
        let mut want = BTreeSet::new();
        for (i, (a, fa)) in fps.iter().enumerate() {
            for (b, fb) in &fps[i + 1..] {
                if (fa ^ fb).count_ones() <= max {
                    want.insert((a.clone(), b.clone()));
                }
            }
        }
        let rows = jsonl(&common::stdout_of(common::pairs_jsonl(
            c.path(),
            &[
                "--method",
                "simhash",
                "--bits",
                &b,
                "--max-distance",
                d,
                "-t",
                "0",
            ],
        )));
        let got: BTreeSet<(String, String)> = rows
            .iter()
            .map(|r| {
                let (a, b) = (r["a"].as_str().unwrap(), r["b"].as_str().unwrap());
                assert!(r["hamming"].as_u64().unwrap() <= max as u64);
                (a.min(b).to_string(), a.max(b).to_string())
            })
            .collect();
        // Documents with the same content count once in pairs' search but are printed
        // as pairs too; empty documents are similar to nothing.
        let want: BTreeSet<(String, String)> = want
            .into_iter()
            .filter(|(a, b)| c.tokens[a] > 0 && c.tokens[b] > 0)
            .collect();
        assert_eq!(got, want, "{bits} bits, distance {d}");
    }
    assert_usage_error(&["fingerprint", c.path(), "--bits", "12"]);
    assert_usage_error(&[
        "pairs",
        c.path(),
        "--method",
        "simhash",
        "--bits",
        "8",
        "--max-distance",
        "4",
    ]);
}

#[test]
fn fingerprint_lists_the_heaviest_tokens_with_their_weights() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "the cat and the hat and the bat").unwrap();
    std::fs::write(dir.path().join("b.txt"), "a dog").unwrap();
    let p = dir.path().to_str().unwrap();
    let rows = jsonl(&ok(&[
        "fingerprint",
        p,
        "--weight",
        "tf",
        "--heaviest",
        "2",
        "--format",
        "jsonl",
    ]));
    assert_eq!(rows[0]["doc"], "a.txt");
    assert_eq!(
        rows[0]["heaviest"],
        serde_json::json!([["the", 3.0], ["and", 2.0]])
    );
    assert_eq!(rows[0]["tokens"], 8);
    // -vv lists ten.
    let rows = jsonl(&ok(&[
        "fingerprint",
        p,
        "--weight",
        "tf",
        "-vv",
        "--format",
        "jsonl",
    ]));
    assert_eq!(rows[0]["heaviest"].as_array().unwrap().len(), 5);
    let csv = ok(&[
        "fingerprint",
        p,
        "--weight",
        "tf",
        "--heaviest",
        "1",
        "--format",
        "csv",
    ]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "doc,fingerprint,bits,tokens,heaviest");
    assert!(
        lines[1].starts_with("a.txt,") && lines[1].ends_with(",64,8,the:3"),
        "{}",
        lines[1]
    );
    // idf over two documents: the note says why a shared word would weigh nothing.
    let out = simtui(&["fingerprint", p, "--format", "jsonl"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("idf weights over 2 document"));
}

#[test]
fn matrix_weighs_simhash_by_tf_unless_asked() {
    // A text against its own first half: with idf over two documents every shared word
    // weighs 0; with tf they are close.
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..200).map(|i| format!("w{} ", i % 37 * 7 % 41)).collect();
    std::fs::write(dir.path().join("a.txt"), &text).unwrap();
    std::fs::write(dir.path().join("b.txt"), &text[..text.len() / 2]).unwrap();
    let p = dir.path().to_str().unwrap();
    let cell = |flags: &[&str]| -> u32 {
        let mut a = vec!["matrix", p, "--measure", "simhash", "--format", "csv"];
        a.extend(flags);
        let csv = ok(&a);
        csv.lines()
            .nth(1)
            .unwrap()
            .split(',')
            .nth(2)
            .unwrap()
            .parse()
            .unwrap()
    };
    assert_eq!(cell(&[]), cell(&["--weight", "tf"]));
    assert!(
        cell(&[]) <= 8,
        "tf: a text and its half are close: {}",
        cell(&[])
    );
    let out = simtui(&[
        "matrix",
        p,
        "--measure",
        "simhash",
        "--weight",
        "idf",
        "--format",
        "csv",
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("weighs 0"));
    assert!(cell(&["--bits", "8"]) <= 2);
}

#[test]
fn gen_text_english_writes_real_sentences_with_their_truth() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("austen");
    let o = out.to_str().unwrap();
    ok(&[
        "gen", o, "--docs", "120", "--text", "english", "--seed", "3",
    ]);
    let first = std::fs::read_to_string(out.join("d000/doc000000.txt")).unwrap();
    let all: String = walkdir_texts(&out);
    for w in [" the ", " of ", " and "] {
        assert!(all.contains(w), "{w:?} in {first}");
    }
    // The truth lists planted pairs with their exact J, which `pairs` finds again.
    let truth = std::fs::read_to_string(dir.path().join("austen.truth.jsonl")).unwrap();
    let planted = jsonl(&truth);
    assert_eq!(
        planted.iter().filter(|p| p["edit"] != "sibling").count(),
        24
    );
    let pairs = jsonl(&ok(&[
        "pairs", o, "--format", "jsonl", "-b", "32", "-r", "4",
    ]));
    for p in planted
        .iter()
        .filter(|p| p["jaccard"].as_f64().unwrap() >= 0.8)
    {
        let found = pairs.iter().find(|q| q["a"] == p["a"] && q["b"] == p["b"]);
        let found = found.unwrap_or_else(|| panic!("{p} not found"));
        assert_eq!(found["jaccard"], p["jaccard"]);
    }
    // The pseudo-words stay the default, and a bad --text is a usage error.
    let words = dir.path().join("words");
    ok(&["gen", words.to_str().unwrap(), "--docs", "5", "--seed", "3"]);
    let w = std::fs::read_to_string(words.join("d000/doc000000.txt")).unwrap();
    assert_ne!(w, first);
    assert_usage_error(&[
        "gen",
        dir.path().join("x").to_str().unwrap(),
        "--text",
        "latin",
    ]);
}

/// Every text under a folder, concatenated.
fn walkdir_texts(root: &std::path::Path) -> String {
    let mut out = String::new();
    for d in std::fs::read_dir(root).unwrap() {
        let d = d.unwrap().path();
        if d.is_dir() {
            out.push_str(&walkdir_texts(&d));
        } else {
            out.push_str(&std::fs::read_to_string(d).unwrap());
        }
    }
    out
}

#[test]
fn matrix_tf_keeps_real_prose_close_to_its_own_first_half() {
    // The opening of Pride and Prejudice (the built-in English text) against its first
    // half: tf weights put them a few bits apart, idf over two documents far apart.
    let dir = tempfile::tempdir().unwrap();
    let text = simtui_gen::english::text();
    let lines: Vec<&str> = text.lines().take(120).collect();
    std::fs::write(dir.path().join("a.txt"), lines.join("\n")).unwrap();
    std::fs::write(dir.path().join("b.txt"), lines[..60].join("\n")).unwrap();
    let p = dir.path().to_str().unwrap();
    let distance = |weight: &str| -> u32 {
        let csv = ok(&[
            "matrix",
            p,
            "--measure",
            "simhash",
            "--weight",
            weight,
            "--format",
            "csv",
        ]);
        let row = csv.lines().nth(1).unwrap();
        row.split(',').nth(2).unwrap().parse().unwrap()
    };
    let (tf, idf) = (distance("tf"), distance("idf"));
    assert!(tf <= 8, "tf: {tf} of 64 bits");
    assert!(idf > 2 * tf.max(4), "idf: {idf}, tf: {tf}");
}
