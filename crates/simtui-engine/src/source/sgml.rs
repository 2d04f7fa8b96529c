//! Reuters-21578 SGML: files of `<REUTERS ...> ... </REUTERS>` articles.
//!
//! Tolerant by design: the real files are Latin-1-ish, end bodies with `&#3;`, and have
//! the odd stray control character. An article is found by its `<REUTERS` tag (a missing
//! `</REUTERS>` ends it at the next article or the end of the file); its text is the
//! `<TITLE>` and the `<BODY>`, with entities decoded and control characters dropped. An
//! article with a `<TITLE>` and no `<BODY>` (the collection's `BRIEF` ones) is its title
//! alone, unless bodies alone are read; one with neither (`UNPROC`) is skipped.

use super::format::{Fields, RecordFormat, SgmlText};
use super::record::Record;
use super::skip::SkipReason;
use std::borrow::Cow;
use std::ops::Range;

const OPEN: &[u8] = b"<REUTERS";
const CLOSE: &[u8] = b"</REUTERS>";

/// Where `needle` (ASCII, upper case) first occurs in `hay` at or after `from`, ignoring
/// ASCII case. The candidates are found by a SIMD search for the needle's first byte (a
/// `<` for every tag looked for here), so text between tags costs a few instructions per
/// 16 or 32 bytes rather than a comparison per byte.
fn find_ci(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if hay.len() < needle.len() || from > hay.len() - needle.len() {
        return None;
    }
    let last = hay.len() - needle.len();
    let (lower, upper) = (
        needle[0].to_ascii_lowercase(),
        needle[0].to_ascii_uppercase(),
    );
    memchr::memchr2_iter(lower, upper, &hay[from..])
        .map(|i| from + i)
        .take_while(|&i| i <= last)
        .find(|&i| hay[i..i + needle.len()].eq_ignore_ascii_case(needle))
}

/// The next `<REUTERS` opening tag at or after `from` (the name must end there: not
/// `<REUTERSX`).
fn find_open(buf: &[u8], mut from: usize) -> Option<usize> {
    while let Some(i) = find_ci(buf, OPEN, from) {
        match buf.get(i + OPEN.len()) {
            Some(c) if c.is_ascii_whitespace() || *c == b'>' => return Some(i),
            // Not known yet: the caller decides with more data (or at the end of the file).
            None => return Some(i),
            _ => from = i + 1,
        }
    }
    None
}

/// Splits `buf` into articles: the ranges of the complete ones, and how many bytes are
/// done with (articles and the text between them). At the end of the file (`eof`) an
/// unterminated article runs to the end; before it, an article whose end is not in `buf`
/// yet is left for the next call, unless another article starts after it.
pub(crate) fn split(buf: &[u8], eof: bool) -> (Vec<Range<usize>>, usize) {
    let mut out = Vec::new();
    let mut pos = 0;
    loop {
        let Some(start) = find_open(buf, pos) else {
            // No article starts here: keep only a tail that could be the start of a tag.
            let keep = if eof {
                0
            } else {
                OPEN.len().min(buf.len() - pos)
            };
            return (out, buf.len() - keep);
        };
        let close = find_ci(buf, CLOSE, start + OPEN.len());
        let next = find_open(buf, start + OPEN.len());
        let end = match (close, next) {
            (Some(c), Some(n)) if n < c => n,
            (Some(c), _) => c + CLOSE.len(),
            (None, Some(n)) => n,
            (None, None) if eof => buf.len(),
            (None, None) => return (out, start),
        };
        out.push(start..end);
        pos = end;
    }
}

/// Where an article too large to keep ends, in data that follows its start: after its
/// `</REUTERS>`, or at the next `<REUTERS`.
pub(crate) fn find_end(buf: &[u8]) -> Option<usize> {
    let close = find_ci(buf, CLOSE, 0).map(|c| c + CLOSE.len());
    let next = find_open(buf, 0).filter(|&n| n + OPEN.len() < buf.len());
    match (close, next) {
        (Some(c), Some(n)) => Some(c.min(n)),
        (c, n) => c.or(n),
    }
}

/// Bytes to text: UTF-8 if it is, else Latin-1 (every byte a character).
fn to_text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.into(),
        Err(_) => bytes.iter().map(|&b| b as char).collect::<String>().into(),
    }
}

/// The attributes of an opening tag's inside (`NEWID="5" LEWISSPLIT=TRAIN`), names
/// upper-cased; values may be double-, single- or not quoted.
pub(crate) fn attributes(tag: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let b = tag.as_bytes();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'=' {
            i += 1;
        }
        if i == start {
            i += 1;
            continue;
        }
        let name = tag[start..i].to_ascii_uppercase();
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() || b[i] != b'=' {
            out.push((name, String::new()));
            continue;
        }
        i += 1;
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let value = match b.get(i) {
            Some(&q @ (b'"' | b'\'')) => {
                let end = tag[i + 1..].find(q as char).map_or(b.len(), |e| i + 1 + e);
                let v = &tag[i + 1..end];
                i = end + 1;
                v
            }
            _ => {
                let s = i;
                while i < b.len() && !b[i].is_ascii_whitespace() {
                    i += 1;
                }
                &tag[s..i]
            }
        };
        out.push((name, decode_entities(value).into_owned()));
    }
    out
}

/// The names of an article's `<REUTERS>` attributes (upper-cased), where `--id-field`
/// finds ids.
pub(crate) fn attribute_names(raw: &[u8]) -> Vec<String> {
    let s = to_text(raw);
    let end = s.find('>').unwrap_or(s.len());
    let inside = s.get(OPEN.len().min(end)..end).unwrap_or("");
    attributes(inside)
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

/// The content of the first `<NAME>` (attributes allowed) element of `s`, ended by its
/// closing tag or else by the first of `ends`, or the end of `s`.
fn element<'a>(s: &'a str, name: &str, ends: &[&str]) -> Option<&'a str> {
    let b = s.as_bytes();
    let open = format!("<{name}");
    let mut from = 0;
    let start = loop {
        let i = find_ci(b, open.as_bytes(), from)?;
        let after = i + open.len();
        match b.get(after) {
            Some(b'>') => break after + 1,
            Some(c) if c.is_ascii_whitespace() => {
                break s[after..].find('>').map_or(s.len(), |e| after + e + 1);
            }
            _ => from = i + 1,
        }
    };
    let close = format!("</{name}>");
    let end = std::iter::once(close.as_str())
        .chain(ends.iter().copied())
        .find_map(|e| find_ci(b, e.as_bytes(), start))
        .unwrap_or(s.len());
    Some(&s[start..end])
}

/// Decodes character references (`&#3;`, `&#x41;`) and the usual named entities (`&lt;`
/// `&gt;` `&amp;` `&quot;` `&apos;` `&nbsp;`); anything else is left as it is.
pub(crate) fn decode_entities(s: &str) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let end = rest[1..]
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '#')
            .map_or(rest.len(), |e| e + 1);
        let name = &rest[1..end];
        let decoded = match name {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "nbsp" => Some('\u{A0}'),
            _ => name.strip_prefix('#').and_then(|n| {
                let code = match n.strip_prefix(['x', 'X']) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => n.parse().ok(),
                };
                code.and_then(char::from_u32)
            }),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                // The ';' is optional in SGML.
                rest = &rest[end..];
                rest = rest.strip_prefix(';').unwrap_or(rest);
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Drops control characters other than new lines and tabs (`&#3;` ends every body): the
/// text itself when it has none, as most have. It is looked through 32 bytes at a time
/// for a byte that may start one, then byte by byte from that block on; the runs between
/// control characters are copied whole. (Collected a character at a time, this was 15 % of the
/// CPU reading an SGML file, the string grown again and again.)
fn clean(s: &str) -> Cow<'_, str> {
    let b = s.as_bytes();
    let may_be = |block: &[u8]| {
        block
            .iter()
            .fold(false, |any, &x| any | may_start_control(x))
    };
    let Some(block) = b.chunks(32).position(may_be) else {
        return Cow::Borrowed(s);
    };
    let mut out: Option<String> = None;
    let (mut from, mut i) = (0, block * 32);
    while i < b.len() {
        // Only at a character's first byte: continuation bytes are 0x80-0xBF.
        let width = match (b[i], b.get(i + 1)) {
            (b'\n' | b'\t', _) => 0,
            (0..=0x1F | 0x7F, _) => 1,
            // U+0080-U+009F, the C1 controls.
            (0xC2, Some(0x80..=0x9F)) => 2,
            _ => 0,
        };
        if width == 0 {
            i += 1;
            continue;
        }
        let out = out.get_or_insert_with(|| String::with_capacity(s.len()));
        out.push_str(&s[from..i]);
        i += width;
        from = i;
    }
    match out {
        None => Cow::Borrowed(s),
        Some(mut out) => {
            out.push_str(&s[from..]);
            Cow::Owned(out)
        }
    }
}

/// Whether byte `x` of UTF-8 text may start a control character other than a new line or
/// a tab: C0 and DEL are single bytes, the C1 controls start with 0xC2. Bitwise, so that
/// a block is tested without a branch per byte.
fn may_start_control(x: u8) -> bool {
    ((x < 0x20) & (x != b'\n') & (x != b'\t')) | (x == 0x7F) | (x == 0xC2)
}

/// An element's value as metadata: the `<D>` items of a list element (`<PLACES><D>usa</D>
/// <D>uk</D></PLACES>`) joined by ", ", else its content with tags removed; entities
/// decoded, white space collapsed.
fn element_value(content: &str) -> String {
    let b = content.as_bytes();
    let mut items = Vec::new();
    let mut from = 0;
    while let Some(i) = find_ci(b, b"<D>", from) {
        let start = i + 3;
        let end = find_ci(b, b"</D>", start).unwrap_or(content.len());
        items.push(collapse(&content[start..end]));
        from = end;
    }
    if !items.is_empty() {
        return items.join(", ");
    }
    let mut text = String::with_capacity(content.len());
    let mut rest = content;
    while let Some(i) = rest.find('<') {
        text.push_str(&rest[..i]);
        text.push(' ');
        rest = rest[i..].find('>').map_or("", |e| &rest[i + e + 1..]);
    }
    text.push_str(rest);
    collapse(&text)
}

/// Entities decoded, control characters dropped, white space runs collapsed to one space.
fn collapse(s: &str) -> String {
    clean(&decode_entities(s))
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// An article's id (the `fields.id` attribute, `NEWID` by default), text (title and body,
/// or the body alone), title and metadata (elements, else attributes of `<REUTERS>`).
pub(crate) fn extract(raw: &[u8], fields: &Fields) -> Result<Record, (SkipReason, String)> {
    let id_field = fields.id;
    let s = to_text(raw);
    let bad = |m: &str| Err((SkipReason::BadRecord, m.to_string()));
    let Some(tag_end) = s.find('>') else {
        return bad("unclosed <REUTERS> tag");
    };
    if s[1..tag_end].contains('<') {
        return bad("unclosed <REUTERS> tag");
    }
    let attrs = attributes(&s[OPEN.len()..tag_end]);
    let want = id_field.map_or("NEWID".to_string(), str::to_ascii_uppercase);
    let id = attrs
        .iter()
        .find(|(n, v)| *n == want && !v.trim().is_empty())
        .map(|(_, v)| v.trim().to_string());
    let inner = &s[tag_end + 1..];
    let ends = ["</TEXT>", "</REUTERS>"];
    let body = element(inner, "BODY", &ends);
    let title = element(inner, "TITLE", &["</TEXT>", "<BODY", "</REUTERS>"])
        .map(|t| clean(&decode_entities(t)).trim().to_string())
        .filter(|t| !t.is_empty());
    let title_body = fields.sgml_text == SgmlText::TitleBody;
    // A headline alone (the collection's BRIEF articles) is a document when the text is
    // the title and the body; read for bodies alone, it has no text.
    if body.is_none() && !(title_body && title.is_some()) {
        return Err((SkipReason::NoBody, String::new()));
    }
    // Room for all of it at once (grown as it was pushed, it was copied again and again).
    let room = title.as_ref().map_or(0, String::len) + body.map_or(0, str::len) + 3;
    let mut text = String::with_capacity(room);
    if let (Some(t), true) = (&title, title_body) {
        text.push_str(t);
        if body.is_some() {
            text.push_str("\n\n");
        }
    }
    if let Some(body) = body {
        text.push_str(clean(&decode_entities(body)).trim_end());
    }
    text.push('\n');
    let meta = fields
        .meta
        .iter()
        .map(|name| {
            let upper = name.to_ascii_uppercase();
            match element(inner, &upper, &["</REUTERS>"]) {
                Some(content) => element_value(content),
                None => attrs
                    .iter()
                    .find(|(n, _)| *n == upper)
                    .map(|(_, v)| v.trim().to_string())
                    .unwrap_or_default(),
            }
        })
        .collect();
    Ok(Record {
        id,
        text,
        title,
        meta,
    })
}

/// Reuters-21578 SGML: a record per `<REUTERS>` element.
pub(crate) struct Sgml;

impl RecordFormat for Sgml {
    fn split(&self, buf: &[u8], eof: bool) -> (Vec<Range<usize>>, usize) {
        split(buf, eof)
    }

    fn find_end(&self, buf: &[u8]) -> Option<usize> {
        find_end(buf)
    }

    fn extract(&self, raw: &[u8], fields: &Fields) -> Result<Record, (SkipReason, String)> {
        extract(raw, fields)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The control characters dropped are those `char::is_control` names, new lines
        /// and tabs kept, wherever they fall (either side of a block of 32 bytes, C1
        /// controls among other 2-byte characters starting with 0xC2).
        #[test]
        fn clean_drops_the_control_characters(
            parts in proptest::collection::vec(prop_oneof![
                3 => "[a-z é£]{0,40}",
                1 => prop::sample::select(vec!["\n", "\t", "\u{3}", "\u{0}", "\u{7f}", "\u{85}", "\u{9f}", "\u{a0}", "\u{1f}", "\r"]).prop_map(String::from),
                1 => any::<String>(),
            ], 0..30),
        ) {
            let text: String = parts.concat();
            let want: String = text
                .chars()
                .filter(|&c| !c.is_control() || c == '\n' || c == '\t')
                .collect();
            let got = clean(&text);
            prop_assert_eq!(got.as_ref(), want.as_str());
        }
    }

    #[test]
    fn a_text_without_control_characters_is_not_copied() {
        let text = "no controls here, but é and £ and\ttabs\nand lines ".repeat(5);
        assert!(matches!(clean(&text), Cow::Borrowed(_)));
        assert_eq!(clean("a\u{3}b\u{85}c\u{a0}d\u{7f}"), "abc\u{a0}d");
    }

    /// An article read for its id (the attribute `id`, NEWID without one).
    fn extract(raw: &[u8], id: Option<&str>) -> Result<Record, (SkipReason, String)> {
        super::extract(raw, &Fields::text_id("text", id))
    }

    const ARTICLE: &[u8] = b"<REUTERS TOPICS=\"YES\" LEWISSPLIT=\"TRAIN\" NEWID=\"5\">\n\
        <DATE>26-FEB-1987 15:01:01.79</DATE>\n<TOPICS><D>cocoa</D></TOPICS>\n\
        <PLACES><D>el-salvador</D><D>usa</D></PLACES>\n<PEOPLE></PEOPLE>\n\
        <TEXT>&#2;\n<TITLE>BAHIA COCOA REVIEW</TITLE>\n<DATELINE>SALVADOR, Feb 26 -</DATELINE>\
        <BODY>Showers continued.\n&#3;</BODY></TEXT>\n</REUTERS>";

    #[test]
    fn titles_metadata_and_body_only_text() {
        let meta: Vec<String> = ["DATE", "places", "topics", "lewissplit", "people", "none"]
            .map(String::from)
            .to_vec();
        let fields = Fields {
            meta: &meta,
            ..Fields::text_id("text", None)
        };
        let r = super::extract(ARTICLE, &fields).unwrap();
        assert_eq!(r.id.as_deref(), Some("5"));
        assert_eq!(r.title.as_deref(), Some("BAHIA COCOA REVIEW"));
        assert_eq!(r.text, "BAHIA COCOA REVIEW\n\nShowers continued.\n");
        // The element TOPICS, not the attribute; LEWISSPLIT only an attribute.
        assert_eq!(
            r.meta,
            [
                "26-FEB-1987 15:01:01.79",
                "el-salvador, usa",
                "cocoa",
                "TRAIN",
                "",
                ""
            ]
        );
        let body = Fields {
            sgml_text: SgmlText::Body,
            ..Fields::text_id("text", None)
        };
        let r = super::extract(ARTICLE, &body).unwrap();
        assert_eq!(r.text, "Showers continued.\n");
        assert_eq!(
            r.title.as_deref(),
            Some("BAHIA COCOA REVIEW"),
            "still its title"
        );
    }

    #[test]
    fn entities_are_decoded_and_unknown_ones_kept() {
        assert_eq!(decode_entities("a &lt;b&gt; &amp; c"), "a <b> & c");
        assert_eq!(decode_entities("x&#3;"), "x\u{3}");
        assert_eq!(decode_entities("&#x41;&#66;&quot;&apos;"), "AB\"'");
        assert_eq!(
            decode_entities("AT&T &foo; &#xZZ; &"),
            "AT&T &foo; &#xZZ; &"
        );
        assert_eq!(decode_entities("&#99999999999;"), "&#99999999999;");
        assert_eq!(decode_entities("&lt"), "<");
        assert_eq!(decode_entities("no entities"), "no entities");
        assert_eq!(decode_entities("é&amp;ü"), "é&ü");
    }

    #[test]
    fn attributes_any_quoting() {
        let a = attributes(r#" TOPICS="YES" newid="5" OLDID=5544 X='q r' FLAG"#);
        assert_eq!(
            a,
            [
                ("TOPICS".into(), "YES".into()),
                ("NEWID".into(), "5".into()),
                ("OLDID".into(), "5544".into()),
                ("X".into(), "q r".into()),
                ("FLAG".into(), String::new()),
            ]
        );
    }

    const TWO: &str = "<!DOCTYPE lewis SYSTEM \"lewis.dtd\">\n\
        <REUTERS NEWID=\"1\" OLDID=\"10\">\n<TEXT><TITLE>A &amp; B</TITLE><BODY>one\n&#3;</BODY></TEXT>\n</REUTERS>\n\
        <REUTERS NEWID=\"2\">\n<TEXT><BODY>two</BODY></TEXT>\n</REUTERS>\n";

    #[test]
    fn splits_at_reuters_tags() {
        let b = TWO.as_bytes();
        let (r, done) = split(b, false);
        assert_eq!(r.len(), 2);
        assert!(b[r[0].clone()].starts_with(b"<REUTERS NEWID=\"1\""));
        assert!(b[r[0].clone()].ends_with(b"</REUTERS>"));
        assert!(b[r[1].clone()].starts_with(b"<REUTERS NEWID=\"2\""));
        assert_eq!(done, b.len() - 1, "a trailing new line could start nothing");
        // Cut inside the second article: it waits for more data, unless at the end.
        let cut = &b[..TWO.find("two").unwrap()];
        let (r, done) = split(cut, false);
        assert_eq!(r.len(), 1);
        assert_eq!(done, TWO.find("<REUTERS NEWID=\"2\"").unwrap());
        let (r, _) = split(cut, true);
        assert_eq!(r.len(), 2);
        // Cut inside the tag name itself.
        let (r, done) = split(b"xx<REUT", false);
        assert!(r.is_empty());
        assert_eq!(done, 0);
    }

    #[test]
    fn unterminated_articles_end_at_the_next_one() {
        let s =
            b"<REUTERS NEWID=\"1\"><BODY>a</BODY>\n<REUTERS NEWID=\"2\"><BODY>b</BODY></REUTERS>";
        let (r, _) = split(s, true);
        assert_eq!(r.len(), 2);
        assert_eq!(extract(&s[r[0].clone()], None).unwrap().text, "a\n");
        // <REUTERSX is not an article.
        let (r, _) = split(b"<REUTERSX a><REUTERS>", true);
        assert_eq!(r.len(), 1);
    }

    #[test]
    fn extracts_id_title_and_body() {
        let b = TWO.as_bytes();
        let (r, _) = split(b, true);
        let one = extract(&b[r[0].clone()], None).unwrap();
        assert_eq!(one.id.as_deref(), Some("1"));
        assert_eq!(one.text, "A & B\n\none\n");
        let old = extract(&b[r[0].clone()], Some("oldid")).unwrap();
        assert_eq!(old.id.as_deref(), Some("10"));
        let two = extract(&b[r[1].clone()], Some("OLDID")).unwrap();
        assert_eq!(two.id, None, "no such attribute");
        assert_eq!(two.text, "two\n");
    }

    #[test]
    fn no_body_and_malformed_tags() {
        // A headline without a body is a document of its title, unless bodies alone are
        // read; with neither, an article has no text.
        let brief =
            b"<REUTERS NEWID=\"3\"><TEXT TYPE=\"BRIEF\"><TITLE>T &amp; U</TITLE></TEXT></REUTERS>";
        let r = extract(brief, None).unwrap();
        assert_eq!(
            (r.text.as_str(), r.title.as_deref()),
            ("T & U\n", Some("T & U"))
        );
        let body = Fields {
            sgml_text: SgmlText::Body,
            ..Fields::text_id("text", None)
        };
        assert_eq!(
            super::extract(brief, &body).unwrap_err().0,
            SkipReason::NoBody
        );
        let unproc = b"<REUTERS NEWID=\"4\"><TEXT TYPE=\"UNPROC\">raw</TEXT></REUTERS>";
        assert_eq!(extract(unproc, None).unwrap_err().0, SkipReason::NoBody);
        assert_eq!(
            extract(b"<REUTERS NEWID=\"3\" <BODY>x</BODY>", None)
                .unwrap_err()
                .0,
            SkipReason::BadRecord
        );
        assert_eq!(
            extract(b"<REUTERS", None).unwrap_err().0,
            SkipReason::BadRecord
        );
        // A body never closed runs to the end of the text.
        let open = b"<REUTERS NEWID=7><TEXT><BODY>runs on</TEXT></REUTERS>";
        assert_eq!(extract(open, None).unwrap().text, "runs on\n");
        // Latin-1 bytes and stray control characters.
        let latin = b"<REUTERS NEWID=\"8\"><BODY>caf\xe9\x01 ok\x03</BODY></REUTERS>";
        assert_eq!(extract(latin, None).unwrap().text, "caf\u{e9} ok\n");
    }

    proptest::proptest! {
        /// The SIMD search finds what a comparison at every position finds.
        #[test]
        fn find_ci_is_a_case_blind_search(
            hay in proptest::collection::vec(proptest::sample::select(b"<>/aArRsSeEuUtT \n".to_vec()), 0..64),
            from in 0usize..70,
            needle in proptest::sample::select(vec![&b"<REUTERS"[..], b"</REUTERS>", b"<T", b"R"]),
        ) {
            let naive = (from..=hay.len().saturating_sub(needle.len()))
                .filter(|_| hay.len() >= needle.len())
                .find(|&i| hay[i..i + needle.len()].eq_ignore_ascii_case(needle));
            proptest::prop_assert_eq!(find_ci(&hay, needle, from), naive);
        }
    }

    #[test]
    fn find_end_of_an_oversized_article() {
        assert_eq!(find_end(b"aaa</REUTERS>bb"), Some(13));
        assert_eq!(find_end(b"aaa\n<REUTERS NEWID=1>"), Some(4));
        assert_eq!(find_end(b"aaaa"), None);
    }
}
