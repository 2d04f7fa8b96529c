//! Shingle sets made again from the corpus instead of kept.
//!
//! Finding pairs needs every document's signature, but the shingle sets only of the
//! candidates, to verify them. The sets are the largest part of an index (285 M hashes
//! of 8 bytes for a million documents of 300 words: 1.4× the text itself), so an index
//! built only to search ([`Keep::ToSearch`](crate::index::Keep::ToSearch))
//! keeps each content's length and where its text is, and verification reads the
//! candidates' texts again and shingles them anew: the same sets, so the same pairs and
//! the same J, byte for byte, at a fraction of the memory and with nothing written to
//! temporary files.
//!
//! Only a corpus that can be read again cheaply is searched this way: files, texts in
//! memory, and uncompressed JSON Lines and SGML (a record is read at its offset). A
//! compressed file would have to be decompressed up to each record, and a Parquet row
//! decoded with its row group, so those keep their sets (or spill them). A text that
//! changed since it was read is an error, never a wrong J: its content hash is checked.

use crate::error::{Error, Result};
use crate::shingle::{content_hash, shingle_set};
use crate::source::container::Kind;
use crate::source::stored::SourceFile;
use crate::source::{Entry, Opener, Part, Source, read_file_with};
use crate::storage::file::read_exact_at;
use crate::storage::{Remake, Room};
use crate::text::{TextOptions, Tokenizer};
use rayon::prelude::*;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Where each content's text is, and how it was shingled: enough to make its set again.
#[derive(Clone, Debug)]
pub(crate) struct Reshingle {
    /// Tells its sets apart from other indexes' in [`RECENT`] (a copy has the same sets).
    id: u64,
    /// The source of each content's first document, content `g` at `g`.
    sources: Sources,
    /// The content hash each content had when it was read.
    contents: Vec<u64>,
    text: TextOptions,
    k: usize,
    max_bytes: u64,
}

/// Where the sources are: in memory, or past the memory limit on a temporary file
/// (shared by copies of the index, read back one at a time).
#[derive(Clone, Debug)]
enum Sources {
    Held(Vec<Source>),
    OnFile(Arc<SourceFile>),
}

/// Numbers of [`Reshingle::id`].
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// Sets made again one at a time ([`Reshingle::set`]) kept per thread, this many, the
/// latest last: clustering compares a kept document with each member, and the members of
/// a cluster with each other, so most of its sets are asked for again soon.
const RECENT_SETS: usize = 256;

/// A set made again: the id of its index's [`Reshingle`], its content, the set.
type Recent = (u64, usize, Arc<[u64]>);

thread_local! {
    /// The sets this thread made again lately, the latest last.
    static RECENT: RefCell<VecDeque<Recent>> = const { RefCell::new(VecDeque::new()) };
}

/// Contents re-shingled per parallel task: a task keeps its file open from one record
/// to the next, and contents numbered together are mostly neighbours in one file.
const TASK: usize = 64;

impl Reshingle {
    /// Nothing yet, for texts tokenised with `text` into `k`-shingles, none over
    /// `max_bytes`.
    pub(crate) fn new(text: &TextOptions, k: usize, max_bytes: u64) -> Reshingle {
        Reshingle {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            sources: Sources::Held(Vec::new()),
            contents: Vec::new(),
            text: text.clone(),
            k,
            max_bytes,
        }
    }

    /// Whether every document of these entries can be read again cheaply (see the
    /// module's documentation). Opens each file of many documents to see whether it is
    /// compressed.
    pub(crate) fn can_read_again(entries: &[Entry]) -> bool {
        entries.iter().all(|e| match &e.source {
            Source::File(_) | Source::Memory(_) => true,
            Source::Part(p) => readable_at_offsets(&p.file.path, p.file.kind),
            Source::Container(c) => readable_at_offsets(&c.path, c.kind),
        })
    }

    /// Adds the next content: where its first document is (a file's path is shared with
    /// that document, not copied), and its content hash.
    pub(crate) fn push(&mut self, source: Source, content: u64) -> Result<()> {
        match &mut self.sources {
            Sources::Held(v) => v.push(source),
            Sources::OnFile(f) => Arc::get_mut(f)
                .expect("sources are added before they are shared")
                .push(&source)?,
        }
        self.contents.push(content);
        Ok(())
    }

    /// From now on, the sources go to a temporary file of `room`, those held first (a
    /// source and its path are 100 bytes and more a content; a search reads one back per
    /// set it makes again, beside the text it reads anyway).
    pub(crate) fn sources_onto_file(&mut self, room: &Room<'_>) -> Result<()> {
        let Sources::Held(held) = &mut self.sources else {
            return Ok(());
        };
        let mut file = SourceFile::create(room)?;
        for source in std::mem::take(held) {
            file.push(&source)?;
        }
        self.sources = Sources::OnFile(Arc::new(file));
        Ok(())
    }

    /// Writes out the sources pending, when they go to a file: every one can be read.
    pub(crate) fn finish(&mut self) -> Result<()> {
        match &mut self.sources {
            Sources::Held(_) => Ok(()),
            Sources::OnFile(f) => Arc::get_mut(f)
                .expect("sources are finished before they are shared")
                .finish(),
        }
    }

    /// The source of content `g`.
    fn source(&self, g: usize) -> Result<Cow<'_, Source>> {
        match &self.sources {
            Sources::Held(v) => Ok(Cow::Borrowed(&v[g])),
            Sources::OnFile(f) => f.get(g).map(Cow::Owned),
        }
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        let sources = match &self.sources {
            Sources::Held(v) => v.capacity() * std::mem::size_of::<Source>(),
            Sources::OnFile(f) => f.heap_bytes(),
        };
        sources + self.contents.capacity() * 8
    }

    /// The set of content `g`, made again (or one of this thread's latest, see
    /// [`RECENT_SETS`]).
    pub(crate) fn set(&self, g: usize) -> Result<Arc<[u64]>> {
        let recent = RECENT.with(|r| {
            let r = r.borrow();
            let hit = r.iter().rev().find(|(id, x, _)| *id == self.id && *x == g);
            hit.map(|(_, _, set)| set.clone())
        });
        if let Some(set) = recent {
            return Ok(set);
        }
        let mut out = Vec::new();
        Worker::new(self).set(g, &mut out)?;
        let set: Arc<[u64]> = out.into();
        RECENT.with(|r| {
            let mut r = r.borrow_mut();
            if r.len() == RECENT_SETS {
                r.pop_front();
            }
            r.push_back((self.id, g, set.clone()));
        });
        Ok(set)
    }

    /// The sets of `groups` (ascending, distinct) made again in parallel into `out`,
    /// group `groups[j]`'s at `out[starts[j]..starts[j + 1]]`.
    fn fill(&self, groups: &[u32], starts: &[usize], out: &mut [u64]) -> Result<()> {
        // Each task fills its groups' stretch of the data.
        let mut tasks = Vec::with_capacity(groups.len().div_ceil(TASK));
        let mut rest = out;
        for (i, chunk) in groups.chunks(TASK).enumerate() {
            let first = i * TASK;
            let (mine, after) = rest.split_at_mut(starts[first + chunk.len()] - starts[first]);
            tasks.push((chunk, &starts[first..=first + chunk.len()], mine));
            rest = after;
        }
        tasks.into_par_iter().try_for_each(|(chunk, starts, out)| {
            let (mut worker, mut set) = (Worker::new(self), Vec::new());
            for (i, &g) in chunk.iter().enumerate() {
                worker.set(g as usize, &mut set)?;
                let at = starts[i] - starts[0]..starts[i + 1] - starts[0];
                if set.len() != at.len() {
                    let source = self.source(g as usize)?;
                    return Err(changed(&source, "its text changed since it was read"));
                }
                out[at].copy_from_slice(&set);
            }
            Ok(())
        })
    }
}

/// The storage's way of making sets again ([`crate::storage::Rows`]).
impl Remake<u64> for Reshingle {
    fn row(&self, i: usize) -> Result<Arc<[u64]>> {
        self.set(i)
    }

    fn rows(&self, rows: &[u32], starts: &[usize], out: &mut [u64]) -> Result<()> {
        self.fill(rows, starts, out)
    }

    fn heap_bytes(&self) -> usize {
        self.heap_bytes()
    }
}

/// Whether a file of many documents can be read a record at a time at its offset:
/// JSON Lines or SGML, not compressed. An unreadable file is not (the first pass will
/// say why it is skipped). The head is read once the file is whole (an object store's
/// copy still arriving is waited for: its head is not there yet).
fn readable_at_offsets(path: &Path, kind: Kind) -> bool {
    if kind == Kind::Parquet {
        return false;
    }
    let mut head = [0u8; 4];
    let Ok(mut file) = crate::source::file::open_nonblocking(path) else {
        return false;
    };
    let n = file.read(&mut head).unwrap_or(0);
    !crate::source::read::is_compressed(&head[..n])
}

/// Makes sets again one after another, reusing its tokenizer, buffers and last file.
struct Worker<'a> {
    again: &'a Reshingle,
    tok: Tokenizer,
    tokens: Vec<u64>,
    raw: Vec<u8>,
    open: Option<(PathBuf, File)>,
    /// The folder of the last file read whole, held open for the next of the same folder.
    opener: Opener,
}

impl<'a> Worker<'a> {
    fn new(again: &'a Reshingle) -> Worker<'a> {
        Worker {
            again,
            tok: Tokenizer::new(&again.text),
            tokens: Vec::new(),
            raw: Vec::new(),
            open: None,
            opener: Opener::new(),
        }
    }

    /// Content `g`'s set into `out`; an error when its text can't be read or changed.
    fn set(&mut self, g: usize, out: &mut Vec<u64>) -> Result<()> {
        let source = self.again.source(g)?;
        let text = self.text(&source)?;
        self.tokens.clear();
        self.tok.token_hashes(&text, &mut self.tokens);
        drop(text);
        if content_hash(&self.tokens) != self.again.contents[g] {
            return Err(changed(&source, "its text changed since it was read"));
        }
        shingle_set(&self.tokens, self.again.k, out);
        Ok(())
    }

    fn text<'s>(&mut self, source: &'s Source) -> Result<Cow<'s, str>> {
        let failed = |(_, why): (_, String)| changed(source, &why);
        match source {
            // Tokenised where it is: a text in memory is not copied.
            Source::Memory(text) => Ok(Cow::Borrowed(text)),
            Source::File(path) => {
                let text = read_file_with(&mut self.opener, path, self.again.max_bytes);
                text.map(Cow::Owned).map_err(failed)
            }
            Source::Part(part) => {
                self.read_record(part).map_err(|e| Error::File {
                    path: part.file.path.clone(),
                    source: e,
                })?;
                let record = part.file.extract(&self.raw).map_err(failed)?;
                Ok(Cow::Owned(record.text))
            }
            Source::Container(_) => Err(changed(source, "a file of many documents")),
        }
    }

    /// Reads a record's bytes into `raw` (one read at its offset), the file kept open
    /// for the next record of the same file.
    fn read_record(&mut self, part: &Part) -> io::Result<()> {
        let path = &part.file.path;
        if self.open.as_ref().is_none_or(|(p, _)| p != path) {
            self.open = Some((path.clone(), File::open(path)?));
        }
        let (_, file) = self.open.as_mut().expect("opened just above");
        self.raw.resize(part.len as usize, 0);
        read_exact_at(file, &mut self.raw, part.offset).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => {
                io::Error::other("the file is shorter than when it was read")
            }
            _ => e,
        })
    }
}

/// The error for a text that can't be made again as it was.
fn changed(source: &Source, why: &str) -> Error {
    Error::File {
        path: source.path().map_or_else(PathBuf::new, Path::to_path_buf),
        source: io::Error::other(format!("read again to verify a pair: {why}")),
    }
}

#[cfg(test)]
mod tests {
    use crate::error::Error;
    use crate::index::{Index, Keep, Params};
    use crate::progress::Silent;
    use crate::source::{Corpus, WalkOptions};
    use crate::storage::Budget;
    use crate::storage::Kept;
    use std::io::Write;
    use std::path::Path;

    /// A folder of plain files and a JSON Lines file, with near duplicates within and
    /// across them.
    fn corpus_dir(dir: &Path, gzip: bool) {
        let text = |i: u64| -> String {
            (0..60)
                .map(|w| format!("w{}", crate::hash::mix64(i * 100 + w) % 300))
                .collect::<Vec<_>>()
                .join(" ")
        };
        for i in 0..20u64 {
            std::fs::write(dir.join(format!("f{i}.txt")), text(i % 7)).unwrap();
        }
        let mut lines = String::new();
        for i in 0..30u64 {
            let t = format!("{} tail{}", text(i % 9), i % 2);
            lines.push_str(&format!("{{\"id\": \"r{i}\", \"text\": \"{t}\"}}\n"));
        }
        let path = dir.join("records.jsonl");
        if gzip {
            let file = std::fs::File::create(path.with_extension("jsonl.gz")).unwrap();
            let mut gz = flate2::write::GzEncoder::new(file, flate2::Compression::default());
            gz.write_all(lines.as_bytes()).unwrap();
            gz.finish().unwrap();
        } else {
            std::fs::write(path, lines).unwrap();
        }
    }

    fn build(dir: &Path, keep: Keep) -> Index {
        let corpus = Corpus::walk(&[dir.to_path_buf()], &WalkOptions::default()).unwrap();
        let builder = Index::builder(&Params::default()).keep(keep);
        builder
            .budget(&Budget::unlimited())
            .build(corpus, &Silent)
            .unwrap()
    }

    #[test]
    fn past_the_budget_the_sources_wait_on_a_file_and_make_the_same_sets() {
        let dir = tempfile::tempdir().unwrap();
        corpus_dir(dir.path(), false);
        let budget = Budget::new(0, None);
        let corpus = Corpus::walk(&[dir.path().to_path_buf()], &WalkOptions::default()).unwrap();
        let bounded = (Index::builder(&Params::default()).keep(Keep::ToSearch))
            .budget(&budget)
            .build(corpus, &Silent)
            .unwrap();
        let kinds = budget.spilled.by_kind();
        assert!(
            kinds
                .iter()
                .any(|(w, _)| *w == "sources of the sets made again"),
            "{kinds:?}"
        );
        let kept = build(dir.path(), Keep::Everything);
        assert_eq!(bounded.shingles().kept(), Kept::Remade);
        for g in 0..kept.shingles().len() {
            assert_eq!(
                *bounded.shingles().get(g).unwrap(),
                *kept.shingles().get(g).unwrap()
            );
        }
        let pairs = |i: &Index| i.find(16, 8, 0.3, &Silent).unwrap().pairs;
        assert_eq!(pairs(&bounded), pairs(&kept));
        budget.spilled.break_files();
        assert!(
            bounded.find(16, 8, 0.3, &Silent).is_err(),
            "a failing file is an error"
        );
    }

    /// The test corpus indexed twice: keeping everything, and keeping `keep` (its sets
    /// made again from the corpus, which lives as long as the folder returned).
    fn kept_and_again(keep: Keep) -> (tempfile::TempDir, Index, Index) {
        let dir = tempfile::tempdir().unwrap();
        corpus_dir(dir.path(), false);
        let (kept, again) = (build(dir.path(), Keep::Everything), build(dir.path(), keep));
        assert_eq!(again.shingles().kept(), Kept::Remade);
        (dir, kept, again)
    }

    #[test]
    fn files_and_json_lines_made_again_give_the_same_pairs() {
        let (_dir, kept, again) = kept_and_again(Keep::ToSearch);
        assert_eq!(kept.shingles().kept(), Kept::Memory);
        assert_eq!(again.docs().len(), 50);
        // Only what finding pairs needs: no titles.
        assert!(again.docs().iter().all(|d| d.title().is_empty()));
        assert!(kept.docs().iter().all(|d| !d.title().is_empty()));
        assert_eq!(again.keeps(), Keep::ToSearch);
        let want = kept.find(16, 8, 0.3, &Silent).unwrap();
        let got = again.find(16, 8, 0.3, &Silent).unwrap();
        assert!(want.pairs.len() > 50, "{} pairs", want.pairs.len());
        assert_eq!(got.pairs, want.pairs);
        assert_eq!(got.candidates, want.candidates);
        assert_eq!(
            again.signatures().data().unwrap(),
            kept.signatures().data().unwrap()
        );
        // The sets themselves, one at a time.
        for g in 0..kept.shingles().len() {
            assert_eq!(
                again.shingles().get(g).unwrap(),
                kept.shingles().get(g).unwrap()
            );
        }
        // Made again, the sets take a length and a place per content, not the hashes.
        let sets = |i: &Index| i.held_by_part()[2];
        assert_eq!(sets(&kept).0, "shingle sets");
        assert!(
            sets(&again).1 * 4 < sets(&kept).1,
            "{:?} {:?}",
            sets(&again),
            sets(&kept)
        );
    }

    #[test]
    fn clusters_and_removals_with_sets_made_again_are_the_same() {
        use crate::analysis::cluster::{self, Linkage};
        let (_dir, kept, again) = kept_and_again(Keep::AllButSets);
        // Titles are kept: dedup and clusters show them.
        assert!(again.docs().iter().all(|d| !d.title().is_empty()));
        let rule = cluster::Keep::default();
        let search = |i: &Index| i.search(16, 8, 0.3, None, &Silent).unwrap();
        let (want, got) = (search(&kept), search(&again));
        let described = |cs: Vec<cluster::Cluster>| -> Vec<String> {
            cs.iter().map(|c| format!("{c:?}")).collect()
        };
        let stars = described(cluster::stars_of(&kept, &want, rule).unwrap());
        assert!(stars.len() > 3, "{stars:?}");
        assert_eq!(
            described(cluster::stars_of(&again, &got, rule).unwrap()),
            stars
        );
        let components = |i: &Index, s| {
            described(cluster::clusters_by(i, s, rule, Linkage::Components).unwrap())
        };
        assert_eq!(components(&again, &got), components(&kept, &want));
        let removals = |i: &Index, s| {
            let cs = cluster::stars_of(i, s, rule).unwrap();
            let r = crate::analysis::dedup::removals(i, &cs, &Default::default());
            format!("{r:?}")
        };
        assert_eq!(removals(&again, &got), removals(&kept, &want));
    }

    #[test]
    fn an_index_for_the_exact_join_keeps_its_sets_and_no_labels() {
        let dir = tempfile::tempdir().unwrap();
        corpus_dir(dir.path(), false);
        let (kept, bare) = (
            build(dir.path(), Keep::Everything),
            build(dir.path(), Keep::AllButLabels),
        );
        assert_eq!(bare.shingles().kept(), Kept::Memory);
        assert!(bare.docs().iter().all(|d| d.title().is_empty()));
        assert!(kept.docs().iter().all(|d| !d.title().is_empty()));
        for g in 0..kept.shingles().len() {
            assert_eq!(
                bare.shingles().get(g).unwrap(),
                kept.shingles().get(g).unwrap()
            );
        }
        let ids = |i: &Index| i.docs().iter().map(|d| d.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&bare), ids(&kept));
    }

    #[test]
    fn a_compressed_file_keeps_its_sets() {
        let dir = tempfile::tempdir().unwrap();
        corpus_dir(dir.path(), true);
        let index = build(dir.path(), Keep::ToSearch);
        assert_eq!(index.docs().len(), 50);
        assert_eq!(index.shingles().kept(), Kept::Memory);
    }

    #[test]
    fn a_text_changed_since_it_was_read_is_an_error_not_a_wrong_j() {
        let dir = tempfile::tempdir().unwrap();
        corpus_dir(dir.path(), false);
        let again = build(dir.path(), Keep::ToSearch);
        for i in 0..20 {
            std::fs::write(dir.path().join(format!("f{i}.txt")), "something else").unwrap();
        }
        let err = again.find(16, 8, 0.3, &Silent).unwrap_err();
        assert!(matches!(err, Error::File { .. }), "{err:?}");
        assert!(
            err.to_string().contains("changed since it was read"),
            "{err}"
        );
    }
}
