//! Removal lists and keep-lists: what `simtui dedup` writes beside its output
//! (`OUT.removed.jsonl`: one JSON object a line, the removed document's `id`, its
//! `source`, the `kept` id, their `jaccard` and the `cluster`), read back by the
//! explorer's review; and the keep-list (ids, one a line, `#` comments) that the review
//! writes and `dedup --keep-list` honours.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One removal: a document removed in favour of a kept one.
#[derive(Clone, Debug, PartialEq)]
pub struct Removed {
    /// The removed document's id.
    pub id: String,
    /// The id of the document kept in its place.
    pub kept: String,
    /// Their exact Jaccard similarity, as the list gives it.
    pub jaccard: Option<f64>,
    /// The cluster they are in, as the list numbers it.
    pub cluster: Option<u64>,
}

/// An id as a list writes it: a string, or a number written as its digits.
fn id_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Reads a removal list: every non-empty line an object with `id` and `kept`. An error
/// names the first line that is not.
pub fn read(path: &Path) -> Result<Vec<Removed>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the removal list {}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// [`read`] on a list's text.
pub fn parse(text: &str) -> Result<Vec<Removed>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |why: &str| format!("line {}: {why}", n + 1);
        let v: Value = serde_json::from_str(line).map_err(|e| bad(&e.to_string()))?;
        let id = id_of(v.get("id")).ok_or_else(|| bad("no \"id\" (string or number)"))?;
        let kept = id_of(v.get("kept")).ok_or_else(|| bad("no \"kept\" (string or number)"))?;
        out.push(Removed {
            id,
            kept,
            jaccard: v.get("jaccard").and_then(Value::as_f64),
            cluster: v.get("cluster").and_then(Value::as_u64),
        });
    }
    Ok(out)
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
    fn a_removal_list_reads_ids_as_strings_or_numbers() {
        let list = parse(
            "{\"id\":\"b.txt\",\"source\":\"b.txt\",\"kept\":\"a.txt\",\"jaccard\":0.9,\"cluster\":3}\n\n{\"id\":17,\"kept\":4}\n",
        )
        .unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].kept, "a.txt");
        assert_eq!(list[0].jaccard, Some(0.9));
        assert_eq!(list[0].cluster, Some(3));
        assert_eq!((list[1].id.as_str(), list[1].kept.as_str()), ("17", "4"));
        assert_eq!(list[1].jaccard, None);
    }

    #[test]
    fn a_bad_line_is_named() {
        let e = parse("{\"id\":\"a\",\"kept\":\"b\"}\n{\"id\":\"c\"}\n").unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
        assert!(parse("not json\n").unwrap_err().starts_with("line 1:"));
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
