//! A corpus deduplicated against a reference (`dedup --against`, `pairs --against`) and
//! documents added to a saved index (`index --add`), checked against brute force: the
//! exact Jaccard of every pair from the words themselves, and runs over everything at
//! once.

mod common;

use common::{Corpus, brute_jaccard, jsonl, ok, simtui};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const T: f64 = 0.7;
/// A banding that finds every pair at J ≥ 0.7 of these small corpora (P ≈ 1 - 1e-19).
const BANDING: [&str; 4] = ["-b", "32", "-r", "2"];

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The generated corpus split in two folders by document: `ref/` (every third document)
/// and `new/` (the others), each document under its own id; with the ids of each.
struct Split {
    corpus: Corpus,
    reference: PathBuf,
    new: PathBuf,
    ref_ids: BTreeSet<String>,
    new_ids: BTreeSet<String>,
}

fn split(dir: &Path, docs: usize, seed: u64) -> Split {
    let corpus = Corpus::new(dir, docs, seed);
    let (reference, new) = (dir.join("ref"), dir.join("new"));
    let (mut ref_ids, mut new_ids) = (BTreeSet::new(), BTreeSet::new());
    for (i, d) in corpus.generated.docs.iter().enumerate() {
        let (root, ids) = match i % 3 {
            0 => (&reference, &mut ref_ids),
            _ => (&new, &mut new_ids),
        };
        let to = root.join(&d.id);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(corpus.file(&d.id), &to).unwrap();
        ids.insert(d.id.clone());
    }
    Split {
        corpus,
        reference,
        new,
        ref_ids,
        new_ids,
    }
}

/// Every pair (a < b) of `ids` with brute-force J ≥ t.
fn brute_pairs(c: &Corpus, ids: &[&String], t: f64) -> BTreeMap<(String, String), f64> {
    let mut out = BTreeMap::new();
    for (i, a) in ids.iter().enumerate() {
        for b in &ids[i + 1..] {
            let j = c.jaccard(a, b);
            if j >= t && !c.shingles[*a].is_empty() {
                let (x, y) = if a < b { (a, b) } else { (b, a) };
                out.insert(((*x).clone(), (*y).clone()), j);
            }
        }
    }
    out
}

fn pairs_of(text: &str) -> BTreeMap<(String, String), f64> {
    jsonl(text)
        .iter()
        .map(|p| {
            let id = |k: &str| p[k].as_str().unwrap().to_string();
            ((id("a"), id("b")), p["jaccard"].as_f64().unwrap())
        })
        .collect()
}

fn assert_same_pairs(
    got: &BTreeMap<(String, String), f64>,
    want: &BTreeMap<(String, String), f64>,
) {
    let keys = |m: &BTreeMap<(String, String), f64>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(got), keys(want));
    for (k, j) in want {
        assert!((got[k] - j).abs() < 1e-9, "{k:?}: {} vs {j}", got[k]);
    }
}

/// The files under `root`, relative, with their bytes (the dedup marker left out).
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().unwrap() != ".simtui-dedup" {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn dedup(input: &Path, out: &Path, more: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec![
        "dedup",
        s(input),
        "-o",
        s(out),
        "-t",
        "0.7",
        "--keep",
        "first",
    ];
    args.extend_from_slice(&BANDING);
    args.extend_from_slice(more);
    ok(&args);
    let list = out.with_file_name(format!(
        "{}.removed.jsonl",
        out.file_name().unwrap().to_str().unwrap()
    ));
    jsonl(&fs::read_to_string(list).unwrap())
}

#[test]
fn dedup_against_a_reference_removes_what_is_near_it_then_dedups_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let sp = split(dir.path(), 240, 7);
    let c = &sp.corpus;
    let all: Vec<&String> = sp.ref_ids.iter().chain(&sp.new_ids).collect();
    let brute = brute_pairs(c, &all, T);
    // Brute force: the new documents within T of a reference document...
    let near_ref: BTreeSet<&String> = (sp.new_ids.iter())
        .filter(|n| {
            brute.keys().any(|(a, b)| {
                (a == *n && sp.ref_ids.contains(b)) || (b == *n && sp.ref_ids.contains(a))
            })
        })
        .collect();
    assert!(
        near_ref.len() >= 5,
        "the test needs documents near the reference"
    );
    // ... and the others, deduplicated among themselves by dedup itself.
    let rest = dir.path().join("rest");
    for id in sp.new_ids.iter().filter(|n| !near_ref.contains(n)) {
        let to = rest.join(id);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(sp.new.join(id), to).unwrap();
    }
    let rest_list = dedup(&rest, &dir.path().join("rest-out"), &[]);
    assert!(
        !rest_list.is_empty(),
        "the test needs duplicates among the new documents"
    );

    let ref_before = tree(&sp.reference);
    let out = dir.path().join("out");
    let list = dedup(&sp.new, &out, &["--against", s(&sp.reference)]);
    assert_eq!(
        tree(&sp.reference),
        ref_before,
        "the reference is untouched"
    );
    assert_eq!(tree(&out), tree(&dir.path().join("rest-out")));
    let for_ref: BTreeSet<String> = (list.iter())
        .filter(|r| r["reference"] == true)
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    let want: BTreeSet<String> = near_ref.iter().map(|s| s.to_string()).collect();
    assert_eq!(for_ref, want);
    for r in list.iter().filter(|r| r["reference"] == true) {
        let (id, kept) = (r["id"].as_str().unwrap(), r["kept"].as_str().unwrap());
        assert!(sp.ref_ids.contains(kept), "{kept} is a reference document");
        let j = brute_jaccard(&c.shingles[id], &c.shingles[kept]);
        assert!((r["jaccard"].as_f64().unwrap() - j).abs() < 1e-9);
        // The reference document most like it.
        let best = (sp.ref_ids.iter())
            .map(|x| c.jaccard(id, x))
            .fold(0.0, f64::max);
        assert!((j - best).abs() < 1e-9, "{id}: {j} < {best}");
        assert!(r["kept_source"].as_str().unwrap().ends_with(kept));
    }
    // The same among the rest as dedup of the rest alone.
    let among: BTreeSet<(String, String)> = (list.iter())
        .filter(|r| r["reference"] == false)
        .map(|r| {
            (
                r["id"].as_str().unwrap().into(),
                r["kept"].as_str().unwrap().into(),
            )
        })
        .collect();
    let alone: BTreeSet<(String, String)> = (rest_list.iter())
        .map(|r| {
            (
                r["id"].as_str().unwrap().into(),
                r["kept"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(among, alone);

    // A saved index of the reference gives the same, without its files.
    let idx = dir.path().join("ref.idx");
    ok(&[&["index", s(&sp.reference), "-o", s(&idx)][..], &BANDING].concat());
    fs::rename(&sp.reference, dir.path().join("gone")).unwrap();
    let saved_out = dir.path().join("out2");
    let saved_list = dedup(&sp.new, &saved_out, &["--against", s(&idx)]);
    assert_eq!(tree(&saved_out), tree(&out));
    let ids = |l: &[serde_json::Value]| -> Vec<(String, String)> {
        l.iter()
            .map(|r| (r["id"].to_string(), r["kept"].to_string()))
            .collect()
    };
    assert_eq!(ids(&saved_list), ids(&list));
}

#[test]
fn pairs_against_a_reference_are_the_pairs_across() {
    let dir = tempfile::tempdir().unwrap();
    let sp = split(dir.path(), 180, 11);
    let all: Vec<&String> = sp.ref_ids.iter().chain(&sp.new_ids).collect();
    let across = |p: &(String, String)| sp.ref_ids.contains(&p.0) != sp.ref_ids.contains(&p.1);
    let mut want = brute_pairs(&sp.corpus, &all, T);
    want.retain(|k, _| across(k));
    assert!(want.len() >= 5, "the test needs pairs across");
    let args = |more: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = ["pairs", s(&sp.new), "-t", "0.7", "--format", "jsonl"]
            .map(String::from)
            .to_vec();
        a.extend(BANDING.map(String::from));
        a.extend(more.iter().map(|m| m.to_string()));
        a
    };
    let run = |more: &[&str]| {
        let a = args(more);
        ok(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let got = pairs_of(&run(&["--against", s(&sp.reference)]));
    assert_same_pairs(&got, &want);
    // The pairs across of both corpora searched as one (their ids there have their root
    // in front), with the same J and estimates.
    let both = ok(&[
        &["pairs", s(&sp.reference), s(&sp.new), "-t", "0.7"][..],
        &BANDING,
        &["--format", "jsonl"],
    ]
    .concat());
    let against = run(&["--against", s(&sp.reference)]);
    assert_eq!(across_of(&both, &across), across_of(&against, &across));
    assert_eq!(against.lines().count(), want.len());
}

/// The pairs across of JSON Lines pairs, ids without their roots, each pair's ids in
/// order, with J and the estimate as written.
fn across_of(
    text: &str,
    across: &dyn Fn(&(String, String)) -> bool,
) -> BTreeSet<(String, String, String, String)> {
    let bare = |id: &str| {
        id.rsplitn(3, '/')
            .take(2)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("/")
    };
    jsonl(text)
        .iter()
        .filter_map(|p| {
            let (a, b) = (
                bare(p["a"].as_str().unwrap()),
                bare(p["b"].as_str().unwrap()),
            );
            let (a, b) = if a < b { (a, b) } else { (b, a) };
            across(&(a.clone(), b.clone()))
                .then(|| (a, b, p["jaccard"].to_string(), p["estimate"].to_string()))
        })
        .collect()
}

#[test]
fn index_add_equals_indexing_everything_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let sp = split(dir.path(), 180, 5);
    let (added, whole) = (dir.path().join("added.idx"), dir.path().join("whole.idx"));
    ok(&["index", s(&sp.reference), "-o", s(&added)]);
    let out = simtui(&["index", s(&sp.new), "--add", s(&added)]);
    common::assert_ok_saying(&out, &["documents added to"]);
    ok(&["index", s(&sp.reference), s(&sp.new), "-o", s(&whole)]);
    // The same pairs from either, and from no index.
    let pairs = |idx: &Path| {
        ok(&[
            "pairs",
            s(&sp.reference),
            s(&sp.new),
            "--index",
            s(idx),
            "-t",
            "0.5",
            "--format",
            "jsonl",
        ])
    };
    let fresh = ok(&[
        "pairs",
        s(&sp.reference),
        s(&sp.new),
        "-t",
        "0.5",
        "--format",
        "jsonl",
    ]);
    assert!(fresh.lines().count() >= 5);
    assert_eq!(pairs(&added), fresh);
    assert_eq!(pairs(&whole), fresh);
    // Used as it is, without the files: the same answers.
    let q = dir.path().join("q");
    fs::create_dir_all(&q).unwrap();
    let first = sp.new_ids.iter().next().unwrap();
    fs::copy(sp.new.join(first), q.join("q.txt")).unwrap();
    let against = |idx: &Path| {
        common::stdout_of(common::pairs_jsonl(
            s(&q),
            &["--against", s(idx), "-t", "0.3"],
        ))
    };
    assert_eq!(against(&added), against(&whole));
    assert!(!against(&added).is_empty());
}

#[test]
fn index_add_refuses_other_parameters_and_files_it_has() {
    let dir = tempfile::tempdir().unwrap();
    let sp = split(dir.path(), 30, 3);
    let idx = dir.path().join("x.idx");
    ok(&["index", s(&sp.reference), "-o", s(&idx)]);
    let before = fs::read(&idx).unwrap();
    let out = simtui(&["index", s(&sp.new), "--add", s(&idx), "-k", "3"]);
    assert_eq!(out.status.code(), Some(2));
    common::assert_stderr_has(&out, &["built with k = 5 (asked for 3)"]);
    let out = simtui(&["index", s(&sp.reference), "--add", s(&idx)]);
    assert_eq!(out.status.code(), Some(2));
    common::assert_stderr_has(&out, &["in the index", "already"]);
    let out = simtui(&[
        "dedup",
        s(&sp.new),
        "-o",
        s(&dir.path().join("o")),
        "-t",
        "0.8",
        "--against",
        s(&idx),
        "--seed",
        "9",
    ]);
    assert_eq!(out.status.code(), Some(2));
    common::assert_stderr_has(&out, &["seed 1 (asked for 9)"]);
    assert_eq!(fs::read(&idx).unwrap(), before, "nothing written");
    // An output inside the reference is refused before any work.
    let inside = sp.reference.join("out");
    let out = simtui(&[
        "dedup",
        s(&sp.new),
        "-o",
        s(&inside),
        "-t",
        "0.8",
        "--against",
        s(&sp.reference),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!inside.exists());
}
