#!/usr/bin/env python3
"""Peak memory of simtui on a large corpus of ordinary text: `pairs` against its bound
without a limit, or every command that takes --memory against the limit given.

Generates a corpus with `simtui gen` into bench/data/ (git-ignored) once, runs
`simtui pairs DIR --stats` on it, and reports the peak resident set size (wait4's
ru_maxrss of the child) against the documented bound:

    peak RSS <= 2 x text bytes + signatures (documents x num_perm x 4 bytes) + 64 MiB

    python3 bench/memory.py                      # ~1 GB: 500,000 documents of ~300 words
    python3 bench/memory.py --docs 50000         # a quicker ~100 MB run
    python3 bench/memory.py --bin target/debug/simtui

Exits 1 when the bound is exceeded.

With --limits, runs each command that accepts --memory, on the same corpus, once per
limit, and prints limit against peak RSS (wait4's ru_maxrss of the child), its ratio and
the wall time: `index` (the saved index written to a temporary folder), `pairs --index`
(reading that saved index), `pairs`, `clusters -t 0.8`, `dedup -t 0.8 -o OUT`. The
explorer is left out (it has no end to wait for; bench/explorer.py measures it in a
pseudo-terminal). A run is within bounds when its peak is at most 1.5 x the limit plus
the floor (--floor, 64 MiB by default: see doc/benchmarks.md, "Bounded memory").

    python3 bench/memory.py --docs 200000 --limits 64M 256M
    python3 bench/memory.py --docs 200000 --limits 64M --commands index pairs
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from e2e import generated, release_binary, timed  # bench/e2e.py

MIB = 1 << 20


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=500_000)
    ap.add_argument("--words", type=int, default=300)
    ap.add_argument("--num-perm", type=int, default=128, help="bands x rows (default 16 x 8)")
    ap.add_argument("--bin", help="simtui binary (default: build and use target/release/simtui)")
    ap.add_argument("--limits", nargs="+", metavar="SIZE",
                    help="run every command with --memory SIZE (64M, 256M, 1G) instead")
    ap.add_argument("--commands", nargs="+", default=list(COMMANDS), choices=list(COMMANDS))
    ap.add_argument("--floor", type=float, default=64, help="MiB allowed above 1.5 x the limit")
    ap.add_argument("--runs", type=int, default=1, help="runs per command and limit (median)")
    args = ap.parse_args()

    binary = release_binary(args.bin)
    corpus = generated(binary, f"memory-{args.docs}x{args.words}", args.docs, args.words, 5,
                       stdout=subprocess.DEVNULL)
    text_bytes = 0
    files = 0
    for dirpath, _, names in os.walk(corpus):
        for n in names:
            text_bytes += os.path.getsize(os.path.join(dirpath, n))
            files += 1

    if args.limits:
        sys.exit(limits_table(binary, corpus, files, text_bytes, args))
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


# Each command that accepts --memory: its arguments after the binary, given the corpus,
# a scratch folder and the saved index's path (written by `index`, read by `pairs --index`).
COMMANDS = {
    "index": lambda c, tmp, idx: ["index", c, "-o", idx],
    "pairs --index": lambda c, tmp, idx: ["pairs", c, "--index", idx, "--format", "jsonl"],
    "pairs": lambda c, tmp, idx: ["pairs", c, "--no-index", "--format", "jsonl"],
    "clusters": lambda c, tmp, idx: ["clusters", c, "--no-index", "-t", "0.8", "--format", "jsonl"],
    "dedup": lambda c, tmp, idx: ["dedup", c, "--no-index", "-t", "0.8", "-o",
                                  os.path.join(tmp, "dedup-out"), "--force"],
}


def size(text):
    """Bytes of a size as --memory reads it (64M, 1G, 512K, or bytes)."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].upper() in units else int(text)


def run_once(cmd):
    """(wall seconds, peak RSS MiB, exit status, stderr lines) of one run, output discarded."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(p.pid, 0)
    return (time.perf_counter() - start, usage.ru_maxrss / 1024,
            os.waitstatus_to_exitcode(status), err.splitlines())


def limits_table(binary, corpus, files, text_bytes, args):
    """Prints limit vs peak RSS for each command and limit; 1 when one is over bounds."""
    print(f"corpus: {files} files, {text_bytes / MIB:.0f} MiB of text ({corpus})")
    print(f"bound: peak <= 1.5 x limit + {args.floor:.0f} MiB; median of {args.runs} run(s)")
    print("| command | --memory | peak RSS | peak / limit | wall | within | warnings |")
    print("| --- | ---: | ---: | ---: | ---: | --- | --- |")
    over = 0
    tmp = tempfile.mkdtemp(prefix="simtui-memory-")
    try:
        for limit in args.limits:
            idx = os.path.join(tmp, f"index-{limit}.simtui")
            # In the table's order whatever the order asked: `pairs --index` reads the
            # index `index` writes (run alone first, it would build and write it itself).
            for name in sorted(args.commands, key=list(COMMANDS).index):
                cmd = [binary, "--no-config", *COMMANDS[name](corpus, tmp, idx), "--memory", limit]
                runs = sorted((run_once(cmd) for _ in range(args.runs)), key=lambda r: r[1])
                wall, peak, code, err = runs[len(runs) // 2]
                warnings = [line for line in err if "warning" in line.lower()]
                if code not in (0, 1):
                    sys.exit(f"failed ({code}): {' '.join(cmd)}\n" + "\n".join(err[-5:]))
                bound = 1.5 * size(limit) / MIB + args.floor
                ok = peak <= bound
                over += not ok
                print(f"| {name} | {limit} | {peak:.0f} MiB | {peak * MIB / size(limit):.2f} | "
                      f"{wall:.1f} s | {'yes' if ok else 'NO'} | {'; '.join(warnings)[:120]} |",
                      flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if over else 0


if __name__ == "__main__":
    main()
