"""Programs for test_interpreter_boundary.py, run as `python boundary_programs.py NAME WORKDIR
ENGINE` in a process of their own (ENGINE `ember` or `spark`): each prints what the test checks,
and how the process ends (its exit code, whether it ends at all) is part of the result."""

import json
import os
import sys
import time

ENGINE = sys.argv[3]
if ENGINE == "ember":
    import ember

    ember.activate()

from pyspark.sql import SparkSession  # noqa: E402


def session():
    builder = SparkSession.builder.config("spark.sql.shuffle.partitions", "2")
    if ENGINE == "spark":
        builder = builder.master("local[1]").config("spark.ui.enabled", "false")
    spark = builder.getOrCreate()
    if ENGINE == "spark":
        spark.sparkContext.setLogLevel("OFF")
    return spark


def malformed_bytes(workdir):
    """A FAILFAST stream over a malformed record holding a byte that is not UTF-8: the error
    reaches Python as the query's exception, and the session's manager still answers."""
    source = os.path.join(workdir, "in")
    os.makedirs(source)
    with open(os.path.join(source, "a.json"), "wb") as out:
        out.write(b'{"id":1,"s":"x\xffy"\n')
    spark = session()
    df = spark.readStream.schema("id INT, s STRING").option("mode", "FAILFAST").json(source)
    query = (df.writeStream.format("memory").queryName("t")
             .option("checkpointLocation", os.path.join(workdir, "cp")).start())
    try:
        query.processAllAvailable()
        outcome = {"raised": None}
    except Exception as error:  # noqa: BLE001 - the type is what the test compares
        outcome = {"raised": type(error).__name__,
                   "condition": getattr(error, "getCondition", lambda: None)(),
                   "replacement_char": "\ufffd" in str(error)}
    outcome["active"] = len(spark.streams.active)
    outcome["exception_type"] = type(query.exception()).__name__
    print(json.dumps(outcome), flush=True)


def await_forever(workdir):
    """awaitTermination() of a running query, with no timeout: the test sends SIGINT."""
    source = os.path.join(workdir, "in")
    os.makedirs(source)
    spark = session()
    df = spark.readStream.schema("id INT").json(source)
    query = (df.writeStream.format("console").trigger(processingTime="100 milliseconds")
             .option("checkpointLocation", os.path.join(workdir, "cp")).start())
    print("started", flush=True)
    try:
        query.awaitTermination()
        print("ended", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)


def exit_while_running(workdir):
    """Leaves the interpreter while a query runs foreachBatch and a listener on every batch, as
    a script that never calls stop() does: the process must end, and cleanly."""
    from pyspark.sql.streaming import StreamingQueryListener

    source = os.path.join(workdir, "in")
    os.makedirs(source)
    for i in range(40):
        with open(os.path.join(source, f"{i:03d}.json"), "w") as out:
            out.write(json.dumps({"id": i}) + "\n")
    spark = session()

    class Listener(StreamingQueryListener):
        def onQueryStarted(self, event):
            pass

        def onQueryProgress(self, event):
            sum(range(1000))

        def onQueryIdle(self, event):
            pass

        def onQueryTerminated(self, event):
            pass

    spark.streams.addListener(Listener())
    seen = []

    def each(batch, batch_id):
        seen.append(batch_id)
        sum(range(1000))

    df = spark.readStream.schema("id INT").option("maxFilesPerTrigger", 1).json(source)
    (df.writeStream.foreachBatch(each).trigger(processingTime="0 seconds")
     .option("checkpointLocation", os.path.join(workdir, "cp")).start())
    deadline = time.monotonic() + 60
    while len(seen) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    print("leaving", len(seen) >= 3, flush=True)


def interrupt_then_stop(workdir):
    """A blocking call (argv[4]: awaitTermination, processAllAvailable or awaitAnyTermination)
    on a running query; the test sends SIGINT: KeyboardInterrupt, then stop() must end it."""
    call = sys.argv[4]
    source = os.path.join(workdir, "in")
    os.makedirs(source)
    spark = session()
    writer = spark.readStream.schema("id INT").json(source).writeStream
    if call == "processAllAvailable":  # a batch that takes a while, so the wait is real
        with open(os.path.join(source, "a.json"), "w") as out:
            out.write('{"id": 1}\n')
        writer = writer.foreachBatch(lambda df, batch_id: time.sleep(3))
    else:
        writer = writer.format("noop")
    query = writer.option("checkpointLocation", os.path.join(workdir, "cp")).start()
    print("started", flush=True)
    try:
        {"awaitTermination": query.awaitTermination,
         "processAllAvailable": query.processAllAvailable,
         "awaitAnyTermination": spark.streams.awaitAnyTermination}[call]()
        print("ended", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    query.stop()
    print("stopped", query.isActive, flush=True)


if __name__ == "__main__":
    {"malformed_bytes": malformed_bytes, "await_forever": await_forever,
     "exit_while_running": exit_while_running,
     "interrupt_then_stop": interrupt_then_stop}[sys.argv[1]](sys.argv[2])
