#!/usr/bin/env python3
"""Runs two simtui binaries on the same generated corpora and compares their outputs
byte for byte: a refactoring (a move, not a rewrite) must not change what any command
prints or writes.

    python3 bench/same_output.py OLD_BINARY [NEW_BINARY]

NEW_BINARY defaults to this checkout's release build (built first). Each case runs
`pairs`, `query`, `clusters`, `dedup`, `matrix`, `eval`, `sketch`, `index` (then
`pairs --index` on the index written), `fingerprint`, `diff` and `curve`, in every output
format, with MinHash and SimHash, word and character shingles, in memory and within a
`--memory` budget small enough that the sets, signatures, band keys and pairs go to
temporary files, on three generated corpora: a folder of files, and the same texts as
JSON Lines and as Reuters SGML. Stdout and the exit status must match; stderr too, except
for lines that carry a time; and the files a command writes (dedup's corpus, sketch's
shards, the index file) byte for byte. Exit status 1 when anything differs.
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


# A budget this small sends every part of the work it can through temporary files (for
# the generated corpus of 600 documents: signatures, band keys, candidate pairs; the
# sets of `query`'s index); the one between, only some of it.
SMALL = ["--memory", "16K"]
MIDDLE = ["--memory", "100K"]


def cases(files, jsonl, sgml, some):
    """Every command, format and a few settings that change the path. A case is a list of
    commands run in turn; `{OUT}` in them is a fresh folder per binary, whose files are
    compared too."""
    out = []
    settings = [
        [],
        ["-k", "3", "--bands", "32", "--rows", "4"],
        ["--unit", "char", "-k", "7", "--sketch", "minhash"],
        ["--method", "simhash", "--bits", "64", "--max-distance", "6"],
        SMALL,
        MIDDLE,
        ["--method", "simhash", "--bits", "64", "--max-distance", "6", *SMALL],
    ]
    for corpus in (files, jsonl, sgml):
        for s in settings:
            for f in FORMATS:
                out.append(["pairs", corpus, "--format", f, *s])
                out.append(["clusters", corpus, "-t", "0.5", "--format", f, *s])
                out.append(["query", corpus, some[0], some[1], "--top", "5", "--format", f, *s])
            out.append(["clusters", corpus, "-t", "0.6", "--dupes", *s])
            out.append(["pairs", corpus, "-t", "0.3", "--format", "jsonl", *s])
            out.append(["pairs", corpus, "-t", "0.3", "--stats", *s])
            out.append(["dedup", corpus, "-t", "0.5", "--output", "{OUT}/dedup", *s])
        out.append(["eval", corpus, "--format", "jsonl"])
        out.append(["fingerprint", corpus, "--bits", "64"])
        for f in ["jsonl", "parquet"]:
            out.append(["sketch", corpus, "-o", "{OUT}/sketch", "--format", f])
        out.append([["index", corpus, "-o", "{OUT}/index"],
                    ["pairs", corpus, "--index", "{OUT}/index", "--format", "jsonl"],
                    ["clusters", corpus, "-t", "0.5", "--index", "{OUT}/index"]])
    out.append(["diff", some[0], some[1]])
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


def run(binary, case, cwd, out):
    """Runs a case's commands with `{OUT}` as `out`: their exit statuses, stdouts and
    stderrs (without times), and the files written under `out`."""
    env = dict(os.environ, NO_COLOR="1", SIMTUI_CONFIG="/dev/null")
    steps = case if isinstance(case[0], list) else [case]
    os.makedirs(out)
    result = []
    for step in steps:
        args = [a.replace("{OUT}", out) for a in step]
        p = subprocess.run([binary, *args, "--no-config"] if args[0] != "curve" else [binary, *args],
                           cwd=cwd, capture_output=True, env=env)
        result.append((p.returncode,
                       untimed(p.stdout.decode(errors="surrogateescape").replace(out, "{OUT}")),
                       untimed(p.stderr.decode(errors="replace").replace(out, "{OUT}"))))
    written = []
    for d, _, fs in sorted(os.walk(out)):
        for f in sorted(fs):
            path = os.path.join(d, f)
            with open(path, "rb") as fh:
                written.append((os.path.relpath(path, out), fh.read()))
    return result, written


def sgml_of(files, names, path):
    """The texts as Reuters SGML articles, NEWID the file's number."""
    with open(path, "w") as out:
        for i, name in enumerate(names):
            with open(os.path.join(files, name), encoding="utf-8") as f:
                text = f.read().replace("&", "&amp;").replace("<", "&lt;")
            out.write(f'<REUTERS NEWID="{i + 1}">\n<TEXT>\n<TITLE>{name}</TITLE>\n'
                      f"<BODY>{text}</BODY></TEXT>\n</REUTERS>\n")


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
        names = some_files(files) + [os.path.relpath(os.path.join(d, f), files)
                                     for d, _, fs in sorted(os.walk(files)) for f in sorted(fs)][6:]
        with open(jsonl, "w") as out:
            for name in names:
                with open(os.path.join(files, name), encoding="utf-8") as f:
                    out.write(json.dumps({"id": name, "text": f.read()}) + "\n")
        sgml = os.path.join(tmp, "reuters.sgm")
        sgml_of(files, names, sgml)
        some = [os.path.join(files, p) for p in some_files(files)[:2]]
        differ = usage = 0
        all_cases = cases(files, jsonl, sgml, some)
        for n, c in enumerate(all_cases):
            name = " ; ".join(" ".join(s) for s in c) if isinstance(c[0], list) else " ".join(c)
            a = run(args.old, c, tmp, os.path.join(tmp, f"old-{n}"))
            b = run(new, c, tmp, os.path.join(tmp, f"new-{n}"))
            if any(step[0] == 2 for step in a[0]):
                usage += 1
                print("usage error:", name, [s[2][:200] for s in a[0]])
            if a != b:
                differ += 1
                print("DIFFERS:", name)
                for i, (x, y) in enumerate(zip(a[0], b[0])):
                    for what, u, v in zip(["status", "stdout", "stderr"], x, y):
                        if u != v:
                            print(f"  step {i} {what}: old {str(u)[:300]!r}\n  step {i} {what}: new {str(v)[:300]!r}")
                if a[1] != b[1]:
                    print(f"  files: old {[f for f, _ in a[1]]} new {[f for f, _ in b[1]]}",
                          [f for (f, x), (_, y) in zip(a[1], b[1]) if x != y])
        print(f"{len(all_cases) - differ} of {len(all_cases)} cases identical ({usage} usage errors in both)")
        sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
