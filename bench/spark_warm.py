#!/usr/bin/env python3
"""The Spark job's sketch, band and verify stages timed warm: in one Spark session each
stage runs once to warm up (the JVM's JIT, the Python workers and their imports), then
again under the clock. What a stage costs a document once the fixed costs are paid, as
on a large corpus. Run by bench/spark_local.py through spark-submit:

    spark-submit --master local[2] bench/spark_warm.py spark/simtui_spark.py --input DIR --wheel WHEEL
    spark-submit --master local[2] bench/spark_warm.py BEFORE.py --input DIR --simtui BIN

JOB.py: spark/simtui_spark.py (the module in mapInArrow), or an earlier job that pipes
partitions through the binary (its pipe_partition). Prints one JSON line of seconds.
"""
import importlib.util
import inspect
import json
import os
import shutil
import sys
import tempfile
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F


def load(path):
    """The job as module simtui_job, here and (addPyFile below) in the Python workers."""
    copy = os.path.join(tempfile.mkdtemp(), "simtui_job.py")
    shutil.copy(path, copy)
    spec = importlib.util.spec_from_file_location("simtui_job", copy)
    module = importlib.util.module_from_spec(spec)
    sys.modules["simtui_job"] = module
    spec.loader.exec_module(module)
    return module, copy


def main():
    job, copy = load(sys.argv[1])
    rest = sys.argv[2:]
    args = job.parse_args(rest + ["--id-field", "id", "--output", "/nonexistent",
                                  "--bands", "16", "--rows", "8", "--threshold", "0.8"])
    spark = SparkSession.builder.appName("simtui-warm").getOrCreate()
    sc = spark.sparkContext
    sc.addPyFile(copy)
    piped = hasattr(job, "pipe_partition")
    ship = args.simtui if piped else args.wheel
    if ship and os.path.exists(ship):
        sc.addFile(ship)
    records = job.read_input(spark, args).where(F.col("text").isNotNull())

    def sketch():
        if piped:
            lines = records.select(F.to_json(F.struct("id", "text")).alias("line")).rdd.map(lambda r: r[0])
            out = lines.mapPartitions(job.pipe_partition(job.sketch_command(args, "simtui"), args.simtui))
            return spark.read.schema(job.SKETCH_SCHEMA).json(out).localCheckpoint()
        fn = job.sketch_partition(job.engine_options(args), args.wheel, True)
        return records.mapInArrow(fn, job.SKETCH_SCHEMA).localCheckpoint()

    def band(sketches):
        if piped:
            return job.candidate_pairs(sketches, None)[0].localCheckpoint()
        return job.candidate_pairs(sketches, None, args.wheel)[0].localCheckpoint()

    def verify(cand, sketches, candidates):
        if piped:
            return job.verify(cand, sketches, args.threshold, False).localCheckpoint()
        if "candidates" in inspect.signature(job.verify).parameters:
            return job.verify(cand, sketches, args.threshold, False, args.wheel,
                              candidates).localCheckpoint()
        return job.verify(cand, sketches, args.threshold, False, args.wheel).localCheckpoint()

    seconds = {}
    for attempt in ("warm-up", "timed"):
        t = time.time()
        sketches = sketch()
        documents = sketches.count()
        seconds["sketch"] = time.time() - t
        if hasattr(job, "size_shuffles"):
            job.size_shuffles(spark, documents)
        t = time.time()
        cand = band(sketches)
        candidates = cand.count()
        seconds["band"] = time.time() - t
        t = time.time()
        pairs = verify(cand, sketches, candidates).count()
        seconds["verify"] = time.time() - t
    print(json.dumps({"documents": documents, "pairs": pairs,
                      "seconds": {k: round(v, 3) for k, v in seconds.items()}}))
    spark.stop()


if __name__ == "__main__":
    main()
