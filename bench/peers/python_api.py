#!/usr/bin/env python3
"""simtui's Python module against rensa and datasketch on the same job, from the same
Python strings: a list of 50,000 texts in memory (the corpus of run.py), 5-word
shingles, 128 functions, 16 bands x 8 rows, every candidate verified with exact
Jaccard. Each tool runs in its own process per round, rounds alternate the order; the
table gives medians of the time from the list of str to the verified pairs (imports and
reading the files not counted), and recall against the exact pairs (run.py's truth).

    python3 bench/peers/python_api.py                    # 50,000 texts, 3 rounds
    python3 bench/peers/python_api.py --docs 5000 --runs 1

Rows: simtui (simtui.pairs on the list), simtui-arrow (on a pyarrow string array made
from the list before the clock starts), rensa and datasketch (run.py's fastest paths,
after run.py's Python front end: tokens, 5-word shingles as bytes, sets).
Needs bench/peers/.venv (run.py makes it; requirements.txt pins rensa, datasketch and
pyarrow) and cargo and maturin: the release wheel is built here into
target/release-wheel (crates/simtui-py/build-wheel.sh --release) and installed there.
"""

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run as peers  # noqa: E402  (run.py: the corpus, truth, venv and the peers' paths)

# The release wheel, built apart from the tests' debug one (crates/simtui-py/dist).
WHEELS = os.path.join(peers.ROOT, "target", "release-wheel")
TOOLS = ["simtui", "simtui-arrow", "rensa", "datasketch"]


def texts_of(root: str):
    ids, texts = [], []
    for doc_id, path in peers.walk(root):
        with open(path, encoding="utf-8") as f:
            ids.append(doc_id)
            texts.append(f.read())
    return ids, texts


def worker(tool: str, root: str, out: str, seed: int) -> None:
    ids, texts = texts_of(root)
    peers.HASH_SEED = seed
    if tool.startswith("simtui"):
        import simtui

        data = texts
        if tool == "simtui-arrow":
            import pyarrow as pa

            data = pa.array(texts, type=pa.string())
        start = time.perf_counter()
        table = simtui.pairs(data, ids, k=peers.K, bands=peers.BANDS, rows=peers.ROWS, seed=seed)
        total = time.perf_counter() - start
        pairs = list(zip(table.column("a").to_pylist(), table.column("b").to_pylist()))
    else:
        start = time.perf_counter()
        keep, sets = [], []
        for i, t in enumerate(texts):
            s = peers.shingles(peers.tokens(t.encode()))
            if s:
                keep.append(ids[i])
                sets.append(s)
        run = peers.run_rensa if tool == "rensa" else peers.run_datasketch
        candidates = run(sets)[0]
        verified = peers.verify(sets, candidates)
        total = time.perf_counter() - start
        pairs = [(keep[i], keep[j]) for i, j, _ in verified]
    with open(out, "w") as f:
        json.dump({"total": total, "pairs": pairs}, f)


def ensure_wheel(wheel=None) -> None:
    """`wheel`, else this tree's release wheel, (re)built (cargo's no-op when nothing
    changed), installed into the peers' environment (pyarrow pinned by requirements.txt)."""
    if wheel is None:
        build = os.path.join(peers.ROOT, "crates", "simtui-py", "build-wheel.sh")
        peers.sh([build, "--release"], env=dict(os.environ, SIMTUI_WHEEL_OUT=WHEELS))
        wheel = glob.glob(os.path.join(WHEELS, "simtui-*.whl"))[0]
    peers.sh([peers.VPY, "-m", "pip", "install", "--quiet", "--force-reinstall", "--no-deps", wheel])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=50000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--wheel", default=None, help="a release wheel built already")
    a = ap.parse_args()
    tools = a.tools.split(",")
    peers.ensure_venv()
    ensure_wheel(a.wheel)
    if not os.path.exists(peers.EXE):
        peers.sh(["cargo", "build", "--release", "--manifest-path", os.path.join(peers.ROOT, "Cargo.toml")])
        os.makedirs(peers.DATA, exist_ok=True)
        subprocess.run(["cp", peers.BUILT, peers.EXE], check=True)
    root = peers.corpus(a.docs)
    truth = peers.ground_truth(root)
    results = {t: [] for t in tools}
    for r in range(a.runs):
        for tool in tools[r % len(tools):] + tools[: r % len(tools)]:
            out = os.path.join(peers.DATA, f"python-api-{tool}.json")
            subprocess.run([peers.VPY, __file__, "_worker", tool, root, out, str(peers.SEED + r)], check=True)
            with open(out) as f:
                res = json.load(f)
            res["recall"] = peers.recall(truth, [tuple(p) for p in res.pop("pairs")])
            results[tool].append(res)
            print(f"round {r + 1}: {tool} {res['total']:.2f} s", flush=True)
    med = {t: statistics.median(x["total"] for x in rs) for t, rs in results.items()}
    base = med.get("simtui")
    print(f"\n{a.docs:,} texts from a Python list, medians of {a.runs} rounds:\n")
    print("| tool | total (s) | texts/s | R@0.5 | R@0.8 | ÷ simtui |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for t, rs in results.items():
        r05 = statistics.mean(x["recall"][0.5] for x in rs)
        r08 = statistics.mean(x["recall"][0.8] for x in rs)
        ratio = f"{med[t] / base:.1f}×" if base else "–"
        print(f"| {t} | {med[t]:.2f} | {a.docs / med[t]:,.0f} | {r05:.4f} | {r08:.4f} | {ratio} |")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_worker":
        worker(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        main()
