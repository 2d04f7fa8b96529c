//! A removal list's documents found in the corpus's index. Ids are looked up; positions
//! are counted in the order the other tools number the input:
//!
//! - text-dedup's row (`__INDEX__`): `datasets.load_dataset` reads the data files in
//!   name order and each file's rows in order, and numbers every row from 0;
//! - datatrove's `(rank, doc)`: task `rank` of `tasks` reads the sorted files
//!   `files[rank::tasks]` (`DataFolder.get_shard`), each in order, and numbers from 0 the
//!   documents it yields, those with an empty text skipped (`BaseReader`).
//!
//! Here a file's records are ordered by their line (JSON Lines) or row (Parquet), and
//! files by their path; a whole-file document is its file's one record. This holds when
//! the corpus given is the input those tools read, all of it read by simtui.

use super::removals::{DocRef, Removed};
use simtui_engine::analysis::method::{Engine, Method};
use simtui_engine::analysis::query::{Probe, Searcher};
use simtui_engine::index::Index;
use simtui_engine::progress::{Progress, Stage, check};
use simtui_engine::source::Source;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A removal's documents in the index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// The removed document (None: the corpus has no such document).
    pub removed: Option<u32>,
    /// The kept one, or the one simtui chose in its place.
    pub kept: Option<u32>,
    /// The list does not name the kept document: `kept` is the most similar document
    /// of the corpus that the list does not remove.
    pub chosen: bool,
}

/// How many neighbours are looked at for one the list does not remove.
const NEAREST_TRIED: usize = 16;

/// Finds every removal's documents in `index`, and the nearest document for those whose
/// kept one the list does not name. `tasks` is the number of tasks of datatrove's reader
/// (positions of `.remove` files are meaningless without it: none is found then).
/// `bands` × `rows` is the banding the nearest documents are looked up in.
#[cfg(test)]
pub fn find(
    index: &Arc<Index>,
    list: &[Removed],
    tasks: Option<u32>,
    bands: usize,
    rows: usize,
) -> Vec<Found> {
    let mut found = locate(index, list, tasks);
    nearest(
        index,
        &mut found,
        bands,
        rows,
        &simtui_engine::progress::Silent,
    )
    .expect("a silent lookup is never cancelled");
    found
}

/// Finds every removal's documents in `index` by id or place (quick: no similarity
/// searched). A removal whose list names no kept document is left `chosen` without
/// one: [`nearest`] fills it in.
pub fn locate(index: &Index, list: &[Removed], tasks: Option<u32>) -> Vec<Found> {
    let places = Places::new(index, tasks);
    list.iter()
        .map(|x| Found {
            removed: places.find(&x.id),
            kept: places.find(&x.kept),
            chosen: x.kept == DocRef::Nearest,
        })
        .collect()
}

/// How many removals [`nearest`] looks up: those it chooses a kept document for.
pub fn to_look_up(found: &[Found]) -> usize {
    found
        .iter()
        .filter(|f| f.chosen && f.removed.is_some())
        .count()
}

/// For each removal that names no kept document, the most similar document the list
/// does not remove (else the most similar one), from the index's own LSH bands. Slow
/// on a large list (a search per removal): the explorer runs it on a worker, which
/// `progress` reports for (in removals looked up) and may cancel.
pub fn nearest(
    index: &Arc<Index>,
    found: &mut [Found],
    bands: usize,
    rows: usize,
    progress: &dyn Progress,
) -> simtui_engine::Result<()> {
    let total = to_look_up(found) as u64;
    // An index without signatures this wide cannot be looked up in those bands.
    if total == 0 || bands == 0 || bands * rows > index.signatures().width() {
        return Ok(());
    }
    let engine = Engine {
        index: index.clone(),
        method: Method::MinHash { bands, rows },
    };
    progress.update(Stage::Band, 0, total);
    let searcher = Searcher::new(&engine)?;
    let gone: HashSet<u32> = found.iter().filter_map(|f| f.removed).collect();
    let mut done = 0;
    for f in found.iter_mut().filter(|f| f.chosen) {
        let Some(doc) = f.removed else { continue };
        check(progress)?;
        let answer = searcher.neighbours(&Probe::of_doc(&engine, doc)?, NEAREST_TRIED, false)?;
        let mut docs = answer.neighbours.iter().map(|n| n.doc);
        f.kept = docs
            .clone()
            .find(|d| !gone.contains(d))
            .or_else(|| docs.next());
        done += 1;
        progress.update(Stage::Band, done, total);
    }
    Ok(())
}

/// The corpus's documents by id and by place.
struct Places<'a> {
    index: &'a Index,
    by_id: HashMap<String, u32>,
    /// Every document, files in path order, records in file order.
    ordered: Vec<u32>,
    /// Each task's documents, as datatrove's reader yields them.
    tasks: Vec<Vec<u32>>,
}

impl<'a> Places<'a> {
    fn new(index: &'a Index, tasks: Option<u32>) -> Places<'a> {
        let docs = index.docs();
        let by_id = docs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.into_owned().id, i as u32))
            .collect();
        // Each document's place read once, in corpus order (a read each on a file).
        let mut places: Vec<_> = (docs.iter().enumerate())
            .map(|(d, doc)| place(&doc.source, d as u32))
            .collect();
        places.sort_unstable();
        let ordered: Vec<u32> = places.into_iter().map(|p| p.2).collect();
        let tasks = tasks.map_or_else(Vec::new, |n| shards(index, &ordered, n));
        Places {
            index,
            by_id,
            ordered,
            tasks,
        }
    }

    fn find(&self, r: &DocRef) -> Option<u32> {
        match r {
            DocRef::Id(id) => self.by_id.get(id.as_str()).copied().or_else(|| {
                // datatrove names a record without an id `FILE/LINE` (line from 0);
                // simtui names it `FILE:LINE` (line from 1).
                let (file, line) = id.rsplit_once('/')?;
                let line: u64 = line.parse().ok()?;
                let ours = format!("{file}:{}", line + 1);
                self.by_id.get(ours.as_str()).copied()
            }),
            DocRef::Row(row) => self.ordered.get(usize::try_from(*row).ok()?).copied(),
            DocRef::Task { rank, doc } => {
                let docs = self.tasks.get(*rank as usize)?;
                docs.get(*doc as usize).copied()
            }
            DocRef::Nearest => None,
        }
        .filter(|&d| (d as usize) < self.index.docs().len())
    }
}

/// Where a document is in the input: its file, and its line or row there (whole files
/// and texts in memory: 0, then their place in the index).
fn place(source: &Source, doc: u32) -> (Option<PathBuf>, u64, u32) {
    let line = match source {
        Source::Part(p) => p.line(),
        _ => 0,
    };
    (source.path().map(Path::to_path_buf), line, doc)
}

/// Datatrove's shards: task `r` of `n` reads files `r, r + n, …` of the sorted files,
/// and numbers the documents with a text.
fn shards(index: &Index, ordered: &[u32], n: u32) -> Vec<Vec<u32>> {
    let docs = index.docs();
    let n = n.max(1) as usize;
    let mut out = vec![Vec::new(); n];
    let mut file = 0usize;
    let mut last: Option<PathBuf> = None;
    for (i, &d) in ordered.iter().enumerate() {
        let doc = docs.at(d as usize);
        let path = doc.source.path();
        if i > 0 && path != last.as_deref() {
            file += 1;
        }
        if path != last.as_deref() {
            last = path.map(Path::to_path_buf);
        }
        if doc.bytes > 0 {
            out[file % n].push(d);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use simtui_engine::index::Params;
    use simtui_engine::progress::Silent;
    use simtui_engine::source::{Corpus, InputOptions, WalkOptions};

    /// The index of the folder `dir`, records named by their `id` field if `ids`.
    fn index_of(dir: &Path, ids: bool) -> Arc<Index> {
        let walk = WalkOptions {
            input: InputOptions {
                id_field: ids.then(|| "id".to_string()),
                ..InputOptions::default()
            },
            ..WalkOptions::default()
        };
        let corpus = Corpus::walk(&[dir.to_path_buf()], &walk).unwrap();
        Arc::new(
            Index::builder(&Params::default())
                .build(corpus, &Silent)
                .unwrap(),
        )
    }

    /// Two JSON Lines files; b.jsonl's line 2 copies a.jsonl's line 1, and a.jsonl's line
    /// 3 has an empty text (datatrove skips it; text-dedup numbers it).
    fn corpus() -> (tempfile::TempDir, Arc<Index>) {
        let dir = tempfile::tempdir().unwrap();
        let words = |w: &str| {
            (0..40)
                .map(|i| format!("{w}{i}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let line = |id: &str, text: &str| format!("{{\"id\":\"{id}\",\"text\":\"{text}\"}}\n");
        let a = [
            line("a0", &words("alpha")),
            line("a1", &words("beta")),
            line("a2", ""),
        ];
        let b = [line("b0", &words("gamma")), line("b1", &words("alpha"))];
        std::fs::write(dir.path().join("a.jsonl"), a.concat()).unwrap();
        std::fs::write(dir.path().join("b.jsonl"), b.concat()).unwrap();
        let index = index_of(dir.path(), true);
        (dir, index)
    }

    fn id(index: &Index, d: Option<u32>) -> Option<String> {
        d.map(|d| index.docs().at(d as usize).into_owned().id)
    }

    fn removal(id: DocRef, kept: DocRef) -> Removed {
        Removed {
            id,
            kept,
            jaccard: None,
            cluster: None,
        }
    }

    #[test]
    fn rows_count_every_record_files_in_name_order() {
        let (_d, index) = corpus();
        let list = [
            removal(DocRef::Row(4), DocRef::Row(0)),
            removal(DocRef::Row(5), DocRef::Row(3)),
        ];
        let found = find(&index, &list, None, 16, 8);
        assert_eq!(id(&index, found[0].removed).as_deref(), Some("b1"));
        assert_eq!(id(&index, found[0].kept).as_deref(), Some("a0"));
        assert!(!found[0].chosen);
        assert_eq!(found[1].removed, None, "past the corpus: not found");
        assert_eq!(id(&index, found[1].kept).as_deref(), Some("b0"));
    }

    #[test]
    fn tasks_read_every_nth_file_and_skip_empty_texts() {
        let (_d, index) = corpus();
        let task = |rank, doc| DocRef::Task { rank, doc };
        let list = [
            removal(task(1, 1), task(0, 0)),
            removal(task(0, 2), DocRef::Nearest),
        ];
        // One task reads both files: a0 a1 b0 b1 (a2 has no text).
        let one = find(&index, &list, Some(1), 16, 8);
        assert_eq!(id(&index, one[1].removed).as_deref(), Some("b0"));
        assert_eq!(one[0].removed, None, "task 1 of 1 does not exist");
        // Two tasks: task 0 reads a.jsonl, task 1 b.jsonl.
        let two = find(&index, &list, Some(2), 16, 8);
        assert_eq!(id(&index, two[0].removed).as_deref(), Some("b1"));
        assert_eq!(id(&index, two[0].kept).as_deref(), Some("a0"));
        assert_eq!(
            two[1].removed, None,
            "a.jsonl has two documents with a text"
        );
        // Without the number of tasks, no place is found.
        assert_eq!(find(&index, &list, None, 16, 8)[0].removed, None);
    }

    #[test]
    fn a_list_without_kept_documents_gets_the_nearest() {
        let (_d, index) = corpus();
        let list = [
            removal(DocRef::Id("b1".into()), DocRef::Nearest),
            removal(DocRef::Id("nowhere".into()), DocRef::Nearest),
        ];
        let found = find(&index, &list, None, 16, 8);
        assert_eq!(id(&index, found[0].kept).as_deref(), Some("a0"), "its copy");
        assert!(found[0].chosen);
        assert_eq!((found[1].removed, found[1].kept), (None, None));
    }

    #[test]
    fn datatrove_names_of_records_without_ids_are_found() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("x.jsonl"),
            "{\"text\":\"one two\"}\n{\"text\":\"three\"}\n",
        )
        .unwrap();
        let index = index_of(dir.path(), false);
        let list = [removal(
            DocRef::Id("x.jsonl/1".into()),
            DocRef::Id("x.jsonl/0".into()),
        )];
        let found = find(&index, &list, None, 16, 8);
        assert_eq!(id(&index, found[0].removed).as_deref(), Some("x.jsonl:2"));
        assert_eq!(id(&index, found[0].kept).as_deref(), Some("x.jsonl:1"));
    }
}
