//! The pairs list, the explorer's first view: rank, exact J, MinHash estimate and both
//! ids, one pair per row, sorted and filtered; with the tuning panel beside or above it,
//! and the loading view in its place until there are pairs. Everything else opens from
//! here: the diff, the neighbours, the clusters, the export.

use super::clusters::ClustersView;
use super::diff::DiffView;
use super::export::{ExportView, Rows};
use super::filter::{self, Edit, Filter};
use super::loading;
use super::neighbours::NeighboursView;
use super::tuning::{self, Tuning};
use super::view::{Cursor, Cx, Ui, View};
use crate::tui::keys::{Action, Context, DOWN, END, ENTER, ESC, HOME, KeyTable, PGDN, PGUP, UP, b, k};
use crate::tui::session::{Results, Session};
use crate::tui::widgets::{fmt, layout};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use simtui_engine::found::Pair;
use std::sync::Arc;

/// The list's keys (with the tuning panel closed).
#[rustfmt::skip]
pub static KEYS: KeyTable = KeyTable {
    name: "Pairs",
    text_entry: false,
    defaults: &[
        b(&[UP, k('k')], "↑/k", Action::Up, "up", "select the previous pair", false),
        b(&[DOWN, k('j')], "↓/j", Action::Down, "down", "select the next pair", true),
        b(&[PGUP], "PgUp", Action::PageUp, "page up", "one page up", false),
        b(&[PGDN], "PgDn", Action::PageDown, "page down", "one page down", false),
        b(&[k('g'), HOME], "g/Home", Action::Top, "top", "first pair", false),
        b(&[k('G'), END], "G/End", Action::Bottom, "bottom", "last pair", false),
        b(&[ENTER], "Enter", Action::Open, "diff", "open the pair side by side", true),
        b(&[k('/')], "/", Action::StartFilter, "filter", "filter by id, file or title substring (capitals: case-sensitive)", true),
        b(&[k('s')], "s", Action::CycleSort, "sort", "sort by exact J, estimate, or id (numbers as numbers)", true),
        b(&[k('t')], "t", Action::ToggleTuning, "tune", "open the tuning panel (b, r, k, S-curve, recall)", true),
        b(&[k('b')], "b/B", Action::BandsUp, "bands", "bands b +1 / −1 (re-bands at once)", false),
        b(&[k('B')], "", Action::BandsDown, "", "", false),
        b(&[k('r')], "r/R", Action::RowsUp, "rows", "rows per band r +1 / −1", false),
        b(&[k('R')], "", Action::RowsDown, "", "", false),
        b(&[k('n')], "n/N", Action::Neighbours, "neighbours", "nearest neighbours of the left / right document", true),
        b(&[k('N')], "", Action::NeighboursOther, "", "", false),
        b(&[k('c')], "c", Action::Clusters, "clusters", "clusters of the listed pairs (union-find at a threshold)", true),
        b(&[k('e')], "e", Action::Export, "export", "write the listed pairs to a CSV or JSON Lines file", false),
        b(&[k('m')], "m", Action::SwitchMethod, "method", "switch candidates between MinHash LSH and SimHash (Hamming column)", false),
        b(&[k('o')], "o", Action::SwitchSketch, "sketch", "switch MinHash LSH's sketch: one-permutation hashing ↔ classic MinHash", false),
        b(&[ESC], "Esc", Action::Back, "clear filter", "clear the filter", false),
    ],
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sort {
    Jaccard,
    Estimate,
    Path,
}

impl Sort {
    pub fn name(self) -> &'static str {
        match self {
            Sort::Jaccard => "exact J",
            Sort::Estimate => "estimate",
            Sort::Path => "path",
        }
    }
    fn next(self) -> Sort {
        match self {
            Sort::Jaccard => Sort::Estimate,
            Sort::Estimate => Sort::Path,
            Sort::Path => Sort::Jaccard,
        }
    }
}

pub struct ListView {
    /// The selection, as a position in `visible`.
    cursor: Cursor,
    sort: Sort,
    /// Indices into the results' pairs, filtered and sorted.
    visible: Vec<u32>,
    filter: Filter,
    tuning: Tuning,
}

impl ListView {
    /// The list, empty until the first results; the tuning panel shows recall at
    /// s = `s_pct` / 100.
    pub fn new(s_pct: u32) -> ListView {
        ListView {
            cursor: Cursor::default(),
            sort: Sort::Jaccard,
            visible: Vec::new(),
            filter: Filter::default(),
            tuning: Tuning::new(s_pct),
        }
    }

    #[cfg(test)]
    pub fn cursor(&self) -> Cursor {
        self.cursor
    }

    #[cfg(test)]
    pub fn sort(&self) -> Sort {
        self.sort
    }

    /// The pairs listed: indices into the results' pairs, in list order.
    #[cfg(test)]
    pub fn visible(&self) -> &[u32] {
        &self.visible
    }

    #[cfg(test)]
    pub fn filter(&self) -> &Filter {
        &self.filter
    }

    pub fn tuning(&self) -> &Tuning {
        &self.tuning
    }

    pub fn tuning_mut(&mut self) -> &mut Tuning {
        &mut self.tuning
    }

    /// The selected pair of the results on screen.
    #[cfg(test)]
    pub fn selected_pair(&self, session: &Session) -> Option<Pair> {
        selected_in(self, session.results()?)
    }

    /// The pairs listed, in list order (what the export writes, what clusters join).
    fn listed(&self, r: &Results) -> Vec<Pair> {
        self.visible
            .iter()
            .map(|&i| r.found.pairs[i as usize])
            .collect()
    }

    /// Rows of pairs on screen, beside the tuning panel and above the filter if shown.
    fn page(&self, size: (u16, u16)) -> usize {
        let s = layout::screen(layout::area(size));
        let p = layout::pairs(s.body, self.tuning.is_open(), self.filter.shown());
        layout::list_rows(p.list).max(1)
    }

    fn select(&mut self, to: isize, size: (u16, u16)) {
        let page = self.page(size);
        self.cursor.select(to, self.visible.len(), page);
    }

    /// New results replaced `old`: the list is made again, keeping the selected pair
    /// selected if it is still there.
    pub fn results_replaced(&mut self, old: Option<&Results>, session: &Session, size: (u16, u16)) {
        let keep = old.and_then(|old| selected_ids(self, old));
        self.refresh(session, keep, size);
    }

    /// Filters and sorts again, keeping the selected pair selected.
    fn refilter(&mut self, session: &Session, size: (u16, u16)) {
        let keep = session.results().and_then(|r| selected_ids(self, r));
        self.refresh(session, keep, size);
    }

    /// Recomputes the visible pairs (filter, sort), then selects the pair `keep` if it
    /// is still listed.
    fn refresh(&mut self, session: &Session, keep: Option<(String, String)>, size: (u16, u16)) {
        let Some(r) = session.results() else {
            self.visible.clear();
            return;
        };
        let (index, pairs) = (&r.index, &r.found.pairs);
        let mut visible: Vec<u32> = if self.filter.text().is_empty() {
            (0..pairs.len() as u32).collect()
        } else {
            let matches = self.filter.matcher();
            // A document is found by what the list shows of it (id, title) and by the
            // file it was read from (a record's id names no file).
            let hit: Vec<bool> = index
                .docs()
                .iter()
                .map(|d| {
                    matches(&d.id)
                        || matches(&d.title)
                        || d.source.path().is_some_and(|p| matches(&p.to_string_lossy()))
                })
                .collect();
            (0..pairs.len() as u32)
                .filter(|&i| {
                    let p = &pairs[i as usize];
                    hit[p.a as usize] || hit[p.b as usize]
                })
                .collect()
        };
        use rayon::slice::ParallelSliceMut;
        use simtui_engine::natural_cmp;
        match self.sort {
            Sort::Jaccard => {} // the engine's order: J descending, then ids
            Sort::Estimate => visible.par_sort_by(|&x, &y| {
                pairs[y as usize]
                    .estimate
                    .total_cmp(&pairs[x as usize].estimate)
            }),
            Sort::Path => visible.par_sort_by(|&x, &y| {
                let (p, q) = (&pairs[x as usize], &pairs[y as usize]);
                let id = |d: u32| index.docs()[d as usize].id.as_str();
                natural_cmp(id(p.a), id(q.a)).then_with(|| natural_cmp(id(p.b), id(q.b)))
            }),
        }
        self.visible = visible;
        if let Some((a, b)) = keep
            && let Some(pos) = self.visible.iter().position(|&i| {
                let p = &pairs[i as usize];
                index.docs()[p.a as usize].id == a && index.docs()[p.b as usize].id == b
            })
        {
            self.cursor.selected = pos;
        }
        self.select(self.cursor.selected as isize, size);
    }

    fn update_list(&mut self, action: Action, cx: &mut Cx) {
        let page = self.page(cx.size);
        if self.cursor.apply(action, self.visible.len(), page) {
            return;
        }
        let Some(r) = cx.session.results() else {
            return;
        };
        let (index, selected) = (r.index.clone(), selected_in(self, r));
        let listed = || self.listed(r);
        match action {
            Action::Open => {
                if let Some(pair) = selected {
                    let diff = DiffView::open(index, pair, cx);
                    cx.push(diff);
                }
            }
            Action::Neighbours | Action::NeighboursOther => {
                if let Some(p) = selected {
                    let doc = if action == Action::Neighbours {
                        p.a
                    } else {
                        p.b
                    };
                    if let Some(view) = NeighboursView::open(index, doc, cx) {
                        cx.push(view);
                    }
                }
            }
            Action::Clusters => {
                let listed = listed();
                let view = ClustersView::open(index, listed, self.tuning.s_pct(), cx);
                cx.push(view);
            }
            Action::Export => {
                let rows = Rows::Pairs(index, Arc::from(listed()));
                cx.push(ExportView::new(rows));
            }
            Action::SwitchMethod => {
                let said = cx.session.switch_method(cx.jobs);
                cx.say(said);
            }
            Action::SwitchSketch => {
                let said = cx.session.switch_sketch(cx.jobs);
                cx.say(said);
            }
            Action::StartFilter => self.filter.start(),
            Action::Back => {
                if self.filter.clear() {
                    self.refilter(cx.session, cx.size);
                }
            }
            Action::CycleSort => {
                self.sort = self.sort.next();
                self.refilter(cx.session, cx.size);
            }
            _ => {
                if self.tuning.update(action, cx) {
                    // The panel opened or closed: the list has other rows.
                    self.select(self.cursor.selected as isize, cx.size);
                }
            }
        }
    }
}

/// The selected pair in results `r` (those on screen, or those just replaced).
fn selected_in(list: &ListView, r: &Results) -> Option<Pair> {
    let i = *list.visible.get(list.cursor.selected)?;
    r.found.pairs.get(i as usize).copied()
}

/// The ids of the selected pair: they survive a new banding or index, where the
/// positions and document numbers do not.
fn selected_ids(list: &ListView, r: &Results) -> Option<(String, String)> {
    let p = selected_in(list, r)?;
    let docs = &r.index.docs();
    Some((docs[p.a as usize].id.clone(), docs[p.b as usize].id.clone()))
}

impl View for ListView {
    fn keys(&self, session: &Session) -> Context {
        if session.results().is_none() {
            &loading::KEYS
        } else if self.filter.is_editing() {
            &filter::KEYS
        } else if self.tuning.is_open() {
            &tuning::KEYS
        } else {
            &KEYS
        }
    }

    fn update(&mut self, action: Action, cx: &mut Cx) {
        if cx.session.results().is_none() {
            return;
        }
        if !self.filter.is_editing() {
            return self.update_list(action, cx);
        }
        match self.filter.update(action) {
            // A new filter selects its first match: Enter then opens what is shown
            // first, not a row the filter left behind.
            Edit::Changed => {
                self.cursor = Cursor::default();
                self.refresh(cx.session, None, cx.size);
            }
            Edit::Move => self.update_list(action, cx),
            Edit::Same => {}
        }
    }

    fn resized(&mut self, cx: &mut Cx) {
        self.select(self.cursor.selected as isize, cx.size);
    }

    fn step(&mut self, step: isize, cx: &mut Cx) -> bool {
        let to = self.cursor.selected as isize + step;
        if to < 0 || to as usize >= self.visible.len() {
            cx.say(if step > 0 { "last pair" } else { "first pair" });
            return false;
        }
        self.select(to, cx.size);
        true
    }

    fn position(&self) -> String {
        format!(
            " · pair {} of {}",
            fmt::count(self.cursor.selected as u64 + 1),
            fmt::count(self.visible.len() as u64)
        )
    }

    fn render(&self, ui: &Ui, frame: &mut Frame, body: Rect) {
        if ui.session.results().is_none() {
            return loading::render(ui, frame, body);
        }
        let areas = layout::pairs(body, self.tuning.is_open(), self.filter.shown());
        if let Some(t) = areas.tuning {
            self.tuning.render(ui, frame, t);
        }
        self.render_list(ui, frame, areas.list);
        if let Some(f) = areas.filter {
            self.filter.render(ui, frame, f);
        }
    }
}

/// The list's title: counts, banding, sort, and whether the results are stale.
fn title(list: &ListView, ui: &Ui) -> Line<'static> {
    let t = &ui.theme;
    let session = ui.session;
    let Some(r) = session.results() else {
        return Line::default();
    };
    let mut spans = vec![
        Span::styled(
            format!(
                " Pairs {} of {}",
                fmt::count(list.visible.len() as u64),
                fmt::count(r.found.pairs.len() as u64)
            ),
            t.title(),
        ),
        Span::raw(format!(
            " · {} · {} · k={} {} · by {}",
            fmt::plural(r.found.candidates, "candidate", "candidates"),
            match &r.simhash {
                None => format!("b={} r={}", r.bands, r.rows),
                Some((s, _)) => format!(
                    "SimHash {} {} ≤{}",
                    s.hasher.bits(),
                    s.hasher.weight().name(),
                    s.max_distance
                ),
            },
            r.index.params().k,
            r.index.params().text.unit.name(),
            list.sort.name()
        )),
    ];
    // SimHash's candidates are close fingerprints, verified like LSH's: those whose
    // texts share no shingle at all (J = 0, listed last, as `pairs --method simhash`
    // lists them) are said to be so, right after the counts.
    if r.simhash.is_some() {
        let pairs = &r.found.pairs;
        let zero = pairs.len() - pairs.partition_point(|p| p.jaccard > 0.0);
        if zero > 0 {
            spans.insert(
                1,
                Span::styled(
                    format!(
                        " · last {}: J = 0, close fingerprints sharing no shingle",
                        fmt::count(zero as u64)
                    ),
                    t.dim(),
                ),
            );
        }
    }
    // What is under way goes right after the counts, so a narrow title cuts the details,
    // not the warning.
    if session.stale() {
        spans.insert(
            1,
            Span::styled(
                format!(" · STALE (re-indexing {})", session.shingling()),
                t.warn(),
            ),
        );
    } else if session.rebanding() {
        let what = match session.simhash() {
            Some(_) => "SimHash".to_string(),
            None => {
                let (b, r) = session.banding();
                format!("b={b} r={r} {}", session.params().sketch.name())
            }
        };
        spans.insert(1, Span::styled(format!(" · banding {what}…"), t.warn()));
    }
    Line::from(spans)
}

struct Columns {
    rank: usize,
    id: usize,
    /// SimHash results: a Hamming distance column.
    hamming: bool,
}

fn columns(list: &ListView, session: &Session, width: usize) -> Columns {
    let rank = fmt::count(list.visible.len().max(1) as u64).len().max(1);
    let hamming = session.results().is_some_and(|r| r.simhash.is_some());
    // rank, J, estimate (and Hamming): "  " separators; ids share the rest.
    let fixed = 1 + rank + 2 + 5 + 2 + 5 + 2 + 2 + if hamming { 5 } else { 0 };
    Columns {
        rank,
        id: width.saturating_sub(fixed) / 2,
        hamming,
    }
}

/// A document's id and title in a column `width` wide: the id whole if it takes at most
/// two thirds of the column (else shortened in the middle), then the title in what is
/// left, when that is worth showing (at least 6 columns). The title starts with a space.
fn id_and_title(id: &str, title: &str, width: usize) -> (String, String) {
    let id = fmt::clean(id);
    let id = if fmt::width(&id) <= width {
        id
    } else {
        fmt::shorten_middle(&id, width)
    };
    let id_max = (width * 2 / 3).max(width.min(12));
    let id = if fmt::width(&id) > id_max && !title.is_empty() {
        fmt::shorten_middle(&id, id_max)
    } else {
        id
    };
    let room = width.saturating_sub(fmt::width(&id) + 1);
    let title = fmt::clean(title);
    if room < 6 || title.is_empty() {
        return (id, String::new());
    }
    (id, format!(" {}", fmt::truncate(&title, room)))
}

impl ListView {
    fn render_list(&self, ui: &Ui, frame: &mut Frame, area: Rect) {
        let t = &ui.theme;
        let Some(r) = ui.session.results() else {
            return;
        };
        let w = area.width as usize;
        let c = columns(self, ui.session, w);
        let mut lines = vec![title(self, ui)];
        lines.push(Line::from(Span::styled(
            fmt::pad(
                &format!(
                    " {:>rank$}  {:>5}  {:>5}{}  {}  {}",
                    "#",
                    "J",
                    "est",
                    if c.hamming { "  ham" } else { "" },
                    fmt::pad("A", c.id),
                    "B",
                    rank = c.rank
                ),
                w,
            ),
            t.header(),
        )));
        let rows = layout::list_rows(area);
        if self.visible.is_empty() {
            let msg = if r.index.docs().is_empty() {
                format!(
                    " No documents to compare: nothing readable was found ({} skipped).",
                    fmt::count(r.index.skipped().len() as u64)
                )
            } else if r.found.pairs.is_empty() {
                format!(
                    " No candidate pairs with b={} r={} (threshold ≈ {:.2}). Press t to tune: more bands or fewer rows find more.",
                    r.bands,
                    r.rows,
                    simtui_engine::minhash::curve::threshold(r.bands, r.rows)
                )
            } else {
                " No pair matches the filter. Esc clears it.".to_string()
            };
            lines.push(Line::from(Span::styled(msg, t.dim())));
        }
        let index = &r.index;
        let offset = self.cursor.offset;
        for pos in offset..(offset + rows).min(self.visible.len()) {
            let p = &r.found.pairs[self.visible[pos] as usize];
            let (a, b) = (&index.docs()[p.a as usize], &index.docs()[p.b as usize]);
            let hamming = match &r.simhash {
                Some((_, fps)) => format!(
                    "  {:>3}",
                    fps.distance(
                        index.docs()[p.a as usize].group,
                        index.docs()[p.b as usize].group
                    )
                ),
                None => String::new(),
            };
            let numbers = format!(
                " {:>rank$}  {:.3}  {:.3}{hamming}  ",
                pos + 1,
                p.jaccard,
                p.estimate,
                rank = c.rank
            );
            let (a_id, a_title) = id_and_title(&a.id, &a.title, c.id);
            let (b_id, b_title) = id_and_title(&b.id, &b.title, c.id);
            let a_title = fmt::pad(&a_title, c.id - fmt::width(&a_id));
            let text = format!("{numbers}{a_id}{a_title}  {b_id}{b_title}");
            let pad = " ".repeat(w.saturating_sub(fmt::width(&text)));
            lines.push(if pos == self.cursor.selected {
                // One style for the whole row: the selection shows without colour.
                Line::from(Span::styled(fmt::pad(&text, w), t.selected()))
            } else {
                Line::from(vec![
                    Span::raw(numbers),
                    Span::raw(a_id),
                    Span::styled(a_title, t.dim()),
                    Span::raw("  "),
                    Span::raw(b_id),
                    Span::styled(b_title, t.dim()),
                    Span::raw(pad),
                ])
            });
        }
        frame.render_widget(Paragraph::new(lines), area);
    }
}
