"""Spark's session catalog (spark_catalog) without Hive: the same statements run on the real
Spark 4.0.1 (pip's pyspark, whose catalog is the in-memory one) and on Ember, each in a process of
its own whose working directory holds the default warehouse `spark-warehouse`; results, errors
(exception class, condition, first line) and the files left behind must match. Files Ember writes
are read back by Spark and DuckDB; and Ember's table metadata survives its process (Spark's
in-memory catalog does not: docs/compatibility.md)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from iceberg.test_iceberg_tables import spark_available

# Runs a scenario on one engine (argv[1]) and prints its observations as JSON: each statement's
# sorted rows, or its error.
PRELUDE = textwrap.dedent("""
    import json, os, sys
    engine = sys.argv[1]
    if engine == "spark":
        from pyspark.sql import SparkSession
        spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
                 .config("spark.sql.session.timeZone", "UTC")
                 .config("spark.ui.showConsoleProgress", "false")
                 .config("spark.sql.shuffle.partitions", "1").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
    elif engine == "connect":
        from ember.connect import start
        from pyspark.sql import SparkSession
        server = start("127.0.0.1", 0)
        spark = SparkSession.builder.remote(server.url).getOrCreate()
        spark.conf.set("spark.sql.session.timeZone", "UTC")
    else:
        from ember.sql import SparkSession
        spark = SparkSession.builder.config("spark.sql.session.timeZone", "UTC").getOrCreate()
    out = []

    def rows(df):
        return sorted((list(r) for r in df.collect()), key=repr)

    def do(label, action):
        try:
            result = action()
            out.append([label, rows(result) if hasattr(result, "collect") else result])
        except Exception as e:
            condition = e.getCondition() if hasattr(e, "getCondition") else None
            message = str(e).replace(os.getcwd(), "<cwd>").splitlines()[0]
            out.append([label, "error", type(e).__name__, condition, message])

    def sql(text):
        do(text, lambda: spark.sql(text))

    def files(path):
        # The data files and markers under a directory, as names relative to it.
        if not os.path.exists(path):
            return None
        found = []
        for root, dirs, names in os.walk(path):
            for n in names:
                if n.endswith(".crc") or n.startswith(".ember"):
                    continue
                rel = os.path.relpath(os.path.join(root, n), path)
                found.append("part" if n.startswith("part-") else rel)
        return sorted(found)
""")


def run(engine, body, cwd):
    script = PRELUDE + textwrap.dedent(body) + "\nprint('RESULT ' + json.dumps(out, default=str))\n"
    env = dict(os.environ, TZ="UTC")
    done = subprocess.run([sys.executable, "-c", script, engine], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and lines, f"{engine} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return json.loads(lines[-1][len("RESULT "):])


def same_on_both(tmp_path, body):
    """Runs `body` on Spark and on Ember, through its Python API and through Spark Connect's
    client (each in its own directory), and compares."""
    if not spark_available():
        pytest.skip("the real Spark is not available")
    results = {}
    for engine in ("spark", "ember", "connect"):
        (tmp_path / engine).mkdir()
        results[engine] = run(engine, body, tmp_path / engine)
    spark = results["spark"]
    for engine in ("ember", "connect"):
        for e, s in zip(results[engine], spark):
            assert e == s, f"Ember ({engine}): {e}\nSpark: {s}"
        assert len(results[engine]) == len(spark)
    return results["ember"]


DROP_MISSING = """
    sql("DROP TABLE IF EXISTS nosuch")
    sql("DROP TABLE IF EXISTS db.nosuch")
    sql("DROP TABLE nosuch")
    sql("DROP VIEW IF EXISTS nosuch")
    sql("DROP VIEW nosuch")
    sql("DROP VIEW db.nosuch")
    sql("DROP TABLE IF EXISTS a.b.c")
    spark.range(3).createOrReplaceTempView("v")
    sql("DROP VIEW v")
    do("v after DROP VIEW", lambda: spark.table("v"))
    spark.range(3).createOrReplaceTempView("v")
    sql("DROP TABLE v")
    do("v after DROP TABLE", lambda: spark.table("v"))
    sql("SHOW TABLES")
"""


def test_drop_of_missing_tables_and_views(tmp_path):
    same_on_both(tmp_path, DROP_MISSING)


SQL_ROUND_TRIP = """
    sql("CREATE TABLE t (a INT, b STRING) USING parquet")
    sql("CREATE TABLE t (a INT, b STRING) USING parquet")
    sql("CREATE TABLE IF NOT EXISTS t (a INT, b STRING) USING parquet")
    sql("INSERT INTO t VALUES (1, 'x'), (2, 'y')")
    sql("INSERT INTO t SELECT 3, 'z'")
    sql("INSERT INTO t VALUES (4)")
    sql("SELECT * FROM t")
    sql("SELECT b, a + 1 FROM default.t WHERE a > 1")
    sql("SELECT * FROM spark_catalog.default.t WHERE a = 1")
    do("spark.table", lambda: spark.table("t"))
    do("read.table", lambda: spark.read.table("t").select("b"))
    sql("SHOW TABLES")
    do("files t", lambda: files("spark-warehouse/t"))
    sql("CREATE TABLE c USING parquet AS SELECT 1 AS x, 'q' AS y")
    sql("SELECT * FROM c")
    sql("CREATE TABLE c2 USING csv AS SELECT a, a * 2 AS twice FROM t")
    sql("SELECT * FROM c2")
    sql("CREATE DATABASE db")
    sql("CREATE DATABASE db")
    sql("CREATE DATABASE IF NOT EXISTS db")
    sql("CREATE TABLE db.u (a INT) USING csv")
    sql("INSERT INTO db.u VALUES (5)")
    sql("SELECT * FROM db.u")
    do("files db.u", lambda: files("spark-warehouse/db.db/u"))
    sql("SHOW TABLES IN db")
    sql("CREATE TABLE nodb.u (a INT) USING csv")
    sql("USE db")
    sql("SELECT * FROM u")
    sql("USE nodb")
    sql("USE default")
    sql("SELECT * FROM u")
    location = os.path.abspath("external")
    do("CREATE TABLE e LOCATION", lambda: spark.sql(f"CREATE TABLE e (a INT) USING parquet LOCATION '{location}'"))
    sql("INSERT INTO e VALUES (7)")
    sql("DROP TABLE e")
    do("external files kept", lambda: files("external"))
    sql("DROP TABLE t")
    do("managed files deleted", lambda: files("spark-warehouse/t"))
    sql("SELECT * FROM t")
    sql("DROP TABLE IF EXISTS t")
"""


def test_sql_create_insert_select_drop(tmp_path):
    ember = same_on_both(tmp_path, SQL_ROUND_TRIP)
    assert ["SELECT * FROM t", [[1, "x"], [2, "y"], [3, "z"]]] in ember


DATAFRAME_WRITES = """
    df = spark.createDataFrame([(1, "a"), (2, "b")], "k INT, v STRING")
    for mode in ["error", "append", "overwrite", "ignore", "append"]:
        do("saveAsTable " + mode, lambda: df.write.mode(mode).saveAsTable("sv"))
        do("after " + mode, lambda: spark.table("sv"))
    do("insertInto missing", lambda: df.write.insertInto("nosuch"))
    do("insertInto", lambda: df.select("k", "v").write.insertInto("sv"))
    do("after insertInto", lambda: spark.table("sv"))
    do("insertInto overwrite", lambda: df.write.insertInto("sv", overwrite=True))
    do("after insertInto overwrite", lambda: spark.table("sv"))
    do("json saveAsTable", lambda: df.write.format("json").saveAsTable("sj"))
    do("sj", lambda: spark.table("sj"))
    do("files sj", lambda: files("spark-warehouse/sj"))
    do("saveAsTable other format", lambda: df.write.mode("append").saveAsTable("sj"))
    do("saveAsTable by name", lambda: df.select("v", "k").write.mode("append").format("json").saveAsTable("sj"))
    do("sj again", lambda: spark.table("sj"))
    spark.sql("CREATE DATABASE d2")
    do("db saveAsTable", lambda: df.write.saveAsTable("d2.w"))
    do("d2.w", lambda: spark.read.table("d2.w"))
    do("files d2.w", lambda: files("spark-warehouse/d2.db/w"))
"""


def test_save_as_table_modes_and_insert_into(tmp_path):
    same_on_both(tmp_path, DATAFRAME_WRITES)


PATH_WRITES = """
    df = spark.createDataFrame([(1, "a"), (2, "b")], "k INT, v STRING")
    do("parquet", lambda: df.write.parquet("out/p"))
    do("read parquet", lambda: spark.read.parquet("out/p"))
    do("files p", lambda: files("out/p"))
    do("parquet again", lambda: df.write.parquet("out/p"))
    do("append", lambda: df.where("k = 1").write.mode("append").parquet("out/p"))
    do("read appended", lambda: spark.read.parquet("out/p"))
    do("overwrite as json", lambda: df.write.mode("overwrite").format("json").save("out/p"))
    do("read json", lambda: spark.read.json("out/p"))
    do("ignore", lambda: df.write.mode("ignore").csv("out/p"))
    do("read after ignore", lambda: spark.read.json("out/p"))
    do("csv", lambda: df.write.csv("out/c"))
    do("read csv", lambda: spark.read.schema("k INT, v STRING").csv("out/c"))
    do("path option", lambda: df.write.option("path", "out/o").save())
    do("read path option", lambda: spark.read.parquet("out/o"))
    do("partitioned", lambda: df.write.partitionBy("v").parquet("out/q"))
    do("files q", lambda: files("out/q"))
    do("two paths", lambda: df.write.option("path", "out/x").save("out/y"))
    do("no path", lambda: df.write.save())
"""


def test_dataframe_writes_to_paths(tmp_path):
    same_on_both(tmp_path, PATH_WRITES)


WRITER_V2 = """
    df = spark.createDataFrame([(1, "a"), (2, "b")], "k INT, v STRING")
    do("create", lambda: df.writeTo("w").using("parquet").create())
    do("w", lambda: spark.table("w"))
    do("create again", lambda: df.writeTo("w").using("parquet").create())
    do("append", lambda: df.where("k = 2").writeTo("w").append())
    do("w appended", lambda: spark.table("w"))
    do("append to missing", lambda: df.writeTo("nosuch").append())
    do("replace missing", lambda: df.writeTo("nosuch").using("parquet").replace())
    do("createOrReplace", lambda: df.select("v").writeTo("w").using("json").createOrReplace())
    do("w replaced", lambda: spark.table("w"))
    do("files w", lambda: files("spark-warehouse/w"))
    do("createOrReplace new", lambda: df.writeTo("w3").using("parquet").createOrReplace())
    do("w3", lambda: spark.table("w3"))
    sql("SHOW TABLES")
"""


def test_dataframe_writer_v2(tmp_path):
    same_on_both(tmp_path, WRITER_V2)


STREAM_TO_TABLE = """
    import time
    os.makedirs("in", exist_ok=True)
    with open("in/a.json", "w") as f:
        f.write('{"id": 1, "s": "a"}\\n{"id": 2, "s": "b"}\\n')
    stream = spark.readStream.schema("id INT, s STRING").json("in")
    q = (stream.writeStream.option("checkpointLocation", "cp")
         .trigger(availableNow=True).toTable("st"))
    q.awaitTermination()
    do("st", lambda: spark.table("st"))
    with open("in/b.json", "w") as f:
        f.write('{"id": 3, "s": "c"}\\n')
    q = (stream.writeStream.option("checkpointLocation", "cp")
         .trigger(availableNow=True).toTable("st"))
    q.awaitTermination()
    do("st again", lambda: spark.table("st"))
    do("log", lambda: [n for n in sorted(os.listdir("spark-warehouse/st/_spark_metadata")) if not n.endswith(".crc")])
    back = (spark.readStream.table("st").writeStream.format("memory").queryName("back")
            .option("checkpointLocation", "cp2").trigger(availableNow=True).start())
    back.awaitTermination()
    do("readStream.table", lambda: spark.table("back"))
"""


def test_stream_to_table_and_back(tmp_path):
    same_on_both(tmp_path, STREAM_TO_TABLE)
    # Spark reads the files Ember's stream wrote, through their _spark_metadata log.
    reader = textwrap.dedent(f"""
        do("spark reads ember's sink", lambda: spark.read.parquet({str(tmp_path / 'ember' / 'spark-warehouse' / 'st')!r}))
    """)
    (tmp_path / "reader").mkdir()
    assert run("spark", reader, tmp_path / "reader") == [
        ["spark reads ember's sink", [[1, "a"], [2, "b"], [3, "c"]]]]


def test_table_metadata_survives_the_process(tmp_path):
    """Ember only: a second process sees the first one's tables (Spark's in-memory catalog
    forgets them); DuckDB reads the managed table's parquet files."""
    import duckdb

    run("ember", """
        sql("CREATE TABLE kept (a INT, b STRING) USING parquet")
        sql("INSERT INTO kept VALUES (1, 'one'), (2, 'two')")
    """, tmp_path)
    assert run("ember", """
        sql("SHOW TABLES")
        sql("SELECT * FROM kept")
    """, tmp_path) == [["SHOW TABLES", [["default", "kept", False]]],
                       ["SELECT * FROM kept", [[1, "one"], [2, "two"]]]]
    files = str(tmp_path / "spark-warehouse" / "kept" / "*.parquet")
    assert sorted(duckdb.sql(f"SELECT a, b FROM read_parquet('{files}')").fetchall()) == [
        (1, "one"), (2, "two")]


def test_names_that_are_not_one_directory_are_refused(tmp_path):
    """Ember's rule for names that become directories (docs/iceberg.md): a table or database
    named `..` or holding '/' would put its data outside the warehouse, and DROP TABLE of a managed
    table deletes its directory: with `..` that was the warehouse's parent, the working directory."""
    keep = tmp_path / "keep.txt"
    keep.write_text("still here\n")
    out = run("ember", """
        sql("CREATE TABLE `..` (a INT) USING parquet")
        sql("DROP TABLE `..`")
        sql("CREATE TABLE `a/b` (a INT) USING parquet")
        sql("CREATE DATABASE `..`")
        do("saveAsTable", lambda: spark.range(1).write.saveAsTable("`..`"))
    """, tmp_path)
    invalid = "INVALID_SCHEMA_OR_RELATION_NAME"
    assert [(entry[0], entry[3] if entry[1] == "error" else None) for entry in out] == [
        ("CREATE TABLE `..` (a INT) USING parquet", invalid),
        ("DROP TABLE `..`", "TABLE_OR_VIEW_NOT_FOUND"),
        ("CREATE TABLE `a/b` (a INT) USING parquet", invalid),
        ("CREATE DATABASE `..`", invalid),
        ("saveAsTable", invalid),
    ]
    assert keep.read_text() == "still here\n"
