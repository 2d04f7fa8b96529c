//! Removal lists and keep-lists: what `simtui dedup` writes beside its output
//! (`OUT.removed.jsonl`: one JSON object a line, the removed document's `id`, its
//! `source`, the `kept` id, their `jaccard` and the `cluster`), read back by the
//! explorer's review (`foreign_removals::read` reads a list of any shape: this one,
//! or datatrove's or text-dedup's); and the keep-list (ids, one a line, `#` comments)
//! that the review writes and `dedup --keep-list` honours.

use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// How a removal list names a document of the corpus.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DocRef {
    /// By its id (simtui's lists; datatrove's exclusion writer).
    Id(String),
    /// By its row in the whole input, from 0: files in name order, rows in file order
    /// (text-dedup's `__INDEX__`).
    Row(u64),
    /// As the `doc`-th document (from 0) that task `rank` of datatrove's reader read
    /// (datatrove's `.remove` files).
    Task { rank: u32, doc: u32 },
    /// Not named by the list: the review shows the most similar document instead.
    Nearest,
}

impl fmt::Display for DocRef {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            DocRef::Id(id) => f.write_str(id),
            DocRef::Row(row) => write!(f, "row {row}"),
            DocRef::Task { rank, doc } => write!(f, "task {rank} document {doc}"),
            DocRef::Nearest => f.write_str("(not named)"),
        }
    }
}

/// One removal: a document removed in favour of a kept one.
#[derive(Clone, Debug, PartialEq)]
pub struct Removed {
    /// The removed document.
    pub id: DocRef,
    /// The document kept in its place ([`DocRef::Nearest`] when the list does not say).
    pub kept: DocRef,
    /// Their exact Jaccard similarity, as the list gives it.
    pub jaccard: Option<f64>,
    /// The cluster they are in, as the list numbers it.
    pub cluster: Option<u64>,
}

/// A removal list as read: what wrote it, and its removals.
#[derive(Clone, Debug, PartialEq)]
pub struct RemovalList {
    /// The list's shape, for the review's title (`simtui`, `datatrove .remove`, …).
    pub format: &'static str,
    pub removed: Vec<Removed>,
}

/// An id as a list writes it: a string, or a number written as its digits.
fn id_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Parses JSON Lines removals: simtui's list (every line with `id` and `kept`), or, when
/// the first line has no `kept` but a `text`, datatrove's exclusion writer's documents
/// (`id`, `text`, `metadata`), which name no kept document.
pub fn parse_any(text: &str) -> Result<RemovalList, String> {
    let first = text.lines().find(|l| !l.trim().is_empty());
    let first: Option<Value> = first.and_then(|l| serde_json::from_str(l).ok());
    let excluded = first.is_some_and(|v| v.get("kept").is_none() && v.get("text").is_some());
    if excluded {
        return parse_excluded(text).map(|removed| RemovalList {
            format: "datatrove exclusion",
            removed,
        });
    }
    parse(text).map(|removed| RemovalList {
        format: "simtui",
        removed,
    })
}

/// Simtui's list: every non-empty line an object with `id` and `kept`.
pub fn parse(text: &str) -> Result<Vec<Removed>, String> {
    each_line(text, |v, bad| {
        let id = required_id(v, bad)?;
        let kept = id_of(v.get("kept")).ok_or_else(|| bad("no \"kept\" (string or number)"))?;
        Ok(Removed {
            id: DocRef::Id(id),
            kept: DocRef::Id(kept),
            jaccard: v.get("jaccard").and_then(Value::as_f64),
            cluster: v.get("cluster").and_then(Value::as_u64),
        })
    })
}

/// Each non-empty line of a JSON Lines list made a removal by `removal`, which is
/// given the line's object and what makes an error naming the line.
fn each_line(
    text: &str,
    removal: impl Fn(&Value, &dyn Fn(&str) -> String) -> Result<Removed, String>,
) -> Result<Vec<Removed>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |why: &str| format!("line {}: {why}", n + 1);
        let v: Value = serde_json::from_str(line).map_err(|e| bad(&e.to_string()))?;
        out.push(removal(&v, &bad)?);
    }
    Ok(out)
}

/// A line's `id`, or the error that it has none.
fn required_id(v: &Value, bad: &dyn Fn(&str) -> String) -> Result<String, String> {
    id_of(v.get("id")).ok_or_else(|| bad("no \"id\" (string or number)"))
}

/// Datatrove's exclusion writer (`MinhashDedupFilter(exclusion_writer=JsonlWriter(..))`):
/// each removed document as its `JsonlWriter` writes it, `id`, `text` and `metadata`
/// (with `minhash_cluster_id` when the filter loaded cluster ids, at the top level when
/// the writer expanded the metadata). The kept document is not named.
fn parse_excluded(text: &str) -> Result<Vec<Removed>, String> {
    each_line(text, |v, bad| {
        let cluster = v
            .get("metadata")
            .and_then(|m| m.get("minhash_cluster_id"))
            .or_else(|| v.get("minhash_cluster_id"))
            .and_then(Value::as_u64);
        Ok(Removed {
            id: DocRef::Id(required_id(v, bad)?),
            kept: DocRef::Nearest,
            jaccard: None,
            cluster,
        })
    })
}

/// Where the review writes its keep-list unless told: beside the removal list,
/// `OUT.removed.jsonl` → `OUT.keep-list`.
pub fn default_keep_list(removed: &Path) -> PathBuf {
    let name = removed
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let stem = name
        .as_deref()
        .and_then(|n| n.strip_suffix(".removed.jsonl"))
        .map(str::to_string)
        .unwrap_or_else(|| name.unwrap_or_default());
    removed.with_file_name(format!("{stem}.keep-list"))
}

/// The fields of each line of the removal list `simtui dedup` writes.
const LIST_FIELDS: [&str; 5] = ["id", "source", "kept", "jaccard", "cluster"];

/// Whether `path` is a removal list as `simtui dedup` writes it (what `dedup --force`
/// may replace): a regular file, empty or of JSON lines each with simtui's fields. Only
/// its first 64 KiB are read (whole lines: at least one when it is longer).
pub fn is_simtui_list(path: &Path) -> bool {
    use std::io::Read;
    const HEAD: u64 = 64 << 10;
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut head = Vec::new();
    if file.take(HEAD + 1).read_to_end(&mut head).is_err() {
        return false;
    }
    let whole = head.len() as u64 <= HEAD;
    let Ok(text) = std::str::from_utf8(&head) else {
        // Cut inside a character: the lines before the cut are still whole.
        return !whole && is_list_text(&String::from_utf8_lossy(&head), false);
    };
    is_list_text(text, whole)
}

/// Every whole line of `text` a removal of simtui's list (the last one only if `whole`
/// says the text is the file's end); a text cut before its first line ends is none.
fn is_list_text(text: &str, whole: bool) -> bool {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let complete = match lines.last() {
        Some(last) if !whole && !last.ends_with('\n') => &lines[..lines.len() - 1],
        _ => &lines[..],
    };
    if !whole && complete.is_empty() {
        return false;
    }
    complete.iter().filter(|l| !l.trim().is_empty()).all(|l| {
        serde_json::from_str::<Value>(l)
            .is_ok_and(|v| v.is_object() && LIST_FIELDS.iter().all(|f| v.get(f).is_some()))
    })
}

/// The ids of a keep-list's text: one a line, blank lines and `#` comments skipped (as
/// `dedup --keep-list` reads them).
pub fn keep_ids(text: &str) -> BTreeSet<String> {
    text.lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// A keep-list's text for `ids`.
pub fn keep_text(ids: &BTreeSet<String>) -> String {
    let mut text = String::from(
        "# Ids whose removal was marked wrong in simtui's review: `simtui dedup --keep-list` keeps them.\n",
    );
    for id in ids {
        text.push_str(id);
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simtui_lists_are_told_from_other_files() {
        let dir = tempfile::tempdir().unwrap();
        let list = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            is_simtui_list(&p)
        };
        let line = r#"{"id":"a","source":"c/a","kept":"b","jaccard":0.9,"cluster":1}"#;
        assert!(list("empty", ""));
        assert!(list("one", &format!("{line}\n")));
        assert!(
            list("long", &format!("{line}\n").repeat(5000)),
            "read to 64 KiB only"
        );
        assert!(!list("text", "some notes\n"));
        assert!(!list("other", "{\"id\":\"a\",\"kept\":\"b\"}\n"));
        assert!(!list("mixed", &format!("{line}\nnotes\n")));
        assert!(!list("one long line", &"x".repeat(70_000)));
        assert!(!is_simtui_list(dir.path()), "a folder");
        assert!(!is_simtui_list(&dir.path().join("missing")));
    }

    #[test]
    fn a_removal_list_reads_ids_as_strings_or_numbers() {
        let list = parse(
            "{\"id\":\"b.txt\",\"source\":\"b.txt\",\"kept\":\"a.txt\",\"jaccard\":0.9,\"cluster\":3}\n\n{\"id\":17,\"kept\":4}\n",
        )
        .unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].kept, DocRef::Id("a.txt".into()));
        assert_eq!(list[0].jaccard, Some(0.9));
        assert_eq!(list[0].cluster, Some(3));
        assert_eq!(list[1].id, DocRef::Id("17".into()));
        assert_eq!(list[1].kept, DocRef::Id("4".into()));
        assert_eq!(list[1].jaccard, None);
    }

    #[test]
    fn a_bad_line_is_named() {
        let e = parse("{\"id\":\"a\",\"kept\":\"b\"}\n{\"id\":\"c\"}\n").unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
        assert!(parse("not json\n").unwrap_err().starts_with("line 1:"));
    }

    #[test]
    fn an_exclusion_list_names_no_kept_document() {
        // As datatrove's JsonlWriter writes a removed Document (empty fields left out).
        let text = concat!(
            "{\"text\":\"the same words\",\"id\":\"doc-7\",\"metadata\":{\"file_path\":\"/d/a.jsonl\",\"minhash_cluster_id\":2}}\n",
            "{\"text\":\"more words\",\"id\":\"a.jsonl/3\",\"minhash_cluster_id\":5}\n",
        );
        let list = parse_any(text).unwrap();
        assert_eq!(list.format, "datatrove exclusion");
        assert_eq!(list.removed[0].id, DocRef::Id("doc-7".into()));
        assert_eq!(list.removed[0].kept, DocRef::Nearest);
        assert_eq!(list.removed[0].cluster, Some(2));
        assert_eq!(list.removed[1].cluster, Some(5), "expanded metadata");
        // simtui's own list is still told by its `kept`.
        let own = parse_any("{\"id\":\"b\",\"kept\":\"a\",\"text\":\"x\"}\n").unwrap();
        assert_eq!(
            (own.format, own.removed[0].kept.clone()),
            ("simtui", DocRef::Id("a".into()))
        );
        assert!(
            parse_any("{\"id\":\"b\"}\n")
                .unwrap_err()
                .starts_with("line 1:")
        );
    }

    #[test]
    fn keep_lists_round_trip_and_sit_beside_the_removal_list() {
        let ids: BTreeSet<String> = ["x", "a b"].iter().map(|s| s.to_string()).collect();
        assert_eq!(keep_ids(&keep_text(&ids)), ids);
        assert_eq!(
            default_keep_list(Path::new("/o/out.removed.jsonl")),
            Path::new("/o/out.keep-list")
        );
        assert_eq!(
            default_keep_list(Path::new("r.jsonl")),
            Path::new("r.jsonl.keep-list")
        );
    }
}
