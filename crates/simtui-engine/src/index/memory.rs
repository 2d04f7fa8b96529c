//! What an index holds in memory: one account of it ([`Index::held`], by part in
//! [`Index::held_by_part`]), and the memory its budget leaves its searches.

use super::doc::DocLabels;
use super::{Doc, Index, Keep};
use crate::source::Source;

impl Doc {
    /// Heap bytes of its id, title, metadata values and path, each allocation with the
    /// allocator's least overhead (16 bytes): what a million documents' labels take.
    pub(crate) fn text_bytes(&self) -> u64 {
        let path = match &self.source {
            // Shared by whatever else names the file; counted here, once.
            Source::File(p) => p.as_os_str().len() as u64 + 32,
            _ => 0,
        };
        boxed(self.id.capacity()) + labels_bytes(&self.labels) + path
    }
}

/// Heap bytes of an allocation of `n` bytes, with the allocator's least overhead.
fn boxed(n: usize) -> u64 {
    if n == 0 { 0 } else { n as u64 + 16 }
}

/// Heap bytes of a document's title and metadata values (a saved record's too), each
/// allocation with the allocator's least overhead: none when it has neither.
pub(crate) fn labels_bytes(labels: &Option<Box<DocLabels>>) -> u64 {
    labels.as_ref().map_or(0, |l| {
        let meta = l.meta.len() * std::mem::size_of::<String>();
        boxed(std::mem::size_of::<DocLabels>())
            + boxed(l.title.len())
            + boxed(meta)
            + l.meta.iter().map(|s| boxed(s.capacity())).sum::<u64>()
    })
}

impl Index {
    /// Approximate heap memory the index holds, in bytes: the sum of
    /// [`Index::held_by_part`] (nothing for what is on temporary files).
    pub fn held(&self) -> u64 {
        self.held_by_part().iter().map(|(_, b)| b).sum()
    }

    /// Where [`Index::held`] goes: documents (their records, then their ids' text),
    /// shingle sets, signatures (and fingerprints), the group tables, in bytes.
    pub fn held_by_part(&self) -> [(&'static str, u64); 5] {
        let fingerprints = self.fingerprints.as_ref().map_or(0, |f| f.heap_bytes());
        [
            ("documents", self.docs.heap_bytes()),
            ("ids, titles", self.text_bytes),
            ("shingle sets", self.shingles.heap_bytes() as u64),
            (
                "signatures",
                (self.signatures.heap_bytes() + fingerprints) as u64,
            ),
            (
                "group tables",
                (self.contents.capacity() * 8 + self.groups.heap_bytes()) as u64,
            ),
        ]
    }

    /// The same index without the labels `keep` leaves out: titles for
    /// [`Keep::AllButTitles`], titles and metadata for [`Keep::ToSearch`] and [`Keep::AllButLabels`]. A saved index
    /// holds them all; a command that prints none needs none (at 200 bytes a title, they
    /// were the largest part of a saved index of files opened by `simtui pairs`).
    pub fn without_labels(mut self, keep: Keep) -> Index {
        let (titles, meta) = match keep {
            Keep::Everything | Keep::AllButSets => return self,
            Keep::AllButTitles => (true, false),
            Keep::ToSearch | Keep::AllButLabels => (true, true),
        };
        self.docs.drop_labels(super::doc::Dropped { titles, meta });
        self.text_bytes = self.docs.text_bytes();
        self
    }

    /// Moves the documents to a temporary file when the index holds more than its share
    /// of a limited budget: a search needs only their ids, groups and sizes, which stay in
    /// memory (about 60 bytes a document against the 200 and more of a record with its
    /// id, path and title); a document asked for whole is read back.
    pub(crate) fn docs_to_file_past_budget(&mut self) -> crate::error::Result<()> {
        let budget = &self.budget;
        if !budget.is_limited() || self.docs.on_file() || self.held() <= budget.for_index() {
            return Ok(());
        }
        let docs = std::mem::take(&mut self.docs);
        self.docs = docs.onto_file(budget.room(0), self.failure.clone())?;
        self.text_bytes = self.docs.text_bytes();
        crate::storage::memory::give_back_past(budget.bytes);
        Ok(())
    }

    /// Hands what the allocator holds freed back to the system when the process is past
    /// the memory limit (see [`give_back_past`](crate::storage::memory::give_back_past)):
    /// between the steps of a search, whose buffers are freed as the next step begins.
    pub(crate) fn give_back_freed(&self) {
        crate::storage::memory::give_back_past(self.budget.bytes);
    }

    /// Memory left for a search's work (band keys, sort buffers, sets read back).
    pub(crate) fn work_room(&self) -> u64 {
        self.budget.left(self.held())
    }
}
