//! `simtui pairs` end to end on generated corpora, held against an independent
//! brute-force Jaccard computed here from the words themselves (no hashing).

use std::collections::{HashMap, HashSet};
use std::process::Output;

mod common;

use common::{Corpus, brute_jaccard, first_line_then_close, simtui};

struct Reported {
    a: String,
    b: String,
    jaccard: f64,
    estimate: f64,
}

fn parse_jsonl(out: &[u8]) -> Vec<Reported> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            Reported {
                a: v["a"].as_str().unwrap().to_string(),
                b: v["b"].as_str().unwrap().to_string(),
                jaccard: v["jaccard"].as_f64().unwrap(),
                estimate: v["estimate"].as_f64().unwrap(),
            }
        })
        .collect()
}

#[test]
fn every_reported_jaccard_is_exact_and_high_similarity_pairs_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = Corpus::new(dir.path(), 800, 11);
    let sets = &corpus.shingles;
    let out = simtui(&["pairs", corpus.path(), "--format", "jsonl"]);
    common::assert_ok(&out);
    let pairs = parse_jsonl(&out.stdout);
    assert!(!pairs.is_empty());

    for p in &pairs {
        assert!(p.a < p.b, "{} !< {}", p.a, p.b);
        let truth = brute_jaccard(&sets[&p.a], &sets[&p.b]);
        assert!(
            (p.jaccard - truth).abs() < 1e-12,
            "{} {}: reported {}, brute force {truth}",
            p.a,
            p.b,
            p.jaccard
        );
        assert!((0.0..=1.0).contains(&p.estimate));
    }
    // Sorted by J descending.
    assert!(pairs.windows(2).all(|w| w[0].jaccard >= w[1].jaccard));

    // Brute-force all pairs sharing a shingle (inverted index), then recall at J >= 0.9.
    let ids: Vec<&String> = sets.keys().collect();
    let mut postings: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, id) in ids.iter().enumerate() {
        for s in &sets[*id] {
            postings.entry(s.as_str()).or_default().push(i);
        }
    }
    let mut close: HashSet<(usize, usize)> = HashSet::new();
    for docs in postings.values() {
        for (x, &i) in docs.iter().enumerate() {
            for &j in &docs[x + 1..] {
                close.insert((i.min(j), i.max(j)));
            }
        }
    }
    let reported: HashSet<(&str, &str)> =
        pairs.iter().map(|p| (p.a.as_str(), p.b.as_str())).collect();
    let mut truth_90 = 0;
    let mut found_90 = 0;
    for (i, j) in close {
        let jac = brute_jaccard(&sets[ids[i]], &sets[ids[j]]);
        if jac >= 0.9 {
            truth_90 += 1;
            let (a, b) = if ids[i] < ids[j] {
                (ids[i], ids[j])
            } else {
                (ids[j], ids[i])
            };
            found_90 += reported.contains(&(a.as_str(), b.as_str())) as usize;
        }
    }
    assert!(
        truth_90 >= 20,
        "the generator should plant enough close pairs, got {truth_90}"
    );
    let recall = found_90 as f64 / truth_90 as f64;
    assert!(recall >= 0.99, "recall at J >= 0.9: {found_90}/{truth_90}");
}

#[test]
fn threshold_and_formats() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = Corpus::new(dir.path(), 300, 5);
    let c = corpus.path();
    let all = parse_jsonl(&simtui(&["pairs", c, "--format", "jsonl"]).stdout);
    // The same banding (16x8: its S-curve at 0.8 is 0.947, so no banding is chosen), in
    // each format, and piped without --format.
    let at = |format: &[&str]| {
        let banded = ["pairs", c, "--threshold", "0.8", "-b", "16", "-r", "8"];
        simtui(&[&banded[..], format].concat()).stdout
    };
    let high = parse_jsonl(&at(&["--format", "jsonl"]));
    assert!(high.len() < all.len());
    assert!(high.iter().all(|p| p.jaccard >= 0.8));
    assert_eq!(high.len(), all.iter().filter(|p| p.jaccard >= 0.8).count());

    let text = String::from_utf8(at(&["--format", "csv"])).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("a,b,jaccard,estimate"));
    assert_eq!(lines.count(), high.len());

    let table = String::from_utf8(at(&["--format", "table"])).unwrap();
    assert!(table.starts_with("  rank  jaccard  estimate"));
    assert_eq!(table.lines().count(), high.len() + 1);

    // Piped without --format: JSON Lines.
    assert_eq!(parse_jsonl(&at(&[])).len(), high.len());
}

#[test]
fn bad_paths_and_flags_exit_2_with_one_line() {
    let out = simtui(&["pairs", "/no/such/simtui/folder"]);
    assert_eq!(out.status.code(), Some(2));
    common::assert_stderr_has(&out, &["/no/such/simtui/folder"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(out.stdout.is_empty());

    // Bad values and unknown flags, ours and clap's alike: one line, exit 2.
    for args in [
        &["pairs", ".", "--bands", "0"][..],
        &["pairs", ".", "--threshold", "1.5"],
        &["pairs", ".", "--zzz"],
        &["pairs", ".", "--format", "xml"],
        &["pairs"],
    ] {
        let out = simtui(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("simtui: "), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let err = String::from_utf8_lossy(&simtui(&["pairs", ".", "--zzz"]).stderr).into_owned();
    assert_eq!(
        err,
        "simtui: unexpected argument '--zzz' found (see 'simtui pairs --help')\n"
    );
}

#[test]
fn binary_empty_and_non_utf8_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = "one two three four five six seven eight nine ten eleven twelve";
    std::fs::write(d.join("a.txt"), text).unwrap();
    // The same words in Latin-1 with one invalid byte: decoded lossily, still a near-duplicate.
    let mut latin = text.as_bytes().to_vec();
    latin.extend_from_slice(b" caf\xe9");
    std::fs::write(d.join("b.txt"), &latin).unwrap();
    // UTF-16 with a BOM: decoded properly, an exact duplicate.
    let mut utf16 = vec![0xFF, 0xFE];
    for u in text.encode_utf16() {
        utf16.extend_from_slice(&u.to_le_bytes());
    }
    std::fs::write(d.join("c.txt"), &utf16).unwrap();
    std::fs::write(d.join("empty.txt"), "").unwrap();
    std::fs::write(d.join("empty2.txt"), "  \n").unwrap();
    std::fs::write(
        d.join("image.bin"),
        b"\x89PNG\0\0\0binary one two three four five six",
    )
    .unwrap();
    std::fs::write(d.join("huge.txt"), text.repeat(100)).unwrap();

    let out = common::pairs_jsonl(
        d.to_str().unwrap(),
        &["--stats", "-v", "--max-bytes", "1000"],
    );
    assert!(out.status.success());
    let pairs = parse_jsonl(&out.stdout);
    let names: Vec<(&str, &str)> = pairs.iter().map(|p| (p.a.as_str(), p.b.as_str())).collect();
    assert_eq!(names[0], ("a.txt", "c.txt"));
    assert_eq!(pairs[0].jaccard, 1.0);
    assert!(names.contains(&("a.txt", "b.txt")));
    assert!(!names.iter().any(|(a, b)| a.contains("empty")
        || b.contains("empty")
        || a.contains("image")
        || b.contains("image")));
    common::assert_stderr_has(
        &out,
        &[
            "image.bin: binary",
            "binary 1",
            "too large 1",
            "empty       2",
            "documents   5 read",
        ],
    );
}

#[test]
fn curve_prints_threshold_and_recommends() {
    let out = simtui(&["curve", "--bands", "16", "--rows", "8"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("threshold (1/b)^(1/r) = 0.7071"), "{text}");
    let out = simtui(&["curve", "--threshold", "0.8", "--perms", "128"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("recommended for threshold 0.8"), "{text}");
    assert!(text.contains("false-positive area"));
    assert!(text.contains("false-negative area"));
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    // 400 identical files: 79,800 pairs, far more than a pipe holds.
    for i in 0..400 {
        std::fs::write(
            dir.path().join(format!("copy{i:03}.txt")),
            "the same words in every single file",
        )
        .unwrap();
    }
    // Like `| head -1`.
    let (first, out) =
        first_line_then_close(&["pairs", dir.path().to_str().unwrap(), "--format", "jsonl"]);
    assert!(first.contains("\"jaccard\":1.0"), "{first}");
    assert!(out.status.success(), "{:?}", out.status);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn eval_measures_recall_against_brute_force_and_a_truth_file() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = Corpus::new(dir.path(), 600, 21);
    let c = corpus.path();
    let parse = |out: Output| -> Vec<serde_json::Value> {
        common::assert_ok(&out);
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let brute = parse(simtui(&["eval", c, "--format", "jsonl"]));
    assert_eq!(brute.len(), 5, "one line per threshold");
    for row in &brute {
        let (recall, predicted) = (
            row["recall"].as_f64().unwrap(),
            row["predicted_recall"].as_f64().unwrap(),
        );
        assert!((0.0..=1.0).contains(&recall));
        // The measured recall follows the S-curve's prediction.
        assert!((recall - predicted).abs() < 0.1, "{row}");
    }
    let at_09 = brute.iter().find(|r| r["threshold"] == 0.9).unwrap();
    assert!(at_09["recall"].as_f64().unwrap() >= 0.99, "{at_09}");

    let truth = dir.path().join("truth.jsonl");
    let planted = parse(simtui(&[
        "eval",
        c,
        "--truth",
        truth.to_str().unwrap(),
        "--format",
        "jsonl",
        "--runs",
        "2",
    ]));
    assert_eq!(planted.len(), 10, "5 thresholds × 2 runs");
    assert!(
        planted
            .iter()
            .all(|r| r["true_pairs"].as_u64().unwrap() > 0)
    );

    let sweep = parse(simtui(&[
        "eval", c, "--sweep", "--bands", "4", "--rows", "4", "--format", "jsonl",
    ]));
    let recommended: Vec<_> = sweep.iter().filter(|r| r["recommended"] == true).collect();
    assert_eq!(
        recommended.len(),
        5,
        "the recommended banding is in the sweep"
    );
    // More bands of fewer rows never lose recall.
    let r = |b: u64, t: f64| {
        sweep
            .iter()
            .find(|x| x["bands"] == b && x["threshold"] == t)
            .unwrap()["recall"]
            .as_f64()
            .unwrap()
    };
    assert!(r(16, 0.5) >= r(1, 0.5));
}

#[test]
fn eval_reads_back_the_truth_it_writes_and_sweeps_over_runs() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = Corpus::new(dir.path(), 400, 5);
    let c = corpus.path();
    let written = dir.path().join("exact.jsonl");
    let run = |args: &[&str]| {
        let out = simtui(args);
        assert!(
            out.status.success(),
            "simtui {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        common::jsonl(&String::from_utf8(out.stdout).unwrap())
    };
    // eval of the corpus, writing or reading the truth file.
    let with_truth = |flag: &str| {
        run(&[
            "eval",
            c,
            "--format",
            "jsonl",
            flag,
            written.to_str().unwrap(),
        ])
    };
    let exact = with_truth("--write-truth");
    // One format both ways: the file written is a truth file eval takes (it has no
    // "edit" or "rate", which only gen's files have).
    let text = std::fs::read_to_string(&written).unwrap();
    assert!(!text.is_empty() && !text.contains("\"edit\""));
    let from_file = with_truth("--truth");
    // The file lists every pair with J >= 0.5: scored against it, the counts are the
    // exact truth's at 0.5.
    let at = |rows: &[serde_json::Value], t: f64, k: &str| {
        rows.iter().find(|r| r["threshold"] == t).unwrap()[k].clone()
    };
    assert_eq!(
        at(&from_file, 0.5, "true_pairs"),
        at(&exact, 0.5, "true_pairs")
    );
    assert_eq!(at(&from_file, 0.5, "found"), at(&exact, 0.5, "found"));

    // --sweep with --runs: every setting is scored in every run (seeds 1 and 2).
    let sweep = run(&[
        "eval",
        c,
        "--sweep",
        "--bandings",
        "16x8,8x4",
        "--runs",
        "2",
        "--format",
        "jsonl",
    ]);
    for (b, r) in [(16, 8), (8, 4)] {
        let rows: Vec<_> = sweep
            .iter()
            .filter(|x| x["sweep"] == true && x["bands"] == b && x["rows"] == r)
            .collect();
        assert_eq!(rows.len(), 10, "5 thresholds x 2 runs at {b}x{r}");
        let seeds: HashSet<u64> = rows.iter().map(|x| x["seed"].as_u64().unwrap()).collect();
        assert_eq!(seeds, HashSet::from([1, 2]));
    }
    // The table says mean ± sd for each setting.
    let table = String::from_utf8(
        simtui(&[
            "eval",
            c,
            "--sweep",
            "--bandings",
            "16x8",
            "--runs",
            "2",
            "--format",
            "table",
        ])
        .stdout,
    )
    .unwrap();
    let row = table
        .lines()
        .find(|l| l.trim_start().starts_with("16    8"))
        .unwrap();
    assert!(row.matches('±').count() >= 6, "{table}");
    assert!(table.contains("mean ± sd over 2 runs"), "{table}");
    // A sweep setting is what `pairs` finds at it: 8 x 4 on 32 bins, not on 128.
    let pairs_8x4 = simtui(&["pairs", c, "-b", "8", "-r", "4", "--format", "jsonl"]);
    let candidates = common::jsonl(&String::from_utf8(pairs_8x4.stdout).unwrap()).len() as u64;
    let seed1 = sweep
        .iter()
        .find(|x| x["sweep"] == true && x["bands"] == 8 && x["seed"] == 1)
        .unwrap();
    assert_eq!(seed1["candidates"].as_u64().unwrap(), candidates);
}

#[test]
fn curve_accuracy_prints_bytes_and_the_measured_error_beside_theory() {
    let out = simtui(&["curve", "--accuracy", "--pairs", "300"]);
    common::assert_ok(&out);
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() == 8 && w[0].parse::<usize>().is_ok())
        .collect();
    let ns: Vec<usize> = rows.iter().map(|w| w[0].parse().unwrap()).collect();
    assert_eq!(ns, [16, 32, 64, 128, 256, 512, 1024], "{text}");
    for w in &rows {
        let n: usize = w[0].parse().unwrap();
        assert_eq!(w[1], (4 * n).to_string(), "bytes per document");
        // Classic MinHash: measured over 300 pairs within 25% of sqrt(J(1-J)/N).
        let theory: f64 = w[2].parse().unwrap();
        assert!(
            (theory - (0.25f64 / n as f64).sqrt()).abs() < 1e-4,
            "{text}"
        );
        let ratio: f64 = w[4].parse().unwrap();
        assert!(
            (0.75..=1.25).contains(&ratio),
            "N = {n}: ratio {ratio}\n{text}"
        );
    }
}

/// `--stats`' count of candidate pairs verified ("candidates N pairs (...)").
fn candidates_verified(stderr: &[u8]) -> u64 {
    let err = String::from_utf8_lossy(stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("candidates"))
        .unwrap_or_else(|| panic!("a candidates line in {err}"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

fn csv_pairs(args: &[&str]) -> (Output, Vec<String>) {
    let out = simtui(&[&["pairs", "--no-config", "--format", "csv"], args].concat());
    let rows = String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(1)
        .map(str::to_string)
        .collect();
    (out, rows)
}

/// Without huge buckets, `--max-pairs N` writes the first N lines of the whole output
/// (exit 1, the note saying of how many).
#[test]
fn max_pairs_is_the_first_n_lines_of_the_whole_output() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = Corpus::new(dir.path(), 600, 5);
    let c = corpus.path();
    let (out, all) = csv_pairs(&[c, "-t", "0.3"]);
    assert!(out.status.success());
    assert!(all.len() > 60, "{}", all.len());
    let (out, cut) = csv_pairs(&[c, "-t", "0.3", "--max-pairs", "50"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(cut, all[..50]);
    let err = String::from_utf8_lossy(&out.stderr);
    let note = format!("stopped after 50 of {} pairs (--max-pairs 50)", all.len());
    assert!(err.contains(&note), "{err}");
}

/// Many near-identical copies: one huge bucket (1,000 contents or more) in every band,
/// 750,000 candidate pairs. `--max-pairs N` verifies them in a fixed order only until N
/// pairs are found: far fewer candidates verified than the whole run verifies, exit 1 with
/// a note saying so, and the N pairs written are the same whatever the memory (the
/// batches of sets) and are, in order, true pairs of the whole output.
#[test]
fn max_pairs_stops_verifying_the_huge_buckets_once_n_pairs_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let page: Vec<String> = (0..300).map(|w| format!("w{}", w * 7919 % 1013)).collect();
    let page = page.join(" ");
    let n = 1225;
    for i in 0..n {
        std::fs::write(
            d.join(format!("near{i:04}.txt")),
            format!("{page} added{i}"),
        )
        .unwrap();
    }
    let c = d.to_str().unwrap();
    let (out, all) = csv_pairs(&[c, "-t", "0.8", "--stats"]);
    assert!(out.status.success());
    assert_eq!(all.len(), n * (n - 1) / 2);
    let every = candidates_verified(&out.stderr);
    assert!(every >= (n * (n - 1) / 2) as u64, "{every}");

    let (out, cut) = csv_pairs(&[c, "-t", "0.8", "--stats", "--max-pairs", "1000"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("stopped after 1000 pairs (--max-pairs 1000)"),
        "{err}"
    );
    let verified = candidates_verified(&out.stderr);
    assert!(verified < every / 5, "{verified} of {every} verified");
    assert_eq!(cut.len(), 1000);
    // In the output's order (J descending), every one a pair of the whole output.
    let whole: HashSet<&String> = all.iter().collect();
    assert!(cut.iter().all(|p| whole.contains(p)));
    let j = |row: &String| row.split(',').nth(2).unwrap().parse::<f64>().unwrap();
    assert!(cut.windows(2).all(|w| j(&w[0]) >= j(&w[1])));
    // The same pairs whatever the memory: small batches of sets, stopped elsewhere.
    let (_, small) = csv_pairs(&[c, "-t", "0.8", "--max-pairs", "1000", "--memory", "1M"]);
    assert_eq!(small, cut);
}
