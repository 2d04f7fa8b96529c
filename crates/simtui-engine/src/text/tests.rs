//! Every path of the tokenizer against the reference: `tokens`, which runs the full
//! segmenter (`unicode_words`, `graphemes`) over the whole text.

use super::pieces::GRAPHEMES;
use super::*;
use proptest::prelude::*;

fn words(text: &str) -> Vec<String> {
    tokens(text, &TextOptions::default())
}

/// While it lives, the fast path takes its portable code on this thread, even on a
/// processor with AVX2 (reset on drop, so a failing case that proptest catches does not
/// leave it set for the next).
struct Portable;

impl Portable {
    fn force() -> Portable {
        words::FORCE_PORTABLE.set(true);
        Portable
    }

    /// Forced if `on`.
    fn force_if(on: bool) -> Option<Portable> {
        on.then(Portable::force)
    }
}

impl Drop for Portable {
    fn drop(&mut self) {
        words::FORCE_PORTABLE.set(false);
    }
}

/// The words of the fast path alone (for text it takes), checked to be the same with
/// the portable code.
fn fast_words(text: &str) -> Vec<&str> {
    let ranges = || {
        let mut out = Vec::new();
        words::word_ranges(text.as_bytes(), |start, end| out.push(&text[start..end]));
        out
    };
    let out = ranges();
    let _portable = Portable::force();
    assert_eq!(out, ranges(), "{text:?}");
    out
}

/// The words of the reference segmenter.
fn reference_words(text: &str) -> Vec<&str> {
    text.unicode_words().collect()
}

/// The hashes of the reference tokens.
fn reference(text: &str, opts: &TextOptions) -> Vec<u64> {
    tokens(text, opts)
        .iter()
        .map(|w| token_hash(w.as_bytes()))
        .collect()
}

fn hashes(text: &str, opts: &TextOptions) -> Vec<u64> {
    let mut out = Vec::new();
    Tokenizer::new(opts).token_hashes(text, &mut out);
    out
}

#[test]
fn words_ignore_case_punctuation_and_space() {
    let opts = TextOptions::default();
    assert_eq!(
        hashes("Hello,   world! It's 3.14 -- e.g. x_y", &opts),
        hashes("hello world\n\nit's 3.14 e.g x_y.", &opts)
    );
    assert_eq!(words("Hello, World!"), vec!["hello", "world"]);
    assert_eq!(
        words("don't stop: a:b 1,000.5 e.g. __ _x"),
        vec!["don't", "stop", "a:b", "1,000.5", "e.g", "_x"]
    );
}

#[test]
fn keep_case_keeps_case() {
    let opts = TextOptions {
        keep_case: true,
        ..Default::default()
    };
    assert_ne!(hashes("Hello", &opts), hashes("hello", &opts));
    assert_eq!(
        hashes("Hello", &TextOptions::default()),
        hashes("hello", &TextOptions::default())
    );
}

#[test]
fn stopwords_are_dropped() {
    let opts = TextOptions {
        stopwords: Some(Language::English),
        ..Default::default()
    };
    assert_eq!(
        hashes("the cat and THE hat", &opts),
        hashes("cat hat", &opts)
    );
    assert_eq!(tokens("The cat and the hat", &opts), vec!["cat", "hat"]);
}

#[test]
fn letters_only_drops_numbers_and_words_with_digits() {
    let opts = TextOptions {
        letters_only: true,
        ..Default::default()
    };
    assert_eq!(
        tokens(
            "In 1987 the B2B price rose 3.5% to $12, said Reuters' x_1 and _",
            &opts
        ),
        vec!["in", "the", "price", "rose", "to", "said", "reuters", "and"]
    );
    assert_eq!(
        hashes("In 1987 the B2B price rose", &opts),
        hashes("in the price rose", &TextOptions::default())
    );
    // Letters of any script count; digits of any script too.
    assert!(letters_only("école") && letters_only("don't"));
    assert!(!letters_only("٣") && !letters_only("x²") && !letters_only("__"));
}

#[test]
fn stemming_reduces_words_to_their_snowball_stems() {
    let en = TextOptions {
        stem: Some(Language::English),
        ..Default::default()
    };
    assert_eq!(
        tokens(
            "Connected connections are CONNECTING the running runner",
            &en
        ),
        vec![
            "connect", "connect", "are", "connect", "the", "run", "runner"
        ]
    );
    assert_eq!(
        hashes("connected connecting", &en),
        hashes("connect connect", &TextOptions::default())
    );
    let de = TextOptions {
        stem: Some(Language::German),
        stopwords: Some(Language::German),
        ..Default::default()
    };
    // Stop words go before stemming: "und" and "die" are dropped, not stemmed.
    assert_eq!(tokens("Häuser und die Katzen", &de), vec!["haus", "katz"]);
    assert_eq!(
        hashes("Häuser und die Katzen", &de),
        hashes("haus katz", &TextOptions::default())
    );
    // A language without a stemmer stems nothing.
    let ca = TextOptions {
        stem: Some(Language::Catalan),
        ..Default::default()
    };
    assert_eq!(tokens("cases", &ca), vec!["cases"]);
    // Character mode has no words to clean.
    let chars = TextOptions {
        unit: Unit::Char,
        stem: Some(Language::English),
        letters_only: true,
        stopwords: Some(Language::English),
        ..Default::default()
    };
    assert_eq!(tokens("a 1", &chars), vec!["a", " ", "1"]);
    assert_eq!(chars.cleaning(), "");
    assert_eq!(
        TextOptions {
            letters_only: true,
            ..de.clone()
        }
        .cleaning(),
        "--letters-only --stopwords german --stem german"
    );
}

#[test]
fn stop_word_lists_of_other_languages() {
    let fr = TextOptions {
        stopwords: Some(Language::French),
        ..Default::default()
    };
    assert_eq!(tokens("Le chat et la souris", &fr), vec!["chat", "souris"]);
    assert_eq!(
        hashes("Le chat et la souris", &fr),
        hashes("chat souris", &fr)
    );
    let ru = TextOptions {
        stopwords: Some(Language::Russian),
        ..Default::default()
    };
    assert_eq!(tokens("Кошка и собака", &ru), vec!["кошка", "собака"]);
    // A bare --stopwords, English, is the built-in list.
    assert_eq!(Language::English.stopwords(), &stopwords::ENGLISH[..]);
}

#[test]
fn unicode_text_is_segmented_and_lowercased() {
    let opts = TextOptions::default();
    assert_eq!(
        words("Grüße, ÉCOLE! Straße"),
        vec!["grüße", "école", "straße"]
    );
    // A non-ASCII line and an ASCII line hash the same words the same way.
    assert_eq!(hashes("Hello café", &opts)[0], hashes("hello", &opts)[0]);
}

#[test]
fn char_mode_collapses_white_space() {
    let opts = TextOptions {
        unit: Unit::Char,
        ..Default::default()
    };
    assert_eq!(hashes("  A b\t\n c  ", &opts), hashes("a b c", &opts));
    assert_eq!(
        tokens("  A  é\u{301}x ", &opts),
        vec!["a", " ", "é\u{301}", "x"]
    );
    assert_eq!(hashes("  A  é\u{301}x ", &opts).len(), 4);
}

/// Real text in many scripts (sentences written for these tests): Latin with
/// diacritics, curly quotes and apostrophes, Greek with final sigma, Cyrillic, RTL
/// (Hebrew with geresh and gershayim, Arabic with and without vowel marks), CJK, Hangul,
/// Devanagari, Thai, emoji (ZWJ sequences, skin tones, flags, keycaps), decomposed
/// accents, and the spaces and marks that UAX #29 treats specially.
const SAMPLES: &[&str] = &[
    "L’été dernier, les élèves de l’école ont préparé une fête « surprise » à 20 h 30.",
    "Où est passée la clé ? « Je n’en sais rien ! » répondit-il… puis il sortit.",
    "Die Bürger müssen bis 31.12. über die Straßenbahn abstimmen; Grüße aus Köln.",
    "¿Cuándo llegarán? Mañana — según el camarero — a las 8:30, señor Ibáñez.",
    "Zażółć gęślą jaźń. Příliš žluťoučký kůň úpěl ďábelské ódy. Ærøskøbing.",
    "Tiếng Việt có dấu: Người đi đường, ngày 2.5.2024, giá 1.500.000 đồng.",
    "ΟΔΥΣΣΕΑΣ και Οδυσσέας· Σήμερα ΤΟ ΣΠΙΤΙ ΤΟΥ ΚΥΡΙΟΥ ΠΑΠΑΔΟΠΟΥΛΟΣ, σας!",
    "Москва — столица России. Ёлка, щука и «ёж» 3,5 км/ч.",
    "שלום עולם! צה\"ל, ת\"א ו־מ׳ ומ״מ; דוד'ס שָׁלוֹם.",
    "مرحبا بالعالم، مَرْحَبًا! العدد ٣٫٥ و١٢٬٠٠٠ ريال؛ ـــ كتب.",
    "漢字とひらがな、カタカナ。東京タワーは333メートルです。ｶﾀｶﾅ_テスト",
    "中文句子没有空格，标点符号也不同。第1章：北京。",
    "한국어 문장은 띄어쓰기를 합니다. 서울 2024년!",
    "हिन्दी में क्षत्रिय और ज्ञान। नमस्ते दुनिया",
    "ภาษาไทยไม่มีช่องว่างระหว่างคำ สวัสดีครับ",
    "Family 👨‍👩‍👧‍👦 and 👍🏽 thumbs, flags 🇫🇷🇩🇪🇺🇸 and 🇫 half, keycap #️⃣ 1️⃣ ©\u{200d}❤️ ok.",
    "Cafe\u{301} and nai\u{308}ve, \u{301}alone, a \u{301}space, x\u{200d}y, a\u{ad}b, \u{200e}rtl.",
    "Spaces:\u{a0}no-break,\u{2003}em,\u{3000}ideographic,\u{85}next line,\u{2028}line sep.",
    "Turkish İstanbul ıspanak, ǅemal ǈubo, ﬁne ﬂow, straße STRASSE ẞ, Kelvin \u{212a}.",
    "Digits ²³ ½ ١٢٣ ০১২ and 3.14, 1,000; e.g. U.S.A. isn't a:b__c .5 5. 'quoted'",
    "Mail jean.dupont@exemple.fr or ops+alerts@mail.example.co.uk; see https://www.example.com/a_b/c.d?q=1&x=y#top and ftp://files.example.org/pub/v2.0.1/.",
    "3.5% of 1,000,000 is 35,000.00; 1'000 CHF, 3,5 km, 10:30, 1.5e-3, 1.2.3, 1,2,, 4..5, -7, +8, 0x1F, 1/2, 3/8, 2024-05-02.",
    "ALLIED STEEL CORP <ALS> 1ST QTR NET\n    NEW YORK, March 3 - \n    Shr 12 cts vs 98 cts\n    Net 1.5 mln vs 987.2 mln\n    Avg shrs 12,345,000\nThe U.S. company's N.Y.S.E. shares \"rose\" 1/2 -- Reuter\n",
];

/// The tokens of every option a fast path serves, against the reference, with the
/// processor's code (AVX2 where it has it) and with the portable code.
fn check_all_paths(text: &str) -> Result<(), TestCaseError> {
    for portable in [false, true] {
        let _portable = Portable::force_if(portable);
        for unit in [Unit::Word, Unit::Char] {
            for keep_case in [false, true] {
                let opts = TextOptions {
                    unit,
                    keep_case,
                    ..Default::default()
                };
                prop_assert_eq!(
                    hashes(text, &opts),
                    reference(text, &opts),
                    "{:?} {:?} portable: {}",
                    text,
                    opts,
                    portable
                );
            }
        }
        let spelled = TextOptions {
            letters_only: true,
            ..Default::default()
        };
        prop_assert_eq!(
            hashes(text, &spelled),
            reference(text, &spelled),
            "{:?} portable: {}",
            text,
            portable
        );
    }
    Ok(())
}

#[test]
fn real_text_in_many_scripts_matches_the_reference() {
    for text in SAMPLES {
        check_all_paths(text).unwrap();
    }
    check_all_paths(&SAMPLES.join("\n")).unwrap();
    check_all_paths(&SAMPLES.concat()).unwrap();
}

#[test]
fn non_ascii_letters_and_punctuation_are_sorted_as_the_segmenter_says() {
    let fast = |c: char| kinds::fast_char_len(c.to_string().as_bytes(), 0).is_some();
    let letter = |c: char| {
        let s = c.to_string();
        kinds::in_letter(s.as_bytes(), 0)
    };
    for c in [
        'é', 'É', 'ß', 'ÿ', 'ł', 'Ž', 'ω', 'Ж', 'ё', 'Ա', 'ع', 'ª', 'µ',
    ] {
        assert!(fast(c) && letter(c), "{c} is a letter the fast path takes");
    }
    for c in [
        '«', '»', '¿', '¡', '×', '\u{a0}', '§', '©', '–', '—', '“', '”', '…', '€', '\u{2003}',
    ] {
        assert!(fast(c) && !letter(c), "{c:?} joins nothing");
    }
    // Combining marks and format characters (WB4), joiners, Hebrew letters (WB7a-c),
    // digits of other scripts, capital sigma (final form), a lowercase of another length.
    for c in [
        '\u{301}', '\u{ad}', '\u{200d}', '\u{200e}', '’', '‘', '·', '\u{37e}', 'א', '٣', 'Σ', 'İ',
        'Ⱥ', '漢', '😀',
    ] {
        assert!(!fast(c), "{c:?} goes to the full segmenter");
    }
    assert_eq!(
        hashes("ÉCOLE Ærø ЖЁЛТЫЙ", &TextOptions::default()),
        hashes("école ærø жёлтый", &TextOptions::default())
    );
}

#[test]
fn pieces_cut_only_where_the_segmenter_always_breaks() {
    let pieces = |t: &'static str| Pieces::new(t, WORDS).collect::<Vec<_>>();
    use Piece::{Fast, Slow};
    assert_eq!(pieces("abc"), [Fast("abc")]);
    assert_eq!(pieces("café crème"), [Fast("café crème")]);
    assert_eq!(
        pieces("a cafe\u{301}, b"),
        [Fast("a "), Slow("cafe\u{301}, "), Fast("b")]
    );
    // A combining mark after a space joins it (WB4), and a space after a space (WB3d);
    // no cut after a letter.
    assert_eq!(
        pieces("a!  \u{301} b"),
        [Fast("a!"), Slow("  \u{301} "), Fast("b")]
    );
    assert_eq!(pieces("x.\u{2019}y z"), [Slow("x.\u{2019}y "), Fast("z")]);
    assert_eq!(
        pieces("a \r\n😀\r\nb"),
        [Fast("a "), Slow("\r\n😀\r\n"), Fast("b")]
    );
    assert_eq!(pieces("😀"), [Slow("😀")]);
    let clusters = |t: &'static str| Pieces::new(t, GRAPHEMES).collect::<Vec<_>>();
    assert_eq!(
        clusters("ab e\u{301}x yz"),
        [Fast("ab "), Slow("e\u{301}x"), Fast(" yz")]
    );
    assert_eq!(clusters("\r\né"), [Slow("\r\né")]);
}

/// Runs of text that exercise the segmenter's rules: ASCII words and every ASCII
/// character, Latin letters, and the characters UAX #29 treats specially.
fn run() -> impl Strategy<Value = String> {
    const SPECIAL: &[&str] = &[
        "e\u{301}",
        " \u{301}",
        "\u{301}",
        "\u{308}\u{301}",
        "\u{200d}",
        "\u{200c}",
        "\u{ad}",
        "\u{200e}",
        "\u{2060}",
        "\u{feff}",
        "👨\u{200d}👩\u{200d}👧",
        "\u{200d}😀",
        "\u{200d}©",
        "👍🏽",
        "🇫🇷",
        "🇫",
        "🇩🇪🇺",
        "#️⃣",
        "’",
        "‘",
        "“",
        "”",
        "—",
        "…",
        "·",
        "\u{37e}",
        "\u{a0}",
        "\u{2003}",
        "\u{3000}",
        "\u{85}",
        "\u{2028}",
        "א",
        "ש\"ב",
        "א'",
        "״",
        "׳",
        "مَر",
        "\u{600}",
        "٣",
        "٫",
        "٬",
        "،",
        "漢",
        "カタ",
        "ｶ",
        "ー",
        "\u{30fc}_",
        "ä",
        "İ",
        "ı",
        "Σ",
        "ΑΣ",
        "σς",
        "ß",
        "ǅ",
        "\u{212a}",
        "ﬁ",
        "²",
        "½",
        "ª",
        "ก",
        "\u{e31}",
        "क्ष",
        "\u{94d}",
        "\r\n",
        "\r",
        "\n",
        "\x0b",
        "\x0c",
        "\t",
        " ",
        "  ",
        "'",
        ".",
        ":",
        ",",
        ";",
        "\"",
        "_",
    ];
    prop_oneof![
        3 => "[a-zA-Z0-9_]{1,10}",
        2 => "[ -~]{1,4}",
        1 => "[ \n\r\t.:',;\"_-]{1,3}",
        2 => "[a-zà-ÿÀ-ÞĀ-ſα-ωА-я]{1,6}",
        3 => prop::sample::select(SPECIAL).prop_map(String::from),
        1 => any::<char>().prop_map(String::from),
    ]
}

/// Tokens of real text: words of many scripts (with their apostrophes, marks and
/// joiners), emoji sequences, numbers with separators, URLs and e-mail addresses.
fn real_token() -> impl Strategy<Value = String> {
    const WORDS: &[&str] = &[
        "The",
        "don't",
        "isn't",
        "Reuters'",
        "l’école",
        "aujourd’hui",
        "naïve",
        "café",
        "Straße",
        "STRASSE",
        "Ærøskøbing",
        "Zażółć",
        "ΟΔΥΣΣΕΑΣ",
        "Οδυσσέας",
        "σας",
        "Москва",
        "Ёлка",
        "Ǆemal",
        "İstanbul",
        "ıspanak",
        "ﬁne",
        "\u{212a}elvin",
        "e\u{301}te\u{301}",
        "nai\u{308}ve",
        "שלום",
        "צה\"ל",
        "מ׳",
        "דוד'ס",
        "שָׁלוֹם",
        "مرحبا",
        "مَرْحَبًا",
        "٣٫٥",
        "١٢٬٠٠٠",
        "ـــ",
        "漢字",
        "ひらがな",
        "カタカナ",
        "東京タワー",
        "ｶﾀｶﾅ",
        "中文",
        "한국어",
        "서울",
        "हिन्दी",
        "क्षत्रिय",
        "ภาษาไทย",
        "สวัสดีครับ",
        "👨\u{200d}👩\u{200d}👧\u{200d}👦",
        "👍🏽",
        "🇫🇷🇩🇪",
        "🇺",
        "#️⃣",
        "1️⃣",
        "©\u{200d}❤️",
        "x\u{200d}y",
        "a\u{ad}b",
        "\u{200e}rtl",
        "U.S.A.",
        "e.g.",
        "a:b",
        "x_y",
        "__init__",
        "_",
        "3.14",
        "1,000",
        "²³",
        "½",
        "Ⱥ",
        "ΑΣ.",
        "ǅ",
    ];
    prop_oneof![
        6 => prop::sample::select(WORDS).prop_map(String::from),
        4 => "[A-Za-z]{1,12}",
        2 => "[a-zà-ÿ]{1,5}[À-Þ]?[a-z]{0,5}",
        2 => "[0-9]{1,3}([.,;'][0-9]{3}){0,3}([.,][0-9]{1,2})?",
        1 => "(https?|ftp)://(www\\.)?[a-z0-9-]{1,10}(\\.[a-z]{2,4}){1,2}(/[A-Za-z0-9_.~%-]{0,8}){0,3}(\\?[a-z]{1,4}=[a-z0-9]{1,4}(&[a-z]{1,4}=[0-9]{1,3})?)?(#[a-z]{1,5})?",
        1 => "[a-z0-9._%+-]{1,10}@[a-z0-9-]{1,8}(\\.[a-z]{2,4}){1,2}",
    ]
}

/// What stands between the tokens of real text.
fn real_separator() -> impl Strategy<Value = &'static str> {
    prop::sample::select(
        &[
            " ", " ", " ", "  ", "\n", "\r\n", "\n\n", "\t", ", ", ". ", "! ", "? ", "; ", ": ",
            " — ", " – ", "-", "/", "'", "’", "‘", "“", "”", "\"", "« ", "\u{a0}»", "(", ") ", "…",
            "、", "。", "，", "\u{3000}", "\u{a0}", "\u{2003}", "\u{200b}", "",
        ][..],
    )
}

/// Real-looking text, long enough to run over many of the fast path's 64-byte blocks,
/// so that long fast stretches alternate with pieces for the full segmenter.
fn real_text() -> impl Strategy<Value = String> {
    prop::collection::vec((real_token(), real_separator()), 0..120).prop_map(|parts| {
        parts
            .iter()
            .flat_map(|(token, separator)| [token.as_str(), separator])
            .collect()
    })
}

fn mixed_text() -> impl Strategy<Value = String> {
    prop::collection::vec(run(), 0..24).prop_map(|runs| runs.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Every path gives the reference's tokens, on text that mixes ASCII with Latin
    /// letters, combining marks (after a space too), ZWJ sequences, flags, RTL, CJK...
    #[test]
    fn mixed_text_matches_the_reference(s in mixed_text()) {
        check_all_paths(&s)?;
    }

    /// The same on arbitrary Unicode strings.
    #[test]
    fn any_text_matches_the_reference(s in any::<String>()) {
        check_all_paths(&s)?;
    }

    /// The fast path alone splits exactly like unicode_words, on ASCII with every ASCII
    /// character and on Latin text (which it takes too).
    #[test]
    fn fast_path_matches_unicode_words(s in "[\\x00-\\x7f]{0,80}|[a-zA-Zé0-9_.:',; \"«»\u{a0}—ÆŒÿżΩЖ-]{0,80}") {
        prop_assert_eq!(fast_words(&s), reference_words(&s));
    }

    /// Long texts, whose words and joiners straddle the 64-byte blocks the fast path
    /// classifies at a time, words longer than 8 bytes, and 2-byte letters across blocks.
    #[test]
    fn long_texts_match_the_reference(
        words in proptest::collection::vec("[a-zA-Z0-9_]{1,19}|[a-zé]{0,7}[ÉçÑ][a-z]{0,9}", 0..40),
        seps in proptest::collection::vec("[ .:',;\n_-]{1,2}|[ «»—]", 40),
    ) {
        let s: String = words.iter().zip(&seps).map(|(w, p)| format!("{w}{p}")).collect();
        prop_assert_eq!(fast_words(&s), reference_words(&s));
        check_all_paths(&s)?;
    }

    /// The fast path's word hashes, by the processor's code and by the portable code,
    /// are the reference's, for short and long words, at the very end of the text, in
    /// texts shorter than 8 bytes, with and without case, '_' runs among them.
    #[test]
    fn fast_hashes_match_the_reference(
        s in "[a-zA-Z0-9_.:',; \n-]{0,12}|([a-zA-Z]{1,20}|[a-zé]{1,3}[ÀÉß][a-z]{0,12}|_+|[0-9]{1,9}|[ .,_-]){0,40}",
        keep_case: bool,
    ) {
        let opts = TextOptions { keep_case, ..Default::default() };
        let expect = reference(&s, &opts);
        for portable in [false, true] {
            let _portable = Portable::force_if(portable);
            let mut out = vec![7]; // appended to
            let taken = words::word_hashes(s.as_bytes(), keep_case, &mut out);
            prop_assert!(taken);
            prop_assert_eq!(&out[1..], &expect[..], "portable: {}", portable);
        }
    }

    /// The 4-lane mix of the AVX2 hasher is the scalar one.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn vector_mix_is_the_scalar_mix(x in any::<[u64; 4]>()) {
        if avx2::available() {
            // SAFETY: the processor has AVX2 (checked just above).
            let mixed = unsafe { avx2::mix4(x) };
            prop_assert_eq!(mixed, x.map(crate::hash::mix64));
        }
    }

    /// Pieces make up the text, and the fast ones hold only what the fast path takes.
    #[test]
    fn pieces_make_up_the_text(s in mixed_text()) {
        for rules in [WORDS, GRAPHEMES] {
            let slices: Vec<&str> = Pieces::new(&s, rules)
                .map(|p| match p { Piece::Fast(t) | Piece::Slow(t) => t })
                .collect();
            prop_assert_eq!(slices.concat(), s.clone());
            prop_assert!(slices.iter().all(|t| !t.is_empty()));
        }
    }

    /// Both block classifiers give the masks of a byte loop, for every byte value.
    #[test]
    fn block_masks_match_a_byte_loop(bytes in proptest::collection::vec(any::<u8>(), 64)) {
        let block: [u8; 64] = bytes.try_into().unwrap();
        let bits = |f: &dyn Fn(u8) -> bool| {
            block.iter().enumerate().fold(0u64, |m, (i, &b)| m | ((f(b) as u64) << i))
        };
        let expect = fast::Masks {
            word: bits(&|b| b.is_ascii_alphanumeric() || b == b'_'),
            joiner: bits(&|b| matches!(b, b'.' | b'\'' | b':' | b',' | b';')),
            high: bits(&|b| b >= 0x80),
        };
        prop_assert_eq!(swar::classify(&block), expect);
        #[cfg(target_arch = "x86_64")]
        if avx2::available() {
            // SAFETY: the processor has AVX2 (checked just above).
            prop_assert_eq!(unsafe { avx2::classify(&block) }, expect);
        }
    }

    /// With every cleaning option, the spelled-out path hashes the reference tokens.
    #[test]
    fn cleaned_hashes_match_reference_tokens(
        s in "[a-zA-Zéü0-9_.:',; \n\t!ÄΣ-]{0,60}|(the|and|running|Connected|x1|2|und|die|Häuser|e\u{301}| )+",
        keep_case: bool,
        letters: bool,
        stop in proptest::option::of(0u8..4),
        stem in proptest::option::of(0u8..4),
    ) {
        let langs = [Language::English, Language::German, Language::French, Language::Catalan];
        let opts = TextOptions {
            keep_case,
            letters_only: letters,
            stopwords: stop.map(|i| langs[i as usize]),
            stem: stem.map(|i| langs[i as usize]),
            ..Default::default()
        };
        prop_assert_eq!(hashes(&s, &opts), reference(&s, &opts));
    }
}

proptest! {
    // Fewer cases: each text is some hundred bytes, checked ten ways.
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Every path gives the reference's tokens on real-looking text in many scripts,
    /// with emoji, numbers with separators, URLs and e-mail addresses.
    #[test]
    fn real_looking_text_matches_the_reference(s in real_text()) {
        check_all_paths(&s)?;
    }
}
