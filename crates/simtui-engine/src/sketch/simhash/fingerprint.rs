//! Weighted SimHash fingerprints (Charikar, STOC 2002; Manku, Jain & Das Sarma, WWW 2007).
//!
//! A document is the bag of its tokens, each with a weight. Every token is hashed to
//! `bits` bits; each bit votes +weight when set and −weight when clear, and the
//! fingerprint keeps the sign of every bit's total. Two documents then differ in a bit
//! with probability θ/π, θ the angle between their weight vectors, so near-duplicates
//! have fingerprints a few bits apart. Candidates are the pairs within a Hamming
//! distance, found with permuted block tables ([`crate::search::blocks`]) and verified with the
//! same exact Jaccard as MinHash candidates ([`crate::sketch::simhash::fingerprints`]).
//!
//! Weights: [`Weight::Tf`], the term frequency, is Charikar's scheme. In real text a few
//! words are frequent in every document and outweigh the rest, so unrelated documents'
//! vectors point the same way: on a generated Zipfian corpus they are about 8 of 64 bits
//! apart instead of 32 (dropping stop words helps in English, `--stopwords`).
//! [`Weight::Idf`] multiplies by the inverse document frequency over the corpus, which
//! takes those words out and puts unrelated documents at bits/2; it needs the whole
//! corpus before any fingerprint, hence two steps: each document's bag of tokens while
//! the corpus is read, then the fingerprints from the bags and their [`Idf`].

use crate::hash::mix64;
use std::collections::HashMap;

/// Fingerprint widths supported. Narrow ones (8, 16, 32 bits, as small studies use them)
/// are the low bits of the 64-bit fingerprint: each bit is its own random hyperplane, so
/// any number of them is a SimHash of that width.
pub const WIDTHS: [u32; 5] = [8, 16, 32, 64, 128];

/// The `bits` low bits set.
fn low_bits(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// How much a token's vote weighs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Weight {
    /// Its frequency in the document.
    Tf,
    /// Its frequency times ln((1 + N) / (1 + df)): N contents in the corpus, df of them
    /// with the token. The default: see [`default_max_distance`] for why.
    #[default]
    Idf,
}

impl Weight {
    /// `"tf"` or `"idf"`, as the command line names the weighting.
    pub fn name(self) -> &'static str {
        match self {
            Weight::Tf => "tf",
            Weight::Idf => "idf",
        }
    }
}

/// The default largest Hamming distance of a candidate pair.
///
/// Term frequency: 3 of 64 bits, the setting Manku et al. validated for near-duplicate
/// web pages; 128 bits estimate the same angle with less variance (the distance is
/// Binomial(bits, θ/π)), so the same fraction, 6. Measured on 20,000 generated documents
/// of ~300 words, it finds 99% of the pairs with J ≥ 0.9 (and every unrelated document
/// is only ~8.5 bits away, so precision is poor whatever the distance).
///
/// Idf: distances spread out (unrelated documents at bits/2), so near-duplicates sit
/// farther out too: 10 of 64 (20 of 128) finds 98.5% of the pairs with J ≥ 0.8 and
/// 99.8% with J ≥ 0.9 on the same corpus, with under twice MinHash 16×8's candidates.
///
/// Narrower fingerprints keep the same fraction of their bits, rounded to the nearest
/// bit (a half rounded down): tf 0, 1 and 1 bits of 8, 16 and 32; idf 1, 2 and 5. Always
/// below bits/2, where two fingerprints are no closer than chance.
pub fn default_max_distance(bits: u32, weight: Weight) -> u32 {
    let per_64 = match weight {
        Weight::Tf => 3,
        Weight::Idf => 10,
    };
    (bits * per_64 + 31) / 64
}

/// Computes fingerprints of `bits` bits, one of [`WIDTHS`]. The seed changes which hash
/// functions map tokens to bits (a different seed gives another, equally good, sketch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimHasher {
    bits: u32,
    seed: u64,
    weight: Weight,
    /// Per-word salts of the token → bits hash, derived from the seed.
    salt: [u64; 2],
}

/// What a document contributes to its fingerprint before the corpus is complete: the
/// fingerprint itself with term-frequency weights, or its bag of (token, count) for
/// inverse document frequencies, which need every document first.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Digest {
    Fingerprint(u128),
    Bag(Vec<(u64, u32)>),
}

/// Document frequencies of a corpus's tokens, over its distinct non-empty contents.
#[derive(Clone, Debug, Default)]
pub struct Idf {
    contents: u32,
    df: HashMap<u64, u32>,
}

impl Idf {
    /// Number of distinct terms counted.
    pub fn terms(&self) -> usize {
        self.df.len()
    }

    /// From the bags of the distinct contents.
    pub fn from_bags<'a>(bags: impl IntoIterator<Item = &'a [(u64, u32)]>) -> Idf {
        let mut idf = Idf::default();
        for bag in bags {
            if bag.is_empty() {
                continue;
            }
            idf.contents += 1;
            for &(t, _) in bag {
                *idf.df.entry(t).or_default() += 1;
            }
        }
        idf
    }

    /// ln((1 + N) / (1 + df)): 0 for a token in every content, largest for one in none
    /// (a query's word the corpus never saw).
    pub fn weight(&self, token: u64) -> f64 {
        let df = self.df.get(&token).copied().unwrap_or(0);
        ((1.0 + self.contents as f64) / (1.0 + df as f64)).ln()
    }
}

/// A token stream as sorted (token, count) pairs.
pub fn bag(tokens: &[u64]) -> Vec<(u64, u32)> {
    let mut sorted = tokens.to_vec();
    sorted.sort_unstable();
    sorted
        .chunk_by(|a, b| a == b)
        .map(|run| (run[0], run.len() as u32))
        .collect()
}

impl SimHasher {
    /// A hasher of `bits`-bit fingerprints with `weight`ed votes, its token → bits hash
    /// derived from `seed`.
    ///
    /// # Panics
    /// If `bits` is not one of [`WIDTHS`].
    pub fn new(bits: u32, seed: u64, weight: Weight) -> SimHasher {
        assert!(
            WIDTHS.contains(&bits),
            "SimHash fingerprints are 8, 16, 32, 64 or 128 bits, not {bits}"
        );
        SimHasher {
            bits,
            seed,
            weight,
            salt: [
                mix64(seed ^ 0x51a4_a5e0_0000_0001),
                mix64(seed ^ 0x51a4_a5e0_0000_0002),
            ],
        }
    }

    /// Width of the fingerprints: one of [`WIDTHS`].
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The seed of the token → bits hash.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// How tokens' votes are weighted.
    pub fn weight(&self) -> Weight {
        self.weight
    }

    /// The same hasher with another seed.
    pub(crate) fn reseeded(&self, seed: u64) -> SimHasher {
        SimHasher::new(self.bits, seed, self.weight)
    }

    /// A document's digest, from its token stream (as [`crate::text::Tokenizer`] gives
    /// it).
    pub(crate) fn digest(&self, tokens: &[u64]) -> Digest {
        match self.weight {
            Weight::Tf => Digest::Fingerprint(self.fingerprint(tokens, None)),
            Weight::Idf => Digest::Bag(bag(tokens)),
        }
    }

    /// The fingerprint of a token stream. `idf` is required with [`Weight::Idf`] and
    /// ignored otherwise. A fingerprint narrower than 128 bits is in the low bits, the
    /// others 0. An empty stream has fingerprint 0.
    ///
    /// # Panics
    /// With [`Weight::Idf`] and no `idf`.
    pub fn fingerprint(&self, tokens: &[u64], idf: Option<&Idf>) -> u128 {
        match self.weight {
            Weight::Tf => {
                // Every occurrence votes: a token's weight is its frequency, with no
                // counting pass.
                let lo = tf_votes(tokens, self.salt[0]) as u128;
                if self.bits <= 64 {
                    lo & low_bits(self.bits)
                } else {
                    lo | (tf_votes(tokens, self.salt[1]) as u128) << 64
                }
            }
            Weight::Idf => self.of_bag(&bag(tokens), idf.expect("idf weights need an Idf")),
        }
    }

    /// The idf-weighted fingerprint of a bag of (token, count).
    pub(crate) fn of_bag(&self, bag: &[(u64, u32)], idf: &Idf) -> u128 {
        let weighted: Vec<(u64, f64)> = bag
            .iter()
            .map(|&(t, c)| (t, c as f64 * idf.weight(t)))
            .collect();
        let lo = weighted_votes(&weighted, self.salt[0]) as u128;
        if self.bits <= 64 {
            lo & low_bits(self.bits)
        } else {
            lo | (weighted_votes(&weighted, self.salt[1]) as u128) << 64
        }
    }
}

/// A token's 64 bits for one word of the fingerprint. A bijection of an already uniform
/// hash: distinct tokens stay distinct, and each salt gives independent-looking bits.
#[inline]
fn token_bits(t: u64, salt: u64) -> u64 {
    mix64(t ^ salt)
}

/// The tokens that weigh most in a fingerprint, heaviest first: (token, weight), the
/// weight its term frequency, times its idf with [`Weight::Idf`] (`idf` required then).
/// Ties by token, so the order is the same on every run.
///
/// # Panics
/// With [`Weight::Idf`] and no `idf`.
pub fn heaviest(tokens: &[u64], weight: Weight, idf: Option<&Idf>, n: usize) -> Vec<(u64, f64)> {
    let mut weighted: Vec<(u64, f64)> = bag(tokens)
        .into_iter()
        .map(|(t, c)| {
            let w = match weight {
                Weight::Tf => c as f64,
                Weight::Idf => c as f64 * idf.expect("idf weights need an Idf").weight(t),
            };
            (t, w)
        })
        .collect();
    weighted.sort_unstable_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    weighted.truncate(n);
    weighted
}

/// [`heaviest`] with the tokens spelled out: the words of `text` (tokenised with `opts`,
/// as the fingerprint was) that weigh most, heaviest first, with their weights.
///
/// # Panics
/// With [`Weight::Idf`] and no `idf`.
pub fn heaviest_words(
    text: &str,
    opts: &crate::text::TextOptions,
    weight: Weight,
    idf: Option<&Idf>,
    n: usize,
) -> Vec<(String, f64)> {
    let words = crate::text::tokens(text, opts);
    let hashes: Vec<u64> = words
        .iter()
        .map(|w| crate::hash::token_hash(w.as_bytes()))
        .collect();
    let spelled: HashMap<u64, &str> = hashes
        .iter()
        .copied()
        .zip(words.iter().map(String::as_str))
        .collect();
    heaviest(&hashes, weight, idf, n)
        .into_iter()
        .map(|(t, w)| (spelled[&t].to_string(), w))
        .collect()
}

/// A fingerprint of `bits` bits in hexadecimal, most significant digit first, zero-padded
/// to bits/4 digits: `"0f3a"` for 16 bits.
pub fn hex(fp: u128, bits: u32) -> String {
    let digits = (bits as usize).div_ceil(4);
    format!("{:0digits$x}", fp & low_bits(bits))
}

/// One 64-bit word of a term-frequency fingerprint: bit i is set when more than half of
/// the tokens' hashes have bit i set.
fn tf_votes(tokens: &[u64], salt: u64) -> u64 {
    // Counting set bits per position one bit at a time costs 64 operations per token.
    // Instead, `acc[j]` holds eight byte-wide counters, for bits j, j+8, …, j+56: one
    // shift, mask and add counts 8 positions at once. Bytes overflow after 255 tokens,
    // so the counters are flushed into `ones` every 255 tokens.
    const LOW_BITS: u64 = 0x0101_0101_0101_0101;
    let mut ones = [0u32; 64];
    for chunk in tokens.chunks(255) {
        let mut acc = [0u64; 8];
        for &t in chunk {
            let h = token_bits(t, salt);
            for (j, a) in acc.iter_mut().enumerate() {
                *a += (h >> j) & LOW_BITS;
            }
        }
        for (j, a) in acc.iter().enumerate() {
            for byte in 0..8 {
                ones[8 * byte + j] += ((a >> (8 * byte)) & 0xff) as u32;
            }
        }
    }
    let n = tokens.len() as u64;
    // Bit i's total vote is ones − (n − ones); it is positive when 2·ones > n. A tie
    // gives 0, as does an empty document.
    ones.iter()
        .enumerate()
        .fold(0u64, |fp, (i, &c)| fp | (((2 * c as u64) > n) as u64) << i)
}

/// One 64-bit word of a fingerprint with real weights: bit i is set when the weights of
/// the tokens with bit i set outweigh the others.
fn weighted_votes(weighted: &[(u64, f64)], salt: u64) -> u64 {
    let mut sum = [0f64; 64];
    for &(t, w) in weighted {
        let h = token_bits(t, salt);
        for (i, s) in sum.iter_mut().enumerate() {
            *s += if h >> i & 1 == 1 { w } else { -w };
        }
    }
    sum.iter()
        .enumerate()
        .fold(0u64, |fp, (i, &s)| fp | ((s > 0.0) as u64) << i)
}

/// The Hamming distance of two fingerprints.
#[inline]
pub fn hamming(a: u128, b: u128) -> u32 {
    (a ^ b).count_ones()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::token_hash;
    use crate::rng::Rng;
    use crate::shingle::jaccard;
    use crate::shingle::shingle_set;
    use proptest::prelude::*;

    /// A stream of `len` tokens drawn from `vocab` distinct words of a namespace, with
    /// repeats (so term frequencies above one occur).
    fn stream(rng: &mut Rng, namespace: u64, vocab: u64, len: usize) -> Vec<u64> {
        (0..len)
            .map(|_| {
                token_hash(&[namespace.to_le_bytes(), rng.below(vocab).to_le_bytes()].concat())
            })
            .collect()
    }

    /// Like [`stream`], but every other token is one of 20 words common to all
    /// documents (namespace 0), as stop words are in real text.
    fn with_common_words(rng: &mut Rng, namespace: u64, vocab: u64, len: usize) -> Vec<u64> {
        (0..len)
            .map(|i| {
                let ns = if i % 2 == 0 { 0 } else { namespace };
                stream(rng, ns, if ns == 0 { 20 } else { vocab }, 1)[0]
            })
            .collect()
    }

    fn shingle_jaccard(a: &[u64], b: &[u64]) -> f64 {
        let (mut x, mut y) = (Vec::new(), Vec::new());
        shingle_set(a, 5, &mut x);
        shingle_set(b, 5, &mut y);
        jaccard(&x, &y)
    }

    /// A copy of `a` with one token in a hundred replaced.
    fn near_copy(rng: &mut Rng, a: &[u64], vocab: u64) -> Vec<u64> {
        let mut near = a.to_vec();
        for _ in 0..a.len() / 100 {
            let i = rng.below(a.len() as u64) as usize;
            near[i] = stream(rng, u64::MAX, vocab, 1)[0];
        }
        near
    }

    #[test]
    fn votes_are_weighted_by_term_frequency() {
        let h = SimHasher::new(64, 7, Weight::Tf);
        let (a, b) = (token_hash(b"alpha"), token_hash(b"beta"));
        let fp = |t: &[u64]| h.fingerprint(t, None);
        // Three votes for alpha outweigh one for beta on every bit.
        assert_eq!(fp(&[a, b, a, a]), fp(&[a]));
        // One vote each: a bit is set only where both agree on 1 (a tie gives 0).
        assert_eq!(fp(&[a, b]), fp(&[a]) & fp(&[b]));
        assert_eq!(fp(&[]), 0);
        // Order does not matter: a bag of words.
        assert_eq!(fp(&[a, b, b]), fp(&[b, a, b]));
        assert_eq!(h.digest(&[a, b]), Digest::Fingerprint(fp(&[a, b])));
    }

    #[test]
    fn idf_weights_silence_the_words_every_document_has() {
        let (a, b, c) = (
            token_hash(b"alpha"),
            token_hash(b"beta"),
            token_hash(b"gamma"),
        );
        assert_eq!(bag(&[b, a, b]), {
            let mut v = vec![(a, 1), (b, 2)];
            v.sort_unstable();
            v
        });
        // alpha is in every content, beta in one of three.
        let bags = [bag(&[a, b]), bag(&[a]), bag(&[a, c]), Vec::new()];
        let idf = Idf::from_bags(bags.iter().map(Vec::as_slice));
        assert_eq!(idf.weight(a), 0.0);
        assert!((idf.weight(b) - 2f64.ln()).abs() < 1e-12);
        assert!(idf.weight(token_hash(b"unseen")) > idf.weight(b));
        // However often alpha occurs, beta alone decides.
        let h = SimHasher::new(128, 1, Weight::Idf);
        assert_eq!(
            h.fingerprint(&[a, a, a, a, b], Some(&idf)),
            h.fingerprint(&[b], Some(&idf))
        );
        assert_eq!(h.digest(&[a, b, a]), Digest::Bag(bag(&[a, a, b])));
        // With equal weights, the real-weight votes agree with the counting ones.
        let flat = Idf::from_bags([&[][..], &[(1u64, 1u32)][..]]);
        let t: Vec<u64> = (0..301u64).map(|i| mix64(i % 97)).collect(); // odd: no ties
        assert_eq!(
            SimHasher::new(64, 3, Weight::Idf).fingerprint(&t, Some(&flat)),
            SimHasher::new(64, 3, Weight::Tf).fingerprint(&t, None)
        );
    }

    #[test]
    fn widths_and_seeds() {
        let t: Vec<u64> = (0..300u64).map(mix64).collect();
        let (h64, h128) = (
            SimHasher::new(64, 1, Weight::Tf),
            SimHasher::new(128, 1, Weight::Tf),
        );
        assert_eq!(h64.fingerprint(&t, None) >> 64, 0);
        assert_eq!(
            h128.fingerprint(&t, None) as u64 as u128,
            h64.fingerprint(&t, None)
        );
        assert_ne!(h128.fingerprint(&t, None) >> 64, 0);
        assert_ne!(
            h64.reseeded(2).fingerprint(&t, None),
            h64.fingerprint(&t, None)
        );
        assert_eq!(default_max_distance(64, Weight::Tf), 3);
        assert_eq!(default_max_distance(128, Weight::Tf), 6);
        assert_eq!(default_max_distance(64, Weight::Idf), 10);
        assert_eq!(default_max_distance(128, Weight::Idf), 20);
        let narrow = |w| [8, 16, 32].map(|b| default_max_distance(b, w));
        assert_eq!(narrow(Weight::Tf), [0, 1, 1]);
        assert_eq!(narrow(Weight::Idf), [1, 2, 5]);
        for bits in WIDTHS {
            for w in [Weight::Tf, Weight::Idf] {
                assert!(default_max_distance(bits, w) < bits / 2);
            }
        }
    }

    /// Bit i of a fingerprint, by the definition: the sign of the sum over the bag of
    /// ±weight, + where the token's hash (word i / 64) has bit i % 64 set.
    fn brute_force(h: &SimHasher, tokens: &[u64], idf: Option<&Idf>) -> u128 {
        let mut fp = 0u128;
        for i in 0..h.bits() {
            let salt = h.salt[(i / 64) as usize];
            let mut sum = 0f64;
            for (t, c) in bag(tokens) {
                let w = match h.weight() {
                    Weight::Tf => c as f64,
                    Weight::Idf => c as f64 * idf.unwrap().weight(t),
                };
                let set = mix64(t ^ salt) >> (i % 64) & 1 == 1;
                sum += if set { w } else { -w };
            }
            if sum > 0.0 {
                fp |= 1 << i;
            }
        }
        fp
    }

    #[test]
    fn every_width_matches_a_brute_force_reference() {
        let mut rng = Rng::new(11);
        let docs: Vec<Vec<u64>> = (0..20)
            .map(|i| stream(&mut rng, i % 3, 40, 7 + 13 * i as usize))
            .collect();
        let bags: Vec<Vec<(u64, u32)>> = docs.iter().map(|d| bag(d)).collect();
        let idf = Idf::from_bags(bags.iter().map(Vec::as_slice));
        for bits in WIDTHS {
            for weight in [Weight::Tf, Weight::Idf] {
                let h = SimHasher::new(bits, 5, weight);
                for d in &docs {
                    let fp = h.fingerprint(d, Some(&idf));
                    assert_eq!(
                        fp,
                        brute_force(&h, d, Some(&idf)),
                        "{bits} bits, {weight:?}"
                    );
                    assert_eq!(fp & !low_bits(bits), 0, "only the low {bits} bits");
                }
            }
        }
    }

    #[test]
    fn hex_is_padded_to_the_width() {
        assert_eq!(hex(0xf, 8), "0f");
        assert_eq!(hex(0xabc, 16), "0abc");
        assert_eq!(hex(1, 64), "0000000000000001");
        assert_eq!(hex(u128::MAX, 128), "f".repeat(32));
        let text = "The cat sat on the mat, the cat.";
        let opts = crate::text::TextOptions::default();
        let top = heaviest_words(text, &opts, Weight::Tf, None, 2);
        assert_eq!(
            top,
            vec![("the".to_string(), 3.0), ("cat".to_string(), 2.0)]
        );
    }

    #[test]
    fn the_heaviest_tokens_are_the_largest_weights() {
        let (a, b, c) = (token_hash(b"a"), token_hash(b"b"), token_hash(b"c"));
        let t = [a, b, b, c, c, c];
        let top = heaviest(&t, Weight::Tf, None, 2);
        assert_eq!(top, vec![(c, 3.0), (b, 2.0)]);
        // a and c in every content: their idf is 0, b outweighs them.
        let bags = [bag(&[a, b, c]), bag(&[a, c])];
        let idf = Idf::from_bags(bags.iter().map(Vec::as_slice));
        let top = heaviest(&t, Weight::Idf, Some(&idf), 3);
        assert_eq!(top[0].0, b);
        assert!((top[0].1 - 2.0 * 1.5f64.ln()).abs() < 1e-12);
        assert_eq!(top[1].1, 0.0);
    }

    #[test]
    fn the_counters_survive_long_documents() {
        // Past 255 tokens the byte counters are flushed; check against a plain count.
        let h = SimHasher::new(128, 3, Weight::Tf);
        let mut rng = Rng::new(5);
        let t = stream(&mut rng, 0, 50, 5000);
        for (word, salt) in [(0, h.salt[0]), (1, h.salt[1])] {
            let mut fp = 0u64;
            for i in 0..64 {
                let ones = t.iter().filter(|&&x| mix64(x ^ salt) >> i & 1 == 1).count();
                fp |= ((2 * ones > t.len()) as u64) << i;
            }
            assert_eq!((h.fingerprint(&t, None) >> (64 * word)) as u64, fp);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Near-duplicates (one token in a hundred replaced: J of 5-shingles near 1) are
        /// a few bits apart; documents over disjoint vocabularies are about bits/2
        /// apart. Averaged over 16 seeds so that the bounds hold with a wide margin.
        #[test]
        fn near_duplicates_are_close_and_unrelated_documents_far(
            seed in any::<u64>(),
            len in 200usize..800,
            vocab in 100u64..5000,
            wide in any::<bool>(),
        ) {
            let bits = if wide { 128 } else { 64 };
            let mut rng = Rng::new(seed);
            let a = stream(&mut rng, 1, vocab, len);
            let near = near_copy(&mut rng, &a, vocab);
            let other = stream(&mut rng, 2, vocab, len);
            let j = shingle_jaccard(&a, &near);
            prop_assert!(j >= 0.85, "the edit keeps J near 1: {}", j);

            let (mut d_near, mut d_far) = (0u32, 0u32);
            for s in 0..16 {
                let h = SimHasher::new(bits, seed ^ s, Weight::Tf);
                let fa = h.fingerprint(&a, None);
                let dn = hamming(fa, h.fingerprint(&near, None));
                // Even one fingerprint is close: θ/π is about 1/30 here.
                prop_assert!(dn <= bits / 4, "near-duplicates {} bits apart", dn);
                d_near += dn;
                d_far += hamming(fa, h.fingerprint(&other, None));
            }
            let (near_frac, far_frac) =
                (d_near as f64 / (16 * bits) as f64, d_far as f64 / (16 * bits) as f64);
            prop_assert!(near_frac < 0.1, "near-duplicates: {} of the bits differ", near_frac);
            prop_assert!((0.4..=0.6).contains(&far_frac), "unrelated: {} of the bits differ", far_frac);
        }

        /// With words common to every document, term frequencies pull unrelated
        /// documents together; idf weights put them back at bits/2, and near-duplicates
        /// stay close.
        #[test]
        fn idf_puts_unrelated_documents_with_common_words_at_half_the_bits(
            seed in any::<u64>(),
            len in 200usize..600,
            wide in any::<bool>(),
        ) {
            let bits = if wide { 128 } else { 64 };
            let mut rng = Rng::new(seed);
            let docs: Vec<Vec<u64>> =
                (1..=30).map(|ns| with_common_words(&mut rng, ns, 2000, len)).collect();
            let near = near_copy(&mut rng, &docs[0], 2000);
            let bags: Vec<Vec<(u64, u32)>> = docs.iter().map(|d| bag(d)).collect();
            let idf = Idf::from_bags(bags.iter().map(Vec::as_slice));
            let (mut tf_far, mut idf_far, mut idf_near) = (0u32, 0u32, 0u32);
            for s in 0..16 {
                let tf = SimHasher::new(bits, seed ^ s, Weight::Tf);
                let w = SimHasher::new(bits, seed ^ s, Weight::Idf);
                tf_far += hamming(tf.fingerprint(&docs[0], None), tf.fingerprint(&docs[1], None));
                let f0 = w.fingerprint(&docs[0], Some(&idf));
                idf_far += hamming(f0, w.fingerprint(&docs[1], Some(&idf)));
                idf_near += hamming(f0, w.fingerprint(&near, Some(&idf)));
            }
            let frac = |d: u32| d as f64 / (16 * bits) as f64;
            prop_assert!(frac(tf_far) < 0.35, "tf: {}", frac(tf_far));
            prop_assert!((0.4..=0.6).contains(&frac(idf_far)), "idf: {}", frac(idf_far));
            prop_assert!(frac(idf_near) < 0.12, "idf near-duplicates: {}", frac(idf_near));
        }
    }
}
