//! Languages of the stop-word lists (`--stopwords LANG`) and the Snowball stemmers
//! (`--stem LANG`).
//!
//! The lists are NLTK's, as the `stop-words` crate ships them, except English: its list
//! is simtui's own built-in one ([`super::stopwords`]), which a bare `--stopwords` has
//! always meant. The stemmers are the Snowball algorithms of the `rust-stemmers` crate,
//! for the languages that have one.

use rust_stemmers::Algorithm;
use std::fmt;

/// A language with a stop-word list, and maybe a Snowball stemmer.
///
/// Each has a fixed number ([`Language::code`]) that the saved index records; new
/// languages get new numbers, old ones never change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Language {
    /// Arabic (ar).
    Arabic,
    /// Danish (da).
    Danish,
    /// Dutch (nl).
    Dutch,
    /// English (en): the built-in list.
    English,
    /// Finnish (fi).
    Finnish,
    /// French (fr).
    French,
    /// German (de).
    German,
    /// Greek (el).
    Greek,
    /// Hungarian (hu).
    Hungarian,
    /// Italian (it).
    Italian,
    /// Norwegian (no).
    Norwegian,
    /// Portuguese (pt).
    Portuguese,
    /// Romanian (ro).
    Romanian,
    /// Russian (ru).
    Russian,
    /// Spanish (es).
    Spanish,
    /// Swedish (sv).
    Swedish,
    /// Tamil (ta).
    Tamil,
    /// Turkish (tr).
    Turkish,
    /// Albanian (sq): stop words only.
    Albanian,
    /// Azerbaijani (az): stop words only.
    Azerbaijani,
    /// Basque (eu): stop words only.
    Basque,
    /// Belarusian (be): stop words only.
    Belarusian,
    /// Bengali (bn): stop words only.
    Bengali,
    /// Catalan (ca): stop words only.
    Catalan,
    /// Chinese (zh): stop words only.
    Chinese,
    /// Hebrew (he): stop words only.
    Hebrew,
    /// Indonesian (id): stop words only.
    Indonesian,
    /// Kazakh (kk): stop words only.
    Kazakh,
    /// Nepali (ne): stop words only.
    Nepali,
    /// Slovenian (sl): stop words only.
    Slovenian,
    /// Tajik (tg): stop words only.
    Tajik,
    /// Uzbek (uz): stop words only.
    Uzbek,
}

/// (language, name, ISO 639-1 code), in the order of [`Language::code`]: append only.
const TABLE: [(Language, &str, &str); 32] = [
    (Language::Arabic, "arabic", "ar"),
    (Language::Danish, "danish", "da"),
    (Language::Dutch, "dutch", "nl"),
    (Language::English, "english", "en"),
    (Language::Finnish, "finnish", "fi"),
    (Language::French, "french", "fr"),
    (Language::German, "german", "de"),
    (Language::Greek, "greek", "el"),
    (Language::Hungarian, "hungarian", "hu"),
    (Language::Italian, "italian", "it"),
    (Language::Norwegian, "norwegian", "no"),
    (Language::Portuguese, "portuguese", "pt"),
    (Language::Romanian, "romanian", "ro"),
    (Language::Russian, "russian", "ru"),
    (Language::Spanish, "spanish", "es"),
    (Language::Swedish, "swedish", "sv"),
    (Language::Tamil, "tamil", "ta"),
    (Language::Turkish, "turkish", "tr"),
    (Language::Albanian, "albanian", "sq"),
    (Language::Azerbaijani, "azerbaijani", "az"),
    (Language::Basque, "basque", "eu"),
    (Language::Belarusian, "belarusian", "be"),
    (Language::Bengali, "bengali", "bn"),
    (Language::Catalan, "catalan", "ca"),
    (Language::Chinese, "chinese", "zh"),
    (Language::Hebrew, "hebrew", "he"),
    (Language::Indonesian, "indonesian", "id"),
    (Language::Kazakh, "kazakh", "kk"),
    (Language::Nepali, "nepali", "ne"),
    (Language::Slovenian, "slovenian", "sl"),
    (Language::Tajik, "tajik", "tg"),
    (Language::Uzbek, "uzbek", "uz"),
];

impl Language {
    /// Every language, in the order of their codes.
    pub fn all() -> impl Iterator<Item = Language> {
        TABLE.iter().map(|t| t.0)
    }

    /// The languages that have a Snowball stemmer.
    pub fn stemmed() -> impl Iterator<Item = Language> {
        Language::all().filter(|l| l.has_stemmer())
    }

    /// Whether it has a Snowball stemmer.
    pub fn has_stemmer(self) -> bool {
        self.algorithm().is_some()
    }

    fn row(self) -> &'static (Language, &'static str, &'static str) {
        TABLE
            .iter()
            .find(|t| t.0 == self)
            .expect("every language is in the table")
    }

    /// Its lowercase English name, as the command line takes it: `"english"`.
    pub fn name(self) -> &'static str {
        self.row().1
    }

    /// Its ISO 639-1 code: `"en"`.
    pub fn iso(self) -> &'static str {
        self.row().2
    }

    /// Its number in a saved index, from 1 (0 there means none).
    pub fn code(self) -> u8 {
        TABLE
            .iter()
            .position(|t| t.0 == self)
            .expect("in the table") as u8
            + 1
    }

    /// The language of a saved index's number, if it is one.
    pub fn from_code(code: u8) -> Option<Language> {
        TABLE.get((code as usize).checked_sub(1)?).map(|t| t.0)
    }

    /// A language by its name or ISO 639-1 code, any case: `"English"`, `"en"`.
    pub fn parse(s: &str) -> Option<Language> {
        let s = s.trim().to_lowercase();
        TABLE.iter().find(|t| t.1 == s || t.2 == s).map(|t| t.0)
    }

    /// Its stop words, lowercase: the built-in list for English, NLTK's for the others.
    pub fn stopwords(self) -> &'static [&'static str] {
        if self == Language::English {
            return &super::stopwords::ENGLISH;
        }
        stop_words::lookup(self.iso()).expect("the crate's NLTK lists cover every language")
    }

    /// Its Snowball stemmer, if it has one.
    pub(crate) fn algorithm(self) -> Option<Algorithm> {
        Some(match self {
            Language::Arabic => Algorithm::Arabic,
            Language::Danish => Algorithm::Danish,
            Language::Dutch => Algorithm::Dutch,
            Language::English => Algorithm::English,
            Language::Finnish => Algorithm::Finnish,
            Language::French => Algorithm::French,
            Language::German => Algorithm::German,
            Language::Greek => Algorithm::Greek,
            Language::Hungarian => Algorithm::Hungarian,
            Language::Italian => Algorithm::Italian,
            Language::Norwegian => Algorithm::Norwegian,
            Language::Portuguese => Algorithm::Portuguese,
            Language::Romanian => Algorithm::Romanian,
            Language::Russian => Algorithm::Russian,
            Language::Spanish => Algorithm::Spanish,
            Language::Swedish => Algorithm::Swedish,
            Language::Tamil => Algorithm::Tamil,
            Language::Turkish => Algorithm::Turkish,
            _ => return None,
        })
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_codes_and_numbers_round_trip() {
        for l in Language::all() {
            assert_eq!(Language::parse(l.name()), Some(l));
            assert_eq!(Language::parse(&l.iso().to_uppercase()), Some(l));
            assert_eq!(Language::from_code(l.code()), Some(l));
        }
        assert_eq!(Language::from_code(0), None);
        assert_eq!(Language::from_code(33), None);
        assert_eq!(Language::parse("klingon"), None);
        // The numbers are saved in index files: they never change.
        assert_eq!(Language::English.code(), 4);
        assert_eq!(Language::Uzbek.code(), 32);
        assert_eq!(Language::stemmed().count(), 18);
    }

    #[test]
    fn every_language_has_a_lowercase_list() {
        for l in Language::all() {
            let words = l.stopwords();
            assert!(words.len() >= 20, "{l}: {} words", words.len());
            for w in words {
                assert_eq!(&w.to_lowercase(), w, "{l}: {w:?}");
            }
        }
        assert!(Language::German.stopwords().contains(&"und"));
        assert!(Language::French.stopwords().contains(&"le"));
        assert_eq!(Language::English.stopwords().len(), 126);
    }
}
