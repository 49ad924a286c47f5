"""Structured Streaming through the real PySpark Connect client on Ember, against Apache Spark:
each program of stream_programs.py runs unchanged on both engines, in processes of their own,
and their documents must match."""

import json
import os
import subprocess
import sys

import pytest

from differential.conftest import spark_enabled

HERE = os.path.dirname(os.path.abspath(__file__))
needs_spark = pytest.mark.skipif(not spark_enabled()[0], reason=f"Spark is off: {spark_enabled()[1]}")


def document(program, engine, workdir):
    os.makedirs(workdir, exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED")}
    result = subprocess.run(
        [sys.executable, os.path.join(HERE, "stream_programs.py"), program, str(workdir), engine],
        capture_output=True, timeout=600, env={**env, "TZ": "UTC"}, cwd=HERE,
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-5000:].decode(errors="replace")
    return json.loads(result.stdout.decode().strip().split("\n")[-1])


@needs_spark
@pytest.mark.parametrize("program", ["windowed_memory", "file_sinks", "iceberg_table",
                                     "failing_query", "foreach_batch", "listener"])
def test_same_as_spark(program, tmp_path):
    ember = document(program, "ember", tmp_path / "ember")
    spark = document(program, "spark", tmp_path / "spark")
    assert ember == spark
