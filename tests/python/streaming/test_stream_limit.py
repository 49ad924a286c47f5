"""limit(n) on a stream beside the real Spark (limit_programs.py): in append mode the count of
rows emitted so far lives in the state store (Spark's StreamingGlobalLimitExec, operator
globalLimit), so restarts go on counting; complete and update mode as Spark plans them."""

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
