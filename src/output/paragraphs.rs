//! Hard-wrapped text read as paragraphs: a newswire body wrapped at 65 columns, shown in
//! a narrower column, wraps again on every line and leaves a one-word tail on each
//! ("response", "said."). The diff joins such a paragraph's lines for display, and keeps
//! each joined line's first line number so the gutter still points into the text.
//!
//! A line is taken as wrapped, and joined to the next, when it is nearly as wide as the
//! text's widest lines (the next word would not have fitted, give or take a few
//! columns) and the next line goes on with the same paragraph: it is not blank, not
//! indented (a new paragraph in a newswire) and does not start a list item. Short lines
//! (verse, addresses, code) and texts of short lines are left as they are.

/// The narrowest wrapping width taken for hard-wrapped prose: lines all shorter than this
/// are verse, lists or code, never joined.
const MIN_WRAP: usize = 40;

/// A text with its hard-wrapped paragraphs joined: the text, and the number (from 1) of
/// the original line each of its lines starts with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Joined {
    pub text: String,
    pub first_lines: Vec<usize>,
}

/// Width of a line in characters, trailing white space left out.
fn len(line: &str) -> usize {
    line.trim_end().chars().count()
}

/// Whether a line starts a block of its own: blank, indented, or a list item
/// (`- x`, `* x`, `• x`, `1. x`, `2) x`).
fn starts_block(line: &str) -> bool {
    let t = line.trim_end();
    if t.is_empty() || line.starts_with(char::is_whitespace) {
        return true;
    }
    let mut words = t.split_whitespace();
    let first = words.next().unwrap_or("");
    let bullet = matches!(first, "-" | "*" | "•" | "–" | "+");
    let numbered = first.len() > 1
        && first[..first.len() - 1].chars().all(|c| c.is_ascii_digit())
        && (first.ends_with('.') || first.ends_with(')'));
    bullet || numbered
}

/// Joins the hard-wrapped paragraphs of `text`; None when no line is joined (the text
/// is shown as it is).
pub fn join(text: &str) -> Option<Joined> {
    let text = text.replace("\r\n", "\n");
    let lines: Vec<&str> = text.split('\n').collect();
    // The width the text was wrapped at: its widest lines (past a few outliers, such as
    // a long URL, a table or a title on one line).
    let mut widths: Vec<usize> = lines.iter().map(|l| len(l)).filter(|&w| w > 0).collect();
    widths.sort_unstable();
    let wrap = widths
        .get(widths.len().saturating_sub(1) * 9 / 10)
        .copied()?;
    if wrap < MIN_WRAP || widths.len() < 3 {
        return None;
    }
    // A line ended by the wrap could have taken a few more columns (hand-wrapped text,
    // words of different lengths).
    let slack = wrap / 6;
    let wrapped = |line: &str, next: &str| {
        let word = next
            .split_whitespace()
            .next()
            .map_or(0, |w| w.chars().count());
        !line.trim().is_empty() && !starts_block(next) && len(line) + 1 + word + slack > wrap
    };
    let mut out = Joined {
        text: String::with_capacity(text.len()),
        first_lines: Vec::with_capacity(lines.len()),
    };
    let mut joined_any = false;
    let mut i = 0;
    while i < lines.len() {
        out.first_lines.push(i + 1);
        let mut line = lines[i].to_string();
        while i + 1 < lines.len() && wrapped(lines[i], lines[i + 1]) {
            line.truncate(line.trim_end().len());
            line.push(' ');
            line.push_str(lines[i + 1]);
            i += 1;
            joined_any = true;
        }
        out.text.push_str(&line);
        i += 1;
        if i < lines.len() {
            out.text.push('\n');
        }
    }
    // The text's last newline ends its last line: no line of its own after it.
    if text.ends_with('\n') {
        out.first_lines.pop();
    }
    joined_any.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Reuters body as the wire wrapped it: paragraphs indented, lines of 45 to 67
    /// columns, the title and a blank line before.
    const WIRE: &str = concat!(
        "BAHIA COCOA REVIEW\n",
        "\n",
        "    Showers continued throughout the week in the Bahia cocoa zone,\n",
        "alleviating the drought since early January and improving\n",
        "prospects for the coming temporao, although normal humidity\n",
        "levels have not been restored, Comissaria Smith said in its\n",
        "weekly review.\n",
        "    The dry period means the temporao will be late this year.\n",
        "    Arrivals for the week ended February 22 were 155,221 bags\n",
        "of 60 kilos making a cumulative total for the season of 5.93\n",
        "mln against 5.81 at the same stage last year.\n",
    );

    #[test]
    fn a_newswire_body_joins_into_its_paragraphs() {
        let j = join(WIRE).expect("wrapped lines");
        let lines: Vec<&str> = j.text.lines().collect();
        assert_eq!(lines.len(), 5, "{lines:#?}");
        assert_eq!(lines[0], "BAHIA COCOA REVIEW");
        assert!(
            lines[2].starts_with("    Showers continued"),
            "{}",
            lines[2]
        );
        assert!(lines[2].ends_with("in its weekly review."), "{}", lines[2]);
        assert!(lines[2].contains("improving prospects"), "{}", lines[2]);
        assert_eq!(
            lines[3],
            "    The dry period means the temporao will be late this year."
        );
        assert!(lines[4].ends_with("same stage last year."));
        // Each line's first line in the text.
        assert_eq!(j.first_lines, [1, 2, 3, 8, 9]);
        // Nothing but line ends changed: the same words in the same order.
        let words = |t: &str| t.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert_eq!(words(&j.text), words(WIRE));
        assert!(j.text.ends_with("last year.\n"));
    }

    #[test]
    fn short_lines_lists_and_unwrapped_text_stay_as_they_are() {
        let verse = concat!(
            "Tyger Tyger, burning bright,\nIn the forests of the night;\n",
            "What immortal hand or eye,\nCould frame thy fearful symmetry?\n",
        );
        assert_eq!(join(verse), None);
        let list = format!(
            "{}\n- {}\n- {}\n1. {}\n",
            "a".repeat(60),
            "b ".repeat(30),
            "c ".repeat(30),
            "d ".repeat(30)
        );
        assert_eq!(join(&list), None);
        assert_eq!(
            join("one line only, however long it may be in the end\n"),
            None
        );
        assert_eq!(join(""), None);
    }
}
