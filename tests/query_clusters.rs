//! `simtui query` and `simtui clusters` end to end on generated corpora, held against the
//! planted pairs and an independent brute-force Jaccard.

mod common;

use common::{Corpus, assert_usage_error, components, jsonl, ok, simtui};
use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, SystemTime};

/// A cluster row's members.
fn members(row: &serde_json::Value) -> Vec<&str> {
    let members = row["members"].as_array().unwrap();
    members.iter().map(|m| m.as_str().unwrap()).collect()
}

/// The rows of `simtui query CORPUS WHAT --format jsonl`, with `extra` flags.
fn query_rows(corpus: &str, what: &str, extra: &[&str]) -> Vec<serde_json::Value> {
    jsonl(&ok(
        &[&["query", corpus, what, "--format", "jsonl"], extra].concat()
    ))
}

#[test]
fn query_finds_planted_neighbours_in_the_top_n() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 400, 3);
    // 32 bands of 4 rows: a pair of J >= 0.7 is a candidate with probability > 0.9998.
    let planted = c.planted(0.7);
    let mut neighbours: HashMap<&str, BTreeSet<&str>> = HashMap::new();
    for (a, b) in &planted {
        neighbours.entry(a).or_default().insert(b);
        neighbours.entry(b).or_default().insert(a);
    }
    assert!(neighbours.len() >= 20, "enough planted neighbours");
    let mut queries: Vec<&str> = neighbours.keys().copied().collect();
    queries.sort();
    queries.truncate(25);
    let mut args = vec!["query", c.path()];
    args.extend(&queries);
    args.extend(["-b", "32", "-r", "4", "--top", "5", "--format", "jsonl"]);
    let rows = jsonl(&ok(&args));

    for q in &queries {
        let mine: Vec<&serde_json::Value> = rows.iter().filter(|r| r["query"] == *q).collect();
        assert!(
            !mine.is_empty() && mine.len() <= 5,
            "{q}: {} rows",
            mine.len()
        );
        let docs: BTreeSet<&str> = mine.iter().map(|r| r["doc"].as_str().unwrap()).collect();
        for n in &neighbours[q] {
            assert!(
                docs.contains(n),
                "{q}: planted neighbour {n} not in {docs:?}"
            );
        }
        assert!(!docs.contains(q), "{q} is not its own neighbour");
        for (i, r) in mine.iter().enumerate() {
            assert_eq!(r["rank"], i + 1);
            let d = r["doc"].as_str().unwrap();
            let j = r["jaccard"].as_f64().unwrap();
            assert!((j - c.jaccard(q, d)).abs() < 1e-12, "{q} {d}: {j}");
            assert!((0.0..=1.0).contains(&r["estimate"].as_f64().unwrap()));
            assert_eq!(
                r.as_object().unwrap().keys().collect::<Vec<_>>(),
                ["doc", "estimate", "jaccard", "query", "rank"]
            );
        }
        let js: Vec<f64> = mine
            .iter()
            .map(|r| r["jaccard"].as_f64().unwrap())
            .collect();
        assert!(js.windows(2).all(|w| w[0] >= w[1]), "{q}: ranked by J");
    }
}

#[test]
fn outside_files_and_corpus_paths_are_queries() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 300, 8);
    let (a, b) = c.planted(0.8).into_iter().next().expect("a planted pair");
    // A copy of a, outside the corpus, in a folder with an unrelated text.
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("copy.txt"), c.text(&a).to_uppercase()).unwrap();
    std::fs::write(
        outside.join("other.txt"),
        "words found nowhere in the corpus at all",
    )
    .unwrap();
    let rows = query_rows(
        c.path(),
        outside.to_str().unwrap(),
        &["-b", "32", "-r", "4"],
    );
    let copy = outside.join("copy.txt");
    let copy = copy.to_str().unwrap();
    let mine: Vec<_> = rows.iter().filter(|r| r["query"] == copy).collect();
    let identical: Vec<&str> = mine
        .iter()
        .filter(|r| r["jaccard"] == 1.0)
        .map(|r| r["doc"].as_str().unwrap())
        .collect();
    assert!(identical.contains(&a.as_str()), "its original, with J = 1");
    assert_eq!(mine[0]["jaccard"], 1.0);
    assert!(mine.iter().any(|r| r["doc"] == b.as_str()));
    assert!(
        rows.iter().all(|r| r["query"] == copy),
        "the unrelated text has no neighbour"
    );

    // A corpus file named by its path is that document: not its own neighbour.
    let path = c.file(&a);
    let rows = query_rows(c.path(), path.to_str().unwrap(), &[]);
    assert!(rows.iter().all(|r| r["doc"] != a.as_str()));
    assert!(rows.iter().any(|r| r["doc"] == b.as_str()));
}

#[test]
fn too_few_candidates_are_said_and_exhaustive_fills_up_from_a_scan() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 300, 5);
    // A query whose planted neighbours are all distinct (J < 1): 2 bands of 64 rows
    // make them practically never candidates.
    let (q, _) = c
        .planted(0.3)
        .into_iter()
        .find(|(a, _)| {
            c.planted(0.0)
                .iter()
                .filter(|(x, y)| x == a || y == a)
                .all(|(x, y)| c.jaccard(x, y) < 0.9)
        })
        .expect("a query with near but distinct neighbours");
    let base = ["query", c.path(), &q, "-b", "2", "-r", "64", "--top", "4"];
    let out = simtui(&[&base[..], &["--format", "jsonl"]].concat());
    common::assert_ok_saying(&out, &["fewer than --top 4"]);
    assert!(jsonl(&String::from_utf8(out.stdout).unwrap()).is_empty());

    let out = simtui(&[&base[..], &["--format", "jsonl", "--exhaustive"]].concat());
    assert!(out.status.success());
    let rows = jsonl(&String::from_utf8(out.stdout).unwrap());
    // The brute-force ranking of every other document with J > 0.
    let mut truth: Vec<f64> = c
        .shingles
        .keys()
        .filter(|d| **d != q)
        .map(|d| c.jaccard(&q, d))
        .filter(|&j| j > 0.0)
        .collect();
    truth.sort_by(|x, y| y.total_cmp(x));
    truth.truncate(4);
    let got: Vec<f64> = rows
        .iter()
        .map(|r| r["jaccard"].as_f64().unwrap())
        .collect();
    assert!(!got.is_empty());
    assert_eq!(got.len(), truth.len(), "{got:?} {truth:?}");
    for (g, t) in got.iter().zip(&truth) {
        assert!(
            (g - t).abs() < 1e-12,
            "the scan finds the most similar: {got:?} {truth:?}"
        );
    }
    assert!(rows.iter().all(|r| r["doc"] != q.as_str()));
    let table = ok(&[&base[..], &["--format", "table", "--exhaustive"]].concat());
    assert!(table.contains("(scan)"), "{table}");

    // Several queries: one line sums them up; -v names each.
    let two = [&base[..], &[q.as_str(), "--format", "jsonl"]].concat();
    let err = String::from_utf8(simtui(&two).stderr).unwrap();
    assert!(
        err.contains("2 of 2 queries had fewer than --top 4"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let err = String::from_utf8(simtui(&[&two[..], &["-v"]].concat()).stderr).unwrap();
    assert!(err.contains(&format!("{q}: 0 candidate(s)")), "{err}");
}

#[test]
fn clusters_equal_the_planted_groups() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 500, 7);
    for t in [0.8, 0.5] {
        let ts = t.to_string();
        let rows = jsonl(&ok(&[
            "clusters",
            c.path(),
            "-t",
            &ts,
            "-b",
            "64",
            "-r",
            "2",
            "--format",
            "jsonl",
        ]));
        // Union-find over the planted pairs at the same threshold (nothing unplanted is
        // that similar in a generated corpus).
        let expected = components(&c.planted(t));
        assert!(expected.len() >= 10, "enough planted groups at {t}");
        let got: BTreeSet<BTreeSet<String>> = rows
            .iter()
            .map(|r| members(r).into_iter().map(String::from).collect())
            .collect();
        assert_eq!(got, expected, "clusters at J >= {t}");

        let sizes: Vec<u64> = rows.iter().map(|r| r["size"].as_u64().unwrap()).collect();
        assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "largest first");
        for r in &rows {
            let members = members(r);
            assert_eq!(members.len() as u64, r["size"].as_u64().unwrap());
            // The mean over every pair of members, computed exactly.
            let mut sum = 0.0;
            let mut n = 0;
            for (i, a) in members.iter().enumerate() {
                for b in &members[i + 1..] {
                    sum += c.jaccard(a, b);
                    n += 1;
                }
            }
            let mean = r["mean_jaccard"].as_f64().unwrap();
            assert!((mean - sum / n as f64).abs() < 1e-9, "{r}");
            // The longest member (tokens, then bytes, then the first id) is kept.
            let longest = members
                .iter()
                .max_by_key(|d| (c.tokens[**d], c.text(d).len(), std::cmp::Reverse(**d)))
                .unwrap();
            assert_eq!(r["representative"], *longest, "{r}");
        }
    }
}

/// Every file's length and modification time, to check that nothing was changed.
fn snapshot(root: &std::path::Path) -> Vec<(String, u64, SystemTime)> {
    let mut out = Vec::new();
    for d in std::fs::read_dir(root).unwrap() {
        let d = d.unwrap();
        for f in std::fs::read_dir(d.path()).unwrap() {
            let f = f.unwrap();
            let m = f.metadata().unwrap();
            out.push((
                f.path().display().to_string(),
                m.len(),
                m.modified().unwrap(),
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn dupes_list_every_member_but_the_representative_and_touch_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 400, 11);
    // Modification times that run against the ids, so oldest differs from first.
    let base = SystemTime::UNIX_EPOCH + Duration::from_secs(1_600_000_000);
    let mut ids: Vec<&String> = c.shingles.keys().collect();
    ids.sort();
    let mtime: HashMap<&str, SystemTime> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), base - Duration::from_secs(i as u64 * 60)))
        .collect();
    for (id, t) in &mtime {
        let f = std::fs::File::options()
            .write(true)
            .open(c.file(id))
            .unwrap();
        f.set_modified(*t).unwrap();
    }
    let before = snapshot(&c.root);

    for keep in ["longest", "shortest", "oldest", "newest", "first"] {
        let args = ["clusters", c.path(), "-t", "0.6", "--keep", keep];
        let clusters = jsonl(&ok(&[&args[..], &["--format", "jsonl"]].concat()));
        assert!(clusters.len() >= 10);
        let dupes = ok(&[&args[..], &["--dupes"]].concat());
        let listed: Vec<&str> = dupes.lines().collect();
        let null = ok(&[&args[..], &["--dupes", "-0"]].concat());
        assert_eq!(null.split_terminator('\0').collect::<Vec<_>>(), listed);

        let path = |id: &str| c.file(id).to_str().unwrap().to_string();
        let listed: BTreeSet<String> = listed.iter().map(|s| s.to_string()).collect();
        let mut expected = BTreeSet::new();
        for r in &clusters {
            let rep = r["representative"].as_str().unwrap();
            assert!(
                !listed.contains(&path(rep)),
                "{keep}: representative {rep} listed"
            );
            let members = members(r);
            assert!(members.contains(&rep));
            let chosen = match keep {
                "oldest" => Some(*members.iter().min_by_key(|m| mtime[*m]).unwrap()),
                "newest" => Some(*members.iter().max_by_key(|m| mtime[*m]).unwrap()),
                "first" => Some(members[0]),
                _ => None,
            };
            if let Some(chosen) = chosen {
                assert_eq!(rep, chosen, "{keep}");
            }
            expected.extend(members.iter().filter(|m| **m != rep).map(|m| path(m)));
        }
        assert_eq!(listed, expected, "{keep}: every other member, once");
    }
    assert_eq!(snapshot(&c.root), before, "simtui never changes a file");

    // The table names the one kept.
    let table = ok(&["clusters", c.path(), "-t", "0.6", "--format", "table"]);
    assert!(table.contains("(kept: longest)"), "{table}");
    assert!(table.lines().last().unwrap().contains("duplicates"));
}

#[test]
fn bad_inputs_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 50, 1);
    let p = c.path();
    let id = c.generated.docs[0].id.as_str();
    assert_usage_error(&["query", "/no/such/simtui/corpus", "x"]);
    assert_usage_error(&["query", p, "no/such/document.txt"]);
    assert_usage_error(&["query", p]);
    assert_usage_error(&["query", p, id, "--top", "0"]);
    assert_usage_error(&["query", p, id, "--max-distance", "3"]);
    assert_usage_error(&[
        "query",
        p,
        id,
        "--method",
        "simhash",
        "--max-distance",
        "32",
    ]);
    assert_usage_error(&["clusters", p]);
    assert_usage_error(&["clusters", p, "-t", "1.5"]);
    assert_usage_error(&["clusters", p, "-t", "0.5", "--keep", "biggest"]);
    assert_usage_error(&["clusters", p, "-t", "0.5", "-0"]);
    assert_usage_error(&["clusters", "/no/such/simtui/corpus", "-t", "0.5"]);
}

/// Two copies of one text and a document that shares no shingle with them.
fn duplicates_and_a_loner(dir: &std::path::Path) -> std::path::PathBuf {
    let root = dir.join("c");
    std::fs::create_dir(&root).unwrap();
    let text: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
    std::fs::write(root.join("a.txt"), text.join(" ")).unwrap();
    std::fs::write(root.join("b.txt"), text.join(" ")).unwrap();
    let other: Vec<String> = (0..40).map(|i| format!("v{i}")).collect();
    std::fs::write(root.join("lonely.txt"), other.join(" ")).unwrap();
    root
}

#[test]
fn query_fail_empty_exits_1_only_without_a_neighbour() {
    let dir = tempfile::tempdir().unwrap();
    let root = duplicates_and_a_loner(dir.path());
    let c = root.to_str().unwrap();
    let outside = dir.path().join("new.txt");
    std::fs::write(&outside, "nothing in common with any document here at all").unwrap();
    let outside = outside.to_str().unwrap();

    let found = simtui(&["query", c, "a.txt", "--fail-empty", "--format", "jsonl"]);
    assert_eq!(found.status.code(), Some(0));
    assert_eq!(
        jsonl(&String::from_utf8(found.stdout).unwrap())[0]["doc"],
        "b.txt"
    );
    // Without --fail-empty, no neighbour is a success.
    assert_eq!(simtui(&["query", c, "lonely.txt"]).status.code(), Some(0));

    // The (empty) output of each format is written before exiting 1; the table names
    // the query by its title (its first line) too.
    for (format, want) in [
        ("jsonl", ""),
        ("csv", "query,doc,jaccard,estimate,rank\n"),
        (
            "table",
            "query lonely.txt (v0 v1 v2 v3 v4 v5 v6 v7 v8 v9 v10 v11 v12 v13 v14 v15 v16 v…): 0 candidate(s)\n  rank  jaccard  estimate  doc  title\n\n",
        ),
    ] {
        let none = simtui(&["query", c, "lonely.txt", "--fail-empty", "--format", format]);
        assert_eq!(none.status.code(), Some(1), "{format}");
        assert_eq!(String::from_utf8(none.stdout).unwrap(), want, "{format}");
    }
    let told = simtui(&["query", c, "lonely.txt", "--fail-empty", "-v"]);
    assert_eq!(told.status.code(), Some(1));
    let err = String::from_utf8(told.stderr).unwrap();
    assert!(err.contains("no neighbour for lonely.txt"), "{err}");
    // A file outside the corpus, too.
    let none = simtui(&["query", c, outside, "--fail-empty"]);
    assert_eq!(none.status.code(), Some(1));
    // Several queries: 1 only when none of them has a neighbour.
    let some = simtui(&["query", c, "lonely.txt", "a.txt", "--fail-empty"]);
    assert_eq!(some.status.code(), Some(0));
    let all = simtui(&["query", c, "lonely.txt", outside, "--fail-empty", "-v"]);
    assert_eq!(all.status.code(), Some(1));
    let err = String::from_utf8(all.stderr).unwrap();
    assert!(err.contains("no neighbour for any of 2 queries"), "{err}");
}

#[test]
fn clusters_fail_empty_exits_1_only_without_a_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let root = duplicates_and_a_loner(dir.path());
    let c = root.to_str().unwrap();
    let found = simtui(&["clusters", c, "-t", "0.5", "--fail-empty"]);
    assert_eq!(found.status.code(), Some(0));
    let dupes = simtui(&["clusters", c, "-t", "0.5", "--fail-empty", "--dupes"]);
    assert_eq!(dupes.status.code(), Some(0));
    let listed = String::from_utf8(dupes.stdout).unwrap();
    assert_eq!(listed, format!("{}\n", root.join("b.txt").display()));

    std::fs::remove_file(root.join("b.txt")).unwrap();
    assert_eq!(simtui(&["clusters", c, "-t", "0.5"]).status.code(), Some(0));
    let none = simtui(&[
        "clusters",
        c,
        "-t",
        "0.5",
        "--fail-empty",
        "--format",
        "table",
    ]);
    assert_eq!(none.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(none.stdout).unwrap(),
        "0 clusters, 0 documents, 0 duplicates (* kept)\n"
    );
    // Quiet without -v, but for the banding chosen for -t (one line).
    let err = String::from_utf8(none.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("-t 0.5 without -b/-r: banding"), "{err}");
    let told = simtui(&["clusters", c, "-t", "0.5", "--fail-empty", "--dupes", "-v"]);
    assert_eq!(told.status.code(), Some(1));
    assert!(told.stdout.is_empty());
    let err = String::from_utf8(told.stderr).unwrap();
    assert!(err.contains("no cluster with J >= 0.5"), "{err}");
}
