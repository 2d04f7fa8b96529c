//! Issue 26, items 1 and 5: no output of a run is, lies inside or contains one of its
//! inputs (by device and inode: through a symbolic link or a bind mount too), or is
//! another input or output of the run; `--force` replaces only an earlier output of the
//! same kind; every write is atomic or cleaned (what killed runs left is removed, a
//! failed replacement leaves no partial copy).
//!
//! Each case is refused before any work, exit 2, one line naming both paths, and the
//! test checks that the input is byte for byte as it was.

mod common;

use common::simtui;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_simtui");

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every file under `root` (links not followed) and its bytes: what must not change.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(p) = stack.pop() {
        let meta = fs::symlink_metadata(&p).unwrap();
        if meta.is_dir() {
            stack.extend(fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        } else {
            out.insert(p.clone(), fs::read(&p).unwrap_or_default());
        }
    }
    out
}

/// A new folder holding a corpus of 30 files at `c`.
fn corpus_of_30() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus_at(dir.path(), "c", 30);
    (dir, c)
}

/// A generated corpus of `docs` files at `dir/name` (a folder of near-duplicates).
fn corpus_at(dir: &Path, name: &str, docs: usize) -> PathBuf {
    let out = dir.join(name);
    let truth = dir.join(format!("{name}.truth.jsonl"));
    common::write_generated(&out, &truth, (docs, 5, 80, 0.5));
    out
}

fn run_in(cwd: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

/// Exit 2, one line on stderr naming `a` and `b` and saying `how`.
#[track_caller]
fn refused(out: &Output, how: &str, a: &str, b: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    for part in [how, a, b] {
        assert!(err.contains(part), "{part:?} not in {err}");
    }
}

/// `dedup corpus/raw -o corpus --force` deleted corpus/raw and every other file of
/// corpus/ (OUT an ancestor of the input); so did `dedup d -o "$PWD" --force` from the
/// folder holding d.
#[test]
fn an_output_that_holds_the_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    let raw = corpus_at(&corpus, "raw", 40);
    fs::write(corpus.join("notes.txt"), "mine").unwrap();
    let before = snapshot(dir.path());
    let out = simtui(&["dedup", s(&raw), "-o", s(&corpus), "-t", "0.8", "--force"]);
    refused(&out, "contains the input", s(&corpus), s(&raw));
    let out = run_in(
        dir.path(),
        &["dedup", "corpus/raw", "-o", ".", "-t", "0.8", "--force"],
    );
    refused(&out, "contains the input", "-o .", "corpus/raw");
    let q = corpus.clone();
    let out = run_in(&q, &["dedup", "raw", "-o", s(&q), "-t", "0.8", "--force"]);
    refused(&out, "contains the input", s(&q), "raw");
    // sketch's and gen's folders too.
    let out = simtui(&["sketch", s(&raw), "-o", s(&corpus)]);
    refused(&out, "contains the input", s(&corpus), s(&raw));
    assert_eq!(snapshot(dir.path()), before, "nothing changed");
}

/// `dedup c.removed.jsonl -o c --force` wrote the removal list over its own input (and
/// replaced the folder c, the corpus, with a file).
#[test]
fn a_removal_list_given_as_the_input_is_never_written_over() {
    let (dir, c) = corpus_of_30();
    let out = dir.path().join("out");
    let first = simtui(&["dedup", s(&c), "-o", s(&out), "-t", "0.8"]);
    common::assert_ok(&first);
    let list = dir.path().join("out.removed.jsonl");
    fs::copy(&list, dir.path().join("c.removed.jsonl")).unwrap();
    let before = snapshot(dir.path());
    let again = simtui(&["dedup", s(&list), "-o", s(&out), "-t", "0.8", "--force"]);
    refused(
        &again,
        "is the same file as the input",
        "the removal list",
        s(&list),
    );
    let c_list = dir.path().join("c.removed.jsonl");
    let again = simtui(&["dedup", s(&c_list), "-o", s(&c), "-t", "0.8", "--force"]);
    refused(
        &again,
        "is the same file as the input",
        "c.removed.jsonl",
        "the removal list",
    );
    // The removal list as --keep-list of the run that writes it.
    let again = simtui(&[
        "dedup",
        s(&c),
        "-o",
        s(&out),
        "-t",
        "0.8",
        "--force",
        "--keep-list",
        s(&list),
    ]);
    refused(
        &again,
        "is the same file as --keep-list",
        "the removal list",
        s(&list),
    );
    assert_eq!(snapshot(dir.path()), before, "nothing changed");
}

/// The review's keep-list in the corpus or over the list reviewed, and `eval
/// --write-truth` into the corpus, rewrote an input; so did `--log` in the corpus. The
/// explorer refuses before the terminal is touched (here there is none: the check comes
/// first).
#[test]
fn keep_lists_truth_files_and_logs_never_land_on_an_input() {
    let (dir, c) = corpus_of_30();
    let list = dir.path().join("out.removed.jsonl");
    fs::write(&list, r#"{"id":"d000/doc000001.txt","source":"x","kept":"d000/doc000000.txt","jaccard":0.9,"cluster":1}"#).unwrap();
    let file = c.join("d000/doc000001.txt");
    let before = snapshot(dir.path());
    let out = simtui(&["--review", s(&list), s(&c), "--keep-list", s(&file)]);
    refused(&out, "is inside the input", "--keep-list", s(&c));
    let out = simtui(&["--review", s(&list), s(&c), "--keep-list", s(&list)]);
    refused(
        &out,
        "is the same file as --review",
        "--keep-list",
        s(&list),
    );
    let out = simtui(&["--log", s(&file), s(&c)]);
    refused(&out, "is inside the input", "--log", s(&file));
    let out = simtui(&["eval", s(&c), "--write-truth", s(&file)]);
    refused(&out, "is inside the input", "--write-truth", s(&file));
    let truth = dir.path().join("c.truth.jsonl");
    let out = simtui(&[
        "eval",
        s(&c),
        "--truth",
        s(&truth),
        "--write-truth",
        s(&truth),
    ]);
    refused(
        &out,
        "is the same file as --truth",
        "--write-truth",
        s(&truth),
    );
    let out = simtui(&["matrix", s(&c.join("d000")), "-o", s(&file)]);
    refused(&out, "is inside the input", "-o", s(&file));
    assert_eq!(snapshot(dir.path()), before, "nothing changed");
}

/// A second path to the corpus folder (a symbolic link to it; a hard link to a file of
/// it) is the corpus: compared by device and inode, not by name.
#[cfg(unix)]
#[test]
fn a_second_path_to_the_input_is_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = corpus_at(dir.path(), "d", 30);
    let alias = dir.path().join("alias");
    std::os::unix::fs::symlink(&d, &alias).unwrap();
    let hard = dir.path().join("hard.txt");
    fs::hard_link(d.join("d000/doc000001.txt"), &hard).unwrap();
    let before = snapshot(&d);
    // Writing OUT (through the link) from INPUT, refused as inside or the same as it.
    let refused_as = |command: &[&str], out: &Path, input: &Path, how: &str| {
        let args = [command, &[s(input), "-o", s(out)]].concat();
        refused(&simtui(&args), how, s(out), s(input));
    };
    let (o, p) = (alias.join("out"), alias.join("p.jsonl"));
    refused_as(&["dedup", "-t", "0.8"], &o, &d, "is inside the input");
    refused_as(&["pairs"], &p, &d, "is inside the input");
    let one = d.join("d000/doc000001.txt");
    refused_as(&["pairs"], &hard, &one, "is the same file as the input");
    assert_eq!(snapshot(&d), before);
    assert!(!o.exists() && !p.exists());
}

/// Through a bind mount of the corpus folder, `dedup d -o alias/out` and `pairs d -o
/// alias/p.jsonl` wrote into d: the mount has another path and no link to resolve, only
/// the same device and inode. Run in a mount namespace of its own (`unshare`, as root or
/// with user namespaces), so nothing stays mounted; skipped, saying why, where neither
/// is possible.
#[cfg(target_os = "linux")]
#[test]
fn a_bind_mount_of_the_input_is_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = corpus_at(dir.path(), "d", 30);
    let alias = dir.path().join("alias");
    fs::create_dir(&alias).unwrap();
    let before = snapshot(&d);
    let script = r#"mount --bind "$D" "$ALIAS" || exit 99
        "$BIN" dedup "$D" -o "$ALIAS/out" -t 0.8 2>&1; echo "exit $?"
        "$BIN" pairs "$D" -o "$ALIAS/p.jsonl" 2>&1; echo "exit $?""#;
    let mut ran = None;
    for unshare in [
        &["--mount"][..],
        &["--user", "--map-root-user", "--mount"][..],
    ] {
        let out = Command::new("unshare")
            .args(unshare)
            .args(["sh", "-c", script])
            .env("BIN", BIN)
            .env("D", &d)
            .env("ALIAS", &alias)
            .output();
        if let Ok(out) = out
            && out.status.code() != Some(99)
            && out.status.success()
        {
            ran = Some(String::from_utf8_lossy(&out.stdout).into_owned());
            break;
        }
    }
    let Some(said) = ran else {
        eprintln!("skipped: no mount namespace for a bind mount here (unshare --mount failed)");
        return;
    };
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines.len(), 4, "{said}");
    assert!(
        lines[0].contains("is inside the input") && lines[0].contains("alias/out"),
        "{said}"
    );
    assert_eq!(lines[1], "exit 2", "{said}");
    assert!(
        lines[2].contains("is inside the input") && lines[2].contains("alias/p.jsonl"),
        "{said}"
    );
    assert_eq!(lines[3], "exit 2", "{said}");
    assert_eq!(snapshot(&d), before, "nothing written into d");
}

/// `--force` replaced any folder or file at OUT: now only an earlier output of dedup (a
/// folder with its marker, a file with simtui's removal list beside it), never a folder
/// or file of the user's.
#[test]
fn force_replaces_only_an_earlier_output_of_dedup() {
    let (dir, c) = corpus_of_30();
    let mine = dir.path().join("mine");
    fs::create_dir(&mine).unwrap();
    fs::write(mine.join("thesis.txt"), "years of work").unwrap();
    let before = snapshot(&mine);
    let out = simtui(&["dedup", s(&c), "-o", s(&mine), "-t", "0.8", "--force"]);
    refused(&out, "did not write", s(&mine), ".simtui-dedup");
    assert_eq!(snapshot(&mine), before);
    // A removal list that is no removal list is not replaced either.
    let out_dir = dir.path().join("out");
    let list = dir.path().join("out.removed.jsonl");
    fs::write(&list, "my notes\n").unwrap();
    let out = simtui(&["dedup", s(&c), "-o", s(&out_dir), "-t", "0.8", "--force"]);
    refused(&out, "is not a removal list", s(&list), "--force");
    fs::remove_file(&list).unwrap();
    // An earlier output is replaced, again and again.
    for _ in 0..2 {
        let out = simtui(&["dedup", s(&c), "-o", s(&out_dir), "-t", "0.8", "--force"]);
        common::assert_ok(&out);
        assert!(out_dir.join(".simtui-dedup").is_file());
    }
    // One file: replaced only with the removal list dedup wrote beside it.
    let jsonl = dir.path().join("in.jsonl");
    let line = |i: usize| {
        format!(
            "{{\"id\":\"r{i}\",\"text\":\"{}\"}}\n",
            "the same words again and again ".repeat(3 + i % 2)
        )
    };
    fs::write(&jsonl, (0..6).map(line).collect::<String>()).unwrap();
    let theirs = dir.path().join("theirs.jsonl");
    fs::write(&theirs, "precious\n").unwrap();
    let out = simtui(&["dedup", s(&jsonl), "-o", s(&theirs), "-t", "0.8", "--force"]);
    refused(&out, "has no removal list beside it", s(&theirs), "--force");
    assert_eq!(fs::read_to_string(&theirs).unwrap(), "precious\n");
    let clean = dir.path().join("clean.jsonl");
    for _ in 0..2 {
        let out = simtui(&["dedup", s(&jsonl), "-o", s(&clean), "-t", "0.8", "--force"]);
        common::assert_ok(&out);
    }
}

/// `dedup -o link/ --force` (link a symbolic link to an earlier output) failed on the
/// rename and left a whole copy, `.link.simtui-partial.PID`, beside the link: now the
/// folder the link leads to is replaced, the link stays, and nothing else is left.
#[cfg(unix)]
#[test]
fn an_output_through_a_link_is_replaced_where_it_leads_and_leaves_no_copy() {
    let (dir, c) = corpus_of_30();
    let real = dir.path().join("real");
    let first = simtui(&["dedup", s(&c), "-o", s(&real), "-t", "0.8"]);
    assert!(first.status.success());
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let slash = format!("{}/", link.display());
    let out = simtui(&["dedup", s(&c), "-o", &slash, "-t", "0.8", "--force"]);
    common::assert_ok(&out);
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(real.join(".simtui-dedup").is_file());
    let partial: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("simtui-partial"))
        .collect();
    assert!(partial.is_empty(), "{partial:?}");
}

/// A process that has ended: its id, once waited for.
fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// `pairs -o FILE` killed (SIGKILL) left `.FILE.PID.tmp` that no later run removed: the
/// next write of FILE removes the temporary files of processes that are gone (and
/// nothing else).
#[test]
fn temporary_files_of_killed_runs_are_removed_by_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus_at(dir.path(), "c", 20);
    let out = dir.path().join("p.jsonl");
    let dead = dead_pid();
    let stale = dir.path().join(format!(".p.jsonl.{dead}.tmp"));
    let other = dir.path().join(".p.jsonl.mine.tmp");
    fs::write(&stale, "half a run").unwrap();
    fs::write(&other, "not simtui's").unwrap();
    let run = simtui(&["pairs", s(&c), "-o", s(&out)]);
    assert!(run.status.success());
    assert!(!stale.exists(), "the killed run's file is removed");
    assert!(other.exists(), "a file only like one is left alone");
    assert!(out.is_file());
}
