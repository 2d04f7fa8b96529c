//! Criterion benchmarks of each stage of the engine, on a generated corpus held in memory.
//! `cargo bench --bench engine`.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use simtui_engine::analysis::reband::Rebander;
use simtui_engine::index::{Index, Params};
use simtui_engine::progress::Silent;
use simtui_engine::search::banding::candidates;
use simtui_engine::shingle::jaccard;
use simtui_engine::shingle::shingle_set;
use simtui_engine::sketch::minhash::MinHasher;
use simtui_engine::source::Corpus;
use simtui_engine::text::{TextOptions, Tokenizer};
use simtui_gen::{GenOptions, generate};
use std::hint::black_box;

fn texts(docs: usize) -> Vec<String> {
    generate(&GenOptions {
        docs,
        seed: 7,
        ..Default::default()
    })
    .docs
    .into_iter()
    .map(|d| d.text)
    .collect()
}

fn shingle_sets(texts: &[String]) -> Vec<Vec<u64>> {
    let mut tok = Tokenizer::new(&TextOptions::default());
    let mut buf = Vec::new();
    texts
        .iter()
        .map(|t| {
            buf.clear();
            tok.token_hashes(t, &mut buf);
            let mut s = Vec::new();
            shingle_set(&buf, 5, &mut s);
            s
        })
        .collect()
}

fn bench_stages(c: &mut Criterion) {
    let texts = texts(2000);
    let bytes: usize = texts.iter().map(String::len).sum();

    let mut g = c.benchmark_group("tokenise+shingle (1 core)");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("word k=5", |b| {
        let mut tok = Tokenizer::new(&TextOptions::default());
        let (mut buf, mut set) = (Vec::new(), Vec::new());
        b.iter(|| {
            for t in &texts {
                buf.clear();
                tok.token_hashes(t, &mut buf);
                shingle_set(&buf, 5, &mut set);
                black_box(&set);
            }
        })
    });
    g.finish();

    let sets = shingle_sets(&texts);
    let shingles: usize = sets.iter().map(Vec::len).sum();
    let mut g = c.benchmark_group("minhash (1 core)");
    g.throughput(Throughput::Elements(shingles as u64));
    for n in [64usize, 128, 256] {
        let hasher = MinHasher::new(1, n);
        g.bench_function(format!("{n} functions"), |b| {
            let mut sig = vec![0u32; n];
            b.iter(|| {
                for s in &sets {
                    hasher.sketch_range(s, 0, &mut sig);
                    black_box(&sig);
                }
            })
        });
    }
    g.finish();
}

/// The explorer's re-band: 100,000 documents at 128 functions, band + verify + sort.
fn bench_band_verify(c: &mut Criterion) {
    let texts: Vec<String> = generate(&GenOptions {
        docs: 100_000,
        seed: 7,
        words: 100,
        ..Default::default()
    })
    .docs
    .into_iter()
    .map(|d| d.text)
    .collect();
    let corpus = Corpus::from_texts(
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("{i:06}"), t.clone())),
    );
    let index = Index::builder(&Params::default())
        .build(corpus, &Silent)
        .unwrap();
    let items: Vec<u32> = (0..index.shingles().len() as u32).collect();
    let mut g = c.benchmark_group("100k documents");
    g.bench_function("band 16x8", |b| {
        b.iter(|| black_box(candidates(index.signatures(), &items, 16, 8, &Silent).unwrap()))
    });
    let cands = candidates(index.signatures(), &items, 16, 8, &Silent).unwrap();
    g.throughput(Throughput::Elements(cands.len() as u64));
    g.bench_function("verify candidates (exact Jaccard, 1 core)", |b| {
        b.iter(|| {
            for &(x, y) in &cands {
                black_box(jaccard(
                    &index.shingles().get(x as usize).unwrap(),
                    &index.shingles().get(y as usize).unwrap(),
                ));
            }
        })
    });
    g.finish();
    let mut g = c.benchmark_group("100k documents, re-band");
    g.sample_size(10);
    g.bench_function("find 16x8 (band + verify + expand + sort)", |b| {
        b.iter(|| black_box(index.find(16, 8, 0.0, &Silent).unwrap()))
    });
    // What the explorer does on a b or r key: from 16x8 (already shown) to a neighbour,
    // with what the 16x8 job left in the Rebander.
    let index = std::sync::Arc::new(index);
    for (label, bands, rows) in [
        ("explorer 16x8 -> 15x8 (B key: bands known)", 15, 8),
        ("explorer 16x8 -> 16x7 (r key: every band new)", 16, 7),
    ] {
        g.bench_function(label, |b| {
            b.iter_batched(
                || {
                    let mut rebander = Rebander::new();
                    rebander.find(&index, 16, 8, 0.0, &Silent).unwrap();
                    rebander
                },
                |mut rebander| black_box(rebander.find(&index, bands, rows, 0.0, &Silent).unwrap()),
                BatchSize::PerIteration,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, bench_stages, bench_band_verify);
criterion_main!(benches);
