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


def wait_for(fd, path, count, pattern, timeout=120):
    """Drains the pty until the log has `count` lines matching `pattern`."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if sum(1 for l in log_lines(path) if re.search(pattern, l)) >= count:
            return
        drain(fd, 0.02)
    sys.exit(f"timed out waiting for {count} × {pattern!r} in {path}")


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

    pid, fd = pty.fork()
    if pid == 0:
        os.execv(exe, [exe, data, *flags, "--log", log])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 45, 160, 0, 0))
    wait_for(fd, log, 1, r"banded b=")
    os.write(fd, b"t")
    keys = a.keys.split()
    for i, key in enumerate(keys):
        os.write(fd, key.encode())
        wait_for(fd, log, i + 2, r"banded b=")
        drain(fd, 0.3)
    if a.docs <= ALL_PAIRS_DOCS:
        wait_for(fd, log, 1, r"all-pairs similarity")
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
    for setting, ms in times:
        print(f"{setting:>12}  {ms:6.0f} ms")
    ms = [t for _, t in times]
    if ms:
        print(
            f"re-bands: {len(ms)}, median {statistics.median(ms):.0f} ms, "
            f"max {max(ms):.0f} ms, under 50 ms: {sum(t < 50 for t in ms)}; "
            f"list refresh on the UI thread: max {max(refresh, default=0):.1f} ms"
        )

    p = subprocess.Popen([exe, "pairs", data, *flags], stdout=subprocess.DEVNULL)
    _, _, usage = os.wait4(p.pid, 0)
    headless = usage.ru_maxrss / 1024
    print(
        f"peak RSS: explorer {peak:.0f} MiB, simtui pairs {headless:.0f} MiB "
        f"({peak / headless:.2f}×); explorer exit status {status}"
    )


if __name__ == "__main__":
    main()
