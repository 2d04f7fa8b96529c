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
# Up to this many candidate pairs (Spark conf spark.simtui.broadcastCandidates), verify
# broadcasts them (two ids a pair) to the executors instead of shuffling the whole
# sketch table twice.
BROADCAST_CANDIDATES = 1_000_000
# Up to this many kept pairs (spark.simtui.localClusterPairs), the clusters are found in
# one task (a union-find, or the star rule one document at a time: all the pairs in one
# Python worker) instead of in rounds of Spark jobs.
LOCAL_CLUSTER_PAIRS = 1_000_000
# Without a spark.sql.shuffle.partitions of the user's, one shuffle partition per this
# many documents (at least one per core): Spark's default of 200 is far too many for a
# small corpus and too few for a large one.
DOCUMENTS_PER_PARTITION = 50_000


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


def pairs_of_runs(wheel, max_bucket):
    """A mapInArrow function over (band, key, id) rows sorted by (band, key) within the
    partition: each run of equal (band, key), a bucket, to its pairs (a < b). A run may
    span two Arrow batches: the last run of a batch waits for the next one. Buckets of
    one document, or of more than max_bucket, make no pairs."""
    def run(batches):
        import pyarrow as pa
        batches_api = simtui_module(wheel)
        held = None  # the last run so far, which the next batch may continue
        for batch in batches:
            if held is not None:
                batch = pa.Table.from_batches([held, batch]).combine_chunks().to_batches()[0]
            band = batch.column("band").to_numpy(zero_copy_only=False)
            key = batch.column("key").to_numpy(zero_copy_only=False)
            starts = _run_starts(band, key)
            held = batch.slice(starts[-1])
            yield from _bucket_pairs(batches_api, batch.slice(0, starts[-1]),
                                     starts[:-1], max_bucket)
        if held is not None and held.num_rows:
            yield from _bucket_pairs(batches_api, held, [0], max_bucket)
    return run


def _run_starts(band, key):
    """The first row of each run of equal (band, key); there is at least one row."""
    import numpy as np
    change = (band[1:] != band[:-1]) | (key[1:] != key[:-1])
    return np.concatenate(([0], np.flatnonzero(change) + 1))


def _bucket_pairs(batches_api, rows, starts, max_bucket):
    """The pairs of the runs of rows that begin at starts (each run up to the next)."""
    import numpy as np
    import pyarrow as pa
    n = rows.num_rows
    if n == 0:
        return
    starts = np.asarray(starts, dtype=np.int64)
    sizes = np.diff(np.append(starts, n))
    keep = sizes >= 2
    if max_bucket is not None:
        keep &= sizes <= max_bucket
    if not keep.any():
        return
    rows_kept = np.repeat(keep, sizes)
    ids = rows.column("id").filter(pa.array(rows_kept))
    offsets = np.concatenate(([0], np.cumsum(sizes[keep]))).astype(np.int32)
    buckets = pa.ListArray.from_arrays(pa.array(offsets), ids)
    yield batches_api.bucket_pairs(buckets)


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
    buckets dropped for being over max_bucket. The (band, key, id) rows are shuffled by
    (band, key) and sorted within each partition, so that each bucket is a run of rows
    that one mapInArrow call turns into pairs: no aggregation of the ids into lists."""
    keys = sketches.select(F.posexplode("bands").alias("band", "key"), "id")
    dropped = 0
    if max_bucket is not None:
        dropped = (keys.groupBy("band", "key").count()
                   .where(F.col("count") > max_bucket).count())
    runs = keys.repartition("band", "key").sortWithinPartitions("band", "key")
    return runs.mapInArrow(pairs_of_runs(wheel, max_bucket), PAIRS_SCHEMA).distinct(), dropped


def verify(pairs, sketches, threshold, no_shingles, wheel, candidates):
    """Exact Jaccard of the shingle sets and the signature's estimate, by the module.
    Up to BROADCAST_CANDIDATES candidates, the candidates (two ids a pair) go to every
    executor and each side's sketches are picked where they lie, so only the candidates'
    sketches are shuffled; above it, the candidates are joined with the whole sketch
    table on a and on b (two shuffles of it)."""
    cols = ["id", "signature"] + ([] if no_shingles else ["shingles"])
    s = sketches.select(*cols)
    sa = s.select(*[F.col(c).alias(c + "_a") for c in cols])
    sb = s.select(*[F.col(c).alias(c + "_b") for c in cols])
    if candidates <= limit(sketches.sparkSession, "broadcastCandidates", BROADCAST_CANDIDATES):
        small = F.broadcast(pairs)
        side_a = sa.join(small, sa.id_a == small.a).drop("id_a")
        side_b = sb.join(small, sb.id_b == small.b).drop("id_b")
        joined = side_a.join(side_b, ["a", "b"])
    else:
        joined = (pairs.join(sa, pairs.a == sa.id_a).join(sb, pairs.b == sb.id_b)
                  .drop("id_a", "id_b"))
    verified = joined.mapInArrow(verify_partition(wheel, not no_shingles), VERIFIED_SCHEMA)
    return verified.where(F.col("jaccard") >= threshold)


def components(pairs, spark, kept):
    """Connected components: each document labelled with the smallest id it reaches.
    Up to LOCAL_CLUSTER_PAIRS kept pairs, one task finds them (a union-find over all
    the pairs); above it, label propagation in rounds until nothing changes."""
    if kept <= limit(spark, "localClusterPairs", LOCAL_CLUSTER_PAIRS):
        return pairs.select("a", "b").coalesce(1).mapInArrow(union_find, "id string, label string")
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


def union_find(batches):
    """A mapInArrow function over all the (a, b) pairs in one partition: (id, label),
    each document's label the smallest id of its component (in byte order, as Spark's
    min of strings)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    table = pa.Table.from_batches(list(batches), schema=pa.schema([("a", pa.string()), ("b", pa.string())]))
    if table.num_rows == 0:
        return
    ends = pa.chunked_array(table.column("a").chunks + table.column("b").chunks).combine_chunks()
    names = pc.unique(ends)
    names = names.take(pc.sort_indices(names))  # index order = id order
    index = pc.index_in(ends, value_set=names).to_pylist()
    half = table.num_rows
    parent = list(range(len(names)))

    def root(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for x, y in zip(index[:half], index[half:]):
        rx, ry = root(x), root(y)
        if rx != ry:  # the smaller index, the smaller id, stays the root
            parent[max(rx, ry)] = min(rx, ry)
    labels = names.take(pa.array([root(x) for x in range(len(names))]))
    yield pa.RecordBatch.from_arrays([names, labels], names=["id", "label"])


def keep_order(sketches):
    """Who keeps a cluster: the longest (most tokens, then bytes), ties to the smallest
    id (simtui's corpus order, when the input is sorted by id)."""
    return [F.col("tokens").desc(), F.col("bytes").desc(), F.col("id").asc()]


def clusters_components(pairs, sketches, spark, kept):
    labels = components(pairs, spark, kept)
    members = labels.join(sketches.select("id", "source", "tokens", "bytes"), "id")
    w = Window.partitionBy("label").orderBy(*keep_order(sketches))
    return members.withColumn("kept", F.first("id").over(w)).withColumnRenamed("label", "cluster")


def clusters_star(pairs, sketches, spark, kept_pairs):
    """The star rule, as `simtui clusters --cluster star` applies it one document at a
    time: in keep order, a document not yet taken keeps every untaken document within T
    of it. The kept documents are the greedy independent set of the pair graph in keep
    order, found here in rounds (a document none of whose untaken neighbours ranks
    before it is kept; it and its neighbours are then taken). A member joins the
    best-ranked kept document it is within T of: the one that would have taken it first.
    A kept document left with no member is no cluster. Up to LOCAL_CLUSTER_PAIRS
    kept pairs, one task takes the documents one at a time (star_taken) instead."""
    both = pairs.union(pairs.select(F.col("b").alias("a"), F.col("a").alias("b"), "jaccard", "estimate"))
    info = sketches.select("id", "source", "tokens", "bytes")
    rank = info.select("id", F.row_number().over(Window.orderBy(*keep_order(sketches))).alias("rank"))
    ranked = (both.select("a", "b")
              .join(rank.withColumnRenamed("id", "a").withColumnRenamed("rank", "ra"), "a")
              .join(rank.withColumnRenamed("id", "b").withColumnRenamed("rank", "rb"), "b")
              .localCheckpoint())
    if kept_pairs <= limit(spark, "localClusterPairs", LOCAL_CLUSTER_PAIRS):
        joined = ranked.coalesce(1).mapInArrow(star_taken, "id string, kept string")
        return joined.join(info, "id").withColumn("cluster", F.col("kept"))
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


def star_taken(batches):
    """A mapInArrow function over all the (a, b, ra, rb) pairs, both ways, in one
    partition (ra, rb: the ranks in keep order): the star rule one document at a time,
    as simtui applies it. (id, kept) for each kept document with a member and for each
    member."""
    import pyarrow as pa
    rank, near = {}, {}
    for batch in batches:
        a, b, ra, rb = (batch.column(c).to_pylist() for c in ("a", "b", "ra", "rb"))
        for x, y, rx, ry in zip(a, b, ra, rb):
            rank[x], rank[y] = rx, ry
            near.setdefault(x, []).append(y)
    taken, ids, kept = set(), [], []
    for doc in sorted(rank, key=rank.__getitem__):
        if doc in taken:
            continue
        taken.add(doc)
        members = [m for m in near[doc] if m not in taken]
        if members:
            taken.update(members)
            ids += [doc, *members]
            kept += [doc] * (len(members) + 1)
    if ids:
        yield pa.RecordBatch.from_arrays([pa.array(ids, pa.string()), pa.array(kept, pa.string())],
                                         names=["id", "kept"])


def limit(spark, name, default):
    """One of the job's limits: spark.simtui.NAME when the user set it, else default."""
    return int(spark.conf.get("spark.simtui." + name, str(default)))


def size_shuffles(spark, documents):
    """spark.sql.shuffle.partitions for this corpus, unless the user set it: one
    partition per DOCUMENTS_PER_PARTITION documents, at least one per core."""
    if spark.sparkContext.getConf().contains("spark.sql.shuffle.partitions"):
        return
    cores = spark.sparkContext.defaultParallelism
    wanted = max(cores, -(-documents // DOCUMENTS_PER_PARTITION))
    spark.conf.set("spark.sql.shuffle.partitions", str(wanted))


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
    size_shuffles(spark, documents)

    t = time.time()
    cand, dropped = candidate_pairs(sketches, args.max_bucket, wheel)
    cand = cand.localCheckpoint()
    candidates = cand.count()
    times["band"] = time.time() - t

    t = time.time()
    pairs = verify(cand, sketches, args.threshold, args.no_shingles, wheel, candidates).localCheckpoint()
    kept = pairs.count()
    pairs.write.mode("errorifexists").parquet(os.path.join(args.output, "pairs"))
    times["verify"] = time.time() - t

    t = time.time()
    make = clusters_star if args.cluster == "star" else clusters_components
    members = make(pairs, sketches, spark, kept).localCheckpoint()
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
    counts = members.agg(F.countDistinct("cluster").alias("clusters"),
                         F.count(F.when(F.col("id") != F.col("kept"), 1)).alias("removed")).first()
    times["cluster"] = time.time() - t

    report = {
        "documents": documents,
        "candidates": candidates,
        "pairs": kept,
        "clusters": counts["clusters"],
        "removed": counts["removed"],
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
