//! The files of a walk, in order, each with its entries, its plan and the record it will
//! be saved as: what opening or adding to a saved index works through file by file
//! (reuse its saved documents, or read it).

use super::format::FileRec;
use super::stamps::stamp;
use super::{absolute_cow, file_of, reading_of};
use crate::source::{Corpus, Entry, Source};
use rayon::prelude::*;
use std::borrow::Cow;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

/// What to do with a file of the walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Plan {
    /// Take saved file `i`'s documents (with the file's stamp now, which this walk took).
    Reuse(usize),
    /// Index it again (or for the first time).
    Read,
}

/// A file of the walk: its entries, its plan, and its record as it will be saved, filled
/// in as the update goes. One table a file, where a list of files, their stamps, plans
/// and hashes and then the records made of them were each a table of their own (273
/// bytes a file, held together while the documents were merged; 120 now).
pub(super) struct WalkFile {
    /// Its record: the path as walked (how its entries and documents name the file,
    /// shared with them: [`Source::File`] holds an [`Arc`]; the saved index names it by
    /// [`WalkFile::abs`], made when the record is written), its stamp taken before it is
    /// read (dropped should it change while read), how it is read (`detail`: see
    /// `reading_of`, taken before its entries move into the index), and, once the update
    /// has seen it, its hash, status and number of documents.
    pub(super) rec: FileRec,
    /// Its entries: in the walk's list, or taken in (see [`walk_files_taken`]).
    walked: Walked,
    /// Its [`Plan`]: the saved file to reuse, or [`READ`].
    plan: u32,
}

/// Where a file's entries are.
enum Walked {
    /// In the walk's list: 32 bits are enough, every entry being held in memory.
    Listed(Range<u32>),
    /// Its one entry, a plain text file (read whole, its size not known yet), taken out of
    /// the list: its id, its source being [`Source::File`] of the record's path.
    Taken(Box<str>),
}

// Its size is the memory of a file of the walk while an index is opened or brought up
// to date (half a million files: 57 MiB). It held the absolute path beside the walked
// one when that was relative (16 bytes and a second path a file); an id taken in from
// the walk's list (see `walk_files_taken`) takes 8 bytes more here, which a known
// hash's flag beside the small fields instead of an `Option` gave back, and saves that
// list's 72.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<WalkFile>() <= 120);

/// A [`WalkFile::plan`] that reads the file.
const READ: u32 = u32::MAX;

impl WalkFile {
    /// The path as walked: how its documents name it, and where it is read.
    pub(super) fn path(&self) -> &Arc<Path> {
        &self.rec.path
    }

    /// The absolute path (against `cwd`, the folder the walk's paths are relative to),
    /// as the saved index names the file: made when asked for, not held.
    pub(super) fn abs(&self, cwd: &Path) -> Cow<'_, Path> {
        absolute_cow(cwd, &self.rec.path)
    }

    /// Whether it is to be read (not reused).
    pub(super) fn is_read(&self) -> bool {
        self.plan == READ
    }

    pub(super) fn plan(&self) -> Plan {
        match self.plan {
            READ => Plan::Read,
            i => Plan::Reuse(i as usize),
        }
    }

    pub(super) fn set_plan(&mut self, plan: Plan) {
        self.plan = match plan {
            Plan::Read => READ,
            // A saved index's files are numbered in u32 (see `plan::Planner`).
            Plan::Reuse(i) => u32::try_from(i).expect("a saved file's number fits 32 bits"),
        };
    }

    /// Its entries in the walk's list, unless they were taken in.
    pub(super) fn listed(&self) -> Option<Range<usize>> {
        match &self.walked {
            Walked::Listed(r) => Some(r.start as usize..r.end as usize),
            Walked::Taken(_) => None,
        }
    }

    /// How many entries it has.
    pub(super) fn entry_count(&self) -> usize {
        self.listed().map_or(1, |r| r.len())
    }

    /// Its entries in the walk's `list` of which the first `gone` were let go of: empty
    /// when they were taken in.
    pub(super) fn mine<'l>(&self, list: &'l mut [Entry], gone: usize) -> &'l mut [Entry] {
        match self.listed() {
            Some(r) => &mut list[r.start - gone..r.end - gone],
            None => &mut [],
        }
    }

    /// The source of its first entry (`mine`: its entries in the walk's list, see
    /// [`WalkFile::mine`]).
    pub(super) fn first_source<'s>(&'s self, mine: &'s [Entry]) -> Cow<'s, Source> {
        match &self.walked {
            Walked::Listed(_) => Cow::Borrowed(&mine[0].source),
            Walked::Taken(_) => Cow::Owned(Source::File(self.rec.path.clone())),
        }
    }

    /// The id of its one entry, if it has one entry and an id: moved out (the walk is
    /// not kept) or copied (`keep`). None once moved out.
    pub(super) fn whole_id(&mut self, mine: &mut [Entry], keep: bool) -> Option<String> {
        let id = match (&mut self.walked, mine) {
            (Walked::Taken(id), _) => return (!id.is_empty()).then(|| std::mem::take(id).into()),
            (Walked::Listed(_), [e]) => &mut e.id,
            (Walked::Listed(_), _) => return None,
        };
        (!id.is_empty()).then(|| moved(id, keep))
    }

    /// Its entries (`mine`), moved out of the walk's list (`hollow` left in their place)
    /// or copied when the walk is kept (`keep`), appended to `out`.
    pub(super) fn entries_into(
        &mut self,
        (mine, keep): (&mut [Entry], bool),
        hollow: &dyn Fn() -> Entry,
        out: &mut Vec<Entry>,
    ) {
        match &mut self.walked {
            Walked::Listed(_) => out.extend(mine.iter_mut().map(|e| match keep {
                true => e.clone(),
                false => std::mem::replace(e, hollow()),
            })),
            Walked::Taken(id) => out.push(Entry {
                id: std::mem::take(id).into(),
                source: Source::File(self.rec.path.clone()),
                bytes: 0,
            }),
        }
    }
}

/// The files of `corpus`'s entries, each sharing its path with its first entry (or the
/// file of many documents it is part of, copied once a file), to be read, not stamped
/// yet.
pub(super) fn walk_files(corpus: &Corpus) -> Vec<WalkFile> {
    // As many as the entries at most (a file of many documents is one file): reserved
    // once, not doubled as it grows (which held 1.5 times the list on average).
    let mut files: Vec<WalkFile> = Vec::with_capacity(corpus.entries.len());
    let entries = &corpus.entries;
    let mut i = 0;
    while i < entries.len() {
        let end = file_end(entries, i);
        files.push(row(&entries[i], index(i)..index(end)));
        i = end;
    }
    files.shrink_to_fit();
    files
}

/// [`walk_files`] for a caller that does not keep the walk: a file of one plain-text
/// entry (most files) is taken into its row as it is made (its id; its source is its
/// path again), and the walk's list let go of as it goes (see [`let_go`]), left holding
/// only the others' entries (files of many documents, ...), numbered anew. The list's
/// 72 bytes an entry held the paths the table holds while a saved index was read and
/// planned; made whole first, the table and the list were 100 MB together at 500,000
/// files.
pub(super) fn walk_files_taken(corpus: &mut Corpus) -> Vec<WalkFile> {
    let total = corpus.entries.len();
    let mut files: Vec<WalkFile> = Vec::with_capacity(total);
    let others = corpus.entries.iter().filter(|e| !plain(e)).count();
    let mut kept: Vec<Entry> = Vec::with_capacity(others);
    // The entries before `gone` are let go of: entry `i` is at `i - gone`.
    let (mut gone, mut i) = (0usize, 0usize);
    let list = &mut corpus.entries;
    while i < total {
        let (start, end) = (i - gone, file_end(list, i - gone));
        let mut f = row(&list[start], 0..0);
        f.walked = if end == start + 1 && plain(&list[start]) {
            Walked::Taken(std::mem::take(&mut list[start].id).into_boxed_str())
        } else {
            let at = index(kept.len());
            kept.extend_from_slice(&list[start..end]);
            Walked::Listed(at..index(kept.len()))
        };
        files.push(f);
        i += end - start;
        gone += let_go(list, i - gone);
    }
    corpus.entries = kept;
    files.shrink_to_fit();
    files
}

/// Whether an entry is a plain text file as a walk finds it (read whole, its size not
/// known yet): the entry is then its id and its path.
fn plain(e: &Entry) -> bool {
    e.bytes == 0 && matches!(e.source, Source::File(_))
}

/// Where the entries of the file of `entries[start]` end (a file's are together).
fn file_end(entries: &[Entry], start: usize) -> usize {
    fn path_of(e: &Entry) -> &Path {
        file_of(&e.source).expect("checked: every entry has a file")
    }
    let path = path_of(&entries[start]);
    let more = entries[start + 1..]
        .iter()
        .take_while(|e| path_of(e) == path);
    start + 1 + more.count()
}

/// An entry's place in the walk's list, in 32 bits.
fn index(i: usize) -> u32 {
    u32::try_from(i).expect("fewer than 2^32 entries: each is held in memory")
}

/// The row of a file whose first entry is `e` and entries `entries`, to be read.
fn row(e: &Entry, entries: Range<u32>) -> WalkFile {
    let path = match &e.source {
        Source::File(p) => p.clone(),
        other => Arc::from(file_of(other).expect("checked")),
    };
    WalkFile {
        rec: FileRec {
            path,
            stamp: None,
            hash_value: 0,
            hashed: false,
            status: None,
            detail: reading_of(&e.source).into(),
            docs: 0,
        },
        walked: Walked::Listed(entries),
        plan: READ,
    }
}

/// Lets go of the first `used` of `items` (the walk's entries, moved into the table or
/// the index's documents) once they are a quarter of those left and at least
/// [`LET_GO`]: how many went. Held to the end, the walk's list was 36 MB at
/// 500,000 files beside what was made of it; this way a few memory moves of what is
/// left, about three times the list in all.
pub(super) fn let_go<T>(items: &mut Vec<T>, used: usize) -> usize {
    if used < LET_GO.max(items.len() / 4) {
        return 0;
    }
    items.drain(..used);
    items.shrink_to_fit();
    used
}

/// The fewest items let go of at once (288 KB of entries): fewer are not worth a move.
pub(super) const LET_GO: usize = 1 << 12;

/// `x` moved out (left empty), or copied when the walk is kept (`keep`).
pub(super) fn moved<T: Clone + Default>(x: &mut T, keep: bool) -> T {
    if keep { x.clone() } else { std::mem::take(x) }
}

/// Bytes the table of `files` holds: its rows, paths and readings (see `reading_of`).
pub(super) fn table_bytes(files: &[WalkFile]) -> u64 {
    let strings: usize = (files.iter())
        .map(|f| f.rec.path.as_os_str().len() + 32 + f.rec.detail.len())
        .sum();
    (std::mem::size_of_val(files) + strings) as u64
}

/// Takes every file's stamp, as it is before anything reads it.
pub(super) fn stamp_all(files: &mut [WalkFile]) {
    files
        .par_iter_mut()
        .for_each(|f| f.rec.stamp = stamp(f.path()));
}

/// The records of `files`, in order, made in the table's own memory.
pub(super) fn records(files: Vec<WalkFile>) -> Vec<FileRec> {
    files.into_iter().map(|f| f.rec).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_let_go_of_a_quarter_at_least_at_a_time() {
        let mut items = vec![0u64; 8 * LET_GO];
        // Fewer than a quarter of those left, or than LET_GO: they wait for more.
        assert_eq!(let_go(&mut items, 2 * LET_GO - 1), 0);
        assert_eq!(items.len(), 8 * LET_GO);
        assert_eq!(let_go(&mut items, 2 * LET_GO), 2 * LET_GO);
        assert_eq!(items.len(), 6 * LET_GO);
        assert!(items.capacity() < 8 * LET_GO, "the room is given back");
        let mut few = vec![0u64; 2 * LET_GO];
        assert_eq!(let_go(&mut few, LET_GO - 1), 0);
        assert_eq!(let_go(&mut few, LET_GO), LET_GO);
    }

    /// A walk of `n` files: most plain, every 100th with a size already (kept in the
    /// list), every 250th given twice in a row (two entries of one file).
    fn walk(n: usize) -> Corpus {
        let mut entries = Vec::new();
        for i in 0..n {
            let path: Arc<Path> = Arc::from(Path::new(&format!("/c/{i:05}.txt")));
            let times = if i % 250 == 0 { 2 } else { 1 };
            for t in 0..times {
                entries.push(Entry {
                    id: format!("{i:05}#{t}"),
                    source: Source::File(path.clone()),
                    bytes: if i % 100 == 7 { 9 } else { 0 },
                });
            }
        }
        Corpus {
            entries,
            skipped: Vec::new(),
        }
    }

    #[test]
    fn a_walk_taken_into_its_table_gives_back_its_entries_in_order() {
        let mut corpus = walk(10_000);
        let before = corpus.entries.clone();
        let mut files = walk_files_taken(&mut corpus);
        assert_eq!(files.len(), 10_000);
        // Listed: the 100 files with a size and the 40 of two entries (80 entries).
        assert_eq!(corpus.entries.len(), 100 + 80);
        let taken = files.iter().filter(|f| f.listed().is_none()).count();
        assert_eq!(taken, 10_000 - 100 - 40);
        let (mut again, hollow) = (Vec::new(), || unreachable!("the walk is kept"));
        for f in &mut files {
            let mine = f.mine(&mut corpus.entries, 0);
            f.entries_into((mine, true), &hollow, &mut again);
        }
        let seen = |e: &Entry| {
            (
                e.id.clone(),
                file_of(&e.source).map(Path::to_path_buf),
                e.bytes,
            )
        };
        assert!(before.iter().map(seen).eq(again.iter().map(seen)));
        // Each row names its file, as the walk's list did.
        for (f, e) in files.iter().zip(walk_files(&walk(10_000))) {
            assert_eq!(f.path(), e.path());
        }
    }
}
