//! The tuning panel's chart: the S-curve P(s) = 1 − (1 − s^r)^b of a banding, its
//! threshold, the curve before the last change (dimmed), the similarity s where recall
//! is read, and under them the histograms of the pairs the banding keeps and misses.

use super::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph};
use simtui_engine::search::curve::{probability, threshold};

/// What the chart shows.
pub struct SCurve<'a> {
    /// (b, r) of the curve.
    pub banding: (usize, usize),
    /// The banding before this round of tuning, if it differs.
    pub before: Option<(usize, usize)>,
    pub s: f64,
    /// Pairs kept and missed, by similarity bin (from 0 to 1).
    pub kept: &'a [u64],
    pub missed: &'a [u64],
}

/// Histogram heights: log-scaled so a few pairs stay visible next to thousands, and
/// kept low so they do not hide the curve.
fn bars(hist: &[u64], max: u64) -> Vec<(f64, f64)> {
    let lmax = ((max + 1) as f64).ln();
    let bins = hist.len();
    hist.iter()
        .enumerate()
        .filter(|&(_, &c)| c > 0)
        .map(|(i, &c)| {
            (
                (i as f64 + 0.5) / bins as f64,
                0.05 + 0.35 * ((c + 1) as f64).ln() / lmax,
            )
        })
        .collect()
}

fn curve(b: usize, r: usize) -> Vec<(f64, f64)> {
    (0..=200)
        .map(|i| {
            let s = i as f64 / 200.0;
            (s, probability(s, b, r))
        })
        .collect()
}

/// Draws the chart of an S-curve (with the histograms under it) in `area`.
pub fn render(c: &SCurve, t: &Theme, frame: &mut Frame, area: Rect) {
    let (b, r) = c.banding;
    let (kept, missed) = (c.kept, c.missed);
    let max = kept.iter().chain(missed).copied().max().unwrap_or(0);
    let kept_bars = bars(kept, max);
    let missed_bars = bars(missed, max);
    let now = curve(b, r);
    let prev = c
        .before
        .filter(|&p| p != (b, r))
        .map(|(pb, pr)| curve(pb, pr));
    let th = threshold(b, r);
    let th_line = [(th, 0.0), (th, 1.0)];
    let s = c.s;
    let s_marks: Vec<(f64, f64)> = (0..=20).map(|i| (s, i as f64 / 20.0)).collect();

    let braille = (Marker::Braille, GraphType::Line);
    let mut sets = vec![
        dataset(
            "kept",
            (Marker::HalfBlock, GraphType::Bar),
            t.kept(),
            &kept_bars,
        ),
        dataset(
            "missed",
            (Marker::Braille, GraphType::Bar),
            t.missed(),
            &missed_bars,
        ),
    ];
    if let Some(p) = &prev {
        // Without colour, dimming can't tell the curves apart: dots do. (Braille cells
        // of several curves merge into one.)
        let marker = if t.color {
            Marker::Braille
        } else {
            Marker::Dot
        };
        sets.push(dataset(
            "before",
            (marker, GraphType::Line),
            t.prev_curve(),
            p,
        ));
    }
    sets.push(dataset(
        "s",
        (Marker::Braille, GraphType::Scatter),
        t.sim_marker(),
        &s_marks,
    ));
    sets.push(dataset("threshold", braille, t.threshold(), &th_line));
    sets.push(dataset("P(s)", braille, t.curve(), &now));
    let axis_style = t.dim();
    let chart = Chart::new(sets)
        .x_axis(
            Axis::default()
                .bounds([0.0, 1.0])
                .style(axis_style)
                .labels(vec![Span::raw("0"), Span::raw("s = J"), Span::raw("1")]),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, 1.0])
                .style(axis_style)
                .labels(vec![Span::raw("0"), Span::raw("1")]),
        )
        .legend_position(None)
        .style(Style::new());
    // The chart's own legend would cover the curve: a one-line key goes above it.
    let key_area = Rect { height: 1, ..area };
    let plot_area = Rect {
        y: area.y + 1,
        height: area.height - 1,
        ..area
    };
    let key = Line::from(vec![
        Span::styled("⣿", t.curve()),
        Span::raw(" P(cand) "),
        Span::styled("│", t.threshold()),
        Span::raw(" t "),
        Span::styled("┊", t.sim_marker()),
        Span::raw(" s "),
        Span::styled("█", t.kept()),
        Span::raw(" kept "),
        Span::styled("⡇", t.missed()),
        Span::raw(" missed"),
    ]);
    frame.render_widget(Paragraph::new(key), key_area);
    frame.render_widget(chart, plot_area);
}

/// One series of the plot: its name, how it is drawn and its points.
fn dataset<'a>(
    name: &'a str,
    (marker, graph): (Marker, GraphType),
    style: Style,
    data: &'a [(f64, f64)],
) -> Dataset<'a> {
    Dataset::default()
        .name(name)
        .marker(marker)
        .graph_type(graph)
        .style(style)
        .data(data)
}
