//! What to do with each file of a walk, planned against a saved index while its file
//! records are decoded, a few thousand at a time: reuse the saved documents of a file
//! that did not change, read the others. A file to reuse takes what its saved record
//! knew then and there, so the saved records are never held whole (they and their paths
//! were 96 MB beside the walk's table at 500,000 files).

use super::Report;
use super::files::{Plan, WalkFile};
use super::format::FileRec;
use super::reading_of;
use super::stamps::{hash_file, stamp};
use crate::index::Params;
use crate::source::{Corpus, SkipReason};
use rayon::prelude::*;
use std::hash::{Hash, Hasher};
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

/// No saved file: a walk file's [`Planner::matched`] before a saved record names it.
const NONE: u32 = u32::MAX;

/// Plans the files of a walk as the saved file records come ([`Planner::take`]).
pub(super) struct Planner<'a> {
    files: &'a mut [WalkFile],
    /// The walk, for how each file is read now (see [`Planner::unmatch`]).
    corpus: &'a Corpus,
    /// The folder the walk's relative paths are relative to.
    cwd: &'a Path,
    params: &'a Params,
    /// Each walk file as (the hash of its absolute path, its number), sorted: 8 bytes a
    /// file (32 bits of hash are enough to find the few paths to compare).
    by_path: Vec<(u32, u32)>,
    /// Where each saved file's documents start among the saved documents (a file's
    /// number is its place here): decoding refuses more than 2^32 documents.
    starts: Vec<u32>,
    /// Saved documents so far: where the next saved file's start.
    docs: usize,
    /// For each walk file, the saved file that names its path, or [`NONE`]; the last of
    /// them should the saved index list a path twice.
    matched: Vec<u32>,
    /// For each walk file to reuse, whether its stamp changed (its bytes did not).
    touched: Vec<bool>,
}

/// What the plan leaves for the update: where each saved file's documents start, and
/// whether a file to reuse has a new stamp (the index is written again with it).
#[derive(Default)]
pub(super) struct Planned {
    pub(super) starts: Vec<u32>,
    pub(super) touched: bool,
}

impl<'a> Planner<'a> {
    /// A planner of `files` (the walk's of `corpus`, stamped, their paths relative to
    /// `cwd` when not absolute), every one of them to read until a saved record says
    /// otherwise.
    pub(super) fn new(
        files: &'a mut [WalkFile],
        (corpus, cwd): (&'a Corpus, &'a Path),
        params: &'a Params,
    ) -> Self {
        let mut by_path: Vec<(u32, u32)> = files
            .par_iter()
            .enumerate()
            // Fewer than 2^32 files: each of their entries is held in memory.
            .map(|(w, f)| (path_hash(&f.abs(cwd)), w as u32))
            .collect();
        by_path.par_sort_unstable();
        let n = files.len();
        Planner {
            files,
            corpus,
            cwd,
            params,
            by_path,
            starts: Vec::new(),
            docs: 0,
            matched: vec![NONE; n],
            touched: vec![false; n],
        }
    }

    /// Plans every walk file that the saved records of `chunk` name (numbered on from
    /// the records taken before), and empties it.
    pub(super) fn take(&mut self, chunk: &mut Vec<FileRec>) {
        let first = self.starts.len();
        for rec in chunk.iter() {
            let start =
                u32::try_from(self.docs).expect("decoding refuses more than 2^32 documents");
            self.starts.push(start);
            self.docs += rec.docs as usize;
        }
        // Each walk file of each record's path, in the records' order.
        let this = &*self;
        let pairs: Vec<(usize, usize)> = (chunk.par_iter().enumerate())
            .flat_map_iter(|(k, rec)| this.walk_files_at(&rec.path).map(move |w| (w, k)))
            .collect();
        // Each plan against the file as walked, not as an earlier record of its path
        // left it.
        for &(w, _) in &pairs {
            self.unmatch(w);
        }
        // In parallel: a file of the same size and another time is hashed.
        let (files, params) = (&*self.files, self.params);
        let plans: Vec<Plan> = pairs
            .par_iter()
            .map(|&(w, k)| plan_of(&files[w], (&chunk[k], first + k), params))
            .collect();
        for ((w, k), plan) in pairs.into_iter().zip(plans) {
            // A path listed twice in one chunk: the later record counts.
            self.unmatch(w);
            // Decoding refuses more than 2^32 documents, so as many files at most.
            self.matched[w] = (first + k) as u32;
            let (f, rec) = (&mut self.files[w], &mut chunk[k]);
            f.set_plan(plan);
            if plan != Plan::Read {
                self.touched[w] = rec.stamp != f.rec.stamp;
                absorb(f, rec);
            }
        }
        chunk.clear();
    }

    /// The walk files whose absolute path is `path` (compared as [`Path`]s are: by
    /// their components).
    fn walk_files_at<'p>(&'p self, path: &'p Path) -> impl Iterator<Item = usize> + 'p {
        let h = path_hash(path);
        let first = self.by_path.partition_point(|&(k, _)| k < h);
        let same = self.by_path[first..]
            .iter()
            .take_while(move |&&(k, _)| k == h);
        same.map(|&(_, w)| w as usize)
            .filter(move |&w| self.files[w].abs(self.cwd) == path)
    }

    /// Walk file `w` as walked again: to read, with no saved file, its record holding
    /// nothing saved.
    fn unmatch(&mut self, w: usize) {
        if self.matched[w] == NONE {
            return;
        }
        self.matched[w] = NONE;
        self.touched[w] = false;
        self.forget(w);
    }

    /// Walk file `w` to read, its record holding nothing saved (its saved file, if
    /// any, still named).
    fn forget(&mut self, w: usize) {
        let f = &mut self.files[w];
        f.set_plan(Plan::Read);
        let mine = match f.listed() {
            Some(r) => &self.corpus.entries[r],
            None => &[],
        };
        let reading = reading_of(&f.first_source(mine)).into();
        f.rec.set_hash(None);
        (f.rec.status, f.rec.docs) = (None, 0);
        f.rec.detail = reading;
    }

    /// The plan made, counted in `report`: a saved file matched by two files of the walk
    /// (a path given twice) is reused by the first, the others read anew; the saved files
    /// no walk file names are deleted.
    pub(super) fn finish(mut self, report: &mut Report) -> Planned {
        let mut taken = vec![false; self.starts.len()];
        for w in 0..self.files.len() {
            if let Plan::Reuse(i) = self.files[w].plan() {
                if taken[i] {
                    self.touched[w] = false;
                    self.forget(w);
                }
                taken[i] = true;
            }
        }
        let mut seen = taken;
        let mut touched = false;
        for (w, f) in self.files.iter().enumerate() {
            match (f.plan(), self.matched[w]) {
                (Plan::Reuse(_), _) if self.touched[w] => {
                    report.touched += 1;
                    touched = true;
                }
                (Plan::Reuse(_), _) => report.unchanged += 1,
                (Plan::Read, NONE) => report.added += 1,
                (Plan::Read, i) => {
                    seen[i as usize] = true;
                    report.changed += 1;
                }
            }
        }
        report.deleted = seen.iter().filter(|s| !**s).count();
        Planned {
            starts: self.starts,
            touched,
        }
    }

    /// No saved index after all (built with other parameters, or unreadable and rebuilt):
    /// every file to read, as walked.
    pub(super) fn reset(mut self) -> Planned {
        for w in 0..self.files.len() {
            self.unmatch(w);
        }
        Planned::default()
    }
}

/// The plan of walk file `f` (stamped now) against saved file `i`, whose record is
/// `rec`.
fn plan_of(f: &WalkFile, (rec, i): (&FileRec, usize), params: &Params) -> Plan {
    // A read that failed (permissions, a file swapped for a FIFO) may work now: such a
    // file is tried again on every run, as a fresh run would.
    if matches!(
        rec.status,
        Some(SkipReason::Unreadable | SkipReason::Special)
    ) {
        return Plan::Read;
    }
    // Read another way (other fields, another format), the same bytes are other
    // documents.
    if rec.status.is_none() && rec.detail != f.rec.detail {
        return Plan::Read;
    }
    match (rec.stamp, f.rec.stamp) {
        (Some(was), Some(now)) if was == now => Plan::Reuse(i),
        (_, Some(now)) if rec.hashed && rec.stamp.is_some_and(|s| s.size == now.size) => {
            // Same size, another time: the same bytes are the same documents.
            if hash_file(f.path(), params.max_bytes) == rec.hash() && stamp(f.path()) == Some(now) {
                Plan::Reuse(i)
            } else {
                Plan::Read
            }
        }
        _ => Plan::Read,
    }
}

/// A file to reuse takes what its saved record knew: its hash, status, reading and
/// number of documents (its stamp is the one taken now).
fn absorb(f: &mut WalkFile, rec: &mut FileRec) {
    f.rec.set_hash(rec.hash());
    f.rec.status = rec.status;
    f.rec.detail = std::mem::take(&mut rec.detail);
    f.rec.docs = rec.docs;
}

/// A path's hash, as [`Path`]'s own `Hash` gives it (its components), so that two paths
/// equal as `Path`s hash alike: its high 32 bits.
fn path_hash(path: &Path) -> u32 {
    let mut h = Xxh3::new();
    path.hash(&mut h);
    (h.finish() >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{Entry, Source};
    use crate::store::files::walk_files;
    use crate::store::format::Stamp;
    use std::sync::Arc;

    fn corpus(paths: &[&Path]) -> Corpus {
        let entries = paths.iter().map(|p| Entry {
            id: p.display().to_string(),
            source: Source::File(Arc::from(*p)),
            bytes: 0,
        });
        Corpus {
            entries: entries.collect(),
            skipped: Vec::new(),
        }
    }

    fn at(size: u64, secs: i64) -> Stamp {
        Stamp {
            size,
            secs,
            ..Stamp::default()
        }
    }

    fn rec(path: &Path, stamp: Stamp, (hash, docs): (Option<u64>, u32)) -> FileRec {
        let mut rec = FileRec {
            path: Arc::from(path),
            stamp: Some(stamp),
            hash_value: 0,
            hashed: false,
            status: None,
            detail: Box::default(),
            docs,
        };
        rec.set_hash(hash);
        rec
    }

    /// Walk files as planned: (plan, docs, hash, status, detail).
    type Row = (Plan, u32, Option<u64>, Option<SkipReason>, String);

    fn rows(files: &[WalkFile]) -> Vec<Row> {
        let row = |f: &WalkFile| {
            let r = &f.rec;
            (f.plan(), r.docs, r.hash(), r.status, r.detail.to_string())
        };
        files.iter().map(row).collect()
    }

    #[test]
    fn saved_records_plan_the_walk_as_they_come_the_last_of_a_path_listed_twice() {
        let dir = tempfile::tempdir().unwrap();
        let same = dir.path().join("same-bytes.txt");
        std::fs::write(&same, "the same bytes at another time").unwrap();
        let (a, b, y) = (
            Path::new("/c/a.txt"),
            Path::new("/c/b.txt"),
            Path::new("/c/x/y.txt"),
        );
        let added = Path::new("/c/new.txt");
        // b.txt twice, apart (a path given twice): the second is read anew.
        let walk = corpus(&[a, b, y, added, &same, b]);
        let mut files = walk_files(&walk);
        let now = [
            at(1, 10),
            at(2, 20),
            at(3, 30),
            at(4, 40),
            stamp(&same).unwrap(),
            at(2, 20),
        ];
        for (f, s) in files.iter_mut().zip(now) {
            f.rec.stamp = Some(s);
        }
        let params = Params::default();
        let mut skipped = rec(a, at(1, 10), (None, 0));
        (skipped.status, skipped.detail) = (Some(SkipReason::Binary), "binary".into());
        let moved = at(30, 1);
        let first = vec![
            rec(b, at(2, 20), (Some(7), 2)),
            skipped,
            rec(Path::new("/c//x/y.txt"), at(3, 30), (Some(8), 3)),
        ];
        let hash = hash_file(&same, params.max_bytes);
        let then = Stamp { secs: 5, ..now[4] };
        let second = vec![
            rec(&same, then, (hash, 1)),
            rec(Path::new("/c/gone.txt"), moved, (None, 6)),
            // a.txt listed again, read then: the last record of a path counts, planned
            // against the file as walked (not as the first record left it).
            rec(a, at(1, 10), (Some(9), 4)),
        ];
        let mut report = Report::default();
        let mut planner = Planner::new(&mut files, (&walk, Path::new("/")), &params);
        for mut chunk in [first, second] {
            planner.take(&mut chunk);
            assert!(chunk.is_empty(), "each chunk is taken");
        }
        let planned = planner.finish(&mut report);
        let read: Row = (Plan::Read, 0, None, None, String::new());
        let reused = |i, docs, hash| (Plan::Reuse(i), docs, hash, None, String::new());
        let expected = vec![
            reused(5, 4, Some(9)),
            reused(0, 2, Some(7)),
            reused(2, 3, Some(8)),
            read.clone(),
            reused(3, 1, hash),
            read,
        ];
        assert_eq!(rows(&files), expected);
        assert_eq!(planned.starts, vec![0, 2, 2, 5, 6, 12]);
        assert!(planned.touched, "same-bytes.txt has a new time");
        let counts = (
            report.unchanged,
            report.touched,
            report.changed,
            report.added,
        );
        // Changed: b.txt's repeat; deleted: gone.txt and a.txt's first record.
        assert_eq!((counts, report.deleted), ((3, 1, 1, 1), 2));
    }

    #[test]
    fn a_saved_index_not_used_after_all_leaves_every_file_as_walked() {
        let (a, b) = (Path::new("/c/a.txt"), Path::new("/c/b.txt"));
        let walk = corpus(&[a, b]);
        let mut files = walk_files(&walk);
        for f in files.iter_mut() {
            f.rec.stamp = Some(at(1, 10));
        }
        let mut skipped = rec(a, at(1, 10), (None, 0));
        (skipped.status, skipped.detail) = (Some(SkipReason::Binary), "binary".into());
        let params = Params::default();
        let mut planner = Planner::new(&mut files, (&walk, Path::new("/")), &params);
        planner.take(&mut vec![skipped, rec(b, at(1, 10), (Some(3), 2))]);
        let planned = planner.reset();
        let read: Row = (Plan::Read, 0, None, None, String::new());
        assert_eq!(rows(&files), vec![read.clone(), read]);
        assert!(planned.starts.is_empty() && !planned.touched);
    }
}
