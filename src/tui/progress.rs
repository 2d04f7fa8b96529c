//! Progress of the pipeline: per-stage counts, rates and ETAs, and the loading screen.

use super::app::App;
use super::widgets::fmt;
use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use simtui::progress::Stage;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageState {
    pub done: u64,
    pub total: u64,
    pub started: Option<Instant>,
    pub updated: Option<Instant>,
    /// Expected to run in the current job.
    pub wanted: bool,
}

impl StageState {
    pub fn finished(&self) -> bool {
        self.started.is_some() && self.done >= self.total
    }
}

/// The stages of the running jobs.
#[derive(Clone, Debug)]
pub struct Board {
    pub stages: [StageState; 5],
    /// The last report of any stage: a stage's first report is usually sent when its
    /// first chunk is done, so it started when the stage before it last reported.
    last: Option<Instant>,
    /// When the walk (or demo generation) started; None once reading began.
    pub walking: Option<Instant>,
    pub started: Instant,
}

impl Board {
    pub fn new(now: Instant) -> Board {
        Board {
            stages: [StageState::default(); 5],
            last: None,
            walking: None,
            started: now,
        }
    }

    /// Clears the given stages for a new job.
    pub fn reset(&mut self, stages: &[Stage], now: Instant) {
        self.last = Some(now);
        for &s in stages {
            self.stages[s as usize] = StageState {
                wanted: true,
                ..Default::default()
            };
        }
    }

    pub fn update(&mut self, stage: Stage, done: u64, total: u64, now: Instant) {
        self.walking = None;
        let s = &mut self.stages[stage as usize];
        // A report of nothing done marks the start itself (e.g. reading after the walk).
        s.started.get_or_insert(if done == 0 {
            now
        } else {
            self.last.unwrap_or(now)
        });
        self.last = Some(now);
        // Reports from parallel workers may arrive out of order.
        s.done = if s.total == total {
            s.done.max(done)
        } else {
            done
        };
        s.total = total;
        s.updated = Some(now);
        s.wanted = true;
    }

    /// When any stage last reported (or the board was reset).
    pub fn last_report(&self) -> Option<Instant> {
        self.last
    }

    pub fn get(&self, stage: Stage) -> &StageState {
        &self.stages[stage as usize]
    }
}

/// Units per second, once there is something to measure.
pub fn rate(s: &StageState, now: Instant) -> Option<f64> {
    let start = s.started?;
    let end = if s.finished() { s.updated? } else { now };
    let secs = end.duration_since(start).as_secs_f64();
    (secs > 0.05 && s.done > 0).then(|| s.done as f64 / secs)
}

pub fn eta(s: &StageState, now: Instant) -> Option<Duration> {
    if s.finished() {
        return None;
    }
    let r = rate(s, now)?;
    Some(Duration::from_secs_f64((s.total - s.done) as f64 / r))
}

fn unit(stage: Stage) -> &'static str {
    match stage {
        Stage::Read | Stage::Shingle => "docs",
        Stage::Sketch => "contents",
        Stage::Band => "bands",
        Stage::Verify => "pairs",
    }
}

/// A text progress bar: readable without colour.
fn bar(done: u64, total: u64, width: usize) -> (String, String) {
    let filled = if total == 0 {
        width
    } else {
        (done as f64 / total as f64 * width as f64).round() as usize
    };
    let filled = filled.min(width);
    ("█".repeat(filled), "░".repeat(width - filled))
}

/// One stage as a line: name, bar, counts, rate, ETA or time taken.
pub fn stage_line(app: &App, stage: Stage, width: usize) -> Line<'static> {
    let t = &app.theme;
    let s = app.session().progress().get(stage);
    let name = format!("{:<8}", stage.name());
    if s.started.is_none() {
        // A stage reports when its first chunk is done: until then it is running if the
        // stages before it are finished.
        let before_done = Stage::ALL.iter().take_while(|&&x| x != stage).all(|&x| {
            !app.session().progress().get(x).wanted || app.session().progress().get(x).finished()
        });
        let what = match (
            s.wanted,
            before_done,
            app.session().progress().last_report(),
        ) {
            (true, true, Some(since)) if app.session().progress().walking.is_none() => {
                format!(
                    "running… {}",
                    fmt::duration(app.session().now().saturating_duration_since(since))
                )
            }
            (true, _, _) => "waiting".to_string(),
            _ => "—".to_string(),
        };
        return Line::from(vec![
            Span::styled(name, t.dim()),
            Span::styled(what, t.dim()),
        ]);
    }
    let counts = format!(
        " {:>9} / {:<9} {:<9}",
        fmt::count(s.done),
        fmt::count(s.total),
        unit(stage)
    );
    let tail = if s.finished() {
        let took = s
            .updated
            .zip(s.started)
            .map(|(u, st)| u.duration_since(st))
            .unwrap_or_default();
        format!("✓ {}", fmt::duration(took))
    } else {
        let r = rate(s, app.session().now())
            .map(fmt::rate)
            .unwrap_or_default();
        let e = eta(s, app.session().now())
            .map(|d| format!("ETA {}", fmt::duration(d)))
            .unwrap_or_default();
        format!("{r:>8} {e}")
    };
    let bar_w = width.saturating_sub(8 + counts.len() + 2 + 16).clamp(4, 30);
    let (full, empty) = bar(s.done, s.total, bar_w);
    Line::from(vec![
        Span::styled(
            name,
            t.header()
                .remove_modifier(ratatui::style::Modifier::UNDERLINED),
        ),
        Span::styled(full, t.bar_done()),
        Span::styled(empty, t.dim()),
        Span::raw(counts),
        Span::raw(tail),
    ])
}

/// The first load is past the walk and still reading the saved index: nothing has been
/// read, shingled or banded yet.
fn opening_store(app: &App) -> bool {
    app.session().progress().get(Stage::Read).done == 0
        && Stage::ALL[1..]
            .iter()
            .all(|&s| app.session().progress().get(s).started.is_none())
}

/// The loading screen: a box with every stage, drawn until the first pairs are found.
pub fn render(app: &App, frame: &mut Frame, body: Rect) {
    let t = &app.theme;
    let w = body.width.saturating_sub(4).min(96);
    let h = 11.min(body.height);
    let area = Rect {
        x: body.x + (body.width - w) / 2,
        y: body.y + (body.height - h) / 2,
        width: w,
        height: h,
    };
    let inner_w = w.saturating_sub(4) as usize;
    let mut lines = Vec::new();
    let head = match app.session().progress().walking {
        Some(_) if app.session().is_demo() => "generating the demo corpus…".to_string(),
        Some(_) => "walking the folders…".to_string(),
        None => {
            let docs = format!(
                "{} documents",
                fmt::count(app.session().progress().get(Stage::Read).total)
            );
            match app.session().store() {
                // The worker reads and decodes the saved index before any stage moves:
                // say so, or the screen looks stuck at "read 0".
                Some(store) if opening_store(app) => format!(
                    "{docs} · opening the saved index {}…",
                    fmt::shorten_middle(
                        &store.file.display().to_string(),
                        inner_w.saturating_sub(docs.len() + 30)
                    )
                ),
                _ => docs,
            }
        }
    };
    lines.push(Line::from(Span::styled(head, t.dim())));
    lines.push(Line::default());
    for stage in Stage::ALL {
        lines.push(stage_line(app, stage, inner_w));
    }
    lines.push(Line::default());
    let elapsed = app
        .session()
        .now()
        .duration_since(app.session().progress().started);
    lines.push(Line::from(vec![
        Span::styled(format!("elapsed {}", fmt::duration(elapsed)), t.dim()),
        Span::raw("   "),
        Span::styled("q", t.key()),
        Span::raw(" quit at any time"),
    ]));
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(
            format!(
                " Indexing {} ",
                fmt::shorten_middle(app.session().label(), inner_w.saturating_sub(12))
            ),
            t.title(),
        ))
        .title_alignment(Alignment::Left);
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .style(ratatui::style::Style::new()),
        area.inner(ratatui::layout::Margin {
            horizontal: 0,
            vertical: 0,
        }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_etas_and_out_of_order_reports() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut b = Board::new(t0);
        b.reset(&[Stage::Read, Stage::Shingle], t0);
        // The first report comes after the first chunk: the stage began at the reset.
        b.update(Stage::Read, 100, 1000, at(1000));
        let r = rate(b.get(Stage::Read), at(2000)).unwrap();
        assert!((r - 50.0).abs() < 1e-6, "{r}");
        let e = eta(b.get(Stage::Read), at(2000)).unwrap();
        assert_eq!(e.as_secs(), 18);
        // A late report from another worker does not move progress back.
        b.update(Stage::Read, 50, 1000, at(2100));
        assert_eq!(b.get(Stage::Read).done, 100);
        // Shingling started when reading last reported.
        b.update(Stage::Shingle, 100, 1000, at(2500));
        assert_eq!(b.get(Stage::Shingle).started, Some(at(2100)));
        b.update(Stage::Read, 1000, 1000, at(5000));
        let s = b.get(Stage::Read);
        assert!(s.finished());
        assert_eq!(eta(s, at(9000)), None);
        // A finished stage's rate is over its own duration, not until now.
        assert!((rate(s, at(9000)).unwrap() - 200.0).abs() < 1e-6);
    }

    #[test]
    fn a_zero_report_marks_the_start() {
        let t0 = Instant::now();
        let mut b = Board::new(t0);
        b.reset(&Stage::ALL, t0);
        b.walking = Some(t0);
        let later = t0 + Duration::from_secs(3);
        b.update(Stage::Read, 0, 500, later);
        assert_eq!(b.get(Stage::Read).started, Some(later));
        assert!(b.walking.is_none());
        assert_eq!(bar(5, 10, 10), ("█████".to_string(), "░░░░░".to_string()));
    }
}
