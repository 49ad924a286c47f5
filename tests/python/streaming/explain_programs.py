"""explain() of streaming DataFrames and queries, run unchanged on Ember and on the real Spark
(`python explain_programs.py NAME WORKDIR ENGINE`), for test_stream_explain.py. Prints one JSON
document on its last line: each explain's text."""

import contextlib
import io
import json
import os
import sys

from programs import ENGINE, session, write_file  # noqa: F401  (activates Ember for ENGINE ember)


def explained(explain):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        explain()
    return out.getvalue()


def plans(workdir):
    spark = session()
    data = os.path.join(workdir, "in")
    os.makedirs(data)
    write_file(data, "a.json", [{"k": 1, "ts": "2024-01-01 00:00:00"}], 1000)
    stream = spark.readStream.schema("k INT, ts TIMESTAMP").json(data)
    out = {
        "limit": explained(stream.where("k > 0").limit(3).explain),
        "aggregate": explained(stream.groupBy("k").count().explain),
        "dedup": explained(stream.withWatermark("ts", "1 minute").dropDuplicates(["k", "ts"]).explain),
    }
    query = (stream.where("k > 0").limit(3).writeStream.format("noop")
             .option("checkpointLocation", os.path.join(workdir, "cp")).start())
    out["query before"] = explained(query.explain) if not query.recentProgress else "raced"
    query.processAllAvailable()
    out["query"] = explained(query.explain)
    query.stop()
    print(json.dumps(out))


if __name__ == "__main__":
    globals()[sys.argv[1]](sys.argv[2])
