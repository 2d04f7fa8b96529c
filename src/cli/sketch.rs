//! `simtui sketch`: each document's sketch for another engine (a Spark job, a database):
//! its band keys for the banding given, its signature and (unless `--no-shingles`) its
//! shingle hashes, the same on every machine for the same input and flags. From a corpus
//! to a folder of shards, or from JSON Lines records on standard input to standard
//! output, so a partition can be piped through it.

use super::args::IndexArgs;
use crate::output::error::UsageError;
use crate::output::file::write_file;
use crate::output::format::{refuse_terminal, with_stdout};
use crate::output::guard::Paths;
use crate::output::object::Target;
use crate::output::parquet::{Out, Table, properties};
use arrow_array::ArrayRef;
use arrow_array::builder::{
    Int64Builder, ListBuilder, StringBuilder, UInt32Builder, UInt64Builder,
};
use arrow_schema::{DataType, Field, Schema};
use clap::{Args, ValueEnum};
use simtui_engine::index::{Doc, Index, Params};
use simtui_engine::progress::Silent;
use simtui_engine::source::{Corpus, Source, object};
use std::borrow::Cow;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod unit_rows;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SketchFormat {
    // Apache Parquet: typed columns, the parameters in each file's metadata.
    Parquet,
    // One JSON object per line.
    Jsonl,
}

impl SketchFormat {
    /// The ending of its shards' names.
    fn extension(self) -> &'static str {
        match self {
            SketchFormat::Parquet => ".parquet",
            SketchFormat::Jsonl => ".jsonl",
        }
    }
}

#[derive(Args, Debug)]
pub struct SketchArgs {
    /// Folders and files to sketch (or --stdin)
    #[arg(value_name = "INPUT", required_unless_present = "stdin")]
    pub inputs: Vec<PathBuf>,
    /// Write the shards into this folder (new or empty)
    #[arg(
        short = 'o',
        long,
        value_name = "DIR",
        required_unless_present = "stdin"
    )]
    pub out: Option<PathBuf>,
    /// Read JSON Lines records on stdin, write their sketches to stdout
    ///
    /// Each line a record; its text in --text-field, its id in --id-field (else
    /// `stdin:LINE`). Records are sketched a batch at a time, so any number can pass.
    #[arg(long, conflicts_with_all = ["inputs", "out"])]
    pub stdin: bool,
    /// Leave the shingle hashes out (the pairs are then verified by the estimate)
    #[arg(long)]
    pub no_shingles: bool,
    /// Output format: parquet (default) or jsonl
    ///
    /// One row per document: id, source (utf8), tokens, bytes (int64), bands (the b band
    /// keys), signature (the N values, uint32) and shingles (the shingle hashes). parquet:
    /// band keys and shingles as list<uint64>; k, unit, seed, sketch, bands, rows,
    /// num_perm, shingles and simtui_version in each file's key-value metadata; shards of
    /// 100,000 documents in row groups of 8,192; never onto a terminal. jsonl: one document
    /// a line; 64-bit keys and hashes as signed integers (the same bits), which is how
    /// Spark, Java and Python read 64 bits.
    #[arg(long, value_enum, value_name = "FORMAT", hide_possible_values = true)]
    pub format: Option<SketchFormat>,
    /// Save each shard's rows beside DIR; go on after an interrupted run
    ///
    /// Each file of many documents (a JSON Lines or Parquet shard), and each run of plain
    /// files up to 64 MiB, is sketched alone, its rows saved in .DIR.simtui-resume beside
    /// DIR and counted done there; a run killed and started again with --resume (the same
    /// inputs and flags) sketches only the shards not done. The shards of DIR are written
    /// once all are done, the same bytes as a run without --resume.
    #[arg(long, conflicts_with = "stdin")]
    pub resume: bool,
    #[command(flatten)]
    pub index: IndexArgs,
}

/// Records sketched at a time from standard input: bounds the memory of a pipe.
const STDIN_BATCH: usize = 20_000;
/// Documents per shard file of `-o DIR`.
const SHARD_DOCS: usize = 100_000;
/// Documents per Parquet row group: about 25 MB of shingles and signatures at 300
/// words a document, built in memory before each group is written.
const ROW_GROUP_DOCS: usize = 8_192;

pub fn run(args: &SketchArgs) -> anyhow::Result<()> {
    args.index.check()?;
    let params = args.index.params();
    let banding = (args.index.bands as usize, args.index.rows as usize);
    let rows = Rows {
        banding,
        shingles: !args.no_shingles,
    };
    // Parquet by default, on standard output too (never onto a terminal); a pipe into a
    // JSON reader (Spark's, a database's) asks for JSON Lines, read line by line.
    let format = args.format.unwrap_or(SketchFormat::Parquet);
    if args.stdin {
        if format == SketchFormat::Parquet {
            refuse_terminal("Parquet")?;
        }
        return sketch_stdin(args, &params, &rows, format);
    }
    let out = args
        .out
        .as_deref()
        .expect("clap requires -o without --stdin");
    (Paths::new().inputs("the input", &args.inputs))
        .output("-o", out)
        .check()?;
    if args.resume && object::is_url(out) {
        return Err(UsageError(
            "--resume keeps its journal in a folder beside -o: give a local folder".into(),
        )
        .into());
    }
    // A folder in an object store: written here, uploaded when every shard is.
    let target = Target::new(out, &[])?;
    let out = target.path();
    if args.resume && super::resume::folder(out).is_dir() {
        // Shards of an earlier run of this command, killed while it wrote them.
        clear_shards(out)?;
    } else if args.resume && finished_with(out, &metadata(&params, &rows, 0), format) {
        // A run killed after it removed its journal, its sketch whole: the same settings,
        // so the same bytes again (nothing but simtui's shards is removed).
        crate::output::diag::note(
            0,
            format!(
                "{}: a finished sketch of these settings and no journal (a run killed as it \
                 ended): sketching it again",
                out.display()
            ),
        );
        clear_shards(out)?;
    }
    check_new_folder(out)?;
    let corpus = args.index.walk(&args.inputs)?;
    let created = !out.exists();
    let written = if args.resume {
        sketch_resumable(corpus, (&params, &rows, format), out)
    } else {
        let index = Index::builder(&params).build(corpus, &Silent)?;
        std::fs::create_dir_all(out)?;
        let mut docs = index.docs().iter();
        let mut next = || -> io::Result<Option<Row>> {
            docs.next()
                .map(|doc| rows.row(&index, doc).map_err(io::Error::other))
                .transpose()
        };
        write_shards(out, &mut next, &params, &rows, format)
    };
    if written.is_err() {
        // Each shard is written whole (renamed into place), but a failure halfway leaves
        // no half set: the shards this run wrote go, and the folder if it made it.
        let _ = clear_shards(out);
        if created {
            let _ = std::fs::remove_dir(out);
        }
    }
    written?;
    target.finish()
}

/// Removes the shards and the `_simtui.json` sketch writes in `out`, and their temporary
/// files (nothing else).
fn clear_shards(out: &Path) -> io::Result<()> {
    let Ok(entries) = std::fs::read_dir(out) else {
        return Ok(());
    };
    for e in entries.flatten() {
        if written_by_sketch(&e.file_name().to_string_lossy(), None) {
            std::fs::remove_file(e.path())?;
        }
    }
    Ok(())
}

/// Whether a file named `name` is one sketch writes in its folder: a shard (of `format`,
/// if given), `_simtui.json`, or their temporary file of a run killed while it wrote one.
fn written_by_sketch(name: &str, format: Option<SketchFormat>) -> bool {
    let shard = name.starts_with("part-")
        && match format {
            Some(f) => name.ends_with(f.extension()),
            None => [SketchFormat::Parquet, SketchFormat::Jsonl]
                .iter()
                .any(|f| name.ends_with(f.extension())),
        };
    let temporary = (name.starts_with(".part-") || name.starts_with(&format!(".{META_NAME}")))
        && name.ends_with(".tmp");
    shard || temporary || name == META_NAME
}

/// `--resume`: the corpus sketched a unit at a time (see `resume`), each unit's rows
/// saved beside `out` and counted done, then the shards written from them.
fn sketch_resumable(
    corpus: Corpus,
    (params, rows, format): (&Params, &Rows, SketchFormat),
    out: &Path,
) -> anyhow::Result<()> {
    let units = super::resume::units(&corpus);
    let flags = format!("{params:?} {:?} {} {format:?}", rows.banding, rows.shingles);
    let key = super::resume::key(&corpus, &flags);
    let mut journal = super::resume::Journal::open(out, key, units.len())?;
    for (i, unit) in units.iter().enumerate().skip(journal.done) {
        let part = Corpus {
            entries: corpus.entries[unit.clone()].to_vec(),
            skipped: Vec::new(),
        };
        let index = Index::builder(params).build(part, &Silent)?;
        write_file(&journal.unit(i), |w| {
            for doc in index.docs() {
                let renamed = simtui_engine::index::ids::unique_name(&doc);
                let row = rows.row(&index, doc).map_err(io::Error::other)?;
                // What its id becomes if another unit has it too (`ID@FILE:LINE`).
                unit_rows::put(w, &row, renamed.as_deref())?;
            }
            Ok(())
        })?;
        journal.record(i + 1)?;
    }
    // Ids two units share are made unique as one build over all makes them.
    let mut seen: std::collections::HashMap<String, u32> = Default::default();
    for i in 0..units.len() {
        unit_rows::each(&journal.unit(i), |row, _| {
            *seen.entry(row.id.into_owned()).or_default() += 1;
            Ok(())
        })
        .map_err(|e| journal.unreadable(i, e))?;
    }
    std::fs::create_dir_all(out)?;
    let mut at = 0usize;
    let mut reader: Option<unit_rows::Reader> = None;
    let mut next = || -> io::Result<Option<Row<'static>>> {
        loop {
            if reader.is_none() {
                if at == units.len() {
                    return Ok(None);
                }
                reader = Some(unit_rows::Reader::open(&journal.unit(at))?);
                at += 1;
            }
            match reader.as_mut().expect("a reader").next()? {
                Some((mut row, rename)) => {
                    if let Some(r) = rename
                        && seen[row.id.as_ref()] > 1
                    {
                        row.id = Cow::Owned(r);
                    }
                    return Ok(Some(row));
                }
                None => reader = None,
            }
        }
    };
    write_shards(out, &mut next, params, rows, format)?;
    journal.finish();
    Ok(())
}

/// The file of each folder of shards that describes them.
const META_NAME: &str = "_simtui.json";

/// The name of shard `n`.
fn shard_name(n: usize, format: SketchFormat) -> String {
    format!("part-{n:05}{}", format.extension())
}

/// The shards of the rows `next` gives and their `_simtui.json` in `out`.
fn write_shards<'a>(
    out: &Path,
    next: &mut dyn FnMut() -> io::Result<Option<Row<'a>>>,
    params: &Params,
    rows: &Rows,
    format: SketchFormat,
) -> anyhow::Result<()> {
    let kv = file_metadata(params, rows);
    let mut pending = next()?;
    let (mut n, mut docs) = (0, 0);
    while pending.is_some() {
        let file = out.join(shard_name(n, format));
        // Rows up to a shard's end (and a row group's, for Parquet).
        let mut take = |limit: usize| -> io::Result<Vec<Row<'a>>> {
            let mut got = Vec::new();
            while got.len() < limit
                && let Some(row) = pending.take()
            {
                got.push(row);
                pending = next()?;
            }
            Ok(got)
        };
        docs += match format {
            SketchFormat::Jsonl => write_file(&file, |w| {
                let shard = take(SHARD_DOCS)?;
                for row in &shard {
                    rows.write_json(w, row)?;
                }
                Ok(shard.len())
            })?,
            SketchFormat::Parquet => write_file(&file, |w| {
                let mut table = rows.table(w, &kv)?;
                let mut in_shard = 0;
                while in_shard < SHARD_DOCS {
                    let group = take(ROW_GROUP_DOCS.min(SHARD_DOCS - in_shard))?;
                    if group.is_empty() {
                        break;
                    }
                    in_shard += group.len();
                    rows.write_rows(&mut table, &group)?;
                }
                table.finish()?;
                Ok(in_shard)
            })?,
        };
        n += 1;
    }
    let meta = metadata(params, rows, docs);
    write_file(&out.join(META_NAME), |w| writeln!(w, "{meta}"))?;
    Ok(())
}

/// A folder that does not exist or is empty: sketches are never mixed with other files.
fn check_new_folder(out: &Path) -> anyhow::Result<()> {
    let has_entries = std::fs::read_dir(out).is_ok_and(|mut e| e.next().is_some());
    if has_entries {
        return Err(UsageError(format!(
            "{}: not empty; sketches go into a new or empty folder",
            out.display()
        ))
        .into());
    }
    Ok(())
}

/// Whether `out` holds a finished sketch (its `_simtui.json`, written last) of the
/// settings of `meta`, whatever its count of documents, in shards of `format`, and
/// nothing else.
fn finished_with(out: &Path, meta: &serde_json::Value, format: SketchFormat) -> bool {
    let Ok(text) = std::fs::read_to_string(out.join(META_NAME)) else {
        return false;
    };
    let Ok(mut found) = serde_json::from_str::<serde_json::Value>(&text) else {
        return false;
    };
    found["documents"] = meta["documents"].clone();
    let only_sketch = std::fs::read_dir(out).is_ok_and(|entries| {
        entries
            .flatten()
            .all(|e| written_by_sketch(&e.file_name().to_string_lossy(), Some(format)))
    });
    &found == meta && only_sketch
}

fn metadata(params: &Params, rows: &Rows, docs: usize) -> serde_json::Value {
    serde_json::json!({
        "simtui_version": env!("CARGO_PKG_VERSION"),
        "k": params.k,
        "unit": params.text.unit.name(),
        "seed": params.seed,
        "sketch": params.sketch.name(),
        "bands": rows.banding.0,
        "rows": rows.banding.1,
        "num_perm": params.num_perm,
        "shingles": rows.shingles,
        "documents": docs,
    })
}

/// The parameters as the Parquet files' key-value metadata: the same keys as
/// `_simtui.json`, but the count of documents (each file's footer has its rows).
fn file_metadata(params: &Params, rows: &Rows) -> Vec<(String, String)> {
    let serde_json::Value::Object(all) = metadata(params, rows, 0) else {
        unreachable!("metadata is an object")
    };
    all.into_iter()
        .filter(|(k, _)| k != "documents")
        .map(|(k, v)| match v {
            serde_json::Value::String(s) => (k, s),
            other => (k, other.to_string()),
        })
        .collect()
}

/// What each row holds.
struct Rows {
    banding: (usize, usize),
    shingles: bool,
}

/// One document's sketch, as both formats write it.
struct Row<'a> {
    id: Cow<'a, str>,
    source: String,
    tokens: u64,
    bytes: u64,
    bands: Vec<u64>,
    signature: Cow<'a, [u32]>,
    shingles: Option<Cow<'a, [u64]>>,
}

impl Rows {
    fn row<'a>(&self, index: &'a Index, doc: Cow<'a, Doc>) -> simtui_engine::Result<Row<'a>> {
        let g = doc.group;
        let set = index.shingles().get(g as usize)?;
        // An empty document pairs with nothing: it has no band keys (simtui bands only
        // documents with shingles).
        let bands = if set.is_empty() {
            Vec::new()
        } else {
            let (b, r) = self.banding;
            index.band_keys(g, b, r)?
        };
        Ok(Row {
            source: source_of(&doc),
            tokens: doc.tokens,
            bytes: doc.bytes,
            bands,
            signature: index.signatures().row(g as usize)?,
            shingles: self.shingles.then_some(set),
            id: match doc {
                Cow::Borrowed(d) => Cow::Borrowed(&d.id),
                Cow::Owned(d) => Cow::Owned(d.id),
            },
        })
    }

    fn write_json(&self, w: &mut dyn Write, row: &Row) -> io::Result<()> {
        // Signed: the same bits, as Spark, Java and Python read 64-bit integers.
        let signed = |v: &[u64]| v.iter().map(|&h| h as i64).collect::<Vec<i64>>();
        let mut obj = serde_json::Map::new();
        obj.insert("id".into(), row.id.as_ref().into());
        obj.insert("source".into(), row.source.clone().into());
        obj.insert("tokens".into(), row.tokens.into());
        obj.insert("bytes".into(), row.bytes.into());
        obj.insert("bands".into(), signed(&row.bands).into());
        obj.insert("signature".into(), row.signature.to_vec().into());
        if let Some(set) = &row.shingles {
            obj.insert("shingles".into(), signed(set).into());
        }
        writeln!(w, "{}", serde_json::Value::Object(obj))
    }

    /// A Parquet file of sketches, its parameters in the key-value metadata.
    fn table<'a>(&self, out: Out<'a>, kv: &[(String, String)]) -> io::Result<Table<'a>> {
        let list = |t: DataType| DataType::List(Arc::new(Field::new("item", t, false)));
        let mut fields = vec![
            Field::new("id", DataType::Utf8, false),
            Field::new("source", DataType::Utf8, false),
            // Counts as int64, not uint64: Spark reads unsigned 64-bit columns as
            // decimal(20,0); no count comes near 2^63.
            Field::new("tokens", DataType::Int64, false),
            Field::new("bytes", DataType::Int64, false),
            Field::new("bands", list(DataType::UInt64), false),
            Field::new("signature", list(DataType::UInt32), false),
        ];
        if self.shingles {
            fields.push(Field::new("shingles", list(DataType::UInt64), false));
        }
        // Hashes do not repeat: a dictionary would be built only to be dropped.
        let props = properties(kv).set_dictionary_enabled(false);
        Table::new(out, Schema::new(fields), props)
    }

    /// Writes the rows as one row group.
    fn write_rows(&self, table: &mut Table, docs: &[Row]) -> io::Result<()> {
        let list = |t: DataType| Arc::new(Field::new("item", t, false));
        let mut id = StringBuilder::new();
        let mut source = StringBuilder::new();
        let mut tokens = Int64Builder::with_capacity(docs.len());
        let mut bytes = Int64Builder::with_capacity(docs.len());
        let mut bands = ListBuilder::new(UInt64Builder::new()).with_field(list(DataType::UInt64));
        let mut signature =
            ListBuilder::new(UInt32Builder::new()).with_field(list(DataType::UInt32));
        let mut shingles =
            ListBuilder::new(UInt64Builder::new()).with_field(list(DataType::UInt64));
        for row in docs {
            id.append_value(&row.id);
            source.append_value(&row.source);
            tokens.append_value(row.tokens as i64);
            bytes.append_value(row.bytes as i64);
            bands.values().append_slice(&row.bands);
            bands.append(true);
            signature.values().append_slice(&row.signature);
            signature.append(true);
            if let Some(set) = &row.shingles {
                shingles.values().append_slice(set);
                shingles.append(true);
            }
        }
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(id.finish()),
            Arc::new(source.finish()),
            Arc::new(tokens.finish()),
            Arc::new(bytes.finish()),
            Arc::new(bands.finish()),
            Arc::new(signature.finish()),
        ];
        if self.shingles {
            columns.push(Arc::new(shingles.finish()));
        }
        table.write_group(columns)
    }
}

/// Where a document's text came from: its file, or `FILE:LINE` for a record.
fn source_of(doc: &Doc) -> String {
    match &doc.source {
        Source::Part(p) => p.place().display().to_string(),
        Source::Memory(_) => doc.id.clone(),
        other => other
            .path()
            .map_or_else(|| doc.id.clone(), |p| p.display().to_string()),
    }
}

/// `--stdin`: JSON Lines records in, a batch at a time; a line that is not a record
/// with a text is said on stderr and skipped (its line number given). Parquet out is one
/// file on standard output, a row group (or more) per batch, the footer at the end.
fn sketch_stdin(
    args: &SketchArgs,
    params: &Params,
    rows: &Rows,
    format: SketchFormat,
) -> anyhow::Result<()> {
    let input = &args.index;
    let text_field = input.text_field.clone();
    let id_field = input.id_field.clone();
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines().enumerate();
    let kv = file_metadata(params, rows);
    with_stdout(|out| {
        let mut sink = match format {
            SketchFormat::Parquet => Sink::Parquet(Box::new(rows.table(out, &kv)?)),
            SketchFormat::Jsonl => Sink::Json(out),
        };
        loop {
            let mut batch = Vec::with_capacity(STDIN_BATCH);
            for (i, line) in lines.by_ref() {
                let line = line?;
                if line.trim().is_empty() {
                    continue;
                }
                match record(&line, &text_field, id_field.as_deref()) {
                    Ok((id, text)) => {
                        batch.push((id.unwrap_or_else(|| format!("stdin:{}", i + 1)), text))
                    }
                    Err(why) => crate::output::diag::say(format_args!(
                        "simtui sketch: stdin:{}: skipped ({why})",
                        i + 1
                    )),
                }
                if batch.len() == STDIN_BATCH {
                    break;
                }
            }
            if batch.is_empty() {
                break;
            }
            let index = Index::builder(params)
                .build(Corpus::from_texts(batch), &Silent)
                .map_err(|e| io::Error::other(e.to_string()))?;
            match &mut sink {
                Sink::Parquet(table) => {
                    for group in index.docs().chunks(ROW_GROUP_DOCS) {
                        let group: Vec<Row> = (group.into_iter())
                            .map(|doc| rows.row(&index, doc).map_err(io::Error::other))
                            .collect::<io::Result<_>>()?;
                        rows.write_rows(table, &group)?;
                    }
                }
                Sink::Json(out) => {
                    for doc in index.docs() {
                        rows.write_json(
                            *out,
                            &rows.row(&index, doc).map_err(std::io::Error::other)?,
                        )?;
                    }
                }
            }
        }
        match sink {
            Sink::Parquet(table) => table.finish(),
            Sink::Json(_) => Ok(()),
        }
    })?;
    Ok(())
}

/// Where `--stdin`'s sketches go: JSON lines, or one Parquet file.
enum Sink<'a> {
    Json(Out<'a>),
    Parquet(Box<Table<'a>>),
}

/// A record's id (when it has the id field) and text.
fn record(
    line: &str,
    text_field: &str,
    id_field: Option<&str>,
) -> Result<(Option<String>, String), String> {
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let text = value
        .get(text_field)
        .and_then(|t| t.as_str())
        .ok_or_else(|| format!("no string field {text_field:?}"))?
        .to_string();
    let id = id_field.and_then(|f| match value.get(f)? {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Null => None,
        other => Some(other.to_string()),
    });
    Ok((id, text))
}
