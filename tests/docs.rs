//! The documentation holds together: the README stays a front door (at most 300 lines),
//! and every relative link in README.md, ARCHITECTURE.md and doc/*.md names a file that
//! exists and, with `#anchor`, a heading of that file.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

const README_MAX_LINES: usize = 300;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The documentation pages: the README, ARCHITECTURE.md when present, and doc/*.md.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md")];
    let arch = root().join("ARCHITECTURE.md");
    if arch.exists() {
        pages.push(arch);
    }
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("doc"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// The text outside fenced code blocks, where links and headings are.
fn prose(text: &str) -> Vec<&str> {
    let mut in_code = false;
    text.lines()
        .filter(|l| {
            if l.trim_start().starts_with("```") {
                in_code = !in_code;
                return false;
            }
            !in_code
        })
        .collect()
}

/// GitHub's anchor of a heading: lowercase, spaces to `-`, punctuation other than `-`
/// and `_` dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(page: &Path) -> HashSet<String> {
    let text = std::fs::read_to_string(page).unwrap();
    prose(&text)
        .into_iter()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|h| anchor(h.trim_start_matches('#')))
        .collect()
}

/// The targets of `[text](target)` links in a line.
fn links(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        if let Some(end) = rest.find(')') {
            out.push(&rest[..end]);
            rest = &rest[end..];
        }
    }
    out
}

#[test]
fn the_readme_is_a_front_door() {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let n = text.lines().count();
    assert!(
        n <= README_MAX_LINES,
        "README.md has {n} lines: the manual belongs in doc/"
    );
    for needed in ["cargo run --release", "cargo test"] {
        assert!(text.contains(needed), "README.md lost `{needed}`");
    }
}

#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let dir = page.parent().unwrap();
        for line in prose(&text) {
            for target in links(line) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (file, frag) = match target.split_once('#') {
                    Some((f, a)) => (f, Some(a)),
                    None => (target, None),
                };
                let path = if file.is_empty() {
                    page.clone()
                } else {
                    dir.join(file)
                };
                let name = page.strip_prefix(root()).unwrap().display().to_string();
                if !path.exists() {
                    broken.push(format!("{name}: {target} (no such file)"));
                } else if let Some(a) = frag
                    && path.extension().is_some_and(|e| e == "md")
                    && !anchors(&path).contains(a)
                {
                    broken.push(format!("{name}: {target} (no such heading)"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_follow_github() {
    assert_eq!(
        anchor(" Colour, diagnostics and exit codes"),
        "colour-diagnostics-and-exit-codes"
    );
    assert_eq!(
        anchor("The exact pairs: prefix-filtered join"),
        "the-exact-pairs-prefix-filtered-join"
    );
}
