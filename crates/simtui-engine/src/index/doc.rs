//! A document of the index: what names it and where its text is, kept for every
//! document whatever the memory limit, so every byte of it counts (a million documents
//! hold a million of them).

use crate::source::Source;

/// A document of the index.
#[derive(Clone, Debug)]
pub struct Doc {
    /// Its name: the path under the root it was found in (with '/'), or for a record of a
    /// file of many documents the id the record gives (`FILE:LINE` if none). A record
    /// whose id another document has too is renamed `ID@FILE:LINE`, so that the ids of
    /// files and records are unique.
    pub id: String,
    /// Where its text can be read again (the index keeps no text).
    pub source: Source,
    /// Size of its text in bytes (as decoded).
    pub bytes: u64,
    /// Number of tokens of its normalised text (stop words dropped, if they are); 0 for an
    /// empty document, which is similar to nothing.
    pub tokens: u64,
    /// Its group of identical documents (an index into the shingle sets and signatures).
    pub group: u32,
    /// What names it for people besides its id ([`Doc::title`], [`Doc::meta`]), boxed
    /// and absent when it has neither: an index built only to search keeps none, and
    /// two empty fields were 48 of a document's 136 bytes.
    pub(crate) labels: Option<Box<DocLabels>>,
}

/// Which labels an index's documents no longer have (see
/// [`Index::without_labels`](super::Index::without_labels)).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Dropped {
    pub(crate) titles: bool,
    pub(crate) meta: bool,
}

impl Doc {
    /// A document with no title or metadata (see [`Doc::labelled`]).
    pub fn new(id: String, source: Source, bytes: u64, tokens: u64, group: u32) -> Doc {
        Doc {
            id,
            source,
            bytes,
            tokens,
            group,
            labels: None,
        }
    }

    /// The same document with this title and metadata.
    pub fn labelled(mut self, title: String, meta: Vec<String>) -> Doc {
        self.labels = DocLabels::boxed(title, meta);
        self
    }

    /// The same document with these labels, moved (a saved record's).
    pub(crate) fn with_labels(mut self, labels: Option<Box<DocLabels>>) -> Doc {
        self.labels = labels;
        self
    }

    /// What names it for people: the title its record gives (`--title-field`, SGML's
    /// `<TITLE>`), else its first non-empty line; white space collapsed, at most
    /// [`TITLE_MAX`](crate::source::TITLE_MAX) bytes. Empty when the index keeps no
    /// titles.
    pub fn title(&self) -> &str {
        DocLabels::title(&self.labels)
    }

    /// The values of the metadata fields read with it, named by its record's
    /// [`Part::meta_names`](crate::source::Part::meta_names): those asked for
    /// ([`InputOptions::meta_fields`](crate::source::InputOptions::meta_fields)), an
    /// empty string where it has none, then the format's usual fields up to the last it
    /// has; empty for a document that is a whole file.
    pub fn meta(&self) -> &[String] {
        DocLabels::meta(&self.labels)
    }

    /// Gives it `title`, keeping its metadata.
    pub fn set_title(&mut self, title: String) {
        self.labels = DocLabels::retitled(self.labels.take(), title);
    }

    /// Drops its metadata, keeping its title.
    pub fn drop_meta(&mut self) {
        let labels = self.labels.take();
        self.labels = labels.and_then(|l| DocLabels::boxed(l.title.into(), Vec::new()));
    }

    /// Drops its title, its metadata, or both, as `dropped` says.
    pub(crate) fn drop_labels(&mut self, dropped: Dropped) {
        match (dropped.titles, dropped.meta) {
            (true, true) => self.labels = None,
            (true, false) => self.set_title(String::new()),
            (false, true) => self.drop_meta(),
            (false, false) => {}
        }
    }
}

/// A document's title and metadata as it holds them: boxed apart from it (absent when
/// both are empty) and each exactly its size. 32 bytes and the allocator's 16, against
/// the 48 an empty `String` and `Vec` took inline in every document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct DocLabels {
    pub(crate) title: Box<str>,
    pub(crate) meta: Box<[String]>,
}

impl DocLabels {
    /// These labels boxed, or none when both are empty.
    pub(crate) fn boxed(title: String, meta: Vec<String>) -> Option<Box<DocLabels>> {
        (!title.is_empty() || !meta.is_empty()).then(|| {
            Box::new(DocLabels {
                title: title.into_boxed_str(),
                meta: meta.into_boxed_slice(),
            })
        })
    }

    /// The title of `labels`, empty when there are none.
    pub(crate) fn title(labels: &Option<Box<DocLabels>>) -> &str {
        labels.as_ref().map_or("", |l| &l.title)
    }

    /// The metadata values of `labels`, none when there are none.
    pub(crate) fn meta(labels: &Option<Box<DocLabels>>) -> &[String] {
        labels.as_ref().map_or(&[], |l| &l.meta)
    }

    /// `labels` with `title` instead of theirs.
    pub(crate) fn retitled(
        labels: Option<Box<DocLabels>>,
        title: String,
    ) -> Option<Box<DocLabels>> {
        DocLabels::boxed(title, labels.map(|l| l.meta.into_vec()).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_holds_no_room_for_labels_it_has_not() {
        // 136 bytes with the title and metadata inline; the index of a million documents
        // holds a million of these whatever `--memory` says.
        assert!(
            std::mem::size_of::<Doc>() <= 96,
            "{}",
            std::mem::size_of::<Doc>()
        );
        let bare = Doc::new("a".into(), Source::Memory("x".into()), 1, 1, 0);
        assert!(bare.labels.is_none());
        let d = bare.clone().labelled(String::new(), Vec::new());
        assert!(d.labels.is_none(), "empty labels take no allocation");
        let mut d = bare.labelled("T".into(), vec!["m".into()]);
        assert_eq!((d.title(), d.meta()), ("T", &["m".to_string()][..]));
        d.set_title(String::new());
        assert_eq!((d.title(), d.meta()), ("", &["m".to_string()][..]));
        d.drop_meta();
        assert!(d.labels.is_none());
    }
}
