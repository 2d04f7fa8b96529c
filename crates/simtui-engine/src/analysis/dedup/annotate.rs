//! Annotation instead of removal (`dedup --annotate`): every record written again with
//! where it stands (its cluster, the cluster's size, whether deduplication keeps it, its
//! exact Jaccard similarity to the document kept), for pipelines that filter later.
//! JSON Lines records gain four fields (every other byte as it was); Parquet files four
//! columns ([`crate::source::parquet`]).

use super::Removal;
use crate::analysis::cluster::Cluster;
use crate::error::{Error, Result};
use crate::index::Index;
use crate::source::Source;
use crate::source::container::Kind;
use serde::de::IgnoredAny;
use std::collections::{HashMap, HashSet};
use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};

/// The names of the fields (JSON Lines) or columns (Parquet) an annotation adds, in order.
pub const FIELDS: [&str; 4] = ["cluster", "cluster_size", "kept", "jaccard_to_kept"];

/// Where a document stands after deduplication.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Annotation {
    /// Its cluster, from 1 in the clusters' order (as `clusters` and the removal list
    /// number them); None for a document with no near-duplicate.
    pub cluster: Option<u32>,
    /// Documents in its cluster (1 for a document alone).
    pub cluster_size: u32,
    /// Whether deduplication keeps it: the document its cluster keeps, one alone, or one
    /// a keep-list saves; false for what `dedup` would remove.
    pub kept: bool,
    /// Exact Jaccard similarity to the document its cluster keeps (1 for that one itself
    /// and for a document alone).
    pub jaccard_to_kept: f64,
}

/// What a record that is no document of the index (skipped as empty or too short, say)
/// or a document without near-duplicates is annotated with.
pub const ALONE: Annotation = Annotation {
    cluster: None,
    cluster_size: 1,
    kept: true,
    jaccard_to_kept: 1.0,
};

/// Each document's annotation (by position in the index's documents), from the
/// clusters and the removals [`super::removals`] made of them: a member that is not
/// removed (a keep-list saved it) is kept, with its similarity to the cluster's kept one.
pub fn annotations(index: &Index, clusters: &[Cluster], removals: &[Removal]) -> Vec<Annotation> {
    let mut notes = vec![ALONE; index.docs().len()];
    let removed: HashMap<u32, f64> = removals.iter().map(|r| (r.removed, r.jaccard)).collect();
    for (i, c) in clusters.iter().enumerate() {
        let kept_group = index.docs().group(c.representative as usize);
        let mut by_group: HashMap<u32, f64> = HashMap::new();
        for &d in &c.members {
            let jaccard = if d == c.representative {
                1.0
            } else if let Some(&j) = removed.get(&d) {
                j
            } else {
                let g = index.docs().group(d as usize);
                *by_group
                    .entry(g)
                    .or_insert_with(|| index.group_similarity(kept_group, g).0)
            };
            notes[d as usize] = Annotation {
                cluster: Some(i as u32 + 1),
                cluster_size: c.members.len() as u32,
                kept: !removed.contains_key(&d),
                jaccard_to_kept: jaccard,
            };
        }
    }
    notes
}

/// The annotations of the records of one file, by the record's place: a JSON Lines
/// record's byte offset, a Parquet row's (row group, row in it).
pub(crate) type FileNotes = HashMap<(u64, u64), Annotation>;

/// The annotations of every file of records, by the file's path, and the files of the
/// index that are no file of records (plain files, SGML): `--annotate` cannot write those.
pub(crate) fn by_file(
    index: &Index,
    notes: &[Annotation],
) -> (HashMap<PathBuf, (Kind, FileNotes)>, HashSet<PathBuf>) {
    let mut files = HashMap::<PathBuf, (Kind, FileNotes)>::new();
    let mut others = HashSet::new();
    for (d, note) in index.docs().iter().zip(notes) {
        match &d.source {
            Source::Part(p) if p.file.kind != Kind::Sgml => {
                let place = match p.file.kind {
                    Kind::Parquet => (p.offset, p.len),
                    _ => (p.offset, 0),
                };
                if !files.contains_key(&p.file.path) {
                    files.insert(p.file.path.clone(), (p.file.kind, FileNotes::new()));
                }
                let file = files.get_mut(&p.file.path).expect("inserted above");
                file.1.insert(place, *note);
            }
            other => {
                others.extend(other.path().map(Path::to_path_buf));
            }
        }
    }
    (files, others)
}

/// A JSON Lines record with its annotation added before the object's closing brace:
/// `{"text": "…", "cluster": 3, "cluster_size": 2, "kept": false, "jaccard_to_kept":
/// 0.91}`. A line that is no JSON object (blank, or one the index skipped as bad) is
/// given back as it was; a record that has one of [`FIELDS`] already is an error (it
/// would hold the name twice).
fn annotate_line(
    line: &[u8],
    note: &Annotation,
    out: &mut Vec<u8>,
) -> std::result::Result<(), String> {
    let end = line
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    let start = line
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(end);
    let body = &line[start..end];
    let object = body.first() == Some(&b'{') && body.last() == Some(&b'}');
    // The top-level names only: the values are checked as JSON but not built.
    let Some(fields) = object
        .then(|| serde_json::from_slice::<HashMap<String, IgnoredAny>>(body).ok())
        .flatten()
    else {
        out.extend_from_slice(line);
        return Ok(());
    };
    if let Some(name) = FIELDS.iter().find(|f| fields.contains_key(**f)) {
        return Err(format!(
            "the record has a field \"{name}\" already: --annotate would write it twice"
        ));
    }
    let close = start + body.len() - 1;
    out.extend_from_slice(&line[..close]);
    if !fields.is_empty() {
        out.push(b',');
    }
    let cluster = note.cluster.map_or("null".to_string(), |c| c.to_string());
    let jaccard = serde_json::Value::from(note.jaccard_to_kept);
    out.extend_from_slice(
        format!(
            "\"cluster\":{cluster},\"cluster_size\":{},\"kept\":{},\"jaccard_to_kept\":{jaccard}",
            note.cluster_size, note.kept
        )
        .as_bytes(),
    );
    out.extend_from_slice(&line[close..]);
    Ok(())
}

/// A reader of a JSON Lines stream with every record annotated: the record at a byte
/// offset of `notes` with its note, every other object (a record the index skipped) as
/// [`ALONE`].
pub(crate) struct Annotating<'a, R> {
    inner: R,
    notes: &'a FileNotes,
    /// Offset of the next line in the stream, and its number (from 1).
    pos: u64,
    line_no: u64,
    line: Vec<u8>,
    out: Vec<u8>,
    served: usize,
}

impl<'a, R: BufRead> Annotating<'a, R> {
    pub(crate) fn new(inner: R, notes: &'a FileNotes) -> Self {
        Annotating {
            inner,
            notes,
            pos: 0,
            line_no: 0,
            line: Vec::new(),
            out: Vec::new(),
            served: 0,
        }
    }
}

impl<R: BufRead> Read for Annotating<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.served == self.out.len() {
            self.line.clear();
            self.out.clear();
            self.served = 0;
            let n = self.inner.read_until(b'\n', &mut self.line)?;
            if n == 0 {
                return Ok(0);
            }
            self.line_no += 1;
            let note = self.notes.get(&(self.pos, 0)).unwrap_or(&ALONE);
            self.pos += n as u64;
            annotate_line(&self.line, note, &mut self.out).map_err(|why| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("line {}: {why}", self.line_no),
                )
            })?;
        }
        let n = (self.out.len() - self.served).min(buf.len());
        buf[..n].copy_from_slice(&self.out[self.served..self.served + n]);
        self.served += n;
        Ok(n)
    }
}

/// Writes a file of records annotated: JSON Lines through [`Annotating`] (compressed as
/// it was), Parquet with the columns added.
pub(crate) fn write_file(
    kind: Kind,
    input: &Path,
    target: &Path,
    notes: &FileNotes,
    progress: &dyn crate::progress::Progress,
) -> Result<()> {
    if kind == Kind::Parquet {
        let note = |g: u64, row: u64| {
            let n = notes.get(&(g, row)).unwrap_or(&ALONE);
            (n.cluster, n.cluster_size, n.kept, n.jaccard_to_kept)
        };
        return crate::source::parquet::write_annotated(input, target, &FIELDS, &note, progress);
    }
    super::rewrite_stream(input, target, |reader| {
        Annotating::new(io::BufReader::with_capacity(256 << 10, reader), notes)
    })
}

/// The error of an input that `--annotate` cannot write fields into.
pub(crate) fn cannot_annotate(path: &Path) -> Error {
    Error::Output(format!(
        "{}: --annotate writes fields into records, of JSON Lines or Parquet files; this \
         is a document of its own (a plain file or an SGML article). `simtui clusters \
         --format jsonl` lists every document's cluster instead",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn annotated(line: &str, note: &Annotation) -> std::result::Result<String, String> {
        let mut out = Vec::new();
        annotate_line(line.as_bytes(), note, &mut out)?;
        Ok(String::from_utf8(out).unwrap())
    }

    const REMOVED: Annotation = Annotation {
        cluster: Some(3),
        cluster_size: 2,
        kept: false,
        jaccard_to_kept: 0.875,
    };

    #[test]
    fn a_record_gains_four_fields_and_keeps_every_other_byte() {
        assert_eq!(
            annotated("{\"id\": 7, \"text\": \"a }\"}  \r\n", &REMOVED).unwrap(),
            "{\"id\": 7, \"text\": \"a }\",\"cluster\":3,\"cluster_size\":2,\"kept\":false,\
             \"jaccard_to_kept\":0.875}  \r\n"
        );
        assert_eq!(
            annotated("{}\n", &ALONE).unwrap(),
            "{\"cluster\":null,\"cluster_size\":1,\"kept\":true,\"jaccard_to_kept\":1.0}\n"
        );
        // The result is JSON with the values given.
        let v: serde_json::Value =
            serde_json::from_str(&annotated("{\"text\":\"x\"}", &REMOVED).unwrap()).unwrap();
        assert_eq!(v["cluster"], 3);
        assert_eq!(v["kept"], false);
        assert_eq!(v["jaccard_to_kept"], 0.875);
    }

    #[test]
    fn lines_that_are_no_object_stay_and_a_field_twice_is_an_error() {
        for line in ["\n", "not json\n", "[1, 2]\n", "{\"broken\": \n"] {
            assert_eq!(annotated(line, &REMOVED).unwrap(), line);
        }
        let err = annotated("{\"text\":\"x\",\"kept\":1}\n", &REMOVED).unwrap_err();
        assert!(err.contains("\"kept\" already"), "{err}");
    }

    #[test]
    fn the_reader_annotates_each_record_by_its_offset() {
        let text = "{\"text\":\"a\"}\n\n{\"text\":\"b\"}\n{\"text\":\"\"}";
        let mut notes = FileNotes::new();
        notes.insert((14, 0), REMOVED);
        let mut out = String::new();
        Annotating::new(text.as_bytes(), &notes)
            .read_to_string(&mut out)
            .unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[0].contains("\"cluster\":null"), "{}", lines[0]);
        assert_eq!(lines[1], "");
        assert!(lines[2].contains("\"cluster\":3"), "{}", lines[2]);
        assert!(lines[3].contains("\"kept\":true"), "{}", lines[3]);
        // A clash names its line.
        let mut err = String::new();
        let e = Annotating::new("{}\n{\"cluster\":1}\n".as_bytes(), &notes)
            .read_to_string(&mut err)
            .unwrap_err();
        assert!(e.to_string().starts_with("line 2:"), "{e}");
    }
}
