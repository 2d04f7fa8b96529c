//! Removal lists of any shape, read for the explorer's review: simtui's own, and those of
//! other tools' MinHash runs, told apart by their content (never by a flag):
//!
//! - datatrove (`src/datatrove/pipeline/dedup/minhash.py`): `MinhashDedupCluster` writes
//!   a folder of `{rank:06d}.remove` files, each the sorted little-endian `u32` indices
//!   (`struct.pack("<I", doc)`) of the documents task `rank` of the reader will drop, and
//!   with `save_cluster_id=True` `{rank:06d}.clusters` files of `(doc, cluster id)` pairs
//!   of `u32`s, which name each cluster's kept document (its one member not removed).
//!   `MinhashDedupFilter(exclusion_writer=JsonlWriter(..))` writes the removed documents
//!   themselves as JSON Lines, gzipped by default (read by [`removals::parse_any`]).
//! - text-dedup (`src/text_dedup/minhash.py`, `data_sources/io.py`): with
//!   `skip_filtering`, `keep_index_column` and `keep_cluster_column`, its output
//!   (`Dataset.save_to_disk`: a folder of `data-*.arrow` Arrow IPC stream files) keeps
//!   every row with `__INDEX__` (the row's position in the input) and `__CLUSTER__` (the
//!   position of the row kept for it): a row whose two differ was removed. The same
//!   columns in lower case (older versions), and in Parquet, are read too. With
//!   `save_clusters`, it also pickles its final assignment, `{__INDEX__: __CLUSTER__}` of
//!   every row in a cluster, to `clusters.pickle` (`pickle.HIGHEST_PROTOCOL`): read
//!   here as that dict of integers, and nothing else a pickle can hold.

use super::removals::{self, DocRef, RemovalList, Removed};
use super::side_input;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type, UInt32Type, UInt64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType};
use std::collections::{BTreeMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Reads a removal list, a file or a folder, of whichever shape it has: simtui's
/// `OUT.removed.jsonl` ([`removals::parse_any`]), or a list of datatrove or text-dedup,
/// told apart by its content. An error names the file and, for JSON Lines, the first
/// line that is not as it should be.
pub fn read(path: &Path) -> Result<RemovalList, String> {
    let meta = std::fs::metadata(path)
        .map_err(|e| format!("cannot read the removal list {}: {e}", path.display()))?;
    if !meta.is_dir() {
        let mut list = RemovalList {
            format: "",
            removed: Vec::new(),
        };
        read_file(path, &mut list).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok(list);
    }
    let files = super::pairs_file::part_files(path, "folder")?;
    if files.iter().any(|f| has_suffix(f, ".remove")) {
        return read_datatrove(&files);
    }
    // text-dedup's output folder: the pickled assignment names every removal, whether
    // the data files beside it were filtered (kept rows only) or not.
    if let Some(pickle) = files.iter().find(|f| has_suffix(f, "clusters.pickle")) {
        let mut list = RemovalList {
            format: "",
            removed: Vec::new(),
        };
        read_file(pickle, &mut list).map_err(|e| format!("{}: {e}", pickle.display()))?;
        return Ok(list);
    }
    let data: Vec<&PathBuf> = files.iter().filter(|f| is_data_file(f)).collect();
    if data.is_empty() {
        return Err(format!(
            "the folder {} holds no removal list (datatrove's .remove files, text-dedup's \
             .arrow or .parquet files, or JSON Lines)",
            path.display()
        ));
    }
    let mut list = RemovalList {
        format: "",
        removed: Vec::new(),
    };
    for file in data {
        read_file(file, &mut list).map_err(|e| format!("{}: {e}", file.display()))?;
    }
    Ok(list)
}

fn has_suffix(path: &Path, suffix: &str) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().ends_with(suffix))
}

/// A folder's file that holds removals: not `save_to_disk`'s `dataset_info.json` and
/// `state.json`, which describe the data files beside them.
fn is_data_file(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    !matches!(name.as_deref(), Some("dataset_info.json" | "state.json"))
}

/// Reads one file into `list`, its shape told by its first bytes.
fn read_file(path: &Path, list: &mut RemovalList) -> Result<(), String> {
    let mut head = [0u8; 6];
    // Regular files only: a FIFO or a device is an error, never a read that blocks or
    // has no end; what is read whole is within a limit (a gzip stream too).
    let limit = side_input::WHOLE_FILE_LIMIT;
    let mut f = side_input::open(path, u64::MAX)?;
    let n = f.read(&mut head).map_err(|e| e.to_string())?;
    let head = &head[..n];
    let open = || side_input::open(path, u64::MAX);
    let (format, removed) = if head.starts_with(b"PAR1") {
        let reader =
            parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(open()?)
                .and_then(|b| b.build())
                .map_err(|e| format!("not a readable Parquet file: {e}"))?;
        ("text-dedup", text_dedup(reader)?)
    } else if head.starts_with(b"ARROW1") {
        let reader = arrow_ipc::reader::FileReader::try_new(open()?, None)
            .map_err(|e| format!("not a readable Arrow file: {e}"))?;
        ("text-dedup", text_dedup(reader)?)
    } else if head.first() == Some(&0x80) && head.get(1).is_some_and(|p| (2..=5).contains(p)) {
        // A pickle's PROTO opcode and protocol.
        let bytes = side_input::bytes(path, limit)?;
        ("text-dedup", clusters_pickle(&bytes)?)
    } else if head.starts_with(&[0xFF, 0xFF, 0xFF, 0xFF]) {
        // An Arrow IPC stream starts with a message's continuation marker.
        let reader = arrow_ipc::reader::StreamReader::try_new(open()?, None)
            .map_err(|e| format!("not a readable Arrow stream: {e}"))?;
        ("text-dedup", text_dedup(reader)?)
    } else {
        let text = if head.starts_with(&[0x1F, 0x8B]) {
            let gz = flate2::read::MultiGzDecoder::new(open()?);
            side_input::bounded(gz, limit).map_err(|e| format!("gzipped text: {e}"))?
        } else {
            let file = open()?;
            side_input::within(&file, limit)?;
            side_input::bounded(file, limit).map_err(|e| format!("text: {e}"))?
        };
        let read = removals::parse_any(&text)?;
        (read.format, read.removed)
    };
    if !list.format.is_empty() && list.format != format {
        return Err(format!(
            "a {format} list among {} files: one list, one shape",
            list.format
        ));
    }
    list.format = format;
    list.removed.extend(removed);
    Ok(())
}

/// The removals of text-dedup's output: rows whose `__CLUSTER__` differs from their
/// `__INDEX__` (any case), the kept one being the row `__CLUSTER__` names.
fn text_dedup(
    batches: impl Iterator<Item = Result<RecordBatch, ArrowError>>,
) -> Result<Vec<Removed>, String> {
    let mut out = Vec::new();
    for batch in batches {
        let batch = batch.map_err(|e| format!("cannot read a batch: {e}"))?;
        let column = |name: &str| -> Result<&ArrayRef, String> {
            let schema = batch.schema_ref();
            let at = schema
                .fields()
                .iter()
                .position(|f| f.name().eq_ignore_ascii_case(name));
            at.map(|i| batch.column(i)).ok_or_else(|| {
                format!(
                    "no `__INDEX__` and `__CLUSTER__` columns: text-dedup keeps them with \
                     skip_filtering, keep_index_column and keep_cluster_column (no column `{name}`)"
                )
            })
        };
        let (index, cluster) = (column("__index__")?, column("__cluster__")?);
        for row in 0..batch.num_rows() {
            let cell = |col: &ArrayRef, name: &str| {
                int(col, row).ok_or_else(|| format!("`{name}` null or not an integer"))
            };
            let (i, c) = (cell(index, "__INDEX__")?, cell(cluster, "__CLUSTER__")?);
            if i != c {
                out.push(Removed {
                    id: DocRef::Row(i),
                    kept: DocRef::Row(c),
                    jaccard: None,
                    cluster: Some(c),
                });
            }
        }
    }
    Ok(out)
}

/// The removals of text-dedup's `clusters.pickle`: each key (a row) whose value (the
/// cluster's kept row) differs from it.
fn clusters_pickle(bytes: &[u8]) -> Result<Vec<Removed>, String> {
    let mut rows = Vec::new();
    for (row, kept) in int_dict(bytes)? {
        let (Ok(row), Ok(kept)) = (u64::try_from(row), u64::try_from(kept)) else {
            return Err(format!("a negative row in the clusters ({row}: {kept})"));
        };
        if row != kept {
            rows.push((row, kept));
        }
    }
    // The dict's order is polars'; the review pages through the input's.
    rows.sort_unstable();
    Ok(rows
        .into_iter()
        .map(|(row, kept)| Removed {
            id: DocRef::Row(row),
            kept: DocRef::Row(kept),
            jaccard: None,
            cluster: Some(kept),
        })
        .collect())
}

/// The items of a pickled dict of integers to integers, in the order pickled. Only the
/// opcodes CPython's pickler writes for one (protocols 2 to 5) are read: anything else
/// is an error, never code run.
fn int_dict(bytes: &[u8]) -> Result<Vec<(i64, i64)>, String> {
    enum Item {
        Mark,
        Int(i64),
        Dict,
    }
    let bad = |why: String| format!("not a pickled dict of integers ({why})");
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&[u8], String> {
        let got = bytes
            .get(at..at + n)
            .ok_or_else(|| bad("cut short".to_string()))?;
        at += n;
        Ok(got)
    };
    let mut stack: Vec<Item> = Vec::new();
    let mut items = Vec::new();
    loop {
        let op = take(1)?[0];
        match op {
            0x80 => drop(take(1)?),         // PROTO
            0x95 => drop(take(8)?),         // FRAME: its length
            0x94 => {}                      // MEMOIZE
            b'q' => drop(take(1)?),         // BINPUT
            b'r' => drop(take(4)?),         // LONG_BINPUT
            b'}' => stack.push(Item::Dict), // EMPTY_DICT
            b'(' => stack.push(Item::Mark), // MARK
            b'K' => stack.push(Item::Int(i64::from(take(1)?[0]))),
            b'M' => {
                let b = take(2)?;
                stack.push(Item::Int(i64::from(u16::from_le_bytes([b[0], b[1]]))));
            }
            b'J' => {
                let b = take(4)?;
                stack.push(Item::Int(i64::from(i32::from_le_bytes([
                    b[0], b[1], b[2], b[3],
                ]))));
            }
            0x8A => {
                // LONG1: n bytes of a little-endian two's complement integer.
                let n = take(1)?[0] as usize;
                let b = take(n)?;
                if n > 8 {
                    return Err(bad(format!("an integer of {n} bytes")));
                }
                let fill = if b.last().is_some_and(|x| x & 0x80 != 0) {
                    0xFF
                } else {
                    0
                };
                let mut le = [fill; 8];
                le[..n].copy_from_slice(b);
                stack.push(Item::Int(i64::from_le_bytes(le)));
            }
            b's' | b'u' => {
                // SETITEM: one key and value; SETITEMS: the pairs down to the mark.
                let mut ints = Vec::new();
                loop {
                    match stack.pop() {
                        Some(Item::Int(v)) => ints.push(v),
                        Some(Item::Mark) if op == b'u' => break,
                        Some(Item::Dict) if op == b's' && ints.len() == 2 => {
                            stack.push(Item::Dict);
                            break;
                        }
                        _ => return Err(bad("items not of integers".to_string())),
                    }
                    if op == b's' && ints.len() > 2 {
                        return Err(bad("items not of integers".to_string()));
                    }
                }
                if ints.len() % 2 != 0 || !matches!(stack.last(), Some(Item::Dict)) {
                    return Err(bad("items outside a dict".to_string()));
                }
                ints.reverse();
                items.extend(ints.chunks_exact(2).map(|p| (p[0], p[1])));
            }
            b'.' => {
                return match stack.as_slice() {
                    [Item::Dict] => Ok(items),
                    _ => Err(bad("not one dict".to_string())),
                };
            }
            other => return Err(bad(format!("opcode 0x{other:02x}"))),
        }
    }
}

/// A non-negative integer cell; None for a null, a negative number or another type.
fn int(col: &ArrayRef, row: usize) -> Option<u64> {
    if col.is_null(row) {
        return None;
    }
    match col.data_type() {
        DataType::Int32 => u64::try_from(col.as_primitive::<Int32Type>().value(row)).ok(),
        DataType::Int64 => u64::try_from(col.as_primitive::<Int64Type>().value(row)).ok(),
        DataType::UInt32 => Some(u64::from(col.as_primitive::<UInt32Type>().value(row))),
        DataType::UInt64 => Some(col.as_primitive::<UInt64Type>().value(row)),
        _ => None,
    }
}

/// The rank a datatrove file is named for (`000003.remove` → 3), or an error naming it.
fn rank_of(path: &Path, ext: &str) -> Result<u32, String> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    name.strip_suffix(ext)
        .and_then(|stem| stem.parse().ok())
        .ok_or_else(|| {
            format!(
                "{}: not a datatrove {ext} file (named RANK{ext})",
                path.display()
            )
        })
}

/// A file of little-endian `u32`s, whole.
fn u32s(path: &Path, ext: &str) -> Result<Vec<u32>, String> {
    let limit = side_input::WHOLE_FILE_LIMIT;
    let bytes = side_input::bytes(path, limit).map_err(|e| side_input::named("", path, &e))?;
    if bytes.len() % 4 != 0 {
        return Err(format!(
            "{}: not a datatrove {ext} file ({} bytes, not whole 4-byte numbers)",
            path.display(),
            bytes.len()
        ));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Datatrove's `.remove` folder: each removed document by its task and place, kept for
/// the cluster's one member not removed when `.clusters` files say the clusters.
fn read_datatrove(files: &[PathBuf]) -> Result<RemovalList, String> {
    let mut removed: Vec<(u32, u32)> = Vec::new();
    let mut clusters: BTreeMap<u32, Vec<(u32, u32)>> = BTreeMap::new();
    let mut cluster_of: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    for file in files {
        if has_suffix(file, ".remove") {
            let rank = rank_of(file, ".remove")?;
            removed.extend(u32s(file, ".remove")?.into_iter().map(|doc| (rank, doc)));
        } else if has_suffix(file, ".clusters") {
            let rank = rank_of(file, ".clusters")?;
            let pairs = u32s(file, ".clusters")?;
            if pairs.len() % 2 != 0 {
                return Err(format!(
                    "{}: not a datatrove .clusters file (an odd number of numbers)",
                    file.display()
                ));
            }
            for p in pairs.chunks_exact(2) {
                clusters.entry(p[1]).or_default().push((rank, p[0]));
                cluster_of.insert((rank, p[0]), p[1]);
            }
        }
    }
    removed.sort_unstable();
    let gone: HashSet<(u32, u32)> = removed.iter().copied().collect();
    // A cluster's root is its member not removed; a cluster rooted in datatrove's index
    // (rank u32::MAX, its SENTINEL) has none in the corpus.
    let root = |c: u32| -> Option<(u32, u32)> {
        let mut kept = clusters
            .get(&c)?
            .iter()
            .filter(|m| !gone.contains(m) && m.0 != u32::MAX);
        let first = *kept.next()?;
        kept.next().is_none().then_some(first)
    };
    let removed = removed
        .into_iter()
        .map(|(rank, doc)| {
            let cluster = cluster_of.get(&(rank, doc)).copied();
            let kept = cluster.and_then(root);
            Removed {
                id: DocRef::Task { rank, doc },
                kept: kept.map_or(DocRef::Nearest, |(rank, doc)| DocRef::Task { rank, doc }),
                jaccard: None,
                cluster: cluster.map(u64::from),
            }
        })
        .collect();
    Ok(RemovalList {
        format: "datatrove .remove",
        removed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int64Array, StringArray};
    use arrow_schema::{Field, Schema};
    use std::sync::Arc;

    /// Little-endian `u32`s, as datatrove's `struct.pack("<I", ..)` writes them.
    fn packed(values: &[u32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn datatrove_remove_files_name_documents_by_task_and_place() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("000000.remove"), packed(&[1, 4])).unwrap();
        std::fs::write(dir.path().join("000002.remove"), packed(&[0])).unwrap();
        let list = read(dir.path()).unwrap();
        assert_eq!(list.format, "datatrove .remove");
        let ids: Vec<_> = list.removed.iter().map(|r| r.id.clone()).collect();
        assert_eq!(
            ids,
            vec![
                DocRef::Task { rank: 0, doc: 1 },
                DocRef::Task { rank: 0, doc: 4 },
                DocRef::Task { rank: 2, doc: 0 },
            ]
        );
        assert!(list.removed.iter().all(|r| r.kept == DocRef::Nearest));
    }

    #[test]
    fn datatrove_clusters_name_the_kept_document() {
        let dir = tempfile::tempdir().unwrap();
        // Cluster 0: task 0's documents 0 (kept) and 2, task 1's document 1; cluster 1:
        // task 1's documents 0 and 3, rooted in the index (no member kept here).
        std::fs::write(dir.path().join("000000.remove"), packed(&[2])).unwrap();
        std::fs::write(dir.path().join("000001.remove"), packed(&[0, 1, 3])).unwrap();
        std::fs::write(dir.path().join("000000.clusters"), packed(&[0, 0, 2, 0])).unwrap();
        std::fs::write(
            dir.path().join("000001.clusters"),
            packed(&[0, 1, 1, 0, 3, 1]),
        )
        .unwrap();
        std::fs::write(dir.path().join("4294967295.clusters"), packed(&[0, 1])).unwrap();
        let list = read(dir.path()).unwrap();
        let kept: Vec<_> = list
            .removed
            .iter()
            .map(|r| (r.id.clone(), r.kept.clone()))
            .collect();
        let task = |rank, doc| DocRef::Task { rank, doc };
        assert_eq!(
            kept,
            vec![
                (task(0, 2), task(0, 0)),
                (task(1, 0), DocRef::Nearest),
                (task(1, 1), task(0, 0)),
                (task(1, 3), DocRef::Nearest),
            ]
        );
        assert_eq!(list.removed[2].cluster, Some(0));
    }

    #[test]
    fn a_torn_remove_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("000000.remove"), [1u8, 0, 0]).unwrap();
        let e = read(dir.path()).unwrap_err();
        assert!(e.contains("not a datatrove .remove file"), "{e}");
        std::fs::write(dir.path().join("000000.remove"), packed(&[1])).unwrap();
        std::fs::write(dir.path().join("x.remove"), packed(&[1])).unwrap();
        assert!(read(dir.path()).unwrap_err().contains("named RANK.remove"));
    }

    /// text-dedup's columns: rows 0..5, row 2 a copy of 0, row 4 of 1.
    fn text_dedup_batch(index: &str, cluster: &str) -> RecordBatch {
        let schema = Schema::new(vec![
            Field::new("text", DataType::Utf8, true),
            Field::new(index, DataType::Int64, false),
            Field::new(cluster, DataType::Int64, false),
        ]);
        RecordBatch::try_new(
            Arc::new(schema),
            vec![
                Arc::new(StringArray::from(vec!["a", "b", "a", "c", "b"])),
                Arc::new(Int64Array::from(vec![0, 1, 2, 3, 4])),
                Arc::new(Int64Array::from(vec![0, 1, 0, 3, 1])),
            ],
        )
        .unwrap()
    }

    /// The rows text-dedup's list at `path` removes, each with the row kept for it.
    fn text_dedup_rows(path: &Path) -> Vec<(u64, u64)> {
        let list = read(path).unwrap();
        assert_eq!(list.format, "text-dedup");
        let row = |d: &DocRef| match d {
            DocRef::Row(r) => *r,
            other => panic!("{other:?} is no row"),
        };
        list.removed
            .iter()
            .map(|r| (row(&r.id), row(&r.kept)))
            .collect()
    }

    fn rows(list: &RemovalList) -> Vec<(DocRef, DocRef)> {
        list.removed
            .iter()
            .map(|r| (r.id.clone(), r.kept.clone()))
            .collect()
    }

    #[test]
    fn text_dedup_save_to_disk_arrow_streams_are_read() {
        // As `Dataset.save_to_disk` leaves them: data-*.arrow streams beside JSON files.
        let dir = tempfile::tempdir().unwrap();
        let batch = text_dedup_batch("__INDEX__", "__CLUSTER__");
        let file = std::fs::File::create(dir.path().join("data-00000-of-00001.arrow")).unwrap();
        let mut w = arrow_ipc::writer::StreamWriter::try_new(file, &batch.schema()).unwrap();
        w.write(&batch).unwrap();
        w.finish().unwrap();
        std::fs::write(
            dir.path().join("state.json"),
            "{\n  \"_data_files\": []\n}\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("dataset_info.json"), "{\n}\n").unwrap();
        assert_eq!(text_dedup_rows(dir.path()), [(2, 0), (4, 1)]);
    }

    #[test]
    fn text_dedup_parquet_in_lower_case_is_read_and_other_columns_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.parquet");
        let batch = text_dedup_batch("__index__", "__cluster__");
        let file = std::fs::File::create(&path).unwrap();
        let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        assert_eq!(rows(&read(&path).unwrap()).len(), 2);
        let other = dir.path().join("other.parquet");
        let batch = text_dedup_batch("__index__", "cluster");
        let mut w = parquet::arrow::ArrowWriter::try_new(
            std::fs::File::create(&other).unwrap(),
            batch.schema(),
            None,
        )
        .unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        let e = read(&other).unwrap_err();
        assert!(e.contains("keep_cluster_column"), "{e}");
    }

    /// `pickle.dumps({0: 0, 2: 0, 1: 1, 4: 1, 300: 0, 70000: 1, 2**40: 5}, protocol=5)`,
    /// as CPython 3.12 writes it (text-dedup's `save_clusters`).
    const PICKLED: &str = "8005952b000000000000007d94284b004b004b024b004b014b014b044b014d2c014b004a701101004b018a060000000000014b05752e";

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len() / 2)
            .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn text_dedup_clusters_pickle_is_read_and_nothing_else_a_pickle_holds() {
        let items = int_dict(&unhex(PICKLED)).unwrap();
        assert_eq!(
            items,
            vec![
                (0, 0),
                (2, 0),
                (1, 1),
                (4, 1),
                (300, 0),
                (70000, 1),
                (1 << 40, 5)
            ]
        );
        // A dict of one item is SETITEM; batches of 1,000 come in frames of their own.
        assert_eq!(
            int_dict(&unhex("80059508000000000000007d944b074b03732e")).unwrap(),
            vec![(7, 3)]
        );
        let framed = unhex(
            "8005950800000000000000 7d94284b014b00 95050000000000000075284b024b0075 2e"
                .replace(' ', "")
                .as_str(),
        );
        assert_eq!(int_dict(&framed).unwrap(), vec![(1, 0), (2, 0)]);
        // A string key, or a global (code a pickle could run), is refused.
        let e = int_dict(&unhex("80057d94288c01619404752e")).unwrap_err();
        assert!(e.contains("not a pickled dict of integers"), "{e}");
        assert!(int_dict(&unhex("8004636f730a73797374656d0a2e")).is_err());
        // In text-dedup's output folder it wins over the filtered data files beside it.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("clusters.pickle"), unhex(PICKLED)).unwrap();
        std::fs::write(dir.path().join("state.json"), "{}\n").unwrap();
        assert_eq!(
            text_dedup_rows(dir.path()),
            [(2, 0), (4, 1), (300, 0), (70000, 1), (1 << 40, 5)]
        );
    }

    #[test]
    fn a_gzipped_exclusion_folder_is_read() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(b"{\"text\":\"t\",\"id\":\"x\",\"metadata\":{}}\n")
            .unwrap();
        std::fs::write(dir.path().join("00000.jsonl.gz"), gz.finish().unwrap()).unwrap();
        let list = read(dir.path()).unwrap();
        assert_eq!(list.format, "datatrove exclusion");
        assert_eq!(rows(&list), vec![(DocRef::Id("x".into()), DocRef::Nearest)]);
        std::fs::write(dir.path().join("0.txt"), "not json\n").unwrap();
        assert!(read(dir.path()).unwrap_err().contains("0.txt: line 1"));
    }
}
