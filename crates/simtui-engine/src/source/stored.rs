//! Where documents' texts are ([`Source`]s), written as bytes and read back: what a
//! temporary file of documents, or of the sources a search reads its candidates' texts
//! from again ([`SourceFile`]), holds past the memory limit.

use super::{Container, Part, Source};
use crate::error::{Error, Result};
use crate::storage::Room;
use crate::storage::file::{SpillFile, path_bytes, path_from};
use std::collections::HashMap;
use std::sync::Arc;

/// The files of many documents that sources written name by their place here: shared,
/// as in memory, by all their records.
#[derive(Debug, Default)]
pub(crate) struct Containers {
    list: Vec<Arc<Container>>,
    /// While sources are written: each container's place, by its address.
    places: HashMap<usize, u32>,
}

impl Containers {
    fn place(&mut self, c: &Arc<Container>) -> u32 {
        let list = &mut self.list;
        *self
            .places
            .entry(Arc::as_ptr(c) as usize)
            .or_insert_with(|| {
                list.push(c.clone());
                list.len() as u32 - 1
            })
    }

    /// No more sources will be written.
    pub(crate) fn done(&mut self) {
        self.places = HashMap::new();
    }
}

/// Appends `source` to `out`: a tag, then a file's path, a text, or a record's
/// container (by its place in `containers`) and place in it.
pub(crate) fn put_source(source: &Source, out: &mut Vec<u8>, containers: &mut Containers) {
    match source {
        Source::File(p) => {
            out.push(0);
            put_bytes(&path_bytes(p), out);
        }
        Source::Memory(text) => {
            out.push(1);
            put_bytes(text.as_bytes(), out);
        }
        Source::Part(p) => {
            out.push(2);
            out.extend_from_slice(&containers.place(&p.file).to_le_bytes());
            for n in [p.offset, p.len, p.line] {
                out.extend_from_slice(&n.to_le_bytes());
            }
        }
        Source::Container(c) => {
            out.push(3);
            out.extend_from_slice(&containers.place(c).to_le_bytes());
        }
    }
}

/// Appends `b`'s length, then `b`.
pub(crate) fn put_bytes(b: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

/// Reads what [`put_source`] and [`put_bytes`] wrote, from the front.
pub(crate) struct Reader<'a>(pub(crate) &'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    pub(crate) fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }

    pub(crate) fn string(&mut self) -> Option<String> {
        String::from_utf8(self.bytes()?.to_vec()).ok()
    }

    /// A source [`put_source`] wrote, its containers in `containers`.
    pub(crate) fn source(&mut self, containers: &Containers) -> Option<Source> {
        let containers = &containers.list;
        Some(match self.u8()? {
            0 => Source::File(path_from(self.bytes()?)?.into()),
            1 => Source::Memory(self.string()?.into()),
            2 => {
                let file = containers.get(self.u32()? as usize)?.clone();
                let (offset, len, line) = (self.u64()?, self.u64()?, self.u64()?);
                Source::Part(Part {
                    file,
                    offset,
                    len,
                    line,
                })
            }
            3 => Source::Container(containers.get(self.u32()? as usize)?.clone()),
            _ => return None,
        })
    }
}

/// Records appended to a temporary file and read back by their number: what the files of
/// sources ([`SourceFile`]) and of documents (the index's) are made of.
pub(crate) struct RecordFile {
    file: SpillFile,
    /// Where each record starts on the file, and where the last one ends.
    starts: Vec<u64>,
    /// The containers the records' sources name.
    containers: Containers,
    /// The record being written.
    record: Vec<u8>,
}

impl RecordFile {
    /// No records yet, on a new temporary file of `room` counted under `what`.
    pub(crate) fn create(room: &Room<'_>, what: &'static str) -> Result<RecordFile> {
        Ok(RecordFile {
            file: SpillFile::create(room.dir, what, room.spilled)?,
            starts: vec![0],
            containers: Containers::default(),
            record: Vec::new(),
        })
    }

    /// Room for `more` records' places.
    pub(crate) fn reserve(&mut self, more: usize) {
        self.starts.reserve_exact(more);
    }

    /// Appends the record `write` puts together (its sources' containers numbered in
    /// [`RecordFile::containers`]).
    pub(crate) fn push(&mut self, write: impl FnOnce(&mut Vec<u8>, &mut Containers)) -> Result<()> {
        self.record.clear();
        write(&mut self.record, &mut self.containers);
        self.file.append(&self.record)?;
        let end = self.starts.last().copied().unwrap_or(0) + self.record.len() as u64;
        self.starts.push(end);
        Ok(())
    }

    /// Writes out what is pending: every record can be read back.
    pub(crate) fn finish(&mut self) -> Result<()> {
        self.record = Vec::new();
        self.containers.done();
        self.file.flush()
    }

    /// How many there are.
    pub(crate) fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// Where record `i` starts on the file and ends.
    pub(crate) fn span(&self, i: usize) -> (u64, u64) {
        (self.starts[i], self.starts[i + 1])
    }

    /// The bytes of records `range`, and where the first starts on the file.
    pub(crate) fn read(&self, range: std::ops::Range<usize>) -> Result<(u64, Vec<u8>)> {
        let (from, to) = (self.starts[range.start], self.starts[range.end]);
        let mut buf = vec![0u8; (to - from) as usize];
        self.file.read_at(from, &mut buf)?;
        Ok((from, buf))
    }

    /// Where a read of records from `first` on stops: after `bytes` bytes, or at the end
    /// (at least one record).
    pub(crate) fn read_end(&self, first: usize, bytes: u64) -> usize {
        let limit = self.starts[first] + bytes;
        let end = self
            .starts
            .partition_point(|&s| s <= limit)
            .saturating_sub(1);
        end.clamp(first + 1, self.len())
    }

    /// The containers its records' sources name.
    pub(crate) fn containers(&self) -> &Containers {
        &self.containers
    }

    /// Bytes held in memory.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.starts.capacity() * 8 + self.record.capacity()
    }
}

/// The error for a record read back that does not decode.
pub(crate) fn corrupt(what: &str) -> Error {
    Error::TempFile {
        dir: std::env::temp_dir(),
        source: std::io::Error::other(format!("{what} read back is corrupt")),
    }
}

/// Sources on a temporary file, read back one at a time by their number.
pub(crate) struct SourceFile(RecordFile);

impl std::fmt::Debug for SourceFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SourceFile({} sources)", self.len())
    }
}

impl SourceFile {
    /// No sources yet, on a new temporary file of `room`.
    pub(crate) fn create(room: &Room<'_>) -> Result<SourceFile> {
        RecordFile::create(room, "sources of the sets made again").map(SourceFile)
    }

    /// Appends `source`.
    pub(crate) fn push(&mut self, source: &Source) -> Result<()> {
        self.0
            .push(|out, containers| put_source(source, out, containers))
    }

    /// Writes out what is pending: every source can be read back.
    pub(crate) fn finish(&mut self) -> Result<()> {
        self.0.finish()
    }

    /// How many there are.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Source `i`, read back.
    pub(crate) fn get(&self, i: usize) -> Result<Source> {
        let (_, buf) = self.0.read(i..i + 1)?;
        let mut r = Reader(&buf);
        match r.source(self.0.containers()) {
            Some(s) if r.0.is_empty() => Ok(s),
            _ => Err(corrupt("a source")),
        }
    }

    /// Bytes held in memory.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.0.heap_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{Corpus, WalkOptions};
    use crate::storage::Budget;

    #[test]
    fn sources_on_a_file_read_back_as_they_were() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "a text").unwrap();
        let lines = (0..5).map(|i| format!(r#"{{"text":"record {i}"}}"#));
        std::fs::write(
            dir.path().join("r.jsonl"),
            lines.collect::<Vec<_>>().join("\n"),
        )
        .unwrap();
        let corpus = Corpus::walk(&[dir.path().to_path_buf()], &WalkOptions::default()).unwrap();
        let mut sources: Vec<Source> = corpus.entries.iter().map(|e| e.source.clone()).collect();
        sources.push(Source::Memory("in memory, é".into()));
        let budget = Budget::new(0, None);
        let mut file = SourceFile::create(&budget.room(0)).unwrap();
        for s in &sources {
            file.push(s).unwrap();
        }
        file.finish().unwrap();
        assert_eq!(file.len(), sources.len());
        for (i, s) in sources.iter().enumerate() {
            assert_eq!(
                format!("{:?}", file.get(i).unwrap()),
                format!("{s:?}"),
                "{i}"
            );
        }
        budget.spilled.break_files();
        assert!(matches!(file.get(0), Err(Error::TempFile { .. })));
    }
}
