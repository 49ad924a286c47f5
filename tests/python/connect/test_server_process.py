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
        from pyspark import SparkContext
        print("no JVM" if SparkContext._gateway is None else "a JVM")
        spark.stop()
    """)
    env = dict(os.environ, SPARK_REMOTE=f"sc://127.0.0.1:{server_process}")
    out = subprocess.run([sys.executable, "-c", client], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["[(False, 50), (True, 50)]", "no JVM"]


def test_python_functions_run_in_a_server_process(server_process, tmp_path):
    # The server's interpreter imports pandas and pyarrow.compute only when a function first
    # needs them, after Ember's own compute functions are registered: the import must still work.
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("a\nbb\n")
    client = textwrap.dedent(f"""
        from pyspark.sql import SparkSession, functions as F
        spark = SparkSession.builder.getOrCreate()
        half = F.pandas_udf(lambda v: v / 2, "double")
        print(spark.range(3).select(half("id")).collect())
        seen = []
        query = (spark.readStream.text({str(tmp_path / "in")!r}).writeStream
                 .foreach(lambda row: print(row.value)).start())
        query.processAllAvailable()
        query.stop()
        print("done")
    """)
    env = dict(os.environ, SPARK_REMOTE=f"sc://127.0.0.1:{server_process}")
    out = subprocess.run([sys.executable, "-c", client], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == [
        "[Row(<lambda>(id)=0.0), Row(<lambda>(id)=0.5), Row(<lambda>(id)=1.0)]", "done"]


def test_the_server_shares_no_symbols_with_pyarrow():
    # gRPC brings Debian's re2 and OpenSSL; pyarrow's libraries export other versions of both
    # under the same names. The transport lives in a symbol scope of its own, so with a server
    # running, Arrow's regex kernels (RLIKE through Connect and through ember's own API) and
    # Python's hashlib each run their own copy; sharing one scope, both crashed.
    code = textwrap.dedent("""
        import ember.connect
        server = ember.connect.start("127.0.0.1", 0)
        import hashlib, ssl
        from pyspark.sql import SparkSession, functions as F
        spark = SparkSession.builder.remote(server.url).getOrCreate()
        df = spark.createDataFrame([("abc",), ("xyz",)], ["s"])
        print([r.s for r in df.filter(F.col("s").rlike("^a.c$")).collect()])
        import ember._core
        local = ember._core.Session.make({})
        print(local.sql("SELECT 'abc' RLIKE 'b' AS r").count())
        print(hashlib.sha256(b"ember").hexdigest()[:12], ssl.OPENSSL_VERSION_NUMBER > 0)
        spark.stop()
        server.stop()
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={k: v for k, v in os.environ.items() if k != "SPARK_REMOTE"})
    assert out.returncode == 0, out.stderr
    import hashlib

    assert out.stdout.splitlines() == ["['abc']", "1",
                                       hashlib.sha256(b"ember").hexdigest()[:12] + " True"]


def test_import_ember_loads_no_grpc():
    # Only a process that starts a server loads gRPC (and its re2 and OpenSSL).
    code = ("import ember._core; maps = open('/proc/self/maps').read(); "
            "print('libgrpc' in maps, 'libre2' in maps)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]
