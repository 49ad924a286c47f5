"""Iceberg tables written by Ember, read back by PyIceberg (an independent reader), and a
streaming sink that commits each micro-batch exactly once, even when killed at random instants."""

import json
import os
import subprocess
import sys
import textwrap
import time

import duckdb
import pytest
from pyiceberg.table import StaticTable

from crash import kill_at_random_instants
from ember.sql import SparkSession

SCHEMA = "event_id INT, company_id STRING, amount DOUBLE, event_ts STRING"


def session(warehouse):
    return (SparkSession.builder
            .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
            .config("spark.sql.catalog.local.type", "hadoop")
            .config("spark.sql.catalog.local.warehouse", str(warehouse))
            .getOrCreate())


def static_table(warehouse, *ident):
    metadata = os.path.join(warehouse, *ident, "metadata")
    with open(os.path.join(metadata, "version-hint.text")) as hint:
        version = hint.read()
    return StaticTable.from_metadata(os.path.join(metadata, f"v{version}.metadata.json"))


def duckdb_iceberg():
    """A DuckDB connection with the iceberg extension of the duckdb-ext-iceberg wheel loaded."""
    extensions = os.path.join(os.path.dirname(duckdb.__file__), os.pardir, "duckdb_ext", "extensions",
                              duckdb.__version__.join(["v", ""]), "linux_amd64")
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    for name in ("avro", "iceberg"):  # iceberg would download avro otherwise
        con.execute(f"LOAD '{os.path.abspath(os.path.join(extensions, name))}.duckdb_extension'")
    return con


def assert_duckdb_reads(warehouse, *ident):
    """DuckDB's iceberg_scan of a table equals PyIceberg's scan of it, row for row."""
    location = os.path.join(warehouse, *ident)
    con = duckdb_iceberg()
    duck = con.sql(f"SELECT * FROM iceberg_scan('{location}')").fetch_arrow_table()
    pyiceberg = static_table(warehouse, *ident).scan().to_arrow()
    assert duck.column_names == pyiceberg.column_names
    def key(row):
        return repr(sorted((k, str(v)) for k, v in row.items()))
    assert sorted(map(key, duck.to_pylist())) == sorted(map(key, pyiceberg.to_pylist()))
    return duck.num_rows


def write_events(directory, name, first_id, count):
    with open(os.path.join(directory, name), "w") as out:
        for i in range(first_id, first_id + count):
            out.write(json.dumps({"event_id": i, "company_id": f"c{i % 4}", "amount": i / 4,
                                  "event_ts": f"2024-01-01 10:{i % 60:02d}:00"}) + "\n")


def duckdb_events(directory):
    return sorted(tuple(r) for r in duckdb.sql(
        f"SELECT event_id, company_id, amount, event_ts FROM read_json('{directory}/*.json', "
        "columns = {'event_id': 'INTEGER', 'company_id': 'VARCHAR', 'amount': 'DOUBLE', "
        "'event_ts': 'VARCHAR'})").fetchall())


def table_rows(warehouse):
    rows = static_table(warehouse, "stream", "events").scan().to_arrow().to_pylist()
    return sorted((r["event_id"], r["company_id"], r["amount"], r["event_ts"]) for r in rows)


def test_batch_writes_read_back_by_pyiceberg(tmp_path):
    warehouse = tmp_path / "wh"
    (warehouse / "db").mkdir(parents=True)
    spark = session(warehouse)
    rows = [(i, f"n{i}", i * 0.5, None if i % 3 == 0 else f"t{i}") for i in range(50)]
    df = spark.createDataFrame(rows, SCHEMA)
    df.writeTo("local.db.t").create()
    df.where("event_id < 10").writeTo("local.db.t").append()
    table = static_table(warehouse, "db", "t")
    got = sorted(tuple(r.values()) for r in table.scan().to_arrow().to_pylist())
    assert got == sorted(rows + [r for r in rows if r[0] < 10])
    # The same rows through Ember's own reader.
    assert sorted(tuple(r) for r in spark.table("local.db.t").collect()) == got
    snapshots = table.inspect.snapshots().to_pylist()
    assert len(snapshots) == 2
    summary = dict(snapshots[-1]["summary"])
    assert summary["total-records"] == "60" and summary["added-records"] == "10"
    files = table.inspect.files().to_pylist()
    assert sorted(f["record_count"] for f in files) == [10, 50]
    for f in files:
        assert f["file_size_in_bytes"] == os.path.getsize(f["file_path"])
    assert assert_duckdb_reads(warehouse, "db", "t") == 60
    hint = (warehouse / "db" / "t" / "metadata" / "version-hint.text").read_bytes()
    assert hint == b"3"  # create, append, append: no trailing newline
    metadata = json.loads((warehouse / "db" / "t" / "metadata" / "v3.metadata.json").read_text())
    assert metadata["refs"]["main"]["snapshot-id"] == metadata["current-snapshot-id"]
    assert metadata["format-version"] == 2


def test_overwrite_replaces_the_rows(tmp_path):
    warehouse = tmp_path / "wh"
    (warehouse / "db").mkdir(parents=True)
    spark = session(warehouse)
    spark.createDataFrame([(1, "a", 1.0, "x")], SCHEMA).writeTo("local.db.t").create()
    spark.createDataFrame([(2, "b", 2.0, "y")], SCHEMA).write.mode("overwrite").saveAsTable("local.db.t")
    table = static_table(warehouse, "db", "t")
    assert [r["event_id"] for r in table.scan().to_arrow().to_pylist()] == [2]
    assert table.inspect.snapshots().to_pylist()[-1]["operation"] == "overwrite"


def run_to_table(spark, source, table, checkpoint):
    query = (spark.readStream.schema(SCHEMA).format("json").load(source)
             .writeStream.option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).toTable(table))
    query.processAllAvailable()
    query.stop()
    return query


def test_streaming_to_table_exactly_once_across_restarts(tmp_path):
    warehouse, source, checkpoint = tmp_path / "wh", tmp_path / "in", tmp_path / "cp"
    (warehouse / "stream").mkdir(parents=True)
    source.mkdir()
    spark = session(warehouse)
    spark.createDataFrame([], SCHEMA).writeTo("local.stream.events").create()
    write_events(source, "a.json", 0, 20)
    write_events(source, "b.json", 20, 20)
    query = run_to_table(spark, str(source), "local.stream.events", str(checkpoint))
    write_events(source, "c.json", 40, 15)
    run_to_table(spark, str(source), "local.stream.events", str(checkpoint))
    run_to_table(spark, str(source), "local.stream.events", str(checkpoint))
    assert table_rows(warehouse) == duckdb_events(source)
    assert assert_duckdb_reads(warehouse, "stream", "events") == 55
    summaries = [dict(s["summary"]) for s in
                 static_table(warehouse, "stream", "events").inspect.snapshots().to_pylist()]
    batches = [(s["ember.query-id"], s["ember.batch-id"]) for s in summaries if "ember.batch-id" in s]
    assert batches == [(query.id, "0"), (query.id, "1")]


@pytest.mark.parametrize("hint_behind", [False, True], ids=["hint_current", "hint_behind"])
def test_a_batch_committed_before_a_crash_is_not_written_again(tmp_path, hint_behind):
    """The crash: the table has batch 0's snapshot, the checkpoint lacks commits/0. With
    `hint_behind`, the kill also came between the commit's metadata file and its version hint
    (written second, as Java's Hadoop tables write it): the catalog probes past the hint, finds
    the batch committed and writes it neither again nor over that version."""
    warehouse, source, checkpoint = tmp_path / "wh", tmp_path / "in", tmp_path / "cp"
    (warehouse / "stream").mkdir(parents=True)
    source.mkdir()
    spark = session(warehouse)
    spark.createDataFrame([], SCHEMA).writeTo("local.stream.events").create()
    write_events(source, "a.json", 0, 10)
    run_to_table(spark, str(source), "local.stream.events", str(checkpoint))
    metadata = warehouse / "stream" / "events" / "metadata"
    committed = int((metadata / "version-hint.text").read_text())
    if hint_behind:
        (metadata / "version-hint.text").write_text(str(committed - 1))
    os.remove(checkpoint / "commits" / "0")
    run_to_table(spark, str(source), "local.stream.events", str(checkpoint))
    assert not (metadata / f"v{committed + 1}.metadata.json").exists()
    latest = StaticTable.from_metadata(str(metadata / f"v{committed}.metadata.json"))
    rows = latest.scan().to_arrow().to_pylist()
    want = duckdb_events(source)
    assert sorted((r["event_id"], r["company_id"], r["amount"], r["event_ts"]) for r in rows) == want
    assert sorted(tuple(r) for r in spark.table("local.stream.events").collect()) == want
    assert (checkpoint / "commits" / "0").exists()


def test_a_large_batch_runs_as_one_task_per_core(tmp_path):
    """A batch of many files, each worth a task (spark.sql.files.openCostInBytes is 1 byte), runs
    as one task per core, each task running the query over its files and writing a data file;
    the batch is still one snapshot, and a re-run of it after a crash writes nothing."""
    warehouse, source, checkpoint = tmp_path / "wh", tmp_path / "in", tmp_path / "cp"
    (warehouse / "stream").mkdir(parents=True)
    source.mkdir()
    for i in range(12):
        write_events(source, f"f{i:02d}.json", i * 50, 50 + i)
    spark = session(warehouse)
    spark.conf.set("spark.sql.files.openCostInBytes", "1")
    query = (spark.readStream.schema(SCHEMA).json(str(source))
             .where("event_id % 3 <> 0")
             .selectExpr("event_id", "upper(company_id) AS company_id", "amount * 2 AS amount",
                         "event_ts")
             .writeStream.option("checkpointLocation", str(checkpoint))
             .trigger(availableNow=True).toTable("local.stream.events"))
    query.processAllAvailable()
    query.stop()
    expected = sorted(tuple(r) for r in duckdb.sql(
        f"SELECT event_id, upper(company_id), amount * 2, event_ts FROM read_json('{source}/*.json', "
        "columns = {'event_id': 'INTEGER', 'company_id': 'VARCHAR', 'amount': 'DOUBLE', "
        "'event_ts': 'VARCHAR'}) WHERE event_id % 3 <> 0").fetchall())
    assert table_rows(warehouse) == expected
    assert assert_duckdb_reads(warehouse, "stream", "events") == len(expected)
    [snapshot] = static_table(warehouse, "stream", "events").inspect.snapshots().to_pylist()
    assert int(dict(snapshot["summary"])["added-data-files"]) == min(os.cpu_count() or 1, 12)
    progress = query.lastProgress
    assert progress["numInputRows"] == sum(50 + i for i in range(12))
    assert progress["sink"]["numOutputRows"] == len(expected)
    # The crash after the table's commit, before the checkpoint's.
    os.remove(checkpoint / "commits" / "0")
    run_to_table(spark, str(source), "local.stream.events", str(checkpoint))
    assert table_rows(warehouse) == expected


JOB = textwrap.dedent("""
    import sys, time
    from ember.sql import SparkSession
    source, warehouse, checkpoint = sys.argv[1:4]
    spark = (SparkSession.builder.config("spark.sql.catalog.local.type", "hadoop")
             .config("spark.sql.catalog.local.warehouse", warehouse).getOrCreate())
    q = (spark.readStream.schema("event_id INT, company_id STRING, amount DOUBLE, event_ts STRING")
         .option("maxFilesPerTrigger", 1).json(source)
         .writeStream.option("checkpointLocation", checkpoint).trigger(availableNow=True)
         .toTable("local.stream.events"))
    print("started", flush=True)
    q.processAllAvailable()
    q.stop()
""")


def test_killed_at_random_instants_the_table_holds_each_row_once(tmp_path):
    warehouse, source, checkpoint = tmp_path / "wh", tmp_path / "in", tmp_path / "cp"
    (warehouse / "stream").mkdir(parents=True)
    source.mkdir()
    session(warehouse).createDataFrame([], SCHEMA).writeTo("local.stream.events").create()
    # Enough one-file batches that the job is still running when the kills come.
    for i in range(200):
        write_events(source, f"f{i:03d}.json", i * 7, 7)
        os.utime(source / f"f{i:03d}.json", (1_700_000_000 + i, 1_700_000_000 + i))
    job = tmp_path / "job.py"
    job.write_text(JOB)
    args = [sys.executable, str(job), str(source), str(warehouse), str(checkpoint)]
    assert kill_at_random_instants(args, seed=5) == 3, "the job ended before 3 kills"
    subprocess.run(args, check=True, timeout=120)
    assert table_rows(warehouse) == duckdb_events(source)
    assert assert_duckdb_reads(warehouse, "stream", "events") == len(duckdb_events(source))
    summaries = [dict(s["summary"]) for s in
                 static_table(warehouse, "stream", "events").inspect.snapshots().to_pylist()]
    batch_ids = [int(s["ember.batch-id"]) for s in summaries if "ember.batch-id" in s]
    # Each batch committed exactly once. After a kill between logging a source entry and logging
    # the batch, two files may share a batch (as in Spark), so there can be fewer batches than files.
    # The commit log keeps the last 100 batches (spark.sql.streaming.minBatchesToRetain).
    commits = sorted(int(n) for n in os.listdir(checkpoint / "commits") if n.isdigit())
    assert sorted(batch_ids) == list(range(len(batch_ids)))
    assert commits == list(range(len(batch_ids)))[-len(commits):] and len(commits) >= 100


def spark_available():
    import shutil

    if os.environ.get("EMBER_TEST_SPARK", "1") == "0" or shutil.which("java") is None:
        return False
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return False
    return True


ICEBERG_JAR = os.path.expanduser(
    "~/.m2/repository/org/apache/iceberg/iceberg-spark-runtime-4.0_2.13/1.10.0/"
    "iceberg-spark-runtime-4.0_2.13-1.10.0.jar")


# The real Spark with Iceberg's runtime and the Hadoop catalog `local` on `warehouse`: the
# start of the scripts that run in a JVM of their own, once they have set `jar` and `warehouse`.
SPARK_SESSION = textwrap.dedent("""
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").config("spark.jars", jar)
             .config("spark.sql.extensions",
                     "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
             .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
             .config("spark.sql.catalog.local.type", "hadoop")
             .config("spark.sql.catalog.local.warehouse", warehouse)
             .config("spark.sql.session.timeZone", "UTC").config("spark.ui.enabled", "false")
             .getOrCreate())
""")


SPARK_READER = textwrap.dedent("""
    import datetime, decimal, sys
    jar, warehouse = sys.argv[1:3]
""") + SPARK_SESSION + textwrap.dedent("""
    rows = [tuple(r) for r in spark.sql("SELECT * FROM local.db.t ORDER BY id").collect()]
    assert rows == [
        (1, "a", datetime.datetime(2024, 5, 1, 10, 0), datetime.date(2024, 5, 1),
         decimal.Decimal("12.50"), True),
        (2, None, None, None, None, None),
        (3, "c", datetime.datetime(1969, 12, 31, 23, 59, 59), datetime.date(1960, 1, 1),
         decimal.Decimal("-1.25"), False),
    ], rows
    # Spark answers these from the manifests' metrics: wrong bounds or counts would show.
    stats = tuple(spark.sql("SELECT count(*), min(id), max(id), min(d) FROM local.db.t").collect()[0])
    assert stats == (3, 1, 3, datetime.date(1960, 1, 1)), stats
    assert spark.sql("SELECT * FROM local.db.t.snapshots").count() == 2
    spark.sql("INSERT INTO local.db.t VALUES (4, 'spark', NULL, NULL, NULL, NULL)")
    spark.stop()
""")


@pytest.mark.skipif(not spark_available(), reason="Spark is off")
def test_spark_reads_and_extends_tables_ember_wrote(tmp_path):
    warehouse = tmp_path / "wh"
    ember = session(warehouse)
    ember.sql("CREATE NAMESPACE local.db")
    ember.sql("CREATE TABLE local.db.t (id BIGINT, name STRING, ts TIMESTAMP, d DATE, "
              "amount DECIMAL(10,2), ok BOOLEAN) USING iceberg")
    ember.sql("INSERT INTO local.db.t VALUES (1, 'a', TIMESTAMP '2024-05-01 10:00:00', "
              "DATE '2024-05-01', 12.50, true), (2, NULL, NULL, NULL, NULL, NULL)")
    ember.sql("INSERT INTO local.db.t VALUES (3, 'c', TIMESTAMP '1969-12-31 23:59:59', "
              "DATE '1960-01-01', -1.25, false)")
    # The real Spark in a JVM of its own, with Iceberg's runtime.
    script = tmp_path / "spark_reader.py"
    script.write_text(SPARK_READER)
    result = subprocess.run([sys.executable, str(script), ICEBERG_JAR, str(warehouse)],
                            capture_output=True, text=True, timeout=600,
                            env={**os.environ, "TZ": "UTC"})
    assert result.returncode == 0, result.stderr[-4000:]
    # Ember reads the table Spark extended.
    assert sorted(r.id for r in ember.table("local.db.t").collect()) == [1, 2, 3, 4]
