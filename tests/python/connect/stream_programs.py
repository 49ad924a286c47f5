"""Streaming programs for test_connect_streaming.py, run unchanged on two engines in a process of
their own (`python stream_programs.py NAME WORKDIR ENGINE`): with ENGINE `spark` on Apache Spark
(classic, local[2]), with `ember` through the real PySpark Connect client on Ember's Connect
server in the same process (ember.connect.activate()). Each prints one JSON document on its last
line; the test compares the two."""

import json
import os
import re
import sys

NAME, WORKDIR, ENGINE = sys.argv[1], sys.argv[2], sys.argv[3]
if ENGINE == "ember":
    import ember.connect

    SERVER = ember.connect.activate()

from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

ICEBERG_JAR = os.path.expanduser(
    "~/.m2/repository/org/apache/iceberg/iceberg-spark-runtime-4.0_2.13/1.10.0/"
    "iceberg-spark-runtime-4.0_2.13-1.10.0.jar")


def session(**conf):
    builder = (SparkSession.builder.appName("connect-streaming")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.shuffle.partitions", "2"))
    for key, value in conf.items():
        builder = builder.config(key, value)
    if ENGINE == "spark":
        os.environ["PYSPARK_PYTHON"] = sys.executable  # Python workers with this one's packages
        builder = (builder.master("local[2]").config("spark.ui.enabled", "false")
                   .config("spark.ui.showConsoleProgress", "false")
                   .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC"))
    spark = builder.getOrCreate()
    if ENGINE == "spark":
        spark.sparkContext.setLogLevel("OFF")
    return spark


def write_file(directory, name, rows, mtime):
    """A JSON-lines file with a fixed modification time, so both engines order files alike,
    moved into the directory whole (a hidden name first), as a stream's files must arrive: a
    running query may list the directory at any moment."""
    os.makedirs(directory, exist_ok=True)
    hidden = os.path.join(directory, "." + name + ".tmp")
    with open(hidden, "w") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")
    os.utime(hidden, (mtime, mtime))
    os.replace(hidden, os.path.join(directory, name))


def shape(description):
    """JVM identity hashes and lambda class numbers differ by run: kept as their shape."""
    description = re.sub(r"\$Lambda\$?[0-9]*/0x[0-9a-f]+", "$Lambda/<class>", description)
    return re.sub(r"@[0-9a-f]{1,8}\b", "@<hash>", description)


def rows(df):
    return sorted([[str(v) for v in r] for r in df.collect()])


def windowed_memory():
    """A file stream's windowed aggregation into the memory sink, read back with SQL, and the
    query's and the manager's answers along the way."""
    spark = session()
    data = os.path.join(WORKDIR, "in")
    write_file(data, "a.json", [{"k": "x", "v": 1, "ts": "2024-05-01 10:00:01"},
                                {"k": "y", "v": 2, "ts": "2024-05-01 10:00:07"},
                                {"k": "x", "v": 3, "ts": "2024-05-01 10:00:12"}], 1000)
    stream = spark.readStream.schema("k STRING, v INT, ts TIMESTAMP").json(data)
    agg = (stream.withWatermark("ts", "10 seconds")
           .groupBy(F.window("ts", "10 seconds"), "k").agg(F.sum("v").alias("total"),
                                                           F.count("*").alias("n")))
    query = (agg.writeStream.format("memory").queryName("totals").outputMode("complete")
             .start())
    query.processAllAvailable()
    first = rows(spark.sql("SELECT window.start, k, total, n FROM totals"))
    write_file(data, "b.json", [{"k": "x", "v": 10, "ts": "2024-05-01 10:00:05"},
                                {"k": "z", "v": 4, "ts": "2024-05-01 10:00:31"}], 2000)
    query.processAllAvailable()
    second = rows(spark.sql("SELECT window.start, k, total, n FROM totals"))
    progress = query.lastProgress
    doc = {
        "is_streaming": [stream.isStreaming, agg.isStreaming, spark.range(1).isStreaming],
        "schema": agg.schema.simpleString(),
        "first": first, "second": second,
        "name": query.name, "active": query.isActive,
        "status_keys": sorted(query.status),
        "last_batch": progress["batchId"], "last_input_rows": progress["numInputRows"],
        "progress_batches": [p["batchId"] for p in query.recentProgress if p["numInputRows"]],
        "manager": [q.name for q in spark.streams.active],
        "get": spark.streams.get(query.id).name,
        "same_name": None,
    }
    try:
        agg.writeStream.format("memory").queryName("totals").outputMode("complete").start()
    except Exception as error:  # noqa: BLE001 - the class is what is compared
        doc["same_name"] = type(error).__name__
    query.stop()
    doc.update(after_stop=[query.isActive, spark.streams.get(query.id),
                           [q.name for q in spark.streams.active],
                           spark.streams.awaitAnyTermination(1), query.exception()])
    return doc


def file_sinks():
    """Parquet (partitioned) and JSON file sinks with trigger(availableNow=True), read back."""
    spark = session()
    data = os.path.join(WORKDIR, "in")
    write_file(data, "a.json", [{"k": "x", "v": i} for i in range(3)] +
               [{"k": "y", "v": 7}], 1000)
    stream = spark.readStream.schema("k STRING, v INT").json(data)
    out = {}
    for fmt in ("parquet", "json"):
        path = os.path.join(WORKDIR, "out", fmt)
        writer = (stream.where("v > 0").withColumn("w", F.col("v") * 2).writeStream
                  .format(fmt).option("checkpointLocation", os.path.join(WORKDIR, "cp", fmt))
                  .trigger(availableNow=True))
        if fmt == "parquet":
            writer = writer.partitionBy("k")
        query = writer.start(path)
        query.awaitTermination()
        dirs = sorted(d for d in os.listdir(path) if d.startswith("k="))
        if fmt == "parquet":  # each partition directory read back on its own
            got = sorted([d] + r for d in dirs
                         for r in rows(spark.read.parquet(os.path.join(path, d))))
        else:
            got = rows(spark.read.schema("k STRING, v INT, w INT").json(path))
        out[fmt] = {"rows": got, "active": query.isActive, "dirs": dirs}
    return out


def iceberg_table():
    """toTable into an Iceberg table, then that table read as a stream into the memory sink."""
    conf = {"spark.sql.catalog.local": "org.apache.iceberg.spark.SparkCatalog",
            "spark.sql.catalog.local.type": "hadoop",
            "spark.sql.catalog.local.warehouse": os.path.join(WORKDIR, "warehouse")}
    if ENGINE == "spark":
        conf["spark.jars"] = ICEBERG_JAR
    spark = session(**conf)
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.db")
    data = os.path.join(WORKDIR, "in")
    write_file(data, "a.json", [{"k": "x", "v": i} for i in range(4)], 1000)
    stream = spark.readStream.schema("k STRING, v INT").json(data)
    query = (stream.writeStream.option("checkpointLocation", os.path.join(WORKDIR, "cp", "t"))
             .trigger(availableNow=True).toTable("local.db.events"))
    query.awaitTermination()
    written = rows(spark.table("local.db.events"))
    back = (spark.readStream.table("local.db.events").writeStream.format("memory")
            .queryName("copied").option("checkpointLocation", os.path.join(WORKDIR, "cp", "c"))
            .start())
    back.processAllAvailable()
    copied = rows(spark.sql("SELECT * FROM copied"))
    back.stop()
    return {"written": written, "copied": copied}


def failing_query():
    """A batch that fails (an ANSI cast of a bad string): the error reaches the client as
    StreamingQueryException from awaitTermination, exception() and awaitAnyTermination."""
    spark = session()
    data = os.path.join(WORKDIR, "in")
    write_file(data, "a.json", [{"s": "1"}, {"s": "oops"}], 1000)
    stream = spark.readStream.schema("s STRING").json(data)
    query = (stream.select(F.col("s").cast("int").alias("n")).writeStream.format("memory")
             .queryName("numbers").start())
    doc = {}
    try:
        query.awaitTermination()
        doc["await"] = None
    except Exception as error:  # noqa: BLE001 - the class is what is compared
        doc["await"] = [type(error).__name__, "CAST_INVALID_INPUT" in str(error)]
    error = query.exception()
    doc["exception"] = [type(error).__name__, "CAST_INVALID_INPUT" in str(error)]
    doc["active"] = query.isActive
    try:
        spark.streams.awaitAnyTermination()
        doc["any"] = None
    except Exception as error:  # noqa: BLE001
        doc["any"] = type(error).__name__
    spark.streams.resetTerminated()
    doc["after_reset"] = spark.streams.awaitAnyTermination(0.5)
    return doc


def foreach_batch():
    """foreachBatch and foreach with the client's Python functions: the batches they see (ids,
    columns, rows, a DataFrame operation on the batch), and a function that raises."""
    spark = session()
    data = os.path.join(WORKDIR, "in")
    seen = os.path.join(WORKDIR, "seen")
    os.makedirs(seen)
    write_file(data, "a.json", [{"k": "x", "v": 1}, {"k": "y", "v": 2}], 1000)
    stream = spark.readStream.schema("k STRING, v INT").json(data)

    def record(df, batch_id):
        doubled = df.where("v > 1").select("k", (df.v * 2).alias("w"))
        with open(os.path.join(seen, f"batch-{batch_id}.json"), "w") as out:
            json.dump({"columns": df.columns, "count": df.count(),
                       "rows": sorted([r.k, r.v] for r in df.collect()),
                       "doubled": sorted([r.k, r.w] for r in doubled.collect()),
                       # the function holds the client's session, as users' functions often do
                       "from_session": spark.range(batch_id + 2).count()}, out)

    class Writer:
        def open(self, partition_id, epoch_id):
            self.rows, self.epoch = [], epoch_id
            return True

        def process(self, row):
            self.rows.append([row.k, row.v])

        def close(self, error):
            with open(os.path.join(seen, f"each-{self.epoch}-{len(os.listdir(seen))}.json"),
                      "w") as out:
                json.dump(sorted(self.rows), out)

    queries = [
        stream.writeStream.foreachBatch(record)
        .option("checkpointLocation", os.path.join(WORKDIR, "cp", "fb")).start(),
        stream.writeStream.foreach(Writer())
        .option("checkpointLocation", os.path.join(WORKDIR, "cp", "fe")).start(),
    ]
    for q in queries:
        q.processAllAvailable()
    write_file(data, "b.json", [{"k": "z", "v": 3}], 2000)
    for q in queries:
        q.processAllAvailable()
        q.stop()
    sinks = [shape(q.lastProgress["sink"]["description"]) for q in queries]
    batches = {}
    for name in sorted(os.listdir(seen)):
        with open(os.path.join(seen, name)) as f:
            batches[name.split("-")[0] + "-" + name.split("-")[1].split(".")[0]] = json.load(f)

    def boom(df, batch_id):
        raise ValueError("boom in foreachBatch")

    failing = stream.writeStream.foreachBatch(boom).start()
    try:
        failing.awaitTermination()
        failed = None
    except Exception as error:  # noqa: BLE001 - the class is what is compared
        failed = [type(error).__name__, "boom in foreachBatch" in str(error)]
    return {"batches": batches, "failed": failed, "sinks": sinks}


def listener():
    """A client-side StreamingQueryListener hears a query start, make progress and end."""
    import time

    from pyspark.sql.streaming import StreamingQueryListener

    spark = session()
    data = os.path.join(WORKDIR, "in")
    write_file(data, "a.json", [{"k": "x", "v": 1}, {"k": "y", "v": 2}], 1000)
    events = []

    class Listener(StreamingQueryListener):
        def onQueryStarted(self, event):
            events.append(["started", event.name])

        def onQueryProgress(self, event):
            if event.progress.numInputRows:
                events.append(["progress", event.progress.batchId, event.progress.numInputRows,
                               event.progress.name])

        def onQueryIdle(self, event):
            pass

        def onQueryTerminated(self, event):
            events.append(["terminated", event.exception, event.errorClassOnException])

    heard = Listener()
    spark.streams.addListener(heard)
    query = (spark.readStream.schema("k STRING, v INT").json(data).writeStream.format("memory")
             .queryName("heard").trigger(availableNow=True).start())
    query.awaitTermination()
    deadline = time.monotonic() + 30
    while not any(e[0] == "terminated" for e in events) and time.monotonic() < deadline:
        time.sleep(0.1)
    spark.streams.removeListener(heard)
    # Over Connect the started event comes with start()'s answer and the others on the listener
    # bus stream, which Spark Connect's client does not order against it: a query as fast as this
    # one may report progress first (docs/compatibility.md). Compared in Spark's order.
    return sorted(events, key=lambda e: e[0] != "started")


def console_and_errors():
    """The console sink's text (the test compares the whole of stdout), the rate source with a
    processing-time trigger, and the errors of starts Spark refuses."""
    import time

    spark = session()
    data = os.path.join(WORKDIR, "in")
    write_file(data, "a.json", [{"k": "x" * 30, "v": i} for i in range(3)], 1000)
    stream = spark.readStream.schema("k STRING, v INT").json(data)
    query = (stream.writeStream.format("console").option("numRows", 2)
             .trigger(once=True).start())
    query.awaitTermination()
    errors = {}

    def attempt(name, start):
        try:
            start().stop()
            errors[name] = None
        except Exception as error:  # noqa: BLE001 - the class is what is compared
            errors[name] = type(error).__name__

    attempt("no_checkpoint", lambda: stream.writeStream.format("parquet")
            .start(os.path.join(WORKDIR, "out")))
    attempt("memory_without_name", lambda: stream.writeStream.format("memory").start())
    attempt("batch_frame", lambda: spark.range(1).writeStream.format("memory")
            .queryName("batch").start())
    ticks = spark.readStream.format("rate").option("rowsPerSecond", 20).load()
    ticking = (ticks.writeStream.format("memory").queryName("ticks")
               .trigger(processingTime="200 milliseconds").start())
    deadline = time.monotonic() + 60
    while (spark.sql("SELECT count(*) AS n FROM ticks").collect()[0].n == 0
           and time.monotonic() < deadline):
        time.sleep(0.2)
    ticked = spark.sql("SELECT count(*) AS n FROM ticks").collect()[0].n > 0
    ticking.stop()
    return {"errors": errors, "rate": [ticks.schema.simpleString(), ticks.isStreaming, ticked]}


def joins_and_dedup():
    """Streaming plans through the other relations: a stream-static join, dropDuplicates within
    a watermark, a stream-stream join on keys and an event-time range, and a union."""
    spark = session()
    left_dir, right_dir = os.path.join(WORKDIR, "left"), os.path.join(WORKDIR, "right")
    write_file(left_dir, "a.json", [{"k": k, "v": v, "ts": f"2024-05-01 10:00:{s:02d}"}
                                    for k, v, s in [("x", 1, 1), ("x", 1, 1), ("y", 2, 5),
                                                    ("z", 3, 9)]], 1000)
    write_file(right_dir, "a.json", [{"rk": k, "w": w, "rts": f"2024-05-01 10:00:{s:02d}"}
                                      for k, w, s in [("x", 10, 2), ("y", 20, 30),
                                                      ("z", 30, 8)]], 1000)
    left = spark.readStream.schema("k STRING, v INT, ts TIMESTAMP").json(left_dir)
    right = spark.readStream.schema("rk STRING, w INT, rts TIMESTAMP").json(right_dir)
    names = spark.createDataFrame([("x", "ex"), ("y", "why")], ["k", "name"])
    plans = {
        "static_join": left.join(names, "k", "left"),
        "dedup": left.withWatermark("ts", "10 seconds").dropDuplicates(["k", "ts"]),
        "stream_join": left.withWatermark("ts", "10 seconds").join(
            right.withWatermark("rts", "10 seconds"),
            F.expr("k = rk AND rts BETWEEN ts - INTERVAL 5 SECONDS AND ts + INTERVAL 5 SECONDS")),
        "unioned": left.select("k", "v").union(right.select("rk", "w")),
    }
    out = {}
    for name, plan in plans.items():
        query = plan.writeStream.format("memory").queryName(name).start()
        query.processAllAvailable()
        out[name] = [plan.isStreaming, rows(spark.sql(f"SELECT * FROM {name}"))]
        query.stop()
    return out


def file_sources():
    """csv (with its options), text and parquet file streams, each into the memory sink."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    spark = session()
    csv_dir, text_dir, parquet_dir = (os.path.join(WORKDIR, d) for d in ("csv", "text", "pq"))
    for d in (csv_dir, text_dir, parquet_dir):
        os.makedirs(d)
    with open(os.path.join(csv_dir, "a.csv"), "w") as f:
        f.write("k;v\nx;1\ny;\nz;3\n")
    with open(os.path.join(text_dir, "a.txt"), "w") as f:
        f.write("one line\nanother line\n")
    pq.write_table(pa.table({"k": ["p", "q"], "v": [7, 8]}), os.path.join(parquet_dir, "a.parquet"))
    streams = {
        "csv": spark.readStream.schema("k STRING, v INT").option("header", True)
        .option("sep", ";").csv(csv_dir),
        "text": spark.readStream.text(text_dir),
        "parquet": spark.readStream.schema("k STRING, v BIGINT").parquet(parquet_dir),
    }
    out = {}
    for name, stream in streams.items():
        query = stream.writeStream.format("memory").queryName(f"from_{name}").start()
        query.processAllAvailable()
        out[name] = [stream.columns, rows(spark.sql(f"SELECT * FROM from_{name}"))]
        query.stop()
    return out


def python_udfs():
    """Python UDFs (udf pickled and with useArrow, pandas_udf) in batch and streaming plans:
    Spark's conversions of arguments and results, NULLs, names, and a function that raises."""
    import datetime
    from typing import Iterator, Tuple

    import pandas as pd
    from pyspark.sql import Row
    from pyspark.sql.types import DoubleType, IntegerType, LongType, StringType

    spark = session()
    df = spark.createDataFrame(
        [(1, "a", 1.5, [1, 2], Row(x=1, y="p"), datetime.datetime(2024, 1, 2, 3, 4, 5)),
         (2, None, None, None, None, None),
         (3, "ccc", -2.0, [], Row(x=None, y="q"), datetime.datetime(2024, 6, 1))],
        "id INT, s STRING, d DOUBLE, a ARRAY<INT>, st STRUCT<x: INT, y: STRING>, t TIMESTAMP")
    plus = F.udf(lambda x: x + 1, IntegerType())
    described = F.udf(lambda *values: "|".join(f"{type(v).__name__}:{v}" for v in values))
    doc = {}
    batch = df.select(
        plus("id"),
        F.udf(lambda s: len(s) if s is not None else -1, "int")("s").alias("n"),
        F.udf(lambda x: x)("id").alias("as_string"),
        F.udf(lambda x: x * 2, DoubleType())("id").alias("int_for_double"),
        F.udf(lambda x: x / 2, LongType())("id").alias("float_for_long"),
        F.udf(lambda x: x > 1, StringType())("id").alias("bool_for_string"),
        F.udf(lambda d: d, useArrow=True, returnType=DoubleType())("d").alias("arrow"),
        described("a", "st", "t", "d").alias("seen"),
        F.udf(lambda: 7, "int")().alias("no_args"),
        F.udf(lambda a: [x * 10 for x in a] if a is not None else None, "array<int>")("a")
        .alias("array"),
        F.udf(lambda st: (st.y, st.x) if st else None, "struct<y: string, x: int>")("st")
        .alias("struct"),
    )
    doc["columns"] = batch.columns
    doc["batch"] = rows(batch)

    @F.pandas_udf("double")
    def half(x: pd.Series) -> pd.Series:
        return x / 2

    @F.pandas_udf("string")
    def shout(s: pd.Series) -> pd.Series:
        return s.str.upper()

    @F.pandas_udf("long")
    def plus_iter(batches: Iterator[Tuple[pd.Series, pd.Series]]) -> Iterator[pd.Series]:
        for ids, ds in batches:
            yield ids + ds.fillna(0).astype("int64")

    @F.pandas_udf("long")
    def too_short(batches: Iterator[pd.Series]) -> Iterator[pd.Series]:
        for ids in batches:
            yield ids.head(1)

    doc["pandas"] = rows(df.select(half("id"), shout("s"), half(F.col("id") + 1).alias("h"),
                                   plus_iter("id", "d")))
    doc["filter_group"] = rows(df.where(plus("id") > 2).groupBy(plus("id")).count())
    df.createOrReplaceTempView("udf_input")
    doc["sql_after"] = rows(spark.sql("SELECT id FROM udf_input").select(plus("id").alias("p")))
    # Registered for SQL: by a plain function (a StringType result) and by a UDF object.
    spark.udf.register("twice", lambda x: None if x is None else x * 2)
    spark.udf.register("plus_one", plus)
    spark.udf.register("halved", half)
    sql = spark.sql("SELECT twice(id), PLUS_ONE(id) AS p, halved(id) FROM udf_input "
                    "WHERE plus_one(id) > 2")
    doc["registered"] = [sql.columns, rows(sql)]
    doc["registered_expr"] = rows(df.select(F.expr("twice(s)"), F.call_function("plus_one", "id")))

    for name, failing in [
        ("raises", F.udf(lambda x: 1 // (x - x), "int")("id")),
        ("pandas_length", F.pandas_udf(lambda x: x.head(1), "double")("id")),
        ("pandas_not_series", F.pandas_udf(lambda x: 1, "double")("id")),
        ("iterator_too_short", too_short("id")),
    ]:
        try:
            df.select(failing).collect()
            doc[name] = None
        except Exception as error:  # noqa: BLE001 - the class and the message's point compare
            text = str(error)
            doc[name] = [type(error).__name__,
                         [m for m in ("ZeroDivisionError: integer division or modulo by zero",
                                      "SCHEMA_MISMATCH_FOR_PANDAS_UDF", "UDF_RETURN_TYPE",
                                      "RESULT_LENGTH_MISMATCH_FOR_SCALAR_ITER_PANDAS_UDF")
                          if m in text]]

    data = os.path.join(WORKDIR, "in")
    write_file(data, "a.json", [{"k": "x", "v": 1}, {"k": "y", "v": 2}], 1000)
    stream = spark.readStream.schema("k STRING, v INT").json(data)
    query = (stream.select(F.udf(lambda k, v: f"{k}-{v}")("k", "v").alias("kv"), half("v"))
             .writeStream.format("memory").queryName("udf_stream").start())
    query.processAllAvailable()
    write_file(data, "b.json", [{"k": "z", "v": 3}], 2000)
    query.processAllAvailable()
    doc["stream"] = rows(spark.sql("SELECT * FROM udf_stream"))
    query.stop()
    doc["table_functions"] = table_functions(spark, stream)
    return doc


def table_functions(spark, stream):
    """Python UDTFs (part of python_udfs, to share its session): udtf() DataFrames with
    __init__ and terminate() (per partition, its rows joined with the last input row), arguments
    by keyword, SQL table-valued functions, LATERAL over a table and over a stream, TABLE
    arguments, analyze() with constant and table arguments, Arrow UDTFs, range() with
    partitions, VALUES, and Spark's errors for wrong rows."""
    from pyspark.sql.types import IntegerType, StringType, StructType
    from pyspark.sql.udtf import AnalyzeResult

    @F.udtf(returnType="x: int, square: int")
    class Squares:
        def __init__(self):
            self.seen = 0

        def eval(self, start: int, end: int = 2):
            for i in range(start, end + 1):
                self.seen += 1
                yield i, i * i

        def terminate(self):
            yield -1, self.seen

    @F.udtf(returnType="word: string, n: int", useArrow=True)
    class Words:
        def eval(self, text: str):
            for n, word in enumerate((text or "").split()):
                yield word, n

    @F.udtf
    class Echo:
        @staticmethod
        def analyze(value, table=None):
            schema = StructType().add("value", value.dataType)
            if table is not None:
                schema = schema.add("id", table.dataType["id"].dataType)
            return AnalyzeResult(schema.add("constant", IntegerType()))

        def eval(self, value, table=None):
            yield value, *((table["id"],) if table is not None else ()), 1

    doc = {"squares": rows(Squares(F.lit(1), F.lit(3))),
           "by_keyword": rows(Squares(F.lit(2), end=F.lit(4))),
           "arrow": rows(Words(F.lit("to be or"))),
           "analyze": [Echo(F.lit("a")).columns, rows(Echo(F.array(F.lit(1), F.lit(2)))),
                       rows(Echo(F.named_struct(F.lit("x"), F.lit(1), F.lit("y"), F.lit("z"))))]}

    @F.udtf
    class Requested:
        """analyze() asks for partitions, their order and the columns it sees, and hands
        __init__ a value."""
        @staticmethod
        def analyze(prefix, table):
            from pyspark.sql.udtf import OrderingColumn, PartitioningColumn, SelectedColumn

            return AnalyzeResult(
                StructType().add("tag", StringType()).add("last", IntegerType())
                .add("columns", StringType()),
                partitionBy=[PartitioningColumn("k % 2")],
                orderBy=[OrderingColumn("v", ascending=False)],
                select=[SelectedColumn("v"), SelectedColumn("k", alias="key")])

        def __init__(self, analyze_result=None):
            self.tag, self.last, self.columns = None, None, None

        def eval(self, prefix, row):
            self.tag = f"{prefix}{row['key'] % 2}"
            self.last, self.columns = row["v"], ",".join(row.__fields__)

        def terminate(self):
            yield self.tag, self.last, self.columns

    @F.udtf(returnType="k: int, total: int, first: int, rows: int")
    class Totals:
        def __init__(self):
            self.key, self.total, self.first, self.rows = None, 0, None, 0

        def eval(self, row):
            self.key, self.total, self.rows = row["k"], self.total + row["v"], self.rows + 1
            self.first = row["v"] if self.first is None else self.first

        def terminate(self):
            yield self.key, self.total, self.first, self.rows
    spark.udtf.register("squares", Squares)
    spark.udtf.register("words", Words)
    spark.udtf.register("echo", Echo)
    spark.udtf.register("totals", Totals)
    spark.udtf.register("requested", Requested)
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW pairs AS "
              "SELECT * FROM VALUES (1, 2, 'a b'), (5, 6, NULL) AS p(a, b, s)")
    for name, text in [
        ("sql", "SELECT * FROM squares(2, 3)"),
        ("sql_keyword", "SELECT * FROM squares(end => 1, start => 0)"),
        ("lateral", "SELECT a, x, square FROM pairs, LATERAL squares(a, b) WHERE x > 0"),
        ("join_lateral", "SELECT p.a, w.* FROM pairs p JOIN LATERAL words(s) w"),
        ("terminate_per_partition", "SELECT id, x, square FROM range(0, 6, 1, 2), "
                                    "LATERAL squares(id, 0) WHERE x < 0"),
        ("table_argument", "SELECT * FROM echo('t', TABLE(SELECT id FROM range(3)))"),
        ("values", "SELECT * FROM VALUES (1, 'x'), (2, NULL)"),
        ("partition_by", "SELECT * FROM totals(TABLE(SELECT * FROM VALUES (1, 10), (2, 20), "
                         "(1, 5), (2, 7), (3, 1) AS t(k, v)) PARTITION BY k ORDER BY v DESC)"),
        ("partition_by_expression", "SELECT * FROM totals(TABLE(SELECT id % 3 AS k, id AS v "
                                    "FROM range(10)) PARTITION BY k + 1 ORDER BY v)"),
        ("single_partition", "SELECT * FROM totals(TABLE(SELECT id AS k, id AS v FROM range(5)) "
                             "WITH SINGLE PARTITION ORDER BY v DESC)"),
        ("analyze_requests", "SELECT * FROM requested('p', TABLE(SELECT CAST(id AS INT) AS k, "
                             "CAST(id * 10 AS INT) AS v FROM range(6))) ORDER BY tag"),
        ("struct_alias", "SELECT struct(id AS c, id) AS s FROM range(1)"),
    ]:
        result = spark.sql(text)
        doc[name] = [result.columns, rows(result)]

    @F.udtf(returnType="a: int, b: int")
    class TooFew:
        def eval(self):
            yield 1,

    @F.udtf(returnType="a: int")
    class NotARow:
        def eval(self):
            yield 1

    @F.udtf(returnType="a: int")
    class NotIterable:
        def eval(self):
            return 1

    @F.udtf(returnType="a: int")
    class Raises:
        def eval(self):
            raise ValueError("no rows today")

    for name, function in [("too_few", TooFew), ("not_a_row", NotARow),
                           ("not_iterable", NotIterable), ("raises", Raises)]:
        try:
            function().collect()
            doc[name] = None
        except Exception as error:  # noqa: BLE001 - the class and the condition compare
            doc[name] = [type(error).__name__,
                         [m for m in ("UDTF_RETURN_SCHEMA_MISMATCH", "UDTF_INVALID_OUTPUT_ROW_TYPE",
                                      "UDTF_RETURN_NOT_ITERABLE", "UDTF_EXEC_ERROR",
                                      "no rows today") if m in str(error)]]
    stream.createOrReplaceTempView("udtf_stream_input")
    query = (spark.sql("SELECT k, x, square FROM udtf_stream_input, LATERAL squares(v, v)")
             .where("x > 0").writeStream.format("memory").queryName("udtf_stream").start())
    query.processAllAvailable()
    doc["stream"] = rows(spark.sql("SELECT * FROM udtf_stream"))
    query.stop()
    return doc


def map_in_pandas():
    """mapInPandas and mapInArrow: any number of rows per input, columns by name or position, in
    batch and streaming plans, and a function that returns the wrong columns."""
    import pyarrow as pa

    spark = session()
    df = spark.createDataFrame([(1, "a"), (2, "bb"), (3, None)], "id INT, s STRING")

    def repeat(frames):
        for frame in frames:
            # Each row as many times as its id, with columns in another order.
            out = frame.loc[frame.index.repeat(frame["id"])]
            yield out.assign(n=out["s"].str.len())[["n", "id"]]

    def positional(frames):
        for frame in frames:
            yield frame.rename(columns={"id": 0, "s": 1})

    def arrow_filter(batches):
        for batch in batches:
            yield batch.filter(pa.compute.greater(batch.column("id"), 1))

    doc = {
        "repeat": rows(df.mapInPandas(repeat, "id LONG, n DOUBLE")),
        "positional": rows(df.mapInPandas(positional, "x INT, y STRING")),
        "arrow": rows(df.mapInArrow(arrow_filter, df.schema)),
        "then_sql": rows(df.mapInPandas(repeat, "id LONG, n DOUBLE").groupBy("id").count()),
    }
    try:
        df.mapInPandas(lambda it: it, "id INT, missing STRING").collect()
        doc["wrong_columns"] = None
    except Exception as error:  # noqa: BLE001 - the class and condition compare
        doc["wrong_columns"] = [type(error).__name__,
                                "RESULT_COLUMNS_MISMATCH_FOR_PANDAS_UDF" in str(error)]
    data = os.path.join(WORKDIR, "in")
    write_file(data, "a.json", [{"id": 1, "s": "x"}, {"id": 2, "s": "yy"}], 1000)
    stream = spark.readStream.schema("id INT, s STRING").json(data)
    query = (stream.mapInPandas(repeat, "id LONG, n DOUBLE").writeStream.format("memory")
             .queryName("mapped").start())
    query.processAllAvailable()
    doc["stream"] = rows(spark.sql("SELECT * FROM mapped"))
    query.stop()
    return doc


def observed_metrics():
    """df.observe(): a batch action's metrics through an Observation, Spark's errors for the
    metrics it refuses, and a stream's metrics in its progress (Spark's JSON of each Row:
    values and schema) as lastProgress, recentProgress and a listener have them, for batches
    with data and for the no-data batch that the watermark's move runs."""
    import time

    from pyspark.sql import Observation
    from pyspark.sql.streaming import StreamingQueryListener

    spark = session()
    out = {}
    df = spark.createDataFrame([(1, "a", 1.5), (2, "b", None), (3, None, 2.5)],
                               "k INT, s STRING, d DOUBLE")
    observation = Observation("batch")
    observed = df.observe(observation, F.count(F.lit(1)).alias("c"), F.sum("k"),
                          F.avg("d").alias("mean"), F.max("s"),
                          (2 * F.count(F.lit(1))).alias("twice"), F.lit(7).alias("seven"))
    out["columns"] = observed.columns
    out["rows"] = rows(observed.filter("k > 1"))  # the filter is after the observation
    out["batch"] = observation.get
    empty = Observation("empty")
    out["empty_count"] = (df.filter("k > 10")
                          .observe(empty, F.count(F.lit(1)).alias("c"), F.sum("k").alias("s"))
                          .count())
    out["empty"] = empty.get
    errors = {}

    def attempt(name, build, message=True):
        try:
            errors[name] = rows(build())
        except Exception as error:  # noqa: BLE001 - the condition and message are compared
            first_line = str(error).splitlines()[0].rstrip(";")
            errors[name] = [error.getCondition()] + ([first_line] if message else [])

    one = F.count(F.lit(1))
    attempt("attribute", lambda: df.observe("m", F.col("k")))
    attempt("expression", lambda: df.observe("m", F.col("k") + 1))
    attempt("distinct", lambda: df.observe("m", F.count_distinct("k").alias("c")))
    attempt("nested", lambda: df.observe("m", F.sum(F.sum("k"))))
    attempt("missing_name", lambda: df.observe("", one), message=False)  # shows each one's plan
    attempt("duplicated", lambda: df.observe("m", one).union(df.filter("k > 1").observe("m", one)))
    same = df.observe("m", one.alias("c"))
    attempt("self_union", lambda: same.union(same))
    # (Two observe() calls on one DataFrame: classic Spark allows them, its Connect server not.)
    out["errors"] = errors

    data = os.path.join(WORKDIR, "in")
    write_file(data, "a.json", [{"k": "x", "v": 1, "d": 1.5, "ts": "2024-05-01 10:00:01"},
                                {"k": "y", "v": 2, "ts": "2024-05-01 10:00:07"}], 1000)
    heard = []

    class Listener(StreamingQueryListener):
        def onQueryStarted(self, event):
            pass

        def onQueryProgress(self, event):
            progress = json.loads(event.progress.json)
            heard.append([progress["batchId"], progress["numInputRows"],
                          progress.get("observedMetrics")])

        def onQueryIdle(self, event):
            pass

        def onQueryTerminated(self, event):
            pass

    listener = Listener()
    spark.streams.addListener(listener)
    stream = spark.readStream.schema("k STRING, v INT, d DOUBLE, ts TIMESTAMP").json(data)
    metrics = (stream.withWatermark("ts", "1 second")
               .observe("metric", F.count(F.lit(1)).alias("rows"), F.sum("v").alias("total"),
                        F.avg("d").alias("mean"), F.max("k").alias("last_k"),
                        F.max("ts").alias("latest"), F.min(F.to_date("ts")).alias("day"),
                        F.collect_list("v").alias("vs"), (F.sum("v") > 1).alias("big")))
    counts = metrics.groupBy(F.window("ts", "5 seconds")).count()
    query = counts.writeStream.format("memory").queryName("observed").start()

    def progress():
        return [json.loads(p.json) for p in query.recentProgress]

    def wait_for_batch(batch_id):
        """Batches 0 and 2 read a file each; 1 and 3 are the no-data batches the watermark's
        move runs, each before the next file comes, so the batches are the same on both. (An
        idle trigger's entry, without metrics, names the next batch.)"""
        deadline = time.monotonic() + 60
        while not any(p["batchId"] == batch_id and "observedMetrics" in p for p in progress()):
            assert time.monotonic() < deadline, f"no batch {batch_id}: {progress()}"
            time.sleep(0.1)

    wait_for_batch(1)
    # Whole, so that no listing sees it half written.
    write_file(WORKDIR, "b.json", [{"k": "z", "v": 5, "d": 0.5, "ts": "2024-05-01 10:00:31"}],
               2000)
    os.replace(os.path.join(WORKDIR, "b.json"), os.path.join(data, "b.json"))
    wait_for_batch(3)
    # The latest batch's (an idle trigger's entry may come after it, without metrics).
    out["last"] = [p for p in progress() if "observedMetrics" in p][-1]["observedMetrics"]
    # An idle trigger's entry (it repeats the last batch id) has no metrics.
    out["progress"] = [[p["batchId"], p["numInputRows"], p.get("observedMetrics")]
                       for p in progress()]
    deadline = time.monotonic() + 30
    while len({h[0] for h in heard}) < 4 and time.monotonic() < deadline:
        time.sleep(0.2)
    spark.streams.removeListener(listener)
    query.stop()
    out["heard"] = [h for h in heard if h[2] is not None]
    out["progress"] = [p for p in out["progress"] if p[2] is not None]
    return out


def grouped_map():
    """applyInPandas and applyInArrow: a function of each group's rows, with and without its key
    (Spark's key types), computed grouping keys, columns by name or by position, an empty
    result, in a batch and in each micro-batch of a stream, and Spark's error for wrong
    columns."""
    import pandas as pd
    import pyarrow as pa

    # Every file its own part of a batch: the groups are still the whole batch's.
    spark = session(**{"spark.sql.files.openCostInBytes": "1"})
    df = spark.createDataFrame(
        [(1, "a", 1.0), (1, "b", 2.0), (2, "c", 3.0), (2, None, 5.0), (3, "e", None)],
        "id INT, s STRING, v DOUBLE")

    def centred(pdf):
        return pdf.assign(v=pdf.v - pdf.v.mean())

    def summary(key, pdf):
        return pd.DataFrame({"key": [repr(key)], "n": [len(pdf)], "total": [pdf.v.sum()],
                             "index": [repr(list(pdf.index))]})

    summary_schema = "key STRING, n LONG, total DOUBLE, index STRING"
    doc = {
        "centred": rows(df.groupBy("id").applyInPandas(centred, df.schema)),
        "summary": rows(df.groupBy("id").applyInPandas(summary, summary_schema)),
        "computed": rows(df.groupBy(F.col("id") % 2).applyInPandas(summary, summary_schema)),
        "two_keys": rows(df.groupBy("s", "id").applyInPandas(summary, summary_schema)),
        "positional": rows(df.groupBy("id").applyInPandas(
            lambda pdf: pdf[["s", "id"]].set_axis([0, 1], axis=1), "x STRING, y INT")),
        "empty": rows(df.groupBy("id").applyInPandas(lambda pdf: pd.DataFrame(), "id INT")),
        "arrow": rows(df.groupBy("id").applyInArrow(
            lambda t: t.filter(pa.compute.greater(t.column("v"), 1.5)), df.schema)),
        "arrow_key": rows(df.groupBy("s").applyInArrow(
            lambda key, t: pa.table({"k": [repr(key)], "n": [t.num_rows]}), "k STRING, n LONG")),
        "then_aggregate": rows(df.groupBy("id").applyInPandas(centred, df.schema)
                               .groupBy("id").agg(F.sum("v"))),
    }
    other = spark.createDataFrame([(1, 10), (1, 11), (4, 40)], "id LONG, w INT")

    def both(key, left, right):
        return pd.DataFrame({"key": [repr(key)], "left": [len(left)], "right": [len(right)],
                             "columns": [repr([list(left.columns), list(right.columns)])]})

    doc["cogroup"] = rows(df.groupBy("id").cogroup(other.groupBy("id")).applyInPandas(
        both, "key STRING, left LONG, right LONG, columns STRING"))
    doc["cogroup_self"] = rows(df.groupBy("s").cogroup(df.groupBy("s")).applyInPandas(
        lambda left, right: pd.DataFrame({"n": [len(left) + len(right)]}), "n LONG"))
    doc["cogroup_arrow"] = rows(df.groupBy("id").cogroup(other.groupBy("id")).applyInArrow(
        lambda left, right: pa.table({"rows": [left.num_rows * 10 + right.num_rows]}),
        "rows LONG"))
    def text_for_double():
        """A string for a DOUBLE result: the error's class and message."""
        try:
            df.groupBy("id").applyInPandas(lambda pdf: pd.DataFrame({"m": ["text"]}),
                                           "m DOUBLE").collect()
            return None
        except Exception as error:  # noqa: BLE001 - the class and the message compare
            return [type(error).__name__, str(error)]

    failed = text_for_double()
    doc["wrong_type"] = failed and [
        failed[0], "Exception thrown when converting pandas.Series (object) with name 'm' to "
        "Arrow Array (double)." in failed[1]]
    # The session's settings that reach the function (Spark's runner conf).
    by_position = "spark.sql.legacy.execution.pandas.groupedMap.assignColumnsByName"
    spark.conf.set(by_position, "false")
    doc["by_position"] = rows(df.groupBy("id").applyInPandas(
        lambda pdf: pd.DataFrame({"x": pdf.s, "y": pdf.v}), "s STRING, v DOUBLE"))
    spark.conf.unset(by_position)
    safely = "spark.sql.execution.pandas.convertToArrowArraySafely"
    spark.conf.set(safely, "true")
    failed = text_for_double()
    doc["safe_wrong_type"] = failed and [
        failed[0], "It can be caused by overflows or other unsafe conversions warned by Arrow."
        in failed[1]]
    spark.conf.unset(safely)
    try:
        df.groupBy("id").applyInPandas(lambda pdf: pdf, "id INT, other STRING").collect()
        doc["wrong_columns"] = None
    except Exception as error:  # noqa: BLE001 - the class and condition compare
        doc["wrong_columns"] = [type(error).__name__,
                                "RESULT_COLUMNS_MISMATCH_FOR_PANDAS_UDF" in str(error),
                                "Missing: other. Unexpected: s, v." in str(error)]
    data = os.path.join(WORKDIR, "in")
    write_file(data, "a.json", [{"k": "x", "v": 1}, {"k": "y", "v": 2}, {"k": "x", "v": 3}], 1000)
    stream = spark.readStream.schema("k STRING, v INT").json(data)
    query = (stream.groupBy("k")
             .applyInPandas(lambda key, pdf: pd.DataFrame({"k": [key[0]], "n": [len(pdf)],
                                                           "v": [int(pdf.v.sum())]}),
                            "k STRING, n LONG, v LONG")
             .writeStream.format("memory").queryName("grouped").start())
    query.processAllAvailable()
    write_file(data, "b.json", [{"k": "x", "v": 10}], 2000)
    write_file(data, "c.json", [{"k": "x", "v": 20}, {"k": "y", "v": 1}], 2000)
    query.processAllAvailable()
    doc["stream"] = rows(spark.sql("SELECT * FROM grouped"))
    query.stop()
    return doc


def group_state():
    """applyInPandasWithState: each key's state from batch to batch and across a restart from
    the checkpoint, event-time timeouts firing in the no-data batch that the watermark's move
    runs, the state removed, late rows dropped, and Spark's errors for a batch query and for
    output modes that disagree."""
    import time

    import pandas as pd
    from pyspark.sql.streaming.state import GroupStateTimeout

    spark = session()
    doc = {}
    data = os.path.join(WORKDIR, "events")
    checkpoint = os.path.join(WORKDIR, "checkpoint")
    output = "user STRING, count LONG, closed BOOLEAN, watermark LONG, seen STRING"

    def sessions(key, frames, state):
        if state.hasTimedOut:
            count, last = state.get
            state.remove()
            yield pd.DataFrame({"user": [key[0]], "count": [count], "closed": [True],
                                "watermark": [state.getCurrentWatermarkMs()],
                                "seen": [repr((state.exists, state.hasTimedOut))]})
            return
        count, last = state.get if state.exists else (0, 0)
        for frame in frames:
            count += len(frame)
            last = max(last, int(frame["t"].max().timestamp()))
        state.update((count, last))
        state.setTimeoutTimestamp(last * 1000 + 10000)
        yield pd.DataFrame({"user": [key[0]], "count": [count], "closed": [False],
                            "watermark": [state.getCurrentWatermarkMs()],
                            "seen": [repr(type(key[0]).__name__)]})

    def start(function_mode="append", query_mode="append"):
        stream = spark.readStream.schema("user STRING, t TIMESTAMP").json(data)
        return (stream.withWatermark("t", "5 seconds").groupBy("user")
                .applyInPandasWithState(sessions, output, "count LONG, last LONG", function_mode,
                                        GroupStateTimeout.EventTimeTimeout)
                .writeStream.format("json").option("path", sink).outputMode(query_mode)
                .option("checkpointLocation", checkpoint).start())

    def written():
        return rows(spark.read.schema(output).json(sink))

    sink = os.path.join(WORKDIR, "sink")
    write_file(data, "0.json", [{"user": "a", "t": "2024-01-01T00:00:00Z"},
                                {"user": "a", "t": "2024-01-01T00:00:03Z"},
                                {"user": "b", "t": "2024-01-01T00:00:01Z"}], 1000)
    query = start()
    query.processAllAvailable()
    write_file(data, "1.json", [{"user": "a", "t": "2024-01-01T00:00:20Z"}], 2000)
    query.processAllAvailable()
    doc["first_run"] = written()
    doc["state_rows"] = [[p["stateOperators"][0][m] for m in
                          ("operatorName", "numRowsTotal", "numRowsUpdated", "numRowsRemoved")]
                         for p in query.recentProgress if p["stateOperators"]]
    query.stop()
    write_file(data, "2.json", [{"user": "a", "t": "2024-01-01T00:00:50Z"},
                                {"user": "b", "t": "2024-01-01T00:00:02Z"},
                                {"user": "c", "t": "2024-01-01T00:00:49Z"}], 3000)
    query = start()
    query.processAllAvailable()
    doc["restarted"] = written()
    doc["dropped"] = sum(p["stateOperators"][0]["numRowsDroppedByWatermark"]
                         for p in query.recentProgress if p["stateOperators"])
    query.stop()

    # Processing-time timeouts: batches without data run at every trigger until a key's
    # duration has passed; its state then goes.
    def expiring(key, frames, state):
        if state.hasTimedOut:
            state.remove()
            yield pd.DataFrame({"user": [key[0]], "rows": [-1]})
            return
        count = sum(len(frame) for frame in frames)
        state.update((count,))
        state.setTimeoutDuration(500)
        yield pd.DataFrame({"user": [key[0]], "rows": [count]})

    timed = os.path.join(WORKDIR, "timed")
    write_file(timed, "0.json", [{"user": "a", "t": "2024-01-01T00:00:00Z"},
                                 {"user": "a", "t": "2024-01-01T00:00:01Z"},
                                 {"user": "b", "t": "2024-01-01T00:00:02Z"}], 1000)
    query = (spark.readStream.schema("user STRING, t TIMESTAMP").json(timed).groupBy("user")
             .applyInPandasWithState(expiring, "user STRING, rows LONG", "count LONG", "update",
                                     GroupStateTimeout.ProcessingTimeTimeout)
             .writeStream.format("memory").queryName("expiring").outputMode("update").start())
    deadline = time.time() + 60
    while time.time() < deadline and spark.sql(
            "SELECT count(*) FROM expiring WHERE rows = -1").collect()[0][0] < 2:
        time.sleep(0.2)
    doc["processing_time"] = rows(spark.sql("SELECT * FROM expiring"))
    query.stop()

    batch = spark.createDataFrame([("a", 1)], "user STRING, v INT")
    for name, make in [
        ("batch", lambda: batch.groupBy("user").applyInPandasWithState(
            sessions, output, "count LONG, last LONG", "append",
            GroupStateTimeout.NoTimeout).collect()),
        ("modes", lambda: start("update", "append")),
    ]:
        try:
            make().stop()
            doc[name] = None
        except Exception as error:  # noqa: BLE001 - the class and message's point compare
            text = str(error)
            doc[name] = [type(error).__name__,
                         [m for m in ("applyInPandasWithState is unsupported in batch query",
                                      "applyInPandasWithState in update mode is not supported "
                                      "with Append output mode") if m in text]]
    return doc


def grouped_agg():
    """Grouped-aggregate pandas_udfs: several in one groupBy().agg (one argument, two, none),
    expressions and UDFs around and inside them, computed and struct keys, a global
    aggregation, empty input, a list result, SQL registration, and Spark's errors for mixing
    them with other aggregates, nesting them and aggregating a stream with them."""
    import numpy as np
    import pandas as pd

    spark = session()
    df = spark.createDataFrame(
        [(1, 1.0, 2.0), (1, 2.0, 1.0), (2, 3.0, 1.0), (2, None, 4.0), (2, 10.0, 1.0),
         (3, -1.0, None)], "id INT, v DOUBLE, w DOUBLE")

    @F.pandas_udf("double")
    def mean_udf(v: pd.Series) -> float:
        return v.mean()

    @F.pandas_udf("double")
    def weighted(v: pd.Series, w: pd.Series) -> float:
        return float(np.nansum(v * w))

    @F.pandas_udf("long")
    def count_rows() -> int:
        return 7

    @F.pandas_udf("array<long>")
    def index_of(v: pd.Series) -> list:
        return list(v.index)

    @F.pandas_udf("string")
    def described(v: pd.Series) -> str:
        return f"{v.dtype}:{len(v)}:{v.isna().sum()}"

    plus_one = F.udf(lambda x: None if x is None else x + 1.0, "double")

    @F.pandas_udf("double")
    def plus_two(v: pd.Series) -> pd.Series:
        return v + 2

    doc = {
        "several": rows(df.groupBy("id").agg(mean_udf("v"), weighted("v", "w"), count_rows(),
                                             index_of("v"), described("w"))),
        "columns": df.groupBy("id").agg(mean_udf("v"), weighted(df.v, F.lit(2.0)),
                                        mean_udf("v").alias("m")).columns,
        "around": rows(df.groupBy("id").agg(mean_udf("v") + 1, plus_one(mean_udf("v")),
                                            plus_two(mean_udf(plus_one("v"))))),
        "computed_key": rows(df.groupBy((F.col("id") % 2).alias("odd")).agg(mean_udf("w"))),
        "struct_key": rows(df.groupBy(F.struct("id").alias("s")).agg(mean_udf("v"))),
        "global": rows(df.agg(mean_udf("v"), count_rows())),
        "select": rows(df.select(mean_udf("w"))),
        "then_filter": rows(df.groupBy("id").agg(mean_udf("v").alias("m")).where("m > 1.5")),
        "twice": rows(df.groupBy("id").agg(mean_udf("v").alias("v"))
                      .groupBy().agg(mean_udf("v"))),
        "empty_grouped": rows(df.where("id > 10").groupBy("id").agg(mean_udf("v"))),
    }
    # Arguments by keyword, for a grouped-aggregate and a row-at-a-time UDF.
    scaled = F.udf(lambda a, b=10.0: None if a is None or b is None else a * b, "double")
    by_keyword = df.groupBy("id").agg(weighted(df.v, w=df.w), weighted(w=df.w, v=df.v))
    doc["keywords"] = [by_keyword.columns, rows(by_keyword)]
    scaled_rows = df.select(scaled(df.v, b=df.w), scaled(b=df.w, a=df.v), scaled(df.v))
    doc["udf_keywords"] = [scaled_rows.columns, rows(scaled_rows)]
    try:
        df.select(scaled(df.v, c=df.w)).collect()
        doc["unknown_keyword"] = None
    except Exception as error:  # noqa: BLE001 - the class and the message's point compare
        doc["unknown_keyword"] = [type(error).__name__,
                                  "got an unexpected keyword argument 'c'" in str(error)]
    try:
        doc["empty_global"] = rows(df.where("id > 10").agg(described("v")))
    except Exception as error:  # noqa: BLE001 - the class compares
        doc["empty_global"] = type(error).__name__
    df.createOrReplaceTempView("agg_input")
    spark.udf.register("mean_udf", mean_udf)
    doc["sql"] = rows(spark.sql("SELECT id, mean_udf(v) AS m FROM agg_input GROUP BY id "
                                "HAVING mean_udf(v) > 0"))
    for name, query in [("mixed", lambda: df.groupBy("id").agg(mean_udf("v"), F.max("v"))),
                        ("nested", lambda: df.groupBy("id").agg(mean_udf(mean_udf("v")))),
                        ("not_aggregated", lambda: df.groupBy("id").agg(plus_one("v")))]:
        try:
            query().collect()
            doc[name] = None
        except Exception as error:  # noqa: BLE001 - the class and condition compare
            doc[name] = [type(error).__name__, str(error).split("\n")[0][:160]]
    data = os.path.join(WORKDIR, "in")
    write_file(data, "a.json", [{"k": "x", "v": 1}], 1000)
    stream = spark.readStream.schema("k STRING, v DOUBLE").json(data)
    try:
        query = (stream.groupBy("k").agg(mean_udf("v")).writeStream.format("memory")
                 .queryName("udaf_stream").outputMode("update").start())
        query.processAllAvailable()
        query.stop()
        doc["stream"] = None
    except Exception as error:  # noqa: BLE001 - the message compares (Spark fails the query
        # at its first batch, StreamingQueryException; Ember's start() refuses it)
        doc["stream"] = ("Streaming aggregation doesn't support group aggregate pandas UDF"
                         in str(error))
    return doc


def python_data_source():
    """Python data sources (spark.dataSource.register): a batch read of several partitions with
    the source's own schema or the reader's, options, rows as tuples, Rows and Arrow batches;
    a stream through DataSourceStreamReader (offsets in the offset log, commits, a restart from
    the checkpoint) and one through SimpleDataSourceStreamReader; batch writes (append,
    overwrite, a refused mode) and a stream's writes (complete mode) through its writers."""
    import pyarrow as pa
    from pyspark.sql import Row
    from pyspark.sql.datasource import (DataSource, DataSourceReader, DataSourceStreamReader,
                                        DataSourceStreamWriter, DataSourceWriter,
                                        InputPartition, SimpleDataSourceStreamReader,
                                        WriterCommitMessage)

    spark = session()
    os.makedirs(WORKDIR, exist_ok=True)
    counter_file = os.path.join(WORKDIR, "available")
    commits_file = os.path.join(WORKDIR, "commits")

    class Ranges(DataSourceReader):
        def __init__(self, options):
            self.n = int(options.get("rows", "3"))

        def partitions(self):
            return [InputPartition(i) for i in range(2)]

        def read(self, partition):
            for i in range(self.n):
                if partition.value == 0:
                    yield (i, f"p0-{i}")
                else:
                    yield Row(name=f"p1-{i}", id=i * 10)

    class ArrowReader(DataSourceReader):
        def read(self, partition):
            yield pa.RecordBatch.from_arrays([pa.array([7, 8], pa.int32()), pa.array(["a", None])],
                                             names=["id", "name"])

    class Counted(DataSourceStreamReader):
        def initialOffset(self):
            return {"offset": 0}

        def latestOffset(self):
            with open(counter_file) as f:
                return {"offset": int(f.read())}

        def partitions(self, start, end):
            return [InputPartition((start["offset"], end["offset"]))]

        def read(self, partition):
            first, end = partition.value
            for i in range(first, end):
                yield (i, f"event-{i}")

        def commit(self, end):
            with open(commits_file, "a") as f:
                f.write(json.dumps(end) + "\n")

    class SimpleCounted(SimpleDataSourceStreamReader):
        def initialOffset(self):
            return {"at": 0}

        def read(self, start):
            with open(counter_file) as f:
                end = int(f.read())
            return iter([(i, f"simple-{i}") for i in range(start["at"], end)]), {"at": end}

        def readBetweenOffsets(self, start, end):
            return iter([(i, f"simple-{i}") for i in range(start["at"], end["at"])])

    class Source(DataSource):
        @classmethod
        def name(cls):
            return "ember_test_source"

        def schema(self):
            return "id INT, name STRING"

        def reader(self, schema):
            return ArrowReader() if self.options.get("arrow") else Ranges(self.options)

        def streamReader(self, schema):
            return Counted()

    class SimpleSource(DataSource):  # no streamReader: Spark falls back to the simple one
        @classmethod
        def name(cls):
            return "ember_simple_source"

        def schema(self):
            return "id INT, name STRING"

        def simpleStreamReader(self, schema):
            return SimpleCounted()

    spark.dataSource.register(Source)
    spark.dataSource.register(SimpleSource)
    doc = {}
    df = spark.read.format("ember_test_source").option("rows", 2).load()
    doc["batch"] = [df.columns, [f.dataType.simpleString() for f in df.schema.fields], rows(df)]
    doc["user_schema"] = rows(spark.read.format("ember_test_source").schema("id LONG, name STRING")
                              .load())
    doc["arrow"] = rows(spark.read.format("EMBER_TEST_SOURCE").option("arrow", "1").load())
    doc["then_query"] = rows(df.where("id > 0").groupBy("name").count())

    def write_available(n):
        # Whole or not at all: the running query reads the file at any moment.
        with open(counter_file + ".tmp", "w") as f:
            f.write(str(n))
        os.replace(counter_file + ".tmp", counter_file)

    checkpoint = os.path.join(WORKDIR, "cp")
    out = os.path.join(WORKDIR, "out")

    def run(more):
        query = (spark.readStream.format("ember_test_source").load()
                 .writeStream.format("parquet").option("path", out)
                 .option("checkpointLocation", checkpoint).start())
        for n in more:
            write_available(n)
            query.processAllAvailable()
        query.stop()

    write_available(0)
    run([2, 5])
    run([5, 6])  # a restart: the committed offsets stand, the new rows come once
    doc["stream"] = rows(spark.read.parquet(out))
    offsets = sorted((name for name in os.listdir(os.path.join(checkpoint, "offsets"))
                      if name.isdigit()), key=int)
    doc["offsets"] = [open(os.path.join(checkpoint, "offsets", name)).read().splitlines()[-1]
                      for name in offsets]
    with open(commits_file) as f:
        doc["commits"] = f.read().splitlines()
    write_available(0)
    query = (spark.readStream.format("ember_simple_source").load()
             .writeStream.format("memory").queryName("simple_source").start())
    for n in (3, 4):
        write_available(n)
        query.processAllAvailable()
    query.stop()
    doc["simple"] = rows(spark.sql("SELECT * FROM simple_source"))

    # Writers: each write() sees its rows, each commit() the writers' messages.
    written = os.path.join(WORKDIR, "written")
    os.makedirs(written, exist_ok=True)

    class Message(WriterCommitMessage):
        def __init__(self, count):
            self.count = count

    def record(kind, text):
        with open(os.path.join(written, kind), "a") as f:
            f.write(text + "\n")

    class Writer(DataSourceWriter):
        def __init__(self, overwrite):
            self.overwrite = overwrite

        def write(self, iterator):  # Spark calls it once per partition, Ember once per batch
            rows = [repr(row) for row in iterator]
            for row in rows:
                record("rows", f"{self.overwrite} {row}")
            return Message(len(rows))

        def commit(self, messages):
            record("commits", f"batch {sum(m.count for m in messages if m is not None)}")

    class StreamWriter(DataSourceStreamWriter):
        def __init__(self, overwrite):
            self.overwrite = overwrite

        def write(self, iterator):
            rows = [repr(row) for row in iterator]
            for row in rows:
                record("stream_rows", f"{self.overwrite} {row}")
            return Message(len(rows))

        def commit(self, messages, batchId):
            record("stream_commits",
                   f"{batchId} {sum(m.count for m in messages if m is not None)}")

    class Sink(DataSource):
        @classmethod
        def name(cls):
            return "ember_test_sink"

        def writer(self, schema, overwrite):
            return Writer(overwrite)

        def streamWriter(self, schema, overwrite):
            return StreamWriter(overwrite)

    spark.dataSource.register(Sink)
    df.write.format("ember_test_sink").mode("append").save()
    df.where("id > 0").write.format("ember_test_sink").mode("overwrite").save()
    try:
        df.write.format("ember_test_sink").save()
        doc["error_mode"] = None
    except Exception as error:  # noqa: BLE001 - the class and the message compare
        doc["error_mode"] = [type(error).__name__, str(error).splitlines()[0]]
    stream_in = os.path.join(WORKDIR, "sink_in")
    write_file(stream_in, "a.json", [{"k": "x", "v": 1}, {"k": "y", "v": 2}], 1000)
    query = (spark.readStream.schema("k STRING, v INT").json(stream_in).groupBy("k").count()
             .writeStream.format("ember_test_sink").outputMode("complete")
             .option("checkpointLocation", os.path.join(WORKDIR, "sink_cp")).start())
    query.processAllAvailable()
    write_file(stream_in, "b.json", [{"k": "x", "v": 3}], 2000)
    query.processAllAvailable()
    query.stop()
    for kind in ("rows", "commits", "stream_rows", "stream_commits"):
        with open(os.path.join(written, kind)) as f:
            doc["written_" + kind] = sorted(f.read().splitlines())
    return doc


def json_events():
    """The usual first lines of a job on raw events: text lines (as a Kafka value would be)
    through from_json with a nested StructType, then e.*, explode, a map lookup, to_json and
    get_json_object, into a windowed aggregation with a watermark; malformed lines included."""
    from pyspark.sql.types import (ArrayType, DoubleType, LongType, MapType, StringType,
                                   StructField, StructType, TimestampType)

    spark = session()
    data = os.path.join(WORKDIR, "lines")
    os.makedirs(data, exist_ok=True)

    def lines(name, texts, mtime):
        hidden = os.path.join(data, "." + name)
        with open(hidden, "w") as out:
            out.write("\n".join(texts) + "\n")
        os.utime(hidden, (mtime, mtime))
        os.replace(hidden, os.path.join(data, name))

    event = StructType([
        StructField("id", LongType()), StructField("user", StructType([
            StructField("name", StringType()), StructField("tags", ArrayType(StringType()))])),
        StructField("attrs", MapType(StringType(), DoubleType())),
        StructField("ts", TimestampType())])
    lines("a.txt", [
        '{"id":1,"user":{"name":"ann","tags":["a","b"]},"attrs":{"x":1.5},"ts":"2024-05-01 10:00:01"}',
        '{"id":2,"user":{"name":"bob","tags":[]},"attrs":{"x":2,"y":null},"ts":"2024-05-01 10:00:07"}',
        '{"id":"three","user":{"name":"cy"},"ts":"2024-05-01 10:00:08"}',
        'not json at all',
        '{"id":4,"user":null,"attrs":{"x":"bad"},"ts":"2024-05-01 10:00:12"}'], 1000)
    raw = spark.readStream.text(data)
    events = raw.select(F.from_json("value", event).alias("e"), "value").select("e.*", "value")
    flat = events.select(
        "id", F.col("user.name").alias("name"), F.explode_outer("user.tags").alias("tag"),
        F.col("attrs")["x"].alias("x"), "ts",
        F.to_json(F.struct("id", "user")).alias("back"),
        F.get_json_object("value", "$.user.tags[0]").alias("first_tag"))
    query = flat.writeStream.format("memory").queryName("flat").start()
    counts = (events.withWatermark("ts", "10 seconds")
              .groupBy(F.window("ts", "10 seconds")).agg(F.count("*").alias("n"),
                                                         F.sum("id").alias("ids")))
    agg = counts.writeStream.format("memory").queryName("counts").outputMode("complete").start()
    query.processAllAvailable()
    agg.processAllAvailable()
    first = rows(spark.sql("SELECT * FROM flat"))
    lines("b.txt", ['{"id":5,"user":{"name":"dee","tags":["c"]},"ts":"2024-05-01 10:00:31"}'], 2000)
    query.processAllAvailable()
    agg.processAllAvailable()
    doc = {"schema": flat.schema.simpleString(), "first": first,
           "all": rows(spark.sql("SELECT * FROM flat")),
           "counts": rows(spark.sql("SELECT window.start, n, ids FROM counts")),
           "failfast": None}
    query.stop()
    agg.stop()
    try:
        spark.createDataFrame([("{bad",)], "j STRING").select(
            F.from_json("j", "a INT", {"mode": "FAILFAST"})).collect()
    except Exception as error:  # noqa: BLE001 - classic PySpark wraps it in a Py4JJavaError
        doc["failfast"] = "MALFORMED_RECORD_IN_PARSING" in str(error)
    return doc


PROGRAMS = {f.__name__: f for f in (windowed_memory, file_sinks, iceberg_table, failing_query,
                                     foreach_batch, listener, console_and_errors,
                                     joins_and_dedup, file_sources, python_udfs,
                                     map_in_pandas, observed_metrics, grouped_map,
                                     group_state, grouped_agg, python_data_source,
                                     json_events)}

if __name__ == "__main__":
    result = PROGRAMS[NAME]()
    print(json.dumps(result, default=str), flush=True)
