//! The help overlay: the keys of the view below it, generated from the key tables (the
//! same ones that drive the keys and the footer), then the keys that work everywhere.

use super::{list, loading, tuning};
use super::view::{Cx, Ui, View};
use crate::tui::keys::{Action, Context, DOWN, ESC, KeyTable, UP, b, k, self};
use crate::tui::session::Session;
use crate::tui::widgets::layout;
use crate::tui::widgets::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

/// The help's keys.
#[rustfmt::skip]
pub static KEYS: KeyTable = KeyTable::new("Help", &[
    b(&[ESC, k('?')], "Esc/?", Action::Back, "close", "close the help", true),
    b(&[UP, k('k')], "↑/↓", Action::Up, "scroll", "scroll the help", false),
    b(&[DOWN, k('j')], "", Action::Down, "", "", false),
]);

/// The help, scrolled down `scroll` lines.
#[derive(Default)]
pub struct HelpView {
    scroll: usize,
}

impl HelpView {
    #[cfg(test)]
    pub fn scroll(&self) -> usize {
        self.scroll
    }
}

impl View for HelpView {
    fn keys(&self, _: &Session) -> Context {
        &KEYS
    }

    fn is_overlay(&self) -> bool {
        true
    }

    fn update(&mut self, action: Action, cx: &mut Cx) {
        let max = max_scroll(cx.size, cx.mouse, cx.below.unwrap_or(&loading::KEYS));
        match action {
            Action::Back => cx.close(),
            Action::Up | Action::WheelUp => self.scroll = self.scroll.saturating_sub(1),
            Action::Down | Action::WheelDown => self.scroll = (self.scroll + 1).min(max),
            _ => {}
        }
    }

    fn render(&self, ui: &Ui, frame: &mut Frame, body: Rect) {
        let ctx = ui.below.map_or(&loading::KEYS, |v| v.keys(ui.session));
        render(self.scroll, ctx, ui, frame, body);
    }
}

/// The help's lines for a view's key table, wrapped for a screen of `size`.
fn lines(t: &Theme, size: (u16, u16), mouse: bool, ctx: Context) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let section =
        |title: &str, rows: Vec<(&'static str, &'static str)>, out: &mut Vec<Line<'static>>| {
            if rows.is_empty() {
                return;
            }
            out.push(Line::from(Span::styled(title.to_string(), t.header())));
            for (label, help) in rows {
                out.push(Line::from(vec![
                    Span::styled(format!("  {:<12}", label), t.key()),
                    Span::raw(help),
                ]));
            }
            out.push(Line::default());
        };
    section(ctx.name, keys::help(ctx), &mut out);
    if ctx == &list::KEYS {
        // The tuning panel's letters, so they can be found before opening it.
        let tuning = keys::help_where(&tuning::KEYS, |a| {
            matches!(
                a,
                Action::BandsUp
                    | Action::RowsUp
                    | Action::ThresholdBanding
                    | Action::ShingleUp
                    | Action::ToggleUnit
                    | Action::SimUp
            )
        });
        section("Tuning panel (t)", tuning, &mut out);
    }
    let global: Vec<_> = keys::bindings(&keys::GLOBAL).iter().map(|b| (b.label, b.help)).collect();
    section("Everywhere", global, &mut out);
    if mouse {
        out.push(Line::from(Span::styled(
            "  The mouse wheel scrolls (start with --no-mouse to select text).",
            t.dim(),
        )));
    }
    out.push(Line::from(Span::styled(
        "  J is the exact Jaccard similarity of the k-shingle sets; est is its MinHash estimate.",
        t.dim(),
    )));
    out.push(Line::from(Span::styled(
        "  With SimHash (m), ham is the Hamming distance of the two fingerprints.",
        t.dim(),
    )));
    // Wrapped here rather than by the Paragraph, so the line count (and the scrolling that
    // depends on it) is that of the lines shown.
    let body = layout::screen(layout::area(size)).body;
    let width = area(body, out.len()).width.saturating_sub(2) as usize;
    out.into_iter().flat_map(|l| wrap(l, width)).collect()
}

/// A line cut at spaces to `width` columns, continued under its text (past a key's label).
fn wrap(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    if line.width() <= width || width < 24 {
        return vec![line];
    }
    let indent = if line.spans.len() > 1 {
        line.spans[0].width()
    } else {
        2
    };
    let mut out = Vec::new();
    let mut current: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for span in line.spans {
        for word in span.content.split_inclusive(' ') {
            let w = word.width();
            if used + w > width && used > indent {
                out.push(Line::from(std::mem::take(&mut current)));
                current.push(Span::raw(" ".repeat(indent)));
                used = indent;
            }
            current.push(Span::styled(word.to_string(), span.style));
            used += w;
        }
    }
    out.push(Line::from(current));
    out
}

/// Where the overlay goes, for a number of lines.
fn area(body: Rect, lines: usize) -> Rect {
    let w = body.width.saturating_sub(4).min(100);
    let h = (lines as u16 + 2).min(body.height);
    Rect {
        x: body.x + (body.width - w) / 2,
        y: body.y + (body.height - h) / 2,
        width: w,
        height: h,
    }
}

/// How far the help of a key table can scroll on a screen of `size` (lines hidden below
/// the box).
pub fn max_scroll(size: (u16, u16), mouse: bool, ctx: Context) -> usize {
    // Styles change no line's length: any theme counts the same.
    let n = lines(&Theme::new(false), size, mouse, ctx).len();
    let body = layout::screen(layout::area(size)).body;
    n.saturating_sub(area(body, n).height.saturating_sub(2) as usize)
}

fn render(scroll: usize, ctx: Context, ui: &Ui, frame: &mut Frame, body: Rect) {
    let t = &ui.theme;
    let lines = lines(t, ui.size, ui.mouse, ctx);
    let area = area(body, lines.len());
    let max_scroll = max_scroll(ui.size, ui.mouse, ctx);
    let scroll = scroll.min(max_scroll);
    let more = if scroll < max_scroll {
        " ↓ more "
    } else {
        ""
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(format!(" Help · {} ", ctx.name), t.title()))
        .title_bottom(Line::from(vec![
            Span::styled(more, t.dim()),
            Span::styled(" Esc", t.key()),
            Span::raw(" closes "),
        ]));
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .scroll((scroll as u16, 0)),
        area,
    );
}
