//! Reading an index file (doc/index-format.md): from its bytes in memory ([`decode`]),
//! or in place from the file ([`read_in_place`]), whose shingle sets and signatures, the
//! bulk of it, are then rows of the file read when asked for, never loaded whole. Both
//! make the same checks, in the same order, on the same code: the directory of its
//! segments (format 6), then for each segment the frame (magic, version, length,
//! checksum), the header and its counts against the segment's size (checked
//! arithmetic, before anything sized by the file is allocated), then the records, the
//! set lengths and the order of every set. `index --add` checks less
//! ([`Check::Head`]): what it reads of each segment, not its sets and signatures.

use super::bytes::{Bytes, Fault, Window};
use super::directory::{self, Directory, Entry};
use super::file_record::file_record;
use super::format::{
    DOC_RECORD, DocRec, FILE_RECORD, FileRec, FormatError, HEAD_BYTES, HEADER, OLDEST, Place,
    Saved, TRAILER, VERSION, check_head, corrupt, decode_meta, le32, le64,
};
use super::strings::{Strings, doc_strings, file_strings};
use crate::index::Params;
use crate::index::doc::DocLabels;
use crate::shingle::ShingleSets;
use crate::sketch::{Signatures, SketchKind};
use crate::storage::file::SpillFile;
use crate::text::{Language, TextOptions, Unit};
use std::fs::File;
use std::path::Path;

/// How much of each segment of a file is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    /// Everything: each segment's checksum (all its bytes), then the order of every set.
    Full,
    /// What is read of each segment, its head (header, strings, records, contents and
    /// set lengths), against the checksum the directory gives it: not the sets and
    /// signatures, left as they are. A format 5 file, which has no such checksum, is
    /// checked in full.
    Head,
}

/// Bytes read at a time where a section is streamed (the sets' order).
const CHUNK: usize = 1 << 20;
/// Records of files or documents decoded at a time.
pub(super) const RECORDS: usize = 8192;

/// Which of each segment's records are decoded and kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Records {
    /// Files, documents, contents and set offsets: everything a reader holds.
    All,
    /// [`Records::All`] but the documents, checked and left in the file: opening an
    /// index reads them again in order as it makes its own ([`Later::docs`]).
    ///
    /// [`Later::docs`]: super::head::Later::docs
    Checked,
    /// The files alone (what `index --add` needs before it indexes the new documents;
    /// it reads the documents' ids and contents later, streamed: `head.rs`).
    Files,
}

/// Where file records go as they are decoded, a few thousand at a time (the sink takes
/// them out of the vector), instead of into [`Front::files`].
pub(super) type FileSink<'s> = Option<&'s mut dyn FnMut(&mut Vec<FileRec>)>;

/// Recomputes the checksums of (possibly edited) index bytes, so tests can reach the
/// checks behind them: of each segment and the directory (format 6), else of all the
/// bytes before the last 8. Does nothing to bytes shorter than a trailer.
pub fn reseal(bytes: &mut [u8]) {
    if directory::reseal_segments(bytes) {
        return;
    }
    let Some(end) = bytes.len().checked_sub(TRAILER as usize) else {
        return;
    };
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..end]);
    bytes[end..].copy_from_slice(&sum.to_le_bytes());
}

/// An index file's length and checksum: two files with the same are the same index.
pub(crate) type Seal = (u64, u64);

/// Where the sections of a checked file are.
pub(super) struct Layout {
    pub(super) params: Params,
    /// Files, documents, groups, shingles, bytes of strings.
    pub(super) counts: [usize; 5],
    /// Where the string table, file records, document records, contents, set lengths,
    /// shingles and signatures start.
    pub(super) at: [u64; 7],
    seal: Seal,
}

/// The checks of a segment's frame (magic, version, length, checksum, header size) and
/// its header against its size; `entry` is what the directory says of it (None for a
/// format 5 file, checked in full).
fn layout(
    src: &(impl Bytes + ?Sized),
    check: Check,
    entry: Option<&Entry>,
) -> Result<Layout, Fault> {
    let n = src.size();
    let mut head = vec![0; (n as usize).min(HEAD_BYTES)];
    src.read(0, &mut head)?;
    check_head(&head, n)?;
    if (le32(&head, 8) == VERSION) != entry.is_some() {
        return Err(corrupt("a segment of another format version").into());
    }
    let end = n - TRAILER;
    let mut trailer = [0; 8];
    src.read(end, &mut trailer)?;
    let stated = u64::from_le_bytes(trailer);
    if entry.is_some_and(|e| e.sum != stated)
        || ((check == Check::Full || entry.is_none())
            && super::bytes::checksum(src, 0, end)? != stated)
    {
        return Err(FormatError::Checksum.into());
    }
    let size = le64(&head, 16);
    if size < n {
        let extra = n - size;
        return Err(corrupt(format!("{extra} bytes after the end its header gives")).into());
    }
    if le32(&head, 12) as u64 != HEADER {
        return Err(corrupt(format!("a header size other than {HEADER}")).into());
    }
    let (params, counts) = decode_header(&head[..HEADER as usize])?;
    let at = sections(&params, counts, n)?;
    if let Some(e) = entry
        && super::bytes::checksum(src, 0, at[5])? != e.head
    {
        return Err(FormatError::Checksum.into());
    }
    Ok(Layout {
        params,
        counts: counts.map(|c| c as usize),
        at,
        seal: (n, stated),
    })
}

/// Where the sections of a segment of `n` bytes start, from its header's counts, which
/// must add up to exactly its size.
fn sections(params: &Params, counts: [u64; 5], n: u64) -> Result<[u64; 7], Fault> {
    let [files, docs, groups, shingles, strings] = counts;
    let wide = groups
        .checked_mul(params.num_perm as u64)
        .ok_or_else(|| corrupt("sizes overflow"))?;
    let sections = [
        (strings, 1, true),
        (files, FILE_RECORD, false),
        (docs, DOC_RECORD, false),
        (groups, 8, false),
        (groups, 4, true),
        (shingles, 8, false),
        (wide, 4, true),
    ];
    let mut at = [0u64; 7];
    let mut sum = HEADER;
    for (i, &(count, size, padded)) in sections.iter().enumerate() {
        at[i] = sum;
        let bytes = count
            .checked_mul(size)
            .ok_or_else(|| corrupt("sizes overflow"))?;
        let bytes = if padded {
            bytes
                .checked_add(7)
                .ok_or_else(|| corrupt("sizes overflow"))?
                / 8
                * 8
        } else {
            bytes
        };
        sum = sum
            .checked_add(bytes)
            .ok_or_else(|| corrupt("sizes overflow"))?;
    }
    let expected = sum
        .checked_add(TRAILER)
        .ok_or_else(|| corrupt("sizes overflow"))?;
    if expected != n {
        return Err(corrupt(format!(
            "its counts need {expected} bytes, the file has {n}"
        ))
        .into());
    }
    // Every count is now bounded by the file's size: the casts below fit.
    if docs > u32::MAX as u64 || groups > u32::MAX as u64 {
        return Err(corrupt("more than 2^32 documents").into());
    }
    Ok(at)
}

/// Decodes and checks the fixed header: the parameters (`num_perm` the signatures'
/// width) and the number of files, documents, groups, shingles and bytes of strings.
fn decode_header(h: &[u8]) -> Result<(Params, [u64; 5]), FormatError> {
    let flag = |at: usize, what: &str| match h[at] {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(corrupt(format!("{what} is {v}"))),
    };
    let unit = if flag(24, "the token unit")? {
        Unit::Char
    } else {
        Unit::Word
    };
    let keep_case = flag(25, "keep-case")?;
    let language = |at: usize, what: &str| match h[at] {
        0 => Ok(None),
        c => Language::from_code(c).map(Some).ok_or_else(|| {
            corrupt(format!(
                "{what} is language {c}, which this simtui does not know"
            ))
        }),
    };
    let stopwords = language(26, "the stop-word list")?;
    let stem = language(96, "the stemmer")?;
    let letters_only = flag(97, "letters-only")?;
    if h[98..104].iter().any(|&b| b != 0) {
        return Err(corrupt("reserved bytes of the header are set"));
    }
    let sketch = if flag(27, "the sketch kind")? {
        SketchKind::Oph
    } else {
        SketchKind::MinHash
    };
    let k = le32(h, 28);
    if k == 0 {
        return Err(corrupt("k is 0"));
    }
    let params = Params {
        text: TextOptions {
            unit,
            keep_case,
            stopwords,
            stem,
            letters_only,
        },
        k: k as usize,
        seed: le64(h, 32),
        sketch,
        num_perm: le32(h, 40) as usize,
        max_bytes: le64(h, 48),
        min_words: le32(h, 44) as u64,
    };
    Ok((params, [56, 64, 72, 80, 88].map(|at| le64(h, at))))
}

/// What every reader holds of an index file: its files and documents, each group's
/// content hash, and where each group's set starts among the shingles.
pub(super) struct Front {
    pub(super) files: Vec<FileRec>,
    docs: Vec<DocRec>,
    contents: Vec<u64>,
    offsets: Vec<usize>,
}

impl Front {
    /// The saved index these records make with its sets and signatures (in memory or
    /// left in the file); the set offsets are taken by the sets before.
    fn saved(self, params: Params, shingles: ShingleSets, signatures: Signatures) -> Saved {
        Saved {
            params,
            files: self.files,
            docs: self.docs,
            contents: self.contents,
            shingles,
            signatures,
        }
    }
}

/// Reads and checks a segment's records, content hashes and set lengths, a few thousand
/// records at a time; its documents' groups are below `limit` (the groups of the
/// segments up to it). Its file records go to `sink` when there is one.
fn front(
    src: &(impl Bytes + ?Sized),
    l: &Layout,
    limit: usize,
    (records, mut sink): (Records, FileSink),
) -> Result<Front, Fault> {
    let [files, docs, groups, shingles, strings] = l.counts;
    let mut table = Strings::new(l.at[0], strings as u64);
    let mut file_recs = Vec::with_capacity(if sink.is_some() { RECORDS } else { files });
    let mut doc_sum = 0u64;
    for from in (0..files).step_by(RECORDS) {
        let n = RECORDS.min(files - from);
        let at = l.at[1] + from as u64 * FILE_RECORD;
        let bytes = src.section(at, n as u64 * FILE_RECORD)?;
        table.load(
            src,
            bytes.chunks_exact(FILE_RECORD as usize).map(file_strings),
        )?;
        doc_sum += decode_files(&bytes, &table, &mut file_recs)?;
        if let Some(sink) = sink.as_mut() {
            sink(&mut file_recs);
        }
    }
    if doc_sum != docs as u64 {
        let what = format!("the files hold {doc_sum} documents, the header says {docs}");
        return Err(corrupt(what).into());
    }
    if records == Records::Files {
        return Ok(Front {
            files: file_recs,
            docs: Vec::new(),
            contents: Vec::new(),
            offsets: vec![0],
        });
    }
    let keep = records != Records::Checked;
    let mut doc_recs = Vec::with_capacity(if keep { docs } else { RECORDS });
    for from in (0..docs).step_by(RECORDS) {
        let n = RECORDS.min(docs - from);
        let at = l.at[2] + from as u64 * DOC_RECORD;
        let bytes = src.section(at, n as u64 * DOC_RECORD)?;
        table.load(
            src,
            bytes.chunks_exact(DOC_RECORD as usize).map(doc_strings),
        )?;
        let titles = records == Records::All;
        decode_docs(&bytes, &table, (limit, titles), &mut doc_recs)?;
        if !keep {
            doc_recs.clear();
        }
    }
    drop(table);
    let mut contents = Vec::with_capacity(groups);
    each_value(src, (l.at[3], groups, 8), &mut |c| {
        contents.push(le64(c, 0))
    })?;
    let mut offsets = Vec::with_capacity(groups + 1);
    offsets.push(0usize);
    let mut sum = 0u64;
    each_value(src, (l.at[4], groups, 4), &mut |c| {
        sum += le32(c, 0) as u64;
        offsets.push(sum.min(usize::MAX as u64) as usize);
    })?;
    if sum != shingles as u64 {
        let what = format!("the shingle sets hold {sum} shingles, the header says {shingles}");
        return Err(corrupt(what).into());
    }
    Ok(Front {
        files: file_recs,
        docs: doc_recs,
        contents,
        offsets,
    })
}

/// Calls `f` with each of the `n` values of `size` bytes from byte `at` of `src`, in
/// order, read a block at a time: read whole, the groups' content hashes and set lengths
/// were 6 MB of bytes at 500,000 groups beside the vectors made of them.
fn each_value(
    src: &(impl Bytes + ?Sized),
    (at, n, size): (u64, usize, usize),
    f: &mut dyn FnMut(&[u8]),
) -> Result<(), Fault> {
    let per_block = (1 << 16) / size;
    for from in (0..n).step_by(per_block) {
        let count = per_block.min(n - from);
        let bytes = src.section(at + (from * size) as u64, (count * size) as u64)?;
        bytes.chunks_exact(size).for_each(&mut *f);
    }
    Ok(())
}

/// Checks that every set is strictly ascending, reading the shingles a chunk at a time.
fn check_sets(src: &(impl Bytes + ?Sized), l: &Layout, offsets: &[usize]) -> Result<(), Fault> {
    let total = l.counts[3];
    let mut buf = vec![0u8; CHUNK.min(total * 8)];
    // The set shingle k is in (offsets[set] <= k < offsets[set + 1]), and the shingle
    // before k.
    let (mut set, mut prev) = (0usize, 0u64);
    let mut i = 0usize;
    while i < total {
        let n = (CHUNK / 8).min(total - i);
        src.read(l.at[5] + i as u64 * 8, &mut buf[..n * 8])?;
        for (j, c) in buf[..n * 8].chunks_exact(8).enumerate() {
            let (x, k) = (le64(c, 0), i + j);
            while offsets[set + 1] <= k {
                set += 1;
            }
            if offsets[set] != k && x <= prev {
                return Err(corrupt("a shingle set is not sorted").into());
            }
            prev = x;
        }
        i += n;
    }
    Ok(())
}

/// The file records of `bytes` appended to `out`; the number of documents they hold.
fn decode_files(bytes: &[u8], table: &Strings, out: &mut Vec<FileRec>) -> Result<u64, Fault> {
    let mut doc_sum = 0u64;
    for r in bytes.chunks_exact(FILE_RECORD as usize) {
        let (off, both) = file_strings(r);
        let both = u32::try_from(both).map_err(|_| corrupt("a file name is too long"))?;
        let rec = file_record(r, table.get(off, both, "a file name")?)?;
        doc_sum += rec.docs as u64;
        out.push(rec);
    }
    Ok(doc_sum)
}

/// The document records of `bytes`, each in one of `groups` groups, appended to `out`.
pub(super) fn decode_docs(
    bytes: &[u8],
    table: &Strings,
    (groups, titles): (usize, bool),
    out: &mut Vec<DocRec>,
) -> Result<(), FormatError> {
    for r in bytes.chunks_exact(DOC_RECORD as usize) {
        let (id_len, title_len, meta_len) = (le32(r, 8), le32(r, 56), le32(r, 60));
        let all = id_len
            .checked_add(title_len)
            .and_then(|n| n.checked_add(meta_len))
            .ok_or_else(|| corrupt("a document's strings are too long"))?;
        let s = table.get(le64(r, 0), all, "a document id")?;
        let (id, rest) = s.split_at(id_len as usize);
        let (title, meta) = rest.split_at(title_len as usize);
        let id = std::str::from_utf8(id)
            .map_err(|_| corrupt("a document id is not UTF-8"))?
            .to_string();
        let title =
            std::str::from_utf8(title).map_err(|_| corrupt("a document title is not UTF-8"))?;
        // Checked either way; a string of up to 200 bytes a document only when kept.
        let title = if titles {
            title.to_string()
        } else {
            String::new()
        };
        let meta = decode_meta(meta).ok_or_else(|| corrupt("a document's metadata"))?;
        let group = le32(r, 12);
        if group as usize >= groups {
            return Err(corrupt(format!(
                "document {id:?} is in group {group} of {groups}"
            )));
        }
        out.push(DocRec {
            id,
            group,
            bytes: le64(r, 16),
            tokens: le64(r, 24),
            labels: DocLabels::boxed(title, meta),
            part: Place {
                offset: le64(r, 32),
                len: le64(r, 40),
                line: le64(r, 48),
            },
        });
    }
    Ok(())
}

/// A checked file: its parameters, the records of all its segments (their sets'
/// offsets among all the shingles), each segment's start and layout, its directory.
pub(super) struct Whole {
    pub(super) params: Params,
    pub(super) front: Front,
    pub(super) segments: Vec<(u64, Layout)>,
    pub(super) dir: Directory,
}

/// `more` after `all`: moved over whole when `all` is empty (the first segment).
fn append<T>(all: &mut Vec<T>, mut more: Vec<T>) {
    if all.is_empty() {
        *all = more;
    } else {
        all.append(&mut more);
    }
}

/// The checks `check` asks for of an index file: its directory, then each segment's
/// layout, records and (in full) sets; the segments' records joined.
pub(super) fn checked(
    src: &(impl Bytes + ?Sized),
    check: Check,
    records: Records,
) -> Result<Whole, Fault> {
    checked_into(src, check, (records, None))
}

/// [`checked`], the file records given to `sink` when there is one.
fn checked_into(
    src: &(impl Bytes + ?Sized),
    check: Check,
    (records, mut sink): (Records, FileSink),
) -> Result<Whole, Fault> {
    let n = src.size();
    let mut head = vec![0; (n as usize).min(HEAD_BYTES)];
    src.read(0, &mut head)?;
    check_head(&head, n)?;
    let mut dir = if le32(&head, 8) == VERSION {
        directory::find(src, le64(&head, 16))?
    } else {
        let whole = Entry {
            offset: 0,
            size: n,
            head: 0,
            sum: 0,
        };
        Directory {
            version: OLDEST,
            entries: vec![whole],
            end: n,
            tail: 0,
            sum: 0,
        }
    };
    let mut all = Front {
        files: Vec::new(),
        docs: Vec::new(),
        contents: Vec::new(),
        offsets: vec![0],
    };
    let mut segments: Vec<(u64, Layout)> = Vec::with_capacity(dir.entries.len());
    let (mut groups, mut shingles, mut docs) = (0usize, 0usize, 0usize);
    for e in &dir.entries {
        let w = Window {
            src,
            start: e.offset,
            len: e.size,
        };
        let listed = (dir.version == VERSION).then_some(e);
        let l = layout(&w, check, listed)?;
        if segments.first().is_some_and(|(_, f)| f.params != l.params) {
            return Err(corrupt("its segments were built with other parameters").into());
        }
        let limit = groups + l.counts[2];
        docs += l.counts[1];
        if limit > u32::MAX as usize || docs > u32::MAX as usize {
            return Err(corrupt("more than 2^32 documents").into());
        }
        // Lent to one segment (a shorter borrow of the same sink).
        let lent: FileSink = sink.as_mut().map(|s| &mut **s as _);
        let f = front(&w, &l, limit, (records, lent))?;
        if check == Check::Full || listed.is_none() {
            // The sets' order is checked against their offsets, which only All keeps.
            debug_assert_ne!(
                records,
                Records::Files,
                "sets checked without their offsets"
            );
            check_sets(&w, &l, &f.offsets)?;
        }
        // The first segment's records are moved, not copied: both were held at once.
        append(&mut all.files, f.files);
        append(&mut all.docs, f.docs);
        append(&mut all.contents, f.contents);
        all.offsets
            .extend(f.offsets[1..].iter().map(|&o| o + shingles));
        groups = limit;
        shingles += l.counts[3];
        segments.push((e.offset, l));
    }
    if dir.version != VERSION {
        dir.sum = segments[0].1.seal.1;
    }
    let params = segments[0].1.params.clone();
    Ok(Whole {
        params,
        front: all,
        segments,
        dir,
    })
}

fn format_only(f: Fault) -> FormatError {
    match f {
        Fault::Format(e) => e,
        // Reads from memory are within the length checked first.
        Fault::Io(e) => corrupt(e.to_string()),
    }
}

/// Decodes and validates an index file's bytes, every part in memory.
pub fn decode(bytes: &[u8]) -> Result<Saved, FormatError> {
    let Whole {
        params,
        mut front,
        segments,
        ..
    } = checked(bytes, Check::Full, Records::All).map_err(format_only)?;
    let width = params.num_perm;
    let (mut data, mut sigs) = (Vec::new(), Vec::new());
    for (start, l) in &segments {
        let [_, _, groups, shingles, _] = l.counts;
        let at = |i: usize| (start + l.at[i]) as usize;
        let set_bytes = &bytes[at(5)..at(5) + shingles * 8];
        data.extend(set_bytes.chunks_exact(8).map(|c| le64(c, 0)));
        let sig_bytes = &bytes[at(6)..at(6) + groups * width * 4];
        sigs.extend(sig_bytes.chunks_exact(4).map(|c| le32(c, 0)));
    }
    let sets = ShingleSets::from_parts(std::mem::take(&mut front.offsets), data)
        .ok_or_else(|| corrupt("offsets"))?;
    let signatures = Signatures::from_data(width, sigs).ok_or_else(|| corrupt("signatures"))?;
    Ok(front.saved(params, sets, signatures))
}

/// Opens and validates the index file `path` (open as `file`), its shingle sets and
/// signatures left in it and read when asked for; with its seal (length and checksum).
pub(crate) fn read_in_place(file: File, path: &Path) -> Result<(Saved, Seal), Fault> {
    opened(file, path, (Check::Full, Records::All)).map(|o| (o.saved, o.seal))
}

/// An index file read in place.
pub(crate) struct InPlace {
    pub saved: Saved,
    /// Its length (without a tail after its last directory) and checksum.
    pub seal: Seal,
    /// Its segments and where its last directory ends.
    pub dir: Directory,
    /// Where the first segment's shingles and signatures start in the file (a format 5
    /// file added to copies them as they are).
    pub sections: [u64; 2],
    /// Each segment's start and layout.
    pub(super) segments: Vec<(u64, Layout)>,
}

/// [`read_in_place`] with the checks `check` asks for, of the `records` asked for, and
/// where the segments are.
pub(super) fn opened(
    file: File,
    path: &Path,
    (check, records): (Check, Records),
) -> Result<InPlace, Fault> {
    opened_into(file, path, (check, records), None)
}

/// [`opened`], the file records given to `sink` when there is one (then not in
/// [`InPlace::saved`]).
pub(super) fn opened_into(
    file: File,
    path: &Path,
    (check, records): (Check, Records),
    sink: FileSink,
) -> Result<InPlace, Fault> {
    debug_assert_ne!(records, Records::Files, "a reader holds the documents");
    let Whole {
        params,
        mut front,
        segments,
        dir,
    } = checked_into(&file, check, (records, sink))?;
    let width = params.num_perm as u64;
    let (mut set_parts, mut sig_parts) = (Vec::new(), Vec::new());
    let (mut groups, mut shingles) = (0u64, 0u64);
    for (start, l) in &segments {
        set_parts.push((shingles * 8, start + l.at[5]));
        sig_parts.push((groups * width * 4, start + l.at[6]));
        groups += l.counts[2] as u64;
        shingles += l.counts[3] as u64;
    }
    let first = &segments[0].1;
    let sections = [first.at[5], first.at[6]];
    let sets = SpillFile::part_of(file.try_clone()?, path, set_parts, "shingle sets");
    let sets = ShingleSets::in_file(std::mem::take(&mut front.offsets), sets)
        .ok_or_else(|| corrupt("offsets"))?;
    let sigs = SpillFile::part_of(file, path, sig_parts, "signatures");
    let signatures = Signatures::in_file(params.num_perm, groups as usize, sigs);
    Ok(InPlace {
        saved: front.saved(params, sets, signatures),
        seal: (dir.end, dir.sum),
        dir,
        sections,
        segments,
    })
}
