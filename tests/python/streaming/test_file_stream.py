"""The streaming core: a JSON file stream processed in micro-batches with Spark's checkpoint
protocol. Oracles: DuckDB over the same JSON files, and Spark's checkpoint format."""

import json
import os
import subprocess
import sys
import textwrap
import time

import duckdb
import pyarrow.parquet as pq
import pytest

from ember.errors import AnalysisException, IllegalArgumentException, PySparkValueError
from crash import kill_at_random_instants
from ember.sql import SparkSession

SCHEMA = "event_id INT, company_id STRING, amount DOUBLE, event_ts STRING"


@pytest.fixture(scope="module")
def spark():
    return SparkSession.builder.getOrCreate()


def write_events(directory, name, first_id, count):
    with open(os.path.join(directory, name), "w") as out:
        for i in range(first_id, first_id + count):
            out.write(json.dumps({"event_id": i, "company_id": f"c{i % 3}", "amount": i * 1.5,
                                  "event_ts": f"2024-01-01 00:{i % 60:02d}:00"}) + "\n")


def duckdb_events(directory):
    rows = duckdb.sql(
        f"SELECT event_id, company_id, amount FROM read_json('{directory}/*.json', "
        "columns = {'event_id': 'INTEGER', 'company_id': 'VARCHAR', 'amount': 'DOUBLE', "
        "'event_ts': 'VARCHAR'}) ORDER BY event_id"
    ).fetchall()
    return [tuple(r) for r in rows]


def batch_files_sink(out_dir):
    """An idempotent sink: each batch replaces the Parquet file named by its batch id."""

    def write(df, batch_id):
        path = os.path.join(out_dir, f"batch-{batch_id:05d}.parquet")
        pq.write_table(df.toArrow(), path + ".tmp")
        os.replace(path + ".tmp", path)

    return write


def sink_rows(out_dir):
    rows = []
    for name in sorted(os.listdir(out_dir)):
        if name.endswith(".parquet"):
            t = pq.read_table(os.path.join(out_dir, name))
            rows += list(zip(t["event_id"].to_pylist(), t["company_id"].to_pylist(),
                             t["amount"].to_pylist()))
    return sorted(rows)


def run_available_now(spark, source, checkpoint, out_dir, **options):
    reader = spark.readStream.schema(SCHEMA).format("json")
    for k, v in options.items():
        reader = reader.option(k, v)
    query = (reader.load(source).writeStream.foreachBatch(batch_files_sink(out_dir))
             .option("checkpointLocation", checkpoint).trigger(availableNow=True).start())
    query.processAllAvailable()
    query.stop()
    return query


def test_exactly_once_across_restarts(spark, tmp_path):
    source, checkpoint, out = tmp_path / "in", tmp_path / "cp", tmp_path / "out"
    source.mkdir()
    out.mkdir()
    write_events(source, "a.json", 0, 40)
    write_events(source, "b.json", 40, 40)
    run_available_now(spark, str(source), str(checkpoint), str(out))
    assert sink_rows(out) == duckdb_events(source)
    write_events(source, "c.json", 80, 25)
    run_available_now(spark, str(source), str(checkpoint), str(out))
    run_available_now(spark, str(source), str(checkpoint), str(out))  # nothing new
    assert sink_rows(out) == duckdb_events(source)
    assert sorted(os.listdir(checkpoint / "commits")) == ["0", "1"]


def test_max_files_per_trigger_splits_the_backlog(spark, tmp_path):
    source, out = tmp_path / "in", tmp_path / "out"
    source.mkdir()
    out.mkdir()
    for i in range(5):
        write_events(source, f"f{i}.json", i * 10, 10)
        os.utime(source / f"f{i}.json", (1_700_000_000 + i, 1_700_000_000 + i))
    run_available_now(spark, str(source), str(tmp_path / "cp"), str(out), maxFilesPerTrigger=2)
    assert sorted(os.listdir(out)) == [f"batch-{i:05d}.parquet" for i in range(3)]
    # Oldest files first: batch 0 holds f0 and f1.
    first = pq.read_table(out / "batch-00000.parquet")["event_id"].to_pylist()
    assert sorted(first) == list(range(20))
    assert sink_rows(out) == duckdb_events(source)


def test_checkpoint_files_follow_spark_layout(spark, tmp_path):
    source, checkpoint, out = tmp_path / "in", tmp_path / "cp", tmp_path / "out"
    source.mkdir()
    out.mkdir()
    write_events(source, "a b.json", 0, 3)
    query = run_available_now(spark, str(source), str(checkpoint), str(out))
    assert json.loads((checkpoint / "metadata").read_text()) == {"id": query.id}
    version, meta, offset = (checkpoint / "offsets" / "0").read_text().split("\n")
    assert version == "v1"
    meta = json.loads(meta)
    assert meta["batchWatermarkMs"] == 0 and meta["batchTimestampMs"] > 0
    assert "spark.sql.shuffle.partitions" in meta["conf"]
    assert json.loads(offset) == {"logOffset": 0}
    assert (checkpoint / "commits" / "0").read_text().split("\n") == [
        "v1", '{"nextBatchWatermarkMs":0}']
    version, entry = (checkpoint / "sources" / "0" / "0").read_text().split("\n")
    entry = json.loads(entry)
    assert version == "v1" and entry["batchId"] == 0
    assert entry["path"] == "file://" + str(source / "a%20b.json")


def test_a_logged_batch_without_commit_runs_again_with_the_same_files(spark, tmp_path):
    source, checkpoint, out = tmp_path / "in", tmp_path / "cp", tmp_path / "out"
    source.mkdir()
    out.mkdir()
    write_events(source, "a.json", 0, 10)
    run_available_now(spark, str(source), str(checkpoint), str(out))
    # A crash after offsets/0 was written and before commits/0: remove the commit and the output.
    os.remove(checkpoint / "commits" / "0")
    os.remove(out / "batch-00000.parquet")
    write_events(source, "b.json", 10, 10)  # arrives later: must not join the re-run batch 0
    run_available_now(spark, str(source), str(checkpoint), str(out))
    batch0 = sorted(pq.read_table(out / "batch-00000.parquet")["event_id"].to_pylist())
    assert batch0 == list(range(10))
    assert sink_rows(out) == duckdb_events(source)


CRASHING_JOB = textwrap.dedent("""
    import os, sys, time, pyarrow.parquet as pq
    from ember.sql import SparkSession
    source, checkpoint, out = sys.argv[1:4]
    spark = SparkSession.builder.getOrCreate()
    def write(df, batch_id):
        time.sleep(0.05)  # widen the window in which the test's SIGKILL can land
        path = os.path.join(out, f"batch-{batch_id:05d}.parquet")
        pq.write_table(df.toArrow(), path + ".tmp")
        os.replace(path + ".tmp", path)
    q = (spark.readStream.schema("event_id INT, company_id STRING, amount DOUBLE, event_ts STRING")
         .option("maxFilesPerTrigger", 1).json(source)
         .writeStream.foreachBatch(write).option("checkpointLocation", checkpoint)
         .trigger(availableNow=True).start())
    print("started", flush=True)
    q.processAllAvailable()
    q.stop()
""")


def test_killed_at_random_instants_restarts_exactly_once(tmp_path):
    source, checkpoint, out = tmp_path / "in", tmp_path / "cp", tmp_path / "out"
    source.mkdir()
    out.mkdir()
    for i in range(12):
        write_events(source, f"f{i:02d}.json", i * 5, 5)
        os.utime(source / f"f{i:02d}.json", (1_700_000_000 + i, 1_700_000_000 + i))
    job = tmp_path / "job.py"
    job.write_text(CRASHING_JOB)
    args = [sys.executable, str(job), str(source), str(checkpoint), str(out)]
    assert kill_at_random_instants(args, seed=11) == 3, "the job ended before 3 kills"
    subprocess.run(args, check=True, timeout=120)
    assert sink_rows(out) == duckdb_events(source)
    commits = sorted(int(n) for n in os.listdir(checkpoint / "commits") if n.isdigit())
    assert commits == list(range(len(commits))) and len(commits) >= 10


@pytest.mark.parametrize("open_cost", ["1", "1g"])
def test_memory_sink_rows_in_file_order_with_or_without_tasks(spark, tmp_path, open_cost):
    """A batch of eight files into the memory sink, as one task per core (each file costs at
    least spark.sql.files.openCostInBytes: 1 byte) or read whole (1g): the same rows, in the
    order Spark reads the files (largest first)."""
    source = tmp_path / "in"
    source.mkdir()
    sizes = [30, 5, 70, 12, 44, 9, 61, 20]
    first = 0
    for i, count in enumerate(sizes):
        write_events(source, f"f{i}.json", first, count)
        first += count
    spark.conf.set("spark.sql.files.openCostInBytes", open_cost)
    try:
        query = (spark.readStream.schema(SCHEMA).json(str(source)).where("event_id % 4 <> 1")
                 .selectExpr("event_id", "concat(company_id, '!') AS company_id", "amount")
                 .writeStream.format("memory").queryName(f"tasks_{open_cost}")
                 .trigger(availableNow=True).start())
        query.processAllAvailable()
        query.stop()
    finally:
        spark.conf.unset("spark.sql.files.openCostInBytes")
    rows = [tuple(r) for r in spark.sql(f"SELECT * FROM tasks_{open_cost}").collect()]
    # File order: largest first, each file's rows in their order.
    starts = [sum(sizes[:i]) for i in range(len(sizes))]
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i])
    expected = [(e, f"c{e % 3}!", e * 1.5) for i in order for e in range(starts[i], starts[i] + sizes[i])
                if e % 4 != 1]
    assert rows == expected
    assert sorted(rows) == [(e, c + "!", a) for e, c, a in duckdb_events(source) if e % 4 != 1]
    assert query.lastProgress["numInputRows"] == sum(sizes)
    assert query.lastProgress["sink"]["numOutputRows"] == len(expected)


def test_complete_mode_counts_in_the_memory_sink(spark, tmp_path):
    source = tmp_path / "in"
    source.mkdir()
    write_events(source, "a.json", 0, 30)
    counts = (spark.readStream.schema(SCHEMA).json(str(source)).groupBy("company_id").count()
              .withColumnRenamed("count", "n"))
    query = (counts.writeStream.format("memory").queryName("company_counts")
             .outputMode("complete").start())
    query.processAllAvailable()
    write_events(source, "b.json", 30, 12)
    query.processAllAvailable()
    query.stop()
    got = sorted(tuple(r) for r in spark.sql("SELECT company_id, n FROM company_counts").collect())
    want = duckdb.sql(
        f"SELECT company_id, count(*) FROM read_json('{source}/*.json') GROUP BY 1 ORDER BY 1"
    ).fetchall()
    assert got == [tuple(r) for r in want]


def test_append_mode_aggregation_is_rejected(spark, tmp_path):
    counts = spark.readStream.schema(SCHEMA).json(str(tmp_path)).groupBy("company_id").count()
    with pytest.raises(AnalysisException, match="STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION"):
        counts.writeStream.format("memory").queryName("bad").outputMode("append").start()


def test_user_mistakes(spark, tmp_path):
    with pytest.raises(IllegalArgumentException, match="Schema must be specified"):
        spark.readStream.format("json").load(str(tmp_path))
    stream = spark.readStream.schema(SCHEMA).json(str(tmp_path))
    with pytest.raises(AnalysisException, match="writeStream.start"):
        stream.collect()
    with pytest.raises(PySparkValueError):
        stream.writeStream.trigger()
    with pytest.raises(PySparkValueError):
        stream.writeStream.trigger(once=False)
    with pytest.raises(IllegalArgumentException, match="maxFilesPerTrigger"):
        (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", "0").json(str(tmp_path))
         .writeStream.format("noop").start())
    with pytest.raises(AnalysisException, match="checkpointLocation must be specified"):
        stream.writeStream.format("parquet").start(str(tmp_path / "out"))


@pytest.mark.parametrize("fmt", ["parquet", "json", "csv"])
def test_file_sink_commits_each_batch_once(spark, tmp_path, fmt):
    source, checkpoint, out = tmp_path / "in", tmp_path / "cp", tmp_path / "out"
    source.mkdir()
    for i in range(4):
        write_events(source, f"f{i}.json", i * 10, 10)
        os.utime(source / f"f{i}.json", (1_700_000_000 + i, 1_700_000_000 + i))

    def run():
        query = (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(source))
                 .writeStream.format(fmt).option("checkpointLocation", str(checkpoint))
                 .trigger(availableNow=True).start(str(out)))
        query.processAllAvailable()
        query.stop()

    run()
    # A crash after batch 3's files were written but before its commit: the checkpoint loses
    # commits/3, and an uncommitted stray part file is left behind.
    os.remove(checkpoint / "commits" / "3")
    (out / "part-99999-stray-c000.x").write_text("not committed")
    run()
    read = spark.read.schema(SCHEMA).format(fmt).load(str(out))
    got = sorted((r.event_id, r.company_id, r.amount) for r in read.collect())
    assert got == duckdb_events(source)
    log = sorted(os.listdir(out / "_spark_metadata"), key=lambda n: int(n.split(".")[0]))
    assert log == ["0", "1", "2", "3"]
    # DuckDB over exactly the files the log lists gives the same rows.
    listed = []
    for name in log:
        lines = (out / "_spark_metadata" / name).read_text().split("\n")
        assert lines[0] == "v1"
        listed += [json.loads(line)["path"][len("file://"):] for line in lines[1:]]
    if fmt == "parquet":
        rows = duckdb.sql(f"SELECT event_id, company_id, amount FROM read_parquet({listed!r}) "
                          "ORDER BY event_id").fetchall()
        assert [tuple(r) for r in rows] == duckdb_events(source)


def test_update_mode_emits_the_groups_each_batch_touched(spark, tmp_path):
    source = tmp_path / "in"
    source.mkdir()
    write_events(source, "a.json", 0, 12)       # companies c0, c1, c2
    emitted = []
    counts = spark.readStream.schema(SCHEMA).json(str(source)).groupBy("company_id").count()
    query = (counts.writeStream.outputMode("update")
             .foreachBatch(lambda df, batch_id: emitted.append(sorted(tuple(r) for r in df.collect())))
             .start())
    query.processAllAvailable()
    with open(source / "b.json", "w") as out:   # only c1 this time
        out.write(json.dumps({"event_id": 100, "company_id": "c1", "amount": 1.0,
                              "event_ts": "2024-01-01 01:00:00"}) + "\n")
    query.processAllAvailable()
    query.stop()
    totals = dict(duckdb.sql(f"SELECT company_id, count(*) FROM read_json('{source}/*.json') "
                             "GROUP BY 1").fetchall())
    first = dict(duckdb.sql(f"SELECT company_id, count(*) FROM read_json('{source}/a.json') "
                            "GROUP BY 1").fetchall())
    assert emitted == [sorted(first.items()), [("c1", totals["c1"])]]


@pytest.mark.parametrize("mode", ["delete", "archive"])
def test_clean_source_removes_files_of_committed_batches(spark, tmp_path, mode):
    """STREAMING.md 8.4: a batch's files are cleaned once the next batch is planned; archived
    files keep their full path under sourceArchiveDir. Nothing is read twice or lost."""
    source, checkpoint, out, archive = (tmp_path / "in", tmp_path / "cp", tmp_path / "out",
                                        tmp_path / "archive")
    source.mkdir()
    out.mkdir()
    for i in range(3):
        write_events(source, f"f{i}.json", i * 10, 10)
        os.utime(source / f"f{i}.json", (1_700_000_000 + i, 1_700_000_000 + i))
    want = duckdb_events(source)
    options = {"cleanSource": mode, "maxFilesPerTrigger": 1}
    if mode == "archive":
        options["sourceArchiveDir"] = str(archive)
    run_available_now(spark, str(source), str(checkpoint), str(out), **options)
    # Batches 0 and 1 were followed by another batch; the last one's file stays.
    assert sorted(os.listdir(source)) == ["f2.json"]
    if mode == "archive":
        archived = archive / str(source).lstrip("/")
        assert sorted(os.listdir(archived)) == ["f0.json", "f1.json"]
    assert sink_rows(out) == want


def test_max_file_age_is_relative_to_the_newest_file_seen(spark, tmp_path):
    source, checkpoint, out = tmp_path / "in", tmp_path / "cp", tmp_path / "out"
    source.mkdir()
    out.mkdir()
    write_events(source, "new.json", 0, 5)
    os.utime(source / "new.json", (1_700_000_000, 1_700_000_000))
    run_available_now(spark, str(source), str(checkpoint), str(out), maxFileAge="1h")
    # Two hours older than the newest file seen: not new any more. One minute older: new.
    write_events(source, "old.json", 5, 5)
    os.utime(source / "old.json", (1_700_000_000 - 7200, 1_700_000_000 - 7200))
    write_events(source, "recent.json", 10, 5)
    os.utime(source / "recent.json", (1_700_000_000 - 60, 1_700_000_000 - 60))
    run_available_now(spark, str(source), str(checkpoint), str(out), maxFileAge="1h")
    assert [r[0] for r in sink_rows(out)] == list(range(5)) + list(range(10, 15))
    with pytest.raises(IllegalArgumentException, match="maxFileAge"):
        run_available_now(spark, str(source), str(tmp_path / "cp2"), str(out), maxFileAge="soon")


def test_file_sink_partitions_by_columns(spark, tmp_path):
    """partitionBy: Hive-style company_id=<value> directories (the column leaves the files), each
    file listed in _spark_metadata. Oracle: DuckDB reading the logged files with their
    partition values."""
    source, checkpoint, out = tmp_path / "in", tmp_path / "cp", tmp_path / "out"
    source.mkdir()
    for i in range(2):
        write_events(source, f"f{i}.json", i * 10, 10)
        os.utime(source / f"f{i}.json", (1_700_000_000 + i, 1_700_000_000 + i))
    query = (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(source))
             .writeStream.format("parquet").partitionBy("company_id")
             .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True)
             .start(str(out)))
    query.processAllAvailable()
    query.stop()
    assert sorted(p for p in os.listdir(out) if not p.startswith("_")) == [
        "company_id=c0", "company_id=c1", "company_id=c2"]
    listed = []
    for name in sorted(os.listdir(out / "_spark_metadata")):
        lines = (out / "_spark_metadata" / name).read_text().split("\n")[1:]
        listed += [json.loads(line)["path"][len("file://"):] for line in lines]
    assert all("/company_id=" in p for p in listed) and len(listed) == 6
    rows = duckdb.sql(f"SELECT event_id, company_id, amount FROM read_parquet({listed!r}, "
                      "hive_partitioning = true) ORDER BY event_id").fetchall()
    assert [tuple(r) for r in rows] == duckdb_events(source)
    columns = duckdb.sql(f"DESCRIBE SELECT * FROM read_parquet('{listed[0]}', hive_partitioning = false)").fetchall()
    assert "company_id" not in [c[0] for c in columns]


def test_batch_writes_of_files_with_save_modes(spark, tmp_path):
    from ember.errors import AnalysisException
    out = str(tmp_path / "out")
    df = spark.createDataFrame([(1, "a"), (2, None), (3, "a")], "id INT, k STRING")
    df.write.partitionBy("k").parquet(out)
    assert sorted(os.listdir(out)) == ["_SUCCESS", "k=__HIVE_DEFAULT_PARTITION__", "k=a"]
    with pytest.raises(AnalysisException, match="PATH_ALREADY_EXISTS"):
        df.write.parquet(out)
    df.write.mode("ignore").parquet(out)
    df.write.mode("append").partitionBy("k").parquet(out)
    count = duckdb.sql(f"SELECT count(*) FROM read_parquet('{out}/*/*.parquet')").fetchone()[0]
    assert count == 6
    df.write.mode("overwrite").json(out)
    rows = duckdb.sql(f"SELECT id, k FROM read_json('{out}/*.json') ORDER BY id").fetchall()
    assert rows == [(1, "a"), (2, None), (3, "a")]


def test_foreach_writer_contract(spark, tmp_path):
    """open(partition, epoch) -> process(row)... -> close(None) per micro-batch; when open returns
    false the rows are skipped and close is still called; a plain function gets every row."""
    from ember.errors import PySparkAttributeError
    source = tmp_path / "in"
    source.mkdir()
    for i in range(3):
        write_events(source, f"f{i}.json", i * 4, 4)
        os.utime(source / f"f{i}.json", (1_700_000_000 + i, 1_700_000_000 + i))
    calls = []

    class Writer:
        def open(self, partition_id, epoch_id):
            calls.append(("open", partition_id, epoch_id))
            return epoch_id != 1

        def process(self, row):
            calls.append(("process", row.event_id))

        def close(self, error):
            calls.append(("close", error))

    stream = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(source))
    query = stream.writeStream.foreach(Writer()).trigger(availableNow=True).start()
    query.awaitTermination()
    processed = [c[1] for c in calls if c[0] == "process"]
    assert processed == [0, 1, 2, 3, 8, 9, 10, 11]
    assert [c for c in calls if c[0] != "process"] == [
        ("open", 0, 0), ("close", None), ("open", 0, 1), ("close", None), ("open", 0, 2),
        ("close", None)]
    seen = []
    query = stream.writeStream.foreach(lambda row: seen.append(row.event_id)).trigger(availableNow=True).start()
    query.awaitTermination()
    assert sorted(seen) == list(range(12))
    with pytest.raises(PySparkAttributeError, match="ATTRIBUTE_NOT_CALLABLE"):
        stream.writeStream.foreach(object())


def test_file_sink_retention_drops_old_entries_at_compaction(tmp_path):
    """FileStreamSinkLog.shouldRetain: the compaction (batch 9) keeps an entry only while
    now - modificationTime <= retention. programs.py makes the entries of batches 0-2 two hours
    old; with retention 1h they leave 9.compact and spark.read no longer lists their rows;
    without the option all ten batches stay. (test_spark_side_by_side runs it on Spark too.)"""
    here = os.path.dirname(os.path.abspath(__file__))
    result = subprocess.run(
        [sys.executable, os.path.join(here, "programs.py"), "retention", str(tmp_path), "ember"],
        capture_output=True, text=True, timeout=300, env={**os.environ, "TZ": "UTC"})
    assert result.returncode == 0, result.stderr[-3000:]
    runs = json.loads(result.stdout.strip().split("\n")[-1])
    assert runs["with"]["compacted_batches"] == list(range(3, 10))
    assert runs["with"]["ids_read"] == list(range(6, 20))
    assert runs["without"]["compacted_batches"] == list(range(10))
    assert runs["without"]["ids_read"] == list(range(20))
    assert runs["with"]["log"] == [str(b) for b in range(9)] + ["9.compact"]


def test_file_sink_retention_is_a_time_string(spark, tmp_path):
    from ember.errors import NumberFormatException

    stream = spark.readStream.schema(SCHEMA).json(str(tmp_path))
    with pytest.raises(NumberFormatException) as error:
        (stream.writeStream.format("parquet").option("path", str(tmp_path / "out"))
         .option("checkpointLocation", str(tmp_path / "cp")).option("retention", "soon").start())
    # Spark 4.0.1's message, word for word (JavaUtils.timeStringAs).
    assert str(error.value) == (
        "Time must be specified as seconds (s), milliseconds (ms), microseconds (us), minutes "
        "(m or min), hour (h), or day (d). E.g. 50s, 100ms, or 250us.\n"
        "Failed to parse time string: soon")


def expected_source_log():
    """What Spark 4.0 does in programs.py's `source_log` (checked side by side with Spark in
    test_spark_side_by_side.py)."""
    def entry(f, batch):
        return {"path": f"f{f:02d}.json", "timestamp": (1_700_000_000 + f) * 1000, "batchId": batch}

    def one_file_batches(files):
        return [[f, [f * 10, f * 10 + 1]] for f in files]

    plain = {str(k): ["v1", entry(k, k)] for k in range(25) if k not in (9, 19)}
    return {
        # Each compaction holds the previous one, the batches since and its own entry.
        "compact": {"first": one_file_batches(range(12)), "again": one_file_batches(range(12, 25)),
                    "log": {**plain, "9.compact": ["v1"] + [entry(k, k) for k in range(10)],
                            "19.compact": ["v1"] + [entry(k, k) for k in range(20)]}},
        # The four files batch 0 left are served before the late, older file is listed.
        "unread": [[0, [0, 1, 10, 11]], [1, [20, 21, 30, 31]], [2, [40, 41, 50, 51]], [3, [1000]]],
        # One file left is under a fifth of 10: dropped, so batch 1 lists again, oldest first.
        "discard": [[0, [i for f in range(10) for i in (f * 10, f * 10 + 1)]], [1, [100, 101, 1000]]],
        # A file arriving during an availableNow run waits for the next run.
        "available_now": {"first": one_file_batches(range(3)), "next_run": [[3, [1000]]]},
    }


def test_source_log_compaction_unread_files_and_available_now(tmp_path):
    """Compaction files over 25 batches and a restart; the unread-files cache of a read limit and
    when it is dropped; availableNow's one listing (expected_source_log)."""
    program = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs.py")
    result = subprocess.run([sys.executable, program, "source_log", str(tmp_path), "ember"],
                            capture_output=True, timeout=300, env={**os.environ, "TZ": "UTC"})
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-5000:]
    got = json.loads(result.stdout.decode().strip().split("\n")[-1])
    want = expected_source_log()
    assert got["compact"] == want["compact"]
    assert got["unread"]["batches"] == want["unread"]
    assert got["discard"]["batches"] == want["discard"]
    assert {k: got["available_now"][k] for k in ("first", "next_run")} == want["available_now"]


def state_files_bound(retain=10, min_deltas=10):
    """The most files a state partition keeps by Spark's rules (snapshot after more than
    min_deltas deltas, cleanup below the snapshot the oldest retained version starts from):
    up to min_deltas deltas before the oldest retained version, a delta for each of the
    retain + 1 versions from it on, and at most three snapshots among them."""
    return min_deltas + retain + 1 + 3


def long_run_rule(batches, retain=10, interval=5):
    """The files Spark's rules leave after `batches` batches (ids 0 .. batches-1) with a
    cleanup delay of 0: offsets and commits keep the last retain + 1 batches
    (MicroBatchExecution.purge); a compactible log (CompactibleFileStreamLog.deleteExpiredLog)
    keeps the entries from the compaction before the oldest retained batch on."""
    last = batches - 1
    kept = [str(b) for b in range(last - retain, last + 1)]
    min_batch = last + 1 - retain
    min_compaction = min_batch - min_batch % interval - 1
    log = [f"{b}.compact" if (b + 1) % interval == 0 else str(b) for b in range(min_compaction, last + 1)]
    return {"offsets": kept, "commits": kept, "log": log}


def test_a_long_run_keeps_its_checkpoint_bounded_and_restarts_exactly_once(tmp_path):
    """45 one-file batches, then a restart with 15 more (programs.py long_run, minBatchesToRetain
    10, compaction every 5 entries, cleanup delay 0): every log keeps what Spark's rules keep (long_run_rule; the same
    files as Spark's in test_spark_side_by_side), each state partition at most the versions the
    retained batches need, and the restarted query's output is DuckDB's distinct values, once
    each."""
    here = os.path.dirname(os.path.abspath(__file__))
    result = subprocess.run(
        [sys.executable, os.path.join(here, "programs.py"), "long_run", str(tmp_path), "ember"],
        capture_output=True, text=True, timeout=600, env={**os.environ, "TZ": "UTC"})
    assert result.returncode == 0, result.stderr[-3000:]
    runs = json.loads(result.stdout.strip().split("\n")[-1])
    for name, batches in (("first", 45), ("again", 60)):
        view, rule = runs[name], long_run_rule(batches)
        assert view["offsets"]["names"] == rule["offsets"], name
        assert view["commits"]["names"] == rule["commits"], name
        assert view["sources/0"]["names"] == rule["log"], name
        assert view["out/_spark_metadata"]["names"] == rule["log"], name
        # The newest compaction holds every file ever read, each under the batch that read it.
        compact = view["last_compact"]
        assert compact["entries"] == [[b, f"f{b:04d}.json"]
                                      for b in range(int(compact["name"].split(".")[0]) + 1)]
        partitions = {}
        for file in view["state"]["names"]:
            if "_metadata" not in file:
                partitions.setdefault(file.split("/")[1], []).append(file)
        assert len(partitions) == 2
        for files in partitions.values():
            assert len(files) <= state_files_bound(), files
    want = [v for (v,) in duckdb.sql(
        f"SELECT DISTINCT v FROM read_json('{tmp_path}/in/*.json', columns = "
        "{'k': 'INTEGER', 'v': 'INTEGER'}) ORDER BY v").fetchall()]
    assert runs["rows"] == want


def test_a_log_keeps_the_compact_interval_it_was_written_with(spark, tmp_path):
    """SPARK-18187 (CompactibleFileStreamLog.compactInterval): a log with two compactions keeps
    their distance whatever the conf says now, so readers still find them."""
    source, checkpoint, out = tmp_path / "in", str(tmp_path / "cp"), str(tmp_path / "out")
    source.mkdir()
    os.mkdir(out)
    for i in range(18):
        write_events(str(source), f"f{i:02d}.json", i, 1)
    spark.conf.set("spark.sql.streaming.fileSource.log.compactInterval", "5")
    try:
        run_available_now(spark, str(source), checkpoint, out, maxFilesPerTrigger=1)
    finally:
        spark.conf.unset("spark.sql.streaming.fileSource.log.compactInterval")
    for i in range(18, 25):
        write_events(str(source), f"f{i:02d}.json", i, 1)
    run_available_now(spark, str(source), checkpoint, out, maxFilesPerTrigger=1)
    log = sorted(os.listdir(os.path.join(checkpoint, "sources", "0")), key=lambda n: int(n.split(".")[0]))
    assert [n for n in log if n.endswith(".compact")] == [f"{b}.compact" for b in (4, 9, 14, 19, 24)]
    assert sink_rows(out) == duckdb_events(str(source))


@pytest.mark.parametrize("key, value, message", [
    ("spark.sql.streaming.minBatchesToRetain", "0",
     "The minimum number of batches to be retained must be positive."),
    ("spark.sql.streaming.fileSource.log.compactInterval", "0",
     "requirement failed: Please set spark.sql.streaming.fileSource.log.compactInterval (was 0) "
     "to a positive value."),
])
def test_log_confs_out_of_range_fail_start(spark, tmp_path, key, value, message):
    """Spark's checks of the confs, with its messages (SQLConf and FileStreamSourceLog)."""
    (tmp_path / "in").mkdir()
    spark.conf.set(key, value)
    try:
        with pytest.raises(IllegalArgumentException) as error:
            run_available_now(spark, str(tmp_path / "in"), str(tmp_path / "cp"), str(tmp_path / "out"))
    finally:
        spark.conf.unset(key)
    assert message in str(error.value)
