//! The saved index's file format, version 6 (doc/index-format.md describes it byte by
//! byte): segments, each with a fixed header of explicit counts, fixed-size records,
//! its sets and signatures and an xxh3 checksum of its bytes, each followed by the
//! [`directory`](super::directory) of the segments so far. Little-endian throughout.
//! Version 5, one such segment alone, is still read.
//!
//! Reading ([`decode`](super::decode)) never trusts a count: the header's counts must add up to exactly the file's
//! size (checked arithmetic) before anything is allocated, so a corrupt header cannot
//! ask for a huge allocation, and every offset into the string table is checked.

use crate::index::Params;
use crate::index::doc::DocLabels;
use crate::shingle::ShingleSets;
use crate::sketch::Signatures;
use crate::source::SkipReason;
use std::path::Path;
use std::sync::Arc;

/// The first 8 bytes of every simtui index file.
pub const MAGIC: [u8; 8] = *b"SIMTUIDX";
/// The format this simtui writes (and reads).
pub const VERSION: u32 = 6;
/// The oldest format this simtui reads: version 5 is one segment without a directory.
pub const OLDEST: u32 = 5;

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
    /// Absolute (not canonicalised) path, shared with its documents' sources.
    pub(crate) path: Arc<Path>,
    /// `None`: the file changed while it was indexed; it is read again next time.
    pub(crate) stamp: Option<Stamp>,
    /// xxh3-64 of the file's bytes when `hashed` (else 0): see [`FileRec::hash`]. A flag
    /// beside the other small fields, not an `Option`'s 8 bytes more a file (4 MB of the
    /// table at 500,000 files).
    pub(crate) hash_value: u64,
    pub(crate) hashed: bool,
    /// `None`: its documents are in the index; else why it is not a document.
    pub(crate) status: Option<SkipReason>,
    pub(crate) detail: Box<str>,
    /// Number of documents it holds (0 when skipped).
    pub(crate) docs: u32,
}

impl FileRec {
    /// xxh3-64 of the file's bytes (`None` when not known).
    pub(crate) fn hash(&self) -> Option<u64> {
        self.hashed.then_some(self.hash_value)
    }

    pub(crate) fn set_hash(&mut self, hash: Option<u64>) {
        (self.hashed, self.hash_value) = (hash.is_some(), hash.unwrap_or(0));
    }

    /// Drops its stamp and hash: nothing proves the file unchanged next time, and it is
    /// read again then.
    pub(crate) fn unstamp(&mut self) {
        self.stamp = None;
        self.set_hash(None);
    }
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
    /// Its title and metadata values, boxed as a [`Doc`](crate::index::Doc)'s (and moved
    /// into it): absent when it has neither or they were left in the file.
    pub(crate) labels: Option<Box<DocLabels>>,
    /// Where in its file the document is: [`Place::WHOLE`] for a document that is the
    /// whole file, else a record of a JSON Lines, SGML or Parquet file.
    pub(crate) part: Place,
}

impl DocRec {
    /// Bytes it holds in memory as decoded: the record, its id, title and metadata
    /// (each allocation with the allocator's least overhead, 16 bytes).
    pub(crate) fn heap_bytes(&self) -> u64 {
        let id = self.id.len() as u64 + 16;
        std::mem::size_of::<DocRec>() as u64 + id + crate::index::memory::labels_bytes(&self.labels)
    }
}

impl DocRec {
    /// Its title, as [`Doc::title`](crate::index::Doc::title).
    pub fn title(&self) -> &str {
        DocLabels::title(&self.labels)
    }

    /// Its metadata values, as [`Doc::meta`](crate::index::Doc::meta).
    pub fn meta(&self) -> &[String] {
        DocLabels::meta(&self.labels)
    }
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
pub(super) fn decode_meta(mut b: &[u8]) -> Option<Vec<String>> {
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

pub(super) fn pad8(n: u64) -> u64 {
    n.div_ceil(8) * 8
}

pub(crate) use crate::storage::file::{path_bytes, path_from};

pub(super) fn skip_code(s: Option<SkipReason>) -> u8 {
    match s {
        None => 0,
        Some(r) => SkipReason::ALL.iter().position(|&x| x == r).unwrap_or(0) as u8 + 1,
    }
}

/// Bytes of a segment's head (header, strings, records, contents, set lengths) as its
/// header's counts give them, however wrong (saturating): where its sets start.
pub(super) fn head_len(segment: &[u8]) -> u64 {
    if segment.len() < HEADER as usize {
        return 0;
    }
    let c = |at: usize| le64(segment, at);
    let (files, docs, groups, strings) = (c(56), c(64), c(72), c(88));
    [
        HEADER,
        pad8(strings.min(u64::MAX - 8)),
        files.saturating_mul(FILE_RECORD),
        docs.saturating_mul(DOC_RECORD),
        groups.saturating_mul(8),
        pad8(groups.saturating_mul(4).min(u64::MAX - 8)),
    ]
    .into_iter()
    .fold(0u64, u64::saturating_add)
}

pub(super) fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

pub(super) fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Appends a little-endian u32.
pub(super) fn put32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Appends a little-endian u64.
pub(super) fn put64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// The index file is not what its format says: `what` is wrong.
pub(super) fn corrupt(what: impl Into<String>) -> FormatError {
    FormatError::Corrupt(what.into())
}

/// Bytes [`check_head`] needs: a header and a trailer, so a file shorter than that is
/// known to be truncated.
pub(crate) const HEAD_BYTES: usize = (HEADER + TRAILER) as usize;

/// The checks of an index file that need only its first [`HEAD_BYTES`] bytes (`bytes`,
/// all of them if the file is shorter) and its length `n`: an index, of this version, not
/// truncated. The explorer runs them before it takes the terminal and leaves the rest
/// of [`decode`] (the checksum, the contents) to a background thread. The header is the
/// first segment's; its size is that segment's in format 6.
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
    if !(OLDEST..=VERSION).contains(&version) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::decode::{decode, reseal};
    use crate::store::encode::{FilesOut, Held, encode};
    use crate::text::{Language, TextOptions};

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
                path: Path::new("/c/a.txt").into(),
                stamp: Some(Stamp {
                    size: 10,
                    secs: -3,
                    nanos: 7,
                    ctime_secs: 1_700_000_000,
                    ctime_nanos: 999_999_999,
                    inode: 1 << 40,
                }),
                hash_value: 42,
                hashed: true,
                status: None,
                detail: Box::default(),
                docs: 2,
            },
            FileRec {
                path: Path::new("/c/bin").into(),
                stamp: None,
                hash_value: 0,
                hashed: false,
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
        let mut out = Vec::new();
        encode(
            params,
            FilesOut {
                recs: &files,
                cwd: None,
            },
            &docs[..],
            &[7, 8],
            &Held(&sets, &sigs),
            &mut out,
        )
        .unwrap();
        out
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
    fn a_saved_record_holds_no_room_for_labels_it_has_not() {
        // 120 bytes with the title and metadata inline; opening a saved index holds one
        // a document until the index takes it.
        assert!(
            std::mem::size_of::<DocRec>() <= 80,
            "{}",
            std::mem::size_of::<DocRec>()
        );
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
        assert_eq!(&*s.files[1].detail, "NUL byte");
        assert_eq!(s.docs[1].id, "é");
        assert_eq!(s.docs[0].title(), "A title");
        assert_eq!(s.docs[1].meta(), ["1987-03-02", "", "usa, uk"]);
        assert!(s.docs[0].meta().is_empty());
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
        // The shingle section sits before the 16 signature bytes, the segment's checksum
        // and the directory of its one segment.
        let shingles = n - 64 - 8 - 16 - 24;
        let mut b = good.clone();
        b[shingles..shingles + 8].copy_from_slice(&100u64.to_le_bytes());
        reseal(&mut b);
        assert_eq!(
            decode(&b).unwrap_err(),
            FormatError::Corrupt("a shingle set is not sorted".into())
        );
    }
}
