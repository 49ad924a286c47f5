"""Python UDFs over a million rows, Ember against Spark on the same PySpark program:

    .venv/bin/python bench/python_udfs.py [--rows 1000000] [--runs 3]

Each engine runs in a process of its own (Ember: its Spark Connect server in that process,
`ember.connect.activate()`, and PySpark's own client; Spark: classic PySpark on local[*], its
Python workers on this interpreter). Each workload maps a million doubles through one function
and sums the results, so only the function's path counts; the best of `--runs` runs is kept,
after one warm-up run on a thousand rows. "Python alone" is the same function called in a plain
Python loop over the same values (pandas: once over one Series): the floor no engine can beat,
and how much of each engine's time is the user's function itself. Prints a Markdown table."""

import argparse
import json
import os
import subprocess
import sys
import threading
import time

WORKLOADS = ("udf", "arrow_udf", "pandas_udf")


def child(engine, rows, runs):
    if engine == "ember":
        import ember.connect

        ember.connect.activate()
    else:
        os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    builder = SparkSession.builder.appName("python-udfs")
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

    seconds = {}
    for name, function in functions.items():
        once(function, 1000)
        best = None
        for _ in range(runs):
            start = time.perf_counter()
            total = once(function, rows)
            elapsed = time.perf_counter() - start
            if total != expected:
                raise SystemExit(f"{engine} {name}: sum {total} != {expected}")
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
    series = pd.Series(values)
    start = time.perf_counter()
    (series * 2.0 + 1.0).sum()
    series_seconds = time.perf_counter() - start
    return {"udf": rows_seconds, "arrow_udf": rows_seconds, "pandas_udf": series_seconds}


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
    args = parser.parse_args()
    if args.engine:
        print(json.dumps(child(args.engine, args.rows, args.runs)))
        return
    results = {}
    for engine in ("ember", "spark"):
        proc = subprocess.Popen(
            [sys.executable, __file__, "--engine", engine, "--rows", str(args.rows),
             "--runs", str(args.runs)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
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
