#!/usr/bin/env python3
"""The Spark job in local mode against `simtui pairs` on the same corpus: wall time of
each, the job's seconds per stage, and the sketch step's documents per second per core.

    spark/.venv/bin/python bench/spark_local.py            # 50,000 documents, local[2]
    spark/.venv/bin/python bench/spark_local.py --docs 20000 --cores 1

The corpus (`simtui gen`, ~300 words a document) is written once under bench/data/ as
JSON Lines shards. Needs Java and pyspark (`.ci/spark-setup`).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def shards(exe, docs, n_shards):
    out = os.path.join(ROOT, "bench", "data", f"jsonl{docs}-s42")
    if os.path.isdir(out):
        return out
    gen = out + ".gen"
    subprocess.run([exe, "gen", gen, "--docs", str(docs), "--seed", "42"], check=True, capture_output=True)
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(gen) for f in fs)
    os.makedirs(out)
    per = (len(files) + n_shards - 1) // n_shards
    for s in range(n_shards):
        with open(os.path.join(out, "part-%03d.jsonl" % s), "w") as w:
            for path in files[s * per:(s + 1) * per]:
                with open(path) as f:
                    w.write(json.dumps({"id": os.path.relpath(path, gen), "text": f.read()}) + "\n")
    shutil.rmtree(gen)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=50_000)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--exe", default=os.path.join(ROOT, "target", "release", "simtui"))
    args = ap.parse_args()
    if not os.path.exists(args.exe):
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    data = shards(args.exe, args.docs, 8)
    flags = ["--bands", "16", "--rows", "8", "--threshold", "0.8"]

    t = time.perf_counter()
    p = subprocess.run([args.exe, "--no-config", "pairs", data, "--id-field", "id", "-b", "16", "-r", "8",
                        "-t", "0.8", "--format", "jsonl"], capture_output=True, check=True)
    simtui_wall = time.perf_counter() - t
    simtui_pairs = len(p.stdout.splitlines())

    # The sketch step alone, one process on one core: its rate per core.
    t = time.perf_counter()
    with open(os.path.join(data, "part-000.jsonl"), "rb") as f:
        part = f.read()
    one = subprocess.run([args.exe, "--no-config", "sketch", "--stdin", "--format", "jsonl",
                          "--id-field", "id"],
                         input=part, capture_output=True, check=True)
    one_wall = time.perf_counter() - t
    one_docs = len(one.stdout.splitlines())
    one_bytes = len(one.stdout)

    submit = os.path.join(os.path.dirname(sys.executable), "spark-submit")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        t = time.perf_counter()
        job = subprocess.run([submit, "--master", f"local[{args.cores}]", "--driver-memory", "4g",
                              "--conf", "spark.ui.enabled=false",
                              os.path.join(ROOT, "spark", "simtui_spark.py"), "--input", data,
                              "--id-field", "id", "--output", out, "--simtui", args.exe, *flags],
                             capture_output=True, text=True,
                             env=dict(os.environ, PYSPARK_PYTHON=sys.executable))
        job_wall = time.perf_counter() - t
        if job.returncode != 0:
            sys.exit(job.stderr[-3000:])
        report = json.loads(job.stdout.strip().splitlines()[-1])

    print(f"corpus: {data} ({args.docs:,} documents)")
    print(f"simtui pairs -b 16 -r 8 -t 0.8: {simtui_wall:.2f} s wall, {simtui_pairs:,} pairs")
    print(f"Spark local[{args.cores}]: {job_wall:.2f} s wall (JVM start included), {report['pairs']:,} pairs; "
          f"stages {json.dumps(report['seconds'])}")
    print(f"simtui sketch --stdin, one process: {one_docs:,} documents in {one_wall:.2f} s = "
          f"{one_docs / one_wall:,.0f} documents/s on one core; {one_bytes / one_docs:,.0f} bytes of "
          f"sketch (JSON) a document")
    sk = report["seconds"]["sketch"]
    print(f"sketch stage inside Spark: {args.docs / sk:,.0f} documents/s on {args.cores} cores = "
          f"{args.docs / sk / args.cores:,.0f} per core")


if __name__ == "__main__":
    main()
