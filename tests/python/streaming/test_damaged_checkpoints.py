"""Damaged checkpoints (issue #21): a missing or damaged state file, log entry or metadata file is
an error naming the file, never a silent restart from empty state or a batch read anew; a second
start on an active query's checkpoint stops the first, as Spark 4.0.1 does.

damage_programs.py runs each case (three runs of a query on one checkpoint, damaged before the
third) in a process of its own, on Ember and on the real Spark. The oracle is Spark: Ember
refuses where Spark refuses (with Spark's condition where Spark has one), and where Spark
recovers, Ember gives Spark's rows. Without Spark (EMBER_TEST_SPARK=0), the Spark side is
skipped and the rows are checked against DuckDB over the input files."""

import json
import os
import subprocess
import sys

import duckdb
import pytest

from differential.conftest import spark_enabled

HERE = os.path.dirname(os.path.abspath(__file__))

# Damage that loses state: Spark's CANNOT_LOAD_STATE_STORE sub-condition for each (measured on
# Spark 4.0.1 with the same damage: the whole state directory, one partition's directory, the
# newest delta of a partition, a stateless query's checkpoint reused by an aggregation), and
# the file the message must name (on Ember; Spark's HDFS layout has its own store names).
STATE_CASES = {
    "count:state:delete": ("CANNOT_READ_DELTA_FILE_NOT_EXISTS", "state/0/0/1.delta"),
    "count:state/0/0:delete": ("CANNOT_READ_DELTA_FILE_NOT_EXISTS", "state/0/0/1.delta"),
    "count:state/0/1/2.delta:delete": ("CANNOT_READ_DELTA_FILE_NOT_EXISTS", "state/0/1/2.delta"),
    "count:stateless": ("CANNOT_READ_DELTA_FILE_NOT_EXISTS", "state/0/0/1.delta"),
    "dedup:state/0/1/2.delta:delete": ("CANNOT_READ_DELTA_FILE_NOT_EXISTS", "state/0/1/2.delta"),
}
# A join's state on Ember is one store per side; on Spark four (keyToNumValues and
# keyWithIndexToValue per side): the same loss, each engine's own file.
JOIN_CASES = {
    "ember": "join:state/0/1/left/2.delta:delete",
    "spark": "join:state/0/1/left-keyToNumValues/2.delta:delete",
}
# A state file cut short: Spark fails reading it (its condition depends on where the cut
# falls); Ember names it as damaged.
TRUNCATED_STATE = "count:state/0/0/2.delta:truncate"
# Log entries and metadata that exist but are not whole, or a committed batch's logs that are
# gone: both engines refuse; Ember names the file (Spark does for some).
LOG_CASES = {
    "count:offsets/1:empty": "offsets/1",
    "count:offsets/1:truncate": "offsets/1",
    "count:commits/1:empty": "commits/1",
    "count:commits/1:truncate": "commits/1",
    "count:offsets/1:delete": "offsets/1",
    # The whole offsets log: a restart must not plan batch 0 anew over a committed batch 0.
    "count:offsets:delete": "offsets/1",
    "count:metadata:empty": "metadata",
    "count:sources/0/1:truncate": "sources/0/1",
}
# Damage a restart recovers from exactly: a lost commit re-runs its batch; lost operator
# metadata is written again.
RECOVERED_CASES = ["count:commits/1:delete", "count:state/0/_metadata:delete"]
RESTART_CASES = ["restart:true", "restart:false"]


def run(engine, workdir, cases):
    workdir = os.path.join(str(workdir), engine)
    os.makedirs(workdir)
    result = subprocess.run(
        [sys.executable, os.path.join(HERE, "damage_programs.py"), workdir, engine, *cases],
        capture_output=True, timeout=1200, env={**os.environ, "TZ": "UTC"},
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-5000:].decode(errors="replace")
    return json.loads(result.stdout.decode().strip().split("\n")[-1])


def cases_of(engine):
    return [*STATE_CASES, JOIN_CASES[engine], TRUNCATED_STATE, *LOG_CASES, *RECOVERED_CASES,
            *RESTART_CASES]


@pytest.fixture(scope="module")
def ember(tmp_path_factory):
    return run("ember", tmp_path_factory.mktemp("damage"), cases_of("ember"))


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    enabled, why = spark_enabled()
    if not enabled:
        return None
    return run("spark", tmp_path_factory.mktemp("damage"), cases_of("spark"))


def counts(*runs):
    """groupBy("k").count() over the input of the runs given (damage_programs.write_input)."""
    values = ", ".join(f"({run * 5 + i})" for run in runs for i in range(10))
    return [list(r) for r in duckdb.sql(
        f"SELECT k, count(*) FROM (VALUES {values}) t(k) GROUP BY k ORDER BY k").fetchall()]


def last_rows(result):
    batches = result["batches"]
    return batches[max(batches, key=int)]


def test_runs_before_the_damage_are_right(ember, spark):
    for case in STATE_CASES:
        if case.endswith("stateless"):
            continue
        runs = ember[case]
        if case.startswith("count"):
            assert last_rows(runs[0]) == counts(0) and last_rows(runs[1]) == counts(0, 1)
        if spark:
            assert [r["batches"] for r in runs[:2]] == [r["batches"] for r in spark[case][:2]]


@pytest.mark.parametrize("case", [*STATE_CASES, "join"])
def test_lost_state_is_cannot_load_state_store(case, ember, spark):
    """Today's Ember gave count 10 where 20 is right (dedup and join emitted again)."""
    ember_case = JOIN_CASES["ember"] if case == "join" else case
    sub, path = STATE_CASES.get(case, ("CANNOT_READ_DELTA_FILE_NOT_EXISTS", "state/0/1/left/2.delta"))
    third = ember[ember_case][2]
    assert third["batches"] == {}, third
    assert "STREAM_FAILED" in third["conditions"]
    assert f"CANNOT_LOAD_STATE_STORE.{sub}" in third["conditions"], third["error"]
    assert f"checkpoint/{path} does not exist" in third["error"]
    if spark:
        spark_case = JOIN_CASES["spark"] if case == "join" else case
        assert spark[spark_case][2]["batches"] == {}
        assert f"CANNOT_LOAD_STATE_STORE.{sub}" in spark[spark_case][2]["conditions"]


def test_truncated_state_file_is_named(ember, spark):
    third = ember[TRUNCATED_STATE][2]
    assert third["batches"] == {}
    assert "CANNOT_LOAD_STATE_STORE.UNCATEGORIZED" in third["conditions"], third["error"]
    assert "checkpoint/state/0/0/2.delta" in third["error"] and "damaged" in third["error"]
    if spark:
        assert spark[TRUNCATED_STATE][2]["batches"] == {}
        assert "error" in spark[TRUNCATED_STATE][2]


@pytest.mark.parametrize("case", LOG_CASES)
def test_damaged_log_is_an_error_naming_the_file(case, ember, spark):
    """Today's Ember read a truncated commit as committed and a truncated offsets file as "There
    are [0] sources in the checkpoint offsets"; a lost offsets or source log entry made it
    choose the batch's files anew."""
    third = ember[case][2]
    assert third["batches"] == {}, third
    # The logs are read by the run (STREAM_FAILED); the query id by start(), as in Spark.
    assert ("STREAM_FAILED" in third["conditions"]) == (case != "count:metadata:empty"), third["error"]
    assert f"checkpoint/{LOG_CASES[case]}" in third["error"], third["error"]
    assert "There are [0] sources" not in third["error"]
    if spark:
        # Spark refuses too (with a lost offsets/1, after emitting batch 0 again).
        assert "error" in spark[case][2], spark[case][2]


@pytest.mark.parametrize("case", RECOVERED_CASES)
def test_recoverable_damage_gives_the_right_rows(case, ember, spark):
    third = ember[case][2]
    assert "error" not in third, third["error"]
    assert last_rows(third) == counts(0, 1, 2)
    if spark:
        # Spark re-runs batch 1 alike; with commits/1 deleted (its .crc left behind) it then
        # fails, "Multiple streaming queries are concurrently using .../commits".
        for batch, rows in spark[case][2]["batches"].items():
            assert third["batches"][batch] == rows


def test_second_start_stops_the_active_run(ember, spark):
    """spark.sql.streaming.stopActiveRunOnRestart (true by default): the second start wins."""
    result = ember["restart:true"]
    assert result == {"second_active": True, "same_id": True, "active": 1, "first_active": False,
                      "first_exception": False}
    if spark:
        assert result == spark["restart:true"]


def test_second_start_refused_without_stop_active_run(ember, spark):
    result = ember["restart:false"]
    assert result["first_active"] and not result["first_exception"]
    assert result["error"].startswith("Cannot start query with id ")
    assert 'spark.conf.set("spark.sql.streaming.stopActiveRunOnRestart", true)' in result["error"]
    if spark:
        theirs = spark["restart:false"]
        query_id = theirs["error"].split()[5]
        assert result["error"].replace(result["error"].split()[5], query_id) == theirs["error"]
        assert result["first_active"] == theirs["first_active"]


def test_two_processes_on_one_checkpoint_commit_each_row_once(tmp_path):
    """Processes are not sessions: two started at once on one checkpoint are kept apart by the
    logs' no-overwrite entries (the loser fails with CONCURRENT_STREAM_LOG_UPDATE or finds the
    batch committed); after a last run to completion the sink holds every input row once."""
    from streaming.test_kills import PARQUET_JOB, Source, committed_files

    source = Source(tmp_path / "in")
    source.add(30)
    job = tmp_path / "job.py"
    job.write_text(PARQUET_JOB)
    args = [sys.executable, str(job), str(source.directory), str(tmp_path / "cp"), str(tmp_path / "out")]
    runs = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    outputs = [run.communicate(timeout=300) for run in runs]
    for run, (_, err) in zip(runs, outputs):
        assert run.returncode == 0 or b"CONCURRENT_STREAM_LOG_UPDATE" in err, err[-3000:]
    subprocess.run(args, check=True, timeout=300, capture_output=True)
    files = committed_files(tmp_path / "out")
    got = duckdb.sql(f"SELECT event_id, company_id, amount, event_ts FROM read_parquet({files!r}) "
                     "ORDER BY event_id").fetchall()
    assert got == source.expected()
