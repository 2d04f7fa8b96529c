//! Wrapping styled text into terminal rows, grapheme and width aware.
//!
//! Text is first made drawable ([`sanitize`]): tabs expanded to the next tab stop,
//! control characters and bidi overrides replaced, graphemes wider than two columns
//! replaced. Wrapping then never splits a grapheme, prefers to break after white space,
//! and keeps every grapheme (spaces included), so the rows of a line concatenate back
//! to the line. White space where a row breaks hangs past its end (as in a word
//! processor): it is clipped when drawn and does not count towards the width.

use super::width::{grapheme_width, is_unsafe};
use unicode_segmentation::UnicodeSegmentation;

/// Columns between tab stops.
pub const TAB: usize = 4;
/// The narrowest wrapping width: every sanitised grapheme fits in it.
pub const MIN_WIDTH: usize = 2;

/// A run of text with one highlight state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Seg {
    pub text: String,
    /// Only on this side of the diff.
    pub changed: bool,
}

impl Seg {
    pub fn new(text: impl Into<String>, changed: bool) -> Seg {
        Seg {
            text: text.into(),
            changed,
        }
    }
}

/// Appends `s` (no newlines) to `out` in drawable form. `col` is the display column
/// `out`'s line has reached; it is advanced, so tab stops stay right across calls.
pub fn sanitize(s: &str, col: &mut usize, out: &mut String) {
    for g in s.graphemes(true) {
        if g == "\t" {
            let n = TAB - *col % TAB;
            out.extend(std::iter::repeat_n(' ', n));
            *col += n;
        } else if g == "\r" {
            // A stray carriage return (CRLF is normalised before): drawn as nothing.
        } else if g.chars().any(is_unsafe) || grapheme_width(g) > MIN_WIDTH {
            out.push('\u{FFFD}');
            *col += 1;
        } else {
            out.push_str(g);
            *col += grapheme_width(g);
        }
    }
}

/// `s` (one line) in drawable form.
#[cfg(test)]
pub fn sanitize_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    sanitize(s, &mut 0, &mut out);
    out
}

/// Appends text to a line of segments, merging with the last one when the highlight is
/// the same.
pub fn push_seg(line: &mut Vec<Seg>, text: &str, changed: bool) {
    if text.is_empty() {
        return;
    }
    match line.last_mut() {
        Some(last) if last.changed == changed => last.text.push_str(text),
        _ => line.push(Seg::new(text, changed)),
    }
}

/// Display width of a row, not counting white space hanging at its end.
#[cfg(test)]
pub fn row_width(row: &[Seg]) -> usize {
    let text: String = row.iter().map(|s| s.text.as_str()).collect();
    super::width::width(text.trim_end_matches(char::is_whitespace))
}

/// Wraps one sanitised line of segments into rows of at most `width` columns (at least
/// [`MIN_WIDTH`]). An empty line gives one empty row.
pub fn wrap(line: &[Seg], width: usize) -> Vec<Vec<Seg>> {
    let width = width.max(MIN_WIDTH);
    // (grapheme, its width, changed)
    let cells: Vec<(&str, usize, bool)> = line
        .iter()
        .flat_map(|s| {
            s.text
                .graphemes(true)
                .map(move |g| (g, grapheme_width(g), s.changed))
        })
        .collect();
    let mut rows = Vec::new();
    let mut start = 0;
    while start < cells.len() {
        // Greedy: as many graphemes as fit.
        let mut end = start;
        let mut w = 0;
        while end < cells.len() && w + cells[end].1 <= width {
            w += cells[end].1;
            end += 1;
        }
        let blank = |i: usize| cells[i].0.chars().all(char::is_whitespace);
        if end < cells.len() {
            if blank(end) {
                // White space at the edge hangs past it (drawing clips it), rather
                // than indenting the next row.
                while end < cells.len() && blank(end) {
                    end += 1;
                }
            } else if let Some(sp) = (start..end).rev().find(|&i| blank(i)) {
                // Break after the last white space that fits; a word longer than the
                // row is cut where the row ends.
                end = sp + 1;
            }
        }
        let mut row: Vec<Seg> = Vec::new();
        for &(g, _, changed) in &cells[start..end] {
            push_seg(&mut row, g, changed);
        }
        rows.push(row);
        start = end;
    }
    if rows.is_empty() {
        rows.push(Vec::new());
    }
    rows
}

/// Wraps plain text (one line) into strings.
#[cfg(test)]
pub fn wrap_str(line: &str, width: usize) -> Vec<String> {
    wrap(&[Seg::new(sanitize_line(line), false)], width)
        .into_iter()
        .map(|r| r.into_iter().map(|s| s.text).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Width as drawn: hanging white space is clipped.
    fn w(s: &str) -> usize {
        super::super::width::width(s.trim_end_matches(char::is_whitespace))
    }

    #[test]
    fn breaks_after_spaces_and_cuts_long_words() {
        assert_eq!(
            wrap_str("the quick brown fox", 10),
            ["the quick ", "brown fox"]
        );
        assert_eq!(wrap_str("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap_str("", 5), [""]);
        // A space at the edge hangs there rather than indenting the next row.
        assert_eq!(wrap_str("abcd efgh", 4), ["abcd ", "efgh"]);
        assert_eq!(wrap_str("ab      cd", 4), ["ab      ", "cd"]);
    }

    #[test]
    fn wide_characters_never_straddle_the_edge() {
        let rows = wrap_str("日本語のテキスト", 5);
        assert!(rows.iter().all(|r| w(r) <= 5), "{rows:?}");
        assert_eq!(rows[0], "日本");
        assert_eq!(rows.concat(), "日本語のテキスト");
    }

    #[test]
    fn tabs_expand_to_stops_and_controls_are_replaced() {
        assert_eq!(sanitize_line("a\tb"), "a   b");
        assert_eq!(sanitize_line("\tx"), "    x");
        assert_eq!(sanitize_line("abcd\tx"), "abcd    x");
        assert_eq!(sanitize_line("a\x1b[31mb"), "a\u{FFFD}[31mb");
        assert_eq!(sanitize_line("x\u{202E}y"), "x\u{FFFD}y");
        // Tab stops carry across segments.
        let mut col = 0;
        let mut out = String::new();
        sanitize("ab", &mut col, &mut out);
        sanitize("\t", &mut col, &mut out);
        assert_eq!(out, "ab  ");
        assert_eq!(col, 4);
    }

    #[test]
    fn highlights_survive_wrapping() {
        let line = vec![
            Seg::new("keep ", false),
            Seg::new("gone", true),
            Seg::new(" tail", false),
        ];
        let rows = wrap(&line, 7);
        assert_eq!(rows[0], vec![Seg::new("keep ", false)]);
        assert_eq!(rows[1], vec![Seg::new("gone", true), Seg::new(" ", false)]);
        assert_eq!(row_width(&rows[1]), 4);
        assert_eq!(rows[2], vec![Seg::new("tail", false)]);
    }

    proptest! {
        #[test]
        fn rows_fit_and_reproduce_the_text(s in "\\PC{0,80}|[a-z \t日本語é́\u{1F600}]{0,60}|.{0,40}", width in 2usize..40) {
            let clean = sanitize_line(&s);
            let rows = wrap_str(&s, width);
            for r in &rows {
                prop_assert!(w(r) <= width, "row {r:?} wider than {width}");
            }
            prop_assert_eq!(rows.concat(), clean);
        }

        #[test]
        fn segments_reproduce_and_keep_flags(parts in proptest::collection::vec(("[a-z 日\t]{0,12}", any::<bool>()), 0..8), width in 2usize..30) {
            let mut line = Vec::new();
            let mut col = 0;
            let mut flat = String::new();
            for (t, c) in &parts {
                let mut out = String::new();
                sanitize(t, &mut col, &mut out);
                flat.push_str(&out);
                push_seg(&mut line, &out, *c);
            }
            let rows = wrap(&line, width);
            let text: String = rows.iter().flatten().map(|s| s.text.as_str()).collect();
            prop_assert_eq!(&text, &flat);
            for r in &rows {
                prop_assert!(row_width(r) <= width);
            }
            // Per-grapheme flags are unchanged by wrapping.
            let flags = |segs: &[Seg]| -> Vec<bool> {
                segs.iter().flat_map(|s| s.text.graphemes(true).map(move |_| s.changed)).collect()
            };
            prop_assert_eq!(flags(&rows.concat()), flags(&line));
        }
    }
}
