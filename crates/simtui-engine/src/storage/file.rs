//! A temporary file that work past the memory limit goes to: written once, front to
//! back, through a buffer, then read back at any offset with positioned reads (no
//! seek, so threads share it; no `mmap`, so nothing read back stays in the process's
//! resident memory after it is used).

use super::budget::Spilled;
use crate::error::{Error, Result};
use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A value rows are made of, written to files as little-endian bytes.
pub trait Value: Copy + Default + Send + Sync + fmt::Debug + 'static {
    /// Bytes of one value.
    const BYTES: usize;
    /// Appends the values' bytes to `out`.
    fn put(values: &[Self], out: &mut Vec<u8>);
    /// Appends the values of `bytes` (whole values) to `out`.
    fn get(bytes: &[u8], out: &mut Vec<Self>);
}

/// Little-endian, as every simtui file stores its numbers.
macro_rules! little_endian {
    ($($t:ty),*) => {$(
        impl Value for $t {
            const BYTES: usize = std::mem::size_of::<$t>();
            fn put(values: &[$t], out: &mut Vec<u8>) {
                out.extend(values.iter().flat_map(|v| v.to_le_bytes()));
            }
            fn get(bytes: &[u8], out: &mut Vec<$t>) {
                out.extend(bytes.chunks_exact(Self::BYTES).map(|b| {
                    <$t>::from_le_bytes(b.try_into().expect("chunks of the value's width"))
                }));
            }
        }
    )*};
}
little_endian!(u64, u32);

/// Bytes gathered before one write to the file.
const BLOCK: usize = 1 << 20;

/// An anonymous temporary file (unlinked as soon as it is made where the system allows
/// it, so the kernel removes it however the process ends), appended to, then read.
pub(crate) struct SpillFile {
    file: File,
    dir: PathBuf,
    /// Where its values are in the file: empty for a temporary file (they start at 0);
    /// for parts of a saved index file read in place ([`SpillFile::part_of`]), each
    /// part's first value's place among the values and its offset in the file, in order
    /// (a saved index of several segments has its sets in several places).
    parts: Vec<(u64, u64)>,
    /// A saved file read in place, not a temporary file: a failure names it.
    saved: bool,
    /// What it holds ("shingle sets"), for the counters and messages.
    what: &'static str,
    spilled: Arc<Spilled>,
    pending: Vec<u8>,
}

impl SpillFile {
    /// A new empty file in `dir` (the system's temporary folder when None), counted in
    /// `spilled` under `what`.
    pub(crate) fn create(
        dir: Option<&Path>,
        what: &'static str,
        spilled: &Arc<Spilled>,
    ) -> Result<SpillFile> {
        let dir = dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
        let file = tempfile::tempfile_in(&dir).map_err(|source| Error::TempFile {
            dir: dir.clone(),
            source,
        })?;
        spilled.file_made(what, &file, &dir);
        Ok(SpillFile {
            file,
            dir,
            parts: Vec::new(),
            saved: false,
            what,
            spilled: spilled.clone(),
            pending: Vec::new(),
        })
    }

    /// Parts of a saved file (`path`, open as `file`) read in place as one run of
    /// values: `parts` gives, in order, where each part starts among the values (the
    /// first at 0) and at which byte of the file. Rows kept there are read when asked
    /// for, never loaded whole. Nothing is appended to it, and nothing it holds counts
    /// as spilled.
    pub(crate) fn part_of(
        file: File,
        path: &Path,
        parts: Vec<(u64, u64)>,
        what: &'static str,
    ) -> SpillFile {
        debug_assert!(parts.first().is_some_and(|p| p.0 == 0));
        SpillFile {
            file,
            dir: path.to_path_buf(),
            parts,
            saved: true,
            what,
            spilled: Arc::default(),
            pending: Vec::new(),
        }
    }

    pub(crate) fn error(&self, source: std::io::Error) -> Error {
        if self.saved {
            return Error::Io {
                path: self.dir.clone(),
                source,
            };
        }
        Error::TempFile {
            dir: self.dir.clone(),
            source,
        }
    }

    /// Appends bytes (written out a block at a time).
    pub(crate) fn append(&mut self, bytes: &[u8]) -> Result<()> {
        if self.pending.capacity() == 0 {
            self.pending.reserve_exact(BLOCK);
        }
        self.pending.extend_from_slice(bytes);
        if self.pending.len() >= BLOCK {
            self.flush()?;
        }
        Ok(())
    }

    /// Appends values, little-endian.
    pub(crate) fn append_values<T: Value>(&mut self, values: &[T]) -> Result<()> {
        let mut bytes = Vec::with_capacity(values.len().min(BLOCK) * T::BYTES);
        for chunk in values.chunks(BLOCK / T::BYTES.max(1)) {
            bytes.clear();
            T::put(chunk, &mut bytes);
            self.append(&bytes)?;
        }
        Ok(())
    }

    /// Writes what is pending: everything appended can be read back after this.
    pub(crate) fn flush(&mut self) -> Result<()> {
        debug_assert!(
            !self.saved || self.pending.is_empty(),
            "a saved file is read only"
        );
        if self.pending.is_empty() {
            return Ok(());
        }
        let written = self
            .spilled
            .fault()
            .and_then(|()| (&self.file).write_all(&self.pending));
        written.map_err(|e| self.error(e))?;
        self.spilled.add(self.what, self.pending.len() as u64);
        self.pending.clear();
        Ok(())
    }

    /// Fills `out` from byte `offset`, which must have been flushed.
    pub(crate) fn read_at(&self, offset: u64, out: &mut [u8]) -> Result<()> {
        let read = self.spilled.fault();
        read.and_then(|()| self.read_parts(offset, out))
            .map_err(|e| self.error(e))
    }

    /// Fills `out` from byte `offset` of the values, across the parts they are in.
    fn read_parts(&self, mut offset: u64, mut out: &mut [u8]) -> std::io::Result<()> {
        if self.parts.is_empty() {
            return read_exact_at(&self.file, out, offset);
        }
        while !out.is_empty() {
            // The last part starting at or before `offset` (the first starts at 0).
            let i = self.parts.partition_point(|&(at, _)| at <= offset) - 1;
            let (at, byte) = self.parts[i];
            let room = self
                .parts
                .get(i + 1)
                .map_or(u64::MAX, |&(next, _)| next - offset);
            let n = (out.len() as u64).min(room) as usize;
            let (now, rest) = std::mem::take(&mut out).split_at_mut(n);
            read_exact_at(&self.file, now, byte + (offset - at))?;
            out = rest;
            offset += n as u64;
        }
        Ok(())
    }

    /// `n` values from byte `offset`, appended to `out`. `bytes` is scratch space.
    pub(crate) fn read_values<T: Value>(
        &self,
        offset: u64,
        n: usize,
        bytes: &mut Vec<u8>,
        out: &mut Vec<T>,
    ) -> Result<()> {
        bytes.resize(n * T::BYTES, 0);
        self.read_at(offset, bytes)?;
        T::get(bytes, out);
        Ok(())
    }
}

impl std::fmt::Debug for SpillFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpillFile")
            .field("what", &self.what)
            .field("dir", &self.dir)
            .finish()
    }
}

/// `out.len()` bytes of `file` at `offset`, in one system call where the system has one
/// (`pread`), without moving the file's cursor: threads can share the file.
#[cfg(unix)]
pub(crate) fn read_exact_at(file: &File, out: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, out, offset)
}

#[cfg(windows)]
pub(crate) fn read_exact_at(
    file: &File,
    mut out: &mut [u8],
    mut offset: u64,
) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !out.is_empty() {
        match file.seek_read(out, offset) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                out = &mut out[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// A path's bytes as files store them (Unix: as they are; elsewhere: UTF-8).
#[cfg(unix)]
pub(crate) fn path_bytes(p: &Path) -> Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    Cow::Borrowed(p.as_os_str().as_bytes())
}

#[cfg(not(unix))]
pub(crate) fn path_bytes(p: &Path) -> Cow<'_, [u8]> {
    match p.to_string_lossy() {
        Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
        Cow::Owned(s) => Cow::Owned(s.into_bytes()),
    }
}

#[cfg(unix)]
pub(crate) fn path_from(b: &[u8]) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(b)))
}

#[cfg(not(unix))]
pub(crate) fn path_from(b: &[u8]) -> Option<PathBuf> {
    std::str::from_utf8(b).ok().map(PathBuf::from)
}
