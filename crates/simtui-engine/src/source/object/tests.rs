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
