//! `simtui clusters`: near-duplicates grouped (union-find over the verified pairs), each
//! cluster with the member to keep. With `--dupes`, the list of the others, one path per
//! line, for a delete or move step of the user's own: simtui never changes a file.

use super::args::PathArgs;
use super::corpus::{CorpusArgs, Purpose};
use crate::output::clusters::{KeepArg, LinkageArg, write_clusters};
use crate::output::error::UsageError;
use crate::output::file::{check_output_file, with_output};
use crate::output::format::printable;
use crate::output::format::{Format, Resolved, ResultFormat};
use clap::Args;
use simtui_engine::analysis::cluster::{Cluster, clusters_by};
use simtui_engine::index::Index;
use simtui_engine::index::Keep;
use simtui_engine::source::Source;
use std::io::{self, Write};
use std::path::Path;

#[derive(Args, Debug)]
pub struct ClustersArgs {
    #[command(flatten)]
    pub paths: PathArgs,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    /// Link documents whose exact Jaccard similarity is at least this
    ///
    /// Without -b/-r, the banding is chosen for T (said on stderr): the one with the fewest
    /// false candidates whose S-curve at T reaches 0.9 within 128 functions; with -b/-r
    /// whose S-curve at T is below 0.9, a warning gives a banding that reaches it.
    #[arg(short = 't', long)]
    pub threshold: f64,
    /// Keep the longest (default), shortest, oldest, newest or first member
    ///
    /// The member each cluster keeps: the longest or shortest (in tokens, then bytes), the
    /// oldest or newest (by file modification time), the first in the sorted walk, or by
    /// a metadata field: field:NAME keeps the earliest value, field:NAME:last the latest
    /// (dates as dates, numbers as numbers; the field is read as --meta-field reads it).
    /// [default: longest]
    #[arg(long, value_parser = KeepArg::parse, default_value = "longest", hide_default_value = true)]
    pub keep: KeepArg,
    /// Clusters: components (default) or star (no chains)
    ///
    /// components: connected components of the pairs with J >= T (a chain a~b~c is one
    /// cluster even when a and c are not similar). star: the document to keep first (by
    /// --keep), with every document still free within T of it, then the next: every
    /// member is within T of the kept one. Each cluster shows its least J to the kept one.
    #[arg(long, value_enum, value_name = "HOW", default_value_t = LinkageArg::Components, hide_default_value = true, hide_possible_values = true)]
    pub cluster: LinkageArg,
    /// Print only the duplicates (all but the kept member), one path a line
    ///
    /// Every member of every cluster but the one kept, one path per line: a list for a
    /// delete or move step of your own; simtui itself never changes a file. A duplicate
    /// whose path holds a new line or another control character is refused before
    /// anything is printed (-0 carries any path); so is a corpus of records (JSON Lines,
    /// SGML, Parquet), whose ids are no files: `simtui dedup` removes records.
    #[arg(long)]
    pub dupes: bool,
    /// With --dupes, end each path with NUL, not newline (for xargs -0)
    #[arg(short = '0', long, requires = "dupes")]
    pub null: bool,
    /// Output format: auto, table, jsonl, csv or parquet
    ///
    /// auto: a table on a terminal (coloured as --color says), JSON Lines when piped;
    /// with -o FILE, Parquet for a .parquet name, CSV for .csv, else JSON Lines. CSV has
    /// one row per member, and so has parquet: id, cluster (from 1), kept (the member
    /// --keep chose) and jaccard_to_kept (its exact J to that one); never onto a terminal.
    #[arg(long, value_enum, default_value_t = ResultFormat::Auto, hide_possible_values = true)]
    pub format: ResultFormat,
    /// Write the clusters (or --dupes) to FILE instead of standard output
    ///
    /// Written under a temporary name beside FILE and renamed when complete: an error
    /// leaves no half-written FILE. FILE's folder must exist; FILE is replaced if it exists.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Exit with status 1 when there is no cluster (no near-duplicates)
    #[arg(long)]
    pub fail_empty: bool,
    /// Link a bucket of over N contents (1000) via a representative
    ///
    /// Each member within the threshold of the bucket's first content joins its cluster,
    /// then the first of those left is compared with the rest, for at most 16 rounds:
    /// linear in the bucket's size where its pairs grow as its square (many near-identical
    /// copies of one page).
    #[arg(long, value_name = "N", default_value_t = 1000, hide_default_value = true, value_parser = clap::value_parser!(u64).range(2..))]
    pub max_bucket: u64,
}

pub fn run(args: &ClustersArgs, startup: &super::startup::Startup) -> anyhow::Result<()> {
    let roots = &args.paths.paths;
    args.corpus.check(Some(args.threshold))?;
    // Where and how the clusters go is checked before any work (--dupes: paths, as text).
    let output = args.output.as_deref();
    let resolved = if args.dupes {
        None
    } else {
        Some(args.format.resolve(output)?)
    };
    if let Some(file) = output {
        check_output_file(file)?;
    }
    args.corpus.paths(roots).output("-o", output).check()?;
    let mut index_args = args.corpus.index.clone();
    // A field rule reads its field with the documents.
    let keep = args.keep.resolve(&mut index_args.meta_field);
    // Only the table prints titles: any other output is built without them (at 500,000
    // files they were 118 MB of the index).
    let keep_what = match resolved {
        Some(Resolved::Text(Format::Table)) => Keep::AllButSets,
        _ => Keep::AllButTitles,
    };
    let purpose = Purpose {
        // Before the search: a corpus of records gives no list of files to delete.
        refuse: args.dupes.then_some(refuse_records),
        ..Purpose::at("clusters", args.threshold, startup, keep_what)
    };
    let opened = args.corpus.open(roots, index_args, purpose)?;
    let (engine, progress) = (&opened.engine, &opened.progress);
    let search = engine.search(args.threshold, Some(args.max_bucket as usize), progress)?;
    progress.finish();
    let index = &engine.index;
    let found = clusters_by(index, &search, keep, args.cluster.linkage())?;
    match resolved {
        None => {
            let end = if args.null { b'\0' } else { b'\n' };
            if !args.null {
                refuse_unsplittable(index, &found)?;
            }
            with_output(output, |out| write_dupes(out, index, &found, end))?;
        }
        Some(Resolved::Text(format)) => {
            with_output(output, |out| {
                write_clusters(out, index, &found, &args.keep, format)
            })?;
        }
        Some(Resolved::Parquet) => {
            with_output(output, |out| {
                crate::output::parquet::write_clusters(out, index, &found)
            })?;
        }
    }
    // A document that could not be read back from a temporary file fails the run.
    index.check()?;
    if args.fail_empty && found.is_empty() {
        return Err(crate::output::error::NoResult(format!(
            "no cluster with J >= {}",
            args.threshold
        ))
        .into());
    }
    Ok(())
}

/// `--dupes` lists files to delete: a record of a file of many documents (JSON Lines,
/// SGML, Parquet) has no file of its own, and its id is no path (an id can read `..` or
/// `/etc/passwd`, or hold a NUL). Such a corpus is refused, pointing to `dedup`, which
/// writes the corpus without the records.
fn refuse_records(index: &Index) -> Result<(), UsageError> {
    let mut records = index
        .docs()
        .iter()
        .filter(|d| !matches!(d.source, Source::File(_)));
    let Some(first) = records.next() else {
        return Ok(());
    };
    let n = 1 + records.count();
    Err(UsageError(format!(
        "--dupes lists files to delete, and {n} document(s) are records of a file of many \
         (the first in {}): `simtui dedup` writes the corpus without the duplicates (and \
         lists them), `clusters --format jsonl` names them",
        printable(
            &first
                .source
                .path()
                .unwrap_or(Path::new(&first.id))
                .to_string_lossy()
        )
    )))
}

/// One path a line is only safe when no path holds a line end: `zz\nimportant.txt`
/// would read as `important.txt`. A path with any control character refuses line mode
/// before anything is written, naming `-0`, whose NUL ends cannot be part of a path.
fn refuse_unsplittable(index: &Index, found: &[Cluster]) -> Result<(), UsageError> {
    let mut bad = found
        .iter()
        .flat_map(Cluster::duplicates)
        .filter_map(|d| match &index.docs().at(d as usize).source {
            Source::File(path) => Some(path.to_string_lossy().into_owned()),
            _ => None,
        })
        .filter(|p| p.chars().any(char::is_control));
    let Some(first) = bad.next() else {
        return Ok(());
    };
    let n = 1 + bad.count();
    Err(UsageError(format!(
        "{n} duplicate path(s) hold a new line or another control character ({}), which \
         one path a line cannot carry: use --dupes -0 (each path ended by NUL, for xargs -0)",
        printable(&first)
    )))
}

/// Every member but the representative, as a path the shell can use (the file as found,
/// not its id relative to the corpus root), in cluster order. Every document is a file
/// ([`refuse_records`]).
fn write_dupes(out: &mut dyn Write, index: &Index, found: &[Cluster], end: u8) -> io::Result<()> {
    for c in found {
        for d in c.duplicates() {
            if let Source::File(path) = &index.docs().at(d as usize).source {
                // A file read from an object store: its object's URL, not the local copy.
                write_path(out, &simtui_engine::source::object::named(path))?;
                out.write_all(&[end])?;
            }
        }
    }
    Ok(())
}

#[cfg(unix)]
fn write_path(out: &mut dyn Write, path: &std::path::Path) -> io::Result<()> {
    // The bytes as they are: a lossy conversion would name another file.
    use std::os::unix::ffi::OsStrExt;
    out.write_all(path.as_os_str().as_bytes())
}

#[cfg(not(unix))]
fn write_path(out: &mut dyn Write, path: &std::path::Path) -> io::Result<()> {
    out.write_all(path.to_string_lossy().as_bytes())
}
