"""A full disk under a streaming query: the error names the file that could not be written and
the system's reason (not INTERNAL_ERROR, not "Error writing bytes to file"), and once there is
room again a restart writes every row exactly once (DuckDB over the input is the oracle).

Each case mounts a small tmpfs (root only; skipped elsewhere) and fills it, so the writes of
one part fail: the sink's data files, or the checkpoint's logs."""

import json
import os
import subprocess
import uuid

import duckdb
import pytest

from ember.errors import StreamingQueryException
from ember.sql import SparkSession

SCHEMA = "id INT, name STRING"


@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "small"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)],
                      capture_output=True).returncode != 0:
        pytest.skip("mounting a tmpfs needs root")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)


def fill(directory):
    """Fills the file system of `directory`; returns the filler, to remove for room again."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)
    return filler


def write_input(directory, files=3):
    directory.mkdir(exist_ok=True)
    for f in range(files):
        with open(directory / f"{f}.json", "w") as out:
            for i in range(f * 10, f * 10 + 10):
                out.write(json.dumps({"id": i, "name": f"n{i}"}) + "\n")


def expected(source):
    return duckdb.sql(f"SELECT id, name FROM read_json('{source}/*.json', columns = "
                      "{'id': 'INTEGER', 'name': 'VARCHAR'}) ORDER BY id").fetchall()


def run(spark, source, checkpoint, out):
    query = (spark.readStream.schema(SCHEMA).json(str(source)).writeStream.format("parquet")
             .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True)
             .start(str(out)))
    try:
        query.processAllAvailable()
    finally:
        query.stop()
    error = query.exception()
    if error is not None:
        raise error


def written(spark, out):
    return sorted(tuple(r) for r in spark.read.parquet(str(out)).collect())


@pytest.fixture(scope="module")
def spark():
    return SparkSession.builder.getOrCreate()


def test_a_full_disk_under_the_sinks_files_names_the_file(spark, tmp_path, small_disk):
    source, checkpoint, out = tmp_path / "in", tmp_path / "cp", small_disk / "out"
    write_input(source)
    out.mkdir()
    filler = fill(small_disk)
    with pytest.raises(StreamingQueryException) as failure:
        run(spark, source, checkpoint, out)
    message = str(failure.value)
    assert "[TASK_WRITE_FAILED] Task failed while writing rows to " + str(out) in message
    assert "No space left on device (errno 28)" in message
    filler.unlink()
    run(spark, source, checkpoint, out)
    assert written(spark, out) == expected(source)


def test_a_full_disk_under_the_checkpoint_names_the_file(spark, tmp_path, small_disk):
    source, checkpoint, out = tmp_path / "in", small_disk / "cp", tmp_path / "out"
    source.mkdir()
    run(spark, source, checkpoint, out)  # no input yet: the query's metadata is written
    write_input(source)  # beside the files, not in a subfolder: Spark's listing reads no subfolders
    filler = fill(small_disk)  # the offsets of the first batch do not fit
    with pytest.raises(StreamingQueryException) as failure:
        run(spark, source, checkpoint, out)
    message = str(failure.value)
    assert "INTERNAL_ERROR" not in message
    assert f"Cannot write {checkpoint}/" in message
    assert "No space left on device (errno 28)" in message
    filler.unlink()
    run(spark, source, checkpoint, out)
    assert written(spark, out) == expected(source)


def test_a_full_disk_under_an_iceberg_table_names_the_file(tmp_path, small_disk):
    source = tmp_path / "in"
    write_input(source)
    warehouse = small_disk / "wh"
    spark = (SparkSession.builder.config("spark.sql.catalog.small", "org.apache.iceberg.spark.SparkCatalog")
             .config("spark.sql.catalog.small.type", "hadoop")
             .config("spark.sql.catalog.small.warehouse", str(warehouse)).getOrCreate())
    table = f"small.db.t{uuid.uuid4().hex[:8]}"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS small.db")
    spark.sql(f"CREATE TABLE {table} (id INT, name STRING) USING iceberg")
    filler = fill(small_disk)

    def run_into_table():
        query = (spark.readStream.schema(SCHEMA).json(str(source)).writeStream
                 .option("checkpointLocation", str(tmp_path / "cp")).trigger(availableNow=True)
                 .toTable(table))
        try:
            query.processAllAvailable()
        finally:
            query.stop()
        if query.exception() is not None:
            raise query.exception()

    with pytest.raises(StreamingQueryException) as failure:
        run_into_table()
    message = str(failure.value)
    assert "INTERNAL_ERROR" not in message and str(warehouse) in message
    assert "No space left on device (errno 28)" in message
    filler.unlink()
    run_into_table()
    rows = sorted(tuple(r) for r in spark.table(table).collect())
    assert rows == expected(source)
