//! Documents kept on a temporary file past the memory limit ([`OnFile`]): what every
//! search and output asks of each document often (its id, group, tokens and bytes) in
//! compact rows in memory, about 60 bytes a document against the 200 or more its record,
//! id, path and title took; where its text is read from and its labels on the file, read
//! back one record at a time when asked for.

use crate::error::{Error, Result};
use crate::index::Doc;
use crate::index::doc::{DocLabels, Dropped};
use crate::source::Source;
use crate::source::stored::{Containers, Reader, RecordFile, corrupt, put_bytes, put_source};
use crate::storage::Room;
use std::sync::{Arc, Mutex};

/// What each document is asked for often, in memory.
#[derive(Clone, Copy, Debug)]
struct Row {
    bytes: u64,
    tokens: u64,
    group: u32,
}

/// Documents on a temporary file, with their ids and rows in memory.
pub(crate) struct OnFile {
    rows: Vec<Row>,
    /// Every id, one after the other; `id_ends[i]` is where document `i`'s ends.
    ids: String,
    id_ends: Vec<u64>,
    /// Each document's record: where its text is, its title and metadata.
    records: RecordFile,
    /// Where a failed read of the file is kept for [`Index::check`](crate::index::Index::check)
    /// (the index's own): a document that cannot be read back is handed out without its
    /// source and labels meanwhile.
    failure: Arc<Mutex<Option<Error>>>,
    /// Labels left out of each document read back (see [`OnFile::drop_labels`]).
    dropped: Dropped,
}

impl OnFile {
    /// No documents yet, on a new temporary file of `room` (its memory apart); a read that
    /// fails later goes to `failure`.
    pub(crate) fn create(room: Room<'_>, failure: Arc<Mutex<Option<Error>>>) -> Result<OnFile> {
        Ok(OnFile {
            rows: Vec::new(),
            ids: String::new(),
            id_ends: Vec::new(),
            records: RecordFile::create(&room, "documents")?,
            failure,
            dropped: Dropped::default(),
        })
    }

    /// Room for `more` documents of about `id_bytes` bytes of ids in all.
    pub(crate) fn reserve(&mut self, more: usize, id_bytes: usize) {
        self.rows.reserve_exact(more);
        self.id_ends.reserve_exact(more);
        self.records.reserve(more);
        self.ids.reserve_exact(id_bytes);
    }

    /// Appends `doc`: its record to the file, its id and row in memory. It can be read
    /// back once [`OnFile::finish`] has written what is pending.
    pub(crate) fn push(&mut self, doc: Doc) -> Result<()> {
        self.records.push(|out, containers| {
            put_source(&doc.source, out, containers);
            put_labels(doc.labels.as_deref(), out);
        })?;
        self.ids.push_str(&doc.id);
        self.id_ends.push(self.ids.len() as u64);
        self.rows.push(Row {
            bytes: doc.bytes,
            tokens: doc.tokens,
            group: doc.group,
        });
        Ok(())
    }

    /// Writes out what is pending: every document can be read back.
    pub(crate) fn finish(&mut self) -> Result<()> {
        self.records.finish()
    }

    /// Gives document `i` of `renames` its new id (the ids are laid out again once).
    pub(crate) fn rename(&mut self, renames: &[(usize, String)]) {
        if renames.is_empty() {
            return;
        }
        let extra: usize = renames.iter().map(|(_, id)| id.len()).sum();
        let mut ids = String::with_capacity(self.ids.len() + extra);
        let mut id_ends = Vec::with_capacity(self.id_ends.len());
        let mut next = renames.iter().peekable();
        for i in 0..self.len() {
            match next.next_if(|(d, _)| *d == i) {
                Some((_, id)) => ids.push_str(id),
                None => ids.push_str(self.id(i)),
            }
            id_ends.push(ids.len() as u64);
        }
        (self.ids, self.id_ends) = (ids, id_ends);
    }

    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    pub(crate) fn id(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.id_ends[i - 1] };
        &self.ids[start as usize..self.id_ends[i] as usize]
    }

    pub(crate) fn group(&self, i: usize) -> u32 {
        self.rows[i].group
    }

    pub(crate) fn tokens(&self, i: usize) -> u64 {
        self.rows[i].tokens
    }

    pub(crate) fn bytes(&self, i: usize) -> u64 {
        self.rows[i].bytes
    }

    /// The bytes of records `range` on the file (where the first starts, the bytes).
    /// None when the file cannot be read (the failure kept for the check).
    pub(crate) fn records(&self, range: std::ops::Range<usize>) -> (u64, Vec<u8>) {
        self.records.read(range).unwrap_or_else(|e| {
            self.failed(e);
            (0, Vec::new())
        })
    }

    /// Where record `i` starts on the file and ends.
    pub(crate) fn span(&self, i: usize) -> (u64, u64) {
        self.records.span(i)
    }

    /// Document `i`, its record read from the file.
    pub(crate) fn doc(&self, i: usize) -> Doc {
        let (_, record) = self.records(i..i + 1);
        self.doc_from(i, &record)
    }

    /// Document `i` from its record's bytes (none when the file could not be read).
    pub(crate) fn doc_from(&self, i: usize, record: &[u8]) -> Doc {
        let decoded = match record.is_empty() {
            true => None,
            false => decode(record, self.records.containers()),
        };
        if decoded.is_none() && !record.is_empty() {
            self.failed(corrupt("a document's record"));
        }
        let (source, labels) = decoded.unwrap_or_else(|| (Source::Memory("".into()), None));
        let row = self.rows[i];
        let mut doc = Doc {
            id: self.id(i).to_string(),
            source,
            bytes: row.bytes,
            tokens: row.tokens,
            group: row.group,
            labels,
        };
        doc.drop_labels(self.dropped);
        doc
    }

    /// From now on, each document is read back without the labels `dropped` names
    /// (besides those dropped before).
    pub(crate) fn drop_labels(&mut self, dropped: Dropped) {
        self.dropped.titles |= dropped.titles;
        self.dropped.meta |= dropped.meta;
    }

    fn failed(&self, e: Error) {
        let mut failure = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        failure.get_or_insert(e);
    }

    /// Bytes of the ids it holds in memory.
    pub(crate) fn id_bytes(&self) -> u64 {
        self.ids.capacity() as u64
    }

    /// Bytes of the rows it holds in memory: sizes and groups, where ids end, where
    /// records start.
    pub(crate) fn row_bytes(&self) -> u64 {
        (self.rows.capacity() * std::mem::size_of::<Row>()
            + self.id_ends.capacity() * 8
            + self.records.heap_bytes()) as u64
    }
}

fn put_labels(labels: Option<&DocLabels>, out: &mut Vec<u8>) {
    let Some(l) = labels else {
        out.push(0);
        return;
    };
    out.push(1);
    put_bytes(l.title.as_bytes(), out);
    out.extend_from_slice(&(l.meta.len() as u32).to_le_bytes());
    for m in &l.meta {
        put_bytes(m.as_bytes(), out);
    }
}

type Decoded = (Source, Option<Box<DocLabels>>);

fn decode(record: &[u8], containers: &Containers) -> Option<Decoded> {
    let mut r = Reader(record);
    let source = r.source(containers)?;
    let labels = match r.u8()? {
        0 => None,
        _ => {
            let title = r.string()?;
            let n = r.u32()? as usize;
            let meta = (0..n)
                .map(|_| r.string())
                .collect::<Option<Vec<String>>>()?;
            DocLabels::boxed(title, meta)
        }
    };
    r.0.is_empty().then_some((source, labels))
}

/// Bytes of records read from the file at once when they are gone through in order.
const READ_AHEAD: u64 = 1 << 20;

impl OnFile {
    /// Where a read of records from `first` on stops: after `READ_AHEAD` bytes, or at
    /// the end (at least one record).
    pub(crate) fn read_end(&self, first: usize) -> usize {
        self.records.read_end(first, READ_AHEAD)
    }
}
