//! The tuning panel: the LSH parameters, what the S-curve predicts, what the corpus
//! really does, and a chart of both. A part of the pairs list (which it shares the
//! screen with), with a key table of its own while it is open: its letters tune, the
//! arrows still move in the list. No key that moves in a view (j/k, h/l, g/G, n/p)
//! starts work here: the shingle size is +/−.

use super::view::{Cx, Ui};
use crate::tui::keys::{Action, DOWN, END, ENTER, ESC, HOME, KeyTable, PGDN, PGUP, UP, b, code, k};
use crate::tui::recall::{self, BINS};
use crate::tui::session::{AllState, Session};
use crate::tui::widgets::fmt;
use crate::tui::widgets::s_curve::{self, SCurve};
use crate::tui::widgets::theme::Theme;
use ratatui::Frame;
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use simtui_engine::search::curve::{self, probability, threshold};

/// The keys while the tuning panel is open: its letters tune, the arrows (and j/k) still
/// move in the list.
#[rustfmt::skip]
pub static KEYS: KeyTable = KeyTable::new("Tuning", &[
    b(&[k('b')], "b/B", Action::BandsUp, "bands±", "bands b +1 / −1: re-bands the stored signatures at once", true),
    b(&[k('B')], "", Action::BandsDown, "", "", false),
    b(&[k('r')], "r/R", Action::RowsUp, "rows±", "rows per band r +1 / −1 (hashes more if b·r needs it)", true),
    b(&[k('R')], "", Action::RowsDown, "", "", false),
    b(&[k('a')], "a", Action::ThresholdBanding, "-t s", "band as -t s does in every command: the fewest false candidates reaching 0.9 at s", true),
    b(&[k('+'), k('=')], "+/-", Action::ShingleUp, "k±", "shingle size k +1 / −1: re-indexes in the background", true),
    b(&[k('-')], "", Action::ShingleDown, "", "", false),
    b(&[k('u')], "u", Action::ToggleUnit, "unit", "shingle unit word ↔ char: re-indexes in the background; each unit keeps its own k (char starts at 9, word at 5)", true),
    b(&[k('o')], "o", Action::SwitchSketch, "sketch", "sketch one-permutation hashing ↔ classic MinHash: signatures computed in the background", false),
    b(&[k('m')], "m", Action::SwitchMethod, "method", "candidates by MinHash LSH ↔ SimHash", false),
    b(&[code(KeyCode::Right), k('>')], "←/→", Action::SimUp, "s±", "move the similarity s where recall is shown (±0.05)", true),
    b(&[code(KeyCode::Left), k('<')], "", Action::SimDown, "", "", false),
    b(&[UP, k('k')], "↑/↓", Action::Up, "", "move in the pair list (j/k too, as with the panel closed)", false),
    b(&[DOWN, k('j')], "", Action::Down, "", "", false),
    b(&[PGUP], "PgUp", Action::PageUp, "", "one page up", false),
    b(&[PGDN], "PgDn", Action::PageDown, "", "one page down", false),
    b(&[k('g'), HOME], "g/Home", Action::Top, "", "first pair", false),
    b(&[k('G'), END], "G/End", Action::Bottom, "", "last pair", false),
    b(&[ENTER], "Enter", Action::Open, "diff", "open the selected pair side by side", false),
    b(&[k('s')], "s", Action::CycleSort, "sort", "cycle the sort", false),
    b(&[k('/')], "/", Action::StartFilter, "filter", "filter by id, file or title substring", false),
    b(&[k('e')], "e", Action::Export, "export", "write the listed pairs to a CSV or JSON Lines file", false),
    b(&[k('t'), ESC], "t/Esc", Action::ToggleTuning, "close", "close the tuning panel", true),
]);

pub struct Tuning {
    open: bool,
    /// The similarity s (in hundredths, so steps stay exact) where recall is shown.
    s_pct: u32,
    /// The banding before this round of tuning, drawn dimmed.
    prev: Option<(usize, usize)>,
}

impl Tuning {
    /// The panel, closed, showing recall at s = `s_pct` / 100.
    pub fn new(s_pct: u32) -> Tuning {
        Tuning {
            open: false,
            s_pct,
            prev: None,
        }
    }

    pub fn is_open(&self) -> bool {
        self.open
    }

    /// The similarity where recall is shown (and where clusters are cut at first).
    pub fn s(&self) -> f64 {
        self.s_pct as f64 / 100.0
    }

    pub fn s_pct(&self) -> u32 {
        self.s_pct
    }

    /// The banding the dimmed curve shows, if the banding changed in this round.
    #[cfg(test)]
    pub fn prev(&self) -> Option<(usize, usize)> {
        self.prev
    }

    pub fn set_s_pct(&mut self, s_pct: u32) {
        self.s_pct = s_pct;
    }

    /// Tuning actions (from the list's table or the panel's): the banding, the
    /// shingles, the similarity, opening and closing. True when the panel opened or
    /// closed (the list's rows change).
    pub fn update(&mut self, action: Action, cx: &mut Cx) -> bool {
        let tunes_minhash = matches!(
            action,
            Action::ToggleTuning
                | Action::ThresholdBanding
                | Action::BandsUp
                | Action::BandsDown
                | Action::RowsUp
                | Action::RowsDown
        );
        if tunes_minhash && cx.session.simhash().is_some() {
            cx.say("b, r and the S-curve are MinHash's: m switches back");
            return false;
        }
        let (b, r) = cx.session.banding();
        let k = cx.session.params().k;
        match action {
            Action::ToggleTuning => {
                self.open = !self.open;
                // The dimmed "before" curve compares with where this round began.
                self.prev = None;
                return true;
            }
            Action::BandsUp => self.set_banding(b + 1, r, cx),
            Action::BandsDown => self.set_banding(b.saturating_sub(1), r, cx),
            Action::RowsUp => self.set_banding(b, r + 1, cx),
            Action::RowsDown => self.set_banding(b, r.saturating_sub(1), cx),
            Action::ThresholdBanding if self.s_pct == 0 => {
                cx.say("-t 0 chooses no banding: move s first (←/→)");
            }
            Action::ThresholdBanding => {
                let (tb, tr) = chosen_for(self.s());
                if (tb, tr) == (b, r) {
                    cx.say(format!("b={b} r={r} is already the banding -t {:.2} chooses", self.s()));
                } else {
                    self.set_banding(tb, tr, cx);
                }
            }
            Action::ShingleUp => set_k(k + 1, cx),
            Action::ShingleDown => set_k(k.saturating_sub(1), cx),
            Action::ToggleUnit => {
                if let Some(said) = cx.session.toggle_unit(cx.jobs) {
                    cx.say(said);
                }
            }
            Action::SimUp => self.s_pct = (self.s_pct + 5).min(100),
            Action::SimDown => {
                self.s_pct = self.s_pct.saturating_sub(5);
                cx.session.want_recall_at(self.s(), cx.jobs);
            }
            _ => {}
        }
        false
    }

    fn set_banding(&mut self, bands: usize, rows: usize, cx: &mut Cx) {
        let before = cx.session.banding();
        match cx.session.set_banding(bands, rows, cx.jobs) {
            // Keep the first curve of this round of tuning as "before".
            Ok(()) => {
                self.prev.get_or_insert(before);
            }
            Err(why) => cx.say(why),
        }
    }

    /// The panel in `area` (the list has the rest of the body).
    pub fn render(&self, ui: &Ui, frame: &mut Frame, area: Rect) {
        render_panel(self, ui, frame, area);
    }

    /// Closes the panel (the tests' way back to the plain list).
    #[cfg(test)]
    pub fn close(&mut self) {
        self.open = false;
    }
}

/// The banding every command chooses for `-t s` (the engine's one rule, within the
/// functions of the default 16 × 8).
pub fn chosen_for(s: f64) -> (usize, usize) {
    let c = curve::for_threshold(s, curve::DEFAULT_FUNCTIONS).banding;
    (c.bands, c.rows)
}

/// After a banding in a title: " as -t 0.80" when it is the one `-t s` chooses (the
/// commands at -t s find the same pairs), else what -t s would band with; nothing at
/// s = 0, where -t chooses nothing.
pub fn against_threshold(banding: (usize, usize), s: f64) -> String {
    if s <= 0.0 {
        return String::new();
    }
    match chosen_for(s) {
        chosen if chosen == banding => format!(" as -t {s:.2}"),
        (b, r) => format!(" (-t {s:.2}: b={b} r={r})"),
    }
}

fn set_k(k: usize, cx: &mut Cx) {
    if let Err(why) = cx.session.set_k(k, cx.jobs) {
        cx.say(why);
    }
}

/// Columns of the parameter text beside the chart.
const TEXT_W: u16 = 32;
/// Narrowest column of text: the panel's two columns when the chart is left out.
const MIN_COL: u16 = 28;

/// A line of the panel's text and how much it matters when rows are short: the lines of
/// lowest rank go first (the chart before any of them).
type Ranked = (u8, Line<'static>);

fn render_panel(tuning: &Tuning, ui: &Ui, frame: &mut Frame, area: Rect) {
    let t = &ui.theme;
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(" Tuning ", t.title()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let text_w = TEXT_W.min(inner.width / 2);
    let params = params_lines(tuning, ui, text_w);
    let recall = recall_lines(tuning, ui);
    let column = |lines: Vec<Ranked>, area: Rect, frame: &mut Frame| {
        let kept = fitting(lines, area);
        // Wrapped: a reason (real recall n/a) can be longer than the panel is wide.
        frame.render_widget(Paragraph::new(kept).wrap(Wrap { trim: false }), area);
    };
    let all: Vec<Ranked> = params.iter().chain(&recall).cloned().collect();
    let text_area = Rect {
        width: text_w,
        ..inner
    };
    let chart_area = Rect {
        x: inner.x + text_w + 1,
        width: inner.width.saturating_sub(text_w + 1),
        ..inner
    };
    let chart_fits = chart_area.width >= 10 && chart_area.height >= 5;
    if rows(&all, text_w) <= inner.height && chart_fits {
        column(all, text_area, frame);
        let (kept, missed) = histograms(ui.session);
        let curve = SCurve {
            banding: ui.session.banding(),
            before: tuning.prev,
            s: tuning.s(),
            kept: &kept,
            missed: &missed,
        };
        s_curve::render(&curve, t, frame, chart_area);
    } else if inner.width > 2 * MIN_COL {
        // Too few rows for every line: the chart goes first, the text takes two columns.
        let left = inner.width / 2;
        let params = params_lines(tuning, ui, left);
        column(params, Rect { width: left, ..inner }, frame);
        let right = Rect {
            x: inner.x + left + 1,
            width: inner.width - left - 1,
            ..inner
        };
        column(recall, right, frame);
    } else {
        column(all, inner, frame);
    }
}

/// Rows `lines` take at `width`, wrapped.
fn rows(lines: &[Ranked], width: u16) -> u16 {
    let w = width.max(1) as usize;
    lines
        .iter()
        .map(|(_, l)| l.width().div_ceil(w).max(1) as u16)
        .sum()
}

/// The lines that fit in `area`: those of lowest rank are left out first, the rest keep
/// their order.
fn fitting(mut lines: Vec<Ranked>, area: Rect) -> Vec<Line<'static>> {
    while rows(&lines, area.width) > area.height {
        let Some(lowest) = lines.iter().map(|l| l.0).min() else {
            break;
        };
        // The last of the lowest rank goes.
        let at = lines.iter().rposition(|l| l.0 == lowest).expect("a line");
        lines.remove(at);
    }
    lines.into_iter().map(|l| l.1).collect()
}

fn kv(t: &Theme, key: &str, value: String, keys: &str, width: u16) -> Line<'static> {
    let left = format!("{key}{value}");
    let pad = (width as usize).saturating_sub(fmt::width(&left) + fmt::width(keys) + 1);
    Line::from(vec![
        Span::raw(left),
        Span::raw(" ".repeat(pad)),
        Span::styled(keys.to_string(), t.key()),
    ])
}

/// The parameters: k, b, r, N, the threshold and s (the last two matter most).
fn params_lines(tuning: &Tuning, ui: &Ui, width: u16) -> Vec<Ranked> {
    let t = &ui.theme;
    let session = ui.session;
    let (b, r) = session.banding();
    let s = tuning.s();
    let params = session.params();
    let sketch = params.sketch.name();
    // The signatures banded are those of the wanted sketch at exactly b·r; others are
    // in use only while those are computed.
    let in_use = session
        .index()
        .map(|i| (i.params().sketch, i.num_perm()))
        .filter(|&used| used != (params.sketch, b * r))
        .map_or(String::new(), |(s, n)| {
            format!(" (sketching; {n} {} in use)", s.name())
        });
    let mut lines = vec![
        (
            2,
            kv(
                t,
                "k = ",
                format!("{} ({})", params.k, params.text.unit.name()),
                "+/- u",
                width,
            ),
        ),
        (3, kv(t, "b = ", b.to_string(), "b/B", width)),
        (3, kv(t, "r = ", r.to_string(), "r/R", width)),
        (
            2,
            kv(t, "N = b·r = ", format!("{} {sketch}{in_use}", b * r), "o", width),
        ),
        (
            6,
            Line::from(vec![
                Span::raw("threshold (1/b)^(1/r) = "),
                Span::styled(format!("{:.3}", threshold(b, r)), t.threshold()),
            ]),
        ),
        (6, kv(t, "s = ", format!("{s:.2}"), "←/→", width)),
    ];
    // -t 0 chooses nothing.
    if s > 0.0 {
        lines.push((5, threshold_line(t, (b, r), s, width)));
    }
    lines
}

/// Whether the banding is the one `-t s` chooses in every command, else which that is
/// (`a` bands so).
fn threshold_line(t: &Theme, banding: (usize, usize), s: f64, width: u16) -> Line<'static> {
    match chosen_for(s) {
        chosen if chosen == banding => {
            Line::from(Span::styled(format!("= the banding -t {s:.2} chooses"), t.dim()))
        }
        (b, r) => kv(t, &format!("-t {s:.2} bands "), format!("b={b} r={r}"), "a", width),
    }
}

/// What the S-curve predicts and what the corpus really does at s, counted as `simtui
/// eval` counts them: document pairs (identical documents included), the S-curve's
/// recall averaged over the pairs with J ≥ s, P(s) the curve's value at s alone.
fn recall_lines(tuning: &Tuning, ui: &Ui) -> Vec<Ranked> {
    let t = &ui.theme;
    let s = tuning.s();
    let (b, r) = ui.session.banding();
    let mut lines: Vec<Ranked> = vec![(
        4,
        Line::from(vec![
            Span::raw("P(s), curve at s    = "),
            Span::styled(format!("{:.3}", probability(s, b, r)), t.curve()),
        ]),
    )];
    let dim = |text: String| (6, Line::from(Span::styled(text, t.dim())));
    match ui.session.all() {
        None => {}
        Some(AllState::Computing {
            floor, done, total, ..
        }) => {
            let pct = if *total == 0 { 0 } else { done * 100 / total };
            lines.push(dim(format!("exact pairs J≥{floor:.2}: {pct}%…")));
        }
        Some(AllState::Unavailable(why)) => {
            lines.push(dim(format!("real recall: {}", fmt::clean(why))));
        }
        Some(AllState::Ready { all, .. }) if s < all.floor.max(recall::FLOOR) => {
            lines.push(dim(format!(
                "real recall: s ≥ {} only",
                all.floor.max(recall::FLOOR)
            )));
        }
        Some(AllState::Ready { .. }) => match ui.session.real_recall(s) {
            None => lines.push(dim("real recall: matching…".into())),
            Some(score) if score.truth == 0 => {
                lines.push((6, Line::from(format!("real recall: no pair J≥{s:.2}"))));
            }
            Some(score) => {
                let lsh = ui.session.results().is_some_and(|r| r.simhash.is_none());
                if lsh {
                    lines.push((
                        6,
                        Line::from(vec![
                            Span::raw("S-curve recall J≥s  = "),
                            Span::styled(format!("{:.3}", score.predicted), t.curve()),
                        ]),
                    ));
                }
                let missed = score.truth - score.found;
                lines.push((
                    6,
                    Line::from(vec![
                        Span::raw("real recall J≥s     = "),
                        Span::styled(format!("{:.3}", score.recall), t.kept()),
                    ]),
                ));
                lines.push((
                    5,
                    Line::from(format!(
                        " {} of {} J≥{s:.2}",
                        fmt::count(score.found),
                        fmt::plural(score.truth, "pair", "pairs")
                    )),
                ));
                lines.push((
                    3,
                    Line::from(Span::styled(
                        format!(" {} missed", fmt::count(missed)),
                        if missed > 0 { t.missed() } else { t.dim() },
                    )),
                ));
            }
        },
    }
    let (b, r) = ui.session.banding();
    if let Some((pb, pr)) = tuning.prev.filter(|&p| p != (b, r)) {
        lines.push((
            1,
            Line::from(Span::styled(
                format!("before: b={pb} r={pr} (dim curve)"),
                t.dim(),
            )),
        ));
    }
    lines
}

/// The histogram of pairs the banding keeps, and of pairs it misses (when all pairs
/// are known).
fn histograms(session: &Session) -> ([u64; BINS], [u64; BINS]) {
    let Some(r) = session.results() else {
        return ([0; BINS], [0; BINS]);
    };
    let kept = r.groups.hist;
    let mut missed = [0u64; BINS];
    if let Some(AllState::Ready { generation, all }) = session.all()
        && *generation == r.generation
    {
        for i in 0..BINS {
            missed[i] = all.hist[i].saturating_sub(kept[i]);
        }
    }
    (kept, missed)
}
