//! The documents of an index, in corpus order ([`Docs`]). A document is known by its
//! position: a [`Pair`](crate::search::Pair)'s `a` and `b`, [`Index::members`](super::Index::members).
//!
//! Each is handed out as a [`Cow`]: borrowed while the documents are held in memory, read
//! back and owned where they are not, so that callers do not depend on where they are.

use super::Doc;
use std::borrow::Cow;

/// The documents of an index in corpus order.
#[derive(Clone, Debug, Default)]
pub struct Docs {
    held: Vec<Doc>,
}

impl Docs {
    /// These documents, in this order.
    pub(crate) fn from_vec(docs: Vec<Doc>) -> Docs {
        Docs { held: docs }
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// Document `i`. Panics when there are not that many (a position the index gave is
    /// always one).
    pub fn at(&self, i: usize) -> Cow<'_, Doc> {
        Cow::Borrowed(&self.held[i])
    }

    /// Document `i`, or none past the end.
    pub fn get(&self, i: usize) -> Option<Cow<'_, Doc>> {
        self.held.get(i).map(Cow::Borrowed)
    }

    /// The id of document `i` ([`Doc::id`]). Panics when there are not that many.
    pub fn id(&self, i: usize) -> Cow<'_, str> {
        Cow::Borrowed(&self.held[i].id)
    }

    /// Every document in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.held.iter())
    }

    /// The documents as they are held in memory: all of them.
    pub(crate) fn as_held(&self) -> &[Doc] {
        &self.held
    }

    /// Every document in order, `n` at a time (the last batch may be shorter): for work
    /// done a batch at a time in parallel.
    pub fn chunks(&self, n: usize) -> impl Iterator<Item = Vec<Cow<'_, Doc>>> + '_ {
        assert!(n > 0, "batches of at least one document");
        let mut docs = self.iter();
        std::iter::from_fn(move || {
            let batch: Vec<Cow<'_, Doc>> = docs.by_ref().take(n).collect();
            (!batch.is_empty()).then_some(batch)
        })
    }

    /// The documents to change in place (the engine's own edits: ids made unique, labels
    /// dropped, documents added to a saved index).
    pub(crate) fn held_mut(&mut self) -> &mut Vec<Doc> {
        &mut self.held
    }

    /// The documents, moved out.
    pub(crate) fn into_vec(self) -> Vec<Doc> {
        self.held
    }

    /// Heap bytes of their ids, titles and paths ([`Doc::text_bytes`]).
    pub(crate) fn text_bytes(&self) -> u64 {
        self.held.iter().map(Doc::text_bytes).sum()
    }

    /// Bytes of the documents' records (their texts' heap apart).
    pub(crate) fn heap_bytes(&self) -> u64 {
        (self.held.capacity() * std::mem::size_of::<Doc>()) as u64
    }
}

/// The documents of a [`Docs`] in order ([`Docs::iter`]).
pub struct Iter<'a>(std::slice::Iter<'a, Doc>);

impl<'a> Iterator for Iter<'a> {
    type Item = Cow<'a, Doc>;

    fn next(&mut self) -> Option<Cow<'a, Doc>> {
        self.0.next().map(Cow::Borrowed)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Docs {
    type Item = Cow<'a, Doc>;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}
