"""The rate and rate-micro-batch sources beside the real Spark (source_programs.py): the same
rows in the same order for the same offsets, the same offsets JSON in offsets/N, the same
progress descriptions and errors; a checkpoint of either engine continues on the other. Without
Spark (no pyspark or java, or EMBER_TEST_SPARK=0) the comparisons are skipped."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from differential.conftest import spark_enabled

HERE = os.path.dirname(os.path.abspath(__file__))
needs_spark = pytest.mark.skipif(not spark_enabled()[0], reason=f"Spark is off: {spark_enabled()[1]}")


def output(program, engine, workdir, programs="source_programs.py"):
    """The stdout of `programs program`, run on the engine in a process of its own."""
    os.makedirs(workdir, exist_ok=True)
    result = subprocess.run(
        [sys.executable, os.path.join(HERE, programs), program, str(workdir), engine],
        capture_output=True, timeout=600, env={**os.environ, "TZ": "UTC"}, cwd=HERE,
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-5000:].decode(errors="replace")
    return result.stdout


def document(program, engine, workdir, programs="source_programs.py"):
    """The JSON document `programs program` prints last, run on the engine."""
    return json.loads(output(program, engine, workdir, programs).decode().strip().split("\n")[-1])


def uncommit(checkpoint, batch, copy):
    """A copy of the checkpoint as if the query had died while running `batch`: its offsets
    logged, its commit and everything after it gone."""
    shutil.copytree(checkpoint, copy)
    for log in ("offsets", "commits"):
        for name in os.listdir(os.path.join(copy, log)):
            number = name.lstrip(".").split(".")[0]
            if number.isdigit() and (int(number) > batch or (log == "commits" and int(number) == batch)):
                os.remove(os.path.join(copy, log, name))


@needs_spark
def test_rate_micro_batch_matches_spark(tmp_path):
    """Three availableNow runs (a batch each) and a processing-time run: the same rows in the
    same order per batch, the same offsets/N lines ({"offset":N,"timestamp":T}), the same
    progress entries and schema."""
    spark = document("rate_micro_batch", "spark", tmp_path / "spark")
    ember = document("rate_micro_batch", "ember", tmp_path / "ember")
    assert spark["batches"]["0"][:3] == [[1_000_000, 0], [1_000_000, 3], [1_000_000, 6]]
    assert ember == spark


@needs_spark
def test_rate_rows_are_sparks_for_sparks_offsets(tmp_path):
    """Spark runs the rate source (ramp-up included) for a few seconds; Ember, started on copies
    of Spark's checkpoint that end with one of its batches uncommitted, runs that batch again
    from Spark's offsets and start time: the same rows, timestamps and order as Spark's."""
    spark = document("rate", "spark", tmp_path / "spark")
    batches = [b for b, rows in spark["batches"].items() if rows]
    assert len(batches) >= 2, spark["batches"]
    for batch in batches[:4]:
        workdir = tmp_path / f"again-{batch}"
        uncommit(tmp_path / "spark" / "cp", int(batch), workdir / "cp")
        again = document("rate_again", "ember", workdir)
        assert again["batches"][batch] == spark["batches"][batch], batch
        assert again["progress"][0]["description"] == spark["progress"][0]["description"]
    assert spark["start_time"].startswith("v1\n")


@needs_spark
def test_a_rate_checkpoint_of_ember_continues_on_spark(tmp_path):
    """The other way: Spark runs again a batch that Ember logged, from Ember's offsets and start
    time (sources/0/0), and reads the rows Ember read."""
    ember = document("rate", "ember", tmp_path / "ember")
    batches = [b for b, rows in ember["batches"].items() if rows]
    assert len(batches) >= 2, ember["batches"]
    batch = batches[-1]
    uncommit(tmp_path / "ember" / "cp", int(batch), tmp_path / "again" / "cp")
    again = document("rate_again", "spark", tmp_path / "again")
    assert again["batches"][batch] == ember["batches"][batch]


def test_rate_values_count_up_without_gaps_or_repeats(tmp_path):
    """On Ember alone: every value once from 0, each batch's offsets whole seconds."""
    ember = document("rate", "ember", tmp_path)
    values = [v for b in sorted(ember["batches"], key=int) for _, v in sorted(ember["batches"][b], key=lambda r: r[1])]
    assert values == list(range(len(values))) and len(values) > 0
    for entry in ember["progress"]:
        assert entry["endOffset"].isdigit() and int(entry["endOffset"]) > 0


@needs_spark
def test_source_errors_match_spark(tmp_path):
    """Bad rate options, an unknown format and a file source without a path: Spark's exception
    classes, conditions and messages. An unknown format is Spark's SparkClassNotFoundException,
    which classic PySpark leaves a Py4JJavaError and Spark Connect's client raises as
    UnknownException: Ember raises what the Connect client does (docs/compatibility.md)."""
    spark = document("errors", "spark", tmp_path / "spark")
    ember = document("errors", "ember", tmp_path / "ember")
    assert spark["unknown"]["class"] == "Py4JJavaError"
    assert ember["unknown"]["class"] == "UnknownException"
    ember["unknown"]["class"] = "Py4JJavaError"
    assert ember == spark


@needs_spark
def test_socket_source_matches_spark(tmp_path):
    """Lines as Java's readLine splits them (\n, \r\n, \r, the last one ended by the server
    closing), a byte that is not UTF-8 as U+FFFD, arrival timestamps, the last batch's offset
    (the last line's number) and description; a restart on the same checkpoint counts offsets
    from -1 again and fails as Spark's does when the first line arrives."""
    spark = document("socket_lines", "spark", tmp_path / "spark")
    ember = document("socket_lines", "ember", tmp_path / "ember")
    assert len(spark["first"]["rows"]) == 6
    assert spark["again"]["failure"] == "Offsets committed out of order: 5 followed by -1"
    assert ember == spark
