//! Documents added to a saved index without reading its documents again
//! (`simtui index --add`), and a saved index opened as it is, without its files (the
//! reference corpus of `dedup --against`).
//!
//! Adding writes the new documents' records, sets and signatures as a segment after the
//! file's last one, then a new directory (`directory`): the saved segments are not
//! read again but for their records (checked against their checksums), nor rewritten.
//! Its time is the new documents' indexing plus a read of the saved records, streamed
//! (`head.rs`): nothing is kept of a saved document. A format 5
//! file is converted once: its sets and signatures copied byte for byte into a file of
//! one segment holding everything. Either way, the index is the one `simtui index`
//! builds for the old files and the new ones walked after them: the same documents in
//! the same order, the same groups of identical contents (a new document identical to a
//! saved one joins its group).

use super::decode::{self, Check, InPlace, Seal};
use super::directory::{self, Directory, Entry};
use super::encode::{AsDocOut, Bulk, Failed, FilesOut, Sink, as_doc_out, put_sets, put_signatures};
use super::files::{records, stamp_all, walk_files};
use super::format::{DocOut, DocRec, FileRec, Saved};
use super::head::{self, Head, Seen};
use super::interned::Interned;
use super::update;
use super::{Request, differences, fault_error, file_of, io_error, write_atomic};
use crate::error::{Error, Result};
use crate::index::{Doc, Index, IndexBuilder, Parts};
use crate::progress::Progress;
use crate::source::Source;
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What [`add`] did.
#[derive(Clone, Debug, Default)]
pub struct Added {
    /// Documents the index held before.
    pub before: usize,
    /// Documents added.
    pub added: usize,
    /// Files added (skipped ones included: they are recorded, as `simtui index` does).
    pub files: usize,
    /// Files and records skipped among those added.
    pub skipped: usize,
    /// New documents renamed `ID@FILE:LINE` because the index had their id already.
    pub renamed: usize,
    /// The new file's size in bytes.
    pub bytes: u64,
    /// The file was of format 5 and was rewritten whole in the current format (from
    /// then on, adding writes only the new documents).
    pub converted: bool,
    /// Bytes an earlier add left after the file's last complete directory (killed while
    /// it wrote), cut off before this one was written.
    pub cut: u64,
}

/// The saved index `req.file`, opened with the checks `check` asks for.
fn open_saved(req: &Request, check: Check) -> Result<(InPlace, File)> {
    let f = File::open(&req.file).map_err(|e| io_error(&req.file, e))?;
    let read = decode::opened(
        f.try_clone().map_err(|e| io_error(&req.file, e))?,
        &req.file,
        (check, decode::Records::All),
    )
    .map_err(|fault| fault_error(&req.file, fault))?;
    same_params(req, &read.saved.params)?;
    Ok((read, f))
}

/// [`Error::Mismatch`] unless the saved index was built with `req.params`.
fn same_params(req: &Request, saved: &crate::index::Params) -> Result<()> {
    match differences(saved, &req.params) {
        Some(why) => Err(Error::Mismatch {
            path: req.file.clone(),
            why,
        }),
        None => Ok(()),
    }
}

/// The saved index `req.file` as adding reads it: its head (the documents left in the
/// file), or, for a file of format 5 (converted), the whole index.
fn open_for_add(req: &Request) -> Result<(Head, Option<InPlace>, File)> {
    let raw = File::open(&req.file).map_err(|e| io_error(&req.file, e))?;
    if let Some(head) = head::head(&raw).map_err(|f| fault_error(&req.file, f))? {
        same_params(req, &head.params)?;
        return Ok((head, None, raw));
    }
    let (read, raw) = open_saved(req, Check::Head)?;
    let head = Head::of_whole(&read.saved, read.dir.clone());
    Ok((head, Some(read), raw))
}

/// Adds the documents of `req.roots` to the saved index `req.file`, reading none of its
/// documents again: they are written as a segment after its last one (a format 5 file
/// is converted, its sets and signatures copied as they are). The index must exist and
/// have been built with `req.params` (the number of hash functions aside: the new
/// documents get the saved width), else [`Error::Mismatch`]; a file it holds already is
/// refused (`simtui index` brings changed files up to date). A crash while it writes
/// leaves the index as it was or with the documents added, never half of them.
pub fn add(req: &Request, progress: &dyn Progress) -> Result<Added> {
    let (head, whole, raw) = open_for_add(req)?;
    let super::Walked { mut corpus, cwd } = super::walked(req)?;
    // The entries keep their paths: the new documents are indexed from them.
    let mut files = walk_files(&corpus);
    let known: HashSet<&Path> = head.files.iter().map(|f| &*f.path).collect();
    if let Some(f) = files.iter().find(|f| known.contains(&*f.abs(&cwd))) {
        return Err(Error::Output(format!(
            "{} is in the index {} already: `simtui index` brings changed files up to date",
            f.path().display(),
            req.file.display()
        )));
    }
    stamp_all(&mut files);
    let params = crate::index::Params {
        num_perm: head.params.num_perm,
        ..req.params.clone()
    };
    let sub = &update::read_anew(
        &mut files,
        (&mut corpus, false),
        (&params, &req.budget),
        progress,
    )?;
    // New files' records, in walk order, each with its documents' count.
    let mut at_doc = 0usize;
    let skips: HashMap<&Path, _> = sub.skipped.iter().map(|s| (s.path.as_path(), s)).collect();
    for f in files.iter_mut() {
        let first = at_doc;
        while sub
            .docs
            .get(at_doc)
            .is_some_and(|d| file_of(&d.source) == Some(&**f.path()))
        {
            at_doc += 1;
        }
        let skip = skips.get(&**f.path()).copied();
        update::read_record(&mut f.rec, skip, (at_doc - first) as u32);
    }
    // Named as walked: written by their absolute paths (against `cwd`), as every file of
    // an index is.
    let new_files = records(files);
    let files_added = new_files.len();
    // What the saved documents share with the new ones, read from the file as it passes.
    let new_ids: Vec<String> = sub.docs.iter().map(|d| d.into_owned().id).collect();
    let ids: HashSet<&str> = new_ids.iter().map(String::as_str).collect();
    let contents: HashSet<u64> = sub.contents.iter().copied().collect();
    let seen = match &whole {
        Some(read) => Seen::in_saved(&read.saved, &ids, &contents),
        None => head
            .seen(&raw, &ids, &contents)
            .map_err(|f| fault_error(&req.file, f))?,
    };
    let joined = Joined::new(&seen, sub);
    let (new_docs, renamed) = joined.docs(&seen, sub);
    let new = Picked {
        sub,
        groups: &joined.new_groups,
    };
    let seal = match &whole {
        Some(read) => convert(req, (read, &raw), (new_files, &new_docs, &cwd), new),
        None => {
            let contents = new.contents();
            append_segment(&req.file, &head.dir, |out| {
                let files = FilesOut {
                    recs: &new_files,
                    cwd: Some(&cwd),
                };
                let records = (files, new_docs.as_slice());
                super::encode::segment(&head.params, records, &contents, &new, out)
            })
        }
    }
    .map_err(|f| match f {
        Failed::Read(e) => e,
        Failed::Write(source) => io_error(&req.file, source),
    })?;
    Ok(Added {
        before: head.docs,
        added: new_docs.len(),
        files: files_added,
        skipped: sub.skipped.len(),
        renamed,
        bytes: seal.0,
        converted: whole.is_some(),
        cut: head.dir.tail,
    })
}

/// Writes a segment (`write`, which gives its entry) after the last one of the index
/// file `path`, whose directory is `dir`, then the directory of all of them. The
/// segment is synced before the directory is written, and the directory synced: until
/// it is complete, the last complete directory is the old one, and the file reads as it
/// was (the bytes after it ignored). A tail an earlier add left is cut off first; on a
/// failure, what was written is.
fn append_segment(
    path: &Path,
    dir: &Directory,
    write: impl FnOnce(&mut io::BufWriter<&File>) -> std::result::Result<Entry, Failed>,
) -> std::result::Result<Seal, Failed> {
    let f = OpenOptions::new().write(true).open(path)?;
    let result = (|| {
        if dir.tail > 0 {
            f.set_len(dir.end)?;
        }
        let mut out = io::BufWriter::with_capacity(1 << 20, &f);
        out.seek(SeekFrom::Start(dir.end))?;
        let mut entry = write(&mut out)?;
        out.flush()?;
        f.sync_data()?;
        entry.offset = dir.end;
        let mut entries = dir.entries.clone();
        entries.push(entry);
        let (n, sum) = directory::put(&entries, dir.end + entry.size, &mut out)?;
        out.flush()?;
        f.sync_data()?;
        Ok((dir.end + entry.size + n, sum))
    })();
    if result.is_err() {
        let _ = f.set_len(dir.end);
        let _ = f.sync_data();
    }
    result
}

/// A format 5 index (`read`, open as `raw`) with the new files and documents, written
/// whole in the current format (atomically): its sets and signatures copied as they are;
/// the new files' paths made absolute against `cwd` as they are written.
fn convert(
    req: &Request,
    (read, raw): (&InPlace, &File),
    (new_files, new_docs, cwd): (Vec<FileRec>, &[Doc], &Path),
    new: Picked,
) -> std::result::Result<Seal, Failed> {
    let saved = &read.saved;
    let mut all_files = saved.files.clone();
    all_files.extend(new_files);
    let docs: Vec<DocOut> = (saved.docs.iter().map(DocRec::doc_out))
        .chain(new_docs.iter().map(|d| d.doc_out()))
        .collect();
    let mut contents = saved.contents.clone();
    contents.extend(new.contents());
    let bulk = Appended {
        saved,
        raw,
        at: read.sections,
        new,
    };
    write_atomic(
        &req.file,
        |out| {
            super::encode::encode(
                &saved.params,
                FilesOut {
                    recs: &all_files,
                    cwd: Some(cwd),
                },
                docs.as_slice(),
                &contents,
                &bulk,
                out,
            )
        },
        None,
    )
}

/// The new documents' groups among the saved ones: a content the index has joins its
/// group, the others are numbered after the saved groups in order of first appearance.
struct Joined {
    /// The group in the joined index of each of the new index's groups.
    group_of: Vec<u32>,
    /// The new index's groups that are new contents, in their order.
    new_groups: Vec<u32>,
}

impl Joined {
    fn new(seen: &Seen, sub: &Index) -> Joined {
        let mut new_groups = Vec::new();
        // The new index numbers its groups in order of first appearance too.
        let group_of = (sub.contents.iter().enumerate())
            .map(|(g, c)| {
                seen.group_of.get(c).copied().unwrap_or_else(|| {
                    new_groups.push(g as u32);
                    seen.groups + new_groups.len() as u32 - 1
                })
            })
            .collect();
        Joined {
            group_of,
            new_groups,
        }
    }

    /// The new documents with their groups in the joined index, a new document whose id
    /// a saved one has renamed `ID@FILE:LINE` (`ID@FILE` for a whole file); with how many
    /// were renamed.
    fn docs(&self, seen: &Seen, sub: &Index) -> (Vec<Doc>, usize) {
        let mut renamed = 0;
        let docs = (sub.docs.iter())
            .map(|d| {
                let mut doc = Doc {
                    group: self.group_of[d.group as usize],
                    ..(*d).clone()
                };
                if seen.taken.contains(d.id.as_str()) {
                    doc.id = format!("{}@{}", d.id, place(&d.source).display());
                    renamed += 1;
                }
                doc
            })
            .collect();
        (docs, renamed)
    }
}

/// Where a document is, as ids made unique name it (`FILE:LINE` for a record).
fn place(source: &Source) -> PathBuf {
    match source {
        Source::Part(p) => p.file.line_id(p.line).into(),
        other => other.path().map(Path::to_path_buf).unwrap_or_default(),
    }
}

/// The new groups of an index added to a saved one: their contents, sets and
/// signatures.
struct Picked<'a> {
    sub: &'a Index,
    /// The groups of `sub` that are new contents, in order.
    groups: &'a [u32],
}

impl Picked<'_> {
    fn contents(&self) -> Vec<u64> {
        (self.groups.iter())
            .map(|&g| self.sub.contents[g as usize])
            .collect()
    }
}

impl Bulk for Picked<'_> {
    fn groups(&self) -> usize {
        self.groups.len()
    }
    fn set_len(&self, k: usize) -> usize {
        self.sub.shingles.set_len(self.groups[k] as usize)
    }
    fn total(&self) -> usize {
        (self.groups.iter())
            .map(|&g| self.sub.shingles.set_len(g as usize))
            .sum()
    }
    fn width(&self) -> usize {
        self.sub.signatures.width()
    }
    fn put_sets<W: Write>(&self, sink: &mut Sink<W>) -> std::result::Result<(), Failed> {
        for run in runs(self.groups) {
            put_sets(sink, &self.sub.shingles, run)?;
        }
        Ok(())
    }
    fn put_signatures<W: Write>(&self, sink: &mut Sink<W>) -> std::result::Result<(), Failed> {
        for run in runs(self.groups) {
            put_signatures(sink, &self.sub.signatures, run)?;
        }
        Ok(())
    }
}

/// The saved bulk of a format 5 file copied as it is, then the new groups' sets and
/// signatures.
struct Appended<'a> {
    saved: &'a Saved,
    raw: &'a File,
    /// Where the saved shingles and signatures start in `raw`.
    at: [u64; 2],
    new: Picked<'a>,
}

impl Bulk for Appended<'_> {
    fn groups(&self) -> usize {
        self.saved.contents.len() + self.new.groups()
    }
    fn set_len(&self, g: usize) -> usize {
        match g.checked_sub(self.saved.contents.len()) {
            None => self.saved.shingles.set_len(g),
            Some(k) => self.new.set_len(k),
        }
    }
    fn total(&self) -> usize {
        self.saved.shingles.total() + self.new.total()
    }
    fn width(&self) -> usize {
        self.saved.signatures.width()
    }
    fn put_sets<W: Write>(&self, sink: &mut Sink<W>) -> std::result::Result<(), Failed> {
        let old = self.saved.shingles.total() as u64 * 8;
        sink.copy(self.raw, self.at[0], old)?;
        self.new.put_sets(sink)
    }
    fn put_signatures<W: Write>(&self, sink: &mut Sink<W>) -> std::result::Result<(), Failed> {
        let old = (self.saved.contents.len() * self.width()) as u64 * 4;
        sink.copy(self.raw, self.at[1], old)?;
        self.new.put_signatures(sink)
    }
}

/// Ascending numbers as runs of consecutive ones.
fn runs(groups: &[u32]) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    for &g in groups {
        let g = g as usize;
        match out.last_mut() {
            Some(r) if r.end == g => r.end += 1,
            _ => out.push(g..g + 1),
        }
    }
    out
}

as_doc_out!(DocRec, |d| d.part, (d.title(), d.meta()));

/// A saved index as it is, without walking its files (they may be gone): the
/// reference corpus of `dedup --against`. Its documents' sources are their files (a
/// record's is its file), read for nothing: the sets and signatures are the file's. The
/// index must have been built with `req.params` (the number of hash functions aside:
/// `req.params.num_perm` of them are used, computed from the sets if more are needed),
/// else [`Error::Mismatch`]. With what opening it found ([`super::Report::tail`]: bytes
/// an unfinished add left, ignored, for the caller to say).
pub fn reference(req: &Request, progress: &dyn Progress) -> Result<(Index, super::Report)> {
    let (read, _) = open_saved(req, Check::Full)?;
    let report = super::Report {
        tail: read.dir.tail,
        file_bytes: read.seal.0,
        ..super::Report::default()
    };
    let mut index = index_of(
        read.saved,
        |f| Ok(Source::File(f.path.clone())),
        |source: &Source, _| source.clone(),
    )?;
    super::widen(&mut index, req, progress)?;
    // More functions than asked for: the first ones, as a fresh run computes them.
    let needed = req.params.num_perm;
    if req.params.sketch == crate::sketch::SketchKind::MinHash && index.signatures.width() > needed
    {
        let budget = &req.budget;
        let room = budget.room(budget.for_index().saturating_sub(index.held()));
        index.signatures = index.signatures.truncated_in(needed, &room)?;
        index.params.num_perm = needed;
    }
    Ok((index.with_budget(req.budget.clone()), report))
}

/// One index of the documents of `parts`, in order (all built with the same parameters
/// and width): groups of identical contents joined, numbered in order of first
/// appearance as one build over all of them numbers them, their sets and signatures in
/// memory up to the budget's share of an index and on temporary files past it. Ids that
/// clash across the parts are made unique as one walk would make them (a record renamed
/// `ID@FILE:LINE`).
pub fn joined(parts: &[&Index], budget: &crate::storage::Budget) -> Result<Index> {
    let first = parts.first().expect("an index to join");
    let width = first.signatures.width();
    let room = budget.room(budget.for_index());
    let mut groups = Interned::new(width, room);
    let mut docs = Vec::with_capacity(parts.iter().map(|p| p.docs.len()).sum());
    for index in parts {
        assert_eq!(width, index.signatures.width(), "the same width");
        let mut group_of: HashMap<u32, u32> = HashMap::new();
        for d in index.docs.iter() {
            let g = match group_of.get(&d.group) {
                Some(&g) => g,
                None => {
                    let s = d.group as usize;
                    let (set, row) = (index.shingles.get(s)?, index.signatures.row(s)?);
                    let g = groups.intern(index.contents[s], &set, &row)?;
                    group_of.insert(d.group, g);
                    g
                }
            };
            docs.push(Doc {
                group: g,
                ..(*d).clone()
            });
        }
    }
    let skipped = parts
        .iter()
        .flat_map(|p| p.skipped.iter().cloned())
        .collect();
    let index = super::update::index_of(docs, skipped, groups.finish()?, &first.params);
    Ok(index.with_budget(budget.clone()))
}

/// Saves an index of part of a corpus to `file` (written whole, then renamed into
/// place): its documents, sets and signatures, its files by the paths the walk gave, with
/// no stamps (it is read back by [`load_part`] for the same walk, never brought up to
/// date). What a run resumed later does not do again.
pub fn save_part(index: &Index, file: &Path) -> Result<()> {
    let mut files: Vec<FileRec> = Vec::new();
    for d in index.docs.iter() {
        let path = file_of(&d.source).ok_or(Error::InMemory)?;
        match files.last_mut() {
            Some(f) if *f.path == *path => f.docs += 1,
            _ => files.push(FileRec {
                path: Arc::from(path),
                stamp: None,
                hash_value: 0,
                hashed: false,
                status: None,
                detail: Box::default(),
                docs: 1,
            }),
        }
    }
    let files = FilesOut {
        recs: &files,
        cwd: None,
    };
    write_atomic(file, |out| update::encode(index, files, out), None)
        .map(|_| ())
        .map_err(|f| match f {
            Failed::Read(e) => e,
            Failed::Write(source) => Error::Io {
                path: file.to_path_buf(),
                source,
            },
        })
}

/// The index [`save_part`] saved in `file`, its documents' sources those of `entries`
/// (the walk's entries of the part, found by their files' paths). An error when the file
/// cannot be read or does not match the entries.
pub fn load_part(file: &Path, entries: &[crate::source::Entry]) -> Result<Index> {
    let saved = super::load(file)?;
    let by_path: HashMap<&Path, &Source> = (entries.iter())
        .filter_map(|e| Some((file_of(&e.source)?, &e.source)))
        .collect();
    let source = |f: &FileRec| {
        by_path
            .get(&*f.path)
            .copied()
            .ok_or_else(|| Error::IndexFile {
                path: file.to_path_buf(),
                problem: crate::error::FormatError::Corrupt(format!(
                    "{} is not among the files walked",
                    f.path.display()
                )),
            })
    };
    index_of(saved, source, |entry, d| super::source_of(&d.0, d.1, entry))
}

/// The index of a saved index's parts, its documents' sources made from their files'
/// (`of_file`, once a file) and each document's place (`place`).
fn index_of<S>(
    saved: Saved,
    of_file: impl Fn(&FileRec) -> Result<S>,
    place: impl Fn(&S, (Arc<Path>, super::format::Place)) -> Source,
) -> Result<Index> {
    let mut docs = Vec::with_capacity(saved.docs.len());
    let mut next = 0usize;
    for f in &saved.files {
        let of = of_file(f)?;
        for d in &saved.docs[next..next + f.docs as usize] {
            let source = place(&of, (f.path.clone(), d.part));
            let doc = Doc::new(d.id.clone(), source, d.bytes, d.tokens, d.group);
            docs.push(doc.with_labels(d.labels.clone()));
        }
        next += f.docs as usize;
    }
    let params = crate::index::Params {
        num_perm: saved.signatures.width(),
        ..saved.params.clone()
    };
    Ok(IndexBuilder::new(&params).from_parts(Parts {
        docs,
        skipped: Vec::new(),
        shingles: saved.shingles,
        signatures: saved.signatures,
        contents: saved.contents,
    }))
}
