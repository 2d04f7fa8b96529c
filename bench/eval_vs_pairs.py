#!/usr/bin/env python3
"""`simtui eval` (which computes the exact pairs) against `simtui pairs` on one corpus:
the CPU time (user + system, of the process and its threads) of each, medians over
--runs, and their ratio; several builds side by side, run in turn, so that they share
the machine's load. The load average is printed: the machine is shared.

    python3 bench/eval_vs_pairs.py CORPUS before=OLD_BINARY after=NEW_BINARY [--runs 5]

Extra flags for both commands go after --, e.g. `-- --unit char -k 9` (the default).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def cpu(cmd):
    """CPU seconds and wall seconds of one run."""
    start = time.time()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        sys.exit(f"failed ({status}): {' '.join(cmd)}")
    return usage.ru_utime + usage.ru_stime, time.time() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("builds", nargs="+", help="LABEL=BINARY")
    ap.add_argument("--runs", type=int, default=5)
    args, extra = ap.parse_known_args()
    flags = [f for f in extra if f != "--"] or ["--unit", "char", "-k", "9"]
    builds = [b.split("=", 1) for b in args.builds]
    times = {}
    print("load average before:", " ".join(open("/proc/loadavg").read().split()[:3]))
    for _ in range(args.runs):
        for label, exe in builds:
            for command, more in (("pairs", []), ("eval", ["--format", "jsonl"])):
                cmd = [exe, command, *flags, args.corpus, *more]
                times.setdefault((label, command), []).append(cpu(cmd))
    print("load average after:", " ".join(open("/proc/loadavg").read().split()[:3]))
    for label, _ in builds:
        pairs = statistics.median(c for c, _ in times[(label, "pairs")])
        ev = statistics.median(c for c, _ in times[(label, "eval")])
        wall = statistics.median(w for _, w in times[(label, "eval")])
        print(f"{label}: pairs CPU {pairs:.2f} s, eval CPU {ev:.2f} s (wall {wall:.2f} s), "
              f"eval/pairs {ev / pairs:.2f}x")


if __name__ == "__main__":
    sys.exit(main())
