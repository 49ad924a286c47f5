"""The seeds' exercises, each in a fresh process (see scenarios.py), on Ember and on the real
Spark with the same solution code and the same checks."""

import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def spark_available():
    if os.environ.get("EMBER_TEST_SPARK", "1") == "0" or shutil.which("java") is None:
        return False
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return False
    return True


ENGINES = ["ember", pytest.param("spark", marks=pytest.mark.skipif(
    not spark_available(), reason="Spark is off (EMBER_TEST_SPARK=0, or no pyspark/java)"))]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("scenario", ["spk10_01", "spk10_02", "spk11_01"])
def test_seed(scenario, engine, tmp_path):
    result = subprocess.run(
        [sys.executable, os.path.join(HERE, "scenarios.py"), scenario, str(tmp_path), engine],
        capture_output=True, text=True, timeout=600, env={**os.environ, "TZ": "UTC"},
    )
    assert result.returncode == 0, result.stdout + result.stderr[-5000:]
