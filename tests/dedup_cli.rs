//! `simtui dedup`: the corpus without its near-duplicates, in the input's format, the
//! removal list beside it, and never a byte written into the input.

mod common;

use common::{assert_usage_error, jsonl, ok, simtui};
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

/// A JSON Lines file of `n` records: three families of near-copies and unrelated texts.
fn write_jsonl(path: &Path) -> Vec<String> {
    let base = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat \
                and the bird sings a song about the morning sun rising over the quiet hills";
    let mut lines = Vec::new();
    for i in 0..12 {
        let text = match i % 4 {
            0 => base.to_string(),
            1 => format!("{base} today"),
            2 => format!("{base} again and again"),
            _ => format!(
                "document {i} talks about something else entirely: {}",
                "word ".repeat(i)
            ),
        };
        let line = serde_json::json!({"id": format!("r{i}"), "text": text, "n": i}).to_string();
        lines.push(line);
    }
    fs::write(path, lines.join("\n") + "\n").unwrap();
    lines
}

fn args<'a>(input: &'a str, out: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["dedup", input, "-o", out, "-t", "0.7", "-k", "3"];
    a.extend_from_slice(&["--text-field", "text", "--id-field", "id"]);
    a.extend_from_slice(more);
    a
}

/// `in.EXT` in `dir`, written by `write`, deduplicated into `out.EXT` with `args`: what
/// `write` returned, the input (checked untouched) and the output.
fn deduped<T>(dir: &Path, ext: &str, write: impl FnOnce(&Path) -> T) -> (T, PathBuf, PathBuf) {
    let input = dir.join(format!("in.{ext}"));
    let written = write(&input);
    let before = fs::read(&input).unwrap();
    let out = dir.join(format!("out.{ext}"));
    ok(&args(input.to_str().unwrap(), out.to_str().unwrap(), &[]));
    assert_eq!(fs::read(&input).unwrap(), before, "the input is untouched");
    (written, input, out)
}

#[test]
fn json_lines_keep_their_bytes_and_the_removal_list_names_the_kept_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (lines, _, out) = deduped(dir.path(), "jsonl", write_jsonl);
    let written = fs::read_to_string(&out).unwrap();
    let kept: Vec<&str> = written.lines().collect();
    // Every line written is one of the input's lines, byte for byte, in order.
    let mut it = lines.iter();
    for k in &kept {
        assert!(it.any(|l| l == k), "{k} not an input line in order");
    }
    let removed = jsonl(&fs::read_to_string(dir.path().join("out.jsonl.removed.jsonl")).unwrap());
    assert_eq!(kept.len() + removed.len(), lines.len());
    assert!(!removed.is_empty());
    let kept_ids: HashSet<String> = kept
        .iter()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    for r in &removed {
        let id = r["id"].as_str().unwrap();
        assert!(!kept_ids.contains(id), "{id} removed and kept");
        assert!(
            kept_ids.contains(r["kept"].as_str().unwrap()),
            "the kept one is in the output"
        );
        assert!(r["jaccard"].as_f64().unwrap() >= 0.7);
        assert!(r["source"].as_str().unwrap().contains("in.jsonl:"));
        assert!(r["cluster"].as_u64().unwrap() >= 1);
    }
}

/// `--meta-field`: the removal list gives each side's values, for the reviewer.
#[test]
fn the_removal_list_carries_both_sides_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    write_jsonl(&input);
    let out = dir.path().join("out.jsonl");
    let (i, o) = (input.to_str().unwrap(), out.to_str().unwrap());
    ok(&args(i, o, &["--meta-field", "n"]));
    let removed = jsonl(&fs::read_to_string(dir.path().join("out.jsonl.removed.jsonl")).unwrap());
    assert!(!removed.is_empty());
    for r in &removed {
        // Record rN has n = N.
        let n = |id: &serde_json::Value| id.as_str().unwrap()[1..].to_string();
        assert_eq!(r["meta"]["n"].as_str().unwrap(), n(&r["id"]), "{r}");
        assert_eq!(r["kept_meta"]["n"].as_str().unwrap(), n(&r["kept"]), "{r}");
    }
    // Without --meta-field, no such fields.
    let plain = dir.path().join("plain.jsonl");
    ok(&args(i, plain.to_str().unwrap(), &[]));
    let removed = jsonl(&fs::read_to_string(dir.path().join("plain.jsonl.removed.jsonl")).unwrap());
    assert!(removed.iter().all(|r| r.get("meta").is_none()));
}

#[test]
fn an_existing_output_or_one_inside_the_input_is_refused_and_dry_run_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    write_jsonl(&input);
    let out = dir.path().join("out.jsonl");
    let (i, o) = (input.to_str().unwrap(), out.to_str().unwrap());
    let dry = ok(&args(i, o, &["--dry-run"]));
    assert!(dry.contains("12 documents"), "{dry}");
    assert!(!out.exists(), "a dry run writes nothing");
    ok(&args(i, o, &[]));
    assert_usage_error(&args(i, o, &[]));
    ok(&args(i, o, &["--force"]));
    // A folder as input: the output may not be inside it.
    let corpus = dir.path().join("corpus");
    fs::create_dir(&corpus).unwrap();
    fs::write(corpus.join("a.txt"), "one two three four five six seven").unwrap();
    fs::write(corpus.join("b.txt"), "one two three four five six seven").unwrap();
    let inside = corpus.join("clean");
    let a = [
        "dedup",
        corpus.to_str().unwrap(),
        "-o",
        inside.to_str().unwrap(),
        "-t",
        "0.9",
    ];
    assert_usage_error(&a);
    assert!(!inside.exists());
    let names: Vec<_> = fs::read_dir(&corpus).unwrap().collect();
    assert_eq!(names.len(), 2, "nothing written into the input");
}

#[test]
fn a_folder_is_copied_without_the_removed_files_and_a_keep_list_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    fs::create_dir_all(corpus.join("sub")).unwrap();
    let text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu";
    fs::write(corpus.join("a.txt"), format!("{text} nu xi")).unwrap();
    fs::write(corpus.join("sub/b.txt"), text).unwrap();
    fs::write(
        corpus.join("c.txt"),
        "entirely other words here and there nothing shared",
    )
    .unwrap();
    let out = dir.path().join("clean");
    let (c, o) = (corpus.to_str().unwrap(), out.to_str().unwrap());
    ok(&["dedup", c, "-o", o, "-t", "0.5", "-k", "2"]);
    // The longest of the pair is kept: a.txt; b.txt goes.
    assert!(out.join("a.txt").exists() && out.join("c.txt").exists());
    assert!(!out.join("sub/b.txt").exists());
    assert_eq!(
        fs::read_to_string(out.join("a.txt")).unwrap(),
        format!("{text} nu xi")
    );
    // A review marked the removal wrong: the next run keeps it.
    let wrong = dir.path().join("wrong.txt");
    fs::write(&wrong, "# marked wrong\nsub/b.txt\n").unwrap();
    let w = wrong.to_str().unwrap();
    ok(&[
        "dedup",
        c,
        "-o",
        o,
        "-t",
        "0.5",
        "-k",
        "2",
        "--keep-list",
        w,
        "--force",
    ]);
    assert!(out.join("sub/b.txt").exists());
    let removed = fs::read_to_string(dir.path().join("clean.removed.jsonl")).unwrap();
    assert!(removed.is_empty(), "{removed}");
    let _ = simtui(&["--version"]);
}

/// The rows of the Parquet test file: (id, text, year, score), in file order.
type Row = (String, String, i64, Option<f64>);

/// A Parquet file written with the parquet crate, as datasets ship them: string, integer
/// and nullable float columns, key-value metadata (a dataset card), row groups of 5.
fn write_parquet(path: &Path) -> Vec<Row> {
    use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    use parquet::arrow::ArrowWriter;
    use parquet::file::metadata::KeyValue;
    use parquet::file::properties::WriterProperties;
    use std::sync::Arc;
    let texts: Vec<String> = write_jsonl(&path.with_extension("jsonl"))
        .iter()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["text"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let rows: Vec<Row> = texts
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            let score = (i % 3 != 0).then_some(i as f64 / 4.0);
            (format!("r{i}"), t, 1980 + i as i64, score)
        })
        .collect();
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("text", DataType::Utf8, false),
        Field::new("year", DataType::Int64, false),
        Field::new("score", DataType::Float64, true),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| &r.0))),
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| &r.1))),
        Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.2))),
        Arc::new(Float64Array::from_iter(rows.iter().map(|r| r.3))),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(5))
        .set_key_value_metadata(Some(vec![KeyValue::new(
            "dataset_card".to_string(),
            "twelve test records".to_string(),
        )]))
        .build();
    let mut w = ArrowWriter::try_new(fs::File::create(path).unwrap(), schema, Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    rows
}

/// What [`read_parquet`] gives.
type ParquetRead = (
    arrow_schema::Fields,
    Vec<(String, Option<String>)>,
    usize,
    Vec<Row>,
);

/// A Parquet file's arrow fields, key-value metadata (without the arrow schema the writer
/// embeds), row-group count and rows.
fn read_parquet(path: &Path) -> ParquetRead {
    use arrow_array::{Array, Float64Array, Int64Array, StringArray};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let b = ParquetRecordBatchReaderBuilder::try_new(fs::File::open(path).unwrap()).unwrap();
    let fields = b.schema().fields().clone();
    let meta = b.metadata().clone();
    let kv = meta
        .file_metadata()
        .key_value_metadata()
        .map(|kv| {
            kv.iter()
                .filter(|k| k.key != "ARROW:schema")
                .map(|k| (k.key.clone(), k.value.clone()))
                .collect()
        })
        .unwrap_or_default();
    let mut rows = Vec::new();
    for batch in b.build().unwrap() {
        let batch = batch.unwrap();
        let col = |name: &str| batch.column_by_name(name).unwrap().clone();
        let (id, text, year, score) = (col("id"), col("text"), col("year"), col("score"));
        let id = id.as_any().downcast_ref::<StringArray>().unwrap();
        let text = text.as_any().downcast_ref::<StringArray>().unwrap();
        let year = year.as_any().downcast_ref::<Int64Array>().unwrap();
        let score = score.as_any().downcast_ref::<Float64Array>().unwrap();
        for i in 0..batch.num_rows() {
            let s = (!score.is_null(i)).then(|| score.value(i));
            rows.push((
                id.value(i).to_string(),
                text.value(i).to_string(),
                year.value(i),
                s,
            ));
        }
    }
    (fields, kv, meta.num_row_groups(), rows)
}

#[test]
fn parquet_keeps_its_schema_metadata_and_exactly_the_rows_not_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (rows, input, out) = deduped(dir.path(), "parquet", write_parquet);

    let (in_fields, in_kv, in_groups, in_rows) = read_parquet(&input);
    assert_eq!(in_rows, rows);
    let (out_fields, out_kv, out_groups, out_rows) = read_parquet(&out);
    assert_eq!(
        out_fields, in_fields,
        "the same fields, types and nullability"
    );
    assert_eq!(out_kv, in_kv, "the same key-value metadata");
    assert!(out_kv.iter().any(|(k, _)| k == "dataset_card"));
    assert_eq!(
        (in_groups, out_groups),
        (3, 3),
        "a row group out per one in"
    );

    let removed = jsonl(&fs::read_to_string(dir.path().join("out.parquet.removed.jsonl")).unwrap());
    let gone: HashSet<&str> = removed.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert!(!gone.is_empty());
    assert_eq!(gone.len(), removed.len(), "each removed once");
    // Exactly the rows not removed, every column as it was, in the input's order.
    let want: Vec<Row> = rows
        .iter()
        .filter(|r| !gone.contains(r.0.as_str()))
        .cloned()
        .collect();
    assert_eq!(out_rows, want);
    for r in &removed {
        assert!(r["source"].as_str().unwrap().contains("in.parquet"), "{r}");
        let kept = r["kept"].as_str().unwrap();
        assert!(out_rows.iter().any(|row| row.0 == kept), "{kept} is kept");
    }
    // The JSON Lines copy of the same records loses the same ids.
    let jl = dir.path().join("in.jsonl");
    let jl_out = dir.path().join("out.jsonl");
    ok(&args(jl.to_str().unwrap(), jl_out.to_str().unwrap(), &[]));
    let jl_removed =
        jsonl(&fs::read_to_string(dir.path().join("out.jsonl.removed.jsonl")).unwrap());
    let jl_gone: HashSet<&str> = jl_removed
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(jl_gone, gone);
}

/// Four records where a~b and b~c are near-duplicates at T = 0.6 but a and c are not
/// (J 0.57); a is the longest, so it is kept. `d` is unrelated.
fn write_chain(path: &Path) {
    let w = |r: std::ops::Range<usize>| r.map(|i| format!("w{i}")).collect::<Vec<_>>();
    let a = w(1..13).join(" "); // w1..w12
    let b = w(1..11).join(" "); // w1..w10: J(a,b) = 10/12
    let c = [w(1..9), vec!["x1".into(), "x2".into()]].concat().join(" "); // J(b,c) = 8/12, J(a,c) = 8/14
    let d = "nothing in common with the others at all here".to_string();
    let lines: Vec<String> = [("a", a), ("b", b), ("c", c), ("d", d)]
        .iter()
        .map(|(id, t)| serde_json::json!({"id": id, "text": t}).to_string())
        .collect();
    fs::write(path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn a_star_cluster_does_not_chain_where_components_do() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("chain.jsonl");
    write_chain(&input);
    let i = input.to_str().unwrap();
    let flags = [
        "-t",
        "0.6",
        "-k",
        "1",
        "-b",
        "32",
        "-r",
        "2",
        "--id-field",
        "id",
    ];
    let clusters = |linkage: &str| {
        let mut a = vec!["clusters", i, "--format", "jsonl", "--cluster", linkage];
        a.extend_from_slice(&flags);
        jsonl(&ok(&a))
    };
    let members = |c: &serde_json::Value| -> Vec<String> {
        c["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect()
    };
    // Components: a~b~c is one cluster, c far from the kept a.
    let comp = clusters("components");
    assert_eq!(comp.len(), 1, "{comp:?}");
    assert_eq!(members(&comp[0]), ["a", "b", "c"]);
    assert_eq!(comp[0]["representative"], "a");
    assert!((comp[0]["min_jaccard"].as_f64().unwrap() - 8.0 / 14.0).abs() < 1e-9);
    // Star: a keeps b; c, whose only neighbour b is taken, stays out.
    let star = clusters("star");
    assert_eq!(star.len(), 1, "{star:?}");
    assert_eq!(members(&star[0]), ["a", "b"]);
    assert_eq!(star[0]["representative"], "a");
    assert!(star[0]["min_jaccard"].as_f64().unwrap() >= 0.6);

    // dedup clusters by star by default: only b goes; with components c goes too.
    let removed_by = |extra: &[&str], name: &str| {
        let out = dir.path().join(name);
        let mut a = vec!["dedup", i, "-o", out.to_str().unwrap()];
        a.extend_from_slice(&flags);
        a.extend_from_slice(extra);
        ok(&a);
        let list = fs::read_to_string(dir.path().join(format!("{name}.removed.jsonl"))).unwrap();
        let mut ids: Vec<String> = jsonl(&list)
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(removed_by(&[], "star.jsonl"), ["b"]);
    assert_eq!(
        removed_by(&["--cluster", "components"], "comp.jsonl"),
        ["b", "c"]
    );
}

/// Every path under `root` (relative), with what it is: `f:CONTENT`, `d`, `l:TARGET`,
/// `p` (a FIFO).
#[cfg(unix)]
fn tree_of(root: &Path) -> std::collections::BTreeMap<String, String> {
    walkdir::WalkDir::new(root)
        .min_depth(1)
        .into_iter()
        .map(|e| {
            let e = e.unwrap();
            let rel = e
                .path()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let ft = e.file_type();
            let what = if ft.is_symlink() {
                format!("l:{}", fs::read_link(e.path()).unwrap().display())
            } else if ft.is_dir() {
                "d".to_string()
            } else if ft.is_file() {
                format!(
                    "f:{}",
                    String::from_utf8_lossy(&fs::read(e.path()).unwrap())
                )
            } else {
                "p".to_string()
            };
            (rel, what)
        })
        .collect()
}

/// Issue 26, item 3: a folder's copy holds every path but the removed documents: hidden
/// files, `.git`, files `--ext` left out, binary files, empty folders, hard links (as
/// hard links) and symbolic links (as links: one into the tree by an absolute path
/// reaches the copy, never the input); the summary counts each kind.
#[cfg(unix)]
#[test]
fn a_folder_copy_leaves_out_only_the_removed_documents() {
    use std::os::unix::fs::{MetadataExt, symlink};
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("corpus");
    let text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu";
    fs::create_dir_all(c.join("sub")).unwrap();
    fs::create_dir_all(c.join(".git")).unwrap();
    fs::create_dir_all(c.join("empty")).unwrap();
    fs::write(c.join("a.txt"), format!("{text} nu xi")).unwrap();
    fs::write(c.join("sub/b.txt"), text).unwrap();
    fs::write(
        c.join("c.txt"),
        "entirely other words here and there nothing shared",
    )
    .unwrap();
    fs::write(c.join(".env"), "SECRET=1").unwrap();
    fs::write(c.join(".git/HEAD"), "ref: refs/heads/main").unwrap();
    fs::write(c.join("notes.md"), "not a txt file").unwrap();
    fs::write(c.join("blob.txt"), b"bin\0ary").unwrap();
    fs::hard_link(c.join("c.txt"), c.join("hard.txt")).unwrap();
    symlink("a.txt", c.join("latest")).unwrap();
    symlink(c.join("c.txt"), c.join("sub/abs-in")).unwrap();
    symlink("b.txt", c.join("sub/to-removed")).unwrap();
    let before = tree_of(&c);
    let out = dir.path().join("clean");
    let (ci, o) = (c.to_str().unwrap(), out.to_str().unwrap());
    let run = simtui(&["dedup", ci, "-o", o, "-t", "0.5", "-k", "2", "--ext", "txt"]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert_eq!(tree_of(&c), before, "the input is untouched");
    let mut want = before.clone();
    want.remove("sub/b.txt");
    // The absolute link into the tree reaches the copy's c.txt.
    want.insert("sub/abs-in".into(), "l:../c.txt".into());
    // What marks the folder as dedup's output (--force may replace it).
    let marker = tree_of(&out)[".simtui-dedup"].clone();
    want.insert(".simtui-dedup".into(), marker);
    assert_eq!(tree_of(&out), want);
    let ino = |p: &str| fs::metadata(out.join(p)).unwrap().ino();
    assert_eq!(ino("hard.txt"), ino("c.txt"), "a hard link stays one");
    for said in [
        "2 document file(s)",
        "4 other file(s) as they were",
        "1 hard link(s)",
        "3 symlink(s) (1 to a removed file",
        "3 folder(s)",
        "left out 1 removed file(s)",
    ] {
        assert!(err.contains(said), "{said}: {err}");
    }
}

/// Issue 26, item 3: what cannot be copied (a FIFO) refuses the copy before any work,
/// named, unless --allow-incomplete, which leaves it out and says so.
#[cfg(unix)]
#[test]
fn a_path_that_cannot_be_copied_refuses_the_copy_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("corpus");
    fs::create_dir(&c).unwrap();
    fs::write(c.join("a.txt"), "one two three four five six seven").unwrap();
    fs::write(c.join("b.txt"), "one two three four five six seven").unwrap();
    let fifo = std::ffi::CString::new(c.join("pipe").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid NUL-terminated path; the test needs a special file.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let out = dir.path().join("clean");
    let (ci, o) = (c.to_str().unwrap(), out.to_str().unwrap());
    let a = ["dedup", ci, "-o", o, "-t", "0.9"];
    assert_usage_error(&a);
    let refused = simtui(&a);
    common::assert_stderr_has(&refused, &["pipe (a FIFO)", "--allow-incomplete"]);
    assert!(!out.exists());
    let run = simtui(&["dedup", ci, "-o", o, "-t", "0.9", "--allow-incomplete"]);
    common::assert_ok_saying(&run, &["1 path(s) that cannot be copied"]);
    let copied: Vec<_> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        copied.len(),
        2,
        "a.txt or b.txt, and the marker: {copied:?}"
    );
    assert!(!out.join("pipe").exists());
}

/// Issue 26, item 3: with --follow, a link out of the tree is copied as what it leads
/// to (the corpus read it); a link inside it, or back into what is being copied, stays a
/// link; nothing is written outside the copy.
#[cfg(unix)]
#[test]
fn with_follow_a_link_out_of_the_tree_is_copied_as_what_it_reaches() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let texts = [
        ("dd/real/a.txt", "one two three four five six seven"),
        ("ext/own.txt", "eight nine ten eleven twelve"),
    ];
    simtui_gen::write_files(d, &texts).unwrap();
    fs::create_dir_all(d.join("ext/sub")).unwrap();
    symlink("../ext", d.join("dd/ext")).unwrap();
    symlink("..", d.join("ext/sub/up")).unwrap();
    symlink(d.join("dd/real"), d.join("ext/back")).unwrap();
    let (ext, dd) = (tree_of(&d.join("ext")), tree_of(&d.join("dd")));
    let out = d.join("clean");
    let dd_s = d.join("dd");
    ok(&[
        "dedup",
        dd_s.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-t",
        "0.9",
        "--follow",
    ]);
    assert_eq!((tree_of(&d.join("ext")), tree_of(&d.join("dd"))), (ext, dd));
    let got = tree_of(&out);
    assert_eq!(got["ext"], "d");
    assert_eq!(got["ext/own.txt"], "f:eight nine ten eleven twelve");
    assert_eq!(got["ext/sub/up"], "l:..");
    assert_eq!(got["ext/back"], "l:../real");
    assert!(fs::read_to_string(out.join("ext/back/a.txt")).is_ok());
}

/// `--annotate`: every record kept, with its cluster, the cluster's size, whether dedup
/// keeps it and its J to the kept one; the same records marked `kept: false` as a plain
/// dedup removes, in JSON Lines (every other byte as it was) and Parquet (columns added).
#[test]
fn annotate_marks_every_record_and_agrees_with_the_removals() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.parquet");
    let rows = write_parquet(&input);
    let jl = dir.path().join("in.jsonl");
    let lines: Vec<String> = fs::read_to_string(&jl)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let removed_ids = |list: &Path| -> HashSet<String> {
        let text = fs::read_to_string(list).unwrap();
        jsonl(&text)
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    let plain = dir.path().join("plain.jsonl");
    ok(&args(jl.to_str().unwrap(), plain.to_str().unwrap(), &[]));
    let gone = removed_ids(&dir.path().join("plain.jsonl.removed.jsonl"));
    assert!(!gone.is_empty());

    // JSON Lines: each line the input's with the four fields before its closing brace.
    let out = dir.path().join("ann.jsonl");
    ok(&args(
        jl.to_str().unwrap(),
        out.to_str().unwrap(),
        &["--annotate"],
    ));
    let written: Vec<String> = fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(written.len(), lines.len(), "every record kept");
    let mut marked = HashSet::new();
    for (line, orig) in written.iter().zip(&lines) {
        assert!(
            line.starts_with(&orig[..orig.len() - 1]),
            "{line} extends {orig}"
        );
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = v["id"].as_str().unwrap().to_string();
        let j = v["jaccard_to_kept"].as_f64().unwrap();
        match v["cluster"].as_u64() {
            None => assert_eq!(
                (v["cluster_size"].as_u64(), v["kept"].as_bool(), j),
                (Some(1), Some(true), 1.0)
            ),
            Some(c) => {
                assert!(c >= 1 && v["cluster_size"].as_u64().unwrap() >= 2, "{line}");
                assert!(j >= 0.7 - 1e-12 || v["kept"] == true, "{line}");
            }
        }
        if v["kept"] == false {
            marked.insert(id);
        }
    }
    assert_eq!(marked, gone, "marked kept: false = what dedup removes");
    assert_eq!(
        removed_ids(&dir.path().join("ann.jsonl.removed.jsonl")),
        gone
    );

    // Parquet: the input's columns and rows, then the four columns.
    let pq = dir.path().join("ann.parquet");
    ok(&args(
        input.to_str().unwrap(),
        pq.to_str().unwrap(),
        &["--annotate"],
    ));
    let (in_fields, in_kv, _, _) = read_parquet(&input);
    let (out_fields, out_kv, _, out_rows) = read_parquet(&pq);
    assert_eq!(out_rows, rows, "every row, every column as it was");
    assert_eq!(out_kv, in_kv);
    assert_eq!(out_fields[..in_fields.len()], in_fields[..]);
    let names: Vec<&str> = out_fields[in_fields.len()..]
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(
        names,
        ["cluster", "cluster_size", "kept", "jaccard_to_kept"]
    );
    use arrow_array::{Array, BooleanArray};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let reader = ParquetRecordBatchReaderBuilder::try_new(fs::File::open(&pq).unwrap()).unwrap();
    let mut pq_marked = HashSet::new();
    let mut row = 0;
    for batch in reader.build().unwrap() {
        let batch = batch.unwrap();
        let kept = batch.column_by_name("kept").unwrap();
        let kept = kept.as_any().downcast_ref::<BooleanArray>().unwrap();
        for i in 0..batch.num_rows() {
            if !kept.value(i) {
                pq_marked.insert(out_rows[row].0.clone());
            }
            row += 1;
        }
    }
    assert_eq!(
        pq_marked, gone,
        "Parquet marks what the JSON Lines copy does"
    );
}

/// `--annotate` refuses what it cannot write fields into, and a record that has one of
/// its fields already, leaving nothing behind.
#[test]
fn annotate_refuses_plain_files_and_a_field_it_would_write_twice() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("docs");
    let text = "one two three four five six";
    simtui_gen::write_files(&folder, &[("a.txt", text), ("b.txt", text)]).unwrap();
    let out = dir.path().join("out");
    let o = simtui(&[
        "dedup",
        folder.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-t",
        "0.8",
        "--annotate",
    ]);
    assert!(!o.status.success());
    common::assert_stderr_has(&o, &["--annotate writes fields into records"]);
    assert!(!out.exists());

    let jl = dir.path().join("in.jsonl");
    fs::write(&jl, "{\"text\":\"one two three four five six\",\"kept\":1}\n{\"text\":\"one two three four five six\"}\n").unwrap();
    let out = dir.path().join("out.jsonl");
    let o = simtui(&[
        "dedup",
        jl.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-t",
        "0.8",
        "-k",
        "2",
        "--text-field",
        "text",
        "--annotate",
    ]);
    assert!(!o.status.success());
    common::assert_stderr_has(&o, &["line 1", "\"kept\" already"]);
    assert!(!out.exists(), "nothing is left of the output");
}
