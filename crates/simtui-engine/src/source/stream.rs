//! Reading a corpus in batches: plain files as they are, container files streamed in
//! blocks and split into records, so that memory holds a few blocks at a time however
//! large a file is. Batches are made in order on one thread; their texts are read and
//! extracted in parallel (`extract_item`, called by the index build).

use super::container::{Container, Opened, Part};
use super::entry::{Entry, Source, read_text};
use super::skip::{SkipReason, Skipped};
use std::io::Read;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// Bytes read from a container at a time.
const BLOCK: usize = 4 << 20;
/// A batch stops growing past this many bytes of records.
const BATCH_BYTES: usize = 16 << 20;
/// Bytes kept from a record being passed over, in case its end marker is cut in two.
const TAIL: usize = 16;

/// One unit of work of a batch.
pub(crate) enum Item {
    /// A whole file (or text in memory): one document.
    Whole(Entry),
    /// A record of a container, to extract.
    Record {
        part: Part,
        block: Arc<Vec<u8>>,
        range: Range<usize>,
    },
    /// Not a document, known before extraction (an unreadable file, a record too large).
    Skip(Skipped),
}

/// A container file being read.
pub(crate) struct Stream {
    file: Arc<Container>,
    opened: Opened,
    max_bytes: u64,
    /// Bytes read and not yet split into records.
    carry: Vec<u8>,
    /// Offset in the decompressed file of `carry[0]`, and its line (from 1).
    offset: u64,
    line: u64,
    eof: bool,
    /// Inside a record too large to keep, looking for its end.
    passing: bool,
    records: u64,
}

impl Stream {
    pub(crate) fn open(
        file: Arc<Container>,
        max_bytes: u64,
    ) -> Result<Stream, (SkipReason, String)> {
        let opened = super::container::open(&file.path)?;
        Ok(Stream {
            file,
            opened,
            max_bytes,
            carry: Vec::new(),
            offset: 0,
            line: 1,
            eof: false,
            passing: false,
            records: 0,
        })
    }

    fn skip(&self, line: u64, reason: SkipReason, detail: String) -> Item {
        let mut path = self.file.path.clone().into_os_string();
        path.push(format!(":{line}"));
        Item::Skip(Skipped {
            path: path.into(),
            reason,
            detail,
        })
    }

    /// Moves the start of `carry` forward by `n` bytes, counting lines.
    fn advance(&mut self, buf: &[u8], from: usize, to: usize) {
        self.line += buf[from..to].iter().filter(|&&b| b == b'\n').count() as u64;
        self.offset += (to - from) as u64;
    }

    /// Reads the next block and appends its records to `out`, with the bytes they hold.
    /// Returns false once the file is done.
    fn next_items(&mut self, out: &mut Vec<Item>) -> (bool, usize) {
        if self.eof && self.carry.is_empty() {
            return (false, 0);
        }
        let mut buf = std::mem::take(&mut self.carry);
        let mut failed = None;
        if !self.eof {
            match (&mut self.opened.reader)
                .take(BLOCK as u64)
                .read_to_end(&mut buf)
            {
                Ok(n) => self.eof = n < BLOCK,
                Err(e) => {
                    // A damaged or truncated file: what was read before stays (a record
                    // cut short by the damage is likely a bad one).
                    failed = Some(format!("reading stopped: {e}"));
                    self.eof = true;
                }
            }
        }
        let mut start = 0;
        if self.passing {
            match self.file.find_end(&buf) {
                Some(end) => {
                    self.advance(&buf, 0, end);
                    start = end;
                    self.passing = false;
                }
                None if self.eof => {
                    if let Some(why) = failed {
                        out.push(self.skip(self.line, SkipReason::Unreadable, why));
                    }
                    return (false, 0);
                }
                None => {
                    let keep = buf.len().saturating_sub(TAIL);
                    self.advance(&buf, 0, keep);
                    self.carry = buf[keep..].to_vec();
                    return (true, 0);
                }
            }
        }
        let (ranges, consumed) = self.file.split(&buf[start..], self.eof);
        // Filled in below, once the block is complete.
        let placeholder = Arc::new(Vec::new());
        let mut items = Vec::with_capacity(ranges.len());
        let mut at = start;
        let mut bytes = 0;
        for r in ranges {
            let r = start + r.start..start + r.end;
            self.advance(&buf, at, r.start);
            at = r.start;
            if self.file.is_blank(&buf[r.clone()]) {
                continue;
            }
            self.records += 1;
            let len = r.len() as u64;
            if len > self.max_bytes {
                items.push(self.skip(self.line, SkipReason::TooLarge, format!("{len} bytes")));
                continue;
            }
            bytes += r.len();
            items.push(Item::Record {
                part: Part {
                    file: self.file.clone(),
                    offset: self.offset,
                    len,
                    line: self.line,
                },
                block: placeholder.clone(),
                range: r,
            });
        }
        let end = start + consumed;
        self.advance(&buf, at, end);
        self.carry = buf[end..].to_vec();
        if self.carry.len() as u64 > self.max_bytes && !self.eof {
            // A record already larger than allowed: pass over it to its end.
            let line = self.line;
            let len = self.carry.len();
            items.push(self.skip(line, SkipReason::TooLarge, format!("over {len} bytes")));
            self.records += 1;
            let carry = std::mem::take(&mut self.carry);
            let keep = carry.len() - TAIL.min(carry.len());
            self.advance(&carry, 0, keep);
            self.carry = carry[keep..].to_vec();
            self.passing = true;
        }
        // The records point into the block: hand it over now that it is complete.
        buf.truncate(end);
        let block = Arc::new(buf);
        for item in &mut items {
            if let Item::Record { block: b, .. } = item {
                *b = block.clone();
            }
        }
        out.extend(items);
        if let Some(why) = failed {
            out.push(self.skip(self.line, SkipReason::Unreadable, why));
        }
        (!(self.eof && self.carry.is_empty()), bytes)
    }

    /// Records still to come, guessed from how far into the file this is.
    fn remaining_estimate(&self) -> u64 {
        let read = self.opened.consumed.load(Ordering::Relaxed);
        if read == 0 || self.records == 0 {
            return 1;
        }
        let left = self.opened.size.saturating_sub(read);
        (self.records as f64 * left as f64 / read as f64).ceil() as u64
    }
}

/// A corpus's entries, read in batches.
pub(crate) struct Batches {
    entries: std::vec::IntoIter<Entry>,
    current: Option<Stream>,
    max_bytes: u64,
    done: u64,
}

impl Batches {
    pub(crate) fn new(entries: Vec<Entry>, max_bytes: u64) -> Batches {
        Batches {
            entries: entries.into_iter(),
            current: None,
            max_bytes,
            done: 0,
        }
    }

    /// The next batch of about `max_items` items, in corpus order; None at the end.
    pub(crate) fn next_batch(&mut self, max_items: usize) -> Option<Vec<Item>> {
        let mut batch = Vec::new();
        let mut bytes = 0;
        while batch.len() < max_items && bytes < BATCH_BYTES {
            if let Some(stream) = &mut self.current {
                let (more, b) = stream.next_items(&mut batch);
                bytes += b;
                if !more {
                    if stream.records == 0 {
                        // Nothing at all, not even a bad record: say so, rather than
                        // have the file vanish from the counts (SGML read from plain
                        // text, an empty JSON Lines file).
                        let kind = stream.file.kind;
                        batch.push(Item::Skip(Skipped {
                            path: stream.file.path.clone(),
                            reason: SkipReason::BadRecord,
                            detail: format!("no {} record in the file", kind.name()),
                        }));
                    }
                    self.current = None;
                }
                continue;
            }
            let Some(entry) = self.entries.next() else {
                break;
            };
            match &entry.source {
                Source::Container(c) => match Stream::open(c.clone(), self.max_bytes) {
                    Ok(s) => self.current = Some(s),
                    Err((reason, detail)) => batch.push(Item::Skip(Skipped {
                        path: c.path.clone(),
                        reason,
                        detail,
                    })),
                },
                _ => batch.push(Item::Whole(entry)),
            }
        }
        self.done += batch.len() as u64;
        (!batch.is_empty()).then_some(batch)
    }

    /// Items handed out so far.
    pub(crate) fn done(&self) -> u64 {
        self.done
    }

    /// Items in all, as far as can be told: a container counts as one until it is being
    /// read, and then as its records so far scaled by how much of the file is left.
    pub(crate) fn total_estimate(&self) -> u64 {
        self.done
            + self.entries.len() as u64
            + self.current.as_ref().map_or(0, Stream::remaining_estimate)
    }
}

/// Reads and extracts the text of one item of a batch (called in parallel by the index
/// build, which shingles the text on the same thread while it is still in cache).
pub(crate) fn extract_item(item: Item, max_bytes: u64) -> Result<(Entry, Arc<str>), Skipped> {
    match item {
        Item::Whole(entry) => match read_text(&entry, max_bytes) {
            Ok(text) => Ok((entry, text)),
            Err((reason, detail)) => Err(Skipped {
                path: entry.place(),
                reason,
                detail,
            }),
        },
        Item::Record { part, block, range } => match part.file.extract(&block[range]) {
            Ok(record) => {
                let id = record.id.unwrap_or_else(|| part.file.line_id(part.line));
                let text: Arc<str> = record.text.into();
                Ok((
                    Entry {
                        id,
                        bytes: text.len() as u64,
                        source: Source::Part(part),
                    },
                    text,
                ))
            }
            Err((reason, detail)) => Err(Skipped {
                path: part.place(),
                reason,
                detail,
            }),
        },
        Item::Skip(s) => Err(s),
    }
}
