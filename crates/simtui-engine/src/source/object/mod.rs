//! Inputs and outputs named by URL in an object store: `s3://bucket/prefix/`,
//! `gs://bucket/prefix/`, `az://container/prefix/`, `http(s)://host/path`.
//!
//! A URL is read as a folder is: the objects under its prefix (or the one object it
//! names) are fetched, several at a time, into a local copy that lives as long as the
//! process (removed by [`clear`]), while the corpus is read (a reader waits for the
//! object it opens: [`ready`]; the read stage ends with [`settled`]), and every reader of the source stage (plain, JSON
//! Lines, SGML, Parquet, gz/zst) reads that copy as it reads any file: each reader
//! exists once; of a Parquet object, only the footer and the column chunks its reader
//! reads are fetched (`ranged.rs`), the rest when a file is read whole ([`whole`]:
//! dedup's output). The walk names the documents by the URL ([`named`]), so ids are the
//! same as those of a local copy of the same objects. Outputs are uploaded once
//! complete ([`put_file`]: a multipart upload, nothing under the name until it is
//! finished).
//!
//! The transfers are behind the crate's `object-store` feature (the `object_store`
//! crate on a small tokio runtime, in `remote.rs` alone); without it a URL is an
//! [`Error::Unsupported`] input. URL parsing and comparison are always here.

use super::container::InputOptions;
use crate::error::{Error, Result};
use std::fmt;
use std::path::{Path, PathBuf};

#[cfg(feature = "object-store")]
mod arrivals;
#[cfg(feature = "object-store")]
mod ranged;
#[cfg(feature = "object-store")]
mod remote;
#[cfg(feature = "object-store")]
pub use arrivals::{ready, settled};
#[cfg(feature = "object-store")]
pub use remote::{clear, local, named, probe, put_file, whole};

#[cfg(test)]
mod tests;

/// The schemes read as object stores.
const SCHEMES: [&str; 5] = ["s3", "gs", "az", "http", "https"];

/// Why a URL is not read without the feature.
#[cfg(not(feature = "object-store"))]
const NEEDS_FEATURE: &str =
    "an object-store URL: reading and writing them needs simtui-engine's `object-store` feature";

/// An object store's URL, taken apart: `scheme://bucket/key`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectUrl {
    /// `s3`, `gs`, `az`, `http` or `https`.
    pub scheme: String,
    /// The bucket (the container for `az`, the host and port for `http(s)`).
    pub bucket: String,
    /// The object's key or the prefix, without slashes at either end (empty: the whole
    /// bucket).
    pub key: String,
    /// Whether the URL ended with `/`: a prefix, never one object.
    pub folder: bool,
}

impl ObjectUrl {
    /// The URL a path spells, if it spells one of a known scheme (None for a local path).
    pub fn parse(path: &Path) -> Option<ObjectUrl> {
        let s = path.to_str()?;
        let (scheme, rest) = s.split_once("://")?;
        if !SCHEMES.contains(&scheme) {
            return None;
        }
        let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return None;
        }
        Some(ObjectUrl {
            scheme: scheme.to_string(),
            bucket: bucket.to_string(),
            key: key.trim_matches('/').to_string(),
            folder: key.is_empty() || key.ends_with('/'),
        })
    }

    /// The key below this URL's prefix: `rel` after `key/`.
    pub fn join(&self, rel: &str) -> ObjectUrl {
        let key = if self.key.is_empty() {
            rel.to_string()
        } else {
            format!("{}/{rel}", self.key)
        };
        ObjectUrl {
            key,
            folder: false,
            ..self.clone()
        }
    }

    /// The prefix this URL's object is in (`s3://b/a/x.jsonl` → `s3://b/a/`).
    pub fn parent(&self) -> ObjectUrl {
        let key = self.key.rsplit_once('/').map_or("", |(p, _)| p);
        ObjectUrl {
            key: key.to_string(),
            folder: true,
            ..self.clone()
        }
    }

    /// The last segment of the key (the bucket's name for the whole bucket).
    pub fn name(&self) -> &str {
        self.key
            .rsplit('/')
            .next()
            .filter(|n| !n.is_empty())
            .unwrap_or(&self.bucket)
    }

    /// How this URL stands to `other`: the same object or prefix, inside it, or holding
    /// it. Prefixes are compared by whole segments (`a/bc` is not inside `a/b`).
    pub fn relation(&self, other: &ObjectUrl) -> Option<Relation> {
        if self.scheme != other.scheme || self.bucket != other.bucket {
            return None;
        }
        let under = |a: &str, b: &str| b.is_empty() || a.starts_with(&format!("{b}/"));
        if self.key == other.key {
            Some(Relation::Same)
        } else if under(&self.key, &other.key) {
            Some(Relation::Inside)
        } else if under(&other.key, &self.key) {
            Some(Relation::Contains)
        } else {
            None
        }
    }
}

impl fmt::Display for ObjectUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}/{}", self.scheme, self.bucket, self.key)?;
        if self.folder && !self.key.is_empty() {
            f.write_str("/")?;
        }
        Ok(())
    }
}

/// How one URL stands to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// The same key.
    Same,
    /// Under the other's prefix.
    Inside,
    /// The other is under this one's prefix.
    Contains,
}

/// Whether a path given on the command line names an object store.
pub fn is_url(path: &Path) -> bool {
    ObjectUrl::parse(path).is_some()
}

/// Without the feature: a URL cannot be read.
#[cfg(not(feature = "object-store"))]
pub fn local(path: &Path, _input: &InputOptions) -> Result<PathBuf> {
    if is_url(path) {
        return Err(Error::Unsupported {
            path: path.to_path_buf(),
            what: NEEDS_FEATURE,
        });
    }
    Ok(path.to_path_buf())
}

/// Without the feature: no path is a local copy of a URL.
#[cfg(not(feature = "object-store"))]
pub fn named(path: &Path) -> PathBuf {
    path.to_path_buf()
}

/// Without the feature: nothing was fetched.
#[cfg(not(feature = "object-store"))]
pub fn clear() {}

/// Without the feature: every file is whole.
#[cfg(not(feature = "object-store"))]
pub fn whole(_file: &Path) -> Result<()> {
    Ok(())
}

/// Without the feature: every file is whole.
#[cfg(not(feature = "object-store"))]
pub fn ready(_path: &Path) -> std::io::Result<()> {
    Ok(())
}

/// Without the feature: nothing is arriving.
#[cfg(not(feature = "object-store"))]
pub fn settled() -> Result<()> {
    Ok(())
}

/// Without the feature: a URL cannot be reached.
#[cfg(not(feature = "object-store"))]
pub fn probe(path: &Path) -> Result<bool> {
    local(path, &InputOptions::default()).map(|p| p.exists())
}

/// Without the feature: nothing can be uploaded.
#[cfg(not(feature = "object-store"))]
pub fn put_file(_local: &Path, url: &Path) -> Result<()> {
    local(url, &InputOptions::default()).map(|_| ())
}

/// Each path a local one: URLs fetched ([`local`]; their files to be read as `input`
/// says), other paths as they are.
pub fn localize(paths: &[PathBuf], input: &InputOptions) -> Result<Vec<PathBuf>> {
    paths.iter().map(|p| local(p, input)).collect()
}

/// The error of a transfer, on one line.
#[cfg_attr(not(feature = "object-store"), allow(dead_code))]
pub(crate) fn object_error(url: &ObjectUrl, why: impl fmt::Display) -> Error {
    let why = why
        .to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    Error::Object {
        url: url.to_string(),
        why,
    }
}
