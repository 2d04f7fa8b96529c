#!/usr/bin/env python3
"""End-to-end benchmark of `simtui pairs` on a generated corpus.

Builds the release binary, generates the corpus once (bench/data/, git-ignored), runs
`simtui pairs DIR --stats` several times (after one warm-up run, so the files are in
the page cache) and prints the median of each stage, documents/s, MB/s and peak RSS.

    python3 bench/e2e.py                 # 50,000 documents of ~300 words, 5 runs
    python3 bench/e2e.py --docs 5000 --runs 3 -- -k 3 --bands 32 --rows 4
    python3 bench/e2e.py --vs /tmp/simtui-old   # this build against another, runs paired

With --vs, the two binaries run in turn (A B A B ...), so a machine that speeds up or
slows down during the runs affects both; the ratio of walls is taken pair by pair.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def release_binary(given):
    """The simtui binary to run: `given`, or this checkout's, built for release."""
    if given:
        return given
    run(["cargo", "build", "--release", "--quiet"], cwd=ROOT)
    return os.path.join(ROOT, "target", "release", "simtui")


def generated(exe, name, docs, words, seed, extra=(), stdout=None):
    """bench/data/NAME (git-ignored): `simtui gen` writes it once, then it is reused."""
    data = os.path.join(ROOT, "bench", "data")
    corpus = os.path.join(data, name)
    if not os.path.isdir(corpus) or not os.listdir(corpus):
        os.makedirs(data, exist_ok=True)
        print(f"generating {docs} documents into {corpus} ...", flush=True)
        t = time.perf_counter()
        run([exe, "gen", corpus, "--docs", str(docs), "--words", str(words),
             "--seed", str(seed), *extra], stdout=stdout)
        print(f"  {time.perf_counter() - t:.0f} s", flush=True)
    return corpus


def timed(cmd, stdout=subprocess.DEVNULL):
    """Runs cmd (its output to `stdout`); returns (wall seconds, peak RSS in MiB, stderr
    text). Its CPU time (user + system) goes to CPU[id(cmd)], kept apart so that callers
    of this function keep its three values."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE)
    err = p.stderr.read().decode()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        sys.exit(f"failed ({status}): {' '.join(cmd)}\n{err}")
    CPU.setdefault(id(cmd), []).append(usage.ru_utime + usage.ru_stime)
    return wall, usage.ru_maxrss / 1024, err


# CPU seconds of each run, by the id of the command list timed: on a shared machine the
# CPU time moves less with the load than the wall time does.
CPU = {}


def stages(stats):
    m = re.search(r"^time\s+(.*)$", stats, re.M)
    return {k: float(v) for k, v in re.findall(r"(\w+) ([\d.]+) s", m.group(1))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=50_000)
    ap.add_argument("--words", type=int, default=300)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--exe", help="the simtui binary to time (default: build this checkout)")
    ap.add_argument("--vs", help="another simtui binary, timed in turn with the first")
    ap.add_argument("extra", nargs="*", help="flags passed to simtui pairs (after --)")
    a = ap.parse_args()

    exe = release_binary(a.exe)
    data = generated(exe, f"gen{a.docs}-w{a.words}-s{a.seed}", a.docs, a.words, a.seed)
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(data) for f in fs)

    cmd = [exe, "pairs", data, "--stats", "--format", "jsonl", *a.extra]
    if a.vs:
        return paired(cmd, [a.vs, *cmd[1:]], a.runs, a.docs)
    timed(cmd)  # warm-up: page cache
    results = [timed(cmd) for _ in range(a.runs)]
    walls = [w for w, _, _ in results]
    rss = [r for _, r, _ in results]
    per_stage = [stages(e) for _, _, e in results]
    med = statistics.median
    print(f"corpus: {data} ({a.docs} documents, {size / 1e6:.1f} MB); {a.runs} runs, medians")
    print(f"command: {' '.join(cmd[1:])}")
    for k in per_stage[0]:
        print(f"  {k:<8} {med(s[k] for s in per_stage):8.3f} s")
    w = med(walls)
    print(f"  {'wall':<8} {w:8.3f} s   (min {min(walls):.3f}, max {max(walls):.3f})")
    print(f"  {'cpu':<8} {med(CPU[id(cmd)][1:]):8.3f} s   (user + system)")
    print(f"documents/s: {a.docs / w:,.0f}   MB/s: {size / 1e6 / w:,.1f}   peak RSS: {med(rss):.0f} MiB")
    print(results[-1][2], end="")


def paired(cmd_a, cmd_b, runs, docs):
    """Runs A and B in turn; prints each one's medians and the median ratio A/B."""
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    timed(cmd_a)
    timed(cmd_b)  # warm-up: page cache, both binaries
    ra, rb = [], []
    for _ in range(runs):
        ra.append(timed(cmd_a))
        rb.append(timed(cmd_b))
    med = statistics.median
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name, cmd, rs in (("A", cmd_a, ra), ("B", cmd_b, rb)):
        walls = [w for w, _, _ in rs]
        print(f"{name}: {cmd[0]}: wall median {med(walls):.3f} s (min {min(walls):.3f}, "
              f"max {max(walls):.3f}), peak RSS median {med(r for _, r, _ in rs):.0f} MiB, "
              f"{docs / med(walls):,.0f} documents/s, CPU median {med(CPU[id(cmd)][1:]):.3f} s")
        per_stage = [stages(e) for _, _, e in rs]
        print("   stage medians: " + ", ".join(
            f"{k} {med(s[k] for s in per_stage):.3f} s" for k in per_stage[0]))
    ratios = [x[0] / y[0] for x, y in zip(ra, rb)]
    print(f"wall A/B pair by pair: median {med(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})")
    cpu = [x / y for x, y in zip(CPU[id(cmd_a)][1:], CPU[id(cmd_b)][1:])]
    print(f"CPU A/B pair by pair: median {med(cpu):.3f} (min {min(cpu):.3f}, max {max(cpu):.3f})")


if __name__ == "__main__":
    main()
