"""The same streaming programs (programs.py) on Ember and on Apache Spark, each in a process of
its own, compared: the console sink's output byte for byte, the listener's events, the
checkpoint's files, and the file sink's `retention`. The oracle is Spark; without it (no pyspark
or java, or EMBER_TEST_SPARK=0) these tests are skipped."""

import json
import os
import re
import subprocess
import sys

import pytest

from differential.conftest import spark_enabled

HERE = os.path.dirname(os.path.abspath(__file__))

pytestmark = pytest.mark.skipif(not spark_enabled()[0], reason=f"Spark is off: {spark_enabled()[1]}")


def run(program, engine, workdir):
    """stdout of `programs.py program` on the engine."""
    workdir = os.path.join(str(workdir), engine)
    os.makedirs(workdir)
    result = subprocess.run(
        [sys.executable, os.path.join(HERE, "programs.py"), program, workdir, engine],
        capture_output=True, timeout=600, env={**os.environ, "TZ": "UTC"},
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-5000:].decode(errors="replace")
    return result.stdout


def document(program, engine, workdir):
    """The JSON document a program prints last."""
    return json.loads(run(program, engine, workdir).decode().strip().split("\n")[-1])


def test_console_sink_prints_what_spark_prints(tmp_path):
    """Stateless selects (numRows, truncate on and off, doubles in E notation, NULLs,
    timestamps, dates, structs, full-width characters) and a complete-mode aggregation."""
    spark = run("console", "spark", tmp_path)
    ember = run("console", "ember", tmp_path)
    assert spark.count(b"Batch: ") == 12
    assert ember == spark


def collapse_idle(kinds):
    """Idle events come one per interval while the query waits: how many depends on timing."""
    out = []
    for kind in kinds:
        if not (kind == "idle" and out and out[-1] == "idle+"):
            out.append("idle+" if kind == "idle" else kind)
    return out


def listener_view(run_result):
    """What must agree between the engines: event kinds in order, ids, batch ids, rows."""
    first, failing = run_result["first"], run_result["failing"]
    query = first["query"]
    events = first["events"]
    assert all(e["id"] == query["id"] and e["runId"] == query["runId"] for e in events)
    assert all(e["id"] == failing["query"]["id"] for e in failing["events"])
    terminated = failing["events"][-1]
    return {
        "started_before_return": first["started_before_return"],
        "kinds": collapse_idle(e["kind"] for e in events),
        "progress": [(e["batchId"], e["numInputRows"], e["progress_keys"], e["durations"],
                      e["source_rows"]) for e in events if e["kind"] == "progress"],
        "name": events[0]["name"],
        "stopped_with": (events[-1]["exception"], events[-1]["errorClassOnException"]),
        # The idle entries of recentProgress carry the next batch id and no rows.
        "recent": sorted(set((b, n, tuple(d)) for b, n, d in first["recent"])),
        "failing_kinds": [e["kind"] for e in failing["events"]],
        "failing_error_class": terminated["errorClassOnException"],
        "failing_mentions_cause": "boom in batch 0" in (terminated["exception"] or ""),
        "after_remove": run_result["after_remove"],
    }


def test_listener_events_match_spark(tmp_path):
    spark = listener_view(document("listener", "spark", tmp_path))
    ember = listener_view(document("listener", "ember", tmp_path))
    assert spark["kinds"] == ["started", "progress", "progress", "idle+", "terminated"]
    assert ember == spark


def test_query_manager_keeps_active_queries_only_as_spark(tmp_path):
    """A stopped query is gone from spark.streams (get gives None): its sink's rows can go.
    awaitAnyTermination answers for queries ended since the last resetTerminated, and an error
    sticks over a later clean stop."""
    spark = document("manager", "spark", tmp_path)
    ember = document("manager", "ember", tmp_path)
    assert spark["running"] == [True, ["rows"], False] and spark["stopped"] == [True, [], True]
    assert spark["failed"][0] == spark["error_sticks"] == "StreamingQueryException"
    assert ember == spark


def shape(value):
    """A JSON value with the parts that naturally differ between runs replaced by their kind."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return "<number>"
    value = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uuid>", value)
    return re.sub(r"^file:///.*/(ember|spark)/", "file:///<workdir>/", value)


def checkpoint_view(result):
    """Per checkpoint file: its lines, JSON lines parsed; values that differ by nature (query
    ids, clocks, file sizes and names) by shape only, the deterministic ones (watermarks, log
    offsets, source files and their times, batch ids) by value."""
    files = {}
    for name, text in result["files"].items():
        lines = text.split("\n")
        parsed = []
        for line in lines:
            try:
                parsed.append(json.loads(line))
            except json.JSONDecodeError:
                parsed.append(line)
        files[name] = parsed
    view = {"names": sorted(files), "rows": result["rows"]}
    for name, lines in files.items():
        if name == "cp/metadata":
            view[name] = shape(lines)
        elif name.startswith("cp/offsets/"):
            version, meta, *offsets = lines
            view[name] = {"version": version, "keys": list(meta), "conf": meta["conf"],
                          "batchWatermarkMs": meta["batchWatermarkMs"],
                          "batchTimestampMs": shape(meta["batchTimestampMs"]), "offsets": offsets}
        elif name.startswith("cp/commits/"):
            view[name] = lines
        elif name.startswith("cp/sources/"):
            view[name] = [lines[0]] + [{**e, "path": shape(e["path"])} for e in lines[1:]]
        elif "_spark_metadata" in name:
            view[name] = [lines[0]] + [{**shape(e), "isDir": e["isDir"], "action": e["action"],
                                        "blockReplication": e["blockReplication"],
                                        "blockSize": e["blockSize"], "key_order": list(e)}
                                       for e in lines[1:]]
    return view


def test_checkpoint_files_match_spark(tmp_path):
    """File source (two files, maxFilesPerTrigger 1, a watermark) into a parquet sink, stopped
    and restarted with a third file: the same files, versions, keys, conf, offsets, watermarks
    and sink log entries as Spark's."""
    spark = checkpoint_view(document("checkpoint", "spark", tmp_path))
    ember = checkpoint_view(document("checkpoint", "ember", tmp_path))
    assert spark["names"] == ember["names"]
    for name in spark:
        assert ember[name] == spark[name], name
    # The parts Spark writes with a fixed form.
    offsets = spark["cp/offsets/1"]
    assert offsets["version"] == "v1" and offsets["offsets"] == [{"logOffset": 1}]
    assert offsets["keys"] == ["batchWatermarkMs", "batchTimestampMs", "conf"]
    assert spark["cp/sources/0/0"][1]["path"] == "file:///<workdir>/in/a%20b.json"
    part = spark["out/_spark_metadata/0"][1]["path"]
    assert re.fullmatch(r"file:///<workdir>/out/part-00000-<uuid>-c000\.snappy\.parquet", part)


def test_file_sink_retention_matches_spark(tmp_path):
    """Log entries older than `retention` leave the compacted log (9.compact) and so the batch
    read; without the option every entry stays."""
    spark = document("retention", "spark", tmp_path)
    ember = document("retention", "ember", tmp_path)
    assert spark["with"]["compacted_batches"] == list(range(3, 10))
    assert spark["without"]["compacted_batches"] == list(range(10))
    assert ember == spark


def test_file_source_log_and_file_choice_match_spark(tmp_path):
    """The file source's log over 25 batches with a restart (compactions 9 and 19), the files
    each batch reads when a read limit leaves files for later and an older file arrives, and
    availableNow's single listing: the same batches and source log files as Spark's."""
    spark = document("source_log", "spark", tmp_path)
    ember = document("source_log", "ember", tmp_path)
    for part in spark:
        assert ember[part] == spark[part], part


def test_long_run_checkpoint_matches_spark(tmp_path):
    """45 one-file batches and a restart with 15 more, minBatchesToRetain 10, compaction every 5
    entries and a cleanup delay of 0: the offsets, commits, file source and file sink logs keep the same files as Spark's
    (CompactibleFileStreamLog's deletion rule), the newest compaction the same entries, and the
    output the same rows. Spark's state store writes a delta per partition and version and
    snapshots and cleans up in the background (every second here), so how many files it has
    at the moment the query stops depends on when maintenance last ran (25 in one CI run);
    Ember cleans up as it commits, only for the partitions a batch changed, and keeps at
    most the 24 files a partition that Spark's rule leaves after a maintenance pass. Spark is
    held only to having cleaned up: ten files fewer than the versions it wrote (45, then 60)."""
    spark = document("long_run", "spark", tmp_path)
    ember = document("long_run", "ember", tmp_path)
    for run_name, versions in (("first", 45), ("again", 60)):
        for name in ("sources/0", "offsets", "commits", "out/_spark_metadata"):
            assert ember[run_name][name]["names"] == spark[run_name][name]["names"], (run_name, name)
        assert ember[run_name]["last_compact"] == spark[run_name]["last_compact"], run_name
        # Per state partition, both within Spark's rule (test_file_stream.state_files_bound).
        for engine, view in (("spark", spark[run_name]), ("ember", ember[run_name])):
            partitions = {}
            for file in view["state"]["names"]:
                if "_metadata" not in file:
                    partitions.setdefault(file.split("/")[1], []).append(file)
            assert len(partitions) == 2, (engine, run_name)
            bound = 24 if engine == "ember" else versions - 10
            for files in partitions.values():
                assert len(files) <= bound, (engine, run_name, files)
    assert ember["rows"] == spark["rows"]


def test_window_time_in_a_stream_matches_spark(tmp_path):
    """window_time over a streaming aggregation's window column (it crashed the process)."""
    spark = document("window_time_stream", "spark", tmp_path)
    ember = document("window_time_stream", "ember", tmp_path)
    assert spark[-1] and spark[-1][0][0].endswith(":59.999999")
    assert ember == spark


def test_foreach_sink_error_has_sparks_condition(tmp_path):
    """A raising foreach function fails the query with FOREACH_USER_FUNCTION_ERROR, not
    foreachBatch's condition (Ember runs foreach through its foreachBatch machinery)."""
    spark = document("foreach_error", "spark", tmp_path)
    ember = document("foreach_error", "ember", tmp_path)
    assert spark["conditions"] == ["FOREACH_USER_FUNCTION_ERROR"] and spark["reason"]
    assert ember == spark


def test_not_null_schema_round_trips_as_in_spark(tmp_path):
    """readStream.schema() and read.schema() with NOT NULL fields (DDL text and StructType):
    Spark's file sources make every field nullable, nested ones too, and read the rows."""
    spark = document("not_null_schema", "spark", tmp_path)
    ember = document("not_null_schema", "ember", tmp_path)
    assert spark["ddl"]["stream"]["fields"][0]["nullable"] is True
    assert ember == spark


def test_memory_sinks_table_is_replaced_when_a_query_starts_as_in_spark(tmp_path):
    """Spark (re)places the memory sink's table as start() returns: a restarted complete-mode
    query without new input shows an empty table, and another query of the name replaces the
    earlier one's rows and columns before its first batch."""
    spark = document("memory_table", "spark", tmp_path)
    ember = document("memory_table", "ember", tmp_path)
    assert spark["first"] and not spark["restart"]
    assert ember == spark


def test_a_window_count_after_a_join_keys_on_either_sides_event_time_as_in_spark(tmp_path):
    """An append-mode window count on the join's right-side event time: Spark carries both
    sides' watermarks through the join (Ember refused it as an aggregation without watermark)."""
    spark = document("join_then_window", "spark", tmp_path)
    ember = document("join_then_window", "ember", tmp_path)
    assert any(spark), "no window closed: the test's data does not exercise the rule"
    assert ember == spark


def test_observed_metrics_match_spark(tmp_path):
    """df.observe() in the mirror against classic PySpark: Observation.get, the metrics' errors
    and PySpark's argument errors, and each batch's metrics as progress, JSON and listener
    events carry them, no-data batches too."""
    spark = document("observed_metrics", "spark", tmp_path)
    ember = document("observed_metrics", "ember", tmp_path)
    assert spark["batch"]["c"] == 3 and len(spark["json"]) >= 3
    assert ember == spark
