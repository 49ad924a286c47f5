"""Window functions through the real PySpark Connect client (Window.partitionBy / orderBy /
rowsBetween, Column.over), checked against DuckDB running the same window query in SQL."""

import duckdb
import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import Window
from pyspark.sql import functions as F

ROWS = [("a", 1), ("a", 2), ("a", 2), ("a", None), ("b", 5), ("b", 3), (None, 7), (None, 7),
        ("c", None)]

# Spark orders NULLs first in an ascending order; DuckDB is told so.
DUCKDB_QUERY = """
SELECT k, v,
       row_number() OVER (PARTITION BY k ORDER BY v NULLS FIRST),
       rank() OVER (PARTITION BY k ORDER BY v NULLS FIRST),
       dense_rank() OVER (PARTITION BY k ORDER BY v NULLS FIRST),
       lag(v, 1, -1) OVER (PARTITION BY k ORDER BY v NULLS FIRST),
       sum(v) OVER (PARTITION BY k ORDER BY v NULLS FIRST ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
       count(v) OVER (PARTITION BY k ORDER BY v NULLS FIRST
                      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
       sum(v) OVER (PARTITION BY k ORDER BY v NULLS FIRST),
       max(v) OVER (PARTITION BY k)
FROM t
"""


def canonical(rows):
    return sorted((tuple(r) for r in rows), key=repr)


def duckdb_rows():
    con = duckdb.connect()
    con.execute("CREATE TABLE t (k VARCHAR, v INTEGER)")
    con.executemany("INSERT INTO t VALUES (?, ?)", ROWS)
    return canonical([tuple(None if x is None else int(x) if isinstance(x, int) else x for x in r)
                      for r in con.execute(DUCKDB_QUERY).fetchall()])


def test_window_functions_agree_with_duckdb(spark):
    df = spark.createDataFrame(ROWS, "k string, v int")
    ordered = Window.partitionBy("k").orderBy("v")
    got = df.select(
        "k", "v",
        F.row_number().over(ordered),
        F.rank().over(ordered),
        F.dense_rank().over(ordered),
        F.lag("v", 1, -1).over(ordered),
        F.sum("v").over(ordered.rowsBetween(-1, 1)),
        F.count("v").over(ordered.rowsBetween(Window.unboundedPreceding, Window.currentRow)),
        F.sum("v").over(ordered),
        F.max("v").over(Window.partitionBy("k")),
    ).collect()
    assert canonical(got) == duckdb_rows()


def test_with_column_and_filter_on_a_window(spark):
    df = spark.createDataFrame(ROWS, "k string, v int")
    latest = (df.withColumn("n", F.row_number().over(Window.partitionBy("k").orderBy(F.desc("v"))))
              .filter("n = 1").select("k", "v"))
    con = duckdb.connect()
    con.execute("CREATE TABLE t (k VARCHAR, v INTEGER)")
    con.executemany("INSERT INTO t VALUES (?, ?)", ROWS)
    want = con.execute("SELECT k, v FROM (SELECT k, v, row_number() OVER (PARTITION BY k ORDER BY "
                       "v DESC NULLS LAST) AS n FROM t) WHERE n = 1").fetchall()
    assert canonical(latest.collect()) == canonical(want)


def test_ranking_without_order_is_refused(spark):
    df = spark.createDataFrame(ROWS, "k string, v int")
    with pytest.raises(AnalysisException, match="requires window to be ordered"):
        df.select(F.row_number().over(Window.partitionBy("k"))).collect()


def test_window_on_a_stream_is_refused(spark):
    ticks = spark.readStream.format("rate").load()
    ranked = ticks.select(F.row_number().over(Window.orderBy("value")).alias("n"))
    with pytest.raises(AnalysisException, match="NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING"):
        ranked.writeStream.format("memory").queryName("ranked").start()
