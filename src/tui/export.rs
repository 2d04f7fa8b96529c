//! Writing the list on screen to a file: the pairs (filtered as shown) or the clusters,
//! as CSV or JSON Lines by the name's extension, in the same fields as `simtui pairs`
//! and `simtui clusters` print.
//!
//! simtui never writes into the corpus unless asked: a name inside one of the explored
//! folders, or one that already exists, needs Enter a second time. A file that cannot
//! be written is an error on the status line; the explorer goes on.

use super::app::App;
use super::keys::Action;
use super::views::View;
use crate::output::clusters::{KeepArg, write_clusters};
use crate::output::format::Format;
use crate::output::pairs::{Second, write_pairs};
use simtui::cluster::Cluster;
use simtui::index::{Index, Pair};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What is exported.
pub enum Rows {
    Pairs(Arc<Index>, Vec<Pair>),
    Clusters(Arc<Index>, Arc<Vec<Cluster>>),
}

impl Rows {
    fn noun(&self) -> &'static str {
        match self {
            Rows::Pairs(..) => "pairs",
            Rows::Clusters(..) => "clusters",
        }
    }
    fn len(&self) -> usize {
        match self {
            Rows::Pairs(_, p) => p.len(),
            Rows::Clusters(_, c) => c.len(),
        }
    }
}

/// The file name being typed.
pub struct Prompt {
    pub text: String,
    /// Written when the name is left empty.
    pub default: String,
    pub rows: Rows,
    /// The warning the user has been shown for this name (Enter again goes ahead).
    pub confirm: Option<(String, String)>,
}

/// The format a file name asks for.
pub fn format_of(path: &Path) -> Format {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "jsonl" | "ndjson" | "json" => Format::Jsonl,
        _ => Format::Csv,
    }
}

/// Writes the rows; the number written.
pub fn write(path: &Path, rows: &Rows) -> std::io::Result<usize> {
    let file = std::fs::File::create(path)?;
    let mut out = std::io::BufWriter::new(file);
    let format = format_of(path);
    match rows {
        Rows::Pairs(index, pairs) => write_pairs(&mut out, index, pairs, format, Second::Estimate)?,
        Rows::Clusters(index, clusters) => {
            write_clusters(&mut out, index, clusters, KeepArg::Longest, format)?
        }
    }
    out.flush()?;
    Ok(rows.len())
}

/// Why a name needs confirming, if it does: it exists, or it is inside the corpus.
fn caution(path: &Path, roots: &[PathBuf]) -> Option<String> {
    if path.exists() {
        return Some("exists: Enter again overwrites it".into());
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let dir = parent.canonicalize().ok()?;
    let inside = roots
        .iter()
        .filter_map(|r| r.canonicalize().ok())
        .any(|r| r.is_dir() && dir.starts_with(&r));
    inside.then(|| "is inside the corpus: Enter again writes there anyway".into())
}

impl App {
    /// Opens the prompt for the list on screen: the clusters view's clusters, or the
    /// listed pairs.
    pub(super) fn start_export(&mut self) {
        let rows = match self.stack.last() {
            Some(View::Clusters(v)) => match &v.clusters {
                Some(c) => Rows::Clusters(v.index.clone(), c.clone()),
                None => {
                    self.status = Some("the clusters are still being computed".into());
                    return;
                }
            },
            Some(_) => return,
            None => {
                let Some(r) = self.session().results() else {
                    return;
                };
                let pairs = self
                    .list
                    .visible
                    .iter()
                    .map(|&i| r.found.pairs[i as usize])
                    .collect();
                Rows::Pairs(r.index.clone(), pairs)
            }
        };
        self.prompt = Some(Prompt {
            text: String::new(),
            default: format!("simtui-{}.csv", rows.noun()),
            rows,
            confirm: None,
        });
    }

    pub(super) fn update_prompt(&mut self, action: Action) {
        let Some(p) = self.prompt.as_mut() else {
            return;
        };
        match action {
            Action::FilterChar(c) => {
                p.text.push(c);
                p.confirm = None;
            }
            Action::FilterBackspace => {
                p.text.pop();
                p.confirm = None;
            }
            Action::FilterClear => self.prompt = None,
            Action::FilterKeep => self.finish_export(),
            _ => {}
        }
    }

    fn finish_export(&mut self) {
        let roots = self.session().roots().to_vec();
        let Some(p) = self.prompt.as_mut() else {
            return;
        };
        let name = match p.text.trim() {
            "" => p.default.clone(),
            typed => typed.to_string(),
        };
        let path = PathBuf::from(&name);
        let confirmed = p.confirm.as_ref().is_some_and(|(n, _)| *n == name);
        if !confirmed && let Some(why) = caution(&path, &roots) {
            p.confirm = Some((name.clone(), why));
            return;
        }
        match write(&path, &p.rows) {
            Ok(n) => {
                let msg = format!("wrote {n} {} to {name}", p.rows.noun());
                self.log(&msg);
                self.status = Some(msg);
                self.prompt = None;
            }
            Err(e) => {
                // The prompt stays open with the name, to correct it.
                p.confirm = None;
                self.status = Some(format!("cannot write {name}: {e}"));
            }
        }
    }
}
