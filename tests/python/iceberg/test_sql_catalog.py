"""Iceberg's SQL (JDBC) catalog on SQLite, shared with PyIceberg's SqlCatalog and Spark's
JdbcCatalog: tables Ember creates are listed and read by PyIceberg (and Spark), tables PyIceberg
creates are read and extended by Ember, and concurrent Ember writers in separate processes lose
no commit through the catalog's compare-and-swap."""

import json
import os
import re
import sqlite3
import subprocess
import sys
import textwrap
import time
from datetime import date, datetime
from decimal import Decimal

import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog

from crash import kill_at_random_instants
from ember.errors import AnalysisException, IllegalArgumentException
from ember.sql import SparkSession
from iceberg.test_iceberg_tables import (ICEBERG_JAR, duckdb_events, run_to_table,
                                         spark_available, write_events)

SQLITE_JAR = os.path.expanduser(
    "~/.m2/repository/org/xerial/sqlite-jdbc/3.50.3.0/sqlite-jdbc-3.50.3.0.jar")
METADATA_FILE = re.compile(r"(\d{5})-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                           r"[0-9a-f]{12}\.metadata\.json")


def session(db, warehouse, name="local"):
    prefix = f"spark.sql.catalog.{name}"
    return (SparkSession.builder
            .config(prefix, "org.apache.iceberg.spark.SparkCatalog")
            .config(f"{prefix}.type", "jdbc")
            .config(f"{prefix}.uri", f"jdbc:sqlite:{db}")
            .config(f"{prefix}.warehouse", str(warehouse))
            .getOrCreate())


def pyiceberg(db, warehouse, name="local"):
    return SqlCatalog(name, uri=f"sqlite:///{db}", warehouse=f"file://{warehouse}")


def tables_in(spark, namespace):
    """SHOW TABLES without the session's temporary views (which Spark lists too)."""
    return [r.tableName for r in spark.sql(f"SHOW TABLES IN {namespace}").collect() if not r.isTemporary]


def catalog_rows(db, table):
    with sqlite3.connect(db) as connection:
        return connection.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3").fetchall()


def rows_of(arrow_table):
    """Rows by their first column; timestamps with a zone (UTC) as Ember's naive UTC ones."""
    def plain(v):
        return v.replace(tzinfo=None) if isinstance(v, datetime) and v.tzinfo else v
    return sorted((tuple(plain(v) for v in r.values()) for r in arrow_table.to_pylist()),
                  key=lambda r: r[0])


COLUMNS = ("id BIGINT, name STRING, ts TIMESTAMP, d DATE, amount DECIMAL(10,2), ok BOOLEAN, "
           "score DOUBLE")
ROWS = [
    (1, "a", datetime(2024, 5, 1, 10, 0), date(2024, 5, 1), Decimal("12.50"), True, 0.5),
    (2, None, None, None, None, None, None),
    (3, "c", datetime(1969, 12, 31, 23, 59, 59), date(1960, 1, 1), Decimal("-1.25"), False, -2.0),
    (4, "dd", datetime(2030, 1, 1), date(2030, 1, 1), Decimal("99999999.99"), True, 1e10),
]


def test_ember_tables_listed_and_read_by_pyiceberg(tmp_path):
    db, warehouse = tmp_path / "catalog.db", tmp_path / "wh"
    spark = session(db, warehouse)
    spark.sql("CREATE NAMESPACE local.db")
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.db")
    spark.sql("CREATE NAMESPACE local.other")
    spark.sql(f"CREATE TABLE local.db.t ({COLUMNS}) USING iceberg")
    spark.sql("INSERT INTO local.db.t VALUES (1, 'a', TIMESTAMP '2024-05-01 10:00:00', "
              "DATE '2024-05-01', 12.50, true, 0.5), (2, NULL, NULL, NULL, NULL, NULL, NULL)")
    spark.sql("INSERT INTO local.db.t VALUES (3, 'c', TIMESTAMP '1969-12-31 23:59:59', "
              "DATE '1960-01-01', -1.25, false, -2.0)")
    spark.createDataFrame([ROWS[3]], spark.table("local.db.t").schema).writeTo("local.db.t").append()
    frame = spark.createDataFrame([(i, f"n{i}") for i in range(30)], "k INT, v STRING")
    frame.writeTo("local.db.w").create()
    frame.where("k < 5").writeTo("local.db.w").append()

    assert sorted(r.namespace for r in spark.sql("SHOW NAMESPACES IN local").collect()) == ["db", "other"]
    assert tables_in(spark, "local.db") == ["t", "w"]
    with pytest.raises(AnalysisException, match="SCHEMA_ALREADY_EXISTS"):
        spark.sql("CREATE NAMESPACE local.db")
    with pytest.raises(AnalysisException, match="SCHEMA_NOT_EMPTY"):
        spark.sql("DROP NAMESPACE local.db")
    with pytest.raises(AnalysisException, match="SCHEMA_NOT_FOUND"):
        spark.sql("CREATE TABLE local.nowhere.t (x INT)")

    catalog = pyiceberg(db, warehouse)
    assert sorted(catalog.list_namespaces()) == [("db",), ("other",)]
    assert sorted(catalog.list_tables("db")) == [("db", "t"), ("db", "w")]
    table = catalog.load_table("db.t")
    assert [(f.name, str(f.field_type)) for f in table.schema().fields] == [
        ("id", "long"), ("name", "string"), ("ts", "timestamptz"), ("d", "date"),
        ("amount", "decimal(10, 2)"), ("ok", "boolean"), ("score", "double")]
    # The same rows in PyIceberg and in Ember, with the types each reads.
    full = table.scan().to_arrow()
    assert full.num_rows == len(ROWS)
    assert rows_of(full) == ROWS
    assert sorted(tuple(r) for r in spark.table("local.db.t").collect()) == ROWS
    assert [(f.name, f.dataType.simpleString()) for f in spark.table("local.db.t").schema] == [
        ("id", "bigint"), ("name", "string"), ("ts", "timestamp"), ("d", "date"),
        ("amount", "decimal(10,2)"), ("ok", "boolean"), ("score", "double")]
    # Filtered scans (pruned with the manifests' bounds) equal the full scan filtered.
    for expression, keep in [("id >= 3", lambda r: r[0] >= 3),
                              ("name == 'c'", lambda r: r[1] == "c"),
                              ("d < '2000-01-01'", lambda r: r[3] is not None and r[3] < date(2000, 1, 1)),
                              ("name is null", lambda r: r[1] is None),
                              ("score > 100.0", lambda r: r[6] is not None and r[6] > 100)]:
        assert rows_of(table.scan(row_filter=expression).to_arrow()) == [r for r in ROWS if keep(r)]
    w = catalog.load_table("db.w").scan().to_arrow()
    assert sorted(tuple(r.values()) for r in w.to_pylist()) == sorted(
        [(i, f"n{i}") for i in range(30)] + [(i, f"n{i}") for i in range(5)])
    assert len(table.inspect.snapshots()) == 3

    # The catalog rows as Java and PyIceberg keep them.
    tables = catalog_rows(db, "iceberg_tables")
    assert [r[:3] for r in tables] == [("local", "db", "t"), ("local", "db", "w")]
    _, _, _, current, previous = tables[0]
    assert current == table.metadata_location
    metadata = warehouse / "db" / "t" / "metadata"
    assert current == str(metadata / os.path.basename(current))
    versions = sorted(METADATA_FILE.fullmatch(n).group(1) for n in os.listdir(metadata)
                      if n.endswith(".metadata.json"))
    assert versions == ["00000", "00001", "00002", "00003"]  # create and three commits
    assert METADATA_FILE.fullmatch(os.path.basename(current)).group(1) == "00003"
    assert METADATA_FILE.fullmatch(os.path.basename(previous)).group(1) == "00002"
    log = json.loads(open(current).read())["metadata-log"]
    assert [e["metadata-file"] for e in log][-1] == previous
    assert catalog_rows(db, "iceberg_namespace_properties") == [
        ("local", "db", "exists", "true"), ("local", "other", "exists", "true")]

    spark.sql("DROP TABLE local.db.w")  # the row goes, the files stay (Java's DROP without PURGE)
    assert catalog.list_tables("db") == [("db", "t")]
    assert os.path.isdir(warehouse / "db" / "w" / "data")
    spark.sql("DROP NAMESPACE local.other")
    assert catalog.list_namespaces() == [("db",)]
    spark.sql("DROP NAMESPACE local.db CASCADE")  # purges its tables
    assert catalog.list_namespaces() == [] and catalog_rows(db, "iceberg_tables") == []
    assert not os.path.exists(warehouse / "db" / "t")


def test_streaming_to_table_across_a_restart(tmp_path):
    db, warehouse = tmp_path / "catalog.db", tmp_path / "wh"
    source, checkpoint = tmp_path / "in", tmp_path / "cp"
    source.mkdir()
    spark = session(db, warehouse)
    spark.sql("CREATE NAMESPACE local.stream")
    write_events(source, "a.json", 0, 20)
    write_events(source, "b.json", 20, 20)
    # toTable creates the table on first use.
    query = run_to_table(spark, str(source), "local.stream.events", str(checkpoint))
    write_events(source, "c.json", 40, 15)
    run_to_table(spark, str(source), "local.stream.events", str(checkpoint))  # the restart
    run_to_table(spark, str(source), "local.stream.events", str(checkpoint))  # nothing new
    table = pyiceberg(db, warehouse).load_table("stream.events")
    got = sorted(tuple(r.values()) for r in table.scan().to_arrow().to_pylist())
    assert got == duckdb_events(source)
    summaries = [dict(s["summary"]) for s in table.inspect.snapshots().to_pylist()]
    assert [(s["ember.query-id"], s["ember.batch-id"]) for s in summaries] == [
        (query.id, "0"), (query.id, "1")]
    assert sorted(tuple(r) for r in spark.table("local.stream.events").collect()) == got


STREAM_JOB = textwrap.dedent("""
    import sys
    from ember.sql import SparkSession
    source, db, warehouse, checkpoint = sys.argv[1:5]
    spark = (SparkSession.builder.config("spark.sql.catalog.local.type", "jdbc")
             .config("spark.sql.catalog.local.uri", "jdbc:sqlite:" + db)
             .config("spark.sql.catalog.local.warehouse", warehouse).getOrCreate())
    q = (spark.readStream.schema("event_id INT, company_id STRING, amount DOUBLE, event_ts STRING")
         .option("maxFilesPerTrigger", 1).json(source)
         .writeStream.option("checkpointLocation", checkpoint).trigger(availableNow=True)
         .toTable("local.stream.events"))
    print("started", flush=True)
    q.processAllAvailable()
    q.stop()
""")


def test_stream_killed_at_random_instants_commits_each_batch_once(tmp_path):
    db, warehouse = tmp_path / "catalog.db", tmp_path / "wh"
    source, checkpoint = tmp_path / "in", tmp_path / "cp"
    source.mkdir()
    session(db, warehouse).sql("CREATE NAMESPACE local.stream")
    # Enough one-file batches that the job is still running when the kills come.
    for i in range(200):
        write_events(source, f"f{i:03d}.json", i * 7, 7)
        os.utime(source / f"f{i:03d}.json", (1_700_000_000 + i, 1_700_000_000 + i))
    job = tmp_path / "job.py"
    job.write_text(STREAM_JOB)
    args = [sys.executable, str(job), str(source), str(db), str(warehouse), str(checkpoint)]
    assert kill_at_random_instants(args, seed=7) == 3, "the job ended before 3 kills"
    subprocess.run(args, check=True, timeout=300)
    table = pyiceberg(db, warehouse).load_table("stream.events")
    assert sorted(tuple(r.values()) for r in table.scan().to_arrow().to_pylist()) == duckdb_events(source)
    summaries = [dict(s["summary"]) for s in table.inspect.snapshots().to_pylist()]
    batch_ids = [int(s["ember.batch-id"]) for s in summaries if "ember.batch-id" in s]
    # The commit log keeps the last 100 batches (spark.sql.streaming.minBatchesToRetain).
    commits = sorted(int(n) for n in os.listdir(checkpoint / "commits") if n.isdigit())
    assert sorted(batch_ids) == list(range(len(batch_ids)))
    assert commits == list(range(len(batch_ids)))[-len(commits):] and len(commits) >= 100


def test_pyiceberg_tables_read_and_extended_by_ember(tmp_path):
    db, warehouse = tmp_path / "catalog.db", tmp_path / "wh"
    catalog = pyiceberg(db, warehouse, name="shared")
    catalog.create_namespace("sales")
    schema = pa.schema([("id", pa.int64()), ("name", pa.string()), ("price", pa.float64()),
                        ("day", pa.date32()), ("at", pa.timestamp("us"))])
    table = catalog.create_table("sales.orders", schema=schema)
    first = [(1, "x", 2.5, date(2024, 1, 1), datetime(2024, 1, 1, 8, 30)),
             (2, None, None, None, None)]
    table.append(pa.Table.from_pylist([dict(zip(schema.names, r)) for r in first], schema=schema))

    # Ember through catalog-impl and PyIceberg's own URI form.
    spark = (SparkSession.builder
             .config("spark.sql.catalog.shared", "org.apache.iceberg.spark.SparkCatalog")
             .config("spark.sql.catalog.shared.catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog")
             .config("spark.sql.catalog.shared.uri", f"sqlite:///{db}")
             .config("spark.sql.catalog.shared.warehouse", f"file://{warehouse}")
             .getOrCreate())
    assert [r.namespace for r in spark.sql("SHOW NAMESPACES IN shared").collect()] == ["sales"]
    assert tables_in(spark, "shared.sales") == ["orders"]
    assert sorted(tuple(r) for r in spark.table("shared.sales.orders").collect()) == first
    assert [(f.name, f.dataType.simpleString()) for f in spark.table("shared.sales.orders").schema] == [
        ("id", "bigint"), ("name", "string"), ("price", "double"), ("day", "date"),
        ("at", "timestamp_ntz")]

    spark.sql("INSERT INTO shared.sales.orders VALUES (3, 'ember', 1.0, DATE '2024-02-02', "
              "TIMESTAMP_NTZ '2024-02-02 12:00:00')")
    added = (3, "ember", 1.0, date(2024, 2, 2), datetime(2024, 2, 2, 12, 0))
    table = catalog.load_table("sales.orders")
    assert sorted(tuple(r.values()) for r in table.scan().to_arrow().to_pylist()) == sorted(
        first + [added], key=lambda r: r[0])
    # Ember's data file sits under PyIceberg's file:// location, the commit followed its naming.
    files = [f["file_path"] for f in table.inspect.files().to_pylist()]
    assert len(files) == 2 and all(f.startswith(f"file://{warehouse}/sales/orders/data/") for f in files)
    assert os.path.basename(table.metadata_location).startswith("00002-")
    # PyIceberg commits on top of Ember's commit.
    table.append(pa.Table.from_pylist([dict(zip(schema.names, (4, "py", 4.0, None, None)))],
                                      schema=schema))
    assert sorted(r.id for r in spark.table("shared.sales.orders").collect()) == [1, 2, 3, 4]


def test_pyiceberg_appends_to_an_ember_table(tmp_path):
    db, warehouse = tmp_path / "catalog.db", tmp_path / "wh"
    spark = session(db, warehouse)
    spark.sql("CREATE NAMESPACE local.db")
    spark.sql("CREATE TABLE local.db.t (id BIGINT, tag STRING, amount DOUBLE)")
    spark.sql("INSERT INTO local.db.t VALUES (1, 'ember', 1.5), (2, NULL, NULL)")
    table = pyiceberg(db, warehouse).load_table("db.t")
    table.append(pa.table({"id": pa.array([10, 11], pa.int64()), "tag": ["py", "py"],
                           "amount": [10.0, None]}))
    expected = [(1, "ember", 1.5), (2, None, None), (10, "py", 10.0), (11, "py", None)]
    assert sorted(tuple(r) for r in spark.table("local.db.t").collect()) == expected
    spark.sql("INSERT INTO local.db.t VALUES (20, 'ember again', 20.0)")
    table = pyiceberg(db, warehouse).load_table("db.t")
    got = sorted(tuple(r.values()) for r in table.scan().to_arrow().to_pylist())
    assert got == expected + [(20, "ember again", 20.0)]
    assert [s["operation"] for s in table.inspect.snapshots().to_pylist()] == ["append"] * 3


WRITER = textwrap.dedent("""
    import sys, time
    from ember.sql import SparkSession
    db, warehouse, writer, start = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    spark = (SparkSession.builder.config("spark.sql.catalog.local.type", "jdbc")
             .config("spark.sql.catalog.local.uri", "jdbc:sqlite:" + db)
             .config("spark.sql.catalog.local.warehouse", warehouse).getOrCreate())
    time.sleep(max(0.0, start - time.time()))
    for i in range(20):
        spark.sql(f"INSERT INTO local.db.t VALUES ({writer}, {i})")
""")


def test_concurrent_writers_lose_no_commit(tmp_path):
    db, warehouse = tmp_path / "catalog.db", tmp_path / "wh"
    spark = session(db, warehouse)
    spark.sql("CREATE NAMESPACE local.db")
    spark.sql("CREATE TABLE local.db.t (writer INT, i INT)")
    job = tmp_path / "writer.py"
    job.write_text(WRITER)
    start = time.time() + 3  # both start once their imports are done
    writers = [subprocess.Popen([sys.executable, str(job), str(db), str(warehouse), str(w), str(start)],
                                stderr=subprocess.PIPE, text=True) for w in (1, 2)]
    for w in writers:
        _, stderr = w.communicate(timeout=300)
        assert w.returncode == 0, stderr[-4000:]
    expected = sorted((w, i) for w in (1, 2) for i in range(20))
    assert sorted(tuple(r) for r in spark.table("local.db.t").collect()) == expected
    table = pyiceberg(db, warehouse).load_table("db.t")
    assert sorted(tuple(r.values()) for r in table.scan().to_arrow().to_pylist()) == expected
    snapshots = table.inspect.snapshots().to_pylist()
    assert len(snapshots) == 40
    # One linear history: each commit's parent is the one before.
    assert [s["parent_id"] for s in snapshots[1:]] == [s["snapshot_id"] for s in snapshots[:-1]]
    # Version 00000 and the 40 commits: every metadata file is a committed version (a losing
    # attempt removes its own), numbered without a gap.
    names = [n for n in os.listdir(warehouse / "db" / "t" / "metadata") if n.endswith(".metadata.json")]
    assert sorted(int(METADATA_FILE.fullmatch(n).group(1)) for n in names) == list(range(41))


def test_schema_v1_marks_tables_and_ignores_views(tmp_path):
    db, warehouse = tmp_path / "catalog.db", tmp_path / "wh"
    pyiceberg(db, warehouse, name="v1").create_namespace("db")  # a V0 database, as PyIceberg makes
    spark = session(db, warehouse, name="v1")
    spark.conf.set("spark.sql.catalog.v1.jdbc.schema-version", "V1")  # Java's migration to V1
    spark.sql("CREATE TABLE v1.db.t (id INT)")
    spark.sql("INSERT INTO v1.db.t VALUES (1)")
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT table_name, iceberg_type FROM iceberg_tables").fetchall() == [
            ("t", "TABLE")]
        # A view Java wrote, and a table row from before the migration (type NULL).
        connection.execute("INSERT INTO iceberg_tables VALUES ('v1', 'db', 'v', '/nowhere.json', NULL, "
                           "'VIEW')")
        connection.execute("UPDATE iceberg_tables SET iceberg_type = NULL WHERE table_name = 't'")
    assert tables_in(spark, "v1.db") == ["t"]
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.table("v1.db.v")
    spark.sql("INSERT INTO v1.db.t VALUES (2)")  # a V0 row commits in a V1 database
    assert sorted(r.id for r in spark.table("v1.db.t").collect()) == [1, 2]
    spark.conf.unset("spark.sql.catalog.v1.jdbc.schema-version")


def test_bad_catalog_options_name_the_option(tmp_path):
    spark = SparkSession.builder.getOrCreate()
    prefix = "spark.sql.catalog.broken"
    spark.conf.set(f"{prefix}.type", "jdbc")
    spark.conf.set(f"{prefix}.warehouse", str(tmp_path / "wh"))
    with pytest.raises(IllegalArgumentException, match=re.escape(f"set {prefix}.uri")):
        spark.sql("CREATE NAMESPACE broken.db")
    spark.conf.set(f"{prefix}.uri", "jdbc:postgresql://localhost/iceberg")
    with pytest.raises(IllegalArgumentException,
                       match=re.escape(f"in {prefix}.uri: 'jdbc:postgresql' is not SQLite")):
        spark.sql("CREATE NAMESPACE broken.db")
    spark.conf.set(f"{prefix}.uri", f"jdbc:sqlite:{tmp_path}/no/such/dir/catalog.db")
    with pytest.raises(IllegalArgumentException, match=re.escape(f"of {prefix}.uri=jdbc:sqlite:")):
        spark.sql("CREATE NAMESPACE broken.db")
    spark.conf.set(f"{prefix}.uri", f"jdbc:sqlite:{tmp_path}/catalog.db")
    spark.conf.set(f"{prefix}.warehouse", "s3://bucket/wh")
    with pytest.raises(IllegalArgumentException, match=re.escape(f"in {prefix}.warehouse")):
        spark.sql("CREATE NAMESPACE broken.db")
    spark.conf.set(f"{prefix}.type", "rest")
    with pytest.raises(IllegalArgumentException, match=re.escape(f"{prefix}.type")):
        spark.sql("CREATE NAMESPACE broken.db")
    spark.conf.unset(f"{prefix}.type")
    spark.conf.unset(f"{prefix}.warehouse")


SPARK_JDBC = textwrap.dedent("""
    import sys
    from pyspark.sql import SparkSession
    jars, db, warehouse = sys.argv[1:4]
    spark = (SparkSession.builder.master("local[2]").config("spark.jars", jars)
             .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
             .config("spark.sql.catalog.local.type", "jdbc")
             .config("spark.sql.catalog.local.uri", "jdbc:sqlite:" + db)
             .config("spark.sql.catalog.local.warehouse", warehouse)
             .config("spark.sql.session.timeZone", "UTC").config("spark.ui.enabled", "false")
             .getOrCreate())
    assert [r.namespace for r in spark.sql("SHOW NAMESPACES IN local").collect()] == ["db"]
    rows = [tuple(r) for r in spark.sql("SELECT * FROM local.db.t ORDER BY id").collect()]
    assert rows == [(1, "a", 0.5), (2, None, None)], rows
    spark.sql("INSERT INTO local.db.t VALUES (3, 'spark', 3.0)")
    spark.sql("CREATE TABLE local.db.s (x INT) USING iceberg")
    spark.sql("INSERT INTO local.db.s VALUES (7)")
    spark.stop()
""")


@pytest.mark.skipif(not spark_available() or not os.path.exists(SQLITE_JAR),
                    reason="Spark or SQLite's JDBC driver is missing")
def test_spark_jdbc_catalog_shares_the_tables(tmp_path):
    db, warehouse = tmp_path / "catalog.db", tmp_path / "wh"
    spark = session(db, warehouse)
    spark.sql("CREATE NAMESPACE local.db")
    spark.sql("CREATE TABLE local.db.t (id BIGINT, name STRING, score DOUBLE)")
    spark.sql("INSERT INTO local.db.t VALUES (1, 'a', 0.5), (2, NULL, NULL)")
    script = tmp_path / "spark_jdbc.py"
    script.write_text(SPARK_JDBC)
    result = subprocess.run([sys.executable, str(script), f"{ICEBERG_JAR},{SQLITE_JAR}", str(db),
                             str(warehouse)],
                            capture_output=True, text=True, timeout=600, env={**os.environ, "TZ": "UTC"})
    assert result.returncode == 0, result.stderr[-4000:]
    # Ember reads the commit and the table Spark made.
    assert sorted(tuple(r) for r in spark.table("local.db.t").collect()) == [
        (1, "a", 0.5), (2, None, None), (3, "spark", 3.0)]
    assert [tuple(r) for r in spark.table("local.db.s").collect()] == [(7,)]
    assert os.path.isdir(warehouse / "db" / "s" / "data")  # Java's default location, as Ember's
