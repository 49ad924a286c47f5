"""approx_count_distinct: Ember's HyperLogLog++ estimates equal the real Spark's, exactly.

The oracle is Spark itself: the `engine` fixture runs each test on Spark first, which records its
answers, then on Ember, which must give the same numbers (the Ember run skips when Spark did not
run). An estimate is not an exact count, so DuckDB only checks that the estimates of large
cardinalities are within the error bound of the exact ones.

Batch: ints, longs, strings, doubles, dates, timestamps and decimals, each value twice and with
NULLs, at cardinalities 0, 1, 10, 100, 1000, 5000 and 100000, for rsd default (0.05), 0.01 and
0.1; grouped and global; DataFrame API and SQL.
Streaming: grouped and global aggregations in update, complete and append mode over several
micro-batches and a restart from the checkpoint; every batch's output equals Spark's.
"""

import datetime as dt
import json
import math
import os
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

CARDINALITIES = [0, 1, 10, 100, 1000, 5000, 100_000]
RSDS = [None, 0.01, 0.1]
COLUMNS = ["i", "l", "s", "d", "dt", "ts", "dec"]
EPOCH = dt.datetime(1970, 1, 1)


def value_table() -> pa.Table:
    """For each cardinality c, rows of bucket c carry the values k = 0..c-1 twice each, NULL in
    every seventh row, plus three rows of NULLs only (so bucket 0 exists and has no value)."""
    buckets, ks, nulls = [], [], []
    for c in CARDINALITIES:
        for r in range(2 * c + 3):
            buckets.append(c)
            ks.append(r // 2)
            nulls.append(r >= 2 * c or r % 7 == 3)

    def column(values, type_):
        return pa.array([None if n else v for v, n in zip(values, nulls)], type=type_)

    return pa.table({
        "c": pa.array(buckets, pa.int32()),
        "g": pa.array([r % 5 for r in range(len(ks))], pa.int32()),
        "i": column([k * 7919 - 400_000_000 for k in ks], pa.int32()),
        "l": column([k * 1_000_000_007 - 2**62 for k in ks], pa.int64()),
        "s": column([f"key-{k:x}-{k * 31 % 1000}" for k in ks], pa.string()),
        "d": column([k * 0.37 - 1000.5 for k in ks], pa.float64()),
        "dt": column([dt.date(1850, 1, 1) + dt.timedelta(days=k) for k in ks], pa.date32()),
        "ts": column([EPOCH + dt.timedelta(microseconds=k * 1_000_003 + 1_700_000_000_000_000)
                      for k in ks], pa.timestamp("us", tz="UTC")),
        "dec": column([Decimal(k * 13 - 600_000) / 100 for k in ks], pa.decimal128(12, 2)),
    })


@pytest.fixture(scope="module")
def values_parquet(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("approx") / "values.parquet")
    pq.write_table(value_table(), path)
    return path


def estimates_by_cardinality(engine, path, rsd) -> dict:
    """{(column, cardinality): estimate}; one query per column (Spark keeps a sketch as one buffer
    column per 64-bit word, so many sketches of p = 14 in one query are slow to compile)."""
    F = engine.F
    df = engine.spark.read.parquet(path)
    got = {}
    for name in COLUMNS:
        call = F.approx_count_distinct(name) if rsd is None else F.approx_count_distinct(name, rsd)
        for c, estimate in df.groupBy("c").agg(call).collect():
            got[(name, c)] = estimate
    return got


@pytest.mark.parametrize("rsd", RSDS, ids=["default", "0.01", "0.1"])
def test_batch_estimates_equal_sparks(engine, spark_answers, values_parquet, rsd):
    got = estimates_by_cardinality(engine, values_parquet, rsd)
    assert len(got) == len(COLUMNS) * len(CARDINALITIES)
    assert all(type(v) is int for v in got.values())
    spark_answers.check(engine, f"batch-{rsd}", got)
    # 0 and 1 are exact in HyperLogLog++ too (linear counting of an empty sketch, or of one
    # register set).
    for name in COLUMNS:
        assert got[(name, 0)] == 0 and got[(name, 1)] == 1


@pytest.mark.parametrize("rsd", RSDS, ids=["default", "0.01", "0.1"])
def test_large_estimates_are_within_the_error_bound_of_duckdbs_exact_counts(
        engine, values_parquet, rsd):
    import duckdb

    got = estimates_by_cardinality(engine, values_parquet, rsd)
    exact = duckdb.connect().execute(
        "SELECT c, " + ", ".join(f"count(DISTINCT {n})" for n in COLUMNS)
        + f" FROM read_parquet('{values_parquet}') WHERE c >= 5000 GROUP BY c").fetchall()
    # HLL++'s standard error is 1.04 / sqrt(m); allow four of them.
    precision = math.ceil(2 * math.log2(1.106 / (rsd or 0.05)))
    bound = 4 * 1.04 / math.sqrt(2**precision)
    assert len(exact) == 2
    for c, *counts in exact:
        for name, count in zip(COLUMNS, counts):
            assert abs(got[(name, c)] - count) <= bound * count, (name, c, got[(name, c)], count)


def test_grouped_and_sql_estimates_equal_sparks(engine, spark_answers, values_parquet):
    F = engine.F
    df = engine.spark.read.parquet(values_parquet)
    grouped = (df.groupBy("g").agg(F.approx_count_distinct("s").alias("s"),
                                   F.approx_count_distinct("l", 0.02).alias("l"),
                                   F.approx_count_distinct("d", rsd=0.3).alias("d"))
               .orderBy("g"))
    rows = [tuple(r) for r in grouped.collect()]
    df.createOrReplaceTempView("approx_values")
    sql = engine.spark.sql(
        "SELECT approx_count_distinct(i, 0.05), approx_count_distinct(ts, 0.02D), "
        "approx_count_distinct(DISTINCT dt), approx_count_distinct(dec, 0.2), "
        "approx_count_distinct(CAST(NULL AS INT)) FROM approx_values")
    answer = {"grouped": rows, "sql": [tuple(r) for r in sql.collect()],
              "sql_columns": sql.dtypes, "grouped_columns": grouped.dtypes}
    spark_answers.check(engine, "grouped-sql", answer)


def test_zero_nan_and_empty_input(engine, spark_answers):
    """-0.0 counts as 0.0 and every NaN as one value; no rows give 0."""
    spark, F = engine.spark, engine.F
    df = spark.createDataFrame([(0.0,), (-0.0,), (float("nan"),), (float("nan"),), (1.0,), (None,)],
                               "x DOUBLE")
    rows = [tuple(r) for r in df.agg(F.approx_count_distinct("x")).collect()]
    empty = [tuple(r) for r in df.where("x < -5").agg(F.approx_count_distinct("x")).collect()]
    grouped_empty = df.where("x < -5").groupBy("x").agg(F.approx_count_distinct("x")).collect()
    spark_answers.check(engine, "special", (rows, empty, len(grouped_empty)))
    assert rows == [(3,)] and empty == [(0,)]


def error_of(action):
    try:
        action()
    except Exception as error:  # the engines' AnalysisException classes differ
        condition = error.getCondition() if hasattr(error, "getCondition") else None
        return type(error).__name__, condition, str(error).split(";")[0].split("\n")[0]
    return None


def test_invalid_rsd_fails_as_in_spark(engine, spark_answers):
    spark, F = engine.spark, engine.F
    spark.createDataFrame([(1,)], "x INT").createOrReplaceTempView("approx_one")
    errors = [
        error_of(lambda: spark.createDataFrame([(1,)], "x INT")
                 .agg(F.approx_count_distinct("x", 0.5)).collect()),
        error_of(lambda: spark.sql("SELECT approx_count_distinct(x, 1) FROM approx_one").collect()),
        error_of(lambda: spark.sql("SELECT approx_count_distinct(x, x) FROM approx_one").collect()),
        error_of(lambda: spark.sql("SELECT approx_count_distinct(x, '0.1') FROM approx_one")
                 .collect()),
    ]
    assert all(e is not None for e in errors)
    spark_answers.check(engine, "errors", [(e[1], e[2]) for e in errors])


# --- streaming ------------------------------------------------------------------------------------

STREAM_SCHEMA = "g STRING, v BIGINT, s STRING, ts TIMESTAMP"


def write_batch(directory, index, first, count):
    """A JSON file of up to `count` rows: values v in [first, first + count / 2), each twice, in
    three groups (file 3 has no row of group g2, so update and complete mode differ), with
    NULLs; file i's times are minutes 3i and 3i + 1 after 10:00."""
    path = os.path.join(directory, f"part-{index:03d}.json")
    with open(path, "w") as out:
        for n in range(count):
            v = first + n // 2
            if index == 3 and v % 3 == 2:
                continue
            row = {"g": f"g{v % 3}", "v": None if n % 11 == 5 else v * 104729,
                   "s": None if n % 13 == 7 else f"s{v % 2500}",
                   "ts": f"2024-01-01T10:{3 * index + n % 2:02d}:00Z"}
            out.write(json.dumps(row) + "\n")


def run_stream(engine, source, checkpoint, mode, build):
    """Runs the query over the files present now, one file per micro-batch, and returns the rows
    of each batch, sorted, by batch id."""
    batches = {}

    def collect(df, batch_id):
        batches[batch_id] = sorted((tuple(r) for r in df.collect()),
                                   key=lambda r: tuple((x is None, str(x)) for x in r))

    stream = engine.spark.readStream.schema(STREAM_SCHEMA).option("maxFilesPerTrigger", 1)
    query = (build(stream.json(source), engine.F).writeStream.outputMode(mode)
             .foreachBatch(collect).option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).start())
    query.awaitTermination()
    return batches


def grouped(df, F):
    return df.groupBy("g").agg(F.approx_count_distinct("v").alias("v"),
                               F.approx_count_distinct("s", 0.01).alias("s"))


def global_(df, F):
    return df.agg(F.approx_count_distinct("v", 0.1).alias("v"), F.count("*").alias("n"))


def windowed(df, F):
    """Window [10:00, 10:05) closes in the first run; [10:05, 10:10) spans the restart."""
    return (df.withWatermark("ts", "1 minute")
            .groupBy(F.window("ts", "5 minutes")).agg(F.approx_count_distinct("v").alias("v")))


STREAMS = [("update", grouped), ("complete", grouped), ("complete", global_),
           ("update", global_), ("append", windowed)]


@pytest.mark.parametrize("mode,build", STREAMS,
                         ids=["update-grouped", "complete-grouped", "complete-global",
                              "update-global", "append-window"])
def test_streaming_batches_equal_sparks_across_a_restart(engine, spark_answers, tmp_path, mode,
                                                         build):
    source, checkpoint = str(tmp_path / "in"), str(tmp_path / "cp")
    os.makedirs(source)
    for index in range(3):
        write_batch(source, index, index * 1500, 4000)
    first = run_stream(engine, source, checkpoint, mode, build)
    # A restart: the state of the first run's batches comes from the checkpoint's state store.
    for index in range(3, 5):
        write_batch(source, index, index * 1500, 4000)
    second = run_stream(engine, source, checkpoint, mode, build)
    assert len(first) >= 3 and len(second) >= 2
    assert not set(first) & set(second), "the restart re-ran a committed batch"
    spark_answers.check(engine, f"stream-{mode}-{build.__name__}", (first, second))
