//! Drawing the side-by-side diff laid out by `diff.rs`.

use super::app::{App, DiffState, DocInfo};
use super::diff::SideRow;
use super::views::View;
use super::widgets::{fmt, layout};
use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(app: &App, frame: &mut Frame, body: Rect) {
    let Some(d) = &app.diff else { return };
    let areas = layout::diff(body);
    header(app, d, frame, areas.header);
    match &d.model {
        None => message(
            frame,
            areas.left.union(areas.right),
            "reading and diffing…",
            app.theme.dim(),
        ),
        Some(Err(e)) => message(
            frame,
            areas.left.union(areas.right),
            &fmt::clean(e),
            app.theme.error(),
        ),
        Some(Ok(_)) => {
            let rows = &d.layout.rows;
            let h = areas.left.height as usize;
            let end = (d.scroll + h).min(rows.len());
            let visible = &rows[d.scroll.min(end)..end];
            let left: Vec<Line> = visible
                .iter()
                .map(|r| side(app, d, &r.left, true))
                .collect();
            let right: Vec<Line> = visible
                .iter()
                .map(|r| side(app, d, &r.right, false))
                .collect();
            let sep: Vec<Line> = visible
                .iter()
                .map(|r| {
                    // A marker in the gutter between the columns shows where the texts differ.
                    if r.changed {
                        Line::from(Span::styled("┃", app.theme.warn()))
                    } else {
                        Line::from(Span::styled("│", app.theme.dim()))
                    }
                })
                .collect();
            frame.render_widget(Paragraph::new(left), areas.left);
            frame.render_widget(Paragraph::new(sep), areas.sep);
            frame.render_widget(Paragraph::new(right), areas.right);
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

fn side<'a>(app: &App, d: &DiffState, row: &'a Option<SideRow>, left: bool) -> Line<'a> {
    let t = &app.theme;
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
    app: &App,
    d: &DiffState,
    tag: &str,
    doc: &DocInfo,
    side: usize,
    width: usize,
) -> [Line<'static>; 2] {
    let t = &app.theme;
    let id = Line::from(vec![
        Span::styled(tag.to_string(), t.key()),
        Span::styled(
            fmt::shorten_middle(&doc.id, width.saturating_sub(tag.len())),
            t.title(),
        ),
    ]);
    // Most important first; what does not fit is left out whole, never cut.
    let mut parts = vec![
        fmt::bytes(doc.bytes),
        format!("{} shingles", fmt::count(doc.shingles as u64)),
    ];
    let mut warn = None;
    if let Some(Ok(m)) = &d.model {
        if m.truncated[side] {
            warn = Some(format!(" · TRUNCATED to {} KB", super::diff::CAP / 1024));
        }
        parts.push(format!(
            "{} words only here",
            fmt::count(m.changed_words[side] as u64)
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

fn header(app: &App, d: &DiffState, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let half = (area.width as usize).saturating_sub(1) / 2;
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
        Paragraph::new(doc_lines(app, d, "A ", &d.a, 0, half).to_vec()),
        l,
    );
    frame.render_widget(
        Paragraph::new(doc_lines(app, d, "B ", &d.b, 1, half).to_vec()),
        r,
    );

    // Where n/p step: the list, or the view the diff was opened from.
    let place = match app.stack.last() {
        None => format!(
            " · pair {} of {}",
            app.list.selected + 1,
            fmt::count(app.list.visible.len() as u64)
        ),
        Some(View::Neighbours(v)) => format!(
            " · neighbour {} of {}",
            v.cursor.selected + 1,
            v.answer.as_ref().map_or(0, |a| a.neighbours.len())
        ),
        Some(View::Members(v)) => format!(
            " · member {} of {} (with the kept one)",
            v.cursor.selected + 1,
            v.order.len()
        ),
        Some(View::Clusters(_) | View::Heatmap(_)) => " · from the heatmap".to_string(),
    };
    let mut info = vec![
        Span::styled(format!(" exact J {:.3}", d.pair.jaccard), t.title()),
        Span::raw(format!(" · estimate {:.3}", d.pair.estimate)),
        Span::styled(place, t.dim()),
    ];
    if let Some(Ok(m)) = &d.model {
        let rows = d.layout.rows.len();
        let h = layout::diff(app_body(app)).left.height as usize;
        info.push(Span::styled(
            format!(
                " · rows {}–{} of {}",
                (d.scroll + 1).min(rows),
                (d.scroll + h).min(rows),
                fmt::count(rows as u64)
            ),
            t.dim(),
        ));
        if m.changed_words == [0, 0] {
            info.push(Span::raw(" · no word differs (only white space)"));
        }
        if m.approximate {
            info.push(Span::styled(" · approximate diff (time limit)", t.warn()));
        }
    }
    frame.render_widget(
        Paragraph::new(Line::from(info)),
        Rect {
            y: area.y + 2,
            height: 1,
            ..area
        },
    );
    frame.render_widget(
        Paragraph::new(Span::styled("─".repeat(area.width as usize), t.dim())),
        Rect {
            y: area.y + 3,
            height: 1,
            ..area
        },
    );
}

fn app_body(app: &App) -> Rect {
    layout::screen(layout::area(app.size)).body
}
