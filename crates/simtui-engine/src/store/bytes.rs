//! Where an index file's bytes are read from (memory, or the file itself), a part of
//! them read as bytes of their own (a segment), and why reading them failed.

use crate::error::FormatError;
use std::fs::File;
use std::io;
use xxhash_rust::xxh3::Xxh3;

/// Bytes read at a time where a part is hashed.
const CHUNK: u64 = 1 << 20;

/// What the bytes of an index file are read from: memory, or the file itself.
pub(super) trait Bytes {
    fn size(&self) -> u64;
    /// Fills `out` from byte `at`.
    fn read(&self, at: u64, out: &mut [u8]) -> io::Result<()>;
    /// `len` bytes from `at`.
    fn section(&self, at: u64, len: u64) -> Result<Vec<u8>, Fault> {
        let mut out = vec![0; len as usize];
        self.read(at, &mut out)?;
        Ok(out)
    }
}

impl Bytes for [u8] {
    fn size(&self) -> u64 {
        self.len() as u64
    }
    fn read(&self, at: u64, out: &mut [u8]) -> io::Result<()> {
        let at = at as usize;
        let src = at
            .checked_add(out.len())
            .and_then(|end| self.get(at..end))
            .ok_or(io::ErrorKind::UnexpectedEof)?;
        out.copy_from_slice(src);
        Ok(())
    }
}

impl Bytes for File {
    fn size(&self) -> u64 {
        self.metadata().map_or(0, |m| m.len())
    }
    #[cfg(unix)]
    fn read(&self, at: u64, out: &mut [u8]) -> io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self, out, at)
    }
    #[cfg(not(unix))]
    fn read(&self, at: u64, out: &mut [u8]) -> io::Result<()> {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = self;
        f.seek(SeekFrom::Start(at))?;
        f.read_exact(out)
    }
}

/// Why an index file could not be read: what is wrong with it, or a failing read.
#[derive(Debug)]
pub(crate) enum Fault {
    Format(FormatError),
    Io(io::Error),
}

impl From<FormatError> for Fault {
    fn from(e: FormatError) -> Self {
        Fault::Format(e)
    }
}

impl From<io::Error> for Fault {
    fn from(e: io::Error) -> Self {
        Fault::Io(e)
    }
}

/// xxh3-64 of `len` bytes of `src` from `at`, read a chunk at a time.
pub(super) fn checksum(src: &(impl Bytes + ?Sized), at: u64, len: u64) -> Result<u64, Fault> {
    let mut hasher = Xxh3::new();
    let mut buf = vec![0; (CHUNK.min(len)) as usize];
    let mut done = 0;
    while done < len {
        let n = CHUNK.min(len - done) as usize;
        src.read(at + done, &mut buf[..n])?;
        hasher.update(&buf[..n]);
        done += n as u64;
    }
    Ok(hasher.digest())
}

/// A part of a file read as if it were a file of its own: a segment.
pub(super) struct Window<'a, B: ?Sized> {
    pub src: &'a B,
    pub start: u64,
    pub len: u64,
}

impl<B: Bytes + ?Sized> Bytes for Window<'_, B> {
    fn size(&self) -> u64 {
        self.len
    }
    fn read(&self, at: u64, out: &mut [u8]) -> io::Result<()> {
        if at
            .checked_add(out.len() as u64)
            .is_none_or(|e| e > self.len)
        {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        self.src.read(self.start + at, out)
    }
}
