//! What a saved index already holds, file by file: where each file's documents start,
//! and which saved file a path of the walk is.

use super::format::{FileRec, Saved};
use std::hash::{Hash, Hasher};
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

/// What the saved index is, as files (with where each one's documents start) and by
/// path.
pub(super) struct Known<'a> {
    pub(super) saved: Option<&'a Saved>,
    starts: Vec<usize>,
    /// Each saved file as (the hash of its path, its number), sorted: 16 bytes a file,
    /// where a map of the paths took about 50 (26 MB at 500,000 files).
    by_path: Vec<(u64, u32)>,
}

impl<'a> Known<'a> {
    pub(super) fn new(saved: Option<&'a Saved>) -> Known<'a> {
        let mut starts = Vec::new();
        let mut by_path = Vec::new();
        if let Some(s) = saved {
            starts.reserve_exact(s.files.len());
            by_path.reserve_exact(s.files.len());
            let mut at = 0usize;
            for (i, f) in s.files.iter().enumerate() {
                starts.push(at);
                at += f.docs as usize;
                // Decoding refuses more than 2^32 documents, so as many files at most.
                by_path.push((path_hash(&f.path), i as u32));
            }
        }
        by_path.sort_unstable();
        Known {
            saved,
            starts,
            by_path,
        }
    }

    /// The saved file whose path is `path` (paths compared as [`Path`]s are: by their
    /// components); the last of them should the saved index list one twice.
    pub(super) fn file_of(&self, path: &Path) -> Option<usize> {
        let h = path_hash(path);
        let first = self.by_path.partition_point(|&(k, _)| k < h);
        let same = self.by_path[first..].iter().take_while(|&&(k, _)| k == h);
        // Sorted by number within a hash: the last listed is the last of the run.
        let files = self.files();
        let found = same
            .filter(|&&(_, i)| *files[i as usize].path == *path)
            .last();
        found.map(|&(_, i)| i as usize)
    }

    /// Where each saved file's documents start among the saved documents, the lookup
    /// by path let go.
    pub(super) fn into_starts(self) -> Vec<usize> {
        self.starts
    }

    pub(super) fn files(&self) -> &'a [FileRec] {
        self.saved.map_or(&[], |s| &s.files)
    }
}

/// A path's hash, as [`Path`]'s own `Hash` gives it (its components), so that two paths
/// equal as `Path`s hash alike.
fn path_hash(path: &Path) -> u64 {
    let mut h = Xxh3::new();
    path.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Params;
    use crate::shingle::ShingleSets;
    use crate::sketch::Signatures;
    use std::sync::Arc;

    fn saved(paths: &[&str]) -> Saved {
        let files = paths.iter().map(|p| FileRec {
            path: Arc::from(Path::new(p)),
            stamp: None,
            hash: None,
            status: None,
            detail: Box::default(),
            docs: 0,
        });
        Saved {
            params: Params::default(),
            files: files.collect(),
            docs: Vec::new(),
            contents: Vec::new(),
            shingles: ShingleSets::new(),
            signatures: Signatures::from_data(1, Vec::new()).unwrap(),
        }
    }

    #[test]
    fn a_path_finds_its_saved_file_the_last_of_a_repeat_and_by_components() {
        let s = saved(&["/c/b.txt", "/c/a.txt", "/c/x/y.txt", "/c/a.txt"]);
        let known = Known::new(Some(&s));
        assert_eq!(known.file_of(Path::new("/c/b.txt")), Some(0));
        assert_eq!(known.file_of(Path::new("/c/a.txt")), Some(3));
        assert_eq!(known.file_of(Path::new("/c//x/y.txt")), Some(2));
        assert_eq!(known.file_of(Path::new("/c/z.txt")), None);
        assert_eq!(Known::new(None).file_of(Path::new("/c/a.txt")), None);
    }
}
