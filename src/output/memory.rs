//! What an index holds in memory past `--memory`, as the commands warn of it on stderr
//! and the explorer says it on its status line and in its log.

use simtui_engine::index::Index;
use simtui_engine::storage::Budget;

/// What an index holds in memory past `--memory`, each part named with its size, when
/// it is over: a document's record is kept whatever the limit.
pub fn over_memory(index: &Index, budget: &Budget) -> Option<String> {
    if !budget.is_limited() || index.held() <= budget.bytes {
        return None;
    }
    let human = super::progress::human;
    let parts: Vec<String> = index
        .held_by_part()
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(what, n)| format!("{what} {}", human(*n)))
        .collect();
    let why = match index.docs().on_file() {
        true => {
            "a document's id, group and sizes stay in memory whatever the limit; its record waits on a temporary file"
        }
        false => "a document's record is kept in memory whatever the limit",
    };
    Some(format!(
        "the index holds {} in memory, over --memory {}: {} ({why})",
        human(index.held()),
        human(budget.bytes),
        parts.join(", ")
    ))
}
