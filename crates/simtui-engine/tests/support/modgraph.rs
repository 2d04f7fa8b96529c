//! The import graph of a crate's module files, for the architecture tests: which file
//! imports which, the cycles among them, and the sizes of files and functions.
//!
//! A file's module path comes from its place (`a/b.rs` and `a/b/mod.rs` are `a::b`).
//! Every `crate::` and `super::` path in a file's code is an edge to the deepest module
//! file it names (`use crate::a::{b, c::D}` names `a::b` and `a::c`); comments, string
//! literals and test modules (`#[cfg(test)] mod x { .. }`, and files declared as
//! `#[cfg(test)] mod x;`) are left out, and so are paths to the crate root (its
//! re-exports are the crate's front, not a stage). A cycle is a strongly connected
//! component of more than one file.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A module path: `["search", "verify"]` for `search/verify.rs`, empty for the root.
pub type Module = Vec<String>;

/// The module files of a crate and what they import.
pub struct Graph {
    /// Each module's file, relative to the source folder.
    pub files: BTreeMap<Module, PathBuf>,
    /// Each module's code without comments, literals and tests.
    pub code: BTreeMap<Module, String>,
    /// The modules each module imports.
    pub edges: BTreeMap<Module, BTreeSet<Module>>,
}

impl Graph {
    /// The graph of the crate whose sources are under `src`.
    pub fn of(src: &Path) -> Graph {
        let mut files = BTreeMap::new();
        collect(src, src, &mut files);
        let mut raw: BTreeMap<Module, String> = BTreeMap::new();
        for (module, rel) in &files {
            raw.insert(module.clone(), fs::read_to_string(src.join(rel)).unwrap());
        }
        // Files that are test modules of their parent, and the modules inside those, are
        // not part of the program.
        let tests: BTreeSet<Module> = raw
            .iter()
            .flat_map(|(m, text)| test_children(m, text))
            .collect();
        files.retain(|m, _| !tests.iter().any(|t| m.starts_with(t)));
        let code: BTreeMap<Module, String> = files
            .keys()
            .map(|m| {
                (
                    m.clone(),
                    without_tests(&blank_comments_and_literals(&raw[m])),
                )
            })
            .collect();
        let mut edges = BTreeMap::new();
        for (m, text) in &code {
            let mut out = BTreeSet::new();
            for path in paths(text, m) {
                let mut p = path;
                while !p.is_empty() && !files.contains_key(&p) {
                    p.pop();
                }
                if !p.is_empty() && &p != m {
                    out.insert(p);
                }
            }
            edges.insert(m.clone(), out);
        }
        Graph { files, code, edges }
    }

    /// The cycles: strongly connected components of more than one module, each as its
    /// files, sorted.
    pub fn cycles(&self) -> Vec<Vec<String>> {
        let nodes: Vec<&Module> = self.files.keys().collect();
        let at: BTreeMap<&Module, usize> = nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
        let next: Vec<Vec<usize>> = nodes
            .iter()
            .map(|m| self.edges[*m].iter().map(|e| at[e]).collect())
            .collect();
        let mut out: Vec<Vec<String>> = strongly_connected(&next)
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|c| {
                let mut names: Vec<String> = c.iter().map(|&i| self.name(nodes[i])).collect();
                names.sort();
                names
            })
            .collect();
        out.sort();
        out
    }

    /// A module's file, with '/'.
    pub fn name(&self, m: &Module) -> String {
        self.files[m].to_string_lossy().replace('\\', "/")
    }

    /// Lines of each file's code before its tests.
    pub fn lines(&self, m: &Module) -> usize {
        self.code[m].lines().count()
    }

    /// The functions of a module longer than `max` lines: (name, first line, lines).
    pub fn long_functions(&self, m: &Module, max: usize) -> Vec<(String, usize, usize)> {
        let lines: Vec<&str> = self.code[m].lines().collect();
        let mut out = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let Some((indent, name)) = fn_start(line) else {
                continue;
            };
            // rustfmt closes a function at the indentation it opened it.
            let close = format!("{indent}}}");
            let end = lines[i..]
                .iter()
                .position(|l| l.trim_end() == close)
                .map(|n| i + n);
            if let Some(end) = end
                && end - i + 1 > max
            {
                out.push((name, i + 1, end - i + 1));
            }
        }
        out
    }
}

/// The module files under `dir`, by module path.
fn collect(src: &Path, dir: &Path, out: &mut BTreeMap<Module, PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let path = e.path();
        if path.is_dir() {
            collect(src, &path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            let rel = path.strip_prefix(src).unwrap().to_path_buf();
            out.insert(module_of(&rel), rel);
        }
    }
}

fn module_of(rel: &Path) -> Module {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The modules a file declares as `#[cfg(test)] mod name;`.
fn test_children(m: &Module, text: &str) -> Vec<Module> {
    let text = blank_comments_and_literals(text);
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        rest = &rest[at + "#[cfg(test)]".len()..];
        let decl = rest.trim_start();
        let decl = decl.strip_prefix("pub(crate) ").unwrap_or(decl);
        if let Some(after) = decl.strip_prefix("mod ") {
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if after[name.len()..].trim_start().starts_with(';') {
                // Module `m::name`: beside a mod.rs, in `a/` for an `a.rs`.
                let mut child = m.clone();
                child.push(name);
                out.push(child);
            }
        }
    }
    out
}

/// The code with comments blanked and the insides of string and character literals
/// emptied (lines kept, so that line numbers hold).
fn blank_comments_and_literals(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let keep_newlines = |s: &[u8], out: &mut String| {
        for &c in s {
            if c == b'\n' {
                out.push('\n');
            }
        }
    };
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let end = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
            i += end;
        } else if rest.starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(rest.len(), |n| n + 4);
            keep_newlines(&rest[..end], &mut out);
            i += end;
        } else if let Some(len) = raw_string(rest) {
            out.push_str("\"\"");
            keep_newlines(&rest[..len], &mut out);
            i += len;
        } else if rest[0] == b'"' {
            let mut j = 1;
            while j < rest.len() && rest[j] != b'"' {
                j += if rest[j] == b'\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            keep_newlines(&rest[..(j + 1).min(rest.len())], &mut out);
            i += j + 1;
        } else if rest[0] == b'\'' && char_literal(rest).is_some() {
            out.push_str("' '");
            i += char_literal(rest).unwrap();
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The length of a raw string literal (`r"..."`, `r#"..."#`) at the start, if one is.
fn raw_string(b: &[u8]) -> Option<usize> {
    let b2 = b.strip_prefix(b"b").unwrap_or(b);
    let prefix = b.len() - b2.len();
    let b2 = b2.strip_prefix(b"r")?;
    let hashes = b2.iter().take_while(|&&c| c == b'#').count();
    if b2.get(hashes) != Some(&b'"') {
        return None;
    }
    let close: Vec<u8> = std::iter::once(b'"')
        .chain(std::iter::repeat_n(b'#', hashes))
        .collect();
    let body = &b2[hashes + 1..];
    let end = body
        .windows(close.len())
        .position(|w| w == close.as_slice())?;
    Some(prefix + 1 + hashes + 1 + end + close.len())
}

/// The length of a character literal at the start (`'a'`, `'\n'`, `'\u{1F600}'`), not
/// a lifetime.
fn char_literal(b: &[u8]) -> Option<usize> {
    if b.get(1) == Some(&b'\\') {
        let end = b[2..].iter().position(|&c| c == b'\'')?;
        return Some(end + 3);
    }
    let s = std::str::from_utf8(&b[1..b.len().min(6)])
        .ok()
        .or_else(|| {
            // A cut in the middle of a character: take what decodes.
            (1..5)
                .rev()
                .find_map(|n| std::str::from_utf8(b.get(1..1 + n)?).ok())
        })?;
    let c = s.chars().next()?;
    (b.get(1 + c.len_utf8()) == Some(&b'\'')).then_some(c.len_utf8() + 2)
}

/// The code without its test modules (`#[cfg(test)] mod name { .. }`).
fn without_tests(code: &str) -> String {
    let mut out = code.to_string();
    while let Some(at) = out.find("#[cfg(test)]") {
        let after = &out[at + "#[cfg(test)]".len()..];
        let decl = after.trim_start();
        let decl = decl.strip_prefix("pub(crate) ").unwrap_or(decl);
        let Some(m) = decl.strip_prefix("mod ") else {
            // A test-only item other than a module: blank the attribute, keep the item.
            out.replace_range(at..at + "#[cfg(test)]".len(), "");
            continue;
        };
        let Some(open) = m.find(['{', ';']) else {
            break;
        };
        let start = out.len() - m.len() + open;
        if out.as_bytes()[start] == b';' {
            out.replace_range(at..start + 1, "");
            continue;
        }
        let mut depth = 0;
        let mut end = start;
        for (k, c) in out[start..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = start + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.replace_range(at..end, "");
    }
    out
}

/// Every module path a file's `crate::` and `super::` paths name, use-tree groups
/// expanded.
fn paths(code: &str, me: &Module) -> Vec<Module> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < b.len() {
        let word = ["crate::", "super::"]
            .into_iter()
            .find(|w| code[i..].starts_with(w) && (i == 0 || !ident(b[i - 1])));
        let Some(word) = word else {
            i += 1;
            continue;
        };
        let mut base: Module = if word == "crate::" {
            Vec::new()
        } else {
            // `super` of a.rs and of a/mod.rs alike is the parent of module `a`.
            me[..me.len().saturating_sub(1)].to_vec()
        };
        i += word.len();
        while code[i..].starts_with("super::") {
            base.pop();
            i += "super::".len();
        }
        i = tree(code, i, base, &mut out);
    }
    out
}

/// Reads a path or use tree at `i` under `base`, adding the module paths it names;
/// returns where it ends.
fn tree(code: &str, mut i: usize, mut base: Module, out: &mut Vec<Module>) -> usize {
    let b = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < b.len() && b[i] == b'{' {
            i += 1;
            loop {
                while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b',') {
                    i += 1;
                }
                if i >= b.len() || b[i] == b'}' {
                    out.push(base.clone());
                    return i + 1;
                }
                if code[i..].starts_with("self") && !ident(*b.get(i + 4).unwrap_or(&b' ')) {
                    i += 4;
                    continue;
                }
                i = tree(code, i, base.clone(), out);
            }
        }
        let start = i;
        while i < b.len() && ident(b[i]) {
            i += 1;
        }
        if i == start {
            out.push(base);
            return i;
        }
        base.push(code[start..i].to_string());
        if code[i..].starts_with("::") {
            i += 2;
        } else {
            out.push(base);
            return i;
        }
    }
}

/// A function's indentation and name, if the line starts one.
fn fn_start(line: &str) -> Option<(String, String)> {
    let indent: String = line.chars().take_while(|c| *c == ' ').collect();
    let mut rest = line[indent.len()..].trim_start();
    for prefix in [
        "pub(crate) ",
        "pub(super) ",
        "pub ",
        "const ",
        "async ",
        "unsafe ",
        "extern \"C\" ",
    ] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let rest = rest.strip_prefix("fn ")?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty() && !line.trim_end().ends_with(';')).then_some((indent, name))
}

/// Tarjan's strongly connected components of a graph given as successor lists.
fn strongly_connected(next: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        next: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on: Vec<bool>,
        count: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.count);
        s.low[v] = s.count;
        s.count += 1;
        s.stack.push(v);
        s.on[v] = true;
        for k in 0..s.next[v].len() {
            let w = s.next[v][k];
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            s.out.push(comp);
        }
    }
    let n = next.len();
    let mut s = State {
        next,
        index: vec![None; n],
        low: vec![0; n],
        stack: Vec::new(),
        on: vec![false; n],
        count: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}
