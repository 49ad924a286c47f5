"""Stream-stream joins on Ember and on Apache Spark, each running join_programs.py in a process
of its own: the rows of every batch, the join's state numbers (bounded by the watermark where
Spark bounds them), a restart from the checkpoint, and the checker's errors. The oracle is Spark;
without it (no pyspark or java, or EMBER_TEST_SPARK=0) these tests are skipped."""

import json
import os
import re
import subprocess
import sys

import pytest

from differential.conftest import spark_enabled

HERE = os.path.dirname(os.path.abspath(__file__))

pytestmark = pytest.mark.skipif(not spark_enabled()[0], reason=f"Spark is off: {spark_enabled()[1]}")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Both engines' documents, run once for the module (one Spark JVM)."""
    out = {}
    for engine in ("spark", "ember"):
        workdir = str(tmp_path_factory.mktemp(engine))
        result = subprocess.run(
            [sys.executable, os.path.join(HERE, "join_programs.py"), workdir, engine],
            capture_output=True, timeout=600, env={**os.environ, "TZ": "UTC"})
        assert result.returncode == 0, (result.stdout + result.stderr)[-5000:].decode(errors="replace")
        out[engine] = json.loads(result.stdout.decode().strip().split("\n")[-1])
        out[engine]["workdir"] = workdir
    return out


def all_rows(doc):
    return sorted(row for _, rows in doc["batches"] for row in rows)


@pytest.mark.parametrize("name", ["right_outer_range", "left_semi_range"])
def test_rows_match_spark(results, name):
    """The same rows over the run; which batch emits some of them differs (see the report in
    docs/compatibility.md)."""
    spark, ember = results["spark"][name], results["ember"][name]
    assert all_rows(spark) and all_rows(ember) == all_rows(spark)


@pytest.mark.parametrize("name", ["inner", "left_outer_range", "left_outer_narrowed"])
def test_rows_of_every_batch_and_state_numbers_match_spark(results, name):
    spark, ember = results["spark"][name], results["ember"][name]
    assert any(rows for _, rows in spark["batches"])
    assert ember["batches"] == spark["batches"]
    assert ember["state"] == spark["state"]


def test_outer_rows_come_only_at_eviction(results):
    """The unmatched left row (3, 00:00:05) appears once, in a later batch than its own, with
    NULLs; as in Spark."""
    batches = results["ember"]["left_outer_range"]["batches"]
    nulls = [(batch, row) for batch, rows in batches for row in rows if row[2] == "None"]
    assert [row[0] for _, row in nulls] == ["3", "2"]
    assert nulls[0][0] > 0


def test_event_time_key_bounds_the_state(results):
    """Both sides evicted by the watermark on the event-time key: the same rows and the same
    state numbers at the end as Spark's (Spark may number its no-data batches differently)."""
    spark, ember = results["spark"]["key_watermark"], results["ember"]["key_watermark"]
    assert all_rows(ember) == all_rows(spark)
    assert ember["state"][-1] == spark["state"][-1]
    totals = [entry[0][1] for entry in ember["state"]]
    assert max(totals) <= 5 and totals[-1] == 2


def test_the_state_holds_only_the_columns_the_query_reads(results):
    """left_outer_narrowed selects w and x after the join: v and y, computed on its sides, are
    read by no one and are not stored (Spark's optimizer prunes them below the join too)."""
    import pyarrow.ipc

    state = os.path.join(results["ember"]["workdir"], "left_outer_narrowed", "checkpoint", "state")
    columns = {}
    for root, _, files in os.walk(state):
        for name in files:
            if name.endswith(".delta"):
                side = os.path.basename(root)
                columns.setdefault(side, set()).update(
                    pyarrow.ipc.open_file(os.path.join(root, name)).schema.names)
    assert {"k", "t", "w"} <= columns["left"] and "v" not in columns["left"]
    assert {"rk", "rt", "x"} <= columns["right"] and "y" not in columns["right"]


def test_inner_join_without_watermark_keeps_every_row(results):
    totals = [entry[0][1] for entry in results["ember"]["inner"]["state"]]
    assert totals == [5, 10, 13, 15]


def message(error):
    """The checker's sentence, without the error class, the plan or a trailing ';'."""
    if error is None:
        return None
    text = re.sub(r"^.*?\] ", "", error.split("\n")[0])
    return text.split(";")[0].strip().rstrip(".")


@pytest.mark.parametrize("case", ["update_mode", "complete_mode", "left_outer_without_watermark",
                                  "right_outer_without_range", "left_anti",
                                  "full_outer_without_watermark", "no_equality"])
def test_checker_errors_match_spark(results, case):
    spark, ember = results["spark"]["errors"][case], results["ember"]["errors"][case]
    assert spark is not None and ember is not None
    assert message(spark) in message(ember) or message(ember) in message(spark), (spark, ember)
