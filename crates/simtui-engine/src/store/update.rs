//! Bringing a saved index up to date with the files: which saved files are reused
//! as they are ([`Plan`]), the others indexed anew, and the two merged into the index a
//! fresh run would build, group for group.

use super::decode::Seal;
use super::encode::{Failed, FilesOut, as_doc_out};
use super::file_recs::{FileRecs, Settle};
use super::files::{LET_GO, Plan, WalkFile, let_go, moved, records, table_bytes};
use super::format::{self, FileRec, Saved};
use super::head::{DocStream, Later};
use super::interned::Interned;
use super::plan::Planned;
use super::stamps::{hash_file, stamp};
use super::{Report, file_of, part_of, source_of};
use crate::error::Result;
use crate::index::build::Failure;
use crate::index::docs::DocsWriter;
use crate::index::{Doc, Docs, Index, IndexBuilder, Params};
use crate::progress::Progress;
use crate::shingle::ShingleSets;
use crate::sketch::Signatures;
use crate::source::{self, Corpus, Skipped, Source};
use crate::storage::{Budget, Room};
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

pub(super) struct Update {
    pub(super) index: Index,
    pub(super) files: FileRecs,
    /// The index differs from the file's.
    pub(super) dirty: bool,
    /// The index's documents are the saved ones, in order, without the titles left in
    /// the file ([`titled`] reads them if it is written again).
    pub(super) untitled: bool,
}

/// Gives the documents of an index opened `untitled` their titles, read from the file.
pub(super) fn titled(index: &mut Index, later: &Later) -> Result<()> {
    let titles = saved_titles(later, index.docs.len())?;
    for (d, title) in index.docs.held_mut().iter_mut().zip(titles) {
        d.set_title(title);
    }
    index.text_bytes = index.docs.text_bytes();
    Ok(())
}

/// The titles of the `n` saved documents, in order, read from the file.
fn saved_titles(later: &Later, n: usize) -> Result<Vec<String>> {
    let mut titles = Vec::with_capacity(n);
    later.titles(n, &mut |title| titles.push(title))?;
    Ok(titles)
}

/// The index of the files planned to be read, their walk entries moved out of `corpus`
/// into it (a copy of them held two of every path while the index was built), or copied
/// when the caller keeps the walk (`keep`). Their records get their hashes, taken before
/// reading, and keep their stamps only when the file did not change while it was read
/// (else it is read again next time).
pub(super) fn read_anew(
    files: &mut [WalkFile],
    walk: (&mut Corpus, bool),
    wanted: (&Params, &Budget),
    progress: &dyn Progress,
) -> Result<Index> {
    hash_read(files, wanted.0);
    let listed = files.iter().all(|f| f.listed().is_some());
    let entries = if files.iter().all(WalkFile::is_read) && listed {
        moved(&mut walk.0.entries, walk.1)
    } else {
        let empty = empty_path();
        let hollow = || hollow(&empty);
        let read = files.iter().filter(|f| f.is_read());
        // Exactly the room needed: grown by doubling, up to twice the list.
        let mut entries = Vec::with_capacity(read.map(WalkFile::entry_count).sum());
        for f in files.iter_mut().filter(|f| f.is_read()) {
            let mine = f.mine(&mut walk.0.entries, 0);
            f.entries_into((mine, walk.1), &hollow, &mut entries);
        }
        entries
    };
    let index = build(entries, wanted, progress)?;
    (files.par_iter_mut().filter(|f| f.is_read())).for_each(|f| unstamp_if_changed(&mut f.rec));
    Ok(index)
}

/// Gives each file to read its hash, taken before it is read.
pub(super) fn hash_read(files: &mut [WalkFile], params: &Params) {
    files
        .par_iter_mut()
        .filter(|f| f.is_read())
        .for_each(|f| f.rec.set_hash(hash_file(f.path(), params.max_bytes)));
}

/// The index of `entries`, kept whole (the sets are saved), in the budget: past it, the
/// documents, sets and signatures on temporary files.
pub(super) fn build(
    entries: Vec<source::Entry>,
    (params, budget): (&Params, &Budget),
    progress: &dyn Progress,
) -> Result<Index> {
    let corpus = Corpus {
        entries,
        skipped: Vec::new(),
    };
    Index::builder(params)
        .budget(budget)
        .build(corpus, progress)
}

/// Drops the stamp of a file read that changed while it was read (or has none): it is
/// read again next time.
pub(super) fn unstamp_if_changed(rec: &mut FileRec) {
    if rec.stamp.is_none() || rec.stamp != stamp(&rec.path) {
        rec.unstamp();
    }
}

/// What is left of a walk entry moved into the index: nothing on the heap.
pub(super) fn hollow(empty: &Arc<Path>) -> source::Entry {
    source::Entry {
        id: String::new(),
        source: Source::File(empty.clone()),
        bytes: 0,
    }
}

/// An empty path, shared by whatever no longer names a file (one allocation, not one
/// per file).
pub(super) fn empty_path() -> Arc<Path> {
    Arc::from(Path::new(""))
}

/// The up-to-date index: saved documents of unchanged files, the others indexed now,
/// within `budget` (the sets of both past it on temporary files).
pub(super) fn update(
    (corpus, keep): (&mut Corpus, bool),
    (mut files, planned): (Vec<WalkFile>, Planned),
    (mut saved, later, untitled): (Option<Saved>, Option<&Later>, bool),
    (params, budget): (&Params, &Budget),
    settle: &Settle,
    report: &mut Report,
    progress: &dyn Progress,
) -> Result<Update> {
    let Planned { starts, touched } = planned;
    let width = saved
        .as_ref()
        .map_or(params.num_perm, |s| s.signatures.width());
    let sub_params = Params {
        num_perm: width,
        ..params.clone()
    };
    // The table of files is held beside all that is built, outside the index: what is
    // built keeps to what the limit leaves it (at least a search's work).
    let budget = &Budget {
        bytes: budget.left(table_bytes(&files)),
        ..budget.clone()
    };
    let walk = (&mut *corpus, keep);
    let fresh = read_anew(&mut files, walk, (&sub_params, budget), progress)?;
    // Every file reused, in the saved order (so none read).
    let all_reused = saved.is_some()
        && starts.len() == files.len()
        && (files.iter().enumerate()).all(|(k, f)| f.plan() == Plan::Reuse(k));
    // A saved index is loaded with where its documents are.
    let saved_docs = || later.expect("a saved index's documents");
    if all_reused {
        // Every file is saved file number its place: where their documents start is
        // not needed.
        drop(starts);
        let saved = saved.expect("a saved index");
        let stream = saved_docs().docs(!untitled);
        let wanted = (&sub_params, budget);
        let walk = (corpus, keep);
        // None touched, every record is the saved one: not held (see `FileRecs::AsSaved`).
        let as_saved = (!touched).then_some(settle);
        let (index, files, dirty) = reuse_all(files, (saved, stream), walk, wanted, as_saved)?;
        return Ok(Update {
            index,
            files,
            dirty: dirty || touched,
            untitled,
        });
    }
    // Merged with documents read anew, the index is written again, with every title:
    // the saved documents are decoded whole (those of unchanged files are taken).
    if let Some(s) = saved.as_mut() {
        s.docs = saved_docs().docs(true).collect::<Result<_>>()?;
        report.records_of.1 = s.docs.len();
        report.records_held += s.docs.iter().map(format::DocRec::heap_bytes).sum::<u64>();
    }
    let room = budget.room(budget.for_index());
    let (index, dirty) = merge(
        &mut files,
        (saved.as_ref(), &starts),
        fresh,
        (corpus, keep),
        (&sub_params, room),
    )?;
    Ok(Update {
        index,
        files: FileRecs::Held(records(files)),
        dirty,
        untitled: false,
    })
}

/// Saved file `i`'s documents, `starts` saying where each file's begin.
fn docs_of_saved_file<'a>(
    s: &'a Saved,
    starts: &[u32],
    (i, n): (usize, u32),
) -> impl Iterator<Item = format::DocRec> + 'a {
    let start = starts[i] as usize;
    s.docs[start..start + n as usize].iter().cloned()
}

/// Every file unchanged, in the same order: the saved groups are the index's, as they
/// are.
///
/// The saved records are taken in order, each one's strings moved into the document
/// made of it; past the budget the documents go to a temporary file as they are made
/// (their ids, groups and sizes kept), as a build's do. The walk's entries, unless kept
/// (`keep`), are let go of as their documents are made: `corpus.entries` is then left
/// empty or nearly. When the files' records are the saved ones (`as_saved`: none was
/// touched), the files are let go of too, each file's stamp checked by `as_saved` (a
/// racy one makes the index to be written again without it); else the walk's files
/// become the records, in place.
fn reuse_all(
    mut files: Vec<WalkFile>,
    (s, mut saved_docs): (Saved, DocStream),
    (corpus, keep): (&mut Corpus, bool),
    (params, budget): (&Params, &Budget),
    as_saved: Option<&Settle>,
) -> Result<(Index, FileRecs, bool)> {
    let Saved {
        shingles,
        signatures,
        contents,
        ..
    } = s;
    let mut dirty = false;
    let (count, total) = (files.len(), files.iter().map(|f| f.rec.docs as usize).sum());
    let mut docs = DocsWriter::new(0);
    let failure = Failure::default();
    let mut skipped = corpus.skipped.clone();
    // The walk's entries before `gone` are let go of (see `let_go`). When their records
    // are the saved ones, the files are taken from the end of the table turned round,
    // which is cut to its length as it goes: no file moves (a large table is its own
    // mapping, which the allocator shortens in place).
    let mut gone = 0usize;
    let mut racy = Vec::new();
    if as_saved.is_some() {
        files.reverse();
    }
    let mut taken;
    for k in 0..count {
        let f = match as_saved {
            Some(_) => {
                taken = files.pop().expect("a file each time round");
                &mut taken
            }
            None => &mut files[k],
        };
        let n = f.rec.docs as usize;
        let mine: Vec<format::DocRec> = saved_docs.by_ref().take(n).collect::<Result<_>>()?;
        // Loading checked that the files' records count the segments' documents.
        debug_assert_eq!(mine.len(), n);
        let push = &mut |d| docs.push(d);
        let entries = (f.mine(&mut corpus.entries, gone), keep);
        reuse_file(
            f,
            mine.into_iter(),
            entries,
            push,
            &mut skipped,
            &mut dirty,
            Ok,
        )?;
        if let (false, Some(r)) = (keep, f.listed()) {
            gone += let_go(&mut corpus.entries, r.end - gone);
        }
        if let Some(settle) = as_saved {
            if f.rec.stamp.as_ref().is_some_and(|s| settle.is_racy(s)) {
                // Numbered in 32 bits, as the plans number them.
                racy.push(k as u32);
                dirty = true;
            }
            if files.capacity() - files.len() >= LET_GO {
                files.shrink_to_fit();
                crate::storage::memory::give_back_past(budget.bytes);
            }
        }
        if !docs.on_file() && past(budget, docs.held_bytes(), (docs.len(), total)) {
            docs.onto_file(budget.room(0), failure.clone())?;
            crate::storage::memory::give_back_past(budget.bytes);
        }
    }
    let docs = (docs.finish()?, failure);
    let parts = (shingles, signatures, contents);
    let recs = match as_saved {
        Some(_) => FileRecs::AsSaved { count, racy },
        None => FileRecs::Held(records(files)),
    };
    let index = IndexBuilder::new(params).assemble(docs, skipped, parts);
    Ok((index, recs, dirty))
}

/// Whether `held` bytes for `done` of `total` documents, as many again for the rest,
/// pass what `budget` leaves an index.
fn past(budget: &Budget, held: u64, (done, total): (usize, usize)) -> bool {
    let projected = held.saturating_mul(total.max(1) as u64) / done.max(1) as u64;
    budget.is_limited() && projected > budget.for_index()
}

/// The saved documents of unchanged files and the documents of the files read anew, in
/// walk order, their groups numbered anew in order of first appearance; and whether it
/// differs from the saved index. Each file's record is completed: its status and number
/// of documents, and a reused file's hash and reading as saved.
fn merge(
    files: &mut [WalkFile],
    (saved, starts): (Option<&Saved>, &[u32]),
    mut fresh: Index,
    (corpus, keep): (&mut Corpus, bool),
    (params, room): (&Params, Room),
) -> Result<(Index, bool)> {
    // Nothing saved reused: the documents are the build's, in the same order, and its
    // groups are already numbered in order of first appearance, as interning them here
    // would number them. Its documents, sets and signatures are taken as they are, not
    // copied (a second vector of the documents held both at once).
    let reused = files.iter().any(|f| !f.is_read());
    let mut groups = reused.then(|| Interned::new(params.num_perm, room));
    let built = std::mem::take(&mut fresh.docs);
    // Else the documents read anew are moved over, one by one, not copied.
    let (sub_docs, built) = match reused {
        true => (built.into_vec(), None),
        false => (Vec::new(), Some(built)),
    };
    let mut sub_docs = sub_docs.into_iter().peekable();
    // The build's documents are counted file by file, read in order where they are.
    let mut counted = built.as_ref().map(|b| b.iter().peekable());
    let sub = &fresh;
    let mut dirty = true;
    let walked = || files.iter().map(WalkFile::entry_count).sum();
    let mut docs: Vec<Doc> = Vec::with_capacity(if reused { walked() } else { 0 });
    let mut skipped = corpus.skipped.clone();
    let sub_skips: HashMap<&Path, &Skipped> =
        sub.skipped.iter().map(|s| (s.path.as_path(), s)).collect();
    let record_skips = record_skips(files, &fresh);
    let mut cursor = 0usize;
    for f in files.iter_mut() {
        match f.plan() {
            Plan::Reuse(i) => {
                let s = saved.expect("a saved index");
                let groups = groups.as_mut().expect("interned when a file is reused");
                let group = |g: u32| -> Result<u32> {
                    let (set, row) = (s.shingles.get(g as usize)?, s.signatures.row(g as usize)?);
                    groups.intern(s.contents[g as usize], &set, &row)
                };
                let skipped = &mut skipped;
                let push = &mut |d| {
                    docs.push(d);
                    Ok(())
                };
                let mine = docs_of_saved_file(s, starts, (i, f.rec.docs));
                reuse_file(
                    f,
                    mine,
                    (f.mine(&mut corpus.entries, 0), keep),
                    push,
                    skipped,
                    &mut dirty,
                    group,
                )?;
            }
            Plan::Read => {
                let skip = sub_skips.get(&**f.path());
                if let Some(s) = skip {
                    skipped.push((*s).clone());
                }
                let first = cursor;
                if let Some(c) = counted.as_mut() {
                    cursor += whose_docs(c, f.path()) as usize;
                }
                while let Some(d) = sub_docs.next_if(|d| file_of(&d.source) == Some(&**f.path())) {
                    let g = d.group as usize;
                    let groups = groups.as_mut().expect("interned when a file is reused");
                    let (set, row) = (sub.shingles.get(g)?, sub.signatures.row(g)?);
                    let group = groups.intern(sub.contents[g], &set, &row)?;
                    docs.push(Doc { group, ..d });
                    cursor += 1;
                }
                read_record(&mut f.rec, skip.copied(), (cursor - first) as u32);
            }
        }
    }
    drop((sub_docs, counted));
    skipped.extend(record_skips);
    let docs = match built {
        Some(built) => {
            debug_assert_eq!(cursor, built.len(), "every document built is a file's");
            built
        }
        None => Docs::from_vec(docs),
    };
    Ok((merged_index(fresh, docs, skipped, groups, params)?, dirty))
}

/// How many of the next documents of `docs` are file `path`'s, passed over.
pub(super) fn whose_docs<'d>(
    docs: &mut std::iter::Peekable<impl Iterator<Item = Cow<'d, Doc>>>,
    path: &Path,
) -> u32 {
    let mut n = 0;
    while docs.next_if(|d| file_of(&d.source) == Some(path)).is_some() {
        n += 1;
    }
    n
}

/// The skips of records of the files read (bad lines, too short, ...): the files' own
/// skips go in their records (made by `merge`). Looked up among the skips, which are few,
/// not among the files read (a set of every path read was 17 MB at 500,000 files).
fn record_skips(files: &[WalkFile], fresh: &Index) -> Vec<Skipped> {
    use std::collections::HashSet;
    let skips = &fresh.skipped;
    let skipped: HashSet<&Path> = skips.iter().map(|s| s.path.as_path()).collect();
    let read = files.iter().filter(|f| f.is_read()).map(|f| &**f.path());
    let files_skipped: HashSet<&Path> = read.filter(|p| skipped.contains(p)).collect();
    skips
        .iter()
        .filter(|s| !files_skipped.contains(s.path.as_path()))
        .cloned()
        .collect()
}

/// The index of the merged documents: ids renamed as a fresh run renames them, and the
/// groups interned; or, nothing saved reused, the build's own documents (wherever they
/// are, their ids already made unique), sets and signatures, taken as they are.
pub(super) fn merged_index(
    fresh: Index,
    docs: Docs,
    skipped: Vec<Skipped>,
    groups: Option<Interned>,
    params: &Params,
) -> Result<Index> {
    let (times, largest) = (fresh.stats.times, fresh.stats.largest.clone());
    let mut index = match groups {
        Some(groups) => index_of(docs.into_vec(), skipped, groups.finish()?, params),
        None => {
            let built = fresh;
            let shingles = Arc::try_unwrap(built.shingles).unwrap_or_else(|a| (*a).clone());
            let parts = (shingles, built.signatures, built.contents);
            let builder = IndexBuilder::new(params);
            let mut index = builder.assemble((docs, built.failure), skipped, parts);
            index.stats.renamed = built.stats.renamed;
            index
        }
    };
    index.stats.times = times;
    index.stats.largest = largest;
    Ok(index)
}

/// The index of `docs` (ids that clash renamed as a fresh run renames them,
/// `ID@FILE:LINE`, and counted) over their groups' sets, signatures and content hashes.
pub(super) fn index_of(
    docs: Vec<Doc>,
    skipped: Vec<Skipped>,
    parts: (ShingleSets, Signatures, Vec<u64>),
    params: &Params,
) -> Index {
    let records = docs.iter().any(|d| matches!(d.source, Source::Part(_)));
    let mut held = Docs::from_vec(docs);
    let renamed = crate::index::ids::unique_ids(&mut held, records);
    let mut index = IndexBuilder::new(params).assemble((held, Default::default()), skipped, parts);
    index.stats.renamed = renamed;
    index
}

/// Completes the record of a file read anew that gave `docs` documents, or was skipped
/// (`skip`: then the record keeps why instead of how it was read).
pub(super) fn read_record(rec: &mut FileRec, skip: Option<&Skipped>, docs: u32) {
    rec.docs = docs;
    if let Some(s) = skip {
        rec.status = Some(s.reason);
        rec.detail = s.detail.as_str().into();
    }
}

/// Adds the saved documents of an unchanged file (and its skip, if it was skipped), its
/// record holding what was saved (see `plan::absorb`).
fn reuse_file(
    f: &mut WalkFile,
    saved_docs: impl Iterator<Item = format::DocRec>,
    (mine, keep): (&mut [source::Entry], bool),
    push: &mut dyn FnMut(Doc) -> Result<()>,
    skipped: &mut Vec<Skipped>,
    dirty: &mut bool,
    mut group: impl FnMut(u32) -> Result<u32>,
) -> Result<()> {
    if let Some(reason) = f.rec.status {
        skipped.push(Skipped {
            path: f.path().to_path_buf(),
            reason,
            detail: f.rec.detail.to_string(),
        });
    }
    // A whole-file document takes its id from this walk (the roots may be spelled
    // differently from the last time).
    let mut whole = f.whole_id(mine, keep);
    let first = f.first_source(mine);
    for d in saved_docs {
        // Its path is the walk's (shared).
        let source = source_of(f.path(), d.part, &first);
        let id = match whole.take_if(|_| d.part.line == 0) {
            Some(id) => {
                *dirty |= id != d.id;
                id
            }
            None => d.id,
        };
        let doc = Doc::new(id, source, d.bytes, d.tokens, group(d.group)?);
        push(doc.with_labels(d.labels))?;
    }
    Ok(())
}

as_doc_out!(Doc, |d| part_of(&d.source), (d.title(), d.meta()));

/// Writes the index file of `index` and `files` to `out`: its length and checksum.
/// A document that could not be read back from its temporary file fails it (the file
/// written is then not put in place).
pub(super) fn encode(index: &Index, files: FilesOut, out: impl Write) -> Result<Seal, Failed> {
    let seal = super::encode::encode(
        &index.params,
        files,
        &index.docs,
        &index.contents,
        &super::encode::Held(&index.shingles, &index.signatures),
        out,
    )?;
    index.check().map_err(Failed::Read)?;
    Ok(seal)
}
