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


def run(program, engine, workdir):
    os.makedirs(workdir, exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED")}
    result = subprocess.run(
        [sys.executable, os.path.join(HERE, "stream_programs.py"), program, str(workdir), engine],
        capture_output=True, timeout=600, env={**env, "TZ": "UTC"}, cwd=HERE,
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-5000:].decode(errors="replace")
    return result.stdout.decode()


def document(program, engine, workdir):
    return json.loads(run(program, engine, workdir).strip().split("\n")[-1])


@needs_spark
@pytest.mark.parametrize("program", ["windowed_memory", "file_sinks", "iceberg_table",
                                     "failing_query", "foreach_batch", "listener",
                                     "joins_and_dedup", "file_sources", "python_udfs",
                                     "map_in_pandas", "observed_metrics", "grouped_map",
                                     "group_state", "grouped_agg", "python_data_source",
                                     "json_events"])
def test_same_as_spark(program, tmp_path):
    ember = document(program, "ember", tmp_path / "ember")
    spark = document(program, "spark", tmp_path / "spark")
    assert ember == spark


@needs_spark
def test_console_sink_text_and_refused_starts_as_spark(tmp_path):
    # The whole of stdout: the console sink's batches as Spark prints them, then the document.
    ember = run("console_and_errors", "ember", tmp_path / "ember")
    spark = run("console_and_errors", "spark", tmp_path / "spark")
    assert "Batch: 0" in ember
    assert ember == spark


# Without Spark: what Ember answers where the comparison needs no second engine.

def test_continuous_trigger_is_refused_by_name(spark):
    from pyspark.errors import AnalysisException

    ticks = spark.readStream.format("rate").load()
    with pytest.raises(AnalysisException, match="UNSUPPORTED_FEATURE.*continuous"):
        ticks.writeStream.format("memory").queryName("c").trigger(continuous="1 second").start()


def test_queries_belong_to_their_session(server, spark, capsys):
    import gc

    from pyspark.sql import SparkSession

    other = SparkSession.builder.remote(server.url).create()
    try:
        query = (other.readStream.format("rate").option("rowsPerSecond", 5).load()
                 .writeStream.format("memory").queryName("mine").start())
        assert [q.name for q in other.streams.active] == ["mine"]
        assert [q.name for q in spark.streams.active] == []
        assert spark.streams.get(query.id) is None
        query.processAllAvailable()
        query.explain()
        assert capsys.readouterr().out.startswith("== Physical Plan ==")
        assert query.isActive and query.status["message"]
    finally:
        gc.collect()  # as in test_sessions_are_isolated
        other.stop()


def test_exit_with_a_running_foreach_batch_query():
    # The process ends while a query calls its Python function: the server stops at exit, before
    # the interpreter finalizes, so the query ends cleanly instead of calling into a client that
    # is shutting down.
    import textwrap

    program = textwrap.dedent("""
        import ember.connect
        ember.connect.activate()
        from pyspark.sql import SparkSession
        spark = SparkSession.builder.getOrCreate()
        query = (spark.readStream.format("rate").option("rowsPerSecond", 50).load()
                 .writeStream.foreachBatch(lambda df, batch_id: df.collect())
                 .trigger(processingTime="10 milliseconds").start())
        import time
        while not (query.lastProgress and query.lastProgress["batchId"] > 2):
            time.sleep(0.05)
        print("leaving")
    """)
    env = {k: v for k, v in os.environ.items()
           if k not in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED")}
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                         timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "leaving\n"
    assert "Traceback" not in out.stderr, out.stderr


def test_socket_source_rows_are_the_lines_sent(spark):
    # The oracle is the input: each line the socket sends is one row of `value`.
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]

    def serve():
        connection, _ = listener.accept()
        connection.sendall(b"alpha\nbeta\ngamma\n")
        threading.Event().wait(5)  # open until the query has read the lines
        connection.close()

    threading.Thread(target=serve, daemon=True).start()
    lines = (spark.readStream.format("socket").option("host", "127.0.0.1")
             .option("port", port).load())
    assert lines.isStreaming and lines.columns == ["value"]
    query = lines.writeStream.format("memory").queryName("lines").start()
    try:
        import time

        deadline = time.monotonic() + 30
        while spark.sql("SELECT count(*) AS n FROM lines").collect()[0].n < 3:
            assert time.monotonic() < deadline, "the lines did not arrive"
            time.sleep(0.1)
        assert sorted(r.value for r in spark.sql("SELECT value FROM lines").collect()) == [
            "alpha", "beta", "gamma"]
    finally:
        query.stop()
        listener.close()


def test_text_stream_takes_the_users_column_name(spark, tmp_path):
    # Spark's test_stream_read_options: a text source's one column is named by the user's schema.
    (tmp_path / "a.txt").write_text("hello\n")
    df = spark.readStream.schema("data STRING").text(str(tmp_path))
    assert df.schema.simpleString() == "struct<data:string>"
    assert spark.readStream.text(str(tmp_path)).schema.simpleString() == "struct<value:string>"


def test_session_catalog_tables_as_stream_source_and_sink(server, tmp_path):
    # readStream.table and toTable reach the session catalog over Connect as in-process: the
    # input is the rows inserted, the output files are read back by DuckDB.
    import gc

    import duckdb
    from pyspark.sql import SparkSession

    warehouse = tmp_path / "warehouse"
    other = (SparkSession.builder.remote(server.url)
             .config("spark.sql.warehouse.dir", str(warehouse)).create())
    try:
        other.sql("CREATE TABLE src (k STRING, v INT) USING parquet")
        other.sql("INSERT INTO src VALUES ('a', 1), ('b', 2)")
        query = (other.readStream.table("src").writeStream
                 .option("checkpointLocation", str(tmp_path / "cp"))
                 .toTable("dst", format="json"))
        query.processAllAvailable()
        query.stop()
        files = str(warehouse / "dst" / "*.json")
        assert sorted(duckdb.sql(f"SELECT k, v FROM read_json('{files}')").fetchall()) == [
            ("a", 1), ("b", 2)]
    finally:
        gc.collect()
        other.stop()


def test_await_any_termination_ends_when_its_session_is_released(server):
    # A session without queries: awaitAnyTermination() waited for ever, past the release of its
    # session (and so held up the server's shutdown).
    import threading

    from pyspark.sql import SparkSession

    other = SparkSession.builder.remote(server.url).create()
    outcome = []

    def wait():
        try:
            outcome.append(other.streams.awaitAnyTermination())
        except Exception as error:  # noqa: BLE001 - how it ends is not the point, that it ends
            outcome.append(type(error).__name__)

    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    waiter.join(1)
    assert waiter.is_alive()  # it does wait while the session lives
    other.client.release_session()
    waiter.join(30)
    assert not waiter.is_alive() and outcome
    other.stop()
