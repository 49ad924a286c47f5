"""Streaming reads of Iceberg tables (format "iceberg", readStream.table) beside the real Spark
with Iceberg 1.10's runtime (iceberg_source_programs.py): one table, written by Ember, read by
both engines, so the snapshot ids are the same and the offsets/N lines must be byte for byte
Iceberg's ({"version":1,"snapshot_id":S,"position":P,"scan_all_files":false}); the same rows per
batch; the same failures for delete and overwrite snapshots; restarts on the same checkpoint.
Then Ember alone, killed with SIGKILL while it streams one Iceberg table into another: the
output table holds every input row exactly once (read by PyIceberg)."""

import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from crash import kill_while_streaming
from differential.conftest import spark_enabled
from streaming import test_sources as sources
from streaming.test_kills import newest_table

HERE = os.path.dirname(os.path.abspath(__file__))
JAR = os.path.expanduser(
    "~/.m2/repository/org/apache/iceberg/iceberg-spark-runtime-4.0_2.13/1.10.0/"
    "iceberg-spark-runtime-4.0_2.13-1.10.0.jar")
needs_spark = pytest.mark.skipif(not spark_enabled()[0] or not os.path.exists(JAR),
                                 reason=f"Spark or Iceberg's runtime is off: {spark_enabled()[1]}")


def document(program, engine, workdir):
    """The JSON document `iceberg_source_programs.py program` prints last, run on the engine."""
    return sources.document(program, engine, workdir, programs="iceberg_source_programs.py")


def offset(snapshot_id, position):
    return json.dumps({"version": 1, "snapshot_id": snapshot_id, "position": position,
                       "scan_all_files": False}, separators=(",", ":"))


def without_descriptions(*docs):
    """Checks and drops each run's progress descriptions: Spark's is Java's toString of the
    source, its class and an identity hash."""
    for doc in docs:
        for case in doc.values():
            if isinstance(case, dict) and "description" in case:
                for description in case.pop("description"):
                    assert re.fullmatch(r"org\.apache\.iceberg\.spark\.source\."
                                        r"SparkMicroBatchStream@[0-9a-f]+", description), description


@needs_spark
def test_read_limits_match_spark(tmp_path):
    """Three appends of 3, 2 and 1 files read with each read limit: the same batches, rows and
    offsets as Spark; Ember's offsets checked by hand too."""
    snapshots = document("setup", "ember", tmp_path)
    ids = [s for s, op in snapshots]
    spark = document("limits", "spark", tmp_path / "spark")
    ember = document("limits", "ember", tmp_path / "ember")
    # Two files a batch: the first snapshot cut after its second file, then on.
    files = ember["files"]["offsets"]
    assert files["initial"] == offset(ids[0], 0)
    assert [v[0] for k, v in sorted(files.items()) if k.isdigit()] == [
        offset(ids[0], 2), offset(ids[1], 1), offset(ids[2], 1)]
    assert [len(rows) for _, rows in sorted(ember["files"]["batches"].items())] == [6, 5, 4]
    assert ember["none"]["offsets"]["0"] == [offset(ids[2], 1)]
    for trigger in ("once", "now"):
        assert list(ember[trigger]["batches"]) == ["0"] and len(ember[trigger]["batches"]["0"]) == 15
    without_descriptions(spark, ember)
    assert ember == spark


@needs_spark
def test_incremental_restarts_and_deletes_match_spark(tmp_path):
    """Runs on the same checkpoints, each engine its own: before and after two more appends,
    then after a delete, an overwrite and an append: the empty table's first batch, reading from
    a timestamp, the restarts' batches, Iceberg's failures and the skipping of those snapshots,
    all as Spark."""
    snapshots = document("setup", "ember", tmp_path)
    runs = {"spark": [], "ember": []}
    for step in (None, "append", "delete"):
        if step:
            snapshots = document(step, "ember", tmp_path)
        for engine in runs:
            runs[engine].append(document("incremental", engine, tmp_path / engine))
    without_descriptions(*runs["spark"], *runs["ember"])
    assert runs["ember"] == runs["spark"]
    ember = runs["ember"]
    # The empty table: Spark's batch 0 ends at the start offset; the appends come after.
    assert ember[0]["e"]["offsets"]["0"] == [offset(-1, -1)]
    assert ember[0]["e"]["batches"] == {"0": []}
    assert sum(len(rows) for rows in ember[1]["e"]["batches"].values()) == 7
    deleted = [s for s, op in snapshots if op == "delete"][0]
    overwritten = [s for s, op in snapshots if op == "overwrite"][0]
    assert ember[2]["fails"] == (f"Cannot process delete snapshot: {deleted}, to ignore deletes, "
                                 "set streaming-skip-delete-snapshots=true")
    assert ember[2]["fails_overwrite"] == (f"Cannot process overwrite snapshot: {overwritten}, to "
                                           "ignore overwrites, set streaming-skip-overwrite-snapshots=true")
    assert [rows for rows in ember[2]["skips"]["batches"].values()] == [[[500, "b", 5000]]]


def test_ember_continues_its_own_checkpoint_after_a_batch_it_did_not_commit(tmp_path):
    """A restart after a crash in the middle of a batch: the batch runs again over the same
    files (its offsets logged), and later batches go on from there."""
    document("setup", "ember", tmp_path)
    first = document("limits", "ember", tmp_path / "first")
    checkpoint = tmp_path / "first" / "files"
    for log, batch in (("commits", "2"), ("commits", "1"), ("offsets", "2")):
        os.remove(checkpoint / log / batch)
    again = document("limits", "ember", tmp_path / "first")
    assert again["files"]["offsets"] == first["files"]["offsets"]
    assert again["files"]["batches"] == {b: first["files"]["batches"][b] for b in ("1", "2")}
    assert all(again[case]["batches"] == {} for case in ("rows", "both", "none", "once"))


def test_errors(tmp_path):
    """Clear errors: a table that does not exist, a user schema, no table name, a bad limit."""
    document("setup", "ember", tmp_path)
    script = textwrap.dedent("""
        import json, sys
        from ember.sql import SparkSession
        spark = (SparkSession.builder.config("spark.sql.catalog.local.type", "hadoop")
                 .config("spark.sql.catalog.local.warehouse", sys.argv[1]).getOrCreate())
        out = {}
        cases = {
            "missing": lambda: spark.readStream.table("local.db.nope"),
            "schema": lambda: spark.readStream.schema("a INT").table("local.db.t"),
            "no name": lambda: spark.readStream.format("iceberg").load(),
            "limit": lambda: spark.readStream.option("streaming-max-files-per-micro-batch", "x")
                .table("local.db.t").writeStream.format("noop")
                .option("checkpointLocation", sys.argv[1] + "/cp").start().processAllAvailable(),
        }
        for name, case in cases.items():
            try:
                case()
                out[name] = None
            except Exception as e:
                out[name] = type(e).__name__ + ": " + str(e).split("\\n")[0]
        print(json.dumps(out))
    """)
    result = subprocess.run([sys.executable, "-c", script, str(tmp_path / "wh")],
                            capture_output=True, timeout=300, check=True)
    out = json.loads(result.stdout.decode().strip().split("\n")[-1])
    assert "TABLE_OR_VIEW_NOT_FOUND" in out["missing"] and "`nope`" in out["missing"]
    assert "user-specified schema" in out["schema"]
    assert "path is not set" in out["no name"]
    assert 'For input string: "x"' in out["limit"] and "max-files" in out["limit"]


# Ember alone, SIGKILLed (a dozen times) while it streams local.db.src, a snapshot a batch, into local.db.out.
KILL_JOB = textwrap.dedent("""
    import sys
    from ember.sql import SparkSession
    warehouse, checkpoint = sys.argv[1:3]
    spark = (SparkSession.builder.config("spark.sql.catalog.local.type", "hadoop")
             .config("spark.sql.catalog.local.warehouse", warehouse).getOrCreate())
    spark.sql("CREATE TABLE IF NOT EXISTS local.db.out (id INT, p STRING, v BIGINT) USING iceberg")
    q = (spark.readStream.option("streaming-max-files-per-micro-batch", "2").table("local.db.src")
         .writeStream.option("checkpointLocation", checkpoint).trigger(availableNow=True)
         .toTable("local.db.out"))
    print("started", flush=True)
    q.awaitTermination()
""")

APPEND_JOB = textwrap.dedent("""
    import sys
    from ember.sql import SparkSession
    warehouse, first = sys.argv[1], int(sys.argv[2])
    spark = (SparkSession.builder.config("spark.sql.catalog.local.type", "hadoop")
             .config("spark.sql.catalog.local.warehouse", warehouse).getOrCreate())
    spark.sql("CREATE TABLE IF NOT EXISTS local.db.src (id INT, p STRING, v BIGINT) USING iceberg "
              "PARTITIONED BY (p)")
    for k in range(3):  # three appends of three files
        rows = [(i, "abc"[i % 3], i * 10) for i in range(first + 9 * k, first + 9 * k + 9)]
        spark.createDataFrame(rows, "id INT, p STRING, v BIGINT").writeTo("local.db.src").append()
""")


def test_iceberg_to_iceberg_killed_a_dozen_times(tmp_path):
    warehouse, checkpoint = tmp_path / "wh", tmp_path / "cp"
    (warehouse / "db").mkdir(parents=True)
    (tmp_path / "job.py").write_text(KILL_JOB)
    (tmp_path / "append.py").write_text(APPEND_JOB)
    appended = [0]

    def more_input():
        subprocess.run([sys.executable, str(tmp_path / "append.py"), str(warehouse), str(appended[0])],
                       check=True, timeout=300, capture_output=True)
        appended[0] += 27

    more_input()
    args = [sys.executable, str(tmp_path / "job.py"), str(warehouse), str(checkpoint)]
    kill_while_streaming(args, seed=22, more_input=more_input, kills=12, window=0.3)
    subprocess.run(args, check=True, timeout=300, capture_output=True)
    source = newest_table(warehouse / "db" / "src").scan().to_arrow().sort_by("id").to_pylist()
    out = newest_table(warehouse / "db" / "out").scan().to_arrow().sort_by("id").to_pylist()
    assert len(source) == appended[0]
    assert out == source
