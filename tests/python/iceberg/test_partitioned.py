"""Partitioned Iceberg tables: Ember writes every transform, and independent readers check each
file's partition values row by row (PyIceberg's own transforms, Spark's `system` functions),
prune with them (filtered scans equal full scans), and read them back; Ember reads and extends
partitioned tables that PyIceberg and Spark wrote."""

import datetime
import json
import os
import subprocess
import sys
import textwrap

import pyarrow.parquet as pq
import pytest
from pyiceberg.expressions import And, EqualTo, GreaterThanOrEqual, In, IsNull, LessThan
from pyiceberg.utils.datetime import date_to_days, datetime_to_micros

from ember.sql import SparkSession

from iceberg.test_iceberg_tables import (ICEBERG_JAR, SPARK_SESSION, assert_duckdb_reads,
                                         spark_available, static_table)
from iceberg.test_iceberg_tables import session as iceberg_session

COLUMNS = "id BIGINT, n INT, name STRING, ts TIMESTAMP, d DATE, flag BOOLEAN"
UTC = datetime.timezone.utc


def session(warehouse):
    spark = iceberg_session(warehouse)
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    return spark


def make_rows(count, seed):
    """Rows with nulls, negative numbers, multi-byte text and times on both sides of 1970."""
    rows = []
    for i in range(count):
        k = (i * 7919 + seed) % 1000
        rows.append((
            k * 37 - 5000,
            None if i % 11 == 0 else k % 23 - 11,
            None if i % 13 == 0 else ["alpha", "alps", "beta", "b", "", "ünïcode", "日本語テキスト"][k % 7],
            None if i % 17 == 0 else
            datetime.datetime(1969, 12, 30, 22, 0) + datetime.timedelta(hours=k * 13, seconds=k),
            None if i % 19 == 0 else datetime.date(1969, 11, 1) + datetime.timedelta(days=k * 3),
            None if i % 5 == 0 else k % 2 == 0,
        ))
    return rows


def as_utc(row):
    """A row as PyIceberg returns it: timestamps aware in UTC."""
    return tuple(v.replace(tzinfo=UTC) if isinstance(v, datetime.datetime) else v for v in row)


def norm(row):
    """A row as comparable text: times as ISO strings with their offset, whichever tzinfo."""
    return str(tuple(v.isoformat() if isinstance(v, (datetime.date, datetime.datetime)) else v
                     for v in row))


def internal(value):
    """A value in Iceberg's internal form, as PyIceberg's transforms take it."""
    if isinstance(value, datetime.datetime):
        return datetime_to_micros(value)
    if isinstance(value, datetime.date):
        return date_to_days(value)
    return value


def assert_partition_values_hold(table):
    """Every row of every live file has the partition values its manifest entry records, as
    PyIceberg's transforms compute them."""
    schema, spec = table.schema(), table.spec()
    files = table.inspect.files().to_pylist()
    assert files
    for f in files:
        rows = pq.ParquetFile(f["file_path"].removeprefix("file://")).read().to_pylist()
        assert len(rows) == f["record_count"]
        for field in spec.fields:
            source = schema.find_field(field.source_id)
            apply = field.transform.transform(source.field_type)
            expected = f["partition"][field.name]
            for row in rows:
                got = apply(internal(row[source.name]))
                if isinstance(expected, datetime.date):  # PyIceberg shows day values as dates
                    got = None if got is None else datetime.date(1970, 1, 1) + datetime.timedelta(days=got)
                assert got == expected, (field.name, row, f["file_path"])
    return files


def create_tables(spark):
    spark.sql("CREATE NAMESPACE local.db")
    spark.sql(f"CREATE TABLE local.db.a ({COLUMNS}) USING iceberg "
              "PARTITIONED BY (bucket(8, id), truncate(3, name), hours(ts), months(d), flag)")
    spark.sql(f"CREATE TABLE local.db.b ({COLUMNS}) USING iceberg "
              "PARTITIONED BY (years(ts), days(d), bucket(5, name), truncate(10, n), bucket(3, d))")


def test_every_transform_is_written_as_pyiceberg_computes_it(tmp_path):
    warehouse = tmp_path / "wh"
    spark = session(warehouse)
    create_tables(spark)
    first, second = make_rows(150, 1), make_rows(60, 2)
    for name in ("a", "b"):
        spark.createDataFrame(first, COLUMNS).writeTo(f"local.db.{name}").append()
        spark.createDataFrame(second, COLUMNS).writeTo(f"local.db.{name}").append()
        table = static_table(warehouse, "db", name)
        got = sorted(table.scan().to_arrow().to_pylist(), key=lambda r: (r["id"], str(r)))
        want = sorted((as_utc(r) for r in first + second), key=lambda r: (r[0], str(r)))
        assert [tuple(r.values()) for r in got] == want
        files = assert_partition_values_hold(table)
        assert len(files) > 10  # the rows really were split
        assert assert_duckdb_reads(warehouse, "db", name) == len(want)
        # The summary counts the partitions each append touched.
        snapshots = table.inspect.snapshots().to_pylist()
        entries = table.inspect.entries().to_pylist()
        for snapshot in snapshots:
            added = {json.dumps(e["data_file"]["partition"], default=str, sort_keys=True)
                     for e in entries if e["snapshot_id"] == snapshot["snapshot_id"] and e["status"] == 1}
            assert dict(snapshot["summary"])["changed-partition-count"] == str(len(added))
        # Ember reads back what it wrote.
        ember_rows = sorted((tuple(r) for r in spark.table(f"local.db.{name}").collect()),
                            key=lambda r: (r[0], str(r)))
        assert [as_utc(r) for r in ember_rows] == want


def test_pyiceberg_prunes_with_the_partition_values_and_agrees_with_full_scans(tmp_path):
    warehouse = tmp_path / "wh"
    spark = session(warehouse)
    create_tables(spark)
    rows = make_rows(200, 3)
    spark.createDataFrame(rows, COLUMNS).writeTo("local.db.a").append()
    table = static_table(warehouse, "db", "a")
    everything = table.scan().to_arrow().to_pylist()
    total_files = len(list(table.scan().plan_files()))
    some_ts = next(r[3] for r in rows if r[3] is not None).replace(tzinfo=UTC)
    predicates = [
        (EqualTo("id", rows[7][0]), lambda r: r["id"] == rows[7][0]),
        (EqualTo("name", "alps"), lambda r: r["name"] == "alps"),
        (IsNull("ts"), lambda r: r["ts"] is None),
        (GreaterThanOrEqual("ts", some_ts.isoformat()), lambda r: r["ts"] is not None and r["ts"] >= some_ts),
        (LessThan("d", "1970-01-01"), lambda r: r["d"] is not None and r["d"] < datetime.date(1970, 1, 1)),
        (And(In("flag", [True]), EqualTo("name", "beta")), lambda r: r["flag"] is True and r["name"] == "beta"),
    ]
    for expression, keep in predicates:
        scan = table.scan(row_filter=expression)
        got = sorted(str(r) for r in scan.to_arrow().to_pylist())
        assert got == sorted(str(r) for r in everything if keep(r)), expression
    # An equality on the bucketed column reads a fraction of the files.
    assert len(list(table.scan(row_filter=EqualTo("id", rows[7][0])).plan_files())) < total_files / 4


def test_row_level_changes_and_streaming_keep_partitions_consistent(tmp_path):
    warehouse, source, checkpoint = tmp_path / "wh", tmp_path / "in", tmp_path / "cp"
    source.mkdir()
    spark = session(warehouse)
    create_tables(spark)
    rows = make_rows(120, 4)
    spark.createDataFrame(rows, COLUMNS).writeTo("local.db.b").append()
    spark.sql("DELETE FROM local.db.b WHERE n < 0")
    spark.sql("UPDATE local.db.b SET d = DATE '2030-01-01' WHERE name = 'beta'")
    expected = [r for r in rows if r[1] is None or r[1] >= 0]
    expected = [r[:4] + (datetime.date(2030, 1, 1),) + r[5:] if r[2] == "beta" else r for r in expected]
    # A stream appends to the partitioned table, across a restart.
    for part, seed in (("x.json", 5), ("y.json", 6)):
        extra = make_rows(40, seed)
        with open(source / part, "w") as out:
            for r in extra:
                out.write(json.dumps({"id": r[0], "n": r[1], "name": r[2],
                                      "ts": r[3] and r[3].isoformat(), "d": r[4] and r[4].isoformat(),
                                      "flag": r[5]}) + "\n")
        query = (spark.readStream.schema(COLUMNS).json(str(source)).writeStream
                 .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True)
                 .toTable("local.db.b"))
        query.processAllAvailable()
        query.stop()
        expected += extra
    table = static_table(warehouse, "db", "b")
    got = sorted(norm(r.values()) for r in table.scan().to_arrow().to_pylist())
    assert got == sorted(norm(as_utc(r)) for r in expected)
    assert_partition_values_hold(table)
    assert assert_duckdb_reads(warehouse, "db", "b") == len(expected)
    operations = [s["operation"] for s in table.inspect.snapshots().to_pylist()]
    # n < 0 is whole partitions of truncate(10, n): the DELETE only drops files.
    assert operations == ["append", "delete", "overwrite", "append", "append"]


def test_ember_reads_and_extends_a_partitioned_table_pyiceberg_wrote(tmp_path):
    """Through one SQL catalog: PyIceberg creates and appends, Ember reads, appends and deletes
    with PyIceberg's spec, PyIceberg reads the result."""
    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform, TruncateTransform
    from pyiceberg.types import DateType, LongType, NestedField, StringType, TimestamptzType

    warehouse = tmp_path / "wh"
    warehouse.mkdir()
    catalog = SqlCatalog("py", uri=f"sqlite:///{tmp_path}/py.db", warehouse=f"file://{warehouse}")
    catalog.create_namespace("db")
    schema = Schema(NestedField(1, "id", LongType()), NestedField(2, "name", StringType()),
                    NestedField(3, "ts", TimestamptzType()), NestedField(4, "d", DateType()))
    spec = PartitionSpec(PartitionField(3, 1000, DayTransform(), "ts_day"),
                         PartitionField(1, 1001, BucketTransform(4), "id_bucket"),
                         PartitionField(2, 1002, TruncateTransform(2), "name_trunc"),
                         PartitionField(4, 1003, IdentityTransform(), "d"))
    table = catalog.create_table("db.t", schema, partition_spec=spec)
    rows = [(r[0], r[2], r[3] and r[3].replace(tzinfo=UTC), r[4]) for r in make_rows(80, 7)]
    arrow_schema = pa.schema([("id", pa.int64()), ("name", pa.string()),
                              ("ts", pa.timestamp("us", "UTC")), ("d", pa.date32())])
    table.append(pa.Table.from_pylist([dict(zip(arrow_schema.names, r)) for r in rows], arrow_schema))
    # Ember opens the table through the same SQL catalog.
    spark = (SparkSession.builder
             .config("spark.sql.catalog.py", "org.apache.iceberg.spark.SparkCatalog")
             .config("spark.sql.catalog.py.type", "jdbc")
             .config("spark.sql.catalog.py.uri", f"jdbc:sqlite:{tmp_path}/py.db")
             .config("spark.sql.catalog.py.warehouse", str(warehouse))
             .config("spark.sql.session.timeZone", "UTC")
             .getOrCreate())
    got = sorted(norm(as_utc(r)) for r in spark.table("py.db.t").collect())
    assert got == sorted(norm(r) for r in rows)
    # Ember appends with PyIceberg's spec, then deletes (rewriting PyIceberg's manifests).
    more = [(r[0] + 1, r[2], r[3], r[4]) for r in make_rows(30, 8)]
    spark.createDataFrame(more, "id BIGINT, name STRING, ts TIMESTAMP, d DATE").writeTo("py.db.t").append()
    spark.sql("DELETE FROM py.db.t WHERE id < 0")
    extended = catalog.load_table("db.t")
    want = [r for r in rows + [(a, b, c and c.replace(tzinfo=UTC), d) for a, b, c, d in more] if r[0] >= 0]
    assert sorted(norm(r.values()) for r in extended.scan().to_arrow().to_pylist()) == \
        sorted(norm(r) for r in want)
    assert_partition_values_hold(extended)


METADATA_QUERIES = {
    "files_table": "SELECT content, file_path, file_format, spec_id, partition, record_count, "
                   "file_size_in_bytes, column_sizes, value_counts, null_value_counts, nan_value_counts, "
                   "split_offsets, equality_ids, sort_order_id FROM local.db.a.files",
    "manifests_table": "SELECT * FROM local.db.a.manifests",
}

SPARK_SCRIPT = (textwrap.dedent("""
    import json, sys
    METADATA_QUERIES = %r
    jar, warehouse = sys.argv[1:3]
""") + SPARK_SESSION + textwrap.dedent("""
    out = {}
    # Each row's partition values against Iceberg's own functions.
    out["a_mismatches"] = spark.sql(
        "SELECT count(*) FROM local.db.a WHERE NOT ("
        " _partition.id_bucket <=> local.system.bucket(8, id)"
        " AND _partition.name_trunc <=> local.system.truncate(3, name)"
        " AND _partition.ts_hour <=> local.system.hours(ts)"
        " AND _partition.d_month <=> local.system.months(d)"
        " AND _partition.flag <=> flag)").collect()[0][0]
    out["b_mismatches"] = spark.sql(
        "SELECT count(*) FROM local.db.b WHERE NOT ("
        " _partition.ts_year <=> local.system.years(ts)"
        " AND _partition.d_day <=> local.system.days(d)"
        " AND _partition.name_bucket <=> local.system.bucket(5, name)"
        " AND _partition.n_trunc <=> local.system.truncate(10, n)"
        " AND _partition.d_bucket <=> local.system.bucket(3, d))").collect()[0][0]
    out["rows"] = sorted(json.dumps([str(v) for v in r]) for r in spark.table("local.db.a").collect())
    stats = {}
    for pushdown in ("true", "false"):
        spark.conf.set("spark.sql.iceberg.aggregate-push-down.enabled", pushdown)
        stats[pushdown] = [str(v) for v in spark.sql(
            "SELECT count(*), min(id), max(id), count(name), min(ts), max(d) FROM local.db.a").collect()[0]]
    out["stats"] = stats
    out["pruned"] = spark.sql("SELECT count(*) FROM local.db.a WHERE name = 'alps'").collect()[0][0]
    out["files"] = spark.sql("SELECT count(*), sum(record_count) FROM local.db.a.files").collect()[0][:]
    out["partitions"] = spark.sql("SELECT count(*) FROM local.db.a.partitions").collect()[0][0]
    for name, query in METADATA_QUERIES.items():
        out[name] = sorted(json.dumps(r.asDict(recursive=True), default=str, sort_keys=True)
                           for r in spark.sql(query).collect())
    # Spark extends Ember's table, and writes a partitioned table of its own for Ember to read.
    spark.sql("INSERT INTO local.db.a VALUES (1000001, 5, 'spark', TIMESTAMP '2024-01-01 00:00:00', "
              "DATE '2024-01-01', true)")
    spark.sql("CREATE TABLE local.db.s (id BIGINT, name STRING, d DATE) USING iceberg "
              "PARTITIONED BY (bucket(4, id), truncate(2, name), days(d))")
    spark.sql("INSERT INTO local.db.s VALUES (1, 'alpha', DATE '2024-01-01'), (2, NULL, NULL), "
              "(3, 'beta', DATE '1969-12-31')")
    print(json.dumps(out, default=str))
    spark.stop()
""")) % METADATA_QUERIES

SPARK_CHECK = textwrap.dedent("""
    import sys
    from pyspark.sql import SparkSession
    jar, warehouse = sys.argv[1:3]
    spark = (SparkSession.builder.master("local[2]").config("spark.jars", jar)
             .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
             .config("spark.sql.catalog.local.type", "hadoop")
             .config("spark.sql.catalog.local.warehouse", warehouse)
             .config("spark.ui.enabled", "false").getOrCreate())
    rows = sorted(tuple(r) for r in spark.sql("SELECT id, name FROM local.db.s").collect())
    assert rows == [(1, "alpha"), (3, "beta"), (4, "ember")], rows
    spark.stop()
""")


def run_spark(tmp_path, script, warehouse):
    path = tmp_path / "spark_script.py"
    path.write_text(script)
    result = subprocess.run([sys.executable, str(path), ICEBERG_JAR, str(warehouse)],
                            capture_output=True, text=True, timeout=900,
                            env={**os.environ, "TZ": "UTC"})
    assert result.returncode == 0, result.stderr[-4000:]
    return result.stdout


@pytest.mark.skipif(not spark_available(), reason="Spark is off")
def test_spark_checks_reads_and_extends_partitioned_tables(tmp_path):
    warehouse = tmp_path / "wh"
    spark = session(warehouse)
    create_tables(spark)
    rows = make_rows(150, 9)
    for name in ("a", "b"):
        spark.createDataFrame(rows, COLUMNS).writeTo(f"local.db.{name}").append()
    ember_metadata = {name: sorted(json.dumps(r.asDict(recursive=True), default=str, sort_keys=True)
                                   for r in spark.sql(query).collect())
                      for name, query in METADATA_QUERIES.items()}
    out = json.loads(run_spark(tmp_path, SPARK_SCRIPT, warehouse).strip().splitlines()[-1])
    assert out["a_mismatches"] == 0 and out["b_mismatches"] == 0
    ember_rows = sorted(json.dumps([str(v) for v in r]) for r in spark.table("local.db.a").collect()
                        if r.id != 1000001)  # the row Spark added after reading
    assert out["rows"] == ember_rows
    # Aggregates answered from Ember's manifests equal those computed from the rows.
    assert out["stats"]["true"] == out["stats"]["false"]
    assert out["pruned"] == sum(1 for r in rows if r[2] == "alps")
    assert out["files"][1] == len(rows)
    assert out["partitions"] == out["files"][0]  # one file per partition, one append
    # Ember's metadata tables equal Spark's, both read before Spark's insert.
    for name in METADATA_QUERIES:
        assert out[name] == ember_metadata[name], name
    # Ember reads what Spark added, and Spark's own partitioned table; then extends the latter.
    assert sorted(r.id for r in spark.table("local.db.a").collect()) == sorted([r[0] for r in rows] + [1000001])
    assert sorted(tuple(r) for r in spark.sql("SELECT id, name FROM local.db.s").collect()) == \
        [(1, "alpha"), (2, None), (3, "beta")]
    spark.sql("INSERT INTO local.db.s VALUES (4, 'ember', DATE '2024-02-02')")
    spark.sql("DELETE FROM local.db.s WHERE id = 2")
    run_spark(tmp_path, SPARK_CHECK, warehouse)


def test_writer_v2_partitioned_by_and_files_rolled_to_the_target_size(tmp_path):
    from ember.sql import functions as F

    warehouse = tmp_path / "wh"
    spark = session(warehouse)
    spark.sql("CREATE NAMESPACE local.db")
    rows = make_rows(3000, 10)
    (spark.createDataFrame(rows, COLUMNS).writeTo("local.db.w")
     .partitionedBy(F.years("ts"), F.bucket(2, F.col("id")), "flag")
     .tableProperty("write.target-file-size-bytes", "4096")
     .create())
    table = static_table(warehouse, "db", "w")
    assert [(f.name, str(f.transform)) for f in table.spec().fields] == \
        [("ts_year", "year"), ("id_bucket", "bucket[2]"), ("flag", "identity")]
    assert table.properties["write.target-file-size-bytes"] == "4096"
    files = assert_partition_values_hold(table)
    partitions = {json.dumps(f["partition"], default=str, sort_keys=True) for f in files}
    assert len(files) > len(partitions)  # big partitions were rolled into several files
    got = sorted(norm(r.values()) for r in table.scan().to_arrow().to_pylist())
    assert got == sorted(norm(as_utc(r)) for r in rows)
    assert assert_duckdb_reads(warehouse, "db", "w") == len(rows)


def test_manifests_read_by_fastavro(tmp_path):
    """fastavro, an independent Avro implementation, reads every manifest list and manifest of a
    partitioned table Ember appended to and deleted from, with Iceberg's field ids, and finds
    the files and partition values PyIceberg finds."""
    import fastavro

    warehouse = tmp_path / "wh"
    spark = session(warehouse)
    create_tables(spark)
    spark.createDataFrame(make_rows(100, 11), COLUMNS).writeTo("local.db.a").append()
    spark.createDataFrame(make_rows(50, 12), COLUMNS).writeTo("local.db.a").append()
    spark.sql("DELETE FROM local.db.a WHERE flag = false")
    table = static_table(warehouse, "db", "a")

    def read(path):
        with open(path.removeprefix("file://"), "rb") as f:
            reader = fastavro.reader(f)
            return reader.writer_schema, reader.metadata, list(reader)

    def ids(schema):
        """Every field's field-id, recursively: fastavro keeps the attribute."""
        out = []
        for field in schema.get("fields", []):
            out.append(field["field-id"])
            for t in field["type"] if isinstance(field["type"], list) else [field["type"]]:
                if isinstance(t, dict) and t.get("type") == "record":
                    out += ids(t)
        return out

    live = {}
    for snapshot in table.inspect.snapshots().to_pylist():
        schema, metadata, manifests = read(snapshot["manifest_list"])
        assert metadata["avro.codec"] == "deflate" and metadata["format-version"] == "2"
        assert sorted(ids(schema)) == sorted([500, 501, 502, 517, 515, 516, 503, 504, 505, 506, 512, 513, 514, 507, 519])
        for manifest in manifests:
            schema, metadata, entries = read(manifest["manifest_path"])
            assert json.loads(metadata["partition-spec"]) == [
                {"name": f.name, "transform": str(f.transform), "source-id": f.source_id, "field-id": f.field_id}
                for f in table.spec().fields]
            assert 102 in ids(schema["fields"][4]["type"]) and 1000 in ids(schema["fields"][4]["type"]["fields"][3]["type"])
            assert len(entries) == sum(manifest[k] for k in ("added_files_count", "existing_files_count",
                                                             "deleted_files_count"))
            if snapshot["snapshot_id"] == table.metadata.current_snapshot_id:
                for e in entries:
                    if e["status"] != 2:
                        live[e["data_file"]["file_path"]] = e["data_file"]["partition"]
    files = table.inspect.files().to_pylist()
    assert sorted(live) == sorted(f["file_path"] for f in files)
    for f in files:
        for name in ("id_bucket", "name_trunc", "flag"):
            assert live[f["file_path"]][name] == f["partition"][name]
