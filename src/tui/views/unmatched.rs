//! Why no id of a list (a removal list, a pairs file) names a document of the corpus:
//! most often the corpus was read without the `--id-field` the list's ids come from
//! (`simtui --review LIST data.parquet` names rows `data.parquet:1` unless told `--id-field
//! id`). Said once the list is looked up, instead of marking every row "not in the
//! corpus" without a word: where the corpus's ids come from, what they and the list's
//! look like, and which fields the records have.

use simtui_engine::index::Index;
use simtui_engine::source::{self, Source};

/// Fields whose name says they hold ids (`id`, `doc_id`, `uuid`, `NEWID`), suggested to
/// `--id-field`.
fn id_like(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let ends = ["_id", "-id", "uuid", "docid", "newid", "oldid"];
    lower == "id" || lower.starts_with("id_") || ends.iter().any(|e| lower.ends_with(e))
}

/// The explanation when none of `what` ("the list's 477 removals"), whose ids are like
/// `example`, names a document of `index` read with `--id-field id_field`. For the
/// view's note.
pub fn explain(index: &Index, id_field: Option<&str>, example: &str, what: &str) -> String {
    let Some(doc) = index.docs().get(0) else {
        return format!("None of {what} is in the corpus: it has no documents.");
    };
    let mut out = format!(
        "None of {what} names a document here: its ids are like {example:?}, the corpus's like {:?}.",
        doc.id
    );
    let Source::Part(part) = &doc.source else {
        out.push_str(" The corpus is files, named by their paths under the folder given.");
        return out;
    };
    let from = match (id_field, part.format()) {
        (Some(field), _) => format!("the field {field:?}"),
        (None, "SGML") => "the NEWID attribute (no --id-field)".to_string(),
        (None, "Parquet") => "FILE:ROW (no --id-field)".to_string(),
        (None, _) => "FILE:LINE (no --id-field)".to_string(),
    };
    out.push_str(&format!(" Ids here come from {from}"));
    match source::record_fields(part) {
        Ok(fields) if !fields.is_empty() => {
            out.push_str(&format!("; the records' fields: {}", fields.join(", ")));
            let other = fields
                .iter()
                .find(|f| id_like(f) && Some(f.as_str()) != id_field);
            if let Some(f) = other {
                out.push_str(&format!(". Try --id-field {f}"));
            }
        }
        _ => {}
    }
    out.push('.');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_like_names() {
        for yes in ["id", "ID", "doc_id", "NEWID", "uuid", "id_str", "docid"] {
            assert!(id_like(yes), "{yes}");
        }
        for no in ["text", "title", "valid", "date"] {
            assert!(!id_like(no), "{no}");
        }
    }
}
