"""Randomized event-time streams checked against an oracle outside Ember (issue #6): DuckDB
computes, from the input files and STREAMING.md's watermark rules, every micro-batch (ids,
no-data batches, input rows, watermark, late groups dropped) and every row the sink receives
(oracle.py); Ember must match it exactly, and so must the real Spark 4.0.1 when it is available
(EMBER_TEST_SPARK=0 skips Spark; the DuckDB check still runs).

STREAMS streams of seed SEED (oracle.generate): tumbling and sliding windows (sizes, slides, start
times), session windows (gaps), append/update/complete mode, dropDuplicates with an event-time
key and dropDuplicatesWithinWatermark, under delays from 0 to 12 minutes; out-of-order, late and
duplicate events, empty files, 1 to 3 files per micro-batch; 2 to 4 runs per stream, each a
restart on the same checkpoint (default trigger, availableNow or once); half the files end with
an event that puts the watermark exactly on a window end, a session end or a dedup expiry, and
an event on that boundary follows two batches later. Each engine runs all streams in one
long-lived process (campaign.Worker); the two run in parallel. The oracle itself is checked too:
each of oracle.MUTANTS (a rule with `<` for `<=`, the wrong watermark, ...) must be refuted by
Ember's output on some stream.

    TZ=UTC .venv/bin/python -m pytest -q tests/campaign/test_duckdb_oracle.py
    EMBER_ORACLE_STREAMS=100 EMBER_ORACLE_SEED=7 ...   more streams, another seed
"""

import os
import threading

import pytest

from . import generator, oracle
from .campaign import Worker
from .test_campaign import spark_available

SEED = int(os.environ.get("EMBER_ORACLE_SEED", "6"))
STREAMS = int(os.environ.get("EMBER_ORACLE_STREAMS", "24"))


@pytest.fixture(scope="module")
def streams(tmp_path_factory):
    """[(scenario, plan, directory, expectation)]."""
    root = tmp_path_factory.mktemp("oracle")
    out = []
    for i in range(STREAMS):
        scenario, plan = oracle.generate(SEED, i)
        directory = str(root / "scenarios" / scenario.name)
        generator.write(scenario, directory)
        out.append((scenario, plan, directory,
                    oracle.expect(plan, scenario, os.path.join(directory, "inputs"))))
    return root, out


@pytest.fixture(scope="module")
def results(streams):
    """{engine: {name: runner.py record}}: Ember, and Spark when available, each running every
    stream in a process of its own (campaign.Worker), the two in parallel."""
    root, streams = streams
    engines = ["ember"] + (["spark"] if spark_available() else [])
    out = {e: {} for e in engines}

    def drive(engine):
        worker = Worker(engine, str(root / "work"))
        try:
            for scenario, _, directory, _ in streams:
                out[engine][scenario.name] = worker.run(directory)
        finally:
            worker.stop()

    threads = [threading.Thread(target=drive, args=(e,)) for e in engines]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_streams_cover_the_rules(streams):
    """The streams exercise what the oracle is for (so that a tame seed cannot hide a bug):
    every template, restarts, late groups, no-data batches and the windows they close."""
    _, streams = streams
    assert {s.template for s, *_ in streams} == set(oracle.TEMPLATES)
    assert all(len(s.runs) >= 2 for s, *_ in streams)
    batches = [b for *_, e in streams for r in e["runs"] for b in r["batches"]]
    assert sum(1 for b in batches if b["numRowsDroppedByWatermark"]) >= 10
    assert sum(1 for b in batches if b["numInputRows"] == 0) >= 10  # no-data and empty-file batches
    closed_by_no_data = 0  # foreachBatch calls with rows from a batch without input
    for *_, e in streams:
        empty = {b["batchId"] for r in e["runs"] for b in r["batches"] if b["numInputRows"] == 0}
        closed_by_no_data += sum(1 for r in e["runs"] for b, rows in r.get("output", [])
                                 if rows and b in empty)
    assert closed_by_no_data >= 5


def test_engines_equal_duckdb(streams, results):
    _, streams = streams
    failures, batches = [], 0
    for scenario, plan, directory, expected in streams:
        batches += sum(len(r["batches"]) for r in expected["runs"])
        for engine, records in results.items():
            diffs = oracle.differences(expected, records[scenario.name], engine.capitalize())
            if diffs:
                failures.append(f"{scenario.name} {scenario.template} {scenario.features} "
                                f"({directory}):\n    " + "\n    ".join(diffs[:6]))
    print(f"{len(streams)} streams, {batches} micro-batches, engines: {', '.join(results)}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("mutant", list(oracle.MUTANTS))
def test_a_wrong_rule_is_refuted(streams, results, mutant):
    """The oracle with one rule changed (oracle.MUTANTS: `<` for `<=`, the wrong watermark, no
    trailing no-data batch, ...) must disagree with Ember's output on some stream: the streams
    reach every boundary the rules draw, so the exact comparisons above are actually tested."""
    _, streams = streams
    for scenario, plan, directory, _ in streams:
        wrong = oracle.expect(plan, scenario, os.path.join(directory, "inputs"), mutant)
        if oracle.differences(wrong, results["ember"][scenario.name]):
            return
    pytest.fail(f"no stream tells '{oracle.MUTANTS[mutant]}' from the rule")
