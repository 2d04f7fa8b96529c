//! One file record of an index file (doc/index-format.md): its 80 bytes, written and
//! read by the same pair of functions for the index file and for the table of files on
//! a temporary file (`file_rows`).

use super::format::{
    FileRec, FormatError, Stamp, corrupt, le32, le64, path_from, put32, put64, skip_code,
};
use crate::source::SkipReason;

/// The record of file `f`, its strings (a path of `path` bytes, then its detail) at
/// `at` in the string table.
pub(super) fn put_file_record(out: &mut Vec<u8>, at: u64, path: usize, f: &FileRec) {
    put64(out, at);
    put32(out, path as u32);
    put32(out, f.detail.len() as u32);
    let st = f.stamp.unwrap_or_default();
    put64(out, st.size);
    out.extend_from_slice(&st.secs.to_le_bytes());
    put32(out, st.nanos);
    out.push(skip_code(f.status));
    out.push(f.stamp.is_some() as u8 | (f.hashed as u8) << 1);
    out.extend_from_slice(&[0, 0]);
    put64(out, f.hash().unwrap_or(0));
    put32(out, f.docs);
    put32(out, st.ctime_nanos);
    out.extend_from_slice(&st.ctime_secs.to_le_bytes());
    put64(out, st.inode);
    put64(out, 0);
}

/// The file of record `r`, whose strings (its path then its detail) are `strings`.
pub(super) fn file_record(r: &[u8], strings: &[u8]) -> Result<FileRec, FormatError> {
    let (p, d) = strings.split_at((le32(r, 8) as usize).min(strings.len()));
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
    Ok(FileRec {
        path: path.into(),
        stamp: (flags & 1 != 0).then_some(stamp),
        hash_value: if flags & 2 != 0 { le64(r, 40) } else { 0 },
        hashed: flags & 2 != 0,
        status,
        detail: detail.into(),
        docs: n,
    })
}
