//! Display widths of text as the terminal (and ratatui) draws it, and the characters
//! that must never reach a terminal: shared by the explorer's drawing and the commands
//! that print aligned text (`simtui diff`).

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// Display width of a grapheme as ratatui draws it (so our layout and its agree).
pub fn grapheme_width(g: &str) -> usize {
    if g.len() == 1 {
        return 1;
    }
    // ratatui counts halfwidth (semi-)voiced sound marks as one cell each.
    g.width()
        + g.chars()
            .filter(|&c| c == '\u{FF9E}' || c == '\u{FF9F}')
            .count()
}

/// Display width of a string.
pub fn width(s: &str) -> usize {
    s.graphemes(true).map(grapheme_width).sum()
}

/// A string from outside (a file name) made safe to draw: unsafe characters become '�'.
pub fn clean(s: &str) -> String {
    s.chars()
        .map(|c| if is_unsafe(c) { '\u{FFFD}' } else { c })
        .collect()
}

/// Characters that must never reach the terminal as they are: C0/C1 controls (escape
/// sequences) and bidirectional overrides (they reorder what follows on screen).
pub fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Fits `s` into `max` columns by replacing its middle with '…': both ends of a path
/// (folder and file name) are what tell documents apart.
pub fn shorten_middle(s: &str, max: usize) -> String {
    let s = clean(s);
    if width(&s) <= max {
        return s;
    }
    if max == 0 {
        return String::new();
    }
    let g: Vec<&str> = s.graphemes(true).collect();
    let budget = max - 1; // the ellipsis
    // The end (the file name) gets a little more room than the start.
    let tail_budget = (budget * 3).div_ceil(5);
    let head_budget = budget - tail_budget;
    let mut head = String::new();
    let mut w = 0;
    for x in &g {
        let gw = grapheme_width(x);
        if w + gw > head_budget {
            break;
        }
        w += gw;
        head.push_str(x);
    }
    let mut tail: Vec<&str> = Vec::new();
    let mut w = 0;
    for x in g.iter().rev() {
        let gw = grapheme_width(x);
        if w + gw > tail_budget {
            break;
        }
        w += gw;
        tail.push(x);
    }
    tail.reverse();
    format!("{head}…{}", tail.concat())
}
