"""Scans of Iceberg tables skip data files that a filter excludes by their partition values or
column bounds: the filtered results equal DuckDB's over the same rows, and a query still runs
after the files it must skip were deleted from disk."""

import datetime
import os

import duckdb
import pytest

from ember.errors import SparkRuntimeException
from iceberg.test_iceberg_tables import session, static_table

COLUMNS = "id BIGINT, n INT, region STRING, ts TIMESTAMP, d DATE"


def rows_for(first, count):
    return [(i, None if i % 7 == 0 else i % 50 - 25, ["us", "eu", "ap"][i % 3] if i % 11 else None,
             None if i % 13 == 0 else datetime.datetime(2024, 1, 1) + datetime.timedelta(minutes=37 * i),
             datetime.date(2023, 12, 1) + datetime.timedelta(days=i // 10))
            for i in range(first, first + count)]


def make_table(spark, name, partitioning=""):
    spark.sql(f"CREATE TABLE local.db.{name} ({COLUMNS}) USING iceberg {partitioning}")
    everything = []
    # Several appends, each a separate range of ids and times: separate bounds per file.
    for first in (0, 100, 200, 300):
        batch = rows_for(first, 100)
        spark.createDataFrame(batch, COLUMNS).writeTo(f"local.db.{name}").append()
        everything += batch
    return everything


PREDICATES = [
    "id = 150", "id < 40", "40 > id", "id <= 99", "id > 350", "id >= 300", "id IN (5, 205, 999)",
    "n IS NULL", "n IS NOT NULL AND id < 120", "region = 'eu'", "region IS NULL", "region < 'f'",
    "ts >= TIMESTAMP '2024-01-01 12:00:00' AND ts < TIMESTAMP '2024-01-02 00:00:00'",
    "ts > '2024-01-07'", "d = DATE '2023-12-05'", "d BETWEEN '2023-12-10' AND '2023-12-20'",
    "id = 150 OR id = 350", "n + 1 > 20", "CAST(id AS INT) = 7", "id = 7.0",
]


@pytest.mark.parametrize("time_zone", ["UTC", "America/Los_Angeles"])
def test_filtered_scans_equal_duckdb(tmp_path, time_zone):
    warehouse = tmp_path / "wh"
    spark = session(warehouse)
    spark.conf.set("spark.sql.session.timeZone", time_zone)
    spark.sql("CREATE NAMESPACE local.db")
    make_table(spark, "flat")
    make_table(spark, "parts", "PARTITIONED BY (region, days(ts))")
    con = duckdb.connect()
    con.execute(f"SET TimeZone = '{time_zone}'")
    for name in ("flat", "parts"):
        rows = static_table(warehouse, "db", name).scan().to_arrow()  # noqa: F841 (DuckDB reads it)
        for predicate in PREDICATES:
            expected = sorted(con.sql(f"SELECT id FROM rows WHERE {predicate}").fetchall())
            got = sorted(tuple(r) for r in spark.sql(f"SELECT id FROM local.db.{name} WHERE {predicate}").collect())
            assert got == expected, (name, predicate, time_zone)


def test_skipped_files_are_never_opened(tmp_path):
    warehouse = tmp_path / "wh"
    spark = session(warehouse)
    spark.sql("CREATE NAMESPACE local.db")
    rows = make_table(spark, "flat")
    make_table(spark, "parts", "PARTITIONED BY (region)")
    # Remove every file that holds an id below 300 (bounds) or a region other than 'eu'.
    def lowest_id(f):
        return int.from_bytes(dict(f["lower_bounds"])[1], "little", signed=True)
    for name, doomed in (("flat", lambda f: lowest_id(f) < 300),
                         ("parts", lambda f: f["partition"]["region"] != "eu")):
        files = static_table(warehouse, "db", name).inspect.files().to_pylist()
        removed = [f["file_path"] for f in files if doomed(f)]
        assert 0 < len(removed) < len(files)
        for path in removed:
            os.remove(path)
    got = spark.sql("SELECT count(*) FROM local.db.flat WHERE id >= 300 AND n IS NOT NULL").collect()[0][0]
    assert got == sum(1 for r in rows if r[0] >= 300 and r[1] is not None)
    got = spark.sql("SELECT count(*) FROM local.db.parts WHERE region = 'eu'").collect()[0][0]
    assert got == sum(1 for r in rows if r[2] == "eu")
    # Without the filter the missing files are read, and fail.
    with pytest.raises(SparkRuntimeException):
        spark.sql("SELECT count(*) FROM local.db.flat").collect()
    with pytest.raises(SparkRuntimeException):
        spark.sql("SELECT count(*) FROM local.db.parts WHERE region <=> 'eu' OR id < 0").collect()
