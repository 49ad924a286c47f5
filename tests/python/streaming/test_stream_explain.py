"""explain() on streaming DataFrames and queries beside the real Spark (explain_programs.py),
compared loosely: the same stateful operators, limits, filters and sources in the same order
(Spark's exchanges, code-generation stages and partial aggregations are its own)."""

import re

from .oracle import document, needs_spark

OPERATORS = {"StreamingGlobalLimit", "LocalLimit", "GlobalLimit", "StateStoreSave", "StateStoreRestore",
             "StreamingDeduplicate", "StreamingDeduplicateWithinWatermark", "StreamingSymmetricHashJoin",
             "EventTimeWatermark", "Filter", "StreamingRelation", "FileScan"}


def outline(text):
    """The first line, then the names of the operators above, top down."""
    lines = text.strip().split("\n")
    names = []
    for line in lines[1:]:
        name = re.sub(r"^[\s+:|-]*(\*\(\d+\) )?", "", line).split(" ")[0].split("(")[0]
        if name in OPERATORS:
            names.append(name)
    return [lines[0]] + names


@needs_spark
def test_explain_shows_sparks_streaming_operators(tmp_path):
    spark = document("explain_programs", "plans", "spark", tmp_path / "spark")
    ember = document("explain_programs", "plans", "ember", tmp_path / "ember")
    assert outline(spark["limit"]) == ["== Physical Plan ==", "StreamingGlobalLimit", "LocalLimit",
                                       "Filter", "StreamingRelation"]
    for name in spark:
        assert outline(ember[name]) == outline(spark[name]), (name, ember[name], spark[name])
