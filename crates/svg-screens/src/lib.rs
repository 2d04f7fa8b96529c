//! A ratatui [`Buffer`] written out as a standalone SVG: simtui's screenshots (the
//! ignored test `write_screenshots` of the binary draws the explorer into `screenshots/`
//! with it). A dev-dependency only: nothing here ships in the binary.
//!
//! Text is SVG text in a monospace font, each run stretched to its exact width in cells
//! (`textLength`), so a viewer's fallback font cannot shift the grid. Braille, block
//! elements and box-drawing lines are drawn as shapes instead: common monospace fonts
//! lack Braille, and a font's block and box glyphs rarely fill a 17 px row, which would
//! leave gaps between the rows of a bar or a border.

use ratatui::buffer::{Buffer, Cell, CellWidth as _};
use ratatui::style::{Color, Modifier};
use std::fmt::{self, Write as _};

/// Size of one terminal cell in pixels: a 14 px DejaVu Sans Mono advance is 8.4 px.
const CELL_W: f64 = 8.4;
const CELL_H: f64 = 17.0;
const FONT_SIZE: f64 = 14.0;
/// From the top of a cell to the text's baseline: centres 14 px text in a 17 px row.
const BASELINE: f64 = 13.0;
/// Margin around the grid, inside the rounded background.
const PAD: f64 = 12.0;
const FONT_FAMILY: &str = "'DejaVu Sans Mono', Menlo, Consolas, monospace";

const DEFAULT_FG: Rgb = Rgb(0xd4, 0xd7, 0xdc);
const DEFAULT_BG: Rgb = Rgb(0x1c, 0x1f, 0x26);

/// The 16 ANSI colours, in ratatui's order (Black .. White), tuned for the dark background.
const ANSI: [Rgb; 16] = [
    Rgb(0x2a, 0x2e, 0x38), // black: a shade above the background, so it stays visible
    Rgb(0xe0, 0x6c, 0x75), // red
    Rgb(0x98, 0xc3, 0x79), // green
    Rgb(0xe5, 0xc0, 0x7b), // yellow
    Rgb(0x61, 0xaf, 0xef), // blue
    Rgb(0xc6, 0x78, 0xdd), // magenta
    Rgb(0x56, 0xb6, 0xc2), // cyan
    Rgb(0xab, 0xb2, 0xbf), // gray (ANSI white)
    Rgb(0x6b, 0x72, 0x80), // dark gray (bright black)
    Rgb(0xff, 0x86, 0x8f), // light red
    Rgb(0xb4, 0xe3, 0x8e), // light green
    Rgb(0xf5, 0xd3, 0x8f), // light yellow
    Rgb(0x8c, 0xc8, 0xff), // light blue
    Rgb(0xdf, 0xa0, 0xf0), // light magenta
    Rgb(0x7f, 0xd8, 0xe3), // light cyan
    Rgb(0xff, 0xff, 0xff), // white
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rgb(u8, u8, u8);

impl fmt::Display for Rgb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

impl Rgb {
    /// `self` laid over `under` with opacity `alpha`: dim text and shade blocks become
    /// plain colours, so the SVG needs no transparency.
    fn over(self, under: Rgb, alpha: f64) -> Rgb {
        let mix = |a: u8, b: u8| (a as f64 * alpha + b as f64 * (1.0 - alpha)).round() as u8;
        Rgb(
            mix(self.0, under.0),
            mix(self.1, under.1),
            mix(self.2, under.2),
        )
    }
}

fn rgb(color: Color, default: Rgb) -> Rgb {
    match color {
        Color::Reset => default,
        Color::Black => ANSI[0],
        Color::Red => ANSI[1],
        Color::Green => ANSI[2],
        Color::Yellow => ANSI[3],
        Color::Blue => ANSI[4],
        Color::Magenta => ANSI[5],
        Color::Cyan => ANSI[6],
        Color::Gray => ANSI[7],
        Color::DarkGray => ANSI[8],
        Color::LightRed => ANSI[9],
        Color::LightGreen => ANSI[10],
        Color::LightYellow => ANSI[11],
        Color::LightBlue => ANSI[12],
        Color::LightMagenta => ANSI[13],
        Color::LightCyan => ANSI[14],
        Color::White => ANSI[15],
        Color::Rgb(r, g, b) => Rgb(r, g, b),
        Color::Indexed(i) => indexed(i),
    }
}

/// The xterm 256-colour table: the 16 ANSI colours, a 6×6×6 cube, 24 greys.
fn indexed(i: u8) -> Rgb {
    match i {
        0..=15 => ANSI[i as usize],
        16..=231 => {
            let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            let c = i - 16;
            Rgb(level(c / 36), level(c / 6 % 6), level(c % 6))
        }
        _ => {
            let g = 8 + 10 * (i - 232);
            Rgb(g, g, g)
        }
    }
}

/// How a cell looks once its modifiers are applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Look {
    fg: Rgb,
    bg: Rgb,
    bold: bool,
    italic: bool,
    underline: bool,
    crossed: bool,
    hidden: bool,
}

fn look(cell: &Cell) -> Look {
    let m = cell.modifier;
    let mut fg = rgb(cell.fg, DEFAULT_FG);
    let mut bg = rgb(cell.bg, DEFAULT_BG);
    if m.contains(Modifier::REVERSED) {
        std::mem::swap(&mut fg, &mut bg);
    }
    if m.contains(Modifier::DIM) {
        fg = fg.over(bg, 0.55);
    }
    Look {
        fg,
        bg,
        bold: m.contains(Modifier::BOLD),
        italic: m.contains(Modifier::ITALIC),
        underline: m.contains(Modifier::UNDERLINED),
        crossed: m.contains(Modifier::CROSSED_OUT),
        hidden: m.contains(Modifier::HIDDEN),
    }
}

/// One visible symbol: a cell, or a wide cell with the continuation cell(s) it covers.
struct Glyph<'a> {
    col: u16,
    row: u16,
    /// Columns covered: 2 for a wide (CJK) symbol.
    cells: u16,
    symbol: &'a str,
    look: Look,
}

impl Glyph<'_> {
    fn x(&self) -> f64 {
        PAD + self.col as f64 * CELL_W
    }
    fn y(&self) -> f64 {
        PAD + self.row as f64 * CELL_H
    }
    fn w(&self) -> f64 {
        self.cells as f64 * CELL_W
    }
    fn blank(&self) -> bool {
        self.look.hidden || self.symbol.trim().is_empty()
    }
}

/// The buffer's glyphs row by row. A wide symbol covers the next cell, which ratatui
/// leaves holding a stale or blank symbol: it is skipped, as a terminal would.
fn glyphs(buf: &Buffer) -> Vec<Glyph<'_>> {
    let a = buf.area;
    let mut out = Vec::with_capacity(a.area() as usize);
    for row in 0..a.height {
        let mut col = 0;
        while col < a.width {
            let cell = &buf[(a.x + col, a.y + row)];
            let symbol = cell.symbol();
            let cells = symbol.cell_width().clamp(1, a.width - col);
            out.push(Glyph {
                col,
                row,
                cells,
                symbol,
                look: look(cell),
            });
            col += cells;
        }
    }
    out
}

/// Numbers for SVG attributes: at most two decimals, no trailing zeros.
fn num(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            // XML 1.0 forbids most control characters, even escaped.
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// What a symbol becomes in the SVG.
enum Shape {
    Text,
    /// The dot bits of a Braille pattern (U+2800 + bits).
    Braille(u8),
    /// Rectangles as fractions of the cell (x0, y0, x1, y1), in the foreground colour
    /// laid over the background with the given opacity (the shades ░▒▓).
    Block(Vec<[f64; 4]>, f64),
    /// Box-drawing arms from the centre: [up, right, down, left], 0 none, 1 light, 2 heavy.
    Lines([u8; 4]),
    /// A rounded corner joining two arms (directions as in `Lines`).
    Arc(usize, usize),
    /// A dashed light or heavy line, vertical or not, with this many dashes.
    Dashed {
        vertical: bool,
        heavy: bool,
        dashes: u8,
    },
}

fn shape(symbol: &str) -> Shape {
    let mut chars = symbol.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return Shape::Text;
    };
    match c as u32 {
        0x2800..=0x28FF => Shape::Braille((c as u32 - 0x2800) as u8),
        0x2580..=0x259F => block(c as u32 - 0x2580),
        0x2500..=0x257F => box_drawing(c),
        _ => Shape::Text,
    }
}

/// Block elements U+2580–U+259F, by offset from U+2580.
fn block(i: u32) -> Shape {
    let eighth = |n: u32| n as f64 / 8.0;
    let rects = |r: Vec<[f64; 4]>| Shape::Block(r, 1.0);
    match i {
        0x00 => rects(vec![[0.0, 0.0, 1.0, 0.5]]),
        // Lower one to seven eighths, and the full block.
        0x01..=0x08 => rects(vec![[0.0, 1.0 - eighth(i), 1.0, 1.0]]),
        // Left seven eighths down to one eighth.
        0x09..=0x0F => rects(vec![[0.0, 0.0, eighth(16 - i), 1.0]]),
        0x10 => rects(vec![[0.5, 0.0, 1.0, 1.0]]),
        0x11..=0x13 => Shape::Block(vec![[0.0, 0.0, 1.0, 1.0]], (i - 0x10) as f64 * 0.25),
        0x14 => rects(vec![[0.0, 0.0, 1.0, 0.125]]),
        0x15 => rects(vec![[0.875, 0.0, 1.0, 1.0]]),
        _ => rects(quadrants(i)),
    }
}

/// Quadrant blocks U+2596–U+259F: which of the four quarters are filled.
fn quadrants(i: u32) -> Vec<[f64; 4]> {
    const UL: u8 = 1;
    const UR: u8 = 2;
    const LL: u8 = 4;
    const LR: u8 = 8;
    const TABLE: [u8; 10] = [
        LL,
        LR,
        UL,
        UL | LL | LR,
        UL | LR,
        UL | UR | LL,
        UL | UR | LR,
        UR,
        UR | LL,
        UR | LL | LR,
    ];
    let mask = TABLE[(i - 0x16) as usize];
    [
        (UL, [0.0, 0.0, 0.5, 0.5]),
        (UR, [0.5, 0.0, 1.0, 0.5]),
        (LL, [0.0, 0.5, 0.5, 1.0]),
        (LR, [0.5, 0.5, 1.0, 1.0]),
    ]
    .into_iter()
    .filter(|(bit, _)| mask & bit != 0)
    .map(|(_, r)| r)
    .collect()
}

/// The box-drawing characters ratatui's borders and charts use; others stay text.
fn box_drawing(c: char) -> Shape {
    const UP: usize = 0;
    const RIGHT: usize = 1;
    const DOWN: usize = 2;
    const LEFT: usize = 3;
    let arms = match c {
        '─' => [0, 1, 0, 1],
        '━' => [0, 2, 0, 2],
        '│' => [1, 0, 1, 0],
        '┃' => [2, 0, 2, 0],
        '┌' => [0, 1, 1, 0],
        '┐' => [0, 0, 1, 1],
        '└' => [1, 1, 0, 0],
        '┘' => [1, 0, 0, 1],
        '├' => [1, 1, 1, 0],
        '┤' => [1, 0, 1, 1],
        '┬' => [0, 1, 1, 1],
        '┴' => [1, 1, 0, 1],
        '┼' => [1, 1, 1, 1],
        '┏' => [0, 2, 2, 0],
        '┓' => [0, 0, 2, 2],
        '┗' => [2, 2, 0, 0],
        '┛' => [2, 0, 0, 2],
        '┣' => [2, 2, 2, 0],
        '┫' => [2, 0, 2, 2],
        '┳' => [0, 2, 2, 2],
        '┻' => [2, 2, 0, 2],
        '╋' => [2, 2, 2, 2],
        '╴' => [0, 0, 0, 1],
        '╵' => [1, 0, 0, 0],
        '╶' => [0, 1, 0, 0],
        '╷' => [0, 0, 1, 0],
        '╭' => return Shape::Arc(DOWN, RIGHT),
        '╮' => return Shape::Arc(DOWN, LEFT),
        '╯' => return Shape::Arc(UP, LEFT),
        '╰' => return Shape::Arc(UP, RIGHT),
        '┄'..='┋' => {
            let i = c as u32 - '┄' as u32;
            return Shape::Dashed {
                vertical: i / 2 % 2 == 1,
                heavy: i % 2 == 1,
                dashes: if i < 4 { 3 } else { 4 },
            };
        }
        _ => return Shape::Text,
    };
    Shape::Lines(arms)
}

/// Stroke widths of light and heavy box lines.
const LIGHT: f64 = 1.2;
const HEAVY: f64 = 2.6;
/// Box lines reach this far into the neighbouring cell, so two abutting lines do not
/// show an anti-aliased seam.
const OVERLAP: f64 = 0.5;

/// Unit vectors of the four arm directions (SVG's y grows downwards).
const DIRS: [(f64, f64); 4] = [(0.0, -1.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)];

/// The SVG of a whole buffer: background, cell backgrounds, shapes, then text on top.
pub fn to_svg(buf: &Buffer) -> String {
    let glyphs = glyphs(buf);
    let w = PAD * 2.0 + buf.area.width as f64 * CELL_W;
    let h = PAD * 2.0 + buf.area.height as f64 * CELL_H;
    let mut out = String::new();
    // Writing to a String cannot fail: the results of `write!` are ignored below.
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" xml:space="preserve">"#,
        w = num(w),
        h = num(h)
    );
    let _ = writeln!(
        out,
        r#"<rect width="{}" height="{}" rx="8" fill="{DEFAULT_BG}"/>"#,
        num(w),
        num(h)
    );
    // Straight shapes without anti-aliasing: rectangles and lines of neighbouring cells
    // then meet without faint seams (or darker overlaps) between them.
    out.push_str("<g shape-rendering=\"crispEdges\">\n");
    backgrounds(&glyphs, &mut out);
    decorations(&glyphs, &mut out);
    draw_shapes(&glyphs, true, &mut out);
    out.push_str("</g>\n");
    draw_shapes(&glyphs, false, &mut out);
    let _ = writeln!(
        out,
        r#"<g font-family="{FONT_FAMILY}" font-size="{}" style="white-space:pre">"#,
        num(FONT_SIZE)
    );
    texts(&glyphs, &mut out);
    out.push_str("</g>\n</svg>\n");
    out
}

/// Runs of consecutive glyphs in one row that share a key; `None` breaks a run.
fn runs<'g, 'a, K: PartialEq>(
    glyphs: &'g [Glyph<'a>],
    key: impl Fn(&Glyph) -> Option<K>,
) -> Vec<&'g [Glyph<'a>]> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < glyphs.len() {
        let Some(k) = key(&glyphs[start]) else {
            start += 1;
            continue;
        };
        let mut end = start + 1;
        while end < glyphs.len()
            && glyphs[end].row == glyphs[start].row
            && key(&glyphs[end]).as_ref() == Some(&k)
        {
            end += 1;
        }
        out.push(&glyphs[start..end]);
        start = end;
    }
    out
}

fn span_width(run: &[Glyph]) -> f64 {
    run.iter().map(Glyph::w).sum()
}

fn rect(out: &mut String, x: f64, y: f64, w: f64, h: f64, fill: Rgb) {
    let _ = writeln!(
        out,
        r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{fill}"/>"#,
        num(x),
        num(y),
        num(w),
        num(h)
    );
}

/// One rectangle per run of equal, non-default background.
fn backgrounds(glyphs: &[Glyph], out: &mut String) {
    for run in runs(glyphs, |g| Some(g.look.bg).filter(|&bg| bg != DEFAULT_BG)) {
        let g = &run[0];
        rect(out, g.x(), g.y(), span_width(run), CELL_H, g.look.bg);
    }
}

/// Underline and strike-through as thin rectangles: a font's own decoration would
/// stop at the text's end and vary with the font.
fn decorations(glyphs: &[Glyph], out: &mut String) {
    decoration(glyphs, CELL_H - 2.0, |l| l.underline, out);
    decoration(glyphs, CELL_H / 2.0, |l| l.crossed, out);
}

/// A 1 px line `dy` below the top of the cells, per run of one colour where `on` holds.
fn decoration(glyphs: &[Glyph], dy: f64, on: impl Fn(&Look) -> bool, out: &mut String) {
    for run in runs(glyphs, |g| Some(g.look.fg).filter(|_| on(&g.look))) {
        let g = &run[0];
        rect(out, g.x(), g.y() + dy, span_width(run), 1.0, g.look.fg);
    }
}

/// The shapes of straight (`crisp`) or round symbols.
fn draw_shapes(glyphs: &[Glyph], crisp: bool, out: &mut String) {
    for g in glyphs.iter().filter(|g| !g.look.hidden) {
        let shape = shape(g.symbol);
        let straight = matches!(
            shape,
            Shape::Block(..) | Shape::Lines(_) | Shape::Dashed { .. }
        );
        if straight == crisp {
            draw_shape(g, shape, out);
        }
    }
}

fn draw_shape(g: &Glyph, shape: Shape, out: &mut String) {
    match shape {
        Shape::Text => {}
        Shape::Braille(bits) => braille(g, bits, out),
        Shape::Block(rects, alpha) => {
            let fill = g.look.fg.over(g.look.bg, alpha);
            let _ = writeln!(out, r#"<g fill="{fill}">"#);
            for [x0, y0, x1, y1] in rects {
                let (w, h) = (g.w(), CELL_H);
                let _ = writeln!(
                    out,
                    r#"<rect x="{}" y="{}" width="{}" height="{}"/>"#,
                    num(g.x() + x0 * w),
                    num(g.y() + y0 * h),
                    num((x1 - x0) * w),
                    num((y1 - y0) * h)
                );
            }
            out.push_str("</g>\n");
        }
        Shape::Lines(arms) => box_lines(g, arms, out),
        Shape::Arc(a, b) => arc(g, a, b, out),
        Shape::Dashed {
            vertical,
            heavy,
            dashes,
        } => dashed(g, vertical, heavy, dashes, out),
    }
}

/// A Braille cell is 2 dots wide and 4 high. Bits 0–2 are the left column's top three
/// dots, bits 3–5 the right column's, bits 6 and 7 the bottom dots (left, right).
fn braille(g: &Glyph, bits: u8, out: &mut String) {
    const DOTS: [(u8, u8); 8] = [
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 0),
        (1, 1),
        (1, 2),
        (0, 3),
        (1, 3),
    ];
    if bits == 0 {
        return;
    }
    let _ = writeln!(out, r#"<g fill="{}">"#, g.look.fg);
    for (bit, &(col, row)) in DOTS.iter().enumerate() {
        if bits & (1 << bit) == 0 {
            continue;
        }
        let cx = g.x() + CELL_W * (1.0 + 2.0 * col as f64) / 4.0;
        let cy = g.y() + CELL_H * (1.0 + 2.0 * row as f64) / 8.0;
        let _ = writeln!(
            out,
            r#"<circle cx="{}" cy="{}" r="1.5"/>"#,
            num(cx),
            num(cy)
        );
    }
    out.push_str("</g>\n");
}

fn centre(g: &Glyph) -> (f64, f64) {
    (g.x() + CELL_W / 2.0, g.y() + CELL_H / 2.0)
}

/// The point where an arm from the centre leaves the cell, plus the overlap.
fn edge(g: &Glyph, dir: usize) -> (f64, f64) {
    let (cx, cy) = centre(g);
    let (dx, dy) = DIRS[dir];
    (
        cx + dx * (CELL_W / 2.0 + OVERLAP),
        cy + dy * (CELL_H / 2.0 + OVERLAP),
    )
}

fn stroke(heavy: bool) -> f64 {
    if heavy { HEAVY } else { LIGHT }
}

fn line(out: &mut String, from: (f64, f64), to: (f64, f64), color: Rgb, width: f64) {
    let _ = writeln!(
        out,
        r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{color}" stroke-width="{}"/>"#,
        num(from.0),
        num(from.1),
        num(to.0),
        num(to.1),
        num(width)
    );
}

/// Each arm runs from the edge to just past the centre (half the widest stroke), so
/// corners and junctions close without a notch.
fn box_lines(g: &Glyph, arms: [u8; 4], out: &mut String) {
    let widest = arms.iter().map(|&a| stroke(a == 2)).fold(0.0, f64::max);
    let (cx, cy) = centre(g);
    for (dir, &weight) in arms.iter().enumerate() {
        if weight == 0 {
            continue;
        }
        let (dx, dy) = DIRS[dir];
        let start = (cx - dx * widest / 2.0, cy - dy * widest / 2.0);
        line(out, start, edge(g, dir), g.look.fg, stroke(weight == 2));
    }
}

/// A rounded corner: straight from one edge, a quarter curve through the centre's
/// corner, straight to the other edge.
fn arc(g: &Glyph, a: usize, b: usize, out: &mut String) {
    let (cx, cy) = centre(g);
    let r = CELL_W / 2.0;
    let near = |d: usize| (cx + DIRS[d].0 * r, cy + DIRS[d].1 * r);
    let (ea, na, nb, eb) = (edge(g, a), near(a), near(b), edge(g, b));
    let _ = writeln!(
        out,
        r#"<path d="M{} {}L{} {}Q{} {} {} {}L{} {}" fill="none" stroke="{}" stroke-width="{}"/>"#,
        num(ea.0),
        num(ea.1),
        num(na.0),
        num(na.1),
        num(cx),
        num(cy),
        num(nb.0),
        num(nb.1),
        num(eb.0),
        num(eb.1),
        g.look.fg,
        num(LIGHT)
    );
}

fn dashed(g: &Glyph, vertical: bool, heavy: bool, dashes: u8, out: &mut String) {
    let (cx, cy) = centre(g);
    let (len, from, to) = if vertical {
        (CELL_H, (cx, g.y()), (cx, g.y() + CELL_H))
    } else {
        (CELL_W, (g.x(), cy), (g.x() + CELL_W, cy))
    };
    // Dashes and gaps of equal length, a half gap at each end.
    let step = len / dashes as f64;
    let _ = writeln!(
        out,
        r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}" stroke-dasharray="{} {}" stroke-dashoffset="{}"/>"#,
        num(from.0),
        num(from.1),
        num(to.0),
        num(to.1),
        g.look.fg,
        num(stroke(heavy)),
        num(step / 2.0),
        num(step / 2.0),
        num(-step / 4.0)
    );
}

/// The text key of a glyph: what must match for glyphs to share one `<text>`.
#[derive(PartialEq)]
struct TextKey {
    fg: Rgb,
    bold: bool,
    italic: bool,
}

/// Text runs of one colour and weight; blank cells inside a run are kept (as spaces),
/// blank cells at its ends are left out, and shapes break runs.
fn texts(glyphs: &[Glyph], out: &mut String) {
    let key = |g: &Glyph| {
        matches!(shape(g.symbol), Shape::Text).then_some(TextKey {
            fg: g.look.fg,
            bold: g.look.bold,
            italic: g.look.italic,
        })
    };
    for run in runs(glyphs, key) {
        let Some(first) = run.iter().position(|g| !g.blank()) else {
            continue;
        };
        let last = run.iter().rposition(|g| !g.blank()).unwrap_or(first);
        text(&run[first..=last], out);
    }
}

fn text(run: &[Glyph], out: &mut String) {
    let g = &run[0];
    let content: String = run
        .iter()
        .map(|g| if g.blank() { " " } else { g.symbol })
        .collect();
    let mut attrs = format!(r#"fill="{}""#, g.look.fg);
    if g.look.bold {
        attrs.push_str(r#" font-weight="bold""#);
    }
    if g.look.italic {
        attrs.push_str(r#" font-style="italic""#);
    }
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" textLength="{}" {attrs}>{}</text>"#,
        num(g.x()),
        num(g.y() + BASELINE),
        num(span_width(run)),
        escape(&content)
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    fn svg_of(width: u16, text: &str, style: Style) -> String {
        let mut buf = Buffer::empty(Rect::new(0, 0, width, 1));
        buf.set_string(0, 0, text, style);
        to_svg(&buf)
    }

    /// The `<text>` elements' (x, content) pairs.
    fn text_elements(svg: &str) -> Vec<(String, String)> {
        svg.lines()
            .filter(|l| l.starts_with("<text"))
            .map(|l| {
                let x = l.split("x=\"").nth(1).unwrap().split('"').next().unwrap();
                let body = l.split('>').nth(1).unwrap().split("</text").next().unwrap();
                (x.to_string(), body.to_string())
            })
            .collect()
    }

    #[test]
    fn braille_cells_become_dots() {
        let full = svg_of(3, "⣿", Style::new());
        assert_eq!(full.matches("<circle").count(), 8, "{full}");
        assert!(!full.contains('⣿'), "Braille must not be left to the font");
        // ⢁: dot 1 (top left) and dot 8 (bottom right).
        let two = svg_of(3, "⢁", Style::new());
        let expect_top_left = format!(r#"cx="{}" cy="{}""#, num(PAD + 2.1), num(PAD + 2.125));
        let expect_bottom_right = format!(r#"cx="{}" cy="{}""#, num(PAD + 6.3), num(PAD + 14.875));
        assert_eq!(two.matches("<circle").count(), 2, "{two}");
        assert!(two.contains(&expect_top_left), "{two}");
        assert!(two.contains(&expect_bottom_right), "{two}");
        // The blank pattern draws nothing.
        assert_eq!(svg_of(3, "⠀", Style::new()).matches("<circle").count(), 0);
    }

    #[test]
    fn block_elements_become_rectangles() {
        let full = svg_of(2, "█", Style::new().fg(Color::Green));
        let want = format!(
            r#"<rect x="{p}" y="{p}" width="8.4" height="17"/>"#,
            p = num(PAD)
        );
        assert!(full.contains(&want), "{full}");
        assert!(
            full.contains(&format!(r#"<g fill="{}""#, ANSI[2])),
            "{full}"
        );
        assert!(!full.contains('█'));
        // ▄ covers the lower half only.
        let lower = svg_of(2, "▄", Style::new());
        let want = format!(
            r#"<rect x="{}" y="{}" width="8.4" height="8.5"/>"#,
            num(PAD),
            num(PAD + 8.5)
        );
        assert!(lower.contains(&want), "{lower}");
        // ▞ is two quadrants.
        let quad = svg_of(2, "▞", Style::new());
        assert_eq!(quad.matches("height=\"8.5\"").count(), 2, "{quad}");
    }

    #[test]
    fn markup_characters_are_escaped() {
        let svg = svg_of(10, "a<b&c>\"d", Style::new());
        assert!(svg.contains(">a&lt;b&amp;c&gt;&quot;d</text>"), "{svg}");
        assert!(!svg.contains("a<b"), "{svg}");
    }

    #[test]
    fn reversed_swaps_foreground_and_background() {
        let style = Style::new()
            .fg(Color::Red)
            .bg(Color::Blue)
            .add_modifier(Modifier::REVERSED);
        let svg = svg_of(1, "x", style);
        // The cell's background is the red foreground; the letter is blue.
        assert!(
            svg.contains(&format!(r#"height="17" fill="{}""#, ANSI[1])),
            "{svg}"
        );
        assert!(
            svg.contains(&format!(r#"fill="{}">x</text>"#, ANSI[4])),
            "{svg}"
        );
        // Reset colours swap too: the selection bar of a colourless theme.
        let plain = svg_of(1, "y", Style::new().add_modifier(Modifier::REVERSED));
        assert!(
            plain.contains(&format!(r#"fill="{DEFAULT_FG}"/>"#)),
            "{plain}"
        );
        assert!(
            plain.contains(&format!(r#"fill="{DEFAULT_BG}">y</text>"#)),
            "{plain}"
        );
    }

    #[test]
    fn a_wide_character_covers_two_cells() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 4, 1));
        buf.set_string(0, 0, "漢", Style::new().fg(Color::Red));
        // A backend's buffer can keep a stale symbol in the covered cell: never drawn.
        buf[(1, 0)].set_symbol("z");
        buf.set_string(2, 0, "x", Style::new().fg(Color::Green));
        let svg = to_svg(&buf);
        let texts = text_elements(&svg);
        let x_at = |cols: f64| num(PAD + cols * CELL_W);
        assert_eq!(
            texts,
            vec![(x_at(0.0), "漢".into()), (x_at(2.0), "x".into())],
            "{svg}"
        );
        assert!(svg.contains(r#"textLength="16.8""#), "{svg}");
    }

    #[test]
    fn box_lines_are_drawn_and_colours_map_to_hex() {
        let svg = svg_of(3, "┌─┐", Style::new().fg(Color::Indexed(196)));
        assert_eq!(svg.matches("<line").count(), 6, "{svg}");
        assert!(svg.contains(r##"stroke="#ff0000""##), "{svg}");
        assert_eq!(indexed(232), Rgb(8, 8, 8));
        assert_eq!(indexed(16), Rgb(0, 0, 0));
        assert_eq!(rgb(Color::Rgb(1, 2, 3), DEFAULT_FG).to_string(), "#010203");
        assert_eq!(rgb(Color::Reset, DEFAULT_BG), DEFAULT_BG);
    }

    #[test]
    fn equal_backgrounds_merge_into_one_rectangle() {
        let svg = svg_of(8, "ab  cd", Style::new().bg(Color::Blue));
        assert_eq!(
            svg.matches(&format!("fill=\"{}\"/>", ANSI[4])).count(),
            1,
            "{svg}"
        );
        assert!(svg.contains(r#"width="50.4""#), "{svg}");
        // Inner blanks stay inside one run of text.
        assert_eq!(text_elements(&svg), vec![(num(PAD), "ab  cd".into())]);
    }
}
