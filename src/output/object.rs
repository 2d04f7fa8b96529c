//! Outputs named by URL (`-o s3://bucket/key`): written by the same code as a local
//! output, into a temporary folder of their own, then uploaded once complete (each
//! object a multipart upload, which shows nothing under its name until it is done).
//! Before any work, the store is reached and the place checked: a bucket that is not
//! there or credentials refused are a one-line usage error, and so is an output that
//! exists already (simtui replaces no object).

use super::error::UsageError;
use simtui_engine::source::object::{self, ObjectUrl};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// Where an output is written: the path asked for, or for a URL a local stand-in to be
/// uploaded by [`Target::finish`].
pub struct Target {
    local: PathBuf,
    upload: Option<(ObjectUrl, TempDir)>,
}

impl Target {
    /// `-o OUT` and the outputs beside it (`OUT.removed.jsonl`): OUT itself when it is a
    /// local path; for a URL, `TMP/NAME` in a new temporary folder, once the store was
    /// reached and nothing found at the URL nor beside it under the names given.
    pub fn new(out: &Path, beside: &[&str]) -> Result<Target, UsageError> {
        let Some(url) = ObjectUrl::parse(out) else {
            return Ok(Target {
                local: out.to_path_buf(),
                upload: None,
            });
        };
        let name = url.name().to_string();
        for place in
            std::iter::once(name.clone()).chain(beside.iter().map(|b| format!("{name}{b}")))
        {
            let there = url.parent().join(&place);
            let found = object::probe(Path::new(&there.to_string()))
                .map_err(|e| UsageError(e.to_string()))?;
            if found {
                return Err(UsageError(format!(
                    "{there} exists: simtui replaces no object; choose another -o, or remove it first"
                )));
            }
        }
        let dir = tempfile::Builder::new()
            .prefix("simtui-upload-")
            .tempdir()
            .map_err(|e| UsageError(format!("a temporary folder for {url}: {e}")))?;
        Ok(Target {
            local: dir.path().join(name),
            upload: Some((url, dir)),
        })
    }

    /// Where to write.
    pub fn path(&self) -> &Path {
        &self.local
    }

    /// Uploads what was written for a URL, every file under the temporary folder as an
    /// object under the URL's parent prefix, OUT's last: nothing when OUT was local.
    pub fn finish(self) -> anyhow::Result<()> {
        let Some((url, dir)) = self.upload else {
            return Ok(());
        };
        let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir.path())
            .sort_by_file_name()
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(|e| e.into_path())
            .collect();
        // OUT's own files last (the removal list first): whoever waits for OUT finds
        // what goes with it there already.
        files.sort_by_key(|f| f.starts_with(&self.local));
        let parent = url.parent();
        for file in files {
            let rel = file.strip_prefix(dir.path()).unwrap_or(&file);
            let rel: Vec<_> = rel.iter().map(|s| s.to_string_lossy()).collect();
            let to = parent.join(&rel.join("/"));
            object::put_file(&file, Path::new(&to.to_string()))
                .map_err(super::error::store_error)?;
        }
        Ok(())
    }
}

/// Checks `-o URL` of a one-file output before any work: the store reached (a bucket
/// that is not there, credentials refused: a usage error). An object there is replaced,
/// as a local file is.
pub fn check_url(out: &Path) -> Result<(), UsageError> {
    object::probe(out)
        .map(|_| ())
        .map_err(|e| UsageError(e.to_string()))
}
