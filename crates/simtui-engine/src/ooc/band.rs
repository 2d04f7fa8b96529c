//! Banding when the band keys of every band don't fit in memory at once: the bands are
//! taken as many at a time as fit (their keys computed in one pass over the signatures,
//! read back front to back when they are on file, and bucketed in memory as
//! [`band`](crate::search::banding) does); when not even one band's keys fit, each band's
//! keys are sorted in runs on disk and merged, a bucket being a run of equal keys. The
//! bands' candidate pairs are sorted the same way, and merged without repeats: the
//! same pairs, in the same order, as [`band::candidates_capped`] gives.

use crate::error::Result;
use crate::progress::{Progress, Stage, check};
use crate::search::banding::{self as band, BandOut, Bucket, Expand};
use crate::sketch::minhash::Signatures;
use crate::storage::Spilled;
use crate::storage::runs::{Sorted, Spill};
use rayon::prelude::*;
use std::path::Path;
use std::sync::Arc;

/// Items whose rows are read and keyed per parallel task.
const KEY_CHUNK: usize = 4096;

/// The candidate pairs of contents, sorted and each once, read from their runs.
pub(crate) struct CandidateStream {
    sorted: Sorted<u64>,
    last: Option<u64>,
    /// Pairs pushed (repeats included): an upper bound of the stream's length.
    pub(crate) pushed: u64,
}

impl CandidateStream {
    /// The next pair (smaller, larger), None at the end.
    pub(crate) fn next_pair(&mut self) -> Result<Option<(u32, u32)>> {
        while let Some(p) = self.sorted.next_record()? {
            if self.last != Some(p) {
                self.last = Some(p);
                return Ok(Some(((p >> 32) as u32, p as u32)));
            }
        }
        Ok(None)
    }
}

/// Where banding may put things: the bytes it may hold, the temporary folder, the
/// counters.
pub(crate) struct Room<'a> {
    pub(crate) bytes: u64,
    pub(crate) dir: Option<&'a Path>,
    pub(crate) spilled: &'a Arc<Spilled>,
}

/// Bytes banding `bands` bands of `n` items at once takes in memory, as
/// [`band::candidates_capped`] does it: every band's keys, and a scratch copy of a
/// band's keys (with its bucket table and shared words) per thread.
pub(crate) fn in_memory_bytes(bands: usize, n: usize) -> u64 {
    let threads = rayon::current_num_threads().min(bands) as u64;
    (bands as u64 + 2 * threads) * n as u64 * 8
}

/// The candidates of `items` (ascending) for `bands` × `rows`, as
/// [`band::candidates_capped`] finds them, in `room.bytes` of memory.
#[allow(clippy::too_many_arguments)]
pub(crate) fn candidates(
    sigs: &Signatures,
    items: &[u32],
    bands: usize,
    rows: usize,
    max_bucket: Option<usize>,
    room: &Room,
    progress: &dyn Progress,
) -> Result<(CandidateStream, Vec<Bucket>)> {
    assert!(bands >= 1 && rows >= 1, "bands and rows must be at least 1");
    assert!(
        bands * rows <= sigs.width(),
        "{bands} bands × {rows} rows need {} hash functions, the signatures have {}",
        bands * rows,
        sigs.width()
    );
    let n = items.len();
    // A quarter of the room sorts the candidate pairs; the rest bands.
    let pair_room = (room.bytes / 4).max(1 << 10);
    let band_room = room.bytes - pair_room.min(room.bytes);
    let mut pairs: Spill<u64> = Spill::counted(
        pair_room as usize,
        room.dir.map(Path::to_path_buf),
        room.spilled,
        "candidate pairs",
    );
    let mut pushed = 0u64;
    let mut huge = Vec::new();
    let expand = |band| Expand {
        band,
        max_bucket: max_bucket.unwrap_or(usize::MAX),
    };
    let mut done = 0;
    // Bands a pass can take with their keys and scratch in memory (0: not even one).
    let per_pass = (1..=bands)
        .rev()
        .find(|&k| in_memory_bytes(k, n) <= band_room)
        .unwrap_or(0);
    if n > 0 && per_pass > 0 && band::narrow(sigs) {
        let mut keys: Vec<u64> = Vec::new();
        let all: Vec<usize> = (0..bands).collect();
        for which in all.chunks(per_pass) {
            check(progress)?;
            keys_of(sigs, items, rows, which, &mut keys, progress)?;
            let outs: Vec<BandOut> = keys
                .par_chunks(n)
                .zip(which)
                .map(|(keyed, &b)| {
                    let mut scratch = band::Scratch::default();
                    band::bucket_pairs(keyed, &expand(b), &mut scratch)
                })
                .collect();
            for out in outs {
                for &p in &out.pairs {
                    pairs.push(p)?;
                }
                pushed += out.pairs.len() as u64;
                huge.extend(out.huge);
                done += 1;
                progress.update(Stage::Band, done, bands as u64);
            }
        }
    } else if n > 0 {
        for b in 0..bands {
            check(progress)?;
            let narrow = band::narrow(sigs);
            let expand = expand(b);
            let keys = KeyRoom {
                narrow,
                bytes: band_room,
            };
            pushed += sorted_band(
                sigs, items, rows, &expand, &keys, room, &mut pairs, &mut huge,
            )?;
            done += 1;
            progress.update(Stage::Band, done, bands as u64);
        }
    }
    Ok((
        CandidateStream {
            sorted: pairs.sorted()?,
            last: None,
            pushed,
        },
        huge,
    ))
}

/// The keys of the bands in `which` for every item, band after band (as
/// [`band`](crate::search::banding)'s keys: the word for band `which[j]` and item
/// `items[i]` at `j * items.len() + i`), reading the rows a run of items at a time.
fn keys_of(
    sigs: &Signatures,
    items: &[u32],
    rows: usize,
    which: &[usize],
    keys: &mut Vec<u64>,
    progress: &dyn Progress,
) -> Result<()> {
    let n = items.len();
    keys.clear();
    crate::storage::memory::reserve(keys, which.len() * n, "the band keys")?;
    keys.resize(which.len() * n, 0);
    let mut outputs: Vec<Vec<&mut [u64]>> = (0..n.div_ceil(KEY_CHUNK))
        .map(|_| Vec::with_capacity(which.len()))
        .collect();
    for band in keys.chunks_mut(n) {
        for (task, part) in band.chunks_mut(KEY_CHUNK).enumerate() {
            outputs[task].push(part);
        }
    }
    outputs
        .into_par_iter()
        .zip(items.par_chunks(KEY_CHUNK))
        .try_for_each(|(mut outs, run)| {
            check(progress)?;
            let first = run[0] as usize;
            let block = sigs.rows_range(first, *run.last().expect("a run") as usize + 1)?;
            let width = sigs.width();
            for (j, &item) in run.iter().enumerate() {
                let at = (item as usize - first) * width;
                let row = &block[at..at + width];
                for (out, &b) in outs.iter_mut().zip(which) {
                    out[j] =
                        band::item_word(band::band_key(&row[b * rows..(b + 1) * rows], b), item);
                }
            }
            Ok(())
        })
}

/// How one band's keys are sorted: packed with their items (`narrow`) or beside them,
/// in `bytes` of memory.
pub(crate) struct KeyRoom {
    pub(crate) narrow: bool,
    pub(crate) bytes: u64,
}

/// One band's candidates through sorted runs: every item's key (packed with the item,
/// or beside it when items are too many to pack) sorted in `band_room` bytes, the
/// buckets read off the merged keys. Returns the number of pairs pushed.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sorted_band(
    sigs: &Signatures,
    items: &[u32],
    rows: usize,
    expand: &Expand,
    keys: &KeyRoom,
    room: &Room,
    pairs: &mut Spill<u64>,
    huge: &mut Vec<Bucket>,
) -> Result<u64> {
    let b = expand.band;
    let dir = room.dir.map(Path::to_path_buf);
    let (narrow, budget) = (keys.narrow, keys.bytes.max(1 << 10) as usize);
    let mut words: Spill<u64> = Spill::counted(budget, dir.clone(), room.spilled, "band keys");
    let mut wide: Spill<(u64, u32)> = Spill::counted(budget, dir, room.spilled, "band keys");
    for run in items.chunks(KEY_CHUNK) {
        let first = run[0] as usize;
        let block = sigs.rows_range(first, *run.last().expect("a run") as usize + 1)?;
        let width = sigs.width();
        for &item in run {
            let at = (item as usize - first) * width;
            let key = band::band_key(&block[at + b * rows..at + (b + 1) * rows], b);
            if narrow {
                words.push(band::item_word(key, item))?;
            } else {
                wide.push((key, item))?;
            }
        }
    }
    // Buckets as runs of equal keys; the items of a run are ascending.
    let mut pushed = 0u64;
    let mut out = Vec::new();
    let mut bucket: Vec<u32> = Vec::new();
    let mut current: Option<u64> = None;
    let mut close = |bucket: &mut Vec<u32>, pairs: &mut Spill<u64>| -> Result<()> {
        if bucket.len() > 1 {
            out.clear();
            expand.bucket(bucket, &mut out, huge);
            for &p in &out {
                pairs.push(p)?;
            }
            pushed += out.len() as u64;
        }
        bucket.clear();
        Ok(())
    };
    if narrow {
        let mut sorted = words.sorted()?;
        while let Some(w) = sorted.next_record()? {
            let (key, item) = band::word_parts(w);
            if current != Some(key) {
                close(&mut bucket, pairs)?;
                current = Some(key);
            }
            bucket.push(item);
        }
    } else {
        let mut sorted = wide.sorted()?;
        while let Some((key, item)) = sorted.next_record()? {
            if current != Some(key) {
                close(&mut bucket, pairs)?;
                current = Some(key);
            }
            bucket.push(item);
        }
    }
    close(&mut bucket, pairs)?;
    // In-memory banding sorts each band's pairs; the merge sorts them all here.
    Ok(pushed)
}
