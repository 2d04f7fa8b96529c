//! `--against REF` (dedup, pairs): the corpus opened with a reference corpus beside it,
//! one index of the reference's documents first and the corpus's after. REF is a saved
//! index (made by `simtui index`; its files are not read, they may be gone) or a corpus
//! (folders and files, indexed as the corpus is). REF is an input: never written.

use super::args::IndexArgs;
use super::banding;
use super::corpus::{CorpusArgs, OpenedCorpus, Purpose, build, engine};
use crate::output::error::store_error;
use simtui_engine::analysis::method::Engine;
use simtui_engine::error::{Error, FormatError};
use simtui_engine::index::{Index, Keep};
use simtui_engine::store::{self, Mode, Request};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The flag's help, the same for every command that takes it.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct AgainstArgs {
    /// Compare with a reference REF: a saved index, or folders and files
    ///
    /// Only what is near a document of the reference counts: pairs lists the pairs of a
    /// PATH document and a reference one; dedup removes from PATH every document within
    /// -t of a reference document, and deduplicates the rest among themselves. The
    /// reference is never written; a saved index's files are not read (they may be gone),
    /// and it must have been built with the same indexing flags.
    #[arg(long, value_name = "REF")]
    pub against: Option<PathBuf>,
}

/// A corpus opened beside its reference: the documents `0..reference` of the engine's
/// index are the reference's.
pub struct WithReference {
    pub opened: OpenedCorpus,
    pub reference: usize,
}

/// Whether `path` is a saved index (a corpus otherwise); an index file that cannot be
/// used (another version, truncated) is an error.
fn is_saved_index(path: &Path) -> anyhow::Result<bool> {
    if !path.is_file() {
        return Ok(false);
    }
    match store::check(path) {
        Ok(()) => Ok(true),
        Err(Error::IndexFile {
            problem: FormatError::NotIndex,
            ..
        }) => Ok(false),
        Err(e) => Err(store_error(e)),
    }
}

/// Opens the corpus at `roots` beside the reference `reference`, as
/// [`CorpusArgs::open`] opens a corpus (the banding chosen for the purpose's threshold,
/// the memory budget, progress). MinHash only.
pub fn open(
    corpus: &CorpusArgs,
    roots: &[PathBuf],
    reference: &Path,
    mut index: IndexArgs,
    purpose: Purpose,
) -> anyhow::Result<WithReference> {
    let start = corpus.start_minhash(&mut index, &purpose, "--against")?;
    let (note, method, progress, params) = (start.note, start.method, start.progress, start.params);
    let budget = progress.budget();
    // Both indexes keep their sets: they are joined into one.
    let keep = Keep::Everything;
    let reference_index: Arc<Index> = if is_saved_index(reference)? {
        let req = Request {
            file: reference.to_path_buf(),
            roots: Vec::new(),
            walk: index.walk_options(),
            params: params.clone(),
            mode: Mode::Open,
            budget: budget.clone(),
            titles: true,
        };
        let (index, report) = store::reference(&req, &progress).map_err(store_error)?;
        if let Some(tail) = report.tail_notice(reference) {
            crate::output::diag::say(format_args!("simtui: {tail}"));
        }
        Arc::new(index)
    } else {
        let roots = [reference.to_path_buf()];
        build(&roots, &index, &params, method, (budget, keep), &progress)?
            .0
            .index
    };
    let (new, walk) = engine(
        roots,
        Some(&corpus.store),
        &index,
        &corpus.method,
        (budget, keep),
        &progress,
    )?;
    let joined = store::joined(&[&reference_index, &new.index], budget).map_err(store_error)?;
    if let Some(refuse) = purpose.refuse {
        refuse(&joined)?;
    }
    banding::say(purpose.command, note);
    let engine = Engine {
        index: Arc::new(joined),
        method,
    };
    Ok(WithReference {
        opened: OpenedCorpus {
            engine: std::mem::ManuallyDrop::new(engine),
            progress,
            walk,
            index,
        },
        reference: reference_index.docs().len(),
    })
}
