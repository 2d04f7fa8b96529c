//! `eval --sweep` on corpora where a sweep takes long: each row is written as it
//! finishes and an interrupt keeps those written (exit 130); bandings whose candidates
//! would pass `--max-candidates` are skipped with a note.

mod common;

use common::{Corpus, jsonl, simtui};
use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

#[test]
fn a_sweep_streams_its_rows_and_an_interrupt_keeps_them() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 600, 12);
    // Character 3-grams: nearly every pair shares some, so 64x2 and 128x1 verify
    // hundreds of thousands of candidates, long after the first rows.
    let mut child = Command::new(env!("CARGO_BIN_EXE_simtui"))
        .args(["eval", c.path(), "--sweep", "--unit", "char", "-k", "3"])
        .args([
            "--max-candidates",
            "1000000000",
            "--format",
            "jsonl",
            "--no-config",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "ended before a sweep row"
        );
        let sweep = line.contains("\"sweep\":true");
        lines.push(line);
        if sweep {
            break;
        }
    }
    // A row of the sweep is out while the rest is still running: interrupt it.
    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted while the sweep at"), "{err}");
    assert!(err.contains("the rows printed are complete"), "{err}");
    let all = jsonl(&(lines.concat() + &rest));
    let sweep: Vec<_> = all.iter().filter(|l| l["sweep"] == true).collect();
    // Every setting written is whole (a line per threshold), and not all of them are.
    let mut settings: Vec<(u64, u64)> = sweep
        .iter()
        .map(|l| (l["bands"].as_u64().unwrap(), l["rows"].as_u64().unwrap()))
        .collect();
    settings.dedup();
    for s in &settings {
        let n = sweep
            .iter()
            .filter(|l| (l["bands"].as_u64().unwrap(), l["rows"].as_u64().unwrap()) == *s)
            .count();
        assert_eq!(n, 5, "{s:?}");
    }
    assert!(settings.contains(&(13, 8)), "{settings:?}");
    assert!(!settings.contains(&(128, 1)), "{settings:?}");
}

#[test]
fn a_banding_past_the_budget_is_skipped_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::new(dir.path(), 300, 13);
    let table = |max: &str| {
        let out = simtui(&[
            "eval",
            c.path(),
            "--sweep",
            "--bandings",
            "16x8,128x1",
            "--max-candidates",
            max,
            "--format",
            "table",
            "--no-config",
        ]);
        common::assert_ok(&out);
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let row = |table: &str, b: &str| {
        table.lines().any(|l| {
            l.split_whitespace().take(2).collect::<Vec<_>>()
                == [b, if b == "16" { "8" } else { "1" }]
        })
    };
    let (out, err) = table("60");
    assert!(err.contains("skipped 128x1 in the sweep: about "), "{err}");
    assert!(
        err.contains("a larger --max-candidates includes it"),
        "{err}"
    );
    assert!(!err.contains("skipped 16x8"), "{err}");
    assert!(row(&out, "16") && !row(&out, "128"), "{out}");
    let (out, err) = table("100000000");
    assert!(!err.contains("skipped"), "{err}");
    assert!(row(&out, "16") && row(&out, "128"), "{out}");
}
