//! The rows of one unit of `sketch --resume`, saved until the shards are written: each
//! row as it is, little-endian, with the id it takes if another unit's document has it
//! too. Read back only by the same simtui, from the folder it wrote.

use super::Row;
use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;

fn put_bytes(w: &mut dyn Write, b: &[u8]) -> io::Result<()> {
    w.write_all(&(b.len() as u64).to_le_bytes())?;
    w.write_all(b)
}

fn put_u64s(w: &mut dyn Write, v: &[u64]) -> io::Result<()> {
    w.write_all(&(v.len() as u64).to_le_bytes())?;
    v.iter().try_for_each(|x| w.write_all(&x.to_le_bytes()))
}

/// Writes `row` and the id it takes on a clash (`rename`; none for a file's path).
pub fn put(w: &mut dyn Write, row: &Row, rename: Option<&str>) -> io::Result<()> {
    put_bytes(w, row.id.as_bytes())?;
    put_bytes(w, row.source.as_bytes())?;
    w.write_all(&row.tokens.to_le_bytes())?;
    w.write_all(&row.bytes.to_le_bytes())?;
    put_u64s(w, &row.bands)?;
    let sig: Vec<u64> = row.signature.iter().map(|&v| u64::from(v)).collect();
    put_u64s(w, &sig)?;
    match &row.shingles {
        Some(set) => {
            w.write_all(&[1])?;
            put_u64s(w, set)?;
        }
        None => w.write_all(&[0])?,
    }
    match rename {
        Some(r) => {
            w.write_all(&[1])?;
            put_bytes(w, r.as_bytes())
        }
        None => w.write_all(&[0]),
    }
}

/// The rows of a unit's file, one at a time.
pub struct Reader {
    r: BufReader<File>,
}

impl Reader {
    pub fn open(path: &Path) -> io::Result<Reader> {
        Ok(Reader {
            r: BufReader::with_capacity(1 << 20, File::open(path)?),
        })
    }

    fn u64(&mut self) -> io::Result<u64> {
        let mut b = [0; 8];
        self.r.read_exact(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn flag(&mut self) -> io::Result<bool> {
        let mut b = [0; 1];
        self.r.read_exact(&mut b)?;
        Ok(b[0] == 1)
    }

    fn len(&mut self) -> io::Result<usize> {
        // A length past what any row holds is a damaged file, not an allocation.
        match self.u64()? {
            n if n < 1 << 32 => Ok(n as usize),
            n => Err(io::Error::other(format!(
                "a damaged unit file (a length of {n})"
            ))),
        }
    }

    fn string(&mut self) -> io::Result<String> {
        let mut b = vec![0; self.len()?];
        self.r.read_exact(&mut b)?;
        String::from_utf8(b).map_err(io::Error::other)
    }

    fn u64s(&mut self) -> io::Result<Vec<u64>> {
        (0..self.len()?).map(|_| self.u64()).collect()
    }

    /// The next row and its id on a clash, or None at the end.
    pub fn next(&mut self) -> io::Result<Option<(Row<'static>, Option<String>)>> {
        if self.r.fill_buf()?.is_empty() {
            return Ok(None);
        }
        let id = self.string()?;
        let source = self.string()?;
        let (tokens, bytes) = (self.u64()?, self.u64()?);
        let bands = self.u64s()?;
        let signature: Vec<u32> = self.u64s()?.into_iter().map(|v| v as u32).collect();
        let shingles = match self.flag()? {
            true => Some(Cow::Owned(self.u64s()?)),
            false => None,
        };
        let rename = match self.flag()? {
            true => Some(self.string()?),
            false => None,
        };
        let row = Row {
            id: Cow::Owned(id),
            source,
            tokens,
            bytes,
            bands,
            signature: Cow::Owned(signature),
            shingles,
        };
        Ok(Some((row, rename)))
    }
}

/// Calls `f` on every row of a unit's file.
pub fn each(
    path: &Path,
    mut f: impl FnMut(Row<'static>, Option<String>) -> io::Result<()>,
) -> io::Result<()> {
    let mut r = Reader::open(path)?;
    while let Some((row, rename)) = r.next()? {
        f(row, rename)?;
    }
    Ok(())
}
