"""The sink part of progress (`sink.description`, `sink.metrics`, `sources[].metrics`) for each
kind of sink, run unchanged on Ember and on the real Spark (`python sink_programs.py NAME WORKDIR
ENGINE`), for test_sink_progress.py. Prints one JSON document on its last line."""

import json
import os
import re
import sys

from programs import ENGINE, session, write_file  # noqa: F401  (activates Ember for ENGINE ember)

ICEBERG_JAR = os.path.expanduser(
    "~/.m2/repository/org/apache/iceberg/iceberg-spark-runtime-4.0_2.13/1.10.0/"
    "iceberg-spark-runtime-4.0_2.13-1.10.0.jar")


def shape(description, workdir):
    """JVM identity hashes and lambda class numbers differ by run: kept as their shape."""
    description = description.replace(os.path.realpath(workdir), "<workdir>").replace(str(workdir), "<workdir>")
    description = re.sub(r"\$Lambda\$?[0-9]*/0x[0-9a-f]+", "$Lambda/<class>", description)
    return re.sub(r"@[0-9a-f]{1,8}\b", "@<hash>", description)


def sinks(workdir):
    conf = {}
    iceberg = os.path.exists(ICEBERG_JAR) or ENGINE == "ember"
    if iceberg:
        conf = {"spark.sql.catalog.local": "org.apache.iceberg.spark.SparkCatalog",
                "spark.sql.catalog.local.type": "hadoop",
                "spark.sql.catalog.local.warehouse": os.path.join(workdir, "warehouse")}
        if ENGINE == "spark":
            conf["spark.jars"] = ICEBERG_JAR
    spark = session(**conf)
    data = os.path.join(workdir, "in")
    os.makedirs(data)
    write_file(data, "a.json", [{"k": i} for i in range(3)], 1000)
    stream = spark.readStream.schema("k INT").json(data)
    writers = {
        "memory": lambda w: w.format("memory").queryName("rows").start(),
        "console": lambda w: w.format("console").start(),
        "noop": lambda w: w.format("noop").start(),
        "foreachBatch": lambda w: w.foreachBatch(lambda df, batch_id: None).start(),
        "foreach": lambda w: w.foreach(lambda row: None).start(),
        "parquet": lambda w: w.format("parquet").option("path", os.path.join(workdir, "out", "p")).start(),
        "json": lambda w: w.format("json").start(os.path.join(workdir, "out", "j") + "/"),
    }
    if iceberg:
        spark.sql("CREATE NAMESPACE IF NOT EXISTS local.db")
        writers["iceberg"] = lambda w: w.toTable("local.db.events")
    out = {}
    for name, start in writers.items():
        writer = (stream.writeStream.option("checkpointLocation", os.path.join(workdir, "cp", name))
                  .trigger(availableNow=True))
        query = start(writer)
        query.awaitTermination()
        progress = query.lastProgress
        out[name] = {"description": shape(progress["sink"]["description"], workdir),
                     "metrics": progress["sink"]["metrics"],
                     "numOutputRows": progress["sink"]["numOutputRows"],
                     "attribute": shape(progress.sink.description, workdir),
                     "source_metrics": progress["sources"][0]["metrics"],
                     "in_json": sorted(json.loads(progress.json)["sink"])}
    print(json.dumps(out))


if __name__ == "__main__":
    globals()[sys.argv[1]](sys.argv[2])
