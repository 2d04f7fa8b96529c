//! The exact pairs with J ≥ s of a corpus, by the prefix-filtered join and by the
//! shared-shingle join it replaced, timed in one run: medians over `--runs`, their ratio,
//! and a check that both found the same pairs. `bench/exact_join.py` runs it on generated
//! corpora.
//!
//! cargo run --profile bench -p simtui-engine --example exact_join -- PATH... \
//!     [--unit word|char] [-k K] [--floor S] [--runs N] [--no-old]

use simtui_engine::analysis::exact::{ExactPairs, Limits, all_pairs, shared_pairs};
use simtui_engine::index::{Index, Params};
use simtui_engine::progress::Silent;
use simtui_engine::source::{Corpus, WalkOptions};
use simtui_engine::text::Unit;
use std::path::PathBuf;
use std::time::{Duration, Instant};

struct Args {
    paths: Vec<PathBuf>,
    unit: Unit,
    k: Option<usize>,
    floor: f64,
    runs: usize,
    old: bool,
}

fn args() -> Args {
    let mut a = Args {
        paths: Vec::new(),
        unit: Unit::Word,
        k: None,
        floor: 0.5,
        runs: 3,
        old: true,
    };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        let mut value = || it.next().expect("a value after the flag");
        match x.as_str() {
            "--unit" => {
                a.unit = if value() == "char" {
                    Unit::Char
                } else {
                    Unit::Word
                }
            }
            "-k" => a.k = Some(value().parse().expect("k")),
            "--floor" => a.floor = value().parse().expect("floor"),
            "--runs" => a.runs = value().parse().expect("runs"),
            "--no-old" => a.old = false,
            _ => a.paths.push(x.into()),
        }
    }
    a
}

fn median(mut xs: Vec<Duration>) -> f64 {
    xs.sort();
    xs[xs.len() / 2].as_secs_f64()
}

/// Median wall time of `runs` calls, and the last result (or why there is none).
fn timed(
    runs: usize,
    f: impl Fn() -> Result<ExactPairs, String>,
) -> (f64, Result<ExactPairs, String>) {
    let mut times = Vec::new();
    let mut last = Err("not run".to_string());
    for _ in 0..runs {
        let t = Instant::now();
        last = f();
        times.push(t.elapsed());
        if last.is_err() {
            break;
        }
    }
    (median(times), last)
}

fn main() {
    let a = args();
    let mut params = Params {
        num_perm: 8, // the joins use the shingles only
        ..Default::default()
    };
    params.text.unit = a.unit;
    params.k = a.k.unwrap_or(if a.unit == Unit::Char { 9 } else { 5 });
    let t = Instant::now();
    let corpus = Corpus::walk(&a.paths, &WalkOptions::default()).expect("a corpus");
    let index = Index::builder(&params)
        .build(corpus, &Silent)
        .expect("an index");
    let s = index.stats();
    println!(
        "{} documents ({} distinct), {} shingles (k = {} {}), indexed in {:.1} s",
        s.docs,
        s.groups,
        index.shingles().total(),
        params.k,
        a.unit.name(),
        t.elapsed().as_secs_f64()
    );
    let limits = Limits {
        max_shingles: usize::MAX,
        max_pairs: usize::MAX,
        max_work: u64::MAX,
        max_bytes: u64::MAX,
    };
    let (new_s, new) = timed(a.runs, || {
        all_pairs(&index, a.floor, &limits, &Silent).map_err(|e| e.to_string())
    });
    let new = new.expect("the join");
    println!(
        "prefix-filtered join, J >= {}: {} pairs, median {new_s:.3} s over {} runs",
        a.floor,
        new.pairs.len(),
        a.runs
    );
    if !a.old {
        return;
    }
    let (old_s, old) = timed(a.runs, || {
        shared_pairs(&index, a.floor, &Limits::default(), &Silent).map_err(|e| e.to_string())
    });
    match old {
        Ok(old) => {
            println!(
                "shared-shingle join, J >= {}: {} pairs, median {old_s:.3} s over {} runs",
                a.floor,
                old.pairs.len(),
                a.runs
            );
            println!("speed-up: {:.1}x", old_s / new_s);
            assert_eq!(old.pairs, new.pairs, "the joins disagree");
            println!("same pairs and J: yes");
        }
        Err(why) => println!("shared-shingle join: {why} (after {old_s:.1} s)"),
    }
}
