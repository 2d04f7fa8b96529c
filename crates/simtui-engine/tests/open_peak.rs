//! The heap a saved index takes to open, counted by a global allocator: the documents'
//! ids and titles read from the file are moved into the index, not copied (a copy held
//! both at once, the largest part of opening a saved index of many small files).
//!
//! Alone in its test binary, its tests one at a time: the counter sees every allocation
//! of the process.

use simtui_engine::Silent;
use simtui_engine::index::Params;
use simtui_engine::source::WalkOptions;
use simtui_engine::storage::Budget;
use simtui_engine::store::{self, Mode, Request};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system's allocator, counting the bytes held and their peak.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn count(grow: usize, shrink: usize) {
    let now = HELD.fetch_add(grow, Ordering::Relaxed) + grow;
    PEAK.fetch_max(now, Ordering::Relaxed);
    HELD.fetch_sub(shrink, Ordering::Relaxed);
}

// SAFETY: every call is passed on to the system's allocator unchanged; the counts are
// all this adds (unsafe because GlobalAlloc is: the only way to see every allocation).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            count(layout.size(), 0);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        count(0, layout.size());
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            count(new_size, layout.size());
        }
        p
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Held by each test while it counts.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The heap `f` took at its peak above what was held before it, and its result.
fn peak_of<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = HELD.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = f();
    (PEAK.load(Ordering::Relaxed) - before, out)
}

#[test]
fn opening_a_saved_index_moves_its_documents_in() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let (_dir, request) = titled_files(3000);
    store::open(&request(Mode::Create), &Silent).unwrap();
    let unlimited = Request {
        budget: Budget::unlimited(),
        ..request(Mode::Open)
    };
    let before = HELD.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let opened = store::open(&unlimited, &Silent).unwrap();
    assert_eq!(opened.report.unchanged, 3000);
    let peak = PEAK.load(Ordering::Relaxed) - before;
    let held = HELD.load(Ordering::Relaxed) - before;
    // What stays (the index and the walk) and, at the peak, the saved records, the
    // decoder's buffers and the walk's: 2.3 x the ids' and titles' bytes above what
    // stays; a copy of the ids and titles made it 3.1 x.
    let labels = opened.index.held_by_part()[1].1 as usize;
    assert!(labels > 600_000, "{labels}");
    assert!(
        peak < held + labels * 27 / 10,
        "peak {peak} bytes, {held} held after opening, {labels} of ids and titles"
    );
    // Past the limit the documents wait on a temporary file as they are made: their
    // titles are not held once the index is open.
    let opened = store::open(&request(Mode::Open), &Silent).unwrap();
    assert!(opened.index.docs().on_file());
    let titles = opened.index.held_by_part()[1].1 as usize;
    assert!(
        titles < labels / 5,
        "{titles} bytes of labels held, {labels} in all"
    );
    assert_eq!(
        opened.index.docs().at(7).title(),
        unlimited_title(&unlimited)
    );
}

/// The title of document 7, opened with everything in memory.
fn unlimited_title(req: &Request) -> String {
    let opened = store::open(req, &Silent).unwrap();
    opened.index.docs().at(7).title().to_string()
}

/// `n` files with titles of 200 bytes (the most kept) and short texts, the documents'
/// labels most of the index; and a request for their saved index, in the mode given,
/// with titles (in a folder that goes with the first value).
fn titled_files(n: usize) -> (tempfile::TempDir, impl Fn(Mode) -> Request) {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    std::fs::create_dir(&corpus).unwrap();
    for i in 0..n {
        let title = format!("{i:05} {}", "title ".repeat(40));
        let text = format!("{title}\nword{i} another{} text here\n", i % 7);
        std::fs::write(corpus.join(format!("doc{i:05}.txt")), text).unwrap();
    }
    // Stamps are trusted for files changed more than a moment before an index run.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let (file, budget) = (dir.path().join("c.idx"), dir.path().to_path_buf());
    let request = move |mode| Request {
        file: file.clone(),
        roots: vec![corpus.clone()],
        walk: WalkOptions::default(),
        params: Params::default(),
        mode,
        budget: Budget::new(0, Some(budget.clone())),
        titles: true,
    };
    (dir, request)
}

/// A caller that prints no titles (`pairs`) opens a saved index without them: they are
/// checked and left in the file, so its peak is lower by nearly all of their bytes.
#[test]
fn opening_without_titles_decodes_none() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let (_dir, request) = titled_files(3000);
    store::open_index(&request(Mode::Create), &Silent).unwrap();
    let open = |titles| {
        let req = Request {
            titles,
            budget: Budget::unlimited(),
            ..request(Mode::Open)
        };
        let (peak, opened) = peak_of(|| store::open_index(&req, &Silent).unwrap());
        assert_eq!(opened.report.unchanged, 3000);
        assert!(!opened.report.written);
        let first = opened.index.docs().at(0).title().to_string();
        assert_eq!(first.is_empty(), !titles, "{first:?}");
        peak
    };
    let (with, without) = (open(true), open(false));
    // 3,000 titles of 246 bytes.
    let titles = 3000 * 246;
    assert!(
        without + titles * 8 / 10 < with,
        "peak {without} bytes without titles, {with} with them"
    );
}

/// Writing a new saved index of many small files past the limit (its sets, signatures
/// and documents on temporary files) holds each path and id about once, and its records
/// of files not beside the index: the walk's entries move into the index, and the table
/// of files waits on a temporary file while the index is built and written. Measured per
/// document between two corpora (what every run holds whatever its size left out).
#[test]
fn writing_a_saved_index_holds_each_path_once() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let per_doc = per_document(peak_writing);
    // 170 bytes here: the walk and the table made of it, before the build. 402 with the
    // table held to the write beside the index's record of each document (410 while a
    // row of the table was 8 bytes larger); 506 when measured first; 586 with a
    // document's empty title and metadata held inline (48 bytes) and a copy of each path
    // for the file's record. A copy of the walk while the index was built, and two paths
    // a file, made it 1,189.
    assert!(per_doc < 250, "{per_doc} bytes a document at the peak");
}

/// Opening a saved index of many small files, none changed (what `pairs --index` does
/// each time), holds each document's saved record and its record in the index about
/// once: the saved records are cut off as the index takes them, the saved file records
/// are taken into the list of files as they are decoded, not held, the list of files is not doubled as it grows, a path is
/// one allocation shared by the walk's entry, the list of files, the file's record and its
/// documents, and the saved files are found by a sorted list of path hashes, not a map.
/// Measured per document between two corpora, as above.
#[test]
fn opening_a_saved_index_holds_each_document_about_once() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let per_doc = per_document(peak_opening);
    // 538 bytes here (the table of files, a plain file's id taken into it from the walk's
    // list as it is made, the list let go of as it goes, and the table itself, turned
    // round, cut from its end as the documents are made when its records are the saved
    // ones; each shrink counts here as a copy, which glibc's realloc does not make); 626
    // with the table let go of a quarter at a time; 655-671 with the walk's entries and
    // the table held side by side, the table to the end; 976 with the
    // saved file records and their strings decoded whole before the files were planned;
    // 1,019 with a map of the saved paths, 1,143 with the documents' and saved records' titles and metadata inline
    // (48 and 40 bytes); 1,239 when the list of files
    // copied every path from the walk's entries and held it to the end; 1,407 when the saved records
    // and the index's documents were both held whole, with two vectors of file records
    // and a list of files grown by doubling.
    assert!(per_doc < 590, "{per_doc} bytes a document at the peak");
}

/// The heap a document of `peak(n)` (the peak of a run on `n` files), between two sizes
/// past the fixed buffers of writing (a block of sets of up to 4 MiB, the output's
/// buffer): between 2,000 and 6,000 files they still grow with the file and would count
/// as per document.
fn per_document(peak: fn(usize) -> usize) -> usize {
    let (small, large) = (12_000, 20_000);
    let per_doc = (peak(large) - peak(small)) / (large - small);
    eprintln!("{per_doc} bytes a document at the peak");
    per_doc
}

/// The peak heap of `simtui index` on `n` one-line files of paths of ~100 bytes.
fn peak_writing(n: usize) -> usize {
    let (dir, request) = small_files(n);
    let (peak, opened) = peak_of(|| store::open_index(&request, &Silent).unwrap());
    assert_eq!(opened.index.docs().len(), n);
    drop(dir);
    peak
}

/// The peak heap of opening the saved index of [`peak_writing`]'s files, unchanged.
fn peak_opening(n: usize) -> usize {
    let (dir, mut request) = small_files(n);
    store::open_index(&request, &Silent).unwrap();
    request.mode = Mode::Open;
    let (peak, opened) = peak_of(|| store::open_index(&request, &Silent).unwrap());
    assert_eq!(opened.report.unchanged, n);
    drop(dir);
    peak
}

/// `n` one-line files of paths of ~100 bytes, and a request to index them (in a folder
/// that goes with the first value).
fn small_files(n: usize) -> (tempfile::TempDir, Request) {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c");
    let folder = corpus.join("a-folder-of-documents/with-a-longer-name/and-one-more-level");
    std::fs::create_dir_all(&folder).unwrap();
    for i in 0..n {
        let text = format!("word{i} another{} text here\n", i % 7);
        std::fs::write(folder.join(format!("document-{i:05}.txt")), text).unwrap();
    }
    // Stamps are trusted for files changed more than a moment before an index run.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let request = Request {
        file: dir.path().join("c.idx"),
        roots: vec![corpus.clone()],
        walk: WalkOptions::default(),
        params: Params::default(),
        mode: Mode::Create,
        budget: Budget::new(0, Some(dir.path().to_path_buf())),
        titles: true,
    };
    (dir, request)
}
