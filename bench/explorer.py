#!/usr/bin/env python3
"""End-to-end benchmark of the explorer's re-banding, and its memory against `simtui pairs`.

Builds the release binary, generates the corpus once (bench/data/, git-ignored), starts
`simtui DIR --log FILE` in a pseudo-terminal (no tmux needed), waits for the first pairs,
opens the tuning panel and presses b/B/r/R keys one at a time, each after the previous
re-band has landed. For each key it reports the time from the key press to the result on
the UI thread (the log's "re-band requested" and "banded" lines, stamped by the explorer
itself) and the UI thread's list refresh after it, then the explorer's peak RSS (VmHWM) against that of `simtui pairs` on the same
corpus.

    python3 bench/explorer.py                    # 100,000 documents of ~300 words
    python3 bench/explorer.py --docs 20000 --words 200 --seed 4   # with exact all pairs

With --index FILE the explorer (and `simtui pairs` beside it) opens that saved index
(`simtui index DIR -o FILE` writes it), and with --memory SIZE both keep to that limit;
--corpus DIR measures an existing corpus (give its size with --docs):

    python3 bench/explorer.py --corpus bench/data/memory-200000x300 --docs 200000 \
        --index /tmp/c.simtui --memory 64M --keys ""

The peak is read after the last re-band (and, up to 20,000 documents, once the exact
pairs behind real recall are known); --all-pairs waits for those at any size, so that
the peak covers them. --trace prints the RSS sampled before each line of the log (the
explorer runs with -vv: jobs' starts too), to see which job holds the memory.
"""
import argparse
import fcntl
import os
import pty
import re
import select
import statistics
import struct
import subprocess
import sys
import termios
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Stays within 128 functions from 16x8 (b/r add a band/row, B/R remove one).
KEYS = "B R r b B B R R r r b b R b B r"
# Corpora up to this size also get the exact similarity of all pairs (the tuning panel's
# real recall, src/tui/recall.rs MAX_DOCS): the peak is read once that is done.
ALL_PAIRS_DOCS = 20_000


def drain(fd, seconds):
    """Reads whatever the explorer draws for `seconds`, so it never blocks on a full pty."""
    end = time.monotonic() + seconds
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                os.read(fd, 65536)
            except OSError:
                return


def log_lines(path):
    try:
        with open(path) as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []


# (seconds since the explorer started, its RSS in MiB), sampled while waiting (--trace).
TRACE = []
STARTED = time.monotonic()


def rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1)) / 1024
    except (OSError, AttributeError):
        return 0.0


def wait_for(fd, path, count, pattern, timeout=120, pid=None):
    """Drains the pty until the log has `count` lines matching `pattern` (sampling the
    RSS of `pid` meanwhile, if given)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if sum(1 for l in log_lines(path) if re.search(pattern, l)) >= count:
            return
        drain(fd, 0.02)
        if pid is not None:
            TRACE.append((time.monotonic() - STARTED, rss_mib(pid)))
    sys.exit(f"timed out waiting for {count} × {pattern!r} in {path}")


def print_trace(path):
    """Each log line with the highest RSS sampled since the line before it: where the
    memory goes."""
    samples = iter(TRACE)
    sample = next(samples, None)
    for line in log_lines(path):
        m = re.match(r"\s*([\d.]+) (.*)", line)
        if not m:
            continue
        t, top = float(m.group(1)), 0.0
        while sample is not None and sample[0] <= t:
            top = max(top, sample[1])
            sample = next(samples, None)
        print(f"  {top:6.0f} MiB before {t:8.2f} s {m.group(2)[:90]}")
    rest = [r for _, r in ([sample] if sample else []) + list(samples)]
    if rest:
        print(f"  {max(rest):6.0f} MiB after the last line")


def peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        kb = int(re.search(r"VmHWM:\s+(\d+) kB", f.read()).group(1))
    return kb / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--words", type=int, default=300)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--keys", default=KEYS, help="tuning keys, space-separated")
    ap.add_argument("--exe", help="measure this simtui binary (no build), e.g. an older one to compare")
    ap.add_argument("--corpus", help="an existing corpus instead of a generated one")
    ap.add_argument("--index", help="open this saved index (--index FILE) instead of --no-index")
    ap.add_argument("--memory", help="--memory SIZE for the explorer and simtui pairs")
    ap.add_argument(
        "--all-pairs",
        action="store_true",
        help="wait for the exact all-pairs job (real recall) at any size before reading the peak",
    )
    ap.add_argument(
        "--trace", action="store_true", help="print the RSS sampled before each log line"
    )
    ap.add_argument(
        "--no-pairs", action="store_true", help="leave out the run of `simtui pairs` beside it"
    )
    a = ap.parse_args()
    flags = ["--index", a.index] if a.index else ["--no-index"]
    if a.memory:
        flags += ["--memory", a.memory]

    if a.exe:
        exe = os.path.abspath(a.exe)
    else:
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
        exe = os.path.join(ROOT, "target", "release", "simtui")
    data = a.corpus or os.path.join(ROOT, "bench", "data", f"gen{a.docs}-w{a.words}-s{a.seed}")
    if not os.path.isdir(data):
        os.makedirs(os.path.dirname(data), exist_ok=True)
        subprocess.run(
            [exe, "gen", data, "--docs", str(a.docs), "--words", str(a.words), "--seed", str(a.seed)],
            check=True,
        )
    log = os.path.join(ROOT, "bench", "data", "explorer.log")
    if os.path.exists(log):
        os.remove(log)

    global STARTED
    STARTED = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(exe, [exe, data, *flags, "--log", log, *(["-vv"] if a.trace else [])])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 45, 160, 0, 0))
    traced = pid if a.trace else None
    wait_for(fd, log, 1, r"banded b=", timeout=600, pid=traced)
    os.write(fd, b"t")
    keys = a.keys.split()
    for i, key in enumerate(keys):
        os.write(fd, key.encode())
        wait_for(fd, log, i + 2, r"banded b=", pid=traced)
        drain(fd, 0.3)
    if a.docs <= ALL_PAIRS_DOCS or a.all_pairs:
        # Its end: the pairs found, or why there are none.
        wait_for(fd, log, 1, r"exact pairs with J|all-pairs similarity", timeout=1200, pid=traced)
        drain(fd, 0.5)
    peak = peak_rss_mib(pid)
    os.write(fd, b"q")
    drain(fd, 0.5)
    _, status = os.waitpid(pid, 0)

    times, refresh, requested = [], [], None
    for line in log_lines(log):
        m = re.match(r"\s*([\d.]+) (.*)", line)
        if not m:
            continue
        t, msg = float(m.group(1)), m.group(2)
        m = re.match(r"list refreshed in ([\d.]+) ms", msg)
        if m:
            refresh.append(float(m.group(1)))
        if msg.startswith("re-band requested"):
            requested = t
        elif msg.startswith("banded b=") and requested is not None:
            setting = msg.split(":")[0].removeprefix("banded ")
            times.append((setting, (t - requested) * 1000))
            requested = None
    if a.trace:
        print_trace(log)
    for setting, ms in times:
        print(f"{setting:>12}  {ms:6.0f} ms")
    ms = [t for _, t in times]
    if ms:
        print(
            f"re-bands: {len(ms)}, median {statistics.median(ms):.0f} ms, "
            f"max {max(ms):.0f} ms, under 50 ms: {sum(t < 50 for t in ms)}; "
            f"list refresh on the UI thread: max {max(refresh, default=0):.1f} ms"
        )

    if a.no_pairs:
        print(f"peak RSS: explorer {peak:.0f} MiB; explorer exit status {status}")
        return
    p = subprocess.Popen([exe, "pairs", data, *flags], stdout=subprocess.DEVNULL)
    _, _, usage = os.wait4(p.pid, 0)
    headless = usage.ru_maxrss / 1024
    print(
        f"peak RSS: explorer {peak:.0f} MiB, simtui pairs {headless:.0f} MiB "
        f"({peak / headless:.2f}×); explorer exit status {status}"
    )


if __name__ == "__main__":
    main()
