"""The seeds' exercises on Ember, each in a fresh process (see scenarios.py)."""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.parametrize("scenario", ["spk10_01", "spk10_02", "spk11_01"])
def test_seed(scenario, tmp_path):
    result = subprocess.run(
        [sys.executable, os.path.join(HERE, "scenarios.py"), scenario, str(tmp_path)],
        capture_output=True, text=True, timeout=300, env={**os.environ, "TZ": "UTC"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
