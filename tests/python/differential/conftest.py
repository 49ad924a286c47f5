"""Fixtures of the differential suite: the data, DuckDB (the oracle), and the engines under test.

Running it:

    pytest tests/python/differential                 both engines (Spark if pyspark imports)
    pytest tests/python/differential -k spark        the real Spark only (marker `spark`)
    pytest tests/python/differential -k ember        Ember only
    EMBER_TEST_SPARK=0 pytest ...                     never start Spark
    EMBER_DIFF_ROWS=3000 EMBER_BATCH_SIZE=3 pytest tests/python/differential -k ember
                                                      Ember with 3-row Arrow batches on fewer rows

PySpark's collect() turns timestamps into naive datetimes in the process's local time zone, so
this module sets TZ=UTC for the whole test process before any engine starts; the JVM inherits it.
"""

import importlib.util
import os
import shutil
import time
from dataclasses import dataclass

import pytest

from . import data, queries

os.environ["TZ"] = "UTC"
time.tzset()


def pytest_configure(config):
    config.addinivalue_line("markers", "spark: runs the real Apache Spark (pyspark and a JVM)")


def spark_enabled() -> tuple[bool, str]:
    """Spark runs when pyspark imports and java exists, unless EMBER_TEST_SPARK=0."""
    if os.environ.get("EMBER_TEST_SPARK", "1").strip().lower() in ("0", "false", "no", "off"):
        return False, "EMBER_TEST_SPARK=0"
    if importlib.util.find_spec("pyspark") is None:
        return False, "pyspark is not installed"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return False, "no java on PATH and no JAVA_HOME"
    return True, ""


@dataclass
class Engine:
    """A session of one engine with the suite's tables registered as temporary views."""

    name: str
    spark: object  # a SparkSession of pyspark or of Ember
    F: object  # its functions module
    schemas: dict  # Spark's columns per query, to check Ember's against

    def set_time_zone(self, tz: str) -> None:
        self.spark.conf.set("spark.sql.session.timeZone", tz)


def register_views(spark, dataset: data.Dataset) -> None:
    """Reads each file once with an explicit schema and names it, in the PySpark way."""
    read = spark.read
    read.schema(data.EVENTS_DDL).parquet(dataset.events_parquet).createOrReplaceTempView("events")
    read.schema(data.EVENTS_DDL).json(dataset.events_json).createOrReplaceTempView("events_json")
    read.schema(data.DIM_DDL).json(dataset.dim_json).createOrReplaceTempView("dim")


def start_session(SparkSession):
    """The same builder calls for both engines."""
    return (
        SparkSession.builder.master("local[2]")
        .appName("ember-differential")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
        .getOrCreate()
    )


def import_engine(name: str):
    """(SparkSession class, functions module) of the engine, or a skip saying why not."""
    if name == "spark":
        ok, reason = spark_enabled()
        if not ok:
            pytest.skip(f"Spark is off: {reason}")
        from pyspark.sql import SparkSession
        from pyspark.sql import functions
    else:
        try:
            from ember.sql import SparkSession
            from ember.sql import functions
        except ImportError as error:
            pytest.skip(f"ember.sql cannot be imported yet ({error}); build and install Ember")
    return SparkSession, functions


@pytest.fixture(scope="session")
def dataset(tmp_path_factory) -> data.Dataset:
    return data.generate(tmp_path_factory.mktemp("differential-data"))


@pytest.fixture(scope="session")
def spark_schemas() -> dict:
    """Spark's (name, type) columns per query, filled by the Spark run, read by the Ember run."""
    return {}


@pytest.fixture(
    scope="session",
    params=[pytest.param("spark", marks=pytest.mark.spark), "ember"],
)
def engine(request, spark_schemas):
    """The engine under test: one session for the whole run, with the tables registered."""
    SparkSession, functions = import_engine(request.param)  # skips before making any data
    spark = start_session(SparkSession)
    if request.param == "spark":
        spark.sparkContext.setLogLevel("ERROR")
    register_views(spark, request.getfixturevalue("dataset"))
    yield Engine(request.param, spark, functions, spark_schemas)
    spark.stop()


class SparkAnswers:
    """Spark's answers per case, recorded by the Spark run and compared by the Ember run (the
    `engine` fixture runs Spark first)."""

    def __init__(self):
        self.answers = {}

    def check(self, engine, key: str, value, compare=None) -> None:
        """Records Spark's `value`, or checks Ember's against it (with `compare` if given)."""
        if engine.name == "spark":
            self.answers[key] = value
            return
        if key not in self.answers:
            pytest.skip(f"Spark's run of {key!r} did not happen in this session")
        if compare is None:
            assert value == self.answers[key], f"{key}: Ember's answers differ from Spark's"
        else:
            compare(value, self.answers[key])


@pytest.fixture(scope="session")
def spark_answers() -> SparkAnswers:
    return SparkAnswers()


class DuckDBOracle:
    """DuckDB over the same files, remembering each query's answer."""

    def __init__(self, dataset: data.Dataset):
        import duckdb

        self.connection = duckdb.connect()
        self.connection.execute("SET threads TO 2")
        self.connection.execute("SET TimeZone = 'UTC'")
        self._answers = {}
        events_columns = _duckdb_struct(data.EVENTS_DUCKDB_COLUMNS)
        self.connection.execute(
            f"CREATE TABLE events AS SELECT * FROM read_parquet('{dataset.events_parquet}')"
        )
        self.connection.execute(
            f"CREATE TABLE events_json AS SELECT * FROM read_json('{dataset.events_json}', "
            f"format = 'newline_delimited', columns = {events_columns})"
        )
        self.connection.execute(
            f"CREATE TABLE dim AS SELECT * FROM read_json('{dataset.dim_json}', "
            f"format = 'newline_delimited', columns = {_duckdb_struct(data.DIM_DUCKDB_COLUMNS)})"
        )
        for macro in queries.DUCKDB_MACROS:
            self.connection.execute(macro)

    def answer(self, query: queries.Query) -> list:
        if query.name not in self._answers:
            self.connection.execute(f"SET TimeZone = '{query.tz}'")
            self._answers[query.name] = self.connection.execute(query.duckdb).fetchall()
        return self._answers[query.name]


def _duckdb_struct(columns: dict) -> str:
    return "{" + ", ".join(f"'{name}': '{kind}'" for name, kind in columns.items()) + "}"


@pytest.fixture(scope="session")
def duckdb_oracle(dataset) -> DuckDBOracle:
    return DuckDBOracle(dataset)
