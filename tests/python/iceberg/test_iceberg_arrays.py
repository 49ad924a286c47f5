"""Array columns in Iceberg tables and Parquet files written by Ember: read back by PyIceberg
and DuckDB (independent readers), with Iceberg's field ids on list elements."""

import os

import duckdb
import pyarrow.parquet as pq

from iceberg.test_iceberg_tables import assert_duckdb_reads, session, static_table

ROWS = [(1, ["a", None, ""]), (2, None), (3, []), (4, ["x"])]


def test_iceberg_table_with_an_array_column(tmp_path):
    spark = session(tmp_path)
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.db")
    df = spark.createDataFrame(ROWS, "id INT, tags ARRAY<STRING>")
    df.writeTo("local.db.tagged").create()
    table = static_table(str(tmp_path), "db", "tagged")
    field = table.schema().find_field("tags")
    assert str(field.field_type) == "list<string>"
    assert field.field_type.element_id > 0 and not field.field_type.element_required
    assert sorted(table.scan().to_arrow().to_pylist(), key=lambda r: r["id"]) == [
        {"id": i, "tags": t} for i, t in ROWS]
    assert assert_duckdb_reads(str(tmp_path), "db", "tagged") == 4
    words = spark.table("local.db.tagged").selectExpr("id", "explode(tags) AS w")
    assert sorted((tuple(r) for r in words.collect()), key=repr) == [
        (1, ''), (1, 'a'), (1, None), (4, 'x')]


def test_parquet_file_with_an_array_column(tmp_path):
    spark = session(tmp_path)
    path = str(tmp_path / "out")
    spark.createDataFrame(ROWS, "id INT, tags ARRAY<STRING>").write.parquet(path)
    files = [os.path.join(path, f) for f in os.listdir(path) if f.endswith(".parquet")]
    got = sorted(duckdb.sql(f"SELECT id, tags FROM read_parquet({files!r})").fetchall())
    assert got == sorted(ROWS, key=lambda r: r[0])
    assert pq.read_table(files[0]).schema.field("tags").type.value_type == "string"


MAP_ROWS = [(1, {"a": 1, "b": None}), (2, None), (3, {}), (4, {"x": 7})]


def test_iceberg_table_with_a_map_column(tmp_path):
    spark = session(tmp_path)
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.db")
    df = spark.createDataFrame(MAP_ROWS, "id INT, attrs MAP<STRING, INT>")
    df.writeTo("local.db.attributed").create()
    table = static_table(str(tmp_path), "db", "attributed")
    field = table.schema().find_field("attrs")
    assert str(field.field_type) == "map<string, int>"
    assert field.field_type.key_id > 0 and field.field_type.value_id > 0
    assert not field.field_type.value_required
    got = sorted(table.scan().to_arrow().to_pylist(), key=lambda r: r["id"])
    assert [(r["id"], None if r["attrs"] is None else dict(r["attrs"])) for r in got] == MAP_ROWS
    assert assert_duckdb_reads(str(tmp_path), "db", "attributed") == 4
    entries = spark.table("local.db.attributed").selectExpr("id", "explode(attrs) AS (k, v)")
    assert sorted((tuple(r) for r in entries.collect()), key=repr) == [
        (1, 'a', 1), (1, 'b', None), (4, 'x', 7)]
