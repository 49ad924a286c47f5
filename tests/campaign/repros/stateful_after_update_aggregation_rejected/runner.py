"""Runs campaign scenarios on one engine and records what the engine did, as JSON.

A scenario is a directory: `scenario.json` (the runs: which input files arrive before each run,
the trigger, how to wait; the output mode and the sink), `query.py` (the PySpark query, a function
`query(spark, source)` returning a streaming DataFrame) and `inputs/` (the files). Each run is a
new query on the same checkpoint, started after that run's files were copied into the source
directory with the scenario's modification times.

    python runner.py ENGINE SCENARIO_DIR WORK_DIR OUT_JSON   one scenario
    python runner.py --serve ENGINE WORK_ROOT                scenario directories on stdin, one a
                                                              line; one session for all of them

ENGINE is `spark` (pyspark with Iceberg's runtime) or `ember` (`ember.activate()` first, so the very
same `import pyspark` code runs on Ember). This file is standalone: reproductions carry a copy.
"""

import datetime
import decimal
import json
import math
import os
import shutil
import sys
import traceback

ICEBERG_JAR = os.path.expanduser(
    "~/.m2/repository/org/apache/iceberg/iceberg-spark-runtime-4.0_2.13/1.10.0/"
    "iceberg-spark-runtime-4.0_2.13-1.10.0.jar")


def start_session(engine, warehouse):
    if engine == "ember":
        import ember

        ember.activate()
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master("local[2]").appName("campaign")
               .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
               .config("spark.sql.catalog.local.type", "hadoop")
               .config("spark.sql.catalog.local.warehouse", warehouse)
               # foreachBatch writes through the stream's session: no stale cached tables
               .config("spark.sql.catalog.local.cache-enabled", "false")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.shuffle.partitions", "2"))
    if engine == "spark":
        builder = (builder.config("spark.jars", ICEBERG_JAR)
                   .config("spark.sql.extensions",
                           "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
                   .config("spark.ui.enabled", "false")
                   .config("spark.ui.showConsoleProgress", "false")
                   .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
                   # Filters pushed into the JSON parser make Spark's numInputRows count only
                   # the rows that pass them; without it, every row read counts, as in Ember
                   # (docs/compatibility.md).
                   .config("spark.sql.json.filterPushdown.enabled", "false"))
    spark = builder.getOrCreate()
    if engine == "spark":
        spark.sparkContext.setLogLevel("ERROR")
    return spark


def plain(value):
    """A value as JSON: rows and structs as lists, times as ISO text, floats rounded to 9 places."""
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    if isinstance(value, float):
        return repr(value) if math.isnan(value) or math.isinf(value) else round(value, 9)
    if isinstance(value, decimal.Decimal):
        return str(value)
    return value


def sorted_rows(rows):
    """A multiset of rows in a canonical order."""
    return sorted((plain(r) for r in rows), key=lambda r: json.dumps(r))


def describe_error(error):
    condition = None
    if hasattr(error, "getCondition"):
        try:
            condition = error.getCondition()
        except Exception:  # noqa: BLE001 - some pyspark errors have no condition
            condition = None
    return {"type": type(error).__name__, "condition": condition,
            "message": str(error)[:3000]}


def progress_dict(progress):
    if isinstance(progress, dict):
        return progress
    return json.loads(progress.json)


def committed_batches(checkpoint):
    commits = os.path.join(checkpoint, "commits")
    if not os.path.isdir(commits):
        return set()
    return {int(n) for n in os.listdir(commits) if n.isdigit()}


def batch_numbers(progress):
    """The progress numbers the campaign compares, from one progress entry."""
    operators = progress.get("stateOperators") or []
    return {"batchId": progress.get("batchId"),
            "numInputRows": progress.get("numInputRows"),
            "numRowsDroppedByWatermark":
                operators[0].get("numRowsDroppedByWatermark") if operators else None,
            "watermark": (progress.get("eventTime") or {}).get("watermark")}


def read_table(spark, table):
    try:
        df = spark.table(table)
        return {"columns": list(df.columns), "rows": sorted_rows(df.collect())}
    except Exception as error:  # noqa: BLE001 - a missing table is a result too
        return {"error": describe_error(error)}


def run_scenario(spark, scenario_dir, work):
    """Every run of the scenario; stops at the first run that fails."""
    from pyspark.sql import functions as F

    with open(os.path.join(scenario_dir, "scenario.json")) as f:
        scenario = json.load(f)
    with open(os.path.join(scenario_dir, "query.py")) as f:
        code = f.read()
    namespace = {}
    exec(compile(code, os.path.join(scenario_dir, "query.py"), "exec"), namespace)
    query = namespace["query"]

    name = scenario["name"]
    source, checkpoint = os.path.join(work, "source"), os.path.join(work, "checkpoint")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(source)
    table = f"local.{name}.out"
    sink, mode = scenario["sink"], scenario["output_mode"]
    if sink in ("table", "foreach_batch_iceberg"):
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS local.{name}")
    table_created = [False]
    result = {"name": name, "runs": []}

    for run in scenario["runs"]:
        for file in run["files"]:
            target = os.path.join(source, file["name"])
            shutil.copyfile(os.path.join(scenario_dir, "inputs", file["name"]), target)
            os.utime(target, (file["mtime"], file["mtime"]))
        before = committed_batches(checkpoint)
        collected = []
        record = {}
        try:
            df = query(spark, source)
            record["schema"] = df.schema.simpleString()
            if scenario.get("create_table") and not table_created[0]:
                columns = ", ".join(f"{f.name} {f.dataType.simpleString()}" for f in df.schema.fields)
                spark.sql(f"CREATE TABLE {table} ({columns}) USING iceberg")
                table_created[0] = True
            writer = df.writeStream.outputMode(mode).option("checkpointLocation", checkpoint)
            if sink == "memory":
                writer = writer.format("memory").queryName(name)
            elif sink == "foreach_batch":
                def collect(batch_df, batch_id):
                    collected.append([batch_id, sorted_rows(batch_df.collect())])
                writer = writer.foreachBatch(collect)
            elif sink == "foreach_batch_iceberg":
                def to_iceberg(batch_df, batch_id):
                    out = batch_df.withColumn("batch_id", F.lit(batch_id).cast("long"))
                    if table_created[0]:
                        out.writeTo(table).append()
                    else:
                        out.writeTo(table).create()
                        table_created[0] = True
                writer = writer.foreachBatch(to_iceberg)
            if run["trigger"] == "availableNow":
                writer = writer.trigger(availableNow=True)
            elif run["trigger"] == "once":
                writer = writer.trigger(once=True)
            q = writer.toTable(table) if sink == "table" else writer.start()
            try:
                if run["wait"] == "processAllAvailable":
                    q.processAllAvailable()
                elif run["wait"] == "awaitTermination":
                    q.awaitTermination()
                else:
                    q.awaitTermination(300)
            finally:
                q.stop()
            if q.exception() is not None:
                raise q.exception()
            executed = sorted(committed_batches(checkpoint) - before)
            last = {}
            for p in q.recentProgress:
                p = progress_dict(p)
                last[p.get("batchId")] = p
            record["batches"] = [batch_numbers(last[b]) if b in last else {"batchId": b, "missing": True}
                                 for b in executed]
            if sink == "memory":
                out = spark.sql(f"SELECT * FROM {name}")
                record["memory"] = {"columns": list(out.columns), "rows": sorted_rows(out.collect())}
            elif sink == "foreach_batch":
                record["output"] = collected
            else:
                record["table"] = read_table(spark, table)
        except Exception as error:  # noqa: BLE001 - an error is the run's result
            record["error"] = describe_error(error)
            record["traceback"] = traceback.format_exc()[-4000:]
        result["runs"].append(record)
        if "error" in record:
            break
    return result


def serve(engine, root):
    """Scenario directories on stdin; prints `@@DONE <result.json>` after each."""
    os.makedirs(root, exist_ok=True)
    spark = start_session(engine, os.path.join(root, "warehouse"))
    print("@@READY", flush=True)
    for line in sys.stdin:
        scenario_dir = line.strip()
        if not scenario_dir:
            continue
        name = os.path.basename(scenario_dir.rstrip("/"))
        work = os.path.join(root, name)
        result = run_scenario(spark, scenario_dir, work)
        out = os.path.join(root, f"{name}.result.json")
        with open(out, "w") as f:
            json.dump(result, f, indent=1)
        shutil.rmtree(work, ignore_errors=True)
        print(f"@@DONE {out}", flush=True)


def main(argv):
    if argv[0] == "--serve":
        serve(argv[1], argv[2])
        return
    engine, scenario_dir, work, out = argv
    spark = start_session(engine, os.path.join(work, "warehouse"))
    result = run_scenario(spark, scenario_dir, os.path.join(work, "run"))
    with open(out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    os.environ["TZ"] = "UTC"
    import time

    time.tzset()
    main(sys.argv[1:])
