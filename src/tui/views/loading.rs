//! The loading view: a box with every stage of the first load (walk, read, shingle,
//! sketch, band, verify), drawn until the first pairs are found. The pairs list shows it
//! while it has nothing to list; its key table has no keys of its own (help and quit
//! work everywhere).

use super::view::Ui;
use crate::tui::keys::{Context, KeyTable};
use crate::tui::session::Session;
use crate::tui::progress::{Board, eta, rate};
use crate::tui::widgets::fmt;
use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use simtui_engine::progress::Stage;

/// The loading view's keys: none of its own (help and quit work everywhere).
pub static KEYS: KeyTable = KeyTable::new("Indexing", &[]);

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
fn stage_line(ui: &Ui, stage: Stage, width: usize) -> Line<'static> {
    let t = &ui.theme;
    let progress = ui.session.progress();
    let now = ui.session.now();
    let s = progress.get(stage);
    let name = format!("{:<8}", stage.name());
    if s.started.is_none() {
        // A stage reports when its first chunk is done: until then it is running if the
        // stages before it are finished.
        let before_done = Stage::ALL
            .iter()
            .take_while(|&&x| x != stage)
            .all(|&x| !progress.get(x).wanted || progress.get(x).finished());
        let what = match (s.wanted, before_done, progress.last_report()) {
            (true, true, Some(since)) if progress.walking.is_none() => {
                format!(
                    "running… {}",
                    fmt::duration(now.saturating_duration_since(since))
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
    let counts = if s.bytes {
        // Files of many documents: read by bytes, whose total is known from the start.
        format!(" {:>9} / {:<9} {:<9}", fmt::bytes(s.done), fmt::bytes(s.total), "")
    } else {
        // ≈: the number of documents in files of many is known once they are read.
        let about = if progress.estimated(stage) { "≈" } else { "" };
        format!(
            " {:>9} / {:<9} {:<9}",
            fmt::count(s.done),
            format!("{about}{}", fmt::count(s.total)),
            unit(stage)
        )
    };
    let tail = if s.finished() {
        let took = s
            .updated
            .zip(s.started)
            .map(|(u, st)| u.duration_since(st))
            .unwrap_or_default();
        format!("✓ {}", fmt::duration(took))
    } else {
        let r = rate(s, now)
            .map(|r| match s.bytes {
                true => format!("{}/s", fmt::bytes(r as u64)),
                false => fmt::rate(r),
            })
            .unwrap_or_default();
        let e = eta(s, now)
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
fn opening_store(progress: &Board) -> bool {
    progress.get(Stage::Read).done == 0
        && Stage::ALL[1..]
            .iter()
            .all(|&s| progress.get(s).started.is_none())
}

/// The keys of a view that waits for the first results (the review, a pairs file): the
/// loading screen's until they are in, then its own.
pub fn keys_until_loaded(session: &Session, own: Context) -> Context {
    if session.results().is_none() { &KEYS } else { own }
}

/// Draws the loading screen until the first results are in, then the view (`draw`).
pub fn render_until_loaded(ui: &Ui, frame: &mut Frame, body: Rect, draw: impl FnOnce(&mut Frame)) {
    if ui.session.results().is_none() {
        render(ui, frame, body)
    } else {
        draw(frame)
    }
}

/// The loading screen: a box with every stage, drawn until the first pairs are found.
pub fn render(ui: &Ui, frame: &mut Frame, body: Rect) {
    let t = &ui.theme;
    let session = ui.session;
    let progress = session.progress();
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
    let head = match progress.walking {
        Some(_) if session.is_demo() => "generating the demo corpus…".to_string(),
        Some(_) => "walking the folders…".to_string(),
        None => {
            // Reading files of many documents counts bytes: shingling counts documents.
            let read = progress.get(Stage::Read);
            let counted = if read.bytes {
                progress.get(Stage::Shingle)
            } else {
                read
            };
            let docs = format!("{} documents", fmt::count(counted.total));
            match session.store() {
                // The worker reads and decodes the saved index before any stage moves:
                // say so, or the screen looks stuck at "read 0".
                Some(store) if opening_store(progress) => format!(
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
        lines.push(stage_line(ui, stage, inner_w));
    }
    lines.push(Line::default());
    let elapsed = session.now().duration_since(progress.started);
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
                fmt::shorten_middle(session.label(), inner_w.saturating_sub(12))
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
    fn the_bar_is_drawn_in_blocks() {
        assert_eq!(bar(5, 10, 10), ("█████".to_string(), "░░░░░".to_string()));
        assert_eq!(bar(0, 0, 4), ("████".to_string(), String::new()));
    }
}
