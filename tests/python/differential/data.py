"""Deterministic test data for the differential suite.

Two tables are written into a directory:

- ``events``: the main table (default 100,000 rows, ``EMBER_DIFF_ROWS`` overrides), one column of
  every Spark type, about 5% nulls in each nullable column, timestamps before 1970 and around both
  2021 daylight-saving changes of America/New_York. Written as Parquet and as JSON lines.
- ``dim``: a small table for joins, with null keys, duplicate keys, and keys that ``events`` lacks
  (and the other way round). Written as JSON lines.

Everything derives from a seeded ``random.Random``, so every run sees the same rows.
"""

import datetime as dt
import json
import os
import random
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

DEFAULT_ROWS = 100_000
SEED = 20240314

# Spark DDL of the tables; the DuckDB column types below say the same thing in DuckDB's words.
EVENTS_DDL = (
    "id BIGINT, i INT, l BIGINT, s SMALLINT, b TINYINT, d DOUBLE, f FLOAT, name STRING, "
    "cat STRING, flag BOOLEAN, dt DATE, ts TIMESTAMP, tsn TIMESTAMP_NTZ, dec DECIMAL(12,2), "
    "k INT, ts_text STRING, day_text STRING, epoch BIGINT"
)
DIM_DDL = "k INT, label STRING, weight DOUBLE, since DATE"

EVENTS_DUCKDB_COLUMNS = {
    "id": "BIGINT", "i": "INTEGER", "l": "BIGINT", "s": "SMALLINT", "b": "TINYINT",
    "d": "DOUBLE", "f": "FLOAT", "name": "VARCHAR", "cat": "VARCHAR", "flag": "BOOLEAN",
    "dt": "DATE", "ts": "TIMESTAMPTZ", "tsn": "TIMESTAMP", "dec": "DECIMAL(12,2)",
    "k": "INTEGER", "ts_text": "VARCHAR", "day_text": "VARCHAR", "epoch": "BIGINT",
}
DIM_DUCKDB_COLUMNS = {"k": "INTEGER", "label": "VARCHAR", "weight": "DOUBLE", "since": "DATE"}

EVENTS_ARROW = pa.schema([
    ("id", pa.int64()), ("i", pa.int32()), ("l", pa.int64()), ("s", pa.int16()),
    ("b", pa.int8()), ("d", pa.float64()), ("f", pa.float32()), ("name", pa.string()),
    ("cat", pa.string()), ("flag", pa.bool_()), ("dt", pa.date32()),
    ("ts", pa.timestamp("us", tz="UTC")), ("tsn", pa.timestamp("us")),
    ("dec", pa.decimal128(12, 2)), ("k", pa.int32()), ("ts_text", pa.string()),
    ("day_text", pa.string()), ("epoch", pa.int64()),
])

# Words for the string columns: ASCII, accents, CJK, the empty string, padding, LIKE wildcards.
WORDS = [
    "alpha", "Beta", "gamma", "DELTA", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
    "banana", "bandana", "cabana", "anaconda", "café", "naïve", "über", "日本語", "señor",
    "", " padded ", "a_b", "100%", "O'Brien", "mixed Case", "x",
]
CATEGORIES = ["a", "b", "c", "d", "e", "f", "g"]

UTC = dt.timezone.utc
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
NAIVE_EPOCH = dt.datetime(1970, 1, 1)
# Instants (UTC) of the 2021 changes of America/New_York.
SPRING_CHANGE = dt.datetime(2021, 3, 14, 7, tzinfo=UTC)
FALL_CHANGE = dt.datetime(2021, 11, 7, 6, tzinfo=UTC)
# Wall-clock times (no zone) inside New York's gap (02:00-03:00) and overlap (01:00-02:00).
SPRING_WALL = dt.datetime(2021, 3, 14, 2, 30)
FALL_WALL = dt.datetime(2021, 11, 7, 1, 30)

# Times are generated as integer microseconds since the epoch, which is fast.
SECOND = 1_000_000
HOUR = 3600 * SECOND
DAY = 24 * HOUR
YEAR = 365 * DAY


@dataclass(frozen=True)
class Dataset:
    """Where the generated files are, and how many rows ``events`` has."""

    directory: Path
    rows: int

    @property
    def events_parquet(self) -> str:
        return str(self.directory / "events.parquet")

    @property
    def events_json(self) -> str:
        return str(self.directory / "events.jsonl")

    @property
    def dim_json(self) -> str:
        return str(self.directory / "dim.jsonl")


def row_count() -> int:
    """Rows of ``events``: ``EMBER_DIFF_ROWS`` if set, else 100,000."""
    rows = int(os.environ.get("EMBER_DIFF_ROWS", DEFAULT_ROWS))
    if rows < 1000:
        raise ValueError("EMBER_DIFF_ROWS must be at least 1000 so that every query has data")
    return rows


def _micros(t: dt.datetime) -> int:
    """Microseconds since the epoch; a naive datetime counts as UTC."""
    delta = t.replace(tzinfo=UTC) - EPOCH
    return (delta.days * 86_400 + delta.seconds) * SECOND + delta.microseconds


# The same moments as microseconds (wall times as if they were UTC).
SPRING_CHANGE_US, FALL_CHANGE_US = _micros(SPRING_CHANGE), _micros(FALL_CHANGE)
SPRING_WALL_US, FALL_WALL_US = _micros(SPRING_WALL), _micros(FALL_WALL)


def _wall(micros: int) -> dt.datetime:
    """Microseconds since 1970-01-01 00:00 as a naive datetime (UTC, or a wall clock)."""
    return NAIVE_EPOCH + dt.timedelta(microseconds=micros)


def _maybe(rng: random.Random, value, null_rate=0.05):
    return None if rng.random() < null_rate else value


def _instant(rng: random.Random) -> int:
    """Microseconds of a UTC instant: near a DST change, near or before 1970, or in 1925-2035."""
    pick = rng.random()
    if pick < 0.25:
        whole = SPRING_CHANGE_US + rng.randrange(-6 * HOUR, 6 * HOUR, SECOND)
    elif pick < 0.45:
        whole = FALL_CHANGE_US + rng.randrange(-6 * HOUR, 6 * HOUR, SECOND)
    elif pick < 0.55:
        whole = rng.randrange(-2 * DAY, DAY, SECOND)  # 1969-12-30 .. 1970-01-02
    elif pick < 0.75:
        whole = rng.randrange(-45 * YEAR, 0, SECOND)  # 1925 .. 1969
    else:
        whole = rng.randrange(0, 65 * YEAR, SECOND)  # 1970 .. 2035
    fraction = rng.choice((0, 0, rng.randrange(SECOND), rng.randrange(1000) * 1000))
    return whole + fraction


def _wall_time(rng: random.Random) -> int:
    """Microseconds of a wall-clock time (no zone), often in New York's DST gap or overlap."""
    pick = rng.random()
    if pick < 0.2:
        return SPRING_WALL_US + rng.randrange(-90 * 60, 90 * 60) * SECOND
    if pick < 0.4:
        return FALL_WALL_US + rng.randrange(-90 * 60, 90 * 60) * SECOND
    return _instant(rng) // SECOND * SECOND


def _events_columns(rows: int) -> dict:
    rng = random.Random(SEED)
    first_day = dt.date(1930, 1, 1).toordinal()
    first_text_day = dt.date(1940, 1, 1).toordinal()
    columns = {name: [] for name in EVENTS_ARROW.names}
    for row_id in range(rows):
        wall = _maybe(rng, _wall_time(rng))
        values = (  # in the order of EVENTS_ARROW's columns
            row_id,
            _maybe(rng, rng.randint(-1000, 1000)),
            _maybe(rng, rng.randint(-10**12, 10**12)),
            _maybe(rng, rng.randint(-300, 300)),
            _maybe(rng, rng.randint(-100, 100)),
            _maybe(rng, round(rng.uniform(-50.0, 1000.0), 3)),
            _maybe(rng, round(rng.uniform(-100.0, 100.0), 2)),
            _maybe(rng, rng.choice(WORDS) + rng.choice(("", "", str(rng.randrange(100))))),
            _maybe(rng, rng.choice(CATEGORIES)),
            _maybe(rng, rng.random() < 0.4),
            _maybe(rng, dt.date.fromordinal(first_day + rng.randrange(100 * 365))),
            _maybe(rng, _instant(rng)),
            _maybe(rng, _wall_time(rng) + rng.randrange(SECOND)),
            _maybe(rng, Decimal(rng.randint(-10**9, 10**9)).scaleb(-2)),
            _maybe(rng, rng.randrange(60)),
            None if wall is None else _wall(wall).isoformat(sep=" "),
            _maybe(rng, dt.date.fromordinal(first_text_day + rng.randrange(90 * 365)).isoformat()),
            _maybe(rng, rng.randint(-1_500_000_000, 2_000_000_000)),
        )
        for column, value in zip(columns.values(), values):
            column.append(value)
    return columns


def _dim_columns() -> dict:
    """61 rows: keys 0..44 (some twice or three times), 60..64 (absent from events), nulls."""
    rng = random.Random(SEED + 1)
    keys = list(range(45)) + [3, 3, 7, 11, 11, 11, 20, 33] + list(range(60, 65)) + [None] * 3
    rng.shuffle(keys)
    first_day = dt.date(1960, 1, 1).toordinal()
    return {
        "k": keys,
        "label": [_maybe(rng, f"{rng.choice(WORDS[:14])}-{rng.randrange(10)}", 0.1) for _ in keys],
        "weight": [_maybe(rng, round(rng.uniform(0.0, 1000.0), 2), 0.1) for _ in keys],
        "since": [_maybe(rng, dt.date.fromordinal(first_day + rng.randrange(70 * 365)), 0.1)
                  for _ in keys],
    }


def _json_texts(name: str, values: list) -> list:
    """The column's values as JSON texts that Spark's and DuckDB's readers both accept."""
    if name == "ts":
        convert = lambda v: '"' + _wall(v).isoformat(timespec="microseconds") + 'Z"'
    elif name == "tsn":
        convert = lambda v: '"' + _wall(v).isoformat(timespec="microseconds") + '"'
    elif name in ("dt", "since"):
        convert = lambda v: '"' + v.isoformat() + '"'
    elif name == "dec":
        convert = str  # a JSON number with exactly two decimals
    elif name == "flag":
        convert = lambda v: "true" if v else "false"
    elif name in ("d", "f", "weight"):
        convert = repr
    elif isinstance(next((v for v in values if v is not None), 0), str):
        convert = lambda v: json.dumps(v, ensure_ascii=False)
    else:
        convert = str
    return [None if v is None else convert(v) for v in values]


def _write_json_lines(path: str, columns: dict) -> None:
    """One JSON object per row. A null is written as null on odd rows and left out on even
    rows: readers must treat a missing key as null."""
    keys = ['"' + name + '": ' for name in columns]
    texts = [_json_texts(name, values) for name, values in columns.items()]
    with open(path, "w", encoding="utf-8") as out:
        for r, row in enumerate(zip(*texts)):
            null = "null" if r % 2 else None
            fields = [key + (text or null) for key, text in zip(keys, row) if text or null]
            out.write("{" + ", ".join(fields) + "}\n")


def generate(directory, rows: int | None = None) -> Dataset:
    """Writes the tables into ``directory`` and returns where they are."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    rows = row_count() if rows is None else rows
    data = Dataset(directory, rows)

    events = _events_columns(rows)
    table = pa.Table.from_pydict(events, schema=EVENTS_ARROW)
    # Several row groups, so that readers see more than one chunk.
    pq.write_table(table, data.events_parquet, row_group_size=max(rows // 4, 1))
    _write_json_lines(data.events_json, events)
    _write_json_lines(data.dim_json, _dim_columns())
    return data
