//! Every path of the input as the copy mirrors it ([`input_files`]): folders (empty ones
//! too), regular files whatever the walk made of them (documents, hidden files, `.git`,
//! files skipped by `--ext` or a size limit), symbolic links as links, and what cannot be
//! copied (FIFOs, sockets, devices, what cannot be read) with why. The corpus's walk
//! decides what is a document; this one decides what the copy holds, so that a file is
//! never left out because it was not read.

use super::{clean_rel, last_name};
use crate::error::{Error, Result};
use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs;
use std::path::{Component, Path, PathBuf};

/// A file's identity: (device, inode) on Unix. Two paths with one identity are one file
/// (a hard link, a second root over the same folder).
pub type FileId = (u64, u64);

/// A path of the input, and where its copy goes under the output: what
/// [`InputFiles::iter`] gives, made from the list's folders as it is asked for.
#[derive(Clone, Debug)]
pub struct InputFile<'a> {
    /// The path as the walk found it.
    pub path: PathBuf,
    /// Its path under the output folder (relative, no `..`).
    pub rel: PathBuf,
    /// What the copy makes of it.
    pub copy: &'a Copy,
}

/// Every path of the input ([`input_files`]), each held as its folder and its name: a
/// folder's path and its path under the output are kept once for all its files, not a
/// path and an output path per file (~100 MB at 500,000 files, held from the start of
/// `dedup` to the end of the copy).
#[derive(Clone, Debug, Default)]
pub struct InputFiles {
    places: Vec<Place>,
    rows: Vec<Row>,
    /// Every row's name that is UTF-8, one after the other ([`Row::end`] says where each
    /// ends): one buffer, where a name each took 32 bytes of heap and a 16-byte pointer
    /// in its row (17 MB at 500,000 files).
    names: String,
    /// The other names (not UTF-8: rare), by row, in row order.
    odd: Vec<(u32, Box<OsStr>)>,
}

/// A folder of the input (or a path that splits into no folder and name) and where its
/// copy goes.
#[derive(Clone, Debug)]
struct Place {
    path: PathBuf,
    rel: PathBuf,
}

/// A path listed: its place, then its name in it (empty: the place itself).
#[derive(Clone, Debug)]
struct Row {
    place: u32,
    /// Where its name ends in [`InputFiles::names`] (it starts where the row before's
    /// ends; a name that is not UTF-8 is empty there and in [`InputFiles::odd`]).
    end: u32,
    copy: Copy,
}

impl InputFiles {
    /// The number of paths listed.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no path is listed.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The paths listed, in the order of the walk.
    pub fn iter(&self) -> impl Iterator<Item = InputFile<'_>> {
        (0..self.rows.len()).map(|i| {
            let (r, name) = (&self.rows[i], self.name(i));
            let place = &self.places[r.place as usize];
            InputFile {
                path: joined(&place.path, name),
                rel: joined(&place.rel, name),
                copy: &r.copy,
            }
        })
    }

    /// The paths the copy cannot make ([`Copy::Cannot`]) and why, in the order of the
    /// walk: only their paths are made (not one of every file listed).
    pub fn uncopyable(&self) -> impl Iterator<Item = (PathBuf, &str)> {
        (0..self.rows.len()).filter_map(|i| match &self.rows[i].copy {
            Copy::Cannot(why) => {
                let place = &self.places[self.rows[i].place as usize];
                Some((joined(&place.path, self.name(i)), &**why))
            }
            _ => None,
        })
    }

    /// Row `i`'s name in its place (empty: the place itself).
    fn name(&self, i: usize) -> &OsStr {
        let start = i.checked_sub(1).map_or(0, |j| self.rows[j].end as usize);
        let end = self.rows[i].end as usize;
        if start < end {
            return OsStr::new(&self.names[start..end]);
        }
        let row = u32::try_from(i).expect("fewer than 2^32 paths listed");
        match self.odd.binary_search_by_key(&row, |(r, _)| *r) {
            Ok(k) => &self.odd[k].1,
            Err(_) => OsStr::new(""),
        }
    }

    /// Lists `path`, copied to `rel`, as its folder and name when both paths end in the
    /// same name (every path but a tree's top).
    fn push(&mut self, path: &Path, rel: &Path, copy: Copy) {
        let name = path.file_name().filter(|&n| rel.file_name() == Some(n));
        let (place, name) = match (name, path.parent(), rel.parent()) {
            (Some(name), Some(dir), Some(rel_dir)) => (self.place(dir, rel_dir), name),
            _ => (self.place(path, rel), OsStr::new("")),
        };
        let row = u32::try_from(self.rows.len()).expect("fewer than 2^32 paths listed");
        match name.to_str() {
            Some(utf8) => self.names.push_str(utf8),
            None => self.odd.push((row, name.into())),
        }
        let end = u32::try_from(self.names.len()).expect("under 4 GiB of names");
        self.rows.push(Row { place, end, copy });
    }

    /// The place of a folder and its copy, found among the latest few (a folder's files
    /// come together, its subfolders' between them) or added.
    fn place(&mut self, path: &Path, rel: &Path) -> u32 {
        let recent = self.places.len().saturating_sub(8);
        let found = self.places[recent..]
            .iter()
            .rposition(|p| p.path == path && p.rel == rel);
        let i = found.map_or_else(
            || {
                self.places.push(Place {
                    path: path.to_path_buf(),
                    rel: rel.to_path_buf(),
                });
                self.places.len() - 1
            },
            |i| recent + i,
        );
        u32::try_from(i).expect("fewer than 2^32 folders")
    }
}

/// `name` in the folder `dir`, or `dir` itself for no name.
fn joined(dir: &Path, name: &OsStr) -> PathBuf {
    if name.is_empty() {
        dir.to_path_buf()
    } else {
        dir.join(name)
    }
}

/// What the copy makes of a path of the input. 24 bytes: the listing holds one for every
/// path of the input from the start of `dedup` to its end (a symbolic link's target is
/// boxed, a file's link count is 32 bits: 80-byte rows were 40 MB at 500,000 files).
#[derive(Clone, Debug, PartialEq)]
pub enum Copy {
    /// A folder: made (an empty one too).
    Folder,
    /// A regular file (or one a followed link leads to out of the tree): copied, filtered
    /// (a file of records some of which are removed), or left out if it is a removed
    /// document; a second path to a file already copied becomes a hard link to that copy.
    File {
        /// The file's identity.
        id: FileId,
        /// Its number of hard links (at most `u32::MAX`): more than one, and another
        /// path may reach it.
        links: u32,
    },
    /// A symbolic link: made again, never followed by the copy.
    Symlink(Box<Link>),
    /// Cannot be copied: a FIFO, socket or device, a file or folder that cannot be read.
    Cannot(Box<str>),
}

/// A symbolic link of the input as the copy makes it again.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// What the new link holds: the old one's target as it was, unless that would reach
    /// another place from the output (a relative target leaving the tree becomes
    /// absolute; a target in the tree by an absolute path becomes relative, to reach the
    /// copy, not the input).
    pub target: PathBuf,
    /// The file it reaches in the input, if it reaches one: a link to a removed document
    /// is made but reaches nothing.
    pub reaches: Option<FileId>,
}

/// Every path under `roots`, in a sorted walk, and where each goes under an output
/// folder: under each folder given, its path below it; with several paths given, below
/// the last part of each one's name (`a/x.txt` and `b/x.txt` stay apart). Hidden files
/// are listed whatever the corpus's walk skipped. Symbolic links are listed as links,
/// except with `follow` one that leads out of the trees given: the files and folders it
/// leads to are listed in its place, as the corpus's walk read them. Fails when two
/// paths given have the same last name.
pub fn input_files(roots: &[PathBuf], follow: bool) -> Result<InputFiles> {
    let prefix = roots.len() > 1;
    if prefix {
        let mut names = HashSet::new();
        for r in roots {
            let name = last_name(r);
            if !names.insert(name.clone()) {
                return Err(Error::Output(format!(
                    "two paths given are named {}: their files would share the output's {0}/",
                    name.display()
                )));
            }
        }
    }
    let trees: Vec<Tree> = roots
        .iter()
        .filter_map(|r| {
            let real = fs::canonicalize(r).ok()?;
            let out = if prefix { last_name(r) } else { PathBuf::new() };
            Some(Tree { real, out })
        })
        .collect();
    let mut lister = Lister {
        trees: &trees,
        follow,
        out: InputFiles::default(),
        entered: Vec::new(),
    };
    for root in roots {
        let is_dir = fs::metadata(root).is_ok_and(|m| m.is_dir());
        if is_dir {
            let out = if prefix {
                last_name(root)
            } else {
                PathBuf::new()
            };
            lister.tree(root, &out);
        } else {
            lister.one(root, last_name(root), None);
        }
    }
    Ok(lister.out)
}

/// A folder given, by its real path, and where its copy goes under the output.
struct Tree {
    real: PathBuf,
    out: PathBuf,
}

struct Lister<'a> {
    trees: &'a [Tree],
    follow: bool,
    out: InputFiles,
    /// The folders being walked through links that leave the trees (with `follow`): a
    /// link into one of them is made again as a link, as one into a tree given.
    entered: Vec<Tree>,
}

impl Lister<'_> {
    /// The folder `dir` and everything under it, its copy at `out`.
    fn tree(&mut self, dir: &Path, out: &Path) {
        let walker = walkdir::WalkDir::new(dir)
            .follow_root_links(true)
            .sort_by_file_name();
        for item in walker {
            match item {
                Ok(e) => {
                    let rel = out.join(clean_rel(e.path().strip_prefix(dir).unwrap_or(e.path())));
                    if e.depth() > 0 && e.path_is_symlink() {
                        self.link(e.path(), rel, out);
                    } else {
                        self.one(e.path(), rel, Some(e.file_type()));
                    }
                }
                Err(err) => {
                    let path = err.path().unwrap_or(dir).to_path_buf();
                    let why = err.io_error().map_or(err.to_string(), ToString::to_string);
                    let rel = out.join(clean_rel(path.strip_prefix(dir).unwrap_or(&path)));
                    self.push(
                        &path,
                        rel,
                        Copy::Cannot(format!("cannot be read: {why}").into()),
                    );
                }
            }
        }
    }

    /// One path that is no link (or a link given as a root, followed as the corpus's walk
    /// follows it), of the type its folder's listing gave (None: not known yet).
    fn one(&mut self, path: &Path, rel: PathBuf, listed: Option<fs::FileType>) {
        if listed.is_some_and(|ft| ft.is_dir()) {
            return self.push(path, rel, Copy::Folder);
        }
        let copy = match fs::metadata(path) {
            Ok(m) if m.is_dir() => Copy::Folder,
            Ok(m) if m.is_file() => regular(path, &m),
            Ok(m) => Copy::Cannot(crate::source::kind_name(&m.file_type()).into()),
            Err(e) => cannot_read(e),
        };
        self.push(path, rel, copy);
    }

    /// A symbolic link found in a walk whose top is copied to `base`: made again, or
    /// with `--follow` and a target out of the trees, what it leads to.
    fn link(&mut self, path: &Path, rel: PathBuf, base: &Path) {
        let real = fs::canonicalize(path).ok();
        let outside = real.as_ref().is_some_and(|r| self.tree_of(r).is_none());
        if self.follow && outside {
            let real = real.clone().expect("outside means resolved");
            // A link to a folder it is in never ends: made again as a link.
            let here = path.parent().and_then(|p| fs::canonicalize(p).ok());
            let around = here.is_some_and(|h| h.starts_with(&real));
            if real.is_dir() && !around {
                self.entered.push(Tree {
                    real,
                    out: rel.clone(),
                });
                self.tree(path, &rel);
                self.entered.pop();
                return;
            }
            if !real.is_dir() {
                return self.one(&real, rel, None);
            }
        }
        let Ok(target) = fs::read_link(path) else {
            return self.push(path, rel, Copy::Cannot("a link that cannot be read".into()));
        };
        let reaches = fs::metadata(path)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| identity(path, &m));
        let target = self.link_target((path, &rel, base), target, real.as_deref());
        self.push(path, rel, Copy::Symlink(Box::new(Link { target, reaches })));
    }

    /// What the copy of the link at `path` (copied to `rel`, in a walk copied to
    /// `base`) holds to reach what `target` reaches (`real`: that place, resolved).
    fn link_target(
        &self,
        (path, rel, base): (&Path, &Path, &Path),
        target: PathBuf,
        real: Option<&Path>,
    ) -> PathBuf {
        let parent = rel.parent().unwrap_or(Path::new(""));
        let within = parent.strip_prefix(base).unwrap_or(parent);
        if target.is_relative() && stays_below(within, &target) {
            return target; // `v2.txt`, `../shared/a.txt`: the same place in the copy
        }
        if let Some(real) = real
            && let Some(t) = self.tree_of(real)
        {
            // Into a tree given: to its copy, not to the input.
            let to = t.out.join(real.strip_prefix(&t.real).unwrap_or(real));
            return relative(parent, &to);
        }
        if target.is_absolute() {
            return target;
        }
        // Out of the trees: where it leads from the input, whatever the output's place.
        match real {
            Some(real) => real.to_path_buf(),
            None => std::path::absolute(path.parent().unwrap_or(Path::new("")).join(&target))
                .unwrap_or(target),
        }
    }

    /// The tree given (or walked through a link) that holds a real path.
    fn tree_of(&self, real: &Path) -> Option<&Tree> {
        let trees = self.trees.iter().chain(self.entered.iter().rev());
        trees.into_iter().find(|t| real.starts_with(&t.real))
    }

    fn push(&mut self, path: &Path, rel: PathBuf, copy: Copy) {
        self.out.push(path, &rel, copy);
    }
}

/// A regular file, once it opens: a file that cannot be read can't be copied, and the
/// copy refuses before writing anything rather than fail half-way.
fn regular(path: &Path, meta: &fs::Metadata) -> Copy {
    match crate::source::file::open_nonblocking(path) {
        Ok(_) => Copy::File {
            id: identity(path, meta),
            links: link_count(meta),
        },
        Err(e) => cannot_read(e),
    }
}

fn cannot_read(e: std::io::Error) -> Copy {
    Copy::Cannot(format!("cannot be read: {e}").into())
}

/// Whether a relative link target, from the folder `from` (relative to the output),
/// stays below the output's top: then it reaches the same place in the copy.
fn stays_below(from: &Path, target: &Path) -> bool {
    let mut depth = from.components().count() as i64;
    for c in target.components() {
        match c {
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    true
}

/// The relative path from the folder `from` to `to`, both relative to one top.
fn relative(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<_> = from.components().collect();
    let to_parts: Vec<_> = to.components().collect();
    let common = from
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for c in &to_parts[common..] {
        out.push(c);
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// A file's identity from its metadata (`path`: the file, followed).
#[cfg(unix)]
pub(crate) fn identity(_: &Path, m: &fs::Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

/// Without inode numbers: the file's real path, hashed.
#[cfg(not(unix))]
pub(crate) fn identity(path: &Path, _: &fs::Metadata) -> FileId {
    use std::hash::{Hash, Hasher};
    let real = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut h = std::collections::hash_map::DefaultHasher::new();
    real.hash(&mut h);
    (0, h.finish())
}

/// The identity of the file at `path` (followed), if it can be stat'ed.
pub(crate) fn file_id(path: &Path) -> Option<FileId> {
    fs::metadata(path).ok().map(|m| identity(path, &m))
}

#[cfg(unix)]
fn link_count(m: &fs::Metadata) -> u32 {
    u32::try_from(std::os::unix::fs::MetadataExt::nlink(m)).unwrap_or(u32::MAX)
}

#[cfg(not(unix))]
fn link_count(_: &fs::Metadata) -> u32 {
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_path_takes_32_bytes_and_its_name() {
        // One row for every path of the input, held through the whole of dedup.
        assert!(size_of::<Copy>() <= 24, "{}", size_of::<Copy>());
        assert!(size_of::<Row>() <= 32, "{}", size_of::<Row>());
    }

    #[test]
    fn names_are_held_in_one_buffer_and_others_beside_it() {
        let mut names: Vec<std::ffi::OsString> = ["a.txt", "é.txt", "z"].map(Into::into).to_vec();
        #[cfg(unix)]
        names.insert(
            1,
            <OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b"b\xff.txt").into(),
        );
        let mut files = InputFiles::default();
        // A tree's top: no name, its place is itself.
        files.push(Path::new("/in/top"), Path::new(""), Copy::Folder);
        let mut wanted = vec![(PathBuf::from("/in/top"), PathBuf::new())];
        for n in &names {
            let (path, rel) = (Path::new("/in/dir").join(n), Path::new("dir").join(n));
            files.push(&path, &rel, Copy::Folder);
            wanted.push((path, rel));
        }
        let listed: Vec<(PathBuf, PathBuf)> = files.iter().map(|f| (f.path, f.rel)).collect();
        assert_eq!(listed, wanted);
        assert_eq!(files.names, "a.txté.txtz");
    }

    #[test]
    fn relative_targets_below_the_top_stay_and_others_are_rebuilt() {
        assert!(stays_below(Path::new("a/b"), Path::new("../../x.txt")));
        assert!(!stays_below(Path::new("a"), Path::new("../../x.txt")));
        assert!(!stays_below(Path::new(""), Path::new("x/../../y")));
        assert_eq!(
            relative(Path::new("a/b"), Path::new("a/c/x")),
            Path::new("../c/x")
        );
        assert_eq!(relative(Path::new(""), Path::new("x")), Path::new("x"));
        assert_eq!(relative(Path::new("a"), Path::new("a")), Path::new("."));
    }

    #[test]
    fn each_path_is_made_again_from_its_folder_and_each_folder_is_held_once() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let mut files = Vec::new();
        for i in 0..30 {
            files.push((format!("t/a/{i:02}.txt"), "x"));
            files.push((format!("t/a/{i:02}/in.txt"), "y"));
        }
        files.push(("one.txt".to_string(), "z"));
        let named: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), *t)).collect();
        simtui_gen::write_files(d, &named).unwrap();
        let roots = [d.join("t"), d.join("one.txt")];
        let listed = input_files(&roots, false).unwrap();
        let got: Vec<(PathBuf, PathBuf)> = listed.iter().map(|f| (f.path, f.rel)).collect();
        // What the walk gives, with each path below its root's last name (two roots).
        let mut want = vec![(d.join("t"), PathBuf::from("t"))];
        for e in walkdir::WalkDir::new(d.join("t"))
            .sort_by_file_name()
            .min_depth(1)
        {
            let e = e.unwrap();
            let rel = Path::new("t").join(e.path().strip_prefix(d.join("t")).unwrap());
            want.push((e.path().to_path_buf(), rel));
        }
        want.push((d.join("one.txt"), PathBuf::from("one.txt")));
        assert_eq!(got, want);
        assert_eq!(listed.len(), 2 + 1 + 30 * 3);
        // t, t/a and the 30 folders in it, t/a again after each of them, and one.txt's
        // folder: not one place a file.
        assert!(
            listed.places.len() <= 3 + 30 * 2 + 1,
            "{}",
            listed.places.len()
        );
    }

    #[cfg(unix)]
    #[test]
    fn every_path_is_listed_links_as_links() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        simtui_gen::write_files(d, &[("t/.git/HEAD", "x"), ("t/a.txt", "a")]).unwrap();
        fs::write(d.join("outside.txt"), "o").unwrap();
        symlink("a.txt", d.join("t/near")).unwrap();
        symlink("../outside.txt", d.join("t/far")).unwrap();
        let files = input_files(&[d.join("t")], false).unwrap();
        let listed: Vec<(String, &Copy)> = files
            .iter()
            .map(|f| (f.rel.to_string_lossy().into_owned(), f.copy))
            .collect();
        let names: Vec<&str> = listed.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["", ".git", ".git/HEAD", "a.txt", "far", "near"]);
        let target = |i: usize| match listed[i].1 {
            Copy::Symlink(link) => (link.target.clone(), link.reaches.is_some()),
            other => panic!("{other:?}"),
        };
        // Out of the tree: absolute, so the copy's link reaches the same file.
        let real = fs::canonicalize(d.join("outside.txt")).unwrap();
        assert_eq!(target(4), (real, true));
        assert_eq!(target(5), (PathBuf::from("a.txt"), true));
    }
}
