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


def test_ember_first_then_openssl_users():
    # The module carries gRPC, which loads Debian's libcrypto; pyarrow's libparquet exports an
    # OpenSSL of its own. Imported first, ember must not let libcrypto call libparquet's copy
    # (that crashed hashlib's import): a fresh interpreter imports ember, then hashlib and ssl.
    code = ("import ember._core, hashlib, hmac, ssl; "
            "print(hashlib.sha256(b'ember').hexdigest()[:12], ssl.OPENSSL_VERSION_NUMBER > 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    import hashlib

    assert out.stdout.split() == [hashlib.sha256(b"ember").hexdigest()[:12], "True"]

