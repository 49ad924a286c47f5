"""A fixed subset of the differential campaign: 40 small scenarios of seed 2050 (every template
appears), each run on the real Spark and on Ember. Fails on any difference that
docs/compatibility.md does not list; the summary (with the documented differences counted by
kind) is printed, and the reproductions are kept under pytest's temporary directory.

The full campaign: `python -m tests.campaign --scenarios 300 --seed 1` (README)."""

import importlib.util
import os
import shutil

import pytest

from .campaign import run_campaign, summary

SEED, SCENARIOS = 2050, 40


def spark_available():
    if os.environ.get("EMBER_TEST_SPARK", "1") == "0" or shutil.which("java") is None:
        return False
    return importlib.util.find_spec("pyspark") is not None


@pytest.mark.skipif(not spark_available(), reason="Spark is off (EMBER_TEST_SPARK=0, or no pyspark/java)")
def test_campaign_subset(tmp_path):
    records = run_campaign(SEED, range(SCENARIOS), str(tmp_path), small=True)
    report = summary(records)
    print(report)
    assert len(records) == SCENARIOS
    undocumented = [r for r in records if r["outcome"] == "undocumented"]
    details = "\n".join(f"{r['name']} ({r['template']}): {r['repro']}\n    " +
                        "\n    ".join(r["differences"][:5]) for r in undocumented)
    assert not undocumented, f"{report}\n\n{details}"
    assert not [r for r in records if r["outcome"] == "inconclusive"], report
