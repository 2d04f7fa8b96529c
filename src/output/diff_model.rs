//! The side-by-side diff, as data: aligning two texts and laying them out in rows.
//! Drawing is in the explorer's `views/diff.rs` and in `simtui diff` (`cli/diff.rs`);
//! everything here is pure and unit-tested.
//!
//! Lines are diffed first (patience: unique lines anchor the alignment); runs of
//! changed lines are then cut into tokens (words, runs of spaces, single punctuation
//! marks, and each newline on its own) and diffed token by token, so a paragraph
//! reflowed or re-indented still matches word for word. The two sides are re-synchronised
//! whenever both are at the start of a line (after a newline they share, or after
//! whole lines that only one side has): between two such points, each side's lines
//! form a block, and the shorter side of a block gets blank rows. Identical passages
//! therefore sit on the same rows, line for line.

use super::paragraphs;
use super::wrap::{self, Seg, push_seg};
use similar::{Algorithm, ChangeTag, DiffTag, TextDiff};
use std::time::{Duration, Instant};

/// Text beyond this many bytes per side is not diffed (and the view says so).
pub const CAP: usize = 256 * 1024;
/// Longest time spent diffing before settling for an approximate diff.
pub const TIMEOUT: Duration = Duration::from_secs(2);

/// Lines of one side, each a list of segments.
pub type Lines = Vec<Vec<Seg>>;

/// Lines of both sides between two shared newlines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    pub left: Lines,
    pub right: Lines,
    /// Some word differs (white space alone does not count).
    pub changed: bool,
}

/// The aligned diff of two texts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiffModel {
    pub blocks: Vec<Block>,
    /// Lines per side.
    pub lines: [usize; 2],
    /// Words only on the left / only on the right (UAX #29 words, as the engine reads
    /// them: white space and punctuation not counted).
    pub changed_words: [usize; 2],
    /// Punctuation and other marks only on the left / only on the right.
    pub changed_marks: [usize; 2],
    /// The two whole texts are the same, byte for byte (CRLF and LF apart), compared in
    /// full even past [`CAP`].
    pub identical: bool,
    /// The parts diffed (each side cut to [`CAP`]) are the same: with a side cut, the
    /// texts may still differ past it.
    pub shown_identical: bool,
    /// A side was longer than [`CAP`] and was cut.
    pub truncated: [bool; 2],
    /// The diff hit its time limit and is not minimal.
    pub approximate: bool,
    /// Per side, the number in the text of each line's first line, where lines were
    /// joined into paragraphs ([`compare_joined`]); empty: each line is its own.
    pub line_numbers: [Vec<usize>; 2],
}

/// Cuts `text` to at most `cap` bytes, at a line end when there is one in the last
/// quarter, else at a character boundary.
pub fn truncate(text: &str, cap: usize) -> (&str, bool) {
    if text.len() <= cap {
        return (text, false);
    }
    let mut end = cap;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if let Some(nl) = text[..end].rfind('\n').filter(|&nl| nl >= cap * 3 / 4) {
        end = nl + 1;
    }
    (&text[..end], true)
}

/// The text cut at Unicode word boundaries (UAX #29, as the engine reads words): words
/// (`don't`, `2.5` and `e.g` are one each), runs of spaces, each newline alone, and every
/// other character alone.
pub fn tokenize(s: &str) -> Vec<&str> {
    use unicode_segmentation::UnicodeSegmentation;
    s.split_word_bounds().collect()
}

/// Whether a token is a word as the engine counts words (UAX #29: it has a letter or a
/// digit), not white space or punctuation.
pub fn is_word(t: &str) -> bool {
    t.chars().any(char::is_alphanumeric)
}

fn is_space(t: &str) -> bool {
    t.chars().all(char::is_whitespace)
}

/// One side being built: finished lines of the current block and the open line.
#[derive(Default)]
struct Side {
    lines: Lines,
    line: Vec<Seg>,
    /// Display column of the open line (for tab stops).
    col: usize,
    /// Whether the open line has started (so a final line without a newline counts).
    open: bool,
    count: usize,
}

impl Side {
    fn push(&mut self, token: &str, changed: bool) {
        let mut text = String::new();
        wrap::sanitize(token, &mut self.col, &mut text);
        push_seg(&mut self.line, &text, changed);
        self.open = true;
    }

    fn newline(&mut self) {
        let mut line = std::mem::take(&mut self.line);
        join_changed_spaces(&mut line);
        self.lines.push(line);
        self.col = 0;
        self.open = false;
        self.count += 1;
    }

    fn finish(&mut self) {
        if self.open {
            self.newline();
        }
    }
}

/// White space between two changed segments of a line is part of the changed passage:
/// highlight it too, so "two new words" reads as one change.
fn join_changed_spaces(line: &mut Vec<Seg>) {
    for i in 1..line.len().saturating_sub(1) {
        if !line[i].changed && is_space(&line[i].text) && line[i - 1].changed && line[i + 1].changed
        {
            line[i].changed = true;
        }
    }
    // Merge neighbours with the same highlight.
    let mut merged: Vec<Seg> = Vec::with_capacity(line.len());
    for s in line.drain(..) {
        push_seg(&mut merged, &s.text, s.changed);
    }
    *line = merged;
}

/// The changes between two texts, token by token: lines first (patience diff, so
/// unique lines anchor the alignment as in `git diff`), then tokens within each run of
/// changed lines (so reflowed or reworded lines still match word for word). Returns
/// whether the time limit cut the work short.
fn changes<'a>(
    left: &'a str,
    right: &'a str,
    timeout: Duration,
) -> (Vec<(ChangeTag, &'a str)>, bool) {
    let deadline = Instant::now() + timeout;
    let ll: Vec<&str> = left.split_inclusive('\n').collect();
    let rl: Vec<&str> = right.split_inclusive('\n').collect();
    let starts = |lines: &[&str]| {
        let mut v = Vec::with_capacity(lines.len() + 1);
        let mut at = 0;
        v.push(0);
        for l in lines {
            at += l.len();
            v.push(at);
        }
        v
    };
    let (ls, rs) = (starts(&ll), starts(&rl));
    // Lines are compared with white space collapsed (re-indented lines still anchor),
    // and blank lines never match: they are everywhere, and anchoring on them would
    // split a reflowed paragraph from its counterpart.
    let keys = |lines: &[&str], side: char| -> Vec<String> {
        lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let words: Vec<&str> = l.split_whitespace().collect();
                if words.is_empty() {
                    format!("\0{side}{i}")
                } else {
                    words.join(" ")
                }
            })
            .collect()
    };
    let (lk, rk) = (keys(&ll, 'l'), keys(&rl, 'r'));
    let lk: Vec<&str> = lk.iter().map(String::as_str).collect();
    let rk: Vec<&str> = rk.iter().map(String::as_str).collect();
    let lines = TextDiff::configure()
        .algorithm(Algorithm::Patience)
        .deadline(deadline)
        .diff_slices(&lk, &rk);
    let mut out = Vec::new();
    let mut region: Option<(usize, usize, usize, usize)> = None;
    let flush = |region: &mut Option<(usize, usize, usize, usize)>,
                 out: &mut Vec<(ChangeTag, &'a str)>| {
        let Some((o0, o1, n0, n1)) = region.take() else {
            return;
        };
        let (a, b) = (&left[ls[o0]..ls[o1]], &right[rs[n0]..rs[n1]]);
        let (at, bt) = (tokenize(a), tokenize(b));
        let words = TextDiff::configure()
            .algorithm(Algorithm::Myers)
            .deadline(deadline)
            .diff_slices(&at, &bt);
        // Changes by index, so the tokens keep borrowing the texts (not the diff).
        for op in words.ops() {
            let (tag, o, n) = op.as_tag_tuple();
            if tag == DiffTag::Equal {
                out.extend(at[o].iter().map(|&t| (ChangeTag::Equal, t)));
            } else {
                out.extend(at[o].iter().map(|&t| (ChangeTag::Delete, t)));
                out.extend(bt[n].iter().map(|&t| (ChangeTag::Insert, t)));
            }
        }
    };
    for op in lines.ops() {
        let (o, n) = (op.old_range(), op.new_range());
        if let similar::DiffOp::Equal { .. } = op {
            flush(&mut region, &mut out);
            for (i, j) in o.zip(n) {
                if ll[i] == rl[j] {
                    out.extend(tokenize(ll[i]).into_iter().map(|t| (ChangeTag::Equal, t)));
                } else {
                    // The same words, spaced differently: diffed on their own.
                    flush(&mut Some((i, i + 1, j, j + 1)), &mut out);
                }
            }
        } else {
            region = Some(match region {
                Some((o0, _, n0, _)) => (o0, o.end, n0, n.end),
                None => (o.start, o.end, n.start, n.end),
            });
        }
    }
    flush(&mut region, &mut out);
    (out, Instant::now() >= deadline)
}

/// Diffs two texts (already truncated) into aligned blocks.
pub fn build(left: &str, right: &str, timeout: Duration) -> DiffModel {
    let left = left.replace("\r\n", "\n");
    let right = right.replace("\r\n", "\n");
    let (changes, approximate) = changes(&left, &right, timeout);
    let mut model = DiffModel {
        approximate,
        identical: left == right,
        shown_identical: left == right,
        ..Default::default()
    };
    let (mut l, mut r) = (Side::default(), Side::default());
    let mut changed = false;
    let close = |l: &mut Side, r: &mut Side, changed: &mut bool, blocks: &mut Vec<Block>| {
        if !l.lines.is_empty() || !r.lines.is_empty() {
            blocks.push(Block {
                left: std::mem::take(&mut l.lines),
                right: std::mem::take(&mut r.lines),
                changed: *changed,
            });
        }
        *changed = false;
    };
    for (tag, tok) in changes {
        match tag {
            ChangeTag::Equal if tok == "\n" => {
                // A newline both texts share: both sides start a line here, in step.
                l.newline();
                r.newline();
                close(&mut l, &mut r, &mut changed, &mut model.blocks);
            }
            ChangeTag::Equal => {
                l.push(tok, false);
                r.push(tok, false);
            }
            tag => {
                let left = tag == ChangeTag::Delete;
                let side = if left { &mut l } else { &mut r };
                if tok == "\n" {
                    side.newline();
                    // Whole lines only on one side: if the other side is at a line
                    // start too, the two are back in step.
                    if !l.open && !r.open {
                        close(&mut l, &mut r, &mut changed, &mut model.blocks);
                    }
                } else if is_space(tok) {
                    side.push(tok, false);
                } else {
                    side.push(tok, true);
                    let count = if is_word(tok) {
                        &mut model.changed_words
                    } else {
                        &mut model.changed_marks
                    };
                    count[usize::from(!left)] += 1;
                    changed = true;
                }
            }
        }
    }
    l.finish();
    r.finish();
    close(&mut l, &mut r, &mut changed, &mut model.blocks);
    model.lines = [l.count, r.count];
    model
}

/// The diff of two whole texts: each cut to [`CAP`] bytes (the model says which were),
/// aligned within [`TIMEOUT`].
pub fn compare(left: &str, right: &str) -> DiffModel {
    let (l, cut_l) = truncate(left, CAP);
    let (r, cut_r) = truncate(right, CAP);
    let mut model = build(l, r, TIMEOUT);
    model.truncated = [cut_l, cut_r];
    if cut_l || cut_r {
        // What was diffed is not all: "identical" speaks of the whole texts.
        model.identical = left.replace("\r\n", "\n") == right.replace("\r\n", "\n");
    }
    model
}

/// What the diff says of the two texts as a whole, when it says something: identical,
/// or no word differs; with a side cut to [`CAP`], what it says of the part shown only
/// ("identical texts" is always said of the whole texts).
pub fn verdict(m: &DiffModel) -> Option<String> {
    let shown = format!("the first {} KB shown", CAP / 1024);
    let cut = m.truncated.contains(&true);
    let said = if m.identical {
        "identical texts".to_string()
    } else if m.shown_identical && cut {
        format!("identical in {shown}, different past it")
    } else if m.changed_words == [0, 0] && m.changed_marks == [0, 0] {
        "no word differs (only white space)".to_string()
    } else if m.changed_words == [0, 0] {
        "no word differs (only punctuation and white space)".to_string()
    } else {
        return None;
    };
    if cut && !m.identical && !m.shown_identical {
        return Some(format!("{said} in {shown}"));
    }
    Some(said)
}

/// The diff of two texts with their hard-wrapped paragraphs joined into one line each
/// ([`paragraphs::join`]), numbered by the text's lines; None when neither text has
/// any (the diff of [`compare`] is the one to show).
pub fn compare_joined(left: &str, right: &str) -> Option<DiffModel> {
    let (l, cut_l) = truncate(left, CAP);
    let (r, cut_r) = truncate(right, CAP);
    let (jl, jr) = (paragraphs::join(l), paragraphs::join(r));
    if jl.is_none() && jr.is_none() {
        return None;
    }
    let shown = |j: &Option<paragraphs::Joined>, t: &str| -> String {
        j.as_ref().map_or_else(|| t.to_string(), |j| j.text.clone())
    };
    let mut model = build(&shown(&jl, l), &shown(&jr, r), TIMEOUT);
    model.truncated = [cut_l, cut_r];
    // Texts that differ only in where their lines break are not identical, and
    // "identical" speaks of the whole texts.
    let same = |a: &str, b: &str| a.replace("\r\n", "\n") == b.replace("\r\n", "\n");
    model.shown_identical = same(l, r);
    model.identical = same(left, right);
    let numbers = |j: Option<paragraphs::Joined>| j.map(|j| j.first_lines).unwrap_or_default();
    model.line_numbers = [numbers(jl), numbers(jr)];
    Some(model)
}

/// The model with every changed passage bracketed, as `git diff --word-diff` marks them
/// where there is no colour: `[-old-]` on the left, `{+new+}` on the right. The brackets
/// are part of the text, so the layout wraps them with it.
pub fn bracketed(model: &DiffModel) -> DiffModel {
    let mark = |lines: &Lines, open: &str, close: &str| -> Lines {
        lines
            .iter()
            .map(|line| {
                line.iter()
                    .map(|s| match s.changed {
                        true => Seg::new(format!("{open}{}{close}", s.text), true),
                        false => s.clone(),
                    })
                    .collect()
            })
            .collect()
    };
    DiffModel {
        blocks: model
            .blocks
            .iter()
            .map(|b| Block {
                left: mark(&b.left, "[-", "-]"),
                right: mark(&b.right, "{+", "+}"),
                changed: b.changed,
            })
            .collect(),
        ..model.clone()
    }
}

/// One side of a drawn row.
#[derive(Clone, Debug, PartialEq)]
pub struct SideRow {
    /// The line number, on the first row of a line (continuation rows have none).
    pub line: Option<usize>,
    pub segs: Vec<Seg>,
}

/// A drawn row: each side is a piece of a line, or blank (`None`) where the other side
/// has more rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub left: Option<SideRow>,
    pub right: Option<SideRow>,
    pub changed: bool,
}

/// The diff laid out for a column width.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    pub rows: Vec<Row>,
    /// First row of each changed block (for jumping between differences).
    pub changes: Vec<usize>,
    /// Columns of the line-number gutter (number and a space).
    pub gutter: usize,
    /// Columns of text per side.
    pub text_width: usize,
    /// The column width this layout was made for.
    pub column: usize,
}

/// Digits needed for the largest line number.
fn digits(n: usize) -> usize {
    n.max(1).ilog10() as usize + 1
}

/// Lays the model out in rows for columns of `column` display cells each (gutter
/// included).
pub fn layout(model: &DiffModel, column: usize) -> Layout {
    // A side's line `n` (from 1) is its text's line `number(side, n)`.
    let number = |side: usize, n: usize| model.line_numbers[side].get(n - 1).copied().unwrap_or(n);
    let last = |side: usize| match model.lines[side] {
        0 => 0,
        n => number(side, n),
    };
    let gutter = digits(last(0).max(last(1))) + 1;
    // Drop the gutter rather than the text when columns are very narrow.
    let gutter = if column >= gutter + 12 { gutter } else { 0 };
    let text_width = column.saturating_sub(gutter).max(wrap::MIN_WIDTH);
    let mut out = Layout {
        gutter,
        text_width,
        column,
        ..Default::default()
    };
    let (mut ln, mut rn) = (0usize, 0usize);
    let side_rows = |lines: &Lines, n: &mut usize, side: usize| -> Vec<SideRow> {
        let mut rows = Vec::new();
        for line in lines {
            *n += 1;
            for (i, segs) in wrap::wrap(line, text_width).into_iter().enumerate() {
                rows.push(SideRow {
                    line: (i == 0).then_some(number(side, *n)),
                    segs,
                });
            }
        }
        rows
    };
    for block in &model.blocks {
        let left = side_rows(&block.left, &mut ln, 0);
        let right = side_rows(&block.right, &mut rn, 1);
        if block.changed {
            out.changes.push(out.rows.len());
        }
        let n = left.len().max(right.len());
        let mut left = left.into_iter();
        let mut right = right.into_iter();
        for _ in 0..n {
            out.rows.push(Row {
                left: left.next(),
                right: right.next(),
                changed: block.changed,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(row: &Option<SideRow>) -> String {
        row.as_ref()
            .map(|r| r.segs.iter().map(|s| s.text.as_str()).collect())
            .unwrap_or_else(|| "<blank>".into())
    }

    /// Each row of the layout at `width`, as the texts of its two sides.
    fn texts(m: &DiffModel, width: usize) -> Vec<(String, String)> {
        let lay = layout(m, width);
        lay.rows
            .iter()
            .map(|r| (text(&r.left), text(&r.right)))
            .collect()
    }

    fn changed(row: &Option<SideRow>) -> Vec<String> {
        row.as_ref()
            .map(|r| {
                r.segs
                    .iter()
                    .filter(|s| s.changed)
                    .map(|s| s.text.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    const T: Duration = Duration::from_secs(5);

    #[test]
    fn tokens_split_words_spaces_newlines_and_marks() {
        assert_eq!(
            tokenize("a  b,\n\nc"),
            ["a", "  ", "b", ",", "\n", "\n", "c"]
        );
        assert_eq!(tokenize("héllo wörld"), ["héllo", " ", "wörld"]);
        assert_eq!(tokenize("").len(), 0);
        // Words as the engine reads them (UAX #29): one token each.
        assert_eq!(
            tokenize("pi is 3.14, don't"),
            ["pi", " ", "is", " ", "3.14", ",", " ", "don't"]
        );
    }

    #[test]
    fn words_only_here_are_counted_as_the_engine_counts_words() {
        // "2.5" is one word, not "2", "." and "5"; punctuation is no word.
        let m = build("rate of 2.5 percent\n", "rate of 3 percent!\n", T);
        assert_eq!(m.changed_words, [1, 1]);
        assert_eq!(m.changed_marks, [0, 1]);
        assert!(!m.identical);
        // Never more words only on a side than the side has words.
        let (a, b) = ("a-b c.d e,f 1.5.6 x\n", "q r s\n");
        let m = build(a, b, T);
        let words = |t: &str| {
            use unicode_segmentation::UnicodeSegmentation;
            t.unicode_words().count()
        };
        assert!(m.changed_words[0] <= words(a), "{:?}", m.changed_words);
        assert_eq!(m.changed_words[1], 3);
        // Identical texts say so; punctuation alone is not "only white space".
        assert!(build("same text\n", "same text\n", T).identical);
        let m = build("end.\n", "end!\n", T);
        assert_eq!((m.changed_words, m.changed_marks), ([0, 0], [1, 1]));
    }

    #[test]
    fn equal_lines_share_rows_and_inserted_lines_get_blanks() {
        let a = "one\ntwo\nthree\nfour\n";
        let b = "one\ntwo\nNEW LINE\nthree\nfour\n";
        let m = build(a, b, T);
        assert_eq!(m.lines, [4, 5]);
        let lay = layout(&m, 40);
        assert_eq!(
            texts(&m, 40),
            [
                ("one".into(), "one".into()),
                ("two".into(), "two".into()),
                ("<blank>".into(), "NEW LINE".into()),
                ("three".into(), "three".into()),
                ("four".into(), "four".into()),
            ]
        );
        assert_eq!(lay.changes, [2]);
        assert_eq!(changed(&lay.rows[2].right), ["NEW LINE"]);
        // Line numbers count each side's own lines.
        assert_eq!(lay.rows[3].left.as_ref().unwrap().line, Some(3));
        assert_eq!(lay.rows[3].right.as_ref().unwrap().line, Some(4));
    }

    #[test]
    fn changed_words_are_highlighted_on_their_side_only() {
        let m = build("the quick brown fox\n", "the slow brown fox\n", T);
        let lay = layout(&m, 40);
        assert_eq!(lay.rows.len(), 1);
        assert_eq!(changed(&lay.rows[0].left), ["quick"]);
        assert_eq!(changed(&lay.rows[0].right), ["slow"]);
        assert_eq!(m.changed_words, [1, 1]);
        // Adjacent changed words read as one passage.
        let m = build("a b c d\n", "a x y d\n", T);
        assert_eq!(changed(&layout(&m, 40).rows[0].right), ["x y"]);
    }

    #[test]
    fn reflowed_text_is_not_a_change_and_resyncs() {
        let a = "Permission is hereby granted, free of charge, to any person\nobtaining a copy.\n\nTHE END\n";
        let b = "Permission is hereby granted,\nfree of charge, to any person obtaining a copy.\n\nTHE END\n";
        let m = build(a, b, T);
        assert_eq!(m.changed_words, [0, 0]);
        let lay = layout(&m, 80);
        assert!(lay.changes.is_empty());
        // The paragraph is one block of 2 rows; the shared blank line and THE END
        // are back in step.
        let last = lay.rows.last().unwrap();
        assert_eq!(
            (text(&last.left), text(&last.right)),
            ("THE END".into(), "THE END".into())
        );
        assert_eq!(lay.rows.len(), 4);
    }

    #[test]
    fn blank_lines_do_not_split_a_paragraph_from_its_counterpart() {
        // B breaks one paragraph in two; matching the blank lines would pair the wrong
        // halves and report every word of the second half as changed.
        let a =
            "Title\n\n3. Grant. Subject to the terms.\n\n4. Redistribution. You may copy.\n\nEnd\n";
        let b = "Title\n\n3. Grant.\n\nSubject to the terms.\n\n4. Redistribution.\n\nYou may copy.\n\nEnd\n";
        let m = build(a, b, T);
        assert_eq!(m.changed_words, [0, 0]);
        let lay = layout(&m, 80);
        let last = lay.rows.last().unwrap();
        assert_eq!(
            (text(&last.left), text(&last.right)),
            ("End".into(), "End".into())
        );
    }

    #[test]
    fn reindented_lines_still_anchor() {
        let a = "alpha one\nbeta two\ngamma three\n";
        let b = "    alpha one\n    beta two\nNEW\n    gamma three\n";
        let m = build(a, b, T);
        assert_eq!(m.changed_words, [0, 1]);
        let rows = texts(&m, 40);
        assert_eq!(rows[1], ("beta two".into(), "    beta two".into()));
        assert_eq!(rows[2], ("<blank>".into(), "NEW".into()));
        assert_eq!(rows[3], ("gamma three".into(), "    gamma three".into()));
    }

    #[test]
    fn wrapped_lines_pad_the_shorter_side() {
        let long = "word ".repeat(20);
        let a = format!("{long}\nend\n");
        let b = "short\nend\n";
        let lay = layout(&build(&a, b, T), 24);
        let end = lay
            .rows
            .iter()
            .position(|r| text(&r.left) == "end")
            .unwrap();
        assert_eq!(text(&lay.rows[end].right), "end");
        assert!(end > 1);
        assert!(lay.rows[1..end].iter().all(|r| r.right.is_none()));
        for r in &lay.rows {
            for side in [&r.left, &r.right].into_iter().flatten() {
                assert!(wrap::row_width(&side.segs) <= lay.text_width);
            }
        }
    }

    #[test]
    fn missing_final_newline_and_crlf_and_tabs() {
        let m = build("a\r\nb", "a\nb\n", T);
        let lay = layout(&m, 20);
        assert_eq!(lay.rows.len(), 2);
        assert!(lay.changes.is_empty());
        let m = build("x\ty\n", "x\ty\n", T);
        assert_eq!(text(&layout(&m, 20).rows[0].left), "x   y");
    }

    #[test]
    fn texts_cut_to_the_cap_are_identical_only_when_whole() {
        let head = "same line of text\n".repeat(CAP / 10);
        let cut = compare(&format!("{head}one end\n"), &format!("{head}other end\n"));
        assert_eq!(cut.truncated, [true, true]);
        assert!(cut.shown_identical && !cut.identical);
        assert_eq!(
            verdict(&cut).unwrap(),
            "identical in the first 256 KB shown, different past it"
        );
        let whole = compare(&head, &head.replace('\n', "\r\n"));
        assert!(whole.identical);
        assert_eq!(verdict(&whole).unwrap(), "identical texts");
        let spaces = compare("a  b\n", "a b\n");
        assert_eq!(
            verdict(&spaces).unwrap(),
            "no word differs (only white space)"
        );
    }

    #[test]
    fn joined_paragraphs_keep_the_texts_line_numbers() {
        // Hard-wrapped lines of about 50 columns, one paragraph.
        let para = |words: &[&str]| -> String {
            let line = |w: &&str| format!("{w} alpha beta gamma delta epsilon zeta eta theta\n");
            words.iter().map(line).collect()
        };
        let a = para(&["one", "two", "three", "four"]);
        let b = a.replace("three", "THREE");
        // Unjoined: four lines a side; joined: one paragraph, numbered by its first line.
        assert!(compare(&a, &b).lines == [4, 4]);
        let m = compare_joined(&a, &b).expect("wrapped lines");
        assert_eq!(m.lines, [1, 1]);
        assert_eq!((m.changed_words, m.identical), ([1, 1], false));
        let lay = layout(&m, 40);
        assert_eq!(lay.rows[0].left.as_ref().unwrap().line, Some(1));
        assert!(lay.rows.len() > 4, "the paragraph wraps at 40 columns");
        assert!(
            lay.rows[1..]
                .iter()
                .all(|r| r.left.as_ref().unwrap().line.is_none())
        );
        assert_eq!(compare_joined("short\nlines\n", "short\nlines\n"), None);
        // Texts differing only in their line breaks are not identical.
        let m = compare_joined(&a, &a.replacen('\n', " ", 1)).unwrap();
        assert!(!m.identical && m.changed_words == [0, 0]);
    }

    #[test]
    fn truncation_prefers_line_ends() {
        let s = "abc\n".repeat(100);
        let (t, cut) = truncate(&s, 201);
        assert!(cut);
        assert!(t.ends_with('\n'));
        assert!(t.len() <= 201);
        let (t, cut) = truncate("日本語", 4);
        assert_eq!((t, cut), ("日", true));
        assert_eq!(truncate("abc", 10), ("abc", false));
    }
}
