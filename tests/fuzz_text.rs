//! Property tests ("fuzzing" on stable Rust) of the text pipeline on arbitrary bytes:
//! decode → tokenise → shingle → index never panics, and keeps its invariants (issue 5).
//! 256 cases by default; `PROPTEST_CASES=100000 cargo test --test fuzz_text` for a long
//! run (doc/hostile.md).

use proptest::prelude::*;
use simtui_engine::index::{Index, Params};
use simtui_engine::progress::Silent;
use simtui_engine::shingle::{content_hash, shingle_set};
use simtui_engine::source::{Corpus, SkipReason, decode};
use simtui_engine::text::{Language, TextOptions, Tokenizer, Unit, tokens};

/// Bytes that look like files: arbitrary bytes, UTF-8 text, BOMs, NULs, CRLF, UTF-16.
fn file_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        3 => prop::collection::vec(any::<u8>(), 0..40),
        3 => "[a-zA-Z ]{0,40}".prop_map(String::into_bytes),
        2 => any::<String>().prop_map(String::into_bytes),
        1 => Just(vec![0xFF, 0xFE]),
        1 => Just(vec![0xFE, 0xFF]),
        1 => Just(vec![0xEF, 0xBB, 0xBF]),
        1 => Just(b"\r\n".to_vec()),
        1 => Just(vec![0]),
        1 => Just("Ǆǅ İ ß ﬁ ΣΑΣ 漢字 e\u{301}".as_bytes().to_vec()),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|v| v.concat())
}

fn options() -> impl Strategy<Value = TextOptions> {
    (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(c, keep_case, stopwords, stem, letters_only)| {
            // German: stop words and a stemmer with non-ASCII letters.
            let lang = stopwords.then_some(Language::German);
            TextOptions {
                unit: if c { Unit::Char } else { Unit::Word },
                keep_case,
                stopwords: lang,
                stem: stem.then_some(Language::German),
                letters_only,
            }
        })
}

proptest! {
    #[test]
    fn decode_tokenise_shingle_never_panics(
        bytes in file_bytes(),
        opts in options(),
        k in 1usize..9,
    ) {
        let text = match decode(bytes.clone()) {
            Ok(t) => t,
            Err((reason, _)) => {
                // Only a NUL in the head makes bytes binary, and never with a UTF-16 BOM.
                prop_assert_eq!(reason, SkipReason::Binary);
                prop_assert!(bytes[..bytes.len().min(8192)].contains(&0));
                prop_assert!(!bytes.starts_with(&[0xFF, 0xFE]) && !bytes.starts_with(&[0xFE, 0xFF]));
                return Ok(());
            }
        };
        // Valid UTF-8 without a BOM is kept as it is.
        if let Ok(s) = std::str::from_utf8(&bytes)
            && !s.starts_with('\u{FEFF}')
            && !bytes.starts_with(&[0xFF, 0xFE])
            && !bytes.starts_with(&[0xFE, 0xFF])
        {
            prop_assert_eq!(&text, s);
        }
        let mut tok = Tokenizer::new(&opts);
        let mut hashes = Vec::new();
        tok.token_hashes(&text, &mut hashes);
        // The hashed stream and the readable tokens agree (the tests' brute force
        // relies on it).
        if opts.unit == Unit::Word {
            prop_assert_eq!(hashes.len(), tokens(&text, &opts).len());
        }
        // Deterministic, with a fresh tokenizer too.
        let mut again = Vec::new();
        Tokenizer::new(&opts).token_hashes(&text, &mut again);
        prop_assert_eq!(&hashes, &again);

        let mut set = Vec::new();
        shingle_set(&hashes, k, &mut set);
        prop_assert_eq!(set.is_empty(), hashes.is_empty());
        prop_assert!(set.len() <= hashes.len().saturating_sub(k - 1).max(1));
        let mut sorted = set.clone();
        sorted.sort_unstable();
        sorted.dedup();
        prop_assert_eq!(sorted.len(), set.len(), "deduplicated");
        prop_assert_eq!(content_hash(&hashes), content_hash(&again));
    }

    #[test]
    fn indexing_arbitrary_texts_never_panics(
        texts in prop::collection::vec(file_bytes(), 0..6),
        opts in options(),
        k in 1usize..7,
        threshold in 0.0f64..=1.0,
    ) {
        let docs: Vec<(String, String)> = texts
            .into_iter()
            .enumerate()
            .filter_map(|(i, b)| decode(b).ok().map(|t| (format!("{i}"), t)))
            .collect();
        let n = docs.len();
        let params = Params { text: opts, k, num_perm: 32, ..Params::default() };
        let index = Index::builder(&params).build(Corpus::from_texts(docs), &Silent).unwrap();
        prop_assert_eq!(index.docs().len(), n);
        let found = index.find(8, 4, threshold, &Silent).unwrap();
        for p in &found.pairs {
            prop_assert!(p.jaccard >= threshold && p.jaccard <= 1.0);
            prop_assert!((0.0..=1.0).contains(&p.estimate));
            prop_assert!(p.a != p.b);
        }
    }
}
