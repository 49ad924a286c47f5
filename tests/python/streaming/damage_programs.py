"""One streaming query run three times on one checkpoint, on Ember or on the real Spark, with the
checkpoint damaged before the third run: `python damage_programs.py QUERY DAMAGE WORKDIR ENGINE`.

QUERY: `count` (groupBy("k").count() in complete mode), `dedup` (dropDuplicates(["k"]) in
append mode) or `join` (an inner stream-stream join on k), each through foreachBatch, which
recovers from a checkpoint in every output mode. DAMAGE: a relative path under the checkpoint
and what to do to it (see `damage`), or `stateless` (the first two runs are a stateless query).
Prints one JSON document: per run, the rows each batch emitted or the error the run raised."""

import json
import os
import re
import shutil
import sys

QUERY, DAMAGE, WORKDIR, ENGINE = sys.argv[1:5]
if ENGINE == "ember":
    import ember

    ember.activate()

from pyspark.sql import SparkSession  # noqa: E402


def session():
    builder = (SparkSession.builder.appName("damage")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.shuffle.partitions", "2"))
    if ENGINE == "spark":
        builder = (builder.master("local[2]")
                   .config("spark.ui.enabled", "false")
                   .config("spark.ui.showConsoleProgress", "false"))
    spark = builder.getOrCreate()
    if ENGINE == "spark":
        spark.sparkContext.setLogLevel("OFF")
    return spark


def write_input(directory, run):
    """Ten rows per run: keys run*5 .. run*5+9, so each run's keys overlap the last run's."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, f"part-{run}.json"), "w") as out:
        for i in range(10):
            out.write(json.dumps({"k": run * 5 + i, "v": run}) + "\n")


def query(spark, source_a, source_b, kind):
    a = spark.readStream.schema("k INT, v INT").json(source_a)
    if kind == "count":
        return a.groupBy("k").count(), "complete"
    if kind == "dedup":
        return a.dropDuplicates(["k"]), "append"
    if kind == "join":
        b = spark.readStream.schema("k INT, v INT").json(source_b).withColumnRenamed("v", "w")
        return a.join(b, "k"), "append"
    if kind == "stateless":
        return a.select("k", "v"), "append"
    raise ValueError(kind)


def damage(checkpoint, what):
    """`PATH:delete`, `PATH:empty` or `PATH:truncate` (half its bytes) under the checkpoint."""
    path, action = what.rsplit(":", 1)
    target = os.path.join(checkpoint, path)
    if action == "delete":
        shutil.rmtree(target) if os.path.isdir(target) else os.remove(target)
    else:
        size = os.path.getsize(target)
        with open(target, "r+b") as f:
            f.truncate(0 if action == "empty" else size // 2)


def main():
    spark = session()
    source_a, source_b = os.path.join(WORKDIR, "a"), os.path.join(WORKDIR, "b")
    checkpoint = os.path.join(WORKDIR, "checkpoint")
    runs = []
    for run in range(3):
        write_input(source_a, run)
        write_input(source_b, run)
        if run == 2 and DAMAGE != "stateless":
            damage(checkpoint, DAMAGE)
        kind = "stateless" if DAMAGE == "stateless" and run < 2 else QUERY
        df, mode = query(spark, source_a, source_b, kind)
        batches = {}

        def collect(batch, batch_id, batches=batches):
            batches[str(batch_id)] = sorted([list(r) for r in batch.collect()])

        result = {}
        try:
            q = (df.writeStream.foreachBatch(collect).outputMode(mode)
                 .option("checkpointLocation", checkpoint).trigger(availableNow=True).start())
            q.awaitTermination()
        except Exception as e:  # noqa: BLE001 - what the run raised is the result
            cause = e
            result["error"] = str(cause)[:3000]
            # Spark's conditions in the message, outermost first (foreachBatch wraps the cause).
            result["conditions"] = re.findall(r"\[([A-Z_]+(?:\.[A-Z_]+)*)\]", str(cause))
        result["batches"] = batches
        runs.append(result)
    print(json.dumps(runs))


main()
