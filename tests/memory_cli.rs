//! Bounded memory from the command line (issue 17): every command's output is the same
//! under any `--memory`, a full disk is a clear error with nothing left behind, and
//! progress is drawn on a terminal only.

mod common;

use common::simtui;
use std::path::Path;
use std::process::Command;

fn corpus(dir: &Path, docs: usize) -> String {
    let out = dir.join("c");
    common::write_generated(&out, &dir.join("c.truth.jsonl"), (docs, 17, 120, 0.2));
    out.to_str().unwrap().to_string()
}

/// A folder holding a corpus of `docs` documents (as `corpus`), and where its saved
/// index goes.
fn corpus_and_index(docs: usize) -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("c.idx").to_str().unwrap().to_string();
    let c = corpus(dir.path(), docs);
    (dir, c, idx)
}

/// The 1,500-document corpus of `corpus`, and an empty folder for temporary files.
fn corpus_and_tmp(dir: &Path) -> (String, std::path::PathBuf) {
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    (corpus(dir, 1500), tmp)
}

fn stdout_of(args: &[&str]) -> Vec<u8> {
    let out = simtui(args);
    assert!(
        out.status.success(),
        "simtui {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn every_command_gives_the_same_output_under_any_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let (c, tmp) = corpus_and_tmp(dir.path());
    let tmp = tmp.to_str().unwrap();
    let truth = dir.path().join("c.truth.jsonl");
    let commands: Vec<Vec<&str>> = vec![
        vec!["pairs", &c, "-t", "0.3", "--format", "jsonl"],
        vec!["clusters", &c, "-t", "0.5", "--format", "jsonl"],
        // --exhaustive reads every set back one at a time.
        vec![
            "query",
            &c,
            "d000/doc000003.txt",
            "d001/doc001200.txt",
            "--exhaustive",
            "-n",
            "3",
            "--format",
            "jsonl",
        ],
        vec![
            "eval",
            &c,
            "--format",
            "jsonl",
            "--truth",
            truth.to_str().unwrap(),
        ],
    ];
    for cmd in commands {
        let want = stdout_of(&cmd);
        assert!(!want.is_empty(), "{cmd:?}");
        for limit in ["0", "300K", "3M"] {
            let mut bounded = cmd.clone();
            bounded.extend(["--memory", limit, "--tmp-dir", tmp]);
            assert_eq!(stdout_of(&bounded), want, "{bounded:?}");
        }
    }
    // Nothing left behind: the temporary files were anonymous.
    assert_eq!(std::fs::read_dir(tmp).unwrap().count(), 0);
}

#[test]
fn stats_say_what_was_spilled_and_verbose_names_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path(), 600);
    let out = simtui(&[
        "pairs", &c, "--memory", "0", "--stats", "-v", "--format", "jsonl",
    ]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err.lines().find(|l| l.starts_with("memory")).expect(&err);
    // pairs (and clusters, dedup) keep no shingle sets: they are made again from the
    // texts, never spilled.
    // The documents first (past the limit their records wait on a file), then what the
    // search spills.
    assert!(line.contains("to temporary files: documents"), "{line}");
    assert!(line.contains(", signatures"), "{line}");
    assert!(line.contains("(--memory 0.0 KB)"), "{line}");
    assert!(
        line.contains("shingle sets not kept: made again from the candidates' texts"),
        "{line}"
    );
    assert!(
        err.contains("temporary file for signatures: "),
        "-v names the file: {err}"
    );
    // eval keeps them for its exact join (past the limit, on a temporary file).
    let truth = dir.path().join("c.truth.jsonl");
    let out = simtui(&[
        "eval",
        &c,
        "--truth",
        truth.to_str().unwrap(),
        "--memory",
        "0",
        "-v",
        "--format",
        "jsonl",
    ]);
    common::assert_ok_saying(&out, &["temporary file for shingle sets: "]);
    let out = simtui(&[
        "pairs", &c, "--memory", "8G", "--stats", "--format", "jsonl",
    ]);
    common::assert_stderr_has(&out, &["nothing to temporary files (--memory 8.0 GB)"]);
}

#[test]
fn bad_memory_flags_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path(), 20);
    common::assert_usage_error(&["pairs", &c, "--memory", "lots"]);
    common::assert_usage_error(&["pairs", &c, "--memory", "2Q"]);
    let file = dir.path().join("c.truth.jsonl");
    common::assert_usage_error(&["pairs", &c, "--tmp-dir", file.to_str().unwrap()]);
}

/// A disk that fills up: writes to files past 64 KiB fail (RLIMIT_FSIZE, with SIGXFSZ
/// ignored so that they fail with EFBIG rather than kill the process).
#[cfg(unix)]
#[test]
fn a_full_disk_is_an_error_and_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let (c, tmp) = corpus_and_tmp(dir.path());
    let script = format!(
        "trap '' XFSZ; ulimit -f 64; exec '{}' pairs '{c}' --memory 0 --tmp-dir '{}' --format jsonl",
        env!("CARGO_BIN_EXE_simtui"),
        tmp.display()
    );
    let out = Command::new("sh").args(["-c", &script]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty(), "nothing half-written on stdout");
    let line = err.lines().next().unwrap_or_default();
    assert!(
        line.starts_with(&format!("simtui: temporary file in {}: ", tmp.display())),
        "{err}"
    );
    assert!(line.contains("--tmp-dir DIR"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "no file left behind"
    );
}

/// Progress bars: on a terminal (stderr a pty, stdout a file), after a second, with
/// what was spilled; nothing with --quiet; nothing on stdout either way.
#[cfg(unix)]
#[test]
fn progress_is_drawn_on_a_terminal_unless_quiet() {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    // Bars drawn from the start (SIMTUI_PROGRESS_AFTER_MS=0): a fast machine ends this
    // run within the second the bars otherwise wait.
    let c = corpus(dir.path(), 40_000);
    let run = |quiet: bool| -> (String, Vec<u8>) {
        let out = dir.path().join(format!("out-{quiet}.jsonl"));
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 24,
                cols: 120,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let q = if quiet { " --quiet" } else { "" };
        let script = format!(
            "SIMTUI_PROGRESS_AFTER_MS=0 exec '{}' pairs '{c}' --memory 0 --format jsonl{q} > '{}'",
            env!("CARGO_BIN_EXE_simtui"),
            out.display()
        );
        let mut cmd = CommandBuilder::new("sh");
        cmd.args(["-c", &script]);
        let mut child = pair.slave.spawn_command(cmd).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let drain = std::thread::spawn(move || {
            let mut all = Vec::new();
            let _ = reader.read_to_end(&mut all);
            all
        });
        let status = child.wait().unwrap();
        drop(pair.master);
        let screen = String::from_utf8_lossy(&drain.join().unwrap()).to_string();
        assert!(status.success(), "{screen}");
        (screen, std::fs::read(&out).unwrap())
    };
    let want = stdout_of(&["pairs", &c, "--format", "jsonl"]);
    let (screen, out) = run(false);
    assert_eq!(out, want);
    assert!(screen.contains("ETA"), "a bar with its ETA: {screen:?}");
    assert!(screen.contains("spilled"), "what was spilled: {screen:?}");
    let (screen, out) = run(true);
    assert_eq!(out, want);
    assert!(!screen.contains("ETA"), "--quiet: {screen:?}");
}

/// Bytes a `-vv` "index memory:" line says `part` holds ("shingle sets 2.4 KB").
fn held(err: &str, part: &str) -> f64 {
    let line = err
        .lines()
        .find(|l| l.contains("index memory:"))
        .expect(err);
    size_after(line, part)
}

/// The size written after `part ` in `line` ("signatures 2.4 KB"), in bytes.
fn size_after(line: &str, part: &str) -> f64 {
    let at = line.find(&format!("{part} ")).expect(line) + part.len() + 1;
    let mut words = line[at..].split([' ', ',', ')']);
    let n: f64 = words.next().unwrap().parse().expect(line);
    n * match words.next().unwrap() {
        "B" => 1.0,
        "KB" => 1024.0,
        "MB" => 1024.0 * 1024.0,
        "GB" => 1024.0 * 1024.0 * 1024.0,
        u => panic!("{u} in {line}"),
    }
}

/// `simtui index` writes its shingle sets and signatures as they are made, through
/// temporary files past --memory, and `pairs --index` reads them from the saved file:
/// neither holds them (issue 26, item 6: both held every set, 20x the limit); the
/// results are those of a run without a saved index.
#[test]
fn a_saved_index_is_written_and_read_within_the_limit() {
    let (_dir, c, idx) = corpus_and_index(600);
    let idx = idx.as_str();
    let out = simtui(&["index", &c, "-o", idx, "--memory", "100K", "-vv"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // 600 documents of 120 words: about 550 KB of shingles, 300 KB of signatures.
    assert!(held(&err, "shingle sets") < 10e3, "{err}");
    assert!(held(&err, "signatures") < 1e3, "{err}");
    // An index built to be saved keeps its documents on a file too past the limit, and
    // its records of files wait on one while it is built.
    let spilled = err.lines().find(|l| l.starts_with("memory: ")).expect(&err);
    assert!(
        spilled.contains("to temporary files: file records ")
            && spilled.contains(", documents ")
            && spilled.contains(", shingle sets"),
        "{err}"
    );
    let fresh = stdout_of(&["pairs", &c, "--no-index", "-t", "0.3", "--format", "jsonl"]);
    let out = simtui(&[
        "pairs", &c, "--index", idx, "-t", "0.3", "--format", "jsonl", "--memory", "100K", "-vv",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(out.stdout, fresh);
    assert!(held(&err, "shingle sets") < 10e3, "{err}");
    assert!(held(&err, "signatures") < 1e3, "{err}");
    for cmd in [
        vec!["clusters", &c, "-t", "0.5", "--format", "jsonl"],
        vec![
            "query",
            &c,
            "d000/doc000003.txt",
            "-n",
            "3",
            "--format",
            "jsonl",
        ],
    ] {
        let want = stdout_of(&[cmd.clone(), vec!["--no-index"]].concat());
        let got = stdout_of(&[cmd, vec!["--index", idx, "--memory", "100K"]].concat());
        assert_eq!(got, want);
    }
}

/// What cannot be bounded (each document's record, id and path) is said once, with its
/// size, when it passes --memory: by `index`, and by the commands that search, whether
/// their index is saved or built.
#[test]
fn what_the_limit_cannot_hold_is_named_once() {
    let (_dir, c, idx) = corpus_and_index(300);
    let idx = idx.as_str();
    for cmd in [
        vec!["index", &c, "-o", idx, "--memory", "1K"],
        vec![
            "pairs", &c, "--index", idx, "--memory", "1K", "--format", "jsonl",
        ],
        // Without a saved index too: the index built holds the same records.
        vec![
            "pairs",
            &c,
            "--no-index",
            "--memory",
            "1K",
            "--format",
            "jsonl",
        ],
        vec![
            "clusters",
            &c,
            "--no-index",
            "-t",
            "0.5",
            "--memory",
            "1K",
            "--format",
            "jsonl",
        ],
    ] {
        let out = simtui(&cmd);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{cmd:?}: {err}");
        let warned = |what: &str| {
            let lines = err.lines().filter(|l| l.contains("over --memory"));
            lines.filter(|l| l.contains(what)).count()
        };
        assert_eq!(warned("warning: the index holds"), 1, "{cmd:?}: {err}");
        // A saved index's records of files (and, read from the file, of documents)
        // are held whole beside the index as it is opened: said too, once. A new one's
        // wait on a temporary file while it is built.
        let saved = cmd.contains(&"--index");
        let records = warned("warning: the saved index's records of 300 files");
        assert_eq!(records, saved as usize, "{cmd:?}: {err}");
        // A document held more than 1K while it was read: said once by a command that
        // read documents (`pairs --index` reads again those whose stamps were too
        // recent to trust: written within the second the index was).
        let whole = warned("warning: the document ");
        let read = !cmd.contains(&"--index");
        assert!(whole == 1 || (whole == 0 && !read), "{cmd:?}: {err}");
        let lines = err.lines().filter(|l| l.contains("over --memory")).count();
        assert_eq!(lines, 1 + saved as usize + whole, "{cmd:?}: {err}");
        assert!(err.contains("over --memory 1.0 KB: documents "), "{err}");
        if cmd.contains(&"--index") {
            assert!(err.contains("300 files and 300 saved documents"), "{err}");
        }
    }
}

/// Bytes a line of stderr starting with `line` says went to temporary files for `what`
/// ("... to temporary files: shingle sets 870.0 MB, signatures ...").
fn spilled(err: &str, line: &str, what: &str) -> f64 {
    size_after(err.lines().find(|l| l.starts_with(line)).expect(err), what)
}

/// `simtui index` of a corpus it has no saved index of writes its shingle sets to
/// temporary files once, as it builds, past --memory: the index it saves is the one it
/// built, not a copy interned again (which held a second budget's worth of sets and
/// wrote every set a second time).
#[test]
fn a_new_saved_index_goes_through_temporary_files_once() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path(), 600);
    let file = dir.path().join("c.idx");
    let idx = file.to_str().unwrap();
    let out = simtui(&["index", &c, "-o", idx, "--memory", "0", "-vv"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let sets = spilled(&err, "memory: ", "shingle sets");
    // The file holds every set once, with the signatures and the documents.
    let file_bytes = std::fs::metadata(&file).unwrap().len() as f64;
    assert!(
        sets < file_bytes,
        "{sets} bytes of sets for a file of {file_bytes}: {err}"
    );
    let fresh = stdout_of(&["pairs", &c, "--no-index", "-t", "0.3", "--format", "jsonl"]);
    let got = stdout_of(&[
        "pairs", &c, "--index", idx, "-t", "0.3", "--format", "jsonl",
    ]);
    assert_eq!(got, fresh);
}

/// A new saved index under any --memory is the file written without one, byte for
/// byte: its file records (waiting on a temporary file while the index is built past a
/// limit) keep their order, stamps, hashes, skips and documents. The corpus mixes plain
/// files with files skipped whole (binary, empty) and a JSON Lines file with a bad line.
#[test]
fn a_new_saved_index_is_the_same_file_under_any_limit() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path(), 400);
    let cp = Path::new(&c);
    std::fs::write(cp.join("binary.bin"), [0u8, 159, 146, 150, 0, 1]).unwrap();
    std::fs::write(cp.join("empty.txt"), "").unwrap();
    let lines = "{\"id\": \"a\", \"text\": \"one two three four five six seven\"}\nnot json\n";
    std::fs::write(cp.join("records.jsonl"), lines).unwrap();
    // Every file older than what a stamp must be to prove it unchanged (two seconds on
    // a file system of whole-second times), so no run drops a stamp the others keep.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let (tmp, want) = (dir.path().join("tmp"), dir.path().join("want.idx"));
    std::fs::create_dir(&tmp).unwrap();
    let want_s = want.to_str().unwrap();
    let out = simtui(&["index", &c, "-o", want_s]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = std::fs::read(&want).unwrap();
    for limit in ["0", "300K", "3M"] {
        let got = dir.path().join(format!("got-{limit}.idx"));
        let got_s = got.to_str().unwrap();
        let args = ["--memory", limit, "--tmp-dir", tmp.to_str().unwrap(), "-vv"];
        let out = simtui(&[&["index", &c, "-o", got_s][..], &args].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(
            std::fs::read(&got).unwrap() == want,
            "--memory {limit}: {err}"
        );
        // The records went to temporary files, which are gone.
        assert!(
            spilled(&err, "memory: ", "file records") > 400.0 * 80.0,
            "{err}"
        );
    }
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
}

/// A saved index of fewer MinHash functions than the banding asks for gets the others
/// computed within --memory (past it, on a temporary file), not in memory.
#[test]
fn wider_minhash_signatures_of_a_saved_index_keep_to_the_limit() {
    let (_dir, c, idx) = corpus_and_index(600);
    let idx = idx.as_str();
    let minhash = ["--sketch", "minhash"];
    stdout_of(
        &[
            &["index", &c, "-o", idx, "-b", "4", "-r", "4"][..],
            &minhash,
        ]
        .concat(),
    );
    let wide = [
        &[
            "pairs", &c, "-t", "0.3", "-b", "16", "-r", "8", "--format", "jsonl",
        ][..],
        &minhash,
    ]
    .concat();
    let want = stdout_of(&[&wide[..], &["--no-index"]].concat());
    let out = simtui(&[&wide[..], &["--index", idx, "--memory", "100K", "-vv"]].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(out.stdout, want);
    // 600 documents x 128 functions: 300 KB in memory before.
    assert!(held(&err, "signatures") < 1e3, "{err}");
}

/// `dedup` keeps no titles (its outputs name documents by id, source and metadata):
/// what it holds of each document is less than what the clusters' table holds, and the
/// same as `clusters` in any other form.
#[test]
fn dedup_keeps_no_titles() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path(), 600);
    let out_dir = dir.path().join("out");
    let run = |args: &[&str]| {
        let out = simtui(args);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{args:?}: {err}");
        held(&err, "ids, titles")
    };
    // A limit that holds the documents in memory (past it their titles would wait on a
    // temporary file either way).
    let clusters = |format| {
        run(&[
            "clusters", &c, "-t", "0.8", "--format", format, "--memory", "100M", "-vv",
        ])
    };
    // Only the clusters' table shows titles: its index keeps them, no other output's.
    let (table, jsonl) = (clusters("table"), clusters("jsonl"));
    let dedup = run(&[
        "dedup",
        &c,
        "-t",
        "0.8",
        "-o",
        out_dir.to_str().unwrap(),
        "--memory",
        "100M",
        "-vv",
    ]);
    assert!(
        dedup < 0.8 * table,
        "dedup {dedup}, clusters' table {table}"
    );
    assert_eq!(
        jsonl, dedup,
        "clusters --format jsonl keeps no titles either"
    );
}

/// A document is read, tokenised and shingled whole, whatever `--memory` says: one that
/// held more than the limit on its own is named, once, with what it held (issue 26: a
/// document of 500 MB held 3.8 GB under `--memory 256M`, and nothing said so).
#[test]
fn a_document_read_whole_past_the_limit_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    std::fs::create_dir(&c).unwrap();
    let words = |n: usize, salt: usize| -> String {
        (0..n)
            .map(|i| format!("w{} ", (i * 7 + salt) % 997))
            .collect()
    };
    std::fs::write(c.join("large.txt"), words(60_000, 1)).unwrap();
    for i in 0..20 {
        std::fs::write(c.join(format!("small{i}.txt")), words(100, i)).unwrap();
    }
    let c = c.to_str().unwrap();
    let out = simtui(&["pairs", c, "--memory", "1M", "--format", "jsonl"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let named: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("simtui: warning: the document "))
        .collect();
    assert_eq!(named.len(), 1, "{err}");
    assert!(named[0].contains("large.txt"), "{err}");
    assert!(named[0].contains("60000 tokens"), "{err}");
    assert!(named[0].contains("over --memory 1.0 MB"), "{err}");
    // Within the limit, nothing to say.
    let out = simtui(&["pairs", c, "--memory", "64M", "--format", "jsonl"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("the document "), "{err}");
}
