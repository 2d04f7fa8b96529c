//! `--resume` (dedup, sketch): a run over many input shards records, beside its output,
//! each shard's work as it is done, and a run that was killed continues from there.
//!
//! The corpus is cut into units, in walk order: each file of many documents (a JSON
//! Lines, SGML or Parquet shard) alone, and runs of plain files up to [`UNIT_BYTES`] or
//! [`UNIT_FILES`]. Each unit's work (dedup: its documents' sets and signatures; sketch:
//! its rows) goes to a file of the folder `.OUT.simtui-resume` beside OUT, written whole
//! and renamed into place, and then the journal `state.json` there (written the same
//! way) counts it done. The journal also holds a hash of the inputs (paths, sizes,
//! modification times) and of the flags: a run resumed with other inputs or flags is
//! refused. What needs the whole corpus (dedup's search and clusters, the output
//! written) is done once every unit is, from the units' files; the folder is removed at
//! the end.

use crate::output::error::UsageError;
use crate::output::file::write_file;
use simtui_engine::source::{Corpus, Source};
use std::hash::Hasher;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Bytes of plain files one unit holds at most (a file larger is a unit alone).
pub const UNIT_BYTES: u64 = 64 << 20;
/// Plain files one unit holds at most.
pub const UNIT_FILES: usize = 10_000;

/// The file an entry's text is in.
fn file_of(source: &Source) -> Option<&Path> {
    source.path()
}

/// The corpus's entries cut into units, in order: a file of many documents alone, runs
/// of plain files up to [`UNIT_BYTES`] or [`UNIT_FILES`].
pub fn units(corpus: &Corpus) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    let mut bytes = 0u64;
    let mut open = false;
    for (i, e) in corpus.entries.iter().enumerate() {
        let many = matches!(e.source, Source::Container(_) | Source::Part(_));
        let size = file_of(&e.source)
            .and_then(|p| std::fs::metadata(p).ok())
            .map_or(0, |m| m.len());
        let fits = open
            && !many
            && out.last().is_some_and(|r| r.len() < UNIT_FILES)
            && bytes + size <= UNIT_BYTES;
        if fits {
            out.last_mut().expect("a unit").end = i + 1;
            bytes += size;
        } else {
            out.push(i..i + 1);
            bytes = size;
        }
        open = !many;
    }
    out
}

/// A hash of the inputs (each entry's file, size and modification time) and of `flags`
/// (whatever changes the output, as text).
pub fn key(corpus: &Corpus, flags: &str) -> u64 {
    // The same simtui resumes what it started: the standard hasher's fixed keys do.
    let mut h = std::hash::DefaultHasher::new();
    h.write(flags.as_bytes());
    for e in &corpus.entries {
        h.write(e.id.as_bytes());
        if let Some(p) = file_of(&e.source) {
            h.write(p.as_os_str().as_encoded_bytes());
            if let Ok(m) = std::fs::metadata(p) {
                h.write_u64(m.len());
                let since = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
                h.write_u128(since.map_or(0, |d| d.as_nanos()));
            }
        }
    }
    h.finish()
}

/// The record of a resumable run: where its units' work goes, and how many are done.
pub struct Journal {
    dir: PathBuf,
    key: u64,
    units: usize,
    /// Units done (their work saved), from the first.
    pub done: usize,
}

/// The journal's folder for the output `out`: `.NAME.simtui-resume` beside it.
pub fn folder(out: &Path) -> PathBuf {
    let name = out.file_name().unwrap_or_default().to_string_lossy();
    out.with_file_name(format!(".{name}.simtui-resume"))
}

impl Journal {
    /// Opens the journal of `out`, or starts one: the run `key` of `units` units. An
    /// existing journal of another run (other inputs or flags) is refused.
    pub fn open(out: &Path, key: u64, units: usize) -> anyhow::Result<Journal> {
        let dir = folder(out);
        let state = dir.join("state.json");
        let mut journal = Journal {
            dir,
            key,
            units,
            done: 0,
        };
        match std::fs::read_to_string(&state) {
            Ok(text) => {
                let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
                let same = v["key"].as_str() == Some(&format!("{key:016x}"))
                    && v["units"].as_u64() == Some(units as u64);
                if !same {
                    return Err(UsageError(format!(
                        "{} records a run with other inputs or flags: remove it to start again",
                        journal.dir.display()
                    ))
                    .into());
                }
                journal.done = v["done"].as_u64().unwrap_or(0).min(units as u64) as usize;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(&journal.dir)?;
                journal.record(0)?;
            }
            Err(e) => return Err(e.into()),
        }
        Ok(journal)
    }

    /// Where unit `i`'s work goes.
    pub fn unit(&self, i: usize) -> PathBuf {
        self.dir.join(format!("unit-{i:06}"))
    }

    /// Counts the units up to `done` done (their work is in place).
    pub fn record(&mut self, done: usize) -> anyhow::Result<()> {
        let v = serde_json::json!({
            "key": format!("{:016x}", self.key),
            "units": self.units,
            "done": done,
        });
        write_file(&self.dir.join("state.json"), |w| writeln!(w, "{v}"))?;
        self.done = done;
        Ok(())
    }

    /// Removes the journal and the units' work: the run is complete.
    pub fn finish(self) {
        self.finish_observed(&mut |_| ());
    }

    /// [`finish`](Self::finish), `step` called after each removal. The count of units
    /// done goes first: a run killed while the journal is removed leaves a folder without
    /// it, which the next run starts from the beginning, never a count of units whose
    /// work is gone.
    fn finish_observed(self, step: &mut dyn FnMut(&Path)) {
        let state = self.dir.join("state.json");
        if std::fs::remove_file(&state).is_err() {
            return;
        }
        // Durable before any unit goes (a crash of the machine too).
        if let Ok(dir) = std::fs::File::open(&self.dir) {
            let _ = dir.sync_all();
        }
        step(&self.dir);
        for i in 0..self.units {
            let _ = std::fs::remove_file(self.unit(i));
            step(&self.dir);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
        step(&self.dir);
    }

    /// The error of a unit's work that cannot be read back, naming its file and the way
    /// out.
    pub fn unreadable(&self, i: usize, e: impl std::fmt::Display) -> anyhow::Error {
        UsageError(format!(
            "{}: {e}; the journal {} is damaged: remove it to start again",
            self.unit(i).display(),
            self.dir.display()
        ))
        .into()
    }
}

/// `dedup --resume`: the corpus at `roots` indexed a unit at a time, each unit's
/// documents, sets and signatures saved in the journal of `out` and counted done (those
/// done by an interrupted run are not indexed again), then joined into the index one
/// build over the whole corpus makes (the same documents, groups, sets and signatures),
/// opened as [`CorpusArgs::open`](super::corpus::CorpusArgs::open) opens a corpus.
/// MinHash only. The journal is returned, to be finished once the output is written.
pub fn open_units(
    corpus_args: &super::corpus::CorpusArgs,
    roots: &[PathBuf],
    out: &Path,
    mut index: super::args::IndexArgs,
    purpose: super::corpus::Purpose,
) -> anyhow::Result<(super::corpus::OpenedCorpus, Journal)> {
    use simtui_engine::analysis::method::Engine;
    use simtui_engine::index::{Index, Keep};
    use simtui_engine::store;
    let start = corpus_args.start_minhash(&mut index, &purpose, "--resume")?;
    let (note, method, progress, params) = (start.note, start.method, start.progress, start.params);
    let budget = progress.budget();
    let t = std::time::Instant::now();
    let corpus = index.walk(roots)?;
    let walk = t.elapsed();
    let units = units(&corpus);
    let key = key(&corpus, &format!("{index:?}"));
    let mut journal = Journal::open(out, key, units.len())?;
    let builder = || {
        Index::builder(&params)
            .keep(Keep::Everything)
            .budget(budget)
    };
    for (i, unit) in units.iter().enumerate().skip(journal.done) {
        let part = Corpus {
            entries: corpus.entries[unit.clone()].to_vec(),
            skipped: Vec::new(),
        };
        let built = builder().build(part, &progress)?;
        store::save_part(&built, &journal.unit(i)).map_err(crate::output::error::store_error)?;
        journal.record(i + 1)?;
    }
    let parts: Vec<Index> = (units.iter().enumerate())
        .map(|(i, unit)| {
            store::load_part(&journal.unit(i), &corpus.entries[unit.clone()])
                .map_err(|e| journal.unreadable(i, e))
        })
        .collect::<anyhow::Result<_>>()?;
    let joined = match parts.as_slice() {
        [] => builder().build(corpus, &progress)?,
        _ => store::joined(&parts.iter().collect::<Vec<_>>(), budget)
            .map_err(crate::output::error::store_error)?,
    };
    if let Some(refuse) = purpose.refuse {
        refuse(&joined)?;
    }
    super::banding::say(purpose.command, note);
    let engine = Engine {
        index: std::sync::Arc::new(joined),
        method,
    };
    let opened = super::corpus::OpenedCorpus {
        engine: std::mem::ManuallyDrop::new(engine),
        progress,
        walk,
        index,
    };
    Ok((opened, journal))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever point a kill stops the removal at, the journal left never counts a unit
    /// done whose work is gone.
    #[test]
    fn a_journal_killed_while_removed_never_counts_lost_work() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let mut journal = Journal::open(&out, 7, 4).unwrap();
        for i in 0..4 {
            std::fs::write(journal.unit(i), b"work").unwrap();
            journal.record(i + 1).unwrap();
        }
        let mut steps = 0;
        journal.finish_observed(&mut |dir| {
            steps += 1;
            let counted = std::fs::read_to_string(dir.join("state.json")).map_or(0, |t| {
                let v: serde_json::Value = serde_json::from_str(&t).unwrap();
                v["done"].as_u64().unwrap() as usize
            });
            for i in 0..counted {
                let unit = dir.join(format!("unit-{i:06}"));
                assert!(
                    unit.exists(),
                    "step {steps}: {unit:?} counted done but gone"
                );
            }
        });
        assert_eq!(steps, 6);
        assert!(!folder(&out).exists());
    }
}
