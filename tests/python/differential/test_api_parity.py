"""The DataFrame API surface on Ember is the same as on the real Spark.

Every test runs on both engines through the `engine` fixture and asserts the same expectations, so
the Spark run proves that each literal below is Spark's own behaviour: how createDataFrame types
its input, what show() and printSchema() print, what schema, columns, dtypes and repr(df) say,
what collect(), first(), head(), take(), count(), isEmpty() and toPandas() return, and how
spark.range, spark.conf and spark.sql behave. Where a literal would be unwieldy (pandas frames),
the Spark run records its answer in `spark_answers` and the Ember run compares with it; the spark
parameter runs first.

Query results are the other differential tests' business; here the data are a few rows.
"""

import contextlib
import datetime as dt
import io
import math
from decimal import Decimal

import pandas as pd
import pandas.testing as pdt
import pyarrow as pa
import pytest

TS1 = dt.datetime(2024, 1, 2, 3, 4, 5)
TS2 = dt.datetime(2024, 1, 2, 3, 4, 5, 123400)
D1 = dt.date(2024, 1, 2)
LONG_NAME = "a string longer than twenty characters"
PEOPLE_DDL = (
    "id BIGINT, name STRING, flag BOOLEAN, score DOUBLE, ts TIMESTAMP, d DATE, "
    "amount DECIMAL(10,2)"
)
PEOPLE_ROWS = [
    (1, "alice", True, 1.5, TS1, D1, Decimal("1.50")),
    (2, LONG_NAME, False, 1e20, TS2, D1, Decimal("-2.25")),
    (3, None, None, None, None, None, None),
    (4, "dave", True, 1.0e-7, TS1, D1, Decimal("0")),
]
ARROW_ENABLED = "spark.sql.execution.arrow.pyspark.enabled"
TIME_ZONE = "spark.sql.session.timeZone"


# --- helpers -------------------------------------------------------------------------------------


def ember_xfail(request, engine, reason: str) -> None:
    """Mark the Ember run of this test as a known difference (strict: it must still fail)."""
    if engine.name == "ember":
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))


def types_of(engine):
    if engine.name == "spark":
        from pyspark.sql import types
    else:
        from ember.sql import types
    return types


def row_class(engine):
    if engine.name == "spark":
        from pyspark.sql import Row
    else:
        from ember.sql import Row
    return Row


def stdout_of(action) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        action()
    return buffer.getvalue()


def shown(df, *args, **kwargs) -> str:
    return stdout_of(lambda: df.show(*args, **kwargs))


def people(spark):
    return spark.createDataFrame(PEOPLE_ROWS, PEOPLE_DDL)


def dicts(rows) -> list:
    return [row.asDict(recursive=True) for row in rows]


@contextlib.contextmanager
def conf_set(spark, key: str, value: str):
    """Set a session conf for the block, then put back its previous value (or unset it)."""
    try:
        previous = spark.conf.get(key)
    except Exception:
        previous = None
    spark.conf.set(key, value)
    try:
        yield
    finally:
        if previous is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, previous)


# --- createDataFrame ---------------------------------------------------------------------------


def test_create_from_tuples_with_ddl(engine):
    T = types_of(engine)
    df = people(engine.spark)
    assert df.schema == T.StructType([
        T.StructField("id", T.LongType(), True),
        T.StructField("name", T.StringType(), True),
        T.StructField("flag", T.BooleanType(), True),
        T.StructField("score", T.DoubleType(), True),
        T.StructField("ts", T.TimestampType(), True),
        T.StructField("d", T.DateType(), True),
        T.StructField("amount", T.DecimalType(10, 2), True),
    ])
    assert df.columns == ["id", "name", "flag", "score", "ts", "d", "amount"]
    assert df.collect() == [tuple(r) for r in PEOPLE_ROWS[:3]] + [
        (4, "dave", True, 1.0e-7, TS1, D1, Decimal("0.00"))
    ]
    assert str(df.collect()[3].amount) == "0.00"


def test_create_with_inferred_types(engine):
    df = engine.spark.createDataFrame(
        [(1, 2.5, "x", True, TS1, D1, Decimal("1.5"))], ["i", "f", "s", "b", "ts", "d", "dec"]
    )
    assert df.dtypes == [
        ("i", "bigint"), ("f", "double"), ("s", "string"), ("b", "boolean"),
        ("ts", "timestamp"), ("d", "date"), ("dec", "decimal(38,18)"),
    ]
    assert repr(df.schema) == (
        "StructType([StructField('i', LongType(), True), StructField('f', DoubleType(), True), "
        "StructField('s', StringType(), True), StructField('b', BooleanType(), True), "
        "StructField('ts', TimestampType(), True), StructField('d', DateType(), True), "
        "StructField('dec', DecimalType(38,18), True)])"
    )
    row = df.first()
    assert row == (1, 2.5, "x", True, TS1, D1, Decimal("1.5"))
    assert str(row.dec) == "1.500000000000000000"


def test_create_inferred_unnamed_and_nulls(engine):
    spark = engine.spark
    assert spark.createDataFrame([(1, "a")]).dtypes == [("_1", "bigint"), ("_2", "string")]
    # The type comes from all the rows: a leading NULL does not hide it.
    assert spark.createDataFrame([(None,), (1,)], ["a"]).dtypes == [("a", "bigint")]
    assert spark.createDataFrame([(1,)], "a INT").dtypes == [("a", "int")]
    assert spark.createDataFrame([1, 2], "int").collect() == [(1,), (2,)]
    assert spark.createDataFrame([1, 2], "int").columns == ["value"]
    assert spark.createDataFrame([], "a INT").collect() == []


@pytest.mark.parametrize(
    "data, names, condition",
    [
        ([], None, "CANNOT_INFER_EMPTY_SCHEMA"),
        ([(None,), (None,)], ["a"], "CANNOT_DETERMINE_TYPE"),
        ([(1,), (2.5,)], ["a"], "CANNOT_MERGE_TYPE"),
    ],
    ids=["empty", "all_null", "long_and_double"],
)
def test_create_inference_errors(engine, data, names, condition):
    with pytest.raises(Exception) as caught:
        engine.spark.createDataFrame(data, names)
    assert caught.value.getCondition() == condition, str(caught.value)


def test_create_from_dicts(engine):
    spark = engine.spark
    df = spark.createDataFrame(
        [{"name": "a", "age": 1, "z": 1.0}, {"name": "b", "age": 2, "z": None}]
    )
    # Inferred from dicts, the fields come in sorted key order.
    assert df.dtypes == [("age", "bigint"), ("name", "string"), ("z", "double")]
    assert dicts(df.collect()) == [
        {"age": 1, "name": "a", "z": 1.0}, {"age": 2, "name": "b", "z": None}
    ]
    nested = spark.createDataFrame([{"b": {"k": 1}, "a": [1]}])
    assert nested.dtypes == [("a", "array<bigint>"), ("b", "map<string,bigint>")]
    assert dicts(nested.collect()) == [{"a": [1], "b": {"k": 1}}]
    # Rows with different keys merge: keys new in a later row come last.
    merged = spark.createDataFrame([{"b": 1}, {"a": 2}])
    assert dicts(merged.collect()) == [{"b": 1, "a": None}, {"b": None, "a": 2}]
    # A schema takes the values by name; a list of names renames the sorted keys.
    by_name = spark.createDataFrame([{"b": 1, "a": "x"}], "a STRING, b INT")
    assert dicts(by_name.collect()) == [{"a": "x", "b": 1}]
    renamed = spark.createDataFrame([{"b": 1, "a": "x"}], ["p", "q"])
    assert dicts(renamed.collect()) == [{"p": "x", "q": 1}]


def test_create_from_rows(engine):
    Row = row_class(engine)
    spark = engine.spark
    df = spark.createDataFrame([Row(name="a", age=1), Row(name="b", age=None)])
    # Row(**kwargs) keeps its fields in the order given.
    assert df.dtypes == [("name", "string"), ("age", "bigint")]
    assert dicts(df.collect()) == [{"name": "a", "age": 1}, {"name": "b", "age": None}]
    Person = Row("b", "a")
    assert dicts(spark.createDataFrame([Person(1, "x")]).collect()) == [{"b": 1, "a": "x"}]
    nested = spark.createDataFrame([Row(b=Row(y=1, x=2), a=[Row(z=1)], m={"k": Row(q=1.5)})])
    assert nested.dtypes == [
        ("b", "struct<y:bigint,x:bigint>"), ("a", "array<struct<z:bigint>>"),
        ("m", "map<string,struct<q:double>>"),
    ]
    got = nested.first()
    assert got == ((1, 2), [(1,)], {"k": (1.5,)})
    assert got.b.x == 2 and got.a[0].z == 1 and got.m["k"].q == 1.5
    assert type(got.b).__name__ == "Row" and type(got.a[0]).__name__ == "Row"
    tuples = spark.createDataFrame(
        [((1, "a"), [(2, "b")])], "s STRUCT<x: INT, y: STRING>, a ARRAY<STRUCT<x: INT, y: STRING>>"
    )
    assert dicts(tuples.collect()) == [{"s": {"x": 1, "y": "a"}, "a": [{"x": 2, "y": "b"}]}]


def _pandas_frame() -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "i": [1, 2],
            "i32": pd.Series([1, 2], dtype="int32"),
            "f": [1.5, float("nan")],
            "f32": pd.Series([0.5, 2.0], dtype="float32"),
            "s": ["x", None],
            "b": [True, False],
            "ts": pd.to_datetime(["2024-01-02 03:04:05", None]),
            "tsz": pd.to_datetime(["2024-01-02 03:04:05+01:00", "2024-01-02 03:04:05+01:00"]),
            "d": [D1, None],
        }
    )
    frame.index = [7, 8]  # not a column
    return frame


def test_create_from_pandas(engine):
    spark = engine.spark
    df = spark.createDataFrame(_pandas_frame())
    # PySpark's default conversion goes row by row: integers are bigint, floats double, and NaN
    # stays NaN (it is not NULL); the index is dropped.
    assert df.dtypes == [
        ("i", "bigint"), ("i32", "bigint"), ("f", "double"), ("f32", "double"), ("s", "string"),
        ("b", "boolean"), ("ts", "timestamp"), ("tsz", "timestamp"), ("d", "date"),
    ]
    first, second = df.collect()
    assert first == (1, 1, 1.5, 0.5, "x", True, TS1, dt.datetime(2024, 1, 2, 2, 4, 5), D1)
    assert math.isnan(second.f)
    assert second[3:] == (2.0, None, False, None, dt.datetime(2024, 1, 2, 2, 4, 5), None)
    typed = spark.createDataFrame(_pandas_frame()[["i32", "s"]], "x INT, y STRING")
    assert typed.dtypes == [("x", "int"), ("y", "string")]
    assert dicts(typed.collect()) == [{"x": 1, "y": "x"}, {"x": 2, "y": None}]
    named = spark.createDataFrame(_pandas_frame()[["i", "s"]], ["p", "q"])
    assert dicts(named.collect()) == [{"p": 1, "q": "x"}, {"p": 2, "q": None}]
    with pytest.raises(Exception) as caught:
        spark.createDataFrame(pd.DataFrame({"a": pd.Series([], dtype="int64")}))
    assert caught.value.getCondition() == "CANNOT_INFER_EMPTY_SCHEMA"


def test_create_from_pandas_with_arrow(engine):
    spark = engine.spark
    with conf_set(spark, ARROW_ENABLED, "true"):
        df = spark.createDataFrame(_pandas_frame().drop(columns=["d"]))
        # Through Arrow, pandas' own types are kept and NaN becomes NULL.
        assert df.dtypes == [
            ("i", "bigint"), ("i32", "int"), ("f", "double"), ("f32", "float"),
            ("s", "string"), ("b", "boolean"), ("ts", "timestamp"), ("tsz", "timestamp"),
        ]
        rows = df.collect()
    assert rows[0] == (1, 1, 1.5, 0.5, "x", True, TS1, dt.datetime(2024, 1, 2, 2, 4, 5))
    assert rows[1] == (2, 2, None, 2.0, None, False, None, dt.datetime(2024, 1, 2, 2, 4, 5))


def _arrow_table() -> pa.Table:
    return pa.table({
        "a": pa.array([1, 2], pa.int32()),
        "b": pa.array([1.5, float("nan")]),
        "s": pa.array(["x", None]),
        "t": pa.array([TS1, None], pa.timestamp("ns")),
    })


def test_create_from_arrow_table(engine):
    T = types_of(engine)
    spark = engine.spark
    df = spark.createDataFrame(_arrow_table())
    # Arrow's types are kept; a timestamp without a time zone is a TIMESTAMP.
    assert df.dtypes == [("a", "int"), ("b", "double"), ("s", "string"), ("t", "timestamp")]
    first, second = df.collect()
    assert first == (1, 1.5, "x", TS1)
    assert second.a == 2 and math.isnan(second.b) and second.s is None and second.t is None
    schema = T.StructType([
        T.StructField("a", T.LongType(), False),
        T.StructField("b", T.DoubleType(), True),
        T.StructField("s", T.StringType(), True),
        T.StructField("t", T.TimestampType(), True),
    ])
    typed = spark.createDataFrame(_arrow_table(), schema)
    assert typed.schema == schema
    assert typed.first() == (1, 1.5, "x", TS1)
    renamed = spark.createDataFrame(_arrow_table(), ["w", "x", "y", "z"])
    assert renamed.columns == ["w", "x", "y", "z"]
    # With a StructType the names must match the table's.
    other_names = T.StructType([T.StructField(n, f.dataType) for n, f in zip("wxyz", schema)])
    with pytest.raises(ValueError):
        spark.createDataFrame(_arrow_table(), other_names)


class _ArrowStreamOnly:
    """An object that is only an Arrow C stream, as polars or DuckDB results are."""

    def __init__(self, table: pa.Table):
        self._table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self._table.__arrow_c_stream__(requested_schema)


def test_create_from_arrow_stream_object(engine):
    if engine.name == "spark":
        pytest.skip("PySpark takes a pyarrow.Table but not any __arrow_c_stream__ object")
    T = types_of(engine)
    source = pa.table({"a": pa.array([1, None, 3], pa.int64()), "s": pa.array(["x", "y", None])})
    schema = T.StructType([T.StructField("a", T.LongType()), T.StructField("s", T.StringType())])
    df = engine.spark.createDataFrame(_ArrowStreamOnly(source), schema)
    # The oracle is pyarrow itself: the same columns and values come back.
    assert df.toArrow().equals(pa.table(_ArrowStreamOnly(source)))
    assert [tuple(r) for r in df.collect()] == list(zip(*source.to_pydict().values()))


# --- show() --------------------------------------------------------------------------------------

PEOPLE_SHOW = """\
+---+--------------------+-----+------+--------------------+----------+------+
| id|                name| flag| score|                  ts|         d|amount|
+---+--------------------+-----+------+--------------------+----------+------+
|  1|               alice| true|   1.5| 2024-01-02 03:04:05|2024-01-02|  1.50|
|  2|a string longer t...|false|1.0E20|2024-01-02 03:04:...|2024-01-02| -2.25|
|  3|                NULL| NULL|  NULL|                NULL|      NULL|  NULL|
|  4|                dave| true|1.0E-7| 2024-01-02 03:04:05|2024-01-02|  0.00|
+---+--------------------+-----+------+--------------------+----------+------+

"""

PEOPLE_SHOW_FULL = """\
+---+--------------------------------------+-----+------+------------------------+----------+------+
|id |name                                  |flag |score |ts                      |d         |amount|
+---+--------------------------------------+-----+------+------------------------+----------+------+
|1  |alice                                 |true |1.5   |2024-01-02 03:04:05     |2024-01-02|1.50  |
|2  |a string longer than twenty characters|false|1.0E20|2024-01-02 03:04:05.1234|2024-01-02|-2.25 |
|3  |NULL                                  |NULL |NULL  |NULL                    |NULL      |NULL  |
|4  |dave                                  |true |1.0E-7|2024-01-02 03:04:05     |2024-01-02|0.00  |
+---+--------------------------------------+-----+------+------------------------+----------+------+

"""

PEOPLE_SHOW_2 = """\
+---+--------------------+-----+------+--------------------+----------+------+
| id|                name| flag| score|                  ts|         d|amount|
+---+--------------------+-----+------+--------------------+----------+------+
|  1|               alice| true|   1.5| 2024-01-02 03:04:05|2024-01-02|  1.50|
|  2|a string longer t...|false|1.0E20|2024-01-02 03:04:...|2024-01-02| -2.25|
+---+--------------------+-----+------+--------------------+----------+------+
only showing top 2 rows
"""

PEOPLE_SHOW_1 = """\
+---+-----+----+-----+-------------------+----------+------+
| id| name|flag|score|                 ts|         d|amount|
+---+-----+----+-----+-------------------+----------+------+
|  1|alice|true|  1.5|2024-01-02 03:04:05|2024-01-02|  1.50|
+---+-----+----+-----+-------------------+----------+------+
only showing top 1 row
"""

PEOPLE_SHOW_0 = """\
+---+----+----+-----+---+---+------+
| id|name|flag|score| ts|  d|amount|
+---+----+----+-----+---+---+------+
+---+----+----+-----+---+---+------+
only showing top 0 rows
"""

PEOPLE_SHOW_EMPTY = """\
+---+----+----+-----+---+---+------+
| id|name|flag|score| ts|  d|amount|
+---+----+----+-----+---+---+------+
+---+----+----+-----+---+---+------+

"""

PEOPLE_SHOW_TRUNCATE_5 = """\
+---+-----+-----+-----+-----+-----+------+
| id| name| flag|score|   ts|    d|amount|
+---+-----+-----+-----+-----+-----+------+
|  1|alice| true|  1.5|20...|20...|  1.50|
|  2|a ...|false|1....|20...|20...| -2.25|
|  3| NULL| NULL| NULL| NULL| NULL|  NULL|
|  4| dave| true|1....|20...|20...|  0.00|
+---+-----+-----+-----+-----+-----+------+

"""

PEOPLE_SHOW_TRUNCATE_2 = """\
+---+----+----+-----+---+---+------+
| id|name|flag|score| ts|  d|amount|
+---+----+----+-----+---+---+------+
|  1|  al|  tr|   1.| 20| 20|    1.|
|  2|  a |  fa|   1.| 20| 20|    -2|
|  3|  NU|  NU|   NU| NU| NU|    NU|
|  4|  da|  tr|   1.| 20| 20|    0.|
+---+----+----+-----+---+---+------+

"""

PEOPLE_SHOW_VERTICAL_2 = """\
-RECORD 0----------------------
 id     | 1                    
 name   | alice                
 flag   | true                 
 score  | 1.5                  
 ts     | 2024-01-02 03:04:05  
 d      | 2024-01-02           
 amount | 1.50                 
-RECORD 1----------------------
 id     | 2                    
 name   | a string longer t... 
 flag   | false                
 score  | 1.0E20               
 ts     | 2024-01-02 03:04:... 
 d      | 2024-01-02           
 amount | -2.25                
only showing top 2 rows
"""

PEOPLE_SHOW_VERTICAL_FULL = """\
-RECORD 0----------------------------------------
 id     | 3                                      
 name   | NULL                                   
 flag   | NULL                                   
 score  | NULL                                   
 ts     | NULL                                   
 d      | NULL                                   
 amount | NULL                                   
-RECORD 1----------------------------------------
 id     | 2                                      
 name   | a string longer than twenty characters 
 flag   | false                                  
 score  | 1.0E20                                 
 ts     | 2024-01-02 03:04:05.1234               
 d      | 2024-01-02                             
 amount | -2.25                                  

"""

SHOW_CASES = {
    "default": (lambda df: shown(df), PEOPLE_SHOW),
    "truncate_false": (lambda df: shown(df, truncate=False), PEOPLE_SHOW_FULL),
    "n_2": (lambda df: shown(df, 2), PEOPLE_SHOW_2),
    "n_1": (lambda df: shown(df, n=1), PEOPLE_SHOW_1),
    "n_0": (lambda df: shown(df, 0), PEOPLE_SHOW_0),
    "empty": (lambda df: shown(df.filter(df.id > 100)), PEOPLE_SHOW_EMPTY),
    "truncate_5": (lambda df: shown(df, truncate=5), PEOPLE_SHOW_TRUNCATE_5),
    "truncate_2": (lambda df: shown(df, truncate=2), PEOPLE_SHOW_TRUNCATE_2),
    "vertical_2": (lambda df: shown(df, 2, vertical=True), PEOPLE_SHOW_VERTICAL_2),
    "vertical_full": (
        lambda df: shown(df.filter("id IN (2, 3)").orderBy(df.id.desc()), truncate=False,
                         vertical=True),
        PEOPLE_SHOW_VERTICAL_FULL,
    ),
    "vertical_empty": (lambda df: shown(df.filter(df.id > 100), vertical=True), "(0 rows)\n"),
}


@pytest.mark.parametrize("case", list(SHOW_CASES))
def test_show(engine, case):
    action, expected = SHOW_CASES[case]
    assert action(people(engine.spark)) == expected


NUMBERS_SHOW = """\
+----------------------+----------+--------------------+
|d                     |f         |dec                 |
+----------------------+----------+--------------------+
|0.001                 |0.001     |0.000000000000000000|
|1.0E-4                |1.0E-4    |1.500000000000000000|
|123456.789            |123456.79 |NULL                |
|9999999.0             |9999999.0 |NULL                |
|1.0E7                 |1.0E7     |NULL                |
|-1.5E-10              |-1.5E-10  |NULL                |
|0.3333333333333333    |0.33333334|NULL                |
|100.0                 |100.0     |NULL                |
|1.0E21                |1.0E21    |NULL                |
|0.30000000000000004   |0.3       |NULL                |
|1.7976931348623157E308|Infinity  |NULL                |
|NaN                   |NaN       |NULL                |
|-Infinity             |-Infinity |NULL                |
|-0.0                  |-0.0      |NULL                |
+----------------------+----------+--------------------+

"""


def test_show_numbers(engine):
    """Doubles and floats print as the JVM prints them; decimals with all their scale."""
    values = [0.001, 0.0001, 123456.789, 9999999.0, 1e7, -1.5e-10, 1 / 3, 100.0, 1e21,
              0.1 + 0.2, 1.7976931348623157e308, float("nan"), float("-inf"), -0.0]
    decimals = [Decimal("0"), Decimal("1.5")] + [None] * (len(values) - 2)
    df = engine.spark.createDataFrame(
        [(v, v, m) for v, m in zip(values, decimals)], "d DOUBLE, f FLOAT, dec DECIMAL(38,18)"
    )
    assert shown(df, truncate=False) == NUMBERS_SHOW


NESTED_SHOW = """\
+---+--------------------+-----------+-------------------+-------+-------------------+---------+
| id|                   s|          a|                  m|    bin|                  n|       aa|
+---+--------------------+-----------+-------------------+-------+-------------------+---------+
|  1|          {1, alice}|[1.5, NULL]|{a -> 1, b -> NULL}|[01 FF]|{1, [{q, 1}], NULL}|[[1], []]|
|  2|{2, a string long...|       NULL|                 {}|     []|   {NULL, [], NULL}|     NULL|
+---+--------------------+-----------+-------------------+-------+-------------------+---------+

"""


def test_show_nested(engine):
    F = engine.F
    df = engine.spark.createDataFrame(
        [
            (1, "alice", [1.5, None], {"a": 1, "b": None}, b"\x01\xff", (1, [("q", 1)], None),
             [[1], []]),
            (2, LONG_NAME, None, {}, b"", (None, [], None), None),
        ],
        "id BIGINT, name STRING, a ARRAY<DOUBLE>, m MAP<STRING, INT>, bin BINARY, "
        "n STRUCT<x: INT, y: ARRAY<STRUCT<z: STRING, w: INT>>, v: STRING>, aa ARRAY<ARRAY<INT>>",
    )
    nested = df.select("id", F.struct("id", "name").alias("s"), "a", "m", "bin", "n", "aa")
    assert shown(nested) == NESTED_SHOW


WINDOW_SHOW = """\
+---+------------------------------------------+
|id |w                                         |
+---+------------------------------------------+
|1  |{2024-01-02 03:00:00, 2024-01-02 03:10:00}|
|2  |{2024-01-02 03:00:00, 2024-01-02 03:10:00}|
+---+------------------------------------------+

"""

WINDOW_SHOW_TRUNCATED = """\
+---+--------------------+
| id|                   w|
+---+--------------------+
|  1|{2024-01-02 03:00...|
|  2|{2024-01-02 03:00...|
+---+--------------------+

"""


def test_show_window(engine):
    F = engine.F
    df = people(engine.spark).filter("id <= 2")
    windowed = df.select("id", F.window("ts", "10 minutes").alias("w"))
    assert shown(windowed, truncate=False) == WINDOW_SHOW
    assert shown(windowed) == WINDOW_SHOW_TRUNCATED
    assert windowed.dtypes == [("id", "bigint"), ("w", "struct<start:timestamp,end:timestamp>")]


def test_window_drops_null_times(request, engine):
    F = engine.F
    windowed = people(engine.spark).select("id", F.window("ts", "10 minutes").alias("w"))
    assert [r.id for r in windowed.collect()] == [1, 2, 4]


def test_window_struct_not_nullable(request, engine):
    F = engine.F
    windowed = people(engine.spark).select(F.window("ts", "10 minutes"))
    assert windowed.schema.fields[0].nullable is False
    assert stdout_of(windowed.printSchema) == (
        "root\n"
        " |-- window: struct (nullable = false)\n"
        " |    |-- start: timestamp (nullable = true)\n"
        " |    |-- end: timestamp (nullable = true)\n"
        "\n"
    )


def _window_time_view(df) -> tuple:
    return (df.columns, df.dtypes, [f.nullable for f in df.schema.fields], shown(df, truncate=False),
            sorted(tuple(r) for r in df.collect()))


def test_window_time(engine, spark_answers):
    """window_time over a window column (it crashed the process while the plan was built):
    the window's end minus one microsecond, with Spark's column name, type and nullability."""
    F = engine.F
    windowed = people(engine.spark).select("id", F.window("ts", "10 minutes").alias("w"))
    timed = windowed.select(F.window_time("w"))
    spark_answers.check(engine, "window_time:select", _window_time_view(timed))
    counted = people(engine.spark).groupBy(F.window("ts", "5 minutes")).count()
    timed = counted.select(F.window_time("window").alias("t"), "count")
    spark_answers.check(engine, "window_time:grouped", _window_time_view(timed))
    not_window = people(engine.spark).select(F.struct("ts").alias("w"))
    with pytest.raises(Exception) as caught:
        not_window.select(F.window_time("w")).collect()
    spark_answers.check(engine, "window_time:not_window", type(caught.value).__name__)


ESCAPED_SHOW = """\
+--------------------------------+----+-------------------+
|a column name longer than twenty|x\\ny|                old|
+--------------------------------+----+-------------------+
|                         a\\nb\\tc|   1|0005-01-02 03:04:05|
+--------------------------------+----+-------------------+

"""


def test_show_escapes_and_long_header(engine):
    """Control characters print escaped, headers are never truncated, years have 4 digits."""
    df = engine.spark.createDataFrame(
        [("a\nb\tc", 1, dt.datetime(5, 1, 2, 3, 4, 5))],
        "`a column name longer than twenty` STRING, `x\ny` INT, old TIMESTAMP",
    )
    assert shown(df) == ESCAPED_SHOW


WIDE_CHARACTERS_SHOW = """\
+-------------+
|s            |
+-------------+
|alice        |
|日本語ｘ한😀 |
|〿䷀⌚｡｠￦ᅟᅠ|
|e\u0301𠀀         |
+-------------+

"""

WIDE_CHARACTERS_SHOW_TRUNCATED = """\
+-------------------------------------+
|                                    s|
+-------------------------------------+
|                                alice|
|日本語日本語日本語日本語日本語日本...|
|                 😀😀😀😀😀😀😀😀?...|
+-------------------------------------+

"""


def test_show_wide_characters(engine):
    """Cells are padded by display width: East Asian wide characters take two columns, and a
    character outside the BMP counts as its two UTF-16 units."""
    spark = engine.spark
    # U+303F, U+4DC0, U+FF60, U+FFE6 and U+115F are wide; U+231A, U+FF61 and U+1160 are not.
    texts = ["alice", "日本語ｘ한😀", "\u303f\u4dc0\u231a\uff61\uff60\uffe6\u115f\u1160",
             "e\u0301\U00020000"]
    df = spark.createDataFrame([(t,) for t in texts], "s STRING")
    assert shown(df, truncate=False) == WIDE_CHARACTERS_SHOW
    long = spark.createDataFrame([("alice",), ("日本語" * 8,), ("😀" * 15,)], "s STRING")
    assert shown(long) == WIDE_CHARACTERS_SHOW_TRUNCATED


def test_show_in_session_time_zone(engine):
    """show() prints timestamps in the session time zone; collect() and toPandas() follow the
    process's and the session's zone respectively."""
    F = engine.F
    spark = engine.spark
    df = people(spark).select("id", "ts").filter("id <= 3")
    with conf_set(spark, TIME_ZONE, "America/Los_Angeles"):
        assert spark.conf.get(TIME_ZONE) == "America/Los_Angeles"
        text = shown(df.select("ts", F.struct("ts").alias("s")), truncate=False)
        rows = df.collect()
        frame = df.toPandas()
    assert spark.conf.get(TIME_ZONE) == "UTC"
    assert text == (
        "+------------------------+--------------------------+\n"
        "|ts                      |s                         |\n"
        "+------------------------+--------------------------+\n"
        "|2024-01-01 19:04:05     |{2024-01-01 19:04:05}     |\n"
        "|2024-01-01 19:04:05.1234|{2024-01-01 19:04:05.1234}|\n"
        "|NULL                    |{NULL}                    |\n"
        "+------------------------+--------------------------+\n"
        "\n"
    )
    assert [r.ts for r in rows] == [TS1, TS2, None]  # the process runs in UTC
    assert list(frame["ts"]) == [
        pd.Timestamp("2024-01-01 19:04:05"), pd.Timestamp("2024-01-01 19:04:05.1234"), pd.NaT
    ]


# --- schema, printSchema, columns, dtypes, repr ---------------------------------------------------

PEOPLE_TREE = """\
root
 |-- id: long (nullable = true)
 |-- name: string (nullable = true)
 |-- flag: boolean (nullable = true)
 |-- score: double (nullable = true)
 |-- ts: timestamp (nullable = true)
 |-- d: date (nullable = true)
 |-- amount: decimal(10,2) (nullable = true)

"""

NESTED_TREE = """\
root
 |-- id: long (nullable = true)
 |-- s: struct (nullable = false)
 |    |-- id: long (nullable = true)
 |    |-- name: string (nullable = true)
 |-- a: array (nullable = true)
 |    |-- element: integer (containsNull = true)
 |-- m: map (nullable = true)
 |    |-- key: string
 |    |-- value: array (valueContainsNull = true)
 |    |    |-- element: float (containsNull = true)
 |-- bin: binary (nullable = true)

"""


def _nested_frame(engine):
    F = engine.F
    df = engine.spark.createDataFrame(
        [(1, "x", [1, None], {"k": [1.0]}, b"\x00")],
        "id BIGINT, name STRING, a ARRAY<INT>, m MAP<STRING, ARRAY<FLOAT>>, bin BINARY",
    )
    return df.select("id", F.struct("id", "name").alias("s"), "a", "m", "bin")


def test_print_schema(engine):
    assert stdout_of(people(engine.spark).printSchema) == PEOPLE_TREE
    assert stdout_of(_nested_frame(engine).printSchema) == NESTED_TREE
    assert stdout_of(lambda: _nested_frame(engine).printSchema(1)) == (
        "root\n"
        " |-- id: long (nullable = true)\n"
        " |-- s: struct (nullable = false)\n"
        " |-- a: array (nullable = true)\n"
        " |-- m: map (nullable = true)\n"
        " |-- bin: binary (nullable = true)\n"
        "\n"
    )


def test_schema_columns_dtypes_repr(engine):
    T = types_of(engine)
    df = _nested_frame(engine)
    assert df.columns == ["id", "s", "a", "m", "bin"]
    assert df.dtypes == [
        ("id", "bigint"), ("s", "struct<id:bigint,name:string>"), ("a", "array<int>"),
        ("m", "map<string,array<float>>"), ("bin", "binary"),
    ]
    assert repr(df) == (
        "DataFrame[id: bigint, s: struct<id:bigint,name:string>, a: array<int>, "
        "m: map<string,array<float>>, bin: binary]"
    )
    assert str(df) == repr(df)
    assert df.schema == T.StructType([
        T.StructField("id", T.LongType(), True),
        T.StructField("s", T.StructType([
            T.StructField("id", T.LongType(), True), T.StructField("name", T.StringType(), True)
        ]), False),
        T.StructField("a", T.ArrayType(T.IntegerType(), True), True),
        T.StructField("m", T.MapType(T.StringType(), T.ArrayType(T.FloatType(), True), True), True),
        T.StructField("bin", T.BinaryType(), True),
    ])
    assert df.schema["s"].dataType.names == ["id", "name"]
    assert df.schema.simpleString() == (
        "struct<id:bigint,s:struct<id:bigint,name:string>,a:array<int>,"
        "m:map<string,array<float>>,bin:binary>"
    )
    assert repr(people(engine.spark)) == (
        "DataFrame[id: bigint, name: string, flag: boolean, score: double, ts: timestamp, "
        "d: date, amount: decimal(10,2)]"
    )


# --- actions -------------------------------------------------------------------------------------


def test_collect_row_access(engine):
    rows = people(engine.spark).collect()
    assert isinstance(rows, list) and len(rows) == 4
    row = rows[1]
    assert type(row).__name__ == "Row" and isinstance(row, tuple)
    assert row.name == row["name"] == row[1] == LONG_NAME
    assert row.ts == TS2 and row["d"] == D1 and row[-1] == Decimal("-2.25")
    assert row.asDict() == {
        "id": 2, "name": LONG_NAME, "flag": False, "score": 1e20, "ts": TS2, "d": D1,
        "amount": Decimal("-2.25"),
    }
    assert "name" in row and "nope" not in row
    assert row[1:3] == (LONG_NAME, False)
    assert repr(rows[0]) == (
        "Row(id=1, name='alice', flag=True, score=1.5, "
        "ts=datetime.datetime(2024, 1, 2, 3, 4, 5), d=datetime.date(2024, 1, 2), "
        "amount=Decimal('1.50'))"
    )
    assert rows[2] == (3, None, None, None, None, None, None)
    with pytest.raises(AttributeError):
        row.nope


def test_collect_nested_values(engine):
    row = _nested_frame(engine).first()
    assert row.s == (1, "x") and row.s.name == "x" and type(row.s).__name__ == "Row"
    assert row.a == [1, None] and isinstance(row.a, list)
    assert row.m == {"k": [1.0]} and isinstance(row.m, dict)
    assert row.bin == bytearray(b"\x00") and isinstance(row.bin, bytearray)


def test_first_head_take_count_isempty(engine):
    spark = engine.spark
    df = people(spark)
    first = df.first()
    assert first == PEOPLE_ROWS[0][:6] + (Decimal("1.50"),)
    assert df.head() == first
    assert [r.id for r in df.head(2)] == [1, 2]
    assert [r.id for r in df.take(2)] == [1, 2]
    assert [r.id for r in df.take(10)] == [1, 2, 3, 4]
    assert df.count() == 4
    assert df.isEmpty() is False
    empty = df.filter(df.id > 100)
    assert empty.isEmpty() is True
    assert empty.first() is None and empty.head() is None
    assert empty.head(1) == [] and empty.take(1) == [] and empty.count() == 0
    assert spark.range(0).first() is None


@pytest.mark.parametrize("case", ["people", "nested", "empty", "ints"])
def test_to_pandas(engine, spark_answers, case):
    spark = engine.spark
    if case == "people":
        df = people(spark)
    elif case == "nested":
        df = _nested_frame(engine)
    elif case == "empty":
        df = people(spark).filter("id > 100")
    else:
        df = spark.createDataFrame(
            [(1, 1, 1, 1.5, True, None), (None, 2, 3, None, None, 4)],
            "a INT, b SMALLINT, c TINYINT, f FLOAT, t BOOLEAN, l BIGINT",
        )
    frame = df.toPandas()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == df.columns
    expected_dtypes = {
        "people": ["int64", "object", "object", "float64", "datetime64[ns]", "object", "object"],
        "nested": ["int64", "object", "object", "object", "object"],
        "empty": ["int64", "object", "bool", "float64", "datetime64[ns]", "object", "object"],
        "ints": ["float64", "int16", "int8", "float32", "object", "float64"],
    }[case]
    assert [str(t) for t in frame.dtypes] == expected_dtypes
    spark_answers.check(engine, f"toPandas:{case}", frame, pdt.assert_frame_equal)


def test_to_pandas_values(engine):
    frame = people(engine.spark).toPandas()
    assert list(frame["ts"]) == [pd.Timestamp(TS1), pd.Timestamp(TS2), pd.NaT, pd.Timestamp(TS1)]
    assert list(frame["d"]) == [D1, D1, None, D1]
    assert list(frame["amount"])[:2] == [Decimal("1.50"), Decimal("-2.25")]
    assert list(frame["flag"]) == [True, False, None, True]
    nested = _nested_frame(engine).toPandas()
    s = nested["s"][0]
    assert s == (1, "x") and type(s).__name__ == "Row"
    assert nested["a"][0] == [1, None] and nested["m"][0] == {"k": [1.0]}
    assert nested["bin"][0] == bytearray(b"\x00") and isinstance(nested["bin"][0], bytearray)


# --- columns -------------------------------------------------------------------------------------


def test_column_access(engine):
    df = people(engine.spark)
    assert repr(df["name"]) == "Column<'name'>"
    assert repr(df.score) == "Column<'score'>"
    assert repr(df[0]) == "Column<'id'>"
    assert type(df.name).__name__ == "Column"
    assert df.select(df["name"], df.score).columns == ["name", "score"]
    assert df.select(df.id).collect() == [(1,), (2,), (3,), (4,)]
    assert df[["id", "flag"]].columns == ["id", "flag"]
    assert df[df.id > 3].count() == 1
    with pytest.raises(AttributeError) as caught:
        df.no_such_column
    assert caught.value.getCondition() == "ATTRIBUTE_NOT_SUPPORTED"
    assert "`no_such_column`" in str(caught.value)
    with pytest.raises(Exception) as caught:
        df["no_such_column"]
    assert type(caught.value).__name__ == "AnalysisException"
    assert caught.value.getCondition() == "UNRESOLVED_COLUMN.WITH_SUGGESTION"


def test_unknown_column_by_key_lists_all_columns(request, engine):
    ember_xfail(request, engine, "df['x'] on Ember suggests the 5 nearest names (the analyzer's "
                                 "ranking); Spark's Dataset.col lists every column in order. "
                                 "The message is built by the C++ analyzer")
    with pytest.raises(Exception) as caught:
        people(engine.spark)["nme"]
    assert "Did you mean one of the following? [`id`, `name`, `flag`, `score`, `ts`, `d`, " \
           "`amount`]." in str(caught.value)


# --- session -------------------------------------------------------------------------------------


def test_range(engine):
    T = types_of(engine)
    spark = engine.spark
    df = spark.range(5)
    assert df.schema == T.StructType([T.StructField("id", T.LongType(), False)])
    assert repr(df) == "DataFrame[id: bigint]"
    assert df.collect() == [(0,), (1,), (2,), (3,), (4,)]
    assert [r.id for r in df.collect()] == [0, 1, 2, 3, 4]
    assert stdout_of(df.printSchema) == "root\n |-- id: long (nullable = false)\n\n"
    assert shown(df) == (
        "+---+\n| id|\n+---+\n|  0|\n|  1|\n|  2|\n|  3|\n|  4|\n+---+\n\n"
    )
    assert [r.id for r in spark.range(1, 10, 3).collect()] == [1, 4, 7]
    assert spark.range(1, 10, 3).count() == 3
    assert [r.id for r in spark.range(5, 0, -2).collect()] == [5, 3, 1]
    assert spark.range(3).toPandas()["id"].dtype == "int64"


def test_conf(engine):
    spark = engine.spark
    assert spark.conf.get(TIME_ZONE) == "UTC"
    spark.conf.set(TIME_ZONE, "Asia/Tokyo")
    try:
        assert spark.conf.get(TIME_ZONE) == "Asia/Tokyo"
        assert spark.sql("SELECT timestamp'2024-01-02 03:04:05' AS t").first().t == dt.datetime(
            2024, 1, 1, 18, 4, 5
        )
    finally:
        spark.conf.set(TIME_ZONE, "UTC")
    assert spark.conf.get(TIME_ZONE) == "UTC"
    assert spark.conf.get("spark.sql.shuffle.partitions") == "2"  # the builder's
    assert spark.conf.get(ARROW_ENABLED) == "false"  # a default never set
    assert spark.conf.get("spark.sql.no.such.key", "fallback") == "fallback"
    with pytest.raises(Exception) as caught:
        spark.conf.get("spark.sql.no.such.key")
    assert type(caught.value).__name__ == "SparkNoSuchElementException"
    assert caught.value.getCondition() == "SQL_CONF_NOT_FOUND"
    assert str(caught.value) == (
        '[SQL_CONF_NOT_FOUND] The SQL config "spark.sql.no.such.key" cannot be found. '
        "Please verify that the config exists. SQLSTATE: 42K0I"
    )


def test_sql_select_literal(engine):
    T = types_of(engine)
    df = engine.spark.sql("SELECT 1 AS x")
    assert df.schema == T.StructType([T.StructField("x", T.IntegerType(), False)])
    assert repr(df) == "DataFrame[x: int]"
    assert df.collect() == [(1,)] and df.first().x == 1
    assert stdout_of(df.printSchema) == "root\n |-- x: integer (nullable = false)\n\n"
    assert shown(df) == "+---+\n|  x|\n+---+\n|  1|\n+---+\n\n"
