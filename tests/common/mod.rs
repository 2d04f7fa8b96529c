//! Helpers shared by the integration tests of `query`, `clusters`, `matrix` and SimHash:
//! generated corpora, running the binary, and an independent brute-force Jaccard from
//! the words themselves (no hashing).

#![allow(dead_code)] // each test binary uses a different part

pub mod pty;

use simtui_engine::text::{TextOptions, tokens};
use simtui_gen::{GenOptions, Generated, generate, write};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Starts `cmd` with `stdin`, its stdout and stderr piped back.
pub fn spawn_piped(cmd: &mut Command, stdin: std::process::Stdio) -> std::process::Child {
    use std::process::Stdio;
    let cmd = cmd
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.spawn().expect("run simtui")
}

/// Runs `cmd`, a test script of another language (the Spark job's, the Python module's),
/// and gives its standard output; panics with that and the end of its standard error (a
/// JVM's or pytest's traceback comes last) when it failed.
pub fn script_stdout(cmd: &mut Command, what: &str) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("run {what}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let tail = stderr.char_indices().rev().nth(4000).map_or(0, |(i, _)| i);
    assert!(
        out.status.success(),
        "{what}: {}\n{stdout}\n{}",
        out.status,
        &stderr[tail..]
    );
    stdout
}

pub fn simtui(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simtui"))
        .args(args)
        .output()
        .expect("run simtui")
}

/// Runs simtui, reads one line of its output and closes the pipe, as `| head -1` does;
/// returns that line and how simtui ended.
pub fn first_line_then_close(args: &[&str]) -> (String, Output) {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let mut child = spawn_piped(
        Command::new(env!("CARGO_BIN_EXE_simtui")).args(args),
        Stdio::inherit(),
    );
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader is dropped here: the pipe is closed.
    (first, child.wait_with_output().unwrap())
}

/// `simtui pairs PATH FLAGS --format jsonl`.
pub fn pairs_jsonl(path: &str, flags: &[&str]) -> Output {
    simtui(&[&["pairs", path], flags, &["--format", "jsonl"]].concat())
}

/// The output of a run that succeeded.
pub fn stdout_of(out: Output) -> String {
    assert_ok(&out);
    String::from_utf8(out.stdout).unwrap()
}

/// Runs simtui, asserts success, and returns stdout.
pub fn ok(args: &[&str]) -> String {
    let out = simtui(args);
    assert!(
        out.status.success(),
        "simtui {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Asserts a run succeeded, its stderr in the message.
pub fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Asserts a run said each of `wanted` on stderr (the whole of stderr in the message).
pub fn assert_stderr_has(out: &Output, wanted: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    for w in wanted {
        assert!(err.contains(w), "wanted {w:?} in: {err}");
    }
}

/// Asserts a run succeeded and said each of `wanted` on stderr.
pub fn assert_ok_saying(out: &Output, wanted: &[&str]) {
    assert_ok(out);
    assert_stderr_has(out, wanted);
}

pub fn jsonl(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// Asserts a usage error: exit code 2, one line on stderr, nothing on stdout.
pub fn assert_usage_error(args: &[&str]) {
    let out = simtui(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "simtui {args:?}: {err}");
    assert!(out.stdout.is_empty(), "simtui {args:?} wrote to stdout");
    assert!(!err.trim().is_empty(), "simtui {args:?}: no message");
    // clap's own errors too: simtui folds them into one line (cli::startup).
    assert_eq!(err.lines().count(), 1, "simtui {args:?}: {err}");
    assert!(err.starts_with("simtui: "), "simtui {args:?}: {err}");
}

/// Writes a generated corpus of `docs` documents of about `words` words to `root` and its
/// planted pairs to `truth`; about `dup_fraction` of the documents derive from others.
pub fn write_generated(
    root: &Path,
    truth: &Path,
    (docs, seed, words, dup_fraction): (usize, u64, usize, f64),
) {
    let generated = generate(&GenOptions {
        dup_fraction,
        ..GenOptions::sized(docs, seed, words)
    });
    write(&generated, root, truth).unwrap();
}

/// A generated corpus written to `dir/corpus`, its documents' word shingles and token
/// counts, and its planted pairs.
pub struct Corpus {
    pub root: PathBuf,
    pub generated: Generated,
    pub shingles: HashMap<String, HashSet<String>>,
    pub tokens: HashMap<String, usize>,
}

impl Corpus {
    pub fn new(dir: &Path, docs: usize, seed: u64) -> Corpus {
        let generated = generate(&GenOptions::sized(docs, seed, 120));
        let root = dir.join("corpus");
        write(&generated, &root, &dir.join("truth.jsonl")).unwrap();
        let mut shingles = HashMap::new();
        let mut counts = HashMap::new();
        for d in &generated.docs {
            shingles.insert(d.id.clone(), word_shingles(&d.text, 5));
            counts.insert(d.id.clone(), tokens(&d.text, &TextOptions::default()).len());
        }
        Corpus {
            root,
            generated,
            shingles,
            tokens: counts,
        }
    }

    pub fn path(&self) -> &str {
        self.root.to_str().unwrap()
    }

    pub fn file(&self, id: &str) -> PathBuf {
        self.root.join(id)
    }

    pub fn text(&self, id: &str) -> &str {
        &self
            .generated
            .docs
            .iter()
            .find(|d| d.id == id)
            .unwrap()
            .text
    }

    pub fn jaccard(&self, a: &str, b: &str) -> f64 {
        brute_jaccard(&self.shingles[a], &self.shingles[b])
    }

    /// The planted pairs with J ≥ t, as (a, b).
    pub fn planted(&self, t: f64) -> Vec<(String, String)> {
        self.generated
            .truth
            .iter()
            .filter(|p| p.jaccard >= t)
            .map(|p| (p.a.clone(), p.b.clone()))
            .collect()
    }
}

/// The word k-shingles of a text, as strings.
pub fn word_shingles(text: &str, k: usize) -> HashSet<String> {
    let words = tokens(text, &TextOptions::default());
    if words.is_empty() {
        return HashSet::new();
    }
    if words.len() < k {
        return HashSet::from([words.join(" ")]);
    }
    words.windows(k).map(|w| w.join(" ")).collect()
}

pub fn brute_jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let inter = a.intersection(b).count();
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// Connected components of a graph given by its edges, as sorted member sets.
pub fn components(edges: &[(String, String)]) -> BTreeSet<BTreeSet<String>> {
    let mut parent: HashMap<String, String> = HashMap::new();
    fn find(parent: &mut HashMap<String, String>, x: &str) -> String {
        let p = parent.entry(x.to_string()).or_insert(x.to_string()).clone();
        if p == x {
            return p;
        }
        let root = find(parent, &p);
        parent.insert(x.to_string(), root.clone());
        root
    }
    for (a, b) in edges {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent.insert(ra, rb);
        }
    }
    let nodes: Vec<String> = parent.keys().cloned().collect();
    let mut groups: HashMap<String, BTreeSet<String>> = HashMap::new();
    for n in nodes {
        let r = find(&mut parent, &n);
        groups.entry(r).or_default().insert(n);
    }
    groups.into_values().collect()
}

/// How to run simtui where permissions bite: as we are when not root; as root, under
/// `setpriv` as the user `nobody`. None when neither is possible (the test says so).
pub fn unprivileged() -> Option<Command> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Some(Command::new(env!("CARGO_BIN_EXE_simtui")));
    }
    let probe = Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            env!("CARGO_BIN_EXE_simtui"),
            "--version",
        ])
        .output();
    match probe {
        Ok(o) if o.status.success() => {
            let mut c = Command::new("setpriv");
            c.args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                env!("CARGO_BIN_EXE_simtui"),
            ]);
            Some(c)
        }
        _ => None,
    }
}
