"""Progress's sink entry beside the real Spark (sink_programs.py): each sink's `description` is
Spark's (JVM hashes compared by shape), `metrics` is {} and `sources[].metrics` too, and
`numOutputRows` is -1 for Spark's V1 sinks (foreachBatch, files)."""

from .oracle import document, needs_spark


@needs_spark
def test_each_sinks_description_is_sparks(tmp_path):
    spark = document("sink_programs", "sinks", "spark", tmp_path / "spark")
    ember = document("sink_programs", "sinks", "ember", tmp_path / "ember")
    assert spark["memory"]["description"] == "MemorySink"
    assert spark["parquet"]["description"] == "FileSink[file:<workdir>/out/p]"
    assert spark["foreachBatch"]["numOutputRows"] == -1 and spark["memory"]["numOutputRows"] == 3
    assert ember == spark
