//! The directory at the end of a saved index of format 6 (doc/index-format.md): where
//! each segment is, the checksum of its records (its head) and of all of it. A file is
//! its segments, each followed by the directory of the segments up to it: adding
//! documents writes a segment and a new directory after the last one, and the file's
//! last complete directory says what it holds. A tail after it (an `index --add` killed
//! while it wrote) is not part of the index: found by looking back for that directory,
//! it is ignored, and cut off by the next `--add`.

use super::bytes::{Bytes, Fault};
use super::format::{FormatError, HEADER, TRAILER, head_len, le64};
use std::io::{self, Write};
use xxhash_rust::xxh3::xxh3_64;

/// The last 8 bytes before a directory's checksum.
pub(crate) const END_MAGIC: [u8; 8] = *b"SIMTUEND";
/// Bytes of one segment's entry.
const ENTRY: u64 = 32;
/// Bytes after the entries: their count, the directory's end, the magic, the checksum.
const TAIL: u64 = 32;
/// Bytes read at a time looking back for a directory.
const CHUNK: u64 = 1 << 20;

/// Bytes of a directory of `n` segments.
pub(crate) fn size(n: u64) -> u64 {
    n.saturating_mul(ENTRY).saturating_add(TAIL)
}

/// One segment as the directory lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Where it starts in the file.
    pub offset: u64,
    /// Its bytes, its own checksum included.
    pub size: u64,
    /// xxh3-64 of its head: the header, strings, records, contents and set lengths.
    pub head: u64,
    /// Its own checksum (its last 8 bytes): xxh3-64 of all its bytes before them.
    pub sum: u64,
}

/// What a file holds: its format version and segments (a format 5 file is one segment
/// whose checksums are not listed), where its last complete directory ends, and the
/// bytes after that.
#[derive(Clone, Debug)]
pub(crate) struct Directory {
    pub version: u32,
    pub entries: Vec<Entry>,
    /// Bytes of the index: its segments and directories.
    pub end: u64,
    /// Bytes after `end`, not part of it.
    pub tail: u64,
    /// The last directory's checksum (format 5: the file's).
    pub sum: u64,
}

/// Writes the directory of `entries` (the segments so far); its size and checksum.
pub(super) fn put(entries: &[Entry], at: u64, out: &mut impl Write) -> io::Result<(u64, u64)> {
    let n = entries.len() as u64;
    let end = at + size(n);
    let mut b = Vec::with_capacity(size(n) as usize);
    for e in entries {
        for v in [e.offset, e.size, e.head, e.sum] {
            b.extend_from_slice(&v.to_le_bytes());
        }
    }
    b.extend_from_slice(&n.to_le_bytes());
    b.extend_from_slice(&end.to_le_bytes());
    b.extend_from_slice(&END_MAGIC);
    let sum = xxh3_64(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    out.write_all(&b)?;
    Ok((size(n), sum))
}

/// The directory ending at byte `end` of `src`, if a complete one is there: its
/// magic, its checksum, its own end, and segments that follow each other from byte 0,
/// each followed by the directory before it, up to it.
fn at_end(src: &(impl Bytes + ?Sized), end: u64) -> Result<Option<(Vec<Entry>, u64)>, Fault> {
    if end < TAIL {
        return Ok(None);
    }
    let mut tail = [0u8; TAIL as usize];
    src.read(end - TAIL, &mut tail)?;
    let (n, stated) = (le64(&tail, 0), le64(&tail, 8));
    if tail[16..24] != END_MAGIC || stated != end || size(n) > end || n == 0 {
        return Ok(None);
    }
    let start = end - size(n);
    let bytes = src.section(start, size(n))?;
    let sum = le64(&bytes, bytes.len() - 8);
    if xxh3_64(&bytes[..bytes.len() - 8]) != sum {
        return Ok(None);
    }
    let entries: Vec<Entry> = (bytes[..(n * ENTRY) as usize].chunks_exact(ENTRY as usize))
        .map(|c| Entry {
            offset: le64(c, 0),
            size: le64(c, 8),
            head: le64(c, 16),
            sum: le64(c, 24),
        })
        .collect();
    let mut next = 0u64;
    for (k, e) in entries.iter().enumerate() {
        if e.offset != next || e.size < HEADER + TRAILER {
            return Ok(None);
        }
        next = match e.offset.checked_add(e.size) {
            Some(x) if k + 1 < entries.len() => x.saturating_add(size(k as u64 + 1)),
            Some(x) => x,
            None => return Ok(None),
        };
    }
    Ok((next == start).then_some((entries, sum)))
}

/// The directory of a format 6 file whose first segment's header says it is `first`
/// bytes: the one at its end, else (a tail an interrupted write left) the last
/// complete one before. None found is an error: truncated if the file is shorter than a
/// first segment and its directory, a wrong checksum if one seems to end it.
pub(super) fn find(src: &(impl Bytes + ?Sized), first: u64) -> Result<Directory, Fault> {
    let n = src.size();
    let found = |(entries, sum): (Vec<Entry>, u64), end: u64| Directory {
        version: super::format::VERSION,
        entries,
        end,
        tail: n - end,
        sum,
    };
    if let Some(d) = at_end(src, n)? {
        return Ok(found(d, n));
    }
    // Directories end on a multiple of 8 with the magic 16 bytes before: look back,
    // a chunk at a time, from the end to where the first one would end.
    let lo = first.saturating_add(size(1));
    let mut buf = vec![0u8; (CHUNK + 16) as usize];
    let mut top = n / 8 * 8;
    while top >= lo.max(16) {
        let bottom = top.saturating_sub(CHUNK).max(lo).max(16);
        let from = bottom - 16;
        src.read(from, &mut buf[..(top - 8 - from) as usize])?;
        let mut end = top;
        while end >= bottom {
            let i = (end - 16 - from) as usize;
            if buf[i..i + 8] == END_MAGIC
                && let Some(d) = at_end(src, end)?
            {
                return Ok(found(d, end));
            }
            end -= 8;
        }
        top = end;
    }
    Err(if n < lo {
        FormatError::Truncated {
            expected: lo,
            actual: n,
        }
    } else if n >= 16 && src.section(n - 16, 8)? == END_MAGIC {
        FormatError::Checksum
    } else {
        FormatError::Corrupt("no directory of its segments at its end".into())
    }
    .into())
}

/// Recomputes the checksums of format 6 bytes after an edit: each segment's own, its
/// head's (where its header's counts put the head's end), the directory's. False when
/// the bytes end in no directory that can be read.
pub(super) fn reseal_segments(bytes: &mut [u8]) -> bool {
    let len = bytes.len() as u64;
    if len < TAIL || bytes[bytes.len() - 16..bytes.len() - 8] != END_MAGIC {
        return false;
    }
    let n = le64(bytes, bytes.len() - 32);
    if n == 0 || size(n) > len {
        return false;
    }
    let start = (len - size(n)) as usize;
    for k in 0..n as usize {
        let at = start + k * ENTRY as usize;
        let (offset, seg) = (le64(bytes, at), le64(bytes, at + 8));
        let Some(end) = offset.checked_add(seg).filter(|&e| e <= start as u64) else {
            continue;
        };
        if seg < HEADER + TRAILER {
            continue;
        }
        let s = &mut bytes[offset as usize..end as usize];
        let body = s.len() - TRAILER as usize;
        let head = (head_len(s) as usize).min(body);
        let head_sum = xxh3_64(&s[..head]);
        let sum = xxh3_64(&s[..body]);
        s[body..].copy_from_slice(&sum.to_le_bytes());
        bytes[at + 16..at + 24].copy_from_slice(&head_sum.to_le_bytes());
        bytes[at + 24..at + 32].copy_from_slice(&sum.to_le_bytes());
    }
    let sum = xxh3_64(&bytes[start..bytes.len() - 8]);
    let end = bytes.len() - 8;
    bytes[end..].copy_from_slice(&sum.to_le_bytes());
    true
}
