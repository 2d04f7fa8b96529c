//! Deduplication: which documents a clustering removes ([`removals`]), and the corpus
//! written again without them, each file in its own format ([`write_corpus`]): JSON
//! Lines and SGML files with the removed records' bytes left out (every other byte as it
//! was, compressed as it was), Parquet files with the removed rows left out (the same
//! schema, codec and key-value metadata), plain files copied unless removed, and every
//! other path of the input copied too ([`input_files`]: hidden files, files that are no
//! documents, links as links). Nothing is ever written into the input; the output
//! appears under its name only when complete.

use crate::analysis::cluster::Cluster;
use crate::error::{Error, Result};
use crate::index::Index;
use crate::progress::{Progress, check};
use crate::source::Source;
use crate::source::container::Kind;
use crate::source::read::{Compression, open as open_container};
use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Component, Path, PathBuf};

/// A document removed: the one kept in its place, their exact Jaccard similarity, and
/// its cluster (from 1, in the clusters' order).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Removal {
    /// The removed document (a position in the index's documents).
    pub removed: u32,
    /// The document kept in its cluster.
    pub kept: u32,
    /// Exact Jaccard similarity of the two (1 for identical texts).
    pub jaccard: f64,
    /// The cluster, from 1, as the clusters were given.
    pub cluster: u32,
}

/// Every member of each cluster but its kept one, unless its id is in `keep_list` (a
/// removal marked wrong in a review): such a document stays. In cluster order, each
/// cluster's members in id order. The similarities are computed once per pair of
/// distinct contents.
pub fn removals(index: &Index, clusters: &[Cluster], keep_list: &HashSet<String>) -> Vec<Removal> {
    use rayon::prelude::*;
    clusters
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, c)| {
            let kept_group = index.docs().group(c.representative as usize);
            let mut by_group: HashMap<u32, f64> = HashMap::new();
            c.duplicates()
                .filter(|&d| !keep_list.contains(&*index.docs().id(d as usize)))
                .map(|d| {
                    let g = index.docs().group(d as usize);
                    let jaccard = *by_group
                        .entry(g)
                        .or_insert_with(|| index.group_similarity(kept_group, g).0);
                    Removal {
                        removed: d,
                        kept: c.representative,
                        jaccard,
                        cluster: i as u32 + 1,
                    }
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

mod against;
mod annotate;
mod tree;
pub use against::{Against, against};
pub use annotate::{ALONE, Annotation, FIELDS, annotations};
pub use tree::{Copy, FileId, InputFile, InputFiles, Link, input_files};

/// The last part of a path's name (`.` and `..` resolved as far as the path tells).
fn last_name(p: &Path) -> PathBuf {
    p.components()
        .rev()
        .find_map(|c| match c {
            Component::Normal(n) => Some(PathBuf::from(n)),
            _ => None,
        })
        .unwrap_or_else(|| PathBuf::from("input"))
}

/// A relative path with only its normal parts (never `..` or a root).
fn clean_rel(p: &Path) -> PathBuf {
    p.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n),
            _ => None,
        })
        .collect()
}

/// What [`write_corpus`] wrote, and what it left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Files written (filtered or copied; hard links not counted).
    pub files: u64,
    /// Files left out: plain files that were removed documents (each path to one).
    pub files_removed: u64,
    /// Records (lines, articles, rows) left out of files of many documents.
    pub records_removed: u64,
    /// Documents of the index annotated in their records (`--annotate`): JSON Lines
    /// lines, Parquet rows. Records the index skipped (no text, too short) are annotated
    /// too, as alone, and not counted here.
    pub records_annotated: u64,
    /// Files copied that are no documents (binary, too large, hidden, not `--ext`, ...):
    /// kept as they were.
    pub copied_unread: u64,
    /// Plain files that are documents, copied.
    pub documents: u64,
    /// Files of many documents (JSON Lines, SGML, Parquet), filtered or copied.
    pub record_files: u64,
    /// Second paths to a file copied already, made hard links to its copy.
    pub hard_links: u64,
    /// Symbolic links made again.
    pub symlinks: u64,
    /// Of those, links to a removed document (they reach nothing now).
    pub dangling: u64,
    /// Folders made (empty ones too).
    pub folders: u64,
    /// Paths that could not be copied, and why (see [`Copy::Cannot`]).
    pub left_out: Vec<(PathBuf, String)>,
}

/// What to leave out of each file, by the file's identity (so that a hard link to a
/// removed file goes with it).
#[derive(Default)]
struct Cuts {
    /// Plain files removed whole.
    whole: HashSet<FileId>,
    /// JSON Lines and SGML: byte ranges (offset, length) in the decompressed file;
    /// Parquet: (row group, row in it). Sorted.
    parts: HashMap<FileId, (Kind, Vec<(u64, u64)>)>,
    /// Instead of cuts (`--annotate`): each file of records' annotations.
    notes: HashMap<FileId, (Kind, annotate::FileNotes)>,
}

fn cuts(index: &Index, removed: &[Removal]) -> Cuts {
    let mut cuts = Cuts::default();
    for r in removed {
        match &index.docs().at(r.removed as usize).source {
            Source::File(p) => {
                cuts.whole.extend(tree::file_id(p));
            }
            Source::Part(part) => {
                if let Some(id) = tree::file_id(&part.file.path) {
                    let (_, v) = cuts
                        .parts
                        .entry(id)
                        .or_insert_with(|| (part.file.kind, Vec::new()));
                    v.push((part.offset, part.len));
                }
            }
            Source::Memory(_) | Source::Container(_) => {}
        }
    }
    for (_, v) in cuts.parts.values_mut() {
        v.sort_unstable();
        v.dedup();
    }
    cuts
}

/// The file [`write_corpus`] puts in each folder it writes: `--force` replaces a folder
/// only when it holds one (an earlier output), never any other folder.
pub const MARKER: &str = ".simtui-dedup";

/// Checks that [`write_corpus`] may replace `out` (with `single`, by one file): nothing
/// is there; or, for a folder, an empty folder or one it wrote (its [`MARKER`] in it);
/// for one file, a file (the caller tells whether it is an earlier output).
pub fn check_replace(out: &Path, single: bool) -> Result<()> {
    let Ok(meta) = fs::metadata(out) else {
        return Ok(());
    };
    let refuse = |why: &str| {
        Err(Error::Output(format!(
            "{} {why}: --force replaces only an earlier output of simtui dedup",
            out.display()
        )))
    };
    match (single, meta.is_dir()) {
        (true, true) => refuse("is a folder, and the output of one file is a file"),
        (true, false) if !meta.is_file() => refuse("is not a file"),
        (true, false) => Ok(()),
        (false, false) => refuse("is not a folder, and the output of a folder is a folder"),
        (false, true) => {
            let marked = fs::symlink_metadata(out.join(MARKER)).is_ok_and(|m| m.is_file());
            let empty = fs::read_dir(out).is_ok_and(|mut d| d.next().is_none());
            if marked || empty {
                Ok(())
            } else {
                refuse(&format!(
                    "is a folder simtui dedup did not write (no {MARKER} in it)"
                ))
            }
        }
    }
}

/// Writes the corpus of `files` without the documents of `removed` to `out`: a folder
/// with each path at its `rel` path (and [`MARKER`]), or, with `single`, the one file
/// itself. Every path listed is copied, but the removed documents' files (and other
/// paths to them): folders, files (filtered where records are removed, else byte for
/// byte), symbolic links after everything else (so that no file is written through
/// one); a second path to a file copied already is a hard link to its copy;
/// [`Copy::Cannot`] paths are left out and named in [`Written::left_out`] (the caller
/// refuses them first if it must). Written under a temporary name next to `out` and
/// renamed to it once complete (replacing an existing `out` only if `replace`, and only
/// what [`check_replace`] allows); a failure or cancellation removes the temporary copy.
/// Fails if `out` exists and `replace` is false.
pub fn write_corpus(
    index: &Index,
    files: &InputFiles,
    removed: &[Removal],
    out: &Path,
    single: bool,
    replace: bool,
    progress: &dyn Progress,
) -> Result<Written> {
    write_with(
        index,
        files,
        &cuts(index, removed),
        out,
        (single, replace),
        progress,
    )
}

/// [`write_corpus`] and [`write_annotated`]: `files` copied to `out` with `cuts` made.
fn write_with(
    index: &Index,
    files: &InputFiles,
    cuts: &Cuts,
    out: &Path,
    (single, replace): (bool, bool),
    progress: &dyn Progress,
) -> Result<Written> {
    if replace {
        check_replace(out, single)?;
    }
    let partial = Partial::new(out, replace)?;
    let result = copy_all(index, files, cuts, (&partial.tmp, single), progress);
    let result = result.and_then(|written| {
        if !single {
            let marker = partial.tmp.join(MARKER);
            let text = "Written by simtui dedup: `simtui dedup --force` may replace this folder.\n";
            fs::write(&marker, text).map_err(|e| io_error(&marker, e))?;
        }
        Ok(written)
    });
    // On an error the partial copy is removed as `partial` is dropped.
    let written = result?;
    partial.commit()?;
    Ok(written)
}

/// Writes the corpus of `files` to `out` as [`write_corpus`] does, but with every
/// record kept and annotated ([`annotations`], one per document of the index): JSON
/// Lines records gain the fields of [`FIELDS`], Parquet files those columns; every other
/// path is copied as it was. An input with documents that are no records (plain files,
/// SGML articles) is an error before anything is written, as is a record that has one
/// of those fields already (found while writing: nothing is left of the output).
pub fn write_annotated(
    index: &Index,
    files: &InputFiles,
    notes: &[Annotation],
    out: &Path,
    single: bool,
    replace: bool,
    progress: &dyn Progress,
) -> Result<Written> {
    let (by_path, others) = annotate::by_file(index, notes);
    if let Some(path) = others.iter().min() {
        return Err(annotate::cannot_annotate(path));
    }
    let mut cuts = Cuts::default();
    for (path, file) in by_path {
        cuts.notes.extend(tree::file_id(&path).map(|id| (id, file)));
    }
    write_with(index, files, &cuts, out, (single, replace), progress)
}

/// Copies `files` into `tmp` (or, with `single`, to `tmp` itself) without the cuts.
fn copy_all(
    index: &Index,
    files: &InputFiles,
    cuts: &Cuts,
    (tmp, single): (&Path, bool),
    progress: &dyn Progress,
) -> Result<Written> {
    // The plain files that are documents (the others are copied unread), by a 128-bit
    // hash of their paths, sorted: 16 bytes a file, where a set of the paths took 100
    // and more (a path read back from the documents' file is an allocation of its own).
    let mut documents: Vec<u128> = Vec::new();
    let mut containers: HashSet<PathBuf> = HashSet::new();
    for d in index.docs().iter() {
        match &d.source {
            Source::File(p) => documents.push(path_hash(p)),
            Source::Part(p) if !containers.contains(&p.file.path) => {
                containers.insert(p.file.path.clone());
            }
            _ => {}
        }
    }
    documents.sort_unstable();
    let mut written = Written::default();
    if !single {
        fs::create_dir_all(tmp).map_err(|e| io_error(tmp, e))?;
    }
    // The copy of each file with more than one link, for its other paths.
    let mut copied: HashMap<FileId, PathBuf> = HashMap::new();
    let mut links = Vec::new();
    for f in files.iter() {
        check(progress)?;
        let target = if single {
            tmp.to_path_buf()
        } else {
            tmp.join(&f.rel)
        };
        let (id, nlink) = match f.copy {
            Copy::Folder => {
                if !f.rel.as_os_str().is_empty() {
                    fs::create_dir_all(&target).map_err(|e| io_error(&target, e))?;
                    written.folders += 1;
                }
                continue;
            }
            Copy::Symlink(_) => {
                links.push((f, target));
                continue;
            }
            Copy::Cannot(why) => {
                written.left_out.push((f.path.clone(), why.to_string()));
                continue;
            }
            &Copy::File { id, links } => (id, links),
        };
        if cuts.whole.contains(&id) {
            written.files_removed += 1;
            continue;
        }
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(|e| io_error(parent, e))?;
        }
        if let Some(first) = copied.get(&id) {
            fs::hard_link(first, &target).map_err(|e| io_error(&target, e))?;
            written.hard_links += 1;
            continue;
        }
        // Written whole: a Parquet object fetched as the columns read comes whole first.
        crate::source::object::whole(&f.path)?;
        match (cuts.notes.get(&id), cuts.parts.get(&id)) {
            (Some((kind, notes)), _) => {
                annotate::write_file(*kind, &f.path, &target, notes, progress)?;
                written.records_annotated += notes.len() as u64;
                written.record_files += 1;
            }
            (None, Some((kind, parts))) => {
                if *kind == Kind::Parquet {
                    crate::source::parquet::write_without(&f.path, &target, parts, progress)?;
                } else {
                    filter_bytes(&f.path, &target, parts)?;
                }
                written.records_removed += parts.len() as u64;
                written.record_files += 1;
            }
            // No record of it removed: byte for byte (compressed files not recompressed).
            (None, None) => {
                fs::copy(&f.path, &target).map_err(|e| io_error(&f.path, e))?;
                let path = f.path.as_path();
                if documents.binary_search(&path_hash(path)).is_ok() {
                    written.documents += 1;
                } else if containers.contains(path) {
                    written.record_files += 1;
                } else {
                    written.copied_unread += 1;
                }
            }
        }
        written.files += 1;
        if nlink > 1 {
            copied.insert(id, target);
        }
    }
    for (f, target) in links {
        let Copy::Symlink(link) = f.copy else {
            continue;
        };
        let Link {
            target: to,
            reaches,
        } = &**link;
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(|e| io_error(parent, e))?;
        }
        symlink(to, &target).map_err(|e| io_error(&target, e))?;
        written.symlinks += 1;
        written.dangling += reaches.is_some_and(|id| cuts.whole.contains(&id)) as u64;
    }
    Ok(written)
}

/// A path's 128-bit hash: two paths that differ share one with a chance of about 2^-128.
fn path_hash(p: &Path) -> u128 {
    xxhash_rust::xxh3::xxh3_128(&crate::storage::file::path_bytes(p))
}

#[cfg(unix)]
fn symlink(to: &Path, at: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(to, at)
}

#[cfg(not(unix))]
fn symlink(_: &Path, at: &Path) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        format!("{}: symbolic links are made on Unix only", at.display()),
    ))
}

fn io_error(path: &Path, e: io::Error) -> Error {
    Error::File {
        path: path.to_path_buf(),
        source: e,
    }
}

/// An output being written under a temporary name: `.NAME.simtui-partial.PID` beside it.
/// Removed when dropped unless committed: nothing is left of an output that failed.
pub struct Partial {
    /// Where it is written meanwhile.
    pub tmp: PathBuf,
    out: PathBuf,
    replace: bool,
    committed: bool,
}

impl Partial {
    /// Starts an output at `out`: fails if it exists and `replace` is false. `out`
    /// through a symbolic link (`-o link/`) is where the link leads: that is replaced,
    /// the link stays. A partial output left by a process that is gone (killed) is
    /// removed first.
    pub fn new(out: &Path, replace: bool) -> Result<Partial> {
        if !replace && fs::symlink_metadata(out).is_ok() {
            return Err(Error::Output(format!(
                "{} exists (--force replaces it)",
                out.display()
            )));
        }
        // `link/` is `link` (a trailing slash would follow the link in one call and not
        // in the next), and a link is where it leads.
        let mut target: PathBuf = out.components().collect();
        if fs::symlink_metadata(&target).is_ok_and(|m| m.file_type().is_symlink())
            && let Ok(real) = fs::canonicalize(&target)
        {
            target = real;
        }
        let name = target
            .file_name()
            .ok_or_else(|| Error::Output(format!("{} names no file", out.display())))?
            .to_string_lossy()
            .into_owned();
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        remove_stale(&dir, &name);
        let tmp = dir.join(format!(".{name}.simtui-partial.{}", std::process::id()));
        let _ = remove_any(&tmp);
        Ok(Partial {
            tmp,
            out: target,
            replace,
            committed: false,
        })
    }

    /// Moves the complete output to its name (replacing what was there, if allowed). If
    /// that fails, what was there stays and the temporary copy is removed.
    pub fn commit(mut self) -> Result<()> {
        let exists = fs::symlink_metadata(&self.out).is_ok();
        if !(self.replace && exists) {
            fs::rename(&self.tmp, &self.out).map_err(|e| io_error(&self.out, e))?;
            self.committed = true;
            return Ok(());
        }
        // A folder can't be renamed over: move the old one aside first, then remove it.
        let mut old = self.tmp.clone().into_os_string();
        old.push(".old");
        let old = PathBuf::from(old);
        fs::rename(&self.out, &old).map_err(|e| io_error(&self.out, e))?;
        if let Err(e) = fs::rename(&self.tmp, &self.out) {
            let _ = fs::rename(&old, &self.out);
            return Err(io_error(&self.out, e));
        }
        self.committed = true;
        let _ = remove_any(&old);
        Ok(())
    }
}

impl Drop for Partial {
    fn drop(&mut self) {
        if !self.committed {
            let _ = remove_any(&self.tmp);
        }
    }
}

fn remove_any(p: &Path) -> io::Result<()> {
    match fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => fs::remove_dir_all(p),
        Ok(_) => fs::remove_file(p),
        Err(e) => Err(e),
    }
}

/// Whether process `pid` has ended (and is not this one). Only where the system lists
/// its processes (Linux's /proc) can this be told; elsewhere a process counts as
/// running, so that nothing of another run is ever removed.
pub fn process_gone(pid: u32) -> bool {
    let proc = Path::new("/proc");
    pid != std::process::id() && proc.join("self").exists() && !proc.join(pid.to_string()).exists()
}

/// Removes `.NAME.simtui-partial.PID*` left in `dir` by processes that are gone.
fn remove_stale(dir: &Path, name: &str) {
    let prefix = format!(".{name}.simtui-partial.");
    let Ok(read) = fs::read_dir(dir) else {
        return;
    };
    for e in read.flatten() {
        let file = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = file.strip_prefix(&prefix) else {
            continue;
        };
        let pid = pid.split('.').next().unwrap_or("");
        if pid.parse::<u32>().is_ok_and(process_gone) {
            let _ = remove_any(&e.path());
        }
    }
}

/// Copies a JSON Lines or SGML file without the byte ranges `cuts` (each with the new
/// line that ends it), compressed as the input is.
// The cuts are copied into the reader, which owns them while the output is written.
#[allow(clippy::unnecessary_to_owned)]
fn filter_bytes(input: &Path, target: &Path, cuts: &[(u64, u64)]) -> Result<()> {
    rewrite_stream(input, target, |reader| Without {
        inner: reader,
        pos: 0,
        cuts: cuts.to_vec().into_iter(),
        next: None,
        eat_newline: false,
    })
}

/// Writes `target` from a JSON Lines or SGML file's decompressed bytes read through
/// `through`, compressed as the input is. An error of the reader (a record that cannot
/// be annotated) names the input.
fn rewrite_stream<R: Read>(
    input: &Path,
    target: &Path,
    through: impl FnOnce(Box<dyn Read + Send>) -> R,
) -> Result<()> {
    let opened = open_container(input)
        .map_err(|(_, why)| Error::Output(format!("{}: {why}", input.display())))?;
    let without = through(opened.reader);
    let file = fs::File::create(target).map_err(|e| io_error(target, e))?;
    let mut file = BufWriter::with_capacity(256 << 10, file);
    let copied = match opened.compression {
        Compression::None => io::copy(&mut { without }, &mut file).map(|_| ()),
        Compression::Gzip => {
            let mut gz = flate2::write::GzEncoder::new(&mut file, flate2::Compression::default());
            io::copy(&mut { without }, &mut gz).and_then(|_| gz.finish().map(|_| ()))
        }
        Compression::Zstd => {
            // ruzstd's encoder reads its input to the end; read errors end it early, so
            // the filter records them to report.
            let failed = std::cell::RefCell::new(None);
            let reader = Failing {
                inner: without,
                failed: &failed,
            };
            ruzstd::encoding::compress(
                reader,
                &mut file,
                ruzstd::encoding::CompressionLevel::Fastest,
            );
            match failed.into_inner() {
                Some(e) => Err(e),
                None => Ok(()),
            }
        }
    };
    copied
        .and_then(|()| file.flush())
        .and_then(|()| file.get_ref().sync_all())
        .map_err(|e| io_error(input, e))
}

/// A reader that keeps the first error it meets (and then reads as ended).
struct Failing<'a, R> {
    inner: R,
    failed: &'a std::cell::RefCell<Option<io::Error>>,
}

impl<R: Read> Read for Failing<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.failed.borrow().is_some() {
            return Ok(0);
        }
        match self.inner.read(buf) {
            Ok(n) => Ok(n),
            Err(e) => {
                *self.failed.borrow_mut() = Some(e);
                Ok(0)
            }
        }
    }
}

/// A reader of a stream without some byte ranges (and the new line right after each).
struct Without<R> {
    inner: R,
    /// Offset of the next byte of `inner`.
    pos: u64,
    cuts: std::vec::IntoIter<(u64, u64)>,
    next: Option<(u64, u64)>,
    /// Just past a cut: a '\n' here is the end of the removed record's line.
    eat_newline: bool,
}

impl<R: Read> Read for Without<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.next.is_none() {
                self.next = self.cuts.next();
            }
            if self.eat_newline {
                self.eat_newline = false;
                let mut one = [0u8];
                let n = self.inner.read(&mut one)?;
                if n == 0 {
                    return Ok(0);
                }
                self.pos += 1;
                if one[0] != b'\n' {
                    buf[0] = one[0];
                    return Ok(1);
                }
                continue;
            }
            if let Some((start, len)) = self.next
                && self.pos >= start
            {
                let end = start + len;
                let skip = end.saturating_sub(self.pos);
                let skipped = io::copy(&mut (&mut self.inner).take(skip), &mut io::sink())?;
                self.pos += skipped;
                self.next = None;
                if skipped < skip {
                    return Ok(0);
                }
                self.eat_newline = true;
                continue;
            }
            let room = match self.next {
                Some((start, _)) => ((start - self.pos) as usize).min(buf.len()),
                None => buf.len(),
            };
            let n = self.inner.read(&mut buf[..room])?;
            self.pos += n as u64;
            return Ok(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[allow(clippy::unnecessary_to_owned)]
    fn without(data: &[u8], cuts: &[(u64, u64)]) -> Vec<u8> {
        let mut w = Without {
            inner: data,
            pos: 0,
            cuts: cuts.to_vec().into_iter(),
            next: None,
            eat_newline: false,
        };
        let mut out = Vec::new();
        w.read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn cuts_leave_every_other_byte() {
        let data = b"{\"a\":1}\n{\"b\":2}\r\n\n{\"c\":3}";
        assert_eq!(without(data, &[]), data);
        assert_eq!(without(data, &[(8, 8)]), b"{\"a\":1}\n\n{\"c\":3}");
        assert_eq!(without(data, &[(0, 7), (18, 7)]), b"{\"b\":2}\r\n\n");
        // A cut not followed by a new line keeps the next byte.
        assert_eq!(without(b"<R>x</R><R>y</R>\n", &[(0, 8)]), b"<R>y</R>\n");
    }

    /// A commit that fails (here: a folder appeared at the name meanwhile) leaves what
    /// was there and no partial copy; so does an output dropped before its commit.
    #[test]
    fn a_failed_commit_leaves_no_partial_copy() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let partial = Partial::new(&out, false).unwrap();
        fs::create_dir_all(partial.tmp.join("sub")).unwrap();
        fs::write(partial.tmp.join("sub/a.txt"), "a").unwrap();
        fs::create_dir_all(out.join("theirs")).unwrap();
        assert!(partial.commit().is_err());
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, ["out"], "only what was there");
        assert!(out.join("theirs").is_dir());
        let partial = Partial::new(&dir.path().join("other"), false).unwrap();
        fs::write(&partial.tmp, "x").unwrap();
        drop(partial);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// `-o link/ --force`: the folder the link leads to is replaced, the link stays, and
    /// nothing is left beside either (the partial copy was left, named after the link,
    /// when the rename of `link/` failed).
    #[cfg(unix)]
    #[test]
    fn an_output_through_a_link_replaces_where_it_leads() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        simtui_gen::write_files(&real, &[(MARKER, ""), ("old.txt", "old")]).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let partial = Partial::new(Path::new(&format!("{}/", link.display())), true).unwrap();
        fs::create_dir(&partial.tmp).unwrap();
        fs::write(partial.tmp.join("new.txt"), "new").unwrap();
        partial.commit().unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(real.join("new.txt").is_file() && !real.join("old.txt").exists());
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            2,
            "real and link only"
        );
    }

    #[test]
    fn force_replaces_only_an_earlier_output() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("folder");
        fs::create_dir(&folder).unwrap();
        check_replace(&folder, false).unwrap();
        check_replace(&dir.path().join("missing"), false).unwrap();
        fs::write(folder.join("mine.txt"), "mine").unwrap();
        let e = check_replace(&folder, false).unwrap_err().to_string();
        assert!(e.contains("did not write") && e.contains(MARKER), "{e}");
        assert!(
            check_replace(&folder, true)
                .unwrap_err()
                .to_string()
                .contains("is a folder")
        );
        fs::write(folder.join(MARKER), "").unwrap();
        check_replace(&folder, false).unwrap();
        let file = folder.join("mine.txt");
        assert!(
            check_replace(&file, false)
                .unwrap_err()
                .to_string()
                .contains("not a folder")
        );
        check_replace(&file, true).unwrap();
    }

    proptest::proptest! {
        /// The same as removing the ranges (and a '\n' right after each) from the bytes.
        #[test]
        fn without_is_removal(data in proptest::collection::vec(proptest::sample::select(b"ab\n".to_vec()), 0..40), raw in proptest::collection::vec((0u64..40, 0u64..6), 0..5)) {
            // Ranges sorted, apart by at least two bytes (records never touch: a new line
            // or a tag is between them).
            let mut cuts: Vec<(u64, u64)> = Vec::new();
            let mut sorted = raw.clone();
            sorted.sort();
            for (s, l) in sorted {
                if cuts.last().is_none_or(|&(ps, pl)| s >= ps + pl + 2) && s + l <= data.len() as u64 {
                    cuts.push((s, l));
                }
            }
            let mut keep = vec![true; data.len()];
            for &(s, l) in &cuts {
                for k in keep.iter_mut().skip(s as usize).take(l as usize) {
                    *k = false;
                }
                let after = (s + l) as usize;
                if after < data.len() && data[after] == b'\n' {
                    keep[after] = false;
                }
            }
            let want: Vec<u8> = data.iter().zip(&keep).filter(|x| *x.1).map(|x| *x.0).collect();
            proptest::prop_assert_eq!(without(&data, &cuts), want);
        }
    }
}
