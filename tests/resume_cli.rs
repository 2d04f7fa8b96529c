//! `dedup --resume` and `sketch --resume`: a run over many shards killed (SIGKILL) at
//! random points, again and again, then resumed, writes the same bytes as one run
//! without --resume.

mod common;

use common::ok;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `shards` JSON Lines files of generated documents (near-copies among them, across
/// files too), some ids repeated across files.
fn write_shards(dir: &Path, shards: usize, per: usize) -> PathBuf {
    let generated = simtui_gen::generate(&simtui_gen::GenOptions::sized(shards * per, 3, 150));
    let root = dir.join("shards");
    fs::create_dir_all(&root).unwrap();
    for (n, chunk) in generated.docs.chunks(per).enumerate() {
        let lines: Vec<String> = (chunk.iter().enumerate())
            .map(|(i, d)| {
                // Every 50th id repeats in each file: renamed ID@FILE:LINE across files.
                let id = if i % 50 == 0 {
                    format!("same{i}")
                } else {
                    d.id.clone()
                };
                serde_json::json!({"id": id, "text": d.text}).to_string()
            })
            .collect();
        fs::write(
            root.join(format!("part{n:03}.jsonl")),
            lines.join("\n") + "\n",
        )
        .unwrap();
    }
    root
}

/// Every file under `root` with its bytes, by relative path.
fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    if root.is_file() {
        out.insert(String::new(), fs::read(root).unwrap());
        return out;
    }
    for e in fs::read_dir(root).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        for (k, v) in files(&p) {
            out.insert(format!("{name}/{k}"), v);
        }
    }
    out
}

/// A tiny seeded generator (splitmix64), for the delays.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Runs `args` and kills it with SIGKILL after random delays up to `span`, `kills`
/// times (or until a run completes), then runs it to the end: whether some kill landed.
fn kill_then_finish(args: &[&str], span: Duration, kills: usize, seed: u64) -> usize {
    let mut state = seed;
    let mut landed = 0;
    for _ in 0..kills {
        let delay = Duration::from_micros(next(&mut state) % span.as_micros().max(1) as u64);
        let mut child = Command::new(env!("CARGO_BIN_EXE_simtui"))
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        match child.try_wait().unwrap() {
            Some(status) => {
                assert!(status.success(), "a resumed run failed: {status}");
                return landed;
            }
            None => {
                child.kill().unwrap(); // SIGKILL
                child.wait().unwrap();
                landed += 1;
            }
        }
    }
    ok(args);
    landed
}

fn timed(args: &[&str]) -> Duration {
    let t = Instant::now();
    ok(args);
    t.elapsed()
}

/// `command` over 24 shards, run whole once, then for three seeds killed again and again
/// with `--resume` until it finishes: the same files as the whole run (and what `same`
/// checks besides), no journal left, and at least one kill landed.
fn killed_and_resumed_is_whole(command: &str, flags: &[&str], same: impl Fn(&Path, &Path)) {
    let dir = tempfile::tempdir().unwrap();
    let shards = write_shards(dir.path(), 24, 300);
    let whole = dir.path().join("whole");
    let span = timed(&[&[command, s(&shards), "-o", s(&whole)][..], flags].concat());
    let mut kills = 0;
    for seed in 1..=3u64 {
        let out = dir.path().join(format!("out{seed}"));
        let args = [&[command, s(&shards), "-o", s(&out), "--resume"][..], flags].concat();
        let landed = kill_then_finish(&args, span, 6, seed);
        kills += landed;
        assert_eq!(files(&out), files(&whole), "seed {seed} ({landed} kills)");
        same(&out, &whole);
        let journal = dir.path().join(format!(".out{seed}.simtui-resume"));
        assert!(!journal.exists(), "{journal:?} left");
    }
    assert!(kills > 0, "no kill landed before a run completed");
}

#[test]
fn dedup_killed_again_and_again_then_resumed_writes_the_same_bytes() {
    let removed = |out: &Path| {
        fs::read(out.with_file_name(format!(
            "{}.removed.jsonl",
            out.file_name().unwrap().to_str().unwrap()
        )))
        .unwrap()
    };
    let flags = ["-t", "0.7", "--text-field", "text", "--id-field", "id"];
    killed_and_resumed_is_whole("dedup", &flags, |out, whole| {
        assert!(!removed(whole).is_empty(), "the test needs removals");
        assert_eq!(removed(out), removed(whole));
    });
}

#[test]
fn sketch_killed_again_and_again_then_resumed_writes_the_same_bytes() {
    let flags = ["--text-field", "text", "--id-field", "id"];
    killed_and_resumed_is_whole("sketch", &flags, |_, _| {});
}

#[test]
fn a_journal_of_other_flags_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let shards = write_shards(dir.path(), 3, 40);
    let out = dir.path().join("out");
    let journal = dir.path().join(".out.simtui-resume");
    fs::create_dir_all(&journal).unwrap();
    fs::write(
        journal.join("state.json"),
        r#"{"key":"0","units":3,"done":1}"#,
    )
    .unwrap();
    let run = common::simtui(&["sketch", s(&shards), "-o", s(&out), "--resume"]);
    assert_eq!(run.status.code(), Some(2));
    common::assert_stderr_has(&run, &["other inputs or flags"]);
}

/// A run killed after it removed its journal leaves its sketch whole and no journal: a
/// `--resume` of the same settings sketches it again (the same bytes, a note on stderr);
/// of other settings, or with another file in the folder, it refuses as before.
#[test]
fn a_finished_sketch_without_its_journal_is_sketched_again_not_refused() {
    let dir = tempfile::tempdir().unwrap();
    let shards = write_shards(dir.path(), 3, 40);
    let out = dir.path().join("out");
    let flags = ["--text-field", "text", "--id-field", "id"];
    let args = |extra: &[&'static str]| {
        let mut a = vec!["sketch", s(&shards), "-o", s(&out)];
        a.extend_from_slice(&flags);
        a.extend_from_slice(extra);
        a
    };
    ok(&args(&[]));
    let whole = files(&out);
    let again = common::simtui(&args(&["--resume"]));
    common::assert_ok_saying(&again, &["a finished sketch of these settings"]);
    assert_eq!(files(&out), whole);
    assert!(!dir.path().join(".out.simtui-resume").exists());

    let other = common::simtui(&args(&["--resume", "-k", "3"]));
    assert_eq!(other.status.code(), Some(2));
    common::assert_stderr_has(&other, &["not empty"]);
    let jsonl = common::simtui(&args(&["--resume", "--format", "jsonl"]));
    assert_eq!(jsonl.status.code(), Some(2));
    fs::write(out.join("notes.txt"), "mine").unwrap();
    let with_mine = common::simtui(&args(&["--resume"]));
    assert_eq!(with_mine.status.code(), Some(2));
    let mut kept = files(&out);
    assert_eq!(kept.remove("notes.txt/").as_deref(), Some(&b"mine"[..]));
    assert_eq!(kept, whole, "a refused --resume removed the sketch");
}

/// The same for `dedup`: an output of dedup at OUT with no journal beside it is written
/// again by `--resume` (the same bytes); a folder dedup did not write is refused.
#[test]
fn a_finished_dedup_without_its_journal_is_written_again_not_refused() {
    let dir = tempfile::tempdir().unwrap();
    let shards = write_shards(dir.path(), 3, 40);
    let out = dir.path().join("out");
    let run = |o: &Path| {
        let flags = [
            "-t",
            "0.7",
            "--text-field",
            "text",
            "--id-field",
            "id",
            "--resume",
        ];
        common::simtui(&[&["dedup", s(&shards), "-o", s(o)][..], &flags].concat())
    };
    common::assert_ok(&run(&out));
    let whole = files(&out);
    let list = dir.path().join("out.removed.jsonl");
    let removed = fs::read(&list).unwrap();
    let again = run(&out);
    common::assert_ok_saying(&again, &["no journal beside it"]);
    assert_eq!(files(&out), whole);
    assert_eq!(fs::read(&list).unwrap(), removed);

    let mine = dir.path().join("mine");
    fs::create_dir_all(&mine).unwrap();
    fs::write(mine.join("notes.txt"), "mine").unwrap();
    let refused = run(&mine);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(fs::read_to_string(mine.join("notes.txt")).unwrap(), "mine");
}
