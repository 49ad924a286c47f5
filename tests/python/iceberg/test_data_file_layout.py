"""The Parquet layout of Ember's Iceberg data files: a large file has several row groups, and the
manifest's column bounds still cover the whole file (DuckDB's min and max over the file's rows);
a column of mostly distinct values is written without a dictionary, a repetitive one with it
(pyarrow reads the layout)."""

import duckdb
import pyarrow.parquet as pq
import pytest

from iceberg.test_iceberg_tables import session, static_table

ROWS = 300_000  # more than two row groups of Ember's

# id: distinct; n: five values; region: few strings, NULL in the first 140,000 rows (the whole
# first two row groups); flag: a boolean; late: NULL from row 200,000 on; ts: distinct instants.
COLUMNS = [
    "id", "CAST(id % 5 AS INT) AS n",
    "CASE WHEN id < 140000 THEN NULL WHEN id % 3 = 0 THEN 'ap' WHEN id % 3 = 1 THEN 'eu' "
    "ELSE 'us' END AS region",
    "id % 7 = 0 AS flag",
    "CASE WHEN id < 200000 THEN CAST(150000 - id AS BIGINT) END AS late",
    "CAST(1704067200 + id * 1.5 AS TIMESTAMP) AS ts",
]

DECODE = {  # Iceberg's single-value serialization of each column's bound
    "id": lambda b: int.from_bytes(b, "little", signed=True),
    "n": lambda b: int.from_bytes(b, "little", signed=True),
    "late": lambda b: int.from_bytes(b, "little", signed=True),
    "region": lambda b: b.decode(),
    "flag": lambda b: bool(b[0]),
}


@pytest.fixture(scope="module")
def data_file(tmp_path_factory):
    warehouse = tmp_path_factory.mktemp("layout") / "wh"
    spark = session(warehouse)
    spark.sql("CREATE NAMESPACE local.db")
    rows = spark.range(ROWS).selectExpr(*COLUMNS)
    rows.writeTo("local.db.t").using("iceberg").create()
    table = static_table(warehouse, "db", "t")
    files = table.inspect.files().to_pylist()
    assert len(files) == 1, "one file holds the rows, so its row groups are many"
    return table, files[0]


def test_a_large_file_has_several_row_groups(data_file):
    _, f = data_file
    metadata = pq.ParquetFile(f["file_path"]).metadata
    assert metadata.num_rows == ROWS
    assert metadata.num_row_groups >= 3
    assert len(f["split_offsets"]) == metadata.num_row_groups


@pytest.mark.parametrize("column", sorted(DECODE))
def test_bounds_cover_every_row_group(data_file, column):
    table, f = data_file
    field_id = table.schema().find_field(column).field_id
    low, high = duckdb.sql(f"SELECT min({column}), max({column}) FROM read_parquet('{f['file_path']}')").fetchone()
    lower, upper = dict(f["lower_bounds"]), dict(f["upper_bounds"])
    assert DECODE[column](lower[field_id]) == low
    assert DECODE[column](upper[field_id]) == high
    nulls = duckdb.sql(f"SELECT count(*) - count({column}) FROM read_parquet('{f['file_path']}')").fetchone()[0]
    assert dict(f["null_value_counts"])[field_id] == nulls


def test_mostly_distinct_columns_have_no_dictionary(data_file):
    _, f = data_file
    metadata = pq.ParquetFile(f["file_path"]).metadata
    names = [metadata.schema.column(i).name for i in range(metadata.num_columns)]
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        dictionary = {name: group.column(i).has_dictionary_page for i, name in enumerate(names)}
        assert not dictionary["id"] and not dictionary["ts"], (g, dictionary)
        assert dictionary["n"] and dictionary["region"], (g, dictionary)


def test_the_rows_read_back_equal_duckdbs(data_file):
    table, f = data_file
    got = table.scan().to_arrow()
    assert got.num_rows == ROWS
    expected = duckdb.sql(f"SELECT sum(id), sum(n), count(region), sum(late), count(ts) "
                          f"FROM read_parquet('{f['file_path']}')").fetchone()
    assert expected == (ROWS * (ROWS - 1) // 2, sum(i % 5 for i in range(ROWS)),
                        ROWS - 140_000, sum(150_000 - i for i in range(200_000)), ROWS)
    assert duckdb.sql("SELECT sum(id), count(region) FROM got").fetchone() == (ROWS * (ROWS - 1) // 2,
                                                                               ROWS - 140_000)
