"""Exactly-once under SIGKILL, a hundred times (EMBER_KILLS; the README's test command runs
30): a stream of JSON files into the parquet file sink and into Iceberg tables (partitioned, one
file per micro-batch; unpartitioned, four files per micro-batch run as tasks), and a stream-stream
join into the parquet sink, killed at random instants while its query runs (writing the offset
log, the state, the data files, the sink's log or the table's metadata, or the commit log), then
run to completion: the output equals the input (the join's pairs, by DuckDB) exactly."""

import json
import os
import subprocess
import sys
import textwrap
import urllib.parse

import duckdb
import pytest
from pyiceberg.table import StaticTable

from crash import KILLS, kill_while_streaming

SCHEMA = "event_id INT, company_id STRING, amount DOUBLE, event_ts STRING"


class Source:
    """JSON files of events with increasing modification times, added in groups of five."""

    def __init__(self, directory):
        self.directory = directory
        self.files = 0
        directory.mkdir()

    def add(self, count=5):
        for _ in range(count):
            i = self.files
            path = self.directory / f"f{i:04d}.json"
            with open(path, "w") as out:
                for e in range(i * 4, i * 4 + 4):
                    out.write(json.dumps({"event_id": e, "company_id": f"c{e % 3}", "amount": e / 2,
                                          "event_ts": f"2024-01-0{1 + e % 5} 10:{e % 60:02d}:00"}) + "\n")
            os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))
            self.files += 1

    def expected(self):
        return duckdb.sql(
            f"SELECT event_id, company_id, amount, event_ts FROM read_json('{self.directory}/*.json', "
            "columns = {'event_id': 'INTEGER', 'company_id': 'VARCHAR', 'amount': 'DOUBLE', "
            "'event_ts': 'VARCHAR'}) ORDER BY event_id").fetchall()


PARQUET_JOB = textwrap.dedent("""
    import sys
    from ember.sql import SparkSession
    source, checkpoint, out = sys.argv[1:4]
    spark = SparkSession.builder.getOrCreate()
    q = (spark.readStream.schema("%s").option("maxFilesPerTrigger", 1).json(source)
         .writeStream.format("parquet").option("checkpointLocation", checkpoint)
         .trigger(availableNow=True).start(out))
    print("started", flush=True)
    q.processAllAvailable()
    q.stop()
""" % SCHEMA)


class MidBatchKills:
    """Counts the kills that left a new batch in the offset log without its commit: the kill
    came while that batch was being written, not before the query ran or between batches."""

    def __init__(self, checkpoint):
        self.checkpoint = checkpoint
        self.count = 0
        self.previous = None

    def __call__(self):
        def last(log):
            names = [int(n) for n in os.listdir(self.checkpoint / log) if n.isdigit()] \
                if (self.checkpoint / log).exists() else []
            return max(names, default=-1)
        logs = (last("offsets"), last("commits"))
        if logs[0] > logs[1] and logs != self.previous:
            self.count += 1
        self.previous = logs


def newest_table(location):
    """A Hadoop table's newest version. A kill between a commit's metadata file and its version
    hint leaves the hint one behind, as with Java's Hadoop tables: readers probe past it, as
    Java's do."""
    metadata = location / "metadata"
    version = int((metadata / "version-hint.text").read_text())
    while (metadata / f"v{version + 1}.metadata.json").exists():
        version += 1
    return StaticTable.from_metadata(str(metadata / f"v{version}.metadata.json"))


def committed_files(out):
    """The files the sink's log lists as added and not deleted, read from its JSON lines."""
    log = out / "_spark_metadata"
    batches = sorted(int(n.split(".")[0]) for n in os.listdir(log) if n.split(".")[0].isdigit())
    last_compact = max([b for b in batches if (log / f"{b}.compact").exists()], default=-1)
    files = {}
    for b in batches:
        if b < last_compact:
            continue
        name = f"{b}.compact" if b == last_compact else str(b)
        lines = (log / name).read_text().splitlines()
        assert lines[0] == "v1"
        for line in lines[1:]:
            entry = json.loads(line)
            if entry["action"] == "delete":
                files.pop(entry["path"], None)
            else:
                files[entry["path"]] = entry
    return [urllib.parse.unquote(urllib.parse.urlparse(p).path) for p in files]


def kill_then_finish(tmp_path, job_text, source, seed):
    """Runs the parquet-sink job `job_text` (arguments: the source directory, the checkpoint
    tmp_path/cp, the output) under EMBER_KILLS kills, then to completion; returns its committed
    files."""
    checkpoint, out = tmp_path / "cp", tmp_path / "out"
    job = tmp_path / "job.py"
    job.write_text(job_text)
    args = [sys.executable, str(job), str(source.directory), str(checkpoint), str(out)]
    mid_batch = MidBatchKills(checkpoint)
    kill_while_streaming(args, seed=seed, more_input=source.add, after_kill=mid_batch)
    assert mid_batch.count >= KILLS // 10, mid_batch.count  # a tenth of the kills, mid-batch
    subprocess.run(args, check=True, timeout=300, capture_output=True)
    return committed_files(out)


def test_parquet_sink_killed_again_and_again(tmp_path):
    source = Source(tmp_path / "in")
    source.add(50)
    files = kill_then_finish(tmp_path, PARQUET_JOB, source, seed=101)
    checkpoint = tmp_path / "cp"
    got = duckdb.sql(f"SELECT event_id, company_id, amount, event_ts FROM read_parquet({files!r}) "
                     "ORDER BY event_id").fetchall()
    assert got == source.expected()
    commits = sorted(int(n) for n in os.listdir(checkpoint / "commits") if n.isdigit())
    assert commits[-1] + 1 >= source.files // 2  # about one file per batch, a few merged by retries
    assert commits == list(range(commits[0], commits[-1] + 1))


ICEBERG_JOB = textwrap.dedent("""
    import sys
    from ember.sql import SparkSession
    source, warehouse, checkpoint, partitioning, files_per_batch = sys.argv[1:6]
    spark = (SparkSession.builder.config("spark.sql.catalog.local.type", "hadoop")
             .config("spark.sql.catalog.local.warehouse", warehouse)
             .config("spark.sql.files.openCostInBytes", "1").getOrCreate())
    spark.sql("CREATE TABLE IF NOT EXISTS local.db.events (%s) USING iceberg " + partitioning)
    q = (spark.readStream.schema("%s").option("maxFilesPerTrigger", files_per_batch).json(source)
         .writeStream.option("checkpointLocation", checkpoint).trigger(availableNow=True)
         .toTable("local.db.events"))
    print("started", flush=True)
    q.processAllAvailable()
    q.stop()
""" % (SCHEMA, SCHEMA))


@pytest.mark.parametrize("partitioning, files_per_batch", [
    ("PARTITIONED BY (company_id, bucket(2, event_id))", 1),
    # Unpartitioned, four files a batch: each batch runs as one task per core (each file costs
    # at least spark.sql.files.openCostInBytes, 1 here), each task writing a data file.
    ("", 4),
])
def test_iceberg_sink_killed_again_and_again(tmp_path, partitioning, files_per_batch):
    source, warehouse, checkpoint = Source(tmp_path / "in"), tmp_path / "wh", tmp_path / "cp"
    (warehouse / "db").mkdir(parents=True)
    source.add(50)
    job = tmp_path / "job.py"
    job.write_text(ICEBERG_JOB)
    args = [sys.executable, str(job), str(source.directory), str(warehouse), str(checkpoint),
            partitioning, str(files_per_batch)]
    mid_batch = MidBatchKills(checkpoint)
    kill_while_streaming(args, seed=202, more_input=source.add, after_kill=mid_batch)
    assert mid_batch.count >= KILLS // 10, mid_batch.count  # a tenth of the kills, mid-batch
    subprocess.run(args, check=True, timeout=300, capture_output=True)
    table = newest_table(warehouse / "db" / "events")
    rows = table.scan().to_arrow().sort_by("event_id").to_pylist()
    assert [tuple(r.values()) for r in rows] == source.expected()
    # One snapshot per committed batch, each batch id once (the commit log keeps the last 100).
    snapshots = table.inspect.snapshots().to_pylist()
    batch_ids = [int(dict(s["summary"])["ember.batch-id"]) for s in snapshots]
    commits = sorted(int(n) for n in os.listdir(checkpoint / "commits") if n.isdigit())
    assert sorted(batch_ids) == list(range(commits[-1] + 1))
    if not partitioning and (os.cpu_count() or 1) > 1:  # the batches ran as tasks
        assert max(int(dict(s["summary"])["added-data-files"]) for s in snapshots) >= 2
    assert commits == list(range(commits[0], commits[-1] + 1))


class JoinSources:
    """Two streams, left (id, k, t) and right (rid, rk, rt), a file each per group of events;
    a right row matches left rows of its key up to five minutes earlier, often a few files
    back, so matches span batches and come from the join's state."""

    def __init__(self, directory):
        self.directory = directory
        self.files = 0
        for side in ("left", "right"):
            (directory / side).mkdir(parents=True)

    def add(self, count=5):
        for _ in range(count):
            i = self.files
            for side, (id_, key, time) in (("left", ("id", "k", "t")), ("right", ("rid", "rk", "rt"))):
                path = self.directory / side / f"f{i:04d}.json"
                with open(path, "w") as out:
                    for e in range(i * 4, i * 4 + 4):
                        shift = 0 if side == "left" else (e * 37) % 100
                        out.write(json.dumps({id_: e, key: e % 7, time: f"2024-01-01 {10 + e // 240:02d}:"
                                              f"{e // 4 % 60:02d}:{shift % 60:02d}"}) + "\n")
                os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))
            self.files += 1

    def expected(self):
        def view(side, columns):
            return (f"read_json('{self.directory}/{side}/*.json', columns = {columns}, "
                    "timestampformat = '%Y-%m-%d %H:%M:%S')")
        left = view("left", "{'id': 'INTEGER', 'k': 'INTEGER', 't': 'TIMESTAMP'}")
        right = view("right", "{'rid': 'INTEGER', 'rk': 'INTEGER', 'rt': 'TIMESTAMP'}")
        return duckdb.sql(f"SELECT id, k, epoch_us(t), rid, rk, epoch_us(rt) FROM {left} JOIN {right} "
                          "ON k = rk AND "
                          "rt >= t AND rt <= t + INTERVAL 5 MINUTE ORDER BY id, rid").fetchall()


JOIN_JOB = textwrap.dedent("""
    import sys
    from ember.sql import SparkSession
    from ember.sql import functions as F
    sources, checkpoint, out = sys.argv[1:4]
    spark = SparkSession.builder.config("spark.sql.session.timeZone", "UTC").getOrCreate()
    def side(name, schema, time):
        return (spark.readStream.schema(schema).option("maxFilesPerTrigger", 1)
                .json(sources + "/" + name).withWatermark(time, "10 minutes"))
    left = side("left", "id INT, k INT, t TIMESTAMP", "t")
    right = side("right", "rid INT, rk INT, rt TIMESTAMP", "rt")
    joined = left.join(right, F.expr("k = rk AND rt >= t AND rt <= t + interval 5 minutes"))
    q = (joined.writeStream.format("parquet").option("checkpointLocation", checkpoint)
         .trigger(availableNow=True).start(out))
    print("started", flush=True)
    q.processAllAvailable()
    q.stop()
""")


def test_stream_stream_join_killed_again_and_again(tmp_path):
    """Both sides' state (StateStore per side) and the join's output survive kills at any
    instant: every matching pair reaches the parquet sink exactly once."""
    sources = JoinSources(tmp_path / "in")
    sources.add(40)
    files = kill_then_finish(tmp_path, JOIN_JOB, sources, seed=303)
    # Instants as microseconds: the sink's timestamps are UTC instants, DuckDB's text ones local.
    got = duckdb.sql(f"SELECT id, k, epoch_us(t), rid, rk, epoch_us(rt) FROM read_parquet({files!r}) "
                     "ORDER BY id, rid").fetchall()
    want = sources.expected()
    assert len(want) > sources.files  # matches within files and across them
    assert got == want


RATE_JOB = textwrap.dedent("""
    import sys, time
    from ember.sql import SparkSession
    warehouse, checkpoint = sys.argv[1:3]
    spark = (SparkSession.builder.config("spark.sql.catalog.local.type", "hadoop")
             .config("spark.sql.catalog.local.warehouse", warehouse).getOrCreate())
    spark.sql("CREATE TABLE IF NOT EXISTS local.db.rate (timestamp TIMESTAMP, value BIGINT) USING iceberg")
    q = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 50)
         .option("numPartitions", 2).option("startTimestamp", 1000).option("advanceMillisPerBatch", 500)
         .load().writeStream.option("checkpointLocation", checkpoint)
         .trigger(processingTime="10 milliseconds").toTable("local.db.rate"))
    print("started", flush=True)
    first = None
    while True:  # five batches a run
        progress = q.lastProgress
        if progress is not None:
            first = progress["batchId"] if first is None else first
            if progress["batchId"] >= first + 4:
                break
        time.sleep(0.005)
    q.stop()
""")


def test_rate_source_into_iceberg_killed_again_and_again(tmp_path):
    """rate-micro-batch (50 rows a batch, its timestamp 500 ms later each batch) into an Iceberg
    table, killed at random instants: every committed batch's rows are in the table exactly once,
    with the values and timestamps of their batch (Spark's rule, compared with Spark in
    test_sources.py), read back by PyIceberg."""
    warehouse, checkpoint = tmp_path / "wh", tmp_path / "cp"
    (warehouse / "db").mkdir(parents=True)
    job = tmp_path / "job.py"
    job.write_text(RATE_JOB)
    args = [sys.executable, str(job), str(warehouse), str(checkpoint)]
    mid_batch = MidBatchKills(checkpoint)
    kill_while_streaming(args, seed=26, more_input=lambda: None, window=0.3,
                         after_kill=mid_batch)
    assert mid_batch.count >= KILLS // 8, mid_batch.count
    subprocess.run(args, check=True, timeout=300, capture_output=True)
    table = newest_table(warehouse / "db" / "rate")
    rows = table.scan().to_arrow().sort_by("value").to_pylist()
    commits = sorted(int(n) for n in os.listdir(checkpoint / "commits") if n.isdigit())
    batches = commits[-1] + 1
    assert [r["value"] for r in rows] == list(range(50 * batches))
    for r in rows:
        batch = r["value"] // 50
        assert r["timestamp"].timestamp() * 1000 == 1000 + 500 * batch, r
    batch_ids = [int(dict(s["summary"])["ember.batch-id"]) for s in table.inspect.snapshots().to_pylist()]
    assert sorted(batch_ids) == list(range(batches))


GROUP_STATE_JOB = textwrap.dedent("""
    import sys
    import ember.connect
    ember.connect.activate()
    import pandas as pd
    from pyspark.sql import SparkSession
    from pyspark.sql.streaming.state import GroupStateTimeout
    source, warehouse, checkpoint = sys.argv[1:4]
    spark = (SparkSession.builder
             .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
             .config("spark.sql.catalog.local.type", "hadoop")
             .config("spark.sql.catalog.local.warehouse", warehouse).getOrCreate())
    spark.sql("CREATE TABLE IF NOT EXISTS local.db.totals (company_id STRING, events LONG, "
              "total DOUBLE, last_event INT) USING iceberg")

    def running_total(key, frames, state):
        events, total, last = state.get if state.exists else (0, 0.0, -1)
        for frame in frames:
            for event_id, amount in sorted(zip(frame.event_id, frame.amount)):
                events, total, last = events + 1, total + amount, max(last, event_id)
        state.update((events, total, last))
        yield pd.DataFrame({"company_id": [key[0]], "events": [events], "total": [total],
                            "last_event": [last]})

    q = (spark.readStream.schema("%s").option("maxFilesPerTrigger", 1).json(source)
         .groupBy("company_id")
         .applyInPandasWithState(running_total, "company_id STRING, events LONG, total DOUBLE, "
                                 "last_event INT", "events LONG, total DOUBLE, last INT",
                                 "append", GroupStateTimeout.NoTimeout)
         .writeStream.option("checkpointLocation", checkpoint).trigger(availableNow=True)
         .toTable("local.db.totals"))
    print("started", flush=True)
    q.awaitTermination()
""" % SCHEMA)


def test_group_state_into_iceberg_killed_again_and_again(tmp_path):
    """applyInPandasWithState (a running count and total per company, its state in the state
    store) into an Iceberg table, killed at random instants: each row the function emitted for a
    committed batch is in the table once, and its count and total are those of the company's
    first events, by DuckDB, so no batch reached the state twice or not at all."""
    source, warehouse, checkpoint = Source(tmp_path / "in"), tmp_path / "wh", tmp_path / "cp"
    (warehouse / "db").mkdir(parents=True)
    source.add(30)
    job = tmp_path / "job.py"
    job.write_text(GROUP_STATE_JOB)
    args = [sys.executable, str(job), str(source.directory), str(warehouse), str(checkpoint)]
    mid_batch = MidBatchKills(checkpoint)
    kill_while_streaming(args, seed=404, more_input=source.add, after_kill=mid_batch, window=0.5)
    assert mid_batch.count >= KILLS // 10, mid_batch.count
    subprocess.run(args, check=True, timeout=300, capture_output=True)
    rows = newest_table(warehouse / "db" / "totals").scan().to_arrow().to_pylist()
    got = sorted((r["company_id"], r["events"], r["total"], r["last_event"]) for r in rows)
    assert len(set(got)) == len(got)
    events = duckdb.sql(
        f"SELECT company_id, row_number() OVER w, sum(amount) OVER w, max(event_id) OVER w "
        f"FROM read_json('{source.directory}/*.json', columns = {{'event_id': 'INTEGER', "
        "'company_id': 'VARCHAR', 'amount': 'DOUBLE', 'event_ts': 'VARCHAR'}) "
        "WINDOW w AS (PARTITION BY company_id ORDER BY event_id)").fetchall()
    prefixes = {(c, n): (total, last) for c, n, total, last in events}
    for company, n, total, last in got:
        assert prefixes[(company, n)] == (total, last)
    # Every company's last row counts all of its events.
    finals = {c: max(n for cc, n, _, _ in got if cc == c) for c, _, _, _ in got}
    assert finals == {c: max(n for cc, n in prefixes if cc == c) for c, _ in prefixes}
