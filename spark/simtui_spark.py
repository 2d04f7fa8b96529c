#!/usr/bin/env python3
"""Near-duplicate pairs and clusters of a corpus too large for one machine: simtui's
engine runs on every executor, Spark does the shuffle.

    spark-submit spark/simtui_spark.py --input PATH --text-field text --id-field id \\
        --output DIR [-k K] [--bands B --rows R] [--threshold T] [--simtui PATH]

1. Each partition of the input (JSON Lines or Parquet) is piped through
   `simtui sketch --stdin`: the same band keys, signature and shingles on every machine
   as `simtui pairs` computes for the same flags.
2. Band keys are exploded and grouped (Spark's shuffle); buckets over --max-bucket
   documents are dropped and counted in the report.
3. Candidate pairs are deduplicated and verified with the exact Jaccard of the shingle
   arrays (Spark SQL's array functions), or with the signature's estimate under
   --no-shingles; those with J >= T are kept.
4. Clusters: connected components of the kept pairs (or the star rule: the longest
   document keeps every member within T of it, then the longest of those left).
5. DIR/pairs (a, b, jaccard, estimate), DIR/clusters (id, cluster, kept,
   jaccard_to_kept), DIR/removed (id, source, kept, jaccard, cluster) as Parquet, and a
   one-line JSON report on stdout and in DIR/report.json.

The simtui binary: --simtui PATH (shipped to the executors with --files, or a path that
exists on every executor), else `simtui` on the executors' PATH.
"""
import argparse
import json
import os
import shutil
import subprocess
import threading
import time

from pyspark import SparkFiles
from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

SKETCH_SCHEMA = T.StructType([
    T.StructField("id", T.StringType()),
    T.StructField("source", T.StringType()),
    T.StructField("tokens", T.LongType()),
    T.StructField("bytes", T.LongType()),
    T.StructField("bands", T.ArrayType(T.LongType())),
    T.StructField("signature", T.ArrayType(T.LongType())),
    T.StructField("shingles", T.ArrayType(T.LongType())),
])


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--input", required=True, help="JSON Lines or Parquet files (a file, folder or glob)")
    ap.add_argument("--input-format", choices=["auto", "jsonl", "parquet"], default="auto")
    ap.add_argument("--text-field", default="text")
    ap.add_argument("--id-field", required=True, help="each record's id (simtui's ids for the pairs)")
    ap.add_argument("--output", required=True, help="a new folder")
    ap.add_argument("-k", "--k", type=int, default=5)
    ap.add_argument("--unit", choices=["word", "char"], default="word")
    ap.add_argument("--bands", "-b", type=int, default=16)
    ap.add_argument("--rows", "-r", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sketch", choices=["oph", "minhash"], default="oph")
    ap.add_argument("--threshold", "-t", type=float, default=0.0)
    ap.add_argument("--max-bucket", type=int, default=None,
                    help="drop band buckets of more documents than this (counted in the report)")
    ap.add_argument("--cluster", choices=["components", "star"], default="components")
    ap.add_argument("--no-shingles", action="store_true",
                    help="verify by the signature's estimate, without shipping shingle arrays")
    ap.add_argument("--simtui", default=None, help="the simtui binary (default: simtui on PATH)")
    return ap.parse_args(argv)


def sketch_command(args, binary):
    # JSON Lines named explicitly: read line by line below (--stdin's default, said anyway).
    cmd = [binary, "--no-config", "sketch", "--stdin", "--format", "jsonl",
           "--text-field", "text", "--id-field", "id",
           "-k", str(args.k), "--unit", args.unit, "--bands", str(args.bands),
           "--rows", str(args.rows), "--seed", str(args.seed), "--sketch", args.sketch]
    if args.no_shingles:
        cmd.append("--no-shingles")
    return cmd


def binary_path(name):
    """The simtui binary on this executor: shipped with --files, or as given."""
    if name is None:
        return shutil.which("simtui") or "simtui"
    shipped = SparkFiles.get(os.path.basename(name))
    path = shipped if os.path.exists(shipped) else name
    os.chmod(path, os.stat(path).st_mode | 0o111)
    return path


def pipe_partition(cmd_template, simtui_name):
    """A mapPartitions function: the partition's records as JSON lines into `simtui
    sketch --stdin`, its sketches out, line by line, never all held."""
    def run(lines):
        cmd = list(cmd_template)
        cmd[0] = binary_path(simtui_name)
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        errors = []

        def feed():
            try:
                for line in lines:
                    proc.stdin.write(line.encode("utf-8") + b"\n")
            finally:
                proc.stdin.close()

        def drain_stderr():
            errors.append(proc.stderr.read().decode("utf-8", "replace"))

        writer = threading.Thread(target=feed)
        reader = threading.Thread(target=drain_stderr)
        writer.start()
        reader.start()
        for out in proc.stdout:
            yield out.decode("utf-8")
        writer.join()
        reader.join()
        if proc.wait() != 0:
            raise RuntimeError(f"simtui sketch failed ({proc.returncode}): {''.join(errors)[-2000:]}")
    return run


def read_input(spark, args):
    fmt = args.input_format
    if fmt == "auto":
        fmt = "parquet" if args.input.rstrip("/").endswith(".parquet") or _has_parquet(args.input) else "jsonl"
    df = spark.read.parquet(args.input) if fmt == "parquet" else spark.read.json(args.input)
    return df.select(F.col(args.id_field).cast("string").alias("id"),
                     F.col(args.text_field).cast("string").alias("text"))


def _has_parquet(path):
    return os.path.isdir(path) and any(f.endswith(".parquet") for f in os.listdir(path))


def candidate_pairs(sketches, max_bucket):
    """Pairs of documents that share a band key, once each, a < b; and the number of
    buckets dropped for being over max_bucket."""
    keys = sketches.select("id", F.posexplode("bands").alias("band", "key"))
    sizes = keys.groupBy("band", "key").agg(F.count("*").alias("n")).where("n >= 2")
    dropped = 0
    if max_bucket is not None:
        dropped = sizes.where(F.col("n") > max_bucket).count()
        sizes = sizes.where(F.col("n") <= max_bucket)
    keys = keys.join(sizes.select("band", "key"), ["band", "key"])
    x, y = keys.alias("x"), keys.alias("y")
    pairs = (x.join(y, (F.col("x.band") == F.col("y.band")) & (F.col("x.key") == F.col("y.key"))
                    & (F.col("x.id") < F.col("y.id")))
             .select(F.col("x.id").alias("a"), F.col("y.id").alias("b"))
             .distinct())
    return pairs, dropped


def verify(pairs, sketches, threshold, no_shingles):
    """Exact Jaccard of the shingle arrays (sets) and the signature's estimate."""
    cols = ["id", "signature"] + ([] if no_shingles else ["shingles"])
    s = sketches.select(*cols)
    sa = s.select(*[F.col(c).alias(c + "_a") for c in cols])
    sb = s.select(*[F.col(c).alias(c + "_b") for c in cols])
    joined = pairs.join(sa, pairs.a == sa.id_a).join(sb, pairs.b == sb.id_b)
    agree = F.aggregate(F.zip_with("signature_a", "signature_b", lambda p, q: F.when(p == q, 1).otherwise(0)),
                        F.lit(0), lambda acc, v: acc + v)
    estimate = (agree.cast("double") / F.size("signature_a").cast("double"))
    if no_shingles:
        jaccard = estimate
    else:
        inter = F.size(F.array_intersect("shingles_a", "shingles_b")).cast("double")
        union = F.size(F.array_union("shingles_a", "shingles_b")).cast("double")
        jaccard = inter / union
    return (joined.select("a", "b", jaccard.alias("jaccard"), estimate.alias("estimate"))
            .where(F.col("jaccard") >= threshold))


def components(pairs, spark):
    """Connected components: each document labelled with the smallest id it reaches,
    by label propagation until nothing changes."""
    edges = pairs.select("a", "b").union(pairs.select(F.col("b").alias("a"), F.col("a").alias("b")))
    labels = edges.select(F.col("a").alias("id")).distinct().withColumn("label", F.col("id"))
    while True:
        spread = (edges.join(labels, edges.b == labels.id).groupBy("a")
                  .agg(F.min("label").alias("reached")))
        new = (labels.join(spread, labels.id == spread.a, "left")
               .select("id", F.least("label", F.coalesce("reached", "label")).alias("label"))
               .localCheckpoint())
        changed = new.join(labels.withColumnRenamed("label", "old"), "id").where("label != old").count()
        labels = new
        if changed == 0:
            return labels


def keep_order(sketches):
    """Who keeps a cluster: the longest (most tokens, then bytes), ties to the smallest
    id (simtui's corpus order, when the input is sorted by id)."""
    return [F.col("tokens").desc(), F.col("bytes").desc(), F.col("id").asc()]


def clusters_components(pairs, sketches, spark):
    labels = components(pairs, spark)
    members = labels.join(sketches.select("id", "source", "tokens", "bytes"), "id")
    w = Window.partitionBy("label").orderBy(*keep_order(sketches))
    return members.withColumn("kept", F.first("id").over(w)).withColumnRenamed("label", "cluster")


def clusters_star(pairs, sketches, spark):
    """The star rule, as `simtui clusters --cluster star` applies it one document at a
    time: in keep order, a document not yet taken keeps every untaken document within T
    of it. The kept documents are the greedy independent set of the pair graph in keep
    order, found here in rounds (a document none of whose untaken neighbours ranks
    before it is kept; it and its neighbours are then taken). A member joins the
    best-ranked kept document it is within T of: the one that would have taken it first.
    A kept document left with no member is no cluster."""
    both = pairs.union(pairs.select(F.col("b").alias("a"), F.col("a").alias("b"), "jaccard", "estimate"))
    info = sketches.select("id", "source", "tokens", "bytes")
    rank = info.select("id", F.row_number().over(Window.orderBy(*keep_order(sketches))).alias("rank"))
    ranked = (both.select("a", "b")
              .join(rank.withColumnRenamed("id", "a").withColumnRenamed("rank", "ra"), "a")
              .join(rank.withColumnRenamed("id", "b").withColumnRenamed("rank", "rb"), "b")
              .localCheckpoint())
    centres = spark.createDataFrame([], "id string")
    todo = both.select(F.col("a").alias("id")).distinct().localCheckpoint()
    while todo.count() > 0:
        open_edges = (ranked.join(todo.withColumnRenamed("id", "a"), "a")
                      .join(todo.withColumnRenamed("id", "b"), "b"))
        beaten = open_edges.where("rb < ra").select(F.col("a").alias("id")).distinct()
        new = todo.join(beaten, "id", "left_anti").localCheckpoint()
        # Their neighbours can no longer be kept: taken, whoever takes them.
        near = (ranked.join(new.withColumnRenamed("id", "a"), "a")
                .select(F.col("b").alias("id")))
        centres = centres.union(new).localCheckpoint()
        todo = (todo.join(new, "id", "left_anti").join(near, "id", "left_anti")
                .localCheckpoint())
    # Each other document joins its best-ranked kept neighbour.
    joined = (ranked.join(centres.withColumnRenamed("id", "a"), "a")
              .join(centres.withColumnRenamed("id", "b"), "b", "left_anti")
              .withColumn("r", F.row_number().over(Window.partitionBy("b").orderBy("ra")))
              .where("r = 1").select(F.col("b").alias("id"), F.col("a").alias("kept")))
    with_members = joined.select(F.col("kept").alias("id")).distinct()
    kept = centres.join(with_members, "id").select("id", F.col("id").alias("kept"))
    out = kept.union(joined).join(info, "id")
    return out.withColumn("cluster", F.col("kept"))


def main(argv=None):
    args = parse_args(argv)
    spark = SparkSession.builder.appName("simtui").getOrCreate()
    sc = spark.sparkContext
    if args.simtui and os.path.exists(args.simtui):
        sc.addFile(args.simtui)
    times = {}
    t = time.time()
    records = read_input(spark, args).where(F.col("text").isNotNull())
    lines = records.select(F.to_json(F.struct("id", "text")).alias("line")).rdd.map(lambda r: r[0])
    cmd = sketch_command(args, "simtui")
    sketched = lines.mapPartitions(pipe_partition(cmd, args.simtui))
    sketches = spark.read.schema(SKETCH_SCHEMA).json(sketched).localCheckpoint()
    documents = sketches.count()
    times["sketch"] = time.time() - t

    t = time.time()
    cand, dropped = candidate_pairs(sketches, args.max_bucket)
    cand = cand.localCheckpoint()
    candidates = cand.count()
    times["band"] = time.time() - t

    t = time.time()
    pairs = verify(cand, sketches, args.threshold, args.no_shingles).localCheckpoint()
    kept = pairs.count()
    pairs.write.mode("errorifexists").parquet(os.path.join(args.output, "pairs"))
    times["verify"] = time.time() - t

    t = time.time()
    make = clusters_star if args.cluster == "star" else clusters_components
    members = make(pairs, sketches, spark).localCheckpoint()
    # J of each member to its kept document (1 for the kept one).
    to_kept = (pairs.select(F.col("a").alias("id"), F.col("b").alias("kept"), "jaccard")
               .union(pairs.select(F.col("b").alias("id"), F.col("a").alias("kept"), "jaccard")))
    members = (members.join(to_kept, ["id", "kept"], "left")
               .withColumn("jaccard_to_kept", F.when(F.col("id") == F.col("kept"), F.lit(1.0))
                           .otherwise(F.col("jaccard")))
               .drop("jaccard").localCheckpoint())
    members.select("id", "cluster", "kept", "jaccard_to_kept") \
        .write.mode("errorifexists").parquet(os.path.join(args.output, "clusters"))
    removed = members.where(F.col("id") != F.col("kept"))
    removed.select("id", "source", "kept", F.col("jaccard_to_kept").alias("jaccard"), "cluster") \
        .write.mode("errorifexists").parquet(os.path.join(args.output, "removed"))
    clusters = members.select("cluster").distinct().count()
    times["cluster"] = time.time() - t

    report = {
        "documents": documents,
        "candidates": candidates,
        "pairs": kept,
        "clusters": clusters,
        "removed": removed.count(),
        "buckets_dropped": dropped,
        "seconds": {k: round(v, 3) for k, v in times.items()},
    }
    line = json.dumps(report, sort_keys=True)
    with open(os.path.join(args.output, "report.json"), "w") as f:
        f.write(line + "\n")
    print(line)
    spark.stop()


if __name__ == "__main__":
    main()
