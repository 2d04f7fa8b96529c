//! The pairs list, the explorer's first view: rank, exact J, MinHash estimate and both
//! ids, one pair per row, sorted and filtered; with the tuning panel beside or above it,
//! and the loading view in its place until there are pairs. Everything else opens from
//! here: the diff, the neighbours, the clusters, the export.

use super::clusters::ClustersView;
use super::diff::DiffView;
use super::export::{ExportView, Rows};
use super::filter::{self, Edit, Filter};
use super::loading;
use super::members::MembersView;
use super::neighbours::NeighboursView;
use super::tuning::{self, Tuning};
use super::view::{Cursor, Cx, Ui, View};
use crate::tui::keys::{Action, Context, DOWN, END, ENTER, ESC, HOME, KeyTable, PGDN, PGUP, UP, b, k};
use crate::tui::session::{Results, Session};
use crate::tui::rows::{self, Listed, Row};
use crate::tui::widgets::theme::Theme;
use crate::tui::widgets::{fmt, layout};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use simtui_engine::search::found::Pair;
use std::sync::Arc;

/// The list's keys (with the tuning panel closed).
#[rustfmt::skip]
pub static KEYS: KeyTable = KeyTable::new("Pairs", &[
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
    b(&[k('a')], "a", Action::ThresholdBanding, "-t s", "band as -t s does in every command (s: the tuning panel's)", false),
    b(&[k('n')], "n/N", Action::Neighbours, "neighbours", "nearest neighbours of the left / right document", true),
    b(&[k('N')], "", Action::NeighboursOther, "", "", false),
    b(&[k('c')], "c", Action::Clusters, "clusters", "clusters of the listed pairs (union-find at a threshold)", true),
    b(&[k('e')], "e", Action::Export, "export", "write the listed pairs to a CSV or JSON Lines file", false),
    b(&[k('m')], "m", Action::SwitchMethod, "method", "switch candidates between MinHash LSH and SimHash (Hamming column)", false),
    b(&[k('o')], "o", Action::SwitchSketch, "sketch", "switch MinHash LSH's sketch: one-permutation hashing ↔ classic MinHash", false),
    b(&[ESC], "Esc", Action::Back, "clear filter", "clear the filter", false),
]);

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
    /// The rows listed, filtered and sorted: pairs, blocks of many pairs, and buckets
    /// too big to compare (first).
    visible: Vec<Row>,
    /// The document pairs the visible rows stand for.
    visible_pairs: u64,
    /// The documents the filter matches (none without a filter).
    hit: Option<Arc<Vec<bool>>>,
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
            visible_pairs: 0,
            hit: None,
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

    /// The rows listed, in list order.
    #[cfg(test)]
    pub fn visible(&self) -> &[Row] {
        &self.visible
    }

    /// Each listed row's pair (a block's first).
    #[cfg(test)]
    pub fn pairs_shown(&self, session: &Session) -> Vec<Pair> {
        let r = session.results().expect("results");
        self.visible.iter().filter_map(|&row| row_pair(r, row)).collect()
    }

    /// The document pairs the listed rows stand for.
    #[cfg(test)]
    pub fn visible_pairs(&self) -> u64 {
        self.visible_pairs
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

    /// The pairs listed, in list order, a block by the pairs that link its documents
    /// (what clusters join).
    fn links(&self, r: &Results) -> Vec<Pair> {
        self.visible
            .iter()
            .flat_map(|&row| match row {
                Row::Pair(i) => vec![r.found.pairs[i as usize]],
                Row::Block(i) => rows::block_links(&r.index, &r.found.blocks[i as usize]),
                Row::Bucket(_) => Vec::new(),
            })
            .collect()
    }

    #[cfg(test)]
    pub fn listed_for_test(&self, r: &Results) -> Listed {
        self.listed(r)
    }

    /// What the export writes: every pair the rows stand for.
    fn listed(&self, r: &Results) -> Listed {
        Listed {
            index: r.index.clone(),
            found: r.found.clone(),
            search: r.search.clone(),
            rows: self.visible.clone(),
            hit: self.hit.clone(),
            by_jaccard: self.sort == Sort::Jaccard,
            pairs: self.visible_pairs,
            natural: r.natural.clone(),
        }
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

    /// Recomputes the visible rows (filter, sort), then selects the row `keep` if it
    /// is still listed.
    fn refresh(&mut self, session: &Session, keep: Option<(String, String)>, size: (u16, u16)) {
        let Some(r) = session.results() else {
            self.visible.clear();
            self.visible_pairs = 0;
            return;
        };
        let index = &r.index;
        self.hit = (!self.filter.text().is_empty()).then(|| {
            let matches = self.filter.matcher();
            // A document is found by what the list shows of it (id, title) and by the
            // file it was read from (a record's id names no file).
            let hit: Vec<bool> = index
                .docs()
                .iter()
                .map(|d| {
                    matches(&d.id)
                        || matches(d.title())
                        || d.source.path().is_some_and(|p| matches(&p.to_string_lossy()))
                })
                .collect();
            Arc::new(hit)
        });
        let hit = self.hit.as_deref();
        let shown = |a: u32, b: u32| hit.is_none_or(|h| h[a as usize] || h[b as usize]);
        let any = |docs: &[u32]| hit.is_none_or(|h| docs.iter().any(|&d| h[d as usize]));
        let (pairs, blocks) = (&r.found.pairs, &r.found.blocks);
        // Pairs and blocks merged in the engine's order (J descending, then ids).
        let mut listed: Vec<Row> = Vec::with_capacity(pairs.len() + blocks.len());
        let mut next_block = blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| hit.is_none() || any(&rows::block_docs(index, b)))
            .peekable();
        // Ids in natural order (numbers as numbers), as the band job listed them.
        let rank = |p: &Pair| (r.natural[p.a as usize], r.natural[p.b as usize]);
        let before = |x: &Pair, y: &Pair| {
            y.jaccard
                .total_cmp(&x.jaccard)
                .then_with(|| rank(x).cmp(&rank(y)))
                .is_lt()
        };
        for (i, p) in pairs.iter().enumerate() {
            if !shown(p.a, p.b) {
                continue;
            }
            while let Some((j, _)) = next_block.next_if(|(_, b)| before(&b.first, p)) {
                listed.push(Row::Block(j as u32));
            }
            listed.push(Row::Pair(i as u32));
        }
        listed.extend(next_block.map(|(j, _)| Row::Block(j as u32)));
        let first = |row: &Row| match *row {
            Row::Pair(i) => pairs[i as usize],
            Row::Block(i) => blocks[i as usize].first,
            Row::Bucket(_) => unreachable!("buckets are listed apart"),
        };
        use rayon::slice::ParallelSliceMut;
        match self.sort {
            Sort::Jaccard => {} // as listed: J descending, then ids
            Sort::Estimate => {
                listed.par_sort_by(|x, y| first(y).estimate.total_cmp(&first(x).estimate))
            }
            Sort::Path => listed.par_sort_by(|x, y| rank(&first(x)).cmp(&rank(&first(y)))),
        }
        // Buckets too big to compare first, in every order: what was not compared is
        // the first thing to know.
        let buckets = r
            .capped
            .iter()
            .enumerate()
            .filter(|(_, c)| any(&c.docs))
            .map(|(i, _)| Row::Bucket(i as u32));
        self.visible = buckets.chain(listed).collect();
        self.visible_pairs = self
            .visible
            .iter()
            .map(|row| match *row {
                Row::Pair(_) => 1,
                Row::Block(i) => {
                    let block = &blocks[i as usize];
                    hit.map_or(block.pairs, |h| rows::block_hits(index, block, h))
                }
                Row::Bucket(_) => 0,
            })
            .sum();
        if let Some(keep) = keep
            && let Some(pos) = self.visible.iter().position(|row| row_ids(r, *row) == keep)
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
        let (index, row) = (r.index.clone(), self.visible.get(self.cursor.selected).copied());
        let selected = selected_in(self, r);
        match action {
            Action::Open => match row {
                Some(Row::Pair(_)) => {
                    if let Some(pair) = selected {
                        let diff = DiffView::open(index, pair, cx);
                        cx.push(diff);
                    }
                }
                // Many pairs in one row: its documents, each beside the one kept.
                Some(Row::Block(i)) => {
                    let block = &r.found.blocks[i as usize];
                    let cluster = rows::block_cluster(&index, block);
                    let name = if block.is_within() {
                        "Identical documents"
                    } else {
                        "Two contents' documents"
                    };
                    cx.push(MembersView::named(index, cluster, name.into()));
                }
                Some(Row::Bucket(i)) => {
                    let cluster = r.capped[i as usize].cluster(&index);
                    let name = "A bucket too big to compare (J to the kept one)".into();
                    cx.push(MembersView::named(index, cluster, name));
                }
                None => {}
            },
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
                let links = self.links(r);
                let view = ClustersView::open(index, links, self.tuning.s_pct(), cx);
                cx.push(view);
            }
            Action::Export => {
                let rows = Rows::Listed(Arc::new(self.listed(r)));
                cx.push(ExportView::new(rows, cx.session.paths()));
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

/// The selected pair in results `r` (those on screen, or those just replaced): a
/// block's first pair; a bucket's kept document beside itself.
fn selected_in(list: &ListView, r: &Results) -> Option<Pair> {
    row_pair(r, *list.visible.get(list.cursor.selected)?)
}

/// The pair a row shows first, if it still is one of `r`'s.
fn row_pair(r: &Results, row: Row) -> Option<Pair> {
    match row {
        Row::Pair(i) => r.found.pairs.get(i as usize).copied(),
        Row::Block(i) => r.found.blocks.get(i as usize).map(|b| b.first),
        Row::Bucket(i) => r.capped.get(i as usize).map(|c| {
            let d = c.kept;
            Pair {
                a: d,
                b: d,
                jaccard: 0.0,
                estimate: 0.0,
            }
        }),
    }
}

/// A row's ids (its first pair's; a bucket's kept document and no second): they
/// survive a new banding or index, where the positions and document numbers do not.
fn row_ids(r: &Results, row: Row) -> (String, String) {
    let docs = r.index.docs();
    match row_pair(r, row) {
        Some(p) if matches!(row, Row::Bucket(_)) => (docs.at(p.a as usize).id.clone(), String::new()),
        Some(p) => (docs.at(p.a as usize).id.clone(), docs.at(p.b as usize).id.clone()),
        None => Default::default(),
    }
}

/// The ids of the selected row.
fn selected_ids(list: &ListView, r: &Results) -> Option<(String, String)> {
    let row = *list.visible.get(list.cursor.selected)?;
    Some(row_ids(r, row))
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
        // The diff steps through pairs: rows of many pairs are passed over.
        let is_pair = |to: isize| matches!(self.visible.get(to as usize), Some(Row::Pair(_)));
        let mut to = self.cursor.selected as isize + step;
        while to >= 0 && (to as usize) < self.visible.len() && !is_pair(to) {
            to += step.signum();
        }
        if to < 0 || to as usize >= self.visible.len() {
            cx.say(if step > 0 { "last pair" } else { "first pair" });
            return false;
        }
        self.select(to, cx.size);
        true
    }

    fn position(&self) -> String {
        let many = self.visible.iter().any(|r| !matches!(r, Row::Pair(_)));
        let what = if many { "row" } else { "pair" };
        format!(" · {what} {}", self.cursor.of(self.visible.len()))
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
    // Counted in document pairs, as `simtui pairs` counts them, whatever the rows.
    let rows = list.visible.len();
    let many = list.visible.iter().any(|r| !matches!(r, Row::Pair(_)));
    let mut spans = vec![
        Span::styled(
            format!(
                " Pairs {} of {}{}",
                fmt::count(list.visible_pairs),
                fmt::count(r.found.total_pairs()),
                if many {
                    format!(" in {}", fmt::plural(rows as u64, "row", "rows"))
                } else {
                    String::new()
                }
            ),
            t.title(),
        ),
        Span::raw(format!(
            " · {} · {} · k={} {} · by {}",
            fmt::plural(r.found.candidates, "candidate", "candidates"),
            match &r.simhash {
                None => format!(
                    "b={} r={}{}",
                    r.bands,
                    r.rows,
                    tuning::against_threshold((r.bands, r.rows), list.tuning.s())
                ),
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
    // Pairs not compared come right after the counts: nothing is left out unsaid.
    if !r.capped.is_empty() {
        spans.insert(
            1,
            Span::styled(
                format!(
                    " · {} of buckets too big to compare (--max-bucket)",
                    fmt::plural(r.capped.len() as u64, "group", "groups"),
                ),
                t.warn(),
            ),
        );
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
            } else if r.found.total_pairs() == 0 && r.capped.is_empty() {
                format!(
                    " No candidate pairs with b={} r={} (threshold ≈ {:.2}). Press t to tune: more bands or fewer rows find more.",
                    r.bands,
                    r.rows,
                    simtui_engine::search::curve::threshold(r.bands, r.rows)
                )
            } else {
                " No pair matches the filter. Esc clears it.".to_string()
            };
            lines.push(Line::from(Span::styled(msg, t.dim())));
        }
        let offset = self.cursor.offset;
        for pos in offset..(offset + rows).min(self.visible.len()) {
            let mut cells = cells(r, self.visible[pos], pos, &c);
            // The second side starts at the same column on every row.
            cells.a.1 = fmt::pad(&cells.a.1, c.id.saturating_sub(fmt::width(&cells.a.0)));
            lines.push(render_row(cells, pos == self.cursor.selected, w, t));
        }
        frame.render_widget(Paragraph::new(lines), area);
    }
}

/// What a row shows: the numbers, then each side's id and title (a block or bucket says
/// what it stands for in the second).
struct Cells {
    numbers: String,
    a: (String, String),
    b: (String, String),
}

fn cells(r: &Results, row: Row, pos: usize, c: &Columns) -> Cells {
    let index = &r.index;
    let doc = |d: u32| index.docs().at(d as usize);
    let numbers = |jaccard: Option<f64>, estimate: Option<f64>, hamming: String| {
        let num = |x: Option<f64>| x.map_or_else(|| format!("{:>5}", "—"), |x| format!("{x:.3}"));
        format!(
            " {:>rank$}  {}  {}{hamming}  ",
            pos + 1,
            num(jaccard),
            num(estimate),
            rank = c.rank
        )
    };
    let side = |d: u32| fmt::id_and_title(&doc(d).id, doc(d).title(), c.id);
    let text = |s: String| (fmt::truncate(&s, c.id), String::new());
    match row {
        Row::Pair(i) => {
            let p = &r.found.pairs[i as usize];
            let hamming = match &r.simhash {
                Some((_, fps)) => format!(
                    "  {:>3}",
                    fps.distance(doc(p.a).group, doc(p.b).group)
                ),
                None => String::new(),
            };
            Cells {
                numbers: numbers(Some(p.jaccard), Some(p.estimate), hamming),
                a: side(p.a),
                b: side(p.b),
            }
        }
        Row::Block(i) => {
            let block = &r.found.blocks[i as usize];
            let hamming = if c.hamming {
                let d = match &r.simhash {
                    Some((_, fps)) => fps.distance(block.ga, block.gb).to_string(),
                    None => String::new(),
                };
                format!("  {d:>3}")
            } else {
                String::new()
            };
            let size = |g: u32| index.members(g).len() as u64;
            let what = if block.is_within() {
                format!("▸ {} identical documents", fmt::count(size(block.ga)))
            } else {
                format!(
                    "▸ {} × {} documents",
                    fmt::count(size(block.ga)),
                    fmt::count(size(block.gb)),
                )
            };
            Cells {
                numbers: numbers(Some(block.jaccard), Some(block.estimate), hamming),
                a: side(block.first.a),
                b: text(what),
            }
        }
        Row::Bucket(i) => {
            let capped = &r.capped[i as usize];
            let hamming = if c.hamming { format!("  {:>3}", "—") } else { String::new() };
            Cells {
                numbers: numbers(None, None, hamming),
                a: side(capped.kept),
                b: text(format!(
                    "▸ {} in huge buckets, not compared",
                    fmt::count(capped.docs.len() as u64),
                )),
            }
        }
    }
}

/// A row on screen: one style for the whole selected row (the selection shows without
/// colour), titles dimmed otherwise.
fn render_row(cells: Cells, selected: bool, w: usize, t: &Theme) -> Line<'static> {
    let Cells { numbers, a, b } = cells;
    let (a_id, a_title) = a;
    let (b_id, b_title) = b;
    let text = format!("{numbers}{a_id}{a_title}  {b_id}{b_title}");
    if selected {
        return Line::from(Span::styled(fmt::pad(&text, w), t.selected()));
    }
    let pad = " ".repeat(w.saturating_sub(fmt::width(&text)));
    Line::from(vec![
        Span::raw(numbers),
        Span::raw(a_id),
        Span::styled(a_title, t.dim()),
        Span::raw("  "),
        Span::raw(b_id),
        Span::styled(b_title, t.dim()),
        Span::raw(pad),
    ])
}
