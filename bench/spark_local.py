#!/usr/bin/env python3
"""The Spark job in local mode against `simtui pairs` on the same corpus: wall time of
each, the job's seconds per stage, and the sketch stage's documents per second per core.

    spark/.venv/bin/python bench/spark_local.py            # 50,000 documents, local[2]
    spark/.venv/bin/python bench/spark_local.py --docs 20000 --cores 1
    git show main:spark/simtui_spark.py > /tmp/before.py
    spark/.venv/bin/python bench/spark_local.py --docs 20000 --before /tmp/before.py

--before JOB: also runs an earlier version of the job in the same run, for a
before/after table (given --wheel, or --simtui when it is one that pipes partitions
through the binary). --repeat N: each job N times, alternating, medians reported.
Each job's CPU time is its processes' (spark-submit's JVM and the Python workers it
waited for), user + system.
The corpus (`simtui gen`, ~300 words a document) is written once under bench/data/ as
JSON Lines shards. Needs Java and pyspark with pyarrow (`.ci/spark-setup`), the release
binary (built when missing) and the release wheel (`crates/simtui-py/build-wheel.sh
--release`, rebuilt here into target/release-wheel unless --wheel is given).
"""
import argparse
import glob
import json
import os
import resource
import statistics
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


def release_wheel():
    """The release wheel of this tree, (re)built into target/release-wheel (cargo's
    no-op when nothing changed)."""
    dist = os.path.join(ROOT, "target", "release-wheel")
    subprocess.run([os.path.join(ROOT, "crates", "simtui-py", "build-wheel.sh"), "--release"],
                   check=True, stdout=subprocess.DEVNULL, env=dict(os.environ, SIMTUI_WHEEL_OUT=dist))
    return sorted(glob.glob(os.path.join(dist, "simtui-*.whl")))[-1]


def run_job(job, data, cores, flags, ship):
    """spark-submit of `job` on the corpus: (wall seconds, its report)."""
    submit = os.path.join(os.path.dirname(sys.executable), "spark-submit")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        p = subprocess.run([submit, "--master", f"local[{cores}]", "--driver-memory", "4g",
                            "--conf", "spark.ui.enabled=false", job, "--input", data,
                            "--id-field", "id", "--output", out, *ship, *flags],
                           capture_output=True, text=True,
                           env=dict(os.environ, PYSPARK_PYTHON=sys.executable))
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode != 0:
            sys.exit(p.stderr[-3000:])
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return wall, cpu, json.loads(p.stdout.strip().splitlines()[-1])


def run_warm(job, data, cores, ship):
    """bench/spark_warm.py on the corpus: the sketch, band and verify stages timed warm."""
    submit = os.path.join(os.path.dirname(sys.executable), "spark-submit")
    p = subprocess.run([submit, "--master", f"local[{cores}]", "--driver-memory", "4g",
                        "--conf", "spark.ui.enabled=false",
                        os.path.join(ROOT, "bench", "spark_warm.py"), job, "--input", data, *ship],
                       capture_output=True, text=True,
                       env=dict(os.environ, PYSPARK_PYTHON=sys.executable))
    if p.returncode != 0:
        sys.exit(p.stderr[-3000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


def module_rate(wheel, part):
    """The module's sketch_batch alone on one shard, one thread: documents per second."""
    code = """
import sys, time, zipfile, tempfile, pyarrow.json as pj
d = tempfile.mkdtemp()
zipfile.ZipFile(sys.argv[1]).extractall(d, [m for m in zipfile.ZipFile(sys.argv[1]).namelist() if m.startswith("simtui/")])
sys.path.insert(0, d)
import simtui.batches as sb
t = pj.read_json(sys.argv[2])
t0 = time.perf_counter()
out = sb.sketch_batch(t.column("id"), t.column("text"))
print(out.num_rows, time.perf_counter() - t0)
"""
    p = subprocess.run([sys.executable, "-c", code, wheel, part], capture_output=True, text=True,
                       check=True, env=dict(os.environ, RAYON_NUM_THREADS="1"))
    docs, secs = p.stdout.split()
    return int(docs), float(secs)


def medians(runs):
    """Median wall and CPU seconds of a job's runs, and a report whose stages are each
    stage's median (the other fields are the same in every run)."""
    report = dict(runs[0][2])
    report["seconds"] = {stage: statistics.median(r[2]["seconds"][stage] for r in runs)
                         for stage in report["seconds"]}
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), report


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=50_000)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--exe", default=os.path.join(ROOT, "target", "release", "simtui"))
    ap.add_argument("--wheel", default=None, help="default: this tree's, built into target/release-wheel")
    ap.add_argument("--before", default=None, help="an earlier job, run too")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each job (medians reported)")
    args = ap.parse_args()
    if not os.path.exists(args.exe):
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    wheel = args.wheel or release_wheel()
    data = shards(args.exe, args.docs, 8)
    flags = ["--bands", "16", "--rows", "8", "--threshold", "0.8"]

    t = time.perf_counter()
    p = subprocess.run([args.exe, "--no-config", "pairs", data, "--id-field", "id", "-b", "16", "-r", "8",
                        "-t", "0.8", "--format", "jsonl"], capture_output=True, check=True)
    simtui_wall = time.perf_counter() - t
    simtui_pairs = len(p.stdout.splitlines())

    # The sketch step alone, one process on one core: its rate per core.
    part = os.path.join(data, "part-000.jsonl")
    t = time.perf_counter()
    with open(part, "rb") as f:
        one = subprocess.run([args.exe, "--no-config", "sketch", "--stdin", "--format", "jsonl",
                              "--id-field", "id"], input=f.read(), capture_output=True, check=True,
                             env=dict(os.environ, RAYON_NUM_THREADS="1"))
    one_wall = time.perf_counter() - t
    one_docs = len(one.stdout.splitlines())
    mod_docs, mod_wall = module_rate(wheel, part)

    jobs = []
    if args.before:
        with open(args.before) as f:
            piped = "def pipe_partition" in f.read()
        jobs.append(("before", args.before, ["--simtui", args.exe] if piped else ["--wheel", wheel]))
    jobs.append(("after", os.path.join(ROOT, "spark", "simtui_spark.py"), ["--wheel", wheel]))
    load_before = os.getloadavg()[0]
    timed = {label: [] for label, _, _ in jobs}
    for _ in range(args.repeat):
        for label, job, ship in jobs:
            timed[label].append(run_job(job, data, args.cores, flags, ship))
            print(f"  {label}: {timed[label][-1][0]:.1f} s wall, {timed[label][-1][1]:.1f} s CPU, "
                  f"stages {json.dumps(timed[label][-1][2]['seconds'])}; load {os.getloadavg()[0]:.1f}",
                  file=sys.stderr)
    runs = [(label, *medians(timed[label])) for label, _, _ in jobs]
    warm = [(label, run_warm(job, data, args.cores, ship)) for label, job, ship in jobs]

    print(f"corpus: {data} ({args.docs:,} documents); load average {load_before:.1f} at the start")
    print(f"simtui pairs -b 16 -r 8 -t 0.8: {simtui_wall:.2f} s wall, {simtui_pairs:,} pairs")
    print(f"simtui sketch --stdin, one process, one thread: {one_docs:,} documents in {one_wall:.2f} s = "
          f"{one_docs / one_wall:,.0f} documents/s")
    print(f"simtui.batches.sketch_batch, one thread: {mod_docs:,} documents in {mod_wall:.2f} s = "
          f"{mod_docs / mod_wall:,.0f} documents/s")
    for label, wall, cpu, report in runs:
        sk = report["seconds"]["sketch"]
        print(f"Spark local[{args.cores}] {label}, median of {args.repeat}: {wall:.2f} s wall "
              f"(JVM start included) = {wall / simtui_wall:.1f}x simtui pairs; {cpu:.1f} s CPU; "
              f"{report['pairs']:,} pairs; "
              f"stages {json.dumps(report['seconds'])}; sketch stage {args.docs / sk:,.0f} documents/s "
              f"on {args.cores} cores = {args.docs / sk / args.cores:,.0f} per core")
    for label, report in warm:
        sec = report["seconds"]
        rates = ", ".join(f"{stage} {sec[stage]:.2f} s = {args.docs / sec[stage] / args.cores:,.0f} documents/s per core"
                          for stage in ("sketch", "band", "verify"))
        print(f"warm (second run in one session) {label}: {rates}; {report['pairs']:,} pairs")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
