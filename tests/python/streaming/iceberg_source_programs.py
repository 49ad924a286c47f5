"""Streaming reads of Iceberg tables that run unchanged on Ember and on the real Spark with
Iceberg's runtime (`python iceberg_source_programs.py NAME WORKDIR ENGINE`), for
test_iceberg_source.py. The tables are written once, by Ember (`setup`, `append`, `delete`), and
read by both engines, so snapshot ids, and with them the offsets, are the same. Each program
prints one JSON document on its last line."""

import json
import os
import re
import sys

ENGINE = sys.argv[3] if len(sys.argv) > 3 else "ember"
if ENGINE == "ember":
    import ember

    ember.activate()

from pyspark.sql import SparkSession  # noqa: E402

ICEBERG_JAR = os.path.expanduser(
    "~/.m2/repository/org/apache/iceberg/iceberg-spark-runtime-4.0_2.13/1.10.0/"
    "iceberg-spark-runtime-4.0_2.13-1.10.0.jar")


def session(warehouse):
    builder = (SparkSession.builder.appName("iceberg-source")
               .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
               .config("spark.sql.catalog.local.type", "hadoop")
               .config("spark.sql.catalog.local.warehouse", warehouse)
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.shuffle.partitions", "2"))
    if ENGINE == "spark":
        builder = (builder.master("local[2]").config("spark.jars", ICEBERG_JAR)
                   .config("spark.sql.extensions",
                           "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
                   .config("spark.ui.enabled", "false")
                   .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC"))
    spark = builder.getOrCreate()
    if ENGINE == "spark":
        spark.sparkContext.setLogLevel("OFF")
    return spark


def offsets_log(checkpoint):
    """Each offsets/N file's source lines, and the initial offset Iceberg keeps in sources/0."""
    folder = os.path.join(checkpoint, "offsets")
    logged = {}
    for name in sorted(os.listdir(folder), key=lambda n: int(n) if n.isdigit() else -1):
        if name.isdigit():
            with open(os.path.join(folder, name)) as f:
                logged[name] = f.read().split("\n")[2:]
    with open(os.path.join(checkpoint, "sources", "0", "offsets", "0")) as f:
        logged["initial"] = f.read()
    return logged


def run(spark, checkpoint, reader, trigger=None):
    """Runs the stream to the end of what is there (batches every 100 ms, or by `trigger`); the
    rows of each batch (sorted), the progress of the batches that read rows, the offsets."""
    batches = {}

    def collect(df, batch_id):
        batches[str(batch_id)] = sorted([list(r) for r in df.collect()])

    writer = reader.writeStream.foreachBatch(collect).option("checkpointLocation", checkpoint)
    query = writer.trigger(**(trigger or {"processingTime": "100 milliseconds"})).start()
    if trigger:
        query.awaitTermination()
    else:
        try:
            query.processAllAvailable()
        finally:
            query.stop()
    progress = [{"batchId": p["batchId"], "numInputRows": p["numInputRows"],
                 "startOffset": p["sources"][0]["startOffset"],
                 "endOffset": p["sources"][0]["endOffset"]}
                for p in query.recentProgress if p["numInputRows"] > 0]
    descriptions = sorted({p["sources"][0]["description"] for p in query.recentProgress})
    return {"batches": batches, "progress": progress, "offsets": offsets_log(checkpoint),
            "description": descriptions}


def error_of(action):
    """The Iceberg message of the exception `action` raises (the line naming the snapshot)."""
    try:
        action()
    except Exception as e:  # noqa: BLE001 - the message is what is compared
        text = str(e)
        found = re.search(r"Cannot (process|load|find)[^\n]*?(?= SQLSTATE|\n|$)", text)
        return found.group(0) if found else text.split("\n")[0]
    return None


def rows_for(first, count):
    return [(i, "abc"[i % 3], i * 10) for i in range(first, first + count)]


# Writers of the shared tables (run on Ember only).

def setup(workdir):
    """local.db.t, partitioned by p: three appends of 3, 2 and 1 files (a file per partition
    value), 2 or 3 rows a file; local.db.e, empty."""
    spark = session(os.path.join(workdir, "wh"))
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.db")
    spark.sql("CREATE TABLE local.db.t (id INT, p STRING, v BIGINT) USING iceberg PARTITIONED BY (p)")
    spark.sql("CREATE TABLE local.db.e (id INT, p STRING, v BIGINT) USING iceberg")
    appends = [rows_for(0, 9),                                          # a, b, c: 3 rows each
               [r for r in rows_for(100, 6) if r[1] != "c"],             # a, b: 2 rows each
               [(200, "a", 2000), (201, "a", 2010)]]                     # a: 2 rows
    for rows in appends:
        spark.createDataFrame(rows, "id INT, p STRING, v BIGINT").writeTo("local.db.t").append()
    print(json.dumps(snapshots(spark, "local.db.t")))


def append(workdir):
    """Two more appends to each table."""
    spark = session(os.path.join(workdir, "wh"))
    for table, first in (("local.db.t", 300), ("local.db.e", 400)):
        for k in range(2):
            rows = rows_for(first + 10 * k, 3 + k)
            spark.createDataFrame(rows, "id INT, p STRING, v BIGINT").writeTo(table).append()
    print(json.dumps(snapshots(spark, "local.db.t")))


def delete(workdir):
    """A delete snapshot (whole files: a partition), an overwrite (rows of a file) and an append."""
    spark = session(os.path.join(workdir, "wh"))
    spark.sql("DELETE FROM local.db.t WHERE p = 'c'")
    spark.sql("UPDATE local.db.t SET v = -1 WHERE id = 200")
    spark.createDataFrame([(500, "b", 5000)], "id INT, p STRING, v BIGINT").writeTo("local.db.t").append()
    print(json.dumps(snapshots(spark, "local.db.t")))


def snapshots(spark, table):
    return [[r.snapshot_id, r.operation] for r in
            spark.sql(f"SELECT snapshot_id, operation FROM {table}.snapshots ORDER BY committed_at").collect()]


# The readers (run on both engines).

def limits(workdir):
    """The table read with each read limit, each on a checkpoint of its own."""
    spark = session(os.path.join(workdir, "..", "wh"))
    out = {}
    cases = {
        "files": {"streaming-max-files-per-micro-batch": "2"},
        "rows": {"streaming-max-rows-per-micro-batch": "5"},
        "both": {"streaming-max-files-per-micro-batch": "4", "streaming-max-rows-per-micro-batch": "7"},
        "none": {},
    }
    for name, options in cases.items():
        reader = spark.readStream.format("iceberg").options(**options).load("local.db.t")
        out[name] = run(spark, os.path.join(workdir, name), reader)
    # Trigger.AvailableNow and Trigger.Once read everything in one batch whatever the limits
    # say (Iceberg 1.10's source does not support AvailableNow: Spark wraps it).
    reader = spark.readStream.option("streaming-max-files-per-micro-batch", "1").table("local.db.t")
    out["now"] = run(spark, os.path.join(workdir, "now"), reader, {"availableNow": True})
    reader = spark.readStream.option("streaming-max-files-per-micro-batch", "1").table("local.db.t")
    out["once"] = run(spark, os.path.join(workdir, "once"), reader, {"once": True})
    out["schema"] = reader.schema.simpleString()
    print(json.dumps(out))


def incremental(workdir):
    """One run on the checkpoints in workdir (called again after `append` and `delete`): the
    table with a limit, the empty table, the table from a timestamp, and, after deletes, the
    failure or the skipping of delete and overwrite snapshots."""
    spark = session(os.path.join(workdir, "..", "wh"))
    out = {}
    def t(**options):
        options = {"streaming-max-files-per-micro-batch": "3", **options}
        return spark.readStream.options(**options).table("local.db.t")

    table = t()
    skip_delete = t(**{"streaming-skip-delete-snapshots": "true"})
    skip_both = t(**{"streaming-skip-delete-snapshots": "true",
                     "streaming-skip-overwrite-snapshots": "true"})
    deleted = spark.sql("SELECT * FROM local.db.t.snapshots WHERE operation = 'delete'").count() > 0
    if not deleted:
        out["t"] = run(spark, os.path.join(workdir, "t"), table)
    else:
        out["fails"] = error_of(lambda: run(spark, os.path.join(workdir, "t"), table))
        out["fails_overwrite"] = error_of(lambda: run(spark, os.path.join(workdir, "t"), skip_delete))
        out["skips"] = run(spark, os.path.join(workdir, "t"), skip_both)
    out["e"] = run(spark, os.path.join(workdir, "e"), spark.readStream.table("local.db.e"),
                   {"availableNow": True})
    snaps = spark.sql("SELECT committed_at FROM local.db.t.snapshots ORDER BY committed_at").collect()
    # From the third snapshot's commit time on (epoch milliseconds).
    since = str(round(snaps[2].committed_at.timestamp() * 1000))
    out["since"] = run(spark, os.path.join(workdir, "since"),
                       spark.readStream.format("iceberg").option("stream-from-timestamp", since)
                       .option("streaming-skip-delete-snapshots", "true")
                       .option("streaming-skip-overwrite-snapshots", "true").load("local.db.t"),
                       {"availableNow": True})
    print(json.dumps(out))


if __name__ == "__main__":
    globals()[sys.argv[1]](sys.argv[2])
