//! The transfers: objects listed and fetched into a local copy (in the background,
//! while the corpus is read: `arrivals.rs`), files uploaded, through
//! the `object_store` crate on one small tokio runtime that lives here alone (the rest
//! of the engine never sees a future).
//!
//! Stores are configured from the environment as the providers' own tools read it:
//! `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT_URL`,
//! `AWS_ALLOW_HTTP`...; `GOOGLE_SERVICE_ACCOUNT`...; `AZURE_STORAGE_ACCOUNT_NAME`,
//! `AZURE_STORAGE_ACCOUNT_KEY`...

use super::{ObjectUrl, arrivals, object_error, ranged};
use crate::error::{Error, Result};
use crate::source::container::InputOptions;
use futures::{StreamExt, TryStreamExt};
use object_store::path::Path as Key;
use object_store::{ObjectMeta, ObjectStore, RetryConfig, WriteMultipart};
use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};
use std::time::{Duration, SystemTime};
use tempfile::TempDir;

/// Objects fetched at once: an object store answers each request after a latency that
/// one GET at a time would add up.
const IN_FLIGHT: usize = 16;
/// The part size of an upload (S3 takes parts of 5 MiB or more but the last).
const PART: usize = 16 << 20;
/// What [`objects`] says of a URL with no object at it nor under it.
const NOTHING: &str = "no object there nor under it";
/// Parts uploaded at once.
const PARTS_IN_FLIGHT: usize = 4;

/// A URL fetched: where its copy is, the folder that holds the copy, and how its files
/// are read (what of a Parquet object was fetched depends on it).
struct Staged {
    url: PathBuf,
    local: PathBuf,
    input: InputOptions,
    _dir: TempDir,
}

/// The URLs fetched by this process.
static STAGED: Mutex<Vec<Staged>> = Mutex::new(Vec::new());

/// A file of a local copy that holds only parts of its object (a Parquet object's
/// footer and the column chunks read): where to fetch the rest from, and what it holds.
struct Partial {
    store: Arc<dyn ObjectStore>,
    url: ObjectUrl,
    meta: ObjectMeta,
    held: Vec<Range<u64>>,
}

/// The files of local copies that hold parts of their objects.
static PARTIAL: LazyLock<Mutex<HashMap<PathBuf, Partial>>> = LazyLock::new(Mutex::default);

fn partial() -> std::sync::MutexGuard<'static, HashMap<PathBuf, Partial>> {
    PARTIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The one runtime the transfers run on: a current-thread runtime, as every transfer
/// is awaited by the thread that asks for it; its connections are kept between them.
fn runtime() -> Result<&'static tokio::runtime::Runtime> {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    if let Some(rt) = RUNTIME.get() {
        return Ok(rt);
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Output(format!("cannot start the object-store runtime: {e}")))?;
    Ok(RUNTIME.get_or_init(|| rt))
}

/// The store a URL is in, configured from the environment; and the URL's key in it.
fn store(url: &ObjectUrl) -> Result<(Arc<dyn ObjectStore>, Key)> {
    use object_store::{aws, azure, gcp, http};
    // A server that does not answer fails in seconds, not after the default 3 minutes.
    let retry = RetryConfig {
        max_retries: 3,
        retry_timeout: Duration::from_secs(30),
        ..RetryConfig::default()
    };
    let bucket = url.bucket.as_str();
    let built: object_store::Result<Arc<dyn ObjectStore>> = match url.scheme.as_str() {
        "s3" => aws::AmazonS3Builder::from_env()
            .with_bucket_name(bucket)
            .with_retry(retry)
            .build()
            .map(|s| Arc::new(s) as _),
        "gs" => gcp::GoogleCloudStorageBuilder::from_env()
            .with_bucket_name(bucket)
            .with_retry(retry)
            .build()
            .map(|s| Arc::new(s) as _),
        "az" => azure::MicrosoftAzureBuilder::from_env()
            .with_container_name(bucket)
            .with_retry(retry)
            .build()
            .map(|s| Arc::new(s) as _),
        scheme => http::HttpBuilder::new()
            .with_url(format!("{scheme}://{bucket}"))
            // The client refuses plain http unless told: an `http://` URL asks for it.
            .with_client_options(
                object_store::ClientOptions::new().with_allow_http(scheme == "http"),
            )
            .with_retry(retry)
            .build()
            .map(|s| Arc::new(s) as _),
    };
    let store = built.map_err(|e| object_error(url, describe(&e)))?;
    let key = Key::parse(&url.key).map_err(|e| object_error(url, e))?;
    Ok((store, key))
}

/// What went wrong, in the words a user can act on, with the store's own words after.
fn describe(e: &object_store::Error) -> String {
    use object_store::Error as E;
    let text = e.to_string();
    let hint = match e {
        E::NotFound { .. } => "not found",
        E::Precondition { .. } => {
            "replaced while it was read (its parts would mix two versions): run again"
        }
        E::PermissionDenied { .. } | E::Unauthenticated { .. } => {
            "access denied: check the credentials in the environment"
        }
        _ if text.contains("NoSuchBucket") => "no such bucket",
        _ if [
            "InvalidAccessKeyId",
            "SignatureDoesNotMatch",
            "InvalidClientTokenId",
            "403",
        ]
        .iter()
        .any(|w| text.contains(w)) =>
        {
            "access denied: check the credentials in the environment"
        }
        _ => return text,
    };
    format!("{hint} ({text})")
}

/// The objects a URL names: the one object, or every object under its prefix (in key
/// order); an error when there is none.
async fn objects(store: &dyn ObjectStore, url: &ObjectUrl, key: &Key) -> Result<Vec<ObjectMeta>> {
    if !url.folder {
        match store.head(key).await {
            Ok(meta) => return Ok(vec![meta]),
            Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => return Err(object_error(url, describe(&e))),
        }
    }
    let prefix = (!url.key.is_empty()).then_some(key);
    let mut found: Vec<ObjectMeta> = store
        .list(prefix)
        .try_collect()
        .await
        .map_err(|e| object_error(url, describe(&e)))?;
    if found.is_empty() {
        return Err(object_error(url, NOTHING));
    }
    found.sort_by(|a, b| a.location.cmp(&b.location));
    Ok(found)
}

/// The local copy of `path` when it is a URL (fetched on the first call, the same copy
/// after), else `path` itself. `input` says how its files will be read: of a Parquet
/// object, only what its reader reads is fetched.
pub fn local(path: &Path, input: &InputOptions) -> Result<PathBuf> {
    let Some(url) = ObjectUrl::parse(path) else {
        return Ok(path.to_path_buf());
    };
    let mut staged = STAGED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = staged.iter().find(|s| s.url == path) {
        let local = s.local.clone();
        if s.input != *input {
            // Read another way (other columns): every part-fetched file is made whole.
            drop(staged);
            let under: Vec<PathBuf> = partial()
                .keys()
                .filter(|f| f.starts_with(&local))
                .cloned()
                .collect();
            for file in under {
                whole(&file)?;
            }
        }
        return Ok(local);
    }
    let dir = tempfile::Builder::new()
        .prefix("simtui-objects-")
        .tempdir()
        .map_err(|source| Error::TempFile {
            dir: std::env::temp_dir(),
            source,
        })?;
    let local = runtime()?.block_on(fetch(&url, dir.path(), input))?;
    staged.push(Staged {
        url: path.to_path_buf(),
        local: local.clone(),
        input: input.clone(),
        _dir: dir,
    });
    Ok(local)
}

/// The URL a local copy was fetched from (the copy's root, as the URL was given; a file
/// in the copy, its object's URL; `FILE:LINE` of a record, `URL:LINE`), else `path`
/// itself: what the walk names documents by and what messages and outputs show.
pub fn named(path: &Path) -> PathBuf {
    let staged = STAGED.lock().unwrap_or_else(|e| e.into_inner());
    let shown = path.to_string_lossy();
    for s in staged.iter() {
        let Some(rest) = shown.strip_prefix(&*s.local.to_string_lossy()) else {
            continue;
        };
        let url = s.url.to_string_lossy();
        match rest.chars().next() {
            None => return s.url.clone(),
            Some('/') => return format!("{}{rest}", url.trim_end_matches('/')).into(),
            Some(':') => return format!("{url}{rest}").into(),
            Some(_) => {}
        }
    }
    path.to_path_buf()
}

/// Removes the local copies of the URLs read (the process's end removes nothing by
/// itself).
pub fn clear() {
    arrivals::ARRIVALS.forget();
    partial().clear();
    STAGED.lock().unwrap_or_else(|e| e.into_inner()).clear();
}

/// Lays out the objects of `url` in `dir` and starts fetching them in the background,
/// several at a time, in key order: one object as `dir/NAME`, a prefix as the tree
/// `dir/NAME/...` of the keys below it, each file created at its object's size at once
/// and dated as its object was last modified. A reader waits for the file it opens
/// ([`super::ready`]). Returns the copy's root.
async fn fetch(url: &ObjectUrl, dir: &Path, input: &InputOptions) -> Result<PathBuf> {
    let (store, key) = store(url)?;
    let found = objects(store.as_ref(), url, &key).await?;
    let single = found.len() == 1 && found[0].location == key;
    let root = dir.join(url.name());
    let mut targets = Vec::with_capacity(found.len());
    for meta in found {
        let file = if single {
            root.clone()
        } else {
            let rel = meta.location.as_ref();
            let rel = rel.strip_prefix(url.key.as_str()).unwrap_or(rel);
            let mut file = root.clone();
            for segment in rel.split('/').filter(|s| !s.is_empty()) {
                if segment == ".." || segment == "." {
                    return Err(object_error(url, format!("key {rel} is no path")));
                }
                file.push(segment);
            }
            file
        };
        lay_out(&meta, &file)?;
        targets.push((meta, file));
    }
    if !single {
        std::fs::create_dir_all(&root).map_err(|source| Error::File {
            path: root.clone(),
            source,
        })?;
    }
    arrivals::ARRIVALS.expect(targets.iter().map(|(_, file)| file.clone()));
    let owned = url.clone();
    let input = input.clone();
    std::thread::Builder::new()
        .name("simtui-fetch".to_string())
        .spawn(move || fetch_all(store, &owned, &input, targets))
        .map_err(|e| object_error(url, e))?;
    Ok(root)
}

/// The file `file` of an object's copy, created at the object's size (a sparse file:
/// nothing is written yet) and dated as the object.
fn lay_out(meta: &ObjectMeta, file: &Path) -> Result<()> {
    let io = |source| Error::File {
        path: file.to_path_buf(),
        source,
    };
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    let out = File::create_new(file).map_err(io)?;
    out.set_len(meta.size).map_err(io)?;
    out.set_modified(SystemTime::from(meta.last_modified))
        .map_err(io)
}

/// Fetches every object into its file, [`IN_FLIGHT`] at a time, on a runtime of this
/// thread's own (the transfers the other threads ask for go on meanwhile), and says of
/// each that it arrived or why it did not.
fn fetch_all(
    store: Arc<dyn ObjectStore>,
    url: &ObjectUrl,
    input: &InputOptions,
    targets: Vec<(ObjectMeta, PathBuf)>,
) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    let runtime = match runtime {
        Ok(rt) => rt,
        Err(e) => {
            for (_, file) in &targets {
                arrivals::ARRIVALS.failed(file, url.to_string(), format!("cannot fetch: {e}"));
            }
            return;
        }
    };
    runtime.block_on(
        futures::stream::iter(targets)
            .map(|(meta, file)| {
                let store = Arc::clone(&store);
                async move {
                    let fetched = fetch_object(&store, url, input, &meta, &file).await;
                    (file, fetched)
                }
            })
            .buffer_unordered(IN_FLIGHT)
            .for_each(|(file, fetched)| async move {
                match fetched {
                    Ok(()) => arrivals::ARRIVALS.arrived(&file),
                    Err(Error::Object { url, why }) => arrivals::ARRIVALS.failed(&file, url, why),
                    Err(e) => arrivals::ARRIVALS.failed(
                        &file,
                        named(&file).display().to_string(),
                        e.to_string(),
                    ),
                }
            }),
    );
}

/// One object into its laid-out `file`: a Parquet object (as the walk tells one, by
/// `input`) as the parts its reader reads, any other whole.
async fn fetch_object(
    store: &Arc<dyn ObjectStore>,
    url: &ObjectUrl,
    input: &InputOptions,
    meta: &ObjectMeta,
    file: &Path,
) -> Result<()> {
    let this = ObjectUrl {
        key: meta.location.to_string(),
        folder: false,
        ..url.clone()
    };
    #[cfg(feature = "parquet")]
    if input.kind_of(file) == Some(crate::source::container::Kind::Parquet)
        && fetch_parts(store, &this, input, meta, file).await?
    {
        return Ok(());
    }
    #[cfg(not(feature = "parquet"))]
    let _ = input;
    fetch_one(store.as_ref(), &this, meta, file).await
}

/// The parts of a Parquet object its reader reads (its footer, the column chunks of the
/// columns read) into its laid-out `file`, recorded in [`PARTIAL`]. False when the
/// object is to be fetched whole (see [`ranged::plan`]).
#[cfg(feature = "parquet")]
async fn fetch_parts(
    store: &Arc<dyn ObjectStore>,
    this: &ObjectUrl,
    input: &InputOptions,
    meta: &ObjectMeta,
    file: &Path,
) -> Result<bool> {
    let fail = |e: object_store::Error| object_error(this, describe(&e));
    let Some(plan) = ranged::plan(store.as_ref(), meta, file, input)
        .await
        .map_err(fail)?
    else {
        return Ok(false);
    };
    let chunks = ranged::listed_ranges(store.as_ref(), meta, &plan.chunks)
        .await
        .map_err(fail)?;
    let parts = plan
        .chunks
        .iter()
        .zip(&chunks)
        .map(|(r, b)| (r.start, &b[..]));
    let tail = std::iter::once((plan.tail_start, &plan.tail[..]));
    ranged::write_parts(file, parts.chain(tail), meta.last_modified.into())?;
    partial().insert(
        file.to_path_buf(),
        Partial {
            store: Arc::clone(store),
            url: this.clone(),
            meta: meta.clone(),
            held: plan.held(),
        },
    );
    Ok(true)
}

/// Makes `file` (a file about to be read whole: copied, rewritten) its whole object when
/// it is a local copy's file that holds only parts of it: the rest is fetched now. At
/// once for any other file.
pub fn whole(file: &Path) -> Result<()> {
    arrivals::ARRIVALS
        .ready(file)
        .map_err(|source| Error::File {
            path: file.to_path_buf(),
            source,
        })?;
    let Some(p) = partial().remove(file) else {
        return Ok(());
    };
    let missing = ranged::gaps(&p.held, p.meta.size);
    let fetched = runtime()?
        .block_on(ranged::listed_ranges(p.store.as_ref(), &p.meta, &missing))
        .map_err(|e| object_error(&p.url, describe(&e)))?;
    let parts = missing.iter().zip(&fetched).map(|(r, b)| (r.start, &b[..]));
    ranged::write_parts(file, parts, p.meta.last_modified.into())
}

/// One object into its laid-out `file`, streamed as it arrives.
async fn fetch_one(
    store: &dyn ObjectStore,
    this: &ObjectUrl,
    meta: &ObjectMeta,
    file: &Path,
) -> Result<()> {
    let io = ranged::io_error(file);
    let mut out = ranged::laid_out(file)?;
    let mut body = store
        .get(&meta.location)
        .await
        .map_err(|e| object_error(this, describe(&e)))?
        .into_stream();
    let mut written = 0u64;
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| object_error(this, describe(&e)))?;
        out.write_all(&chunk).map_err(io)?;
        written += chunk.len() as u64;
    }
    // The object changed since it was listed: the copy is cut or extended to what came.
    out.set_len(written).map_err(io)?;
    // `--keep oldest|newest` reads a document's date from its file.
    out.set_modified(SystemTime::from(meta.last_modified))
        .map_err(io)
}

/// Whether anything is stored at `url` or under its prefix. Fails when the store cannot
/// be reached or read (no such bucket, credentials refused): what an output checks
/// before any work.
pub fn probe(path: &Path) -> Result<bool> {
    let Some(url) = ObjectUrl::parse(path) else {
        return Ok(path.exists());
    };
    let (store, key) = store(&url)?;
    runtime()?.block_on(async {
        match objects(store.as_ref(), &url, &key).await {
            Ok(_) => Ok(true),
            Err(Error::Object { why, .. }) if why == NOTHING => Ok(false),
            Err(e) => Err(e),
        }
    })
}

/// Uploads the file `local` to `url` in parts: the object appears under its name only
/// when every part is in (a failure aborts the upload and leaves nothing there).
pub fn put_file(local: &Path, url: &Path) -> Result<()> {
    let Some(url) = ObjectUrl::parse(url) else {
        return Err(Error::Output(format!(
            "{}: not an object-store URL",
            url.display()
        )));
    };
    let (store, key) = store(&url)?;
    let file = File::open(local).map_err(|source| Error::File {
        path: local.to_path_buf(),
        source,
    })?;
    runtime()?.block_on(upload(store.as_ref(), &url, &key, file, local))
}

async fn upload(
    store: &dyn ObjectStore,
    url: &ObjectUrl,
    key: &Key,
    mut file: File,
    local: &Path,
) -> Result<()> {
    let fail = |e: object_store::Error| object_error(url, describe(&e));
    let parts = store.put_multipart(key).await.map_err(fail)?;
    let mut writer = WriteMultipart::new_with_chunk_size(parts, PART);
    let mut buf = vec![0u8; 1 << 20];
    let sent: Result<()> = async {
        loop {
            let n = file.read(&mut buf).map_err(|source| Error::File {
                path: local.to_path_buf(),
                source,
            })?;
            if n == 0 {
                return Ok(());
            }
            writer
                .wait_for_capacity(PARTS_IN_FLIGHT)
                .await
                .map_err(fail)?;
            writer.write(&buf[..n]);
        }
    }
    .await;
    match sent {
        Ok(()) => writer.finish().await.map(|_| ()).map_err(fail),
        Err(e) => {
            let _ = writer.abort().await;
            Err(e)
        }
    }
}
