#!/usr/bin/env python3
"""Many copies of one page: time, peak RSS and output size of `clusters --dupes` and
`pairs` on corpora of N identical or N near-identical documents (one word added to each)
among 10,000 ordinary ones; and the explorer's: the time until its list shows the copies
as one row, and its peak RSS.

    python3 bench/many_copies.py                     # N = 5,000, 20,000, 100,000
    python3 bench/many_copies.py --sizes 5000 --exe target/release/simtui
    python3 bench/many_copies.py --explorer-only --sizes 20000
    python3 bench/many_copies.py --only clusters --kinds near --sizes 5000 20000 --runs 3

The corpora are written under bench/data/ (git-ignored) once. `pairs` writes CSV into a
pipe whose bytes are counted; where the pairs run to billions (100,000 identical copies:
5 billion pairs), it is run with --max-pairs and reported as capped; near-identical
copies' pairs past 20,000 are run with --max-bucket (their candidates grow as N²).
"""
import argparse
import fcntl
import os
import pty
import select
import struct
import termios
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "bench", "data")
PAGE_WORDS = 300


def page(seed):
    words = []
    x = seed * 2654435761 + 1
    for _ in range(PAGE_WORDS):
        x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
        words.append("w%d" % (x >> 52))
    return " ".join(words)


def corpus(exe, kind, n):
    path = os.path.join(DATA, f"copies-{kind}-{n}")
    done = os.path.join(path, ".complete")
    if os.path.exists(done):
        return path
    os.makedirs(path, exist_ok=True)
    others = os.path.join(path, "others")
    if not os.path.exists(others):
        subprocess.run([exe, "gen", others, "--docs", "10000", "--seed", "3"],
                       check=True, capture_output=True)
    copies = os.path.join(path, "copies")
    os.makedirs(copies, exist_ok=True)
    text = page(7)
    for i in range(n):
        sub = os.path.join(copies, "%03d" % (i // 1000))
        os.makedirs(sub, exist_ok=True)
        body = text if kind == "identical" else "%s added%d" % (text, i)
        with open(os.path.join(sub, "c%06d.txt" % i), "w") as f:
            f.write(body)
    open(done, "w").close()
    return path


def measure(cmd):
    """(seconds, peak RSS MiB, stdout bytes, exit status, stderr tail) of a command."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    size = 0
    while True:
        chunk = p.stdout.read(1 << 20)
        if not chunk:
            break
        size += len(chunk)
    err = p.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024, size, code, err.strip().splitlines()[-1:] if err else []


def explore(exe, path, marker, timeout=300):
    """(seconds until `marker` is on screen, peak RSS MiB, exit status) of the explorer
    on `path` in a pseudo-terminal of 120x40; None for the time if it never shows."""
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(exe, [exe, "--no-config", "--no-mouse", path])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    seen, shown, peak = b"", None, 0
    while time.perf_counter() - start < timeout:
        ready, _, _ = select.select([fd], [], [], 0.05)
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]) / 1024)
        except OSError:
            break
        if ready:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                break
            seen = (seen + chunk)[-(1 << 16):]
            if shown is None and marker.encode() in seen:
                shown = time.perf_counter() - start
                os.write(fd, b"q")
    if shown is None:
        os.kill(pid, 9)
    while True:  # drain until it exits, so it never blocks on a full pty
        try:
            if not os.read(fd, 1 << 16):
                break
        except OSError:
            break
    _, status = os.waitpid(pid, 0)
    return shown, peak, os.waitstatus_to_exitcode(status)


def human(n):
    for unit in ["B", "KB", "MB", "GB"]:
        if n < 1000:
            return f"{n:.0f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[5000, 20000, 100000])
    ap.add_argument("--exe", default=os.path.join(ROOT, "target", "release", "simtui"))
    ap.add_argument("--explorer-only", action="store_true", help="only the explorer's runs")
    ap.add_argument("--only", choices=["clusters", "pairs"], help="only this command's runs (no explorer)")
    ap.add_argument("--kinds", nargs="+", default=["identical", "near"], choices=["identical", "near"])
    ap.add_argument("--runs", type=int, default=1, help="runs of each command (the median is shown)")
    args = ap.parse_args()
    if not os.path.exists(args.exe):
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    print("| copies | command | time | peak RSS | output | note |")
    print("|---|---|---|---|---|---|")
    for kind in args.kinds:
        for n in args.sizes:
            path = corpus(args.exe, kind, n)
            marker = "identical documents" if kind == "identical" else "not compared"
            if not args.only:
                shown, peak, code = explore(args.exe, path, marker)
                took = f"{shown:.2f} s" if shown is not None else "never"
                print(f"| {n:,} {kind} | explorer, until the copies' row shows | {took} | {peak:.0f} MiB | | exit {code} |")
                sys.stdout.flush()
            if args.explorer_only:
                continue
            runs = [("clusters -t 0.8 --dupes", ["clusters", path, "-t", "0.8", "--dupes"])]
            pairs = ["pairs", path, "-t", "0.8", "--format", "csv"]
            if kind == "identical" and n > 20000:
                runs.append(("pairs -t 0.8 --max-pairs 10^7", pairs + ["--max-pairs", "10000000"]))
            elif kind == "near" and n > 20000:
                runs.append(("pairs -t 0.8 --max-bucket 1000", pairs + ["--max-bucket", "1000"]))
            else:
                runs.append(("pairs -t 0.8 (csv)", pairs))
            for name, cmd in runs:
                if args.only and not name.startswith(args.only):
                    continue
                tries = sorted((measure([args.exe, "--no-config", *cmd]) for _ in range(args.runs)),
                               key=lambda r: r[0])
                wall, rss, size, code, err = tries[len(tries) // 2]
                note = "exit %d" % code + (": " + err[0][:80] if err and code else "")
                print(f"| {n:,} {kind} | `{name}` | {wall:.2f} s | {rss:.0f} MiB | {human(size)} | {note} |")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
