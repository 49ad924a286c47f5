"""Randomized event-time streams checked against an oracle outside Ember (issue #6): DuckDB
computes, from the input files and STREAMING.md's watermark rules, every micro-batch (ids,
no-data batches, input rows, watermark, late groups dropped) and every row the sink receives
(oracle.py); Ember must match it exactly, and so must the real Spark 4.0.1 when it is available
(EMBER_TEST_SPARK=0 skips Spark; the DuckDB check still runs).

STREAMS streams of seed SEED (oracle.generate): tumbling and sliding windows (sizes, slides, start
times), session windows (gaps), append/update/complete mode, dropDuplicates with an event-time
key and dropDuplicatesWithinWatermark, under delays from 0 to 12 minutes; out-of-order, late and
duplicate events, empty files, 1 to 3 files per micro-batch; 2 to 4 runs per stream, each a
restart on the same checkpoint (default trigger, availableNow or once). Each engine runs all
streams in one long-lived process (campaign.Worker); the two run in parallel.

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
STREAMS = int(os.environ.get("EMBER_ORACLE_STREAMS", "27"))


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


def _run_all(engines, root, streams):
    """{engine: {name: runner.py record}}, each engine in a process of its own, in parallel."""
    results = {e: {} for e in engines}

    def drive(engine):
        worker = Worker(engine, str(root / "work"))
        try:
            for scenario, _, directory, _ in streams:
                results[engine][scenario.name] = worker.run(directory)
        finally:
            worker.stop()

    threads = [threading.Thread(target=drive, args=(e,)) for e in engines]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_oracle_covers_the_rules(streams):
    """The generated streams exercise what the oracle is for (so that a bug cannot hide behind a
    tame seed): restarts, late groups dropped, no-data batches, windows closed by them."""
    _, streams = streams
    templates = {s.template for s, *_ in streams}
    assert templates == set(oracle.TEMPLATES)
    batches = [b for *_, e in streams for r in e["runs"] for b in r["batches"]]
    assert all(len(s.runs) >= 2 for s, *_ in streams)
    assert sum(1 for b in batches if b["numRowsDroppedByWatermark"]) >= 10
    assert sum(1 for b in batches if b["numInputRows"] == 0) >= 10  # no-data and empty-file batches
    emitted_by_no_data = sum(1 for *_, e in streams for r in e["runs"] for b, rows in r.get("output", [])
                             if rows and next(x for x in r["batches"] if x["batchId"] == b)["numInputRows"] == 0)
    assert emitted_by_no_data >= 5


def test_engines_equal_duckdb(streams):
    root, streams = streams
    engines = ["ember"] + (["spark"] if spark_available() else [])
    results = _run_all(engines, root, streams)
    report, failures = [], []
    for scenario, plan, directory, expected in streams:
        for engine in engines:
            diffs = oracle.differences(expected, results[engine][scenario.name], engine.capitalize())
            if diffs:
                failures.append(f"{scenario.name} {scenario.template} {scenario.features} "
                                f"({directory}):\n    " + "\n    ".join(diffs[:6]))
        report.append(f"{scenario.name} {scenario.template}: "
                      f"{sum(len(r['batches']) for r in expected['runs'])} batches")
    print(f"{len(streams)} streams, engines {engines}\n" + "\n".join(report))
    assert not failures, "\n".join(failures)
