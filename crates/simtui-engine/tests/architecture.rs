//! The engine's shape, checked on every `cargo test` (and so in CI): the stages import
//! one way, each only the stages below it, no module imports one that imports it back
//! (directly or around a circle), and no file or function outgrows what a reader takes
//! in at once. ARCHITECTURE.md at the repository's root draws the stages.

#[path = "support/modgraph.rs"]
mod modgraph;

use modgraph::{Graph, Module};
use std::path::Path;

/// The stages from the bottom up: a module may import its own stage's modules and those
/// of the stages below it, never above. The base (hash, rng, natural, progress, error)
/// may import each other (without a cycle); the two top stages may not import each
/// other.
const LAYERS: &[&[&str]] = &[
    &["hash", "rng", "natural", "progress", "error"],
    &["storage"],
    &["source"],
    &["text"],
    &["shingle"],
    &["sketch"],
    &["search"],
    &["index"],
    &["analysis", "store"],
];

/// Lines of code (tests left out) a file may have, and a function.
const MAX_FILE: usize = 700;
const MAX_FN: usize = 120;

fn graph() -> Graph {
    Graph::of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

/// The stage of a module (its first path segment), and its layer; None for the root.
fn layer(m: &Module) -> Option<(&str, usize)> {
    let stage = m.first()?.as_str();
    let at = LAYERS.iter().position(|l| l.contains(&stage));
    Some((
        stage,
        at.unwrap_or_else(|| panic!("module {stage} is in no layer of LAYERS")),
    ))
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let cycles = graph().cycles();
    assert!(cycles.is_empty(), "import cycles: {cycles:#?}");
}

#[test]
fn each_stage_imports_only_the_stages_below_it() {
    let g = graph();
    let mut wrong = Vec::new();
    for (from, tos) in &g.edges {
        let Some((stage, at)) = layer(from) else {
            continue;
        };
        for to in tos {
            let Some((other, to_at)) = layer(to) else {
                continue;
            };
            let upward = to_at > at || (to_at == at && at > 0 && other != stage);
            if upward {
                wrong.push(format!("{} imports {}", g.name(from), g.name(to)));
            }
        }
    }
    assert!(wrong.is_empty(), "imports against the layers: {wrong:#?}");
}

#[test]
fn files_and_functions_stay_readable() {
    let g = graph();
    let mut long = Vec::new();
    for m in g.files.keys() {
        if g.lines(m) > MAX_FILE {
            long.push(format!("{}: {} lines", g.name(m), g.lines(m)));
        }
        for (name, line, lines) in g.long_functions(m, MAX_FN) {
            long.push(format!("{}:{line}: fn {name}, {lines} lines", g.name(m)));
        }
    }
    assert!(
        long.is_empty(),
        "over {MAX_FILE} lines a file or {MAX_FN} a function: {long:#?}"
    );
}

#[test]
fn the_check_sees_imports_and_cycles() {
    // A check that can fail: this very file's graph reader, on a made-up crate of three
    // files in a circle and one test module that would close another.
    let dir = std::env::temp_dir().join(format!("simtui-modgraph-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("b")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a; mod b;").unwrap();
    std::fs::write(
        dir.join("a.rs"),
        "// crate::c in a comment is no import\nuse crate::b::{c::X, self};\nconst S: &str = \"crate::z\";\n#[cfg(test)]\nmod tests { use crate::z; }",
    )
    .unwrap();
    std::fs::write(dir.join("b/mod.rs"), "pub mod c;").unwrap();
    std::fs::write(dir.join("b/c.rs"), "use super::super::a::Y;").unwrap();
    let g = Graph::of(&dir);
    let a: Module = vec!["a".into()];
    let edges: Vec<String> = g.edges[&a].iter().map(|m| g.name(m)).collect();
    assert_eq!(edges, ["b/mod.rs", "b/c.rs"]);
    assert_eq!(
        g.cycles(),
        vec![vec!["a.rs".to_string(), "b/c.rs".to_string()]]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
