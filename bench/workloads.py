"""The benchmark workloads, one PySpark program for both engines:

    python bench/workloads.py ember|spark WORKLOAD DATA_DIR WORK_DIR RESULT_JSON

With `ember` it activates Ember before `import pyspark`, so the very same code runs on either
engine. RESULT_JSON gets the instants (time.time()) when the workload started, gave its first
result and finished, the micro-batch completion instants where asked, a digest of the output to
compare the engines with, or the engine's error."""

import os
import sys
import time

ENGINE = sys.argv[1]
if ENGINE == "ember":
    import ember

    ember.activate()

from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Only what W6 (start-up) needs is imported here, as a fresh process's first answer is measured:
# the data generator, the Nexmark programs, json and re are imported where they are used.
from schemas import EVENT_SCHEMA  # noqa: E402

ICEBERG_JAR = os.path.expanduser(
    "~/.m2/repository/org/apache/iceberg/iceberg-spark-runtime-4.0_2.13/1.10.0/"
    "iceberg-spark-runtime-4.0_2.13-1.10.0.jar")

RESULT = {}
LARGE = 100_000  # rows beyond which outputs are compared by sums, not row by row


def first_result():
    RESULT.setdefault("first_result", time.time())


def session(work, iceberg):
    builder = (SparkSession.builder.master("local[*]").appName("ember-bench")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", str(os.cpu_count()))
               .config("spark.sql.session.timeZone", "UTC"))
    if iceberg:
        builder = (builder.config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
                   .config("spark.sql.catalog.local.type", "hadoop")
                   .config("spark.sql.catalog.local.warehouse", os.path.join(work, "warehouse")))
    if ENGINE == "spark":
        # The default 1 GB driver heap is too small for the full mode's million keys.
        builder = builder.config("spark.driver.memory", "4g")
        if iceberg:
            builder = (builder.config("spark.jars", ICEBERG_JAR)
                       .config("spark.sql.extensions",
                               "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"))
    return builder.getOrCreate()


def source(spark, path, schema, stream=True, **options):
    reader = spark.readStream if stream else spark.read
    return reader.schema(schema).options(**options).json(path)


def run_stream(df, work, name, mode="append", table=None):
    """Runs a streaming DataFrame over all the files there are (availableNow), into an Iceberg
    table or the memory sink; returns the output to check."""
    writer = (df.writeStream.outputMode(mode).trigger(availableNow=True)
              .option("checkpointLocation", os.path.join(work, "checkpoints", name)))
    query = writer.toTable(table) if table else writer.format("memory").queryName(name).start()
    query.processAllAvailable()
    query.stop()
    first_result()
    return df.sparkSession.table(table) if table else df.sparkSession.sql(f"SELECT * FROM {name}")


# W1: JSON files into an Iceberg table, as they are.
def ingest(spark, data, work):
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.bench")
    spark.sql("CREATE TABLE local.bench.events (event_id BIGINT, company_id STRING, "
              "amount DOUBLE, event_ts TIMESTAMP) USING iceberg")
    events = source(spark, os.path.join(data, "ingest"), EVENT_SCHEMA)
    return run_stream(events, work, "ingest", table="local.bench.events")


# W2: the seed's windowed count (SPK-11/01) into Iceberg, one file per micro-batch so the
# watermark advances from batch to batch and late events are dropped.
def windows(spark, data, work):
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.bench")
    spark.sql("CREATE TABLE local.bench.window_counts (company_id STRING, w_start TIMESTAMP, "
              "n BIGINT) USING iceberg")
    counts = (source(spark, os.path.join(data, "windows"), EVENT_SCHEMA, maxFilesPerTrigger=1)
              .withWatermark("event_ts", "10 minutes")
              .groupBy(F.window("event_ts", "5 minutes"), "company_id").count()
              .select("company_id", F.col("window.start").alias("w_start"),
                      F.col("count").alias("n")))
    return run_stream(counts, work, "windows", table="local.bench.window_counts")


# W3: a running aggregation over many keys, the whole result at every batch.
def keys(spark, data, work):
    totals = (source(spark, os.path.join(data, "keys"), EVENT_SCHEMA, maxFilesPerTrigger=1)
              .groupBy("company_id")
              .agg(F.count("*").alias("n"), F.sum("amount").alias("total")))
    return run_stream(totals, work, "key_totals", mode="complete")


# W4: at-least-once input made exactly-once: drop repeated event ids within the watermark.
def dedup(spark, data, work):
    unique = (source(spark, os.path.join(data, "dedup"), EVENT_SCHEMA, maxFilesPerTrigger=1)
              .withWatermark("event_ts", "10 minutes")
              .dropDuplicatesWithinWatermark(["event_id"]))
    return run_stream(unique, work, "unique_events")


# --big B1: ten million events over a million keys, the whole result (a million rows) into the
# memory sink at each of the ten micro-batches.
def big_keys(spark, data, work):
    totals = (source(spark, os.path.join(data, "big_keys"), EVENT_SCHEMA, maxFilesPerTrigger=1)
              .groupBy("company_id")
              .agg(F.count("*").alias("n"), F.sum("amount").alias("total")))
    return run_stream(totals, work, "big_key_totals", mode="complete")


# --big B2: five million events whose event time advances, a 5-minute windowed count per company
# under a 10-minute watermark, appended; the state must stay bounded: the largest numRowsTotal
# of the state operator over the micro-batches is recorded.
def big_windows(spark, data, work):
    counts = (source(spark, os.path.join(data, "big_windows"), EVENT_SCHEMA, maxFilesPerTrigger=1)
              .withWatermark("event_ts", "10 minutes")
              .groupBy(F.window("event_ts", "5 minutes"), "company_id").count()
              .select("company_id", F.col("window.start").alias("w_start"), "count"))
    query = (counts.writeStream.outputMode("append").trigger(availableNow=True)
             .option("checkpointLocation", os.path.join(work, "checkpoints", "big_windows"))
             .format("memory").queryName("big_window_counts").start())
    query.processAllAvailable()
    query.stop()
    first_result()
    import json

    state = []
    for p in query.recentProgress:
        p = p if isinstance(p, dict) else json.loads(p.json)
        operators = p.get("stateOperators") or [{}]
        state.append([p.get("batchId"), p.get("numInputRows"), operators[0].get("numRowsTotal"),
                      operators[0].get("numRowsDroppedByWatermark")])
    RESULT["state_rows"] = state  # [batchId, numInputRows, numRowsTotal, numRowsDropped...]
    return spark.sql("SELECT * FROM big_window_counts")


# W5: one tiny file per micro-batch, to a foreachBatch sink: the fixed cost of a batch.
def tiny(spark, data, work):
    rows, done = [], RESULT.setdefault("batch_done", [])

    def each(batch, batch_id):
        rows.extend(batch.collect())
        first_result()
        done.append(time.time())

    big = (source(spark, os.path.join(data, "tiny"), EVENT_SCHEMA, maxFilesPerTrigger=1)
           .where("amount >= 50000").select("event_id", "company_id", "amount"))
    query = (big.writeStream.foreachBatch(each).trigger(availableNow=True)
             .option("checkpointLocation", os.path.join(work, "checkpoints", "tiny")).start())
    query.processAllAvailable()
    query.stop()
    return rows


# W7: a generated stream (rate-micro-batch, no input files), a count per key and 10-second
# window in update mode; foreachBatch collects each batch's changed groups.
def rate(spark, data, work):
    import json

    with open(os.path.join(data, "rate", "size.json")) as f:
        size = json.load(f)
    rows, done = [], RESULT.setdefault("batch_done", [])

    def each(batch, batch_id):
        if batch_id < size["batches"]:
            rows.extend((batch_id,) + tuple(r) for r in batch.collect())
            first_result()
            done.append(time.time())

    counts = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", size["rows_per_batch"])
              .option("advanceMillisPerBatch", 5000).load()
              .groupBy(F.window("timestamp", "10 seconds"), (F.col("value") % 1000).alias("k")).count()
              .select(F.col("window.start").alias("w"), "k", "count"))
    query = (counts.writeStream.outputMode("update").foreachBatch(each)
             .option("checkpointLocation", os.path.join(work, "checkpoints", "rate")).start())
    while len(done) < size["batches"] and query.isActive:
        time.sleep(0.01)
    query.stop()
    return rows


# W6: a fresh process's first answer: a small DataFrame, aggregated and collected.
def startup(spark, data, work):
    df = spark.createDataFrame([(i % 7, float(i)) for i in range(1000)], "k INT, v DOUBLE")
    rows = df.groupBy("k").agg(F.sum("v").alias("total")).orderBy("k").collect()
    first_result()
    return rows


def nexmark(spark, data, work):
    import nexmark_queries as queries
    from schemas import AUCTION_SCHEMA, BID_SCHEMA, PERSON_SCHEMA

    for name, mode in queries.NEXMARK.items():
        entry = RESULT.setdefault("queries", {}).setdefault(name, {"mode": mode})
        entry["start"], cpu = time.time(), time.process_time()
        try:
            streams = [source(spark, os.path.join(data, "nexmark", kind), schema, mode == "stream")
                       for kind, schema in (("person", PERSON_SCHEMA), ("auction", AUCTION_SCHEMA),
                                            ("bid", BID_SCHEMA))]
            df = getattr(queries, name)(*streams)
            if mode == "stream":
                df = run_stream(df, work, f"nexmark_{name}")
            rows = df.collect() if mode == "batch" else df
            first_result()
            entry["done"] = time.time()
            # This process's CPU time: all of Ember's work, only the driver's share of Spark's.
            entry["cpu"] = time.process_time() - cpu
            entry["digest"] = digest(rows)
            if mode == "stream":
                # Checked, a query's memory-sink table is dropped, on both engines: the process's
                # peak is then its largest query's, not that plus every earlier query's output.
                del rows, df
                spark.catalog.dropTempView(f"nexmark_{name}")
        except Exception as error:  # an unsupported query is reported, and the others still run
            entry["error"] = describe(error)
    return None


def plain(v):
    """A value both engines render alike: floats to 6 places, times as ISO text."""
    from datetime import date, datetime
    from decimal import Decimal

    if isinstance(v, float):
        return round(v, 6)
    if isinstance(v, (datetime, date, Decimal)):
        return str(v)
    if isinstance(v, (tuple, list)):
        return tuple(plain(x) for x in v)
    return v


def digest(output):
    """Row count and a hash of the sorted rows; for very large outputs, sums per column."""
    if output is None:
        return None
    if not isinstance(output, list):
        n = output.count()
        if n > LARGE:
            sums = [F.sum(F.col(c).cast("double") if t not in ("string", "timestamp") else
                          F.length(c) if t == "string" else F.col(c).cast("long")).alias(c)
                    for c, t in output.dtypes]
            # Nine significant digits: engines may add doubles in different orders.
            totals = [float(f"{x:.9g}") if isinstance(x, float) else x
                      for x in output.agg(*sums).collect()[0]]
            return {"rows": n, "sums": repr(totals)}
        output = output.collect()
    import hashlib  # here, as traceback below: start-up (W6) is measured, for both engines

    lines = sorted(repr(plain(tuple(r))) for r in output)
    return {"rows": len(lines), "sha1": hashlib.sha1("\n".join(lines).encode()).hexdigest()}


def usage_so_far():
    """(peak resident MB of the largest process, CPU seconds) of the engine until now: this
    process, and for Spark its JVM too. Read when the workload ends, before the harness checks
    its output (which imports pyarrow and pandas in both drivers)."""
    pids = [os.getpid()]
    if ENGINE == "spark":
        from pyspark import SparkContext

        pids.append(SparkContext._gateway.proc.pid)  # spark-submit execs the JVM
    peak, cpu = 0.0, 0.0
    for pid in pids:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]) / 1024)
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    return peak, cpu


def describe(error):
    """The error's first line, without the query ids that change from run to run."""
    import re

    line = (str(error).strip().splitlines() or [""])[0]
    line = re.sub(r"Query \[id = [^]]*\] terminated with exception: ", "", line)
    return f"{type(error).__name__}: {line[:300]}"


def main():
    workload, data, work, out = sys.argv[2:6]
    fn, spark = globals()[workload], None
    try:
        spark = session(work, iceberg=workload in ("ingest", "windows"))
        RESULT["start"] = time.time()
        output = fn(spark, data, work)
        RESULT["done"] = time.time()
        try:
            RESULT["rss_mb"], RESULT["cpu"] = usage_so_far()
        except (OSError, AttributeError):  # then bench/run.py takes the process tree's figures
            pass
        RESULT["digest"] = digest(output)
    except Exception as error:
        import traceback

        traceback.print_exc()
        RESULT["error"] = describe(error)
    import json

    with open(out, "w") as f:
        json.dump(RESULT, f)
    if ENGINE == "spark" and spark is not None:
        spark.stop()
        # Wait for the JVM, so that the parent's wait4 counts its CPU time and memory.
        from pyspark import SparkContext

        SparkContext._gateway.proc.stdin.close()
        SparkContext._gateway.proc.wait(timeout=120)


if __name__ == "__main__":
    main()
