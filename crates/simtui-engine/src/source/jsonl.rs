//! JSON Lines: one JSON object per line, its text in one field and maybe its id in another.
//!
//! A line is parsed for the two fields only: the other fields are skipped without being
//! built, so records with large metadata cost little more than their text.

use super::record::Record;
use super::skip::SkipReason;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// Splits `buf` into lines (without their '\n'): the ranges of the complete ones and how
/// many bytes are done with. At the end of the file the last line needs no '\n'.
pub(crate) fn split(buf: &[u8], eof: bool) -> (Vec<std::ops::Range<usize>>, usize) {
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(n) = buf[pos..].iter().position(|&b| b == b'\n') {
        out.push(pos..pos + n);
        pos += n + 1;
    }
    if eof && pos < buf.len() {
        out.push(pos..buf.len());
        pos = buf.len();
    }
    (out, pos)
}

/// Where a line too long to keep ends, in data that follows its start.
pub(crate) fn find_end(buf: &[u8]) -> Option<usize> {
    buf.iter().position(|&b| b == b'\n').map(|n| n + 1)
}

/// Whether a line holds nothing but white space (such lines are passed over silently).
pub(crate) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// A field's value, as far as a record needs it.
enum Field {
    Text(String),
    /// A number, as written.
    Number(String),
    /// Anything else: its kind, for the message.
    Other(&'static str),
}

/// The two fields of a record that are wanted, everything else ignored.
struct Wanted<'f> {
    text: &'f str,
    id: Option<&'f str>,
}

#[derive(Default)]
struct Found {
    text: Option<Field>,
    id: Option<Field>,
}

impl<'de> DeserializeSeed<'de> for Wanted<'_> {
    type Value = Found;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Found, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Wanted<'_> {
    type Value = Found;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Found, A::Error> {
        let mut found = Found::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == self.text {
                found.text = Some(map.next_value_seed(AnyField)?);
            } else if Some(key.as_ref()) == self.id {
                found.id = Some(map.next_value_seed(AnyField)?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// Reads a field's value: strings and numbers kept, anything else skipped and named.
struct AnyField;

impl<'de> DeserializeSeed<'de> for AnyField {
    type Value = Field;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Field, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for AnyField {
    type Value = Field;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_str<E>(self, v: &str) -> Result<Field, E> {
        Ok(Field::Text(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Field, E> {
        Ok(Field::Text(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Field, E> {
        Ok(Field::Number(v.to_string()))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Field, E> {
        Ok(Field::Number(v.to_string()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Field, E> {
        Ok(Field::Number(v.to_string()))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Field, E> {
        Ok(Field::Other("a boolean"))
    }
    fn visit_unit<E>(self) -> Result<Field, E> {
        Ok(Field::Other("null"))
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Field, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Field::Other("an array"))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Field, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Field::Other("an object"))
    }
}

/// A line's text (the string field `text_field`) and id (the string or number field
/// `id_field`, when asked for and present). A line that is not a JSON object, or whose
/// text field is missing or not a string, is a bad record. Bytes that are not UTF-8
/// are replaced, as in plain-text files.
pub(crate) fn extract(
    line: &[u8],
    text_field: &str,
    id_field: Option<&str>,
) -> Result<Record, (SkipReason, String)> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let wanted = || Wanted {
        text: text_field,
        id: id_field,
    };
    let parse = |bytes: &[u8]| {
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let found = wanted().deserialize(&mut de)?;
        de.end()?;
        Ok::<_, serde_json::Error>(found)
    };
    let found = match parse(line) {
        Ok(f) => f,
        Err(e) if std::str::from_utf8(line).is_err() => {
            let lossy = String::from_utf8_lossy(line);
            parse(lossy.as_bytes()).map_err(|_| bad_json(e))?
        }
        Err(e) => return Err(bad_json(e)),
    };
    let bad = |m: String| Err((SkipReason::BadRecord, m));
    let text = match found.text {
        Some(Field::Text(t)) => t,
        Some(Field::Number(_)) => return bad(format!("{text_field:?} is a number, not a string")),
        Some(Field::Other(kind)) => return bad(format!("{text_field:?} is {kind}, not a string")),
        None => return bad(format!("no {text_field:?} field")),
    };
    let id = match found.id {
        Some(Field::Text(s)) if !s.is_empty() => Some(s),
        Some(Field::Number(n)) => Some(n),
        _ => None,
    };
    Ok(Record { id, text })
}

fn bad_json(e: serde_json::Error) -> (SkipReason, String) {
    let what = if e.classify() == serde_json::error::Category::Data {
        "not a JSON object".to_string()
    } else {
        // The record is one line: its column is all the place there is to tell.
        let message = e.to_string();
        let message = message.split(" at line ").next().unwrap_or(&message);
        format!("not JSON: {message} at column {}", e.column())
    };
    (SkipReason::BadRecord, what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_lines_and_keeps_a_partial_one() {
        let (r, done) = split(b"a\nbb\ncc", false);
        assert_eq!(r, [0..1, 2..4]);
        assert_eq!(done, 5);
        let (r, done) = split(b"a\nbb\ncc", true);
        assert_eq!(r, [0..1, 2..4, 5..7]);
        assert_eq!(done, 7);
        assert_eq!(find_end(b"xx\nyy"), Some(3));
    }

    #[test]
    fn extracts_text_and_id_ignoring_other_fields() {
        let r = extract(
            br#"{"meta":{"a":[1,2,{"text":"no"}]},"id":17,"text":"hello \"world\"\n"}"#,
            "text",
            Some("id"),
        )
        .unwrap();
        assert_eq!(r.text, "hello \"world\"\n");
        assert_eq!(r.id.as_deref(), Some("17"));
        let r = extract(b"{\"body\":\"x\",\"key\":\"k-1\"}\r", "body", Some("key")).unwrap();
        assert_eq!((r.id.as_deref(), r.text.as_str()), (Some("k-1"), "x"));
        // No id field asked for, or a null one: the caller names the record.
        assert_eq!(
            extract(br#"{"text":"x","id":1}"#, "text", None).unwrap().id,
            None
        );
        assert_eq!(
            extract(br#"{"text":"x","id":null}"#, "text", Some("id"))
                .unwrap()
                .id,
            None
        );
    }

    #[test]
    fn bad_lines_say_why() {
        let why = |l: &[u8]| extract(l, "text", None).unwrap_err().1;
        assert!(
            why(b"{\"text\": ").starts_with("not JSON"),
            "{}",
            why(b"{\"text\": ")
        );
        assert!(why(b"not json").starts_with("not JSON"));
        assert_eq!(why(b"[1,2]"), "not a JSON object");
        assert_eq!(why(b"{\"txt\":\"a\"}"), "no \"text\" field");
        assert_eq!(why(b"{\"text\":5}"), "\"text\" is a number, not a string");
        assert_eq!(why(b"{\"text\":null}"), "\"text\" is null, not a string");
        assert_eq!(
            why(b"{\"text\":\"a\"} trailing"),
            why(b"{\"text\":\"a\"} trailing")
        );
        assert!(why(b"{\"text\":\"a\"} trailing").starts_with("not JSON"));
        assert_eq!(
            extract(b"{\"text\":\"caf\xe9\"}", "text", None)
                .unwrap()
                .text,
            "caf\u{FFFD}"
        );
    }
}
