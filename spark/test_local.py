#!/usr/bin/env python3
"""The Spark job in local mode against simtui on one machine: the same pairs (ids, and J
to 1e-9) and the same clusters (members and kept document).

    spark/.venv/bin/python spark/test_local.py SIMTUI_BINARY --wheel WHEEL [--docs N]

Generates a corpus with `simtui gen`, writes it as JSON Lines shards sorted by id,
runs `spark-submit --master local[2] spark/simtui_spark.py --wheel WHEEL` on the shards
(simtui's module, from the wheel built from this tree, in the executors), runs
`simtui pairs` and `simtui clusters` on the same shards with the same flags, and
compares. Exit status 0 when everything agrees; 1 with the differences otherwise.
Run by `cargo test` (tests/spark_local.rs) when Java and pyspark are there.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def shards(simtui, tmp, docs, n_shards):
    corpus = os.path.join(tmp, "corpus")
    subprocess.run([simtui, "gen", corpus, "--docs", str(docs), "--seed", "11"],
                   check=True, capture_output=True)
    records = []
    for d, _, files in os.walk(corpus):
        for f in files:
            path = os.path.join(d, f)
            with open(path, encoding="utf-8") as fh:
                records.append({"id": os.path.relpath(path, corpus), "text": fh.read()})
    # A few exact copies and an empty text, so identical documents and empty ones are
    # covered too.
    records.sort(key=lambda r: r["id"])
    for i in range(5):
        records.append({"id": "zz-copy-%d" % i, "text": records[i * 7]["text"]})
    records.append({"id": "zz-empty", "text": ""})
    records.sort(key=lambda r: r["id"])
    out = os.path.join(tmp, "shards")
    os.makedirs(out)
    per = (len(records) + n_shards - 1) // n_shards
    for s in range(n_shards):
        with open(os.path.join(out, "part-%02d.jsonl" % s), "w", encoding="utf-8") as fh:
            for r in records[s * per:(s + 1) * per]:
                fh.write(json.dumps(r) + "\n")
    return out, len(records)


def run_job(wheel, data, out, flags, confs):
    submit = os.path.join(os.path.dirname(sys.executable), "spark-submit")
    cmd = [submit, "--master", "local[2]", "--conf", "spark.ui.enabled=false",
           "--conf", "spark.sql.shuffle.partitions=4",
           *[arg for conf in confs for arg in ("--conf", conf)],
           os.path.join(HERE, "simtui_spark.py"), "--input", data, "--text-field", "text",
           "--id-field", "id", "--output", out, "--wheel", wheel, *flags]
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    for attempt in (1, 2):
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if p.returncode == 0:
            break
        # Spark's INFO lines would push the cause out of the tail the test shows.
        said = "\n".join(l for l in p.stderr.splitlines() if " INFO " not in l)
        how = (f"killed by signal {-p.returncode}" if p.returncode < 0
               else f"exit status {p.returncode}")
        failure = f"the Spark job failed ({how}):\n{said[-4000:]}\nits output:\n{p.stdout[-2000:]}"
        if attempt == 2:
            sys.exit(failure)
        # One CI run saw the job end silently before its first task (no traceback);
        # the failure is shown and the job runs once more on a clean output folder.
        print("first attempt: " + failure, file=sys.stderr)
        shutil.rmtree(out, ignore_errors=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def read_parquet(spark, path):
    return [r.asDict() for r in spark.read.parquet(path).collect()]


def simtui_json(simtui, args):
    p = subprocess.run([simtui, "--no-config", *args, "--format", "jsonl"],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"simtui {' '.join(args)} failed: {p.stderr}")
    return [json.loads(line) for line in p.stdout.splitlines()]


def compare_pairs(spark_pairs, simtui_pairs):
    want = {(p["a"], p["b"]): p["jaccard"] for p in simtui_pairs}
    got = {(p["a"], p["b"]): p["jaccard"] for p in spark_pairs}
    problems = []
    for k in sorted(set(want) ^ set(got)):
        problems.append(f"pair {k}: {'only simtui' if k in want else 'only Spark'}")
    for k in sorted(set(want) & set(got)):
        if abs(want[k] - got[k]) > 1e-9:
            problems.append(f"pair {k}: J {want[k]} (simtui) vs {got[k]} (Spark)")
    return problems


def compare_clusters(spark_members, simtui_clusters):
    by_cluster = {}
    for m in spark_members:
        by_cluster.setdefault(m["cluster"], []).append(m)
    got = {}
    for members in by_cluster.values():
        got[frozenset(m["id"] for m in members)] = members[0]["kept"]
    want = {frozenset(c["members"]): c["representative"] for c in simtui_clusters}
    problems = []
    for k in set(want) ^ set(got):
        problems.append(f"cluster {sorted(k)[:4]}... ({len(k)}): {'only simtui' if k in want else 'only Spark'}")
    for k in set(want) & set(got):
        if want[k] != got[k]:
            problems.append(f"cluster {sorted(k)[:4]}...: kept {want[k]} (simtui) vs {got[k]} (Spark)")
    return problems


def chain(tmp):
    """Five records whose pairs at J >= 0.6 (k = 1) form the path a - b - p - m - c, the
    longest first in keep order a, b, p, c, m. One document at a time, a keeps b, then
    p keeps m, and c (its one neighbour taken) is in no cluster; a round that took
    every local best at once would have let c take m and left p alone."""
    spans = {"a": (0, 20), "b": (3, 22), "p": (7, 25), "c": (13, 30), "m": (10, 26)}
    out = os.path.join(tmp, "chain")
    os.makedirs(out)
    with open(os.path.join(out, "part-00.jsonl"), "w", encoding="utf-8") as fh:
        for id, (lo, hi) in sorted(spans.items()):
            text = " ".join("w%d" % i for i in range(lo, hi))
            fh.write(json.dumps({"id": id, "text": text}) + "\n")
    return out, len(spans)


# The job's limits at 0: verify joins the whole sketch table, and the clusters are
# found in rounds of Spark jobs, as on a corpus above the limits.
IN_ROUNDS = ["spark.simtui.broadcastCandidates=0", "spark.simtui.localClusterPairs=0"]

# (label, corpus, the job's flags, simtui's flags, clustering, Spark confs)
SETTINGS = [
    ("16x8 t=0.5", "gen", ["--bands", "16", "--rows", "8", "--threshold", "0.5"],
     ["-b", "16", "-r", "8", "-t", "0.5"], "components", []),
    ("32x4 k=3 t=0.3 in rounds", "gen", ["-k", "3", "--bands", "32", "--rows", "4", "--threshold", "0.3"],
     ["-k", "3", "-b", "32", "-r", "4", "-t", "0.3"], "components", IN_ROUNDS),
    ("star 32x4 k=3 t=0.3", "gen", ["-k", "3", "--bands", "32", "--rows", "4", "--threshold", "0.3"],
     ["-k", "3", "-b", "32", "-r", "4", "-t", "0.3"], "star", []),
    ("star chain k=1 t=0.6", "chain", ["-k", "1", "--bands", "32", "--rows", "2", "--threshold", "0.6"],
     ["-k", "1", "-b", "32", "-r", "2", "-t", "0.6"], "star", []),
    ("star chain in rounds", "chain", ["-k", "1", "--bands", "32", "--rows", "2", "--threshold", "0.6"],
     ["-k", "1", "-b", "32", "-r", "2", "-t", "0.6"], "star", IN_ROUNDS),
]


def check_helpers():
    """The job's Python helpers alone, against brute force on random inputs, without
    Spark: buckets as runs of sorted (band, key, id) rows cut into batches of every size
    (a run across two batches, --max-bucket), and the one-task union-find."""
    import itertools
    import random
    import pyarrow as pa
    sys.path.insert(0, HERE)
    import simtui_spark as job

    class Pairs:  # the module's bucket_pairs, by brute force
        def bucket_pairs(self, buckets):
            both = [p for ids in buckets.to_pylist() for p in itertools.combinations(sorted(ids), 2)]
            return pa.RecordBatch.from_arrays([pa.array([p[0] for p in both], pa.string()),
                                               pa.array([p[1] for p in both], pa.string())], names=["a", "b"])

    job.simtui_module = lambda wheel: Pairs()
    rng, problems = random.Random(3), []
    for trial in range(200):
        rows = sorted((rng.randint(0, 2), rng.randint(0, 6), "d%d" % rng.randint(0, 30))
                      for _ in range(rng.randint(0, 60)))
        rows = [r for i, r in enumerate(rows) if i == 0 or r != rows[i - 1]]
        most = rng.choice([None, 2, 3])
        want = set()
        for _, run in itertools.groupby(rows, key=lambda r: r[:2]):
            ids = [r[2] for r in run]
            if len(ids) >= 2 and (most is None or len(ids) <= most):
                want |= set(itertools.combinations(sorted(ids), 2))
        table = pa.table({"band": pa.array([r[0] for r in rows], pa.int32()),
                          "key": pa.array([r[1] for r in rows], pa.int64()),
                          "id": pa.array([r[2] for r in rows], pa.string())})
        batches = table.to_batches(max_chunksize=rng.randint(1, 7)) or [
            pa.RecordBatch.from_pylist([], schema=table.schema)]
        got = {p for out in job.pairs_of_runs(None, most)(iter(batches))
               for p in zip(out.column("a").to_pylist(), out.column("b").to_pylist())}
        if got != want:
            problems.append(f"bucket runs {rows} (max {most}): {sorted(got ^ want)[:4]} differ")
    for trial in range(100):
        edges = {tuple(sorted(("n%d" % rng.randint(0, 20), "n%d" % rng.randint(0, 20))))
                 for _ in range(rng.randint(1, 25))}
        edges = sorted(e for e in edges if e[0] != e[1])
        if not edges:
            continue
        table = pa.table({"a": [e[0] for e in edges], "b": [e[1] for e in edges]})
        out = next(job.union_find(iter(table.to_batches(max_chunksize=4))))
        got = dict(zip(out.column("id").to_pylist(), out.column("label").to_pylist()))
        label = {n: n for e in edges for n in e}
        for _ in edges:  # the smallest id spreads along every edge, as often as there are edges
            for a, b in edges:
                label[a] = label[b] = min(label[a], label[b])
        if got != label:
            problems.append(f"union-find of {edges}: {got} against {label}")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("simtui")
    ap.add_argument("--wheel", required=True, help="simtui's wheel, for the job's executors")
    ap.add_argument("--docs", type=int, default=800)
    ap.add_argument("--only", default=None, help="run the settings whose label holds this")
    args = ap.parse_args()
    simtui = os.path.abspath(args.simtui)
    from pyspark.sql import SparkSession
    problems = check_helpers()
    with tempfile.TemporaryDirectory() as tmp:
        corpora = {"gen": shards(simtui, tmp, args.docs, 3), "chain": chain(tmp)}
        for label, corpus, flags, simtui_flags, cluster, confs in SETTINGS:
            if args.only and args.only not in label:
                continue
            data, n = corpora[corpus]
            out = os.path.join(tmp, "out-" + label.replace(" ", "_"))
            report = run_job(os.path.abspath(args.wheel), data, out, flags + ["--cluster", cluster], confs)
            spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
            common = ["--input-format", "jsonl", "--id-field", "id", "--text-field", "text"]
            want_pairs = simtui_json(simtui, ["pairs", data, *common, *simtui_flags])
            got_pairs = read_parquet(spark, os.path.join(out, "pairs"))
            problems += [f"{label}: {p}" for p in compare_pairs(got_pairs, want_pairs)]
            want_clusters = simtui_json(simtui, ["clusters", data, *common, *simtui_flags,
                                                 "--cluster", cluster])
            got_members = read_parquet(spark, os.path.join(out, "clusters"))
            problems += [f"{label}: {p}" for p in compare_clusters(got_members, want_clusters)]
            spark.stop()
            if report["documents"] != n:
                problems.append(f"{label}: the job sketched {report['documents']} of {n} documents")
            if corpus == "chain":
                got = sorted(sorted(c) for c in clusters_of(got_members))
                if got != [["a", "b"], ["m", "p"]]:
                    problems.append(f"{label}: the job's star clusters are {got}, not [a b] [m p]")
            print(f"{label}: {len(want_pairs)} pairs, {len(want_clusters)} clusters; report {json.dumps(report)}")
    for p in problems[:50]:
        print("DIFFERS:", p)
    if problems:
        sys.exit(f"{len(problems)} differences")
    print("the Spark job and simtui agree")


def clusters_of(members):
    by = {}
    for m in members:
        by.setdefault(m["cluster"], []).append(m["id"])
    return list(by.values())


if __name__ == "__main__":
    main()
