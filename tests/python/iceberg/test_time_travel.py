"""Time travel (VERSION AS OF, TIMESTAMP AS OF, Iceberg's read options) and the snapshots and
history metadata tables. Oracle: PyIceberg reading the same table's snapshots."""

import time

import pytest
from pyiceberg.table import StaticTable

from ember.errors import IllegalArgumentException
from ember.sql import SparkSession


@pytest.fixture()
def table(tmp_path):
    warehouse = tmp_path / "wh"
    spark = (SparkSession.builder
             .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
             .config("spark.sql.catalog.local.type", "hadoop")
             .config("spark.sql.catalog.local.warehouse", str(warehouse))
             .getOrCreate())
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.db")
    spark.sql("CREATE TABLE local.db.t (id INT, s STRING) USING iceberg")
    for i in range(3):
        spark.sql(f"INSERT INTO local.db.t VALUES ({i}, 'v{i}')")
        time.sleep(0.01)
    metadata = warehouse / "db" / "t" / "metadata"
    version = (metadata / "version-hint.text").read_text()
    return spark, StaticTable.from_metadata(str(metadata / f"v{version}.metadata.json"))


def rows(df):
    return sorted(tuple(r) for r in df.collect())


def test_version_as_of_reads_each_snapshot_as_pyiceberg_does(table):
    spark, oracle = table
    snapshots = oracle.snapshots()
    assert len(snapshots) == 3
    for snapshot in snapshots:
        want = sorted((r["id"], r["s"]) for r in
                      oracle.scan(snapshot_id=snapshot.snapshot_id).to_arrow().to_pylist())
        assert rows(spark.sql(f"SELECT * FROM local.db.t VERSION AS OF {snapshot.snapshot_id}")) == want
        assert rows(spark.sql(f"SELECT * FROM local.db.t FOR SYSTEM_VERSION AS OF "
                              f"{snapshot.snapshot_id}")) == want
        assert rows(spark.read.option("snapshot-id", snapshot.snapshot_id).table("local.db.t")) == want
        millis = snapshot.timestamp_ms
        assert rows(spark.read.option("as-of-timestamp", millis).table("local.db.t")) == want


def test_timestamp_as_of_picks_the_snapshot_current_then(table):
    spark, oracle = table
    second = oracle.snapshots()[1]
    at = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(second.timestamp_ms / 1000))
    at += f".{second.timestamp_ms % 1000:03d}"
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    got = rows(spark.sql(f"SELECT * FROM local.db.t TIMESTAMP AS OF '{at}'"))
    assert got == [(0, "v0"), (1, "v1")]
    with pytest.raises(IllegalArgumentException, match="Cannot find a snapshot older than 2000-01-01T00:00:00"):
        spark.sql("SELECT * FROM local.db.t TIMESTAMP AS OF '2000-01-01 00:00:00'").collect()
    with pytest.raises(IllegalArgumentException, match="Cannot find snapshot with ID 42"):
        spark.sql("SELECT * FROM local.db.t VERSION AS OF 42").collect()


def test_snapshots_and_history_metadata_tables(table):
    spark, oracle = table
    snapshots = spark.sql("SELECT snapshot_id, parent_id, operation, manifest_list, summary "
                          "FROM local.db.t.snapshots ORDER BY committed_at").collect()
    want = oracle.snapshots()
    assert [r.snapshot_id for r in snapshots] == [s.snapshot_id for s in want]
    assert [r.parent_id for r in snapshots] == [s.parent_snapshot_id for s in want]
    assert [r.operation for r in snapshots] == [s.summary.operation.value for s in want]
    assert [r.manifest_list for r in snapshots] == [s.manifest_list for s in want]
    assert dict(snapshots[-1].summary)["total-records"] == "3"
    history = spark.sql("SELECT snapshot_id, parent_id, is_current_ancestor FROM local.db.t.history "
                        "ORDER BY made_current_at").collect()
    assert [(r.snapshot_id, r.is_current_ancestor) for r in history] == [
        (s.snapshot_id, True) for s in want]
    assert spark.table("local.db.t.history").columns == [
        "made_current_at", "snapshot_id", "parent_id", "is_current_ancestor"]
