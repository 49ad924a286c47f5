"""The real PySpark Connect client against Ember's server: results are checked against what
Spark gives for the same program (its documented output) or against DuckDB on the same data."""

import gc

import duckdb
import pandas as pd
import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import Row, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StringType, StructField, StructType


def test_is_a_connect_session(spark):
    # That it starts no JVM is checked in a process of its own (test_server_process.py): other
    # test files of this process start the reference Spark.
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    assert isinstance(spark, ConnectSession)
    assert spark.version == "4.0.1"


def test_range_collect(spark):
    assert spark.range(5).collect() == [Row(id=i) for i in range(5)]
    assert spark.range(10, 0, -3).collect() == [Row(id=10), Row(id=7), Row(id=4), Row(id=1)]
    assert spark.range(0).collect() == []


def test_sql_show_prints_sparks_table(spark, capsys):
    spark.sql("SELECT 1 AS a, 'x' AS b, CAST(NULL AS INT) AS c, 1.5D AS d").show()
    assert capsys.readouterr().out == (
        "+---+---+----+---+\n"
        "|  a|  b|   c|  d|\n"
        "+---+---+----+---+\n"
        "|  1|  x|NULL|1.5|\n"
        "+---+---+----+---+\n"
        "\n"
    )


def test_show_truncates_and_counts_rows(spark, capsys):
    spark.range(3).withColumn("s", F.lit("abcdefghijklmnopqrstuvwxyz")).show(2)
    assert capsys.readouterr().out == (
        "+---+--------------------+\n"
        "| id|                   s|\n"
        "+---+--------------------+\n"
        "|  0|abcdefghijklmnopq...|\n"
        "|  1|abcdefghijklmnopq...|\n"
        "+---+--------------------+\n"
        "only showing top 2 rows\n"
    )


def test_create_dataframe_from_rows_round_trips(spark):
    rows = [Row(name="a", n=1, x=0.5), Row(name=None, n=2, x=None), Row(name="c", n=None, x=-2.0)]
    df = spark.createDataFrame(rows)
    assert df.collect() == rows
    assert df.schema.simpleString() == "struct<name:string,n:bigint,x:double>"


def test_create_dataframe_from_pandas_round_trips(spark):
    pdf = pd.DataFrame({"k": ["a", "b", "a"], "v": [1, 2, 3], "f": [0.5, None, 1.5]})
    back = spark.createDataFrame(pdf).toPandas()
    pd.testing.assert_frame_equal(back, pdf)


def test_create_dataframe_with_a_schema_casts_and_renames(spark):
    schema = StructType([StructField("id", LongType(), False), StructField("s", StringType())])
    df = spark.createDataFrame([(1, "x"), (2, None)], schema)
    assert df.schema == schema
    assert df.collect() == [Row(id=1, s="x"), Row(id=2, s=None)]
    assert spark.createDataFrame([(1, "x")], ["a", "b"]).columns == ["a", "b"]


def test_schema_and_print_schema(spark, capsys):
    df = spark.sql("SELECT 1 AS i, CAST(2 AS BIGINT) AS l, 'x' AS s, DATE'2024-01-02' AS d")
    assert df.schema.simpleString() == "struct<i:int,l:bigint,s:string,d:date>"
    assert df.columns == ["i", "l", "s", "d"]
    df.printSchema()
    assert capsys.readouterr().out == (
        "root\n"
        " |-- i: integer (nullable = false)\n"
        " |-- l: long (nullable = false)\n"
        " |-- s: string (nullable = false)\n"
        " |-- d: date (nullable = false)\n"
        "\n"
    )


@pytest.fixture(scope="module")
def sales(spark):
    pdf = pd.DataFrame({
        "region": ["n", "s", "n", "e", "s", "n", None],
        "amount": [10, 20, 5, 7, None, 3, 1],
        "price": [1.5, 2.0, 3.25, 0.5, 1.0, 2.5, 9.0],
    })
    return spark.createDataFrame(pdf), pdf


def test_filter_select_group_by_against_duckdb(spark, sales):
    df, pdf = sales
    got = (df.filter(F.col("price") > 0.75)
             .select("region", (F.col("amount") * 2).alias("double"), "price")
             .groupBy("region").count()
             .orderBy("region").collect())
    expected = duckdb.sql(
        "SELECT region, count(*) AS count FROM pdf WHERE price > 0.75 "
        "GROUP BY region ORDER BY region NULLS FIRST").fetchall()
    assert [tuple(r) for r in got] == expected


def test_aggregates_against_duckdb(spark, sales):
    df, pdf = sales
    got = (df.groupBy("region")
             .agg(F.sum("amount").alias("total"), F.max("price").alias("top"),
                  F.count("amount").alias("n"))
             .orderBy(F.col("region").desc_nulls_last()).collect())
    expected = duckdb.sql(
        "SELECT region, sum(amount), max(price), count(amount) FROM pdf "
        "GROUP BY region ORDER BY region DESC NULLS LAST").fetchall()
    assert [tuple(r) for r in got] == expected
    assert got[0].__fields__ == ["region", "total", "top", "n"]


def test_sql_over_a_temp_view_against_duckdb(spark, sales):
    df, pdf = sales
    df.createOrReplaceTempView("sales")
    got = spark.sql("SELECT region, avg(price) AS p FROM sales WHERE amount IS NOT NULL "
                    "GROUP BY region ORDER BY region").collect()
    expected = duckdb.sql("SELECT region, avg(price) FROM pdf WHERE amount IS NOT NULL "
                          "GROUP BY region ORDER BY region NULLS FIRST").fetchall()
    assert [tuple(r) for r in got] == expected


def test_with_columns_expr_and_cast(spark):
    df = spark.range(3).withColumn("sq", F.col("id") * F.col("id")) \
        .withColumn("txt", F.col("id").cast("string")) \
        .selectExpr("id + 1 AS next", "sq", "txt")
    assert df.collect() == [Row(next=1, sq=0, txt="0"), Row(next=2, sq=1, txt="1"),
                            Row(next=3, sq=4, txt="2")]
    assert df.schema.simpleString() == "struct<next:bigint,sq:bigint,txt:string>"


def test_sort_limit_and_dataframe_columns(spark):
    df = spark.range(10)
    assert [r.id for r in df.orderBy(F.desc("id")).limit(3).collect()] == [9, 8, 7]
    assert [r.id for r in df.filter(df["id"] % 4 == 0).collect()] == [0, 4, 8]
    assert [r.id for r in df.where("id > 7").collect()] == [8, 9]


def test_read_csv_with_a_schema(spark, tmp_path):
    path = tmp_path / "people.csv"
    path.write_text("name,age\nann,31\nbob,\n")
    df = spark.read.schema("name STRING, age INT").option("header", True).csv(str(path))
    assert df.collect() == [Row(name="ann", age=31), Row(name="bob", age=None)]


def test_rows_after_an_empty_batch_all_come_back(spark, tmp_path):
    # Each file is a batch; the filter empties the first, and the rows of the next must follow.
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"a": pa.array([3], pa.int32())}), tmp_path / "a.parquet")
    pq.write_table(pa.table({"a": pa.array([1, 2], pa.int32())}), tmp_path / "b.parquet")
    expected = duckdb.sql(f"SELECT a FROM read_parquet('{tmp_path}/*.parquet') WHERE a < 3").fetchall()
    got = spark.read.parquet(str(tmp_path)).where("a < 3").collect()
    assert sorted(r.a for r in got) == sorted(a for (a,) in expected) == [1, 2]


def test_conf_set_get_unset(spark):
    spark.conf.set("spark.sql.shuffle.partitions", "7")
    assert spark.conf.get("spark.sql.shuffle.partitions") == "7"
    spark.conf.set("ember.test.flag", True)
    assert spark.conf.get("ember.test.flag") == "true"
    spark.conf.unset("ember.test.flag")
    assert spark.conf.get("ember.test.flag", "gone") == "gone"
    assert spark.conf.get("spark.sql.session.timeZone") == "UTC"
    assert spark.conf.isModifiable("spark.sql.shuffle.partitions")
    from pyspark.errors import SparkNoSuchElementException

    with pytest.raises(SparkNoSuchElementException) as info:
        spark.conf.get("ember.no.such.key")
    assert info.value.getCondition() == "SQL_CONF_NOT_FOUND"


def test_unknown_column_raises_analysis_exception(spark):
    with pytest.raises(AnalysisException) as info:
        spark.range(3).select("nope").collect()
    assert info.value.getCondition() == "UNRESOLVED_COLUMN.WITH_SUGGESTION"
    assert info.value.getSqlState() == "42703"
    assert "`nope`" in str(info.value)
    spark.range(2).createOrReplaceTempView("two")
    with pytest.raises(AnalysisException) as info:
        spark.sql("SELECT missing FROM two")
    assert info.value.getCondition() == "UNRESOLVED_COLUMN.WITH_SUGGESTION"


def test_parse_error_raises_parse_exception(spark):
    from pyspark.errors import ParseException

    with pytest.raises(ParseException):
        spark.sql("SELEC 1")


def test_unsupported_relation_names_it(spark):
    with pytest.raises(Exception) as info:
        spark.range(10).sample(0.5).collect()
    assert "sample" in str(info.value)
    assert "UNSUPPORTED_FEATURE" in str(info.value)


def test_sessions_are_isolated(server, spark):
    other = SparkSession.builder.remote(server.url).create()
    try:
        assert other.client._session_id != spark.client._session_id
        spark.range(2).createOrReplaceTempView("mine")
        assert spark.sql("SELECT count(*) AS n FROM mine").collect() == [Row(n=2)]
        with pytest.raises(AnalysisException) as info:
            other.sql("SELECT * FROM mine")
        assert info.value.getCondition() == "TABLE_OR_VIEW_NOT_FOUND"
        other.conf.set("spark.sql.shuffle.partitions", "3")
        spark.conf.set("spark.sql.shuffle.partitions", "5")
        assert other.conf.get("spark.sql.shuffle.partitions") == "3"
    finally:
        # The client's executions share one thread pool, which stop() shuts down; collect the
        # finished ones first, or one finalised during the shutdown fails to release itself.
        gc.collect()
        other.stop()


def test_joins_against_duckdb(spark):
    left_pdf = pd.DataFrame({"k": [1, 2, 3, 4], "a": ["w", "x", "y", "z"]})
    right_pdf = pd.DataFrame({"k": [2, 3, 3, 5], "b": [20.0, 30.0, 31.0, 50.0]})
    left, right = spark.createDataFrame(left_pdf), spark.createDataFrame(right_pdf)
    for how in ["inner", "left", "right", "full", "left_semi", "left_anti"]:
        got = left.join(right, "k", how).collect()
        sql_how = {"left_semi": "SEMI", "left_anti": "ANTI", "full": "FULL OUTER"}.get(how, how.upper())
        if how in ("left_semi", "left_anti"):
            query = f"SELECT * FROM left_pdf {sql_how} JOIN right_pdf USING (k)"
        else:
            query = f"SELECT * FROM left_pdf {sql_how} JOIN right_pdf USING (k)"
        expected = duckdb.sql(query).fetchall()
        assert sorted(map(tuple, got), key=repr) == sorted(expected, key=repr), how
    # A condition on columns named through each DataFrame (plan ids), both `k`s kept.
    got = left.join(right, left["k"] == right["k"]).select(left["a"], right["b"]).collect()
    expected = duckdb.sql("SELECT a, b FROM left_pdf JOIN right_pdf ON left_pdf.k = right_pdf.k").fetchall()
    assert sorted(map(tuple, got)) == sorted(expected)


def test_union_and_repartition(spark):
    a, b = spark.range(3), spark.range(2, 5)
    assert sorted(r.id for r in a.union(b).collect()) == [0, 1, 2, 2, 3, 4]
    assert sorted(r.id for r in a.union(b).distinct().collect()) == [0, 1, 2, 3, 4]
    c = spark.createDataFrame([("x", 1)], ["s", "n"])
    d = spark.createDataFrame([(2, "y")], ["n", "s"])
    assert sorted(c.unionByName(d).collect()) == [Row(s="x", n=1), Row(s="y", n=2)]
    assert sorted(r.id for r in a.repartition(4).coalesce(1).collect()) == [0, 1, 2]


def test_group_by_time_window_against_duckdb(spark):
    import datetime

    base = datetime.datetime(2024, 5, 1, 12, 0, 0)
    pdf = pd.DataFrame({"ts": [base + datetime.timedelta(minutes=m) for m in (0, 3, 9, 10, 27, 41)],
                        "v": [1, 2, 3, 4, 5, 6]})
    got = (spark.createDataFrame(pdf).groupBy(F.window("ts", "10 minutes"))
           .agg(F.sum("v").alias("total")).orderBy("window").collect())
    assert got[0].__fields__ == ["window", "total"]
    expected = duckdb.sql(
        "SELECT time_bucket(INTERVAL 10 MINUTES, ts) AS s, sum(v) FROM pdf GROUP BY s ORDER BY s"
    ).fetchall()
    assert [(r.window.start, r.window.end, r.total) for r in got] == [
        (s, s + datetime.timedelta(minutes=10), total) for s, total in expected]
    renamed = spark.createDataFrame(pdf).select(F.window("ts", "1 hour").alias("w"))
    assert renamed.columns == ["w"]


def test_a_long_error_message_is_abbreviated_as_spark_does(spark):
    # The message travels in gRPC's trailing metadata, which the client caps at 16 KiB: unbounded,
    # the client got RESOURCE_EXHAUSTED instead of the error. Spark abbreviates it to 2048 chars.
    name = "x" * 50000
    with pytest.raises(AnalysisException, match="UNRESOLVED_COLUMN") as error:
        spark.sql(f"SELECT {name}").collect()
    message = str(error.value)
    assert len(message) < 2200 and "..." in message


def test_bitwise_operators_and_power_against_duckdb(spark):
    from pyspark.sql import functions as F

    rows = [(170, 75, 2), (-5, 3, 0), (None, 1, 3), (2**40, 7, -1)]
    df = spark.createDataFrame(rows, "a LONG, b INT, e INT")
    out = df.select(df.a.bitwiseAND(df.b), df.a.bitwiseOR(df.b), df.a.bitwiseXOR(df.b),
                    F.bitwise_not(df.b), df.b ** df.e, F.pow("a", F.lit(0.5)))
    assert out.columns == ["(a & b)", "(a | b)", "(a ^ b)", "~b", "POWER(b, e)", "POWER(a, 0.5)"]
    con = duckdb.connect()
    con.execute("CREATE TABLE t(a BIGINT, b INTEGER, e INTEGER)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", rows)
    expected = con.execute(
        "SELECT a & b, a | b, xor(a, b), ~b, pow(b, e), "
        "CASE WHEN a < 0 THEN 'NaN'::DOUBLE ELSE pow(a, 0.5) END FROM t").fetchall()
    got = [tuple(r) for r in out.collect()]
    assert len(got) == len(expected)
    for g, x in zip(got, expected):
        assert g[:4] == x[:4]
        for a, b in zip(g[4:], x[4:]):
            assert (a is None and b is None) or a == pytest.approx(b, nan_ok=True)
    # Spark 4.0.1's conditions and types, as measured
    with pytest.raises(AnalysisException, match=r"BINARY_OP_DIFF_TYPES.*\(\"BIGINT\" and \"DOUBLE"):
        df.select(F.col("a").bitwiseAND(F.lit(1.5))).collect()
    with pytest.raises(AnalysisException, match=r"UNEXPECTED_INPUT_TYPE.*requires the \"INTEGRAL\""):
        df.select(F.bitwise_not(F.lit(1.5))).collect()
    assert [f.dataType.simpleString() for f in df.select(
        F.col("b").bitwiseAND(F.lit("7")), F.col("b").bitwiseOR(F.lit(None)),
        F.lit(3).cast("tinyint").bitwiseOR(F.lit(1).cast("smallint"))).schema] == [
        "bigint", "int", "smallint"]


def test_string_predicates_against_duckdb(spark):
    rows = [("Spark Streaming", 15), ("ember", 5), (None, 1), ("a%b_c", 105)]
    df = spark.createDataFrame(rows, "s STRING, n INT")
    out = df.select(df.s.contains("Stream"), df.s.startswith("Sp"), df.s.endswith("er"),
                    df.s.ilike("%STREAM%"), df.s.contains("%"), df.n.contains(5))
    assert out.columns == ["contains(s, Stream)", "startswith(s, Sp)", "endswith(s, er)",
                           "ilike(s, %STREAM%)", "contains(s, %)", "contains(n, 5)"]
    con = duckdb.connect()
    con.execute("CREATE TABLE t(s VARCHAR, n INTEGER)")
    con.executemany("INSERT INTO t VALUES (?, ?)", rows)
    expected = con.execute(
        "SELECT contains(s, 'Stream'), starts_with(s, 'Sp'), ends_with(s, 'er'), "
        "s ILIKE '%STREAM%', contains(s, '%'), contains(n::VARCHAR, '5') FROM t").fetchall()
    assert [tuple(r) for r in out.collect()] == expected


def test_with_field_and_drop_fields(spark):
    df = spark.createDataFrame([Row(a=Row(b=1, c=2, d=Row(e=3, f=4))), Row(a=None)],
                               "a STRUCT<b: INT, c: INT, d: STRUCT<e: INT, f: INT>>")
    out = df.select(df.a.withField("b", F.lit(10)).alias("replaced"),
                    df.a.withField("x", F.lit("new")).alias("added"),
                    df.a.withField("d.e", F.col("a.c") * 10).alias("nested"),
                    df.a.dropFields("b", "d.e").alias("dropped"))
    assert [f.dataType.simpleString() for f in out.schema] == [
        "struct<b:int,c:int,d:struct<e:int,f:int>>",
        "struct<b:int,c:int,d:struct<e:int,f:int>,x:string>",
        "struct<b:int,c:int,d:struct<e:int,f:int>>",
        "struct<c:int,d:struct<f:int>>"]
    # Spark's UpdateFields: the other fields as they were, a NULL struct stays NULL.
    assert [r.asDict(recursive=True) for r in out.collect()] == [
        {"replaced": {"b": 10, "c": 2, "d": {"e": 3, "f": 4}},
         "added": {"b": 1, "c": 2, "d": {"e": 3, "f": 4}, "x": "new"},
         "nested": {"b": 1, "c": 2, "d": {"e": 20, "f": 4}},
         "dropped": {"c": 2, "d": {"f": 4}}},
        {"replaced": None, "added": None, "nested": None, "dropped": None}]
    with pytest.raises(AnalysisException, match="CANNOT_DROP_ALL_FIELDS"):
        df.select(df.a.dropFields("b", "c", "d")).collect()


def test_observe_reports_an_actions_metrics(spark):
    # The metrics are counted by hand from the rows; stream_programs.py::observed_metrics compares
    # the rest with Spark.
    from pyspark.sql import Observation

    df = spark.createDataFrame([(1, 2.0), (2, None), (3, 4.0)], "k INT, d DOUBLE")
    observation = Observation("counts")
    observed = df.observe(observation, F.count(F.lit(1)).alias("rows"), F.sum("k"),
                          F.avg("d").alias("mean"))
    assert observed.columns == ["k", "d"]
    assert observed.filter("k > 1").count() == 2  # the filter after the observation
    assert observation.get == {"rows": 3, "sum(k)": 6, "mean": 3.0}
    with pytest.raises(AnalysisException) as info:
        df.observe("m", F.col("k")).collect()
    assert info.value.getCondition() == "INVALID_OBSERVED_METRICS.NON_AGGREGATE_FUNC_ARG_IS_ATTRIBUTE"


def test_a_schema_of_only_the_corrupt_record_column_counts_every_record(spark, tmp_path):
    # One well-formed record and one malformed: Spark counts two. Reading only the corrupt-record
    # column once failed inside Ember (no data column: a table of no rows beside two values).
    (tmp_path / "a.json").write_text('{"a": 1}\n{bad\n')
    df = spark.read.schema("_corrupt_record STRING").json(str(tmp_path))
    assert df.count() == 2
    assert sorted(str(r[0]) for r in df.collect()) == ["None", "{bad"]


def test_a_sort_after_an_aggregation_may_name_a_grouping_expression(spark):
    # Spark resolves `df.id + 1` against the aggregation's key (groupBy(df.id + 1)).
    from pyspark.sql import functions as F

    df = spark.createDataFrame([(2, 1.0), (1, 3.0), (2, 5.0)], "id INT, v DOUBLE")
    out = df.groupBy(df.id + 1).agg(F.sum("v")).sort((df.id + 1).desc())
    assert [tuple(r) for r in out.collect()] == [(3, 6.0), (2, 3.0)]


def test_drop_temp_view_says_whether_there_was_one(spark):
    spark.range(1).createOrReplaceTempView("ember_dropped")
    assert spark.catalog.dropTempView("ember_dropped") is True
    assert spark.catalog.dropTempView("ember_dropped") is False
    assert spark.catalog.currentDatabase() == "default"
