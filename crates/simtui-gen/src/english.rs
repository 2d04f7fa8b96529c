//! Real English for [`Text::English`](crate::Text::English): about 11,600 sentences of
//! Jane Austen's *Pride and Prejudice*, *Persuasion* and the beginning of *Northanger
//! Abbey* (public domain), compiled into the crate as `assets/english.txt.zst` (zstd, under
//! 400 KB; `assets/make-english.sh` rebuilds it from Debian's r-cran-janeaustenr).
//!
//! Each sentence becomes the generator's tokens: a word (lower-cased, with its case kept
//! aside as for pseudo-words) and the punctuation around it (opening quotes before,
//! commas, closing quotes and the sentence's own end after), so an unedited sentence is
//! written back exactly as the novel has it, and the generator's edits (substitutions,
//! deletions, case and punctuation changes...) work on it as on pseudo-words. An
//! original document is short runs of consecutive sentences from random places, so its
//! passages read as the novel does.
//!
//! The novels hold about 250,000 words and a demo of 2,000 documents twice that, so
//! unrelated documents share sentences now and then. Runs are kept short (at most three
//! sentences and 60 words, of sentences up to 50 words) so that a shared run is a small
//! part of either document: unrelated documents stay far below the similarities that
//! count as near-duplicates.

use crate::{AS_WRITTEN, CAPITAL, LOWER, Tok, UPPER, Vocab};
use simtui_engine::rng::Rng;
use std::collections::HashMap;
use std::io::Read;
use std::sync::{Arc, OnceLock};

/// One sentence a line, zstd-compressed.
static ASSET: &[u8] = include_bytes!("../assets/english.txt.zst");

/// The most sentences a run of consecutive ones takes.
const MAX_RUN: u64 = 3;
/// The most words of a run.
const MAX_RUN_WORDS: usize = 60;
/// Longer sentences are never drawn (they stay in the vocabulary's counts): one shared by
/// two documents would make them look alike.
const MAX_SENTENCE_WORDS: usize = 50;

/// The asset's text: one sentence a line.
pub fn text() -> String {
    let mut decoder =
        ruzstd::decoding::StreamingDecoder::new(ASSET).expect("the English asset is a zstd frame");
    let mut text = String::new();
    decoder
        .read_to_string(&mut text)
        .expect("the English asset is UTF-8 zstd");
    text
}

/// The sentences as tokens, to draw documents from.
pub(crate) struct Prose {
    sentences: Vec<Vec<Tok>>,
    /// The sentences a run may start with: at most [`MAX_SENTENCE_WORDS`] words.
    starts: Vec<u32>,
}

impl Prose {
    fn new(sentences: Vec<Vec<Tok>>) -> Prose {
        let starts = (0..sentences.len() as u32)
            .filter(|&s| sentences[s as usize].len() <= MAX_SENTENCE_WORDS)
            .collect();
        Prose { sentences, starts }
    }

    /// Appends runs of consecutive sentences from random places until at least `n` words
    /// (at least one sentence) are added.
    pub(crate) fn push(&self, rng: &mut Rng, n: usize, out: &mut Vec<Tok>) {
        let mut added = 0;
        while added < n.max(1) {
            let start = self.starts[rng.below(self.starts.len() as u64) as usize] as usize;
            let most = 1 + rng.below(MAX_RUN) as usize;
            let mut run_words = 0;
            for sentence in self.sentences[start..].iter().take(most) {
                let fits = sentence.len() <= MAX_SENTENCE_WORDS
                    && (run_words == 0 || run_words + sentence.len() <= MAX_RUN_WORDS);
                if !fits {
                    break;
                }
                out.extend_from_slice(sentence);
                run_words += sentence.len();
            }
            added += run_words;
        }
    }
}

/// The English vocabulary (words by their frequency in the novels) with its sentences,
/// decompressed and parsed once.
pub(crate) fn vocab() -> Arc<Vocab> {
    static VOCAB: OnceLock<Arc<Vocab>> = OnceLock::new();
    VOCAB.get_or_init(|| Arc::new(parse(&text()))).clone()
}

/// Interns strings: each distinct one gets the next index.
#[derive(Default)]
struct Interner {
    index: HashMap<String, u32>,
    items: Vec<String>,
}

impl Interner {
    fn get(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.items.len() as u32;
        self.index.insert(s.to_string(), i);
        self.items.push(s.to_string());
        i
    }
}

/// Builds the vocabulary and sentences from the text, one sentence a line.
fn parse(text: &str) -> Vocab {
    let mut words = Interner::default();
    let mut affixes = Interner::default();
    affixes.get(""); // index 0: no punctuation
    let mut counts: Vec<u64> = Vec::new();
    let mut sentences = Vec::new();
    for line in text.lines() {
        let toks = sentence(line, &mut words, &mut affixes);
        for t in &toks {
            if counts.len() <= t.word as usize {
                counts.resize(t.word as usize + 1, 0);
            }
            counts[t.word as usize] += 1;
        }
        if !toks.is_empty() {
            sentences.push(toks);
        }
    }
    // Most frequent first (ties by the word, so the order is the same everywhere).
    let mut order: Vec<u32> = (0..words.items.len() as u32).collect();
    order.sort_by(|&a, &b| {
        counts[b as usize]
            .cmp(&counts[a as usize])
            .then_with(|| words.items[a as usize].cmp(&words.items[b as usize]))
    });
    let mut rank = vec![0u32; order.len()];
    for (r, &w) in order.iter().enumerate() {
        rank[w as usize] = r as u32;
    }
    for t in sentences.iter_mut().flatten() {
        t.word = rank[t.word as usize];
    }
    let ranked: Vec<String> = order
        .iter()
        .map(|&w| words.items[w as usize].clone())
        .collect();
    // Counts are exact integers in f64; each cumulative division is correctly rounded.
    let weights = order.iter().map(|&w| counts[w as usize] as f64);
    let mut vocab = Vocab::with_weights(ranked, weights);
    vocab.affixes = affixes.items;
    vocab.prose = Some(Prose::new(sentences));
    vocab
}

/// A sentence's tokens: each word with the punctuation before and after it; a chunk of
/// punctuation alone (a dash between spaces) joins the word before (or the next one).
fn sentence(line: &str, words: &mut Interner, affixes: &mut Interner) -> Vec<Tok> {
    let mut toks: Vec<Tok> = Vec::new();
    let mut pending = String::new();
    for chunk in line.split_whitespace() {
        let Some(start) = chunk.find(char::is_alphanumeric) else {
            match toks.last_mut() {
                Some(prev) => {
                    let post = format!("{} {chunk}", affixes.items[prev.post as usize]);
                    prev.post = affix(affixes, &post);
                }
                None => {
                    pending.push_str(chunk);
                    pending.push(' ');
                }
            }
            continue;
        };
        let end = chunk
            .char_indices()
            .rfind(|(_, c)| c.is_alphanumeric())
            .map(|(i, c)| i + c.len_utf8())
            .expect("a chunk with a letter or digit");
        let (word, case) = cased(&chunk[start..end]);
        let mut t = Tok::word(words.get(&word));
        t.case = case;
        pending.push_str(&chunk[..start]);
        t.pre = affix(affixes, &pending);
        pending.clear();
        t.post = affix(affixes, &chunk[end..]);
        toks.push(t);
    }
    if let Some(last) = toks.last_mut() {
        last.end = AS_WRITTEN;
    }
    toks
}

fn affix(affixes: &mut Interner, s: &str) -> u16 {
    u16::try_from(affixes.get(s)).expect("fewer than 65,536 kinds of punctuation")
}

/// A word as the vocabulary holds it and its case, so that rendering gives it back: lower
/// case, Capitalised or UPPER; anything else (McDonald) is kept as written.
fn cased(core: &str) -> (String, u8) {
    let lower = core.to_lowercase();
    let mut capital = String::new();
    crate::capitalise(&lower, &mut capital);
    if core == lower {
        (lower, LOWER)
    } else if core == capital {
        (lower, CAPITAL)
    } else if core == lower.to_ascii_uppercase() && core.chars().count() > 1 {
        (lower, UPPER)
    } else {
        (core.to_string(), LOWER)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unedited_sentences_are_written_back_as_the_novel_has_them() {
        let text = text();
        let vocab = vocab();
        let prose = vocab.prose.as_ref().unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() > 10_000, "{} sentences", lines.len());
        assert_eq!(prose.sentences.len(), lines.len());
        assert!(ASSET.len() < 400_000, "the asset stays under 400 KB");
        let mut same = 0;
        for (line, toks) in lines.iter().zip(&prose.sentences) {
            let mut toks = toks.clone();
            toks.last_mut().unwrap().para = true;
            let mut out = String::new();
            crate::render(&vocab, &toks, &mut out);
            // A sentence the novel starts in lower case is capitalised, as all are.
            if out.trim_end() == *line {
                same += 1;
            }
        }
        assert!(
            same * 1000 >= lines.len() * 998,
            "{same} of {}",
            lines.len()
        );
        assert_eq!(
            lines[0],
            "It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife."
        );
        // The most frequent word first, as the sampler expects.
        assert_eq!(vocab.words[0], "the");
    }

    #[test]
    fn words_keep_their_case_and_punctuation() {
        let (mut w, mut a) = (Interner::default(), Interner::default());
        a.get("");
        let toks = sentence(
            "\"My dear Mr. Bennet,\" said his lady -- OK?",
            &mut w,
            &mut a,
        );
        let shown: Vec<(&str, u8, &str, &str)> = toks
            .iter()
            .map(|t| {
                (
                    w.items[t.word as usize].as_str(),
                    t.case,
                    a.items[t.pre as usize].as_str(),
                    a.items[t.post as usize].as_str(),
                )
            })
            .collect();
        assert_eq!(shown[0], ("my", CAPITAL, "\"", ""));
        assert_eq!(shown[2], ("mr", CAPITAL, "", "."));
        assert_eq!(shown[3], ("bennet", CAPITAL, "", ",\""));
        assert_eq!(shown[6], ("lady", LOWER, "", " --"));
        assert_eq!(shown[7], ("ok", UPPER, "", "?"));
        assert_eq!(toks[7].end, AS_WRITTEN);
        assert!(toks[..7].iter().all(|t| t.end == 0));
        assert_eq!(cased("McDonald"), ("McDonald".to_string(), LOWER));
    }
}
