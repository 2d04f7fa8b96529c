//! `-o FILE`: results written under a temporary name beside FILE and renamed to it only
//! once complete and on disk, so a failure (a full disk, an error half-way) never
//! leaves a half-written file under the name asked for; the temporary files of runs
//! that were killed are removed by the next write beside them; and the check made before
//! any work starts (the folder exists, FILE is no folder). Whether FILE may be written
//! at all (it is no input) is [`super::guard`]'s.

use super::error::UsageError;
use super::format::with_stdout;
use simtui_engine::source::object;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Checks `-o FILE` before the corpus is read: its folder exists and it is no folder
/// itself.
pub fn check_output_file(file: &Path) -> Result<(), UsageError> {
    if object::is_url(file) {
        return super::object::check_url(file);
    }
    if file.is_dir() {
        return Err(UsageError(format!(
            "{} is a folder: -o takes a file name",
            file.display()
        )));
    }
    let folder = folder_of(file);
    if !folder.is_dir() {
        return Err(UsageError(format!(
            "{}: no such folder (for -o {})",
            folder.display(),
            file.display()
        )));
    }
    Ok(())
}

/// The folder a file name is in (`.` for a bare name).
fn folder_of(file: &Path) -> &Path {
    match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Runs `f` on `-o FILE` when given (see [`write_file`]), else on standard output (see
/// [`with_stdout`]: a closed pipe ends the output quietly).
pub fn with_output<T: Default>(
    file: Option<&Path>,
    f: impl FnOnce(&mut (dyn Write + Send)) -> io::Result<T>,
) -> anyhow::Result<T> {
    match file {
        Some(path) => write_file(path, f),
        None => Ok(with_stdout(f)?),
    }
}

/// Writes `path` through `f`: into a new temporary file beside it (`.NAME.PID.N.tmp`, in
/// the same folder so the rename cannot cross file systems), flushed and synced, then
/// renamed over `path`. On any error the temporary file is removed and `path` is left
/// as it was. Temporary files of `path` left by processes that are gone (killed) are
/// removed first. A device or a FIFO (`-o /dev/stdout`) is written as it is: renaming a
/// file over it would replace it.
pub fn write_file<T>(
    path: &Path,
    f: impl FnOnce(&mut (dyn Write + Send)) -> io::Result<T>,
) -> anyhow::Result<T> {
    write_atomically(path, f).map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))
}

/// [`write_file`], its error the system's alone (for a message that names the file its
/// own way).
pub fn write_atomically<T>(
    path: &Path,
    f: impl FnOnce(&mut (dyn Write + Send)) -> io::Result<T>,
) -> io::Result<T> {
    if object::is_url(path) {
        return write_to_url(path, f);
    }
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let mut out = BufWriter::new(File::options().write(true).open(path)?);
        return f(&mut out).and_then(|v| out.flush().map(|()| v));
    }
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let folder = folder_of(path);
    remove_stale_temps(folder, &name);
    // A number of its own for each write, so that two writes of one file in a process
    // (the explorer's keep-list) never share a temporary file.
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let tmp = Temp(folder.join(format!(".{name}.{}.{n}.tmp", std::process::id())));
    let mut out = BufWriter::with_capacity(1 << 16, File::create_new(&tmp.0)?);
    let value = f(&mut out)?;
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    std::fs::rename(&tmp.0, path)?;
    Ok(value)
}

/// An output named by URL: written to a temporary file as any other, then uploaded
/// (nothing under the URL until the upload is complete).
fn write_to_url<T>(
    url: &Path,
    f: impl FnOnce(&mut (dyn Write + Send)) -> io::Result<T>,
) -> io::Result<T> {
    let dir = tempfile::Builder::new()
        .prefix("simtui-upload-")
        .tempdir()?;
    let local = dir.path().join("output");
    let value = write_atomically(&local, f)?;
    object::put_file(&local, url).map_err(io::Error::other)?;
    Ok(value)
}

/// Removes `.NAME.PID.tmp` and `.NAME.PID.N.tmp` in `folder` whose process is gone: what a
/// killed run left (only names of that shape, only of processes that no longer run).
fn remove_stale_temps(folder: &Path, name: &str) {
    let prefix = format!(".{name}.");
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let pid = file
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix)?.strip_suffix(".tmp"))
            .and_then(|rest| match rest.split_once('.') {
                Some((pid, n)) if n.bytes().all(|b| b.is_ascii_digit()) => pid.parse().ok(),
                Some(_) => None,
                None => rest.parse().ok(),
            });
        if pid.is_some_and(simtui_engine::analysis::dedup::process_gone) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// A temporary file, removed when dropped (by then renamed away if all went well).
struct Temp(PathBuf);

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_neither_the_file_nor_a_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.parquet");
        let err = write_file(&target, |w| -> io::Result<()> {
            w.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(err.to_string().contains("out.parquet"), "{err}");
        assert!(err.to_string().contains("disk full"), "{err}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.jsonl");
        std::fs::write(&target, "old\n").unwrap();
        let _ = write_file(&target, |w| -> io::Result<()> {
            w.write_all(b"new")?;
            Err(io::Error::other("stopped"))
        });
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old\n");
        write_file(&target, |w| w.write_all(b"new\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn output_checks() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("corpus");
        std::fs::create_dir(&input).unwrap();
        let missing = dir.path().join("no/such/out.parquet");
        let e = check_output_file(&missing).unwrap_err();
        assert!(e.0.contains("no such folder"), "{e}");
        assert!(
            check_output_file(&input)
                .unwrap_err()
                .0
                .contains("is a folder")
        );
        check_output_file(&dir.path().join("pairs.parquet")).unwrap();
        check_output_file(Path::new("bare-name.parquet")).unwrap();
    }

    /// A process that has ended: its id, once waited for.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    /// What a killed run left beside FILE is removed by the next write of FILE; a
    /// running process's temporary file, and files only like one, are left alone.
    #[test]
    fn temporary_files_of_killed_runs_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.jsonl");
        let dead = dead_pid();
        let stale = [
            format!(".out.jsonl.{dead}.tmp"),
            format!(".out.jsonl.{dead}.3.tmp"),
        ];
        let alive = format!(".out.jsonl.{}.7.tmp", std::process::id());
        let others = [
            ".out.jsonl.notes.tmp",
            ".other.jsonl.1.tmp",
            "out.jsonl.1.tmp",
        ];
        for name in stale
            .iter()
            .chain([&alive])
            .map(String::as_str)
            .chain(others)
        {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        write_file(&target, |w| w.write_all(b"new\n")).unwrap();
        for name in &stale {
            assert!(!dir.path().join(name).exists(), "{name} removed");
        }
        for name in others.into_iter().chain([alive.as_str()]) {
            assert!(dir.path().join(name).exists(), "{name} left alone");
        }
    }

    /// `-o` naming a FIFO (or a device, `/dev/stdout`) writes into it: a file renamed
    /// over it would replace it (as root, `-o /dev/null` replaced the device).
    #[cfg(unix)]
    #[test]
    fn a_fifo_is_written_into_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: mkfifo is not available");
            return;
        }
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        write_file(&fifo, |w| w.write_all(b"through\n")).unwrap();
        // Checked first: with the FIFO replaced, the reader would wait forever.
        assert!(
            std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo()
        );
        assert_eq!(reader.join().unwrap(), "through\n");
    }
}
