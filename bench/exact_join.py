#!/usr/bin/env python3
"""The exact pairs with J >= s (the truth of `simtui eval` and of the explorer's real
recall): the prefix-filtered join against the shared-shingle join it replaced, timed in
one run (medians, their ratio, and a check that both found the same pairs and J).

    python3 bench/exact_join.py                          # char 9-grams, 20,000 short docs
    python3 bench/exact_join.py --big DIR --floor 0.5    # and a large corpus (new join only)

Runs the engine's example `exact_join` (built with the bench profile). The small corpus
(`simtui gen --docs 20000 --words 150`, about 80 MB) is written under bench/data/
(git-ignored) once; DIR is any corpus simtui reads, e.g. 1,000,000 generated documents
of ~300 words as JSON Lines. The shared-shingle join is not run on DIR: at a million
documents it counts every pair sharing a shingle.
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "bench", "data")


def run(cmd):
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--floor", type=float, default=0.5)
    ap.add_argument("--big", help="a large corpus: the new join only")
    ap.add_argument("--exe", default=os.path.join(ROOT, "target", "release", "simtui"))
    args = ap.parse_args()
    run(["cargo", "build", "--profile", "bench", "-p", "simtui-engine", "--example", "exact_join"])
    example = os.path.join(ROOT, "target", "release", "examples", "exact_join")
    small = os.path.join(DATA, "short-20000x150")
    if not os.path.exists(small):
        if not os.path.exists(args.exe):
            run(["cargo", "build", "--release"])
        os.makedirs(DATA, exist_ok=True)
        run([args.exe, "gen", small, "--docs", "20000", "--words", "150"])
    run([example, small, "--unit", "char", "-k", "9", "--floor", str(args.floor),
         "--runs", str(args.runs)])
    if args.big:
        run([example, args.big, "--floor", str(args.floor), "--runs", str(args.runs), "--no-old"])


if __name__ == "__main__":
    sys.exit(main())
