//! What an index holds in memory past `--memory`, as the commands warn of it on stderr
//! and the explorer says it on its status line and in its log.

use simtui_engine::index::Index;
use simtui_engine::storage::Budget;
use simtui_engine::store::Report;

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

/// The document read in this run that held more than `--memory` on its own while it was
/// read, tokenised and shingled (a document is never split), named with what it held.
pub fn whole_document_over(index: &Index, budget: &Budget) -> Option<String> {
    let largest = index.stats().largest.as_ref()?;
    let held = largest.held();
    if !budget.is_limited() || held <= budget.bytes {
        return None;
    }
    let human = super::progress::human;
    Some(format!(
        "the document {} ({}, {} tokens) was read whole: about {} held while it was tokenised and shingled, over --memory {} (a document is never split; --max-bytes sets the largest one read)",
        largest.place.display(),
        human(largest.bytes),
        largest.tokens,
        human(held),
        human(budget.bytes),
    ))
}

/// Everything an index held past `--memory`: [`over_memory`] and
/// [`whole_document_over`], each when it is to be said.
pub fn all_over(index: &Index, budget: &Budget) -> Vec<String> {
    [
        over_memory(index, budget),
        whole_document_over(index, budget),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// What opening, bringing up to date and writing a saved index held beside the index
/// (a record per file and per saved document, whole), when the two pass `--memory`.
pub fn records_over(report: &Report, index: &Index, budget: &Budget) -> Option<String> {
    let both = index.held().saturating_add(report.records_held);
    if !budget.is_limited() || both <= budget.bytes || report.records_held == 0 {
        return None;
    }
    let human = super::progress::human;
    let (files, docs) = report.records_of;
    let saved = match docs {
        0 => String::new(),
        n => format!(" and {n} saved documents"),
    };
    Some(format!(
        "the saved index's records of {files} files{saved} held about {} beside the index, over --memory {} (a record per file and per saved document is held whole while the index is opened or written, whatever the limit)",
        human(report.records_held),
        human(budget.bytes),
    ))
}
