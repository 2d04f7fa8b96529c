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

/// `run` with `--format jsonl`.
fn run_jsonl(args: &[&str]) -> (Output, String) {
    run(&[args, &["--format", "jsonl"]].concat())
}

fn pairs_of(out: &Output) -> usize {
    jsonl(std::str::from_utf8(&out.stdout).unwrap()).len()
}

#[test]
fn pairs_with_t_alone_chooses_the_banding_for_t_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 300, 5);
    let (chosen, err) = run_jsonl(&["pairs", c.path(), "-t", "0.5"]);
    assert!(err.contains("-t 0.5 without -b/-r: banding 18x3"), "{err}");
    assert!(
        err.contains("reaches 0.9 at J = 0.5 within 128 functions"),
        "{err}"
    );
    assert!(err.contains("the S-curve at J = 0.5 is 0.910"), "{err}");
    assert!(!err.contains("warning"), "{err}");
    // Below what 128 functions reach: the recommender's banding, and what would reach.
    let (_, err) = run_jsonl(&["pairs", c.path(), "-t", "0.01"]);
    assert!(
        err.contains("as `simtui curve --threshold 0.01` recommends"),
        "{err}"
    );
    assert!(err.contains("-b 230 -r 1 reaches 0.9 at J = 0.01"), "{err}");
    let (fixed, err) = run_jsonl(&["pairs", c.path(), "-t", "0.5", "-b", "16", "-r", "8"]);
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
    let (_, err) = run_jsonl(&["pairs", c.path(), "-t", "0.8", "-b", "16", "-r", "8"]);
    assert!(err.is_empty(), "{err}");
    // Only -r given: a banding the user chose, checked, not replaced.
    let (_, err) = run_jsonl(&["pairs", c.path(), "-t", "0.8", "-r", "16"]);
    assert!(err.contains("warning: -b 16 -r 16"), "{err}");
}

#[test]
fn pairs_without_t_keeps_16x8_and_says_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 200, 7);
    let (default, err) = run_jsonl(&["pairs", c.path()]);
    assert!(err.is_empty(), "{err}");
    let (explicit, _) = run_jsonl(&["pairs", c.path(), "-b", "16", "-r", "8"]);
    assert_eq!(default.stdout, explicit.stdout);
    // SimHash has no banding to choose.
    let (_, err) = run_jsonl(&["pairs", c.path(), "-t", "0.5", "--method", "simhash"]);
    assert!(!err.contains("banding"), "{err}");
}

#[test]
fn clusters_choose_or_warn_the_same_way() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 200, 8);
    let (_, err) = run_jsonl(&["clusters", c.path(), "-t", "0.6"]);
    assert!(
        err.contains("simtui clusters: -t 0.6 without -b/-r: banding 17x4"),
        "{err}"
    );
    let (_, err) = run_jsonl(&["clusters", c.path(), "-t", "0.6", "-b", "16", "-r", "8"]);
    assert!(
        err.contains("simtui clusters: warning: -b 16 -r 8"),
        "{err}"
    );
    let (_, err) = run_jsonl(&["clusters", c.path(), "-t", "0.9", "-b", "16", "-r", "8"]);
    assert!(err.is_empty(), "{err}");
}

#[test]
fn bands_from_the_config_file_count_as_given() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 100, 9);
    let cfg = dir.path().join("config.toml");
    std::fs::write(&cfg, "[index]\nbands = 16\n").unwrap();
    let cfg = cfg.to_str().unwrap();
    let out = common::pairs_jsonl(c.path(), &["-t", "0.5", "--config", cfg]);
    common::assert_ok_saying(&out, &["warning: -b 16 -r 8"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("without -b/-r"), "{err}");
}

/// One rule, one recommender: for each T, the banding `pairs -t T` and `eval -t T`
/// choose is the one `curve --threshold T` recommends and `eval --sweep` marks (issue
/// 28: the sweep and curve marked the equal-weights optimum, 9x13 at 0.8, while -t
/// chose 13x8).
#[test]
fn every_command_chooses_the_same_banding_for_a_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 150, 10);
    for (t, b, r) in [("0.5", 18, 3), ("0.8", 13, 8), ("0.9", 9, 14)] {
        let (_, err) = run_jsonl(&["pairs", c.path(), "-t", t]);
        assert!(err.contains(&format!("banding {b}x{r}")), "{t}: {err}");
        let (out, _) = run(&["curve", "--threshold", t, "--steps", "2"]);
        let curve = String::from_utf8(out.stdout).unwrap();
        assert!(
            curve.starts_with(&format!(
                "recommended for threshold {t} with at most 128 hash functions: --bands {b} --rows {r} "
            )),
            "{t}: {curve}"
        );
        assert!(curve.contains(&format!("as -t {t} chooses")), "{curve}");
        let (out, err) = run_jsonl(&["eval", c.path(), "-t", t, "--sweep"]);
        assert!(err.contains(&format!("banding {b}x{r}")), "{t}: {err}");
        let lines = jsonl(std::str::from_utf8(&out.stdout).unwrap());
        let marked: Vec<_> = lines.iter().filter(|l| l["recommended"] == true).collect();
        assert!(!marked.is_empty(), "{t}");
        assert!(
            marked.iter().all(|l| l["bands"] == b && l["rows"] == r),
            "{t}: {marked:?}"
        );
        // The banding evaluated is the one chosen too; the sweep's grid stays 16 × 8's.
        let main = lines.iter().find(|l| l["sweep"].is_null()).unwrap();
        assert_eq!(
            (main["bands"].clone(), main["rows"].clone()),
            (b.into(), r.into())
        );
        assert!(lines.iter().any(|l| l["bands"] == 128 && l["rows"] == 1));
    }
    // The weighted optimum is still shown, as such.
    let (out, _) = run(&["curve", "--threshold", "0.8", "--steps", "2"]);
    let curve = String::from_utf8(out.stdout).unwrap();
    assert!(
        curve.contains("weighted optimum (--fp-weight 0.5 --fn-weight 0.5), not what -t uses: --bands 9 --rows 13"),
        "{curve}"
    );
}
