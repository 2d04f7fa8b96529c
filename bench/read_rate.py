#!/usr/bin/env python3
"""Read rate of one set of articles in four shapes: plain files in a folder, one JSON
Lines file, one SGML file (Reuters-21578's markup) and one Parquet file.

    python3 bench/read_rate.py                     # 20,000 articles (~30 MB), 3 runs
    python3 bench/read_rate.py --docs 5000 --runs 5 --exe target/release/simtui

The articles are `simtui gen --text english` documents (real English sentences), each
given a title (its first words); every shape holds the same title and body:

  files/     d000/00000.txt ...: the title, a blank line, the body
  a.jsonl    {"id", "title", "text"} per line (text: the title, a blank line, the body)
  a.sgm      <REUTERS NEWID=".."><TEXT><TITLE>..</TITLE><BODY>..</BODY></TEXT></REUTERS>
  a.parquet  id, title, text (as the JSON Lines), zstd, written with pyarrow

Each is read by `simtui pairs INPUT -vv --stats` (one warm-up run for the page cache,
then --runs runs); the script prints the median of the read stage (and of the walk and
the whole run), MB/s of article text (title and body, the same bytes in every shape) and
the SGML/plain ratio of the read stage. Parquet needs pyarrow: the script uses the one
it runs under, else bench/.venv's (`python3 -m venv bench/.venv && bench/.venv/bin/pip
install pyarrow`; git-ignored); without either it says so and leaves Parquet out. The
corpus goes to bench/data/ (git-ignored) and is made once.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from xml.sax.saxutils import escape

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PYTHON = os.path.join(ROOT, "bench", ".venv", "bin", "python")


def articles(exe, tmp, docs, words, seed):
    """(id, title, body) of each generated document, in the generator's order."""
    subprocess.run([exe, "--no-config", "gen", tmp, "--docs", str(docs), "--words", str(words),
                    "--seed", str(seed), "--text", "english"], check=True, capture_output=True)
    out = []
    for d, dirs, files in os.walk(tmp):
        dirs.sort()
        for f in sorted(files):
            with open(os.path.join(d, f), encoding="utf-8") as fh:
                body = " ".join(fh.read().split())
            title = " ".join(body.split()[:7]).rstrip(",;.").title()
            out.append((str(len(out) + 1), title, body))
    return out


def write_all(exe, data, docs, words, seed):
    gen = os.path.join(data, "gen")
    arts = articles(exe, gen, docs, words, seed)
    subprocess.run(["rm", "-rf", gen], check=True)
    text = lambda t, b: f"{t}\n\n{b}\n"
    for i, (id_, t, b) in enumerate(arts):
        folder = os.path.join(data, "files", "d%03d" % (i // 1000))
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "%05d.txt" % i), "w", encoding="utf-8") as fh:
            fh.write(text(t, b))
    with open(os.path.join(data, "a.jsonl"), "w", encoding="utf-8") as fh:
        for id_, t, b in arts:
            fh.write(json.dumps({"id": id_, "title": t, "text": text(t, b)}) + "\n")
    with open(os.path.join(data, "a.sgm"), "w", encoding="utf-8") as fh:
        fh.write('<!DOCTYPE lewis SYSTEM "lewis.dtd">\n')
        for id_, t, b in arts:
            fh.write(f'<REUTERS TOPICS="NO" NEWID="{id_}">\n<DATE>26-FEB-1987 15:01:01.79</DATE>\n'
                     f"<TEXT>\n<TITLE>{escape(t)}</TITLE>\n<BODY>{escape(b)}\n</BODY></TEXT>\n"
                     "</REUTERS>\n")
    with open(os.path.join(data, "articles.json"), "w", encoding="utf-8") as fh:
        json.dump({"docs": len(arts), "text_bytes": sum(len(text(t, b).encode()) for _, t, b in arts)}, fh)


def pyarrow_python():
    for py in (sys.executable, VENV_PYTHON):
        if os.path.exists(py) and subprocess.run([py, "-c", "import pyarrow"],
                                                 capture_output=True).returncode == 0:
            return py
    return None


PARQUET_WRITER = """
import json, sys
import pyarrow as pa, pyarrow.parquet as pq
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
table = pa.table({k: [r[k] for r in rows] for k in ("id", "title", "text")})
pq.write_table(table, sys.argv[2], compression="zstd", row_group_size=4096)
"""


def timed(cmd):
    """(wall seconds, stderr) of one run."""
    start = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr.decode()[-2000:]}")
    return wall, p.stderr.decode()


def stages(stats):
    """The stage times of --stats' `time` line, in seconds."""
    m = re.search(r"^time\s+(.*)$", stats, re.M)
    if not m:
        sys.exit("no `time` line in --stats:\n" + stats[-2000:])
    return {k: float(v) for k, v in re.findall(r"(\w+) ([\d.]+) s", m.group(1))}


def documents(stats):
    m = re.search(r"^documents\s+([\d,]+)", stats, re.M)
    return int(m.group(1).replace(",", "")) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=20_000)
    ap.add_argument("--words", type=int, default=240)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--exe", help="the simtui binary (default: build this checkout's release)")
    a = ap.parse_args()

    exe = a.exe
    if exe is None:
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
        exe = os.path.join(ROOT, "target", "release", "simtui")
    exe = os.path.abspath(exe)
    data = os.path.join(ROOT, "bench", "data", f"articles{a.docs}-w{a.words}-s{a.seed}")
    if not os.path.exists(os.path.join(data, "articles.json")):
        os.makedirs(data, exist_ok=True)
        write_all(exe, data, a.docs, a.words, a.seed)
    meta = json.load(open(os.path.join(data, "articles.json")))
    parquet = os.path.join(data, "a.parquet")
    if not os.path.exists(parquet):
        py = pyarrow_python()
        if py:
            subprocess.run([py, "-c", PARQUET_WRITER, os.path.join(data, "a.jsonl"), parquet], check=True)
        else:
            print("no pyarrow (here or in bench/.venv): Parquet left out", file=sys.stderr)

    size = lambda p: (sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(p) for f in fs)
                      if os.path.isdir(p) else os.path.getsize(p))
    shapes = [("plain files", os.path.join(data, "files"), []),
              ("JSON Lines", os.path.join(data, "a.jsonl"), ["--id-field", "id", "--title-field", "title"]),
              ("SGML", os.path.join(data, "a.sgm"), []),
              ("Parquet", parquet, ["--id-field", "id", "--title-field", "title"])]
    mb = meta["text_bytes"] / 1e6
    print(f"{meta['docs']:,} articles, {mb:.1f} MB of text; simtui {exe}; median of {a.runs} runs "
          f"after a warm-up")
    print(f"command: simtui pairs INPUT -vv --stats [--id-field id --title-field title]")
    print(f"| input | on disk | documents | read | read MB/s | walk | total |")
    print(f"| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    reads = {}
    for label, path, flags in shapes:
        if not os.path.exists(path):
            continue
        cmd = [exe, "--no-config", "pairs", path, "-vv", "--stats", "--format", "jsonl", *flags]
        timed(cmd)
        runs = [timed(cmd) for _ in range(a.runs)]
        st = [stages(err) for _, err in runs]
        med = lambda k: statistics.median(s.get(k, 0.0) for s in st)
        n = documents(runs[0][1])
        if n != meta["docs"]:
            # Said, not hidden: a rate over documents not read means nothing.
            print(f"| {label} | {size(path) / 1e6:.1f} MB | {n:,} of {meta['docs']:,} read: "
                  f"not measured | | | |")
            print(runs[0][1][-1500:], file=sys.stderr)
            continue
        reads[label] = med("read")
        print(f"| {label} | {size(path) / 1e6:.1f} MB | {n:,} | {med('read'):.3f} s | "
              f"{mb / med('read'):.0f} | {med('walk'):.3f} s | {med('total'):.3f} s |")
    if "SGML" in reads and "plain files" in reads:
        print(f"SGML/plain read: {reads['SGML'] / reads['plain files']:.2f}x (target: within 1.5x)")


if __name__ == "__main__":
    main()
