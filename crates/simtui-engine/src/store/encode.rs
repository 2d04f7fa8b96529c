//! Writing an index file in the format [`format`](super::format) describes: a segment
//! (the header, the string table, the file and document records, then each group's
//! content hash, shingle set and signature, and the checksum) and its directory. Written
//! as it is made, front to back: nothing but a block of sets is held, wherever the sets
//! are. `index --add` writes a segment after the last one, then a new directory.

use super::decode::Seal;
use super::directory::{self, Entry};
use super::file_record::put_file_record;
use super::format::{
    DOC_RECORD, DocOut, FILE_RECORD, FileRec, HEADER, MAGIC, TRAILER, VERSION, encode_meta, pad8,
    path_bytes, put32, put64,
};
use crate::error::Error;
use crate::index::{Docs, Params};
use crate::shingle::ShingleSets;
use crate::sketch::{Signatures, SketchKind};
use crate::text::{Language, Unit};
use std::borrow::Cow;
use std::io::{self, Write};
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

/// Values of shingle sets or signatures written at a time: the sets are read (from
/// memory, a temporary file or the saved file) a block at a time, never all at once.
const BLOCK_VALUES: usize = 1 << 19;

/// Why writing an index file failed: the output (a full disk), or reading back what it
/// holds (a temporary file, the saved file it was opened from).
#[derive(Debug)]
pub(crate) enum Failed {
    Write(io::Error),
    Read(Error),
}

impl From<io::Error> for Failed {
    fn from(e: io::Error) -> Self {
        Failed::Write(e)
    }
}

impl From<Error> for Failed {
    fn from(e: Error) -> Self {
        Failed::Read(e)
    }
}

/// Where an index file's bytes go: the output, with the checksum and count of what went
/// there. `put` gathers small records in `buf` before they are written.
pub(crate) struct Sink<W: Write> {
    out: W,
    hasher: Xxh3,
    n: u64,
    buf: Vec<u8>,
}

impl<W: Write> Sink<W> {
    /// Writes out what `buf` gathered when it is large, or `now`.
    fn drain(&mut self, now: bool) -> io::Result<()> {
        if now || self.buf.len() >= 1 << 16 {
            self.hasher.update(&self.buf);
            self.out.write_all(&self.buf)?;
            self.n += self.buf.len() as u64;
            self.buf.clear();
        }
        Ok(())
    }

    /// Writes `len` bytes of `src` from `at` as they are (a section of another index
    /// file), a chunk at a time.
    pub(crate) fn copy(
        &mut self,
        src: &(impl super::bytes::Bytes + ?Sized),
        at: u64,
        len: u64,
    ) -> io::Result<()> {
        self.drain(true)?;
        let mut chunk = vec![0u8; (len as usize).min(1 << 22)];
        let mut done = 0u64;
        while done < len {
            let n = chunk.len().min((len - done) as usize);
            src.read(at + done, &mut chunk[..n])?;
            self.hasher.update(&chunk[..n]);
            self.out.write_all(&chunk[..n])?;
            self.n += n as u64;
            done += n as u64;
        }
        Ok(())
    }

    /// Pads with zeros to a multiple of 8 bytes.
    fn pad(&mut self) -> io::Result<()> {
        let at = self.n + self.buf.len() as u64;
        self.buf
            .resize(self.buf.len() + (pad8(at) - at) as usize, 0);
        self.drain(false)
    }
}

/// A document as written: [`DocOut`], or an index's document.
pub(crate) trait AsDocOut {
    fn doc_out(&self) -> DocOut<'_>;
}

/// [`AsDocOut`] for a type with the fields of a saved document (an index's `Doc`, a
/// saved `DocRec`); `part` says where in its file the document is, `labels` its title
/// and metadata.
macro_rules! as_doc_out {
    ($t:ty, |$d:ident| $part:expr, $labels:expr) => {
        impl $crate::store::encode::AsDocOut for $t {
            fn doc_out(&self) -> $crate::store::format::DocOut<'_> {
                let $d = self;
                let (title, meta) = $labels;
                $crate::store::format::DocOut {
                    id: &$d.id,
                    group: $d.group,
                    bytes: $d.bytes,
                    tokens: $d.tokens,
                    title,
                    meta,
                    part: $part,
                }
            }
        }
    };
}
pub(crate) use as_doc_out;

impl AsDocOut for DocOut<'_> {
    fn doc_out(&self) -> DocOut<'_> {
        DocOut { ..*self }
    }
}

/// The documents a segment holds, in order, passed over as often as the encoder needs
/// (three times: their strings' length, the strings, the records), wherever they are.
pub(crate) trait DocList {
    fn count(&self) -> usize;
    /// Calls `f` on each document, in order, until it fails.
    fn each(&self, f: &mut dyn FnMut(DocOut<'_>) -> io::Result<()>) -> io::Result<()>;
}

impl<D: AsDocOut> DocList for [D] {
    fn count(&self) -> usize {
        self.len()
    }
    fn each(&self, f: &mut dyn FnMut(DocOut<'_>) -> io::Result<()>) -> io::Result<()> {
        self.iter().try_for_each(|d| f(d.doc_out()))
    }
}

/// An index's documents, read back in order when they are on a temporary file (a read
/// that fails goes to the index's failure slot: the caller checks it before the file
/// written takes its place).
impl DocList for Docs {
    fn count(&self) -> usize {
        self.len()
    }
    fn each(&self, f: &mut dyn FnMut(DocOut<'_>) -> io::Result<()>) -> io::Result<()> {
        self.iter().try_for_each(|d| f(d.doc_out()))
    }
}

/// The bulk of an index file, its groups' shingle sets and signatures, as
/// [`encode`] writes it: wherever they are, a block at a time.
pub(crate) trait Bulk {
    fn groups(&self) -> usize;
    fn set_len(&self, g: usize) -> usize;
    /// Shingles over every set.
    fn total(&self) -> usize;
    fn width(&self) -> usize;
    /// Writes every set's shingles, set after set.
    fn put_sets<W: Write>(&self, sink: &mut Sink<W>) -> Result<(), Failed>;
    /// Writes every signature, row after row (none when the width is 0).
    fn put_signatures<W: Write>(&self, sink: &mut Sink<W>) -> Result<(), Failed>;
}

/// An index's sets and signatures.
pub(crate) struct Held<'a>(pub &'a ShingleSets, pub &'a Signatures);

impl Bulk for Held<'_> {
    fn groups(&self) -> usize {
        self.0.len()
    }
    fn set_len(&self, g: usize) -> usize {
        self.0.set_len(g)
    }
    fn total(&self) -> usize {
        self.0.total()
    }
    fn width(&self) -> usize {
        self.1.width()
    }
    fn put_sets<W: Write>(&self, sink: &mut Sink<W>) -> Result<(), Failed> {
        put_sets(sink, self.0, 0..self.0.len())
    }
    fn put_signatures<W: Write>(&self, sink: &mut Sink<W>) -> Result<(), Failed> {
        put_signatures(sink, self.1, 0..self.0.len())
    }
}

/// File records to write, and the folder their relative paths are relative to: each
/// is written by its absolute path then (the table of an update holds each file's path
/// once, as walked); with none, as they are.
#[derive(Clone, Copy)]
pub(crate) struct FilesOut<'a> {
    pub recs: &'a dyn FileList,
    pub cwd: Option<&'a Path>,
}

/// File records in order, wherever they are: in memory, or on a temporary file (see
/// `file_rows`), as [`DocList`] is for documents.
pub(crate) trait FileList {
    fn count(&self) -> usize;
    /// Calls `f` on each record, in order, until it fails.
    fn each_rec(&self, f: &mut dyn FnMut(&FileRec) -> Result<(), Failed>) -> Result<(), Failed>;
}

impl FileList for Vec<FileRec> {
    fn count(&self) -> usize {
        self.len()
    }
    fn each_rec(&self, f: &mut dyn FnMut(&FileRec) -> Result<(), Failed>) -> Result<(), Failed> {
        self.iter().try_for_each(f)
    }
}

impl FilesOut<'_> {
    /// Calls `f` with each record and the bytes of the path it is written by, in order,
    /// until it fails.
    fn each(&self, f: &mut dyn FnMut(&FileRec, &[u8]) -> io::Result<()>) -> Result<(), Failed> {
        self.recs.each_rec(&mut |rec| {
            let path = match self.cwd {
                Some(cwd) => super::absolute_cow(cwd, &rec.path),
                None => Cow::Borrowed(&*rec.path),
            };
            Ok(f(rec, &path_bytes(&path))?)
        })
    }
}

/// Writes an index file to `out` (buffered by the caller): one segment and its
/// directory, reading the shingle sets and signatures a block at a time wherever they
/// are; its length and checksum.
pub(crate) fn encode(
    params: &Params,
    files: FilesOut,
    docs: &(impl DocList + ?Sized),
    contents: &[u64],
    bulk: &impl Bulk,
    mut out: impl Write,
) -> Result<Seal, Failed> {
    let entry = segment(params, (files, docs), contents, bulk, &mut out)?;
    let (n, sum) = directory::put(&[entry], entry.size, &mut out)?;
    out.flush()?;
    Ok((entry.size + n, sum))
}

/// Writes a segment to `out` (buffered by the caller): the files and documents given
/// (their groups numbered among all the file's), the groups' `contents` and their sets
/// and signatures. Its directory entry, at offset 0.
pub(crate) fn segment(
    params: &Params,
    (files, docs): (FilesOut, &(impl DocList + ?Sized)),
    contents: &[u64],
    bulk: &impl Bulk,
    out: &mut impl Write,
) -> Result<Entry, Failed> {
    let groups = bulk.groups();
    debug_assert_eq!(contents.len(), groups);
    let width = bulk.width();
    let sig_words = if width == 0 { 0 } else { groups * width };
    // Each file's path is made absolute once to count the strings, once to write them
    // and once for its record: not a fourth time for where the documents' strings start.
    let file_strings = file_string_bytes(files)?;
    let strings = file_strings + doc_string_bytes(docs)?;
    let size = HEADER
        + pad8(strings)
        + files.recs.count() as u64 * FILE_RECORD
        + docs.count() as u64 * DOC_RECORD
        + groups as u64 * 8
        + pad8(groups as u64 * 4)
        + bulk.total() as u64 * 8
        + pad8(sig_words as u64 * 4)
        + TRAILER;
    let mut sink = Sink {
        out,
        hasher: Xxh3::new(),
        n: 0,
        buf: Vec::with_capacity(1 << 17),
    };
    let counts = [
        files.recs.count() as u64,
        docs.count() as u64,
        groups as u64,
        bulk.total() as u64,
        strings,
    ];
    put_header(&mut sink.buf, params, width, size, counts);
    put_strings(&mut sink, files, docs)?;
    sink.pad()?;
    put_files(&mut sink, files)?;
    put_docs(&mut sink, file_strings, docs)?;
    for &c in contents {
        put64(&mut sink.buf, c);
        sink.drain(false)?;
    }
    for g in 0..groups {
        put32(&mut sink.buf, bulk.set_len(g) as u32);
        sink.drain(false)?;
    }
    sink.pad()?;
    sink.drain(true)?;
    let head = sink.hasher.digest();
    bulk.put_sets(&mut sink)?;
    bulk.put_signatures(&mut sink)?;
    sink.pad()?;
    sink.drain(true)?;
    let sum = sink.hasher.digest();
    sink.out.write_all(&sum.to_le_bytes())?;
    debug_assert_eq!(sink.n + TRAILER, size);
    Ok(Entry {
        offset: 0,
        size,
        head,
        sum,
    })
}

/// The signatures of `groups`, a block of rows at a time.
pub(crate) fn put_signatures<W: Write>(
    sink: &mut Sink<W>,
    signatures: &Signatures,
    groups: std::ops::Range<usize>,
) -> Result<(), Failed> {
    let width = signatures.width();
    if let Some(per) = BLOCK_VALUES.checked_div(width) {
        let per = per.max(1);
        for from in groups.clone().step_by(per) {
            let block = signatures.rows(from..(from + per).min(groups.end))?;
            for &v in block.values() {
                put32(&mut sink.buf, v);
            }
            sink.drain(false)?;
        }
    }
    Ok(())
}

/// The shingle sets of `groups`, a block of sets at a time.
pub(crate) fn put_sets<W: Write>(
    sink: &mut Sink<W>,
    shingles: &ShingleSets,
    groups: std::ops::Range<usize>,
) -> Result<(), Failed> {
    let mut from = groups.start;
    while from < groups.end {
        let mut to = from + 1;
        let mut values = shingles.set_len(from);
        while to < groups.end && values + shingles.set_len(to) <= BLOCK_VALUES {
            values += shingles.set_len(to);
            to += 1;
        }
        let block = shingles.sets(from..to)?;
        for &x in block.values() {
            put64(&mut sink.buf, x);
        }
        sink.drain(false)?;
        from = to;
    }
    Ok(())
}

/// Bytes of the documents' strings in the table: each one's id, title and metadata.
fn doc_string_bytes(docs: &(impl DocList + ?Sized)) -> io::Result<u64> {
    let mut n = 0;
    docs.each(&mut |d| {
        n += (d.id.len() + d.title.len() + meta_bytes(d.meta)) as u64;
        Ok(())
    })?;
    Ok(n)
}

/// Bytes of the files' strings, first in the table.
fn file_string_bytes(files: FilesOut) -> Result<u64, Failed> {
    let mut n = 0u64;
    files.each(&mut |f, path| {
        n += (path.len() + f.detail.len()) as u64;
        Ok(())
    })?;
    Ok(n)
}

/// Bytes of metadata values as [`encode_meta`] writes them.
fn meta_bytes(meta: &[String]) -> usize {
    meta.iter().map(|v| 4 + v.len()).sum()
}

/// The string table: each file's path then its detail, then each document's id, title
/// and metadata (the records say where each one's strings start, in the same order).
fn put_strings<W: Write>(
    sink: &mut Sink<W>,
    files: FilesOut,
    docs: &(impl DocList + ?Sized),
) -> Result<(), Failed> {
    files.each(&mut |f, path| {
        sink.buf.extend_from_slice(path);
        sink.buf.extend_from_slice(f.detail.as_bytes());
        sink.drain(false)
    })?;
    Ok(docs.each(&mut |d| {
        sink.buf.extend_from_slice(d.id.as_bytes());
        sink.buf.extend_from_slice(d.title.as_bytes());
        encode_meta(d.meta, &mut sink.buf);
        sink.drain(false)
    })?)
}

/// The fixed header: magic, version, sizes, parameters, counts.
fn put_header(out: &mut Vec<u8>, params: &Params, width: usize, size: u64, counts: [u64; 5]) {
    out.extend_from_slice(&MAGIC);
    put32(out, VERSION);
    put32(out, HEADER as u32);
    put64(out, size);
    out.push((params.text.unit == Unit::Char) as u8);
    out.push(params.text.keep_case as u8);
    out.push(params.text.stopwords.map_or(0, Language::code));
    out.push((params.sketch == SketchKind::Oph) as u8);
    put32(out, params.k as u32);
    put64(out, params.seed);
    put32(out, width as u32);
    put32(out, params.min_words.min(u32::MAX as u64) as u32);
    put64(out, params.max_bytes);
    for n in counts {
        put64(out, n);
    }
    out.push(params.text.stem.map_or(0, Language::code));
    out.push(params.text.letters_only as u8);
    out.extend_from_slice(&[0; 6]);
    debug_assert_eq!(out.len() as u64, HEADER);
}

/// The file records, their strings from the start of the table on.
fn put_files<W: Write>(sink: &mut Sink<W>, files: FilesOut) -> Result<(), Failed> {
    let mut at = 0u64;
    files.each(&mut |f, path| {
        put_file_record(&mut sink.buf, at, path.len(), f);
        at += (path.len() + f.detail.len()) as u64;
        sink.drain(false)
    })
}

/// The document records, their strings after the files' (`file_strings` bytes) in the
/// table.
fn put_docs<W: Write>(
    sink: &mut Sink<W>,
    file_strings: u64,
    docs: &(impl DocList + ?Sized),
) -> io::Result<()> {
    let mut at = file_strings;
    docs.each(&mut |d| {
        let out = &mut sink.buf;
        put64(out, at);
        let meta = meta_bytes(d.meta);
        at += (d.id.len() + d.title.len() + meta) as u64;
        put32(out, d.id.len() as u32);
        put32(out, d.group);
        put64(out, d.bytes);
        put64(out, d.tokens);
        put64(out, d.part.offset);
        put64(out, d.part.len);
        put64(out, d.part.line);
        put32(out, d.title.len() as u32);
        put32(out, meta as u32);
        sink.drain(false)
    })
}
