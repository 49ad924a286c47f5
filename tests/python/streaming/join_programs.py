"""Stream-stream join programs that run unchanged on Ember and on Spark, for test_stream_join.py.

Run as `python join_programs.py WORKDIR ENGINE`: every scenario in one process (one Spark JVM),
printing one JSON document on the last line of stdout: per scenario the rows of each batch (as
foreachBatch saw them) and the join's state numbers after each step, or the error raised."""

import json
import os
import shutil
import sys

ENGINE = sys.argv[2]
if ENGINE == "ember":
    import ember

    ember.activate()

from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

SCHEMA = "k INT, t TIMESTAMP"
# Per step, rows (key, time) of the left and of the right stream.
STEPS = [
    ([(1, "00:00:01"), (2, "00:00:02"), (3, "00:00:05")], [(1, "00:00:03"), (9, "00:00:03")]),
    ([(4, "00:00:20"), (2, "00:00:21")], [(2, "00:00:04"), (3, "00:00:30"), (4, "00:00:25")]),
    ([(5, "00:01:00")], [(5, "00:01:00"), (1, "00:00:01")]),
    ([(6, "00:02:00")], [(6, "00:02:00")]),
]


def session():
    builder = (SparkSession.builder.appName("stream-join")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.shuffle.partitions", "2"))
    if ENGINE == "spark":
        builder = (builder.master("local[2]").config("spark.ui.enabled", "false")
                   .config("spark.ui.showConsoleProgress", "false")
                   .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC"))
    return builder.getOrCreate()


def write(directory, step, rows):
    with open(os.path.join(directory, f"{step:03d}.json"), "w") as f:
        for k, t in rows:
            f.write(json.dumps({"k": k, "t": "2024-01-01 " + t}) + "\n")


def streams(spark, base):
    dirs = [os.path.join(base, side) for side in ("left", "right")]
    for d in dirs:
        os.makedirs(d)
    left, right = (spark.readStream.schema(SCHEMA).json(d) for d in dirs)
    return dirs, left, right.select(F.col("k").alias("rk"), F.col("t").alias("rt"))


def queries(left, right):
    wl, wr = left.withWatermark("t", "10 seconds"), right.withWatermark("rt", "10 seconds")
    return {
        # Unbounded state.
        "inner": left.join(right, F.col("k") == F.col("rk")),
        # Null rows only when the watermark passes t + 5 s.
        "left_outer_range": wl.join(
            wr, F.expr("k = rk AND rt >= t AND rt <= t + interval 5 seconds"), "leftOuter"),
        "right_outer_range": wl.join(
            wr, F.expr("k = rk AND t >= rt AND t <= rt + interval 5 seconds"), "rightOuter"),
        # The event time is a join key: both sides' state is evicted by the watermark.
        "key_watermark": wl.join(wr, F.expr("k = rk AND t = rt")),
        "left_semi_range": wl.join(
            wr, F.expr("k = rk AND rt >= t AND rt <= t + interval 5 seconds"), "leftSemi"),
        # Columns no one reads after the join (v, y) between and after those read.
        "left_outer_narrowed": wl.withColumn("v", F.col("k") * 10).withColumn("w", F.col("k") * 100)
        .join(wr.withColumn("x", F.col("rk") + 1).withColumn("y", F.col("rk") + 2),
              F.expr("k = rk AND rt >= t AND rt <= t + interval 5 seconds"), "leftOuter")
        .select("w", "k", "x"),
    }


def run(spark, name, base):
    base = os.path.join(base, name)
    (left_dir, right_dir), left, right = streams(spark, base)
    df = queries(left, right)[name]
    out = {"batches": [], "state": []}

    def each(batch, batch_id):
        rows = sorted(tuple(str(v) for v in row) for row in batch.collect())
        out["batches"].append([batch_id, rows])

    for step, (lrows, rrows) in enumerate(STEPS):
        # Each step's files are in place before the query (re)starts from its checkpoint, so
        # both engines split the input into the same batches.
        write(left_dir, step, lrows)
        write(right_dir, step, rrows)
        query = (df.writeStream.foreachBatch(each)
                 .option("checkpointLocation", os.path.join(base, "checkpoint")).start())
        query.processAllAvailable()
        progress = query.lastProgress
        out["state"].append([(s["operatorName"], s["numRowsTotal"], s["numRowsUpdated"],
                              s["numRowsRemoved"], s["numRowsDroppedByWatermark"])
                             for s in progress["stateOperators"]])
        query.stop()
    return out


def errors(spark, base):
    """The message each unsupported join raises, from start() or from the first batch."""
    (left_dir, right_dir), left, right = streams(spark, os.path.join(base, "errors"))
    write(left_dir, 0, STEPS[0][0])
    write(right_dir, 0, STEPS[0][1])
    wl, wr = left.withWatermark("t", "10 seconds"), right.withWatermark("rt", "10 seconds")
    cases = {
        "update_mode": (left.join(right, F.col("k") == F.col("rk")), "update"),
        "complete_mode": (left.join(right, F.col("k") == F.col("rk")).groupBy("k").count(),
                          "complete"),
        "left_outer_without_watermark": (left.join(right, F.col("k") == F.col("rk"), "left"),
                                         "append"),
        "right_outer_without_range": (wl.join(wr, F.col("k") == F.col("rk"), "right"), "append"),
        "left_anti": (wl.join(wr, F.col("k") == F.col("rk"), "left_anti"), "append"),
        "full_outer_without_watermark": (left.join(right, F.col("k") == F.col("rk"), "full"),
                                         "append"),
        "no_equality": (left.join(right, F.col("t") < F.col("rt")), "append"),
    }
    found = {}
    for name, (df, mode) in cases.items():
        try:
            query = (df.writeStream.outputMode(mode).format("memory").queryName(name)
                     .option("checkpointLocation", os.path.join(base, "errors", name)).start())
            query.processAllAvailable()
            query.stop()
            found[name] = None
        except Exception as error:  # the message is what the test compares
            found[name] = str(error)
    return found


def main():
    base = sys.argv[1]
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    spark = session()
    result = {name: run(spark, name, base) for name in
              ("inner", "left_outer_range", "right_outer_range", "key_watermark",
               "left_semi_range", "left_outer_narrowed")}
    result["errors"] = errors(spark, base)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
