"""Ember's Spark Connect server on a free local port, and the real PySpark Connect client
talking to it. The client runs unmodified (pyspark 4.0.1, pinned): an `sc://` URL makes
SparkSession.builder build a Connect session and start no JVM."""

import gc

import pytest


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
