//! The saved index (`simtui index`, `--index FILE`): a round trip and an incremental
//! update give what a fresh run gives; bad files are rejected with exit code 2; the
//! reader never panics on any input.

mod common;

use common::{Corpus, ok, simtui, unprivileged};
use proptest::prelude::*;
use simtui_engine::store::decode;
use simtui_engine::store::format::{self, FormatError};
use std::fs;
use std::path::Path;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// pairs, clusters and query output of a run, as text (JSON Lines).
fn outputs(corpus: &str, extra: &[&str]) -> [String; 3] {
    let run = |cmd: &[&str]| {
        let mut args = cmd.to_vec();
        args.extend_from_slice(extra);
        ok(&args)
    };
    [
        run(&["pairs", corpus, "-t", "0.2", "--format", "jsonl"]),
        run(&["clusters", corpus, "-t", "0.5", "--format", "jsonl"]),
        run(&["query", corpus, &id(3), "-n", "5", "--format", "jsonl"]),
    ]
}

/// The id of generated document `i`.
fn id(i: usize) -> String {
    format!("d000/doc{i:06}.txt")
}

fn small_corpus(dir: &Path) -> Corpus {
    let c = Corpus::new(dir, 60, 11);
    settle_times();
    c
}

/// A new folder with the small corpus, and where its index goes (`c.idx` beside it).
fn corpus_and_index() -> (tempfile::TempDir, Corpus, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let c = small_corpus(dir.path());
    let idx = dir.path().join("c.idx");
    (dir, c, idx)
}

/// Waits until the files just written are older than what a saved index reads again
/// (a file modified within 0.1 s before an index run has no stamp saved: it is read
/// again next time, since an edit later in its clock tick could leave its times as
/// they were).
fn settle_times() {
    std::thread::sleep(std::time::Duration::from_millis(250));
}

#[test]
fn round_trip_is_identical_to_a_fresh_run() {
    let (_dir, c, idx) = corpus_and_index();
    ok(&["index", c.path(), "-o", s(&idx)]);
    let fresh = outputs(c.path(), &[]);
    assert!(fresh[0].lines().count() > 5, "{}", fresh[0]);
    let saved = outputs(c.path(), &["--index", s(&idx)]);
    assert_eq!(fresh, saved);
    // Nothing changed: the file is not rewritten.
    let before = fs::read(&idx).unwrap();
    let out = simtui(&["pairs", c.path(), "--index", s(&idx), "-v"]);
    common::assert_stderr_has(
        &out,
        &["60 unchanged, 0 touched, 0 changed, 0 added, 0 deleted"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("written"), "{err}");
    assert_eq!(before, fs::read(&idx).unwrap());
}

/// A search whose banding needs one-permutation signatures of another width than the
/// file's sketches them for its run and leaves the file as it is (it was rewritten in
/// the new width at every change of `-t`); `simtui index` saves the width asked for.
#[test]
fn a_search_of_another_width_leaves_the_file_as_it_is() {
    let (_dir, c, idx) = corpus_and_index();
    ok(&["index", c.path(), "-o", s(&idx), "--sketch", "oph"]);
    let before = fs::read(&idx).unwrap();
    for t in ["0.2", "0.5", "0.9"] {
        let args = [
            "pairs",
            c.path(),
            "-t",
            t,
            "--sketch",
            "oph",
            "--format",
            "jsonl",
        ];
        let fresh = ok(&args);
        let out = simtui(&[&args[..], &["--index", s(&idx), "-v"]].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(String::from_utf8_lossy(&out.stdout), fresh, "-t {t}: {err}");
        assert!(!err.contains("written"), "-t {t}: {err}");
        assert_eq!(before, fs::read(&idx).unwrap(), "-t {t} rewrote the index");
    }
    let out = simtui(&[
        "index",
        c.path(),
        "-o",
        s(&idx),
        "--sketch",
        "oph",
        "-b",
        "57",
        "-r",
        "2",
    ]);
    common::assert_ok_saying(&out, &["written"]);
    assert_ne!(
        before,
        fs::read(&idx).unwrap(),
        "index saves the width asked for"
    );
}

#[test]
fn incremental_update_equals_a_fresh_run_on_the_new_corpus() {
    let (_dir, c, idx) = corpus_and_index();
    ok(&["index", c.path(), "-o", s(&idx)]);
    // Add (a copy of one document and a new one), change, delete, touch.
    fs::write(c.root.join("added.txt"), c.text(&id(1))).unwrap();
    fs::write(
        c.root.join("new.txt"),
        "a brand new document with words never seen before in this corpus at all",
    )
    .unwrap();
    let changed = format!("{} and a few more words at the end", c.text(&id(2)));
    fs::write(c.file(&id(2)), changed).unwrap();
    fs::remove_file(c.file(&id(4))).unwrap();
    let touched = c.file(&id(5));
    let text = fs::read(&touched).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    fs::write(&touched, text).unwrap();
    settle_times();

    let fresh = outputs(c.path(), &[]);
    let out = simtui(&["pairs", c.path(), "--index", s(&idx), "-v"]);
    common::assert_stderr_has(
        &out,
        &[
            "57 unchanged, 1 touched, 1 changed, 2 added, 1 deleted",
            "written",
        ],
    );
    assert_eq!(fresh, outputs(c.path(), &["--index", s(&idx)]));
    // The update was saved: nothing to do now.
    let out = simtui(&["pairs", c.path(), "--index", s(&idx), "-v"]);
    common::assert_stderr_has(
        &out,
        &["61 unchanged, 0 touched, 0 changed, 0 added, 0 deleted"],
    );
}

/// Each saved document's id and title, in order.
fn saved_titles(idx: &Path) -> Vec<(String, String)> {
    let saved = decode::decode(&fs::read(idx).unwrap()).unwrap();
    let titled = |d: &format::DocRec| (d.id.clone(), d.title().to_string());
    saved.docs.iter().map(titled).collect()
}

/// `pairs` prints no titles, so it opens a saved index without them (they stay in the
/// file); every time it writes the file again (a file touched, more hash functions, a
/// file changed), the file still holds every title, those a fresh index holds.
#[test]
fn a_search_that_keeps_no_titles_writes_every_title_back() {
    let (dir, c, idx) = corpus_and_index();
    let fresh_idx = dir.path().join("fresh.idx");
    let banding = ["--sketch", "minhash", "-b", "8", "-r", "4"];
    ok(&[&["index", c.path(), "-o", s(&idx)][..], &banding].concat());
    let step = |what: &str, banding: &[&str], said: &str| {
        let args = [&["pairs", c.path(), "--index", s(&idx), "-v"][..], banding].concat();
        common::assert_stderr_has(&simtui(&args), &[said, "written"]);
        let _ = fs::remove_file(&fresh_idx);
        ok(&[&["index", c.path(), "-o", s(&fresh_idx)][..], banding].concat());
        let (titles, fresh) = (saved_titles(&idx), saved_titles(&fresh_idx));
        assert!(
            fresh.iter().all(|(_, t)| !t.is_empty()),
            "{what}: {fresh:?}"
        );
        assert_eq!(titles, fresh, "{what}");
    };
    // Every file reused as it is (one touched): the titles read back from the file.
    let touched = c.file(&id(5));
    let text = fs::read(&touched).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    fs::write(&touched, text).unwrap();
    settle_times();
    step("touched", &banding, "1 touched");
    // Every file unchanged, more hash functions computed and saved.
    let wider = ["--sketch", "minhash", "-b", "16", "-r", "4"];
    step("wider", &wider, "60 unchanged");
    // A file changed, merged with the saved documents.
    let changed = format!("A new first line\n{}", c.text(&id(2)));
    fs::write(c.file(&id(2)), changed).unwrap();
    settle_times();
    step("changed", &wider, "1 changed");
}

/// Sets a file's or folder's permission bits.
#[cfg(unix)]
fn mode(p: &Path, m: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(p, fs::Permissions::from_mode(m)).unwrap();
}

/// A small corpus that the user `nobody` can read and write in (for the runs where
/// permissions must bite: see `unprivileged`); None, and the test says it is skipped,
/// when simtui can't be run as nobody.
#[cfg(unix)]
fn corpus_for_nobody() -> Option<(tempfile::TempDir, Corpus)> {
    if unprivileged().is_none() {
        println!("skipped: running as root and `setpriv` cannot drop to nobody");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    mode(dir.path(), 0o777);
    let c = small_corpus(dir.path());
    for e in walkdir::WalkDir::new(&c.root) {
        let e = e.unwrap();
        mode(e.path(), if e.file_type().is_dir() { 0o777 } else { 0o644 });
    }
    settle_times();
    Some((dir, c))
}

/// Issue 20, item 3: a file that could not be read when the index was saved is read
/// once it can be (a permission restored changes its status-change time, not its
/// modification time): the results are those of a fresh run.
#[cfg(unix)]
#[test]
fn a_file_unreadable_when_indexed_is_read_once_it_can_be() {
    let Some((dir, c)) = corpus_for_nobody() else {
        return;
    };
    let idx = dir.path().join("c.idx");
    let run = |args: &[&str]| {
        let mut cmd = unprivileged().expect("checked above");
        let out = cmd.arg("--no-config").args(args).output().unwrap();
        common::assert_ok(&out);
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let pairs = ["pairs", c.path(), "-t", "0.2", "--format", "jsonl"];
    let fresh = run(&pairs).0;
    // A document that pairs with another: unreadable when the index is saved.
    let first: serde_json::Value = serde_json::from_str(fresh.lines().next().unwrap()).unwrap();
    let locked = c.file(first["a"].as_str().unwrap());
    mode(&locked, 0o000);
    let (_, err) = run(&["index", c.path(), "-o", s(&idx), "-v"]);
    assert!(err.contains("unreadable"), "{err}");
    mode(&locked, 0o644);
    let (saved, err) = run(&[&pairs[..], &["--index", s(&idx), "-v"]].concat());
    assert_eq!(saved, fresh, "{err}");
    assert!(err.contains("1 changed"), "{err}");
}

/// Issue 20, item 3: a file rewritten at the same size with its old modification time
/// put back is read again (its status-change time moved): no stale shingles.
#[test]
fn a_same_size_rewrite_with_the_old_time_put_back_is_read_again() {
    let (_dir, c, idx) = corpus_and_index();
    let before = outputs(c.path(), &[]);
    ok(&["index", c.path(), "-o", s(&idx)]);
    // A document that pairs with another, so that the change shows.
    let first: serde_json::Value = serde_json::from_str(before[0].lines().next().unwrap()).unwrap();
    let path = c.file(first["a"].as_str().unwrap());
    let old = fs::metadata(&path).unwrap().modified().unwrap();
    // The same length, other words: the text of another document, cut or padded.
    let len = fs::metadata(&path).unwrap().len() as usize;
    let mut other: String = "quite unrelated words ".repeat(len / 22 + 1);
    other.truncate(len);
    std::thread::sleep(std::time::Duration::from_millis(20));
    fs::write(&path, &other).unwrap();
    fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(old)
        .unwrap();
    assert_eq!(fs::metadata(&path).unwrap().len() as usize, len);
    let fresh = outputs(c.path(), &[]);
    assert_ne!(fresh, before, "the rewrite changes the results");
    assert_eq!(fresh, outputs(c.path(), &["--index", s(&idx)]));
}

#[test]
fn other_parameters_rebuild_and_more_hash_functions_are_computed() {
    let (_dir, c, idx) = corpus_and_index();
    ok(&["index", c.path(), "-o", s(&idx), "-b", "8", "-r", "4"]);
    // b·r = 128 > 32 saved: computed from the saved shingle sets, same as fresh.
    assert_eq!(
        outputs(c.path(), &[]),
        outputs(c.path(), &["--index", s(&idx)])
    );
    // Fewer than saved: the first b·r are used, as a fresh run computes them.
    let few = ["-b", "4", "-r", "2"];
    let mut with_index = few.to_vec();
    with_index.extend(["--index", s(&idx)]);
    assert_eq!(outputs(c.path(), &few), outputs(c.path(), &with_index));
    // Another k: said, rebuilt, saved.
    let out = simtui(&["pairs", c.path(), "--index", s(&idx), "-k", "3"]);
    common::assert_ok_saying(&out, &["built with k = 5 (asked for 3); rebuilt"]);
    assert_eq!(
        outputs(c.path(), &["-k", "3"]),
        outputs(c.path(), &["-k", "3", "--index", s(&idx)])
    );
    // OPH of another width is recomputed.
    let oph = ["--sketch", "oph", "-b", "8", "-r", "2"];
    let mut with_index = oph.to_vec();
    with_index.extend(["--index", s(&idx)]);
    assert_eq!(outputs(c.path(), &oph), outputs(c.path(), &with_index));
}

#[test]
fn the_index_in_the_folder_is_found_and_never_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let c = small_corpus(dir.path());
    ok(&["index", c.path()]);
    let auto = c.root.join(".simtui-index");
    assert!(auto.is_file());
    let out = simtui(&["pairs", c.path(), "-v", "--hidden"]);
    common::assert_stderr_has(&out, &[".simtui-index", "60 unchanged"]);
    let ids = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(!ids.contains("simtui-index"));
    let out = simtui(&["pairs", c.path(), "-v", "--no-index"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("unchanged"));
    // Without -o and not one folder: a usage error.
    let out = simtui(&["index", c.path(), c.path()]);
    assert_eq!(out.status.code(), Some(2));
}

/// A corpus named by a relative path is saved by its files' absolute paths (the table
/// holds each path once, as walked, and writes it absolute): the same index is reused
/// whatever the spelling or the folder it is named from, and its update by a relative
/// path reads only what changed.
#[test]
fn a_corpus_named_by_a_relative_path_is_saved_by_absolute_paths() {
    let dir = tempfile::tempdir().unwrap();
    let c = small_corpus(dir.path());
    let name = c.root.file_name().unwrap().to_str().unwrap().to_string();
    let idx = dir.path().join("c.idx");
    let run = |cwd: &Path, args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_simtui"))
            .current_dir(cwd)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        out
    };
    run(dir.path(), &["index", &name, "-o", s(&idx)]);
    let saved = fs::read(&idx).unwrap();
    let listed = String::from_utf8_lossy(&saved);
    assert!(
        listed.contains(&format!("{}/", s(&c.root))),
        "absolute paths saved"
    );
    let inner = c.root.join("d000");
    // Not `..`: made absolute lexically (a link's `..` is not its parent's folder), a
    // path through it is another path.
    let spellings: [(&Path, String); 3] = [
        (dir.path(), format!("./{name}")),
        (dir.path(), format!("{name}/")),
        (Path::new("/"), s(&c.root).to_string()),
    ];
    for (cwd, root) in &spellings {
        let out = run(cwd, &["pairs", root, "--index", s(&idx), "-v"]);
        common::assert_stderr_has(&out, &["60 unchanged, 0 touched, 0 changed"]);
        assert_eq!(
            fs::read(&idx).unwrap(),
            saved,
            "{root} from {cwd:?}: not written"
        );
    }
    fs::write(inner.join("doc000003.txt"), "another text altogether").unwrap();
    settle_times();
    let out = run(dir.path(), &["pairs", &name, "--index", s(&idx), "-v"]);
    common::assert_stderr_has(&out, &["59 unchanged, 0 touched, 1 changed"]);
    let out = run(
        Path::new("/"),
        &["pairs", s(&c.root), "--index", s(&idx), "-v"],
    );
    common::assert_stderr_has(&out, &["60 unchanged"]);
}

/// Roots spelled otherwise with several of them (each document's id begins with its
/// root's name): every file is reused, the ids change, and the index is written again
/// with the saved files' records (not held while it was opened: read again from the
/// file). Spelled back, it is written again as it first was, byte for byte.
#[test]
fn roots_spelled_otherwise_rewrite_the_ids_and_keep_every_file_record() {
    let dir = tempfile::tempdir().unwrap();
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    fs::create_dir_all(&one).unwrap();
    fs::create_dir_all(&two).unwrap();
    Corpus::new(&one, 30, 5);
    Corpus::new(&two, 30, 6);
    settle_times();
    let idx = dir.path().join("c.idx");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_simtui"))
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        out
    };
    let roots = ["one/corpus", "two/corpus"];
    run(&["index", roots[0], roots[1], "-o", s(&idx)]);
    let first = fs::read(&idx).unwrap();
    let (a, b) = (format!("./{}", roots[0]), format!("./{}", roots[1]));
    let out = run(&["pairs", &a, &b, "--index", s(&idx), "-v"]);
    common::assert_stderr_has(&out, &["60 unchanged, 0 touched, 0 changed", "written"]);
    let respelled = fs::read(&idx).unwrap();
    assert_ne!(respelled, first, "the ids are the new spelling's");
    let ids = String::from_utf8_lossy(&respelled);
    assert!(ids.contains("./one/corpus/"), "ids as spelled now");
    let out = run(&["pairs", roots[0], roots[1], "--index", s(&idx), "-v"]);
    common::assert_stderr_has(&out, &["60 unchanged, 0 touched, 0 changed", "written"]);
    assert_eq!(fs::read(&idx).unwrap(), first, "every file record kept");
    // The same from a file of format 5 (one segment, no directory, no head of its own):
    // its records are read again whole, and it is written in this format.
    let mut v5 = first[..first.len() - 64].to_vec();
    v5[8..12].copy_from_slice(&5u32.to_le_bytes());
    decode::reseal(&mut v5);
    fs::write(&idx, &v5).unwrap();
    let out = run(&["pairs", &a, &b, "--index", s(&idx), "-v"]);
    common::assert_stderr_has(&out, &["60 unchanged, 0 touched, 0 changed", "written"]);
    assert_eq!(
        fs::read(&idx).unwrap(),
        respelled,
        "format 5 read and written again"
    );
}

/// A small valid index file and its corpus.
fn small_index(dir: &Path) -> (String, std::path::PathBuf, Vec<u8>) {
    let root = dir.join("c");
    fs::create_dir(&root).unwrap();
    for (name, text) in [
        ("a.txt", "one two three four five six seven eight nine ten"),
        (
            "b.txt",
            "one two three four five six seven eight nine eleven",
        ),
        ("c.txt", "one two three four five six seven eight nine ten"),
    ] {
        fs::write(root.join(name), text).unwrap();
    }
    let idx = dir.join("c.idx");
    ok(&["index", s(&root), "-o", s(&idx), "-b", "2", "-r", "2"]);
    let bytes = fs::read(&idx).unwrap();
    (s(&root).to_string(), idx, bytes)
}

fn assert_rejected(corpus: &str, idx: &Path, what: &str) {
    let out = simtui(&["pairs", corpus, "--index", s(idx), "-b", "2", "-r", "2"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    assert!(out.stdout.is_empty(), "{what}");
    assert!(err.contains("index file"), "{what}: {err}");
    assert!(!err.contains("panicked"), "{what}: {err}");
}

#[test]
fn corrupt_truncated_and_other_version_files_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, idx, good) = small_index(dir.path());
    // Every prefix, in process: truncated (or not an index), never anything else.
    for n in 0..good.len() {
        match decode::decode(&good[..n]) {
            Err(FormatError::Truncated { .. }) => {}
            other => panic!("prefix {n}: {other:?}"),
        }
    }
    // Every single bit flip, in process: rejected.
    for i in 0..good.len() {
        for bit in 0..8 {
            let mut b = good.clone();
            b[i] ^= 1 << bit;
            assert!(decode::decode(&b).is_err(), "flip {i}.{bit}");
        }
    }
    // A sample through the binary.
    let bad = dir.path().join("bad.idx");
    for n in [0, 7, 8, 50, 96, 104, good.len() / 2, good.len() - 1] {
        fs::write(&bad, &good[..n]).unwrap();
        assert_rejected(&corpus, &bad, &format!("prefix {n}"));
    }
    for i in [0, 9, 30, 100, good.len() / 2, good.len() - 1] {
        let mut b = good.clone();
        b[i] ^= 0x10;
        fs::write(&bad, &b).unwrap();
        assert_rejected(&corpus, &bad, &format!("flip at {i}"));
    }
    let mut other = good.clone();
    other[8] = 4; // the format before the header held the stemmer and letters-only
    fs::write(&bad, &other).unwrap();
    assert_rejected(&corpus, &bad, "version 4");
    let err = String::from_utf8_lossy(&simtui(&["pairs", &corpus, "--index", s(&bad)]).stderr)
        .to_string();
    assert!(
        err.contains(
            "another version of simtui (index format 4; this simtui reads formats 5 to 6)"
        ),
        "{err}"
    );
    fs::write(&bad, b"hello, not an index at all").unwrap();
    assert_rejected(&corpus, &bad, "not an index");
    // The explorer checks it before it needs a terminal.
    let out = simtui(&[&corpus, "--index", s(&bad)]);
    assert_eq!(out.status.code(), Some(2));
    // `index -o` refuses to overwrite what is not an index, and rebuilds a broken one.
    let out = simtui(&["index", &corpus, "-o", s(&bad)]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(fs::read(&bad).unwrap(), b"hello, not an index at all");
    fs::write(&bad, &good[..good.len() / 2]).unwrap();
    let out = simtui(&["index", &corpus, "-o", s(&bad), "-b", "2", "-r", "2"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("truncated"));
    assert_eq!(fs::read(&bad).unwrap().len(), good.len());
    // The good one still works.
    ok(&["pairs", &corpus, "--index", s(&idx), "-b", "2", "-r", "2"]);
}

fn valid_index() -> Vec<u8> {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            small_index(dir.path()).2
        })
        .clone()
}

proptest! {
    // PROPTEST_CASES sets the number of cases (256 by default).
    #[test]
    fn the_reader_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = decode::decode(&bytes);
        let mut framed = format::MAGIC.to_vec();
        framed.extend_from_slice(&bytes);
        let _ = decode::decode(&framed);
        decode::reseal(&mut framed);
        let _ = decode::decode(&framed);
    }

    #[test]
    fn the_reader_never_panics_on_mutated_files(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut b = valid_index();
        for (at, v) in &edits {
            let i = at.index(b.len());
            b[i] = *v;
        }
        if truncate {
            b.truncate(cut.index(b.len()));
        }
        // Past the checksum too: the structure checks must hold on their own.
        let _ = decode::decode(&b);
        decode::reseal(&mut b);
        if let Ok(saved) = decode::decode(&b) {
            // Whatever decodes is safe to turn into an index and search.
            let docs = saved.docs.iter().map(|d| {
                let source = simtui_engine::source::Source::Memory("".into());
                simtui_engine::index::Doc::new(d.id.clone(), source, d.bytes, d.tokens, d.group)
                    .labelled(d.title().to_string(), d.meta().to_vec())
            }).collect();
            let w = saved.signatures.width();
            let parts = simtui_engine::index::Parts {
                docs,
                skipped: Vec::new(),
                shingles: saved.shingles,
                signatures: saved.signatures,
                contents: saved.contents,
            };
            let index = simtui_engine::index::IndexBuilder::new(&saved.params).from_parts(parts);
            if w > 0 {
                let _ = index.find(1, 1, 0.0, &simtui_engine::progress::Silent);
            }
        }
    }
}

/// JSON Lines records of generated text: `n` lines, record `i` with the words of `seed + i`.
fn jsonl_lines(words: &[Vec<String>]) -> String {
    words
        .iter()
        .map(|w| format!("{}\n", serde_json::json!({ "text": w.join(" ") })))
        .collect()
}

#[test]
fn json_lines_records_are_saved_and_updated_like_files() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    fs::create_dir(&c).unwrap();
    // 40 base texts of 60 words; near-duplicates across and inside files.
    let base: Vec<Vec<String>> = (0..40)
        .map(|i| {
            (0..60)
                .map(|j| format!("w{}", (i * 7919 + j * 31) % 997))
                .collect()
        })
        .collect();
    let edit = |v: &Vec<String>, k: usize| {
        let mut v = v.clone();
        v[k] = "edited".into();
        v
    };
    let mut part = base[..20].to_vec();
    part.push(edit(&base[3], 59)); // a near-duplicate inside the file
    fs::write(c.join("part.jsonl"), jsonl_lines(&part)).unwrap();
    let mut other = base[20..].to_vec();
    other.push(edit(&base[5], 0)); // and across files
    other.push(vec!["short".into()]);
    let mut other_text = jsonl_lines(&other);
    other_text.push_str("not json\n");
    fs::write(c.join("other.jsonl"), other_text).unwrap();
    fs::write(c.join("a.txt"), base[7].join(" ")).unwrap();
    settle_times();

    let cs = s(&c);
    let run = |extra: &[&str]| {
        let mut args = vec!["pairs", cs, "-t", "0.3", "--format", "jsonl"];
        args.extend_from_slice(extra);
        ok(&args)
    };
    let fresh = run(&["--no-index"]);
    assert!(fresh.contains("\"part.jsonl:21\""), "{fresh}");
    assert!(fresh.contains("other.jsonl:21"), "{fresh}");
    ok(&["index", cs]);
    assert!(c.join(".simtui-index").is_file());
    assert_eq!(run(&[]), fresh, "the saved records give the fresh pairs");
    let q = |extra: &[&str]| {
        let mut args = vec!["query", cs, "part.jsonl:4", "-n", "3", "--format", "jsonl"];
        args.extend_from_slice(extra);
        ok(&args)
    };
    assert_eq!(
        q(&[]),
        q(&["--no-index"]),
        "records read back by their place"
    );

    // Change one JSON Lines file, add another: the rest is taken from the index.
    part.push(edit(&base[9], 58));
    fs::write(c.join("part.jsonl"), jsonl_lines(&part)).unwrap();
    fs::write(c.join("new.jsonl"), jsonl_lines(&[edit(&base[11], 59)])).unwrap();
    settle_times();
    let out = simtui(&["pairs", cs, "-t", "0.3", "--format", "jsonl", "-v"]);
    common::assert_ok_saying(&out, &["2 unchanged, 0 touched, 1 changed, 1 added"]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        run(&["--no-index"]),
        "after the update"
    );
    // Read with another text field, the same bytes are other documents: read again.
    let field = |extra: &[&str]| {
        let mut args = vec!["pairs", cs, "--text-field", "body", "--format", "jsonl"];
        args.extend_from_slice(extra);
        simtui(&args)
    };
    let with = field(&["-v"]);
    let err = String::from_utf8_lossy(&with.stderr);
    // a.txt is a plain file: kept; the three JSON Lines files are read again.
    assert!(err.contains("1 unchanged, 0 touched, 3 changed"), "{err}");
    assert_eq!(with.stdout, field(&["--no-index"]).stdout);
    // Another --min-words is another index.
    let stats = simtui(&["pairs", cs, "--min-words", "2", "-v", "--format", "jsonl"]);
    common::assert_stderr_has(&stats, &["--min-words 0 (asked for 2)"]);
}

/// Issue 20, item 7: a `simtui index` killed while it wrote leaves its temporary file
/// (named after its process id); the next write removes it. One of a live process stays.
#[test]
fn temporary_files_of_dead_writers_are_removed() {
    let (dir, c, idx) = corpus_and_index();
    // No process has an id above the kernel's largest (2^22).
    let dead = dir.path().join(".c.idx.tmp.4194305");
    let alive = dir
        .path()
        .join(format!(".c.idx.tmp.{}", std::process::id()));
    fs::write(&dead, "half an index").unwrap();
    fs::write(&alive, "being written").unwrap();
    ok(&["index", c.path(), "-o", s(&idx)]);
    assert!(idx.exists());
    assert!(!dead.exists(), "the dead writer's file is removed");
    assert!(alive.exists(), "a live writer's file is left alone");
}

/// Issue 20, item 7: a file that cannot even be stat'ed is kept as unreadable, and the
/// index is not rewritten on every run because of it.
#[cfg(unix)]
#[test]
fn a_file_that_cannot_be_stated_does_not_make_every_run_rewrite_the_index() {
    let Some((dir, c)) = corpus_for_nobody() else {
        return;
    };
    // A folder that can be listed but not entered: its files can't be stat'ed.
    let shut = c.root.join("shut");
    fs::create_dir(&shut).unwrap();
    fs::write(shut.join("inside.txt"), "words that cannot be read").unwrap();
    mode(&shut, 0o644);
    let idx = dir.path().join("c.idx");
    let run = |args: &[&str]| {
        let out = unprivileged()
            .unwrap()
            .arg("--no-config")
            .args(args)
            .output()
            .unwrap();
        common::assert_ok(&out);
        String::from_utf8(out.stderr).unwrap()
    };
    let err = run(&["index", c.path(), "-o", s(&idx), "-v"]);
    mode(&shut, 0o755);
    assert!(err.contains("inside.txt"), "{err}");
    mode(&shut, 0o644);
    let before = fs::read(&idx).unwrap();
    let err = run(&["pairs", c.path(), "--index", s(&idx), "-v"]);
    mode(&shut, 0o755);
    assert!(!err.contains("written"), "rewritten: {err}");
    assert_eq!(before, fs::read(&idx).unwrap());
}

/// Issue 26, item 8: a file modified as its stamp was taken (here, with a time ahead of
/// the clock: then or later, for sure) keeps no stamp, so the next run reads it again.
/// On a filesystem with whole-second times, an edit later in that second at the same
/// size leaves size, times and inode as they were: the saved stamp would pass the stale
/// file for unchanged.
#[test]
fn a_file_modified_in_the_second_of_its_stamp_is_read_again_next_time() {
    let (_dir, c, idx) = corpus_and_index();
    let path = c.file(&c.generated.docs[0].id);
    let ahead = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
    let set = |t| {
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(t)
            .unwrap()
    };
    set(ahead);
    ok(&["index", c.path(), "-o", s(&idx)]);
    let again = simtui(&["index", c.path(), "-o", s(&idx)]);
    common::assert_stderr_has(&again, &[" 1 changed,"]);
    // The same from a new index past a memory limit, whose records wait on a temporary
    // file while it is built and are settled as they are written there.
    fs::remove_file(&idx).unwrap();
    ok(&["index", c.path(), "-o", s(&idx), "--memory", "0"]);
    let again = simtui(&["index", c.path(), "-o", s(&idx)]);
    common::assert_stderr_has(&again, &[" 1 changed,"]);
    // Once its times are in the past, it is taken from the index again.
    set(std::time::SystemTime::now() - std::time::Duration::from_secs(3600));
    settle_times();
    ok(&["index", c.path(), "-o", s(&idx)]);
    let last = simtui(&["index", c.path(), "-o", s(&idx)]);
    common::assert_stderr_has(&last, &[" 0 changed,", "up to date"]);
}

/// A saved index's shingle sets and signatures, the bulk of it, are read from the file
/// when asked for, never loaded whole: what opening it holds is its documents and the
/// sets' offsets, whatever its size (issue 26, item 6: `pairs --index` held every set).
#[test]
fn a_saved_index_is_read_in_place_not_loaded_whole() {
    use simtui_engine::storage::Kept;
    let dir = tempfile::tempdir().unwrap();
    let c = small_corpus(dir.path());
    let idx = dir.path().join("c.idx");
    ok(&["index", c.path(), "-o", s(&idx)]);
    let in_memory = decode::decode(&fs::read(&idx).unwrap()).unwrap();
    let saved = simtui_engine::store::load(&idx).unwrap();
    assert_eq!(saved.shingles.kept(), Kept::File);
    assert_eq!(saved.signatures.kept(), Kept::File);
    let groups = saved.shingles.len();
    assert!(groups > 50, "{groups}");
    // Only the offsets of the sets are held; in memory they would be all their shingles.
    assert!(
        saved.shingles.heap_bytes() <= 8 * (groups + 1),
        "{}",
        saved.shingles.heap_bytes()
    );
    assert!(in_memory.shingles.heap_bytes() > 8 * saved.shingles.total());
    assert_eq!(saved.signatures.heap_bytes(), 0);
    // Read through rows, they are the sets and signatures saved.
    assert_eq!(saved.shingles.total(), in_memory.shingles.total());
    let (all, want) = (
        saved.shingles.sets(0..groups).unwrap(),
        in_memory.shingles.sets(0..groups).unwrap(),
    );
    assert_eq!(all.values(), want.values());
    for g in [0, groups / 2, groups - 1] {
        assert_eq!(
            saved.shingles.get(g).unwrap(),
            in_memory.shingles.get(g).unwrap()
        );
        assert_eq!(
            saved.signatures.row(g).unwrap(),
            in_memory.signatures.row(g).unwrap()
        );
    }
    assert_eq!(saved.docs, in_memory.docs);
    assert_eq!(saved.contents, in_memory.contents);
}
