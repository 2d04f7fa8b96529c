//! The frame: title bar, the current view, footer, overlays. Pure: reads the App only.

use super::app::App;
use super::export::Prompt;
use super::keys;
use super::views::View;
use super::widgets::{fmt, layout};
use super::{clusters, diff_view, heatmap, help, neighbours, pairs, progress};
use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(app: &App, frame: &mut Frame) {
    let area = frame.area();
    if layout::too_small(area) {
        too_small(app, frame, area);
        return;
    }
    let s = layout::screen(area);
    title_bar(app, frame, s.title);
    match (app.diff.is_some(), app.stack.last()) {
        (true, _) => diff_view::render(app, frame, s.body),
        (false, Some(View::Neighbours(v))) => neighbours::render(app, v, frame, s.body),
        (false, Some(View::Clusters(v))) => clusters::render(app, v, frame, s.body),
        (false, Some(View::Members(v))) => clusters::render_members(app, v, frame, s.body),
        (false, Some(View::Heatmap(v))) => heatmap::render(app, v, frame, s.body),
        (false, None) if app.session().results().is_none() => progress::render(app, frame, s.body),
        (false, None) => pairs::render(app, frame, s.body),
    }
    if let Some(p) = &app.prompt {
        export_line(app, p, frame, s.body);
    }
    footer(app, frame, s.footer);
    if app.help.is_some() {
        help::render(app, frame, s.body);
    }
}

/// The export prompt, on the body's last line.
fn export_line(app: &App, p: &Prompt, frame: &mut Frame, body: Rect) {
    let t = &app.theme;
    let mut spans = vec![
        Span::styled(" Export to: ", t.key()),
        Span::raw(fmt::clean(&p.text)),
        Span::styled("▏", t.key()),
    ];
    if p.text.is_empty() {
        spans.push(Span::styled(format!("{} ", p.default), t.dim()));
    }
    match &p.confirm {
        Some((_, why)) => spans.push(Span::styled(format!("  {why}"), t.warn())),
        None => spans.push(Span::styled(
            "  .jsonl: JSON Lines, else CSV · Enter writes · Esc cancels",
            t.dim(),
        )),
    }
    let area = Rect {
        y: body.bottom().saturating_sub(1),
        height: 1.min(body.height),
        ..body
    };
    frame.render_widget(ratatui::widgets::Clear, area);
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn too_small(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
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

fn title_bar(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let docs = app
        .session()
        .index()
        .map(|i| {
            let skipped = if i.skipped.is_empty() {
                String::new()
            } else {
                format!(" · {} skipped", fmt::count(i.skipped.len() as u64))
            };
            format!(" · {} docs{skipped}", fmt::count(i.docs.len() as u64))
        })
        .unwrap_or_default();
    let (right, right_style) = if let Some(msg) = &app.status {
        (fmt::clean(msg), t.warn())
    } else if let Some(s) = app.summary() {
        (format!("⟳ {s}"), t.dim())
    } else {
        (String::new(), t.dim())
    };
    let right_w = fmt::width(&right).min(area.width as usize / 2);
    let left_w = (area.width as usize).saturating_sub(right_w + 1);
    let name = " simtui ";
    let label = fmt::shorten_middle(
        app.session().label(),
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

/// The keys of the current view, from the same table as the help.
fn footer(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let width = |(label, name): &(&str, &str)| fmt::width(label) + 1 + fmt::width(name) + 2;
    let (local, global) = keys::footer_parts(app.context());
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
