#!/usr/bin/env python3
"""Bounded memory (issue 17): `simtui pairs` in memory and with --memory, same output?

Generates a corpus with `simtui gen` into bench/data/ (git-ignored) once, then runs
`simtui pairs CORPUS --stats --format jsonl` once with a memory limit large enough to
keep everything in memory and once with the limit asked for, and prints for each run
the wall time, the peak RSS (wait4's ru_maxrss), the bytes spilled to temporary files
(from --stats) and the SHA-256 of the output; then whether the outputs are identical.

    python3 bench/ooc.py                                # 1,000,000 docs, --memory 1G
    python3 bench/ooc.py --docs 2000000 --memory 4G     # both ways on 2 million
    python3 bench/ooc.py --docs 10000000 --memory 4G --no-in-memory
    python3 bench/ooc.py --docs 50000 --memory 16M      # a quick check

The corpus is JSON Lines files (`gen --format jsonl`, read with --id-field id) unless
--format text (one file per document). Pass flags to `pairs` after `--`. Exits 1 when
the outputs differ.
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys

from e2e import generated, release_binary, timed  # bench/e2e.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIB = 1 << 20


def run_pairs(cmd, out_path):
    """Runs cmd with stdout to out_path; returns (wall s, peak RSS MiB, stderr)."""
    with open(out_path, "wb") as out:
        return timed(cmd, stdout=out)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=1_000_000)
    ap.add_argument("--words", type=int, default=300)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--memory", default="1G", help="the bounded run's --memory")
    ap.add_argument("--in-memory", default="20G",
                    help="--memory of the in-memory run (enough to hold the index)")
    ap.add_argument("--no-in-memory", action="store_true",
                    help="skip the in-memory run (a corpus this machine cannot hold)")
    ap.add_argument("--format", choices=["jsonl", "text"], default="jsonl")
    ap.add_argument("--tmp-dir", help="the bounded run's --tmp-dir")
    ap.add_argument("--bin", help="simtui binary (default: build and use target/release/simtui)")
    ap.add_argument("--keep", action="store_true", help="keep the outputs in bench/data")
    ap.add_argument("extra", nargs="*", help="flags passed to simtui pairs (after --)")
    a = ap.parse_args()

    binary = release_binary(a.bin)
    data = os.path.join(ROOT, "bench", "data")
    corpus = generated(binary, f"ooc-{a.format}-{a.docs}x{a.words}-s{a.seed}",
                       a.docs, a.words, a.seed, extra=["--format", a.format])
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(corpus) for f in fs)
    print(f"corpus      {corpus}: {a.docs} documents, {size / 1e9:.2f} GB")

    base = [binary, "pairs", corpus, "--stats", "--format", "jsonl", *a.extra]
    if a.format == "jsonl":
        base += ["--id-field", "id"]
    runs = [] if a.no_in_memory else [("in memory", a.in_memory, None)]
    runs.append((f"--memory {a.memory}", a.memory, a.tmp_dir))
    hashes = []
    for name, memory, tmp in runs:
        out = os.path.join(data, f"ooc-out-{memory}.jsonl")
        cmd = base + ["--memory", memory] + (["--tmp-dir", tmp] if tmp else [])
        wall, peak, err = run_pairs(cmd, out)
        spilled = re.search(r"^memory\s+(.*)$", err, re.M)
        pairs = re.search(r"^pairs\s+(\d+)", err, re.M)
        digest = sha256(out)
        hashes.append(digest)
        print(f"{name:<14} wall {wall:7.1f} s   peak RSS {peak:8.0f} MiB ({peak * MIB / size:.2f} x the corpus)"
              f"   pairs {pairs.group(1) if pairs else '?'}   sha256 {digest[:16]}")
        print(f"{'':<14} {spilled.group(1) if spilled else '?'}")
        t = re.search(r"^time\s+(.*)$", err, re.M)
        if t:
            print(f"{'':<14} {t.group(1)}")
        if not a.keep:
            os.remove(out)
    if len(hashes) == 2:
        same = hashes[0] == hashes[1]
        print("outputs     " + ("identical" if same else "DIFFER"))
        if not same:
            sys.exit(1)


if __name__ == "__main__":
    main()
