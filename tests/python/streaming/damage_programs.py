"""Streaming queries run three times each on a checkpoint of their own, on Ember or on the real
Spark, with the checkpoint damaged before the third run:
`python damage_programs.py WORKDIR ENGINE CASE...`, each CASE `QUERY:DAMAGE`.

QUERY: `count` (groupBy("k").count() in complete mode), `dedup` (dropDuplicates(["k"]) in
append mode) or `join` (an inner stream-stream join on k), each through foreachBatch, which
recovers from a checkpoint in every output mode. DAMAGE: a relative path under the checkpoint
and what to do to it (see `damage`), or `stateless` (the first two runs are a stateless query).
Prints one JSON document: per case, per run, the rows each batch emitted or the error raised."""

import json
import os
import re
import shutil
import sys

WORKDIR, ENGINE = sys.argv[1:3]
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


def run_case(spark, workdir, query_kind, what):
    source_a, source_b = os.path.join(workdir, "a"), os.path.join(workdir, "b")
    checkpoint = os.path.join(workdir, "checkpoint")
    runs = []
    for run in range(3):
        write_input(source_a, run)
        write_input(source_b, run)
        if run == 2 and what != "stateless":
            damage(checkpoint, what)
        kind = "stateless" if what == "stateless" and run < 2 else query_kind
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
            result["error"] = str(e)[:3000]
            # Spark's conditions in the message, outermost first (foreachBatch wraps the cause).
            result["conditions"] = re.findall(r"\[([A-Z_]+(?:\.[A-Z_]+)*)\]", str(e))
        result["batches"] = batches
        runs.append(result)
    return runs


def restart_case(spark, workdir, stop_active):
    """A second start on the checkpoint of an active query in the same session, with
    spark.sql.streaming.stopActiveRunOnRestart as given: what each start did."""
    source = os.path.join(workdir, "a")
    write_input(source, 0)
    spark.conf.set("spark.sql.streaming.stopActiveRunOnRestart", stop_active)
    checkpoint = os.path.join(workdir, "checkpoint")
    df = spark.readStream.schema("k INT, v INT").json(source).groupBy("k").count()

    def start():
        return (df.writeStream.foreachBatch(lambda batch, batch_id: None).outputMode("complete")
                .option("checkpointLocation", checkpoint).trigger(processingTime="50 milliseconds")
                .start())

    first = start()
    first.processAllAvailable()
    result = {}
    try:
        second = start()
        second.processAllAvailable()
        result["second_active"] = second.isActive
        result["same_id"] = second.id == first.id
        result["active"] = len(spark.streams.active)
        second.stop()
    except Exception as e:  # noqa: BLE001 - what the second start raised is the result
        result["error_type"] = type(e).__name__
        # The JVM's message, where PySpark wraps it (Py4JJavaError).
        lines = str(e).split("\n")
        result["error"] = next((line.split("Exception: ", 1)[-1] for line in lines
                                if "Cannot start query" in line), lines[0])[:1000]
    result["first_active"] = first.isActive
    result["first_exception"] = first.exception() is not None
    first.stop()
    spark.conf.unset("spark.sql.streaming.stopActiveRunOnRestart")
    return result


def main():
    spark = session()
    results = {}
    for case in sys.argv[3:]:
        query_kind, what = case.split(":", 1)
        workdir = os.path.join(WORKDIR, case.replace("/", "_").replace(":", "_"))
        os.makedirs(workdir)
        if query_kind == "restart":
            results[case] = restart_case(spark, workdir, what)
        else:
            results[case] = run_case(spark, workdir, query_kind, what)
    print(json.dumps(results))


main()
