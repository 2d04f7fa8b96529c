//! The saved index's file format, version 5 (doc/index-format.md describes it byte by
//! byte). Little-endian throughout, explicit counts in a fixed header, fixed-size
//! records, and an xxh3 checksum of everything before the last 8 bytes.
//!
//! Reading never trusts a count: the header's counts must add up to exactly the file's
//! size (checked arithmetic) before anything is allocated, so a corrupt header cannot
//! ask for a huge allocation, and every offset into the string table is checked.

use crate::index::Params;
use crate::shingle::ShingleSets;
use crate::sketch::{Signatures, SketchKind};
use crate::source::SkipReason;
use crate::text::{Language, TextOptions, Unit};
use rayon::prelude::*;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64;

/// The first 8 bytes of every simtui index file.
pub const MAGIC: [u8; 8] = *b"SIMTUIDX";
/// The format this simtui reads and writes.
pub const VERSION: u32 = 5;

pub(super) const HEADER: u64 = 104;
pub(super) const FILE_RECORD: u64 = 80;
pub(super) const DOC_RECORD: u64 = 64;
pub(super) const TRAILER: u64 = 8;

/// A file's size, modification and status-change times and inode number, as `stat`
/// gives them: when they are all unchanged the file is not read again. The change time
/// catches what the others miss: a permission restored (`chmod`), a file rewritten at
/// the same size with its old modification time put back (`touch -d`); no program can
/// set it back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Stamp {
    /// Size in bytes.
    pub size: u64,
    /// Modification time: seconds since the Unix epoch (negative before it) and nanoseconds.
    pub secs: i64,
    /// Nanoseconds of the modification time (below 10⁹).
    pub nanos: u32,
    /// Status-change time (`st_ctime`), seconds since the Unix epoch (0 where unknown).
    pub ctime_secs: i64,
    /// Nanoseconds of the status-change time (below 10⁹).
    pub ctime_nanos: u32,
    /// Inode number (0 where unknown): a file replaced by another (renamed over it) is
    /// another file, whatever its times.
    pub inode: u64,
}

/// A file of the corpus as the index saw it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FileRec {
    /// Absolute (not canonicalised) path.
    pub(crate) path: PathBuf,
    /// `None`: the file changed while it was indexed; it is read again next time.
    pub(crate) stamp: Option<Stamp>,
    /// xxh3-64 of the file's bytes (`None` when not known).
    pub(crate) hash: Option<u64>,
    /// `None`: its documents are in the index; else why it is not a document.
    pub(crate) status: Option<SkipReason>,
    pub(crate) detail: String,
    /// Number of documents it holds (0 when skipped).
    pub(crate) docs: u32,
}

/// A document of the index, as saved. Documents are in corpus order, those of one file
/// together.
#[derive(Clone, Debug, PartialEq)]
pub struct DocRec {
    /// Its id, as [`Doc::id`](crate::index::Doc::id).
    pub id: String,
    /// Its group (distinct content): an index into `contents`, `shingles` and the rows
    /// of `signatures` of the [`Saved`] file.
    pub group: u32,
    /// Size of its text in bytes, as decoded.
    pub bytes: u64,
    /// Number of tokens of its text.
    pub tokens: u64,
    /// Its title, as [`Doc::title`](crate::index::Doc::title).
    pub title: String,
    /// Its metadata values, as [`Doc::meta`](crate::index::Doc::meta).
    pub meta: Vec<String>,
    /// Where in its file the document is: [`Place::WHOLE`] for a document that is the
    /// whole file, else a record of a JSON Lines, SGML or Parquet file.
    pub(crate) part: Place,
}

/// A record's place in its file: byte offset and length (in the decompressed data for
/// a compressed file) and line number, from 1. Line 0 means the whole file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) offset: u64,
    pub(crate) len: u64,
    pub(crate) line: u64,
}

impl Place {
    pub(crate) const WHOLE: Place = Place {
        offset: 0,
        len: 0,
        line: 0,
    };
}

/// A document to write (borrowing its id).
pub(crate) struct DocOut<'a> {
    pub(crate) id: &'a str,
    pub(crate) group: u32,
    pub(crate) bytes: u64,
    pub(crate) tokens: u64,
    pub(crate) title: &'a str,
    pub(crate) meta: &'a [String],
    pub(crate) part: Place,
}

/// Metadata values as saved: each value's length (u32) then its UTF-8 bytes.
pub(super) fn encode_meta(meta: &[String], out: &mut Vec<u8>) {
    for v in meta {
        out.extend_from_slice(&(v.len() as u32).to_le_bytes());
        out.extend_from_slice(v.as_bytes());
    }
}

/// The metadata values saved by [`encode_meta`]; None if the bytes are not such values.
fn decode_meta(mut b: &[u8]) -> Option<Vec<String>> {
    let mut out = Vec::new();
    while !b.is_empty() {
        let len = u32::from_le_bytes(b.get(..4)?.try_into().ok()?) as usize;
        let v = b.get(4..4usize.checked_add(len)?)?;
        out.push(std::str::from_utf8(v).ok()?.to_string());
        b = &b[4 + len..];
    }
    Some(out)
}

/// An index file, decoded.
#[derive(Clone, Debug)]
pub struct Saved {
    /// What the index was built with; `num_perm` is the width of the saved signatures.
    pub params: Params,
    pub(crate) files: Vec<FileRec>,
    /// The documents, in corpus order.
    pub docs: Vec<DocRec>,
    /// Content hash of each group.
    pub contents: Vec<u64>,
    /// Shingle sets of the groups, set `g` for group `g`.
    pub shingles: ShingleSets,
    /// Signatures of the groups, row `g` for group `g`.
    pub signatures: Signatures,
}

pub use crate::error::FormatError;

fn corrupt(what: impl Into<String>) -> FormatError {
    FormatError::Corrupt(what.into())
}

pub(super) fn pad8(n: u64) -> u64 {
    n.div_ceil(8) * 8
}

#[cfg(unix)]
pub(super) fn path_bytes(p: &Path) -> Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    Cow::Borrowed(p.as_os_str().as_bytes())
}

#[cfg(not(unix))]
pub(super) fn path_bytes(p: &Path) -> Cow<'_, [u8]> {
    match p.to_string_lossy() {
        Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
        Cow::Owned(s) => Cow::Owned(s.into_bytes()),
    }
}

#[cfg(unix)]
fn path_from(b: &[u8]) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(b)))
}

#[cfg(not(unix))]
fn path_from(b: &[u8]) -> Option<PathBuf> {
    std::str::from_utf8(b).ok().map(PathBuf::from)
}

pub(super) fn skip_code(s: Option<SkipReason>) -> u8 {
    match s {
        None => 0,
        Some(r) => SkipReason::ALL.iter().position(|&x| x == r).unwrap_or(0) as u8 + 1,
    }
}

/// Recomputes the checksum of (possibly edited) index bytes, so tests can reach the
/// checks behind it. Does nothing to bytes shorter than a trailer.
pub fn reseal(bytes: &mut [u8]) {
    let Some(end) = bytes.len().checked_sub(TRAILER as usize) else {
        return;
    };
    let sum = xxh3_64(&bytes[..end]);
    bytes[end..].copy_from_slice(&sum.to_le_bytes());
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Bytes [`check_head`] needs: a header and a trailer, so a file shorter than that is
/// known to be truncated.
pub(crate) const HEAD_BYTES: usize = (HEADER + TRAILER) as usize;

/// The checks of an index file that need only its first [`HEAD_BYTES`] bytes (`bytes`,
/// all of them if the file is shorter) and its length `n`: an index, of this version, not
/// truncated. The explorer runs them before it takes the terminal and leaves the rest
/// of [`decode`] (the checksum, the contents) to a background thread.
pub(crate) fn check_head(bytes: &[u8], n: u64) -> Result<(), FormatError> {
    if bytes.len() < MAGIC.len() {
        return if MAGIC.starts_with(bytes) {
            Err(FormatError::Truncated {
                expected: HEADER + TRAILER,
                actual: n,
            })
        } else {
            Err(FormatError::NotIndex)
        };
    }
    if bytes[..8] != MAGIC {
        return Err(FormatError::NotIndex);
    }
    if n < 12 {
        return Err(FormatError::Truncated {
            expected: HEADER + TRAILER,
            actual: n,
        });
    }
    let version = le32(bytes, 8);
    if version != VERSION {
        return Err(FormatError::Version {
            found: version,
            reads: VERSION,
        });
    }
    if n < HEADER + TRAILER {
        // The header's size field may already be readable: name it if so.
        let expected = if n >= 24 {
            le64(bytes, 16).max(HEADER + TRAILER)
        } else {
            HEADER + TRAILER
        };
        return Err(FormatError::Truncated {
            expected,
            actual: n,
        });
    }
    let size = le64(bytes, 16);
    if size > n {
        return Err(FormatError::Truncated {
            expected: size,
            actual: n,
        });
    }
    Ok(())
}

fn check_frame(bytes: &[u8]) -> Result<(), FormatError> {
    let n = bytes.len() as u64;
    check_head(&bytes[..bytes.len().min(HEAD_BYTES)], n)?;
    let size = le64(bytes, 16);
    let end = n - TRAILER;
    if xxh3_64(&bytes[..end as usize]) != le64(bytes, end as usize) {
        return Err(FormatError::Checksum);
    }
    if size < n {
        return Err(corrupt(format!(
            "{} bytes after the end its header gives",
            n - size
        )));
    }
    if le32(bytes, 12) as u64 != HEADER {
        return Err(corrupt(format!("a header size other than {HEADER}")));
    }
    Ok(())
}

/// Checked sums and products of the section sizes.
fn total(parts: &[(u64, u64, bool)]) -> Option<u64> {
    let mut sum = HEADER + TRAILER;
    for &(count, size, padded) in parts {
        let bytes = count.checked_mul(size)?;
        let bytes = if padded {
            bytes.checked_add(7)? / 8 * 8
        } else {
            bytes
        };
        sum = sum.checked_add(bytes)?;
    }
    Some(sum)
}

/// What the header says: the parameters (`num_perm` the signatures' width) and the
/// number of files, documents, groups, shingles and bytes of strings.
struct Header {
    params: Params,
    counts: [u64; 5],
}

/// Decodes and checks the fixed header.
fn decode_header(h: &[u8]) -> Result<Header, FormatError> {
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
    let counts = [56, 64, 72, 80, 88].map(|at| le64(h, at));
    Ok(Header { params, counts })
}

/// The string table, every offset into it checked.
struct Strings<'a> {
    table: &'a [u8],
}

impl<'a> Strings<'a> {
    fn get(&self, off: u64, len: u32, what: &str) -> Result<&'a [u8], FormatError> {
        off.checked_add(len as u64)
            .filter(|&end| end <= self.table.len() as u64)
            .map(|end| &self.table[off as usize..end as usize])
            .ok_or_else(|| corrupt(format!("{what} lies outside the string table")))
    }
}

/// Decodes and validates an index file.
pub fn decode(bytes: &[u8]) -> Result<Saved, FormatError> {
    check_frame(bytes)?;
    let Header { params, counts } = decode_header(&bytes[..HEADER as usize])?;
    let [files, docs, groups, shingles, strings] = counts;
    let width = params.num_perm as u64;
    let expected = total(&[
        (strings, 1, true),
        (files, FILE_RECORD, false),
        (docs, DOC_RECORD, false),
        (groups, 8, false),
        (groups, 4, true),
        (shingles, 8, false),
        (
            groups
                .checked_mul(width)
                .ok_or_else(|| corrupt("sizes overflow"))?,
            4,
            true,
        ),
    ])
    .ok_or_else(|| corrupt("sizes overflow"))?;
    if expected != bytes.len() as u64 {
        return Err(corrupt(format!(
            "its counts need {expected} bytes, the file has {}",
            bytes.len()
        )));
    }
    // Every count is now bounded by the file's size: the casts and slices below fit.
    let [files, docs, groups, shingles, strings] = counts.map(|n| n as usize);
    if docs > u32::MAX as usize || groups > u32::MAX as usize {
        return Err(corrupt("more than 2^32 documents"));
    }
    let mut at = HEADER as usize;
    let mut section = |len: usize, padded: bool| {
        let s = &bytes[at..at + len];
        at += if padded { len.div_ceil(8) * 8 } else { len };
        s
    };
    let table = Strings {
        table: section(strings, true),
    };
    let file_bytes = section(files * FILE_RECORD as usize, false);
    let doc_bytes = section(docs * DOC_RECORD as usize, false);
    let content_bytes = section(groups * 8, false);
    let len_bytes = section(groups * 4, true);
    let shingle_bytes = section(shingles * 8, false);
    let sig_bytes = section(groups * width as usize * 4, true);

    let (file_recs, doc_sum) = decode_files(file_bytes, &table)?;
    if doc_sum != docs as u64 {
        return Err(corrupt(format!(
            "the files hold {doc_sum} documents, the header says {docs}"
        )));
    }
    let doc_recs = decode_docs(doc_bytes, &table, groups)?;
    let contents: Vec<u64> = content_bytes.chunks_exact(8).map(|c| le64(c, 0)).collect();
    let shingle_sets = decode_sets(len_bytes, shingle_bytes, shingles)?;
    let sig_data: Vec<u32> = sig_bytes[..groups * width as usize * 4]
        .par_chunks_exact(4)
        .map(|c| le32(c, 0))
        .collect();
    let signatures =
        Signatures::from_data(width as usize, sig_data).ok_or_else(|| corrupt("signatures"))?;
    Ok(Saved {
        params,
        files: file_recs,
        docs: doc_recs,
        contents,
        shingles: shingle_sets,
        signatures,
    })
}

/// The file records, and the number of documents they hold.
fn decode_files(bytes: &[u8], table: &Strings) -> Result<(Vec<FileRec>, u64), FormatError> {
    let mut file_recs = Vec::with_capacity(bytes.len() / FILE_RECORD as usize);
    let mut doc_sum = 0u64;
    for r in bytes.chunks_exact(FILE_RECORD as usize) {
        let (off, path_len, detail_len) = (le64(r, 0), le32(r, 8), le32(r, 12));
        let both = path_len
            .checked_add(detail_len)
            .ok_or_else(|| corrupt("a file name is too long"))?;
        let s = table.get(off, both, "a file name")?;
        let (p, d) = s.split_at(path_len as usize);
        let path = path_from(p).ok_or_else(|| corrupt("a file name is not UTF-8"))?;
        let detail = String::from_utf8_lossy(d).into_owned();
        let stamp = Stamp {
            size: le64(r, 16),
            secs: le64(r, 24) as i64,
            nanos: le32(r, 32),
            ctime_nanos: le32(r, 52),
            ctime_secs: le64(r, 56) as i64,
            inode: le64(r, 64),
        };
        let status = match r[36] {
            0 => None,
            c if (c as usize) <= SkipReason::ALL.len() => Some(SkipReason::ALL[c as usize - 1]),
            c => return Err(corrupt(format!("unknown file status {c}"))),
        };
        let flags = r[37];
        if flags > 3 || r[38] != 0 || r[39] != 0 || le64(r, 72) != 0 {
            return Err(corrupt("reserved bits of a file record are set"));
        }
        if stamp.nanos >= 1_000_000_000 || stamp.ctime_nanos >= 1_000_000_000 {
            return Err(corrupt("a file time has over 10^9 nanoseconds"));
        }
        let n = le32(r, 48);
        if status.is_some() && n != 0 {
            return Err(corrupt("a skipped file has documents"));
        }
        doc_sum += n as u64;
        file_recs.push(FileRec {
            path,
            stamp: (flags & 1 != 0).then_some(stamp),
            hash: (flags & 2 != 0).then(|| le64(r, 40)),
            status,
            detail,
            docs: n,
        });
    }
    Ok((file_recs, doc_sum))
}

/// The document records, each in one of `groups` groups.
fn decode_docs(bytes: &[u8], table: &Strings, groups: usize) -> Result<Vec<DocRec>, FormatError> {
    let mut doc_recs = Vec::with_capacity(bytes.len() / DOC_RECORD as usize);
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
        let title = std::str::from_utf8(title)
            .map_err(|_| corrupt("a document title is not UTF-8"))?
            .to_string();
        let meta = decode_meta(meta).ok_or_else(|| corrupt("a document's metadata"))?;
        let group = le32(r, 12);
        if group as usize >= groups {
            return Err(corrupt(format!(
                "document {id:?} is in group {group} of {groups}"
            )));
        }
        doc_recs.push(DocRec {
            id,
            group,
            bytes: le64(r, 16),
            tokens: le64(r, 24),
            title,
            meta,
            part: Place {
                offset: le64(r, 32),
                len: le64(r, 40),
                line: le64(r, 48),
            },
        });
    }
    Ok(doc_recs)
}

/// The shingle sets from their lengths and data (`shingles` in all), each sorted.
fn decode_sets(
    len_bytes: &[u8],
    shingle_bytes: &[u8],
    shingles: usize,
) -> Result<ShingleSets, FormatError> {
    let mut offsets = Vec::with_capacity(len_bytes.len() / 4 + 1);
    offsets.push(0usize);
    let mut sum = 0u64;
    for c in len_bytes.chunks_exact(4) {
        sum += le32(c, 0) as u64;
        offsets.push(sum.min(usize::MAX as u64) as usize);
    }
    if sum != shingles as u64 {
        return Err(corrupt(format!(
            "the shingle sets hold {sum} shingles, the header says {shingles}"
        )));
    }
    let data: Vec<u64> = shingle_bytes
        .par_chunks_exact(8)
        .map(|c| le64(c, 0))
        .collect();
    let sorted = offsets
        .par_windows(2)
        .all(|w| data[w[0]..w[1]].windows(2).all(|p| p[0] < p[1]));
    if !sorted {
        return Err(corrupt("a shingle set is not sorted"));
    }
    ShingleSets::from_parts(offsets, data).ok_or_else(|| corrupt("shingle offsets"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::encode::encode;

    fn sample() -> Vec<u8> {
        sample_with(&Params::default())
    }

    fn sample_with(params: &Params) -> Vec<u8> {
        let meta = [
            "1987-03-02".to_string(),
            String::new(),
            "usa, uk".to_string(),
        ];
        let mut sets = ShingleSets::new();
        sets.push(&[1, 5, 9]);
        sets.push(&[]);
        let sigs = Signatures::from_data(2, vec![1, 2, u32::MAX, u32::MAX]).unwrap();
        let files = vec![
            FileRec {
                path: PathBuf::from("/c/a.txt"),
                stamp: Some(Stamp {
                    size: 10,
                    secs: -3,
                    nanos: 7,
                    ctime_secs: 1_700_000_000,
                    ctime_nanos: 999_999_999,
                    inode: 1 << 40,
                }),
                hash: Some(42),
                status: None,
                detail: String::new(),
                docs: 2,
            },
            FileRec {
                path: PathBuf::from("/c/bin"),
                stamp: None,
                hash: None,
                status: Some(SkipReason::Binary),
                detail: "NUL byte".into(),
                docs: 0,
            },
        ];
        let docs = [
            DocOut {
                id: "a.txt",
                group: 0,
                bytes: 10,
                tokens: 3,
                title: "A title",
                meta: &[],
                part: Place::WHOLE,
            },
            DocOut {
                id: "é",
                group: 1,
                bytes: 0,
                tokens: 0,
                title: "",
                meta: &meta,
                part: Place {
                    offset: 5,
                    len: 9,
                    line: 2,
                },
            },
        ];
        encode(params, &files, &docs, &[7, 8], &sets, &sigs).unwrap()
    }

    #[test]
    fn cleaning_options_are_saved_and_unknown_ones_refused() {
        for (stopwords, stem, letters_only) in [
            (Some(Language::English), None, false),
            (Some(Language::Uzbek), Some(Language::Turkish), true),
            (None, Some(Language::English), true),
        ] {
            let params = Params {
                text: TextOptions {
                    stopwords,
                    stem,
                    letters_only,
                    ..TextOptions::default()
                },
                num_perm: 2,
                ..Params::default()
            };
            assert_eq!(decode(&sample_with(&params)).unwrap().params, params);
        }
        for (at, value) in [(26, 33), (96, 200), (97, 2), (98, 1), (103, 9)] {
            let mut b = sample();
            b[at] = value;
            reseal(&mut b);
            assert!(matches!(decode(&b), Err(FormatError::Corrupt(_))), "{at}");
        }
    }

    #[test]
    fn encode_then_decode_gives_the_same_index() {
        let bytes = sample();
        let s = decode(&bytes).unwrap();
        assert_eq!(
            s.params,
            Params {
                num_perm: 2,
                ..Params::default()
            }
        );
        assert_eq!(s.files[0].stamp.unwrap().secs, -3);
        assert_eq!(s.files[1].status, Some(SkipReason::Binary));
        assert_eq!(s.files[1].detail, "NUL byte");
        assert_eq!(s.docs[1].id, "é");
        assert_eq!(s.docs[0].title, "A title");
        assert_eq!(s.docs[1].meta, ["1987-03-02", "", "usa, uk"]);
        assert!(s.docs[0].meta.is_empty());
        assert_eq!(s.contents, [7, 8]);
        assert_eq!(&*s.shingles.get(0).unwrap(), &[1, 5, 9]);
        assert!(s.shingles.get(1).unwrap().is_empty());
        assert_eq!(&*s.signatures.row(0).unwrap(), &[1, 2]);
        assert_eq!(bytes.len() % 8, 0);
    }

    #[test]
    fn huge_counts_are_rejected_before_any_allocation() {
        for at in [56, 64, 72, 80, 88, 40] {
            let mut b = sample();
            b[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
            reseal(&mut b);
            assert!(matches!(decode(&b), Err(FormatError::Corrupt(_))), "{at}");
        }
        let mut b = sample();
        b[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        reseal(&mut b);
        assert!(matches!(decode(&b), Err(FormatError::Truncated { .. })));
    }

    #[test]
    fn unsorted_sets_and_bad_groups_are_corrupt() {
        let good = sample();
        let n = good.len();
        // The shingle section sits before the 16 signature bytes and the checksum.
        let shingles = n - 8 - 16 - 24;
        let mut b = good.clone();
        b[shingles..shingles + 8].copy_from_slice(&100u64.to_le_bytes());
        reseal(&mut b);
        assert_eq!(
            decode(&b).unwrap_err(),
            FormatError::Corrupt("a shingle set is not sorted".into())
        );
    }
}
