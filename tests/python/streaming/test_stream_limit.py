"""limit(n) on a stream beside the real Spark (limit_programs.py): in append mode the count of
rows emitted so far lives in the state store (Spark's StreamingGlobalLimitExec, operator
globalLimit), so restarts go on counting; complete and update mode as Spark plans them."""

import os

import pytest

from ember.errors import StreamingQueryException
from ember.sql import SparkSession

from .oracle import document, needs_spark


@needs_spark
def test_append_limit_counts_across_batches_and_restarts(tmp_path):
    spark = document("limit_programs", "append", "spark", tmp_path / "spark")
    ember = document("limit_programs", "append", "ember", tmp_path / "ember")
    # One file a batch: Spark's order within a batch is the file's.
    assert spark["batches"] == {"0": [0, 1, 2], "1": [10, 11], "2": [], "3": []}
    assert ember == spark


@needs_spark
def test_limit_in_complete_and_update_mode(tmp_path):
    spark = document("limit_programs", "modes", "spark", tmp_path / "spark")
    ember = document("limit_programs", "modes", "ember", tmp_path / "ember")
    assert spark["below"]["rows"] == [[4]]
    assert ember == spark


def test_a_limit_whose_state_was_lost_is_refused(tmp_path):
    """The count is state like any other: a restart without its delta file fails naming it,
    never starting to count from 0 again."""
    spark = SparkSession.builder.getOrCreate()
    data, checkpoint = tmp_path / "in", tmp_path / "cp"
    data.mkdir()
    (data / "a.json").write_text('{"k": 1}\n{"k": 2}\n')

    def run():
        query = (spark.readStream.schema("k INT").json(str(data)).limit(3).writeStream
                 .format("noop").option("checkpointLocation", str(checkpoint))
                 .trigger(availableNow=True).start())
        query.awaitTermination()
        return query

    assert run().lastProgress["stateOperators"][0]["operatorName"] == "globalLimit"
    (data / "b.json").write_text('{"k": 3}\n')
    os.remove(checkpoint / "state" / "0" / "0" / "1.delta")
    with pytest.raises(StreamingQueryException, match="CANNOT_LOAD_STATE_STORE.*1.delta"):
        run()
