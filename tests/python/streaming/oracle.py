"""Runs a program of a programs module (`python MODULE.py NAME WORKDIR ENGINE`) on one engine in a
process of its own and returns the JSON document it prints on its last line."""

import json
import os
import subprocess
import sys

import pytest

from differential.conftest import spark_enabled

HERE = os.path.dirname(os.path.abspath(__file__))
needs_spark = pytest.mark.skipif(not spark_enabled()[0], reason=f"Spark is off: {spark_enabled()[1]}")


def document(module, program, engine, workdir):
    os.makedirs(workdir, exist_ok=True)
    result = subprocess.run(
        [sys.executable, os.path.join(HERE, module + ".py"), program, str(workdir), engine],
        capture_output=True, timeout=600, env={**os.environ, "TZ": "UTC"}, cwd=HERE,
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-5000:].decode(errors="replace")
    return json.loads(result.stdout.decode().strip().split("\n")[-1])
