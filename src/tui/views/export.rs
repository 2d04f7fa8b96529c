//! The export prompt: writing the list on screen to a file, the pairs (filtered as
//! shown) or the clusters, as CSV or JSON Lines by the name's extension, in the same
//! fields as `simtui pairs` and `simtui clusters` print. Drawn on the last line of the
//! view it exports.
//!
//! simtui never writes into the corpus unless asked: a name inside one of the explored
//! folders, or one that already exists, needs Enter a second time. A file that cannot
//! be written is an error on the status line; the explorer goes on.

use super::view::{Cx, Ui, View};
use crate::output::clusters::{KeepArg, write_clusters};
use crate::output::format::Format;
use crate::output::pairs::{Second, write_pairs};
use crate::tui::keys::{Action, Context};
use crate::tui::session::Session;
use crate::tui::widgets::fmt;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use simtui::cluster::Cluster;
use simtui::index::{Index, Pair};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub const KEYS: Context = Context::Prompt;

/// What is exported.
pub enum Rows {
    Pairs(Arc<Index>, Arc<[Pair]>),
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

/// The export prompt: the file name being typed, over the list it writes.
pub struct ExportView {
    text: String,
    /// Written when the name is left empty.
    default: String,
    rows: Rows,
    /// The warning the user has been shown for this name (Enter again goes ahead).
    confirm: Option<(String, String)>,
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

impl ExportView {
    /// The prompt for writing `rows`.
    pub fn new(rows: Rows) -> ExportView {
        ExportView {
            text: String::new(),
            default: format!("simtui-{}.csv", rows.noun()),
            rows,
            confirm: None,
        }
    }

    /// The warning shown for the name typed, if any (Enter again goes ahead).
    #[cfg(test)]
    pub fn confirm(&self) -> Option<&(String, String)> {
        self.confirm.as_ref()
    }

    fn finish(&mut self, cx: &mut Cx) {
        let name = match self.text.trim() {
            "" => self.default.clone(),
            typed => typed.to_string(),
        };
        let path = PathBuf::from(&name);
        let confirmed = self.confirm.as_ref().is_some_and(|(n, _)| *n == name);
        if !confirmed && let Some(why) = caution(&path, cx.session.roots()) {
            self.confirm = Some((name, why));
            return;
        }
        match write(&path, &self.rows) {
            Ok(n) => {
                let msg = format!("wrote {n} {} to {name}", self.rows.noun());
                cx.log.write(&msg);
                cx.say(msg);
                cx.close();
            }
            Err(e) => {
                // The prompt stays open with the name, to correct it.
                self.confirm = None;
                cx.say(format!("cannot write {name}: {e}"));
            }
        }
    }
}

impl View for ExportView {
    fn keys(&self, _: &Session) -> Context {
        KEYS
    }

    fn is_overlay(&self) -> bool {
        true
    }

    fn update(&mut self, action: Action, cx: &mut Cx) {
        match action {
            Action::FilterChar(c) => {
                self.text.push(c);
                self.confirm = None;
            }
            Action::FilterBackspace => {
                self.text.pop();
                self.confirm = None;
            }
            Action::FilterClear => cx.close(),
            Action::FilterKeep => self.finish(cx),
            _ => {}
        }
    }

    /// The prompt, on the body's last line.
    fn render(&self, ui: &Ui, frame: &mut Frame, body: Rect) {
        let t = &ui.theme;
        let mut spans = vec![
            Span::styled(" Export to: ", t.key()),
            Span::raw(fmt::clean(&self.text)),
            Span::styled("▏", t.key()),
        ];
        if self.text.is_empty() {
            spans.push(Span::styled(format!("{} ", self.default), t.dim()));
        }
        match &self.confirm {
            Some((_, why)) => spans.push(Span::styled(format!("  {why}"), t.warn())),
            None => spans.push(Span::styled(
                "  .jsonl: JSON Lines, else CSV · Enter writes · Esc cancels",
                t.dim(),
            )),
        }
        let area = Rect {
            y: body.bottom().saturating_sub(1),
            height: 1.min(body.height),
            ..body
        };
        frame.render_widget(Clear, area);
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
    }
}
