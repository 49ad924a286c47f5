"""Streaming programs that run unchanged on Ember and on the real Spark, for side-by-side tests.

Run as `python programs.py NAME WORKDIR ENGINE` in a process of its own. With ENGINE `ember` the
program activates Ember, so `pyspark` resolves to Ember; with `spark` the same code runs on
Apache Spark. Each program prints what the test compares: the console sink's own output, or one
JSON document on the last line of stdout."""

import json
import os
import sys
import time

ENGINE = sys.argv[3] if len(sys.argv) > 3 else "ember"
if ENGINE == "ember":
    import ember

    ember.activate()

from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402
try:
    from pyspark.sql.streaming import StreamingQueryListener  # noqa: E402
except ImportError:  # not built yet
    StreamingQueryListener = object

EVENTS_DDL = "id INT, name STRING, amount DOUBLE, ts TIMESTAMP"


def session(**conf):
    builder = (SparkSession.builder.appName("side-by-side")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.shuffle.partitions", "2"))
    for key, value in conf.items():
        builder = builder.config(key, value)
    if ENGINE == "spark":
        builder = (builder.master("local[2]")
                   .config("spark.ui.enabled", "false")
                   .config("spark.ui.showConsoleProgress", "false")
                   .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC"))
    spark = builder.getOrCreate()
    if ENGINE == "spark":
        spark.sparkContext.setLogLevel("OFF")
    return spark


def write_file(directory, name, rows, mtime):
    """A JSON-lines file with a fixed modification time, so both engines order files alike,
    moved into the directory whole (a hidden name first): a running query may list the
    directory at any moment."""
    hidden = os.path.join(directory, "." + name + ".tmp")
    with open(hidden, "w") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")
    os.utime(hidden, (mtime, mtime))
    os.replace(hidden, os.path.join(directory, name))


def event_rows(first, count):
    """Strings (short, long, NULL), ints, doubles (some NULL) and timestamps."""
    rows = []
    for i in range(first, first + count):
        rows.append({
            "id": i,
            "name": None if i % 5 == 3 else ("a long name that needs truncation " * (i % 3))[: 10 * i] or f"n{i}",
            "amount": None if i % 4 == 1 else round(i * 1.25 - 3, 2),
            "ts": f"2024-05-01T09:{i % 60:02d}:{(i * 7) % 60:02d}.{i * 37 % 1000:03d}Z",
        })
    return rows


def console(workdir):
    """The console sink: a stateless select and a complete-mode aggregation, a few batches."""
    spark = session()
    source = os.path.join(workdir, "in")
    os.makedirs(source)
    for f in range(3):
        write_file(source, f"f{f}.json", event_rows(f * 6, 6), 1_700_000_000 + f)
    events = spark.readStream.schema(EVENTS_DDL).option("maxFilesPerTrigger", 1).json(source)
    selected = events.select("id", "name", "amount", "ts", (F.col("amount") * 2).alias("twice"))
    wide = events.select(
        "id", (F.col("amount") * 1e18).alias("big"), (F.col("amount") / 1e7).alias("small"),
        (F.col("id") % 2 == 0).alias("even"), F.to_date("ts").alias("day"),
        F.concat(F.lit("日本"), F.col("name")).alias("wide_name"),
        F.struct("id", "amount").alias("both"), (F.col("id").cast("long") * 1_000_000_007).alias("long_id"))
    q1 = (selected.writeStream.format("console").option("numRows", 4).option("truncate", "true")
          .option("checkpointLocation", os.path.join(workdir, "cp1")).start())
    q1.processAllAvailable()
    q1.stop()
    q2 = (events.writeStream.format("console").option("truncate", "false")
          .option("checkpointLocation", os.path.join(workdir, "cp2")).start())
    q2.processAllAvailable()
    q2.stop()
    q4 = (wide.writeStream.format("console").option("numRows", 3)
          .option("checkpointLocation", os.path.join(workdir, "cp4")).start())
    q4.processAllAvailable()
    q4.stop()
    counts = (events.groupBy((F.col("id") % 3).alias("k"))
              .agg(F.count("*").alias("n"), F.sum("amount").alias("total"), F.max("name").alias("top"),
                   F.max("ts").alias("latest"))
              .orderBy("k"))
    q3 = (counts.writeStream.format("console").outputMode("complete")
          .option("checkpointLocation", os.path.join(workdir, "cp3")).start())
    q3.processAllAvailable()
    q3.stop()
    sys.stdout.flush()


def checkpoint(workdir):
    """A file source into a parquet sink: two batches of one file, a restart, one more batch."""
    spark = session()
    source, out, cp = (os.path.join(workdir, d) for d in ("in", "out", "cp"))
    os.makedirs(source)
    write_file(source, "a b.json", event_rows(0, 3), 1_700_000_000)
    write_file(source, "c.json", event_rows(3, 3), 1_700_000_001)

    def run():
        query = (spark.readStream.schema(EVENTS_DDL).option("maxFilesPerTrigger", 1).json(source)
                 .withWatermark("ts", "10 minutes").select("id", "name", "ts")
                 .writeStream.format("parquet").option("path", out)
                 .option("checkpointLocation", cp).start())
        query.processAllAvailable()
        query.stop()

    run()
    write_file(source, "d.json", event_rows(6, 3), 1_700_000_002)
    run()
    files = {}
    for root in (cp, os.path.join(out, "_spark_metadata")):
        for directory, _, names in os.walk(root):
            for name in names:
                if name.startswith(".") or name.endswith(".crc"):
                    continue
                path = os.path.join(directory, name)
                with open(path) as f:
                    files[os.path.relpath(path, workdir)] = f.read()
    rows = sorted(r["id"] for r in spark.read.parquet(out).collect())
    print(json.dumps({"files": files, "rows": rows, "workdir": workdir}))



def folder_view(path):
    """The files of a checkpoint folder (Spark's hidden .crc files left out): names and bytes."""
    names, total = [], 0
    for directory, _, files in os.walk(path):
        for name in files:
            if name.startswith(".") or name.endswith(".crc"):
                continue
            names.append(os.path.relpath(os.path.join(directory, name), path))
            total += os.path.getsize(os.path.join(directory, name))
    return {"names": sorted(names), "bytes": total}


def long_run(workdir):
    """Many one-file batches (availableNow, maxFilesPerTrigger 1) of dropDuplicates(["v"]) into
    a parquet sink, with minBatchesToRetain 10, both file logs compacted every 5 entries and
    cleaned up without delay; a restart with more files. Each file i holds v = i and v = i // 2 (a duplicate of an earlier batch's v)."""
    spark = session(**{"spark.sql.streaming.minBatchesToRetain": "10",
                       "spark.sql.streaming.fileSource.log.compactInterval": "5",
                       "spark.sql.streaming.fileSink.log.compactInterval": "5",
                       "spark.sql.streaming.fileSource.log.cleanupDelay": "0",
                       "spark.sql.streaming.fileSink.log.cleanupDelay": "0",
                       "spark.sql.streaming.stateStore.maintenanceInterval": "1s"})
    first, total = 45, 60
    source, out, cp = (os.path.join(workdir, d) for d in ("in", "out", "cp"))
    os.makedirs(source)

    def write(files):
        for i in files:
            write_file(source, f"f{i:04d}.json", [{"k": i % 7, "v": i}, {"k": 0, "v": i // 2}],
                       1_700_000_000 + i)

    def run():
        query = (spark.readStream.schema("k INT, v INT").option("maxFilesPerTrigger", 1)
                 .json(source).dropDuplicates(["v"]).writeStream.format("parquet")
                 .option("path", out).option("checkpointLocation", cp)
                 .trigger(availableNow=True).start())
        query.awaitTermination()
        views = {name: folder_view(os.path.join(cp, name))
                 for name in ("sources/0", "offsets", "commits", "state")}
        views["out/_spark_metadata"] = folder_view(os.path.join(out, "_spark_metadata"))
        compacts = [n for n in views["sources/0"]["names"] if n.endswith(".compact")]
        with open(os.path.join(cp, "sources", "0", compacts[-1])) as f:
            views["last_compact"] = {"name": compacts[-1], "entries": [
                [e["batchId"], os.path.basename(e["path"])]
                for e in map(json.loads, f.read().split("\n")[1:])]}
        return views

    write(range(first))
    runs = {"first": run()}
    write(range(first, total))
    runs["again"] = run()
    runs["rows"] = sorted(r["v"] for r in spark.read.parquet(out).collect())
    print(json.dumps(runs))


class Recorder(StreamingQueryListener):
    """Every event, as plain data: kind, query ids, and what the kind carries."""

    def __init__(self):
        self.events = []

    def onQueryStarted(self, event):
        self.events.append({"kind": "started", "id": str(event.id), "runId": str(event.runId),
                            "name": event.name, "timestamp": event.timestamp})

    def onQueryProgress(self, event):
        p = event.progress
        self.events.append({"kind": "progress", "id": str(p.id), "runId": str(p.runId),
                            "batchId": p.batchId, "numInputRows": p.numInputRows,
                            "progress_keys": sorted(p.keys()), "durations": sorted(p.durationMs),
                            "source_rows": [s.numInputRows for s in p.sources]})

    def onQueryIdle(self, event):
        self.events.append({"kind": "idle", "id": str(event.id), "runId": str(event.runId),
                            "timestamp": event.timestamp})

    def onQueryTerminated(self, event):
        self.events.append({"kind": "terminated", "id": str(event.id), "runId": str(event.runId),
                            "exception": event.exception,
                            "errorClassOnException": event.errorClassOnException})

    def wait_for(self, count, kind="terminated", timeout=30):
        deadline = time.time() + timeout
        while sum(e["kind"] == kind for e in self.events) < count and time.time() < deadline:
            time.sleep(0.05)


def listener(workdir):
    """Two data batches, idle triggers, stop; then a query that fails; then one after
    removeListener."""
    spark = session(**{"spark.sql.streaming.noDataProgressEventInterval": "500ms"})
    source = os.path.join(workdir, "in")
    os.makedirs(source)
    for f in range(2):
        write_file(source, f"f{f}.json", event_rows(f * 3, 3), 1_700_000_000 + f)
    recorder = Recorder()
    spark.streams.addListener(recorder)
    query = (spark.readStream.schema(EVENTS_DDL).option("maxFilesPerTrigger", 1).json(source)
             .writeStream.format("memory").queryName("events")
             .option("checkpointLocation", os.path.join(workdir, "cp1")).start())
    started_before_return = [e["kind"] for e in recorder.events]
    query.processAllAvailable()
    time.sleep(2)  # idle triggers: an idle event every 500 ms
    query.stop()
    recorder.wait_for(1)
    first = {"query": {"id": str(query.id), "runId": str(query.runId)},
             "started_before_return": started_before_return, "events": list(recorder.events),
             "recent": [(p["batchId"], p["numInputRows"], sorted(p["durationMs"]))
                        for p in query.recentProgress]}

    recorder.events.clear()

    def fail(batch_df, batch_id):
        raise ValueError(f"boom in batch {batch_id}")

    failing = (spark.readStream.schema(EVENTS_DDL).json(source).writeStream.foreachBatch(fail)
               .option("checkpointLocation", os.path.join(workdir, "cp2")).start())
    try:
        failing.awaitTermination()
    except Exception:  # noqa: BLE001 - the failure is what the events report
        pass
    recorder.wait_for(1)
    second = {"query": {"id": str(failing.id), "runId": str(failing.runId)},
              "events": list(recorder.events)}

    recorder.events.clear()
    spark.streams.removeListener(recorder)
    after = (spark.readStream.schema(EVENTS_DDL).json(source).writeStream.format("noop")
             .option("checkpointLocation", os.path.join(workdir, "cp3")).start())
    after.processAllAvailable()
    after.stop()
    time.sleep(1)
    print(json.dumps({"first": first, "failing": second, "after_remove": recorder.events}))


def retention(workdir):
    """Ten batches into a parquet sink with `retention`, the log entries of the first three
    made two hours old before the compaction (batch 9). Run with and without the option."""
    spark = session()
    result = {}
    for name, options in (("with", {"retention": "1h"}), ("without", {})):
        source, out, cp = (os.path.join(workdir, name, d) for d in ("in", "out", "cp"))
        os.makedirs(source)
        for f in range(9):
            write_file(source, f"f{f}.json", event_rows(f * 2, 2), 1_700_000_000 + f)

        def run():
            query = (spark.readStream.schema(EVENTS_DDL).option("maxFilesPerTrigger", 1).json(source)
                     .writeStream.format("parquet").options(**options).option("path", out)
                     .option("checkpointLocation", cp).start())
            query.processAllAvailable()
            query.stop()

        run()
        log = os.path.join(out, "_spark_metadata")
        batch_of = {}
        old = int(time.time() * 1000) - 2 * 3600 * 1000
        for batch in range(9):
            path = os.path.join(log, str(batch))
            with open(path) as f:
                lines = f.read().split("\n")
            entries = [json.loads(line) for line in lines[1:] if line]
            for e in entries:
                batch_of[e["path"]] = batch
                if batch < 3:
                    e["modificationTime"] = old
            with open(path, "w") as f:
                f.write("\n".join([lines[0]] + [json.dumps(e) for e in entries]))
            crc = os.path.join(log, f".{batch}.crc")
            if os.path.exists(crc):
                os.remove(crc)  # Hadoop's checksum of the old content
        write_file(source, "f9.json", event_rows(18, 2), 1_700_000_009)
        run()
        with open(os.path.join(log, "9.compact")) as f:
            compact = [json.loads(line) for line in f.read().split("\n")[1:] if line]
        result[name] = {
            "log": sorted(n for n in os.listdir(log) if not n.startswith(".")),
            "compacted_batches": [batch_of.get(e["path"], 9) for e in compact],
            "ids_read": sorted(r["id"] for r in spark.read.parquet(out).collect()),
        }
    print(json.dumps(result))


def source_log(workdir):
    """The file source's log and its choice of files, in four runs: 25 batches of one file with a
    restart after 12 (compactions 9 and 19); maxFilesPerTrigger 2 over six files, an older file
    arriving during batch 0 (the unread files of the first listing come first); maxFilesPerTrigger
    10 over eleven files, the same (one file left is too few to keep: the next trigger lists
    again); availableNow with a file arriving during batch 0 (it waits for the next run)."""
    spark = session()
    result = {}

    def run(name, files, late=None, available_now=False, **options):
        source, cp = (os.path.join(workdir, name, d) for d in ("in", "cp"))
        os.makedirs(source, exist_ok=True)
        for f, first in files:
            write_file(source, f"f{f:02d}.json", [{"id": i} for i in range(first, first + 2)],
                       1_700_000_000 + f)
        batches = []

        def each(batch_df, batch_id):
            batches.append([batch_id, sorted(r["id"] for r in batch_df.collect())])
            if late and batch_id == late[0]:
                write_file(source, "late.json", [{"id": late[1]}], late[2])

        writer = (spark.readStream.schema("id INT").options(**options).json(source)
                  .writeStream.foreachBatch(each).option("checkpointLocation", cp))
        if available_now:
            writer = writer.trigger(availableNow=True)
        query = writer.start()
        query.processAllAvailable()
        query.stop()
        log = {}
        for entry in sorted(os.listdir(os.path.join(cp, "sources", "0"))):
            if not entry.startswith(".") and not entry.endswith(".crc"):
                with open(os.path.join(cp, "sources", "0", entry)) as f:
                    log[entry] = f.read()
        return {"batches": batches, "log": log}

    first = run("compact", [(f, f * 10) for f in range(12)], maxFilesPerTrigger=1, available_now=True)
    again = run("compact", [(f, f * 10) for f in range(12, 25)], maxFilesPerTrigger=1, available_now=True)
    result["compact"] = {"first": first["batches"], "again": again["batches"], "log": again["log"]}
    result["unread"] = run("unread", [(f, f * 10) for f in range(6)], late=(0, 1000, 1_699_999_900),
                           maxFilesPerTrigger=2)
    result["discard"] = run("discard", [(f, f * 10) for f in range(11)], late=(0, 1000, 1_699_999_900),
                            maxFilesPerTrigger=10)
    now = run("now", [(f, f * 10) for f in range(3)], late=(0, 1000, 1_800_000_000),
              maxFilesPerTrigger=1, available_now=True)
    later = run("now", [], maxFilesPerTrigger=1, available_now=True)
    result["available_now"] = {"first": now["batches"], "next_run": later["batches"],
                               "log": later["log"]}
    for part in result.values():
        for name, text in part["log"].items():
            part["log"][name] = [text.split("\n")[0]] + [
                {**json.loads(line), "path": line.split('"path":"')[1].split('"')[0].rsplit("/", 1)[1]}
                for line in text.split("\n")[1:] if line]
    print(json.dumps(result))


def manager(workdir):
    """spark.streams over queries that stop and fail: what get, active and awaitAnyTermination
    say after each."""
    spark = session()
    source = os.path.join(workdir, "in")
    os.makedirs(source)
    write_file(source, "f0.json", event_rows(0, 3), 1_700_000_000)
    streams = spark.streams
    steps = {}

    def start(name, writer=lambda w: w.format("memory").queryName("rows")):
        df = spark.readStream.schema(EVENTS_DDL).json(source)
        return writer(df.writeStream).option("checkpointLocation", os.path.join(workdir, name)).start()

    def waited(timeout=None):
        try:
            return streams.awaitAnyTermination(timeout) if timeout else streams.awaitAnyTermination()
        except Exception as error:  # noqa: BLE001 - which error is what is compared
            return type(error).__name__

    first = start("cp1")
    first.processAllAvailable()
    steps["running"] = [streams.get(first.id) is not None, [q.name for q in streams.active],
                        waited(0.5)]
    first.stop()
    steps["stopped"] = [streams.get(first.id) is None, streams.active, waited(0.5)]
    streams.resetTerminated()
    steps["reset"] = waited(0.5)

    def fail(batch_df, batch_id):
        raise ValueError(f"boom in batch {batch_id}")

    failing = start("cp2", lambda w: w.foreachBatch(fail))
    steps["failed"] = [waited(), streams.get(failing.id) is None]
    clean = start("cp3", lambda w: w.format("noop"))
    clean.processAllAvailable()
    clean.stop()
    # An error sticks over a later clean stop, until resetTerminated.
    steps["error_sticks"] = waited(0.5)
    streams.resetTerminated()
    steps["reset_again"] = waited(0.5)
    print(json.dumps(steps))


def window_time_stream(workdir):
    """window_time over the window column of a streaming aggregation, each batch's rows."""
    spark = session()
    source = os.path.join(workdir, "in")
    os.makedirs(source)
    for f in range(2):
        write_file(source, f"f{f}.json", event_rows(f * 6, 6), 1_700_000_000 + f)
    events = spark.readStream.schema(EVENTS_DDL).option("maxFilesPerTrigger", 1).json(source)
    counted = events.groupBy(F.window("ts", "10 minutes")).count()
    batches = []

    def collect(batch_df, batch_id):
        rows = batch_df.select(F.window_time("window").alias("t"), "count").collect()
        batches.append(sorted([str(r.t), r["count"]] for r in rows))

    query = (counted.writeStream.outputMode("complete").foreachBatch(collect)
             .option("checkpointLocation", os.path.join(workdir, "cp")).start())
    query.processAllAvailable()
    query.stop()
    print(json.dumps(batches))


def foreach_error(workdir):
    """A foreach sink whose function raises: the query's error, its condition and message."""
    spark = session()
    source = os.path.join(workdir, "in")
    os.makedirs(source)
    write_file(source, "f0.json", event_rows(0, 3), 1_700_000_000)
    events = spark.readStream.schema(EVENTS_DDL).json(source)

    def process(row):
        raise ValueError("no row wanted")

    query = (events.writeStream.foreach(process)
             .option("checkpointLocation", os.path.join(workdir, "cp")).start())
    try:
        query.awaitTermination()
        outcome = {"raised": None}
    except Exception as error:  # noqa: BLE001 - what it is, is what the test compares
        text = str(error)
        outcome = {"raised": type(error).__name__, "condition": error.getCondition(),
                   "conditions": sorted(c for c in ("FOREACH_USER_FUNCTION_ERROR",
                                                    "FOREACH_BATCH_USER_FUNCTION_ERROR")
                                        if f"[{c}]" in text),
                   "reason": "no row wanted" in text}
    print(json.dumps(outcome))


def not_null_schema(workdir):
    """readStream.schema() with NOT NULL fields, as DDL and as a StructType: the stream's schema
    and rows, and the same for spark.read."""
    from pyspark.sql.types import IntegerType, StringType, StructField, StructType

    spark = session()
    source = os.path.join(workdir, "in")
    os.makedirs(source)
    write_file(source, "f0.json", [{"id": 1, "name": "a", "inner": {"x": 1}},
                                   {"id": 2, "inner": {}}, {"name": "no id"}], 1_700_000_000)
    struct = StructType([StructField("id", IntegerType(), False),
                         StructField("name", StringType(), True),
                         StructField("inner", StructType([StructField("x", IntegerType(), False)]),
                                     False)])
    out = {}
    for kind, schema in (("ddl", "id INT NOT NULL, name STRING, inner STRUCT<x: INT NOT NULL> NOT NULL"),
                         ("struct", struct)):
        stream = spark.readStream.schema(schema).json(source)
        rows = []
        query = (stream.writeStream.foreachBatch(lambda df, _: rows.extend(map(tuple, df.collect())))
                 .option("checkpointLocation", os.path.join(workdir, "cp-" + kind)).start())
        query.processAllAvailable()
        query.stop()
        out[kind] = {"stream": stream.schema.jsonValue(), "rows": sorted(map(str, rows)),
                     "read": spark.read.schema(schema).json(source).schema.jsonValue()}
    print(json.dumps(out))


def memory_table(workdir):
    """The memory sink's table: right after start() (before any batch), after the batches, and
    after a restart from the checkpoint in complete mode (no new input), with rows left in the
    table by the query before."""
    spark = session()
    source = os.path.join(workdir, "in")
    os.makedirs(source)
    write_file(source, "f0.json", event_rows(0, 6), 1_700_000_000)
    counts = spark.readStream.schema(EVENTS_DDL).json(source).groupBy("name").count()
    out = {}

    def table():
        return sorted(map(str, spark.sql("SELECT * FROM counts").collect()))

    for run in ("first", "restart"):
        query = (counts.writeStream.format("memory").queryName("counts").outputMode("complete")
                 .trigger(availableNow=True)
                 .option("checkpointLocation", os.path.join(workdir, "cp")).start())
        if run == "first":  # after a restart the batch may already have run: no instant to look at
            out["at start"] = table()
        query.processAllAvailable()
        query.stop()
        out[run] = table()
    os.makedirs(os.path.join(workdir, "none"))
    events = spark.readStream.schema(EVENTS_DDL).json(os.path.join(workdir, "none"))
    query = (events.writeStream.format("memory").queryName("counts")
             .option("checkpointLocation", os.path.join(workdir, "cp-empty")).start())
    query.processAllAvailable()
    query.stop()
    out["another query of the name, no input"] = {"rows": table(),
                                                  "columns": spark.table("counts").columns}
    print(json.dumps(out, default=str))


def join_then_window(workdir):
    """The guide's stream-stream join followed by a window count on the right side's event time
    (Spark keeps both sides' watermarks on the join's output), each batch's rows."""
    spark = session()
    base = 1_700_000_000
    for side, column, offsets in (("impressions", "impressionTime", (0, 30, 60, 400, 800)),
                                  ("clicks", "clickTime", (10, 50, 70, 420, 820))):
        directory = os.path.join(workdir, side)
        os.makedirs(directory)
        for f, minutes in enumerate(offsets):
            rows = [{"adId": ad, column: time.strftime("%Y-%m-%dT%H:%M:%S",
                                                       time.gmtime(base + (minutes + ad) * 60))}
                    for ad in range(3)]
            with open(os.path.join(directory, f"f{f}.json"), "w") as out:
                out.write("\n".join(json.dumps(r) for r in rows) + "\n")
            os.utime(os.path.join(directory, f"f{f}.json"), (base + f, base + f))
    impressions = (spark.readStream.schema("adId INT, impressionTime TIMESTAMP")
                   .option("maxFilesPerTrigger", 1).json(os.path.join(workdir, "impressions"))
                   .withColumnRenamed("adId", "impressionAdId")
                   .withWatermark("impressionTime", "2 hours"))
    clicks = (spark.readStream.schema("adId INT, clickTime TIMESTAMP")
              .option("maxFilesPerTrigger", 1).json(os.path.join(workdir, "clicks"))
              .withColumnRenamed("adId", "clickAdId")
              .withWatermark("clickTime", "3 hours"))
    joined = impressions.join(clicks, F.expr(
        "clickAdId = impressionAdId AND clickTime >= impressionTime AND "
        "clickTime <= impressionTime + interval 1 hour"))
    counts = joined.groupBy("clickAdId", F.window("clickTime", "1 hour")).count()
    batches = []

    def collect(batch_df, batch_id):
        batches.append(sorted([r.clickAdId, str(r.window.start), r["count"]] for r in batch_df.collect()))

    query = (counts.writeStream.foreachBatch(collect)
             .option("checkpointLocation", os.path.join(workdir, "cp")).start())
    query.processAllAvailable()
    query.stop()
    print(json.dumps(batches))


def observed_metrics(workdir):
    """df.observe() in the mirror: Observation.get after an action, Spark's errors for the
    metrics it refuses, and a stream's metrics in each batch's progress (lastProgress, a
    listener's events, the progress JSON), no-data batches included."""
    from pyspark.sql import Observation

    spark = session()
    out = {}
    df = spark.createDataFrame([(1, "a", 1.5), (2, "b", None), (3, None, 2.5)],
                               "k INT, s STRING, d DOUBLE")
    observation = Observation("batch")
    observed = df.observe(observation, F.count(F.lit(1)).alias("c"), F.sum("k"),
                          F.avg("d").alias("mean"), F.max("s"),
                          (F.count(F.lit(1)) > 2).alias("many"))
    out["count"] = observed.count()
    out["batch"] = observation.get
    errors = {}

    def attempt(name, build, message=True):
        try:
            errors[name] = build().count()
        except Exception as error:  # noqa: BLE001 - the condition and message are compared
            first_line = str(error).splitlines()[0].rstrip(";")
            errors[name] = [error.getCondition()] + ([first_line] if message else [])

    one = F.count(F.lit(1))
    attempt("attribute", lambda: df.observe("m", F.col("s")))
    attempt("distinct", lambda: df.observe("m", F.count_distinct("k").alias("c")))
    attempt("nested", lambda: df.observe("m", F.max(F.sum("k")).alias("x")))
    attempt("missing_name", lambda: df.observe("", one), message=False)
    attempt("duplicated", lambda: df.observe("m", one).union(df.filter("k > 1").observe("m", one)))
    # Classic Spark's dataframeId is the observed DataFrame's: one DataFrame may be observed
    # twice under a name, whatever the metrics.
    attempt("same_dataframe", lambda: df.observe("m", one).union(df.observe("m", F.sum("k"))))
    same = df.observe("m", one)
    attempt("self_union", lambda: same.union(same))
    for name, build in [("reused", lambda: df.observe(observation, one)),
                        ("not_a_column", lambda: df.observe("m", "k")),
                        ("no_metrics", lambda: df.observe("m"))]:
        try:
            build()
            errors[name] = None
        except Exception as error:  # noqa: BLE001 - PySpark's argument errors
            errors[name] = [type(error).__name__, error.getCondition()]
    out["errors"] = errors

    data = os.path.join(workdir, "in")
    os.makedirs(data)
    write_file(data, "a.json", [{"k": "x", "v": 1, "ts": "2024-05-01 10:00:01"},
                                {"k": "y", "v": 2, "ts": "2024-05-01 10:00:07"}], 1000)
    heard = []

    class Listener(StreamingQueryListener):
        def onQueryStarted(self, event):
            pass

        def onQueryProgress(self, event):
            metrics = event.progress.observedMetrics
            if metrics:
                heard.append([event.progress.batchId, metrics["metric"].asDict()])

        def onQueryIdle(self, event):
            pass

        def onQueryTerminated(self, event):
            pass

    listener = Listener()
    spark.streams.addListener(listener)
    stream = spark.readStream.schema("k STRING, v INT, ts TIMESTAMP").json(data)
    metrics = (stream.withWatermark("ts", "1 second")
               .observe("metric", F.count(F.lit(1)).alias("rows"), F.sum("v").alias("total"),
                        F.max("k").alias("last_k"), F.collect_list("v").alias("vs")))
    # The progress JSON also has the metrics of times, which Rows hold as Python values.
    timed = metrics.observe("times", F.max("ts").alias("latest"),
                            F.min(F.to_date("ts")).alias("day"))
    query = (timed.groupBy(F.window("ts", "5 seconds")).count().writeStream.format("memory")
             .queryName("observed").option("checkpointLocation", os.path.join(workdir, "cp"))
             .start())

    def wait_for_batch(batch_id):
        """Batch 0 reads a file, 1 is the no-data batch the watermark's move runs, then 2 reads
        the next file, written after it, and 3 is a no-data batch again."""
        deadline = time.monotonic() + 60
        while not any(p.batchId == batch_id and p.observedMetrics for p in query.recentProgress):
            assert time.monotonic() < deadline, f"no batch {batch_id}"
            time.sleep(0.1)

    wait_for_batch(1)
    write_file(workdir, "b.json", [{"k": "z", "v": 5, "ts": "2024-05-01 10:00:31"}], 2000)
    os.replace(os.path.join(workdir, "b.json"), os.path.join(data, "b.json"))
    wait_for_batch(3)  # the no-data batch after the second file
    ran = [p for p in query.recentProgress if p.observedMetrics]
    out["last"] = ran[-1].observedMetrics["metric"].asDict()
    out["json"] = [[p.batchId, json.loads(p.json)["observedMetrics"]]
                   for p in query.recentProgress if p.observedMetrics]
    deadline = time.monotonic() + 30
    while len(heard) < 4 and time.monotonic() < deadline:
        time.sleep(0.1)
    spark.streams.removeListener(listener)
    query.stop()
    out["heard"] = heard
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    globals()[sys.argv[1]](sys.argv[2])
