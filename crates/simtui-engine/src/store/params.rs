//! Whether a saved index was built with the parameters asked for: what differs, in
//! words (the saved index is then rebuilt, or an addition to it refused).

use crate::index::Params;

/// The parameters of a saved index that differ from those asked for, in words; the
/// number of hash functions never counts (more are computed, or fewer used).
pub(super) fn differences(saved: &Params, wanted: &Params) -> Option<String> {
    let mut d = Vec::new();
    if saved.k != wanted.k {
        d.push(format!("k = {} (asked for {})", saved.k, wanted.k));
    }
    if saved.text.unit != wanted.text.unit {
        d.push(format!(
            "--unit {} (asked for {})",
            saved.text.unit.name(),
            wanted.text.unit.name()
        ));
    }
    if saved.text.keep_case != wanted.text.keep_case {
        d.push(format!("keep-case {}", on(saved.text.keep_case)));
    }
    let lang = |l: Option<crate::text::Language>| l.map_or("off", |l| l.name());
    if saved.text.stopwords != wanted.text.stopwords {
        d.push(format!(
            "--stopwords {} (asked for {})",
            lang(saved.text.stopwords),
            lang(wanted.text.stopwords)
        ));
    }
    if saved.text.stem != wanted.text.stem {
        d.push(format!(
            "--stem {} (asked for {})",
            lang(saved.text.stem),
            lang(wanted.text.stem)
        ));
    }
    if saved.text.letters_only != wanted.text.letters_only {
        d.push(format!("letters-only {}", on(saved.text.letters_only)));
    }
    if saved.seed != wanted.seed {
        d.push(format!("seed {} (asked for {})", saved.seed, wanted.seed));
    }
    if saved.min_words != wanted.min_words {
        d.push(format!(
            "--min-words {} (asked for {})",
            saved.min_words, wanted.min_words
        ));
    }
    if saved.sketch != wanted.sketch {
        d.push(format!(
            "--sketch {} (asked for {})",
            saved.sketch.name(),
            wanted.sketch.name()
        ));
    }
    if saved.max_bytes != wanted.max_bytes {
        d.push(format!(
            "--max-bytes {} (asked for {})",
            saved.max_bytes, wanted.max_bytes
        ));
    }
    (!d.is_empty()).then(|| format!("it was built with {}", d.join(", ")))
}

fn on(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}
