//! What `index --add` reads of a saved index of the current format: first its
//! parameters, directory and files (to index the new documents with the saved width,
//! and to refuse a file the index holds already), then, streamed a few thousand records
//! at a time, its documents' ids and its groups' content hashes, each compared with the
//! new documents' as it passes. Nothing is kept of a saved document: adding holds and
//! allocates in proportion to the new documents, not to the saved ones. What is read is
//! checked as `Check::Head` checks it (each segment's head against the checksum its
//! directory lists), and each document's group against the groups saved before it.
//!
//! The titles of an index opened without them are read the same way ([`Later`]).

use super::bytes::{Bytes, Fault, Window};
use super::decode::{Check, Layout, RECORDS, Records, Whole, checked, decode_docs};
use super::directory::Directory;
use super::format::{DOC_RECORD, DocRec, FileRec, Saved, VERSION, corrupt, le32, le64};
use super::strings::{Strings, doc_strings};
use crate::index::Params;
use std::collections::{HashMap, HashSet};
use std::fs::File;

/// A saved index's parameters, files and segments, its documents left in the file.
pub(crate) struct Head {
    /// What it was built with; `num_perm` is the saved signatures' width.
    pub params: Params,
    pub files: Vec<FileRec>,
    /// Documents saved.
    pub docs: usize,
    pub dir: Directory,
    segments: Vec<(u64, Layout)>,
}

/// What the saved documents share with new ones.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Seen {
    /// The new ids a saved document has already.
    pub taken: HashSet<String>,
    /// Each new content a saved group has, with the first such group.
    pub group_of: HashMap<u64, u32>,
    /// Groups saved.
    pub groups: u32,
}

impl Seen {
    /// What `saved`, held whole, shares with the new `ids` and `contents`.
    pub fn in_saved(saved: &Saved, ids: &HashSet<&str>, contents: &HashSet<u64>) -> Seen {
        let mut seen = Seen::default();
        for d in &saved.docs {
            seen.id(d.id.as_bytes(), ids);
        }
        for &c in &saved.contents {
            seen.content(c, contents);
        }
        seen
    }

    fn id(&mut self, id: &[u8], ids: &HashSet<&str>) {
        if let Ok(id) = std::str::from_utf8(id)
            && ids.contains(id)
        {
            self.taken.insert(id.to_string());
        }
    }

    /// Counts a saved group of content `c`.
    fn content(&mut self, c: u64, contents: &HashSet<u64>) {
        if contents.contains(&c) {
            self.group_of.entry(c).or_insert(self.groups);
        }
        self.groups += 1;
    }
}

/// The head of the index file `file`, checked; None for a file of an older format (which
/// `--add` reads whole, to convert it).
pub(crate) fn head(file: &File) -> Result<Option<Head>, Fault> {
    let mut start = [0u8; 12];
    if file.size() < 12 {
        return Ok(None);
    }
    file.read(0, &mut start)?;
    if le32(&start, 8) != VERSION {
        return Ok(None);
    }
    let Whole {
        params,
        front,
        segments,
        dir,
    } = checked(file, Check::Head, Records::Files)?;
    let docs = segments.iter().map(|(_, l)| l.counts[1]).sum();
    Ok(Some(Head {
        params,
        files: front.files,
        docs,
        dir,
        segments,
    }))
}

impl Head {
    /// The head of a saved index read whole (`saved`, its directory `dir`): to be added
    /// to through [`Seen::in_saved`], never [`Head::seen`].
    pub fn of_whole(saved: &Saved, dir: Directory) -> Head {
        Head {
            params: Params {
                num_perm: saved.signatures.width(),
                ..saved.params.clone()
            },
            files: saved.files.clone(),
            docs: saved.docs.len(),
            dir,
            segments: Vec::new(),
        }
    }

    /// What the saved documents (in `file`) share with the new `ids` and `contents`.
    pub fn seen(
        &self,
        file: &File,
        ids: &HashSet<&str>,
        contents: &HashSet<u64>,
    ) -> Result<Seen, Fault> {
        let mut seen = Seen::default();
        each_segment(file, (&self.segments, &self.dir), &mut |w, l, limit| {
            segment_ids(w, l, limit, &mut |id| seen.id(id, ids))?;
            let groups = l.counts[2];
            for from in (0..groups).step_by(RECORDS) {
                let n = RECORDS.min(groups - from);
                let bytes = w.section(l.at[3] + from as u64 * 8, n as u64 * 8)?;
                for c in bytes.chunks_exact(8) {
                    seen.content(le64(c, 0), contents);
                }
            }
            Ok(())
        })?;
        Ok(seen)
    }
}

/// What [`each_segment`] calls with each segment's window, layout and group limit.
type EachSegment<'a> = dyn FnMut(&Window<'_, File>, &Layout, usize) -> Result<(), Fault> + 'a;

/// Calls `each` with every segment of `file` (its start among `segments`, its size
/// listed by the directory), its layout and the groups of the segments up to and with it
/// (the limit its documents' groups are below).
fn each_segment(
    file: &File,
    (segments, dir): (&[(u64, Layout)], &Directory),
    each: &mut EachSegment<'_>,
) -> Result<(), Fault> {
    let mut groups = 0;
    for ((start, l), entry) in segments.iter().zip(&dir.entries) {
        let w = Window {
            src: file,
            start: *start,
            len: entry.size,
        };
        groups += l.counts[2];
        each(&w, l, groups)?;
    }
    Ok(())
}

/// Calls `each` with the id of every document of a segment, in order, checking that its
/// group is below `limit` (the groups of the segments up to it).
fn segment_ids(
    w: &Window<'_, File>,
    l: &Layout,
    limit: usize,
    each: &mut dyn FnMut(&[u8]),
) -> Result<(), Fault> {
    segment_docs(w, l, limit, &mut |r, table| {
        each(table.get(le64(r, 0), le32(r, 8), "a document id")?);
        Ok(())
    })
}

/// What [`segment_docs`] calls with each document record and its segment's strings.
type EachDoc<'a> = dyn FnMut(&[u8], &Strings) -> Result<(), Fault> + 'a;

/// Calls `each` with every document record of a segment and the segment's string table,
/// in order, a few thousand records read at a time, checking that each document's group
/// is below `limit` (the groups of the segments up to it).
fn segment_docs(
    w: &Window<'_, File>,
    l: &Layout,
    limit: usize,
    each: &mut EachDoc<'_>,
) -> Result<(), Fault> {
    let docs = l.counts[1];
    for from in (0..docs).step_by(RECORDS) {
        let (bytes, table) = doc_records(w, l, from..docs.min(from + RECORDS))?;
        for r in bytes.chunks_exact(DOC_RECORD as usize) {
            let group = le32(r, 12) as usize;
            if group >= limit {
                let what = format!("a document is in group {group} of {limit}");
                return Err(corrupt(what).into());
            }
            each(r, &table)?;
        }
    }
    Ok(())
}

/// A segment's document records `range` and the part of its string table they name.
fn doc_records(
    w: &Window<'_, File>,
    l: &Layout,
    range: std::ops::Range<usize>,
) -> Result<(Vec<u8>, Strings), Fault> {
    let n = (range.end - range.start) as u64;
    let bytes = w.section(l.at[2] + range.start as u64 * DOC_RECORD, n * DOC_RECORD)?;
    let mut table = Strings::new(l.at[0], l.counts[4] as u64);
    table.load(w, bytes.chunks_exact(DOC_RECORD as usize).map(doc_strings))?;
    Ok((bytes, table))
}

/// The documents of an index file opened without them ([`Records::Checked`]): left in
/// the file, which is still open, and read in order as the index is made of them
/// ([`Later::docs`]); their titles again only if it must be written again (a rewrite
/// keeps every title; a caller that prints none never needs them).
pub(crate) struct Later {
    file: File,
    /// Its path, for errors.
    path: std::path::PathBuf,
    /// Each segment's start and layout, and the directory that lists their sizes.
    segments: Vec<(u64, Layout)>,
    dir: Directory,
}

impl Later {
    /// The saved files' records, read again from the file as it was opened (the same
    /// handle, the same directory): an error if it changed since. A file of an older
    /// format (no head of its own to read) is read whole but for its documents.
    pub(crate) fn files(&self) -> Result<Vec<FileRec>, Fault> {
        let was = (self.dir.end, self.dir.sum);
        let (files, now) = match head(&self.file)? {
            Some(head) => (head.files, (head.dir.end, head.dir.sum)),
            None => {
                let how = (Check::Head, Records::Checked);
                let read = super::decode::opened(self.file.try_clone()?, &self.path, how)?;
                (read.saved.files, read.seal)
            }
        };
        match now == was {
            true => Ok(files),
            false => Err(Fault::Format(corrupt("it changed while it was open"))),
        }
    }

    /// Where the file is.
    pub(crate) fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// The titles of the segments `segments` (their starts and layouts, listed by `dir`)
    /// of `file`, open at `path`.
    pub(crate) fn new(
        (file, path): (File, &std::path::Path),
        segments: Vec<(u64, Layout)>,
        dir: Directory,
    ) -> Later {
        Later {
            file,
            path: path.to_path_buf(),
            segments,
            dir,
        }
    }

    /// Calls `each` with every saved document's title, in order, for `docs` documents
    /// that must be the saved ones: an error if they are not as many, or if the file
    /// cannot be read (never a title given to another document).
    pub(crate) fn titles(
        &self,
        docs: usize,
        each: &mut dyn FnMut(String),
    ) -> crate::error::Result<()> {
        let saved: usize = self.segments.iter().map(|(_, l)| l.counts[1]).sum();
        let fault = if saved != docs {
            let what = format!("{saved} documents saved, {docs} to give their titles to");
            Err(corrupt(what).into())
        } else {
            self.each_title(each)
        };
        fault.map_err(|f| super::fault_error(&self.path, f))
    }

    fn each_title(&self, each: &mut dyn FnMut(String)) -> Result<(), Fault> {
        let segments = (self.segments.as_slice(), &self.dir);
        each_segment(&self.file, segments, &mut |w, l, limit| {
            segment_docs(w, l, limit, &mut |r, table| {
                // A title follows its id among the strings (see `decode_docs`).
                let at = le64(r, 0).checked_add(le32(r, 8) as u64);
                let at = at.ok_or_else(|| corrupt("a document title is out of range"))?;
                let title = table.get(at, le32(r, 56), "a document title")?;
                let title = std::str::from_utf8(title)
                    .map_err(|_| corrupt("a document title is not UTF-8"))?;
                each(title.to_string());
                Ok(())
            })
        })
    }
}

/// The records of an index file's documents, in order, decoded a few thousand at a time
/// ([`Later::docs`]); each document's group checked against the groups saved before it.
pub(crate) struct DocStream<'a> {
    later: &'a Later,
    titles: bool,
    /// The segment read, the groups before it, its next record.
    segment: usize,
    groups: usize,
    next: usize,
    decoded: std::vec::IntoIter<DocRec>,
}

impl Later {
    /// The saved documents' records, in order, with their titles when `titles`.
    pub(crate) fn docs(&self, titles: bool) -> DocStream<'_> {
        DocStream {
            later: self,
            titles,
            segment: 0,
            groups: 0,
            next: 0,
            decoded: Vec::new().into_iter(),
        }
    }
}

impl DocStream<'_> {
    /// The next records of the segment read, or of the next one; none past the last.
    fn decode_more(&mut self) -> Result<Vec<DocRec>, Fault> {
        let later = self.later;
        while let Some((start, l)) = later.segments.get(self.segment) {
            let docs = l.counts[1];
            if self.next == docs {
                (self.segment, self.next) = (self.segment + 1, 0);
                self.groups += l.counts[2];
                continue;
            }
            let w = Window {
                src: &later.file,
                start: *start,
                len: later.dir.entries[self.segment].size,
            };
            let range = self.next..docs.min(self.next + RECORDS);
            let (bytes, table) = doc_records(&w, l, range.clone())?;
            let mut out = Vec::with_capacity(range.len());
            let limit = self.groups + l.counts[2];
            decode_docs(&bytes, &table, (limit, self.titles), &mut out)?;
            self.next = range.end;
            return Ok(out);
        }
        Ok(Vec::new())
    }
}

impl Iterator for DocStream<'_> {
    type Item = crate::error::Result<DocRec>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(d) = self.decoded.next() {
            return Some(Ok(d));
        }
        match self.decode_more() {
            Ok(more) => {
                self.decoded = more.into_iter();
                self.decoded.next().map(Ok)
            }
            Err(f) => {
                // Nothing after a failure.
                self.segment = usize::MAX;
                Some(Err(super::fault_error(&self.later.path, f)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;
    use crate::source::WalkOptions;
    use crate::storage::Budget;
    use crate::store::{Mode, Request, add, open};

    /// An index file of two segments (three files indexed, three added), in a folder that
    /// goes with it.
    fn two_segments() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let (one, two) = (dir.path().join("one"), dir.path().join("two"));
        for (root, names) in [(&one, ["a", "b", "c"]), (&two, ["d", "e", "f"])] {
            std::fs::create_dir_all(root).unwrap();
            for (i, n) in names.iter().enumerate() {
                // Two contents in the first folder, both again and a third in the
                // second (a group of the second segment).
                let content = if root == &one { i % 2 } else { i };
                let text = format!("shared words number {content} and more");
                std::fs::write(root.join(format!("{n}.txt")), text).unwrap();
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
        let file = dir.path().join("x.idx");
        let request = |roots: Vec<std::path::PathBuf>| Request {
            file: file.clone(),
            roots,
            walk: WalkOptions::default(),
            params: Params::default(),
            mode: Mode::Create,
            budget: Budget::new(0, None),
            titles: true,
        };
        open(&request(vec![one.clone()]), &Silent).unwrap();
        add(&request(vec![two.clone()]), &Silent).unwrap();
        (dir, file)
    }

    /// The titles an index was opened without, read back from its segments, are the
    /// titles read whole, in order; asked for another number of documents, an error.
    #[test]
    fn titles_left_in_the_file_are_read_back_in_order() {
        let (_dir, file) = two_segments();
        let whole: Vec<String> = super::super::load(&file)
            .unwrap()
            .docs
            .into_iter()
            .map(|d| d.title().to_string())
            .collect();
        // Each titled by its first line.
        assert!(
            whole.iter().all(|t| t.starts_with("shared words")),
            "{whole:?}"
        );
        let raw = File::open(&file).unwrap();
        let check = (super::super::decode::Check::Full, Records::Checked);
        let read = super::super::decode::opened(raw.try_clone().unwrap(), &file, check).unwrap();
        assert!(read.saved.docs.is_empty(), "left in the file");
        let later = Later::new((raw, &file), read.segments, read.dir);
        // The documents' records streamed are those decoded whole, with or without
        // their titles.
        let all = super::super::load(&file).unwrap().docs;
        let streamed: Vec<DocRec> = later.docs(true).map(Result::unwrap).collect();
        assert_eq!(streamed, all);
        let untitled: Vec<DocRec> = later.docs(false).map(Result::unwrap).collect();
        assert_eq!(untitled.len(), 6);
        assert!(
            untitled
                .iter()
                .zip(&all)
                .all(|(u, d)| u.id == d.id && u.title().is_empty())
        );
        let mut back = Vec::new();
        later.titles(6, &mut |t| back.push(t)).unwrap();
        assert_eq!(back, whole);
        assert!(later.titles(5, &mut |_| ()).is_err());
    }

    /// Streamed from a file of two segments, the ids and contents the saved documents
    /// share with new ones are those of the index read whole: the same ids taken, each
    /// content's first group.
    #[test]
    fn streamed_and_whole_reads_see_the_same() {
        let (_dir, file) = two_segments();
        let raw = File::open(&file).unwrap();
        let head = head(&raw).unwrap().expect("the current format");
        assert_eq!((head.dir.entries.len(), head.docs), (2, 6));
        let saved = super::super::load(&file).unwrap();
        let ids: HashSet<&str> = saved.docs.iter().map(|d| d.id.as_str()).take(4).collect();
        let contents: HashSet<u64> = saved.contents.iter().copied().chain([7]).collect();
        let streamed = head.seen(&raw, &ids, &contents).unwrap();
        assert_eq!(streamed, Seen::in_saved(&saved, &ids, &contents));
        assert_eq!(streamed.taken.len(), 4);
        assert_eq!(streamed.groups, 3);
        assert_eq!(streamed.group_of.len(), 3, "{streamed:?}");
        assert!(streamed.group_of.values().any(|&g| g == 2), "{streamed:?}");
    }
}
