//! `simtui matrix --format svg`: the matrix as a heatmap picture. Each cell is shaded by
//! its value and also prints it, so the picture reads in grey or on paper; rows and
//! columns carry the documents' ids (shortened in the middle), and a legend maps shades
//! to values. The SVG is plain XML 1.0: every id is escaped and its control characters
//! are shown as escapes, so no file name can break the document.

use crate::output::format::printable;
use crate::output::width::shorten_middle;
use simtui_engine::analysis::matrix::Matrix;
use std::fmt::Write as _;
use std::io::{self, Write};

/// What the cells hold, which decides how a value is written and shaded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    /// A similarity in [0, 1] (exact J or its estimate): darker is more similar.
    Similarity {
        /// The legend's caption.
        name: &'static str,
    },
    /// A Hamming distance of fingerprints of `bits` bits: darker is closer.
    Hamming {
        /// The fingerprints' width, the largest distance.
        bits: u32,
    },
}

impl Scale {
    /// How dark a value is drawn, 0 (white) to 1 (darkest): similar documents dark.
    fn shade(self, v: f64) -> f64 {
        let t = match self {
            Scale::Similarity { .. } => v,
            Scale::Hamming { bits } => 1.0 - v / f64::from(bits),
        };
        if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) }
    }

    /// The value as printed in its cell: two decimals fit a cell and tell pairs apart.
    fn label(self, v: f64) -> String {
        match self {
            Scale::Similarity { .. } => format!("{v:.2}"),
            Scale::Hamming { .. } => format!("{v}"),
        }
    }

    fn caption(self) -> String {
        match self {
            Scale::Similarity { name } => name.to_string(),
            Scale::Hamming { bits } => format!("Hamming distance of {bits}-bit SimHash"),
        }
    }

    /// The legend's values, lightest first.
    fn legend(self) -> Vec<f64> {
        match self {
            Scale::Similarity { .. } => (0..=5).map(|i| f64::from(i) / 5.0).collect(),
            Scale::Hamming { bits } => {
                let bits = f64::from(bits);
                (0..=4)
                    .rev()
                    .map(|i| (bits * f64::from(i) / 4.0).round())
                    .collect()
            }
        }
    }
}

const CELL_W: usize = 44;
const CELL_H: usize = 26;
/// Labels longer than this are shortened in the middle (a path's both ends tell apart).
const LABEL_CHARS: usize = 32;
/// Approximate advance of a character at the labels' 12 px monospace.
const CHAR_W: usize = 7;
const MARGIN: usize = 12;

/// The lightest and darkest colour of the shading (white to a dark blue): one hue, so the
/// order of values survives conversion to grey.
const LIGHT: (f64, f64, f64) = (255.0, 255.0, 255.0);
const DARK: (f64, f64, f64) = (8.0, 48.0, 107.0);

/// Writes the heatmap of `m` (row and column `i` are `ids[i]`).
pub fn write(out: &mut dyn Write, ids: &[&str], m: &Matrix, scale: Scale) -> io::Result<()> {
    out.write_all(render(ids, m, scale).as_bytes())
}

/// The whole SVG document as a string (built in memory: a matrix has at most 500 rows).
pub fn render(ids: &[&str], m: &Matrix, scale: Scale) -> String {
    let n = m.n;
    let labels: Vec<String> = ids.iter().map(|id| label(id)).collect();
    let label_w = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) * CHAR_W;
    // Column labels are turned 45°: their height is their length over √2.
    let top = MARGIN + 24 + label_w * 71 / 100 + 8;
    let left = MARGIN + label_w + 16;
    let grid_w = n * CELL_W;
    let grid_h = n * CELL_H;
    let legend_top = top + grid_h + 20;
    let width = (left + grid_w + MARGIN + label_w * 71 / 100).max(left + 7 * CELL_W + 200);
    let height = legend_top + 22 + CELL_H + MARGIN;
    let mut s = String::with_capacity(256 + n * n * 220);
    let _ = writeln!(s, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" font-size="12" role="img">"#
    );
    let title = format!("simtui matrix: {} of {n} documents", scale.caption());
    let _ = writeln!(s, "<title>{}</title>", escape(&title));
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{MARGIN}" y="{}" font-size="14" font-weight="bold">{}</text>"#,
        MARGIN + 12,
        escape(&title)
    );
    write_labels(&mut s, &labels, top, left);
    write_cells(&mut s, &labels, m, scale, top, left);
    write_legend(&mut s, scale, left, legend_top);
    s.push_str("</svg>\n");
    s
}

/// Row labels right-aligned before each row; column labels above each column, turned.
fn write_labels(s: &mut String, labels: &[String], top: usize, left: usize) {
    let _ = writeln!(s, r#"<g class="row-labels" text-anchor="end">"#);
    for (i, l) in labels.iter().enumerate() {
        let y = top + i * CELL_H + CELL_H / 2 + 4;
        let _ = writeln!(s, r#"<text x="{}" y="{y}">{}</text>"#, left - 8, escape(l));
    }
    s.push_str("</g>\n");
    let _ = writeln!(s, r#"<g class="column-labels" text-anchor="start">"#);
    for (j, l) in labels.iter().enumerate() {
        let x = left + j * CELL_W + CELL_W / 2;
        let y = top - 6;
        let _ = writeln!(
            s,
            r#"<text x="{x}" y="{y}" transform="rotate(-45 {x} {y})">{}</text>"#,
            escape(l)
        );
    }
    s.push_str("</g>\n");
}

/// One `rect` per cell (class `cell`, its pair and value in a tooltip) and its value.
fn write_cells(
    s: &mut String,
    labels: &[String],
    m: &Matrix,
    scale: Scale,
    top: usize,
    left: usize,
) {
    let _ = writeln!(s, r#"<g class="cells" text-anchor="middle">"#);
    for (i, row_label) in labels.iter().enumerate() {
        for (j, col_label) in labels.iter().enumerate() {
            let v = m.get(i, j);
            let t = scale.shade(v);
            let (x, y) = (left + j * CELL_W, top + i * CELL_H);
            let text = scale.label(v);
            let _ = writeln!(
                s,
                r##"<rect class="cell" x="{x}" y="{y}" width="{CELL_W}" height="{CELL_H}" fill="{}" stroke="#d0d0d0" stroke-width="0.5"><title>{} × {}: {text}</title></rect>"##,
                colour(t),
                escape(row_label),
                escape(col_label)
            );
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" fill="{}">{text}</text>"#,
                x + CELL_W / 2,
                y + CELL_H / 2 + 4,
                ink(t)
            );
        }
    }
    s.push_str("</g>\n");
}

/// A row of swatches, lightest first, each with its value below and the caption beside.
fn write_legend(s: &mut String, scale: Scale, left: usize, top: usize) {
    let _ = writeln!(s, r#"<g class="legend">"#);
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="{}">{}: darker is more alike</text>"#,
        top + 12,
        escape(&scale.caption())
    );
    let y = top + 20;
    for (k, &v) in scale.legend().iter().enumerate() {
        let x = left + k * CELL_W;
        let t = scale.shade(v);
        let text = scale.label(v);
        let _ = writeln!(
            s,
            r##"<rect class="swatch" x="{x}" y="{y}" width="{CELL_W}" height="{CELL_H}" fill="{}" stroke="#808080" stroke-width="0.5"/>"##,
            colour(t)
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle" fill="{}">{text}</text>"#,
            x + CELL_W / 2,
            y + CELL_H / 2 + 4,
            ink(t)
        );
    }
    s.push_str("</g>\n");
}

/// The fill of shade `t`: white to dark blue.
fn colour(t: f64) -> String {
    let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(LIGHT.0, DARK.0),
        mix(LIGHT.1, DARK.1),
        mix(LIGHT.2, DARK.2)
    )
}

/// The value's colour on shade `t`: white on the dark half, black on the light one.
fn ink(t: f64) -> &'static str {
    if t > 0.55 { "white" } else { "black" }
}

/// An id as shown: control characters as escapes (never raw in XML), characters XML 1.0
/// cannot hold replaced, and long ones shortened in the middle.
fn label(id: &str) -> String {
    let shown: String = printable(id)
        .chars()
        .map(|c| {
            if matches!(c, '\u{FFFE}' | '\u{FFFF}') {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect();
    shorten_middle(&shown, LABEL_CHARS)
}

/// Text for XML character data and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_xml_reserves() {
        assert_eq!(escape(r#"a<b>&"c"'"#), "a&lt;b&gt;&amp;&quot;c&quot;&apos;");
        assert_eq!(label("x\x1by"), "x\\ey");
        assert_eq!(label("bad\u{FFFE}"), "bad\u{FFFD}");
        let long = format!("{}/end.txt", "folder/".repeat(10));
        let l = label(&long);
        assert_eq!(l.chars().count(), LABEL_CHARS);
        assert!(l.ends_with("end.txt") && l.contains('…'), "{l}");
    }

    #[test]
    fn shades_run_light_to_dark_with_similarity() {
        let sim = Scale::Similarity { name: "exact J" };
        assert_eq!(colour(sim.shade(0.0)), "#ffffff");
        assert_eq!(colour(sim.shade(1.0)), "#08306b");
        assert_eq!(ink(sim.shade(1.0)), "white");
        assert_eq!(ink(sim.shade(0.1)), "black");
        let ham = Scale::Hamming { bits: 64 };
        assert_eq!(ham.shade(0.0), 1.0);
        assert_eq!(ham.shade(64.0), 0.0);
        assert_eq!(ham.legend(), vec![64.0, 48.0, 32.0, 16.0, 0.0]);
        assert_eq!(sim.label(0.8765), "0.88");
        assert_eq!(ham.label(7.0), "7");
    }
}
