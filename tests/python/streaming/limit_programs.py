"""Streaming limits (Spark's StreamingGlobalLimitExec) that run unchanged on Ember and on the real
Spark (`python limit_programs.py NAME WORKDIR ENGINE`), for test_stream_limit.py. Each prints one
JSON document on its last line."""

import json
import os
import sys

from programs import ENGINE, session, write_file  # noqa: F401  (activates Ember for ENGINE ember)


def limit_state(query):
    """The globalLimit entries of each progress of a run that read rows or had state."""
    return [[{k: op[k] for k in ("operatorName", "numRowsTotal", "numRowsUpdated", "numRowsRemoved",
                                 "numShufflePartitions", "numStateStoreInstances")}
             for op in p["stateOperators"]]
            for p in query.recentProgress if p["numInputRows"] > 0]


def append(workdir):
    """limit(5) in append mode: one file a batch (maxFilesPerTrigger 1) over three runs on one
    checkpoint, so the count of rows emitted so far must come back from the state after each
    restart; once 5 rows went out, nothing more is emitted."""
    spark = session()
    data = os.path.join(workdir, "in")
    os.makedirs(data)
    checkpoint = os.path.join(workdir, "cp")
    batches = {}

    def collect(df, batch_id):
        batches[str(batch_id)] = [r.k for r in df.collect()]

    def run():
        query = (spark.readStream.schema("k INT").option("maxFilesPerTrigger", 1).json(data)
                 .where("k % 10 != 9").limit(5)
                 .writeStream.foreachBatch(collect).option("checkpointLocation", checkpoint)
                 .trigger(availableNow=True).start())
        query.awaitTermination()
        return limit_state(query)

    write_file(data, "a.json", [{"k": i} for i in range(3)], 1000)
    progress = [run()]
    write_file(data, "b.json", [{"k": i} for i in range(10, 14)], 2000)
    write_file(data, "c.json", [{"k": i} for i in range(20, 22)], 3000)
    progress.append(run())
    write_file(data, "d.json", [{"k": 30}], 4000)
    progress.append(run())
    metadata = os.listdir(os.path.join(checkpoint, "state", "0"))
    print(json.dumps({"batches": batches, "progress": progress,
                      "state_partitions": sorted(n for n in metadata if n.isdigit())}))


def modes(workdir):
    """A limit below an aggregation in complete mode keeps state (the count stops at the limit
    across batches); above one it cuts each batch's whole result; update mode is refused."""
    spark = session()
    data = os.path.join(workdir, "in")
    os.makedirs(data)
    out = {}

    def stream():
        return spark.readStream.schema("k INT").option("maxFilesPerTrigger", 1).json(data)

    def run(name, df):
        query = (df.writeStream.outputMode("complete").format("memory").queryName(name)
                 .option("checkpointLocation", os.path.join(workdir, name))
                 .trigger(availableNow=True).start())
        query.awaitTermination()
        out[name] = {"rows": sorted(tuple(r) for r in spark.table(name).collect()),
                     "operators": [op["operatorName"] for op in query.lastProgress["stateOperators"]]}

    write_file(data, "a.json", [{"k": i % 3} for i in range(3)], 1000)
    write_file(data, "b.json", [{"k": i % 3} for i in range(4)], 2000)
    run("below", stream().limit(4).groupBy().count())
    run("above", stream().groupBy("k").count().limit(2))
    out["above"]["rows"] = len(out["above"]["rows"])  # which two groups is Spark's choice
    try:
        stream().limit(2).writeStream.outputMode("update").format("noop").start()
        out["update"] = None
    except Exception as e:  # noqa: BLE001 - the class and message are compared
        out["update"] = [type(e).__name__, str(e).split("\n")[0]]
    print(json.dumps(out))


if __name__ == "__main__":
    globals()[sys.argv[1]](sys.argv[2])
