//! `simtui diff`: the explorer's side-by-side view on stdout, pinned by snapshots in both
//! colour modes.

mod common;

use common::{assert_usage_error, ok, simtui};

const A: &str = "It is a truth universally acknowledged, that a single man in possession\n\
of a good fortune, must be in want of a wife.\n\
\n\
However little known the feelings or views of such a man may be on his first\n\
entering a neighbourhood, this truth is so well fixed in the minds of the\n\
surrounding families.\n\
\n\
Mr. Bennet replied that he had not.\n";

const B: &str = "It is a truth universally acknowledged, that a single man in possession\n\
of a large fortune, must be in want of a wife.\n\
\n\
However little known the feelings or views of such a man may be on his first\n\
entering a neighbourhood, this truth is so well fixed in the minds of the\n\
surrounding families, that he is considered their rightful property.\n\
\n\
Mrs. Bennet replied that he had.\n";

fn files() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
    std::fs::write(&a, A).unwrap();
    std::fs::write(&b, B).unwrap();
    let s = |p: std::path::PathBuf| p.to_str().unwrap().to_string();
    (dir, s(a), s(b))
}

/// The output with the temporary folder's path taken out.
fn run(dir: &tempfile::TempDir, args: &[&str]) -> String {
    ok(args).replace(dir.path().to_str().unwrap(), "DIR")
}

/// The diff of A and B at 72 columns, k = 3, with `--color` as given.
fn diff_in_colour(color: &str) -> String {
    let (dir, a, b) = files();
    run(
        &dir,
        &["diff", &a, &b, "--width", "72", "--color", color, "-k", "3"],
    )
}

#[test]
fn diff_without_colour_brackets_the_changes() {
    let out = diff_in_colour("never");
    insta::assert_snapshot!("diff_never", out);
    // Every row fits the width; the changed words are marked on their side only.
    for line in out.lines() {
        assert!(line.chars().count() <= 72, "{line:?}");
    }
    assert!(out.contains("[-good-]") && out.contains("{+large+}"));
    assert!(out.contains("[-Mr-]") && out.contains("{+Mrs+}") && out.contains("[-not-]"));
    assert!(!out.contains('\x1b'));
    // Piped, colour is off by default (auto).
    let (dir, a, b) = files();
    let piped = run(&dir, &["diff", &a, &b, "--width", "72", "-k", "3"]);
    assert_eq!(piped, out);
}

#[test]
fn diff_with_colour_colours_the_changes() {
    let out = diff_in_colour("always");
    insta::assert_snapshot!("diff_always", out);
    assert!(out.contains("\x1b[31mgood\x1b[0m") && out.contains("\x1b[32mlarge\x1b[0m"));
    assert!(!out.contains("[-") && !out.contains("{+"));
}

#[test]
fn diff_header_has_the_similarities_pairs_reports() {
    let (dir, _, _) = files();
    let p = dir.path().to_str().unwrap();
    let rows = common::jsonl(&ok(&[
        "pairs", p, "-k", "3", "-b", "64", "-r", "2", "--format", "jsonl",
    ]));
    let j = rows[0]["jaccard"].as_f64().unwrap();
    let est = rows[0]["estimate"].as_f64().unwrap();
    let out = ok(&[
        "diff", "--corpus", p, "a.txt", "b.txt", "-k", "3", "-b", "64", "-r", "2",
    ]);
    assert!(
        out.contains(&format!(
            "exact J {j:.3} · estimate {est:.3} (128 functions)"
        )),
        "{out}"
    );
    assert!(out.starts_with("A a.txt  "), "{out}");
    assert_usage_error(&["diff", "--corpus", p, "a.txt", "nope.txt"]);
    assert_usage_error(&["diff", "/no/such/file", "b.txt"]);
    assert_usage_error(&["diff", p, p]);
    assert_usage_error(&["diff", "a", "b", "--width", "5"]);
    let out = simtui(&[
        "diff", "--corpus", p, "a.txt", "b.txt", "--width", "30", "--color", "never",
    ]);
    assert!(out.status.success());
    for line in String::from_utf8(out.stdout).unwrap().lines().skip(4) {
        assert!(line.chars().count() <= 30, "{line:?}");
    }
}

/// Issue 26, item 8: two texts that differ only past the 256 KB diffed are not said to
/// be identical, nor to differ in no word: the header says what was compared.
#[test]
fn texts_that_differ_past_the_part_shown_are_not_called_identical() {
    let dir = tempfile::tempdir().unwrap();
    let head: String = (0..40_000)
        .map(|i| format!("line {i} of the text\n"))
        .collect();
    assert!(head.len() > 256 * 1024);
    let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
    std::fs::write(&a, format!("{head}the end\n")).unwrap();
    std::fs::write(&b, format!("{head}another end\n")).unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let out = ok(&["diff", a, b, "--width", "80", "--color", "never"]);
    let header: String = out.lines().take(3).collect::<Vec<_>>().join("\n");
    assert!(header.contains("TRUNCATED to 256 KB"), "{header}");
    assert!(
        header.contains("identical in the first 256 KB shown, different past it"),
        "{header}"
    );
    assert!(!header.contains("identical texts") && !header.contains("no word differs"));
    // The same texts in full are identical.
    let same = ok(&["diff", a, a, "--width", "80", "--color", "never"]);
    assert!(
        same.lines().nth(2).unwrap().contains("identical texts"),
        "{same}"
    );
}
