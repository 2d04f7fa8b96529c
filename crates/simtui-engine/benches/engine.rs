//! Criterion benchmarks of each stage of the engine, on a generated corpus held in memory.
//! `cargo bench --bench engine`.

use cpu_time::CpuTime;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use simtui_engine::analysis::reband::Rebander;
use simtui_engine::index::{Index, Params};
use simtui_engine::progress::Silent;
use simtui_engine::rng::Rng;
use simtui_engine::search::banding::candidates;
use simtui_engine::shingle::jaccard;
use simtui_engine::shingle::{Distinct, shingle_set};
use simtui_engine::sketch::minhash::MinHasher;
use simtui_engine::sketch::{SketchKind, Sketcher};
use simtui_engine::source::Corpus;
use simtui_engine::text::{TextOptions, Tokenizer, Unit};
use simtui_gen::{GenOptions, Text, generate};
use std::hint::black_box;

/// Generated texts of `docs` documents, about 300 words each, of random words or of
/// English (sentences of public-domain novels).
fn generated(docs: usize, text: Text) -> Vec<String> {
    generate(&GenOptions {
        docs,
        seed: 7,
        text,
        ..Default::default()
    })
    .docs
    .into_iter()
    .map(|d| d.text)
    .collect()
}

/// News wire stories in the style of Reuters-21578 (a headline in capitals, a dateline,
/// earnings tables, "U.S.", "1.5 billion dlrs", "pct", tickers in angle brackets), from
/// templates written for this bench and filled at random: the punctuation and numbers
/// that the word rules join ("3.5", "1,250", "U.S") are what the English novels lack.
fn news_texts(docs: usize) -> Vec<String> {
    let mut rng = Rng::new(7);
    (0..docs).map(|_| news_story(&mut rng)).collect()
}

fn news_story(rng: &mut Rng) -> String {
    const COMPANIES: &[(&str, &str)] = &[
        ("Allied Steel Corp", "ALS"),
        ("Midland Grain Co", "MGC"),
        ("Pacific Lumber Inc", "PLI"),
        ("Northern Gas Ltd", "NGL"),
        ("First Union Bancorp", "FUB"),
        ("Delta Chemical", "DCH"),
    ];
    const CITIES: &[&str] = &["NEW YORK", "WASHINGTON", "LONDON", "TOKYO", "CHICAGO"];
    const MONTHS: &[&str] = &["Jan", "Feb", "March", "April", "May", "June"];
    const GOODS: &[&str] = &["wheat", "corn", "crude oil", "copper", "sugar"];
    const QUARTERS: &[&str] = &["1ST", "2ND", "4TH"];
    let pick = |list: &[&'static str], rng: &mut Rng| list[rng.below(list.len() as u64) as usize];
    let num = |rng: &mut Rng| format!("{}.{}", 1 + rng.below(900), rng.below(100));
    let (company, ticker) = COMPANIES[rng.below(COMPANIES.len() as u64) as usize];
    let (city, month, day) = (pick(CITIES, rng), pick(MONTHS, rng), 1 + rng.below(28));
    let mut s = format!(
        "{} &lt;{ticker}> {} QTR NET\n    {city}, {month} {day} - \n",
        company.to_uppercase(),
        pick(QUARTERS, rng)
    );
    for _ in 0..1 + rng.below(3) {
        let (shr, net, revs) = (rng.below(99), num(rng), num(rng));
        let shrs = format!("{},{:03},000", 1 + rng.below(40), rng.below(1000));
        s += &format!(
            "    Shr {shr} cts vs {} cts\n    Net {net} mln vs {} mln\n",
            rng.below(99),
            num(rng)
        );
        s += &format!(
            "    Revs {revs} mln vs {} mln\n    Avg shrs {shrs}\n",
            num(rng)
        );
    }
    for _ in 0..3 + rng.below(5) {
        let (good, a, b, c) = (pick(GOODS, rng), num(rng), num(rng), num(rng));
        let sentence = match rng.below(5) {
            0 => format!(
                "The U.S. Agriculture Department said exports of {good} rose {a} pct to {b} mln \
                 tonnes in {month}, up from {c} mln a year earlier."
            ),
            1 => format!(
                "{company} said it expects 1987 net profit of {a} billion dlrs, or {b} dlrs a \
                 share, compared with {c} billion dlrs in 1986."
            ),
            2 => format!(
                "Officials at the Fed said the bank's discount rate, now {a} pct, would not be \
                 changed before the G-7 meeting on {month} {day}, sources told Reuters."
            ),
            3 => format!(
                "\"We don't see any major change in {good} prices,\" said a spokesman for \
                 {company}, adding that output was about {},{:03} barrels per day (bpd).",
                1 + rng.below(900),
                rng.below(1000)
            ),
            _ => format!(
                "Dlrs {a} vs {b} -- the company's shares closed at {} 1/2, off 3/8, on volume \
                 of {},{:03} shares on the N.Y.S.E.",
                10 + rng.below(90),
                rng.below(900),
                rng.below(1000)
            ),
        };
        s += &sentence;
        s += if rng.below(3) == 0 { "\n" } else { " " };
    }
    s + "\n Reuter\n"
}

/// French, German and Spanish prose (sentences written for this bench, drawn at random):
/// Latin letters with diacritics in about every third word, curly apostrophes, guillemets.
fn european_texts(docs: usize) -> Vec<String> {
    const SENTENCES: &[&str] = &[
        "L’été dernier, les élèves de l’école ont préparé une fête à la mairie.",
        "Le ministère a annoncé une hausse de 2,5 % des dépenses publiques en février.",
        "« Nous n’avons pas reçu la réponse », a déclaré le député, très déçu.",
        "Où est la bibliothèque ? Elle se trouve près de la gare, après le théâtre.",
        "Die Bürger der Stadt haben über die neue Straßenbahn abgestimmt.",
        "Im Frühling blühen die Bäume am Ufer des Flusses, und die Vögel kehren zurück.",
        "Der Präsident erklärte, die Verhandlungen würden nächste Woche fortgesetzt.",
        "Für Kinder unter zwölf Jahren ist der Eintritt ins Museum frei.",
        "El niño corrió hacia la estación porque el tren salía a las ocho.",
        "La compañía española aumentó sus beneficios un 3,2 % en el último año.",
        "¿Cuándo llegarán los invitados? Mañana por la mañana, según el camarero.",
        "Los científicos publicaron un estudio sobre la evolución del clima andino.",
    ];
    let mut rng = Rng::new(11);
    (0..docs)
        .map(|_| {
            let n = 10 + rng.below(20);
            let mut s = String::new();
            for i in 0..n {
                s.push_str(SENTENCES[rng.below(SENTENCES.len() as u64) as usize]);
                s.push_str(if i % 4 == 3 { "\n\n" } else { " " });
            }
            s
        })
        .collect()
}

/// Tokenising alone (words and characters), per byte of text and second of the thread's
/// CPU time ([`cpu_time`]).
fn bench_tokenise(c: &mut Criterion<CpuTime>) {
    let corpora = [
        ("english", generated(2000, Text::English)),
        ("news", news_texts(2000)),
        ("european", european_texts(2000)),
    ];
    let mut g = c.benchmark_group("tokenise (1 core)");
    for (name, texts) in &corpora {
        let bytes = texts.iter().map(String::len).sum::<usize>();
        // The size, to turn an instruction count (valgrind) into instructions per byte.
        eprintln!("{name}: {} texts, {bytes} bytes", texts.len());
        g.throughput(Throughput::Bytes(bytes as u64));
        for unit in [Unit::Word, Unit::Char] {
            let opts = TextOptions {
                unit,
                ..Default::default()
            };
            g.bench_function(format!("{name}, {}", unit.name()), |b| {
                let mut tok = Tokenizer::new(&opts);
                let mut buf = Vec::new();
                b.iter(|| {
                    for t in texts {
                        buf.clear();
                        tok.token_hashes(t, &mut buf);
                        black_box(&buf);
                    }
                })
            });
        }
    }
    g.finish();
}

/// A document's distinct shingles without sorting them (what a document sketched as it is
/// read needs: its sketch and its set's length), from its token hashes: word 5-grams of
/// English (few repeat) and character 9-grams (many do).
fn bench_distinct(c: &mut Criterion<CpuTime>) {
    let texts = generated(2000, Text::English);
    let mut g = c.benchmark_group("distinct shingles (1 core)");
    for (unit, k) in [(Unit::Word, 5), (Unit::Char, 9)] {
        let mut tok = Tokenizer::new(&TextOptions {
            unit,
            ..TextOptions::default()
        });
        let streams: Vec<Vec<u64>> = texts
            .iter()
            .map(|t| {
                let mut tokens = Vec::new();
                tok.token_hashes(t, &mut tokens);
                tokens
            })
            .collect();
        let shingles: usize = streams.iter().map(|t| t.len().saturating_sub(k - 1)).sum();
        g.throughput(Throughput::Elements(shingles as u64));
        g.bench_function(format!("{unit:?} k={k}").to_lowercase(), |b| {
            let (mut table, mut out) = (Distinct::new(), Vec::new());
            b.iter(|| {
                for tokens in &streams {
                    table.shingles(tokens, k, &mut out);
                    black_box(&out);
                }
            })
        });
    }
    g.finish();
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
    let texts = generated(2000, Text::Words);
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

    // One-permutation hashing: every round hashes every shingle once (about three rounds
    // a document of this length).
    let mut g = c.benchmark_group("oph (1 core)");
    g.throughput(Throughput::Elements(shingles as u64));
    let sketcher = Sketcher::new(SketchKind::Oph, 1, 128);
    g.bench_function("128 bins", |b| {
        b.iter(|| {
            for s in &sets {
                black_box(sketcher.sketch(s));
            }
        })
    });
    g.finish();
}

/// The explorer's re-band: 100,000 documents at 128 functions, band + verify + sort.
fn bench_band_verify(c: &mut Criterion) {
    let texts: Vec<String> = generate(&GenOptions::sized(100_000, 7, 100))
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
                    rebander.find(&index, 16, 8, 0.0, None, &Silent).unwrap();
                    rebander
                },
                |mut rebander| {
                    black_box(
                        rebander
                            .find(&index, bands, rows, 0.0, None, &Silent)
                            .unwrap()
                            .0,
                    )
                },
                BatchSize::PerIteration,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, bench_stages, bench_band_verify);
criterion_group! {
    name = one_core;
    config = Criterion::default().with_measurement(CpuTime::default());
    targets = bench_tokenise, bench_distinct
}
criterion_main!(one_core, benches);

/// The CPU time of the bench's thread as criterion's measurement, for the benches of one
/// core's work. The machine is shared: when other builds keep both cores busy, a wall
/// clock counts the waiting too (at a load average of 11, tokenising English took 11.3
/// ms a pass by the wall clock and 3.4 ms of the thread's CPU time).
mod cpu_time {
    use criterion::measurement::{Measurement, ValueFormatter, WallTime};
    use std::time::Duration;

    /// Thread CPU time, in the units and formats of the wall clock's.
    pub struct CpuTime(WallTime);

    impl Default for CpuTime {
        fn default() -> Self {
            CpuTime(WallTime)
        }
    }

    impl Measurement for CpuTime {
        type Intermediate = Duration;
        type Value = Duration;

        fn start(&self) -> Duration {
            thread_cpu_time()
        }

        fn end(&self, start: Duration) -> Duration {
            thread_cpu_time() - start
        }

        fn add(&self, a: &Duration, b: &Duration) -> Duration {
            *a + *b
        }

        fn zero(&self) -> Duration {
            Duration::ZERO
        }

        fn to_f64(&self, value: &Duration) -> f64 {
            value.as_nanos() as f64
        }

        fn formatter(&self) -> &dyn ValueFormatter {
            self.0.formatter()
        }
    }

    /// The CPU time this thread has used (std has no clock for it).
    #[cfg(unix)]
    fn thread_cpu_time() -> Duration {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes one timespec, to a valid one on this stack frame.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        assert_eq!(rc, 0, "the thread's CPU clock");
        Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
    }

    /// Elsewhere, the wall clock.
    #[cfg(not(unix))]
    fn thread_cpu_time() -> Duration {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        START.get_or_init(std::time::Instant::now).elapsed()
    }
}
