//! The metadata two documents show side by side (the diff's header, `simtui diff`): the
//! fields asked for (`--meta-field`) always, and the usual date and origin fields of
//! their formats (SGML's DATE and PLACES, a record's date, url, ...) where either has a
//! value. Two reports alike word for word are often of different days: this says so.

use simtui_engine::index::Doc;
use simtui_engine::source::Source;

/// A document's metadata by name: the names its record's format reads (those asked for,
/// then the usual ones) with its values, an empty value where it has none.
pub fn fields(doc: &Doc) -> Vec<(String, String)> {
    let Source::Part(part) = &doc.source else {
        return Vec::new();
    };
    let names = part.meta_names();
    names
        .iter()
        .enumerate()
        .map(|(i, name)| (name.clone(), doc.meta().get(i).cloned().unwrap_or_default()))
        .collect()
}

/// The fields to show for two documents and each one's values, in order: those asked
/// for, then the others either document has a value of.
pub fn side_by_side(asked: &[String], a: &Doc, b: &Doc) -> (Vec<String>, [Vec<String>; 2]) {
    let (fa, fb) = (fields(a), fields(b));
    let value = |f: &[(String, String)], name: &str| {
        f.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let mut names: Vec<String> = asked.to_vec();
    for (name, _) in fa.iter().chain(&fb) {
        let present = !value(&fa, name).is_empty() || !value(&fb, name).is_empty();
        if present && !names.contains(name) {
            names.push(name.clone());
        }
    }
    let values = |f: &[(String, String)]| names.iter().map(|n| value(f, n)).collect();
    let sides = [values(&fa), values(&fb)];
    (names, sides)
}
