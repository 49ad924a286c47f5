"""Differential tests of the batch DataFrame and SQL API.

Each query in queries.py runs as a PySpark program on the engine under test (the real Spark, or
Ember) and as SQL on DuckDB over the same files; the answers must be equal. When Spark ran first in
the same pytest session, Ember's column names and types must also equal Spark's.

Values are compared after normalizing: rows become tuples, structs (Row or dict) become tuples,
zoned datetimes become naive UTC; floats match within a relative 1e-9, and a Decimal may match a
float within the same tolerance (DuckDB answers some decimal averages with doubles). Otherwise
the kinds must agree: an int is not a float, a bool is not an int, a date is not a datetime.
"""

import datetime as dt
import math
from decimal import Decimal

import pyarrow.parquet as pq
import pytest

from . import data
from .queries import QUERIES

REL_TOL = 1e-9
ABS_TOL = 1e-12
UTC = dt.timezone.utc


def normalize(value):
    if isinstance(value, dict):  # a DuckDB struct
        return tuple(normalize(v) for v in value.values())
    if isinstance(value, (tuple, list)):  # a row, a pyspark Row (struct), or an array
        return tuple(normalize(v) for v in value)
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value


def rows_of(result) -> list:
    """The rows of a DataFrame (collected) or of an action's answer, normalized."""
    rows = result.collect() if hasattr(result, "collect") else result
    return [normalize(tuple(row)) for row in rows]


def same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(same(x, y) for x, y in zip(a, b)))
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, float) or isinstance(b, float):
        if not (isinstance(a, (float, Decimal)) and isinstance(b, (float, Decimal))):
            return False
        return math.isclose(float(a), float(b), rel_tol=REL_TOL, abs_tol=ABS_TOL)
    return type(a) is type(b) and a == b


def sort_key(value):
    """A total order over one column's values: None first, tuples element by element."""
    if value is None:
        return (0,)
    if isinstance(value, tuple):
        return (1, tuple(sort_key(v) for v in value))
    return (1, value)


def assert_same_rows(actual: list, expected: list, ordered: bool, engine: str) -> None:
    if not ordered:
        actual = sorted(actual, key=sort_key)
        expected = sorted(expected, key=sort_key)
    differing = [i for i, (a, e) in enumerate(zip(actual, expected)) if not same(a, e)]
    if len(actual) == len(expected) and not differing:
        return
    lines = [f"{engine} returned {len(actual)} rows, DuckDB {len(expected)}"
             f" ({'in order' if ordered else 'sorted'}); {len(differing)} differ in the overlap"]
    for i in differing[:5]:
        lines.append(f"  row {i}:\n    {engine}: {actual[i]!r}\n    duckdb: {expected[i]!r}")
    if len(actual) != len(expected):
        n = min(len(actual), len(expected))
        lines.append(f"  next rows: {engine} {actual[n:n + 3]!r}, duckdb {expected[n:n + 3]!r}")
    pytest.fail("\n".join(lines), pytrace=False)


def check_schema_against_spark(engine, query, result) -> None:
    """Spark records its columns; Ember must show the same names and types."""
    if not hasattr(result, "dtypes"):
        return
    columns = [tuple(c) for c in result.dtypes]
    if engine.name == "spark":
        engine.schemas[query.name] = columns
    elif query.name in engine.schemas:
        assert columns == engine.schemas[query.name], "columns differ from Spark's"


# Features Ember does not have yet (docs/compatibility.md). Strict: a fix makes these fail until
# the entry is removed here and there.
EMBER_GAPS = {
    "q_sql_cte_subquery": "SQL subquery expressions (IN (SELECT ...))",
}


@pytest.mark.parametrize("query", QUERIES, ids=[q.name for q in QUERIES])
def test_query(engine, duckdb_oracle, query, request):
    if engine.name == "ember" and query.name in EMBER_GAPS:
        request.applymarker(pytest.mark.xfail(strict=True, reason=EMBER_GAPS[query.name]))
    expected = [normalize(tuple(row)) for row in duckdb_oracle.answer(query)]
    engine.set_time_zone(query.tz)
    try:
        result = query.build(engine.spark, engine.F)
        actual = rows_of(result)
    finally:
        engine.set_time_zone("UTC")
    assert_same_rows(actual, expected, query.ordered, engine.name)
    check_schema_against_spark(engine, query, result)


def test_queries_are_enough_and_named_once():
    names = [q.name for q in QUERIES]
    assert len(names) >= 40
    assert len(set(names)) == len(names)
    assert not any("spark" in n or "ember" in n for n in names), "names select engines with -k"


def test_data_has_what_the_suite_needs(dataset):
    """Row count, nulls in every nullable column, every type, times before 1970 and on both
    sides of each New York DST change."""
    table = pq.read_table(dataset.events_parquet)
    assert table.num_rows == dataset.rows >= 1000
    assert table.schema == data.EVENTS_ARROW
    for name in table.column_names:
        assert table[name].null_count > 0 or name == "id", name
    times = [t for t in table["ts"].to_pylist() if t is not None]
    assert any(t.year < 1970 for t in times)
    for change in (data.SPRING_CHANGE, data.FALL_CHANGE):
        hour = dt.timedelta(hours=1)
        assert any(change - hour <= t < change for t in times)
        assert any(change <= t < change + hour for t in times)
    walls = set(table["ts_text"].to_pylist())
    assert any(w and w.startswith("2021-03-14 02:") for w in walls), "no time in the DST gap"
    assert any(w and w.startswith("2021-11-07 01:") for w in walls), "no time in the DST overlap"
