//! The documents of an index, in corpus order ([`Docs`]). A document is known by its
//! position: a [`Pair`](crate::search::Pair)'s `a` and `b`, [`Index::members`](super::Index::members).
//!
//! Each is handed out as a [`Cow`]: borrowed while the documents are held in memory, read
//! back and owned where they are not, so that callers do not depend on where they are.

mod on_file;

use super::Doc;
use super::doc::Dropped;
use crate::error::{Error, Result};
use crate::storage::Room;
use on_file::OnFile;
use std::borrow::Cow;
use std::sync::{Arc, Mutex};

/// The documents of an index in corpus order: held in memory, or on a temporary file
/// past the memory limit ([`Docs::onto_file`]).
#[derive(Clone, Default)]
pub struct Docs {
    held: Vec<Doc>,
    on_file: Option<Arc<OnFile>>,
}

impl std::fmt::Debug for Docs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Docs")
            .field("len", &self.len())
            .field("on_file", &self.on_file.is_some())
            .finish()
    }
}

impl Docs {
    /// These documents, in this order.
    pub(crate) fn from_vec(docs: Vec<Doc>) -> Docs {
        Docs {
            held: docs,
            on_file: None,
        }
    }

    /// The same documents on a temporary file of `room`, their ids, groups and sizes
    /// kept in memory; a read of the file that fails later goes to `failure` (the
    /// index's, which [`Index::check`](super::Index::check) hands over).
    pub(crate) fn onto_file(
        self,
        room: Room<'_>,
        failure: Arc<Mutex<Option<Error>>>,
    ) -> Result<Docs> {
        if self.on_file.is_some() {
            return Ok(self);
        }
        let mut writer = DocsWriter::new(0);
        writer.push_all(self.held);
        writer.onto_file(room, failure)?;
        writer.finish()
    }

    /// The id of document `i`, borrowed from wherever the ids are kept.
    pub(crate) fn id_ref(&self, i: usize) -> &str {
        match &self.on_file {
            None => &self.held[i].id,
            Some(f) => f.id(i),
        }
    }

    /// Gives each document of `renames` (in order of position) its new id.
    pub(crate) fn rename(&mut self, renames: &[(usize, String)]) {
        match &mut self.on_file {
            None => {
                for (i, id) in renames {
                    self.held[*i].id = id.clone();
                }
            }
            Some(f) => Arc::get_mut(f)
                .expect("ids are made unique before the documents are shared")
                .rename(renames),
        }
    }

    /// Whether they are on a temporary file.
    pub fn on_file(&self) -> bool {
        self.on_file.is_some()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.on_file.as_ref().map_or(self.held.len(), |f| f.len())
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Document `i`. Panics when there are not that many (a position the index gave is
    /// always one). On a temporary file, its record is read (its id, group and sizes
    /// are in memory: [`Docs::id`], [`Docs::group`], [`Docs::tokens`], [`Docs::bytes`]
    /// cost no read).
    pub fn at(&self, i: usize) -> Cow<'_, Doc> {
        match &self.on_file {
            None => Cow::Borrowed(&self.held[i]),
            Some(f) => Cow::Owned(f.doc(i)),
        }
    }

    /// Document `i`, or none past the end.
    pub fn get(&self, i: usize) -> Option<Cow<'_, Doc>> {
        (i < self.len()).then(|| self.at(i))
    }

    /// The id of document `i` ([`Doc::id`]). Panics when there are not that many.
    pub fn id(&self, i: usize) -> Cow<'_, str> {
        Cow::Borrowed(self.id_ref(i))
    }

    /// The group of document `i` ([`Doc::group`]).
    pub fn group(&self, i: usize) -> u32 {
        self.on_file
            .as_ref()
            .map_or_else(|| self.held[i].group, |f| f.group(i))
    }

    /// The tokens of document `i` ([`Doc::tokens`]).
    pub fn tokens(&self, i: usize) -> u64 {
        self.on_file
            .as_ref()
            .map_or_else(|| self.held[i].tokens, |f| f.tokens(i))
    }

    /// The bytes of document `i` ([`Doc::bytes`]).
    pub fn bytes(&self, i: usize) -> u64 {
        self.on_file
            .as_ref()
            .map_or_else(|| self.held[i].bytes, |f| f.bytes(i))
    }

    /// Every document in order (on a temporary file, read a block of records at a time).
    pub fn iter(&self) -> Iter<'_> {
        match &self.on_file {
            None => Iter(Inner::Held(self.held.iter())),
            Some(f) => Iter(Inner::OnFile {
                docs: f,
                next: 0,
                buf: (0, Vec::new()),
            }),
        }
    }

    /// Every document in order, `n` at a time (the last batch may be shorter): for work
    /// done a batch at a time in parallel.
    pub fn chunks(&self, n: usize) -> impl Iterator<Item = Vec<Cow<'_, Doc>>> + '_ {
        assert!(n > 0, "batches of at least one document");
        let mut docs = self.iter();
        std::iter::from_fn(move || {
            let batch: Vec<Cow<'_, Doc>> = docs.by_ref().take(n).collect();
            (!batch.is_empty()).then_some(batch)
        })
    }

    /// The documents to change in place (the engine's own edits: ids made unique, labels
    /// dropped, documents added to a saved index); read back into memory first when they
    /// are on a temporary file.
    pub(crate) fn held_mut(&mut self) -> &mut Vec<Doc> {
        if self.on_file.is_some() {
            self.held = self.iter().map(Cow::into_owned).collect();
            self.on_file = None;
        }
        &mut self.held
    }

    /// Drops their titles, metadata or both. On a temporary file, where their labels
    /// cost no memory, they are dropped as each is read back (read into memory to drop
    /// them, 500,000 documents were 75 MB held through `pairs --index`'s search).
    pub(crate) fn drop_labels(&mut self, dropped: Dropped) {
        if let Some(f) = self.on_file.as_mut().and_then(Arc::get_mut) {
            return f.drop_labels(dropped);
        }
        // Held (or shared, which only a clone of the index makes): each one now.
        for d in self.held_mut() {
            d.drop_labels(dropped);
        }
    }

    /// The documents, moved out (read back when they are on a temporary file).
    pub(crate) fn into_vec(mut self) -> Vec<Doc> {
        std::mem::take(self.held_mut())
    }

    /// Heap bytes of their ids, titles and paths ([`Doc::text_bytes`]); on a temporary
    /// file, their ids in memory.
    pub(crate) fn text_bytes(&self) -> u64 {
        match &self.on_file {
            None => self.held.iter().map(Doc::text_bytes).sum(),
            Some(f) => f.id_bytes(),
        }
    }

    /// Bytes of the documents' records (their texts' heap apart); on a temporary file,
    /// the rows kept in memory.
    pub(crate) fn heap_bytes(&self) -> u64 {
        match &self.on_file {
            None => (self.held.capacity() * std::mem::size_of::<Doc>()) as u64,
            Some(f) => f.row_bytes(),
        }
    }
}

/// Documents as a build adds them: held, or once it is past its budget
/// ([`DocsWriter::onto_file`]) appended to a temporary file.
pub(crate) struct DocsWriter {
    held: Vec<Doc>,
    on_file: Option<OnFile>,
    /// Heap bytes of the held documents' ids, titles and paths.
    text_bytes: u64,
    /// Whether any is a record of a file of many (only those may share an id).
    records: bool,
}

impl DocsWriter {
    /// None yet, with room for `n` held.
    pub(crate) fn new(n: usize) -> DocsWriter {
        DocsWriter {
            held: Vec::with_capacity(n),
            on_file: None,
            text_bytes: 0,
            records: false,
        }
    }

    /// Adds `doc` after the others.
    pub(crate) fn push(&mut self, doc: Doc) -> Result<()> {
        self.records |= matches!(doc.source, crate::source::Source::Part(_));
        match &mut self.on_file {
            Some(f) => f.push(doc),
            None => {
                self.text_bytes += doc.text_bytes();
                self.held.push(doc);
                Ok(())
            }
        }
    }

    fn push_all(&mut self, docs: Vec<Doc>) {
        self.records = docs
            .iter()
            .any(|d| matches!(d.source, crate::source::Source::Part(_)));
        self.text_bytes = docs.iter().map(Doc::text_bytes).sum();
        self.held = docs;
    }

    /// How many were added.
    pub(crate) fn len(&self) -> usize {
        self.on_file.as_ref().map_or(self.held.len(), |f| f.len())
    }

    /// Whether they go to a temporary file.
    pub(crate) fn on_file(&self) -> bool {
        self.on_file.is_some()
    }

    /// Bytes they hold in memory: the records and texts held, or on a file the rows and
    /// ids.
    pub(crate) fn held_bytes(&self) -> u64 {
        match &self.on_file {
            None => self.held.len() as u64 * std::mem::size_of::<Doc>() as u64 + self.text_bytes,
            Some(f) => f.row_bytes() + f.id_bytes(),
        }
    }

    /// From now on, the documents go to a temporary file of `room`, those held first; a
    /// read of it that fails later goes to `failure`.
    pub(crate) fn onto_file(
        &mut self,
        room: Room<'_>,
        failure: Arc<Mutex<Option<Error>>>,
    ) -> Result<()> {
        if self.on_file.is_some() {
            return Ok(());
        }
        let mut f = OnFile::create(room, failure)?;
        let id_bytes = self.held.iter().map(|d| d.id.len()).sum::<usize>();
        f.reserve(
            self.held.capacity(),
            id_bytes + self.held.capacity().saturating_sub(self.held.len()) * 24,
        );
        for doc in std::mem::take(&mut self.held) {
            f.push(doc)?;
        }
        self.text_bytes = 0;
        self.on_file = Some(f);
        Ok(())
    }

    /// The documents, and whether any is a record of a file of many.
    pub(crate) fn finish(self) -> Result<Docs> {
        let on_file = match self.on_file {
            None => return Ok(Docs::from_vec(self.held)),
            Some(mut f) => {
                f.finish()?;
                Some(Arc::new(f))
            }
        };
        Ok(Docs {
            held: Vec::new(),
            on_file,
        })
    }

    /// Whether any is a record of a file of many.
    pub(crate) fn records(&self) -> bool {
        self.records
    }
}

/// The documents of a [`Docs`] in order ([`Docs::iter`]).
pub struct Iter<'a>(Inner<'a>);

enum Inner<'a> {
    Held(std::slice::Iter<'a, Doc>),
    /// The next document, and the records read ahead: where they start on the file.
    OnFile {
        docs: &'a OnFile,
        next: usize,
        buf: (u64, Vec<u8>),
    },
}

impl<'a> Iterator for Iter<'a> {
    type Item = Cow<'a, Doc>;

    fn next(&mut self) -> Option<Cow<'a, Doc>> {
        match &mut self.0 {
            Inner::Held(docs) => docs.next().map(Cow::Borrowed),
            Inner::OnFile { docs, next, buf } => {
                let i = *next;
                if i == docs.len() {
                    return None;
                }
                *next += 1;
                let (start, end) = docs.span(i);
                if start < buf.0 || end > buf.0 + buf.1.len() as u64 {
                    *buf = docs.records(i..docs.read_end(i));
                }
                let at = |x: u64| (x - buf.0) as usize;
                let record = buf.1.get(at(start)..at(end)).unwrap_or_default();
                Some(Cow::Owned(docs.doc_from(i, record)))
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match &self.0 {
            Inner::Held(docs) => docs.len(),
            Inner::OnFile { docs, next, .. } => docs.len() - next,
        };
        (n, Some(n))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Docs {
    type Item = Cow<'a, Doc>;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{Index, Params};
    use crate::progress::Silent;
    use crate::source::{Corpus, WalkOptions};
    use crate::storage::Budget;

    /// An index of plain files and JSON Lines records (titles, metadata), in memory.
    fn folder_index(dir: &std::path::Path) -> Index {
        std::fs::write(
            dir.join("a.txt"),
            "first line\nthe same words again and again",
        )
        .unwrap();
        std::fs::write(dir.join("b.txt"), "the same words again and again").unwrap();
        let long = "word ".repeat(40_000); // records of ~200 KB: reads ahead past a block
        let lines: Vec<String> = (0..12)
            .map(|i| {
                format!(
                    r#"{{"id":"r{i}","text":"rec {i} {long}","date":"2026-0{}"}}"#,
                    i % 9 + 1
                )
            })
            .collect();
        std::fs::write(dir.join("c.jsonl"), lines.join("\n")).unwrap();
        // Ids another file's records have too: renamed ID@FILE:LINE.
        let clash = r#"{"id":"r1","text":"another text"}"#;
        std::fs::write(dir.join("d.jsonl"), format!("{clash}\n{clash}\n")).unwrap();
        let corpus = Corpus::walk(&[dir.to_path_buf()], &walk_options()).unwrap();
        Index::builder(&Params::default())
            .build(corpus, &Silent)
            .unwrap()
    }

    /// Records named by their `id` field.
    fn walk_options() -> WalkOptions {
        let mut opts = WalkOptions::default();
        opts.input.id_field = Some("id".into());
        opts
    }

    fn shown(d: &Doc) -> String {
        format!("{d:?}")
    }

    /// Labels dropped from documents on a temporary file are dropped from each one read
    /// back, as from held ones, without reading them into memory.
    #[test]
    fn labels_dropped_on_a_file_are_those_dropped_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let held = folder_index(dir.path()).docs().clone();
        let titled = |d: &Docs| d.iter().filter(|d| !d.title().is_empty()).count();
        let with_meta = |d: &Docs| d.iter().filter(|d| !d.meta().is_empty()).count();
        assert!(titled(&held) > 0 && with_meta(&held) > 0);
        let budget = Budget::new(0, None);
        let failure = Arc::new(Mutex::new(None));
        for (titles, meta) in [(true, false), (false, true), (true, true)] {
            let dropped = Dropped { titles, meta };
            let mut in_memory = held.clone();
            in_memory.drop_labels(dropped);
            let room = budget.room(0);
            let mut on_file = held.clone().onto_file(room, failure.clone()).unwrap();
            on_file.drop_labels(dropped);
            assert!(on_file.on_file(), "not read back into memory");
            assert_eq!(titled(&on_file) == 0, titles);
            assert_eq!(with_meta(&on_file) == 0, meta);
            let read: Vec<String> = on_file.iter().map(|d| shown(&d)).collect();
            let want: Vec<String> = in_memory.iter().map(|d| shown(&d)).collect();
            assert_eq!(read, want, "{dropped:?}");
            assert_eq!(shown(&on_file.at(13)), want[13]);
        }
    }

    #[test]
    fn documents_on_a_file_read_back_as_they_were_held() {
        let dir = tempfile::tempdir().unwrap();
        let index = folder_index(dir.path());
        let held = index.docs().clone();
        assert!(!held.on_file() && held.len() == 16);
        assert!(
            held.iter().any(|d| !d.meta().is_empty()),
            "records with metadata"
        );
        let budget = Budget::new(0, None);
        let failure = Arc::new(Mutex::new(None));
        let on_file = held
            .clone()
            .onto_file(budget.room(0), failure.clone())
            .unwrap();
        assert!(on_file.on_file());
        assert_eq!(on_file.len(), held.len());
        assert!(
            budget.spilled.total() > 12 * 40_000 / 1000,
            "records written"
        );
        for i in 0..held.len() {
            let (want, got) = (held.at(i), on_file.at(i));
            assert!(matches!(got, Cow::Owned(_)));
            assert_eq!(shown(&got), shown(&want), "document {i}");
            assert_eq!(on_file.id(i), want.id);
            let hot = (on_file.group(i), on_file.tokens(i), on_file.bytes(i));
            assert_eq!(hot, (want.group, want.tokens, want.bytes));
        }
        let read: Vec<String> = on_file.iter().map(|d| shown(&d)).collect();
        let want: Vec<String> = held.iter().map(|d| shown(&d)).collect();
        assert_eq!(read, want, "in order");
        assert_eq!(on_file.iter().len(), held.len());
        assert_eq!(shown(&on_file.at(13)), want[13]);
        assert!(held.iter().any(|d| d.id.starts_with("r1@")), "renamed");
        assert_eq!(on_file.clone().into_vec().len(), 16);
        assert!(
            on_file.heap_bytes() + on_file.text_bytes() < held.heap_bytes() + held.text_bytes()
        );
        assert!(failure.lock().unwrap().is_none());
    }

    #[test]
    fn a_file_that_fails_is_reported_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let held = folder_index(dir.path()).docs().clone();
        let budget = Budget::new(0, None);
        let failure = Arc::new(Mutex::new(None));
        let on_file = held.onto_file(budget.room(0), failure.clone()).unwrap();
        budget.spilled.break_files();
        let d = on_file.at(3);
        assert_eq!(d.id, on_file.id(3), "the id is in memory");
        assert!(
            failure.lock().unwrap().is_some(),
            "the failed read is kept for check"
        );
    }

    #[test]
    fn an_index_past_its_budget_keeps_its_documents_on_a_file() {
        let dir = tempfile::tempdir().unwrap();
        folder_index(dir.path());
        let corpus = || Corpus::walk(&[dir.path().to_path_buf()], &walk_options()).unwrap();
        let build = |budget: &Budget| {
            Index::builder(&Params::default())
                .budget(budget)
                .build(corpus(), &Silent)
                .unwrap()
        };
        let (memory, bounded) = (build(&Budget::unlimited()), build(&Budget::new(0, None)));
        assert!(!memory.docs().on_file() && bounded.docs().on_file());
        let all = |i: &Index| i.docs().iter().map(|d| shown(&d)).collect::<Vec<_>>();
        assert_eq!(all(&bounded), all(&memory));
        let pairs = |i: &Index| i.find(16, 8, 0.0, &Silent).unwrap().pairs;
        assert_eq!(pairs(&bounded), pairs(&memory));
        assert_eq!(bounded.id_order(), memory.id_order());
        assert!(bounded.held() < memory.held());
        assert_eq!(
            bounded.stats().renamed,
            3,
            "r1 of c.jsonl and both of d.jsonl"
        );
        assert_eq!(memory.stats().renamed, 3);
    }
}
