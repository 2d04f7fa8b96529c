//! The SimHash way of finding pairs in an index: its fingerprints (computed with it, or
//! afterwards from the texts), permuted block tables, then the same exact-Jaccard
//! verification as MinHash.

use crate::error::Result;
use crate::index::Index;
use crate::progress::{Cancelled, Progress, Stage, check};
use crate::search::blocks::BlockTables;
use crate::search::found::{Found, Search};
use crate::sketch::simhash::fingerprint::{Digest, SimHasher};
use crate::sketch::simhash::fingerprints::{FingerprintBuilder, Fingerprints};
use crate::source::{Entry, read_text};
use crate::text::Tokenizer;
use rayon::prelude::*;
use std::time::Instant;

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
        let groups: Vec<u32> = (0..index.shingles.len() as u32).collect();
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
                            let doc = &index.docs[index.members(g)[0] as usize];
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

/// Every pair of documents whose fingerprints are within `max_distance` bits (found with
/// permuted block tables, not by comparing all pairs), verified with exact Jaccard and
/// kept when J ≥ `threshold`; pairs of identical documents are included, as with MinHash.
/// `band_time` is the time spent in the block tables. Fails only when cancelled.
///
/// # Panics
/// If `fps` has not one fingerprint per group of `index`, or `max_distance` is not below
/// half the fingerprints' bits.
pub fn find(
    index: &Index,
    fps: &Fingerprints,
    max_distance: u32,
    threshold: f64,
    progress: &dyn Progress,
) -> Result<Found> {
    let search = search(index, fps, max_distance, threshold, progress)?;
    index.spell(search)
}

/// [`find`] by content, without spelling out document pairs (see
/// [`Index::search`](crate::index::Index::search)).
pub fn search(
    index: &Index,
    fps: &Fingerprints,
    max_distance: u32,
    threshold: f64,
    progress: &dyn Progress,
) -> Result<Search> {
    assert_eq!(fps.len(), index.shingles.len(), "one fingerprint per group");
    let t = Instant::now();
    let items = index.nonempty_groups();
    let tables = BlockTables::new(fps.bits(), max_distance, items.len());
    let group_pairs = tables.pairs(fps.as_slice(), &items, progress)?;
    let band_time = t.elapsed();
    progress.update(Stage::Band, 1, 1);
    let mut search = index.verify_groups(&group_pairs, threshold, progress)?;
    search.band_time = band_time;
    Ok(search)
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
            let (index, fps) =
                Index::build_with_simhash(corpus(), &params, &hasher, &Silent).unwrap();
            assert_eq!(fps.len(), index.shingles.len());
            let again = Fingerprints::from_index(&index, hasher, &Silent).unwrap();
            assert_eq!(again.as_slice(), fps.as_slice());
            assert_eq!(again.stale, 0);
            // A text from outside, the same words as a: a's fingerprint.
            let mut tok = Tokenizer::new(&params.text);
            let mut t = Vec::new();
            tok.token_hashes(BASE, &mut t);
            assert_eq!(fps.of_tokens(&t), fps.get(index.docs[0].group));

            let found = find(&index, &fps, 20, 0.0, &Silent).unwrap();
            let ids = |p: &Pair| {
                (
                    index.docs[p.a as usize].id.as_str(),
                    index.docs[p.b as usize].id.as_str(),
                )
            };
            let names: Vec<_> = found.pairs.iter().map(ids).collect();
            assert_eq!(names[0], ("a", "c"), "identical documents first");
            assert!(names.contains(&("a", "b")), "{weight:?}: {names:?}");
            assert!(!names.iter().any(|(x, y)| *x == "e" || *y == "e"));
            for p in &found.pairs {
                let (j, _) = index.similarity(p.a, p.b);
                assert_eq!(p.jaccard, j);
                let (ga, gb) = (
                    index.docs[p.a as usize].group,
                    index.docs[p.b as usize].group,
                );
                assert!(fps.distance(ga, gb) <= 20);
            }
            // Distance 0 keeps only identical fingerprints.
            let exact = find(&index, &fps, 0, 0.0, &Silent).unwrap();
            assert!(exact.pairs.iter().all(|p| {
                let (ga, gb) = (
                    index.docs[p.a as usize].group,
                    index.docs[p.b as usize].group,
                );
                fps.distance(ga, gb) == 0
            }));
        }
    }
}
