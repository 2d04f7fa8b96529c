//! Property tests ("fuzzing" on stable Rust) of the side-by-side diff: alignment,
//! wrapping and drawing of arbitrary texts at arbitrary widths (issue 5). The case count
//! is proptest's: 256 by default, `PROPTEST_CASES=100000` for a long run (doc/hostile.md).

use super::{act, draw, loaded};
use crate::output::diff_model::{self as diff, DiffModel};
use crate::output::width::{grapheme_width, is_unsafe};
use crate::output::wrap::{self, MIN_WIDTH, Seg};
use crate::tui::keys::Action;
use crate::tui::views::diff::DiffView;
use proptest::prelude::*;
use std::time::Duration;
use unicode_segmentation::UnicodeSegmentation;

/// Text that exercises the layout: words, white space of every kind, wide and
/// zero-width characters, combining marks, emoji sequences, controls, bidi overrides,
/// invalid-looking escapes, and arbitrary characters.
fn hostile_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => "[a-z]{1,12}",
        3 => Just(" ".to_string()),
        2 => Just("\n".to_string()),
        1 => Just("\r\n".to_string()),
        1 => Just("\t".to_string()),
        1 => Just("\u{3000}".to_string()),
        1 => Just("漢字かな".to_string()),
        1 => Just("e\u{301}\u{302}".to_string()),
        1 => Just("👩‍👩‍👧‍👦".to_string()),
        1 => Just("🇫🇷".to_string()),
        1 => Just("\u{200B}\u{FEFF}".to_string()),
        1 => Just("\u{202E}rtl\u{202C}".to_string()),
        1 => Just("\x1b[31m".to_string()),
        1 => Just("\u{FF76}\u{FF9E}".to_string()),
        1 => Just("\u{FFFD}".to_string()),
        2 => any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..80).prop_map(|v| v.concat())
}

/// Columns a row takes on screen, white space hanging past the edge not counted.
fn drawn_width(segs: &[Seg]) -> usize {
    let text: String = segs.iter().map(|s| s.text.as_str()).collect();
    let gs: Vec<&str> = text.graphemes(true).collect();
    let end = gs
        .iter()
        .rposition(|g| !g.chars().all(char::is_whitespace))
        .map_or(0, |i| i + 1);
    gs[..end].iter().map(|g| grapheme_width(g)).sum()
}

fn seg_text(segs: &[Seg]) -> String {
    segs.iter().map(|s| s.text.as_str()).collect()
}

proptest! {
    #[test]
    fn wrapping_keeps_every_grapheme_and_fits_the_width(
        parts in prop::collection::vec((hostile_text(), any::<bool>()), 0..6),
        width in 0usize..120,
    ) {
        // Lines as the diff makes them: sanitised, without newlines.
        let line: Vec<Seg> = parts
            .iter()
            .map(|(t, c)| Seg::new(wrap::sanitize_line(&t.replace(['\n', '\r'], " ")), *c))
            .collect();
        for s in &line {
            prop_assert!(!s.text.chars().any(is_unsafe), "unsafe char survived: {:?}", s.text);
        }
        let rows = wrap::wrap(&line, width);
        prop_assert!(!rows.is_empty());
        let joined: String = rows.iter().map(|r| seg_text(r)).collect();
        prop_assert_eq!(joined, seg_text(&line));
        for r in &rows {
            prop_assert!(drawn_width(r) <= width.max(MIN_WIDTH), "row {:?} at width {}", r, width);
        }
    }

    #[test]
    fn diff_alignment_and_layout_at_any_width(
        left in hostile_text(),
        right in hostile_text(),
        column in 0usize..200,
    ) {
        let model = diff::build(&left, &right, Duration::from_secs(2));
        // Every line of each side is in exactly one block.
        let lines = |f: fn(&diff::Block) -> usize| model.blocks.iter().map(f).sum::<usize>();
        prop_assert_eq!(lines(|b| b.left.len()), model.lines[0]);
        prop_assert_eq!(lines(|b| b.right.len()), model.lines[1]);
        let lay = diff::layout(&model, column);
        // Line numbers run 1..=n on each side, in order.
        let numbers = |left: bool| -> Vec<usize> {
            lay.rows
                .iter()
                .filter_map(|r| if left { r.left.as_ref() } else { r.right.as_ref() })
                .filter_map(|s| s.line)
                .collect()
        };
        prop_assert_eq!(numbers(true), (1..=model.lines[0]).collect::<Vec<_>>());
        prop_assert_eq!(numbers(false), (1..=model.lines[1]).collect::<Vec<_>>());
        for r in &lay.rows {
            for side in [&r.left, &r.right].into_iter().flatten() {
                prop_assert!(drawn_width(&side.segs) <= lay.text_width);
                prop_assert!(!seg_text(&side.segs).chars().any(is_unsafe));
            }
        }
        prop_assert!(lay.changes.iter().all(|&c| c < lay.rows.len()));
        prop_assert!(lay.changes.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn truncation_cuts_at_a_boundary(text in hostile_text(), cap in 0usize..400) {
        let (cut, was) = diff::truncate(&text, cap);
        prop_assert!(cut.len() <= cap || cut.len() == text.len());
        prop_assert!(text.starts_with(cut));
        prop_assert_eq!(was, cut.len() < text.len());
    }
}

proptest! {
    // Drawing needs an explorer with a corpus: fewer, costlier cases.
    #![proptest_config(ProptestConfig {
        cases: ProptestConfig::default().cases.min(64),
        ..ProptestConfig::default()
    })]
    #[test]
    fn the_diff_view_draws_any_text_at_any_size(
        left in hostile_text(),
        right in hostile_text(),
        sizes in prop::collection::vec((1u16..250, 1u16..80), 1..4),
        scroll in 0usize..50,
    ) {
        let (_dir, mut app) = loaded((100, 30));
        act(&mut app, Action::Open);
        let model: DiffModel = diff::build(&left, &right, Duration::from_secs(2));
        {
            let d = app.top_as_mut::<DiffView>().expect("the diff view is open");
            let column = app_column(d.layout().column);
            d.set_model(model, column);
        }
        for (w, h) in sizes {
            app.update(Action::Resize(w, h));
            for _ in 0..scroll {
                app.update(Action::Down);
            }
            let buf = draw(&app);
            prop_assert_eq!((buf.area.width, buf.area.height), (w, h));
            app.update(Action::NextChange);
            draw(&app);
        }
    }
}

/// A width that differs from the current one, so the resize re-lays the new model out.
fn app_column(column: usize) -> usize {
    column + 1
}
