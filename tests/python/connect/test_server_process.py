"""`python -m ember.connect` as its own process, and a client in another process: the way any
Spark Connect client (not only Python in the same process) uses Ember."""

import os
import socket
import subprocess
import sys
import textwrap

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server_process():
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "ember.connect", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = process.stdout.readline()
    assert line.strip() == f"Ember serves Spark Connect on sc://127.0.0.1:{port}", line
    yield port
    process.terminate()
    process.wait(timeout=30)


def test_a_client_process_runs_on_a_server_process(server_process):
    client = textwrap.dedent(f"""
        from pyspark.sql import SparkSession, functions as F
        spark = SparkSession.builder.appName("client").getOrCreate()
        df = spark.range(100).withColumn("even", F.col("id") % 2 == 0)
        print(sorted(tuple(r) for r in df.groupBy("even").count().collect()))
        spark.stop()
    """)
    env = dict(os.environ, SPARK_REMOTE=f"sc://127.0.0.1:{server_process}")
    out = subprocess.run([sys.executable, "-c", client], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[(False, 50), (True, 50)]"
