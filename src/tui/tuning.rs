//! The tuning panel: the LSH parameters, what the S-curve predicts, what the corpus
//! really does, and a chart of both.

use super::app::App;
use super::recall::{self, BINS};
use super::session::AllState;
use super::widgets::fmt;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Borders, Chart, Dataset, GraphType, Paragraph, Wrap};
use simtui::curve::{probability, threshold};

/// Columns of the parameter text beside the chart.
const TEXT_W: u16 = 32;

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
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
        Paragraph::new(params_lines(app)).wrap(Wrap { trim: false }),
        text_area,
    );
    if chart_area.width >= 10 && chart_area.height >= 5 {
        chart(app, frame, chart_area);
    }
}

fn kv(app: &App, key: &str, value: String, keys: &str) -> Line<'static> {
    let t = &app.theme;
    let left = format!("{key}{value}");
    let pad = (TEXT_W as usize).saturating_sub(fmt::width(&left) + fmt::width(keys) + 1);
    Line::from(vec![
        Span::raw(left),
        Span::raw(" ".repeat(pad)),
        Span::styled(keys.to_string(), t.key()),
    ])
}

/// The parameters, the prediction, and the measured recall.
pub fn params_lines(app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    let session = app.session();
    let (b, r) = session.banding();
    let s = app.tuning.s();
    let hashed = session.index().map_or(0, |i| i.num_perm());
    let params = session.params();
    let sketch = params.sketch.name();
    let mut lines = vec![
        kv(
            app,
            "k = ",
            format!("{} ({})", params.k, params.text.unit.name()),
            "k/K u",
        ),
        kv(app, "b = ", b.to_string(), "b/B"),
        kv(app, "r = ", r.to_string(), "r/R"),
        Line::from(format!("N = b·r = {}  ({hashed} {sketch})", b * r)),
        Line::from(vec![
            Span::raw("threshold (1/b)^(1/r) = "),
            Span::styled(format!("{:.3}", threshold(b, r)), t.threshold()),
        ]),
        kv(app, "s = ", format!("{s:.2}"), "←/→"),
        Line::from(vec![
            Span::raw("expected recall P(s) = "),
            Span::styled(format!("{:.3}", probability(s, b, r)), t.curve()),
        ]),
    ];
    lines.extend(real_lines(app, s));
    if let Some((pb, pr)) = app.tuning.prev.filter(|&p| p != (b, r)) {
        lines.push(Line::from(Span::styled(
            format!("before: b={pb} r={pr} (dim curve)"),
            t.dim(),
        )));
    }
    lines
}

fn real_lines(app: &App, s: f64) -> Vec<Line<'static>> {
    let t = &app.theme;
    match app.session().all() {
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
        Some(AllState::Ready { .. }) => match app.real_recall() {
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

/// Histogram heights: log-scaled so a few pairs stay visible next to thousands, and
/// kept low so they do not hide the curve.
fn bars(hist: &[u64; BINS], max: u64) -> Vec<(f64, f64)> {
    let lmax = ((max + 1) as f64).ln();
    hist.iter()
        .enumerate()
        .filter(|&(_, &c)| c > 0)
        .map(|(i, &c)| {
            (
                (i as f64 + 0.5) / BINS as f64,
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

/// The histogram of pairs the banding keeps, and of pairs it misses (when all pairs
/// are known).
fn histograms(app: &App) -> ([u64; BINS], [u64; BINS]) {
    let Some(r) = app.session().results() else {
        return ([0; BINS], [0; BINS]);
    };
    let kept = r.groups.hist;
    let mut missed = [0u64; BINS];
    if let Some(AllState::Ready { generation, all }) = app.session().all()
        && *generation == r.generation
    {
        for i in 0..BINS {
            missed[i] = all.hist[i].saturating_sub(kept[i]);
        }
    }
    (kept, missed)
}

fn chart(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let (b, r) = app.session().banding();
    let (kept, missed) = histograms(app);
    let max = kept.iter().chain(&missed).copied().max().unwrap_or(0);
    let kept_bars = bars(&kept, max);
    let missed_bars = bars(&missed, max);
    let now = curve(b, r);
    let prev = app
        .tuning
        .prev
        .filter(|&p| p != (b, r))
        .map(|(pb, pr)| curve(pb, pr));
    let th = threshold(b, r);
    let th_line = [(th, 0.0), (th, 1.0)];
    let s = app.tuning.s();
    let s_marks: Vec<(f64, f64)> = (0..=20).map(|i| (s, i as f64 / 20.0)).collect();

    let mut sets = vec![
        Dataset::default()
            .name("kept")
            .marker(Marker::HalfBlock)
            .graph_type(GraphType::Bar)
            .style(t.kept())
            .data(&kept_bars),
        Dataset::default()
            .name("missed")
            .marker(Marker::Braille)
            .graph_type(GraphType::Bar)
            .style(t.missed())
            .data(&missed_bars),
    ];
    if let Some(p) = &prev {
        sets.push(
            Dataset::default()
                .name("before")
                // Without colour, dimming can't tell the curves apart: dots do. (Braille
                // cells of several curves merge into one.)
                .marker(if t.color {
                    Marker::Braille
                } else {
                    Marker::Dot
                })
                .graph_type(GraphType::Line)
                .style(t.prev_curve())
                .data(p),
        );
    }
    sets.push(
        Dataset::default()
            .name("s")
            .marker(Marker::Braille)
            .graph_type(GraphType::Scatter)
            .style(t.sim_marker())
            .data(&s_marks),
    );
    sets.push(
        Dataset::default()
            .name("threshold")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(t.threshold())
            .data(&th_line),
    );
    sets.push(
        Dataset::default()
            .name("P(s)")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(t.curve())
            .data(&now),
    );
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
