//! Reading a corpus in batches: plain files as they are, container files streamed in
//! blocks and split into records, so that memory holds a few blocks at a time however
//! large a file is. Batches are made in order on one thread; their texts are read and
//! extracted in parallel (`extract_item`, called by the index build).

use super::container::{Container, Part};
use super::entry::{Entry, Item, Source};
use super::opener::Opener;
use super::parquet::ParquetStream;
use super::read::{Opened, Text, read_text_once};
use super::record::{Labels, Record, title_of};
use super::skip::{SkipReason, Skipped};
use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// Bytes read from a container at a time.
const BLOCK: usize = 4 << 20;
/// A batch stops growing past this many bytes of records.
const BATCH_BYTES: usize = 16 << 20;
/// Bytes kept from a record being passed over, in case its end marker is cut in two.
const TAIL: usize = 16;

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
    /// The file's size when the corpus was stat'ed (0 when not), for progress in bytes.
    size: u64,
}

impl Stream {
    pub(crate) fn open(
        file: Arc<Container>,
        max_bytes: u64,
    ) -> Result<Stream, (SkipReason, String)> {
        let opened = super::read::open(&file.path)?;
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
            size: 0,
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
        self.line += memchr::memchr_iter(b'\n', &buf[from..to]).count() as u64;
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
/// A file of many documents being read.
enum Current {
    /// JSON Lines or SGML, by blocks of bytes.
    Bytes(Stream),
    /// Parquet, by row groups.
    Rows(ParquetStream),
}

/// Entries taken between two cuts of the list of those left (about 1 MB of them).
const SHRINK_STEP: usize = 16 << 10;

pub(crate) struct Batches {
    /// The entries not handed out yet, the next last: the list shrinks as they go (a
    /// list of every file held whole while the index grows was ~70 bytes a document).
    entries: Vec<Entry>,
    current: Option<Current>,
    max_bytes: u64,
    done: u64,
    /// With files of many documents: each entry's size on disk, in order (the next
    /// entry's at `sizes[sizes.len() - entries.len() - 1]`), and progress in bytes.
    bytes: Option<ByteProgress>,
    /// The size of the file in `current` when the corpus was stat'ed.
    current_size: u64,
}

/// Opens a file of many documents for reading, by its format.
fn open_container(c: &Arc<Container>, max_bytes: u64) -> Result<Current, (SkipReason, String)> {
    match c.kind {
        super::container::Kind::Parquet => ParquetStream::open(c.clone()).map(Current::Rows),
        _ => Stream::open(c.clone(), max_bytes).map(Current::Bytes),
    }
}

/// Progress through a corpus in bytes of its files: the sizes of files of many
/// documents are known before they are read, where the number of their records is not.
struct ByteProgress {
    sizes: Vec<u64>,
    total: u64,
    /// Bytes of the entries handed out whole or read to their end.
    finished: u64,
}

impl Batches {
    pub(crate) fn new(mut entries: Vec<Entry>, max_bytes: u64) -> Batches {
        let bytes = entries
            .iter()
            .any(|e| matches!(e.source, Source::Container(_)))
            .then(|| {
                // Plain files are stat'ed only in a corpus that has files of many documents
                // (and then every one, so the total is right for a mixed folder).
                let sizes: Vec<u64> = entries.iter().map(size_on_disk).collect();
                ByteProgress {
                    total: sizes.iter().sum(),
                    sizes,
                    finished: 0,
                }
            });
        entries.reverse();
        Batches {
            entries,
            current: None,
            max_bytes,
            done: 0,
            bytes,
            current_size: 0,
        }
    }

    /// The next entry, its room given back as the list empties: every [`SHRINK_STEP`]
    /// entries taken, the list is cut to its length. It is cut at its end, where the
    /// entries taken were, so no entry moves (a large list is its own mapping, which
    /// the allocator shortens in place). Halved only when a quarter full, the list of
    /// 500,000 files held its 36 MB until three quarters of the corpus were read.
    fn next_entry(&mut self) -> Option<Entry> {
        let entry = self.entries.pop();
        if self.entries.capacity() - self.entries.len() >= SHRINK_STEP {
            self.entries.shrink_to_fit();
        }
        entry
    }

    /// The size of the entry just taken from `entries`.
    fn taken_size(&self) -> u64 {
        self.bytes.as_ref().map_or(0, |b| {
            let at = b.sizes.len() - self.entries.len() - 1;
            b.sizes[at]
        })
    }

    /// Marks an entry of `size` bytes as done.
    fn finish_entry(&mut self, size: u64) {
        if let Some(b) = &mut self.bytes {
            b.finished += size;
        }
    }

    /// The next batch of about `max_items` items, in corpus order; None at the end.
    pub(crate) fn next_batch(&mut self, max_items: usize) -> Option<Vec<Item>> {
        let mut batch = Vec::new();
        let mut bytes = 0;
        while batch.len() < max_items && bytes < BATCH_BYTES {
            if let Some(current) = &mut self.current {
                let (more, records, file) = match current {
                    Current::Bytes(stream) => {
                        let (more, b) = stream.next_items(&mut batch);
                        bytes += b;
                        (more, stream.records, &stream.file)
                    }
                    Current::Rows(rows) => {
                        let before = batch.len();
                        let more = rows.next_items(&mut batch);
                        // A row group's texts are in the batch: count them as its bytes.
                        bytes += batch[before..]
                            .iter()
                            .map(|i| match i {
                                Item::Parsed { record, .. } => record.text.len(),
                                _ => 0,
                            })
                            .sum::<usize>();
                        (more, rows.records, &rows.file)
                    }
                };
                if !more {
                    if records == 0 {
                        // Nothing at all, not even a bad record: say so, rather than
                        // have the file vanish from the counts (SGML read from plain
                        // text, an empty JSON Lines file).
                        let kind = file.kind;
                        batch.push(Item::Skip(Skipped {
                            path: file.path.clone(),
                            reason: SkipReason::BadRecord,
                            detail: format!("no {} record in the file", kind.name()),
                        }));
                    }
                    let size = self.taken_size_of_current();
                    self.current = None;
                    self.finish_entry(size);
                }
                continue;
            }
            let Some(entry) = self.next_entry() else {
                break;
            };
            let size = self.taken_size();
            match &entry.source {
                Source::Container(c) => match open_container(c, self.max_bytes) {
                    Ok(mut current) => {
                        if let Current::Bytes(s) = &mut current {
                            s.size = size;
                        }
                        self.current_size = size;
                        self.current = Some(current)
                    }
                    Err((reason, detail)) => {
                        batch.push(Item::Skip(Skipped {
                            path: c.path.clone(),
                            reason,
                            detail,
                        }));
                        self.finish_entry(size);
                    }
                },
                _ => {
                    batch.push(Item::Whole(entry));
                    self.finish_entry(size);
                }
            }
        }
        self.done += batch.len() as u64;
        (!batch.is_empty()).then_some(batch)
    }

    /// Items handed out so far.
    pub(crate) fn done(&self) -> u64 {
        self.done
    }

    /// Bytes of the corpus's files read so far and in all, when it has files of many
    /// documents (None otherwise: progress is counted in documents).
    pub(crate) fn bytes(&self) -> Option<(u64, u64)> {
        let b = self.bytes.as_ref()?;
        let current = match &self.current {
            // A file that grew since it was stat'ed counts no further than its size then.
            Some(Current::Bytes(s)) => s.opened.consumed.load(Ordering::Relaxed).min(s.size),
            Some(Current::Rows(r)) => r.consumed.min(self.current_size),
            None => 0,
        };
        Some((b.finished + current, b.total))
    }

    /// Items in all, as far as can be told. Counted in bytes, the items so far scaled by
    /// the bytes left: the whole corpus's rate, not one file's. Otherwise a container
    /// counts as one until it is being read, and then as its records so far scaled by
    /// how much of the file is left.
    pub(crate) fn total_estimate(&self) -> u64 {
        if let Some((done, total)) = self.bytes() {
            if done == 0 || self.done == 0 {
                return self.done + self.entries.len() as u64 + 1;
            }
            let scaled = (self.done as f64 * total as f64 / done as f64).ceil() as u64;
            // Never fewer than what is known: the items so far, one per entry left, and
            // one more while a file is being read (a compressed file's bytes are all
            // read long before its last records: the total must not fall to the count
            // so far, which says "done" early).
            let open = u64::from(self.current.is_some());
            return scaled.max(self.done + self.entries.len() as u64 + open);
        }
        let remaining = match &self.current {
            Some(Current::Bytes(s)) => s.remaining_estimate(),
            Some(Current::Rows(_)) => 1,
            None => 0,
        };
        self.done + self.entries.len() as u64 + remaining
    }

    /// The size (when the corpus was stat'ed) of the file being read.
    fn taken_size_of_current(&self) -> u64 {
        self.current_size
    }
}

/// A file's size on disk, or 0 when it can't be stat'ed (its reading will say why); a
/// text in memory counts its bytes.
fn size_on_disk(entry: &Entry) -> u64 {
    match &entry.source {
        Source::Memory(_) => entry.bytes,
        _ => entry
            .source
            .path()
            .and_then(|p| std::fs::metadata(p).ok())
            .map_or(0, |m| m.len()),
    }
}

/// A document read: where it came from, its text, its title and metadata.
pub(crate) type ReadItem = (Entry, Text, Labels);

/// Reads and extracts the text of one item of a batch (called in parallel by the index
/// build, which shingles the text on the same thread while it is still in cache), with
/// its labels when `labels` (else none: an index only to search keeps none, and a title
/// found in each text was 5% of such a build's CPU time); a file opened by `opener`.
pub(crate) fn extract_item(
    item: Item,
    max_bytes: u64,
    labels: bool,
    opener: &mut Opener,
) -> Result<ReadItem, Skipped> {
    match item {
        Item::Whole(entry) => match read_text_once(&entry, max_bytes, opener) {
            Ok(text) if !labels => Ok((entry, text, Labels::default())),
            Ok(text) => {
                let labels = Labels {
                    title: title_of(None, &text),
                    meta: Vec::new(),
                };
                Ok((entry, text, labels))
            }
            Err((reason, detail)) => Err(Skipped {
                path: entry.place(),
                reason,
                detail,
            }),
        },
        Item::Record { part, block, range } => match part.file.extract(&block[range]) {
            Ok(record) => Ok(record_item(part, record, labels)),
            Err((reason, detail)) => Err(Skipped {
                path: part.place(),
                reason,
                detail,
            }),
        },
        Item::Parsed { part, record } => {
            if record.text.len() as u64 > max_bytes {
                return Err(Skipped {
                    path: part.place(),
                    reason: SkipReason::TooLarge,
                    detail: format!("{} bytes", record.text.len()),
                });
            }
            Ok(record_item(part, record, labels))
        }
        Item::Skip(s) => Err(s),
    }
}

/// A record of a container, read: its id (or its line's place), text, and, when
/// `labels`, its title and the metadata kept.
fn record_item(part: Part, record: Record, labels: bool) -> ReadItem {
    let id = record.id.unwrap_or_else(|| part.file.line_id(part.line));
    let labels = match labels {
        true => Labels {
            title: title_of(record.title.as_deref(), &record.text),
            meta: part.file.kept_meta(record.meta),
        },
        false => Labels::default(),
    };
    let entry = Entry {
        id,
        bytes: record.text.len() as u64,
        source: Source::Part(part),
    };
    (entry, Text::Owned(record.text), labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_of_entries_left_gives_its_room_back_as_it_empties() {
        let n = 5 * SHRINK_STEP + 7;
        let entries: Vec<Entry> = (0..n)
            .map(|i| Entry {
                id: format!("t{i}"),
                source: Source::Memory(Arc::from("some text")),
                bytes: 9,
            })
            .collect();
        let mut batches = Batches::new(entries, 1 << 20);
        let mut ids = Vec::new();
        while let Some(batch) = batches.next_batch(1000) {
            let room = batches.entries.capacity() - batches.entries.len();
            assert!(room < SHRINK_STEP, "{room} entries of room left");
            ids.extend(batch.into_iter().map(|item| match item {
                Item::Whole(e) => e.id,
                _ => panic!("a text in memory is one whole document"),
            }));
        }
        // Every entry once, in corpus order.
        let expected: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
        assert_eq!(ids, expected);
    }
}
