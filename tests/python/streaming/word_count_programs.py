"""The word counts of Spark's Structured Streaming guide (explode(split(value, " ")) grouped and
counted) over the file, socket and rate sources, unchanged on Ember and on Spark
(`python word_count_programs.py NAME WORKDIR ENGINE`), for test_word_count.py. Each prints the
console sink's output or one JSON document on its last line."""

import json
import os
import sys
import time

from programs import ENGINE, session  # noqa: F401  (activates Ember for ENGINE ember)

from pyspark.sql import functions as F  # noqa: E402

LINES = [
    ["apache spark", "spark streaming is fast", ""],
    ["word count  with two spaces", "spark"],
    ["日本 語 spark", " leading space", "trailing space "],
]


def write_lines(directory, name, lines, mtime):
    path = os.path.join(directory, name)
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")
    os.utime(path, (mtime, mtime))


def text_files(workdir):
    source = os.path.join(workdir, "in")
    os.makedirs(source)
    for f, lines in enumerate(LINES):
        write_lines(source, f"f{f}.txt", lines, 1_700_000_000 + f)
    return source


def file_console(workdir):
    """The guide's program over a text file stream, complete mode, to the console (sorted, so
    both engines print rows alike), a file per micro-batch."""
    spark = session()
    lines = spark.readStream.option("maxFilesPerTrigger", 1).text(text_files(workdir))
    words = lines.select(F.explode(F.split(lines.value, " ")).alias("word"))
    word_counts = words.groupBy("word").count().orderBy("word")
    query = (word_counts.writeStream.outputMode("complete").format("console")
             .option("checkpointLocation", os.path.join(workdir, "cp")).start())
    query.processAllAvailable()
    query.stop()
    sys.stdout.flush()


def file_modes(workdir):
    """Update mode of the word count, and a stateless posexplode_outer in append mode, each
    micro-batch's rows as foreachBatch sees them."""
    spark = session()
    source = text_files(workdir)
    out = {"update": [], "append": []}

    def collector(name):
        def collect(df, batch_id):
            out[name].append([batch_id, sorted(json.dumps(list(r)) for r in df.collect())])
        return collect

    lines = spark.readStream.option("maxFilesPerTrigger", 1).text(source)
    counts = (lines.select(F.explode(F.split("value", " +")).alias("word"))
              .groupBy("word").count())
    q1 = (counts.writeStream.outputMode("update").foreachBatch(collector("update"))
          .option("checkpointLocation", os.path.join(workdir, "cp1")).start())
    q1.processAllAvailable()
    q1.stop()
    positions = lines.select("value", F.posexplode_outer(F.split("value", " ", 2)))
    q2 = (positions.writeStream.outputMode("append").foreachBatch(collector("append"))
          .option("checkpointLocation", os.path.join(workdir, "cp2")).start())
    q2.processAllAvailable()
    q2.stop()
    print(json.dumps(out))


def socket_word_count(workdir):
    """The guide's first example: lines from a socket, complete mode; the last batch's counts."""
    import socket

    spark = session()
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    lines = (spark.readStream.format("socket").option("host", "127.0.0.1").option("port", port)
             .load())
    words = lines.select(F.explode(F.split(lines.value, " ")).alias("word"))
    word_counts = words.groupBy("word").count()
    latest = {}

    def collect(df, batch_id):
        latest["rows"] = sorted([r.word, r["count"]] for r in df.collect())

    query = (word_counts.writeStream.outputMode("complete").foreachBatch(collect)
             .option("checkpointLocation", os.path.join(workdir, "cp"))
             .trigger(processingTime="100 milliseconds").start())
    connection, _ = server.accept()
    expected = 0
    for group in LINES:
        connection.sendall(("\n".join(group) + "\n").encode())
        expected += sum(len(line.split(" ")) for line in group)
        deadline = time.time() + 60
        while sum(n for _, n in latest.get("rows", [])) < expected and time.time() < deadline:
            time.sleep(0.05)
    query.stop()
    connection.close()
    server.close()
    print(json.dumps(latest["rows"]))


def rate_explode(workdir):
    """rate-micro-batch rows exploded into two keys each, counted in complete mode, three
    availableNow batches on one checkpoint."""
    spark = session()
    batches = []

    def collect(df, batch_id):
        batches.append([batch_id, sorted([r.k, r["count"]] for r in df.collect())])

    for _ in range(3):
        counts = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 7).load()
                  .select(F.explode(F.array(F.col("value") % 3, F.col("value") % 5)).alias("k"))
                  .groupBy("k").count())
        query = (counts.writeStream.outputMode("complete").foreachBatch(collect)
                 .option("checkpointLocation", os.path.join(workdir, "cp"))
                 .trigger(availableNow=True).start())
        query.awaitTermination()
    print(json.dumps(batches))


if __name__ == "__main__":
    globals()[sys.argv[1]](sys.argv[2])
