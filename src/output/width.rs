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
