//! `simtui index NEW --add FILE` run again and again: the index gives the answers of
//! indexing everything at once, each add only appends to the file, and an add killed
//! at any moment leaves the index as it was before (the bytes it wrote after the last
//! complete segment ignored, then cut off by the next add).

mod common;

use common::{Corpus, ok, simtui};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The generated corpus dealt into `parts` folders (document i into folder i % parts),
/// the first document also copied into the second folder under its id (so its id clashes
/// across folders); the folders.
fn parts(dir: &Path, docs: usize, parts: usize) -> Vec<PathBuf> {
    let corpus = Corpus::new(&dir.join("all"), docs, 21);
    let roots: Vec<PathBuf> = (0..parts).map(|k| dir.join(format!("p{k}"))).collect();
    for (i, d) in corpus.generated.docs.iter().enumerate() {
        let mut targets = vec![&roots[i % parts]];
        if i == 0 {
            targets.push(&roots[1]);
        }
        for root in targets {
            let to = root.join(&d.id);
            fs::create_dir_all(to.parent().unwrap()).unwrap();
            fs::copy(corpus.file(&d.id), &to).unwrap();
        }
    }
    // Stamps are saved only for files older than the run.
    std::thread::sleep(Duration::from_millis(250));
    roots
}

/// 40 documents in two folders, the first indexed as `x.idx`.
fn first_part_indexed() -> (tempfile::TempDir, Vec<PathBuf>, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let roots = parts(dir.path(), 40, 2);
    let idx = dir.path().join("x.idx");
    ok(&["index", s(&roots[0]), "-o", s(&idx)]);
    (dir, roots, idx)
}

/// What the searching commands answer from the index `idx` of the folders `roots`.
fn answers(roots: &[PathBuf], idx: &Path, query_dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for cmd in [&["pairs", "-t", "0.3"][..], &["clusters", "-t", "0.5"][..]] {
        let mut args: Vec<&str> = cmd.to_vec();
        args.extend(roots.iter().map(|r| s(r)));
        args.extend(["--index", s(idx), "--format", "jsonl"]);
        out.push(ok(&args));
    }
    let against = common::pairs_jsonl(s(query_dir), &["--against", s(idx), "-t", "0.3"]);
    out.push(common::stdout_of(against));
    out
}

#[test]
fn successive_adds_give_the_answers_of_one_index_and_only_append() {
    let dir = tempfile::tempdir().unwrap();
    let roots = parts(dir.path(), 160, 4);
    let (added, whole) = (dir.path().join("added.idx"), dir.path().join("whole.idx"));
    ok(&["index", s(&roots[0]), "-o", s(&added)]);
    for root in &roots[1..] {
        let before = fs::read(&added).unwrap();
        let out = simtui(&["index", s(root), "--add", s(&added)]);
        common::assert_ok_saying(&out, &["documents added to"]);
        let after = fs::read(&added).unwrap();
        assert!(after.len() > before.len());
        assert!(after.starts_with(&before), "an add rewrote what was saved");
    }
    let mut all: Vec<&str> = vec!["index"];
    all.extend(roots.iter().map(|r| s(r)));
    all.extend(["-o", s(&whole)]);
    ok(&all);
    let q = dir.path().join("q");
    fs::create_dir_all(&q).unwrap();
    let first = fs::read_dir(roots[2].join("d000")).unwrap().next().unwrap();
    fs::copy(first.unwrap().path(), q.join("q.txt")).unwrap();
    let from_added = answers(&roots, &added, &q);
    assert_eq!(from_added, answers(&roots, &whole, &q));
    assert!(from_added.iter().all(|a| !a.is_empty()), "{from_added:?}");
    // The searching commands did not need to write the added index again.
    let mut fresh: Vec<&str> = vec!["pairs", "-t", "0.3", "--format", "jsonl"];
    fresh.extend(roots.iter().map(|r| s(r)));
    assert_eq!(from_added[0], ok(&fresh));
}

/// An add killed partway: each of the bytes it may have written by then, a prefix of
/// the file it writes. The index reads as before, says so, and the next add cuts the
/// tail off and writes the same file as an add never killed.
#[test]
fn an_add_cut_short_anywhere_leaves_the_index_as_it_was() {
    let (dir, roots, idx) = first_part_indexed();
    let before = fs::read(&idx).unwrap();
    let added = dir.path().join("added.idx");
    fs::copy(&idx, &added).unwrap();
    ok(&["index", s(&roots[1]), "--add", s(&added)]);
    let after = fs::read(&added).unwrap();
    let only_first = |file: &Path| ok(&["pairs", s(&roots[0]), "--index", s(file), "-t", "0.2"]);
    let expected = only_first(&idx);
    let cut = dir.path().join("cut.idx");
    let span = after.len() - before.len();
    let mut ends: Vec<usize> = (1..span).step_by(span / 23 + 1).collect();
    ends.extend([1, 7, 8, span - 64, span - 32, span - 8, span - 1]);
    // `-t 0.2` bands with another OPH width than the file's: sketched for the run, the
    // file (and its tail, for the add to cut off) left as it is.
    for n in ends {
        fs::write(&cut, &after[..before.len() + n]).unwrap();
        let out = simtui(&["pairs", s(&roots[0]), "--index", s(&cut), "-t", "0.2"]);
        common::assert_stderr_has(
            &out,
            &[&format!("{n} bytes after its last complete segment")],
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            expected,
            "cut at +{n}"
        );
        let out = simtui(&["index", s(&roots[1]), "--add", s(&cut)]);
        let said = format!("cut off {n} bytes");
        common::assert_ok_saying(&out, &[said.as_str()]);
        assert!(
            fs::read(&cut).unwrap() == after,
            "re-added after a cut at +{n}"
        );
    }
    // A reference with such a tail (`--against`) is read as it was, and says so too.
    fs::write(&cut, &after[..before.len() + 7]).unwrap();
    let out = common::pairs_jsonl(s(&roots[1]), &["--against", s(&cut), "-t", "0.2"]);
    common::assert_ok_saying(&out, &["7 bytes after its last complete segment"]);
    // Zeros where the new bytes were (a crash before they reached the disk).
    let mut zeros = before.clone();
    zeros.resize(after.len(), 0);
    fs::write(&cut, &zeros).unwrap();
    assert_eq!(only_first(&cut), expected);
}

/// A real kill (SIGKILL) of `index --add` at times spread over its run: whatever it had
/// written, the next add writes the file an add never killed writes.
#[test]
fn a_killed_add_then_the_add_again_gives_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let roots = parts(dir.path(), 400, 2);
    let base = dir.path().join("base.idx");
    ok(&["index", s(&roots[0]), "-o", s(&base)]);
    let reference = dir.path().join("ref.idx");
    fs::copy(&base, &reference).unwrap();
    let t = std::time::Instant::now();
    ok(&["index", s(&roots[1]), "--add", s(&reference)]);
    let took = t.elapsed();
    let after = fs::read(&reference).unwrap();
    let idx = dir.path().join("x.idx");
    for k in 0..8u32 {
        fs::copy(&base, &idx).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_simtui"))
            .args(["index", s(&roots[1]), "--add", s(&idx)])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(took * k / 7);
        let _ = child.kill();
        child.wait().unwrap();
        let out = simtui(&["index", s(&roots[1]), "--add", s(&idx)]);
        let done = String::from_utf8_lossy(&out.stderr).contains("in the index");
        assert!(out.status.success() || done, "kill {k}: {out:?}");
        assert!(fs::read(&idx).unwrap() == after, "kill {k}");
    }
}

#[test]
fn a_format_5_index_is_read_and_converted_once_by_add() {
    let (dir, roots, idx) = first_part_indexed();
    // The same index in format 5: its one segment without the directory.
    let v6 = fs::read(&idx).unwrap();
    let mut v5 = v6[..v6.len() - 64].to_vec();
    v5[8..12].copy_from_slice(&5u32.to_le_bytes());
    simtui_engine::store::decode::reseal(&mut v5);
    fs::write(&idx, &v5).unwrap();
    // Read as it is (another OPH width is sketched for the run, never saved): still
    // format 5 for the add to convert.
    let first = ok(&["pairs", s(&roots[0]), "--index", s(&idx), "-t", "0.2"]);
    let out = simtui(&["index", s(&roots[1]), "--add", s(&idx)]);
    common::assert_ok_saying(&out, &["converted from index format 5"]);
    let out = simtui(&["index", s(&roots[1]), "--add", s(&idx)]);
    common::assert_stderr_has(&out, &["in the index"]);
    let whole = dir.path().join("whole.idx");
    ok(&["index", s(&roots[0]), s(&roots[1]), "-o", s(&whole)]);
    let both = |f: &Path| {
        ok(&[
            "pairs",
            s(&roots[0]),
            s(&roots[1]),
            "--index",
            s(f),
            "-t",
            "0.2",
        ])
    };
    assert_eq!(both(&idx), both(&whole));
    assert_eq!(ok(&["pairs", s(&roots[0]), "-t", "0.2"]), first);
}
