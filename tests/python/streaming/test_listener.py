"""StreamingQueryListener on Ember: which events arrive, in which order, on which thread, with
which fields (Spark's rules, STREAMING.md 2.1 and 2.8; test_spark_side_by_side.py checks the same
sequence against the real Spark)."""

import json
import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from ember.sql import SparkSession
from ember.sql.streaming import StreamingQueryListener
from ember.sql.streaming.listener import (
    QueryIdleEvent, QueryProgressEvent, QueryStartedEvent, QueryTerminatedEvent,
    StreamingQueryProgress,
)

SCHEMA = "id INT, name STRING"


@pytest.fixture(scope="module")
def spark():
    return SparkSession.builder.getOrCreate()


class Recorder(StreamingQueryListener):
    def __init__(self):
        self.events = []
        self.threads = []

    def record(self, event):
        self.events.append(event)
        self.threads.append(threading.get_ident())

    onQueryStarted = onQueryProgress = onQueryIdle = onQueryTerminated = record

    def kinds(self):
        return [type(e).__name__ for e in self.events]

    def wait_for(self, kind, count=1, timeout=20):
        deadline = time.time() + timeout
        while (sum(isinstance(e, kind) for e in self.events) < count and time.time() < deadline):
            time.sleep(0.02)


def write_file(directory, name, first, count, mtime):
    path = directory / name
    path.write_text("".join(json.dumps({"id": i, "name": f"n{i}"}) + "\n"
                            for i in range(first, first + count)))
    os.utime(path, (mtime, mtime))


@pytest.fixture
def source(tmp_path):
    directory = tmp_path / "in"
    directory.mkdir()
    write_file(directory, "a.json", 0, 3, 1_700_000_000)
    write_file(directory, "b.json", 3, 2, 1_700_000_001)
    return directory


@pytest.fixture
def recorder(spark):
    listener = Recorder()
    spark.streams.addListener(listener)
    yield listener
    spark.streams.removeListener(listener)


def start(spark, source, checkpoint, **writer_options):
    writer = (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(source))
              .writeStream.option("checkpointLocation", str(checkpoint)))
    for key, value in writer_options.items():
        writer = writer.option(key, value)
    return writer.format("memory").queryName(f"q{abs(hash(str(checkpoint)))}").start()


def test_events_of_a_query_in_order(spark, source, tmp_path, recorder):
    query = start(spark, source, tmp_path / "cp")
    # onQueryStarted ran before start() returned, on this thread.
    assert recorder.kinds() == ["QueryStartedEvent"]
    assert recorder.threads == [threading.get_ident()]
    query.processAllAvailable()
    query.stop()
    recorder.wait_for(QueryTerminatedEvent)
    assert recorder.kinds() == ["QueryStartedEvent", "QueryProgressEvent", "QueryProgressEvent",
                                "QueryTerminatedEvent"]
    started, first, second, terminated = recorder.events
    assert (started.id, started.runId) == (query.id, query.runId) or \
        (str(started.id), str(started.runId)) == (str(query.id), str(query.runId))
    assert started.name == query.name and started.timestamp.endswith("Z")
    assert [e.progress.batchId for e in (first, second)] == [0, 1]
    assert [e.progress.numInputRows for e in (first, second)] == [3, 2]
    # The progress is the lastProgress object: dict access gives strings, attributes UUIDs.
    assert isinstance(second.progress, StreamingQueryProgress)
    assert dict(second.progress) == dict(query.lastProgress)
    assert str(second.progress.id) == second.progress["id"] == str(query.id)
    assert second.progress.sources[0].numInputRows == 2
    assert (str(terminated.id), terminated.exception, terminated.errorClassOnException) == \
        (str(query.id), None, None)
    # The other events came from the listener thread, not the caller's.
    assert set(recorder.threads[1:]) != {threading.get_ident()}


def test_a_failing_query_reports_its_exception(spark, source, tmp_path, recorder):
    def fail(batch_df, batch_id):
        raise ValueError(f"boom in batch {batch_id}")

    query = (spark.readStream.schema(SCHEMA).json(str(source)).writeStream.foreachBatch(fail)
             .option("checkpointLocation", str(tmp_path / "cp")).start())
    with pytest.raises(Exception, match="boom in batch 0"):
        query.awaitTermination()
    recorder.wait_for(QueryTerminatedEvent)
    assert recorder.kinds() == ["QueryStartedEvent", "QueryTerminatedEvent"]
    terminated = recorder.events[-1]
    assert "boom in batch 0" in terminated.exception
    assert "STREAM_FAILED" not in terminated.exception  # the cause, not the wrapper
    assert terminated.errorClassOnException == "FOREACH_BATCH_USER_FUNCTION_ERROR"


def test_remove_listener_stops_delivery(spark, source, tmp_path, recorder):
    removed = Recorder()
    spark.streams.addListener(removed)
    spark.streams.removeListener(removed)
    spark.streams.removeListener(Recorder())  # unknown: ignored
    query = start(spark, source, tmp_path / "cp")
    query.processAllAvailable()
    query.stop()
    recorder.wait_for(QueryTerminatedEvent)
    assert removed.events == []
    assert len(recorder.events) == 4


def test_idle_triggers_report_once_per_interval(spark, source, tmp_path, recorder):
    """ProgressReporter.updateIdleness: a trigger without data adds a progress entry (with the
    next batch id) and posts QueryIdleEvent only when noDataProgressEventInterval passed since
    the last report; the very first report posts no idle event."""
    spark.conf.set("spark.sql.streaming.noDataProgressEventInterval", "5s")
    try:
        empty = tmp_path / "empty"
        empty.mkdir()
        query = start(spark, empty, tmp_path / "cp0")
        time.sleep(0.3)
        assert [p["batchId"] for p in query.recentProgress] == [0]  # first idle trigger
        assert recorder.kinds() == ["QueryStartedEvent"]
        query.stop()
        recorder.wait_for(QueryTerminatedEvent)  # delivered later, on the listener thread

        recorder.events.clear()
        spark.conf.set("spark.sql.streaming.noDataProgressEventInterval", "300ms")
        query = start(spark, source, tmp_path / "cp")
        query.processAllAvailable()
        recorder.wait_for(QueryIdleEvent, count=2)
        query.stop()
        recorder.wait_for(QueryTerminatedEvent)
    finally:
        spark.conf.unset("spark.sql.streaming.noDataProgressEventInterval")
    kinds = recorder.kinds()
    assert kinds[:3] == ["QueryStartedEvent", "QueryProgressEvent", "QueryProgressEvent"]
    assert kinds[-1] == "QueryTerminatedEvent"
    assert set(kinds[3:-1]) == {"QueryIdleEvent"} and len(kinds[3:-1]) >= 2
    idle = [e for e in recorder.events if isinstance(e, QueryIdleEvent)]
    assert all(str(e.id) == str(query.id) and e.timestamp.endswith("Z") for e in idle)
    times = [e.timestamp for e in idle]
    assert times == sorted(times)
    entries = query.recentProgress
    assert [p["batchId"] for p in entries[:2]] == [0, 1]
    assert {(p["batchId"], p["numInputRows"]) for p in entries[2:]} == {(2, 0)}
    assert len(entries) - 2 >= len(idle)


def test_a_listener_that_raises_does_not_stop_the_others(tmp_path):
    """As Spark's listener bus: the error is logged with the listener's name, and the listeners
    after it still get every event. In a fresh interpreter, with Python's own unraisable hook
    (pytest's would hide a wrong call of it)."""
    source = tmp_path / "in"
    source.mkdir()
    (source / "a.json").write_text('{"id": 1}\n')
    code = textwrap.dedent("""
        import sys
        from ember.sql import SparkSession
        from ember.sql.streaming import StreamingQueryListener

        class Broken(StreamingQueryListener):
            def onQueryStarted(self, event):
                raise NameError("listener bug")
            onQueryProgress = onQueryTerminated = onQueryIdle = onQueryStarted

        class Counting(StreamingQueryListener):
            seen = []
            def onQueryStarted(self, event):
                self.seen.append(type(event).__name__)
            onQueryProgress = onQueryTerminated = onQueryIdle = onQueryStarted

        spark = SparkSession.builder.getOrCreate()
        counting = Counting()
        spark.streams.addListener(Broken())
        spark.streams.addListener(counting)
        q = (spark.readStream.schema("id INT").json(sys.argv[1]).writeStream.format("noop")
             .option("checkpointLocation", sys.argv[2]).start())
        q.processAllAvailable()
        q.stop()
        import time
        deadline = time.time() + 30
        while "QueryTerminatedEvent" not in counting.seen and time.time() < deadline:
            time.sleep(0.05)
        print(",".join(counting.seen))
    """)
    result = subprocess.run([sys.executable, "-c", code, str(source), str(tmp_path / "cp")],
                            capture_output=True, text=True, timeout=120,
                            env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)))
    assert result.returncode == 0, result.stderr
    seen = result.stdout.strip().splitlines()[-1].split(",")
    assert seen[0] == "QueryStartedEvent" and seen[-1] == "QueryTerminatedEvent"
    assert "QueryProgressEvent" in seen
    errors = result.stderr.count("Listener Broken threw an exception")
    assert errors == len(seen) and result.stderr.count("NameError: listener bug") == errors
    assert "unraisablehook" not in result.stderr


def test_pyspark_names():
    # In a fresh interpreter: activate() refuses once the real PySpark is imported, as other
    # tests of this process do.
    code = textwrap.dedent("""
        import ember
        ember.activate()
        from pyspark.sql.streaming import StreamingQueryListener
        from pyspark.sql.streaming.listener import QueryProgressEvent, QueryStartedEvent
        import ember.sql.streaming as streaming
        import ember.sql.streaming.listener as listener
        assert StreamingQueryListener is streaming.StreamingQueryListener
        assert QueryProgressEvent is listener.QueryProgressEvent
        assert QueryStartedEvent is listener.QueryStartedEvent
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                            env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)))
    assert result.returncode == 0, result.stderr


def test_a_second_query_of_one_id_is_refused_before_it_starts(spark, source, tmp_path, recorder):
    """StreamingQueryManager.startQuery with spark.sql.streaming.stopActiveRunOnRestart off: a
    query whose checkpoint's id is active is refused before it starts, so it neither writes to
    the checkpoint nor reaches the listeners (on, the default, the active run is stopped:
    test_damaged_checkpoints.py)."""
    from ember.errors import SparkRuntimeException

    first = start(spark, source, tmp_path / "cp")
    first.processAllAvailable()
    spark.conf.set("spark.sql.streaming.stopActiveRunOnRestart", "false")
    try:
        with pytest.raises(SparkRuntimeException, match=f"Cannot start query with id {first.id} "):
            (spark.readStream.schema(SCHEMA).json(str(source)).writeStream.format("noop")
             .option("checkpointLocation", str(tmp_path / "cp")).start())
    finally:
        spark.conf.unset("spark.sql.streaming.stopActiveRunOnRestart")
    first.stop()
    recorder.wait_for(QueryTerminatedEvent)
    assert [type(e).__name__ for e in recorder.events if not isinstance(e, QueryProgressEvent)] == \
        ["QueryStartedEvent", "QueryTerminatedEvent"]
    assert sorted(os.listdir(tmp_path / "cp" / "commits")) == ["0", "1"]
