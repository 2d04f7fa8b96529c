//! The diff view: two documents side by side, their shared lines on the same rows, the
//! words only one side has marked; scrolled together, with jumps between differences,
//! and n/p to the next or previous pair of the view it was opened from. The texts are
//! read and aligned by a job (`diff_model` aligns and lays out); drawing is below.

use super::view::{Cx, Ui, View};
use crate::output::diff_model::{self, DiffModel, Layout, SideRow};
use crate::output::meta;
use crate::tui::keys::{Action, Binding, Context, DOWN, END, HOME, KeyTable, PGDN, PGUP, UP, b, back, code, k};
use crate::tui::session::Session;
use crate::tui::widgets::{fmt, layout};
use super::slot::Slot;
use crate::tui::worker::{Kind, Reply};
use ratatui::Frame;
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use simtui_engine::source::Entry;
use simtui_engine::search::found::Pair;
use simtui_engine::index::Index;
use std::sync::Arc;

/// The diff's keys.
#[rustfmt::skip]
const ROWS: [Binding; 12] = [
    b(&[UP, k('k')], "↑/↓", Action::Up, "scroll", "scroll both sides together (j/k too)", true),
    b(&[DOWN, k('j')], "", Action::Down, "", "", false),
    b(&[PGUP], "PgUp", Action::PageUp, "", "one page up", false),
    b(&[PGDN, code(KeyCode::Char(' '))], "PgDn/Space", Action::PageDown, "", "one page down", false),
    b(&[k('g'), HOME], "g/Home", Action::Top, "", "top", false),
    b(&[k('G'), END], "G/End", Action::Bottom, "", "bottom", false),
    b(&[k(']')], "]/[", Action::NextChange, "change", "jump to the next / previous difference", true),
    b(&[k('[')], "", Action::PrevChange, "", "", false),
    b(&[k('w')], "w", Action::ToggleLines, "lines", "hard-wrapped paragraphs joined, or the texts' own lines", true),
    b(&[k('n')], "n/p", Action::NextPair, "pair", "next / previous pair, in list order", true),
    b(&[k('p')], "", Action::PrevPair, "", "", false),
    back("back", "back to the pair list"),
];

pub static KEYS: KeyTable = KeyTable::new("Diff", &ROWS);

/// A diff opened from the review: its keys, and x marks the removal shown, as in the
/// review's list.
#[rustfmt::skip]
pub static REVIEW_KEYS: KeyTable = KeyTable::new("Diff of a removal", &[
    ROWS[0], ROWS[1], ROWS[2], ROWS[3], ROWS[4], ROWS[5], ROWS[6], ROWS[7], ROWS[8], ROWS[9], ROWS[10],
    b(&[k('x')], "x", Action::MarkWrong, "wrong", "mark the removal wrong, or not (written to the keep-list)", true),
    back("back", "back to the review"),
]);

/// What the diff view shows about one document.
#[derive(Clone, Debug)]
pub struct DocInfo {
    pub id: String,
    pub title: String,
    pub bytes: u64,
    pub tokens: u64,
    pub shingles: usize,
    /// Its metadata values, one per field of the view's `meta_names`.
    pub meta: Vec<String>,
}

pub struct DiffView {
    pair: Pair,
    a: DocInfo,
    b: DocInfo,
    /// The metadata fields shown (those asked for, the usual ones either document has):
    /// a header row shows their values per side.
    meta_names: Vec<String>,
    /// The diff shown, or why the texts could not be read; read by a job.
    model: Slot<Result<Arc<DiffModel>, String>>,
    /// The other way to show it (`w`): the texts' own lines, or their paragraphs joined;
    /// none when no line of either text is hard-wrapped.
    other: Option<Arc<DiffModel>>,
    /// The diff shown has the paragraphs joined.
    joined: bool,
    layout: Layout,
    /// The first row shown.
    scroll: usize,
    /// Opened from the review: x marks the removal it shows.
    marks: bool,
}

/// Width of one diff column's text (gutter included) for the terminal size: its area
/// less a blank column beside the separator, so no word touches it.
pub fn column_width(size: (u16, u16)) -> usize {
    let s = layout::screen(layout::area(size));
    (layout::diff(s.body).left.width as usize).saturating_sub(1)
}

/// Rows of the diff on screen, under a header of `header` rows.
fn page(size: (u16, u16), header: u16) -> usize {
    let s = layout::screen(layout::area(size));
    (layout::diff_with(s.body, header).left.height as usize).max(1)
}

impl DiffView {
    /// The diff of a pair of documents of an index, its texts read by a job.
    pub fn open(index: Arc<Index>, pair: Pair, cx: &mut Cx) -> DiffView {
        let docs = |d: u32| index.docs().at(d as usize);
        // The fields asked for, and the usual date and origin fields either one has.
        let (meta_names, [meta_a, meta_b]) =
            meta::side_by_side(cx.session.meta_fields(), &docs(pair.a), &docs(pair.b));
        let info = |d: u32, meta: Vec<String>| {
            let doc = docs(d);
            DocInfo {
                id: doc.id.clone(),
                title: doc.title().to_string(),
                bytes: doc.bytes,
                tokens: doc.tokens,
                shingles: index.shingles().set_len(doc.group as usize),
                meta,
            }
        };
        let entry = |d: u32| {
            let doc = &index.docs().at(d as usize);
            Entry {
                id: doc.id.clone(),
                source: doc.source.clone(),
                bytes: doc.bytes,
            }
        };
        let (a, b, max_bytes) = (entry(pair.a), entry(pair.b), index.params().max_bytes);
        let mut view = DiffView {
            pair,
            a: info(pair.a, meta_a),
            b: info(pair.b, meta_b),
            meta_names,
            // A job kind of its own: one diff is read at a time.
            model: Slot::new("Diff"),
            other: None,
            joined: false,
            layout: Layout::default(),
            scroll: 0,
            marks: false,
        };
        view.model.start(cx, move |_| {
            let model = diff_docs(&a, &b, max_bytes);
            Ok(match &model {
                Ok(_) => Reply::timed(model, "diff".into()),
                Err(e) => {
                    let line = format!("diff failed: {e}");
                    Reply::said(model, line)
                }
            })
        });
        view
    }

    /// The diff of a removal of the review: x marks it wrong (or not), as in the list.
    pub fn marking(self) -> DiffView {
        DiffView {
            marks: true,
            ..self
        }
    }

    #[cfg(test)]
    pub fn pair(&self) -> Pair {
        self.pair
    }

    #[cfg(test)]
    pub fn docs(&self) -> (&DocInfo, &DocInfo) {
        (&self.a, &self.b)
    }

    /// The aligned texts, or why they could not be read; none while they are read.
    #[cfg(test)]
    pub fn model(&self) -> Option<&Result<Arc<DiffModel>, String>> {
        self.model.value()
    }

    /// The diff shown has its hard-wrapped paragraphs joined.
    #[cfg(test)]
    pub fn joined(&self) -> bool {
        self.joined
    }

    #[cfg(test)]
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    #[cfg(test)]
    pub fn scroll(&self) -> usize {
        self.scroll
    }

    /// Puts in a model (the tests' texts) as if the job had read it, laid out for
    /// columns `column` wide.
    #[cfg(test)]
    pub fn set_model(&mut self, model: DiffModel, column: usize) {
        self.layout = diff_model::layout(&model, column);
        self.model.set(Ok(Arc::new(model)));
    }

    /// The diff to show, and the other way to show it, laid out for the terminal.
    fn set_models(&mut self, shown: DiffModel, other: Option<DiffModel>, size: (u16, u16)) {
        self.layout = diff_model::layout(&shown, column_width(size));
        self.model.set(Ok(Arc::new(shown)));
        self.other = other.map(Arc::new);
    }

    #[cfg(test)]
    pub fn set_scroll(&mut self, scroll: usize) {
        self.scroll = scroll;
    }

    /// Rows of the header: one more when there is metadata to show.
    fn header_rows(&self) -> u16 {
        layout::DIFF_HEADER + !self.meta_names.is_empty() as u16
    }

    /// `w`: shows the other way (paragraphs joined, or the texts' own lines), keeping
    /// the text at the top in view.
    fn toggle_lines(&mut self, cx: &mut Cx) {
        let Some(other) = self.other.take() else {
            return cx.say("no hard-wrapped paragraph to join: these are the texts' lines");
        };
        let Some(Ok(shown)) = self.model.value().cloned() else {
            return;
        };
        self.model.set(Ok(other.clone()));
        self.other = Some(shown);
        self.joined = !self.joined;
        let top = self.top_line();
        self.layout = diff_model::layout(&other, column_width(cx.size));
        self.scroll = top.map_or(0, |line| self.row_of(line));
        self.scroll_to(self.scroll as isize, page(cx.size, self.header_rows()));
    }

    /// The left side's line at the top of the screen (the one the top row is part of).
    fn top_line(&self) -> Option<usize> {
        let rows = &self.layout.rows[..=self.scroll.min(self.layout.rows.len().checked_sub(1)?)];
        rows.iter().rev().find_map(|r| r.left.as_ref().and_then(|s| s.line))
    }

    /// The first row of the left side's last line that starts at or before `line`.
    fn row_of(&self, line: usize) -> usize {
        let rows = self.layout.rows.iter().enumerate().rev();
        rows.filter_map(|(i, r)| Some((i, r.left.as_ref()?.line?)))
            .find_map(|(i, l)| (l <= line).then_some(i))
            .unwrap_or(0)
    }

    fn scroll_to(&mut self, to: isize, page: usize) {
        let max = self.layout.rows.len().saturating_sub(page);
        self.scroll = to.clamp(0, max as isize) as usize;
    }

    /// Lays the texts out again for the column width of `size`, keeping the top row's
    /// line in view across a re-wrap.
    fn relayout(&mut self, size: (u16, u16)) {
        let col = column_width(size);
        if let Some(Ok(model)) = self.model.value()
            && self.layout.column != col
        {
            let top_line = self
                .layout
                .rows
                .get(self.scroll)
                .and_then(|r| r.left.as_ref().and_then(|s| s.line));
            self.layout = diff_model::layout(model, col);
            self.scroll = top_line
                .and_then(|l| {
                    self.layout
                        .rows
                        .iter()
                        .position(|r| r.left.as_ref().is_some_and(|s| s.line == Some(l)))
                })
                .unwrap_or(0);
        }
        let page = page(size, self.header_rows());
        self.scroll = self.scroll.min(self.layout.rows.len().saturating_sub(page));
    }
}

impl View for DiffView {
    fn keys(&self, _: &Session) -> Context {
        if self.marks { &REVIEW_KEYS } else { &KEYS }
    }

    fn update(&mut self, action: Action, cx: &mut Cx) {
        let page = page(cx.size, self.header_rows());
        let s = self.scroll as isize;
        match action {
            Action::Up => self.scroll_to(s - 1, page),
            Action::Down => self.scroll_to(s + 1, page),
            Action::WheelUp => self.scroll_to(s - 3, page),
            Action::WheelDown => self.scroll_to(s + 3, page),
            Action::PageUp => self.scroll_to(s - page as isize + 1, page),
            Action::PageDown => self.scroll_to(s + page as isize - 1, page),
            Action::Top => self.scroll_to(0, page),
            Action::Bottom => self.scroll_to(isize::MAX, page),
            Action::NextChange => {
                if let Some(&r) = self.layout.changes.iter().find(|&&r| r > self.scroll) {
                    self.scroll_to(r as isize, page);
                }
            }
            Action::PrevChange => {
                if let Some(&r) = self.layout.changes.iter().rev().find(|&&r| r < self.scroll) {
                    self.scroll_to(r as isize, page);
                }
            }
            Action::ToggleLines => self.toggle_lines(cx),
            Action::NextPair => cx.step_pair(1),
            Action::PrevPair => cx.step_pair(-1),
            Action::MarkWrong if self.marks => cx.below(action),
            Action::Back => cx.close(),
            _ => {}
        }
    }

    fn waiting(&self) -> Option<(Kind, u64)> {
        self.model.waiting()
    }

    fn done(&mut self, reply: Reply, cx: &mut Cx) {
        let Some(model) = self.model.end::<Result<Diffs, String>>(reply) else {
            return;
        };
        match model {
            // Hard-wrapped paragraphs joined first, where there are any.
            Ok(Diffs {
                lines,
                joined: Some(joined),
            }) => {
                self.set_models(joined, Some(lines), cx.size);
                self.joined = true;
            }
            Ok(Diffs { lines, joined: None }) => self.set_models(lines, None, cx.size),
            Err(e) => self.model.set(Err(e)),
        }
        self.scroll = 0;
    }

    fn resized(&mut self, cx: &mut Cx) {
        self.relayout(cx.size);
    }

    fn render(&self, ui: &Ui, frame: &mut Frame, body: Rect) {
        render(self, ui, frame, body);
    }
}

/// A document's text, or why it cannot be shown.
fn read(doc: &Entry, max_bytes: u64) -> Result<Arc<str>, String> {
    simtui_engine::source::read_text(doc, max_bytes).map_err(|(reason, detail)| {
        let detail = if detail.is_empty() {
            String::new()
        } else {
            format!(" ({detail})")
        };
        format!("{}: {}{detail}", fmt::clean(&doc.id), reason.name())
    })
}

/// Two documents aligned: line by line, and with their hard-wrapped paragraphs joined
/// when they have any.
struct Diffs {
    lines: DiffModel,
    joined: Option<DiffModel>,
}

/// Reads both documents and aligns them (on the job's thread).
fn diff_docs(a: &Entry, b: &Entry, max_bytes: u64) -> Result<Diffs, String> {
    let ta = read(a, max_bytes)?;
    let tb = read(b, max_bytes)?;
    Ok(Diffs {
        lines: diff_model::compare(&ta, &tb),
        joined: diff_model::compare_joined(&ta, &tb),
    })
}

// ---------------------------------------------------------------------------------------
// Drawing

fn render(d: &DiffView, ui: &Ui, frame: &mut Frame, body: Rect) {
    let areas = layout::diff_with(body, d.header_rows());
    header(ui, d, frame, areas.header);
    match d.model.value() {
        None => message(
            frame,
            areas.left.union(areas.right),
            "reading and diffing…",
            ui.theme.dim(),
        ),
        Some(Err(e)) => message(
            frame,
            areas.left.union(areas.right),
            &fmt::clean(e),
            ui.theme.error(),
        ),
        Some(Ok(_)) => {
            let rows = &d.layout.rows;
            let h = areas.left.height as usize;
            let end = (d.scroll + h).min(rows.len());
            let visible = &rows[d.scroll.min(end)..end];
            let left: Vec<Line> = visible.iter().map(|r| side(ui, d, &r.left, true)).collect();
            let right: Vec<Line> = visible
                .iter()
                .map(|r| side(ui, d, &r.right, false))
                .collect();
            let sep: Vec<Line> = visible
                .iter()
                .map(|r| {
                    // A marker in the gutter between the columns shows where the texts differ.
                    if r.changed {
                        Line::from(Span::styled("┃", ui.theme.warn()))
                    } else {
                        Line::from(Span::styled("│", ui.theme.dim()))
                    }
                })
                .collect();
            // A blank column on each side of the separator: "costs │ The", not "costs│The".
            let text = |area: Rect, x: u16| Rect {
                x: area.x + x,
                width: area.width.saturating_sub(1),
                ..area
            };
            frame.render_widget(Paragraph::new(left), text(areas.left, 0));
            frame.render_widget(Paragraph::new(sep), areas.sep);
            frame.render_widget(Paragraph::new(right), text(areas.right, 1));
        }
    }
}

fn message(frame: &mut Frame, area: Rect, text: &str, style: ratatui::style::Style) {
    let y = area.y + area.height / 3;
    frame.render_widget(
        Paragraph::new(Span::styled(text.to_string(), style)).alignment(Alignment::Center),
        Rect {
            y,
            height: 1.min(area.height),
            ..area
        },
    );
}

fn side<'a>(ui: &Ui, d: &DiffView, row: &'a Option<SideRow>, left: bool) -> Line<'a> {
    let t = &ui.theme;
    let Some(row) = row else {
        return Line::default();
    };
    let g = d.layout.gutter;
    let mut spans = Vec::with_capacity(row.segs.len() + 1);
    if g > 0 {
        let num = row.line.map(|n| n.to_string()).unwrap_or_default();
        spans.push(Span::styled(format!("{num:>w$} ", w = g - 1), t.dim()));
    }
    let changed = if left { t.removed() } else { t.added() };
    for s in &row.segs {
        spans.push(if s.changed {
            Span::styled(s.text.as_str(), changed)
        } else {
            Span::raw(s.text.as_str())
        });
    }
    Line::from(spans)
}

/// Two header rows for one document: its id, then its size and counts.
fn doc_lines(
    ui: &Ui,
    d: &DiffView,
    tag: &str,
    doc: &DocInfo,
    side: usize,
    width: usize,
) -> [Line<'static>; 2] {
    let t = &ui.theme;
    // The id whole if it fits, then as much of the title as fits.
    let id = fmt::shorten_middle(&doc.id, width.saturating_sub(tag.len()));
    let room = width.saturating_sub(tag.len() + fmt::width(&id) + 3);
    let mut spans = vec![
        Span::styled(tag.to_string(), t.key()),
        Span::styled(id, t.title()),
    ];
    if room >= 6 && !doc.title.is_empty() {
        spans.push(Span::styled(
            format!(" · {}", fmt::truncate(&fmt::clean(&doc.title), room)),
            t.dim(),
        ));
    }
    let id = Line::from(spans);
    // Most important first; what does not fit is left out whole, never cut.
    let mut parts = vec![
        fmt::bytes(doc.bytes),
        format!("{} shingles", fmt::count(doc.shingles as u64)),
    ];
    let mut warn = None;
    if let Some(Ok(m)) = d.model.value() {
        if m.truncated[side] {
            warn = Some(format!(" · TRUNCATED to {} KB", diff_model::CAP / 1024));
        }
        parts.push(format!(
            "{} only here",
            fmt::plural(m.changed_words[side] as u64, "word", "words")
        ));
    }
    parts.push(format!("{} tokens", fmt::count(doc.tokens)));
    let room = width.saturating_sub(2 + warn.as_deref().map_or(0, fmt::width));
    let mut facts = String::new();
    for p in parts {
        let add = if facts.is_empty() {
            p
        } else {
            format!(" · {p}")
        };
        if fmt::width(&facts) + fmt::width(&add) > room {
            break;
        }
        facts.push_str(&add);
    }
    let mut spans = vec![Span::styled(format!("  {facts}"), t.dim())];
    if let Some(w) = warn {
        spans.push(Span::styled(w, t.warn()));
    }
    [id, Line::from(spans)]
}

/// One side's metadata row: `NAME value · NAME value`, each value that differs from the
/// other side's marked with '≠' (and coloured): what the texts don't say (two reports of
/// different days can be identical word for word).
fn meta_line(ui: &Ui, d: &DiffView, side: usize, width: usize) -> Line<'static> {
    let t = &ui.theme;
    let (mine, theirs) = if side == 0 {
        (&d.a.meta, &d.b.meta)
    } else {
        (&d.b.meta, &d.a.meta)
    };
    let value = |m: &Vec<String>, i: usize| m.get(i).cloned().unwrap_or_default();
    let mut spans = vec![Span::raw("  ")];
    let mut used = 2;
    for (i, name) in d.meta_names.iter().enumerate() {
        let v = value(mine, i);
        let differs = v != value(theirs, i);
        let shown = if v.is_empty() { "—".to_string() } else { fmt::clean(&v) };
        let sep = if i == 0 { "" } else { " · " };
        let mark = if differs { "≠" } else { "" };
        let room = width.saturating_sub(used + sep.len() + mark.len() + fmt::width(name) + 1);
        if room < 3 {
            break;
        }
        let shown = fmt::truncate(&shown, room);
        used += sep.len() + mark.chars().count() + fmt::width(name) + 1 + fmt::width(&shown);
        spans.push(Span::raw(sep));
        if differs {
            spans.push(Span::styled(mark, t.warn()));
        }
        spans.push(Span::styled(format!("{name} "), t.dim()));
        spans.push(if differs {
            Span::styled(shown, t.warn())
        } else {
            Span::raw(shown)
        });
    }
    Line::from(spans)
}

fn header(ui: &Ui, d: &DiffView, frame: &mut Frame, area: Rect) {
    let t = &ui.theme;
    let half = (area.width as usize).saturating_sub(1) / 2;
    // With metadata, each side has a third row for it, and the rows below move down.
    let meta = !d.meta_names.is_empty() as u16;
    let l = Rect {
        height: 2,
        width: half as u16,
        ..area
    };
    let r = Rect {
        x: area.x + half as u16 + 1,
        height: 2,
        width: half as u16,
        ..area
    };
    frame.render_widget(
        Paragraph::new(doc_lines(ui, d, "A ", &d.a, 0, half).to_vec()),
        l,
    );
    frame.render_widget(
        Paragraph::new(doc_lines(ui, d, "B ", &d.b, 1, half).to_vec()),
        r,
    );
    if meta > 0 {
        let row = |x: Rect| Rect {
            y: x.y + 2,
            height: 1.min(area.height.saturating_sub(2)),
            ..x
        };
        frame.render_widget(Paragraph::new(meta_line(ui, d, 0, half)), row(l));
        frame.render_widget(Paragraph::new(meta_line(ui, d, 1, half)), row(r));
    }

    // Where n/p step: the list, or the view the diff was opened from.
    let place = ui.below.map(|v| v.position()).unwrap_or_default();
    let mut info = vec![
        Span::styled(format!(" exact J {:.3}", d.pair.jaccard), t.title()),
        Span::raw(format!(" · estimate {:.3}", d.pair.estimate)),
        Span::styled(place, t.dim()),
    ];
    if let Some(Ok(m)) = d.model.value() {
        let rows = d.layout.rows.len();
        let h = page_height(ui.size, d.header_rows());
        info.push(Span::styled(
            format!(
                " · rows {}–{} of {}",
                (d.scroll + 1).min(rows),
                (d.scroll + h).min(rows),
                fmt::count(rows as u64)
            ),
            t.dim(),
        ));
        if d.joined {
            info.push(Span::styled(" · paragraphs joined", t.dim()));
        }
        if let Some(verdict) = diff_model::verdict(m) {
            info.push(Span::raw(format!(" · {verdict}")));
        }
        if m.approximate {
            info.push(Span::styled(" · approximate diff (time limit)", t.warn()));
        }
    }
    // Rows past a short header are not drawn (ratatui would refuse them).
    let at = |row: u16| Rect {
        y: area.y + row,
        height: 1,
        ..area
    };
    if area.height > 2 + meta {
        frame.render_widget(Paragraph::new(Line::from(info)), at(2 + meta));
    }
    if area.height > 3 + meta {
        frame.render_widget(
            Paragraph::new(Span::styled("─".repeat(area.width as usize), t.dim())),
            at(3 + meta),
        );
    }
}

/// Rows of text on screen (as `page`, but 0 on a screen with none).
fn page_height(size: (u16, u16), header: u16) -> usize {
    let body = layout::screen(layout::area(size)).body;
    layout::diff_with(body, header).left.height as usize
}
