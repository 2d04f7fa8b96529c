//! The build's first pass: each batch of the corpus read, tokenised and shingled in
//! parallel (and sketched as it is read when the sets are not kept), and the wall time
//! of the pass shared between the stages.

use super::Params;
use crate::shingle::{Distinct, content_hash, shingle_set};
use crate::sketch::Sketcher;
use crate::sketch::simhash::fingerprint::{Digest, SimHasher};
use crate::source::{Entry, Item, Labels, Opener, Skipped, extract_item};
use crate::text::{TextOptions, Tokenizer};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A document read and shingled (with its SimHash digest when asked for), or why not.
pub(super) type ReadDoc = Result<(Entry, Labels, Shingled, Option<Digest>), Skipped>;

/// Reads and shingles a batch in parallel, in order, with the documents' labels when
/// `labels`. Each item is read and shingled on the same thread, so its text is tokenised
/// while still in cache and no thread waits for a whole batch to be read first.
pub(super) fn read_and_shingle(
    batch: Vec<Item>,
    params: &Params,
    labels: bool,
    simhash: Option<&SimHasher>,
    sketch: Option<&Sketcher>,
    clock: &StageClock,
) -> Vec<ReadDoc> {
    batch
        .into_par_iter()
        .map_init(
            || Scratch::new(params),
            |w, item| {
                let t0 = Instant::now();
                let read = extract_item(item, params.max_bytes, labels, &mut w.opener);
                let t1 = Instant::now();
                let mut sketched = Duration::ZERO;
                let out = read.map(|(entry, text, labels)| {
                    let mut s = w.shingle(&text, params.k, sketch, &mut sketched);
                    if params.min_words > 0 {
                        s.words = count_words(&text, w.tok.options(), s.tokens);
                    }
                    // `tokens` still holds the document's token stream.
                    let digest = simhash.map(|h| h.digest(&w.tokens));
                    (entry, labels, s, digest)
                });
                clock.add(t1 - t0, t1.elapsed() - sketched, sketched);
                out
            },
        )
        .collect()
}

/// What one thread reuses from one document to the next.
struct Scratch {
    tok: Tokenizer,
    /// The token stream of the document at hand.
    tokens: Vec<u64>,
    /// Its distinct shingles, when it is sketched as it is read.
    shingles: Vec<u64>,
    distinct: Distinct,
    /// The folder of the last file read, held open for the next of the same folder.
    opener: Opener,
}

impl Scratch {
    fn new(params: &Params) -> Scratch {
        Scratch {
            tok: Tokenizer::new(&params.text),
            tokens: Vec::new(),
            shingles: Vec::new(),
            distinct: Distinct::new(),
            opener: Opener::new(),
        }
    }

    /// A document tokenised and shingled: its set, or, when `sketch` is given, its
    /// signature and the size of its set (the set itself is made again when verified),
    /// adding the time the sketch took to `sketched`.
    fn shingle(
        &mut self,
        text: &str,
        k: usize,
        sketch: Option<&Sketcher>,
        sketched: &mut Duration,
    ) -> Shingled {
        let Some(sketcher) = sketch else {
            return shingle_doc(text, &mut self.tok, &mut self.tokens, k);
        };
        self.tokens.clear();
        self.tok.token_hashes(text, &mut self.tokens);
        // Unsorted: a sketch depends on the values only (see `Distinct`).
        self.distinct.shingles(&self.tokens, k, &mut self.shingles);
        let t = Instant::now();
        let row = sketcher.sketch(&self.shingles);
        *sketched = t.elapsed();
        Shingled {
            size: self.shingles.len(),
            row: Some(row),
            ..Shingled::of_tokens(text, &self.tokens, Vec::new())
        }
    }
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
    /// Its shingles: the set (empty when sets are not kept: then only its signature is),
    /// and their number.
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
    Shingled::of_tokens(text, buf, set)
}

impl Shingled {
    /// A document of this text, token stream and set (not sketched yet).
    fn of_tokens(text: &str, tokens: &[u64], set: Vec<u64>) -> Shingled {
        Shingled {
            bytes: text.len() as u64,
            content: content_hash(tokens),
            tokens: tokens.len() as u64,
            words: tokens.len() as u64,
            size: set.len(),
            set,
            row: None,
        }
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
