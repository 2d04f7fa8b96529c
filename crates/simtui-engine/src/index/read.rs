//! The build's first pass: each batch of the corpus read, tokenised and shingled in
//! parallel (and sketched as it is read when the sets are not kept), and the wall time
//! of the pass shared between the stages.

use super::Params;
use crate::shingle::{content_hash, shingle_set};
use crate::sketch::Sketcher;
use crate::sketch::simhash::fingerprint::{Digest, SimHasher};
use crate::source::{Entry, Item, Labels, Skipped, extract_item};
use crate::text::{TextOptions, Tokenizer};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A document read and shingled (with its SimHash digest when asked for), or why not.
pub(super) type ReadDoc = Result<(Entry, Labels, Shingled, Option<Digest>), Skipped>;

/// Reads and shingles a batch in parallel, in order. Each item is read and shingled on the
/// same thread, so its text is tokenised while still in cache and no thread waits for a
/// whole batch to be read first.
pub(super) fn read_and_shingle(
    batch: Vec<Item>,
    params: &Params,
    simhash: Option<&SimHasher>,
    sketch: Option<&Sketcher>,
    clock: &StageClock,
) -> Vec<ReadDoc> {
    batch
        .into_par_iter()
        .map_init(
            || (Tokenizer::new(&params.text), Vec::new()),
            |(tok, buf), item| {
                let t0 = Instant::now();
                let read = extract_item(item, params.max_bytes);
                let t1 = Instant::now();
                let mut sketched = Duration::ZERO;
                let out = read.map(|(entry, text, labels)| {
                    let mut s = shingle_doc(&text, tok, buf, params.k);
                    if params.min_words > 0 {
                        s.words = count_words(&text, tok.options(), s.tokens);
                    }
                    // `buf` still holds the document's token stream.
                    let digest = simhash.map(|h| h.digest(buf));
                    if let Some(sketcher) = sketch {
                        // The set is made again when verified: only its sketch is kept.
                        let t = Instant::now();
                        s.row = Some(sketcher.sketch(&s.set));
                        s.set = Vec::new();
                        sketched = t.elapsed();
                    }
                    (entry, labels, s, digest)
                });
                clock.add(t1 - t0, t1.elapsed() - sketched, sketched);
                out
            },
        )
        .collect()
}

/// Time the threads of a pass spent reading, shingling (and merging) and sketching (when
/// documents are sketched as they are read), to share the pass's wall time between the
/// stages in proportion.
#[derive(Default)]
pub(super) struct StageClock {
    read: AtomicU64,
    shingle: AtomicU64,
    sketch: AtomicU64,
}

impl StageClock {
    pub(super) fn add(&self, read: Duration, shingle: Duration, sketch: Duration) {
        for (total, d) in [
            (&self.read, read),
            (&self.shingle, shingle),
            (&self.sketch, sketch),
        ] {
            total.fetch_add(d.as_nanos() as u64, Ordering::Relaxed);
        }
    }

    /// `wall` split into (read, shingle, sketch) in proportion to the time spent in each.
    pub(super) fn split(&self, wall: Duration) -> (Duration, Duration, Duration) {
        let [read, shingle, sketch] =
            [&self.read, &self.shingle, &self.sketch].map(|t| t.load(Ordering::Relaxed) as f64);
        let all = read + shingle + sketch;
        if all == 0.0 {
            return (wall / 2, wall - wall / 2, Duration::ZERO);
        }
        let (read, sketch) = (wall.mul_f64(read / all), wall.mul_f64(sketch / all));
        (read, wall.saturating_sub(read + sketch), sketch)
    }
}

/// A document shingled: what the index keeps of it.
pub(super) struct Shingled {
    /// Size of the decoded text in bytes.
    pub(super) bytes: u64,
    /// The content hash of its token stream (what makes documents identical).
    pub(super) content: u64,
    pub(super) tokens: u64,
    /// Words, for `--min-words` (the tokens in word mode).
    pub(super) words: u64,
    /// Its shingles: the set, emptied once sketched when sets are not kept, and
    /// their number.
    pub(super) set: Vec<u64>,
    pub(super) size: usize,
    /// Its signature, when documents are sketched as they are read.
    pub(super) row: Option<Vec<u32>>,
}

pub(super) fn shingle_doc(
    text: &str,
    tok: &mut Tokenizer,
    buf: &mut Vec<u64>,
    k: usize,
) -> Shingled {
    buf.clear();
    tok.token_hashes(text, buf);
    let mut set = Vec::new();
    shingle_set(buf, k, &mut set);
    Shingled {
        bytes: text.len() as u64,
        content: content_hash(buf),
        tokens: buf.len() as u64,
        words: buf.len() as u64,
        size: set.len(),
        set,
        row: None,
    }
}

/// The words of a text as `--min-words` counts them: its tokens in word mode (after stop
/// words are dropped, if they are), its Unicode words in character mode.
pub(super) fn count_words(text: &str, opts: &TextOptions, tokens: u64) -> u64 {
    use unicode_segmentation::UnicodeSegmentation;
    match opts.unit {
        crate::text::Unit::Word => tokens,
        crate::text::Unit::Char => text.unicode_words().count() as u64,
    }
}
