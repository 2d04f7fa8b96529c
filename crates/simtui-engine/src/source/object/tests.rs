use super::*;

fn url(s: &str) -> ObjectUrl {
    ObjectUrl::parse(Path::new(s)).unwrap()
}

#[test]
fn urls_of_every_scheme_are_taken_apart() {
    let u = url("s3://bucket/a/b/");
    assert_eq!(
        (u.scheme.as_str(), u.bucket.as_str(), u.key.as_str()),
        ("s3", "bucket", "a/b")
    );
    assert!(u.folder);
    let u = url("gs://bucket/shard.jsonl.gz");
    assert_eq!((u.key.as_str(), u.folder), ("shard.jsonl.gz", false));
    let u = url("az://container");
    assert_eq!(
        (u.bucket.as_str(), u.key.as_str(), u.folder),
        ("container", "", true)
    );
    let u = url("https://example.org:8443/data/x.parquet");
    assert_eq!(
        (u.bucket.as_str(), u.key.as_str()),
        ("example.org:8443", "data/x.parquet")
    );
    assert_eq!(u.to_string(), "https://example.org:8443/data/x.parquet");
    assert_eq!(url("s3://b/a/b/").to_string(), "s3://b/a/b/");
    assert_eq!(url("s3://b/a/x.txt").parent().to_string(), "s3://b/a/");
    assert_eq!(
        url("s3://b/a/").join("x/y.txt").to_string(),
        "s3://b/a/x/y.txt"
    );
    assert_eq!(url("s3://b/a/x.txt").name(), "x.txt");
}

#[test]
fn local_paths_and_other_schemes_are_no_urls() {
    for s in [
        "data/",
        "/tmp/x.jsonl",
        "ftp://host/x",
        "s3:/b/x",
        "s3:///x",
        "file.txt",
    ] {
        assert!(!is_url(Path::new(s)), "{s}");
    }
}

#[test]
fn prefixes_compare_by_whole_segments() {
    let input = url("s3://b/corpus/");
    assert_eq!(url("s3://b/corpus").relation(&input), Some(Relation::Same));
    assert_eq!(
        url("s3://b/corpus/out/").relation(&input),
        Some(Relation::Inside)
    );
    assert_eq!(url("s3://b/").relation(&input), Some(Relation::Contains));
    assert_eq!(url("s3://b/corpus2/").relation(&input), None);
    assert_eq!(url("s3://other/corpus/").relation(&input), None);
    assert_eq!(url("gs://b/corpus/").relation(&input), None);
}

/// A reader waits for the file it opens, not for the others; a failed fetch reaches its
/// reader and the barrier after the read stage as an error; a path of no copy never
/// waits.
#[cfg(feature = "object-store")]
#[test]
fn a_reader_waits_for_its_object_alone() {
    use std::sync::Arc;
    use std::sync::mpsc;
    use std::time::Duration;
    let copies = Arc::new(arrivals::Arrivals::default());
    let (a, b, c) = (
        PathBuf::from("/c/a"),
        PathBuf::from("/c/b"),
        PathBuf::from("/c/c"),
    );
    copies.expect([a.clone(), b.clone(), c.clone()]);
    assert!(copies.ready(Path::new("/local.txt")).is_ok());
    let (tx, rx) = mpsc::channel();
    let waiting = {
        let (a, copies) = (a.clone(), Arc::clone(&copies));
        std::thread::spawn(move || tx.send(copies.ready(&a).is_ok()).unwrap())
    };
    copies.arrived(&b);
    assert!(copies.ready(&b).is_ok(), "b arrived: no wait");
    assert!(
        rx.recv_timeout(Duration::from_millis(200)).is_err(),
        "a has not arrived: its reader waits"
    );
    copies.arrived(&a);
    assert!(rx.recv_timeout(Duration::from_secs(10)).unwrap());
    waiting.join().unwrap();
    copies.failed(&c, "s3://b/c".to_string(), "connection reset".to_string());
    let err = copies.ready(&c).unwrap_err().to_string();
    assert!(
        err.contains("s3://b/c") && err.contains("connection reset"),
        "{err}"
    );
    let err = copies.settled().unwrap_err().to_string();
    assert!(err.contains("connection reset"), "{err}");
    let fresh = arrivals::Arrivals::default();
    fresh.expect([a.clone()]);
    fresh.forget();
    assert!(
        fresh.ready(&a).is_err(),
        "a copy removed: its reader is told"
    );
}

/// Parts of an object are fetched as it was listed: ranges of the listed version come
/// back (near ones fetched together), and an object replaced since it was listed fails
/// instead of giving parts of two versions.
#[cfg(feature = "object-store")]
#[test]
fn parts_of_a_replaced_object_are_refused() {
    use object_store::{ObjectStore, PutPayload, memory::InMemory, path::Path as Key};
    let store = InMemory::new();
    let key = Key::from("data/part.parquet");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        let first: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
        store
            .put(&key, PutPayload::from(first.clone()))
            .await
            .unwrap();
        let listed = store.head(&key).await.unwrap();
        let ranges = [10..20u64, 30..40, 3000..3100];
        let parts = ranged::listed_ranges(&store, &listed, &ranges)
            .await
            .unwrap();
        for (r, part) in ranges.iter().zip(&parts) {
            assert_eq!(&part[..], &first[r.start as usize..r.end as usize]);
        }
        store
            .put(&key, PutPayload::from(vec![7u8; 4096]))
            .await
            .unwrap();
        let err = ranged::listed_ranges(&store, &listed, &ranges).await;
        assert!(
            matches!(err, Err(object_store::Error::Precondition { .. })),
            "{err:?}"
        );
    });
}
