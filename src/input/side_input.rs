//! Files read beside the corpus: the config file, keep-lists, `--pairs`, `--review`,
//! `eval --truth`. Each must be a regular file (a FIFO, a device or a folder where a file
//! is expected is a clear error, never a read that blocks or grows without end: files
//! are opened with O_NONBLOCK and checked with fstat before a byte is read), and a file
//! read whole must be within a size limit, checked before reading and again while
//! reading (the file may grow, a gzip stream may expand).

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// A config file: settings and key bindings, a few KiB.
pub const CONFIG_LIMIT: u64 = 1 << 20;
/// A keep-list: ids, one a line (about 10 million ids of 25 bytes).
pub const KEEP_LIST_LIMIT: u64 = 256 << 20;
/// A file read whole into memory by `--pairs`, `--review` or `eval --truth` (JSON Lines,
/// a pickle, datatrove's `.remove` numbers), or all of a folder's such files together:
/// tens of millions of pairs or removals. Parquet and Arrow files are read a batch at a
/// time, and are not held to it.
pub const WHOLE_FILE_LIMIT: u64 = 2 << 30;

/// The error of a side input, whole: `cannot read WHAT PATH: WHY`.
pub fn named(what: &str, path: &Path, why: &str) -> String {
    let gap = if what.is_empty() { "" } else { " " };
    format!("cannot read {what}{gap}{}: {why}", path.display())
}

/// Opens `path` for reading if it is a regular file of at most `limit` bytes; else why
/// not ("not a regular file but a FIFO", an I/O error, "over the … limit").
pub fn open(path: &Path, limit: u64) -> Result<File, String> {
    let file = simtui_engine::source::file::open_nonblocking(path).map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(format!(
            "not a regular file but {}",
            simtui_engine::source::kind_name(&meta.file_type())
        ));
    }
    if meta.len() > limit {
        return Err(over(limit, Some(meta.len())));
    }
    Ok(file)
}

/// Whether an open file is within `limit` bytes (one opened with no limit, such as a
/// Parquet file read in batches, before it is read whole after all); else why not.
pub fn within(file: &File, limit: u64) -> Result<(), String> {
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    if len > limit {
        return Err(over(limit, Some(len)));
    }
    Ok(())
}

/// Reads a regular file of at most `limit` bytes whole, as text (invalid UTF-8 is an
/// error); else why not.
pub fn text(path: &Path, limit: u64) -> Result<String, String> {
    bounded(open(path, limit)?, limit)
}

/// Reads a regular file of at most `limit` bytes whole; else why not.
pub fn bytes(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    read_within(open(path, limit)?, limit, |r, bytes| r.read_to_end(bytes))
}

/// Reads all of `reader` as text, failing if it gives more than `limit` bytes (a file
/// that grew since it was opened, a compressed stream that expands past it).
pub fn bounded(reader: impl Read, limit: u64) -> Result<String, String> {
    read_within(reader, limit, |r, text| r.read_to_string(text))
}

/// Reads `reader` with `read` (as bytes or as text), failing past `limit` bytes: it is
/// read one byte beyond, to tell a reader of exactly `limit` from a longer one.
fn read_within<T: Default + AsRef<[u8]>, R: Read>(
    reader: R,
    limit: u64,
    read: impl FnOnce(&mut std::io::Take<R>, &mut T) -> std::io::Result<usize>,
) -> Result<T, String> {
    let mut out = T::default();
    read(&mut reader.take(limit.saturating_add(1)), &mut out).map_err(|e| e.to_string())?;
    if out.as_ref().len() as u64 > limit {
        return Err(over(limit, None));
    }
    Ok(out)
}

fn over(limit: u64, size: Option<u64>) -> String {
    let size = match size {
        Some(n) => format!(" ({n} bytes)"),
        None => String::new(),
    };
    format!(
        "over the {} limit for it{size}",
        crate::output::progress::human(limit)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn devices_fifos_and_folders_are_refused_before_a_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a valid NUL-terminated path; the test needs a real FIFO.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        for (path, kind) in [
            (fifo.as_path(), "a FIFO"),
            (Path::new("/dev/zero"), "a device"),
            (dir.path(), "a folder"),
        ] {
            let e = text(path, 100).unwrap_err();
            assert_eq!(e, format!("not a regular file but {kind}"));
        }
        assert_eq!(
            named("the keep-list", Path::new("k"), "why"),
            "cannot read the keep-list k: why"
        );
    }

    #[test]
    fn a_file_over_its_limit_is_refused_and_a_stream_is_cut_at_it() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("big");
        std::fs::write(&f, "x".repeat(101)).unwrap();
        let e = text(&f, 100).unwrap_err();
        assert_eq!(e, "over the 0.1 KB limit for it (101 bytes)");
        assert_eq!(bytes(&f, 101).unwrap().len(), 101);
        let e = bounded(std::io::repeat(b'a'), 1000).unwrap_err();
        assert_eq!(e, "over the 1.0 KB limit for it");
    }
}
