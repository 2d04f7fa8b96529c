//! `simtui dedup`: the corpus written again without the near-duplicates each cluster
//! does not keep, in the input's own format, and `OUT.removed.jsonl`, the list of what
//! was removed and which document was kept in its place. The input is never written
//! into; OUT appears under its name only when complete.

use super::args::PathArgs;
use super::corpus::{CorpusArgs, Purpose};
use crate::input::removals;
use crate::input::side_input;
use crate::output::clusters::{KeepArg, LinkageArg};
use crate::output::error::{UsageError, store_error};
use crate::output::format::with_stdout;
use crate::output::object::Target;
use anyhow::Context;
use clap::Args;
use simtui_engine::analysis::cluster::clusters_by;
use simtui_engine::analysis::dedup::{self, Partial, Removal};
use simtui_engine::index::Doc;
use simtui_engine::index::Index;
use simtui_engine::index::Keep;
use simtui_engine::source::Source;
use simtui_engine::source::object;
use std::collections::HashSet;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct DedupArgs {
    #[command(flatten)]
    pub paths: PathArgs,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    /// Where the deduplicated corpus goes
    ///
    /// A new folder, or a new file when the input is one file (JSON Lines, SGML, Parquet).
    #[arg(short = 'o', long, value_name = "OUT")]
    pub output: PathBuf,
    /// Remove documents with exact J at least this to a kept one
    #[arg(short = 't', long)]
    pub threshold: f64,
    /// Keep the longest (default), shortest, oldest, newest or first member
    ///
    /// Or by a metadata field: field:NAME keeps the earliest value, field:NAME:last the
    /// latest (as clusters --keep).
    #[arg(long, value_parser = KeepArg::parse, default_value = "longest", hide_default_value = true)]
    pub keep: KeepArg,
    /// Clusters: star (default, no chains) or components
    ///
    /// star: every removed document is within T of the one kept in its place.
    /// components: connected components, as clusters --cluster components.
    #[arg(long, value_enum, value_name = "HOW", default_value_t = LinkageArg::Star, hide_default_value = true, hide_possible_values = true)]
    pub cluster: LinkageArg,
    /// Ids never removed, one a line
    ///
    /// A review's list of removals marked wrong; lines starting with # are comments.
    #[arg(long, value_name = "FILE")]
    pub keep_list: Option<PathBuf>,
    /// Replace OUT (and OUT.removed.jsonl) if an earlier dedup wrote them
    ///
    /// Only an earlier output of dedup is replaced: a folder holding the .simtui-dedup file
    /// dedup writes in it (or an empty folder), a file with its removal list beside it, a
    /// removal list as dedup writes it. Never any other folder or file, nor an input or a
    /// folder holding one.
    #[arg(long)]
    pub force: bool,
    /// Print the counts and write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Keep every record and mark it instead of removing duplicates
    ///
    /// OUT holds every record with four more fields (JSON Lines) or columns (Parquet):
    /// cluster (from 1, as OUT.removed.jsonl numbers them; null for a record with no
    /// near-duplicate), cluster_size, kept (false for what dedup would remove) and
    /// jaccard_to_kept. OUT.removed.jsonl still lists the records marked kept: false.
    /// Inputs of plain files or SGML are refused (clusters --format jsonl lists theirs).
    #[arg(long)]
    pub annotate: bool,
    /// Copy a folder even when some of its paths cannot be copied
    ///
    /// Every path of a folder is copied but the removed documents: hidden files, `.git`,
    /// files that are no documents (binary, too large, not --ext), empty folders, hard
    /// links (as hard links) and symbolic links (as links; with --follow, one that leads
    /// out of the tree is copied as what it leads to, as the corpus read it). FIFOs,
    /// sockets, devices and what cannot be read cannot be copied: without
    /// this flag they refuse the copy before any work (named, -v lists them all); with
    /// it they are left out, counted in the summary.
    #[arg(long)]
    pub allow_incomplete: bool,
    /// Link a bucket of over N contents (1000) via a representative
    #[arg(long, value_name = "N", default_value_t = 1000, hide_default_value = true, value_parser = clap::value_parser!(u64).range(2..))]
    pub max_bucket: u64,
    #[command(flatten)]
    pub against: super::against::AgainstArgs,
    /// Save each shard's work beside OUT; go on after an interrupted run
    ///
    /// Each file of many documents (a JSON Lines, SGML or Parquet shard), and each run of
    /// plain files up to 64 MiB, is indexed alone, saved in .OUT.simtui-resume beside OUT
    /// and counted done there; a run killed and started again with --resume (the same
    /// inputs and flags) indexes only the shards not done. The search, the clusters and
    /// the output need the whole corpus: they run once every shard is indexed, from what
    /// was saved, and write the same bytes as a run without --resume. An earlier output of
    /// dedup at OUT with no journal beside it (a run killed as it ended) is written again,
    /// as with --force; anything else there is refused.
    #[arg(long, conflicts_with_all = ["against", "index"])]
    pub resume: bool,
}

pub fn run(args: &DedupArgs, startup: &super::startup::Startup) -> anyhow::Result<()> {
    args.corpus.check(Some(args.threshold))?;
    let removed_list = removal_list_path(&args.output);
    let paths = &args.paths.paths;
    let reference = args.against.against.as_deref();
    if reference.is_some() && args.annotate {
        return Err(UsageError("--annotate does not take --against".into()).into());
    }
    (args.corpus.paths(paths))
        .input("--keep-list", args.keep_list.as_deref())
        .input("--against", reference)
        .output("-o", args.output.as_path())
        .output("the removal list", removed_list.as_path())
        .check()?;
    // An output in an object store is written here first, then uploaded; inputs in one
    // are read from their local copies.
    let target = if args.dry_run {
        Target::new(Path::new(""), &[])?
    } else {
        Target::new(&args.output, &[REMOVED])?
    };
    let input = args.corpus.index.walk_options().input;
    let paths = &object::localize(paths, &input).map_err(store_error)?;
    let single = paths.len() == 1 && paths[0].is_file();
    let (out, removal_list) = (target.path(), removal_list_path(target.path()));
    if args.resume && object::is_url(&args.output) {
        return Err(UsageError(
            "--resume keeps its journal in a folder beside OUT: give a local -o".into(),
        )
        .into());
    }
    // Resuming, what the interrupted run wrote may be replaced (only an output of dedup).
    // A run killed after it removed its journal has left its output whole and no
    // journal: resumed, it is written again (the same bytes), as --force would.
    let journal = super::resume::folder(out).is_dir();
    let ended = args.resume && !journal && [out, &removal_list].iter().any(|p| p.exists());
    if ended && !args.force && !args.dry_run {
        crate::output::diag::note(
            0,
            format!(
                "{}: no journal beside it (a run killed as it ended, or an earlier output): \
                 --resume writes it again if it is an output of dedup",
                out.display()
            ),
        );
    }
    let force = args.force || (args.resume && (journal || ended));
    if !args.dry_run {
        check_replace(out, &removal_list, single, force)?;
    }
    let keep_list = read_keep_list(args.keep_list.as_deref())?;
    // Every path of the input, as the copy mirrors it: what cannot be copied is refused
    // before any work, unless --allow-incomplete.
    let files = dedup::input_files(paths, args.corpus.index.follow)?;
    refuse_uncopyable(&files, args.allow_incomplete)?;
    let mut index_args = args.corpus.index.clone();
    // A field rule reads its field with the documents.
    let keep = args.keep.resolve(&mut index_args.meta_field);
    let purpose = Purpose::at("dedup", args.threshold, startup, Keep::AllButTitles);
    let mut journal = None;
    let (opened, reference) = match reference {
        None if args.resume => {
            let (opened, j) =
                super::resume::open_units(&args.corpus, paths, out, index_args, purpose)?;
            journal = Some(j);
            (opened, None)
        }
        Some(r) => {
            let with = super::against::open(&args.corpus, paths, r, index_args, purpose)?;
            (with.opened, Some(with.reference))
        }
        None => (args.corpus.open(paths, index_args, purpose)?, None),
    };
    let (engine, progress) = (&opened.engine, &opened.progress);
    let search = engine.search(args.threshold, Some(args.max_bucket as usize), progress)?;
    let index = &engine.index;
    let linkage = (keep, args.cluster.linkage());
    let (clusters, removals, for_reference) = match reference {
        Some(n) => {
            let a = dedup::against(index, &search, n, linkage, &keep_list)?;
            (a.clusters, a.removals, a.for_reference)
        }
        None => {
            let clusters = clusters_by(index, &search, linkage.0, linkage.1)?;
            let removals = dedup::removals(index, &clusters, &keep_list);
            (clusters, removals, 0)
        }
    };
    // A similarity that could not be read back (a text changed since it was read).
    index.check()?;
    let docs = index.docs().len() - reference.unwrap_or(0);
    let against = match reference {
        Some(n) => format!(
            " against {n} reference documents ({for_reference} near a reference document, \
             then among the rest)"
        ),
        None => String::new(),
    };
    let summary = format!(
        "{docs} documents{against}, {} clusters, {} {}, {} left{}",
        clusters.len()
            + removals[removals.len() - for_reference..]
                .iter()
                .map(|r| r.cluster)
                .collect::<HashSet<_>>()
                .len(),
        removals.len(),
        if args.annotate {
            "marked kept: false"
        } else {
            "removed"
        },
        docs - removals.len(),
        if keep_list.is_empty() {
            String::new()
        } else {
            format!(" ({} ids kept by --keep-list)", keep_list.len())
        }
    );
    if args.dry_run {
        progress.finish();
        with_stdout(|out| writeln!(out, "{summary} (dry run: nothing written)"))?;
        return Ok(());
    }
    let meta = &opened.index.meta_field;
    let list = RemovalList {
        index,
        meta,
        reference,
    };
    // Resuming, the list first: a run killed between the two leaves a list that --force
    // may replace, never a single-file output without its list.
    if journal.is_some() {
        write_removal_list(&removal_list, &list, &removals, force)?;
    }
    let written = if args.annotate {
        let notes = dedup::annotations(index, &clusters, &removals);
        dedup::write_annotated(index, &files, &notes, out, single, force, progress)?
    } else {
        dedup::write_corpus(index, &files, &removals, out, single, force, progress)?
    };
    if journal.is_none() {
        write_removal_list(&removal_list, &list, &removals, force)?;
    }
    // A document that could not be read back from a temporary file fails the run before
    // the output takes its place.
    index.check()?;
    target.finish()?;
    progress.finish();
    crate::output::diag::note(
        0,
        format_args!(
            "simtui: {summary}; wrote {} ({}) and {}",
            args.output.display(),
            copied(&written),
            removed_list.display()
        ),
    );
    for (path, why) in &written.left_out {
        crate::output::diag::note(1, format_args!("left out {}: {why}", path.display()));
    }
    if let Some(journal) = journal {
        journal.finish();
    }
    Ok(())
}

/// Paths the copy cannot make (FIFOs, sockets, devices, what cannot be read): a usage
/// error naming the first few (-v: all of them), unless `allowed`.
fn refuse_uncopyable(files: &dedup::InputFiles, allowed: bool) -> Result<(), UsageError> {
    let cannot: Vec<(PathBuf, &str)> = files.uncopyable().collect();
    if cannot.is_empty() || allowed {
        return Ok(());
    }
    for (path, why) in &cannot {
        crate::output::diag::note(1, format_args!("cannot copy {}: {why}", path.display()));
    }
    let named: Vec<String> = cannot
        .iter()
        .take(3)
        .map(|(p, why)| format!("{} ({why})", p.display()))
        .collect();
    let more = match cannot.len() {
        n if n > 3 => format!(" and {} more (-v lists them)", n - 3),
        _ => String::new(),
    };
    Err(UsageError(format!(
        "the copy would leave out {} path(s) it cannot copy: {}{more}; \
         --allow-incomplete writes it without them",
        cannot.len(),
        named.join(", ")
    )))
}

/// What the copy holds and what it left out, each kind counted (kinds of none left out).
fn copied(w: &dedup::Written) -> String {
    let mut kinds = Vec::new();
    let mut count = |n: u64, what: String| {
        if n > 0 {
            kinds.push(format!("{n} {what}"));
        }
    };
    count(w.documents, "document file(s)".into());
    let records = match w.records_annotated {
        0 => format!("{} record(s) left out", w.records_removed),
        n => format!("{n} record(s) annotated"),
    };
    count(w.record_files, format!("file(s) of records ({records})"));
    count(w.copied_unread, "other file(s) as they were".into());
    count(w.hard_links, "hard link(s)".into());
    count(
        w.symlinks,
        match w.dangling {
            0 => "symlink(s)".to_string(),
            n => format!("symlink(s) ({n} to a removed file: they reach nothing now)"),
        },
    );
    count(w.folders, "folder(s)".into());
    let mut out = if kinds.is_empty() {
        "nothing copied".to_string()
    } else {
        kinds.join(", ")
    };
    if w.files_removed > 0 {
        out.push_str(&format!("; left out {} removed file(s)", w.files_removed));
    }
    if !w.left_out.is_empty() {
        out.push_str(&format!(
            " and {} path(s) that cannot be copied (-v names them)",
            w.left_out.len()
        ));
    }
    out
}

/// Checks, before any work, that OUT and its removal list may be written: neither
/// exists, or with `--force` both are an earlier output of `dedup` (a folder with
/// [`dedup::MARKER`] in it, or empty; a file with simtui's removal list beside it; a
/// removal list in simtui's shape). Anything else is never replaced.
fn check_replace(out: &Path, list: &Path, single: bool, force: bool) -> Result<(), UsageError> {
    let exists = |p: &Path| p.symlink_metadata().is_ok();
    if !force {
        return match [out, list].into_iter().find(|p| exists(p)) {
            Some(p) => Err(UsageError(format!(
                "{} exists: choose another -o, or --force to replace an earlier output of dedup",
                p.display()
            ))),
            None => Ok(()),
        };
    }
    dedup::check_replace(out, single).map_err(|e| UsageError(e.to_string()))?;
    let earlier = "--force replaces only an earlier output of simtui dedup";
    if exists(list) && !removals::is_simtui_list(list) {
        return Err(UsageError(format!(
            "{} is not a removal list simtui dedup wrote: {earlier}",
            list.display()
        )));
    }
    if single && out.is_file() && !exists(list) {
        return Err(UsageError(format!(
            "{} has no removal list beside it ({}), so it may not be an output of dedup: {earlier}",
            out.display(),
            list.display()
        )));
    }
    Ok(())
}

/// What the removal list's name adds to OUT's.
const REMOVED: &str = ".removed.jsonl";

/// `OUT.removed.jsonl` beside OUT.
pub fn removal_list_path(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(REMOVED);
    out.with_file_name(name)
}

fn read_keep_list(path: Option<&Path>) -> anyhow::Result<HashSet<String>> {
    let Some(path) = path else {
        return Ok(HashSet::new());
    };
    // A regular file within a limit: `--keep-list /dev/zero` is an error, not a read
    // without end.
    let limit = side_input::KEEP_LIST_LIMIT;
    let text = side_input::text(path, limit)
        .map_err(|why| UsageError(side_input::named("--keep-list", path, &why)))?;
    // Read as the explorer's review writes it.
    Ok(crate::input::removals::keep_ids(&text)
        .into_iter()
        .collect())
}

/// What a removal list names: the documents of `index`, the `meta` fields, and with
/// `--against` how many of the documents are the reference's (the first ones).
struct RemovalList<'a> {
    index: &'a Index,
    meta: &'a [String],
    reference: Option<usize>,
}

/// One JSON line per removed document: its id and source, the kept id, J between
/// them, the cluster (from 1); with `--meta-field`, each one's values of those fields
/// (`meta`, `kept_meta`: what a reviewer checks first, such as two reports' dates).
/// Written under a temporary name, then renamed.
fn write_removal_list(
    path: &Path,
    list: &RemovalList,
    removals: &[Removal],
    replace: bool,
) -> anyhow::Result<()> {
    let (index, meta) = (list.index, list.meta);
    let partial = Partial::new(path, replace)?;
    (|| -> std::io::Result<()> {
        let mut out = BufWriter::new(std::fs::File::create(&partial.tmp)?);
        for r in removals {
            let removed = &index.docs().at(r.removed as usize);
            let kept = &index.docs().at(r.kept as usize);
            let mut line = serde_json::json!({
                "id": removed.id,
                "source": source_of(removed),
                "kept": kept.id,
                "jaccard": r.jaccard,
                "cluster": r.cluster,
            });
            // Against a reference: whether the kept one is the reference's, and where.
            if let Some(n) = list.reference {
                line["reference"] = ((r.kept as usize) < n).into();
                line["kept_source"] = source_of(kept).into();
            }
            if !meta.is_empty() {
                let values = |d: &simtui_engine::index::Doc| -> serde_json::Map<_, _> {
                    meta.iter()
                        .zip(d.meta())
                        .map(|(name, v)| (name.clone(), serde_json::Value::from(v.as_str())))
                        .collect()
                };
                line["meta"] = values(removed).into();
                line["kept_meta"] = values(kept).into();
            }
            writeln!(out, "{line}")?;
        }
        out.into_inner().map_err(|e| e.into_error())?.sync_all()
    })()
    .with_context(|| format!("cannot write {}", path.display()))?;
    // On an error above, the partial list is removed as `partial` is dropped.
    Ok(partial.commit()?)
}

/// Where a document is: its file, `FILE:LINE` for a record (`FILE:ROW` for Parquet), or
/// its id for a text in memory.
/// A file read from an object store is named by its URL.
fn source_of(doc: &Doc) -> String {
    let shown = |p: &Path| object::named(p).to_string_lossy().into_owned();
    match &doc.source {
        Source::File(p) => shown(p),
        Source::Part(p) => shown(&p.place()),
        Source::Container(_) | Source::Memory(_) => match doc.source.path() {
            Some(p) => shown(p),
            None => doc.id.clone(),
        },
    }
}
