//! The walk: which files under the paths given are documents.
//!
//! Walking is sorted and deterministic; nothing found is fatal. Files that are not
//! documents (special, unreadable, links not followed) are counted by reason. simtui
//! only ever opens the user's files for reading.

use super::container::{Container, InputOptions};
use super::entry::{Entry, Source};
use super::object;
use super::skip::{SkipReason, Skipped};
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Parts of a parallel walk joined between two hand-backs of freed memory, past the
/// limit ([`WalkOptions::memory`]).
const GIVE_BACK_EVERY: usize = 32;

/// How to walk the paths given on the command line.
#[derive(Clone, Debug)]
pub struct WalkOptions {
    /// Include hidden entries and VCS folders.
    pub hidden: bool,
    /// Follow symbolic links (loops are detected and skipped).
    pub follow: bool,
    /// Not used by the walk, which never stats a file for its size: the limit that skips
    /// large files is [`Params::max_bytes`](crate::index::Params::max_bytes), checked
    /// when a file is opened to be read.
    pub max_bytes: u64,
    /// Only files with one of these extensions (lowercase, without the dot).
    pub extensions: Option<Vec<String>>,
    /// Which files hold many documents (JSON Lines, SGML), and how to read them.
    pub input: InputOptions,
    /// The run's memory limit (`--memory`; `u64::MAX`: none): past it, what the walk
    /// frees as it joins its parts is handed back to the system as it goes.
    pub memory: u64,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            hidden: false,
            follow: false,
            max_bytes: 32 << 20,
            extensions: None,
            input: InputOptions::default(),
            memory: u64::MAX,
        }
    }
}

/// The documents of a corpus, in a deterministic order, and what was skipped.
#[derive(Clone, Debug, Default)]
pub struct Corpus {
    /// The documents found, in walk order: sorted by path under each root, the roots in
    /// the order given. A file of many documents is one entry until the index reads it.
    pub entries: Vec<Entry>,
    /// The paths that are not documents, and why.
    pub skipped: Vec<Skipped>,
}

impl Corpus {
    /// Walks the given roots (folders or files). Each root must exist: fails with
    /// [`Error::MissingPath`] otherwise; anything found below them is never an error.
    ///
    /// A file is one document however many roots, hard links or followed symbolic links
    /// reach it: the other paths are skipped as [`SkipReason::SameFile`], so a file is
    /// never listed as its own duplicate.
    ///
    /// Built without the `parquet` feature, a Parquet file found (by its name, or as
    /// `--input-format parquet` says) fails the walk with [`Error::Unsupported`]: its
    /// rows would otherwise be lost without a word.
    pub fn walk(roots: &[PathBuf], opts: &WalkOptions) -> Result<Corpus> {
        // A URL is walked in its local copy, its documents named by the URL.
        let names: Vec<PathBuf> = roots.iter().map(|r| object::named(r)).collect();
        let roots = &object::localize(roots, &opts.input)?;
        for root in roots {
            fs::metadata(root)
                .or_else(|_| fs::symlink_metadata(root))
                .map_err(|source| Error::MissingPath {
                    path: root.clone(),
                    source,
                })?;
        }
        let prefix = roots.len() > 1;
        let mut walk = Walk::default();
        for (root, name) in roots.iter().zip(&names) {
            let naming = Naming { name, prefix };
            walk.root(root, naming, opts);
        }
        let corpus = walk.into_corpus();
        #[cfg(not(feature = "parquet"))]
        if let Some(path) = corpus.entries.iter().find_map(|e| match &e.source {
            Source::Container(c) if c.kind == super::container::Kind::Parquet => Some(&c.path),
            _ => None,
        }) {
            return Err(Error::Unsupported {
                path: path.clone(),
                what: super::parquet::NEEDS_FEATURE,
            });
        }
        Ok(corpus)
    }

    /// A corpus of texts held in memory, as (id, text) pairs, in that order. The ids are
    /// taken as given: nothing makes them unique.
    pub fn from_texts(texts: impl IntoIterator<Item = (String, String)>) -> Corpus {
        Corpus::from_shared(texts.into_iter().map(|(id, text)| (id, text.into())))
    }

    /// [`Corpus::from_texts`] of texts shared with the caller (not copied).
    pub fn from_shared(texts: impl IntoIterator<Item = (String, Arc<str>)>) -> Corpus {
        Corpus {
            entries: texts
                .into_iter()
                .map(|(id, text)| Entry {
                    id,
                    bytes: text.len() as u64,
                    source: Source::Memory(text),
                })
                .collect(),
            skipped: Vec::new(),
        }
    }

    fn skip(&mut self, path: &Path, reason: SkipReason, detail: impl Into<String>) {
        self.skipped.push(Skipped {
            path: path.to_path_buf(),
            reason,
            detail: detail.into(),
        });
    }
}

/// How the ids of a root's files are spelt: by the root's name (the URL its local copy
/// was fetched from, else the root as given), in front of each id when there are
/// several roots.
#[derive(Clone, Copy)]
struct Naming<'a> {
    name: &'a Path,
    prefix: bool,
}

/// A walk under way: the corpus found so far, each entry with the inode number its
/// directory entry gave (no stat per file), to find the paths that reach one file.
#[derive(Default)]
struct Walk {
    corpus: Corpus,
    /// `inodes[i]` belongs to `corpus.entries[i]` (0 where unknown).
    inodes: Vec<u64>,
}

impl Walk {
    fn root(&mut self, root: &Path, naming: Naming, opts: &WalkOptions) {
        // With --follow a link may lead back to the root, which the walk of one subtree
        // can't see as a loop: then one walk of the whole tree.
        let children = if opts.follow {
            None
        } else {
            top_level(root, opts)
        };
        let Some(children) = children else {
            return self.tree(root, naming, opts);
        };
        // The root's children in parallel, each folder walked as its own sorted tree, the
        // parts joined in the children's order: the order one sorted walk gives. The walk
        // comes before any reading, so it had the machine to itself with a core idle
        // (50,000 files in 50 folders: 0.08-0.11 s on one core).
        let parts: Vec<Walk> = children
            .par_iter()
            .map(|(path, ft, ino)| {
                let mut part = Walk::default();
                if ft.is_dir() {
                    let walker = walkdir::WalkDir::new(path)
                        .sort_by(by_name)
                        .into_iter()
                        .filter_entry(|e| opts.hidden || !is_hidden(e.file_name()));
                    for item in walker {
                        part.take(item, root, naming, opts);
                    }
                } else {
                    part.take_typed(path, *ft, *ino, root, naming, opts);
                }
                part
            })
            .collect();
        // Room for exactly every entry: grown by doubling, the list had up to twice the
        // room it needed (72 bytes an entry).
        let found: usize = parts.iter().map(|p| p.corpus.entries.len()).sum();
        self.corpus.entries.reserve_exact(found);
        self.inodes.reserve_exact(found);
        for (n, part) in parts.into_iter().enumerate() {
            self.corpus.entries.extend(part.corpus.entries);
            self.corpus.skipped.extend(part.corpus.skipped);
            self.inodes.extend(part.inodes);
            // Each part's list, freed, stays with the allocator (between the paths and
            // ids allocated with it) while the whole list fills: 36 MB more at the end
            // of a walk of 500,000 files, unless handed back on the way.
            if n % GIVE_BACK_EVERY == GIVE_BACK_EVERY - 1 {
                crate::storage::memory::give_back_past(opts.memory);
            }
        }
    }

    /// The whole tree under `root` in one sorted walk, on this thread.
    fn tree(&mut self, root: &Path, naming: Naming, opts: &WalkOptions) {
        let walker = walkdir::WalkDir::new(root)
            .follow_links(opts.follow)
            .follow_root_links(true)
            .sort_by(by_name)
            .into_iter()
            .filter_entry(|e| e.depth() == 0 || opts.hidden || !is_hidden(e.file_name()));
        for item in walker {
            self.take(item, root, naming, opts);
        }
    }

    /// One item of a walk: a file becomes an entry or a skip, a folder nothing.
    fn take(
        &mut self,
        item: walkdir::Result<walkdir::DirEntry>,
        root: &Path,
        naming: Naming,
        opts: &WalkOptions,
    ) {
        match item {
            Ok(e) => self.take_typed(e.path(), e.file_type(), inode(&e), root, naming, opts),
            Err(err) => {
                let path = err.path().unwrap_or(root).to_path_buf();
                let detail = if err.loop_ancestor().is_some() {
                    "symlink loop".to_string()
                } else {
                    err.io_error().map(|e| e.to_string()).unwrap_or_default()
                };
                self.corpus.skip(&path, SkipReason::WalkError, detail);
            }
        }
    }

    /// A path found by a walk, with the type the walk saw (not followed unless
    /// --follow) and its inode number: a file becomes an entry or a skip, a folder
    /// nothing.
    fn take_typed(
        &mut self,
        path: &Path,
        ft: fs::FileType,
        ino: u64,
        root: &Path,
        naming: Naming,
        opts: &WalkOptions,
    ) {
        if ft.is_dir() {
            return;
        }
        if let Some(exts) = &opts.extensions {
            let ext = path
                .extension()
                .map(|e| e.to_string_lossy().to_lowercase())
                .unwrap_or_default();
            if !exts.contains(&ext) {
                return; // not asked for: neither a document nor a skip
            }
        }
        if ft.is_symlink() {
            // Not followed (a followed link reports its target's type).
            self.corpus.skip(path, SkipReason::Symlink, "");
            return;
        }
        if !ft.is_file() {
            self.corpus.skip(path, SkipReason::Special, "");
            return;
        }
        // The size is checked when the file is opened (fstat), not here: a stat per file
        // would cost the walk as much as reading the files (measured: 0.2 s for 50,000).
        let rel = relative(path, root);
        let id = if rel.as_os_str().is_empty() {
            // The root itself is a file: its id is the path as given.
            slash_path(naming.name)
        } else if naming.prefix {
            slash_path(&naming.name.join(rel))
        } else {
            slash_path(rel)
        };
        let source = match opts.input.kind_of(path) {
            Some(kind) => Source::Container(Arc::new(Container::new(
                path.to_path_buf(),
                id.clone(),
                kind,
                &opts.input,
            ))),
            None => Source::File(Arc::from(path)),
        };
        self.corpus.entries.push(Entry {
            id,
            source,
            bytes: 0,
        });
        self.inodes.push(ino);
    }

    /// The corpus, each file found once: of the paths that reach one file (the same
    /// device and inode), the one through the fewest symbolic links is kept, the first in
    /// walk order among equals; the others are skipped as [`SkipReason::SameFile`].
    fn into_corpus(self) -> Corpus {
        let Walk { mut corpus, inodes } = self;
        let second = same_files(&corpus.entries, &inodes);
        if second.is_empty() {
            return corpus;
        }
        let entries = std::mem::take(&mut corpus.entries);
        let ids: Vec<String> = entries.iter().map(|e| e.id.clone()).collect();
        for (i, entry) in entries.into_iter().enumerate() {
            match second.get(&i) {
                Some(&kept) => corpus.skip(
                    &entry.place(),
                    SkipReason::SameFile,
                    format!("same file as {}", ids[kept]),
                ),
                None => corpus.entries.push(entry),
            }
        }
        corpus
    }
}

/// The entries that are another path to a file kept under an earlier or better path:
/// entry index → the kept entry's index. Only paths whose directory entries gave the
/// same inode number are looked at (a stat each, and a look at their folders for links):
/// without hard links or repeated roots there are none, and the walk pays nothing.
fn same_files(entries: &[Entry], inodes: &[u64]) -> HashMap<usize, usize> {
    // Sorted rather than put in a map: 16 bytes a file instead of the ~36 of a map with
    // room for every file (18 MB at 500,000 files, at the walk's peak).
    let mut by_inode: Vec<(u64, u32)> = inodes
        .iter()
        .enumerate()
        .filter(|&(_, &ino)| ino != 0) // not known (not Unix)
        .map(|(i, &ino)| (ino, i as u32))
        .collect();
    by_inode.par_sort_unstable();
    let mut second = HashMap::new();
    for run in by_inode.chunk_by(|a, b| a.0 == b.0).filter(|r| r.len() > 1) {
        // Inode numbers repeat across devices: group by the file's identity.
        let mut files: HashMap<(u64, u64), Vec<usize>> = HashMap::new();
        for i in run.iter().map(|&(_, i)| i as usize) {
            if let Some(id) = entries[i].source.path().and_then(file_identity) {
                files.entry(id).or_default().push(i);
            }
        }
        for paths in files.into_values().filter(|p| p.len() > 1) {
            let kept = *paths
                .iter()
                .min_by_key(|&&i| (links_on(entries[i].source.path().unwrap()), i))
                .unwrap();
            second.extend(paths.into_iter().filter(|&i| i != kept).map(|i| (i, kept)));
        }
    }
    second
}

/// A file's (device, inode), following links; None when it can't be stat'ed (it is then
/// read, or reported unreadable, under each of its paths).
#[cfg(unix)]
fn file_identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_identity(_: &Path) -> Option<(u64, u64)> {
    None
}

/// How many of a path's components (itself and the folders on it) are symbolic links.
fn links_on(path: &Path) -> usize {
    path.ancestors()
        .filter(|p| !p.as_os_str().is_empty())
        .filter(|p| fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink()))
        .count()
}

/// The inode number a walk's directory entry carries (from the directory, or from the
/// link's target when followed): 0 where the platform has none.
#[cfg(unix)]
fn inode(e: &walkdir::DirEntry) -> u64 {
    use walkdir::DirEntryExt;
    e.ino()
}

#[cfg(not(unix))]
fn inode(_: &walkdir::DirEntry) -> u64 {
    0
}

/// The children of a root folder, sorted by name as a sorted walk visits them, with the
/// type their directory entry gives (no stat per file); hidden ones are left out unless
/// asked for. None when the root is not a folder that can be listed: the whole-tree walk
/// then reports why.
fn top_level(root: &Path, opts: &WalkOptions) -> Option<Vec<(PathBuf, fs::FileType, u64)>> {
    if !fs::metadata(root).ok()?.is_dir() {
        return None;
    }
    let mut children = Vec::new();
    for entry in fs::read_dir(root).ok()? {
        let entry = entry.ok()?;
        let name = entry.file_name();
        if opts.hidden || !is_hidden(&name) {
            children.push((name, entry.file_type().ok()?, dir_entry_inode(&entry)));
        }
    }
    children.sort_by(|a, b| a.0.cmp(&b.0));
    Some(
        children
            .into_iter()
            .map(|(name, ft, ino)| (root.join(name), ft, ino))
            .collect(),
    )
}

#[cfg(unix)]
fn dir_entry_inode(e: &fs::DirEntry) -> u64 {
    std::os::unix::fs::DirEntryExt::ino(e)
}

#[cfg(not(unix))]
fn dir_entry_inode(_: &fs::DirEntry) -> u64 {
    0
}

/// The path as text, each byte that is not UTF-8 as `\xNN` and each backslash doubled,
/// so that no two paths give the same text: a file literally named `x\xFF.txt` is
/// `x\\xFF.txt`, one whose name holds the byte 0xFF is `x\xFF.txt`.
#[cfg(unix)]
fn escape_invalid(p: &Path) -> std::borrow::Cow<'_, str> {
    use std::os::unix::ffi::OsStrExt;
    if let Some(s) = p.to_str()
        && !s.contains('\\')
    {
        return s.into();
    }
    let mut out = String::new();
    for chunk in p.as_os_str().as_bytes().utf8_chunks() {
        out.push_str(&chunk.valid().replace('\\', "\\\\"));
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out.into()
}

#[cfg(not(unix))]
fn escape_invalid(p: &Path) -> std::borrow::Cow<'_, str> {
    p.to_string_lossy()
}

/// Entries of one folder in the order of their names, as walkdir's `sort_by_file_name`
/// gives it, by comparing their whole paths: they share the folder's path up to their
/// names, and comparing bytes splits nothing into components (the name of each side of
/// each comparison was about 2 % of `pairs`' CPU on 50,000 files).
fn by_name(a: &walkdir::DirEntry, b: &walkdir::DirEntry) -> std::cmp::Ordering {
    a.path().as_os_str().cmp(b.path().as_os_str())
}

fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.to_string_lossy().starts_with('.')
}

/// A path as an id, with '/' separators. A name that is not valid UTF-8 keeps each
/// invalid byte as a `\xNN` escape: lossy decoding (U+FFFD) gave two files that differ
/// only in such bytes the same id, so output could not tell them apart (issue 5); a
/// backslash is doubled, so a name that holds `\xFF` as text stays distinct (issue 20).
fn slash_path(p: &Path) -> String {
    let s = escape_invalid(p);
    if std::path::MAIN_SEPARATOR == '/' {
        s.into_owned()
    } else {
        s.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

/// `path` below `root`, as [`Path::strip_prefix`] gives it (the path itself when it is
/// not below). A path the walk found is the root's bytes, then a `/` (unless the root
/// ends with one) and the rest: cut there, rather than matching both paths component by
/// component for every file (1 % of `pairs`' samples on 50,000 files).
fn relative<'a>(path: &'a Path, root: &Path) -> &'a Path {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let (p, r) = (path.as_os_str().as_bytes(), root.as_os_str().as_bytes());
        if let Some(rest) = p.strip_prefix(r) {
            let rest = match rest.first() {
                None => Some(rest),
                Some(b'/') => Some(&rest[1..]),
                Some(_) if r.ends_with(b"/") => Some(rest),
                Some(_) => None,
            };
            // Only a plain rest: anything the components would read otherwise (another
            // slash, a `.`) is left to them.
            if let Some(rest) = rest.filter(|rest| plain(rest)) {
                return Path::new(std::ffi::OsStr::from_bytes(rest));
            }
        }
    }
    path.strip_prefix(root).unwrap_or(path)
}

/// Whether `rest` is names joined by single slashes, none of them `.` (what
/// `strip_prefix` would give back byte for byte).
#[cfg(unix)]
fn plain(rest: &[u8]) -> bool {
    rest.is_empty()
        || rest
            .split(|&b| b == b'/')
            .all(|name| !name.is_empty() && name != b".")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::file::read_file;
    use crate::source::read::read_text;

    #[test]
    fn a_path_below_its_root_is_cut_as_strip_prefix_cuts_it() {
        let cases = [
            ("data", "data/a/b.txt"),
            ("data/", "data/a"),
            ("data//", "data//a"),
            ("/", "/a/b"),
            (".", "./a"),
            ("data/.", "data/./a"),
            ("a/./b", "a/./b/c"),
            ("data", "data"),
            ("data", "data2/x"),
            ("data", "data/a//b"),
            ("data", "data/./b"),
            ("data", "data/a/"),
            ("../up", "../up/x/y"),
        ];
        for (root, path) in cases {
            let (root, path) = (Path::new(root), Path::new(path));
            let want = path.strip_prefix(root).unwrap_or(path);
            assert_eq!(relative(path, root), want, "{path:?} under {root:?}");
            assert_eq!(
                relative(path, root).as_os_str(),
                want.as_os_str(),
                "{path:?} under {root:?}: the same bytes"
            );
        }
    }

    #[test]
    fn walk_is_sorted_skips_hidden_and_reports_reasons() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::create_dir_all(d.join("b/.git")).unwrap();
        fs::write(d.join("b/.git/config"), "x").unwrap();
        fs::write(d.join("b/z.txt"), "z").unwrap();
        fs::write(d.join("a.txt"), "a").unwrap();
        fs::write(d.join(".hidden"), "h").unwrap();
        fs::write(d.join("big.txt"), "0123456789").unwrap();
        let opts = WalkOptions {
            max_bytes: 5,
            ..Default::default()
        };
        let c = Corpus::walk(&[d.to_path_buf()], &opts).unwrap();
        let ids: Vec<_> = c.entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["a.txt", "b/z.txt", "big.txt"]);
        // Sizes are checked when a file is opened, before anything is read.
        assert_eq!(
            read_text(&c.entries[2], 5).unwrap_err().0,
            SkipReason::TooLarge
        );
        assert_eq!(&*read_text(&c.entries[0], 5).unwrap(), "a");

        let hidden = WalkOptions {
            hidden: true,
            ..Default::default()
        };
        let c = Corpus::walk(&[d.to_path_buf()], &hidden).unwrap();
        assert_eq!(c.entries.len(), 5);

        let txt = WalkOptions {
            extensions: Some(vec!["txt".into()]),
            hidden: true,
            ..Default::default()
        };
        let c = Corpus::walk(&[d.to_path_buf()], &txt).unwrap();
        assert_eq!(c.entries.len(), 3);
    }

    #[cfg(unix)]
    #[test]
    fn the_parallel_walk_finds_what_one_sorted_walk_finds() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        for dir in ["b", "a/x/y", "a/.git", "c", ".hidden", "a b"] {
            fs::create_dir_all(r.join(dir)).unwrap();
        }
        for file in [
            "z.txt",
            "m.md",
            "b/1.txt",
            "b/10.txt",
            "b/2.txt",
            "a/x/y/deep.txt",
            "a/.git/HEAD",
            "a/x/.dot",
            "a b/s p.txt",
            ".hidden/h.txt",
            "c/data.jsonl",
            "c/notes.TXT",
        ] {
            fs::write(r.join(file), "some words here").unwrap();
        }
        std::os::unix::fs::symlink(r.join("b"), r.join("link-to-b")).unwrap();
        std::os::unix::fs::symlink(r.join("m.md"), r.join("b/link.txt")).unwrap();
        let fifo = std::ffi::CString::new(r.join("c/pipe").to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a valid NUL-terminated path; the test needs a special file.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        let exts = WalkOptions {
            extensions: Some(vec!["txt".into()]),
            ..Default::default()
        };
        let hidden = WalkOptions {
            hidden: true,
            ..Default::default()
        };
        for opts in [WalkOptions::default(), exts, hidden] {
            for prefix in [false, true] {
                let naming = Naming { name: r, prefix };
                let (mut tree, mut parallel) = (Walk::default(), Walk::default());
                tree.tree(r, naming, &opts);
                parallel.root(r, naming, &opts);
                assert_eq!(parallel.inodes, tree.inodes);
                let (tree, parallel) = (tree.corpus, parallel.corpus);
                assert!(
                    top_level(r, &opts).is_some(),
                    "the parallel path was not taken"
                );
                assert_eq!(
                    format!("{:?}", parallel.entries),
                    format!("{:?}", tree.entries)
                );
                assert_eq!(
                    format!("{:?}", parallel.skipped),
                    format!("{:?}", tree.skipped)
                );
                assert!(tree.entries.len() >= 5 && !tree.skipped.is_empty());
            }
        }
    }

    #[cfg(not(feature = "parquet"))]
    #[test]
    fn a_parquet_file_without_the_feature_is_an_error_not_a_loss() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.txt"), "some text").unwrap();
        fs::write(dir.path().join("rows.parquet"), "PAR1").unwrap();
        let err = Corpus::walk(&[dir.path().to_path_buf()], &WalkOptions::default()).unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }), "{err:?}");
        assert!(err.to_string().contains("`parquet` feature"), "{err}");
    }

    #[test]
    fn missing_root_is_an_error() {
        let err = Corpus::walk(
            &[PathBuf::from("/no/such/simtui/path")],
            &WalkOptions::default(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("/no/such/simtui/path"));
    }

    #[cfg(unix)]
    #[test]
    fn fifos_are_skipped_without_blocking_and_symlink_loops_survive() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("a.txt"), "a").unwrap();
        let fifo = d.join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a valid NUL-terminated path; the test needs a real FIFO.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        std::os::unix::fs::symlink(d, d.join("loop")).unwrap();
        let follow = WalkOptions {
            follow: true,
            ..Default::default()
        };
        let c = Corpus::walk(&[d.to_path_buf()], &follow).unwrap();
        assert_eq!(c.entries.len(), 1, "{:?}", c.entries);
        let reasons: Vec<_> = c.skipped.iter().map(|s| s.reason).collect();
        assert!(reasons.contains(&SkipReason::Special));
        assert!(reasons.contains(&SkipReason::WalkError));
        // Reading the FIFO directly must not block either.
        assert_eq!(read_file(&fifo, 100).unwrap_err().0, SkipReason::Special);
    }
}
