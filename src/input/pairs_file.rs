//! Pairs computed elsewhere, read back for the explorer (`simtui --pairs FILE INPUT...`):
//! what `simtui pairs --format parquet|jsonl` writes (`a`, `b`, `jaccard`, `estimate`),
//! or a folder of such files, as the Spark job's `DIR/pairs` is (Spark writes a folder of
//! `part-*.parquet` files beside `_SUCCESS` and checksums). Each file's format is told by
//! its first bytes (Parquet's magic `PAR1`), not its name, so part files without an
//! extension are read too.

use super::side_input;
use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type, Int32Type, Int64Type, UInt32Type, UInt64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};

/// One pair as the file gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredPair {
    pub a: String,
    pub b: String,
    /// The exact Jaccard similarity the file holds.
    pub jaccard: f64,
    /// The sketch's estimate, when the file has one (`--method simhash` writes `hamming`
    /// instead).
    pub estimate: Option<f64>,
}

/// Reads a pairs file, or every data file of a folder of them (sorted by name; names
/// starting with `.` or `_`, and `.crc` checksums, skipped), in the order written. An
/// error names the file and, for JSON Lines, the line.
pub fn read(path: &Path) -> Result<Vec<StoredPair>, String> {
    let meta = std::fs::metadata(path)
        .map_err(|e| format!("cannot read the pairs file {}: {e}", path.display()))?;
    let files = if meta.is_dir() {
        let files = part_files(path, "pairs folder")?;
        if files.is_empty() {
            return Err(format!(
                "the pairs folder {} holds no data file",
                path.display()
            ));
        }
        files
    } else {
        vec![path.to_path_buf()]
    };
    let mut out = Vec::new();
    // JSON Lines files are read whole: together within a limit.
    let mut left = side_input::WHOLE_FILE_LIMIT;
    for file in &files {
        read_one(file, &mut out, &mut left).map_err(|e| format!("{}: {e}", file.display()))?;
    }
    Ok(out)
}

/// A folder's data files, sorted by name: hidden files, `_SUCCESS`-like markers and
/// `.crc` checksums left out (as Spark and Hadoop write them). `what` names the folder
/// in errors ("pairs folder").
pub(crate) fn part_files(dir: &Path, what: &str) -> Result<Vec<PathBuf>, String> {
    let cannot = |e: std::io::Error| format!("cannot read the {what} {}: {e}", dir.display());
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(cannot)? {
        let entry = entry.map_err(cannot)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let skipped = name.starts_with('.') || name.starts_with('_') || name.ends_with(".crc");
        if !skipped && entry.path().is_file() {
            files.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}

/// One file, Parquet or JSON Lines; a regular file only (a FIFO or a device is an
/// error, never a read that blocks or has no end), JSON Lines within `left` bytes.
fn read_one(file: &Path, out: &mut Vec<StoredPair>, left: &mut u64) -> Result<(), String> {
    let mut magic = [0u8; 4];
    let mut f = side_input::open(file, u64::MAX)?;
    let n = f.read(&mut magic).map_err(|e| e.to_string())?;
    if n == 4 && &magic == b"PAR1" {
        read_parquet(f, out)
    } else {
        use std::io::{Seek, SeekFrom};
        f.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
        let text = side_input::within(&f, *left)
            .and_then(|()| side_input::bounded(f, *left))
            .map_err(|why| {
                if *left < side_input::WHOLE_FILE_LIMIT && why.starts_with("over") {
                    "with the files before it, over the limit for a folder's JSON Lines files \
                 (2.0 GB together)"
                        .to_string()
                } else {
                    why
                }
            })?;
        *left -= text.len() as u64;
        parse_jsonl(&text, out)
    }
}

/// A similarity as a pairs file may hold it: a number within [0, 1]; else why not.
fn similarity(name: &str, value: f64) -> Result<f64, String> {
    if value.is_finite() && (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!(
            "\"{name}\" {value} is not a similarity (within [0, 1])"
        ))
    }
}

/// JSON Lines: every non-empty line an object with `a`, `b` (strings or numbers) and a
/// numeric `jaccard`; `estimate` is optional.
pub fn parse_jsonl(text: &str, out: &mut Vec<StoredPair>) -> Result<(), String> {
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |why: &str| format!("line {}: {why}", n + 1);
        let v: Value = serde_json::from_str(line).map_err(|e| bad(&e.to_string()))?;
        let id = |name: &str| match v.get(name) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        let a = id("a").ok_or_else(|| bad("no \"a\" (string or number)"))?;
        let b = id("b").ok_or_else(|| bad("no \"b\" (string or number)"))?;
        let jaccard = v
            .get("jaccard")
            .and_then(Value::as_f64)
            .ok_or_else(|| bad("no numeric \"jaccard\""))?;
        let jaccard = similarity("jaccard", jaccard).map_err(|e| bad(&e))?;
        let estimate = match v.get("estimate").and_then(Value::as_f64) {
            Some(e) => Some(similarity("estimate", e).map_err(|e| bad(&e))?),
            None => None,
        };
        out.push(StoredPair {
            a,
            b,
            jaccard,
            estimate,
        });
    }
    Ok(())
}

/// Parquet: columns `a`, `b` (strings or integers), `jaccard` (a float), and `estimate`
/// if present; a null in a required column is an error.
fn read_parquet(file: std::fs::File, out: &mut Vec<StoredPair>) -> Result<(), String> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.build())
        .map_err(|e| format!("not a readable Parquet file: {e}"))?;
    let mut first_row = 0;
    for batch in reader {
        let batch = batch.map_err(|e| format!("cannot read a row group: {e}"))?;
        read_batch(&batch, first_row, out)?;
        first_row += batch.num_rows();
    }
    Ok(())
}

/// The rows of one batch, the first of them row `first_row` of the file (from 0).
fn read_batch(
    batch: &RecordBatch,
    first_row: usize,
    out: &mut Vec<StoredPair>,
) -> Result<(), String> {
    let column = |name: &str| -> Result<&ArrayRef, String> {
        batch
            .column_by_name(name)
            .ok_or_else(|| format!("no column `{name}` (a pairs file has a, b, jaccard, estimate)"))
    };
    let (a, b, j) = (column("a")?, column("b")?, column("jaccard")?);
    let estimate = batch.column_by_name("estimate");
    for row in 0..batch.num_rows() {
        let at = first_row + row;
        let bad = |e: String| format!("{e} at row {at}");
        let jaccard = float(j, row).ok_or_else(|| bad("`jaccard` null or not a number".into()))?;
        let jaccard = similarity("jaccard", jaccard).map_err(bad)?;
        let estimate = match estimate.and_then(|e| float(e, row)) {
            Some(e) => Some(similarity("estimate", e).map_err(bad)?),
            None => None,
        };
        out.push(StoredPair {
            a: id(a, row).ok_or_else(|| bad("`a` null or not an id".into()))?,
            b: id(b, row).ok_or_else(|| bad("`b` null or not an id".into()))?,
            jaccard,
            estimate,
        });
    }
    Ok(())
}

/// A string or integer cell as an id; None for a null or another type.
fn id(col: &ArrayRef, row: usize) -> Option<String> {
    if col.is_null(row) {
        return None;
    }
    Some(match col.data_type() {
        DataType::Utf8 => col.as_string::<i32>().value(row).to_string(),
        DataType::LargeUtf8 => col.as_string::<i64>().value(row).to_string(),
        DataType::Utf8View => col.as_string_view().value(row).to_string(),
        DataType::Int32 => col.as_primitive::<Int32Type>().value(row).to_string(),
        DataType::Int64 => col.as_primitive::<Int64Type>().value(row).to_string(),
        DataType::UInt32 => col.as_primitive::<UInt32Type>().value(row).to_string(),
        DataType::UInt64 => col.as_primitive::<UInt64Type>().value(row).to_string(),
        _ => return None,
    })
}

/// A float cell; None for a null or another type.
fn float(col: &ArrayRef, row: usize) -> Option<f64> {
    if col.is_null(row) {
        return None;
    }
    match col.data_type() {
        DataType::Float64 => Some(col.as_primitive::<Float64Type>().value(row)),
        DataType::Float32 => Some(f64::from(col.as_primitive::<Float32Type>().value(row))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lines_as_pairs_writes_them() {
        let mut out = Vec::new();
        let text = "{\"a\":\"x.txt\",\"b\":\"y.txt\",\"estimate\":0.5,\"jaccard\":0.75}\n\n{\"a\":1,\"b\":2,\"jaccard\":1}\n";
        parse_jsonl(text, &mut out).unwrap();
        assert_eq!(
            out,
            vec![
                StoredPair {
                    a: "x.txt".into(),
                    b: "y.txt".into(),
                    jaccard: 0.75,
                    estimate: Some(0.5)
                },
                StoredPair {
                    a: "1".into(),
                    b: "2".into(),
                    jaccard: 1.0,
                    estimate: None
                },
            ]
        );
    }

    #[test]
    fn a_bad_line_is_named() {
        let mut out = Vec::new();
        let e = parse_jsonl(
            "{\"a\":\"x\",\"b\":\"y\",\"jaccard\":0.5}\n{\"a\":\"x\"}\n",
            &mut out,
        )
        .unwrap_err();
        assert!(e.starts_with("line 2: no \"b\""), "{e}");
        let e = parse_jsonl("not json\n", &mut out).unwrap_err();
        assert!(e.starts_with("line 1:"), "{e}");
    }

    #[test]
    fn a_folder_of_parts_is_read_in_name_order_and_an_empty_one_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("_SUCCESS"), "").unwrap();
        std::fs::write(dir.path().join(".part-0.crc"), "junk").unwrap();
        std::fs::write(
            dir.path().join("part-1"),
            "{\"a\":\"c\",\"b\":\"d\",\"jaccard\":0.5}\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("part-0"),
            "{\"a\":\"a\",\"b\":\"b\",\"jaccard\":0.9}\n",
        )
        .unwrap();
        let pairs = read(dir.path()).unwrap();
        let ids: Vec<&str> = pairs.iter().map(|p| p.a.as_str()).collect();
        assert_eq!(ids, ["a", "c"]);
        let empty = tempfile::tempdir().unwrap();
        assert!(read(empty.path()).unwrap_err().contains("no data file"));
        assert!(
            read(Path::new("/no/such/pairs"))
                .unwrap_err()
                .contains("cannot read")
        );
    }
}
