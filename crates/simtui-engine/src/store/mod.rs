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

mod append;
mod bytes;
pub mod decode;
mod directory;
mod encode;
mod file_record;
mod file_recs;
mod file_rows;
mod files;
pub mod format;
mod fresh;
mod head;
mod interned;
mod params;
mod plan;
mod stamps;
mod strings;
mod update;

use crate::error::{Error, Result};
use crate::index::{Index, Params};
use crate::progress::{Progress, Stage};
use crate::sketch::{Signatures, SketchKind, Sketcher};
use crate::source::Part;
use crate::source::{Corpus, Source, WalkOptions};
use crate::storage::Budget;
pub use append::{Added, add, joined, load_part, reference, save_part};
use bytes::Fault;
use decode::{Records, Seal};
use encode::{Failed, FilesOut};
use file_recs::Settle;
use files::{WalkFile, stamp_all, table_bytes, walk_files, walk_files_taken};
use format::{FileRec, FormatError, Place, Saved};
use head::Later;
use params::differences;
use plan::{Planned, Planner};
use stamps::epoch_time;
use std::borrow::Cow;
use std::fs;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

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
pub(crate) fn source_of(path: &Arc<Path>, part: Place, entry: &Source) -> Source {
    match entry {
        Source::Container(c) if part.line > 0 => Source::Part(Part {
            file: c.clone(),
            offset: part.offset,
            len: part.len,
            line: part.line,
        }),
        _ => Source::File(path.clone()),
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
    /// other-version file is an error. A missing one is built and written. One-permutation
    /// signatures of another width than the banding's are made for the run, not saved.
    Open,
    /// Writing it (`simtui index -o`): a corrupt, truncated or other-version index is
    /// rebuilt; a file that is not a simtui index at all is left alone (an error). It is
    /// saved with the hash functions asked for.
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
    /// The memory it may take: the saved shingle sets and signatures are read from the
    /// file when asked for, the files read anew are indexed in it, and the merged sets
    /// go to temporary files past it.
    pub budget: Budget,
    /// Whether the caller wants the saved documents' titles. Without them (a caller
    /// that prints none), they are checked and left in the file, and read again only if
    /// it must be written again: a title of up to 200 bytes a document not held.
    pub titles: bool,
}

/// An error reading the index file `file`.
fn io_error(file: &Path, source: io::Error) -> Error {
    Error::Io {
        path: file.to_path_buf(),
        source,
    }
}

/// An error reading or decoding the index file `file`.
fn fault_error(file: &Path, fault: Fault) -> Error {
    match fault {
        Fault::Io(e) => io_error(file, e),
        Fault::Format(problem) => Error::IndexFile {
            path: file.to_path_buf(),
            problem,
        },
    }
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
    /// Time spent reading and decoding the index file, and planning the walk's files
    /// against its records as they came (which may hash a file whose time changed).
    pub load_time: Duration,
    /// Size of the index file in bytes: of the one read, or, when the index changed, of
    /// the new one (even if writing it failed).
    pub file_bytes: u64,
    /// Bytes after the file's last complete directory (an `index --add` killed while it
    /// wrote): not part of the index, ignored (the next `--add` cuts them off).
    pub tail: u64,
    /// The file's OPH signatures are of another width than the banding asked for (the
    /// saved width, the one asked for): sketched anew from the saved sets for this run,
    /// the file left in its width.
    pub resketched: Option<(usize, usize)>,
    /// Bytes of the records held whole while the index was opened, brought up to date
    /// and written, whatever `--memory`: a record of each file of the walk (its path, its
    /// stamp) and, when the file was read, each saved document's record as decoded. Not
    /// part of [`Index::held`]; freed once the index is open.
    pub records_held: u64,
    /// How many files and saved documents those records are of.
    pub records_of: (usize, usize),
}

impl Report {
    /// What to say of bytes after the file's last complete segment, if there were any.
    pub fn tail_notice(&self, file: &Path) -> Option<String> {
        (self.tail > 0).then(|| {
            format!(
                "index {}: {} bytes after its last complete segment (an `index --add` that did not finish) ignored; the index is as it was before that add",
                file.display(),
                self.tail
            )
        })
    }

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
        let resketched = match self.resketched {
            Some((saved, asked)) => format!(
                "; its one-permutation signatures ({saved} bins) sketched anew in {asked} for \
                 this banding, not saved"
            ),
            None => String::new(),
        };
        format!("index {}: {what}{written}{resketched}", file.display())
    }
}

/// An index opened (and brought up to date), and the corpus walked for it.
pub struct Opened {
    /// The index, up to date with the files, with the hash functions asked for.
    pub index: Index,
    /// What the walk found (the index file itself left out); only what it left out
    /// from [`open_index`].
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

/// Opens and checks an index file, its shingle sets and signatures read from it when
/// asked for: [`Error::Io`] if it cannot be read, [`Error::IndexFile`] if it is not a
/// valid index of this version.
pub fn load(file: &Path) -> Result<Saved> {
    let f = fs::File::open(file).map_err(|e| io_error(file, e))?;
    match decode::read_in_place(f, file) {
        Ok((saved, _)) => Ok(saved),
        Err(fault) => Err(fault_error(file, fault)),
    }
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
    open_with(req, progress, true)
}

/// [`open`] for a caller that does not walk the corpus again: the walk's entries are
/// moved into the index instead of copied, so [`Opened::corpus`] holds only what the walk
/// left out (its entries are empty). Every path and id was held twice while the index
/// was built or opened.
pub fn open_index(req: &Request, progress: &dyn Progress) -> Result<Opened> {
    open_with(req, progress, false)
}

/// Chunks of saved file records planned between two hand-backs of freed memory.
const GIVE_BACK_EVERY: usize = 4;

/// [`open`], the walk kept for the caller when `keep_walk`.
fn open_with(req: &Request, progress: &dyn Progress, keep_walk: bool) -> Result<Opened> {
    let Walked { mut corpus, cwd } = walked(req)?;
    progress.update(Stage::Read, 0, corpus.entries.len() as u64);

    let mut report = Report::default();
    // Before the files' stamps are taken: see `Settle`.
    let stamped = epoch_time(std::time::SystemTime::now());
    let mut files = match keep_walk {
        true => walk_files(&corpus),
        false => walk_files_taken(&mut corpus),
    };
    stamp_all(&mut files);
    let t = Instant::now();
    let (loaded, planned) = load_planned(req, (&mut files, &corpus, &cwd), &mut report)?;
    let Loaded {
        saved,
        later,
        seal: loaded_seal,
    } = loaded;
    let untitled = !req.titles;
    report.load_time = t.elapsed();
    let wanted = (&req.params, &req.budget);
    let walk = (&mut corpus, keep_walk);
    let settle = Settle { stamped };
    let mut update = if saved.is_none() && req.budget.is_limited() {
        // Nothing saved to reuse: see `fresh`.
        fresh::index_fresh(walk, files, wanted, &settle, progress)?
    } else {
        // The table is held beside the index as it is made (and written).
        report.records_held += table_bytes(&files);
        let saved = (saved, later.as_ref(), untitled);
        let files = (files, planned);
        update::update(walk, files, saved, wanted, &settle, &mut report, progress)?
    };
    if !keep_walk {
        // Its entries moved into the index.
        corpus.entries = Vec::new();
    }
    if update.files.settle(&settle) {
        update.dirty = true;
    }
    report.records_of.0 = update.files.len();
    let index = &mut update.index;

    let needed = req.params.num_perm;
    // More MinHash functions are saved (every later run can use them). OPH of another
    // width is another sketch: `simtui index` saves the width asked for, but a search
    // makes it for its run after the file is written in its own width (saving it would
    // rewrite the whole file at each change of banding).
    let oph = req.params.sketch == SketchKind::Oph && req.mode == Mode::Open;
    if !oph && widen(index, req, progress)? {
        update.dirty = true;
    }
    if update.dirty && update.untitled {
        // Written again, the file keeps its titles: read from it, in the saved order.
        let later = later
            .as_ref()
            .expect("untitled only when the titles are in the file");
        update::titled(index, later)?;
    }
    if update.dirty {
        let files = update.files.get(later.as_ref())?;
        let files_out = FilesOut {
            recs: files.list(),
            cwd: Some(&cwd),
        };
        match write_atomic(
            &req.file,
            |out| update::encode(index, files_out, out),
            loaded_seal,
        ) {
            Ok(seal) if Some(seal) == loaded_seal => {
                // Files re-read as they were (a file that still cannot be read or
                // stat'ed): the same index, nothing written.
            }
            Ok(seal) => {
                report.file_bytes = seal.0;
                report.written = true;
            }
            Err(Failed::Read(e)) => return Err(e),
            Err(Failed::Write(e)) => {
                // What it would have written: the same index is no failure.
                let seal = update::encode(index, files_out, io::sink()).map_err(|f| match f {
                    Failed::Read(e) => e,
                    Failed::Write(e) => io_error(&req.file, e),
                })?;
                if Some(seal) != loaded_seal {
                    report.file_bytes = seal.0;
                    match req.mode {
                        Mode::Open => report.write_error = Some(e.to_string()),
                        Mode::Create => return Err(io_error(&req.file, e)),
                    }
                }
            }
        }
    }
    let saved_width = index.signatures.width();
    if oph && widen(index, req, progress)? {
        report.resketched = Some((saved_width, needed));
    }
    // More functions than asked for: use the first `needed`, as a fresh run would.
    if req.params.sketch == SketchKind::MinHash && index.signatures.width() > needed {
        let budget = &req.budget;
        let room = budget.room(budget.for_index().saturating_sub(index.held()));
        index.signatures = index.signatures.truncated_in(needed, &room)?;
        index.params.num_perm = needed;
    }
    drop(update.files);
    crate::storage::memory::give_back_past(req.budget.bytes);
    Ok(Opened {
        index: update.index,
        corpus,
        report,
    })
}

/// The saved index `req.file` read (see [`load_for`]) and the walk's `files` planned
/// against it as its records are decoded, not after; what their decoding freed handed
/// back now and then (22 MiB held at 500,000 files).
fn load_planned(
    req: &Request,
    (files, corpus, cwd): (&mut [WalkFile], &Corpus, &Path),
    report: &mut Report,
) -> Result<(Loaded, Planned)> {
    let mut planner = Planner::new(files, (corpus, cwd), &req.params);
    let mut chunks = 0usize;
    let mut plan = |chunk: &mut Vec<FileRec>| {
        planner.take(chunk);
        chunks += 1;
        if chunks.is_multiple_of(GIVE_BACK_EVERY) {
            crate::storage::memory::give_back_past(req.budget.bytes);
        }
    };
    let loaded = load_for(req, &mut plan, report)?;
    let planned = match loaded.saved {
        Some(_) => planner.finish(report),
        None => planner.reset(),
    };
    crate::storage::memory::give_back_past(req.budget.bytes);
    Ok((loaded, planned))
}

/// A saved index as [`open_with`] reads it.
struct Loaded {
    /// The saved index, if there is one of the parameters asked for.
    saved: Option<Saved>,
    /// Where its documents' records are, left in the file (read in order as the index
    /// is made, titles only when asked for: see `update::titled`).
    later: Option<Later>,
    /// The file's length and checksum: an update that comes out the same is not written
    /// again.
    seal: Option<Seal>,
}

/// Reads the saved index `req.file`, in place, with the titles `req` asks for, its file
/// records given to `files` as they are decoded. None when there is no file, or (said
/// in `report`) when it was built with other parameters or, in [`Mode::Create`], cannot
/// be used: it is then rebuilt.
fn load_for(
    req: &Request,
    files: &mut dyn FnMut(&mut Vec<FileRec>),
    report: &mut Report,
) -> Result<Loaded> {
    let io_err = |source: io::Error| io_error(&req.file, source);
    let records = Records::Checked;
    let mut loaded = Loaded {
        saved: None,
        later: None,
        seal: None,
    };
    let read = match fs::File::open(&req.file) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            report.created = true;
            return Ok(loaded);
        }
        Err(e) => return Err(io_err(e)),
        Ok(f) => {
            let again = f.try_clone().map_err(io_err)?;
            let how = (decode::Check::Full, records);
            decode::opened_into(f, &req.file, how, Some(files)).map(|r| (r, again))
        }
    };
    let (read, again) = match read {
        Ok(read) => read,
        Err(Fault::Format(e)) if req.mode == Mode::Create && e != FormatError::NotIndex => {
            report.rebuilt = Some(e.to_string());
            return Ok(loaded);
        }
        Err(fault) => return Err(fault_error(&req.file, fault)),
    };
    report.file_bytes = read.seal.0;
    report.tail = read.dir.tail;
    loaded.seal = Some(read.seal);
    if let Some(why) = differences(&read.saved.params, &req.params) {
        report.rebuilt = Some(why);
        return Ok(loaded);
    }
    loaded.later = Some(Later::new((again, &req.file), read.segments, read.dir));
    loaded.saved = Some(read.saved);
    Ok(loaded)
}

/// The corpus a request's roots hold, without the index file, and the folder paths are
/// relative to.
pub(super) struct Walked {
    pub corpus: Corpus,
    pub cwd: PathBuf,
}

/// Walks the request's roots. The index file (and its temporary twin) are never
/// documents of the corpus; a text in memory cannot be indexed to a file.
pub(super) fn walked(req: &Request) -> Result<Walked> {
    let cwd = std::env::current_dir().map_err(|e| Error::Io {
        path: req.file.clone(),
        source: e,
    })?;
    let file_abs = absolute(&cwd, &req.file);
    // The walk keeps to the run's limit too (what its parts freed handed back past it).
    let walk = WalkOptions {
        memory: req.walk.memory.min(req.budget.bytes),
        ..req.walk.clone()
    };
    let mut corpus = Corpus::walk(&req.roots, &walk)?;
    corpus.entries.retain(|e| {
        file_of(&e.source).is_none_or(|p| !is_index_file(&absolute(&cwd, p), &file_abs))
    });
    if corpus.entries.iter().any(|e| file_of(&e.source).is_none()) {
        return Err(Error::InMemory);
    }
    Ok(Walked { corpus, cwd })
}

/// Gives `index` enough hash functions for the banding asked for (more MinHash
/// functions computed from the saved sets; OPH of another width is another sketch):
/// whether it changed.
fn widen(index: &mut Index, req: &Request, progress: &dyn Progress) -> Result<bool> {
    // Enough hash functions for the banding asked for; OPH of another width is another
    // sketch altogether.
    let needed = req.params.num_perm;
    let width = index.signatures.width();
    let more = match req.params.sketch {
        SketchKind::MinHash => width < needed,
        SketchKind::Oph => width != needed,
    };
    if !more {
        return Ok(false);
    }
    let sketcher = Sketcher::new(req.params.sketch, req.params.seed, needed);
    // Computed in what the budget leaves the index without its old signatures; past it,
    // on a temporary file.
    let budget = &req.budget;
    let others = index.held() - index.signatures.heap_bytes() as u64;
    let room = budget.room(budget.for_index().saturating_sub(others));
    let block = (budget.work() / 2).min(256 << 20);
    index.signatures = match req.params.sketch {
        SketchKind::MinHash => {
            index
                .signatures
                .extended_in(&sketcher, &index.shingles, (&room, block), progress)?
        }
        // Another width is another sketch altogether.
        SketchKind::Oph => {
            Signatures::compute_in(&sketcher, &index.shingles, &room, block, progress)?
        }
    };
    index.params.num_perm = needed;
    Ok(true)
}

/// [`absolute`], borrowed when `p` is so already.
fn absolute_cow<'p>(cwd: &Path, p: &'p Path) -> Cow<'p, Path> {
    if p.is_absolute() && !p.components().any(|c| c == Component::CurDir) {
        Cow::Borrowed(p)
    } else {
        Cow::Owned(absolute(cwd, p))
    }
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

/// Writes a temporary file next to `file` with `write` (which returns its seal), then
/// renames it over `file`, so a reader sees the old index or the new one, never half of
/// one. A file that comes out as `file` was (the same seal as `loaded`) is removed
/// instead: nothing changes. The index being written may be read from the old file
/// meanwhile: it stays open, whatever is renamed over it.
fn write_atomic(
    file: &Path,
    write: impl FnOnce(&mut io::BufWriter<&fs::File>) -> std::result::Result<Seal, Failed>,
    loaded: Option<Seal>,
) -> std::result::Result<Seal, Failed> {
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    remove_stale_temps(dir, file);
    let tmp = dir.join(format!("{}{}", temp_prefix(file), std::process::id()));
    let result = (|| {
        let f = fs::File::create(&tmp)?;
        let seal = write(&mut io::BufWriter::with_capacity(1 << 20, &f))?;
        if Some(seal) == loaded {
            fs::remove_file(&tmp)?;
            return Ok(seal);
        }
        f.sync_all()?;
        fs::rename(&tmp, file)?;
        Ok(seal)
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
