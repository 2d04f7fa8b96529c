//! Where things go on screen. Both rendering and the views' updates (page sizes, wrapping
//! width) use these functions, so scrolling always agrees with what is drawn.

use ratatui::layout::Rect;

/// Below this the explorer shows a message instead of a squeezed layout.
pub const MIN_W: u16 = 60;
pub const MIN_H: u16 = 15;
/// From this width the tuning panel sits beside the list instead of above it.
pub const SIDE_BY_SIDE: u16 = 150;

pub fn too_small(area: Rect) -> bool {
    area.width < MIN_W || area.height < MIN_H
}

/// Title line, body, footer line.
pub struct Screen {
    pub title: Rect,
    pub body: Rect,
    pub footer: Rect,
}

pub fn screen(area: Rect) -> Screen {
    let title = Rect { height: 1, ..area };
    let footer = Rect {
        y: area.bottom().saturating_sub(1),
        height: 1.min(area.height),
        ..area
    };
    let body = Rect {
        y: area.y + 1,
        height: area.height.saturating_sub(2),
        ..area
    };
    Screen {
        title,
        body,
        footer,
    }
}

pub struct PairsAreas {
    pub tuning: Option<Rect>,
    /// The list: a title row, a header row, then pairs.
    pub list: Rect,
    /// The filter being typed or kept.
    pub filter: Option<Rect>,
}

/// Height of the tuning panel when it sits above the list.
fn tuning_height(body: Rect) -> u16 {
    (body.height * 3 / 5)
        .clamp(11, 17)
        .min(body.height.saturating_sub(5))
}

pub fn pairs(body: Rect, tuning: bool, filter: bool) -> PairsAreas {
    let mut rest = body;
    let mut tuning_area = None;
    if tuning {
        if body.width >= SIDE_BY_SIDE {
            let left = body.width * 11 / 20;
            tuning_area = Some(Rect {
                x: body.x + left,
                width: body.width - left,
                ..body
            });
            rest = Rect {
                width: left,
                ..body
            };
        } else {
            let h = tuning_height(body);
            tuning_area = Some(Rect { height: h, ..body });
            rest = Rect {
                y: body.y + h,
                height: body.height - h,
                ..body
            };
        }
    }
    let mut filter_area = None;
    if filter && rest.height > 3 {
        filter_area = Some(Rect {
            y: rest.bottom() - 1,
            height: 1,
            ..rest
        });
        rest.height -= 1;
    }
    PairsAreas {
        tuning: tuning_area,
        list: rest,
        filter: filter_area,
    }
}

/// Rows of pairs the list shows.
pub fn list_rows(list: Rect) -> usize {
    list.height.saturating_sub(2) as usize
}

pub struct DiffAreas {
    pub header: Rect,
    pub left: Rect,
    pub sep: Rect,
    pub right: Rect,
}

/// Header rows of the diff view.
pub const DIFF_HEADER: u16 = 4;

pub fn diff(body: Rect) -> DiffAreas {
    diff_with(body, DIFF_HEADER)
}

/// The diff's areas with a header of `header_rows` (one more with metadata to show).
pub fn diff_with(body: Rect, header_rows: u16) -> DiffAreas {
    let header = Rect {
        height: header_rows.min(body.height),
        ..body
    };
    let rows = Rect {
        y: body.y + header.height,
        height: body.height - header.height,
        ..body
    };
    let col = rows.width.saturating_sub(1) / 2;
    let left = Rect { width: col, ..rows };
    let sep = Rect {
        x: rows.x + col,
        width: 1.min(rows.width),
        ..rows
    };
    let right = Rect {
        x: sep.x + 1,
        width: col,
        ..rows
    };
    DiffAreas {
        header,
        left,
        sep,
        right,
    }
}

/// The full screen for a terminal size.
pub fn area(size: (u16, u16)) -> Rect {
    Rect::new(0, 0, size.0, size.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn areas_tile_the_screen_at_the_minimum_and_larger() {
        for (w, h) in [(60, 15), (80, 24), (100, 30), (200, 50)] {
            let s = screen(area((w, h)));
            assert_eq!(s.title.height + s.body.height + s.footer.height, h);
            for tuning in [false, true] {
                let p = pairs(s.body, tuning, true);
                assert!(list_rows(p.list) >= 1, "{w}x{h} tuning={tuning}");
                if let Some(t) = p.tuning {
                    assert!(t.height >= 10 || t.width >= 40, "{w}x{h}: {t:?}");
                }
            }
            let d = diff(s.body);
            assert_eq!(d.left.width, d.right.width);
            assert!(d.right.right() <= w);
        }
    }
}
