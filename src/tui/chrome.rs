//! The frame around the views: the title bar, the footer with the keys of the view on
//! top, and the message for a terminal too small to draw in. Pure functions of what they
//! are given.

use super::keys::{self, Context};
use super::session::Session;
use super::widgets::theme::Theme;
use super::widgets::{fmt, layout};
use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// The message shown instead of a squeezed layout.
pub fn too_small(t: &Theme, frame: &mut Frame, area: Rect) {
    let lines = vec![
        Line::from(Span::styled("Terminal too small", t.warn())),
        Line::from(format!(
            "{}×{}: simtui needs at least {}×{}",
            area.width,
            area.height,
            layout::MIN_W,
            layout::MIN_H
        )),
        Line::from(vec![Span::styled("q", t.key()), Span::raw(" quits")]),
    ];
    let h = (lines.len() as u16).min(area.height);
    let y = area.y + area.height.saturating_sub(h) / 2;
    frame.render_widget(
        Paragraph::new(lines)
            .alignment(Alignment::Center)
            .wrap(ratatui::widgets::Wrap { trim: true }),
        Rect {
            y,
            height: area.height - (y - area.y),
            ..area
        },
    );
}

/// The title bar: what is explored, and on the right the status line, or else what
/// work is under way (`busy`).
pub fn title_bar(
    t: &Theme,
    session: &Session,
    status: Option<&str>,
    busy: Option<String>,
    frame: &mut Frame,
    area: Rect,
) {
    let docs = session
        .index()
        .map(|i| {
            let skipped = if i.skipped().is_empty() {
                String::new()
            } else {
                format!(" · {} skipped", fmt::count(i.skipped().len() as u64))
            };
            format!(" · {} docs{skipped}", fmt::count(i.docs().len() as u64))
        })
        .unwrap_or_default();
    let (right, right_style) = if let Some(msg) = status {
        (fmt::clean(msg), t.warn())
    } else if let Some(s) = busy {
        (format!("⟳ {s}"), t.dim())
    } else {
        (String::new(), t.dim())
    };
    let right_w = fmt::width(&right).min(area.width as usize / 2);
    let left_w = (area.width as usize).saturating_sub(right_w + 1);
    let name = " simtui ";
    let label = fmt::shorten_middle(
        session.label(),
        left_w.saturating_sub(name.len() + docs.len() + 1),
    );
    let left = Line::from(vec![
        Span::styled(name, t.title()),
        Span::raw(label),
        Span::styled(docs, t.dim()),
    ]);
    frame.render_widget(
        Paragraph::new(left),
        Rect {
            width: left_w as u16,
            ..area
        },
    );
    if right_w > 0 {
        frame.render_widget(
            Paragraph::new(Span::styled(
                fmt::shorten_middle(&right, right_w),
                right_style,
            ))
            .alignment(Alignment::Right),
            Rect {
                x: area.right() - right_w as u16,
                width: right_w as u16,
                ..area
            },
        );
    }
}

/// The keys of the view on top (`ctx`), from the same table as the help.
pub fn footer(t: &Theme, ctx: Context, frame: &mut Frame, area: Rect) {
    let width = |(label, name): &(&str, &str)| fmt::width(label) + 1 + fmt::width(name) + 2;
    let (local, global) = keys::footer_parts(ctx);
    // The view's keys fill what the global ones (help, quit) leave, so a new user always
    // sees how to get help and leave, however narrow the terminal.
    let mut room = (area.width as usize).saturating_sub(global.iter().map(width).sum());
    let mut shown = Vec::new();
    for entry in local {
        if width(&entry) > room {
            break;
        }
        room -= width(&entry);
        shown.push(entry);
    }
    shown.extend(global);
    let mut spans = Vec::new();
    for (label, name) in shown {
        spans.push(Span::styled(format!(" {label}"), t.key()));
        spans.push(Span::raw(format!(" {name} ")));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)).style(t.dim()), area);
}
