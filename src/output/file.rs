//! `-o FILE`: results written under a temporary name beside FILE and renamed to it only
//! once complete and on disk, so a failure (a full disk, an error half-way) never
//! leaves a half-written file under the name asked for; and the checks made before any
//! work starts (the folder exists, FILE is not inside an input).

use super::error::UsageError;
use super::format::with_stdout;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Checks `-o FILE` before the corpus is read: its folder exists, it is no folder
/// itself, and it is not inside an input (simtui never writes into its input).
pub fn check_output_file(file: &Path, inputs: &[PathBuf]) -> Result<(), UsageError> {
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
    check_outside_inputs(file, inputs)
}

/// Fails when `out` is an input, or inside an input folder.
pub fn check_outside_inputs(out: &Path, inputs: &[PathBuf]) -> Result<(), UsageError> {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let out_abs = abs(out);
    // The output's folder as it really is (links resolved), as the inputs are.
    let out_real = out_abs
        .parent()
        .and_then(|p| std::fs::canonicalize(p).ok())
        .map(|p| p.join(out_abs.file_name().unwrap_or_default()))
        .unwrap_or_else(|| out_abs.clone());
    for input in inputs {
        let input_abs = std::fs::canonicalize(input).unwrap_or_else(|_| abs(input));
        if out_real == input_abs || out_real.starts_with(&input_abs) && input_abs.is_dir() {
            return Err(UsageError(format!(
                "{} is inside the input {}: simtui never writes into its input",
                out.display(),
                input.display()
            )));
        }
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

/// Writes `path` through `f`: into a new temporary file beside it (`.NAME.PID.tmp`, in
/// the same folder so the rename cannot cross file systems), flushed and synced, then
/// renamed over `path`. On any error the temporary file is removed and `path` is left
/// as it was.
pub fn write_file<T>(
    path: &Path,
    f: impl FnOnce(&mut (dyn Write + Send)) -> io::Result<T>,
) -> anyhow::Result<T> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = Temp(folder_of(path).join(format!(".{name}.{}.tmp", std::process::id())));
    let result = (|| -> io::Result<T> {
        let mut out = BufWriter::with_capacity(1 << 16, File::create_new(&tmp.0)?);
        let value = f(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp.0, path)?;
        Ok(value)
    })();
    result.map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))
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
        let e = check_output_file(&missing, &[]).unwrap_err();
        assert!(e.0.contains("no such folder"), "{e}");
        assert!(
            check_output_file(&input, &[])
                .unwrap_err()
                .0
                .contains("is a folder")
        );
        let inside = input.join("pairs.parquet");
        let e = check_output_file(&inside, std::slice::from_ref(&input)).unwrap_err();
        assert!(e.0.contains("never writes into its input"), "{e}");
        check_output_file(&dir.path().join("pairs.parquet"), &[input]).unwrap();
        check_output_file(Path::new("bare-name.parquet"), &[]).unwrap();
    }
}
