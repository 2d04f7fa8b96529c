#!/usr/bin/env python3
"""Runs two simtui binaries on the same generated corpora and compares their outputs
byte for byte: a refactoring (a move, not a rewrite) must not change what any command
prints.

    python3 bench/same_output.py OLD_BINARY [NEW_BINARY]

NEW_BINARY defaults to this checkout's release build (built first). Each case runs
`pairs`, `query`, `clusters`, `matrix`, `eval` and `curve` in every output format, with
MinHash and SimHash, word and character shingles, on two generated corpora (a folder
of files, and the same texts as JSON Lines). Stdout and the exit status must match;
stderr too, except for lines that carry a time. Exit status 1 when anything differs.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FORMATS = ["table", "jsonl", "csv"]


def cases(files, jsonl, some):
    """(name, args) for every command, format and a few settings that change the path."""
    out = []
    settings = [
        [],
        ["-k", "3", "--bands", "32", "--rows", "4"],
        ["--unit", "char", "-k", "7", "--sketch", "minhash"],
        ["--method", "simhash", "--bits", "64", "--max-distance", "6"],
    ]
    for corpus in (files, jsonl):
        for s in settings:
            for f in FORMATS:
                out.append(["pairs", corpus, "--format", f, *s])
                out.append(["clusters", corpus, "-t", "0.5", "--format", f, *s])
                out.append(["query", corpus, some[0], some[1], "--top", "5", "--format", f, *s])
            out.append(["clusters", corpus, "-t", "0.6", "--dupes", *s])
            out.append(["pairs", corpus, "-t", "0.3", "--format", "jsonl", *s])
    for measure in ["jaccard", "estimate", "simhash"]:
        for f in ["table", "csv"]:
            out.append(["matrix", *[os.path.join(files, p) for p in some_files(files)],
                        "--measure", measure, "--format", f])
    for f in FORMATS:
        out.append(["eval", files, "--format", f])
        out.append(["eval", files, "--format", f, "--runs", "3"])
    out.append(["eval", files, "--bandings", "8x16,16x8,32x4", "--format", "jsonl"])
    out.append(["curve", "--bands", "16", "--rows", "8"])
    out.append(["curve", "--threshold", "0.6", "--perms", "128"])
    return out


def some_files(folder):
    names = []
    for dirpath, _, filenames in sorted(os.walk(folder)):
        for n in sorted(filenames):
            names.append(os.path.relpath(os.path.join(dirpath, n), folder))
    return names[:6]


TIMED = re.compile(r"\d+(\.\d+)? ?(s|ms|µs)\b|docs/s|MB/s")


def untimed(text):
    """Output without what depends on the clock: lines that give a time, and the
    time fields of JSON lines."""
    lines = []
    for line in text.splitlines():
        if line.startswith("{"):
            try:
                obj = json.loads(line)
                kept = {k: v for k, v in obj.items() if "time" not in k and "second" not in k}
                if kept != obj:
                    lines.append(json.dumps(kept))
                    continue
            except ValueError:
                pass
        if not TIMED.search(line):
            lines.append(line)
    return "\n".join(lines)


def run(binary, args, cwd):
    env = dict(os.environ, NO_COLOR="1", SIMTUI_CONFIG="/dev/null")
    p = subprocess.run([binary, *args, "--no-config"] if args[0] != "curve" else [binary, *args],
                       cwd=cwd, capture_output=True, env=env)
    return (p.returncode, untimed(p.stdout.decode(errors="surrogateescape")),
            untimed(p.stderr.decode(errors="replace")))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new", nargs="?")
    ap.add_argument("--docs", type=int, default=600)
    args = ap.parse_args()
    new = args.new
    if new is None:
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
        new = os.path.join(ROOT, "target", "release", "simtui")
    with tempfile.TemporaryDirectory() as tmp:
        files = os.path.join(tmp, "files")
        subprocess.run([args.old, "gen", files, "--docs", str(args.docs), "--seed", "7"],
                       check=True, capture_output=True)
        jsonl = os.path.join(tmp, "records.jsonl")
        with open(jsonl, "w") as out:
            for name in some_files(files) + [os.path.relpath(os.path.join(d, f), files)
                                             for d, _, fs in sorted(os.walk(files)) for f in sorted(fs)][6:]:
                with open(os.path.join(files, name), encoding="utf-8") as f:
                    out.write(json.dumps({"id": name, "text": f.read()}) + "\n")
        some = [os.path.join(files, p) for p in some_files(files)[:2]]
        differ = usage = 0
        all_cases = cases(files, jsonl, some)
        for c in all_cases:
            a, b = run(args.old, c, tmp), run(new, c, tmp)
            if a[0] == 2:
                usage += 1
                print("usage error:", " ".join(c), a[2][:200])
            if a != b:
                differ += 1
                print("DIFFERS:", " ".join(c))
                for what, x, y in zip(["status", "stdout", "stderr"], a, b):
                    if x != y:
                        print(f"  {what}: old {str(x)[:300]!r}\n  {what}: new {str(y)[:300]!r}")
        print(f"{len(all_cases) - differ} of {len(all_cases)} cases identical ({usage} usage errors in both)")
        sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
