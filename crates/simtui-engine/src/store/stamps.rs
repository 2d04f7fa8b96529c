//! A file's stamp (size, times, inode) and the hash of its bytes: how a saved index tells
//! a file unchanged since it was indexed without reading it.

use super::format::Stamp;
use crate::source;
use std::fs;
use std::io::Read;
use std::path::Path;
use std::time::UNIX_EPOCH;

/// A file's size, times and inode number, if it can be stat'ed.
pub(super) fn stamp(p: &Path) -> Option<Stamp> {
    let m = fs::metadata(p).ok()?;
    let (secs, nanos) = epoch_time(m.modified().ok()?);
    let (ctime_secs, ctime_nanos, inode) = change_time_and_inode(&m);
    Some(Stamp {
        size: m.len(),
        secs,
        nanos,
        ctime_secs,
        ctime_nanos,
        inode,
    })
}

/// Seconds since the Unix epoch (floored, negative before it) and nanoseconds forward.
pub(super) fn epoch_time(t: std::time::SystemTime) -> (i64, u32) {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
        Err(e) => {
            let d = e.duration();
            let (s, n) = (d.as_secs() as i64, d.subsec_nanos());
            if n == 0 {
                (-s, 0)
            } else {
                (-s - 1, 1_000_000_000 - n)
            }
        }
    }
}

#[cfg(unix)]
fn change_time_and_inode(m: &fs::Metadata) -> (i64, u32, u64) {
    use std::os::unix::fs::MetadataExt;
    (
        m.ctime(),
        m.ctime_nsec().clamp(0, 999_999_999) as u32,
        m.ino(),
    )
}

#[cfg(not(unix))]
fn change_time_and_inode(_: &fs::Metadata) -> (i64, u32, u64) {
    (0, 0, 0)
}

/// xxh3-64 of a regular file's bytes (at most `max_bytes` of them).
pub(super) fn hash_file(p: &Path, max_bytes: u64) -> Option<u64> {
    let f = source::file::open_nonblocking(p).ok()?;
    let m = f.metadata().ok()?;
    if !m.is_file() || m.len() > max_bytes {
        return None;
    }
    let mut bytes = Vec::with_capacity(m.len() as usize);
    f.take(max_bytes + 1).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= max_bytes).then(|| xxhash_rust::xxh3::xxh3_64(&bytes))
}
