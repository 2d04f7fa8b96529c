//! The binary's shape, checked on every `cargo test` (and so in CI): no module imports
//! one that imports it back, but for the cycles listed here, which are to go; and the
//! explorer never imports the commands. The engine checks its own stages
//! (crates/simtui-engine/tests/architecture.rs); ARCHITECTURE.md draws both.

// Shared with the engine's check, which also measures files and functions.
#[allow(dead_code)]
#[path = "../crates/simtui-engine/tests/support/modgraph.rs"]
mod modgraph;

use modgraph::Graph;
use std::path::Path;

/// Import cycles the binary still has, each to be removed. When one is gone, remove it
/// here too: the test fails until then, so this list never outlives them.
const KNOWN_CYCLES: &[&[&str]] = &[];

fn graph() -> Graph {
    Graph::of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

#[test]
fn no_module_imports_one_that_imports_it_back_but_the_known_ones() {
    let found = graph().cycles();
    let known: Vec<Vec<String>> = KNOWN_CYCLES
        .iter()
        .map(|c| c.iter().map(|f| f.to_string()).collect())
        .collect();
    assert_eq!(
        found, known,
        "import cycles (KNOWN_CYCLES lists those still to be removed)"
    );
}

#[test]
fn the_explorer_never_imports_the_commands() {
    let g = graph();
    let wrong: Vec<String> = g
        .edges
        .iter()
        .filter(|(from, _)| from.first().is_some_and(|s| s == "tui"))
        .flat_map(|(from, tos)| {
            tos.iter()
                .filter(|to| to.first().is_some_and(|s| s == "cli"))
                .map(|to| format!("{} imports {}", g.name(from), g.name(to)))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}
