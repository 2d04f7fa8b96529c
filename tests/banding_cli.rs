//! `-t` never silently loses pairs: without -b/-r a banding is chosen for the threshold
//! (and said on stderr); with -b/-r whose S-curve at T is below 0.9, a warning names the
//! expected recall and a banding that reaches it. `pairs` and `clusters`.

mod common;

use common::{Corpus, jsonl, simtui};
use std::process::Output;

fn run(args: &[&str]) -> (Output, String) {
    let mut all = args.to_vec();
    all.push("--no-config");
    let out = simtui(&all);
    assert!(
        out.status.success(),
        "simtui {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    (out, err)
}

fn pairs_of(out: &Output) -> usize {
    jsonl(std::str::from_utf8(&out.stdout).unwrap()).len()
}

#[test]
fn pairs_with_t_alone_chooses_the_banding_for_t_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 300, 5);
    let (chosen, err) = run(&["pairs", c.path(), "-t", "0.5", "--format", "jsonl"]);
    assert!(err.contains("-t 0.5 without -b/-r: banding 18x3"), "{err}");
    assert!(
        err.contains("reaches 0.9 at J = 0.5 within 128 functions"),
        "{err}"
    );
    assert!(err.contains("the S-curve at J = 0.5 is 0.910"), "{err}");
    assert!(!err.contains("warning"), "{err}");
    // Below what 128 functions reach: the recommender's banding, and what would reach.
    let (_, err) = run(&["pairs", c.path(), "-t", "0.01", "--format", "jsonl"]);
    assert!(
        err.contains("as `simtui curve --threshold 0.01` recommends"),
        "{err}"
    );
    assert!(err.contains("-b 230 -r 1 reaches 0.9 at J = 0.01"), "{err}");
    let (fixed, err) = run(&[
        "pairs",
        c.path(),
        "-t",
        "0.5",
        "-b",
        "16",
        "-r",
        "8",
        "--format",
        "jsonl",
    ]);
    // 16x8 has threshold 0.707: at J = 0.5 its S-curve is 0.061.
    assert!(err.contains("warning: -b 16 -r 8"), "{err}");
    assert!(err.contains("the S-curve at J = 0.5 is 0.061"), "{err}");
    assert!(err.contains("-b 18 -r 3 reaches 0.9 at J = 0.5"), "{err}");
    assert!(pairs_of(&chosen) >= pairs_of(&fixed));
    assert!(pairs_of(&fixed) > 0);
}

#[test]
fn a_given_banding_that_reaches_t_is_used_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 200, 6);
    let (_, err) = run(&[
        "pairs",
        c.path(),
        "-t",
        "0.8",
        "-b",
        "16",
        "-r",
        "8",
        "--format",
        "jsonl",
    ]);
    assert!(err.is_empty(), "{err}");
    // Only -r given: a banding the user chose, checked, not replaced.
    let (_, err) = run(&[
        "pairs",
        c.path(),
        "-t",
        "0.8",
        "-r",
        "16",
        "--format",
        "jsonl",
    ]);
    assert!(err.contains("warning: -b 16 -r 16"), "{err}");
}

#[test]
fn pairs_without_t_keeps_16x8_and_says_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 200, 7);
    let (default, err) = run(&["pairs", c.path(), "--format", "jsonl"]);
    assert!(err.is_empty(), "{err}");
    let (explicit, _) = run(&[
        "pairs",
        c.path(),
        "-b",
        "16",
        "-r",
        "8",
        "--format",
        "jsonl",
    ]);
    assert_eq!(default.stdout, explicit.stdout);
    // SimHash has no banding to choose.
    let (_, err) = run(&[
        "pairs",
        c.path(),
        "-t",
        "0.5",
        "--method",
        "simhash",
        "--format",
        "jsonl",
    ]);
    assert!(!err.contains("banding"), "{err}");
}

#[test]
fn clusters_choose_or_warn_the_same_way() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 200, 8);
    let (_, err) = run(&["clusters", c.path(), "-t", "0.6", "--format", "jsonl"]);
    assert!(
        err.contains("simtui clusters: -t 0.6 without -b/-r: banding 17x4"),
        "{err}"
    );
    let (_, err) = run(&[
        "clusters",
        c.path(),
        "-t",
        "0.6",
        "-b",
        "16",
        "-r",
        "8",
        "--format",
        "jsonl",
    ]);
    assert!(
        err.contains("simtui clusters: warning: -b 16 -r 8"),
        "{err}"
    );
    let (_, err) = run(&[
        "clusters",
        c.path(),
        "-t",
        "0.9",
        "-b",
        "16",
        "-r",
        "8",
        "--format",
        "jsonl",
    ]);
    assert!(err.is_empty(), "{err}");
}

#[test]
fn bands_from_the_config_file_count_as_given() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 100, 9);
    let cfg = dir.path().join("config.toml");
    std::fs::write(&cfg, "[index]\nbands = 16\n").unwrap();
    let cfg = cfg.to_str().unwrap();
    let out = simtui(&[
        "pairs",
        c.path(),
        "-t",
        "0.5",
        "--config",
        cfg,
        "--format",
        "jsonl",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("warning: -b 16 -r 8"), "{err}");
    assert!(!err.contains("without -b/-r"), "{err}");
}
