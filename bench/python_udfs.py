"""Python UDFs and functions of groups over a million rows, Ember against Spark on the same
PySpark program:

    .venv/bin/python bench/python_udfs.py [--rows 1000000] [--runs 3]

Each engine runs in a process of its own (Ember: its Spark Connect server in that process,
`ember.connect.activate()`, and PySpark's own client; Spark: classic PySpark on local[*], its
Python workers on this interpreter). Each workload maps a million doubles through one function
and sums the results, so only the function's path counts; the best of `--runs` runs is kept,
after one warm-up run on a thousand rows. `apply_in_pandas` sums each of a thousand groups with
`applyInPandas`, `udtf` maps them through a Python UDTF (`LATERAL scaled(v)` in SQL, a row per
row), `grouped_agg_pandas_udf` with a grouped-aggregate pandas_udf in
`groupBy().agg()`; `apply_in_pandas_with_state` streams the million rows (ten parquet files, one
per micro-batch, Trigger.AvailableNow) through `applyInPandasWithState`, a running count and sum
per key kept in the state store, into a parquet sink. "Python alone" is the same function called
in a plain Python loop over the same values (pandas: once over one Series; per group over the
groups of one pandas groupby): the floor no engine can beat, and how much of each engine's time
is the user's function itself. Prints a Markdown table."""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

WORKLOADS = ("udf", "arrow_udf", "pandas_udf", "udtf", "grouped_agg_pandas_udf",
             "apply_in_pandas", "apply_in_pandas_with_state")
KEYS = 1000  # groups of the group workloads
FILES = 10   # parquet files, micro-batches, of the stream


def write_events(directory, rows):
    """`rows` events (k: one of KEYS users, v: a double) in FILES parquet files."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    os.makedirs(directory, exist_ok=True)
    per_file = rows // FILES
    for f in range(FILES):
        ids = range(f * per_file, (f + 1) * per_file)
        table = pa.table({"k": [f"u{i % KEYS}" for i in ids], "v": [float(i) for i in ids]})
        pq.write_table(table, os.path.join(directory, f"part-{f:02d}.parquet"))
        os.utime(os.path.join(directory, f"part-{f:02d}.parquet"), (1_700_000_000 + f,) * 2)


def running_total(key, frames, state):
    import pandas as pd

    n, s = state.get if state.exists else (0, 0.0)
    for frame in frames:
        n += len(frame)
        s += float(frame.v.sum())
    state.update((n, s))
    yield pd.DataFrame({"k": [key[0]], "n": [n], "s": [s]})


def child(engine, rows, runs, events):
    if engine == "ember":
        import ember.connect

        ember.connect.activate()
    else:
        os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    # As bench/workloads.py: a shuffle partition per core on both engines (the state store's
    # partitions too).
    builder = (SparkSession.builder.appName("python-udfs")
               .config("spark.sql.shuffle.partitions", str(os.cpu_count())))
    if engine == "spark":
        builder = (builder.master("local[*]").config("spark.ui.enabled", "false")
                   .config("spark.driver.memory", "4g"))
    spark = builder.getOrCreate()

    def scale(v):
        return v * 2.0 + 1.0

    functions = {
        "udf": F.udf(scale, "double"),
        "arrow_udf": F.udf(scale, "double", useArrow=True),
        "pandas_udf": F.pandas_udf(lambda s: s * 2.0 + 1.0, "double"),
    }
    expected = sum(scale(float(i)) for i in range(rows))

    def once(function, n):
        values = spark.range(n).select(F.col("id").cast("double").alias("v"))
        return values.select(function("v").alias("r")).agg(F.sum("r")).collect()[0][0]

    def group_sums(n):
        import pandas as pd

        values = spark.range(n).select((F.col("id") % KEYS).alias("k"),
                                       F.col("id").cast("double").alias("v"))
        sums = values.groupBy("k").applyInPandas(
            lambda pdf: pd.DataFrame({"k": [pdf.k.iloc[0]], "s": [pdf.v.sum()]}), "k LONG, s DOUBLE")
        return sums.agg(F.sum("s")).collect()[0][0]

    from pyspark.util import PythonEvalType

    series_sum = F.pandas_udf(lambda v: float(v.sum()), "double",
                              PythonEvalType.SQL_GROUPED_AGG_PANDAS_UDF)

    def group_aggregates(n):
        values = spark.range(n).select((F.col("id") % KEYS).alias("k"),
                                       F.col("id").cast("double").alias("v"))
        return values.groupBy("k").agg(series_sum("v").alias("s")).agg(F.sum("s")).collect()[0][0]

    class Scaled:
        def eval(self, v):
            yield scale(v),

    spark.udtf.register("scaled", F.udtf(Scaled, returnType="r double"))

    def table_function_sum(n):
        spark.range(n).select(F.col("id").cast("double").alias("v")).createOrReplaceTempView(
            "udtf_values")
        return spark.sql("SELECT sum(r) FROM udtf_values, LATERAL scaled(v)").collect()[0][0]

    run_number = [0]

    def stream_totals(directory):
        from pyspark.sql.streaming.state import GroupStateTimeout

        run_number[0] += 1
        work = f"{directory}-{engine}-{run_number[0]}"
        query = (spark.readStream.schema("k STRING, v DOUBLE").option("maxFilesPerTrigger", 1)
                 .parquet(directory).groupBy("k")
                 .applyInPandasWithState(running_total, "k STRING, n LONG, s DOUBLE",
                                         "n LONG, s DOUBLE", "append", GroupStateTimeout.NoTimeout)
                 .writeStream.format("parquet").option("path", work + "/out")
                 .option("checkpointLocation", work + "/cp").trigger(availableNow=True).start())
        query.awaitTermination()
        finals = spark.read.parquet(work + "/out").groupBy("k").agg(F.max("s").alias("s"))
        return finals.agg(F.sum("s")).collect()[0][0]

    # Each workload: (run on n rows, the sum it must give for `rows`).
    workloads = {name: (lambda n, f=function: once(f, n), expected)
                 for name, function in functions.items()}
    workloads["udtf"] = (table_function_sum, expected)
    workloads["grouped_agg_pandas_udf"] = (group_aggregates, float(sum(range(rows))))
    workloads["apply_in_pandas"] = (group_sums, float(sum(range(rows))))
    workloads["apply_in_pandas_with_state"] = (
        lambda n: stream_totals(events + ("/large" if n == rows else "/small")),
        float(sum(range(rows))))
    seconds = {}
    for name, (workload, want) in workloads.items():
        workload(1000)
        best = None
        for _ in range(runs):
            start = time.perf_counter()
            total = workload(rows)
            elapsed = time.perf_counter() - start
            if total != want:
                raise SystemExit(f"{engine} {name}: sum {total} != {want}")
            best = elapsed if best is None else min(best, elapsed)
        seconds[name] = best
    spark.stop()
    return seconds


def python_alone(rows):
    import pandas as pd

    values = [float(i) for i in range(rows)]

    def scale(v):
        return v * 2.0 + 1.0

    start = time.perf_counter()
    sum(scale(v) for v in values)
    rows_seconds = time.perf_counter() - start

    def scaled(v):  # a UDTF's eval
        yield scale(v),

    start = time.perf_counter()
    sum(r for v in values for (r,) in scaled(v))
    table_seconds = time.perf_counter() - start
    series = pd.Series(values)
    start = time.perf_counter()
    (series * 2.0 + 1.0).sum()
    series_seconds = time.perf_counter() - start
    frame = pd.DataFrame({"k": [i % KEYS for i in range(rows)], "v": values})
    start = time.perf_counter()
    for _, group in frame.groupby("k"):
        pd.DataFrame({"k": [group.k.iloc[0]], "s": [group.v.sum()]})
    groups_seconds = time.perf_counter() - start
    start = time.perf_counter()
    for _, group in frame.groupby("k"):
        float(group.v.sum())
    aggregate_seconds = time.perf_counter() - start

    class State:  # GroupState's part that the function uses
        exists, get = False, None

        def update(self, value):
            self.exists, self.get = True, value

    states = {}
    per_file = rows // FILES
    start = time.perf_counter()
    for f in range(FILES):
        part = frame.iloc[f * per_file:(f + 1) * per_file]
        for key, group in part.groupby("k"):
            list(running_total((key,), iter([group]), states.setdefault(key, State())))
    state_seconds = time.perf_counter() - start
    return {"udf": rows_seconds, "arrow_udf": rows_seconds, "pandas_udf": series_seconds,
            "udtf": table_seconds,
            "grouped_agg_pandas_udf": aggregate_seconds, "apply_in_pandas": groups_seconds, "apply_in_pandas_with_state": state_seconds}


def sample_tree_rss(proc, peak):
    """The largest sum of resident memory (KB) of `proc` and its descendants (Spark's JVM and
    Python workers), sampled every 50 ms until it exits."""
    while proc.poll() is None:
        children = {}
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    with open(f"/proc/{pid}/stat") as f:
                        parent = int(f.read().rsplit(")", 1)[1].split()[1])
                    children.setdefault(parent, []).append(int(pid))
                except (OSError, ValueError, IndexError):
                    pass
        total, todo = 0, [proc.pid]
        while todo:
            pid = todo.pop()
            todo.extend(children.get(pid, []))
            try:
                with open(f"/proc/{pid}/status") as f:
                    total += next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
            except (OSError, StopIteration):
                pass
        peak[0] = max(peak[0], total)
        time.sleep(0.05)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--engine", choices=("ember", "spark"))  # the child's side
    parser.add_argument("--events")  # the child's: where the stream's files are
    args = parser.parse_args()
    if args.engine:
        print(json.dumps(child(args.engine, args.rows, args.runs, args.events)))
        return
    events = tempfile.mkdtemp(prefix="ember-bench-udfs-")
    write_events(events + "/large", args.rows)
    write_events(events + "/small", 1000)
    results = {}
    for engine in ("ember", "spark"):
        proc = subprocess.Popen(
            [sys.executable, __file__, "--engine", engine, "--rows", str(args.rows),
             "--runs", str(args.runs), "--events", events], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env={k: v for k, v in os.environ.items() if k != "SPARK_REMOTE"})
        peak = [0]
        sampler = threading.Thread(target=sample_tree_rss, args=(proc, peak), daemon=True)
        sampler.start()
        out = proc.stdout.read()
        proc.wait()
        sampler.join()
        if proc.returncode != 0:
            raise SystemExit(f"{engine} failed: {out.decode()[-2000:]}")
        results[engine] = (json.loads(out.decode().strip().splitlines()[-1]), peak[0] / 1024)
    shutil.rmtree(events)
    floor = python_alone(args.rows)
    (ember, ember_mb), (spark, spark_mb) = results["ember"], results["spark"]
    print(f"{args.rows:,} rows, best of {args.runs}; peak resident memory of the whole process tree: "
          f"Ember {ember_mb:.0f} MB, Spark {spark_mb:.0f} MB ({ember_mb / spark_mb:.2f}x)\n")
    print("| Function | Ember s | Spark s | Ember rows/s | Spark rows/s | Ember/Spark speed | "
          "Python alone s | function's share of Ember's time |")
    print("|---|---|---|---|---|---|---|---|")
    for name in WORKLOADS:
        e, s, p = ember[name], spark[name], floor[name]
        print(f"| `{name}` | {e:.2f} | {s:.2f} | {args.rows / e:,.0f} | {args.rows / s:,.0f} | "
              f"{s / e:.1f}x | {p:.2f} | {min(p / e, 1.0):.0%} |")


if __name__ == "__main__":
    main()
