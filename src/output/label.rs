//! Documents named for people in the commands' tables: the id, then the title (its
//! record's `--title-field`, SGML's `<TITLE>`, else its first line), shortened to what the
//! terminal leaves. Numeric ids alone say nothing to a reader.

use super::format::printable;
use super::width::{clean, grapheme_width, width};
use std::io::IsTerminal;
use unicode_segmentation::UnicodeSegmentation;

/// Columns a title takes at most when the output is no terminal (a table piped on).
const PIPED_TITLE: usize = 60;
/// A title is left out rather than cut to fewer columns than this.
const MIN_TITLE: usize = 8;

/// The width of the terminal standard output writes to, if it is one.
pub fn terminal_width() -> Option<usize> {
    std::io::stdout()
        .is_terminal()
        .then(|| ratatui::crossterm::terminal::size().ok())
        .flatten()
        .map(|(w, _)| w as usize)
}

/// A title for a table row already `used` columns wide: printable, on one line, cut to
/// what is left of the terminal (at most [`PIPED_TITLE`] columns in a pipe); empty when
/// there is no title or no room for one.
pub fn title(title: &str, used: usize) -> String {
    let room = match terminal_width() {
        Some(w) => w.saturating_sub(used + 1),
        None => PIPED_TITLE,
    };
    fit(title, room)
}

/// A title in `room` columns (see [`title`]).
fn fit(title: &str, room: usize) -> String {
    let one_line: String = title.split_whitespace().collect::<Vec<_>>().join(" ");
    let shown = clean(&printable(&one_line));
    if room < MIN_TITLE || shown.is_empty() {
        return String::new();
    }
    truncate(&shown, room)
}

/// `s` in at most `max` columns, its end replaced by '…' when it is wider.
fn truncate(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for g in s.graphemes(true) {
        let w = grapheme_width(g);
        if used + w + 1 > max {
            break;
        }
        used += w;
        out.push_str(g);
    }
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}

/// A title painted dim, or nothing when there is none (no bare escape codes).
pub fn dim(paint: &super::color::Paint, title: &str) -> String {
    match title.is_empty() {
        true => String::new(),
        false => paint.dim(title),
    }
}

/// The columns `s` takes on a terminal (as printed: control characters escaped).
pub fn columns(s: &str) -> usize {
    width(&printable(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_fit_on_one_line() {
        assert_eq!(truncate("a longer title", 8), "a longe…");
        assert_eq!(truncate("short", 8), "short");
        let t = fit(&"word ".repeat(30), PIPED_TITLE);
        assert!(width(&t) <= PIPED_TITLE && t.ends_with('…'), "{t}");
        assert_eq!(fit("two\nlines\x1b[2J", 40), "two lines\\e[2J");
        assert_eq!(fit("   ", 40), "");
        assert_eq!(fit("no room for it", MIN_TITLE - 1), "");
    }
}
