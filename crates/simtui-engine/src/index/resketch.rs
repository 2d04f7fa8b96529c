//! Re-sketching a built index: a copy with other signatures (wider, narrower, another
//! sketch or seed) sharing the shingle sets ([`Index::sketched`]), and SimHash
//! fingerprints computed afterwards from the texts ([`Fingerprints::from_index`]).

use super::{Index, Params};
use crate::error::Result;
use crate::progress::{Cancelled, Progress, check};
use crate::sketch::simhash::fingerprint::{Digest, SimHasher};
use crate::sketch::simhash::fingerprints::{FingerprintBuilder, Fingerprints};
use crate::sketch::{Signatures, SketchKind, Sketcher};
use crate::source::{Entry, read_text};
use crate::text::Tokenizer;
use rayon::prelude::*;
use std::sync::{Arc, Mutex};

impl Index {
    /// A copy whose signatures are exactly those a fresh build with `num_perm = n` (the
    /// same sketch and seed) computes, so that banding b × r with b·r = n finds what a
    /// fresh run at b × r finds, estimates included. See [`Index::sketched`].
    pub fn with_width(&self, n: usize, progress: &dyn Progress) -> Result<Index> {
        self.sketched(self.params.sketch, self.params.seed, n, progress)
    }

    /// A copy whose signatures are exactly those a fresh build with this `sketch`, `seed`
    /// and `num_perm = n` computes (the shingle sets are shared, not copied). Only what
    /// differs is computed: MinHash of the same seed keeps the functions below `n` and
    /// computes the missing ones; an OPH signature of another width is another sketch
    /// (a shingle's bin depends on the number of bins), so it is computed anew, as is
    /// any other sketch or seed. Fails only when cancelled, when the signatures would
    /// not fit in memory, or when a set cannot be read back.
    pub fn sketched(
        &self,
        sketch: SketchKind,
        seed: u64,
        n: usize,
        progress: &dyn Progress,
    ) -> Result<Index> {
        let width = self.signatures.width();
        let same = sketch == self.params.sketch && seed == self.params.seed;
        let sketcher = Sketcher::new(sketch, seed, n);
        // New signatures in what the budget leaves the index without its old ones (a
        // saved index read from its file holds none); past it, on a temporary file.
        let budget = &self.budget;
        let others = self.held() - self.signatures.heap_bytes() as u64;
        let room = budget.room(budget.for_index().saturating_sub(others));
        let block = (budget.work() / 2).min(256 << 20);
        let signatures = match sketch {
            _ if same && n == width => self.signatures.clone(),
            SketchKind::MinHash if same && n < width => self.signatures.truncated_in(n, &room)?,
            SketchKind::MinHash if same => {
                self.signatures
                    .extended_in(&sketcher, &self.shingles, (&room, block), progress)?
            }
            _ => Signatures::compute_in(&sketcher, &self.shingles, &room, block, progress)?,
        };
        Ok(self.with_signatures(signatures, seed, sketch))
    }

    /// A copy with other signatures (of this index's groups), sharing the shingle sets.
    fn with_signatures(&self, signatures: Signatures, seed: u64, sketch: SketchKind) -> Index {
        let params = Params {
            num_perm: signatures.width(),
            seed,
            sketch,
            ..self.params.clone()
        };
        Index {
            params,
            docs: self.docs.clone(),
            skipped: self.skipped.clone(),
            shingles: self.shingles.clone(),
            signatures,
            fingerprints: self.fingerprints.clone(),
            contents: self.contents.clone(),
            groups: self.groups.clone(),
            stats: self.stats.clone(),
            budget: self.budget.clone(),
            keep: self.keep,
            text_bytes: self.text_bytes,
            id_order: self.id_order.clone(),
            failure: Arc::new(Mutex::new(None)),
        }
    }
}

impl Fingerprints {
    /// Fingerprints for an index built without them (another seed or width, or a
    /// method switched after the fact): each group's text is read and tokenised again.
    /// A group whose text is gone or no longer has the token count it was indexed with
    /// is counted in `stale` (its fingerprint is of what could be read, 0 if nothing).
    pub fn from_index(
        index: &Index,
        hasher: SimHasher,
        progress: &dyn Progress,
    ) -> Result<Fingerprints> {
        let groups: Vec<u32> = (0..index.groups.len() as u32).collect();
        let params = &index.params;
        let digests: Vec<(Digest, bool)> = groups
            .par_chunks(1024)
            .map_init(
                || (Tokenizer::new(&params.text), Vec::new()),
                |(tok, buf), chunk| {
                    check(progress)?;
                    Ok(chunk
                        .iter()
                        .map(|&g| {
                            let doc = &index.docs.at(index.members(g)[0] as usize);
                            let entry = Entry {
                                id: doc.id.clone(),
                                source: doc.source.clone(),
                                bytes: doc.bytes,
                            };
                            buf.clear();
                            let stale = match read_text(&entry, params.max_bytes) {
                                Ok(text) => {
                                    tok.token_hashes(&text, buf);
                                    buf.len() as u64 != doc.tokens
                                }
                                Err(_) => true,
                            };
                            (hasher.digest(buf), stale)
                        })
                        .collect::<Vec<_>>())
                },
            )
            .collect::<Result<Vec<_>, Cancelled>>()?
            .concat();
        let stale = digests.iter().filter(|d| d.1).count();
        let mut builder = FingerprintBuilder::new(hasher);
        for (d, _) in digests {
            builder.push(d);
        }
        let mut fps = builder.finish();
        fps.stale = stale;
        Ok(fps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Params;
    use crate::progress::Silent;
    use crate::search::found::Pair;
    use crate::sketch::simhash::fingerprint::Weight;
    use crate::source::Corpus;

    const BASE: &str = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat by the door and the bird sings";

    fn corpus() -> Corpus {
        let texts = [
            ("a", BASE.to_string()),
            ("b", BASE.replace("lazy", "sleepy")),
            ("c", BASE.to_uppercase()),
            (
                "d",
                "an entirely different text about numbers seven eight nine and ten".to_string(),
            ),
            ("e", String::new()),
        ];
        Corpus::from_texts(texts.into_iter().map(|(i, t)| (i.to_string(), t)))
    }

    #[test]
    fn build_and_from_index_agree_and_find_verifies() {
        let params = Params {
            num_perm: 0,
            ..Default::default()
        };
        for weight in [Weight::Tf, Weight::Idf] {
            let hasher = SimHasher::new(64, 1, weight);
            let index = Index::builder(&params)
                .fingerprints(hasher)
                .build(corpus(), &Silent)
                .unwrap();
            let fps = index.fingerprints().unwrap();
            assert_eq!(fps.len(), index.shingles.len());
            let again = Fingerprints::from_index(&index, hasher, &Silent).unwrap();
            assert_eq!(again.as_slice(), fps.as_slice());
            assert_eq!(again.stale, 0);
            // A text from outside, the same words as a: a's fingerprint.
            let mut tok = Tokenizer::new(&params.text);
            let mut t = Vec::new();
            tok.token_hashes(BASE, &mut t);
            assert_eq!(fps.of_tokens(&t), fps.get(index.docs.group(0)));

            let find = |d| {
                let search = index.search_fingerprints(fps, d, 0.0, &Silent).unwrap();
                index.spell(search).unwrap()
            };
            let found = find(20);
            let all: Vec<String> = index.docs.iter().map(|d| d.into_owned().id).collect();
            let ids = |p: &Pair| (all[p.a as usize].as_str(), all[p.b as usize].as_str());
            let names: Vec<_> = found.pairs.iter().map(ids).collect();
            assert_eq!(names[0], ("a", "c"), "identical documents first");
            assert!(names.contains(&("a", "b")), "{weight:?}: {names:?}");
            assert!(!names.iter().any(|(x, y)| *x == "e" || *y == "e"));
            for p in &found.pairs {
                let (j, _) = index.similarity(p.a, p.b);
                assert_eq!(p.jaccard, j);
                let (ga, gb) = (
                    index.docs.group(p.a as usize),
                    index.docs.group(p.b as usize),
                );
                assert!(fps.distance(ga, gb) <= 20);
            }
            // Distance 0 keeps only identical fingerprints.
            let exact = find(0);
            assert!(exact.pairs.iter().all(|p| {
                let (ga, gb) = (
                    index.docs.group(p.a as usize),
                    index.docs.group(p.b as usize),
                );
                fps.distance(ga, gb) == 0
            }));
        }
    }

    #[test]
    fn past_a_tiny_budget_a_re_sketch_and_the_exact_pairs_keep_to_it() {
        use crate::analysis::join::{Limits, PAIR_BYTES, memory_needed, similar_pairs};
        use crate::storage::{Budget, Kept};
        let texts: Vec<(String, String)> = (0..60)
            .map(|i| (format!("d{i}"), format!("{BASE} {}", i % 7)))
            .collect();
        let build = |budget: &Budget| {
            let corpus = Corpus::from_texts(texts.iter().cloned());
            let builder = Index::builder(&Params::default()).budget(budget);
            builder.build(corpus, &Silent).unwrap()
        };
        let free = build(&Budget::unlimited());
        let budget = Budget::new(0, None);
        let tight = build(&budget);
        assert_eq!(tight.shingles().kept(), Kept::File);
        // OPH of another width is sketched anew: on a temporary file, the same values.
        let want = free.sketched(SketchKind::Oph, 3, 104, &Silent).unwrap();
        let got = tight.sketched(SketchKind::Oph, 3, 104, &Silent).unwrap();
        assert_eq!(got.signatures().kept(), Kept::File);
        assert_eq!(got.signatures().heap_bytes(), 0);
        assert_eq!(
            got.signatures().data().unwrap(),
            want.signatures().data().unwrap()
        );
        // The exact pairs count the sets they read back, and keep to a limit of what
        // they need.
        let floor = 0.5;
        let (sets, in_memory) = (tight.shingles(), free.shingles());
        let needed = memory_needed(sets, floor);
        assert!(needed >= memory_needed(in_memory, floor) + 8 * sets.total() as u64);
        let all = similar_pairs(in_memory, floor, &Limits::default(), &Silent).unwrap();
        let limits = Limits {
            max_bytes: needed + PAIR_BYTES * all.len() as u64,
            ..Limits::default()
        };
        assert_eq!(similar_pairs(sets, floor, &limits, &Silent).unwrap(), all);
    }
}
