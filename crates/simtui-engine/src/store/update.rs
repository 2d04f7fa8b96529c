//! Bringing a saved index up to date with the files: which saved files are reused
//! as they are ([`Plan`]), the others indexed anew, and the two merged into the index a
//! fresh run would build, group for group.

use super::decode::Seal;
use super::encode::{Failed, as_doc_out};
use super::files::{Plan, WalkFile, records};
use super::format::{self, FileRec, Saved, Stamp};
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
    pub(super) files: Vec<FileRec>,
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
    (corpus, keep): (&mut Corpus, bool),
    (params, budget): (&Params, &Budget),
    progress: &dyn Progress,
) -> Result<Index> {
    let read = files.iter().filter(|f| f.is_read()).count();
    files
        .par_iter_mut()
        .filter(|f| f.is_read())
        .for_each(|f| f.rec.hash = hash_file(f.path(), params.max_bytes));
    let entries: Vec<source::Entry> = if read == files.len() {
        moved(&mut corpus.entries, keep)
    } else {
        let (mut entries, empty) = (Vec::new(), empty_path());
        for f in files.iter().filter(|f| f.is_read()) {
            let walked = corpus.entries[f.entries()].iter_mut();
            entries.extend(walked.map(|e| match keep {
                true => e.clone(),
                false => std::mem::replace(e, hollow(&empty)),
            }));
        }
        entries
    };
    let corpus = Corpus {
        entries,
        skipped: Vec::new(),
    };
    // Kept whole (the sets are saved), in the budget: past it, the documents, sets and
    // signatures on temporary files.
    let index = Index::builder(params)
        .budget(budget)
        .build(corpus, progress)?;
    files.par_iter_mut().filter(|f| f.is_read()).for_each(|f| {
        if f.rec.stamp.is_none() || f.rec.stamp != stamp(f.path()) {
            (f.rec.stamp, f.rec.hash) = (None, None);
        }
    });
    Ok(index)
}

/// What is left of a walk entry moved into the index: nothing on the heap.
fn hollow(empty: &Arc<Path>) -> source::Entry {
    source::Entry {
        id: String::new(),
        source: Source::File(empty.clone()),
        bytes: 0,
    }
}

/// An empty path, shared by whatever no longer names a file (one allocation, not one
/// per file).
fn empty_path() -> Arc<Path> {
    Arc::from(Path::new(""))
}

/// `x` moved out (left empty), or copied when the walk is kept (`keep`).
fn moved<T: Clone + Default>(x: &mut T, keep: bool) -> T {
    if keep { x.clone() } else { std::mem::take(x) }
}

/// Drops the stamp of every file whose times are too close to `stamped` (when stamping
/// began) to prove it unchanged next time: a later edit at the same size could leave
/// its size, times and inode as they were. With whole-second times (both times'
/// nanoseconds 0), a file modified in the second stamping began, or the one before (a
/// kernel clock tick late, or FAT's two-second times); with finer times, within 0.1 s
/// before it (the kernel stamps files with a clock a tick behind) or after. A file with
/// no stamp is read again next time; that is the files modified just before an index
/// run, read once more.
pub(super) fn settle(update: &mut Update, stamped: (i64, u32)) {
    let nanos = |secs: i64, n: u32| i128::from(secs) * 1_000_000_000 + i128::from(n);
    let since = nanos(stamped.0, stamped.1) - 100_000_000;
    let racy = |s: &Stamp| {
        if s.nanos == 0 && s.ctime_nanos == 0 {
            s.secs.max(s.ctime_secs) >= stamped.0 - 1
        } else {
            nanos(s.secs, s.nanos).max(nanos(s.ctime_secs, s.ctime_nanos)) >= since
        }
    };
    for f in &mut update.files {
        if f.stamp.as_ref().is_some_and(racy) {
            f.stamp = None;
            f.hash = None;
            update.dirty = true;
        }
    }
}

/// The up-to-date index: saved documents of unchanged files, the others indexed now,
/// within `budget` (the sets of both past it on temporary files).
pub(super) fn update(
    (corpus, keep): (&mut Corpus, bool),
    (mut files, planned): (Vec<WalkFile>, Planned),
    (mut saved, later, untitled): (Option<Saved>, Option<&Later>, bool),
    (params, budget): (&Params, &Budget),
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
    let walk = (&mut *corpus, keep);
    let fresh = read_anew(&mut files, walk, (&sub_params, budget), progress)?;
    // Every file reused, in the saved order (so none read).
    let all_reused = saved.is_some()
        && starts.len() == files.len()
        && (files.iter().enumerate()).all(|(k, f)| f.plan() == Plan::Reuse(k));
    // A saved index is loaded with where its documents are.
    let saved_docs = || later.expect("a saved index's documents");
    if all_reused {
        let saved = saved.expect("a saved index");
        let stream = saved_docs().docs(!untitled);
        let wanted = (&sub_params, budget);
        let walk = (corpus, keep);
        let (index, dirty) = reuse_all(&mut files, (saved, stream), walk, wanted)?;
        return Ok(Update {
            index,
            files: records(files),
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
        files: records(files),
        dirty,
        untitled: false,
    })
}

/// Saved file `i`'s documents, `starts` saying where each file's begin.
fn docs_of_saved_file<'a>(
    s: &'a Saved,
    starts: &[usize],
    (i, n): (usize, u32),
) -> impl Iterator<Item = format::DocRec> + 'a {
    s.docs[starts[i]..starts[i] + n as usize].iter().cloned()
}

/// Every file unchanged, in the same order: the saved groups are the index's, as they
/// are.
///
/// The saved records are taken in order, each one's strings moved into the document
/// made of it; past the budget the documents go to a temporary file as they are made
/// (their ids, groups and sizes kept), as a build's do. The saved file records become
/// the index's in place. The walk's entries, unless kept (`keep`), are let go of as
/// their documents are made: `corpus.entries` is then left empty or nearly.
fn reuse_all(
    files: &mut [WalkFile],
    (s, mut saved_docs): (Saved, DocStream),
    (corpus, keep): (&mut Corpus, bool),
    (params, budget): (&Params, &Budget),
) -> Result<(Index, bool)> {
    let Saved {
        shingles,
        signatures,
        contents,
        ..
    } = s;
    let mut dirty = false;
    let total = files.iter().map(|f| f.rec.docs as usize).sum();
    let mut docs = DocsWriter::new(0);
    let failure = Failure::default();
    let mut skipped = corpus.skipped.clone();
    // The walk's entries before `gone` are let go of (see `let_go`).
    let mut gone = 0usize;
    for f in files.iter_mut() {
        let n = f.rec.docs as usize;
        let mine: Vec<format::DocRec> = saved_docs.by_ref().take(n).collect::<Result<_>>()?;
        // Loading checked that the files' records count the segments' documents.
        debug_assert_eq!(mine.len(), n);
        let push = &mut |d| docs.push(d);
        let walked = f.entries().start - gone..f.entries().end - gone;
        let entries = (&mut corpus.entries[walked], keep);
        reuse_file(
            f,
            mine.into_iter(),
            entries,
            push,
            &mut skipped,
            &mut dirty,
            Ok,
        )?;
        if !keep {
            gone += let_go(&mut corpus.entries, f.entries().end - gone);
        }
        if !docs.on_file() && past(budget, docs.held_bytes(), (docs.len(), total)) {
            docs.onto_file(budget.room(0), failure.clone())?;
        }
    }
    let docs = (docs.finish()?, failure);
    let parts = (shingles, signatures, contents);
    Ok((
        IndexBuilder::new(params).assemble(docs, skipped, parts),
        dirty,
    ))
}

/// Lets go of the first `used` of the walk's `entries` (their ids moved into the
/// index's documents) once they are a quarter of those left and at least [`LET_GO`]:
/// how many went. Held to the end, the walk's list was 36 MB at 500,000 files beside
/// the documents made of it; this way a few memory moves of what is left, about three
/// times the list in all.
fn let_go(entries: &mut Vec<source::Entry>, used: usize) -> usize {
    if used < LET_GO.max(entries.len() / 4) {
        return 0;
    }
    entries.drain(..used);
    entries.shrink_to_fit();
    used
}

/// The fewest walk entries let go of at once (288 KB): fewer are not worth a move.
const LET_GO: usize = 1 << 12;

/// Whether `held` bytes for `done` of `total` documents, as many again for the rest,
/// pass what `budget` leaves an index.
fn past(budget: &Budget, held: u64, (done, total): (usize, usize)) -> bool {
    let projected = held.saturating_mul(total.max(1) as u64) / done.max(1) as u64;
    budget.is_limited() && projected > budget.for_index()
}

/// Bytes the records of `files` hold, each in the room of the walk's file it was made
/// in (see [`records`]).
pub(super) fn files_held(files: &[FileRec]) -> u64 {
    let per_file = std::mem::size_of::<WalkFile>();
    let strings: usize = files
        .iter()
        .map(|f| f.path.as_os_str().len() + 32 + f.detail.len())
        .sum();
    (files.len() * per_file + strings) as u64
}

/// The saved documents of unchanged files and the documents of the files read anew, in
/// walk order, their groups numbered anew in order of first appearance; and whether it
/// differs from the saved index. Each file's record is completed: its status and number
/// of documents, and a reused file's hash and reading as saved.
fn merge(
    files: &mut [WalkFile],
    (saved, starts): (Option<&Saved>, &[usize]),
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
    let mut docs: Vec<Doc> = Vec::with_capacity(if reused { corpus.entries.len() } else { 0 });
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
                    (&mut corpus.entries[f.entries()], keep),
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
                let mine = |d: &Cow<Doc>| file_of(&d.source) == Some(&**f.path());
                while counted.as_mut().and_then(|c| c.next_if(mine)).is_some() {
                    cursor += 1;
                }
                while let Some(d) = sub_docs.next_if(|d| file_of(&d.source) == Some(&**f.path())) {
                    let g = d.group as usize;
                    let groups = groups.as_mut().expect("interned when a file is reused");
                    let (set, row) = (sub.shingles.get(g)?, sub.signatures.row(g)?);
                    let group = groups.intern(sub.contents[g], &set, &row)?;
                    docs.push(Doc { group, ..d });
                    cursor += 1;
                }
                read_record(f, skip.copied(), (cursor - first) as u32);
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
fn merged_index(
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
pub(super) fn read_record(f: &mut WalkFile, skip: Option<&Skipped>, docs: u32) {
    f.rec.docs = docs;
    if let Some(s) = skip {
        f.rec.status = Some(s.reason);
        f.rec.detail = s.detail.as_str().into();
    }
}

/// Adds the saved documents of an unchanged file (and its skip, if it was skipped), its
/// record holding what was saved (see `plan::absorb`).
fn reuse_file(
    f: &WalkFile,
    saved_docs: impl Iterator<Item = format::DocRec>,
    (entries, keep): (&mut [source::Entry], bool),
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
    for d in saved_docs {
        // Its path is the walk's (shared); a whole-file document takes its id from this
        // walk too (the roots may be spelled differently from the last time).
        let source = source_of(f.path(), d.part, &entries[0].source);
        let id = match entries {
            [e] if d.part.line == 0 && !e.id.is_empty() => {
                *dirty |= e.id != d.id;
                moved(&mut e.id, keep)
            }
            _ => d.id,
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
pub(super) fn encode(
    index: &Index,
    (recs, cwd): (&[FileRec], Option<&Path>),
    out: impl Write,
) -> Result<Seal, Failed> {
    let seal = super::encode::encode(
        &index.params,
        super::encode::FilesOut { recs, cwd },
        &index.docs,
        &index.contents,
        &super::encode::Held(&index.shingles, &index.signatures),
        out,
    )?;
    index.check().map_err(Failed::Read)?;
    Ok(seal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_entries_are_let_go_of_a_quarter_at_least_at_a_time() {
        let empty = empty_path();
        let mut entries = vec![hollow(&empty); 8 * LET_GO];
        // Fewer than a quarter of those left, or than LET_GO: they wait for more.
        assert_eq!(let_go(&mut entries, 2 * LET_GO - 1), 0);
        assert_eq!(entries.len(), 8 * LET_GO);
        assert_eq!(let_go(&mut entries, 2 * LET_GO), 2 * LET_GO);
        assert_eq!(entries.len(), 6 * LET_GO);
        assert!(entries.capacity() < 8 * LET_GO, "the room is given back");
        let mut few = vec![hollow(&empty); 2 * LET_GO];
        assert_eq!(let_go(&mut few, LET_GO - 1), 0);
        assert_eq!(let_go(&mut few, LET_GO), LET_GO);
    }
}
