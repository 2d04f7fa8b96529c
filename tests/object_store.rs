//! Inputs and outputs in an object store, against moto's S3 server on 127.0.0.1 (started
//! here on a free port): the same pairs and the same dedup output from `s3://` as from
//! local copies of the same files (JSON Lines shards, one gzipped; a Parquet file; a
//! folder of text files), outputs uploaded whole, an output inside an input refused,
//! and a missing bucket or refused credentials said on one line (exit 2); and `http://`
//! files from a plain web server (Python's) read as the same files on disk.
//!
//! moto comes from tests/s3/.venv (made by .ci/s3-setup) or the PATH; without it the
//! tests say they were skipped, unless SIMTUI_REQUIRE_S3 is set (as `.ci/run` does).

mod common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A moto S3 server on the loopback address, stopped when dropped.
struct Moto {
    child: Child,
    port: u16,
}

/// Any key: moto checks no signature unless asked to.
const AUTH: &str = "AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0";

impl Moto {
    /// Starts moto on a free port, or says why it can't (a failure when required).
    fn start() -> Option<Moto> {
        Moto::start_with(&[])
    }

    /// [`Moto::start`] with these variables in moto's environment.
    fn start_with(env: &[(&str, &str)]) -> Option<Moto> {
        let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/s3/.venv/bin/moto_server");
        let program = if venv.exists() {
            venv
        } else {
            PathBuf::from("moto_server")
        };
        // One start at a time: a port picked free is free only until a server binds it,
        // and two tests starting at once could pick the same one (the loser's moto exits
        // and its test talks to the winner's, which goes when that test ends).
        static STARTING: Mutex<()> = Mutex::new(());
        let _one = STARTING.lock().unwrap_or_else(|e| e.into_inner());
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(&program)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let Ok(child) = child else {
            let required = std::env::var_os("SIMTUI_REQUIRE_S3").is_some();
            assert!(
                !required,
                "SIMTUI_REQUIRE_S3 is set, but there is no moto_server"
            );
            println!("skipped: no moto_server (tests/s3/.venv or PATH); .ci/s3-setup installs it");
            return None;
        };
        let mut moto = Moto { child, port };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "moto did not start"
            );
            if let Some(status) = moto.child.try_wait().unwrap() {
                panic!("moto_server on port {port} exited: {status}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(moto)
    }

    /// One HTTP request to the server: its status and body.
    fn request(&self, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: {AUTH}\r\n\
             Content-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.port,
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(body).unwrap();
        let mut reply = Vec::new();
        s.read_to_end(&mut reply).unwrap();
        let end = reply.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let status = String::from_utf8_lossy(&reply[9..12]).parse().unwrap();
        (status, reply[end + 4..].to_vec())
    }

    fn bucket(&self, name: &str) {
        assert_eq!(self.request("PUT", &format!("/{name}"), b"").0, 200);
    }

    fn put(&self, bucket: &str, key: &str, body: &[u8]) {
        assert_eq!(
            self.request("PUT", &format!("/{bucket}/{key}"), body).0,
            200
        );
    }

    fn get(&self, bucket: &str, key: &str) -> Vec<u8> {
        let (status, body) = self.request("GET", &format!("/{bucket}/{key}"), b"");
        assert_eq!(status, 200, "{bucket}/{key}");
        body
    }

    /// The keys under `prefix`, in order (each key with its size).
    fn list(&self, bucket: &str, prefix: &str) -> Vec<(String, u64)> {
        let (status, body) = self.request(
            "GET",
            &format!("/{bucket}?list-type=2&prefix={prefix}"),
            b"",
        );
        assert_eq!(status, 200);
        let xml = String::from_utf8(body).unwrap();
        let field = |s: &str, tag: &str| {
            let open = format!("<{tag}>");
            let from = s.find(&open)? + open.len();
            Some(s[from..from + s[from..].find('<')?].to_string())
        };
        xml.split("<Contents>")
            .skip(1)
            .map(|c| {
                (
                    field(c, "Key").unwrap(),
                    field(c, "Size").unwrap().parse().unwrap(),
                )
            })
            .collect()
    }

    /// Every file under `dir`, uploaded under `prefix` with its relative path.
    fn upload(&self, bucket: &str, prefix: &str, dir: &Path) {
        for e in walkdir::WalkDir::new(dir).into_iter().map(Result::unwrap) {
            if e.file_type().is_file() {
                let rel = e.path().strip_prefix(dir).unwrap().to_str().unwrap();
                self.put(
                    bucket,
                    &format!("{prefix}{rel}"),
                    &std::fs::read(e.path()).unwrap(),
                );
            }
        }
    }

    /// simtui with the store's settings in its environment, as the AWS tools read them.
    fn simtui(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("run simtui")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_simtui"));
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("AWS_") {
                cmd.env_remove(k);
            }
        }
        cmd.env(
            "AWS_ENDPOINT_URL",
            format!("http://127.0.0.1:{}", self.port),
        )
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .args(args);
        cmd
    }

    /// simtui talking to the store through `relay` (a port that forwards to moto's).
    fn ok_through(&self, relay: u16, args: &[&str]) -> String {
        let out = self
            .command(args)
            .env("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{relay}"))
            .output()
            .expect("run simtui");
        common::assert_ok(&out);
        String::from_utf8(out.stdout).unwrap()
    }

    /// A TCP relay to the server on a port of its own that counts the bytes the server
    /// sends (bodies and headers): what a client going through it fetched.
    fn relay(&self) -> (u16, Arc<AtomicU64>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let sent = Arc::new(AtomicU64::new(0));
        let (count, server) = (Arc::clone(&sent), self.port);
        std::thread::spawn(move || {
            for client in listener.incoming().map_while(Result::ok) {
                let to = TcpStream::connect(("127.0.0.1", server)).unwrap();
                let (mut up_from, mut up_to) =
                    (client.try_clone().unwrap(), to.try_clone().unwrap());
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut up_from, &mut up_to);
                    let _ = up_to.shutdown(std::net::Shutdown::Write);
                });
                let count = Arc::clone(&count);
                std::thread::spawn(move || {
                    let (mut from, mut back) = (to, client);
                    let mut buf = vec![0u8; 1 << 16];
                    while let Ok(n @ 1..) = from.read(&mut buf) {
                        count.fetch_add(n as u64, Ordering::Relaxed);
                        if back.write_all(&buf[..n]).is_err() {
                            break;
                        }
                    }
                    let _ = back.shutdown(std::net::Shutdown::Write);
                });
            }
        });
        (port, sent)
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.simtui(args);
        common::assert_ok(&out);
        String::from_utf8(out.stdout).unwrap()
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A corpus in three forms under `root`: `shards/` (two JSON Lines shards, the second
/// gzipped), `pq/data.parquet` (row groups of 50) and `txt/` (a folder of text files),
/// each of the same generated documents with planted near-duplicates.
fn write_corpus(root: &Path) {
    let generated = simtui_gen::generate(&simtui_gen::GenOptions::sized(300, 7, 80));
    let docs = &generated.docs;
    simtui_gen::write(&generated, &root.join("txt"), &root.join("truth.jsonl")).unwrap();
    std::fs::remove_file(root.join("truth.jsonl")).unwrap();
    let line =
        |d: &simtui_gen::GenDoc| serde_json::json!({"id": d.id, "text": d.text}).to_string() + "\n";
    let (first, second) = docs.split_at(docs.len() / 2);
    std::fs::create_dir_all(root.join("shards")).unwrap();
    let plain: String = first.iter().map(line).collect();
    std::fs::write(root.join("shards/part-0.jsonl"), plain).unwrap();
    let gz = std::fs::File::create(root.join("shards/part-1.jsonl.gz")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(gz, flate2::Compression::default());
    for d in second {
        gz.write_all(line(d).as_bytes()).unwrap();
    }
    gz.finish().unwrap();
    write_parquet(&root.join("pq/data.parquet"), docs);
}

fn write_parquet(path: &Path, docs: &[simtui_gen::GenDoc]) {
    write_parquet_with(path, docs, None);
}

/// [`write_parquet`], with a third column `blob` of these values when given.
fn write_parquet_with(path: &Path, docs: &[simtui_gen::GenDoc], blob: Option<Vec<String>>) {
    use arrow_array::{ArrayRef, RecordBatch, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut fields = vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("text", DataType::Utf8, false),
    ];
    let mut columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(docs.iter().map(|d| &d.id))),
        Arc::new(StringArray::from_iter_values(docs.iter().map(|d| &d.text))),
    ];
    if let Some(blob) = blob {
        fields.push(Field::new("blob", DataType::Utf8, false));
        columns.push(Arc::new(StringArray::from(blob)));
    }
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(50))
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut w = ArrowWriter::try_new(file, schema, Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

/// Every file under `dir` by its relative path, with its bytes.
fn files_under(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_str()
                .unwrap()
                .to_string();
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// moto started, the corpus written to `DIR/corpus` and uploaded to `s3://data/corpus/`.
fn started_with_corpus() -> Option<(Moto, tempfile::TempDir, PathBuf)> {
    let moto = Moto::start()?;
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("corpus");
    write_corpus(&local);
    moto.bucket("data");
    moto.upload("data", "corpus/", &local);
    Some((moto, dir, local))
}

#[test]
fn an_s3_corpus_gives_the_pairs_and_the_dedup_output_of_its_local_copy() {
    let Some((moto, dir, local)) = started_with_corpus() else {
        return;
    };
    let l = |rel: &str| local.join(rel).to_str().unwrap().to_string();
    for (i, (input, url, flags)) in [
        (
            l("shards"),
            "s3://data/corpus/shards/",
            &["--id-field", "id"][..],
        ),
        (
            l("pq/data.parquet"),
            "s3://data/corpus/pq/data.parquet",
            &["--id-field", "id"][..],
        ),
        (l("txt"), "s3://data/corpus/txt", &[][..]),
    ]
    .into_iter()
    .enumerate()
    {
        let args = |input: &str| {
            let mut a = vec!["pairs", input, "-t", "0.5", "--format", "jsonl"];
            a.extend(flags);
            a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
        };
        let want = moto.ok(&args(&input).iter().map(String::as_str).collect::<Vec<_>>());
        let got = moto.ok(&args(url).iter().map(String::as_str).collect::<Vec<_>>());
        assert!(
            want.lines().count() > 10,
            "{input}: too few pairs to compare:\n{want}"
        );
        assert_eq!(got, want, "{url}");

        // dedup from the store to the store: the objects written are the local output's
        // files, byte for byte (the removal list names the input by its URL).
        let out = dir.path().join(format!("out-{i}"));
        let mut dedup = vec![
            "dedup",
            input.as_str(),
            "-o",
            out.to_str().unwrap(),
            "-t",
            "0.7",
        ];
        dedup.extend(flags);
        moto.ok(&dedup);
        let out_url = format!(
            "s3://data/out/{}",
            out.file_name().unwrap().to_str().unwrap()
        );
        let mut dedup = vec!["dedup", url, "-o", &out_url, "-t", "0.7"];
        dedup.extend(flags);
        moto.ok(&dedup);
        let local_files = files_under(dir.path());
        let name = out.file_name().unwrap().to_str().unwrap();
        let wanted: Vec<_> = local_files
            .iter()
            .filter(|(rel, _)| rel.starts_with(name))
            .collect();
        let written = moto.list("data", &format!("out/{name}"));
        assert_eq!(written.len(), wanted.len(), "{written:?}");
        for ((key, _), (rel, bytes)) in written.iter().zip(&wanted) {
            assert_eq!(key, &format!("out/{rel}"));
            let got = moto.get("data", key);
            if rel.ends_with(".removed.jsonl") {
                let local_root = Path::new(&input).to_str().unwrap();
                let want =
                    String::from_utf8_lossy(bytes).replace(local_root, url.trim_end_matches('/'));
                assert_eq!(String::from_utf8_lossy(&got), want, "{key}");
                assert!(want.lines().count() > 0, "nothing removed from {input}");
            } else {
                assert!(&got == bytes, "{key} differs from the local output's {rel}");
            }
        }
    }
}

#[test]
fn outputs_go_up_whole_and_never_into_an_input_and_errors_are_one_line() {
    let Some((moto, dir, local)) = started_with_corpus() else {
        return;
    };

    // An output equal to, inside or holding an input prefix: refused before any work.
    for out in [
        "s3://data/corpus/txt/",
        "s3://data/corpus/txt/out",
        "s3://data/corpus",
    ] {
        let o = moto.simtui(&["dedup", "s3://data/corpus/txt/", "-o", out, "-t", "0.8"]);
        assert_eq!(o.status.code(), Some(2), "{out}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(out) && err.contains("s3://data/corpus/txt/"),
            "{err}"
        );
    }
    assert_eq!(moto.list("data", "corpus/").len(), local_count(&local));

    // A missing bucket, in an input or an output, and refused credentials: one line, exit 2.
    let txt = local.join("txt");
    let txt = txt.to_str().unwrap();
    for (args, what) in [
        (vec!["pairs", "s3://no-such-bucket/x/"], "no-such-bucket"),
        (
            vec!["pairs", txt, "-o", "s3://no-such-bucket/pairs.jsonl"],
            "no-such-bucket",
        ),
        (
            vec!["sketch", txt, "-o", "s3://no-such-bucket/sk/"],
            "no-such-bucket",
        ),
        (vec!["pairs", "s3://data/nothing-here/"], "no object"),
    ] {
        let o = moto.simtui(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(what), "{args:?}: {err}");
    }
    // A server that checks credentials refuses ours: one line, exit 2, no panic.
    let strict = Moto::start_with(&[("INITIAL_NO_AUTH_ACTION_COUNT", "0")]).unwrap();
    let o = strict.simtui(&["pairs", "s3://data/corpus/"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("access denied"), "{err}");
    drop(strict);

    // A pairs file of several upload parts, watched while it is written: it is either
    // not there or there whole.
    // 1,200 copies of one text: 719,400 pairs of J = 1, about 50 MB of JSON Lines.
    let big = dir.path().join("big");
    std::fs::create_dir(&big).unwrap();
    let text = "the same words in every copy of this one small document here";
    for i in 0..1200 {
        std::fs::write(big.join(format!("c{i:04}.txt")), text).unwrap();
    }
    let mut child = moto
        .command(&["pairs", big.to_str().unwrap(), "--format", "jsonl"])
        .args(["-o", "s3://data/pairs.jsonl"])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut seen = Vec::new();
    while child.try_wait().unwrap().is_none() {
        seen.extend(moto.list("data", "pairs.jsonl"));
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(child.wait().unwrap().success());
    let whole = moto.list("data", "pairs.jsonl");
    assert_eq!(whole.len(), 1);
    assert!(
        whole[0].1 > 40 << 20,
        "{whole:?}: too small for several parts"
    );
    assert!(
        seen.iter().all(|s| s == &whole[0]),
        "seen half-written: {seen:?}"
    );
}

fn local_count(dir: &Path) -> usize {
    files_under(dir).len()
}

#[test]
fn a_parquet_object_is_fetched_as_the_columns_read() {
    let Some(moto) = Moto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let generated = simtui_gen::generate(&simtui_gen::GenOptions::sized(300, 7, 80));
    // A column never read, far larger than the text: 40 KB of hex digits a row (row
    // groups of 50 rows, so more than 1 MiB lies between two row groups' text chunks).
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    let blob = (0..generated.docs.len())
        .map(|_| {
            (0..5000)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    format!("{:08x}", x as u32)
                })
                .collect()
        })
        .collect();
    let file = dir.path().join("pq/data.parquet");
    write_parquet_with(&file, &generated.docs, Some(blob));
    let size = std::fs::metadata(&file).unwrap().len();
    moto.bucket("data");
    moto.put("data", "pq/data.parquet", &std::fs::read(&file).unwrap());
    let (relay, sent) = moto.relay();
    let url = "s3://data/pq/data.parquet";
    let local = file.to_str().unwrap();
    let pairs = |input| {
        [
            "pairs",
            input,
            "-t",
            "0.5",
            "--format",
            "jsonl",
            "--id-field",
            "id",
        ]
    };

    let want = moto.ok(&pairs(local));
    let got = moto.ok_through(relay, &pairs(url));
    assert!(
        want.lines().count() > 10,
        "too few pairs to compare:\n{want}"
    );
    assert_eq!(got, want);
    let fetched = sent.swap(0, Ordering::Relaxed);
    assert!(
        fetched * 10 < size,
        "{fetched} bytes came from the store for a file of {size}, whose text and ids are a few percent"
    );

    // dedup writes every column: the rest of the object is fetched for it.
    let (disk, s3) = (
        out_path(&dir, "from-disk.parquet"),
        out_path(&dir, "from-s3.parquet"),
    );
    let dedup = |input, out| ["dedup", input, "-o", out, "-t", "0.7", "--id-field", "id"];
    moto.ok(&dedup(local, &disk));
    moto.ok_through(relay, &dedup(url, &s3));
    assert!(
        std::fs::read(&disk).unwrap() == std::fs::read(&s3).unwrap(),
        "dedup's output from the store differs from its output from disk"
    );
    assert!(
        sent.load(Ordering::Relaxed) > size,
        "the whole object came for dedup"
    );
}

fn out_path(dir: &tempfile::TempDir, name: &str) -> String {
    dir.path().join(name).to_str().unwrap().to_string()
}

/// A plain HTTP server (Python's) on a free port of 127.0.0.1, serving `dir`, stopped
/// when dropped.
struct Http(Child, u16);

impl Http {
    fn serve(dir: &Path) -> Http {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("python3")
            .args([
                "-m",
                "http.server",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
            ])
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3");
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < Duration::from_secs(30), "no http server");
            std::thread::sleep(Duration::from_millis(50));
        }
        Http(child, port)
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `http://` URLs are read as files are (the client refused plain http: every such
/// input failed with "builder error"): the same similarities as from the local files.
#[test]
fn http_urls_give_the_pairs_of_their_local_files() {
    let dir = tempfile::tempdir().unwrap();
    let words = "the quick brown fox jumps over the lazy dog again";
    std::fs::write(dir.path().join("a.txt"), format!("{words} and again\n")).unwrap();
    std::fs::write(dir.path().join("b.txt"), format!("{words} and more\n")).unwrap();
    let server = Http::serve(dir.path());
    let url = |n: &str| format!("http://127.0.0.1:{}/{n}", server.1);
    let jaccards = |a: &str, b: &str| -> Vec<String> {
        let out = common::stdout_of(common::pairs_jsonl(a, &[b, "-t", "0.1"]));
        let pairs: Vec<serde_json::Value> = (out.lines())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(pairs.len(), 1, "{out}");
        vec![
            pairs[0]["jaccard"].to_string(),
            pairs[0]["estimate"].to_string(),
        ]
    };
    let local = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    assert_eq!(
        jaccards(&url("a.txt"), &url("b.txt")),
        jaccards(&local("a.txt"), &local("b.txt"))
    );
}
