"""Start-up stays light: a PySpark program of simple types runs without importing pyarrow (and
numpy, pandas with it) or the streaming module, and the core's own conversions give what the
pyarrow path gives."""

import os
import subprocess
import sys

import pytest

from ember.sql import SparkSession
from ember.sql import session as session_module
from ember.sql.dataframe import _rows

PROGRAM = """
import sys
import ember
ember.activate()
from pyspark.sql import SparkSession, functions as F
spark = SparkSession.builder.master("local[*]").appName("t").getOrCreate()
df = spark.createDataFrame([(i % 7, float(i), str(i), i % 2 == 0) for i in range(100)],
                           "k INT, v DOUBLE, s STRING, b BOOLEAN")
rows = df.groupBy("k").agg(F.sum("v").alias("total"), F.max("s").alias("s")).orderBy("k").collect()
print(rows[0])
lits = df.select(F.lit(1), F.lit(2**40), F.lit(0.5), F.lit("x"), F.lit(True), F.lit(None))
print(lits.first())
print(sorted(m for m in ("pyarrow", "numpy", "pandas", "ember.sql.streaming") if m in sys.modules))
"""


def test_simple_program_imports_neither_pyarrow_nor_streaming():
    out = subprocess.run([sys.executable, "-c", PROGRAM], check=True, capture_output=True,
                         text=True, env={**os.environ, "TZ": "UTC"}).stdout.splitlines()
    # Literals get PySpark's types: int, bigint past 32 bits (named with an L), double, string,
    # boolean, void.
    assert out == ["Row(k=0, total=735.0, s='98')",
                   "Row(1=1, 1099511627776L=1099511627776, 0.5=0.5, x='x', true=True, NULL=None)",
                   "[]"]


TIMESTAMP_PROGRAM = """
import sys
import ember
ember.activate()
from pyspark.sql import SparkSession, functions as F
spark = SparkSession.builder.getOrCreate()
df = spark.createDataFrame([("2026-01-01 10:00:00",)], "s STRING")
print(df.select(F.col("s").cast("timestamp").alias("t")).collect())
print("pandas" in sys.modules)
"""


def test_collecting_timestamps_does_not_import_pandas():
    """Timestamps are converted with pyarrow, but not through pa.table(), which imports pandas."""
    out = subprocess.run([sys.executable, "-c", TIMESTAMP_PROGRAM], check=True, capture_output=True,
                         text=True, env={**os.environ, "TZ": "UTC"}).stdout.splitlines()
    assert out == ["[Row(t=datetime.datetime(2026, 1, 1, 10, 0))]", "False"]


@pytest.fixture(scope="module")
def spark():
    return SparkSession.builder.getOrCreate()


CASES = [
    ([(1, 2.5, "a", True)], "a INT, b DOUBLE, c STRING, d BOOLEAN"),
    ([(None, None, None, None)], "a INT, b DOUBLE, c STRING, d BOOLEAN"),
    ([("héllo ✓ 😀", float("nan"))], "a STRING, b DOUBLE"),
    ([(-128, -32768, -(2**63))], "a TINYINT, b SMALLINT, c BIGINT"),
    ([(1, 2)], "a INT, b DOUBLE"),  # an int for a double: pyarrow converts it
    ([(1.5, 2.0)], "a INT, b DOUBLE"),
    ([(2**31, 1.0)], "a INT, b DOUBLE"),  # the errors are pyarrow's
    ([(2**63, 1.0)], "a BIGINT, b DOUBLE"),
    ([(True, 2.0)], "a INT, b DOUBLE"),
    ([(1, 2.0)], "a BOOLEAN, b DOUBLE"),
    ([(1, 2.0)], "a STRING, b DOUBLE"),
    ([("\ud800", 2.0)], "a STRING, b DOUBLE"),
    ([(127, 40000)], "a TINYINT, b SMALLINT"),
    ([], "a INT, b STRING"),
    ([(None,)], "a INT NOT NULL"),
    ([(1, 2, 3)], "a INT, b INT"),
    ([(1,)], "a INT, b INT"),
    ([1, 2, None], "int"),
    ([(1, 2.0, "s")], None),
]


def outcome(spark, data, schema):
    try:
        df = spark.createDataFrame(data, schema)
        rows = df.collect()
        return repr(df.schema), repr(rows), [[type(v) for v in r] for r in rows]
    except Exception as error:
        return type(error), str(error)


@pytest.mark.parametrize("data,schema", CASES)
def test_core_conversion_of_rows_matches_pyarrow(spark, monkeypatch, data, schema):
    fast = outcome(spark, data, schema)
    monkeypatch.setattr(session_module, "_CORE_TYPE_NAMES", {})
    assert fast == outcome(spark, data, schema)


@pytest.mark.parametrize("query", [
    "SELECT 1 AS a, CAST(NULL AS INT) b, CAST(0.1 AS FLOAT) c, 'héllo' d, true e, "
    "CAST(1 AS TINYINT) f, CAST(-3 AS SMALLINT) g, NULL n, CAST(1 AS BIGINT) h, "
    "CAST('NaN' AS DOUBLE) i",
    "SELECT 1 AS a LIMIT 0",
    "SELECT DATE '2020-01-01' d, 1 x",  # a date column: pyarrow's path
])
def test_core_conversion_of_results_matches_pyarrow(spark, query):
    df = spark.sql(query)
    rows, expected = df.collect(), _rows(df.toArrow())
    assert repr(rows) == repr(expected)
    assert [[type(v) for v in r] for r in rows] == [[type(v) for v in r] for r in expected]
