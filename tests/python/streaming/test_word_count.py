"""The streaming guide's word counts (word_count_programs.py) on Ember and on Apache Spark, each
in a process of its own: the console sink's output byte for byte, or every micro-batch's rows.
Without Spark (no pyspark or java, or EMBER_TEST_SPARK=0) these tests are skipped."""

import pytest

from differential.conftest import spark_enabled
from streaming.test_sources import document, output

pytestmark = pytest.mark.skipif(not spark_enabled()[0], reason=f"Spark is off: {spark_enabled()[1]}")

PROGRAMS = "word_count_programs.py"


def test_file_word_count_console_is_sparks(tmp_path):
    out = {engine: output("file_console", engine, tmp_path / engine, programs=PROGRAMS)
           for engine in ("spark", "ember")}
    assert out["spark"].count(b"Batch: ") == 3
    assert out["ember"] == out["spark"]


@pytest.mark.parametrize("program", ["file_modes", "socket_word_count", "rate_explode"])
def test_word_counts_equal_sparks(tmp_path, program):
    spark = document(program, "spark", tmp_path / "spark", programs=PROGRAMS)
    ember = document(program, "ember", tmp_path / "ember", programs=PROGRAMS)
    assert spark
    assert ember == spark
