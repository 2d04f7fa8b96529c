//! Small text helpers shared by the views: numbers, sizes, durations, and fitting
//! untrusted strings (file names) into a number of terminal columns.

pub use crate::output::width::{clean, grapheme_width, shorten_middle, width};
use std::time::Duration;
use unicode_segmentation::UnicodeSegmentation;

/// 1234567 → "1,234,567".
pub fn count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A count and its noun, singular for one: "1 word", "1,234 words".
pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", count(n), if n == 1 { one } else { many })
}

/// A byte size: "912 B", "12.3 KB", "4.5 MB".
pub fn bytes(n: u64) -> String {
    match n {
        0..1_000 => format!("{n} B"),
        1_000..1_000_000 => format!("{:.1} KB", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", n as f64 / 1e6),
        _ => format!("{:.1} GB", n as f64 / 1e9),
    }
}

/// A duration for people: "0.4 s", "12 s", "3:05", "1:02:03".
pub fn duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 10.0 {
        format!("{s:.1} s")
    } else if s < 60.0 {
        format!("{s:.0} s")
    } else {
        let t = s as u64;
        if t < 3600 {
            format!("{}:{:02}", t / 60, t % 60)
        } else {
            format!("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60)
        }
    }
}

/// A rate: "850/s", "12.3k/s", "4.1M/s".
pub fn rate(per_sec: f64) -> String {
    if per_sec >= 1e6 {
        format!("{:.1}M/s", per_sec / 1e6)
    } else if per_sec >= 1e4 {
        format!("{:.1}k/s", per_sec / 1e3)
    } else {
        format!("{per_sec:.0}/s")
    }
}

/// Fits `s` (already clean) into `max` columns, its end replaced by '…' if it is wider:
/// the start of a title is what tells it.
pub fn truncate(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    let mut out = pad(s, max.saturating_sub(1)).trim_end().to_string();
    if max > 0 {
        out.push('…');
    }
    out
}

/// A document's id and title in a column `columns` wide: the id whole if it takes at most
/// two thirds of the column (else shortened in the middle), then the title in what is
/// left, when that is worth showing (at least 6 columns). The title starts with a space.
/// Both are clean (no control characters).
pub fn id_and_title(id: &str, title: &str, columns: usize) -> (String, String) {
    let id = clean(id);
    let id = if width(&id) <= columns {
        id
    } else {
        shorten_middle(&id, columns)
    };
    let id_max = (columns * 2 / 3).max(columns.min(12));
    let id = if width(&id) > id_max && !title.is_empty() {
        shorten_middle(&id, id_max)
    } else {
        id
    };
    let room = columns.saturating_sub(width(&id) + 1);
    let title = clean(title);
    if room < 6 || title.is_empty() {
        return (id, String::new());
    }
    (id, format!(" {}", truncate(&title, room)))
}

/// Pads or cuts `s` (already clean) to exactly `w` columns, left-aligned.
pub fn pad(s: &str, w: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for g in s.graphemes(true) {
        let gw = grapheme_width(g);
        if used + gw > w {
            break;
        }
        used += gw;
        out.push_str(g);
    }
    out.extend(std::iter::repeat_n(' ', w - used));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_sizes() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(1234567), "1,234,567");
        assert_eq!(bytes(912), "912 B");
        assert_eq!(bytes(12_345), "12.3 KB");
        assert_eq!(duration(Duration::from_millis(420)), "0.4 s");
        assert_eq!(duration(Duration::from_secs(185)), "3:05");
    }

    #[test]
    fn shorten_keeps_both_ends_and_fits() {
        assert_eq!(shorten_middle("short.txt", 20), "short.txt");
        let s = shorten_middle("licenses/very/long/folder/MIT-0.txt", 16);
        assert_eq!(width(&s), 16, "{s}");
        assert!(s.starts_with("licens"), "{s}");
        assert!(s.ends_with("MIT-0.txt"), "{s}");
        assert!(s.contains('…'));
        // Wide characters never overflow.
        let s = shorten_middle("日本語のファイル名はとても長い.txt", 11);
        assert!(width(&s) <= 11, "{s}");
        // Escape sequences in names are neutralised.
        assert_eq!(clean("a\x1b[2Jb"), "a\u{FFFD}[2Jb");
    }

    #[test]
    fn truncate_fits_with_an_ellipsis() {
        assert_eq!(truncate("short", 5), "short");
        assert_eq!(truncate("a longer title", 8), "a longe…");
        assert!(width(&truncate("日本語のタイトル", 5)) <= 5);
        assert_eq!(truncate("abc", 0), "");
    }

    #[test]
    fn pad_is_exact() {
        assert_eq!(pad("ab", 4), "ab  ");
        assert_eq!(pad("abcdef", 3), "abc");
        assert_eq!(width(&pad("日本語", 5)), 5);
    }
}
