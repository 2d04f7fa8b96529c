//! The tuning panel: the LSH parameters, what the S-curve predicts, what the corpus
//! really does, and a chart of both. A part of the pairs list (which it shares the
//! screen with), with a key table of its own while it is open: its letters tune, the
//! arrows still move in the list.

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
use simtui_engine::minhash::curve::{probability, threshold};

/// The keys while the tuning panel is open: its letters tune, the arrows still
/// move in the list.
#[rustfmt::skip]
pub static KEYS: KeyTable = KeyTable {
    name: "Tuning",
    text_entry: false,
    defaults: &[
        b(&[k('b')], "b/B", Action::BandsUp, "bands±", "bands b +1 / −1: re-bands the stored signatures at once", true),
        b(&[k('B')], "", Action::BandsDown, "", "", false),
        b(&[k('r')], "r/R", Action::RowsUp, "rows±", "rows per band r +1 / −1 (hashes more if b·r needs it)", true),
        b(&[k('R')], "", Action::RowsDown, "", "", false),
        b(&[k('k')], "k/K", Action::ShingleUp, "k±", "shingle size k +1 / −1: re-indexes in the background", true),
        b(&[k('K')], "", Action::ShingleDown, "", "", false),
        b(&[k('u')], "u", Action::ToggleUnit, "unit", "shingle unit word ↔ char: re-indexes in the background; each unit keeps its own k (char starts at 9, word at 5)", true),
        b(&[k('o')], "o", Action::SwitchSketch, "sketch", "sketch one-permutation hashing ↔ classic MinHash: signatures computed in the background", false),
        b(&[k('m')], "m", Action::SwitchMethod, "method", "candidates by MinHash LSH ↔ SimHash", false),
        b(&[code(KeyCode::Right), k('>')], "←/→", Action::SimUp, "s±", "move the similarity s where recall is shown (±0.05)", true),
        b(&[code(KeyCode::Left), k('<')], "", Action::SimDown, "", "", false),
        b(&[UP], "↑/↓", Action::Up, "", "move in the pair list", false),
        b(&[DOWN], "", Action::Down, "", "", false),
        b(&[PGUP], "PgUp", Action::PageUp, "", "one page up", false),
        b(&[PGDN], "PgDn", Action::PageDown, "", "one page down", false),
        b(&[k('g'), HOME], "g/Home", Action::Top, "", "first pair", false),
        b(&[k('G'), END], "G/End", Action::Bottom, "", "last pair", false),
        b(&[ENTER], "Enter", Action::Open, "diff", "open the selected pair side by side", false),
        b(&[k('s')], "s", Action::CycleSort, "sort", "cycle the sort", false),
        b(&[k('/')], "/", Action::StartFilter, "filter", "filter by path substring", false),
        b(&[k('t'), ESC], "t/Esc", Action::ToggleTuning, "close", "close the tuning panel", true),
    ],
};

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
            Action::ShingleUp => set_k(k + 1, cx),
            Action::ShingleDown => set_k(k.saturating_sub(1), cx),
            Action::ToggleUnit => {
                if let Some(said) = cx.session.toggle_unit(cx.jobs) {
                    cx.say(said);
                }
            }
            Action::SimUp => self.s_pct = (self.s_pct + 5).min(100),
            Action::SimDown => self.s_pct = self.s_pct.saturating_sub(5),
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

fn set_k(k: usize, cx: &mut Cx) {
    if let Err(why) = cx.session.set_k(k, cx.jobs) {
        cx.say(why);
    }
}

/// Columns of the parameter text beside the chart.
const TEXT_W: u16 = 32;

fn render_panel(tuning: &Tuning, ui: &Ui, frame: &mut Frame, area: Rect) {
    let t = &ui.theme;
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(" Tuning ", t.title()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let text_w = TEXT_W.min(inner.width / 2);
    let text_area = Rect {
        width: text_w,
        ..inner
    };
    let chart_area = Rect {
        x: inner.x + text_w + 1,
        width: inner.width.saturating_sub(text_w + 1),
        ..inner
    };
    // Wrapped: a reason (real recall n/a) can be longer than the panel is wide.
    frame.render_widget(
        Paragraph::new(params_lines(tuning, ui)).wrap(Wrap { trim: false }),
        text_area,
    );
    if chart_area.width >= 10 && chart_area.height >= 5 {
        let (kept, missed) = histograms(ui.session);
        let curve = SCurve {
            banding: ui.session.banding(),
            before: tuning.prev,
            s: tuning.s(),
            kept: &kept,
            missed: &missed,
        };
        s_curve::render(&curve, t, frame, chart_area);
    }
}

fn kv(t: &Theme, key: &str, value: String, keys: &str) -> Line<'static> {
    let left = format!("{key}{value}");
    let pad = (TEXT_W as usize).saturating_sub(fmt::width(&left) + fmt::width(keys) + 1);
    Line::from(vec![
        Span::raw(left),
        Span::raw(" ".repeat(pad)),
        Span::styled(keys.to_string(), t.key()),
    ])
}

/// The parameters, the prediction, and the measured recall.
fn params_lines(tuning: &Tuning, ui: &Ui) -> Vec<Line<'static>> {
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
        kv(
            t,
            "k = ",
            format!("{} ({})", params.k, params.text.unit.name()),
            "k/K u",
        ),
        kv(t, "b = ", b.to_string(), "b/B"),
        kv(t, "r = ", r.to_string(), "r/R"),
        kv(t, "N = b·r = ", format!("{} {sketch}{in_use}", b * r), "o"),
        Line::from(vec![
            Span::raw("threshold (1/b)^(1/r) = "),
            Span::styled(format!("{:.3}", threshold(b, r)), t.threshold()),
        ]),
        kv(t, "s = ", format!("{s:.2}"), "←/→"),
        Line::from(vec![
            Span::raw("expected recall P(s) = "),
            Span::styled(format!("{:.3}", probability(s, b, r)), t.curve()),
        ]),
    ];
    lines.extend(real_lines(ui, s));
    if let Some((pb, pr)) = tuning.prev.filter(|&p| p != (b, r)) {
        lines.push(Line::from(Span::styled(
            format!("before: b={pb} r={pr} (dim curve)"),
            t.dim(),
        )));
    }
    lines
}

fn real_lines(ui: &Ui, s: f64) -> Vec<Line<'static>> {
    let t = &ui.theme;
    match ui.session.all() {
        None => vec![],
        Some(AllState::Computing { done, total, .. }) => {
            let pct = if *total == 0 { 0 } else { done * 100 / total };
            vec![Line::from(Span::styled(
                format!("exact all pairs: {pct}%…"),
                t.dim(),
            ))]
        }
        Some(AllState::Unavailable(why)) => vec![Line::from(Span::styled(
            format!("real recall: n/a ({})", fmt::clean(why)),
            t.dim(),
        ))],
        Some(AllState::Ready { .. }) if s < recall::FLOOR => vec![Line::from(Span::styled(
            format!("real recall: s ≥ {} only", recall::FLOOR),
            t.dim(),
        ))],
        Some(AllState::Ready { .. }) => match ui.session.real_recall(s) {
            None => vec![Line::from(Span::styled("real recall: matching…", t.dim()))],
            Some((_, 0)) => vec![Line::from(format!("real recall: no pair J≥{s:.2}"))],
            Some((found, total)) => {
                let missed = total - found;
                vec![
                    Line::from(vec![
                        Span::raw("real recall       = "),
                        Span::styled(format!("{:.3}", found as f64 / total as f64), t.kept()),
                    ]),
                    Line::from(format!(
                        " {} of {} pairs J≥{s:.2}",
                        fmt::count(found as u64),
                        fmt::count(total as u64)
                    )),
                    Line::from(Span::styled(
                        format!(" {} missed", fmt::count(missed as u64)),
                        if missed > 0 { t.missed() } else { t.dim() },
                    )),
                ]
            }
        },
    }
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
