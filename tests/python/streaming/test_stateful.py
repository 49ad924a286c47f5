"""Stateful streaming: the versioned state store under aggregations and deduplication. Oracles:
DuckDB over the same input files, and the rules of STREAMING.md (sections 1.7, 3.6 and 6)."""

import json
import os
import subprocess
import sys
import textwrap

import duckdb
import pytest

from crash import kill_at_random_instants
from ember.errors import AnalysisException
from ember.sql import SparkSession

SCHEMA = "seq INT, id STRING, company STRING, amount DOUBLE, ts TIMESTAMP"
DUCK_COLUMNS = ("{'seq': 'INTEGER', 'id': 'VARCHAR', 'company': 'VARCHAR', 'amount': 'DOUBLE', "
                "'ts': 'TIMESTAMP'}")


@pytest.fixture(scope="module")
def spark():
    session = SparkSession.builder.getOrCreate()
    session.conf.set("spark.sql.session.timeZone", "UTC")
    return session


def write_rows(directory, name, rows):
    """rows: (seq, id, company, amount, 'HH:MM:SS' on 2024-01-01 or None)."""
    with open(os.path.join(directory, name), "w") as out:
        for seq, id_, company, amount, clock in rows:
            ts = f"2024-01-01T{clock}Z" if clock else None
            out.write(json.dumps({"seq": seq, "id": id_, "company": company, "amount": amount,
                                  "ts": ts}) + "\n")


def generated(first, count, keys=7):
    return [(i, f"id{i % 11}", None if i % 13 == 0 else f"c{i % keys}", float(i % 17),
             f"10:{i % 60:02d}:00") for i in range(first, first + count)]


def duck(source, sql):
    view = f"read_json('{source}/*.json', columns = {DUCK_COLUMNS})"
    return [tuple(r) for r in duckdb.sql(sql.format(events=view)).fetchall()]


def memory_rows(spark, name):
    return sorted((tuple(r) for r in spark.sql(f"SELECT * FROM {name}").collect()),
                  key=lambda r: tuple((x is None, str(x)) for x in r))


def ordered(rows):
    return sorted(rows, key=lambda r: tuple((x is None, str(x)) for x in r))


def collecting(rows):
    """A foreachBatch function keeping every emitted row (foreachBatch recovers from a
    checkpoint in every output mode; the memory sink only in complete mode)."""

    def write(df, batch_id):
        rows.extend(tuple(r) for r in df.collect())

    return write


def run_once(query):
    query.processAllAvailable()
    progress = query.recentProgress
    query.stop()
    return progress


def counts_query(spark, source, checkpoint, name):
    from ember.sql import functions as F
    counts = (spark.readStream.schema(SCHEMA).json(str(source)).groupBy("company")
              .agg(F.count("*").alias("n"), F.sum("amount").alias("total"),
                   F.avg("amount").alias("mean"), F.min("amount").alias("low"),
                   F.max("amount").alias("high")))
    return (counts.writeStream.format("memory").queryName(name).outputMode("complete")
            .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start())


def test_state_checkpoint_layout_and_metrics(spark, tmp_path):
    source, checkpoint = tmp_path / "in", tmp_path / "cp"
    source.mkdir()
    spark.conf.set("spark.sql.shuffle.partitions", "3")
    try:
        write_rows(source, "a.json", generated(0, 40))
        progress = run_once(counts_query(spark, source, checkpoint, "layout_counts"))
    finally:
        spark.conf.unset("spark.sql.shuffle.partitions")
    meta = (checkpoint / "state" / "0" / "_metadata" / "metadata").read_text().split("\n")
    assert meta[0] == "v1"
    info = json.loads(meta[1])
    assert info["operatorInfo"] == {"operatorId": 0, "operatorName": "stateStoreSave"}
    assert info["stateStoreInfo"][0]["numPartitions"] == 3
    # Batch 0 commits state version 1.
    deltas = sorted(p.name for p in (checkpoint / "state" / "0").glob("*/1.delta"))
    assert deltas and all(p.parent.name in "012" for p in (checkpoint / "state" / "0").glob("*/1.delta"))
    offsets = (checkpoint / "offsets" / "0").read_text().split("\n")
    assert json.loads(offsets[1])["conf"]["spark.sql.shuffle.partitions"] == "3"
    groups = duck(source, "SELECT count(DISTINCT company) + max(CASE WHEN company IS NULL THEN 1 ELSE 0 END) FROM {events}")[0][0]
    op = progress[-1]["stateOperators"][0]
    assert op["operatorName"] == "stateStoreSave"
    assert op["numRowsTotal"] == groups and op["numRowsUpdated"] == groups
    assert op["numShufflePartitions"] == 3


def test_complete_mode_continues_from_its_state_after_restarts(spark, tmp_path):
    """Each run reads only its new files; the counts can only be right if the state of the
    previous runs was loaded from the checkpoint. The second restart asks for another number of
    partitions: the checkpoint's wins."""
    source, checkpoint = tmp_path / "in", tmp_path / "cp"
    source.mkdir()
    want_sql = ("SELECT company, count(*), sum(amount), avg(amount), min(amount), max(amount) "
                "FROM {events} GROUP BY company")
    for run in range(3):
        write_rows(source, f"f{run}.json", generated(run * 50, 50))
        if run == 2:
            spark.conf.set("spark.sql.shuffle.partitions", "5")
        try:
            run_once(counts_query(spark, source, checkpoint, f"restart_counts_{run}"))
        finally:
            spark.conf.unset("spark.sql.shuffle.partitions")
        got = memory_rows(spark, f"restart_counts_{run}")
        want = ordered(duck(source, want_sql))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g[:3] == w[:3] and g[3] == pytest.approx(w[3]) and g[4:] == w[4:]
    partitions = {p.name for p in (checkpoint / "state" / "0").iterdir() if p.name.isdigit()}
    assert partitions <= {str(p) for p in range(os.cpu_count() or 1)}


def test_a_rerun_batch_starts_from_the_state_it_first_saw(spark, tmp_path):
    """Batch 1 ran and committed its state version 2, but its commit log entry was lost: the
    restart runs batch 1 again from version 1, so nothing is counted twice."""
    source, checkpoint = tmp_path / "in", tmp_path / "cp"
    source.mkdir()
    write_rows(source, "a.json", generated(0, 30))
    run_once(counts_query(spark, source, checkpoint, "rerun_a"))
    write_rows(source, "b.json", generated(30, 30))
    run_once(counts_query(spark, source, checkpoint, "rerun_b"))
    assert (checkpoint / "commits" / "1").exists()
    assert any((checkpoint / "state" / "0").glob("*/2.delta"))
    os.remove(checkpoint / "commits" / "1")
    progress = run_once(counts_query(spark, source, checkpoint, "rerun_c"))
    assert [p["batchId"] for p in progress] == [1]
    got = [(r[0], r[1]) for r in memory_rows(spark, "rerun_c")]
    want = ordered(duck(source, "SELECT company, count(*) FROM {events} GROUP BY company"))
    assert got == want


def test_state_is_loadable_from_snapshots_after_many_batches(spark, tmp_path):
    """Twenty-five one-file batches make each partition write snapshots (after more than
    minDeltasForSnapshot, 10, deltas of its own); a restart loads version 25 from the newest
    snapshot and the deltas after it."""
    source, checkpoint = tmp_path / "in", tmp_path / "cp"
    source.mkdir()
    for i in range(25):
        write_rows(source, f"f{i:02d}.json", generated(i * 4, 4))
        os.utime(source / f"f{i:02d}.json", (1_700_000_000 + i, 1_700_000_000 + i))
    from ember.sql import functions as F
    df = (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(source))
          .groupBy("company").agg(F.count("*").alias("n")))
    run_once(df.writeStream.format("memory").queryName("snap_a").outputMode("complete")
             .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start())
    assert list((checkpoint / "state" / "0").glob("*/*.snapshot"))
    write_rows(source, "z.json", generated(100, 9))
    run_once(df.writeStream.format("memory").queryName("snap_b").outputMode("complete")
             .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start())
    want = ordered(duck(source, "SELECT company, count(*) FROM {events} GROUP BY company"))
    assert memory_rows(spark, "snap_b") == want


KILLED_JOB = textwrap.dedent("""
    import sys
    from ember.sql import SparkSession, functions as F
    source, checkpoint, warehouse = sys.argv[1:4]
    spark = (SparkSession.builder
             .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
             .config("spark.sql.catalog.local.type", "hadoop")
             .config("spark.sql.catalog.local.warehouse", warehouse).getOrCreate())
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.db")
    spark.sql("CREATE TABLE IF NOT EXISTS local.db.counts (company STRING, n BIGINT, total DOUBLE) USING iceberg")
    counts = (spark.readStream.schema("seq INT, id STRING, company STRING, amount DOUBLE, ts TIMESTAMP")
              .option("maxFilesPerTrigger", 1).json(source)
              .groupBy("company").agg(F.count("*").alias("n"), F.sum("amount").alias("total")))
    q = (counts.writeStream.outputMode("complete").option("checkpointLocation", checkpoint)
         .trigger(availableNow=True).toTable("local.db.counts"))
    print("started", flush=True)
    q.awaitTermination()
""")


def test_complete_mode_into_iceberg_is_exact_after_kills(tmp_path):
    source, checkpoint, warehouse = tmp_path / "in", tmp_path / "cp", tmp_path / "wh"
    source.mkdir()
    # Enough one-file batches that the job is still running when most kills come.
    for i in range(200):
        write_rows(source, f"f{i:03d}.json", generated(i * 6, 6))
        os.utime(source / f"f{i:03d}.json", (1_700_000_000 + i, 1_700_000_000 + i))
    job = tmp_path / "job.py"
    job.write_text(KILLED_JOB)
    args = [sys.executable, str(job), str(source), str(checkpoint), str(warehouse)]
    assert kill_at_random_instants(args, seed=5) == 3, "the job ended before 3 kills"
    subprocess.run(args, check=True, timeout=300)
    from pyiceberg.table import StaticTable
    metadata = sorted((warehouse / "db" / "counts" / "metadata").glob("v*.metadata.json"),
                      key=lambda p: int(p.name[1:].split(".")[0]))[-1]
    table = StaticTable.from_metadata(str(metadata)).scan().to_arrow()
    got = ordered(zip(table["company"].to_pylist(), table["n"].to_pylist(),
                      table["total"].to_pylist()))
    want = ordered(duck(source, "SELECT company, count(*), sum(amount) FROM {events} GROUP BY 1"))
    assert got == want


def windowed(spark, source, mode, out, checkpoint):
    from ember.sql import functions as F
    counts = (spark.readStream.schema(SCHEMA).json(str(source)).withWatermark("ts", "10 minutes")
              .groupBy(F.window("ts", "5 minutes"), "company").count())
    return (counts.writeStream.foreachBatch(collecting(out)).outputMode(mode)
            .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start())


def test_update_mode_emits_changes_and_evicts_closed_windows(spark, tmp_path):
    source, checkpoint = tmp_path / "in", tmp_path / "cp"
    source.mkdir()
    write_rows(source, "a.json", [(0, "a", "x", 1.0, "10:01:00"), (1, "b", "x", 1.0, "10:02:00"),
                                  (2, "c", "y", 1.0, "10:06:00")])
    out = []
    first = run_once(windowed(spark, source, "update", out, checkpoint))
    assert sorted((r[1], r[2]) for r in out) == [("x", 2), ("y", 1)]
    assert first[-1]["stateOperators"][0]["numRowsTotal"] == 2
    # 10:30 moves the watermark to 10:20: both windows close and are evicted without output.
    write_rows(source, "b.json", [(3, "d", "x", 1.0, "10:30:00")])
    out = []
    second = run_once(windowed(spark, source, "update", out, checkpoint))
    assert [(r[1], r[2]) for r in out] == [("x", 1)]
    removed = sum(p["stateOperators"][0]["numRowsRemoved"] for p in second)
    assert removed == 2 and second[-1]["stateOperators"][0]["numRowsTotal"] == 1
    # A late event for the closed window is dropped, not emitted.
    write_rows(source, "c.json", [(4, "e", "x", 1.0, "10:03:00")])
    out = []
    third = run_once(windowed(spark, source, "update", out, checkpoint))
    assert out == []
    assert third[0]["stateOperators"][0]["numRowsDroppedByWatermark"] == 1


def dedup_stream(spark, source, keys, watermark=None):
    df = spark.readStream.schema(SCHEMA).json(str(source))
    if watermark:
        df = df.withWatermark("ts", watermark)
    return df.dropDuplicates(keys)


def test_drop_duplicates_keeps_each_keys_first_row_across_batches(spark, tmp_path):
    source, checkpoint = tmp_path / "in", tmp_path / "cp"
    source.mkdir()
    total_dropped = 0
    out = []
    for run in range(3):
        write_rows(source, f"f{run}.json", generated(run * 20, 20))
        query = (dedup_stream(spark, source, ["id", "company"]).writeStream
                 .foreachBatch(collecting(out)).option("checkpointLocation", str(checkpoint))
                 .trigger(availableNow=True).start())
        progress = run_once(query)
        total_dropped += sum(p["stateOperators"][0]["customMetrics"]["numDroppedDuplicateRows"]
                             for p in progress)
        assert progress[-1]["stateOperators"][0]["operatorName"] == "dedupe"
    emitted = [r[0] for r in out]
    want = duck(source, "SELECT min(seq) FROM {events} GROUP BY id, company")
    assert sorted(emitted) == sorted(r[0] for r in want)
    assert total_dropped == 60 - len(want)


def test_drop_duplicates_with_event_time_key_drops_late_rows_and_evicts(spark, tmp_path):
    """STREAMING.md 6.2: keys with the event time are evicted once the watermark passes them; a
    later copy is late and dropped."""
    source, checkpoint = tmp_path / "in", tmp_path / "cp"
    source.mkdir()

    def run(name, rows):
        write_rows(source, f"{name}.json", rows)
        out = []
        query = (dedup_stream(spark, source, ["id", "ts"], "5 minutes").writeStream
                 .foreachBatch(collecting(out)).option("checkpointLocation", str(checkpoint))
                 .trigger(availableNow=True).start())
        run_once(query)
        return sorted(r[0] for r in out)

    assert sorted(run("wm_a", [(0, "a", "x", 1.0, "10:00:00"), (1, "a", "x", 1.0, "10:00:00"),
                               (2, "b", "x", 1.0, "10:20:00")])) == [0, 2]
    # The watermark is now 10:15: a copy of (a, 10:00) is late.
    assert run("wm_b", [(3, "a", "x", 1.0, "10:00:00"), (4, "b", "x", 1.0, "10:20:00"),
                        (5, "c", "x", 1.0, "10:16:00")]) == [5]


def test_drop_duplicates_within_watermark(spark, tmp_path):
    """STREAMING.md 6.3: a key's duplicates are dropped until the watermark passes its first
    event time plus the delay; then the key is forgotten."""
    source, checkpoint = tmp_path / "in", tmp_path / "cp"
    source.mkdir()

    def run(name, rows):
        write_rows(source, f"{name}.json", rows)
        df = (spark.readStream.schema(SCHEMA).json(str(source)).withWatermark("ts", "10 minutes")
              .dropDuplicatesWithinWatermark(["id"]))
        out = []
        query = (df.writeStream.foreachBatch(collecting(out))
                 .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start())
        progress = run_once(query)
        return sorted(r[0] for r in out), progress

    seqs, progress = run("ww_a", [(0, "a", "x", 1.0, "10:00:00"), (1, "a", "y", 1.0, "10:05:00"),
                                  (2, "b", "x", 1.0, "10:12:00")])
    assert seqs == [0, 2]
    assert progress[0]["stateOperators"][0]["operatorName"] == "dedupeWithinWatermark"
    # Watermark 10:02: "a" expires at 10:10, so its copy at 10:09 is still a duplicate.
    seqs, _ = run("ww_b", [(3, "a", "x", 1.0, "10:09:00"), (4, "c", "x", 1.0, "10:25:00")])
    assert seqs == [4]
    # Watermark 10:15 passed 10:10: "a" was evicted, and a new "a" at 10:20 is emitted again.
    seqs, _ = run("ww_c", [(5, "a", "x", 1.0, "10:20:00")])
    assert seqs == [5]


def test_dedup_within_watermark_forgets_expired_keys_within_one_query(spark, tmp_path):
    """The files above, read by one query a file per batch (the real Spark gives the same): the
    keys kept from batch to batch must lose "a" when it is evicted. Batch 2 still finds "a"
    (eviction comes after the batch's rows); batch 3 must not."""
    source = tmp_path / "in"
    source.mkdir()
    files = [[(0, "a", "x", 1.0, "10:00:00"), (1, "a", "y", 1.0, "10:05:00"),
              (2, "b", "x", 1.0, "10:12:00")],
             [(3, "a", "x", 1.0, "10:09:00"), (4, "c", "x", 1.0, "10:25:00")],
             [(5, "a", "x", 1.0, "10:20:00")], [(6, "a", "x", 1.0, "10:30:00")]]
    for n, rows in enumerate(files):
        write_rows(source, f"f{n}.json", rows)
        os.utime(source / f"f{n}.json", (1_700_000_000 + n, 1_700_000_000 + n))
    df = (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(source))
          .withWatermark("ts", "10 minutes").dropDuplicatesWithinWatermark(["id"]))
    out = []
    query = (df.writeStream.foreachBatch(collecting(out))
             .option("checkpointLocation", str(tmp_path / "cp")).trigger(availableNow=True).start())
    query.awaitTermination()
    assert sorted(r[0] for r in out) == [0, 2, 4, 6]


def test_streaming_dedup_and_distinct_errors(spark, tmp_path):
    df = spark.readStream.schema(SCHEMA).json(str(tmp_path))
    with pytest.raises(AnalysisException, match="dropDuplicatesWithinWatermark is not supported "
                                                "on streaming DataFrames/DataSets without watermark"):
        df.dropDuplicatesWithinWatermark(["id"]).writeStream.format("memory").queryName("e1").start()
    with pytest.raises(AnalysisException, match="STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION"):
        df.select("id").distinct().writeStream.format("memory").queryName("e2").start()
    from ember.sql import functions as F
    with pytest.raises(AnalysisException, match="Distinct aggregations are not supported"):
        (df.groupBy("company").agg(F.countDistinct("id")).writeStream.format("memory")
         .queryName("e3").outputMode("complete").start())
    batch = spark.createDataFrame([(1, "a"), (1, "a")], "x INT, y STRING")
    with pytest.raises(AnalysisException, match="not supported with batch DataFrames"):
        batch.dropDuplicatesWithinWatermark(["x"]).collect()


def test_distinct_on_a_stream_is_an_aggregation(spark, tmp_path):
    source = tmp_path / "in"
    source.mkdir()
    write_rows(source, "a.json", generated(0, 30))
    query = (spark.readStream.schema(SCHEMA).json(str(source)).select("company").distinct()
             .writeStream.format("memory").queryName("distinct_companies").outputMode("complete")
             .start())
    query.processAllAvailable()
    write_rows(source, "b.json", generated(30, 30, keys=9))
    query.processAllAvailable()
    query.stop()
    want = ordered(duck(source, "SELECT DISTINCT company FROM {events}"))
    assert memory_rows(spark, "distinct_companies") == want


def test_sliding_windows_in_append_mode_emit_each_window_once(spark, tmp_path):
    """window(ts, 10 minutes, 5 minutes): each event counts in two windows; a window is emitted
    once, when the watermark passes its end. Oracle: DuckDB's own expansion of the events."""
    from ember.sql import functions as F
    source, checkpoint = tmp_path / "in", tmp_path / "cp"
    source.mkdir()
    out = []
    clocks = ["10:01:00", "10:04:59", "10:05:00", "10:07:30", "10:12:00", "10:14:00", "10:21:00"]
    for run, clock in enumerate(clocks + ["11:30:00"]):
        write_rows(source, f"f{run}.json", [(run, "a", "x" if run % 2 else "y", 1.0, clock)])
        counts = (spark.readStream.schema(SCHEMA).json(str(source))
                  .withWatermark("ts", "5 minutes")
                  .groupBy(F.window("ts", "10 minutes", "5 minutes"), "company").count())
        run_once(counts.writeStream.foreachBatch(collecting(out)).outputMode("append")
                 .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start())
    got = sorted((r[0]["start"].strftime("%H:%M"), r[1], r[2]) for r in out)
    want = duck(source, """
        SELECT strftime(w, '%H:%M'), company, count(*) FROM (
          SELECT company, time_bucket(INTERVAL 5 MINUTE, ts) - INTERVAL (5 * k) MINUTE AS w
          FROM {events}, range(2) t(k) WHERE ts < TIMESTAMP '2024-01-01 11:00:00')
        GROUP BY ALL""")
    assert got == sorted(want)


SESSIONS_SQL = """
    WITH e AS (SELECT company, ts FROM {events} WHERE ts < TIMESTAMP '2024-01-01 10:55:00'),
    marked AS (
      SELECT company, ts, CASE WHEN ts <= lag(ts) OVER (PARTITION BY company ORDER BY ts)
                                            + INTERVAL 5 MINUTE THEN 0 ELSE 1 END AS starts
      FROM e),
    numbered AS (SELECT company, ts, sum(starts) OVER (PARTITION BY company ORDER BY ts) AS s
                 FROM marked)
    SELECT strftime(min(ts), '%H:%M'), strftime(max(ts) + INTERVAL 5 MINUTE, '%H:%M'), company,
           count(*)
    FROM numbered GROUP BY company, s"""


def test_session_windows_merge_across_batches_in_append_mode(spark, tmp_path):
    """A session of one batch is extended by later batches, and an event bridging two stored
    sessions merges them; each final session is emitted once. Oracle: DuckDB's gaps and
    islands over the same events (a new session starts more than the gap after the last)."""
    from ember.sql import functions as F
    source, checkpoint = tmp_path / "in", tmp_path / "cp"
    source.mkdir()
    batches = [[("a", "10:00:00"), ("a", "10:12:00"), ("b", "10:01:00")],
               [("a", "10:04:00")],
               [("a", "10:08:00"), (None, "10:21:00"), ("b", "10:25:00")],
               [("b", "11:00:00")]]
    out = []
    for run, events in enumerate(batches):
        write_rows(source, f"f{run}.json", [(run * 10 + i, "x", c, 1.0, t) for i, (c, t) in enumerate(events)])
        counts = (spark.readStream.schema(SCHEMA).json(str(source)).withWatermark("ts", "10 minutes")
                  .groupBy(F.session_window("ts", "5 minutes"), "company").count())
        run_once(counts.writeStream.foreachBatch(collecting(out)).outputMode("append")
                 .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start())
    got = ordered((r[0]["start"].strftime("%H:%M"), r[0]["end"].strftime("%H:%M"), r[1], r[2]) for r in out)
    assert got == ordered(duck(source, SESSIONS_SQL))
    assert ("10:00", "10:17", "a", 4) in got


def test_session_windows_in_a_batch_query(spark, tmp_path):
    from ember.sql import functions as F
    source = tmp_path / "in"
    source.mkdir()
    write_rows(source, "a.json", [(i, "x", f"c{i % 3}" if i % 7 else None, 1.0,
                                   f"10:{(i * 7) % 50:02d}:{i % 60:02d}") for i in range(60)])
    df = (spark.read.schema(SCHEMA).json(str(source))
          .groupBy(F.session_window("ts", "5 minutes"), "company").count())
    # Sessions at second precision.
    want = duck(source, SESSIONS_SQL.replace("%H:%M", "%H:%M:%S"))
    got = ordered((r[0]["start"].strftime("%H:%M:%S"), r[0]["end"].strftime("%H:%M:%S"), r[1], r[2])
                  for r in df.collect())
    assert got == ordered(want)


def test_session_windows_reject_update_mode(spark, tmp_path):
    from ember.sql import functions as F
    df = (spark.readStream.schema(SCHEMA).json(str(tmp_path)).withWatermark("ts", "1 minute")
          .groupBy(F.session_window("ts", "5 minutes"), "company").count())
    with pytest.raises(AnalysisException, match="Update output mode not supported for session window"):
        df.writeStream.format("memory").queryName("sess_update").outputMode("update").start()


def test_watermark_on_a_computed_event_time_column(spark, tmp_path):
    """The watermark node observes its own input, here a timestamp parsed from text."""
    from ember.sql import functions as F
    source, checkpoint = tmp_path / "in", tmp_path / "cp"
    source.mkdir()
    out = []
    for run, clock in enumerate(["10:01:00", "10:03:00", "10:30:00"]):
        (source / f"f{run}.json").write_text(json.dumps({"k": "a", "when": f"2024-01-01 {clock}"}) + "\n")
        counts = (spark.readStream.schema("k STRING, when STRING").json(str(source))
                  .withColumn("t", F.to_timestamp("when")).withWatermark("t", "10 minutes")
                  .groupBy(F.window("t", "5 minutes"), "k").count())
        progress = run_once(counts.writeStream.foreachBatch(collecting(out)).outputMode("append")
                            .option("checkpointLocation", str(checkpoint))
                            .trigger(availableNow=True).start())
    assert [(r[0]["start"].strftime("%H:%M"), r[2]) for r in out] == [("10:00", 2)]
    assert progress[-1]["eventTime"]["watermark"] == "2024-01-01T10:20:00.000Z"


@pytest.mark.parametrize("policy, watermark", [("min", "10:05"), ("max", "10:25")])
def test_several_watermarks_combine_by_policy(spark, tmp_path, policy, watermark):
    """Two watermarked streams in a union: the global watermark is the min (default) or the max
    of theirs (STREAMING.md 3.3), recorded in the offset log."""
    left, right, checkpoint = tmp_path / "l", tmp_path / "r", tmp_path / "cp"
    left.mkdir()
    right.mkdir()
    write_rows(left, "a.json", [(0, "a", "x", 1.0, "10:15:00")])
    write_rows(right, "a.json", [(1, "b", "y", 1.0, "10:30:00")])
    spark.conf.set("spark.sql.streaming.multipleWatermarkPolicy", policy)
    try:
        l = spark.readStream.schema(SCHEMA).json(str(left)).withWatermark("ts", "10 minutes")
        r = spark.readStream.schema(SCHEMA).json(str(right)).withWatermark("ts", "5 minutes")
        out = []
        query = (l.union(r).writeStream.foreachBatch(collecting(out))
                 .option("checkpointLocation", str(checkpoint)).start())
        query.processAllAvailable()
        write_rows(left, "b.json", [(2, "c", "x", 1.0, "10:16:00")])
        query.processAllAvailable()
        progress = query.recentProgress
        query.stop()
    finally:
        spark.conf.unset("spark.sql.streaming.multipleWatermarkPolicy")
    assert progress[-1]["eventTime"]["watermark"] == f"2024-01-01T{watermark}:00.000Z"
    offsets = (checkpoint / "offsets" / "1").read_text().split("\n")
    assert json.loads(offsets[1])["conf"]["spark.sql.streaming.multipleWatermarkPolicy"] == policy


def test_unsupported_operations_raise_sparks_messages(spark, tmp_path):
    """STREAMING.md 5.2, raised by start() as AnalysisException."""
    from ember.sql import functions as F
    stream = spark.readStream.schema(SCHEMA).json(str(tmp_path))
    counts = stream.groupBy("company").count()

    def start(df, mode):
        return df.writeStream.format("memory").queryName("unsupported").outputMode(mode).start()

    with pytest.raises(AnalysisException, match="Limits are not supported on streaming "
                                                "DataFrames/Datasets in Update output mode"):
        start(counts.limit(3), "update")
    with pytest.raises(AnalysisException, match="Sorting is not supported on streaming"):
        start(counts.orderBy("company"), "update")
    batch = spark.createDataFrame([(1, "a", "b", 1.0, None)], SCHEMA)
    with pytest.raises(AnalysisException, match="Union between streaming and batch"):
        start(stream.union(batch), "append")
    with pytest.raises(AnalysisException, match="possible 'correctness' issue due to global watermark"):
        start(counts.groupBy("count").agg(F.count("*")), "complete")
    # Sorting an aggregation in complete mode is allowed.
    query = start(counts.orderBy("company"), "complete")
    query.stop()


def test_window_structs_pass_through_joins(spark):
    """A window column on either side of a join (Nexmark q7's shape): kept whole, with a
    non-equality condition over it on an inner join."""
    from ember.sql import functions as F
    events = spark.createDataFrame(
        [("a", "2024-01-01 10:01:00"), ("a", "2024-01-01 10:07:00"), ("b", "2024-01-01 10:02:00")],
        "k STRING, t STRING").withColumn("t", F.col("t").cast("timestamp"))
    windows = events.groupBy(F.window("t", "5 minutes"), "k").count()
    names = spark.createDataFrame([("a", "Alpha"), ("c", "Gamma")], "k STRING, name STRING")
    inner = windows.join(names, "k").select("k", "window", "name", "count")
    got = sorted((r.k, r.window.start.strftime("%H:%M"), r.name, r["count"]) for r in inner.collect())
    assert got == [("a", "10:00", "Alpha", 1), ("a", "10:05", "Alpha", 1)]
    left = windows.join(names, "k", "left").where(F.col("name").isNull()).select("window", "k")
    assert [(r.window.end.strftime("%H:%M"), r.k) for r in left.collect()] == [("10:05", "b")]
    ranged = events.alias("e").join(windows.alias("w"), (F.col("e.k") == F.col("w.k"))
                                    & (F.col("e.t") >= F.col("w.window.start"))
                                    & (F.col("e.t") < F.col("w.window.end")))
    assert ranged.count() == 3


@pytest.mark.parametrize("max_files", [1, 3, None])
def test_batch_split_invariance_and_update_replay(spark, tmp_path, max_files):
    """However the input is split into micro-batches, the final complete-mode result is the same
    (DuckDB's), and replaying the update-mode output in order yields it too."""
    from ember.sql import functions as F
    source = tmp_path / "in"
    source.mkdir()
    for i in range(7):
        write_rows(source, f"f{i}.json", generated(i * 23, 23, keys=5))
        os.utime(source / f"f{i}.json", (1_700_000_000 + i, 1_700_000_000 + i))
    results = {}
    for mode in ("complete", "update"):
        out = []
        reader = spark.readStream.schema(SCHEMA)
        if max_files:
            reader = reader.option("maxFilesPerTrigger", max_files)
        counts = (reader.json(str(source)).groupBy("company", "id")
                  .agg(F.count("*").alias("n"), F.sum("amount").alias("total"), F.max("seq").alias("last")))
        query = (counts.writeStream.foreachBatch(collecting(out) if mode == "update" else
                                                 lambda df, i: (out.clear(), out.extend(tuple(r) for r in df.collect())))
                 .outputMode(mode).option("checkpointLocation", str(tmp_path / f"cp_{mode}"))
                 .trigger(availableNow=True).start())
        query.awaitTermination()
        latest = {}
        for row in out:  # in emission order: a later row of a group replaces an earlier one
            latest[row[:2]] = row
        results[mode] = ordered(latest.values())
    want = ordered(duck(source, "SELECT company, id, count(*), sum(amount), max(seq) FROM {events} GROUP BY 1, 2"))
    assert results["complete"] == want
    assert results["update"] == want


def test_state_stays_bounded_as_event_time_advances(spark, tmp_path):
    """Windows close as the watermark passes them: the state holds only the open ones, however
    long the stream (STREAMING.md 3.6, append mode)."""
    from ember.sql import functions as F
    source = tmp_path / "in"
    source.mkdir()
    for f in range(30):
        rows = [(f * 200 + i, "x", f"c{i % 3}", 1.0, f"{10 + f // 6:02d}:{(f % 6) * 10 + i % 10:02d}:00")
                for i in range(200)]
        write_rows(source, f"f{f:02d}.json", rows)
        os.utime(source / f"f{f:02d}.json", (1_700_000_000 + f, 1_700_000_000 + f))
    counts = (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(source))
              .withWatermark("ts", "5 minutes").groupBy(F.window("ts", "5 minutes"), "company").count())
    out = []
    query = (counts.writeStream.foreachBatch(collecting(out)).outputMode("append")
             .option("checkpointLocation", str(tmp_path / "cp")).trigger(availableNow=True).start())
    query.awaitTermination()
    totals = [p["stateOperators"][0]["numRowsTotal"] for p in query.recentProgress]
    assert len(totals) >= 30 and max(totals) <= 3 * 4, totals
    # Every window the final watermark (14:59 - 5 minutes) closed was emitted once, with its count.
    emitted = sorted((r[0]["start"].strftime("%H:%M"), r[1], r[2]) for r in out)
    want = duck(source, """
        SELECT strftime(time_bucket(INTERVAL 5 MINUTE, ts), '%H:%M'), company, count(*)
        FROM {events}
        WHERE time_bucket(INTERVAL 5 MINUTE, ts) + INTERVAL 5 MINUTE <= TIMESTAMP '2024-01-01 14:54:00'
        GROUP BY ALL""")
    assert emitted == sorted(want)


@pytest.mark.parametrize("form", ["event_time_key", "within_watermark"])
def test_dedup_state_stays_bounded_under_a_watermark(spark, tmp_path, form):
    """With a watermark, deduplication forgets keys the watermark passed: the state holds only
    recent keys however long the stream, while every key (ids repeat within each file) is
    emitted once."""
    source = tmp_path / "in"
    source.mkdir()
    for f in range(20):
        rows = [(f * 100 + i, f"id{f}-{i % 10}", "x", 1.0, f"10:{f * 2:02d}:{i % 10:02d}")
                for i in range(100)]
        write_rows(source, f"f{f:02d}.json", rows)
        os.utime(source / f"f{f:02d}.json", (1_700_000_000 + f, 1_700_000_000 + f))
    df = (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(source))
          .withWatermark("ts", "1 minute"))
    df = df.dropDuplicates(["id", "ts"]) if form == "event_time_key" else df.dropDuplicatesWithinWatermark(["id"])
    out = []
    query = (df.writeStream.foreachBatch(collecting(out)).option("checkpointLocation", str(tmp_path / "cp"))
             .trigger(availableNow=True).start())
    query.awaitTermination()
    totals = [p["stateOperators"][0]["numRowsTotal"] for p in query.recentProgress]
    assert len(totals) >= 20 and max(totals) <= 30, totals
    want = duck(source, "SELECT count(DISTINCT id) FROM {events}")[0][0]
    assert len(out) == want == 200
