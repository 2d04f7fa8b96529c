//! JSON Lines: one JSON object per line, its text in one field and maybe its id in another.
//!
//! A line is parsed for the two fields only: the other fields are skipped without being
//! built, so records with large metadata cost little more than their text.

use super::format::{Fields, RecordFormat};
use super::record::Record;
use super::skip::SkipReason;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// Splits `buf` into lines (without their '\n'): the ranges of the complete ones and how
/// many bytes are done with. At the end of the file the last line needs no '\n'.
pub(crate) fn split(buf: &[u8], eof: bool) -> (Vec<std::ops::Range<usize>>, usize) {
    let mut out = Vec::new();
    let mut pos = 0;
    for end in memchr::memchr_iter(b'\n', buf) {
        out.push(pos..end);
        pos = end + 1;
    }
    if eof && pos < buf.len() {
        out.push(pos..buf.len());
        pos = buf.len();
    }
    (out, pos)
}

/// Where a line too long to keep ends, in data that follows its start.
pub(crate) fn find_end(buf: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', buf).map(|n| n + 1)
}

/// Whether a line holds nothing but white space (such lines are passed over silently).
pub(crate) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// A field's value, as far as a record needs it.
#[derive(Clone)]
enum Field {
    Text(String),
    /// A number, as written.
    Number(String),
    /// Anything else: its kind, for the message.
    Other(&'static str),
}

/// The fields of a record that are wanted, everything else ignored.
struct Wanted<'f> {
    fields: &'f Fields<'f>,
    /// The text field taken as written and unescaped here when it can be
    /// ([`text_of`]); else read as any other field.
    raw_text: bool,
}

#[derive(Default)]
struct Found {
    text: Option<Field>,
    id: Option<Field>,
    title: Option<Field>,
    /// The metadata fields' values, as text (in the order asked for).
    meta: Vec<String>,
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
        let fields = self.fields;
        let mut found = Found {
            meta: vec![String::new(); fields.meta.len()],
            ..Found::default()
        };
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let key = key.as_ref();
            // A field may be wanted twice (an id that is also metadata): read it once,
            // as a JSON value, when metadata wants it.
            let meta_at = fields.meta.iter().position(|m| m == key);
            if let Some(at) = meta_at {
                let value: serde_json::Value = map.next_value()?;
                let field = field_of(&value);
                if key == fields.text {
                    found.text = Some(field_of(&value));
                }
                if Some(key) == fields.id {
                    found.id = Some(field_of(&value));
                }
                if Some(key) == fields.title {
                    found.title = Some(field);
                }
                found.meta[at] = value_text(&value);
                for (i, m) in fields.meta.iter().enumerate().skip(at + 1) {
                    if m == key {
                        found.meta[i] = found.meta[at].clone();
                    }
                }
            } else if key == fields.text && self.raw_text {
                let raw: &'de RawValue = map.next_value()?;
                found.text = Some(text_of(raw).map_err(de::Error::custom)?);
            } else if key == fields.text {
                found.text = Some(map.next_value_seed(AnyField)?);
            } else if Some(key) == fields.id {
                let id = map.next_value_seed(AnyField)?;
                if Some(key) == fields.title {
                    found.title = Some(id.clone());
                }
                found.id = Some(id);
            } else if Some(key) == fields.title {
                found.title = Some(map.next_value_seed(AnyField)?);
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

/// A text field's value from its JSON as written. A string whose escapes are all of one
/// letter (`\n`, `\"`, ...) is unescaped here into a string of its final size: serde_json
/// builds an escaped string in a buffer that starts empty for every line, grown a few
/// times and then copied, which was most of reading a record's allocations (7 % of the
/// CPU time of `pairs` on a million records). Anything else is read as before.
fn text_of(raw: &RawValue) -> Result<Field, serde_json::Error> {
    match simple_string(raw.get()) {
        Some(text) => Ok(Field::Text(text)),
        None => AnyField.deserialize(&mut serde_json::Deserializer::from_str(raw.get())),
    }
}

/// `json`, a JSON string as serde_json checked it, unescaped when its escapes are all of
/// one letter; None for anything else (a `\u` escape, a value that is no string).
fn simple_string(json: &str) -> Option<String> {
    let inner = json.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut rest = inner;
    while let Some(at) = memchr::memchr(b'\\', rest.as_bytes()) {
        out.push_str(&rest[..at]);
        out.push(match rest.as_bytes().get(at + 1)? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            _ => return None,
        });
        // The escape's two bytes are ASCII: the rest starts on a character.
        rest = &rest[at + 2..];
    }
    out.push_str(rest);
    Some(out)
}

/// A metadata value as a field: strings and numbers as they are, anything else by kind.
fn field_of(value: &serde_json::Value) -> Field {
    use serde_json::Value;
    match value {
        Value::String(s) => Field::Text(s.clone()),
        Value::Number(n) => Field::Number(n.to_string()),
        Value::Bool(_) => Field::Other("a boolean"),
        Value::Null => Field::Other("null"),
        Value::Array(_) => Field::Other("an array"),
        Value::Object(_) => Field::Other("an object"),
    }
}

/// A metadata value as text: a string as it is, a number as written, null as nothing,
/// an array as its items joined by ", " (`["usa", "uk"]` is `usa, uk`), an object as
/// compact JSON.
pub(crate) fn value_text(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Array(items) => items.iter().map(value_text).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// A line's text (the string field `fields.text`), id (the string or number field
/// `fields.id`, when asked for and present), title (a string or number field) and
/// metadata (any JSON values, as text). A line that is not a JSON object, or whose text
/// field is missing or not a string, is a bad record. Bytes that are not UTF-8 are
/// replaced, as in plain-text files.
pub(crate) fn extract(line: &[u8], fields: &Fields) -> Result<Record, (SkipReason, String)> {
    extract_with(line, fields, true)
}

/// [`extract`], the text field taken as written ([`text_of`]) when `raw_text`, else
/// read as any other field: the same record either way.
fn extract_with(
    line: &[u8],
    fields: &Fields,
    raw_text: bool,
) -> Result<Record, (SkipReason, String)> {
    let text_field = fields.text;
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let parse_as = |bytes: &[u8], raw_text: bool| {
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let found = Wanted { fields, raw_text }.deserialize(&mut de)?;
        de.end()?;
        Ok::<_, serde_json::Error>(found)
    };
    // A line that fails is parsed again as it always was, for the same message.
    let parse = |bytes: &[u8]| {
        let fast = if raw_text {
            parse_as(bytes, true).ok()
        } else {
            None
        };
        fast.map_or_else(|| parse_as(bytes, false), Ok)
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
    let named = |f: Option<Field>| match f {
        Some(Field::Text(s)) if !s.is_empty() => Some(s),
        Some(Field::Number(n)) => Some(n),
        _ => None,
    };
    Ok(Record {
        id: named(found.id),
        title: named(found.title),
        text,
        meta: found.meta,
    })
}

/// The keys of a line's object, in order (their values skipped, not built).
pub(crate) fn keys(line: &[u8]) -> Result<Vec<String>, (SkipReason, String)> {
    struct Keys;
    impl<'de> Visitor<'de> for Keys {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<String>, A::Error> {
            let mut keys = Vec::new();
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                map.next_value::<IgnoredAny>()?;
                keys.push(key.into_owned());
            }
            Ok(keys)
        }
    }
    let line = String::from_utf8_lossy(line);
    let line = line.trim_start_matches('\u{FEFF}');
    let mut parser = serde_json::Deserializer::from_str(line);
    de::Deserializer::deserialize_map(&mut parser, Keys).map_err(bad_json)
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

/// JSON Lines: a record per line.
pub(crate) struct Jsonl;

impl RecordFormat for Jsonl {
    fn split(&self, buf: &[u8], eof: bool) -> (Vec<std::ops::Range<usize>>, usize) {
        split(buf, eof)
    }

    fn find_end(&self, buf: &[u8]) -> Option<usize> {
        find_end(buf)
    }

    fn extract(&self, raw: &[u8], fields: &Fields) -> Result<Record, (SkipReason, String)> {
        extract(raw, fields)
    }
    fn is_blank(&self, raw: &[u8]) -> bool {
        is_blank(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line read for a text field and maybe an id.
    fn extract(line: &[u8], text: &str, id: Option<&str>) -> Result<Record, (SkipReason, String)> {
        super::extract(line, &Fields::text_id(text, id))
    }

    /// What a line gives with its text taken as written, and read as any other field.
    fn both_ways(line: &[u8]) -> [String; 2] {
        let fields = Fields::text_id("text", Some("id"));
        [true, false].map(|raw| format!("{:?}", extract_with(line, &fields, raw)))
    }

    proptest::proptest! {
        /// Texts of quotes, backslashes, control characters, non-ASCII and `\u` escapes,
        /// written by serde_json and by hand, and lines that are not JSON.
        #[test]
        fn a_text_taken_as_written_is_the_text_read(
            text in "[a\"\\\\/\n\t\r\u{8}\u{c}\u{1}é😀 ]{0,24}",
            by_hand in r#"([a ]|\\["\\/bfnrt]|\\u00[0-9a-f]{2}|\\u[dD][89aAbBcCdDeEfF][0-9a-f]{2}|\\ud83d\\ude00|\\[xq]|"|é){0,12}"#,
        ) {
            let written = serde_json::to_string(&text).unwrap();
            for value in [written, format!("\"{by_hand}\""), by_hand.clone()] {
                let line = format!(r#"{{"id":"a","text":{value},"x":1}}"#);
                let [fast, slow] = both_ways(line.as_bytes());
                proptest::prop_assert_eq!(fast, slow, "{}", line);
            }
        }
    }

    #[test]
    fn a_text_of_escapes_is_unescaped() {
        let line = br#"{"text":"a\"b\\c\/d\ne\tf\u00e9\ud83d\ude00","id":1}"#;
        let r = extract(line, "text", Some("id")).unwrap();
        assert_eq!(r.text, "a\"b\\c/d\ne\tfé😀");
        // Numbers, lone surrogates, bad escapes, bytes not UTF-8: as before.
        for line in [
            &br#"{"text":12}"#[..],
            br#"{"text":"\ud800"}"#,
            br#"{"text":"\q"}"#,
            br#"{"text":"a\"}"#,
            b"{\"text\":\"\xff\\n\"}",
        ] {
            let [fast, slow] = both_ways(line);
            assert_eq!(fast, slow);
        }
    }

    #[test]
    fn titles_and_metadata() {
        let meta = [
            "date".to_string(),
            "places".to_string(),
            "id".to_string(),
            "n".to_string(),
        ];
        let fields = Fields {
            title: Some("headline"),
            meta: &meta,
            ..Fields::text_id("text", Some("id"))
        };
        let r = super::extract(
            br#"{"id":7,"headline":"Oil up","date":"1987-03-02","places":["usa","uk"],"text":"t","x":{"n":1}}"#,
            &fields,
        )
        .unwrap();
        assert_eq!(r.id.as_deref(), Some("7"));
        assert_eq!(r.title.as_deref(), Some("Oil up"));
        assert_eq!(r.meta, ["1987-03-02", "usa, uk", "7", ""]);
        // A title that is not text is no title; the id may be the title too.
        let r = super::extract(br#"{"id":"a","headline":[1],"text":"t"}"#, &fields).unwrap();
        assert_eq!(r.title, None);
        let same = Fields {
            title: Some("id"),
            ..Fields::text_id("text", Some("id"))
        };
        let r = super::extract(br#"{"id":"a b","text":"t"}"#, &same).unwrap();
        assert_eq!(
            (r.id.as_deref(), r.title.as_deref()),
            (Some("a b"), Some("a b"))
        );
    }

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
