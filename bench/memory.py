#!/usr/bin/env python3
"""Peak memory of `simtui pairs` on a large corpus of ordinary text (issue 5).

Generates a corpus with `simtui gen` into bench/data/ (git-ignored) once, runs
`simtui pairs DIR --stats` on it, and reports the peak resident set size (wait4's
ru_maxrss of the child) against the documented bound:

    peak RSS <= 2 x text bytes + signatures (documents x num_perm x 4 bytes) + 64 MiB

    python3 bench/memory.py                      # ~1 GB: 500,000 documents of ~300 words
    python3 bench/memory.py --docs 50000         # a quicker ~100 MB run
    python3 bench/memory.py --bin target/debug/simtui

Exits 1 when the bound is exceeded.
"""
import argparse
import os
import re
import subprocess
import sys

from e2e import timed  # wall time and peak RSS of one run (bench/e2e.py)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIB = 1 << 20


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=500_000)
    ap.add_argument("--words", type=int, default=300)
    ap.add_argument("--num-perm", type=int, default=128, help="bands x rows (default 16 x 8)")
    ap.add_argument("--bin", help="simtui binary (default: build and use target/release/simtui)")
    args = ap.parse_args()

    binary = args.bin
    if not binary:
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
        binary = os.path.join(ROOT, "target", "release", "simtui")
    data = os.path.join(ROOT, "bench", "data")
    corpus = os.path.join(data, f"memory-{args.docs}x{args.words}")
    if not os.path.isdir(corpus) or not os.listdir(corpus):
        os.makedirs(data, exist_ok=True)
        print(f"generating {args.docs} documents into {corpus} ...", flush=True)
        subprocess.run([binary, "gen", corpus, "--docs", str(args.docs),
                        "--words", str(args.words), "--seed", "5"], check=True,
                       stdout=subprocess.DEVNULL)
    text_bytes = 0
    files = 0
    for dirpath, _, names in os.walk(corpus):
        for n in names:
            text_bytes += os.path.getsize(os.path.join(dirpath, n))
            files += 1

    cmd = [binary, "pairs", corpus, "--stats", "--format", "jsonl"]
    wall, peak_mib, err = timed(cmd)
    peak = peak_mib * MIB
    signatures = files * args.num_perm * 4
    bound = 2 * text_bytes + signatures + 64 * MIB
    m = re.search(r"^documents\s+(.*)$", err, re.M)
    print(f"corpus      {files} files, {text_bytes / MIB:.0f} MiB of text")
    print(f"simtui      {m.group(1) if m else '?'}")
    print(f"wall        {wall:.1f} s")
    print(f"peak RSS    {peak / MIB:.0f} MiB ({peak / text_bytes:.2f} x the text)")
    print(f"bound       {bound / MIB:.0f} MiB (2 x text + signatures {signatures / MIB:.0f} MiB + 64 MiB)")
    if peak > bound:
        print("OVER THE BOUND")
        sys.exit(1)
    print("within the bound")


if __name__ == "__main__":
    main()
