//! Writing an index file in the format [`format`](super::format) describes: the header,
//! the string table, the file and document records, then each group's content hash,
//! shingle set and signature, and the checksum.

use super::format::{
    DOC_RECORD, DocOut, FILE_RECORD, FileRec, HEADER, MAGIC, TRAILER, VERSION, encode_meta, pad8,
    path_bytes, skip_code,
};
use crate::index::Params;
use crate::shingle::ShingleSets;
use crate::sketch::{Signatures, SketchKind};
use crate::text::{Language, Unit};
use xxhash_rust::xxh3::xxh3_64;

/// Appends a little-endian u32.
fn put32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Appends a little-endian u64.
fn put64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Pads with zeros to a multiple of 8 bytes.
fn pad(out: &mut Vec<u8>) {
    out.resize(pad8(out.len() as u64) as usize, 0);
}

/// The bytes of an index file; an error when a shingle set or the signatures cannot be
/// read back.
pub(crate) fn encode(
    params: &Params,
    files: &[FileRec],
    docs: &[DocOut],
    contents: &[u64],
    shingles: &ShingleSets,
    signatures: &Signatures,
) -> crate::error::Result<Vec<u8>> {
    let groups = shingles.len();
    debug_assert_eq!(contents.len(), groups);
    let width = signatures.width();
    debug_assert!(width == 0 || signatures.len() == groups);
    let sig_words = if width == 0 { 0 } else { groups * width };
    let (strings, file_at, doc_at) = string_table(files, docs);
    let size = HEADER
        + pad8(strings.len() as u64)
        + files.len() as u64 * FILE_RECORD
        + docs.len() as u64 * DOC_RECORD
        + groups as u64 * 8
        + pad8(groups as u64 * 4)
        + shingles.total() as u64 * 8
        + pad8(sig_words as u64 * 4)
        + TRAILER;
    let mut out = Vec::with_capacity(size as usize);
    let counts = [
        files.len(),
        docs.len(),
        groups,
        shingles.total(),
        strings.len(),
    ];
    put_header(&mut out, params, width, size, counts);
    out.extend_from_slice(&strings);
    pad(&mut out);
    put_files(&mut out, files, &file_at);
    put_docs(&mut out, docs, &doc_at);
    for &c in contents {
        put64(&mut out, c);
    }
    for g in 0..groups {
        put32(&mut out, shingles.set_len(g) as u32);
    }
    pad(&mut out);
    for g in 0..groups {
        for &x in shingles.get(g)?.iter() {
            put64(&mut out, x);
        }
    }
    for &v in &signatures.data()?[..sig_words] {
        put32(&mut out, v);
    }
    pad(&mut out);
    let sum = xxh3_64(&out);
    put64(&mut out, sum);
    debug_assert_eq!(out.len() as u64, size);
    Ok(out)
}

/// The string table: each file's path then its detail, then each document's id, title
/// and metadata; with where each file's strings start, and each document's start and
/// metadata length.
fn string_table(files: &[FileRec], docs: &[DocOut]) -> (Vec<u8>, Vec<u64>, Vec<u64>) {
    let mut strings = Vec::new();
    let mut file_at = Vec::with_capacity(files.len());
    for f in files {
        file_at.push(strings.len() as u64);
        let p = path_bytes(&f.path);
        strings.extend_from_slice(&p);
        strings.extend_from_slice(f.detail.as_bytes());
    }
    let mut doc_at = Vec::with_capacity(docs.len());
    for d in docs {
        doc_at.push(strings.len() as u64);
        strings.extend_from_slice(d.id.as_bytes());
        strings.extend_from_slice(d.title.as_bytes());
        let before = strings.len();
        encode_meta(d.meta, &mut strings);
        doc_at.push((strings.len() - before) as u64);
    }
    (strings, file_at, doc_at)
}

/// The fixed header: magic, version, sizes, parameters, counts.
fn put_header(out: &mut Vec<u8>, params: &Params, width: usize, size: u64, counts: [usize; 5]) {
    out.extend_from_slice(&MAGIC);
    put32(out, VERSION);
    put32(out, HEADER as u32);
    put64(out, size);
    out.push((params.text.unit == Unit::Char) as u8);
    out.push(params.text.keep_case as u8);
    out.push(params.text.stopwords.map_or(0, Language::code));
    out.push((params.sketch == SketchKind::Oph) as u8);
    put32(out, params.k as u32);
    put64(out, params.seed);
    put32(out, width as u32);
    put32(out, params.min_words.min(u32::MAX as u64) as u32);
    put64(out, params.max_bytes);
    for n in counts {
        put64(out, n as u64);
    }
    out.push(params.text.stem.map_or(0, Language::code));
    out.push(params.text.letters_only as u8);
    out.extend_from_slice(&[0; 6]);
    debug_assert_eq!(out.len() as u64, HEADER);
}

/// The file records, `file_at` where each one's strings start.
fn put_files(out: &mut Vec<u8>, files: &[FileRec], file_at: &[u64]) {
    for (f, &at) in files.iter().zip(file_at) {
        put64(out, at);
        put32(out, path_bytes(&f.path).len() as u32);
        put32(out, f.detail.len() as u32);
        let st = f.stamp.unwrap_or_default();
        put64(out, st.size);
        out.extend_from_slice(&st.secs.to_le_bytes());
        put32(out, st.nanos);
        out.push(skip_code(f.status));
        out.push(f.stamp.is_some() as u8 | (f.hash.is_some() as u8) << 1);
        out.extend_from_slice(&[0, 0]);
        put64(out, f.hash.unwrap_or(0));
        put32(out, f.docs);
        put32(out, st.ctime_nanos);
        out.extend_from_slice(&st.ctime_secs.to_le_bytes());
        put64(out, st.inode);
        put64(out, 0);
    }
}

/// The document records, `doc_at` each one's strings' start and metadata length.
fn put_docs(out: &mut Vec<u8>, docs: &[DocOut], doc_at: &[u64]) {
    for (d, at) in docs.iter().zip(doc_at.chunks_exact(2)) {
        put64(out, at[0]);
        put32(out, d.id.len() as u32);
        put32(out, d.group);
        put64(out, d.bytes);
        put64(out, d.tokens);
        put64(out, d.part.offset);
        put64(out, d.part.len);
        put64(out, d.part.line);
        put32(out, d.title.len() as u32);
        put32(out, at[1] as u32);
    }
}
