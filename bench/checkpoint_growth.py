"""The checkpoint of a long run: N micro-batches of one tiny JSON file each (availableNow,
maxFilesPerTrigger 1) through dropDuplicates(["v"]) (one new key a batch) into a Parquet sink, then the
files and bytes of each checkpoint folder and of the sink's _spark_metadata log.

    .venv/bin/python bench/checkpoint_growth.py 2000                # Spark's default confs
    .venv/bin/python bench/checkpoint_growth.py 2000 cleanupDelay=0 # both logs' delay at 0
"""

import json
import os
import shutil
import sys
import tempfile
import time

from ember.sql import SparkSession


def folder(path):
    files = total = 0
    for root, _, names in os.walk(path):
        for name in names:
            files += 1
            total += os.path.getsize(os.path.join(root, name))
    return {"files": files, "bytes": total}


def main():
    batches = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    conf = dict(arg.split("=", 1) for arg in sys.argv[2:])
    builder = SparkSession.builder.config("spark.sql.shuffle.partitions", "2")
    if "cleanupDelay" in conf:
        delay = conf.pop("cleanupDelay")
        builder = (builder.config("spark.sql.streaming.fileSource.log.cleanupDelay", delay)
                   .config("spark.sql.streaming.fileSink.log.cleanupDelay", delay))
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    work = tempfile.mkdtemp(prefix="checkpoint-growth-")
    source, checkpoint, out = (os.path.join(work, d) for d in ("in", "cp", "out"))
    os.makedirs(source)
    for i in range(batches):
        path = os.path.join(source, f"f{i:05d}.json")
        with open(path, "w") as f:
            f.write(json.dumps({"k": i % 7, "v": i}) + "\n")
        os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))
    stream = spark.readStream.schema("k INT, v INT").option("maxFilesPerTrigger", 1).json(source)
    start = time.time()
    query = (stream.dropDuplicates(["v"]).writeStream.format("parquet")
             .option("path", out).option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).start())
    query.awaitTermination()
    elapsed = time.time() - start
    report = {name: folder(os.path.join(checkpoint, name))
              for name in ("sources/0", "offsets", "commits", "state")}
    report["out/_spark_metadata"] = folder(os.path.join(out, "_spark_metadata"))
    report["batches"] = batches
    report["seconds"] = round(elapsed, 1)
    shutil.rmtree(work)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
