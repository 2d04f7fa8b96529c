//! Synthetic corpora with planted near-duplicates, for demos, tests and benchmarks.
//!
//! Documents are sentences of pronounceable pseudo-words drawn from a Zipf distribution
//! ([`Text::Words`]), or real sentences of public-domain English novels compiled into the
//! crate ([`Text::English`], see [`english`]), grouped in paragraphs. About `dup_fraction` of them are derived from an earlier
//! original by a known edit at a known rate; some originals get two or three derivatives
//! (a family). The truth lists every pair within a family with its exact Jaccard
//! similarity at k = 5 word shingles, as the engine computes it.
//!
//! Everything is a function of the seed: the vocabulary, the plan (which document derives
//! from which, by what edit) and every document come from their own [`Rng`] stream, so
//! documents are generated in parallel and the output is the same on every machine.
//! Floating-point work is limited to IEEE-exact operations (no `powf`), for the same reason.

use anyhow::{Context, Result, anyhow, bail};
use rayon::prelude::*;
use simtui_engine::rng::Rng;
use std::collections::{BTreeSet, HashSet};
use std::io::Write as _;
use std::path::{Component, Path};
use std::sync::Arc;

pub mod english;

/// What documents are made of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Text {
    /// Pronounceable pseudo-words drawn from a Zipf distribution over `vocab` words.
    #[default]
    Words,
    /// Sentences of Jane Austen's novels; edits draw words from the novels' own word
    /// frequencies (`vocab` is then unused).
    English,
}

/// What to generate.
#[derive(Clone, Debug)]
pub struct GenOptions {
    /// Number of documents.
    pub docs: usize,
    /// Seed: the same seed gives the same corpus.
    pub seed: u64,
    /// Mean number of words per document (lengths are uniform in 0.5×..1.5× this).
    pub words: usize,
    /// Fraction of the documents that are planted near-duplicates of another one.
    pub dup_fraction: f64,
    /// Vocabulary size (for [`Text::Words`]).
    pub vocab: usize,
    /// What documents are made of.
    pub text: Text,
}

impl GenOptions {
    /// `docs` documents of about `words` words each, from `seed`; the rest as by default.
    pub fn sized(docs: usize, seed: u64, words: usize) -> GenOptions {
        GenOptions {
            docs,
            seed,
            words,
            ..Default::default()
        }
    }
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            docs: 1000,
            seed: 42,
            words: 300,
            dup_fraction: 0.2,
            vocab: 30_000,
            text: Text::Words,
        }
    }
}

/// One generated document; its id is its path relative to the corpus folder.
#[derive(Clone, Debug)]
pub struct GenDoc {
    pub id: String,
    pub text: String,
}

/// A planted pair of near-duplicates: `a < b`, the edit that relates them, its rate and
/// their exact Jaccard similarity (k = 5 word shingles, default text options).
#[derive(Clone, Debug, PartialEq)]
pub struct Planted {
    pub a: String,
    pub b: String,
    pub edit: String,
    pub rate: f64,
    pub jaccard: f64,
}

/// A generated corpus, in id order, and its planted pairs, sorted by `(a, b)`.
#[derive(Clone, Debug, Default)]
pub struct Generated {
    pub docs: Vec<GenDoc>,
    pub truth: Vec<Planted>,
}

impl Generated {
    /// The documents as a corpus held in memory, by their ids (the explorer's demo, tests).
    pub fn into_corpus(self) -> simtui_engine::source::Corpus {
        simtui_engine::source::Corpus::from_texts(self.docs.into_iter().map(|d| (d.id, d.text)))
    }
}

/// Shingle length of the truth's Jaccard values.
const TRUTH_K: usize = 5;
/// Documents per folder.
const PER_FOLDER: usize = 1000;
/// Rates of the planted edits: the fraction of words edited (substituted, inserted, deleted,
/// added, re-cased or re-punctuated), or of sentences moved for `reorder`.
const RATES: [f64; 7] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5];
/// Stream labels (document streams use the document's index).
const VOCAB_STREAM: u64 = u64::MAX;
const PLAN_STREAM: u64 = u64::MAX - 1;

/// How a derivative was made from its original.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edit {
    Copy,
    Substitute,
    Insert,
    Delete,
    Reorder,
    AddParagraph,
    DropParagraph,
    CasePunct,
    Mixed,
}

impl Edit {
    fn name(self) -> &'static str {
        match self {
            Edit::Copy => "copy",
            Edit::Substitute => "substitute",
            Edit::Insert => "insert",
            Edit::Delete => "delete",
            Edit::Reorder => "reorder",
            Edit::AddParagraph => "add_paragraph",
            Edit::DropParagraph => "drop_paragraph",
            Edit::CasePunct => "case_punct",
            Edit::Mixed => "mixed",
        }
    }
}

/// Relative frequencies of the edits (out of 100).
const EDIT_WEIGHTS: [(Edit, u64); 9] = [
    (Edit::Copy, 10),
    (Edit::Substitute, 20),
    (Edit::Insert, 10),
    (Edit::Delete, 10),
    (Edit::Reorder, 10),
    (Edit::AddParagraph, 10),
    (Edit::DropParagraph, 10),
    (Edit::CasePunct, 8),
    (Edit::Mixed, 12),
];

// ---------------------------------------------------------------------------------------
// Vocabulary

const ONSETS: [&str; 36] = [
    "", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
    "br", "ch", "cl", "cr", "dr", "fl", "fr", "gl", "gr", "pl", "pr", "sh", "sl", "sp", "st", "th",
    "tr",
];
/// The onsets of one letter (or none) come first.
const SIMPLE_ONSETS: usize = 19;
const VOWELS: [&str; 16] = [
    "a", "e", "i", "o", "u", "a", "e", "i", "o", "ai", "ea", "ee", "ie", "oa", "ou", "y",
];
/// Codas of a word's last syllable.
const CODAS: [&str; 16] = [
    "", "", "", "", "n", "r", "l", "s", "m", "t", "nd", "rt", "st", "ng", "ck", "x",
];
/// Codas inside a word, lighter so that words stay pronounceable.
const INNER_CODAS: [&str; 6] = ["", "", "", "n", "r", "l"];

/// Distinct words, most frequent first, and their cumulative distribution (Zipf for
/// pseudo-words, the text's own frequencies for English).
struct Vocab {
    words: Vec<String>,
    cdf: Vec<f64>,
    /// `guide[g]` is the first rank whose cumulative probability exceeds g / GUIDE, which
    /// narrows the binary search to a few ranks.
    guide: Vec<u32>,
    /// The punctuation written before or after a word of English ([`Tok::pre`],
    /// [`Tok::post`]); entry 0 is the empty string, all pseudo-words use.
    affixes: Vec<String>,
    /// Real sentences to draw documents from, for [`Text::English`].
    prose: Option<english::Prose>,
}

const GUIDE: usize = 4096;

impl Vocab {
    fn new(size: usize, seed: u64) -> Vocab {
        let size = size.max(1);
        let mut rng = Rng::derive(seed, VOCAB_STREAM);
        let mut seen = HashSet::with_capacity(size);
        let mut words = Vec::with_capacity(size);
        for rank in 0..size {
            // Frequent words are short, as in natural languages.
            let (lo, hi): (usize, usize) = match rank {
                0..100 => (1, 1),
                100..3000 => (1, 2),
                _ => (2, 3),
            };
            let mut syllables = lo + rng.below((hi - lo + 1) as u64) as usize;
            let short = rank < 100;
            let mut tries = 0;
            loop {
                let w = pseudo_word(&mut rng, syllables, short);
                if w.len() >= 2 && !seen.contains(&w) {
                    seen.insert(w.clone());
                    words.push(w);
                    break;
                }
                tries += 1;
                if tries % 64 == 0 {
                    syllables += 1; // this length is crowded
                }
            }
        }
        // Zipf with exponent s = 1 + 1/16: the weight of rank r (from 1) is
        // r^-s = 1 / (r · r^(1/16)), only square roots and divisions, which IEEE 754 rounds
        // exactly (unlike powf), so the table is the same everywhere.
        let weights = (1..=size).map(|r| {
            let x = r as f64;
            1.0 / (x * x.sqrt().sqrt().sqrt().sqrt())
        });
        Vocab::with_weights(words, weights)
    }

    /// A vocabulary whose word `r` is drawn with probability proportional to the `r`th
    /// weight (most frequent first, so that the guide table stays short).
    fn with_weights(words: Vec<String>, weights: impl Iterator<Item = f64>) -> Vocab {
        let size = words.len();
        let mut cdf = Vec::with_capacity(size);
        let mut total = 0.0;
        for w in weights {
            total += w;
            cdf.push(total);
        }
        for c in &mut cdf {
            *c /= total;
        }
        *cdf.last_mut().unwrap() = 1.0;
        let guide = (0..=GUIDE)
            .map(|g| {
                let u = g as f64 / GUIDE as f64;
                cdf.partition_point(|&c| c <= u).min(size - 1) as u32
            })
            .collect();
        Vocab {
            words,
            cdf,
            guide,
            affixes: vec![String::new()],
            prose: None,
        }
    }

    /// A word index drawn from the Zipf distribution: the first rank whose cumulative
    /// probability exceeds a uniform draw.
    #[inline]
    fn sample(&self, rng: &mut Rng) -> u32 {
        let u = rng.next_f64();
        let g = (u * GUIDE as f64) as usize;
        let (lo, hi) = (self.guide[g] as usize, self.guide[g + 1] as usize);
        (lo + self.cdf[lo..=hi].partition_point(|&c| c <= u)) as u32
    }

    /// A word index other than `old` (when the vocabulary has another).
    fn sample_other(&self, rng: &mut Rng, old: u32) -> u32 {
        for _ in 0..16 {
            let w = self.sample(rng);
            if w != old {
                return w;
            }
        }
        if self.words.len() > 1 {
            (old + 1) % self.words.len() as u32
        } else {
            old
        }
    }
}

/// A word of `syllables` syllables; `short` ones (for the most frequent words) use single
/// letters only, like "the" or "of".
fn pseudo_word(rng: &mut Rng, syllables: usize, short: bool) -> String {
    let mut w = String::new();
    for s in 0..syllables {
        let simple = short || rng.chance(0.75);
        w.push_str(pick(
            rng,
            if simple {
                &ONSETS[..SIMPLE_ONSETS]
            } else {
                &ONSETS
            },
        ));
        w.push_str(pick(rng, if short { &VOWELS[..5] } else { &VOWELS }));
        w.push_str(if short {
            pick(rng, &CODAS[..10])
        } else if s + 1 == syllables {
            pick(rng, &CODAS)
        } else {
            pick(rng, &INNER_CODAS)
        });
    }
    w
}

fn pick<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    items[rng.below(items.len() as u64) as usize]
}

// ---------------------------------------------------------------------------------------
// Documents as token streams

const LOWER: u8 = 0;
const CAPITAL: u8 = 1;
const UPPER: u8 = 2;
/// Punctuation after a word inside a sentence (always followed by a space, so that it
/// never joins two words for the tokenizer).
const PUNCT: [&str; 5] = ["", ",", ";", ":", " -"];
const COMMA: u8 = 1;
/// Sentence ends (index 0: not the end of a sentence; [`AS_WRITTEN`]: an English
/// sentence's last word, whose own punctuation is in its [`Tok::post`]).
const ENDS: [&str; 5] = [" ", ".", "!", "?", ""];
const PERIOD: u8 = 1;
const AS_WRITTEN: u8 = 4;

/// One word of a document with its case and the punctuation that follows it.
/// Invariants: `para` only on a sentence end; the last token ends a sentence and a paragraph.
#[derive(Clone, Copy, Debug)]
struct Tok {
    word: u32,
    case: u8,
    punct: u8,
    /// Non-zero on the last word of a sentence: index into [`ENDS`].
    end: u8,
    /// The last word of a paragraph.
    para: bool,
    /// English: the punctuation written before the word (an opening quote), and after it
    /// (a comma, a closing quote, a sentence's end): indices into [`Vocab::affixes`].
    pre: u16,
    post: u16,
}

impl Tok {
    fn word(word: u32) -> Tok {
        Tok {
            word,
            case: LOWER,
            punct: 0,
            end: 0,
            para: false,
            pre: 0,
            post: 0,
        }
    }
}

/// Appends sentences of exactly `n` words to `out` (lengths 5..=22, some commas, a period);
/// for English, real sentences of at least `n` words in all.
fn push_sentences(vocab: &Vocab, rng: &mut Rng, n: usize, out: &mut Vec<Tok>) {
    if let Some(prose) = &vocab.prose {
        return prose.push(rng, n, out);
    }
    let mut left = n;
    while left > 0 {
        let mut len = (5 + rng.below(18) as usize).min(left);
        if left - len < 4 {
            len = left; // no stub sentence at the end
        }
        for i in 0..len {
            let mut t = Tok::word(vocab.sample(rng));
            if i + 1 == len {
                t.end = PERIOD;
            } else if rng.chance(0.07) {
                t.punct = COMMA;
            }
            out.push(t);
        }
        left -= len;
    }
}

/// Groups the sentences of `toks` into paragraphs of 2..=6 sentences.
fn make_paragraphs(rng: &mut Rng, toks: &mut [Tok]) {
    let mut target = 2 + rng.below(5);
    let mut count = 0;
    for t in toks.iter_mut() {
        t.para = false;
        if t.end != 0 {
            count += 1;
            if count == target {
                t.para = true;
                count = 0;
                target = 2 + rng.below(5);
            }
        }
    }
    if let Some(last) = toks.last_mut() {
        last.para = true;
    }
}

/// An independent document: its length is uniform in 0.5×..1.5× `words`.
fn original(vocab: &Vocab, rng: &mut Rng, words: usize) -> Vec<Tok> {
    let lo = (words / 2).max(1);
    let hi = (words + words / 2).max(lo);
    let n = lo + rng.below((hi - lo + 1) as u64) as usize;
    let mut toks = Vec::with_capacity(n + n / 4);
    push_sentences(vocab, rng, n, &mut toks);
    make_paragraphs(rng, &mut toks);
    toks
}

/// Renders tokens as text: sentences start with a capital, paragraphs are separated by a
/// blank line, and the text ends with a newline.
fn render(vocab: &Vocab, toks: &[Tok], out: &mut String) {
    let mut start = true;
    for (i, t) in toks.iter().enumerate() {
        if i > 0 {
            out.push_str(if toks[i - 1].para { "\n\n" } else { " " });
        }
        let w = &vocab.words[t.word as usize];
        out.push_str(&vocab.affixes[t.pre as usize]);
        match t.case {
            UPPER => out.extend(w.chars().map(|c| c.to_ascii_uppercase())),
            CAPITAL => capitalise(w, out),
            _ if start => capitalise(w, out),
            _ => out.push_str(w),
        }
        if t.end != 0 {
            out.push_str(ENDS[t.end as usize]);
        } else {
            out.push_str(PUNCT[t.punct as usize]);
        }
        out.push_str(&vocab.affixes[t.post as usize]);
        start = t.end != 0;
    }
    out.push('\n');
}

fn capitalise(w: &str, out: &mut String) {
    let mut chars = w.chars();
    if let Some(c) = chars.next() {
        out.push(c.to_ascii_uppercase());
        out.push_str(chars.as_str());
    }
}

fn is_sentence_start(toks: &[Tok], i: usize) -> bool {
    i == 0 || toks[i - 1].end != 0
}

/// `(start, end)` of each run of tokens that ends with a token satisfying `last`.
fn spans(toks: &[Tok], last: impl Fn(&Tok) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, t) in toks.iter().enumerate() {
        if last(t) {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    out
}

/// `m` distinct indices below `n` (all of them if `m >= n`), sorted.
fn choose(rng: &mut Rng, n: usize, m: usize) -> Vec<usize> {
    let m = m.min(n);
    let mut idx: Vec<usize> = (0..n).collect();
    for i in 0..m {
        let j = i + rng.below((n - i) as u64) as usize;
        idx.swap(i, j);
    }
    idx.truncate(m);
    idx.sort_unstable();
    idx
}

fn count(rate: f64, n: usize) -> usize {
    ((rate * n as f64).round() as usize).max(1)
}

// ---------------------------------------------------------------------------------------
// Edits

/// Replaces `m` words by other words.
fn substitute(vocab: &Vocab, rng: &mut Rng, toks: &mut [Tok], m: usize) {
    for i in choose(rng, toks.len(), m) {
        toks[i].word = vocab.sample_other(rng, toks[i].word);
    }
}

/// Inserts `m` new words at random places (before existing words, so that the document
/// still ends with a sentence end).
fn insert(vocab: &Vocab, rng: &mut Rng, toks: &mut Vec<Tok>, m: usize) {
    let n = toks.len();
    let mut at: Vec<usize> = (0..m).map(|_| rng.below(n as u64) as usize).collect();
    at.sort_unstable();
    let mut out = Vec::with_capacity(n + m);
    let mut next = at.iter().peekable();
    for (i, &t) in toks.iter().enumerate() {
        while next.next_if(|&&j| j == i).is_some() {
            let mut new = Tok::word(vocab.sample(rng));
            if rng.chance(0.07) {
                new.punct = COMMA;
            }
            out.push(new);
        }
        out.push(t);
    }
    *toks = out;
}

/// Deletes `m` words (keeping at least one). A deleted sentence end moves to the previous
/// word of its sentence; a sentence deleted whole leaves its paragraph break behind.
fn delete(rng: &mut Rng, toks: &mut Vec<Tok>, m: usize) {
    let gone = choose(rng, toks.len(), m.min(toks.len().saturating_sub(1)));
    let mut gone = gone.into_iter().peekable();
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len());
    for (i, &t) in toks.iter().enumerate() {
        if gone.next_if_eq(&i).is_none() {
            out.push(t);
        } else if let Some(prev) = out.last_mut() {
            if t.end != 0 && prev.end == 0 {
                // An English end's punctuation went with its word: a period instead.
                prev.end = if t.end == AS_WRITTEN { PERIOD } else { t.end };
                prev.punct = 0;
            }
            prev.para |= t.para && prev.end != 0;
        }
    }
    if let Some(last) = out.last_mut() {
        // The document's first sentence may have been deleted up to its last word: fine.
        // Its end is kept, and the last token always closes the last paragraph.
        if last.end == 0 {
            last.end = PERIOD;
        }
        last.para = true;
    }
    *toks = out;
}

/// Moves a fraction `rate` of the sentences (at least two): the chosen sentences rotate
/// through the chosen slots. Paragraph breaks stay where they were. None if the document
/// has a single sentence.
fn reorder(rng: &mut Rng, toks: &mut Vec<Tok>, rate: f64) -> Option<()> {
    let sentences = spans(toks, |t| t.end != 0);
    let ns = sentences.len();
    if ns < 2 {
        return None;
    }
    let m = count(rate, ns).clamp(2, ns);
    let slots = choose(rng, ns, m);
    let mut content: Vec<usize> = (0..ns).collect();
    for (k, &s) in slots.iter().enumerate() {
        content[s] = slots[(k + 1) % m];
    }
    let mut out = Vec::with_capacity(toks.len());
    for (slot, &(_, end)) in sentences.iter().enumerate() {
        let (c0, c1) = sentences[content[slot]];
        out.extend_from_slice(&toks[c0..c1]);
        out.last_mut().unwrap().para = toks[end - 1].para;
    }
    *toks = out;
    Some(())
}

/// Adds a paragraph (or a few, for large rates) of `m` new words at a paragraph boundary.
fn add_paragraph(vocab: &Vocab, rng: &mut Rng, toks: &mut Vec<Tok>, m: usize) {
    let mut new = Vec::with_capacity(m);
    push_sentences(vocab, rng, m.max(3), &mut new);
    make_paragraphs(rng, &mut new);
    let paras = spans(toks, |t| t.para);
    let p = rng.below(paras.len() as u64 + 1) as usize;
    let at = paras.get(p).map_or(toks.len(), |&(start, _)| start);
    toks.splice(at..at, new);
}

/// Drops whole paragraphs, about a fraction `rate` of the words (at least one paragraph,
/// never all). Returns the fraction of words actually dropped, or None if the document has
/// a single paragraph.
fn drop_paragraph(rng: &mut Rng, toks: &mut Vec<Tok>, rate: f64) -> Option<f64> {
    let paras = spans(toks, |t| t.para);
    let np = paras.len();
    if np < 2 {
        return None;
    }
    let n = toks.len();
    let target = rate * n as f64;
    let mut order: Vec<usize> = (0..np).collect();
    for i in (1..np).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let len = |p: usize| (paras[p].1 - paras[p].0) as f64;
    // The paragraph closest to the target first, then any that bring the total closer.
    let first = *order
        .iter()
        .min_by(|&&a, &&b| (len(a) - target).abs().total_cmp(&(len(b) - target).abs()))
        .unwrap();
    let mut dropped = vec![false; np];
    dropped[first] = true;
    let (mut total, mut count) = (len(first), 1);
    for &p in &order {
        let closer = (total + len(p) - target).abs() < (total - target).abs();
        if count + 1 < np && !dropped[p] && closer {
            dropped[p] = true;
            total += len(p);
            count += 1;
        }
    }
    let mut out = Vec::with_capacity(n);
    for (p, &(s0, s1)) in paras.iter().enumerate() {
        if !dropped[p] {
            out.extend_from_slice(&toks[s0..s1]);
        }
    }
    *toks = out;
    Some(round4(total / n as f64))
}

/// Changes the case of, or the punctuation after, `m` words: the words stay the same.
fn case_punct(rng: &mut Rng, toks: &mut [Tok], m: usize) {
    for i in choose(rng, toks.len(), m) {
        let start = is_sentence_start(toks, i);
        let t = &mut toks[i];
        if rng.chance(0.5) {
            // A sentence start is capitalised anyway: only upper case shows there.
            t.case = match (t.case, start) {
                (UPPER, _) => LOWER,
                (_, true) => UPPER,
                (LOWER, false) => {
                    if rng.chance(0.7) {
                        CAPITAL
                    } else {
                        UPPER
                    }
                }
                _ => LOWER,
            };
        } else if t.post != 0 {
            // English: the text's own punctuation goes; a sentence end gets one of ours.
            t.post = 0;
            if t.end != 0 {
                t.end = 1 + rng.below(3) as u8;
            }
        } else if t.end != 0 {
            t.end = 1 + ((t.end - 1 + 1 + rng.below(2) as u8) % 3);
        } else if t.punct != 0 && rng.chance(0.5) {
            t.punct = 0;
        } else {
            t.punct = 1 + ((t.punct + rng.below(3) as u8) % 4);
        }
    }
}

/// Derives a document from `toks` (the original's tokens). Returns the edit actually made
/// (paragraph edits fall back to word edits on one-paragraph documents) and its rate.
fn derive(vocab: &Vocab, rng: &mut Rng, toks: &mut Vec<Tok>, edit: Edit, rate: f64) -> (Edit, f64) {
    let n = toks.len();
    match edit {
        Edit::Copy => return (Edit::Copy, 0.0),
        Edit::Substitute => substitute(vocab, rng, toks, count(rate, n)),
        Edit::Insert => insert(vocab, rng, toks, count(rate, n)),
        Edit::Delete => delete(rng, toks, count(rate, n)),
        Edit::Reorder => {
            if reorder(rng, toks, rate).is_none() {
                substitute(vocab, rng, toks, count(rate, n));
                return (Edit::Substitute, rate);
            }
        }
        Edit::AddParagraph => add_paragraph(vocab, rng, toks, count(rate, n)),
        Edit::DropParagraph => {
            return match drop_paragraph(rng, toks, rate) {
                Some(actual) => (Edit::DropParagraph, actual),
                None => {
                    delete(rng, toks, count(rate, n));
                    (Edit::Delete, rate)
                }
            };
        }
        Edit::CasePunct => case_punct(rng, toks, count(rate, n)),
        Edit::Mixed => {
            let m = count(rate, n);
            let (del, ins) = (m / 3, m / 3);
            delete(rng, toks, del);
            insert(vocab, rng, toks, ins);
            let len = toks.len();
            substitute(vocab, rng, toks, m - del - ins);
            case_punct(rng, toks, (m / 2).clamp(1, len));
        }
    }
    (edit, rate)
}

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

// ---------------------------------------------------------------------------------------
// The plan and the generator

#[derive(Clone, Copy, Debug)]
enum Slot {
    Original,
    Derived {
        parent: usize,
        edit: Edit,
        rate: f64,
    },
}

/// Decides which documents are derivatives of which, by what edit and rate.
///
/// `round(dup_fraction × docs)` derivatives are grouped in families of 1 (70 %), 2 (20 %)
/// or 3 (10 %) derivatives; when originals run short (dup_fraction above ~0.58), families
/// grow. Every family member and every unrelated document gets a label; shuffling the
/// labels interleaves them, and the first document of each family is its original.
fn plan(opts: &GenOptions) -> Vec<Slot> {
    let n = opts.docs;
    if n < 2 {
        return vec![Slot::Original; n];
    }
    let mut rng = Rng::derive(opts.seed, PLAN_STREAM);
    let frac = if opts.dup_fraction.is_nan() {
        0.0
    } else {
        opts.dup_fraction.clamp(0.0, 1.0)
    };
    let n_dup = ((frac * n as f64).round() as usize).min(n - 1);
    let originals = n - n_dup;
    let mut sizes: Vec<usize> = Vec::new();
    let mut left = n_dup;
    while left > 0 {
        if sizes.len() == originals {
            for k in 0..left {
                sizes[k % originals] += 1;
            }
            break;
        }
        let u = rng.below(10);
        let c = (if u < 7 {
            1
        } else if u < 9 {
            2
        } else {
            3
        })
        .min(left);
        sizes.push(c);
        left -= c;
    }
    const UNRELATED: u32 = u32::MAX;
    let mut labels: Vec<u32> = Vec::with_capacity(n);
    for (f, &c) in sizes.iter().enumerate() {
        labels.extend(std::iter::repeat_n(f as u32, c + 1));
    }
    labels.resize(n, UNRELATED);
    for i in (1..n).rev() {
        labels.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut first = vec![usize::MAX; sizes.len()];
    labels
        .iter()
        .enumerate()
        .map(|(i, &l)| {
            if l == UNRELATED || first[l as usize] == usize::MAX {
                if l != UNRELATED {
                    first[l as usize] = i;
                }
                return Slot::Original;
            }
            let edit = pick_edit(rng.below(100));
            let rate = if edit == Edit::Copy {
                0.0
            } else {
                RATES[rng.below(RATES.len() as u64) as usize]
            };
            Slot::Derived {
                parent: first[l as usize],
                edit,
                rate,
            }
        })
        .collect()
}

/// The edit of weight interval `u` in 0..100.
fn pick_edit(mut u: u64) -> Edit {
    for &(edit, w) in &EDIT_WEIGHTS {
        if u < w {
            return edit;
        }
        u -= w;
    }
    Edit::Substitute
}

/// `dNNN/docNNNNNN.txt`, zero-padded to fixed widths so that ids sort in generation order.
fn doc_id(i: usize, n: usize) -> String {
    let digits = |x: usize| x.max(1).ilog10() as usize + 1;
    let fw = digits(n.saturating_sub(1) / PER_FOLDER).max(3);
    let dw = digits(n.saturating_sub(1)).max(6);
    format!("d{:0fw$}/doc{:0dw$}.txt", i / PER_FOLDER, i)
}

/// The plan of a corpus and what makes its documents: any document can be made alone,
/// in any order, so a corpus larger than memory is written as it is made.
struct Maker {
    n: usize,
    seed: u64,
    words: usize,
    vocab: Arc<Vocab>,
    slots: Vec<Slot>,
}

impl Maker {
    fn new(opts: &GenOptions) -> Maker {
        Maker {
            n: opts.docs,
            seed: opts.seed,
            words: opts.words.max(1),
            vocab: match opts.text {
                Text::Words => Arc::new(Vocab::new(opts.vocab, opts.seed)),
                Text::English => english::vocab(),
            },
            slots: plan(opts),
        }
    }

    /// Document `i` and, for a derivative, its edit and rate.
    fn doc(&self, i: usize) -> (GenDoc, Option<(Edit, f64)>) {
        let (vocab, seed, words) = (&self.vocab, self.seed, self.words);
        let (toks, how) = match self.slots[i] {
            Slot::Original => (
                original(vocab, &mut Rng::derive(seed, i as u64), words),
                None,
            ),
            Slot::Derived { parent, edit, rate } => {
                // The original is regenerated from its own stream: no waiting for it.
                let mut toks = original(vocab, &mut Rng::derive(seed, parent as u64), words);
                let how = derive(
                    vocab,
                    &mut Rng::derive(seed, i as u64),
                    &mut toks,
                    edit,
                    rate,
                );
                (toks, Some(how))
            }
        };
        let mut text = String::with_capacity(toks.len() * 8);
        render(vocab, &toks, &mut text);
        let doc = GenDoc {
            id: doc_id(i, self.n),
            text,
        };
        (doc, how)
    }

    /// Families: the original first, then its derivatives in order.
    fn families(&self) -> Vec<Vec<usize>> {
        let mut family_of = vec![usize::MAX; self.n];
        let mut families: Vec<Vec<usize>> = Vec::new();
        for (i, slot) in self.slots.iter().enumerate() {
            if let Slot::Derived { parent, .. } = *slot {
                if family_of[parent] == usize::MAX {
                    family_of[parent] = families.len();
                    families.push(vec![parent]);
                }
                families[family_of[parent]].push(i);
            }
        }
        families
    }

    /// Every planted pair, sorted by (a, b), from the documents `made` gives.
    fn truth(&self, made: impl Fn(usize) -> (GenDoc, Option<(Edit, f64)>) + Sync) -> Vec<Planted> {
        let mut truth: Vec<(usize, usize, Planted)> =
            self.families()
                .par_iter()
                .map_init(
                    || {
                        simtui_engine::text::Tokenizer::new(
                            &simtui_engine::text::TextOptions::default(),
                        )
                    },
                    |tok, fam| {
                        let docs: Vec<_> = fam.iter().map(|&d| made(d)).collect();
                        let sets: Vec<Vec<u64>> =
                            docs.iter().map(|(d, _)| shingles(tok, &d.text)).collect();
                        let how = |k: usize| docs[k].1.expect("a derivative");
                        let mut pairs = Vec::new();
                        for x in 0..fam.len() {
                            for y in x + 1..fam.len() {
                                let (edit, rate) = if x == 0 {
                                    let (e, r) = how(y);
                                    (e.name(), r)
                                } else {
                                    ("sibling", round4(how(x).1 + how(y).1))
                                };
                                pairs.push((
                                    fam[x],
                                    fam[y],
                                    Planted {
                                        a: docs[x].0.id.clone(),
                                        b: docs[y].0.id.clone(),
                                        edit: edit.to_string(),
                                        rate,
                                        jaccard: simtui_engine::shingle::jaccard(
                                            &sets[x], &sets[y],
                                        ),
                                    },
                                ));
                            }
                        }
                        pairs
                    },
                )
                .flatten()
                .collect();
        truth.sort_unstable_by_key(|&(a, b, _)| (a, b));
        truth.into_iter().map(|(_, _, p)| p).collect()
    }
}

/// Generates the corpus and its truth. Deterministic for a seed.
pub fn generate(opts: &GenOptions) -> Generated {
    let maker = Maker::new(opts);
    let made: Vec<(GenDoc, Option<(Edit, f64)>)> = (0..opts.docs)
        .into_par_iter()
        .map(|i| maker.doc(i))
        .collect();
    let truth = maker.truth(|i| made[i].clone());
    Generated {
        docs: made.into_iter().map(|(d, _)| d).collect(),
        truth,
    }
}

/// Documents per JSON Lines file of [`write_jsonl`].
const PER_FILE: usize = 100_000;
/// Documents made in parallel, then written, at a time.
const WRITE_CHUNK: usize = 20_000;

/// Writes the corpus as JSON Lines files under `out` (a new or empty folder):
/// `part-00000.jsonl`, ... of 100,000 documents each, one `{"id", "text"}` object a
/// line (the ids are those [`generate`] gives, so `--id-field id` reads them back), and
/// the truth file at `truth`. The documents are made and written a chunk at a time, so
/// memory stays small whatever the number of documents; the truth is made afterwards
/// from the families' documents, made again. Returns the bytes written to the JSON
/// Lines files and the number of planted pairs.
pub fn write_jsonl(opts: &GenOptions, out: &Path, truth: &Path) -> Result<(u64, usize)> {
    let maker = Maker::new(opts);
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut bytes = 0u64;
    for (f, first) in (0..opts.docs).step_by(PER_FILE).enumerate() {
        let path = out.join(format!("part-{f:05}.jsonl"));
        let file = std::fs::File::create(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
        let last = (first + PER_FILE).min(opts.docs);
        for from in (first..last).step_by(WRITE_CHUNK) {
            let to = (from + WRITE_CHUNK).min(last);
            let lines: Vec<String> = (from..to)
                .into_par_iter()
                .map(|i| {
                    let (d, _) = maker.doc(i);
                    serde_json::json!({"id": d.id, "text": d.text}).to_string()
                })
                .collect();
            for line in lines {
                bytes += line.len() as u64 + 1;
                writeln!(w, "{line}")
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
        }
        w.flush()
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let planted = maker.truth(|i| maker.doc(i));
    if let Some(parent) = truth.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let write_truth = || -> std::io::Result<()> {
        let mut w = std::io::BufWriter::new(std::fs::File::create(truth)?);
        for p in &planted {
            writeln!(w, "{}", truth_to_jsonl(p))?;
        }
        w.flush()
    };
    write_truth().with_context(|| format!("cannot write {}", truth.display()))?;
    Ok((bytes, planted.len()))
}

/// The k = 5 word-shingle set of a text with default text options.
fn shingles(tok: &mut simtui_engine::text::Tokenizer, text: &str) -> Vec<u64> {
    let mut th = Vec::new();
    tok.token_hashes(text, &mut th);
    let mut set = Vec::new();
    simtui_engine::shingle::shingle_set(&th, TRUTH_K, &mut set);
    set
}

// ---------------------------------------------------------------------------------------
// Files

/// Writes a small corpus given as it is: each text of `files` at its path relative to
/// `root` ('/' separated), the folders made as needed (a test's or an example's corpus).
pub fn write_files(root: &Path, files: &[(&str, &str)]) -> std::io::Result<()> {
    for (path, text) in files {
        let path = root.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)?;
    }
    Ok(())
}

/// Writes every doc as a file under `out` (created; its id is its relative path, '/'
/// separated) and the truth file (JSON Lines) at `truth`. Refuses to write into an
/// existing non-empty folder; an existing truth file is replaced.
pub fn write(g: &Generated, out: &Path, truth: &Path) -> Result<()> {
    if out.exists() {
        if !out.is_dir() {
            bail!("{} exists and is not a folder", out.display());
        }
        let mut entries =
            std::fs::read_dir(out).with_context(|| format!("cannot read {}", out.display()))?;
        if entries.next().is_some() {
            bail!(
                "{} exists and is not empty; refusing to write a corpus into it (choose a new folder)",
                out.display()
            );
        }
    }
    if truth.is_dir() {
        bail!("truth file {} is a folder", truth.display());
    }
    let mut folders = BTreeSet::new();
    for d in &g.docs {
        let rel = Path::new(&d.id);
        if d.id.is_empty() || !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            bail!("document id {:?} is not a plain relative path", d.id);
        }
        if let Some(parent) = rel.parent() {
            folders.insert(parent);
        }
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    for f in folders {
        let dir = out.join(f);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
    }
    g.docs.par_iter().try_for_each(|d| {
        let path = out.join(&d.id);
        std::fs::write(&path, &d.text).with_context(|| format!("cannot write {}", path.display()))
    })?;
    if let Some(parent) = truth.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let write_truth = || -> std::io::Result<()> {
        let mut w = std::io::BufWriter::new(std::fs::File::create(truth)?);
        for p in &g.truth {
            writeln!(w, "{}", truth_to_jsonl(p))?;
        }
        w.flush()
    };
    write_truth().with_context(|| format!("cannot write {}", truth.display()))
}

/// One line of the truth file: `{"a":…,"b":…,"edit":…,"rate":…,"jaccard":…}`.
pub fn truth_to_jsonl(p: &Planted) -> String {
    use serde_json::to_string as js;
    // Built by hand to keep the field order; serde_json escapes the strings and prints
    // the shortest decimal that reads back as the same f64.
    format!(
        "{{\"a\":{},\"b\":{},\"edit\":{},\"rate\":{},\"jaccard\":{}}}",
        js(&p.a).unwrap(),
        js(&p.b).unwrap(),
        js(&p.edit).unwrap(),
        js(&p.rate).unwrap(),
        js(&p.jaccard).unwrap(),
    )
}

/// One line of a truth file as read back: the pair, and what else the line says. Both
/// truth files simtui writes are read: `simtui gen`'s (every field) and `simtui eval
/// --write-truth`'s (`a`, `b` and `jaccard`); a file of your own needs only `a` and `b`.
#[derive(Clone, Debug, PartialEq)]
pub struct TruthPair {
    /// The first document's id.
    pub a: String,
    /// The second document's id.
    pub b: String,
    /// The exact Jaccard similarity, if the line gives it.
    pub jaccard: Option<f64>,
    /// The planted edit (`gen`'s files only).
    pub edit: Option<String>,
    /// The edit's rate (`gen`'s files only).
    pub rate: Option<f64>,
}

impl From<&Planted> for TruthPair {
    fn from(p: &Planted) -> TruthPair {
        TruthPair {
            a: p.a.clone(),
            b: p.b.clone(),
            jaccard: Some(p.jaccard),
            edit: Some(p.edit.clone()),
            rate: Some(p.rate),
        }
    }
}

/// Reads a truth file: one JSON object per line with the ids `a` and `b`, and optionally
/// `jaccard`, `edit` and `rate` (see [`TruthPair`]). Blank lines are skipped; other keys
/// are ignored; a field of the wrong type is an error naming its line.
pub fn read_truth(path: &Path) -> Result<Vec<TruthPair>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read truth file {}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let p = parse_truth_line(line)
            .map_err(|e| anyhow!("{}, line {}: {e:#}", path.display(), i + 1))?;
        out.push(p);
    }
    Ok(out)
}

fn parse_truth_line(line: &str) -> Result<TruthPair> {
    let value: serde_json::Value = serde_json::from_str(line).context("invalid JSON")?;
    let obj = value
        .as_object()
        .context("expected a JSON object with \"a\" and \"b\" (and optionally \"jaccard\", \"edit\", \"rate\")")?;
    let string = |k: &str| -> Result<Option<String>> {
        match obj.get(k) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(v) => v
                .as_str()
                .map(|s| Some(s.to_string()))
                .with_context(|| format!("field {k:?} is not a string")),
        }
    };
    let numbers = top_level_numbers(line);
    let number = |k: &str| -> Result<Option<f64>> {
        let v = match obj.get(k) {
            None | Some(serde_json::Value::Null) => return Ok(None),
            Some(v) => v
                .as_f64()
                .with_context(|| format!("field {k:?} is not a number"))?,
        };
        // serde_json's default float parsing can be off by one ulp; std's is exact, so
        // the value written is the value read.
        let raw = numbers.iter().rev().find(|(key, _)| key == k);
        Ok(Some(
            raw.and_then(|(_, r)| r.parse::<f64>().ok()).unwrap_or(v),
        ))
    };
    let id = |k: &str| string(k)?.with_context(|| format!("missing field {k:?} (a document id)"));
    Ok(TruthPair {
        a: id("a")?,
        b: id("b")?,
        jaccard: number("jaccard")?,
        edit: string("edit")?,
        rate: number("rate")?,
    })
}

/// The literal text of the numbers that are direct members of the JSON object on `line`
/// (already validated), with their keys.
fn top_level_numbers(line: &str) -> Vec<(String, &str)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut depth) = (0, 0usize);
    let mut key: Option<String> = None;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                key = None;
                if depth == 1 {
                    let mut j = i;
                    while j < b.len() && b[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    if b.get(j) == Some(&b':') {
                        key = serde_json::from_str::<String>(&line[start..i]).ok();
                        i = j + 1;
                    }
                }
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'-' | b'0'..=b'9' if depth == 1 => {
                let start = i;
                while i < b.len() && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                if let Some(k) = key.take() {
                    out.push((k, &line[start..i]));
                }
            }
            _ => i += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn json_lines_hold_what_generate_makes() {
        let o = opts(700, 9, 60, 0.3);
        let g = generate(&o);
        let dir = tempfile::tempdir().unwrap();
        let (out, truth) = (dir.path().join("c"), dir.path().join("c.truth.jsonl"));
        let (bytes, planted) = write_jsonl(&o, &out, &truth).unwrap();
        let text = std::fs::read_to_string(out.join("part-00000.jsonl")).unwrap();
        assert_eq!(bytes, text.len() as u64);
        let docs: Vec<(String, String)> = text
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    v["id"].as_str().unwrap().into(),
                    v["text"].as_str().unwrap().into(),
                )
            })
            .collect();
        let want: Vec<(String, String)> = g
            .docs
            .iter()
            .map(|d| (d.id.clone(), d.text.clone()))
            .collect();
        assert_eq!(docs, want);
        assert_eq!(planted, g.truth.len());
        let want: Vec<TruthPair> = g.truth.iter().map(TruthPair::from).collect();
        assert_eq!(read_truth(&truth).unwrap(), want);
    }

    fn opts(docs: usize, seed: u64, words: usize, dup_fraction: f64) -> GenOptions {
        GenOptions {
            docs,
            seed,
            words,
            dup_fraction,
            vocab: 30_000,
            text: Text::Words,
        }
    }

    /// Jaccard at k = 5 recomputed independently of the engine: words by the reference
    /// tokenizer, shingles as strings.
    fn reference_jaccard(a: &str, b: &str) -> f64 {
        let set = |t: &str| -> HashSet<String> {
            let w = simtui_engine::text::tokens(t, &simtui_engine::text::TextOptions::default());
            w.windows(TRUTH_K).map(|s| s.join(" ")).collect()
        };
        let (sa, sb) = (set(a), set(b));
        let inter = sa.intersection(&sb).count();
        inter as f64 / (sa.len() + sb.len() - inter) as f64
    }

    fn by_id(g: &Generated) -> HashMap<&str, &str> {
        g.docs
            .iter()
            .map(|d| (d.id.as_str(), d.text.as_str()))
            .collect()
    }

    #[test]
    fn same_seed_same_corpus_on_any_thread_count() {
        let o = opts(700, 7, 100, 0.3);
        let a = generate(&o);
        let b = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| generate(&o));
        assert_eq!(a.docs.len(), 700);
        for (x, y) in a.docs.iter().zip(&b.docs) {
            assert_eq!((&x.id, &x.text), (&y.id, &y.text));
        }
        assert_eq!(a.truth, b.truth);
        assert!(!a.truth.is_empty());

        let c = generate(&GenOptions { seed: 8, ..o });
        let same = a
            .docs
            .iter()
            .zip(&c.docs)
            .filter(|(x, y)| x.text == y.text)
            .count();
        assert_eq!(same, 0);
        assert_ne!(a.truth, c.truth);
    }

    /// The corpus of a seed is pinned: a change here means that every existing benchmark
    /// corpus and truth file changes too (or that some machine computes differently).
    #[test]
    fn output_is_pinned() {
        let g = generate(&opts(60, 42, 80, 0.3));
        let mut all = String::new();
        for d in &g.docs {
            all.push_str(&d.id);
            all.push_str(&d.text);
        }
        for p in &g.truth {
            all.push_str(&truth_to_jsonl(p));
        }
        assert_eq!(
            xxhash_rust::xxh3::xxh3_64_with_seed(all.as_bytes(), simtui_engine::hash::TOKEN_SEED),
            14740215192223402092
        );
    }

    #[test]
    fn ids_sort_in_generation_order() {
        let g = generate(&opts(2500, 1, 20, 0.2));
        assert_eq!(g.docs[0].id, "d000/doc000000.txt");
        assert_eq!(g.docs[999].id, "d000/doc000999.txt");
        assert_eq!(g.docs[1000].id, "d001/doc001000.txt");
        assert_eq!(g.docs[2499].id, "d002/doc002499.txt");
        assert!(g.docs.windows(2).all(|w| w[0].id < w[1].id));
        assert_eq!(doc_id(5, 2_000_000), "d0000/doc0000005.txt");
        assert!(doc_id(999_999, 2_000_000) < doc_id(1_000_000, 2_000_000));
    }

    #[test]
    fn documents_look_like_text() {
        let g = generate(&opts(300, 3, 300, 0.0));
        assert!(g.truth.is_empty());
        let mut lengths = Vec::new();
        for d in &g.docs {
            let t = &d.text;
            assert!(t.starts_with(|c: char| c.is_ascii_uppercase()), "{t}");
            assert!(t.ends_with(".\n"), "{t}");
            assert!(!t.contains("  ") && !t.contains("\n\n\n"));
            lengths.push(simtui_engine::text::tokens(t, &Default::default()).len());
        }
        assert!(g.docs.iter().filter(|d| d.text.contains("\n\n")).count() > 290);
        assert!(g.docs.iter().all(|d| d.text.contains(", ")));
        let (min, max) = (
            *lengths.iter().min().unwrap(),
            *lengths.iter().max().unwrap(),
        );
        assert!(
            min >= 150 && max <= 450 && min < 170 && max > 430,
            "{min} {max}"
        );
        let mean = lengths.iter().sum::<usize>() as f64 / lengths.len() as f64;
        assert!((mean - 300.0).abs() < 15.0, "{mean}");
    }

    #[test]
    fn vocabulary_is_distinct_pronounceable_and_zipfian() {
        let v = Vocab::new(30_000, 42);
        let distinct: HashSet<&String> = v.words.iter().collect();
        assert_eq!(distinct.len(), 30_000);
        assert!(
            v.words
                .iter()
                .all(|w| w.len() >= 2 && w.bytes().all(|b| b.is_ascii_lowercase()))
        );
        let mut rng = Rng::new(1);
        let mut counts = vec![0u32; v.words.len()];
        for _ in 0..200_000 {
            counts[v.sample(&mut rng) as usize] += 1;
        }
        // Rank 1 is about twice as frequent as rank 2 and ten times rank 10.
        let r = |a: usize, b: usize| counts[a] as f64 / counts[b] as f64;
        assert!((1.8..2.4).contains(&r(0, 1)), "{}", r(0, 1));
        assert!((9.0..14.0).contains(&r(0, 9)), "{}", r(0, 9));
        // The guided search agrees with a plain binary search.
        for _ in 0..10_000 {
            let mut a = rng.clone();
            let w = v.sample(&mut rng) as usize;
            let u = a.next_f64();
            assert_eq!(w, v.cdf.partition_point(|&c| c <= u));
        }
    }

    #[test]
    fn planted_pairs_are_exact_and_complete() {
        let o = opts(1500, 11, 150, 0.3);
        let g = generate(&o);
        let text = by_id(&g);
        assert!(
            g.truth
                .windows(2)
                .all(|w| (&w[0].a, &w[0].b) < (&w[1].a, &w[1].b))
        );
        // Families are the connected components of the truth: every pair of a family is listed.
        let mut family: HashMap<&str, usize> = HashMap::new();
        let mut members: Vec<Vec<&str>> = Vec::new();
        for p in &g.truth {
            assert!(p.a < p.b);
            let f = *family.entry(&p.a).or_insert_with(|| {
                members.push(vec![&p.a]);
                members.len() - 1
            });
            if !family.contains_key(p.b.as_str()) {
                family.insert(&p.b, f);
                members[f].push(&p.b);
            }
            assert_eq!(family[p.b.as_str()], f);
            let j = reference_jaccard(text[p.a.as_str()], text[p.b.as_str()]);
            assert!((p.jaccard - j).abs() < 1e-12, "{p:?} vs {j}");
            let max = if p.edit == "sibling" { 2.0 } else { 1.0 };
            assert!(p.rate >= 0.0 && p.rate <= max, "{p:?}");
        }
        let pairs: usize = members.iter().map(|m| m.len() * (m.len() - 1) / 2).sum();
        assert_eq!(pairs, g.truth.len());
        let derivatives: usize = members.iter().map(|m| m.len() - 1).sum();
        assert_eq!(derivatives, 450);
        assert!(members.iter().any(|m| m.len() == 3));
        assert!(members.iter().any(|m| m.len() == 4));
        let edits: HashSet<&str> = g.truth.iter().map(|p| p.edit.as_str()).collect();
        for e in EDIT_WEIGHTS
            .iter()
            .map(|(e, _)| e.name())
            .chain(["sibling"])
        {
            assert!(edits.contains(e), "no {e}");
        }
        // Sibling rates are the sum of both derivation rates.
        for p in g.truth.iter().filter(|p| p.edit == "sibling") {
            let rate_of = |d: &str| {
                g.truth
                    .iter()
                    .find(|q| q.b == d && q.edit != "sibling")
                    .unwrap()
                    .rate
            };
            assert!((p.rate - (rate_of(&p.a) + rate_of(&p.b))).abs() < 1e-9);
        }
    }

    #[test]
    fn copies_and_case_changes_keep_every_word() {
        let g = generate(&opts(1000, 5, 200, 0.4));
        let text = by_id(&g);
        let (mut copies, mut cased) = (0, 0);
        for p in &g.truth {
            match p.edit.as_str() {
                "copy" => {
                    copies += 1;
                    assert_eq!(text[p.a.as_str()], text[p.b.as_str()]);
                    assert_eq!(p.jaccard, 1.0);
                    assert_eq!(p.rate, 0.0);
                }
                "case_punct" => {
                    cased += 1;
                    assert_ne!(text[p.a.as_str()], text[p.b.as_str()]);
                    assert_eq!(p.jaccard, 1.0);
                }
                _ => {}
            }
        }
        assert!(copies > 5 && cased > 5, "{copies} {cased}");
    }

    #[test]
    fn higher_rates_give_lower_jaccard() {
        let g = generate(&opts(3000, 9, 200, 0.4));
        for edits in [
            &["substitute", "insert", "delete", "mixed"][..],
            &["substitute"],
        ] {
            let means: Vec<f64> = RATES
                .iter()
                .map(|&r| {
                    let js: Vec<f64> = g
                        .truth
                        .iter()
                        .filter(|p| p.rate == r && edits.contains(&p.edit.as_str()))
                        .map(|p| p.jaccard)
                        .collect();
                    assert!(js.len() >= 10, "{r}: {}", js.len());
                    js.iter().sum::<f64>() / js.len() as f64
                })
                .collect();
            assert!(
                means.windows(2).all(|w| w[0] > w[1]),
                "{edits:?}: {means:?}"
            );
            assert!(means[0] > 0.85 && means[6] < 0.2, "{means:?}");
        }
    }

    /// The highest exact J between two of the first `n` documents in no planted pair.
    fn worst_unplanted(g: &Generated, n: usize) -> f64 {
        let planted: HashSet<&str> = g
            .truth
            .iter()
            .flat_map(|p| [p.a.as_str(), p.b.as_str()])
            .collect();
        let mut tok = simtui_engine::text::Tokenizer::new(&Default::default());
        let sets: Vec<Vec<u64>> = g
            .docs
            .iter()
            .filter(|d| !planted.contains(d.id.as_str()))
            .take(n)
            .map(|d| shingles(&mut tok, &d.text))
            .collect();
        let mut worst: f64 = 0.0;
        for i in 0..sets.len() {
            for j in i + 1..sets.len() {
                worst = worst.max(simtui_engine::shingle::jaccard(&sets[i], &sets[j]));
            }
        }
        worst
    }

    #[test]
    fn unrelated_documents_are_dissimilar() {
        let g = generate(&opts(400, 13, 300, 0.2));
        let worst = worst_unplanted(&g, 80);
        assert!(worst < 0.05, "{worst}");
    }

    #[test]
    fn english_corpora_plant_exact_families_of_real_sentences() {
        let o = GenOptions {
            text: Text::English,
            ..opts(600, 5, 300, 0.3)
        };
        let g = generate(&o);
        assert_eq!(g.docs.len(), 600);
        // Deterministic, and not the pseudo-words.
        let again = generate(&o);
        assert!(
            g.docs
                .iter()
                .zip(&again.docs)
                .all(|(x, y)| x.text == y.text)
        );
        assert_eq!(g.truth, again.truth);
        let all: String = g.docs.iter().map(|d| d.text.as_str()).collect();
        for word in [" the ", " and ", " of ", "Elizabeth", "Anne"] {
            assert!(all.contains(word), "no {word:?}");
        }
        // The truth is exact, and every edit (and sibling pairs) is planted.
        let text = by_id(&g);
        assert_eq!(g.truth.iter().filter(|p| p.edit != "sibling").count(), 180);
        for p in &g.truth {
            let j = reference_jaccard(text[p.a.as_str()], text[p.b.as_str()]);
            assert!((p.jaccard - j).abs() < 1e-12, "{p:?} vs {j}");
        }
        let edits: HashSet<&str> = g.truth.iter().map(|p| p.edit.as_str()).collect();
        for (e, _) in EDIT_WEIGHTS {
            assert!(edits.contains(e.name()), "no {}", e.name());
        }
        // Copies are the same text; a case_punct copy keeps every word.
        for p in g.truth.iter().filter(|p| p.edit == "copy") {
            assert_eq!(text[p.a.as_str()], text[p.b.as_str()]);
        }
        // Unrelated documents share a sentence now and then, never a passage.
        let worst = worst_unplanted(&g, 150);
        assert!(worst < 0.2, "{worst}");
    }

    #[test]
    fn every_edit_keeps_the_document_well_formed() {
        let vocab = Vocab::new(2000, 1);
        for seed in 0..40u64 {
            for (edit, _) in EDIT_WEIGHTS {
                for rate in RATES {
                    let words = [3, 12, 40, 300][seed as usize % 4];
                    let orig = original(&vocab, &mut Rng::new(seed), words);
                    let mut toks = orig.clone();
                    let (done, r) =
                        derive(&vocab, &mut Rng::new(seed + 1000), &mut toks, edit, rate);
                    assert!(!toks.is_empty());
                    let last = toks.last().unwrap();
                    assert!(last.end != 0 && last.para, "{edit:?}");
                    assert!(toks.iter().all(|t| !t.para || t.end != 0), "{edit:?}");
                    assert!((0.0..=1.0).contains(&r));
                    let mut text = String::new();
                    render(&vocab, &toks, &mut text);
                    assert!(text.starts_with(|c: char| c.is_ascii_uppercase()));
                    if done == Edit::Reorder || done == Edit::CasePunct {
                        let mut a: Vec<u32> = orig.iter().map(|t| t.word).collect();
                        let mut b: Vec<u32> = toks.iter().map(|t| t.word).collect();
                        a.sort_unstable();
                        b.sort_unstable();
                        assert_eq!(a, b, "{edit:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn edge_cases_do_not_panic() {
        for (docs, words, dup, vocab) in [
            (0, 300, 0.2, 100),
            (1, 300, 1.0, 100),
            (2, 1, 1.0, 1),
            (50, 5, 0.9, 3),
            (30, 2, f64::NAN, 10),
        ] {
            let g = generate(&GenOptions {
                docs,
                seed: 1,
                words,
                dup_fraction: dup,
                vocab,
                text: Text::Words,
            });
            assert_eq!(g.docs.len(), docs);
            // English under the same edge cases.
            let e = generate(&GenOptions {
                docs,
                seed: 1,
                words,
                dup_fraction: dup,
                vocab,
                text: Text::English,
            });
            assert_eq!(e.docs.len(), docs);
        }
    }

    #[test]
    fn write_then_read_truth_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let g = generate(&opts(1200, 21, 80, 0.3));
        let out = dir.path().join("corpus");
        let truth = dir.path().join("corpus.truth.jsonl");
        write(&g, &out, &truth).unwrap();
        let files = walkdir::WalkDir::new(&out)
            .into_iter()
            .filter(|e| e.as_ref().unwrap().file_type().is_file())
            .count();
        assert_eq!(files, 1200);
        for d in [&g.docs[0], &g.docs[1100]] {
            assert_eq!(std::fs::read_to_string(out.join(&d.id)).unwrap(), d.text);
        }
        // Exactly: the floats read back are the floats written.
        let expect: Vec<TruthPair> = g.truth.iter().map(TruthPair::from).collect();
        assert_eq!(read_truth(&truth).unwrap(), expect);

        // Never into a non-empty folder, but an empty one is fine.
        let err = write(&g, &out, &truth).unwrap_err().to_string();
        assert!(err.contains("not empty"), "{err}");
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        write(&g, &empty, &dir.path().join("t2.jsonl")).unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        assert!(write(&g, &file, &truth).is_err());
    }

    #[test]
    fn truth_lines_escape_and_report_errors() {
        let p = Planted {
            a: "we\"ird\\/é.txt".into(),
            b: "z\n.txt".into(),
            edit: "sibling".into(),
            rate: 0.30000000000000004,
            jaccard: 0.09090909090909091,
        };
        let line = truth_to_jsonl(&p);
        assert!(line.starts_with("{\"a\":") && !line.contains('\n'));
        assert_eq!(parse_truth_line(&line).unwrap(), TruthPair::from(&p));
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["edit"], "sibling");

        // `simtui eval --write-truth`'s lines (no edit, no rate) and bare pairs are read
        // too; a field of the wrong type or a missing id is an error naming its line.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(
            &path,
            format!("{line}\n\n{{\"a\":\"x\",\"b\":\"y\",\"jaccard\":0.5}}\n{{\"a\":\"x\",\"b\":\"z\"}}\n"),
        )
        .unwrap();
        let read = read_truth(&path).unwrap();
        assert_eq!(read.len(), 3);
        assert_eq!(
            (read[1].jaccard, read[1].edit.as_deref(), read[1].rate),
            (Some(0.5), None, None)
        );
        assert_eq!((read[2].a.as_str(), read[2].jaccard), ("x", None));
        std::fs::write(
            &path,
            format!("{line}\n{{\"a\":\"x\",\"b\":\"y\",\"rate\":\"high\"}}\n"),
        )
        .unwrap();
        let err = format!("{:#}", read_truth(&path).unwrap_err());
        assert!(err.contains("line 2") && err.contains("rate"), "{err}");
        std::fs::write(&path, "{\"a\":\"x\",\"jaccard\":1}\n").unwrap();
        let err = format!("{:#}", read_truth(&path).unwrap_err());
        assert!(err.contains("line 1") && err.contains("\"b\""), "{err}");
        std::fs::write(&path, "{\"a\": 1}\nnot json\n").unwrap();
        assert!(
            read_truth(&path)
                .unwrap_err()
                .to_string()
                .contains("line 1")
        );
        // Nested values and odd spacing do not confuse the exact number reader.
        let odd = "{ \"x\": {\"rate\": 5}, \"a\" : \"k:\\\"\", \"b\":\"l\", \"edit\":\"copy\", \"rate\" : 1e-1, \"jaccard\":0.45454545454545453 }";
        let q = parse_truth_line(odd).unwrap();
        assert_eq!(
            (q.a.as_str(), q.rate, q.jaccard),
            ("k:\"", Some(0.1), Some(0.45454545454545453))
        );
    }

    /// `cargo test --release --lib generator::tests::timing -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn timing_50k_docs() {
        let t = std::time::Instant::now();
        let g = generate(&GenOptions {
            docs: 50_000,
            ..Default::default()
        });
        let gen_s = t.elapsed().as_secs_f64();
        let dir = tempfile::tempdir().unwrap();
        let t = std::time::Instant::now();
        write(&g, &dir.path().join("c"), &dir.path().join("c.truth.jsonl")).unwrap();
        let bytes: usize = g.docs.iter().map(|d| d.text.len()).sum();
        eprintln!(
            "50,000 docs, {} pairs, {:.1} MB: generate {gen_s:.2} s, write {:.2} s",
            g.truth.len(),
            bytes as f64 / 1e6,
            t.elapsed().as_secs_f64()
        );
    }
}
