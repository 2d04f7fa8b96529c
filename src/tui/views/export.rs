//! The export prompt: writing the list on screen to a file, the pairs (filtered as
//! shown) or the clusters, as CSV or JSON Lines by the name's extension, in the same
//! fields as `simtui pairs` and `simtui clusters` print. Drawn on the last line of the
//! view it exports.
//!
//! simtui never writes into, over or around its input: a name inside one of the explored
//! folders, an input itself, a folder holding one, or another file of the run (the
//! keep-list, the log) is refused; a name that exists needs Enter a second time. The
//! file is written by a job into a temporary file beside it, renamed to the name once
//! complete: Esc (which cancels the job), a full disk or any error leaves the name as it
//! was. A file that cannot be written is an error in the prompt; the explorer goes on.

use super::view::{Cx, Ui, View};
use crate::output::clusters::{KeepArg, write_clusters};
use crate::output::file::write_atomically;
use crate::output::guard::Paths;
use crate::output::format::Format;
use crate::output::pairs::{Second, write_pair_stream};
use crate::tui::rows::Listed;
use crate::tui::keys::{Action, Context, ENTER, ESC, KeyTable, b, code};
use crate::tui::session::Session;
use crate::tui::widgets::fmt;
use super::slot::Slot;
use crate::tui::worker::{JobError, Kind, Reply};
use ratatui::Frame;
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use simtui_engine::analysis::cluster::{Cluster, Keep};
use simtui_engine::index::Index;
use simtui_engine::progress::Progress;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The prompt's keys: characters are the file name.
#[rustfmt::skip]
pub static KEYS: KeyTable = KeyTable::typing("Export", &[
    b(&[ENTER], "Enter", Action::FilterKeep, "write", "write the file (.jsonl/.ndjson: JSON Lines, else CSV)", true),
    b(&[ESC], "Esc", Action::FilterClear, "cancel", "cancel the export", true),
    b(&[code(KeyCode::Backspace)], "⌫", Action::FilterBackspace, "delete", "delete the last character", true),
]);

/// What is exported.
#[derive(Clone)]
pub enum Rows {
    /// The pairs list's rows (blocks of many pairs included).
    Listed(Arc<Listed>),
    Clusters(Arc<Index>, Arc<Vec<Cluster>>),
}

impl Rows {
    fn noun(&self) -> &'static str {
        match self {
            Rows::Listed(_) => "pairs",
            Rows::Clusters(..) => "clusters",
        }
    }
    fn len(&self) -> usize {
        match self {
            Rows::Listed(l) => usize::try_from(l.pairs).unwrap_or(usize::MAX),
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
    /// The file being written, and the job that writes it.
    writing: Option<String>,
    job: Slot<()>,
    /// Why the last write failed: shown in the prompt itself, where the next key goes,
    /// until the name is edited.
    error: Option<String>,
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

/// Writes the rows, atomically (see [`write_atomically`]); the number written. Stops
/// with an error at the next write once `progress` says the job is cancelled.
pub fn write(path: &Path, rows: &Rows, progress: &dyn Progress) -> io::Result<usize> {
    write_atomically(path, |file| {
        let mut out = Cancellable {
            inner: file,
            progress,
        };
        let format = format_of(path);
        match rows {
            Rows::Listed(listed) => {
                let mut pairs = listed.pairs(progress).map_err(io::Error::other)?;
                let mut next = || pairs.next().transpose();
                let index = &listed.index;
                write_pair_stream(&mut out, index, &mut next, 1, None, format, Second::Estimate)?;
            }
            Rows::Clusters(index, clusters) => {
                write_clusters(&mut out, index, clusters, &KeepArg::Rule(Keep::Longest), format)?
            }
        }
        Ok(rows.len())
    })
}

/// A writer that fails once its job is cancelled, so that a long export stops at the
/// next buffer it writes.
struct Cancellable<'a, W> {
    inner: W,
    progress: &'a dyn Progress,
}

impl<W: Write> Write for Cancellable<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.progress.is_cancelled() {
            return Err(io::Error::other("cancelled"));
        }
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The export's job: writes `rows` to `path` and replies with the number written, or
/// why it could not. Cancelled once it has begun, it has written nothing under `path`.
fn write_task(
    path: PathBuf,
    rows: Rows,
) -> impl FnOnce(&dyn Progress) -> Result<Reply, JobError> + Send + 'static {
    move |progress| {
        simtui_engine::progress::check(progress)?;
        let written = write(&path, &rows, progress);
        if written.is_err() && progress.is_cancelled() {
            return Err(JobError::Cancelled);
        }
        Ok(Reply::quiet(written.map_err(|e| e.to_string())))
    }
}

impl ExportView {
    /// The prompt for writing `rows`; its default name is in the current folder, or, when
    /// that is inside the corpus (`simtui .`), in the home or the temporary folder.
    pub fn new(rows: Rows, paths: &Paths) -> ExportView {
        let name = format!("simtui-{}.csv", rows.noun());
        let allowed = |p: &Path| paths.check_new("the export", p).is_ok();
        let default = if allowed(Path::new(&name)) {
            name
        } else {
            let home = std::env::var_os("HOME").map(PathBuf::from);
            let elsewhere = home.into_iter().chain([std::env::temp_dir()]);
            elsewhere
                .map(|dir| dir.join(&name))
                .find(|p| allowed(p))
                .map_or(name, |p| p.display().to_string())
        };
        ExportView {
            text: String::new(),
            default,
            rows,
            confirm: None,
            writing: None,
            // A job kind of its own: one file is written at a time.
            job: Slot::new("Export"),
            error: None,
        }
    }

    /// The warning shown for the name typed, if any (Enter again goes ahead).
    #[cfg(test)]
    pub fn confirm(&self) -> Option<&(String, String)> {
        self.confirm.as_ref()
    }

    /// Why the last write failed, shown in the prompt until the name is edited.
    #[cfg(test)]
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    fn finish(&mut self, cx: &mut Cx) {
        let name = match self.text.trim() {
            "" => self.default.clone(),
            typed => typed.to_string(),
        };
        let path = PathBuf::from(&name);
        // Never an input or another file of the run, confirmed or not.
        if let Err(refused) = cx.session.paths().check_new("the export", &path) {
            self.error = Some(refused.0);
            return;
        }
        let confirmed = self.confirm.as_ref().is_some_and(|(n, _)| *n == name);
        if !confirmed && path.exists() {
            self.confirm = Some((name, "exists: Enter again overwrites it".into()));
            return;
        }
        self.job.start(cx, write_task(path, self.rows.clone()));
        self.writing = Some(name);
    }
}

impl View for ExportView {
    fn keys(&self, _: &Session) -> Context {
        &KEYS
    }

    fn is_overlay(&self) -> bool {
        true
    }

    fn update(&mut self, action: Action, cx: &mut Cx) {
        if self.writing.is_some() {
            // Esc cancels the write (closing cancels the job); the rest waits for it.
            if action == Action::FilterClear {
                cx.close();
            }
            return;
        }
        match action {
            Action::FilterChar(c) => {
                self.text.push(c);
                self.confirm = None;
                self.error = None;
            }
            Action::FilterBackspace => {
                self.text.pop();
                self.confirm = None;
                self.error = None;
            }
            Action::FilterClear => cx.close(),
            Action::FilterKeep => self.finish(cx),
            _ => {}
        }
    }

    fn waiting(&self) -> Option<(Kind, u64)> {
        self.job.waiting()
    }

    fn done(&mut self, reply: Reply, cx: &mut Cx) {
        let Some(name) = self.writing.take() else {
            return;
        };
        match self.job.end::<Result<usize, String>>(reply) {
            Some(Ok(n)) => {
                let msg = format!("wrote {n} {} to {name}", self.rows.noun());
                cx.log.write(&msg);
                cx.say(msg);
                cx.close();
            }
            Some(Err(e)) => {
                // The prompt stays open with the name, to correct it, and says why in
                // the line being typed (not in a corner of the screen).
                self.confirm = None;
                cx.log.write(&format!("cannot write {name}: {e}"));
                self.error = Some(format!("cannot write: {e}"));
            }
            None => {}
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
        match (&self.writing, &self.confirm, &self.error) {
            (Some(name), _, _) => spans.push(Span::styled(
                format!("  writing {}… · Esc cancels", fmt::clean(name)),
                t.dim(),
            )),
            (None, _, Some(error)) => {
                spans.push(Span::styled(format!("  {}", fmt::clean(error)), t.error()));
                spans.push(Span::styled(
                    " · edit, Enter retries",
                    t.dim(),
                ));
            }
            (None, Some((_, why)), None) => {
                spans.push(Span::styled(format!("  {why}"), t.warn()))
            }
            (None, None, None) => spans.push(Span::styled(
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
