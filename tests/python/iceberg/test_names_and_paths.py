"""Names cannot escape their roots, and DROP TABLE ... PURGE deletes only what a table lists.

Ember goes beyond Spark here (docs/iceberg.md, "Names that cannot be directories"): a level of
a table's or namespace's name that would not be one directory under the catalog's warehouse
(`.`, `..`, a '/', a NUL or a control character) is INVALID_SCHEMA_OR_RELATION_NAME in both
catalogs, and a query name that would not be one directory under
spark.sql.streaming.checkpointLocation is refused. PURGE follows Iceberg's
CatalogUtil.dropTableData: the files the table's metadata lists (PyIceberg lists them here, an
oracle independent of Ember), then the directories that held them once empty."""

import json
import os
import subprocess
import sys
import textwrap

import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.table import StaticTable

from ember.errors import AnalysisException, IllegalArgumentException
from ember.sql import SparkSession

CATALOGS = ["hadoop", "jdbc"]
# Names that are not one directory level, and how the error shows each (control characters as
# \uXXXX, so that the message can be read).
BAD_NAMES = {
    ".": ".",
    "..": "..",
    "a/b": "a/b",
    "a\x00b": "a\\u0000b",
    "tab\tname": "tab\\u0009name",
    "del\x7f": "del\\u007F",
}


def configure(builder, kind, tmp_path, name="c"):
    prefix = f"spark.sql.catalog.{name}"
    warehouse = tmp_path / "root" / "wh"
    builder = (builder.config(prefix, "org.apache.iceberg.spark.SparkCatalog")
               .config(f"{prefix}.type", kind)
               .config(f"{prefix}.warehouse", str(warehouse)))
    if kind == "jdbc":
        builder = builder.config(f"{prefix}.uri", f"jdbc:sqlite:{tmp_path / 'catalog.db'}")
    return builder, warehouse


def session(kind, tmp_path):
    builder, warehouse = configure(SparkSession.builder, kind, tmp_path)
    return builder.getOrCreate(), warehouse


def tree(root):
    """Every path under `root`, relative, but the SQL catalog's database."""
    out = set()
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.relpath(os.path.join(directory, name), root)
            if not path.startswith("catalog.db"):
                out.add(path)
    return out


def condition_of(statement):
    with pytest.raises(AnalysisException) as raised:
        statement()
    return raised.value.getCondition(), str(raised.value)


@pytest.mark.parametrize("kind", CATALOGS)
def test_a_name_that_is_not_one_directory_is_refused(tmp_path, kind):
    spark, warehouse = session(kind, tmp_path)
    spark.sql("CREATE NAMESPACE c.db")
    outside = tmp_path / "outside" / "t"
    before = tree(tmp_path)
    names = dict(BAD_NAMES, **{str(outside): str(outside)})
    for name, shown in names.items():
        quoted = "`" + name.replace("`", "``") + "`"
        for statement in (f"CREATE NAMESPACE c.{quoted}",
                          f"CREATE NAMESPACE c.db.{quoted}",
                          f"CREATE TABLE c.db.{quoted} (id INT)",
                          f"CREATE TABLE c.{quoted}.t (id INT)",
                          f"CREATE TABLE c.db.{quoted} AS SELECT 1 AS id"):
            condition, message = condition_of(lambda: spark.sql(statement))
            assert condition == "INVALID_SCHEMA_OR_RELATION_NAME", (statement, message)
            assert f"`{shown}` is not a valid name for tables/schemas" in message, message
    # Nothing was written anywhere: not under the warehouse, not beside it, not at the path.
    assert tree(tmp_path) == before
    assert not (tmp_path / "outside").exists()


@pytest.mark.parametrize("kind", CATALOGS)
def test_dot_dot_namespace_and_table_cannot_purge_outside_the_warehouse(tmp_path, kind):
    spark, warehouse = session(kind, tmp_path)
    sentinel = tmp_path / "sentinel.txt"
    sentinel.write_text("keep me")
    (warehouse).mkdir(parents=True)
    for statement in ("CREATE NAMESPACE c.`..`", "CREATE TABLE c.`..`.`..` (id INT)"):
        condition, message = condition_of(lambda: spark.sql(statement))
        assert condition == "INVALID_SCHEMA_OR_RELATION_NAME", message
        assert "`..`" in message
    # The table was never made, so there is nothing to drop, and nothing outside was touched.
    condition, _ = condition_of(lambda: spark.sql("DROP TABLE c.`..`.`..` PURGE"))
    assert condition in ("INVALID_SCHEMA_OR_RELATION_NAME", "TABLE_OR_VIEW_NOT_FOUND")
    assert sentinel.read_text() == "keep me"
    assert sorted(os.listdir(tmp_path / "root")) == ["wh"]


NUL_SCRIPT = textwrap.dedent("""
    import json, sys
    sys.path[:0] = [sys.argv[3]]
    from test_names_and_paths import configure
    from ember.sql import SparkSession
    import pathlib
    builder, _ = configure(SparkSession.builder, sys.argv[1], pathlib.Path(sys.argv[2]))
    spark = builder.getOrCreate()
    spark.sql("CREATE NAMESPACE c.db")
    spark.sql("CREATE TABLE c.db.a (id INT)")
    out = {}
    for what, run in (("table", lambda: spark.table("c.db.`a\\x00b`").collect()),
                      ("create", lambda: spark.sql("CREATE TABLE c.db.`a\\x00b` (id INT)")),
                      ("insert", lambda: spark.sql("INSERT INTO c.db.`a\\x00b` VALUES (1)"))):
        try:
            run()
            out[what] = None
        except Exception as e:
            out[what] = [type(e).__name__, e.getCondition(), str(e)]
    print(json.dumps(out))
""")


@pytest.mark.parametrize("kind", CATALOGS)
def test_a_nul_in_a_table_name_is_a_clear_error_not_a_hang(tmp_path, kind):
    # In a process of its own with a timeout: the Hadoop catalog used to spin forever on stat.
    done = subprocess.run([sys.executable, "-c", NUL_SCRIPT, kind, str(tmp_path),
                           os.path.dirname(__file__)],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, TZ="UTC"))
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["create"][:2] == ["AnalysisException", "INVALID_SCHEMA_OR_RELATION_NAME"], out
    assert "a\\u0000b" in out["create"][2] and "NUL" in out["create"][2]
    # Looking a table up makes a path of its name in the Hadoop catalog only; the SQL catalog
    # looks the name up in its database, where no such table is.
    lookup = ("INVALID_SCHEMA_OR_RELATION_NAME" if kind == "hadoop" else "TABLE_OR_VIEW_NOT_FOUND")
    assert out["table"][:2] == ["AnalysisException", lookup], out
    assert out["insert"][:2] == ["AnalysisException", lookup], out


def listed_files(kind, tmp_path, warehouse):
    """Every file the table's metadata lists, as PyIceberg reads it: data files of all snapshots,
    manifests, manifest lists, the metadata log and the current metadata file."""
    if kind == "hadoop":
        metadata = warehouse / "db" / "t" / "metadata"
        version = (metadata / "version-hint.text").read_text()
        table = StaticTable.from_metadata(str(metadata / f"v{version}.metadata.json"))
    else:
        table = SqlCatalog("c", uri=f"sqlite:///{tmp_path / 'catalog.db'}",
                           warehouse=f"file://{warehouse}").load_table("db.t")
    local = lambda p: p.removeprefix("file://").removeprefix("file:")  # noqa: E731
    files = {local(table.metadata_location)}
    files |= {local(e.metadata_file) for e in table.metadata.metadata_log}
    for snapshot in table.metadata.snapshots:
        files.add(local(snapshot.manifest_list))
        for manifest in snapshot.manifests(table.io):
            files.add(local(manifest.manifest_path))
            for entry in manifest.fetch_manifest_entry(table.io, discard_deleted=False):
                files.add(local(entry.data_file.file_path))
    return files


@pytest.mark.parametrize("kind", CATALOGS)
@pytest.mark.parametrize("partitioned", [False, True])
def test_purge_deletes_only_what_the_table_lists(tmp_path, kind, partitioned):
    spark, warehouse = session(kind, tmp_path)
    spark.sql("CREATE NAMESPACE c.db")
    spark.sql("CREATE TABLE c.db.t (id INT, part STRING)" +
              (" PARTITIONED BY (part)" if partitioned else ""))
    spark.sql("INSERT INTO c.db.t VALUES (1, 'x'), (2, 'y')")
    spark.sql("INSERT INTO c.db.t VALUES (3, 'x')")
    spark.sql("INSERT OVERWRITE c.db.t SELECT * FROM c.db.t WHERE id > 1")  # removes a file
    spark.sql("CREATE TABLE c.db.other (id INT)")
    spark.sql("INSERT INTO c.db.other VALUES (9)")
    table_dir = warehouse / "db" / "t"
    listed = listed_files(kind, tmp_path, warehouse)
    assert len(listed) >= 10 and all(os.path.exists(f) for f in listed)
    # Files a user put in the table's directories, and beside the table.
    users = [table_dir / "notes.txt", table_dir / "data" / "keep.parquet",
             table_dir / "metadata" / "keep.json", warehouse / "db" / "t2" / "keep.txt",
             tmp_path / "root" / "keep.txt"]
    for f in users:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("mine")
    outside_before = {p for p in tree(tmp_path) if not p.startswith("root/wh/db/t/")}

    spark.sql("DROP TABLE c.db.t PURGE")

    assert not any(os.path.exists(f) for f in listed)
    assert all(f.read_text() == "mine" for f in users)
    # What is left in the table's directory is the user's files and the directories holding them.
    assert tree(table_dir) == {"notes.txt", "data", "data/keep.parquet", "metadata",
                               "metadata/keep.json"}
    assert {p for p in tree(tmp_path) if not p.startswith("root/wh/db/t/")} == outside_before
    assert spark.table("c.db.other").collect()[0].id == 9
    with pytest.raises(AnalysisException):
        spark.table("c.db.t")

    # Without the user's files nothing of a purged table is left, not even its directory.
    spark.sql("DROP TABLE c.db.other PURGE")
    assert not (warehouse / "db" / "other").exists()


@pytest.mark.parametrize("name", ["..", "../escaped", "<absolute>", "a/b", "a\x00b"])
def test_a_query_name_cannot_take_its_checkpoint_out_of_the_root(tmp_path, name):
    if name == "<absolute>":
        name = str(tmp_path / "absolute")  # Spark's new Path(root, name) would take it as is
    spark = SparkSession.builder.getOrCreate()
    root = tmp_path / "root" / "checkpoints"
    root.mkdir(parents=True)
    source = tmp_path / "in"
    source.mkdir()
    (source / "1.json").write_text('{"id": 1}\n')
    spark.conf.set("spark.sql.streaming.checkpointLocation", str(root))
    try:
        stream = spark.readStream.schema("id INT").json(str(source))
        with pytest.raises(IllegalArgumentException) as raised:
            stream.writeStream.format("memory").queryName(name).start()
        assert "checkpointLocation" in str(raised.value)
        assert sorted(os.listdir(tmp_path)) == ["in", "root"]
        assert os.listdir(root) == []
        # A plain name takes a directory of its own under the root, as in Spark.
        query = stream.writeStream.format("memory").queryName("plain").start()
        query.processAllAvailable()
        query.stop()
        assert os.listdir(root) == ["plain"]
    finally:
        spark.conf.unset("spark.sql.streaming.checkpointLocation")


SPARK_PARTITION_WRITER = textwrap.dedent("""
    import json, os, sys
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
             .getOrCreate())
    columns, out = json.loads(sys.argv[1]), sys.argv[2]
    for i, column in enumerate(columns):
        df = spark.createDataFrame([(1, "v/1"), (2, "..")], ["id", column])
        df.write.partitionBy(column).parquet(os.path.join(out, str(i)))
""")


def partition_directories(root):
    """The directories under `root`, relative: where the partition values went."""
    return sorted(os.path.relpath(os.path.join(d, n), root)
                  for d, dirs, _ in os.walk(root) for n in dirs)


def test_partition_directories_escape_column_names_as_spark(tmp_path):
    """A partition column's name is escaped in its directory as Spark's escapePathName escapes it
    (Ember escaped only the values: a column named `../up` wrote above the output path)."""
    from iceberg.test_iceberg_tables import spark_available
    if not spark_available():
        pytest.skip("the real Spark is the oracle")
    columns = ["a/b", "../up", "x=y", "tab\tcol"]
    spark_out, ember_out = tmp_path / "spark", tmp_path / "ember" / "out"
    done = subprocess.run([sys.executable, "-c", SPARK_PARTITION_WRITER, json.dumps(columns),
                           str(spark_out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    spark = SparkSession.builder.getOrCreate()
    for i, column in enumerate(columns):
        df = spark.createDataFrame([(1, "v/1"), (2, "..")], ["id", column])
        df.write.partitionBy(column).parquet(str(ember_out / str(i)))
    assert os.listdir(tmp_path / "ember") == ["out"]
    for i in range(len(columns)):
        assert partition_directories(ember_out / str(i)) == partition_directories(spark_out / str(i))


def test_purge_deletes_the_statistics_files_the_table_lists(tmp_path):
    """A statistics file another writer recorded (PyIceberg here) is carried over by Ember's
    commits, as Java carries it, and deleted by PURGE with the rest (Iceberg 1.10's rule)."""
    from pyiceberg.table.statistics import StatisticsFile
    spark, warehouse = session("jdbc", tmp_path)
    spark.sql("CREATE NAMESPACE c.db")
    spark.sql("CREATE TABLE c.db.t (id INT)")
    spark.sql("INSERT INTO c.db.t VALUES (1)")
    catalog = SqlCatalog("c", uri=f"sqlite:///{tmp_path / 'catalog.db'}",
                         warehouse=f"file://{warehouse}")
    table = catalog.load_table("db.t")
    stats = warehouse / "db" / "t" / "metadata" / "stats-1.puffin"
    stats.write_bytes(b"PFA1" + b"\0" * 16)
    snapshot_id = table.metadata.current_snapshot_id
    with table.update_statistics() as update:
        update.set_statistics(StatisticsFile(
            snapshot_id=snapshot_id, statistics_path=str(stats), file_size_in_bytes=20,
            file_footer_size_in_bytes=12, blob_metadata=[]))
    spark.sql("INSERT INTO c.db.t VALUES (2)")
    carried = catalog.load_table("db.t").metadata.statistics
    assert [(s.snapshot_id, s.statistics_path) for s in carried] == [(snapshot_id, str(stats))]

    spark.sql("DROP TABLE c.db.t PURGE")
    assert not stats.exists()
    assert not (warehouse / "db" / "t").exists()
