"""Ember's Spark Connect server on a free local port, and the real PySpark Connect client
talking to it. The client runs unmodified (pyspark 4.0.1, pinned): an `sc://` URL makes
SparkSession.builder build a Connect session and start no JVM."""

import gc
import os

import pytest


@pytest.fixture(scope="module", autouse=True)
def _restore_environment():
    # A Connect session sets SPARK_CONNECT_MODE_ENABLED=1 in os.environ (pyspark's builder), and
    # activate() sets SPARK_REMOTE; later tests of the same run start the classic Spark as the
    # reference engine, which those variables would turn into a Connect client.
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


@pytest.fixture(scope="module")
def server():
    from ember.connect import start

    running = start("127.0.0.1", 0)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def spark(server):
    from pyspark.sql import SparkSession

    session = SparkSession.builder.remote(server.url).getOrCreate()
    yield session
    gc.collect()  # see test_sessions_are_isolated
    session.stop()
