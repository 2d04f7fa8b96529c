//! Character mode: grapheme clusters, lowercased unless asked not to, each run of white
//! space one space, none at either end.
//!
//! The reference lowercases the whole text and then splits it into grapheme clusters.
//! Lowercasing is character by character but for capital sigma (its lowercase depends on
//! the letters around it), so a text without one is cut into pieces at certain grapheme
//! boundaries ([`GRAPHEMES`]): each ASCII byte of an ASCII stretch is a cluster whose hash
//! comes from a table, and only the pieces around non-ASCII characters are lowercased
//! and segmented.

use super::pieces::{GRAPHEMES, Piece, Pieces};
use crate::hash::token_hash;
use std::sync::OnceLock;
use unicode_segmentation::UnicodeSegmentation;

/// Appends the hashes of `text`'s characters to `out`.
pub(super) fn char_hashes(text: &str, keep_case: bool, out: &mut Vec<u64>) {
    let mut push = Push {
        space: token_hash(b" "),
        after_space: true,
        first: out.len(),
        out,
    };
    if !keep_case && text.contains('Σ') {
        push.clusters(&text.to_lowercase());
    } else {
        let table = &ascii_tables()[keep_case as usize];
        let mut lowered = String::new();
        for piece in Pieces::new(text, GRAPHEMES) {
            match piece {
                Piece::Fast(s) => push.ascii(s.as_bytes(), table),
                Piece::Slow(s) if keep_case => push.clusters(s),
                Piece::Slow(s) => {
                    lowered.clear();
                    lowered.extend(s.chars().flat_map(char::to_lowercase));
                    push.clusters(&lowered);
                }
            }
        }
    }
    push.trim_end();
}

/// The hashes of one-byte clusters: each ASCII byte's (lowercased, or as it is), and
/// a single space's for white space.
type AsciiTable = [u64; 128];

/// The tables lowercasing (0) and keeping case (1).
fn ascii_tables() -> &'static [AsciiTable; 2] {
    static TABLES: OnceLock<[AsciiTable; 2]> = OnceLock::new();
    TABLES.get_or_init(|| {
        let table = |keep_case: bool| {
            std::array::from_fn(|b| {
                let c = b as u8;
                if is_white(c) {
                    token_hash(b" ")
                } else if keep_case {
                    token_hash(&[c])
                } else {
                    token_hash(&[c.to_ascii_lowercase()])
                }
            })
        };
        [table(false), table(true)]
    })
}

/// Whether an ASCII byte is white space as `char::is_whitespace` says (which, unlike
/// `u8::is_ascii_whitespace`, counts the vertical tab), by table for the byte loop.
#[inline(always)]
fn is_white(b: u8) -> bool {
    static WHITE: [bool; 128] = {
        let mut t = [false; 128];
        let mut b = 0;
        while b < 128 {
            t[b] = (b as u8 as char).is_whitespace();
            b += 1;
        }
        t
    };
    WHITE[b as usize & 0x7f]
}

/// The hashes pushed so far, and whether the last was a (collapsed) space.
struct Push<'a> {
    space: u64,
    /// The last token pushed was a space, or nothing was pushed yet: both swallow further
    /// white space, which trims the start.
    after_space: bool,
    /// Where this text's tokens start in `out`.
    first: usize,
    out: &'a mut Vec<u64>,
}

impl Push<'_> {
    fn clusters(&mut self, text: &str) {
        for g in text.graphemes(true) {
            if g.chars().all(char::is_whitespace) {
                if !self.after_space {
                    self.out.push(self.space);
                    self.after_space = true;
                }
            } else {
                self.out.push(token_hash(g.as_bytes()));
                self.after_space = false;
            }
        }
    }

    /// ASCII bytes, each its own cluster (but for CR LF, which is white space and
    /// collapses anyway). Branch-free: every byte's hash is written, and the length moves
    /// on unless it is white space after white space.
    fn ascii(&mut self, s: &[u8], table: &AsciiTable) {
        let start = self.out.len();
        self.out.resize(start + s.len(), 0);
        let buf = &mut self.out[start..];
        let mut len = 0;
        let mut after_space = self.after_space;
        for &b in s {
            let white = is_white(b);
            buf[len] = table[b as usize];
            len += !(white & after_space) as usize;
            after_space = white;
        }
        self.out.truncate(start + len);
        self.after_space = after_space;
    }

    fn trim_end(&mut self) {
        if self.after_space && self.out.len() > self.first {
            self.out.pop();
        }
    }
}
