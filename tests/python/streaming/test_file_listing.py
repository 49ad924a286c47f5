"""A file stream over a directory with subdirectories reads what Spark 4.0.1 reads
(listing_programs.py): without partition directories only the path's own files (Spark's
InMemoryFileIndex.allFiles; its test_streaming_foreach_batch_tempview reads 2 rows of
python/test_support/sql/streaming), every file with recursiveFileLookup, the files of partition
directories when there are some, and CONFLICTING_DIRECTORY_STRUCTURES for a mix."""

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
