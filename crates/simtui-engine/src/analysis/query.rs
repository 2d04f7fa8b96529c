//! Nearest neighbours of one document: a document of the corpus, or any text outside it.
//!
//! The query is tokenised, shingled and sketched with the index's own parameters, looked
//! up in the same LSH bands (or SimHash block tables) the corpus was banded with, and its
//! candidates ranked by exact Jaccard. Fewer candidates than asked for can be filled up
//! from a brute-force scan of every document.

use crate::analysis::method::{Engine, Method};
use crate::error::Result;
use crate::search::banding::band_key;
use crate::search::blocks::{BlockIndex, BlockTables};
use crate::shingle::{jaccard, shingle_set};
use crate::sketch::{Sketcher, estimate};
use crate::text::Tokenizer;
use rayon::prelude::*;

/// What a query is compared with: its shingle set and its sketch.
#[derive(Clone, Debug)]
pub struct Probe {
    /// Its shingle set, sorted and deduplicated: empty for an empty text, which has no
    /// neighbours.
    pub shingles: Vec<u64>,
    /// MinHash signature, as wide as the index's (empty when it has none).
    pub(crate) signature: Vec<u32>,
    /// SimHash fingerprint (SimHash engines only).
    pub(crate) fingerprint: Option<u128>,
    /// The corpus document queried, which is not its own neighbour.
    pub(crate) doc: Option<u32>,
}

impl Probe {
    /// A document of the corpus; an error when its set or signature cannot be read
    /// back.
    pub fn of_doc(engine: &Engine, doc: u32) -> Result<Probe> {
        let index = &engine.index;
        let g = index.docs.group(doc as usize);
        Ok(Probe {
            shingles: index.shingles.get(g as usize)?.to_vec(),
            signature: index.signatures.row(g as usize)?.to_vec(),
            fingerprint: index.fingerprints().map(|f| f.get(g)),
            doc: Some(doc),
        })
    }

    /// A text from outside the corpus, read with the index's text options, k and sketch.
    /// `tok` must tokenise with the index's options (`Tokenizer::new(&index.params.text)`):
    /// it is passed in to be reused across queries, and nothing checks it.
    pub fn of_text(engine: &Engine, tok: &mut Tokenizer, text: &str) -> Probe {
        let index = &engine.index;
        let mut tokens = Vec::new();
        tok.token_hashes(text, &mut tokens);
        let mut shingles = Vec::new();
        shingle_set(&tokens, index.params.k, &mut shingles);
        let sketcher = Sketcher::new(
            index.params.sketch,
            index.params.seed,
            index.signatures.width(),
        );
        Probe {
            signature: sketcher.sketch(&shingles),
            fingerprint: engine.index.fingerprints().map(|f| f.of_tokens(&tokens)),
            shingles,
            doc: None,
        }
    }
}

/// One neighbour of a query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbour {
    /// The document: its position in the index's [`docs`](crate::index::Index::docs).
    pub doc: u32,
    /// Exact Jaccard similarity with the query, in [0, 1].
    pub jaccard: f64,
    /// MinHash estimate (0 when the index has no signatures).
    pub estimate: f64,
    /// Hamming distance of the fingerprints (SimHash only).
    pub hamming: Option<u32>,
    /// Found by the brute-force scan rather than as a candidate.
    pub scanned: bool,
}

/// The neighbours of one query, best first.
#[derive(Clone, Debug, Default)]
pub struct Answer {
    /// At most the number asked for, by exact J descending, then by id.
    pub neighbours: Vec<Neighbour>,
    /// Candidate documents (LSH or block-table), before the cut to the top N.
    pub candidates: usize,
}

/// The order of a query's neighbours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rank {
    /// By exact Jaccard, descending (then by id).
    #[default]
    Jaccard,
    /// By the sketch's estimate of it: the MinHash estimate descending, or with SimHash
    /// the Hamming distance of the fingerprints ascending; ties by exact Jaccard, then
    /// by id. The top N are the N best by the estimate, as an LSH index without
    /// verification would give them.
    Estimate,
}

/// What a query asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ask {
    /// The most neighbours to return.
    pub top: usize,
    /// Fill up fewer than `top` neighbours from a brute-force scan of every document.
    pub exhaustive: bool,
    /// Only neighbours with exact Jaccard at least this (0 keeps every candidate).
    pub min_jaccard: f64,
    /// How they are ordered, and so which `top` are kept.
    pub rank: Rank,
}

impl Ask {
    /// The `top` nearest by exact Jaccard, maybe filled up by a scan, none left out.
    pub fn top(top: usize, exhaustive: bool) -> Ask {
        Ask {
            top,
            exhaustive,
            min_jaccard: 0.0,
            rank: Rank::Jaccard,
        }
    }
}

/// The lookup structure of the engine's method.
enum Lookup {
    /// Per band, (band key, group) sorted.
    Bands {
        bands: usize,
        rows: usize,
        tables: Vec<Vec<(u64, u32)>>,
    },
    Blocks(BlockIndex),
}

/// Answers queries against an engine's corpus.
pub struct Searcher<'a> {
    engine: &'a Engine,
    lookup: Lookup,
}

impl<'a> Searcher<'a> {
    /// Buckets every non-empty group once, for any number of queries; an error when the
    /// signatures cannot be read back.
    ///
    /// # Panics
    /// If a MinHash engine's bands × rows exceed its signatures' width, or a SimHash
    /// engine has no fingerprints (neither happens to an engine from [`Engine::build`]).
    pub fn new(engine: &'a Engine) -> Result<Searcher<'a>> {
        let index = &engine.index;
        let items = index.groups().nonempty();
        let lookup = match engine.method {
            Method::MinHash { bands, rows } => {
                assert!(bands * rows <= index.signatures.width());
                let sigs = index.signatures.pick(items.clone())?;
                let tables = (0..bands)
                    .into_par_iter()
                    .map(|band| {
                        let mut t: Vec<(u64, u32)> = items
                            .iter()
                            .map(|&g| {
                                let row = sigs.get(g);
                                (band_key(&row[band * rows..(band + 1) * rows], band), g)
                            })
                            .collect();
                        t.sort_unstable();
                        t
                    })
                    .collect();
                Lookup::Bands {
                    bands,
                    rows,
                    tables,
                }
            }
            Method::SimHash { max_distance, .. } => {
                let fps = engine.fingerprints();
                let layout = BlockTables::new(fps.bits(), max_distance, items.len());
                Lookup::Blocks(BlockIndex::new(layout, fps.as_slice(), &items))
            }
        };
        Ok(Searcher { engine, lookup })
    }

    /// The candidate groups of a probe, sorted.
    fn candidate_groups(&self, probe: &Probe) -> Vec<u32> {
        let mut groups = match &self.lookup {
            Lookup::Bands {
                bands,
                rows,
                tables,
            } => {
                let mut out = Vec::new();
                for (band, table) in tables.iter().enumerate().take(*bands) {
                    // Whole keys must match. The corpus's own banding compares only their
                    // top 40 bits (band.rs packs the item below), so it may also pair keys that
                    // differ below those: about n·2^-40 false candidates per band, which
                    // verification would have rejected anyway.
                    let key = band_key(&probe.signature[band * rows..(band + 1) * rows], band);
                    let start = table.partition_point(|x| x.0 < key);
                    out.extend(
                        table[start..]
                            .iter()
                            .take_while(|x| x.0 == key)
                            .map(|x| x.1),
                    );
                }
                out
            }
            Lookup::Blocks(blocks) => blocks.near(
                probe
                    .fingerprint
                    .expect("a SimHash probe has a fingerprint"),
                self.engine.fingerprints().as_slice(),
            ),
        };
        groups.sort_unstable();
        groups.dedup();
        groups
    }

    fn neighbour(
        &self,
        probe: &Probe,
        g: u32,
        doc: u32,
        scanned: bool,
        j: f64,
    ) -> Result<Neighbour> {
        let index = &self.engine.index;
        let sig = index.signatures.row(g as usize)?;
        Ok(Neighbour {
            doc,
            jaccard: j,
            estimate: if sig.is_empty() || sig.len() != probe.signature.len() {
                0.0
            } else {
                estimate(&probe.signature, &sig)
            },
            hamming: index
                .fingerprints()
                .zip(probe.fingerprint)
                .map(|(f, fp)| crate::sketch::simhash::fingerprint::hamming(fp, f.get(g))),
            scanned,
        })
    }

    /// The `top` nearest documents among the candidates, by exact Jaccard (then id). With
    /// `exhaustive`, fewer than `top` candidates are filled up with the most similar
    /// other documents (J > 0) from a scan of the whole corpus. An empty query has no
    /// neighbours. An error when a set or signature cannot be read back.
    pub fn neighbours(&self, probe: &Probe, top: usize, exhaustive: bool) -> Result<Answer> {
        self.ask(probe, &Ask::top(top, exhaustive))
    }

    /// The neighbours `ask` asks for: the candidates with exact Jaccard at least
    /// `ask.min_jaccard`, ordered by `ask.rank`, the first `ask.top` of them. With
    /// `ask.exhaustive`, fewer than `top` such candidates are filled up with the most
    /// similar other documents (by exact Jaccard, J > 0 and at least `min_jaccard`) from
    /// a scan of the whole corpus. An empty query has no neighbours. An error when a set
    /// or signature cannot be read back.
    pub fn ask(&self, probe: &Probe, ask: &Ask) -> Result<Answer> {
        let index = &self.engine.index;
        let top = ask.top;
        if probe.shingles.is_empty() {
            return Ok(Answer::default());
        }
        let groups = self.candidate_groups(probe);
        let mut out = Vec::new();
        let mut candidates = 0;
        for &g in &groups {
            let j = jaccard(&probe.shingles, &index.shingles.get(g as usize)?);
            for &d in index.members(g) {
                if Some(d) != probe.doc {
                    candidates += 1;
                    if j >= ask.min_jaccard {
                        out.push(self.neighbour(probe, g, d, false, j)?);
                    }
                }
            }
        }
        if ask.exhaustive && out.len() < top {
            // Every other non-empty group, by exact Jaccard; a scan over the whole corpus.
            let scan = |g: u32| -> Result<Option<(f64, u32)>> {
                let j = jaccard(&probe.shingles, &index.shingles.get(g as usize)?);
                Ok((j > 0.0 && j >= ask.min_jaccard).then_some((j, g)))
            };
            let mut scanned: Vec<(f64, u32)> = index
                .groups()
                .nonempty()
                .into_par_iter()
                .filter(|g| groups.binary_search(g).is_err())
                .map(scan)
                .filter_map(Result::transpose)
                .collect::<Result<_>>()?;
            scanned.sort_unstable_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
            let mut extra = Vec::new();
            for (j, g) in scanned {
                // Whole groups, so that ties at the cut are broken by id below.
                if out.len() + extra.len() >= top {
                    break;
                }
                for &d in index.members(g) {
                    if Some(d) != probe.doc {
                        extra.push(self.neighbour(probe, g, d, true, j)?);
                    }
                }
            }
            sort_neighbours(index, &mut extra);
            extra.truncate(top - out.len());
            out.extend(extra);
        }
        match ask.rank {
            Rank::Jaccard => sort_neighbours(index, &mut out),
            Rank::Estimate => sort_by_estimate(index, &mut out),
        }
        out.truncate(top);
        Ok(Answer {
            neighbours: out,
            candidates,
        })
    }
}

/// By exact J descending, then by id (numbers as numbers).
fn sort_neighbours(index: &crate::index::Index, v: &mut [Neighbour]) {
    v.sort_unstable_by(|x, y| {
        y.jaccard.total_cmp(&x.jaccard).then_with(|| {
            crate::natural::natural_cmp(
                &index.docs.id(x.doc as usize),
                &index.docs.id(y.doc as usize),
            )
        })
    });
}

/// By the sketch's estimate: the MinHash estimate descending, or the Hamming distance
/// ascending; then by exact J descending, then by id.
fn sort_by_estimate(index: &crate::index::Index, v: &mut [Neighbour]) {
    v.sort_unstable_by(|x, y| {
        let by_sketch = match (x.hamming, y.hamming) {
            (Some(hx), Some(hy)) => hx.cmp(&hy),
            _ => y.estimate.total_cmp(&x.estimate),
        };
        by_sketch
            .then(y.jaccard.total_cmp(&x.jaccard))
            .then_with(|| (index.docs.id(x.doc as usize)).cmp(&index.docs.id(y.doc as usize)))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::IndexBuilder;
    use crate::index::Params;
    use crate::progress::Silent;
    use crate::sketch::simhash::fingerprint::{SimHasher, Weight};
    use crate::source::Corpus;

    const BASE: &str = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega";

    fn engine(method: Method) -> Engine {
        let texts = vec![
            ("a", BASE.to_string()),
            ("b", BASE.replace("kappa", "KAPPA!").replace("mu", "moo")),
            ("c", BASE.to_string()),
            ("d", BASE.replace("pi", "3.14")),
            (
                "e",
                "unrelated words about cooking pasta with tomatoes and basil and garlic"
                    .to_string(),
            ),
        ];
        Engine::build(
            IndexBuilder::new(&Params::default()),
            method,
            Corpus::from_texts(texts.into_iter().map(|(i, t)| (i.to_string(), t))),
            &Silent,
        )
        .unwrap()
    }

    #[test]
    fn a_corpus_document_finds_its_copy_and_near_duplicates_but_not_itself() {
        let e = engine(Method::MinHash { bands: 64, rows: 2 });
        let s = Searcher::new(&e).unwrap();
        let ans = s
            .neighbours(&Probe::of_doc(&e, 0).unwrap(), 10, false)
            .unwrap();
        let ids: Vec<String> = ans
            .neighbours
            .iter()
            .map(|n| e.index.docs.at(n.doc as usize).id.clone())
            .collect();
        assert_eq!(ids[0], "c");
        assert_eq!(ans.neighbours[0].jaccard, 1.0);
        assert!(!ids.iter().any(|i| i == "a"));
        assert!(ids.iter().any(|i| i == "d") && ids.iter().any(|i| i == "b"));
        assert!(
            ans.neighbours
                .windows(2)
                .all(|w| w[0].jaccard >= w[1].jaccard)
        );
        // Top 1 keeps the best.
        assert_eq!(
            s.neighbours(&Probe::of_doc(&e, 0).unwrap(), 1, false)
                .unwrap()
                .neighbours
                .len(),
            1
        );
    }

    #[test]
    fn an_outside_text_is_sketched_like_the_corpus_and_the_scan_fills_up() {
        let e = engine(Method::MinHash { bands: 4, rows: 32 });
        let s = Searcher::new(&e).unwrap();
        let mut tok = Tokenizer::new(&e.index.params.text);
        // The same words as a and c: identical shingles, identical signature.
        let p = Probe::of_text(&e, &mut tok, &BASE.to_uppercase());
        assert_eq!(p.signature, *e.index.signatures.row(0).unwrap());
        let ans = s.neighbours(&p, 10, false).unwrap();
        assert!(ans.candidates >= 2);
        // Bands of 32 rows make b and d (J about 0.6) unlikely candidates; the scan adds
        // them, marked, and nothing with J = 0 (e).
        let full = s.neighbours(&p, 10, true).unwrap();
        assert_eq!(full.neighbours.len(), 4);
        assert_eq!(
            full.neighbours.iter().filter(|n| n.scanned).count(),
            4 - ans.candidates
        );
        assert!(full.neighbours.iter().all(|n| n.jaccard > 0.0));
        let exact: Vec<f64> = full
            .neighbours
            .iter()
            .map(|n| e.index.similarity(0, n.doc).0)
            .collect();
        assert_eq!(
            full.neighbours
                .iter()
                .map(|n| n.jaccard)
                .collect::<Vec<_>>(),
            exact
        );
        // An empty text has no neighbours.
        assert!(
            s.neighbours(&Probe::of_text(&e, &mut tok, " "), 5, true)
                .unwrap()
                .neighbours
                .is_empty()
        );
    }

    #[test]
    fn a_threshold_keeps_exactly_the_neighbours_at_or_above_it() {
        let e = engine(Method::MinHash { bands: 64, rows: 2 });
        let s = Searcher::new(&e).unwrap();
        let p = Probe::of_doc(&e, 0).unwrap();
        let all = s.neighbours(&p, 100, true).unwrap().neighbours;
        let js: Vec<f64> = all.iter().map(|n| n.jaccard).collect();
        assert!(
            js.iter().any(|&j| j < 0.7) && js.iter().any(|&j| j >= 0.7),
            "{js:?}"
        );
        for t in [0.0, 0.3, 0.6, 0.7, 1.0] {
            let ask = Ask {
                min_jaccard: t,
                ..Ask::top(100, true)
            };
            let got = s.ask(&p, &ask).unwrap();
            let want: Vec<Neighbour> = all.iter().copied().filter(|n| n.jaccard >= t).collect();
            assert_eq!(got.neighbours, want, "threshold {t}");
            // The candidates are counted before the threshold.
            assert_eq!(
                got.candidates,
                s.neighbours(&p, 100, false).unwrap().candidates
            );
        }
        // The threshold applies before the cut to the top N.
        let ask = Ask {
            min_jaccard: 0.5,
            ..Ask::top(1, false)
        };
        assert_eq!(s.ask(&p, &ask).unwrap().neighbours, all[..1]);
    }

    #[test]
    fn ranked_by_estimate_the_top_n_are_the_best_estimates() {
        let e = engine(Method::MinHash { bands: 64, rows: 2 });
        let s = Searcher::new(&e).unwrap();
        let p = Probe::of_doc(&e, 1).unwrap();
        let all = s.neighbours(&p, 100, false).unwrap().neighbours;
        let mut by_estimate = all.clone();
        by_estimate.sort_by(|x, y| {
            y.estimate
                .total_cmp(&x.estimate)
                .then(y.jaccard.total_cmp(&x.jaccard))
                .then((e.index.docs.id(x.doc as usize)).cmp(&e.index.docs.id(y.doc as usize)))
        });
        for top in 1..=all.len() {
            let ask = Ask {
                rank: Rank::Estimate,
                ..Ask::top(top, false)
            };
            let got = s.ask(&p, &ask).unwrap().neighbours;
            assert_eq!(got, by_estimate[..top], "top {top}");
        }
        // The estimates are the signatures' and J is still exact.
        for n in &s
            .ask(
                &p,
                &Ask {
                    rank: Rank::Estimate,
                    ..Ask::top(10, false)
                },
            )
            .unwrap()
            .neighbours
        {
            let (j, est) = e.index.similarity(1, n.doc);
            assert_eq!((n.jaccard, n.estimate), (j, est));
        }
        // With SimHash the estimate is the Hamming distance, closest first.
        let e = engine(Method::SimHash {
            hasher: SimHasher::new(64, 1, Weight::Tf),
            max_distance: 31,
        });
        let s = Searcher::new(&e).unwrap();
        let ans = s
            .ask(
                &Probe::of_doc(&e, 1).unwrap(),
                &Ask {
                    rank: Rank::Estimate,
                    ..Ask::top(10, false)
                },
            )
            .unwrap();
        assert!(ans.neighbours.len() >= 2);
        assert!(
            ans.neighbours
                .windows(2)
                .all(|w| w[0].hamming <= w[1].hamming)
        );
    }

    #[test]
    fn simhash_queries_report_hamming() {
        let e = engine(Method::SimHash {
            hasher: SimHasher::new(128, 1, Weight::Idf),
            max_distance: 40,
        });
        let s = Searcher::new(&e).unwrap();
        let ans = s
            .neighbours(&Probe::of_doc(&e, 0).unwrap(), 10, false)
            .unwrap();
        assert_eq!(e.index.docs.at(ans.neighbours[0].doc as usize).id, "c");
        assert_eq!(ans.neighbours[0].hamming, Some(0));
        assert!(ans.neighbours.iter().all(|n| n.hamming.unwrap() <= 40));
    }
}
