//! `simtui sketch`: each document's sketch for another engine (a Spark job, a database):
//! its band keys for the banding given, its signature and (unless `--no-shingles`) its
//! shingle hashes, the same on every machine for the same input and flags. From a corpus
//! to a folder of shards, or from JSON Lines records on standard input to standard
//! output, so a partition can be piped through it.

use super::args::IndexArgs;
use crate::output::error::UsageError;
use crate::output::format::with_stdout;
use clap::{Args, ValueEnum};
use simtui_engine::index::{Doc, Index, Params};
use simtui_engine::progress::Silent;
use simtui_engine::source::{Corpus, Source};
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SketchFormat {
    // One JSON object per line.
    Jsonl,
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
    /// Output format: jsonl
    ///
    /// JSON Lines, one document a line: id, source, tokens, bytes, bands (b band keys),
    /// signature (N values), shingles; 64-bit keys and hashes are written as signed
    /// integers (the same bits), which is how Spark, Java and Python read 64 bits.
    #[arg(long, value_enum, default_value_t = SketchFormat::Jsonl, hide_possible_values = true)]
    pub format: SketchFormat,
    #[command(flatten)]
    pub index: IndexArgs,
}

/// Records sketched at a time from standard input: bounds the memory of a pipe.
const STDIN_BATCH: usize = 20_000;
/// Documents per shard file of `-o DIR`.
const SHARD_DOCS: usize = 100_000;

pub fn run(args: &SketchArgs) -> anyhow::Result<()> {
    args.index.check()?;
    let params = args.index.params();
    let banding = (args.index.bands as usize, args.index.rows as usize);
    let rows = Rows {
        banding,
        shingles: !args.no_shingles,
    };
    if args.stdin {
        return sketch_stdin(args, &params, &rows);
    }
    let out = args
        .out
        .as_deref()
        .expect("clap requires -o without --stdin");
    check_new_folder(out)?;
    let corpus = Corpus::walk(&args.inputs, &args.index.walk_options())
        .map_err(|e| UsageError(e.to_string()))?;
    let index = Index::build(corpus, &params, &Silent)?;
    std::fs::create_dir_all(out)?;
    let docs = index.docs();
    for (n, shard) in docs.chunks(SHARD_DOCS).enumerate() {
        let path = out.join(format!("part-{n:05}.jsonl"));
        write_shard(&path, |w| {
            for doc in shard {
                rows.write(w, &index, doc)?;
            }
            Ok(())
        })?;
    }
    write_meta(&out.join("_simtui.json"), &params, &rows, docs.len())?;
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

/// Writes a shard under a temporary name, then renames it: a crash leaves no
/// half-written shard under its final name.
fn write_shard(
    path: &Path,
    f: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> anyhow::Result<()> {
    let tmp = path.with_extension("jsonl.tmp");
    let result = (|| -> io::Result<()> {
        let mut w = io::BufWriter::new(std::fs::File::create(&tmp)?);
        f(&mut w)?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        anyhow::bail!("{}: {e}", path.display());
    }
    Ok(())
}

/// The parameters the keys were made with, beside the shards: whoever reads them can
/// check they match (a key of another k, seed or banding means nothing).
fn write_meta(path: &Path, params: &Params, rows: &Rows, docs: usize) -> anyhow::Result<()> {
    write_shard(path, |w| writeln!(w, "{}", metadata(params, rows, docs)))
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

/// What each row holds.
struct Rows {
    banding: (usize, usize),
    shingles: bool,
}

impl Rows {
    fn write(&self, w: &mut dyn Write, index: &Index, doc: &Doc) -> io::Result<()> {
        let g = doc.group;
        let empty = index.shingles().get(g as usize).is_empty();
        // An empty document pairs with nothing: it has no band keys (simtui bands only
        // documents with shingles).
        let bands: Vec<i64> = if empty {
            Vec::new()
        } else {
            let (b, r) = self.banding;
            index
                .band_keys(g, b, r)
                .into_iter()
                .map(|k| k as i64)
                .collect()
        };
        let mut obj = serde_json::Map::new();
        obj.insert("id".into(), doc.id.clone().into());
        obj.insert("source".into(), source_of(doc).into());
        obj.insert("tokens".into(), doc.tokens.into());
        obj.insert("bytes".into(), doc.bytes.into());
        obj.insert("bands".into(), bands.into());
        obj.insert(
            "signature".into(),
            index.signatures().row(g as usize).to_vec().into(),
        );
        if self.shingles {
            let set: Vec<i64> = index
                .shingles()
                .get(g as usize)
                .iter()
                .map(|&h| h as i64)
                .collect();
            obj.insert("shingles".into(), set.into());
        }
        writeln!(w, "{}", serde_json::Value::Object(obj))
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
/// with a text is said on stderr and skipped (its line number given).
fn sketch_stdin(args: &SketchArgs, params: &Params, rows: &Rows) -> anyhow::Result<()> {
    let input = &args.index;
    let text_field = input.text_field.clone();
    let id_field = input.id_field.clone();
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines().enumerate();
    with_stdout(|out| {
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
                return Ok(());
            }
            let index = Index::build(Corpus::from_texts(batch), params, &Silent)
                .map_err(|e| io::Error::other(e.to_string()))?;
            for doc in index.docs() {
                rows.write(out, &index, doc)?;
            }
        }
    })?;
    Ok(())
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
