"""A file stream over a directory with subdirectories reads what Spark 4.0.1 reads
(listing_programs.py): without partition directories only the path's own files (Spark's
InMemoryFileIndex.allFiles; its test_streaming_foreach_batch_tempview reads 2 rows of
python/test_support/sql/streaming), every file with recursiveFileLookup, the files of partition
directories when there are some, and CONFLICTING_DIRECTORY_STRUCTURES for a mix."""

import pytest

from ember.sql import SparkSession

from .oracle import document, needs_spark


def test_spark_streaming_test_support_layout_reads_the_top_files_only(tmp_path):
    ember = document("listing_programs", "layouts", "ember", tmp_path)
    assert ember["plain"] == ["t1", "t2"]


@needs_spark
def test_layouts_read_what_spark_reads(tmp_path):
    spark = document("listing_programs", "layouts", "spark", tmp_path / "spark")
    ember = document("listing_programs", "layouts", "ember", tmp_path / "ember")
    assert spark["plain"] == ["t1", "t2"]
    assert ember == spark


@pytest.mark.parametrize("spelling", ["absolute/", "relative", "relative/"])
def test_a_partitioned_path_reads_alike_however_it_is_spelt(tmp_path, monkeypatch, spelling):
    """The partition walk stops at the path itself, with or without a trailing slash, relative
    or not: no conflict is seen between the path and its partition directories."""
    for value in (1, 2):
        (tmp_path / "root" / f"p={value}").mkdir(parents=True)
        (tmp_path / "root" / f"p={value}" / "a.txt").write_text(f"p{value}\n")
    (tmp_path / "root" / "top.txt").write_text("top\n")
    monkeypatch.chdir(tmp_path)
    path = str(tmp_path / "root") + "/" if spelling == "absolute/" else "root" + spelling[8:]
    spark = SparkSession.builder.getOrCreate()
    rows = []
    query = (spark.readStream.text(path).writeStream
             .foreachBatch(lambda df, batch_id: rows.extend(r.value for r in df.collect()))
             .option("checkpointLocation", str(tmp_path / "cp")).trigger(availableNow=True).start())
    query.awaitTermination()
    assert sorted(rows) == ["p1", "p2"]
