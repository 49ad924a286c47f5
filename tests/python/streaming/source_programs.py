"""Streaming programs over the rate sources that run unchanged on Ember and on the real Spark
(`python source_programs.py NAME WORKDIR ENGINE`), for test_sources.py. Each prints one JSON
document on its last line."""

import json
import os
import re
import sys
import time

from programs import ENGINE, session  # noqa: F401  (activates Ember for ENGINE ember)


def offsets_log(checkpoint):
    """Each offsets/N file's source lines (the metadata line's timestamp differs by run)."""
    folder = os.path.join(checkpoint, "offsets")
    logged = {}
    for name in sorted(os.listdir(folder), key=lambda n: int(n) if n.isdigit() else -1):
        if name.isdigit():
            with open(os.path.join(folder, name)) as f:
                lines = f.read().split("\n")
            logged[name] = {"version": lines[0], "sources": lines[2:],
                            "watermark": json.loads(lines[1])["batchWatermarkMs"]}
    return logged


def rows(df):
    """A batch's rows in the order collect() returns them: timestamps as epoch microseconds."""
    return [[int(r.timestamp.timestamp() * 1_000_000), r.value] for r in df.collect()]


def progress_view(query):
    return [{"batchId": p["batchId"], "numInputRows": p["numInputRows"],
             "description": p["sources"][0]["description"],
             "startOffset": p["sources"][0]["startOffset"],
             "endOffset": p["sources"][0]["endOffset"]}
            for p in query.recentProgress if p["numInputRows"] > 0]


def rate_micro_batch(workdir):
    """rate-micro-batch with every option, three availableNow runs on one checkpoint (a batch
    each), then a processing-time run of three more batches."""
    spark = session()
    checkpoint = os.path.join(workdir, "cp")
    batches = {}

    def collect(df, batch_id):
        batches[str(batch_id)] = rows(df)

    def stream():
        return (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 7)
                .option("numPartitions", 3).option("startTimestamp", 1000)
                .option("advanceMillisPerBatch", 500).load()
                .writeStream.foreachBatch(collect).option("checkpointLocation", checkpoint))

    progress = []
    for _ in range(3):
        query = stream().trigger(availableNow=True).start()
        query.awaitTermination()
        progress += progress_view(query)
    query = stream().trigger(processingTime="100 milliseconds").start()
    while len(batches) < 6:
        time.sleep(0.05)
    query.stop()
    print(json.dumps({"batches": {b: batches[b] for b in map(str, range(6))},
                      "progress": progress, "offsets": {b: v for b, v in offsets_log(checkpoint).items()
                                                        if int(b) < 6},
                      "schema": spark.readStream.format("rate-micro-batch")
                      .option("rowsPerBatch", 1).load().schema.simpleString()}))


def rate(workdir):
    """The rate source with a ramp: batches every 300 ms into foreachBatch until four had rows
    (a minute at most); the checkpoint is left for test_sources to run again."""
    spark = session()
    checkpoint = os.path.join(workdir, "cp")
    batches = {}

    def collect(df, batch_id):
        batches[str(batch_id)] = rows(df)

    query = (spark.readStream.format("rate").option("rowsPerSecond", 10).option("rampUpTime", "2s")
             .option("numPartitions", 3).load()
             .writeStream.foreachBatch(collect).option("checkpointLocation", checkpoint)
             .trigger(processingTime="300 milliseconds").start())
    deadline = time.time() + 60
    while sum(1 for b in list(batches.values()) if b) < 4 and time.time() < deadline:
        time.sleep(0.1)
    query.stop()
    with open(os.path.join(checkpoint, "sources", "0", "0")) as f:
        start_time = f.read()
    print(json.dumps({"batches": batches, "offsets": offsets_log(checkpoint), "start_time": start_time,
                      "progress": progress_view(query)}))


def rate_again(workdir):
    """Runs the rate query once (Trigger.Once) on the checkpoint in WORKDIR/cp: a batch logged
    without its commit runs again from the logged offsets; prints each batch's rows."""
    spark = session()
    batches = {}

    def collect(df, batch_id):
        batches[str(batch_id)] = rows(df)

    query = (spark.readStream.format("rate").option("rowsPerSecond", 10).option("rampUpTime", "2s")
             .option("numPartitions", 3).load()
             .writeStream.foreachBatch(collect).option("checkpointLocation", os.path.join(workdir, "cp"))
             .trigger(once=True).start())
    query.awaitTermination()
    print(json.dumps({"batches": batches, "progress": progress_view(query)}))


def socket_lines(workdir):
    """The socket source against a server of this process: lines ended by \n, \r\n and \r,
    a byte that is not UTF-8, a last line the server ends by closing; then a restart on the
    same checkpoint against a new server, which fails once a line arrives (the socket source
    cannot recover: its offsets start again from -1). Prints the values each run read, the
    offsets of its last batch, the description with the port left out, the restart's failure."""
    import socket

    spark = session()
    checkpoint = os.path.join(workdir, "cp")
    received = []

    def collect(df, batch_id):
        received.extend((r.value, r.timestamp is not None) for r in df.collect())

    def run(send):
        server = socket.create_server(("127.0.0.1", 0))
        port = server.getsockname()[1]
        query = (spark.readStream.format("socket").option("host", "127.0.0.1").option("port", port)
                 .option("includeTimestamp", True).load()
                 .writeStream.foreachBatch(collect).option("checkpointLocation", checkpoint)
                 .trigger(processingTime="100 milliseconds").start())
        connection, _ = server.accept()  # when the first batch is planned
        expected = 0
        for data, lines in send:
            connection.sendall(data)
            if data.endswith(b"!"):
                connection.close()
            expected += lines
            deadline = time.time() + 60
            while len(received) < expected and time.time() < deadline and query.isActive:
                time.sleep(0.05)
        if query.exception():
            # The cause, without the engines' wrappers.
            failure = re.search(r"Offsets committed out of order: \S+ followed by \S+", str(query.exception()))
            server.close()
            return {"failure": failure.group(0) if failure else str(query.exception()),
                    "rows": sorted(received)}
        query.processAllAvailable()  # the last batch's progress is reported after foreachBatch
        progress = [p for p in query.recentProgress if p["numInputRows"] > 0]
        query.stop()
        server.close()
        rows = sorted(received)
        received.clear()
        last = progress[-1]["sources"][0]
        return {"rows": rows, "description": last["description"].replace(str(port), "<port>"),
                "endOffset": last["endOffset"]}

    first = run([(b"alpha\nbeta\r\ngamma\rdelta \xff x\n", 4), (b"epsilon\nlast without newline!", 2)])
    again = run([(b"after restart\n", 1)])
    schema = (spark.readStream.format("socket").option("host", "localhost").option("port", 1)
              .load().schema.simpleString())
    print(json.dumps({"first": first, "again": again, "schema": schema}))


def errors(workdir):
    """The errors of bad rate options and of an unknown format: class and message."""
    spark = session()
    cases = {
        "rowsPerSecond": lambda: spark.readStream.format("rate").option("rowsPerSecond", 0).load(),
        "rampUpTime": lambda: spark.readStream.format("rate").option("rampUpTime", "-1s").load(),
        "numPartitions": lambda: spark.readStream.format("rate").option("numPartitions", -2).load(),
        "rowsPerBatch": lambda: spark.readStream.format("rate-micro-batch").load(),
        "advanceMillisPerBatch": lambda: spark.readStream.format("rate-micro-batch")
        .option("rowsPerBatch", 1).option("advanceMillisPerBatch", -1).load(),
        "unknown": lambda: spark.readStream.format("no-such-format").load(),
        "no path": lambda: spark.readStream.format("json").schema("a INT").load(),
        "socket host": lambda: spark.readStream.format("socket").option("port", 1).load(),
        "socket port": lambda: spark.readStream.format("socket").option("host", "localhost").load(),
        "socket includeTimestamp": lambda: spark.readStream.format("socket").option("host", "h")
        .option("port", 1).option("includeTimestamp", "maybe").load(),
    }
    out = {}
    for name, case in cases.items():
        try:
            case()
            out[name] = None
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            java = getattr(e, "java_exception", None)
            if java is not None:
                # Classic PySpark does not convert SparkClassNotFoundException: the Java one's.
                out[name] = {"class": "Py4JJavaError", "condition": java.getCondition(),
                             "message": java.getMessage().split("\n")[0]}
                continue
            condition = getattr(e, "getCondition", lambda: None)()
            message = str(e).split("\n")[0]
            out[name] = {"class": type(e).__name__, "condition": condition, "message": message}
    print(json.dumps(out))


if __name__ == "__main__":
    globals()[sys.argv[1]](sys.argv[2])
