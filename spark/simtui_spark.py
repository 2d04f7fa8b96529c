#!/usr/bin/env python3
"""Near-duplicate pairs and clusters of a corpus too large for one machine: simtui's
engine runs inside every executor's Python worker (the simtui module, on Arrow
batches), Spark does the shuffle.

    spark-submit spark/simtui_spark.py --input PATH --text-field text --id-field id \\
        --output DIR [-k K] [--bands B --rows R] [--threshold T] [--wheel WHEEL]

1. Each partition of the input (JSON Lines or Parquet) goes, an Arrow batch at a time
   (`mapInArrow`), through the module's `sketch_batch`: the same band keys, signature
   and shingles on every machine as `simtui pairs` computes for the same flags.
2. Band keys are exploded and grouped (Spark's shuffle) into buckets; buckets over
   --max-bucket documents are dropped and counted in the report; the module's
   `bucket_pairs` makes each bucket's pairs, deduplicated by Spark.
3. Candidate pairs are joined with both sketches and verified by the module's
   `verify_batch`: the exact Jaccard of the shingle sets (or the signature's estimate
   under --no-shingles); those with J >= T are kept.
4. Clusters: connected components of the kept pairs (or the star rule: the longest
   document keeps every member within T of it, then the longest of those left).
5. DIR/pairs (a, b, jaccard, estimate), DIR/clusters (id, cluster, kept,
   jaccard_to_kept), DIR/removed (id, source, kept, jaccard, cluster) as Parquet, and a
   one-line JSON report on stdout and in DIR/report.json.

The simtui module: --wheel PATH (the wheel `crates/simtui-py/build-wheel.sh --release`
makes, shipped to the executors by the job and unpacked there once per worker), else
`import simtui` from the executors' Python (a wheel pip-installed there). The executors'
Python needs pyarrow (and pandas, which pyspark's Arrow functions ask for).
"""
import argparse
import json
import os
import sys
import time
import zipfile

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
PAIRS_SCHEMA = "a string, b string"
VERIFIED_SCHEMA = "a string, b string, jaccard double, estimate double"


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
    ap.add_argument("--wheel", default=None,
                    help="simtui's wheel, shipped to the executors (default: simtui installed there)")
    ap.add_argument("--simtui", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.simtui is not None:
        ap.error("--simtui: the job no longer runs the simtui binary; it runs the simtui "
                 "module in-process: pass --wheel (crates/simtui-py/build-wheel.sh --release)")
    return args


def engine_options(args):
    """The module's options for these flags (the names of simtui's Python API)."""
    return {"k": args.k, "unit": args.unit, "bands": args.bands, "rows": args.rows,
            "seed": args.seed, "sketch": args.sketch}


def simtui_module(wheel):
    """The simtui module on this executor: from the shipped wheel (unpacked once into
    Spark's files folder, under a name of its own), else the one installed."""
    if wheel is not None:
        name = os.path.basename(wheel)
        shipped = SparkFiles.get(name)
        path = shipped if os.path.exists(shipped) else wheel
        folder = os.path.join(SparkFiles.getRootDirectory(), "unpacked-" + name)
        if not os.path.isdir(folder):
            # Unpacked beside, then renamed into place: two workers may race.
            part = f"{folder}.{os.getpid()}"
            with zipfile.ZipFile(path) as z:
                z.extractall(part, [m for m in z.namelist() if m.startswith("simtui/")])
            try:
                os.rename(part, folder)
            except OSError:
                pass  # another worker was first; its copy is the same
        if folder not in sys.path:
            sys.path.insert(0, folder)
    import simtui.batches
    return simtui.batches


def sketch_partition(options, wheel, shingles):
    """A mapInArrow function: each batch of (id, text) records to their sketches."""
    def run(batches):
        batches_api = simtui_module(wheel)
        for batch in batches:
            yield batches_api.sketch_batch(batch.column("id"), batch.column("text"),
                                           shingles=shingles, **options)
    return run


def pairs_of_buckets(wheel):
    """A mapInArrow function: each bucket's ids to its pairs (a < b)."""
    def run(batches):
        batches_api = simtui_module(wheel)
        for batch in batches:
            yield batches_api.bucket_pairs(batch.column("ids"))
    return run


def verify_partition(wheel, shingles):
    """A mapInArrow function: candidate pairs with both sketches to (a, b, jaccard,
    estimate)."""
    def run(batches):
        import pyarrow as pa
        batches_api = simtui_module(wheel)
        for batch in batches:
            c = batch.column
            sets = (c("shingles_a"), c("shingles_b")) if shingles else (None, None)
            said = batches_api.verify_batch(c("signature_a"), c("signature_b"), *sets)
            yield pa.RecordBatch.from_arrays(
                [c("a"), c("b"), said.column("jaccard"), said.column("estimate")],
                names=["a", "b", "jaccard", "estimate"])
    return run


def read_input(spark, args):
    fmt = args.input_format
    if fmt == "auto":
        fmt = "parquet" if args.input.rstrip("/").endswith(".parquet") or _has_parquet(args.input) else "jsonl"
    if fmt == "parquet":
        df = spark.read.parquet(args.input)
    elif "." in args.id_field + args.text_field or args.id_field == args.text_field:
        df = spark.read.json(args.input)  # a nested or shared field: the schema inferred
    else:
        # The two fields read as strings (a number's id as its text, as the cast below
        # gives it): no pass over the input to infer its schema.
        fields = [T.StructField(args.id_field, T.StringType()),
                  T.StructField(args.text_field, T.StringType())]
        df = spark.read.schema(T.StructType(fields)).json(args.input)
    return df.select(F.col(args.id_field).cast("string").alias("id"),
                     F.col(args.text_field).cast("string").alias("text"))


def _has_parquet(path):
    return os.path.isdir(path) and any(f.endswith(".parquet") for f in os.listdir(path))


def candidate_pairs(sketches, max_bucket, wheel):
    """Pairs of documents that share a band key, once each, a < b; and the number of
    buckets dropped for being over max_bucket."""
    keys = sketches.select("id", F.posexplode("bands").alias("band", "key"))
    buckets = (keys.groupBy("band", "key").agg(F.collect_list("id").alias("ids"))
               .where(F.size("ids") >= 2).select("ids"))
    dropped = 0
    if max_bucket is not None:
        dropped = buckets.where(F.size("ids") > max_bucket).count()
        buckets = buckets.where(F.size("ids") <= max_bucket)
    return buckets.mapInArrow(pairs_of_buckets(wheel), PAIRS_SCHEMA).distinct(), dropped


def verify(pairs, sketches, threshold, no_shingles, wheel):
    """Exact Jaccard of the shingle sets and the signature's estimate, by the module."""
    cols = ["id", "signature"] + ([] if no_shingles else ["shingles"])
    s = sketches.select(*cols)
    sa = s.select(*[F.col(c).alias(c + "_a") for c in cols])
    sb = s.select(*[F.col(c).alias(c + "_b") for c in cols])
    joined = (pairs.join(sa, pairs.a == sa.id_a).join(sb, pairs.b == sb.id_b)
              .drop("id_a", "id_b"))
    verified = joined.mapInArrow(verify_partition(wheel, not no_shingles), VERIFIED_SCHEMA)
    return verified.where(F.col("jaccard") >= threshold)


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
    wheel = args.wheel
    if wheel and os.path.exists(wheel):
        sc.addFile(wheel)
    times = {}
    t = time.time()
    records = read_input(spark, args).where(F.col("text").isNotNull())
    sketch = sketch_partition(engine_options(args), wheel, not args.no_shingles)
    sketches = records.mapInArrow(sketch, SKETCH_SCHEMA).localCheckpoint()
    documents = sketches.count()
    times["sketch"] = time.time() - t

    t = time.time()
    cand, dropped = candidate_pairs(sketches, args.max_bucket, wheel)
    cand = cand.localCheckpoint()
    candidates = cand.count()
    times["band"] = time.time() - t

    t = time.time()
    pairs = verify(cand, sketches, args.threshold, args.no_shingles, wheel).localCheckpoint()
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
