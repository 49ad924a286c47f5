"""MERGE INTO, UPDATE and DELETE on Iceberg tables (copy-on-write).

Results are compared with DuckDB running the same statements on the same rows; the table is read
back by PyIceberg; snapshots and their summaries are checked through PyIceberg; the real Spark
runs the same statements on a table of its own and reads (and merges into) the one Ember wrote.
An SCD2 dimension kept by a streaming foreachBatch MERGE (examples/scd/scd2.py) must equal the
history DuckDB computes from the input files, across restarts and a re-run batch."""

import json
import os
import subprocess
import sys
import textwrap
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from ember.errors import AnalysisException, SparkRuntimeException
from iceberg.test_iceberg_tables import ICEBERG_JAR, SPARK_SESSION, session, spark_available, static_table

ROOT = Path(__file__).resolve().parents[3]
COLUMNS = "id INT, name STRING, score DOUBLE, tag STRING"
DUCK_COLUMNS = "id INTEGER, name VARCHAR, score DOUBLE, tag VARCHAR"

# Three data files: ids 0-9, 10-19 and 20-29.
FILES = [[(i, f"n{i}", i * 1.5, None if i % 4 == 0 else f"t{i % 3}") for i in range(f, f + 10)]
         for f in (0, 10, 20)]
SOURCE = [(3, "x3", 1.0, "delete"), (5, "x5", 2.0, "update"), (25, None, 4.0, "update"),
          (40, "x40", 500.0, "insert"), (41, "x41", 7.0, "insert"), (42, "x42", -1.0, "insert")]
SOURCE_COLUMNS = "id INT, name STRING, score DOUBLE, op STRING"

MERGE = """
MERGE INTO {t} AS t USING (SELECT * FROM changes WHERE score >= 0) AS s ON t.id = s.id
WHEN MATCHED AND s.op = 'delete' THEN DELETE
WHEN MATCHED THEN UPDATE SET name = s.name, score = t.score + s.score
WHEN NOT MATCHED AND s.score > 100 THEN INSERT (id, name, score) VALUES (s.id, upper(s.name), s.score)
WHEN NOT MATCHED THEN INSERT (id, name, score, tag) VALUES (s.id, s.name, s.score, 'new')
"""

MERGE_BY_SOURCE = """
MERGE INTO {t} AS t USING changes AS s ON t.id = s.id AND s.op <> 'delete'
WHEN MATCHED THEN UPDATE SET name = s.name, score = s.score
WHEN NOT MATCHED THEN INSERT (id, name, score, tag) VALUES (s.id, s.name, s.score, s.op)
WHEN NOT MATCHED BY SOURCE AND t.id % 10 = 0 THEN DELETE
WHEN NOT MATCHED BY SOURCE AND t.id < 15 THEN UPDATE SET tag = 'stale', score = -t.score
"""

STAR_SOURCE = [(i, f"s{i}", float(i), "star") for i in (1, 12, 55)]

MERGE_STAR = """
MERGE INTO {t} t USING stars s ON t.id = s.id
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED THEN INSERT *
"""

STATEMENTS = [
    "UPDATE {t} SET score = score * 2, tag = concat(coalesce(tag, '-'), '!') WHERE id % 3 = 1",
    "DELETE FROM {t} WHERE name LIKE 'n2%' OR tag IS NULL",
]


def make_target(spark, warehouse, name="t"):
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.db")
    spark.sql(f"CREATE TABLE local.db.{name} ({COLUMNS}) USING iceberg")
    for rows in FILES:
        spark.createDataFrame(rows, COLUMNS).writeTo(f"local.db.{name}").append()


def duck_target():
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t ({DUCK_COLUMNS})")
    for rows in FILES:
        con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", rows)
    return con


def duck_view(con, name, rows, columns):
    con.execute(f"CREATE TABLE {name} ({columns})")
    con.executemany(f"INSERT INTO {name} VALUES ({', '.join('?' * len(rows[0]))})", rows)


def ember_rows(spark, table="local.db.t"):
    return sorted(tuple(r) for r in spark.table(table).collect())


def pyiceberg_rows(warehouse, name="t"):
    rows = static_table(warehouse, "db", name).scan().to_arrow().to_pylist()
    return sorted(tuple(r.values()) for r in rows)


def duck_rows(con):
    return sorted(con.execute("SELECT * FROM t").fetchall())


def snapshots(warehouse, name="t"):
    return static_table(warehouse, "db", name).inspect.snapshots().to_pylist()


def file_ids(warehouse, name="t"):
    """The ids in each live data file, by path."""
    files = static_table(warehouse, "db", name).inspect.files().to_pylist()
    return {f["file_path"]: sorted(pq.read_table(f["file_path"].removeprefix("file:")).column("id").to_pylist())
            for f in files}


def test_merge_matches_duckdb_and_rewrites_only_the_files_it_changes(tmp_path):
    warehouse = tmp_path / "wh"
    spark = session(warehouse)
    make_target(spark, warehouse)
    spark.createDataFrame(SOURCE, SOURCE_COLUMNS).createOrReplaceTempView("changes")
    before = file_ids(warehouse)
    spark.sql(MERGE.format(t="local.db.t"))

    con = duck_target()
    duck_view(con, "changes", SOURCE, "id INTEGER, name VARCHAR, score DOUBLE, op VARCHAR")
    con.execute(MERGE.format(t="t"))
    expected = duck_rows(con)
    assert ember_rows(spark) == expected
    assert pyiceberg_rows(warehouse) == expected

    # Ids 3 and 5 live in the first file, 25 in the third: the second file is untouched.
    after = file_ids(warehouse)
    kept = [path for path, ids in before.items() if ids == list(range(10, 20))]
    assert set(before) & set(after) == set(kept) and len(after) == 2
    snapshot = snapshots(warehouse)[-1]
    summary = dict(snapshot["summary"])
    assert snapshot["operation"] == "overwrite"
    assert summary["deleted-data-files"] == "2" and summary["deleted-records"] == "20"
    assert summary["added-data-files"] == "1"
    assert summary["added-records"] == str(len(expected) - 10)
    assert summary["total-data-files"] == "2" and summary["total-records"] == str(len(expected))
    # Manifests: the removed files DELETED by this snapshot, the kept one carried over.
    entries = static_table(warehouse, "db", "t").inspect.entries().to_pylist()
    status = sorted((e["status"], e["snapshot_id"] == snapshot["snapshot_id"]) for e in entries)
    assert status == [(1, False), (1, True), (2, True), (2, True)]


def test_not_matched_by_source_and_star_actions_match_duckdb(tmp_path):
    warehouse = tmp_path / "wh"
    spark = session(warehouse)
    make_target(spark, warehouse)
    spark.createDataFrame(SOURCE, SOURCE_COLUMNS).createOrReplaceTempView("changes")
    spark.createDataFrame(STAR_SOURCE, COLUMNS).createOrReplaceTempView("stars")
    spark.sql(MERGE_BY_SOURCE.format(t="local.db.t"))
    spark.sql(MERGE_STAR.format(t="local.db.t"))

    con = duck_target()
    duck_view(con, "changes", SOURCE, "id INTEGER, name VARCHAR, score DOUBLE, op VARCHAR")
    duck_view(con, "stars", STAR_SOURCE, DUCK_COLUMNS)
    con.execute(MERGE_BY_SOURCE.format(t="t"))
    con.execute(MERGE_STAR.format(t="t"))
    assert ember_rows(spark) == duck_rows(con) == pyiceberg_rows(warehouse)


def test_update_and_delete_match_duckdb(tmp_path):
    warehouse = tmp_path / "wh"
    spark = session(warehouse)
    make_target(spark, warehouse)
    con = duck_target()
    for statement in STATEMENTS:
        spark.sql(statement.format(t="local.db.t"))
        con.execute(statement.format(t="t"))
        assert ember_rows(spark) == duck_rows(con) == pyiceberg_rows(warehouse)
    assert [s["operation"] for s in snapshots(warehouse)] == ["append"] * 3 + ["overwrite"] * 2


def test_a_delete_of_whole_files_adds_no_file(tmp_path):
    warehouse = tmp_path / "wh"
    spark = session(warehouse)
    make_target(spark, warehouse)
    before = file_ids(warehouse)
    spark.sql("DELETE FROM local.db.t WHERE id >= 10")
    assert file_ids(warehouse) == {p: ids for p, ids in before.items() if ids == list(range(10))}
    snapshot = snapshots(warehouse)[-1]
    summary = dict(snapshot["summary"])
    assert snapshot["operation"] == "delete"
    assert (summary["added-data-files"], summary["deleted-data-files"], summary["total-records"]) == \
        ("0", "2", "10")
    assert ember_rows(spark) == sorted(FILES[0]) == pyiceberg_rows(warehouse)
    spark.sql("DELETE FROM local.db.t")
    assert ember_rows(spark) == [] == pyiceberg_rows(warehouse)
    assert dict(snapshots(warehouse)[-1]["summary"])["total-data-files"] == "0"


def test_a_merge_that_only_inserts_is_an_append(tmp_path):
    warehouse = tmp_path / "wh"
    spark = session(warehouse)
    make_target(spark, warehouse)
    spark.createDataFrame(SOURCE, SOURCE_COLUMNS).createOrReplaceTempView("changes")
    spark.sql("MERGE INTO local.db.t t USING changes s ON t.id = s.id "
              "WHEN NOT MATCHED AND s.score < 100 THEN INSERT (id, name) VALUES (s.id, s.name)")
    assert snapshots(warehouse)[-1]["operation"] == "append"
    added = [r for r in ember_rows(spark) if r[0] >= 40]
    assert added == [(41, "x41", None, None), (42, "x42", None, None)]


def test_a_target_row_matching_two_source_rows_fails_as_in_spark(tmp_path):
    warehouse = tmp_path / "wh"
    spark = session(warehouse)
    make_target(spark, warehouse)
    spark.createDataFrame([(2, "a"), (2, "b"), (7, "c")], "id INT, name STRING") \
        .createOrReplaceTempView("dup")
    count = len(snapshots(warehouse))
    for clauses in ["WHEN MATCHED THEN UPDATE SET name = s.name",
                    # Spark checks every matched pair, whatever the clause conditions say.
                    "WHEN MATCHED AND s.name = 'zzz' THEN DELETE",
                    "WHEN MATCHED AND s.name = 'a' THEN DELETE "
                    "WHEN NOT MATCHED THEN INSERT (id, name) VALUES (s.id, s.name)"]:
        with pytest.raises(SparkRuntimeException) as error:
            spark.sql(f"MERGE INTO local.db.t t USING dup s ON t.id = s.id {clauses}")
        assert error.value.getCondition() == "MERGE_CARDINALITY_VIOLATION"
        assert error.value.getSqlState() == "23K01"
        assert "matched a single row from the target table with multiple rows" in str(error.value)
    assert len(snapshots(warehouse)) == count
    # The only exception: a single unconditional DELETE.
    spark.sql("MERGE INTO local.db.t t USING dup s ON t.id = s.id WHEN MATCHED THEN DELETE")
    assert [r[0] for r in ember_rows(spark)] == [i for i in range(30) if i not in (2, 7)]


def test_analysis_errors(tmp_path):
    warehouse = tmp_path / "wh"
    spark = session(warehouse)
    make_target(spark, warehouse)
    spark.createDataFrame(SOURCE, SOURCE_COLUMNS).createOrReplaceTempView("changes")
    with pytest.raises(AnalysisException) as error:
        spark.sql("UPDATE local.db.t SET nope = 1")
    assert error.value.getCondition() == "UNRESOLVED_COLUMN.WITH_SUGGESTION"
    with pytest.raises(AnalysisException) as error:
        spark.sql("MERGE INTO local.db.t t USING changes s ON t.id = s.id "
                  "WHEN NOT MATCHED THEN INSERT (id) VALUES (t.id)")
    assert error.value.getCondition() == "UNRESOLVED_COLUMN.WITH_SUGGESTION"
    with pytest.raises(AnalysisException) as error:
        spark.sql("MERGE INTO local.db.t t USING changes s ON t.id = s.id "
                  "WHEN MATCHED THEN UPDATE SET score = name")
    assert error.value.getCondition() == "AMBIGUOUS_REFERENCE"
    with pytest.raises(AnalysisException) as error:
        spark.sql("UPDATE local.db.t SET score = 0, score = 1 WHERE id = 1")
    assert error.value.getCondition() == "DATATYPE_MISMATCH.INVALID_ROW_LEVEL_OPERATION_ASSIGNMENTS"
    assert "Multiple assignments for 'score': 0, 1" in str(error.value)
    with pytest.raises(AnalysisException) as error:
        spark.sql("UPDATE local.db.t SET id = 'abc'")
    assert error.value.getCondition() == "INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_SAFELY_CAST"
    assert 'Cannot safely cast `id` "STRING" to "INT".' in str(error.value)
    with pytest.raises(AnalysisException) as error:
        spark.sql("MERGE INTO local.db.t t USING changes s ON t.id = max(s.id) WHEN MATCHED THEN DELETE")
    assert error.value.getCondition() == "UNSUPPORTED_MERGE_CONDITION.AGGREGATE"
    assert 'contains unsupported SEARCH condition. Aggregates are not allowed: "(id = max(id))".' \
        in str(error.value)
    # INSERT sees only the source, so unqualified names are not ambiguous there.
    spark.sql("MERGE INTO local.db.t t USING changes s ON t.id = s.id "
              "WHEN NOT MATCHED THEN INSERT (id, name) VALUES (id, name)")
    assert len(ember_rows(spark)) == 33
    assert len(snapshots(warehouse)) == 4


# Two writers bump one counter while a third appends rows: each commit either lands whole or
# fails on Iceberg's validation, and no update or appended row is ever lost.
WRITER = textwrap.dedent("""
    import sys
    from ember.sql import SparkSession
    warehouse, role, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    spark = (SparkSession.builder.config("spark.sql.catalog.local.type", "hadoop")
             .config("spark.sql.catalog.local.warehouse", warehouse).getOrCreate())
    done = failed = 0
    for i in range(count):
        try:
            if role == "append":
                spark.sql(f"INSERT INTO local.db.c VALUES ({i + 1000 * int(sys.argv[4])}, 0)")
            else:
                spark.sql("UPDATE local.db.c SET n = n + 1 WHERE id = 0")
            done += 1
        except Exception as e:
            assert "Found conflicting" in str(e), str(e)
            failed += 1
    print(done, failed)
""")


@pytest.mark.parametrize("isolation", ["snapshot", "serializable"])
def test_concurrent_writers_lose_nothing(tmp_path, isolation):
    warehouse = tmp_path / "wh"
    spark = session(warehouse)
    spark.sql("CREATE NAMESPACE local.db")
    spark.sql("CREATE TABLE local.db.c (id INT, n BIGINT) USING iceberg "
              f"TBLPROPERTIES ('write.update.isolation-level' = '{isolation}')")
    spark.sql("INSERT INTO local.db.c VALUES (0, 0)")
    job = tmp_path / "writer.py"
    job.write_text(WRITER)
    runs = [("update", "0"), ("update", "1"), ("append", "1")]
    procs = [subprocess.Popen([sys.executable, str(job), str(warehouse), role, "12", n],
                              stdout=subprocess.PIPE, text=True) for role, n in runs]
    results = []
    for p in procs:
        out, _ = p.communicate(timeout=600)
        assert p.returncode == 0
        results.append(tuple(int(x) for x in out.split()))
    rows = dict(ember_rows(spark, "local.db.c"))
    assert rows[0] == results[0][0] + results[1][0]  # every committed update, once
    assert results[2] == (12, 0)  # appends never conflict
    assert sorted(rows) == [0] + [1000 + i for i in range(12)]
    assert pyiceberg_rows(warehouse, "c") == sorted(rows.items())


SPARK_MERGE = textwrap.dedent("""
    import json, sys
    jar, warehouse, spec = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
""") + SPARK_SESSION + textwrap.dedent("""
    out = {}
    out["ember_table"] = [list(r) for r in spark.table("local.db.t").collect()]
    # The same statements on a table of Spark's own, built from the same files.
    spark.sql(f"CREATE TABLE local.db.spark_t ({spec['columns']}) USING iceberg")
    for rows in spec["files"]:
        spark.createDataFrame([tuple(r) for r in rows], spec["columns"]).writeTo("local.db.spark_t").append()
    spark.createDataFrame([tuple(r) for r in spec["source"]], spec["source_columns"]) \\
        .createOrReplaceTempView("changes")
    spark.createDataFrame([tuple(r) for r in spec["stars"]], spec["columns"]).createOrReplaceTempView("stars")
    for statement in spec["statements"]:
        spark.sql(statement.format(t="local.db.spark_t"))
    out["spark_table"] = [list(r) for r in spark.table("local.db.spark_t").collect()]
    key = spec["cardinality_key"]
    spark.createDataFrame([(key, "a"), (key, "b")], "id INT, name STRING").createOrReplaceTempView("dup")
    try:
        spark.sql("MERGE INTO local.db.spark_t t USING dup s ON t.id = s.id "
                  "WHEN MATCHED AND s.name = 'zzz' THEN DELETE")
    except Exception as e:
        out["cardinality"] = [e.getCondition(), e.getSqlState()]
    # Spark's own MERGE over the manifests Ember wrote.
    spark.sql("MERGE INTO local.db.t t USING stars s ON t.id = s.id "
              "WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *")
    print(json.dumps(out))
    spark.stop()
""")


@pytest.mark.skipif(not spark_available(), reason="Spark is off")
def test_spark_runs_the_same_statements_and_reads_what_ember_wrote(tmp_path):
    warehouse = tmp_path / "wh"
    spark = session(warehouse)
    make_target(spark, warehouse)
    spark.createDataFrame(SOURCE, SOURCE_COLUMNS).createOrReplaceTempView("changes")
    spark.createDataFrame(STAR_SOURCE, COLUMNS).createOrReplaceTempView("stars")
    statements = [MERGE, MERGE_BY_SOURCE, MERGE_STAR] + STATEMENTS
    for statement in statements:
        spark.sql(statement.format(t="local.db.t"))
    merged = ember_rows(spark)
    spec = {"columns": COLUMNS, "files": FILES, "source": SOURCE, "source_columns": SOURCE_COLUMNS,
            "stars": STAR_SOURCE, "statements": statements, "cardinality_key": merged[0][0]}
    script = tmp_path / "spark_merge.py"
    script.write_text(SPARK_MERGE)
    result = subprocess.run([sys.executable, str(script), ICEBERG_JAR, str(warehouse), json.dumps(spec)],
                            capture_output=True, text=True, timeout=900, env={**os.environ, "TZ": "UTC"})
    assert result.returncode == 0, result.stderr[-4000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert sorted(tuple(r) for r in out["ember_table"]) == merged
    assert sorted(tuple(r) for r in out["spark_table"]) == merged
    assert out["cardinality"] == ["MERGE_CARDINALITY_VIOLATION", "23K01"]
    # Ember reads the table after Spark's copy-on-write MERGE rewrote Ember's manifests.
    stars = {r[0]: r for r in STAR_SOURCE}
    expected = sorted([r for r in merged if r[0] not in stars] +
                      [r for i, r in stars.items() if i not in {m[0] for m in merged}])
    assert ember_rows(spark) == expected == pyiceberg_rows(warehouse)


# --- SCD2 through a streaming foreachBatch MERGE ---------------------------------------------

SCD2_JOB = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    import scd2
    source, warehouse, checkpoint = sys.argv[2:5]
    scd2.run(scd2.session(warehouse), source, checkpoint)
""")

# SCD2 history from all the changes: each version lasts until the customer's next change.
DUCK_SCD2 = """
SELECT customer_id, name, city, updated_at AS valid_from,
       lead(updated_at) OVER (PARTITION BY customer_id ORDER BY updated_at) AS valid_to,
       lead(updated_at) OVER (PARTITION BY customer_id ORDER BY updated_at) IS NULL AS is_current
FROM read_json('{source}/*.json', columns = {{'customer_id': 'INTEGER', 'name': 'VARCHAR',
                                            'city': 'VARCHAR', 'updated_at': 'TIMESTAMP'}})
"""


def utc_naive(rows):
    """Timestamps as naive UTC datetimes, as DuckDB returns them (the tests run with TZ=UTC)."""
    return sorted(tuple(v.astimezone(timezone.utc).replace(tzinfo=None)
                        if isinstance(v, datetime) and v.tzinfo else v for v in r) for r in rows)


def test_scd2_dimension_from_a_stream_survives_restarts_and_a_rerun_batch(tmp_path):
    sys.path.insert(0, str(ROOT / "examples" / "scd"))
    from customer_changes import make_exports, write_export

    source, warehouse, checkpoint = tmp_path / "in", tmp_path / "wh", tmp_path / "cp"
    source.mkdir()
    job = tmp_path / "job.py"
    job.write_text(SCD2_JOB)
    args = [sys.executable, str(job), str(ROOT / "examples" / "scd"), str(source), str(warehouse),
            str(checkpoint)]

    def run():
        result = subprocess.run(args, capture_output=True, text=True, timeout=600,
                                env={**os.environ, "TZ": "UTC"})
        assert result.returncode == 0, result.stderr[-4000:]
        return [line for line in result.stdout.splitlines() if line.startswith("batch ")]

    exports = make_exports(seed=11, exports=7, customers=5)

    def arrive(number):
        write_export(source, number, exports[number])
        os.utime(source / f"export-{number:03d}.json", (1_700_000_000 + number,) * 2)

    assert any(len({c["customer_id"] for c in e}) < len(e) for e in exports), \
        "some export should change a customer twice"
    for number in range(3):
        arrive(number)
    assert [b.split(":")[0] for b in run()] == ["batch 0", "batch 1", "batch 2"]
    for number in range(3, 5):
        arrive(number)
    assert [b.split(":")[0] for b in run()] == ["batch 3", "batch 4"]

    spark = session(warehouse)
    before = utc_naive(spark.table("local.crm.customers").collect())
    # A crash after batch 4's table commits, before its checkpoint commit: batch 4 runs again.
    os.remove(checkpoint / "commits" / "4")
    assert [b.split(":")[0] for b in run()] == ["batch 4"]
    assert utc_naive(spark.table("local.crm.customers").collect()) == before
    for number in range(5, 7):
        arrive(number)
    assert [b.split(":")[0] for b in run()] == ["batch 5", "batch 6"]

    rows = utc_naive(spark.table("local.crm.customers").collect())
    assert rows == sorted(duckdb.sql(DUCK_SCD2.format(source=source)).fetchall())
    table = static_table(warehouse, "crm", "customers")
    assert utc_naive(r.values() for r in table.scan().to_arrow().to_pylist()) == rows
    # The SCD2 invariants, checked directly as well: one current version per customer, its latest
    # change; each closed version ends where the next one starts.
    latest = {}
    for change in sorted((c for e in exports for c in e), key=lambda c: c["updated_at"]):
        latest[change["customer_id"]] = change
    current = {r[0]: r for r in rows if r[5]}
    assert sorted(current) == sorted(latest) and len(current) == sum(1 for r in rows if r[5])
    for customer, change in latest.items():
        assert current[customer][1:5] == (change["name"], change["city"],
                                          datetime.fromisoformat(change["updated_at"]), None)
        versions = sorted((r for r in rows if r[0] == customer), key=lambda r: r[3])
        for older, newer in zip(versions, versions[1:]):
            assert older[4] == newer[3] and not older[5]
    assert sum(1 for s in table.inspect.snapshots().to_pylist() if s["operation"] == "overwrite") > 0


# The example's pipeline on the real Spark: `ember.activate()` is the only line that is Ember's.
SPARK_SCD2 = textwrap.dedent("""
    import json, sys, types
    from pyspark.sql import SparkSession
    jar, examples, source, warehouse, checkpoint = sys.argv[1:6]
    spark = (SparkSession.builder.master("local[2]").config("spark.jars", jar)
             .config("spark.ui.enabled", "false").getOrCreate())
    sys.modules["ember"] = types.SimpleNamespace(activate=lambda: None)
    sys.path.insert(0, examples)
    import scd2
    scd2.run(scd2.session(warehouse), source, checkpoint)
    rows = spark.table("local.crm.customers").collect()
    print(json.dumps([[v.isoformat() if hasattr(v, "isoformat") else v for v in r] for r in rows]))
    spark.stop()
""")


@pytest.mark.skipif(not spark_available(), reason="Spark is off")
def test_spark_keeps_the_same_scd2_dimension(tmp_path):
    sys.path.insert(0, str(ROOT / "examples" / "scd"))
    from customer_changes import make_exports, write_export

    source = tmp_path / "in"
    source.mkdir()
    # Four exports (each a Spark job of its own) hold new customers, changed ones and customers
    # changed twice within one export.
    for number, changes in enumerate(make_exports(seed=11, exports=4, customers=5)):
        write_export(source, number, changes)
        # Both engines take the files in modification-time order: make it the export order.
        os.utime(source / f"export-{number:03d}.json", (1_700_000_000 + number,) * 2)
    job = tmp_path / "job.py"
    job.write_text(SCD2_JOB)
    result = subprocess.run([sys.executable, str(job), str(ROOT / "examples" / "scd"), str(source),
                             str(tmp_path / "wh"), str(tmp_path / "cp")],
                            capture_output=True, text=True, timeout=600, env={**os.environ, "TZ": "UTC"})
    assert result.returncode == 0, result.stderr[-4000:]
    ember = utc_naive(session(tmp_path / "wh").table("local.crm.customers").collect())
    script = tmp_path / "spark_scd2.py"
    script.write_text(SPARK_SCD2)
    result = subprocess.run([sys.executable, str(script), ICEBERG_JAR, str(ROOT / "examples" / "scd"),
                             str(source), str(tmp_path / "spark_wh"), str(tmp_path / "spark_cp")],
                            capture_output=True, text=True, timeout=900, env={**os.environ, "TZ": "UTC"})
    assert result.returncode == 0, result.stderr[-4000:]
    rows = json.loads(result.stdout.strip().splitlines()[-1])
    spark = sorted(tuple(datetime.fromisoformat(v) if isinstance(v, str) and v[:2] == "20" else v
                         for v in r) for r in rows)
    assert spark == ember


@pytest.mark.parametrize("example", ["scd1.py", "scd2.py"])
def test_examples_run(tmp_path, example):
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "scd" / example), str(tmp_path)],
                            capture_output=True, text=True, timeout=600, env={**os.environ, "TZ": "UTC"})
    assert result.returncode == 0, result.stderr[-4000:]
    assert "Lovelace" in result.stdout or "Turing" in result.stdout


def test_a_failing_merge_in_foreach_batch_fails_the_query(tmp_path):
    from ember.errors import StreamingQueryException

    warehouse, source = tmp_path / "wh", tmp_path / "in"
    source.mkdir()
    spark = session(warehouse)
    make_target(spark, warehouse)
    (source / "a.json").write_text('{"id": 1, "name": "x"}\n{"id": 1, "name": "y"}\n')

    def merge(batch_df, batch_id):
        assert isinstance(batch_id, int)
        batch_df.createOrReplaceTempView("batch")
        batch_df.sparkSession.sql("MERGE INTO local.db.t t USING batch s ON t.id = s.id "
                                  "WHEN MATCHED THEN UPDATE SET name = s.name")

    query = (spark.readStream.schema("id INT, name STRING").json(str(source))
             .writeStream.foreachBatch(merge).option("checkpointLocation", str(tmp_path / "cp"))
             .trigger(availableNow=True).start())
    with pytest.raises(StreamingQueryException) as error:
        query.awaitTermination()
    message = str(error.value)
    assert "FOREACH_BATCH_USER_FUNCTION_ERROR" in message and "MERGE_CARDINALITY_VIOLATION" in message
    assert len(snapshots(warehouse)) == 3
