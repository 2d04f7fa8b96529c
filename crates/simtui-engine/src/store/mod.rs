//! Saved indexes: `simtui index` writes one, and the commands and the explorer open it
//! again without reading unchanged files.
//!
//! The index is keyed by *source file* (absolute path, size, modification and
//! status-change times, inode number, content hash): a file whose stamp is unchanged is
//! not opened; one whose size is unchanged but whose stamp moved (a `touch`, a `chmod`,
//! a checkout) is read and hashed, and kept if its bytes are the same; any other file
//! that changed has all its documents indexed again; a file that could not be read is
//! tried again on every run; files gone are dropped and new ones added. The result is
//! the index a fresh run would build, document for document and group for group
//! (tests/index_file.rs checks it), and the file is rewritten (atomically) when it
//! differs from what was loaded.
//!
//! The shingle sets are saved with the signatures, so candidates are still verified
//! with the exact Jaccard similarity without reading any document.
//!
//! Records of JSON Lines and SGML files are saved with their place in the file (byte
//! range and line) and the file with how it was read (format, text and id fields): a
//! file read another way is indexed again.

pub mod format;

use crate::error::{Error, Result};
use crate::index::{Doc, Index, Params};
use crate::minhash::sketch::{Signatures, SketchKind, Sketcher};
use crate::progress::{Progress, Stage};
use crate::shingle::ShingleSets;
use crate::source::Part;
use crate::source::{self, Corpus, SkipReason, Skipped, Source, WalkOptions};
use format::{DocOut, FileRec, FormatError, Place, Saved, Stamp};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant, UNIX_EPOCH};

/// The index file found automatically inside a folder given as the only PATH.
pub const AUTO_NAME: &str = ".simtui-index";

/// The file a document's text comes from, if any: the file itself, or the JSON Lines or
/// SGML file a record is part of.
pub(crate) fn file_of(source: &Source) -> Option<&Path> {
    match source {
        Source::File(p) => Some(p),
        Source::Container(c) => Some(&c.path),
        Source::Part(p) => Some(&p.file.path),
        Source::Memory(_) => None,
    }
}

/// Where in its file a document is, as saved.
pub(crate) fn part_of(source: &Source) -> Place {
    match source {
        Source::Part(p) => Place {
            offset: p.offset,
            len: p.len,
            line: p.line,
        },
        Source::File(_) | Source::Memory(_) | Source::Container(_) => Place::WHOLE,
    }
}

/// The source of a saved document: its file, or a record of the file the walk found
/// now (`entry`, a container, gives the reading options).
pub(crate) fn source_of(path: &Path, part: Place, entry: &Source) -> Source {
    match entry {
        Source::Container(c) if part.line > 0 => Source::Part(Part {
            file: c.clone(),
            offset: part.offset,
            len: part.len,
            line: part.line,
        }),
        _ => Source::File(path.to_path_buf()),
    }
}

/// How a file of many documents was read (its format and fields), saved with it: the
/// same bytes read another way are other documents. Empty for a plain file.
fn reading_of(entry: &Source) -> String {
    match entry {
        Source::Container(c) => c.reading(),
        _ => String::new(),
    }
}

/// How to treat an index file that exists but cannot be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Opening it to search (`pairs --index`, the explorer): a corrupt, truncated or
    /// other-version file is an error. A missing one is built and written.
    Open,
    /// Writing it (`simtui index -o`): a corrupt, truncated or other-version index is
    /// rebuilt; a file that is not a simtui index at all is left alone (an error).
    Create,
}

/// What to open and how.
#[derive(Clone, Debug)]
pub struct Request {
    /// The index file: read when it exists, (re)written when the index changed.
    pub file: PathBuf,
    /// The folders and files to index, as for [`Corpus::walk`].
    pub roots: Vec<PathBuf>,
    /// How to walk them.
    pub walk: WalkOptions,
    /// The parameters wanted; `num_perm` is the number of hash functions needed.
    pub params: Params,
    /// What to do with an index file that exists but cannot be used.
    pub mode: Mode,
}

/// What opening did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Files taken from the index without reading them.
    pub unchanged: usize,
    /// Files whose time changed but whose bytes did not (read and hashed only).
    pub touched: usize,
    /// Files indexed again.
    pub changed: usize,
    /// Files new to the index (indexed now).
    pub added: usize,
    /// Files in the index but no longer in the corpus.
    pub deleted: usize,
    /// Why the saved index was not used, when it was not (and it existed).
    pub rebuilt: Option<String>,
    /// The file did not exist.
    pub created: bool,
    /// The index file was (re)written.
    pub written: bool,
    /// Writing it failed (only in [`Mode::Open`]: the results are still good).
    pub write_error: Option<String>,
    /// Time spent reading and decoding the index file.
    pub load_time: Duration,
    /// Size of the index file in bytes: of the one read, or, when the index changed, of
    /// the new one (even if writing it failed).
    pub file_bytes: u64,
}

impl Report {
    /// One line for `-v`.
    pub fn summary(&self, file: &Path) -> String {
        let what = if self.created {
            "created".to_string()
        } else {
            format!(
                "{} unchanged, {} touched, {} changed, {} added, {} deleted; loaded in {:.3} s",
                self.unchanged,
                self.touched,
                self.changed,
                self.added,
                self.deleted,
                self.load_time.as_secs_f64()
            )
        };
        let written = if self.written {
            format!(", written ({} bytes)", self.file_bytes)
        } else {
            String::new()
        };
        format!("index {}: {what}{written}", file.display())
    }
}

/// An index opened (and brought up to date), and the corpus walked for it.
pub struct Opened {
    /// The index, up to date with the files, with the hash functions asked for.
    pub index: Index,
    /// What the walk found (the index file itself left out).
    pub corpus: Corpus,
    /// What opening did.
    pub report: Report,
}

/// The index file to use by default for `roots`: `ROOT/.simtui-index` when the only
/// root is a folder and that file exists.
pub fn auto_file(roots: &[PathBuf]) -> Option<PathBuf> {
    let [root] = roots else { return None };
    let file = root.join(AUTO_NAME);
    (root.is_dir() && file.is_file()).then_some(file)
}

/// Reads and decodes an index file: [`Error::Io`] if it cannot be read,
/// [`Error::IndexFile`] if it is not a valid index of this version.
pub fn load(file: &Path) -> Result<Saved> {
    let bytes = fs::read(file).map_err(|e| Error::Io {
        path: file.to_path_buf(),
        source: e,
    })?;
    format::decode(&bytes).map_err(|e| Error::IndexFile {
        path: file.to_path_buf(),
        problem: e,
    })
}

/// Checks what is cheap to check of an index file, from its first bytes and its size:
/// that it is an index, of this format version, and not truncated. The rest (the
/// checksum, the contents) is left to [`load`].
pub fn check(file: &Path) -> Result<()> {
    let io = |e| Error::Io {
        path: file.to_path_buf(),
        source: e,
    };
    let f = fs::File::open(file).map_err(io)?;
    let n = f.metadata().map_err(io)?.len();
    let mut head = Vec::with_capacity(format::HEAD_BYTES);
    f.take(format::HEAD_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    format::check_head(&head, n).map_err(|e| Error::IndexFile {
        path: file.to_path_buf(),
        problem: e,
    })
}

/// Opens (or builds) the index of `req.roots` saved in `req.file`, re-indexing only
/// what changed, and writes the file back when it changed.
///
/// Fails when a root does not exist, when the file cannot be read, when it cannot be used ([`Mode::Open`]; [`Mode::Create`]
/// rebuilds it unless it is not an index at all), when writing it fails in
/// [`Mode::Create`], or when cancelled.
pub fn open(req: &Request, progress: &dyn Progress) -> Result<Opened> {
    let cwd = std::env::current_dir().map_err(|e| Error::Io {
        path: req.file.clone(),
        source: e,
    })?;
    let file_abs = absolute(&cwd, &req.file);
    let mut corpus = Corpus::walk(&req.roots, &req.walk)?;
    // The index file (and its temporary twin) are never documents of the corpus.
    corpus.entries.retain(|e| {
        file_of(&e.source).is_none_or(|p| !is_index_file(&absolute(&cwd, p), &file_abs))
    });
    if corpus.entries.iter().any(|e| file_of(&e.source).is_none()) {
        return Err(Error::InMemory);
    }
    progress.update(Stage::Read, 0, corpus.entries.len() as u64);

    let mut report = Report::default();
    // The loaded file's length and checksum: an update that comes out the same is not
    // written again.
    let mut loaded_seal = None;
    let t = Instant::now();
    let saved = match fs::read(&req.file) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            report.created = true;
            None
        }
        Err(e) => {
            return Err(Error::Io {
                path: req.file.clone(),
                source: e,
            });
        }
        Ok(bytes) => {
            report.file_bytes = bytes.len() as u64;
            loaded_seal = seal_of(&bytes);
            match format::decode(&bytes) {
                Ok(s) => Some(s),
                Err(e) if req.mode == Mode::Create && e != FormatError::NotIndex => {
                    report.rebuilt = Some(e.to_string());
                    None
                }
                Err(e) => {
                    return Err(Error::IndexFile {
                        path: req.file.clone(),
                        problem: e,
                    });
                }
            }
        }
    };
    report.load_time = t.elapsed();
    let saved = saved.and_then(|s| match differences(&s.params, &req.params) {
        None => Some(s),
        Some(why) => {
            report.rebuilt = Some(why);
            None
        }
    });
    // Before the files' stamps are taken: see `settle`.
    let stamped = epoch_time(std::time::SystemTime::now());
    let mut update = update(&corpus, saved, &req.params, &cwd, &mut report, progress)?;
    settle(&mut update, stamped);
    let index = &mut update.index;

    // Enough hash functions for the banding asked for; OPH of another width is another
    // sketch altogether.
    let needed = req.params.num_perm;
    let width = index.signatures.width();
    match req.params.sketch {
        SketchKind::MinHash if width < needed => {
            index.ensure_perms(needed, progress)?;
            update.dirty = true;
        }
        SketchKind::Oph if width != needed => {
            let sketcher = Sketcher::new(SketchKind::Oph, req.params.seed, needed);
            index.signatures = Signatures::compute(&sketcher, &index.shingles, progress)?;
            index.params.num_perm = needed;
            update.dirty = true;
        }
        _ => {}
    }
    if update.dirty {
        let bytes = encode(index, &update.files);
        if seal_of(&bytes) == loaded_seal {
            // Files re-read as they were (a file that still cannot be read or
            // stat'ed): the same index, nothing to write.
            update.dirty = false;
        }
    }
    if update.dirty {
        let bytes = encode(index, &update.files);
        report.file_bytes = bytes.len() as u64;
        match write_atomic(&req.file, &bytes) {
            Ok(()) => report.written = true,
            Err(e) if req.mode == Mode::Open => report.write_error = Some(e.to_string()),
            Err(e) => {
                return Err(Error::Io {
                    path: req.file.clone(),
                    source: e,
                });
            }
        }
    }
    // More functions than asked for: use the first `needed`, as a fresh run would.
    if req.params.sketch == SketchKind::MinHash && index.signatures.width() > needed {
        let w = index.signatures.width();
        let data: Vec<u32> = index
            .signatures
            .data()
            .chunks_exact(w)
            .flat_map(|row| &row[..needed])
            .copied()
            .collect();
        index.signatures = Signatures::from_data(needed, data).expect("whole rows");
        index.params.num_perm = needed;
    }
    Ok(Opened {
        index: update.index,
        corpus,
        report,
    })
}

/// The parameters of a saved index that differ from those asked for, in words; the
/// number of hash functions never counts (more are computed, or fewer used).
pub(crate) fn differences(saved: &Params, wanted: &Params) -> Option<String> {
    let mut d = Vec::new();
    if saved.k != wanted.k {
        d.push(format!("k = {} (asked for {})", saved.k, wanted.k));
    }
    if saved.text.unit != wanted.text.unit {
        d.push(format!(
            "--unit {} (asked for {})",
            saved.text.unit.name(),
            wanted.text.unit.name()
        ));
    }
    if saved.text.keep_case != wanted.text.keep_case {
        d.push(format!("keep-case {}", on(saved.text.keep_case)));
    }
    let lang = |l: Option<crate::text::Language>| l.map_or("off", |l| l.name());
    if saved.text.stopwords != wanted.text.stopwords {
        d.push(format!(
            "--stopwords {} (asked for {})",
            lang(saved.text.stopwords),
            lang(wanted.text.stopwords)
        ));
    }
    if saved.text.stem != wanted.text.stem {
        d.push(format!(
            "--stem {} (asked for {})",
            lang(saved.text.stem),
            lang(wanted.text.stem)
        ));
    }
    if saved.text.letters_only != wanted.text.letters_only {
        d.push(format!("letters-only {}", on(saved.text.letters_only)));
    }
    if saved.seed != wanted.seed {
        d.push(format!("seed {} (asked for {})", saved.seed, wanted.seed));
    }
    if saved.min_words != wanted.min_words {
        d.push(format!(
            "--min-words {} (asked for {})",
            saved.min_words, wanted.min_words
        ));
    }
    if saved.sketch != wanted.sketch {
        d.push(format!(
            "--sketch {} (asked for {})",
            saved.sketch.name(),
            wanted.sketch.name()
        ));
    }
    if saved.max_bytes != wanted.max_bytes {
        d.push(format!(
            "--max-bytes {} (asked for {})",
            saved.max_bytes, wanted.max_bytes
        ));
    }
    (!d.is_empty()).then(|| format!("it was built with {}", d.join(", ")))
}

fn on(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}

/// A path made absolute against `cwd` (lexically: `.` dropped, symbolic links kept).
fn absolute(cwd: &Path, p: &Path) -> PathBuf {
    let joined;
    let p = if p.is_absolute() {
        p
    } else {
        joined = cwd.join(p);
        &joined
    };
    if p.components().any(|c| c == Component::CurDir) {
        p.components().filter(|c| *c != Component::CurDir).collect()
    } else {
        p.to_path_buf()
    }
}

/// An index file's length and checksum (its last 8 bytes, over everything before them).
fn seal_of(bytes: &[u8]) -> Option<(usize, [u8; 8])> {
    let tail = bytes.len().checked_sub(8)?;
    Some((bytes.len(), bytes[tail..].try_into().ok()?))
}

fn temp_prefix(file: &Path) -> String {
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    format!(".{name}.tmp.")
}

/// Whether `p` is the index file or one of its temporary files.
fn is_index_file(p: &Path, file: &Path) -> bool {
    p == file
        || (p.parent() == file.parent()
            && p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&temp_prefix(file))))
}

/// Writes `bytes` to a temporary file next to `file`, then renames it over `file`, so
/// a reader sees the old index or the new one, never half of one.
fn write_atomic(file: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    remove_stale_temps(dir, file);
    let tmp = dir.join(format!("{}{}", temp_prefix(file), std::process::id()));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, file)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Removes the temporary files of `file` that processes no longer running left behind
/// (a `simtui index` killed while it wrote): each is named after its writer's process id.
fn remove_stale_temps(dir: &Path, file: &Path) {
    let prefix = temp_prefix(file);
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid
            && pid != std::process::id()
            && !process_alive(pid)
        {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Whether a process with this id runs (or may: where it can't be told, the file is
/// left alone). Linux lists its processes in /proc.
fn process_alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.join("self").exists() || proc.join(pid.to_string()).exists()
}

/// A file's size, times and inode number, if it can be stat'ed.
fn stamp(p: &Path) -> Option<Stamp> {
    let m = fs::metadata(p).ok()?;
    let (secs, nanos) = epoch_time(m.modified().ok()?);
    let (ctime_secs, ctime_nanos, inode) = change_time_and_inode(&m);
    Some(Stamp {
        size: m.len(),
        secs,
        nanos,
        ctime_secs,
        ctime_nanos,
        inode,
    })
}

/// Seconds since the Unix epoch (floored, negative before it) and nanoseconds forward.
fn epoch_time(t: std::time::SystemTime) -> (i64, u32) {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
        Err(e) => {
            let d = e.duration();
            let (s, n) = (d.as_secs() as i64, d.subsec_nanos());
            if n == 0 {
                (-s, 0)
            } else {
                (-s - 1, 1_000_000_000 - n)
            }
        }
    }
}

#[cfg(unix)]
fn change_time_and_inode(m: &fs::Metadata) -> (i64, u32, u64) {
    use std::os::unix::fs::MetadataExt;
    (
        m.ctime(),
        m.ctime_nsec().clamp(0, 999_999_999) as u32,
        m.ino(),
    )
}

#[cfg(not(unix))]
fn change_time_and_inode(_: &fs::Metadata) -> (i64, u32, u64) {
    (0, 0, 0)
}

/// xxh3-64 of a regular file's bytes (at most `max_bytes` of them).
fn hash_file(p: &Path, max_bytes: u64) -> Option<u64> {
    let f = source::file::open_nonblocking(p).ok()?;
    let m = f.metadata().ok()?;
    if !m.is_file() || m.len() > max_bytes {
        return None;
    }
    let mut bytes = Vec::with_capacity(m.len() as usize);
    f.take(max_bytes + 1).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= max_bytes).then(|| xxhash_rust::xxh3::xxh3_64(&bytes))
}

/// The files of a walk, in order: each with its entries.
struct WalkFile {
    path: PathBuf,
    abs: PathBuf,
    entries: std::ops::Range<usize>,
}

fn walk_files(corpus: &Corpus, cwd: &Path) -> Vec<WalkFile> {
    let mut files: Vec<WalkFile> = Vec::new();
    for (i, e) in corpus.entries.iter().enumerate() {
        let p = file_of(&e.source).expect("checked: every entry has a file");
        match files.last_mut() {
            Some(last) if last.path == p => last.entries.end = i + 1,
            _ => files.push(WalkFile {
                path: p.to_path_buf(),
                abs: absolute(cwd, p),
                entries: i..i + 1,
            }),
        }
    }
    files
}

enum Plan {
    /// Take saved file `i`'s documents (with this stamp now).
    Reuse(usize, Option<Stamp>),
    /// Index it again (or for the first time).
    Read,
}

struct Update {
    index: Index,
    files: Vec<FileRec>,
    /// The index differs from the file's.
    dirty: bool,
}

/// Drops the stamp of every file whose times are too close to `stamped` (when stamping
/// began) to prove it unchanged next time: a later edit at the same size could leave
/// its size, times and inode as they were. With whole-second times (both times'
/// nanoseconds 0), a file modified in the second stamping began, or the one before (a
/// kernel clock tick late, or FAT's two-second times); with finer times, within 0.1 s
/// before it (the kernel stamps files with a clock a tick behind) or after. A file with
/// no stamp is read again next time; that is the files modified just before an index
/// run, read once more.
fn settle(update: &mut Update, stamped: (i64, u32)) {
    let nanos = |secs: i64, n: u32| i128::from(secs) * 1_000_000_000 + i128::from(n);
    let since = nanos(stamped.0, stamped.1) - 100_000_000;
    let racy = |s: &Stamp| {
        if s.nanos == 0 && s.ctime_nanos == 0 {
            s.secs.max(s.ctime_secs) >= stamped.0 - 1
        } else {
            nanos(s.secs, s.nanos).max(nanos(s.ctime_secs, s.ctime_nanos)) >= since
        }
    };
    for f in &mut update.files {
        if f.stamp.as_ref().is_some_and(racy) {
            f.stamp = None;
            f.hash = None;
            update.dirty = true;
        }
    }
}

/// The up-to-date index: saved documents of unchanged files, the others indexed now.
fn update(
    corpus: &Corpus,
    saved: Option<Saved>,
    params: &Params,
    cwd: &Path,
    report: &mut Report,
    progress: &dyn Progress,
) -> Result<Update> {
    let files = walk_files(corpus, cwd);
    let stamps: Vec<Option<Stamp>> = files.par_iter().map(|f| stamp(&f.path)).collect();
    let by_path: HashMap<&Path, usize> = saved
        .as_ref()
        .map(|s| {
            s.files
                .iter()
                .enumerate()
                .map(|(i, f)| (f.path.as_path(), i))
                .collect()
        })
        .unwrap_or_default();
    let mut plans: Vec<Plan> = files
        .par_iter()
        .zip(&stamps)
        .map(|(f, now)| {
            let Some(&i) = by_path.get(f.abs.as_path()) else {
                return Plan::Read;
            };
            let rec = &saved.as_ref().expect("a saved index").files[i];
            // A read that failed (permissions, a file swapped for a FIFO) may work now:
            // such a file is tried again on every run, as a fresh run would.
            if matches!(
                rec.status,
                Some(SkipReason::Unreadable | SkipReason::Special)
            ) {
                return Plan::Read;
            }
            // Read another way (other fields, another format), the same bytes are
            // other documents.
            if rec.status.is_none()
                && rec.detail != reading_of(&corpus.entries[f.entries.start].source)
            {
                return Plan::Read;
            }
            match (rec.stamp, now) {
                (Some(was), Some(now)) if was == *now => Plan::Reuse(i, Some(*now)),
                (_, Some(now))
                    if rec.hash.is_some() && rec.stamp.is_some_and(|s| s.size == now.size) =>
                {
                    // Same size, another time: the same bytes are the same documents.
                    if hash_file(&f.path, params.max_bytes) == rec.hash
                        && stamp(&f.path) == Some(*now)
                    {
                        Plan::Reuse(i, Some(*now))
                    } else {
                        Plan::Read
                    }
                }
                _ => Plan::Read,
            }
        })
        .collect();
    // Saved files still in the corpus (changed or not); the others are deleted.
    let mut seen = vec![false; saved.as_ref().map_or(0, |s| s.files.len())];
    for f in &files {
        if let Some(&i) = by_path.get(f.abs.as_path()) {
            seen[i] = true;
        }
    }
    // A saved file matched twice (a path given twice): index the repeats anew.
    let mut taken = vec![false; seen.len()];
    for p in plans.iter_mut() {
        if let Plan::Reuse(i, _) = *p {
            if taken[i] {
                *p = Plan::Read;
            }
            taken[i] = true;
        }
    }
    for (f, p) in files.iter().zip(&plans) {
        match p {
            Plan::Reuse(i, now) => {
                let was = saved.as_ref().expect("a saved index").files[*i].stamp;
                if was == *now {
                    report.unchanged += 1;
                } else {
                    report.touched += 1;
                }
            }
            Plan::Read if by_path.contains_key(f.abs.as_path()) => report.changed += 1,
            Plan::Read => report.added += 1,
        }
    }
    report.deleted = seen.iter().filter(|s| !**s).count();

    // Index the files to read, hashing them first: a file that changes between its
    // hash and its reading is read again next time (its stamp is dropped).
    let read: Vec<usize> = (0..files.len())
        .filter(|&i| matches!(plans[i], Plan::Read))
        .collect();
    let hashes: Vec<Option<u64>> = read
        .par_iter()
        .map(|&i| hash_file(&files[i].path, params.max_bytes))
        .collect();
    let sub_entries: Vec<source::Entry> = read
        .iter()
        .flat_map(|&i| corpus.entries[files[i].entries.clone()].iter().cloned())
        .collect();
    let width = saved
        .as_ref()
        .map_or(params.num_perm, |s| s.signatures.width());
    let sub_params = Params {
        num_perm: width,
        ..params.clone()
    };
    let sub = Index::build(
        Corpus {
            entries: sub_entries,
            skipped: Vec::new(),
        },
        &sub_params,
        progress,
    )?;
    let after: Vec<Option<Stamp>> = read.par_iter().map(|&i| stamp(&files[i].path)).collect();

    let all_reused = read.is_empty()
        && saved.as_ref().is_some_and(|s| {
            s.files.len() == files.len()
                && plans
                    .iter()
                    .enumerate()
                    .all(|(k, p)| matches!(p, Plan::Reuse(i, _) if *i == k))
        });
    let mut dirty = !all_reused;
    let mut out_files = Vec::with_capacity(files.len());
    let mut docs: Vec<Doc> = Vec::with_capacity(corpus.entries.len());
    let mut skipped = corpus.skipped.clone();

    if all_reused {
        // Nothing to merge: the saved groups are the index's, as they are.
        let s = saved.expect("a saved index");
        let mut next = 0usize;
        for ((f, plan), rec) in files.iter().zip(&plans).zip(s.files) {
            let Plan::Reuse(_, now) = plan else {
                unreachable!()
            };
            dirty |= *now != rec.stamp;
            reuse_file(
                f,
                &rec,
                &s.docs[next..next + rec.docs as usize],
                corpus,
                &mut docs,
                &mut skipped,
                &mut dirty,
                |g| g,
            );
            next += rec.docs as usize;
            out_files.push(FileRec { stamp: *now, ..rec });
        }
        let index = Index::from_parts(
            sub_params,
            docs,
            skipped,
            s.shingles,
            s.signatures,
            s.contents,
        );
        return Ok(Update {
            index,
            files: out_files,
            dirty,
        });
    }

    let mut starts = Vec::new();
    if let Some(s) = &saved {
        let mut at = 0usize;
        for f in &s.files {
            starts.push(at);
            at += f.docs as usize;
        }
    }
    let sub_skips: HashMap<&Path, &Skipped> =
        sub.skipped.iter().map(|s| (s.path.as_path(), s)).collect();
    let mut groups = Groups::new(width);
    let mut cursor = 0usize;
    let mut read_at = 0usize;
    for (fi, (f, plan)) in files.iter().zip(&plans).enumerate() {
        match plan {
            Plan::Reuse(i, now) => {
                let s = saved.as_ref().expect("a saved index");
                let rec = &s.files[*i];
                let range = starts[*i]..starts[*i] + rec.docs as usize;
                reuse_file(
                    f,
                    rec,
                    &s.docs[range],
                    corpus,
                    &mut docs,
                    &mut skipped,
                    &mut dirty,
                    |g| {
                        groups.intern(
                            s.contents[g as usize],
                            &s.shingles.get(g as usize),
                            &s.signatures.row(g as usize),
                        )
                    },
                );
                out_files.push(FileRec {
                    path: f.abs.clone(),
                    stamp: *now,
                    ..rec.clone()
                });
            }
            Plan::Read => {
                let k = read_at;
                read_at += 1;
                let skip = sub_skips.get(f.path.as_path());
                if let Some(s) = skip {
                    skipped.push((*s).clone());
                }
                let first = cursor;
                while cursor < sub.docs.len() && file_of(&sub.docs[cursor].source) == Some(&f.path)
                {
                    let d = &sub.docs[cursor];
                    let g = d.group as usize;
                    let group = groups.intern(
                        sub.contents[g],
                        &sub.shingles.get(g),
                        &sub.signatures.row(g),
                    );
                    docs.push(Doc { group, ..d.clone() });
                    cursor += 1;
                }
                let before = stamps[fi];
                let steady = before.is_some() && before == after[k];
                out_files.push(FileRec {
                    path: f.abs.clone(),
                    stamp: if steady { before } else { None },
                    hash: if steady { hashes[k] } else { None },
                    status: skip.map(|s| s.reason),
                    detail: match skip {
                        Some(s) => s.detail.clone(),
                        None => reading_of(&corpus.entries[f.entries.start].source),
                    },
                    docs: (cursor - first) as u32,
                });
            }
        }
    }
    // Records of the files read that were skipped (bad lines, too short, ...): the
    // files' own skips are in their records above.
    let read_paths: std::collections::HashSet<&Path> =
        read.iter().map(|&i| files[i].path.as_path()).collect();
    skipped.extend(
        sub.skipped
            .iter()
            .filter(|s| !read_paths.contains(s.path.as_path()))
            .cloned(),
    );
    // Ids from the data that clash across old and new files are renamed as a fresh run
    // renames them (`ID@FILE:LINE`).
    let renamed = crate::index::unique_ids(&mut docs);
    let (shingles, signatures, contents) = groups.finish();
    let mut index = Index::from_parts(sub_params, docs, skipped, shingles, signatures, contents);
    index.stats.renamed = renamed;
    index.stats.times = sub.stats.times;
    Ok(Update {
        index,
        files: out_files,
        dirty,
    })
}

/// Adds the saved documents of an unchanged file (and its skip, if it was skipped).
#[allow(clippy::too_many_arguments)]
fn reuse_file(
    f: &WalkFile,
    rec: &FileRec,
    saved_docs: &[format::DocRec],
    corpus: &Corpus,
    docs: &mut Vec<Doc>,
    skipped: &mut Vec<Skipped>,
    dirty: &mut bool,
    mut group: impl FnMut(u32) -> u32,
) {
    if let Some(reason) = rec.status {
        skipped.push(Skipped {
            path: f.path.clone(),
            reason,
            detail: rec.detail.clone(),
        });
    }
    let entries = &corpus.entries[f.entries.clone()];
    for d in saved_docs {
        // A whole-file document takes its id from this walk (the roots may be spelled
        // differently from the last time).
        let id = match entries {
            [e] if d.part.line == 0 => e.id.clone(),
            _ => d.id.clone(),
        };
        *dirty |= id != d.id;
        docs.push(Doc {
            id,
            source: source_of(&f.path, d.part, &entries[0].source),
            bytes: d.bytes,
            tokens: d.tokens,
            group: group(d.group),
            title: d.title.clone(),
            meta: d.meta.clone(),
        });
    }
}

/// Groups of identical documents, numbered in order of first appearance.
struct Groups {
    width: usize,
    ids: HashMap<u64, u32>,
    shingles: ShingleSets,
    signatures: Vec<u32>,
    contents: Vec<u64>,
}

impl Groups {
    fn new(width: usize) -> Self {
        Groups {
            width,
            ids: HashMap::new(),
            shingles: ShingleSets::new(),
            signatures: Vec::new(),
            contents: Vec::new(),
        }
    }

    fn intern(&mut self, content: u64, set: &[u64], row: &[u32]) -> u32 {
        let next = self.contents.len() as u32;
        let g = *self.ids.entry(content).or_insert(next);
        if g == next {
            self.contents.push(content);
            self.shingles.push(set);
            debug_assert_eq!(row.len(), self.width);
            self.signatures.extend_from_slice(row);
        }
        g
    }

    fn finish(self) -> (ShingleSets, Signatures, Vec<u64>) {
        let sigs = Signatures::from_data(self.width, self.signatures).expect("whole rows");
        (self.shingles, sigs, self.contents)
    }
}

fn encode(index: &Index, files: &[FileRec]) -> Vec<u8> {
    let docs: Vec<DocOut> = index
        .docs
        .iter()
        .map(|d| DocOut {
            id: &d.id,
            group: d.group,
            bytes: d.bytes,
            tokens: d.tokens,
            title: &d.title,
            meta: &d.meta,
            part: part_of(&d.source),
        })
        .collect();
    format::encode(
        &index.params,
        files,
        &docs,
        &index.contents,
        &index.shingles,
        &index.signatures,
    )
}
