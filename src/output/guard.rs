//! The one check every output of a run passes before any work starts: an output may not
//! be an input, lie inside an input folder, contain an input (an ancestor of it, which
//! `dedup --force` would replace and so delete), or be another input or output of the
//! same run (`--keep-list` equal to the removal list reviewed, `--write-truth` over
//! `--truth`).
//!
//! Paths are compared by what they are on disk, not by how they are spelt: by device and
//! inode (as the walk tells one file reached twice apart), so a symbolic link, a bind
//! mount or a hard link to an input is caught. An output that does not exist yet is
//! placed by its nearest existing folder and the names below it.

use super::error::UsageError;
use super::format::printable;
use simtui_engine::source::object::{self, ObjectUrl};
use std::ffi::OsString;
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

/// A path of the run and how the command line named it (`the input`, `-o`,
/// `--keep-list`...), for the message.
#[derive(Clone, Debug)]
struct Named {
    what: String,
    path: PathBuf,
}

/// The inputs and outputs of one run. Built with [`Paths::input`] and
/// [`Paths::output`], then [`Paths::check`]ed before anything is read or written.
#[derive(Clone, Debug, Default)]
pub struct Paths {
    inputs: Vec<Named>,
    /// Each output, and whether it may lie inside an input folder (a saved index: its
    /// default place is `FOLDER/.simtui-index`, which the walk leaves out).
    outputs: Vec<(Named, bool)>,
}

/// The config file read at startup: an input of every run.
static CONFIG: OnceLock<PathBuf> = OnceLock::new();

/// Makes the config file read an input of every run's check.
pub fn set_config(path: &Path) {
    let _ = CONFIG.set(path.to_path_buf());
}

impl Paths {
    /// A run's paths; the config file read, if any, is one of its inputs.
    pub fn new() -> Paths {
        let paths = Paths::default();
        match CONFIG.get() {
            Some(config) => paths.input("--config", config.as_path()),
            None => paths,
        }
    }

    /// An input read (when given).
    pub fn input<'p>(mut self, what: &str, path: impl Into<Option<&'p Path>>) -> Paths {
        if let Some(path) = path.into() {
            self.inputs.push(named(what, path));
        }
        self
    }

    /// Inputs read, each named `what`.
    pub fn inputs(self, what: &str, paths: &[PathBuf]) -> Paths {
        paths
            .iter()
            .fold(self, |p, path| p.input(what, path.as_path()))
    }

    /// An output written (when given).
    pub fn output<'p>(mut self, what: &str, path: impl Into<Option<&'p Path>>) -> Paths {
        if let Some(path) = path.into() {
            self.outputs.push((named(what, path), false));
        }
        self
    }

    /// A saved index (read and updated), named `what`: it may lie inside an input
    /// folder, and be neither an input nor another output.
    pub fn index<'p>(mut self, what: &str, path: impl Into<Option<&'p Path>>) -> Paths {
        if let Some(path) = path.into() {
            self.outputs.push((named(what, path), true));
        }
        self
    }

    /// Refuses the run when an output is, lies inside or contains an input, or is or
    /// lies inside another output.
    pub fn check(&self) -> Result<(), UsageError> {
        let inputs: Vec<(&Named, Place)> = self
            .inputs
            .iter()
            .filter(|n| !object::is_url(&n.path))
            .filter_map(|n| Some((n, Place::of_existing(&n.path)?)))
            .collect();
        let outputs: Vec<(&Named, bool, Place)> = self
            .outputs
            .iter()
            .filter(|(n, _)| !object::is_url(&n.path))
            .map(|(n, inside_ok)| (n, *inside_ok, Place::of(&n.path)))
            .collect();
        self.check_urls()?;
        for (i, (out, inside_ok, place)) in outputs.iter().enumerate() {
            for (input, at) in &inputs {
                match place.relation(at) {
                    Some(Relation::Inside) if *inside_ok => {}
                    Some(r) => return Err(refusal(out, r, input, Some(r))),
                    None => {}
                }
            }
            for (other, _, at) in &outputs[..i] {
                if let Some(r) = place.relation(at) {
                    return Err(refusal(out, r, other, None));
                }
            }
        }
        Ok(())
    }

    /// The same rules for outputs and inputs named by URL (an object store's prefix),
    /// compared by bucket and whole key segments.
    fn check_urls(&self) -> Result<(), UsageError> {
        let url = |n: &Named| ObjectUrl::parse(&n.path);
        for (i, (out, inside_ok)) in self.outputs.iter().enumerate() {
            let Some(at) = url(out) else { continue };
            let relation = |other: &Named| {
                let r = at.relation(&url(other)?)?;
                Some(match r {
                    object::Relation::Same => Relation::Same,
                    object::Relation::Inside => Relation::Inside,
                    object::Relation::Contains => Relation::Contains,
                })
            };
            for input in &self.inputs {
                match relation(input) {
                    Some(Relation::Inside) if *inside_ok => {}
                    Some(r) => return Err(refusal(out, r, input, Some(r))),
                    None => {}
                }
            }
            for (other, _) in &self.outputs[..i] {
                if let Some(r) = relation(other) {
                    return Err(refusal(out, r, other, None));
                }
            }
        }
        Ok(())
    }

    /// Checks one more output against the run's inputs and outputs (the explorer's
    /// export, named as the user types it).
    pub fn check_new(&self, what: &str, path: &Path) -> Result<(), UsageError> {
        let mut all = self.clone();
        // Last, so that the message names it first.
        all.outputs.push((named(what, path), false));
        all.check()
    }
}

fn named(what: &str, path: &Path) -> Named {
    Named {
        what: what.to_string(),
        path: path.to_path_buf(),
    }
}

/// One line naming both paths and the rule: `input` is how the output stands to an
/// input, None for another output.
fn refusal(out: &Named, relation: Relation, other: &Named, input: Option<Relation>) -> UsageError {
    let show = |n: &Named| format!("{} {}", n.what, printable(&n.path.to_string_lossy()));
    let how = match relation {
        Relation::Same => "is the same file as",
        Relation::Inside => "is inside",
        Relation::Contains => "contains",
    };
    let rule = match input {
        Some(Relation::Same) => "simtui never writes over its input",
        Some(Relation::Inside) => "simtui never writes into its input",
        Some(Relation::Contains) => "simtui never replaces a folder that holds its input",
        None => "each output needs a place of its own",
    };
    UsageError(format!("{} {how} {}: {rule}", show(out), show(other)))
}

/// How one path stands to another on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Relation {
    Same,
    Inside,
    Contains,
}

/// What identifies a file or folder on disk: its device and inode number (on other
/// systems, its canonical path).
#[cfg(unix)]
type Key = (u64, u64);
#[cfg(not(unix))]
type Key = PathBuf;

/// The key of an existing path, links followed.
#[cfg(unix)]
fn key(path: &Path) -> Option<Key> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn key(path: &Path) -> Option<Key> {
    fs::canonicalize(path).ok()
}

/// Where a path is: the keys of its nearest existing folder (the path itself when it
/// exists) and of every folder above that one, nearest first; and the names below it
/// that do not exist yet.
#[derive(Clone, Debug, PartialEq)]
struct Place {
    chain: Vec<Key>,
    rest: Vec<OsString>,
}

impl Place {
    /// The place of `path`, which may not exist yet.
    fn of(path: &Path) -> Place {
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let mut existing = abs.as_path();
        let mut rest = Vec::new();
        while fs::metadata(existing).is_err() {
            match (existing.parent(), existing.components().next_back()) {
                (Some(parent), Some(Component::Normal(name))) => {
                    rest.push(name.to_os_string());
                    existing = parent;
                }
                _ => break,
            }
        }
        rest.reverse();
        // Links resolved, so that the folders above are the real ones.
        let real = fs::canonicalize(existing).unwrap_or_else(|_| existing.to_path_buf());
        let chain = real.ancestors().filter_map(key).collect();
        Place { chain, rest }
    }

    /// The place of an existing path; None when it does not exist (a missing input is
    /// the command's own error).
    fn of_existing(path: &Path) -> Option<Place> {
        fs::metadata(path).ok()?;
        Some(Place::of(path))
    }

    /// How `self` stands to `other`, if they overlap.
    fn relation(&self, other: &Place) -> Option<Relation> {
        let (a, b) = (self, other);
        let (Some(a0), Some(b0)) = (a.chain.first(), b.chain.first()) else {
            return None;
        };
        if a.rest.is_empty() && b.rest.is_empty() {
            return if a0 == b0 {
                Some(Relation::Same)
            } else if a.chain[1..].contains(b0) {
                Some(Relation::Inside)
            } else if b.chain[1..].contains(a0) {
                Some(Relation::Contains)
            } else {
                None
            };
        }
        // At least one does not exist: below an existing one, or the same names below
        // the same folder.
        if b.rest.is_empty() && a.chain.contains(b0) {
            return Some(Relation::Inside);
        }
        if a.rest.is_empty() && b.chain.contains(a0) {
            return Some(Relation::Contains);
        }
        if a0 != b0 || a.rest.is_empty() || b.rest.is_empty() {
            return None;
        }
        if a.rest == b.rest {
            Some(Relation::Same)
        } else if a.rest.starts_with(&b.rest) {
            Some(Relation::Inside)
        } else if b.rest.starts_with(&a.rest) {
            Some(Relation::Contains)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(paths: Paths) -> String {
        paths.check().map_or_else(|e| e.0, |()| "ok".into())
    }

    #[test]
    fn an_output_may_not_be_inside_contain_or_be_an_input() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = dir.path().join("corpus");
        let raw = corpus.join("raw");
        fs::create_dir_all(&raw).unwrap();
        fs::write(raw.join("a.txt"), "a").unwrap();
        let run = |out: &Path| {
            check(
                Paths::default()
                    .input("the input", raw.as_path())
                    .output("-o", out),
            )
        };
        assert!(
            run(&corpus).contains("contains the input"),
            "{}",
            run(&corpus)
        );
        assert!(run(dir.path()).contains("contains the input"));
        assert!(run(&raw).contains("is the same file as the input"));
        assert!(run(&raw.join("a.txt")).contains("is inside the input"));
        assert!(run(&raw.join("new/deeper/x")).contains("is inside the input"));
        assert_eq!(run(&corpus.join("clean")), "ok");
        assert_eq!(run(&dir.path().join("new")), "ok");
        let e = run(&corpus);
        assert!(
            e.starts_with(&format!(
                "-o {} contains the input {}",
                corpus.display(),
                raw.display()
            )),
            "{e}"
        );
    }

    #[test]
    fn a_second_path_to_an_input_is_the_input() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("d");
        simtui_gen::write_files(&d, &[("a.txt", "a")]).unwrap();
        let alias = dir.path().join("alias");
        std::os::unix::fs::symlink(&d, &alias).unwrap();
        let run = |out: &Path| {
            check(
                Paths::default()
                    .input("the input", d.as_path())
                    .output("-o", out),
            )
        };
        assert!(run(&alias.join("out")).contains("is inside the input"));
        assert!(run(&alias).contains("is the same file as the input"));
        // A hard link to an input file is that file.
        let link = dir.path().join("hard.txt");
        fs::hard_link(d.join("a.txt"), &link).unwrap();
        let e = check(
            Paths::default()
                .input("the input", d.join("a.txt").as_path())
                .output("-o", link.as_path()),
        );
        assert!(e.contains("is the same file as"), "{e}");
    }

    /// The comparison is by (device, inode), whatever the spelling: two places whose
    /// folders have the same keys are the same place (a bind mount gives its folder the
    /// key of the folder mounted).
    #[test]
    fn places_compare_by_key_not_by_name() {
        let place = |chain: &[Key], rest: &[&str]| Place {
            chain: chain.to_vec(),
            rest: rest.iter().map(OsString::from).collect(),
        };
        let (root, corpus, raw, other) = ((1, 2), (1, 7), (1, 9), (2, 7));
        // OUT a bind mount of the corpus folder, seen from another path: the same key.
        assert_eq!(
            place(&[corpus, root], &[]).relation(&place(&[raw, corpus, root], &[])),
            Some(Relation::Contains)
        );
        assert_eq!(
            place(&[corpus, root], &["out"]).relation(&place(&[corpus, root], &[])),
            Some(Relation::Inside)
        );
        // The same inode number on another device is another folder.
        assert_eq!(
            place(&[other, root], &["out"]).relation(&place(&[corpus, root], &[])),
            None
        );
        assert_eq!(
            place(&[root], &["a", "b"]).relation(&place(&[root], &["a"])),
            Some(Relation::Inside)
        );
        assert_eq!(
            place(&[root], &["a"]).relation(&place(&[root], &["a", "b"])),
            Some(Relation::Contains)
        );
        assert_eq!(
            place(&[root], &["a"]).relation(&place(&[root], &["a"])),
            Some(Relation::Same)
        );
        assert_eq!(
            place(&[root], &["a"]).relation(&place(&[root], &["b"])),
            None
        );
    }

    #[test]
    fn outputs_may_not_overlap_and_an_index_may_lie_inside_its_corpus() {
        let dir = tempfile::tempdir().unwrap();
        let c = dir.path().join("c");
        fs::create_dir(&c).unwrap();
        let list = dir.path().join("list.jsonl");
        fs::write(&list, "").unwrap();
        let e = check(
            Paths::default()
                .input("--review", list.as_path())
                .output("--keep-list", list.as_path()),
        );
        assert!(
            e.contains("--keep-list") && e.contains("is the same file as --review"),
            "{e}"
        );
        let out = dir.path().join("out");
        let e = check(
            Paths::default()
                .output("OUT", out.as_path())
                .output("--truth", out.join("t.jsonl").as_path()),
        );
        assert!(e.contains("--truth") && e.contains("is inside OUT"), "{e}");
        let auto = c.join(".simtui-index");
        assert_eq!(
            check(
                Paths::default()
                    .input("the input", c.as_path())
                    .index("--index", auto.as_path())
            ),
            "ok"
        );
        let e = check(
            Paths::default()
                .input("the input", c.as_path())
                .index("--index", c.as_path()),
        );
        assert!(e.contains("is the same file as the input"), "{e}");
        let e = Paths::default()
            .input("the input", c.as_path())
            .check_new("the export", &c.join("pairs.csv"))
            .unwrap_err();
        assert!(e.0.starts_with("the export"), "{e}");
    }
}
