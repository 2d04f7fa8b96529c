//! Groups of identical documents met while a saved index is merged with documents read
//! anew (or appended to): each content once, numbered in order of first appearance.

use crate::error::Result;
use crate::shingle::ShingleSets;
use crate::shingle::sets::SetsWriter;
use crate::sketch::Signatures;
use crate::sketch::signatures::SigsWriter;
use crate::storage::Room;
use std::collections::HashMap;

/// Groups of identical documents, numbered in order of first appearance: their sets
/// and signatures in memory up to `room`, on temporary files past it.
pub(super) struct Interned<'a> {
    ids: HashMap<u64, u32>,
    shingles: SetsWriter,
    signatures: SigsWriter,
    contents: Vec<u64>,
    room: Room<'a>,
    spilled: bool,
}

impl<'a> Interned<'a> {
    pub(super) fn new(width: usize, room: Room<'a>) -> Self {
        Interned {
            ids: HashMap::new(),
            shingles: SetsWriter::kept(),
            signatures: SigsWriter::new(width),
            contents: Vec::new(),
            room,
            spilled: false,
        }
    }

    pub(super) fn intern(&mut self, content: u64, set: &[u64], row: &[u32]) -> Result<u32> {
        let next = self.contents.len() as u32;
        let g = *self.ids.entry(content).or_insert(next);
        if g == next {
            self.contents.push(content);
            self.shingles.push_kept(set)?;
            self.signatures.push(row)?;
            let held = self.shingles.heap_bytes() + self.signatures.heap_bytes();
            if !self.spilled && held as u64 > self.room.bytes {
                self.shingles.spill(&self.room)?;
                self.signatures.spill(&self.room)?;
                self.spilled = true;
            }
        }
        Ok(g)
    }

    pub(super) fn finish(self) -> Result<(ShingleSets, Signatures, Vec<u64>)> {
        let (sets, sigs) = (self.shingles.finish()?, self.signatures.finish()?);
        Ok((sets, sigs, self.contents))
    }
}
