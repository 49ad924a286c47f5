"""Long runs stay bounded: manifest merging, metadata retention, snapshot expiry and orphan-file
removal on Iceberg tables, and the streaming sink's expiry.

The real Spark with Iceberg 1.10's runtime is the oracle: it runs the same statements on a table of
its own (merging, retention) or the same CALL on the same table as it stood before Ember's CALL
(restored from a copy at the same path), and the files left must be the same; Spark, PyIceberg and
DuckDB then read what Ember left."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from datetime import datetime, timezone

import pytest

from ember.errors import AnalysisException, IllegalArgumentException
from iceberg.test_iceberg_tables import (ICEBERG_JAR, assert_duckdb_reads, session,
                                         spark_available, static_table)

# Runs steps on the real Spark (Iceberg's runtime, Hadoop catalog `local` on a warehouse) and
# prints one JSON result per step: {"sql": ...} gives rows or the error, {"files": dir} the files
# under dir (hidden names skipped), {"move": [from, to]} moves a directory.
SPARK_STEPS = textwrap.dedent("""
    import json, os, shutil, sys
    from pyspark.sql import SparkSession
    jar, warehouse, steps = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
    spark = (SparkSession.builder.master("local[1]").config("spark.jars", jar)
             .config("spark.sql.extensions",
                     "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
             .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
             .config("spark.sql.catalog.local.type", "hadoop")
             .config("spark.sql.catalog.local.warehouse", warehouse)
             .config("spark.sql.catalog.local.cache-enabled", "false")
             .config("spark.testing", os.environ.get("SPARK_TESTING", "false"))
             .config("spark.sql.session.timeZone", "UTC").config("spark.ui.enabled", "false")
             .getOrCreate())
    sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[3])))
    from maintenance_files import files
    out = []
    for step in steps:
        if "sql" in step:
            try:
                rows = [[str(v) if v is not None and not isinstance(v, (int, bool)) else v
                         for v in r] for r in spark.sql(step["sql"]).collect()]
                out.append({"rows": rows})
            except Exception as e:
                out.append({"error": str(e)})
        elif "files" in step:
            out.append({"files": files(step["files"])})
        else:
            shutil.move(*step["move"])
            out.append({})
    print(json.dumps(out))
    spark.stop()
""")

FILES = textwrap.dedent("""
    import os

    def files(root):
        \"\"\"The files under root, relative, skipping hidden names as Iceberg does ('.', '_').\"\"\"
        out = []
        for directory, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if d[0] not in "._"]
            out += [os.path.relpath(os.path.join(directory, n), root) for n in names if n[0] not in "._"]
        return sorted(out)
""")


def files(root):
    namespace = {}
    exec(FILES, namespace)
    return namespace["files"](str(root))


def run_spark(tmp_path, warehouse, steps, testing=False):
    (tmp_path / "maintenance_files.py").write_text(FILES)
    (tmp_path / "steps.json").write_text(json.dumps(steps))
    script = tmp_path / "spark_steps.py"
    script.write_text(SPARK_STEPS)
    result = subprocess.run([sys.executable, str(script), ICEBERG_JAR, str(warehouse), str(tmp_path / "steps.json")],
                            capture_output=True, text=True, timeout=900,
                            env={**os.environ, "TZ": "UTC", "SPARK_TESTING": str(testing).lower()})
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def ember_rows(spark, sql):
    return [[v if v is None or isinstance(v, (int, bool)) else str(v) for v in r]
            for r in spark.sql(sql).collect()]


def timestamp(ms):
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("TIMESTAMP '%Y-%m-%d %H:%M:%S.%f'")


def manifest_counts_statements(table, properties, commits):
    props = ", ".join(f"'{k}'='{v}'" for k, v in properties.items())
    steps = [f"CREATE TABLE local.db.{table} (id BIGINT, s STRING) USING iceberg TBLPROPERTIES ({props})"]
    for i in range(commits):
        steps.append(f"INSERT INTO local.db.{table} VALUES ({i}, 'row {i}')")
        steps.append(f"SELECT count(*) FROM local.db.{table}.manifests")
    return steps


MERGING_CASES = {
    "merged": {"commit.manifest.min-count-to-merge": "4"},
    "merged_at_one": {"commit.manifest.min-count-to-merge": "1"},
    "unmerged": {"commit.manifest.min-count-to-merge": "4", "commit.manifest-merge.enabled": "false"},
    "retained": {"write.metadata.previous-versions-max": "2",
                 "write.metadata.delete-after-commit.enabled": "true"},
    "kept": {"write.metadata.previous-versions-max": "2"},
}


@pytest.mark.skipif(not spark_available(), reason="Spark is off")
def test_manifests_merge_and_metadata_is_retained_as_spark_does(tmp_path):
    """After each of 9 inserts, the current snapshot has as many manifests in Ember's table as in
    Spark's with the same properties; the metadata files left and the metadata log are Spark's."""
    commits = 9
    ember_wh, spark_wh = tmp_path / "ember", tmp_path / "spark"
    steps = [{"sql": "CREATE NAMESPACE local.db"}]
    for table, properties in MERGING_CASES.items():
        steps += [{"sql": s} for s in manifest_counts_statements(table, properties, commits)]
        steps.append({"files": str(spark_wh / "db" / table / "metadata")})
    spark_out = run_spark(tmp_path, spark_wh, steps)
    ember = session(ember_wh)
    ember_out = []
    for step in steps:
        if "sql" in step:
            ember_out.append({"rows": ember_rows(ember, step["sql"])})
        else:
            ember_out.append({"files": files(step["files"].replace(str(spark_wh), str(ember_wh)))})
    def counts(out):
        return [o["rows"][0][0] for o, s in zip(out, steps) if "sql" in s and "manifests" in s["sql"]]
    # min-count 4: merged at every fourth manifest; 1: every commit; off, or the default 100: never.
    assert counts(spark_out) == [1, 2, 3] * 3 + [1] * 9 + list(range(1, 10)) * 3, counts(spark_out)
    assert counts(ember_out) == counts(spark_out)
    def metadata_json(out):
        return [sorted(f for f in o["files"] if f.endswith(".metadata.json"))
                for o, s in zip(out, steps) if "files" in s]
    assert metadata_json(ember_out) == metadata_json(spark_out)
    for table in MERGING_CASES:
        rows = sorted(r.id for r in ember.table(f"local.db.{table}").collect())
        assert rows == list(range(commits))
        hint = (ember_wh / "db" / table / "metadata" / "version-hint.text").read_text()
        log = json.loads((ember_wh / "db" / table / "metadata" / f"v{hint}.metadata.json").read_text())["metadata-log"]
        assert len(log) == (2 if "write.metadata.previous-versions-max" in MERGING_CASES[table] else commits)
        assert static_table(ember_wh, "db", table).scan().to_arrow().num_rows == commits
    assert assert_duckdb_reads(ember_wh, "db", "merged") == commits


def build_history(ember, warehouse):
    """A table of six snapshots: two appends, an overwrite that replaces their files, then three
    appends. Returns the time between the fourth and the fifth."""
    ember.sql("CREATE NAMESPACE local.db")
    ember.sql("CREATE TABLE local.db.t (id BIGINT, s STRING) USING iceberg")
    ember.sql("INSERT INTO local.db.t VALUES (1, 'a')")
    ember.sql("INSERT INTO local.db.t VALUES (2, 'b')")
    ember.sql("INSERT OVERWRITE TABLE local.db.t VALUES (3, 'c')")
    ember.sql("INSERT INTO local.db.t VALUES (4, 'd')")
    time.sleep(0.05)
    cut = int(time.time() * 1000)
    time.sleep(0.05)
    ember.sql("INSERT INTO local.db.t VALUES (5, 'e')")
    ember.sql("INSERT INTO local.db.t VALUES (6, 'f')")
    return cut


def spark_on_the_same_table(tmp_path, warehouse, ember_call, spark_steps, testing=False):
    """Ember's CALL on the table, then Spark's steps on the table as it was before, at the same
    path; finally Ember's result goes back in place for Spark's reads. Returns (Ember's rows, its
    files, Spark's results) and leaves Spark's table under tmp_path/spark_result."""
    ember = session(warehouse)
    backup = tmp_path / "before"
    shutil.copytree(warehouse, backup)
    rows = ember_call(ember)
    ember_files = files(warehouse / "db" / "t")
    shutil.move(str(warehouse), str(tmp_path / "ember_result"))
    shutil.copytree(backup, warehouse)
    steps = spark_steps + [
        {"files": str(warehouse / "db" / "t")},
        {"move": [str(warehouse), str(tmp_path / "spark_result")]},
        {"move": [str(tmp_path / "ember_result"), str(warehouse)]},
        {"sql": "SELECT id, s FROM local.db.t ORDER BY id"},
        {"sql": "SELECT count(*) FROM local.db.t.snapshots"},
    ]
    return rows, ember_files, run_spark(tmp_path, warehouse, steps, testing)


@pytest.mark.skipif(not spark_available(), reason="Spark is off")
def test_expire_snapshots_deletes_the_files_spark_deletes(tmp_path):
    warehouse = tmp_path / "wh"
    ember = session(warehouse)
    cut = build_history(ember, warehouse)
    before = files(warehouse / "db" / "t")
    # Positional arguments in Ember's call, named ones in Spark's: the same parameters.
    rows, ember_files, spark = spark_on_the_same_table(
        tmp_path, warehouse,
        lambda e: ember_rows(e, f"CALL local.system.expire_snapshots('db.t', {timestamp(cut)}, 1)"),
        [{"sql": f"CALL local.system.expire_snapshots(table => 'db.t', older_than => {timestamp(cut)}, "
                 "retain_last => 1)"}])
    assert spark[0] == {"rows": rows}
    # Two data files (ids 1 and 2) were reachable only from expired snapshots.
    assert rows[0][0] == 2 and rows[0][3] > 0 and rows[0][4] == 4
    metadata = lambda fs: [f for f in fs if not f.endswith(".metadata.json")]
    assert metadata(ember_files) == metadata(spark[1]["files"])
    assert len(ember_files) < len(before)
    # Spark reads Ember's result: every row of the kept snapshots, two snapshots.
    assert spark[4] == {"rows": [[3, "c"], [4, "d"], [5, "e"], [6, "f"]]}
    assert spark[5] == {"rows": [[2]]}
    assert static_table(warehouse, "db", "t").scan().to_arrow().num_rows == 4
    assert assert_duckdb_reads(warehouse, "db", "t") == 4


@pytest.mark.skipif(not spark_available(), reason="Spark is off")
def test_expire_snapshots_by_id_and_by_the_table_properties(tmp_path):
    warehouse = tmp_path / "wh"
    ember = session(warehouse)
    build_history(ember, warehouse)
    snapshots = [r.snapshot_id for r in ember.sql("SELECT snapshot_id FROM local.db.t.snapshots").collect()]
    # The second snapshot by id; by the table's defaults nothing else is older than five days.
    call = f"CALL local.system.expire_snapshots(table => 'db.t', snapshot_ids => array({snapshots[1]}))"
    rows, ember_files, spark = spark_on_the_same_table(
        tmp_path, warehouse, lambda e: ember_rows(e, call), [{"sql": call}])
    assert spark[0] == {"rows": rows}
    assert [f for f in ember_files if not f.endswith(".metadata.json")] == \
           [f for f in spark[1]["files"] if not f.endswith(".metadata.json")]
    assert spark[5] == {"rows": [[5]]}


@pytest.mark.skipif(not spark_available(), reason="Spark is off")
def test_remove_orphan_files_finds_what_spark_finds(tmp_path):
    warehouse = tmp_path / "wh"
    ember = session(warehouse)
    ember.sql("CREATE NAMESPACE local.db")
    ember.sql("CREATE TABLE local.db.t (id BIGINT, s STRING) USING iceberg "
              "TBLPROPERTIES ('write.metadata.previous-versions-max'='1')")
    for i in range(4):
        ember.sql(f"INSERT INTO local.db.t VALUES ({i}, 'x')")
    cut = int(time.time() * 1000) + 60_000  # everything written so far is older
    table = warehouse / "db" / "t"
    long_ago = time.time() - 10 * 86400
    for name in ["data/stray.parquet", "data/sub/dir/stray2.parquet", "metadata/stray.avro",
                 "data/.hidden.parquet", "_temporary/x.parquet", "stray.txt"]:
        path = table / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("not a table file")
        os.utime(path, (long_ago, long_ago))
    # The default older_than (three days ago): only the strays written ten days ago.
    dry = ember_rows(ember, "CALL local.system.remove_orphan_files(table => 'db.t', dry_run => true)")
    assert sorted(os.path.relpath(r[0][len("file:"):], table) for r in dry) == \
           ["data/stray.parquet", "data/sub/dir/stray2.parquet", "metadata/stray.avro", "stray.txt"]
    assert (table / "data" / "stray.parquet").exists()
    # As Iceberg's procedure, an older_than within 24 hours needs spark.testing.
    call = f"CALL local.system.remove_orphan_files(table => 'db.t', older_than => {timestamp(cut)})"
    def ember_call(e):
        e.conf.set("spark.testing", "true")
        try:
            return ember_rows(e, call)
        finally:
            e.conf.unset("spark.testing")
    rows, ember_files, spark = spark_on_the_same_table(
        tmp_path, warehouse, ember_call, [{"sql": call}], testing=True)
    relative = lambda out: sorted(os.path.relpath(r[0].replace("file:", "", 1), table) for r in out)
    assert relative(rows) == relative(spark[0]["rows"])
    # Besides the strays, the metadata files that left the metadata log are orphans now.
    assert any(f.endswith("v1.metadata.json") for f in relative(rows))
    assert ember_files == [f for f in spark[1]["files"] if not f.endswith(".crc")]
    assert spark[4] == {"rows": [[i, "x"] for i in range(4)]}
    assert assert_duckdb_reads(warehouse, "db", "t") == 4


@pytest.mark.skipif(not spark_available(), reason="Spark is off")
def test_procedure_errors_are_sparks(tmp_path):
    warehouse = tmp_path / "wh"
    ember = session(warehouse)
    ember.sql("CREATE NAMESPACE local.db")
    ember.sql("CREATE TABLE local.db.t (id BIGINT) USING iceberg")
    ember.sql("INSERT INTO local.db.t VALUES (1)")
    now = timestamp(int(time.time() * 1000))
    calls = ["CALL local.system.expire_snapshots()",
             "CALL local.system.expire_snapshots(tabel => 'db.t')",
             "CALL local.system.expire_snapshots(table => 'db.t', 1)",
             "CALL local.system.expire_snapshots(table => 'db.t', retain_last => 0)",
             "CALL local.system.expire_snapshots(table => 'db.t', max_concurrent_deletes => 0)",
             f"CALL local.system.remove_orphan_files(table => 'db.t', older_than => {now})"]
    spark = run_spark(tmp_path, tmp_path / "spark_wh",
                      [{"sql": "CREATE NAMESPACE local.db"},
                       {"sql": "CREATE TABLE local.db.t (id BIGINT) USING iceberg"}] +
                      [{"sql": c} for c in calls])[2:]
    for call, expected in zip(calls, spark):
        with pytest.raises((AnalysisException, IllegalArgumentException)) as raised:
            ember.sql(call).collect()
        message = str(raised.value)
        assert "error" in expected, call
        spark_message = expected["error"]
        if spark_message.startswith("["):  # a condition: the same one, the same first sentence
            assert message.split(".")[0] == spark_message.split(".")[0], (call, message, spark_message)
        else:
            assert message.split("\n")[0] in spark_message, (call, message, spark_message)


def write_batch(directory, number):
    """Placed atomically, as a file source requires: the queries poll the directory meanwhile,
    and a file listed while half written is read as it was (1 run in 5 lost a row)."""
    hidden = directory / f".{number:04d}.json.tmp"
    hidden.write_text(json.dumps({"id": number, "s": f"batch {number}"}) + "\n")
    hidden.rename(directory / f"{number:04d}.json")


def test_streaming_sink_expires_snapshots_by_the_table_properties(tmp_path):
    """With history.expire.max-snapshot-age-ms=1 and min-snapshots-to-keep=2, and the sink
    expiring every 5 commits (ember.stream.expire-interval-commits), the table after 12 batches
    keeps the 2 snapshots of the tenth commit's expiry plus the 2 since: 4, and only their
    manifest lists; every row stays. In complete mode the replaced data files go too."""
    warehouse, source = tmp_path / "wh", tmp_path / "in"
    source.mkdir()
    ember = session(warehouse)
    ember.sql("CREATE NAMESPACE local.db")
    props = ("TBLPROPERTIES ('history.expire.max-snapshot-age-ms'='1', "
             "'history.expire.min-snapshots-to-keep'='2', 'ember.stream.expire-interval-commits'='5')")
    ember.sql(f"CREATE TABLE local.db.t (id BIGINT, s STRING) USING iceberg {props}")
    ember.sql(f"CREATE TABLE local.db.counts (s STRING, n BIGINT) USING iceberg {props}")
    stream = ember.readStream.schema("id BIGINT, s STRING").option("maxFilesPerTrigger", 1).json(str(source))
    appends = stream.writeStream.option("checkpointLocation", str(tmp_path / "cp")).toTable("local.db.t")
    counts = (stream.groupBy("s").count().withColumnRenamed("count", "n").writeStream.outputMode("complete")
              .option("checkpointLocation", str(tmp_path / "cp2")).toTable("local.db.counts"))
    for number in range(12):
        write_batch(source, number)
        appends.processAllAvailable()
        counts.processAllAvailable()
        time.sleep(0.01)
    appends.stop()
    counts.stop()
    for name in ("t", "counts"):
        snapshots = ember.sql(f"SELECT snapshot_id FROM local.db.{name}.snapshots").collect()
        assert len(snapshots) == 4, name
        lists = [f for f in files(warehouse / "db" / name / "metadata") if f.startswith("snap-")]
        assert len(lists) == 4, name
    assert sorted(r.id for r in ember.table("local.db.t").collect()) == list(range(12))
    assert static_table(warehouse, "db", "t").scan().to_arrow().num_rows == 12
    assert assert_duckdb_reads(warehouse, "db", "counts") == 12
    # Complete mode replaces every file each batch: the expired snapshots' files are gone.
    assert len(files(warehouse / "db" / "counts" / "data")) == 4
