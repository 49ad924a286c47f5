"""pyspark.sql.functions on Ember: each function names a function of the C++ catalog."""

from __future__ import annotations

from ember import _core
from ember.sql.column import Column, _call, _lit, _to_col

TYPE_CHECKING = False  # typing costs milliseconds at start-up
if TYPE_CHECKING:
    from typing import Any, Optional

__all__ = [
    "col", "column", "lit", "expr", "when", "coalesce", "isnull", "isnan", "count", "sum", "avg",
    "mean", "min", "max", "countDistinct", "count_distinct", "approx_count_distinct", "first",
    "last", "any_value", "concat", "upper", "lower", "length", "substring", "trim", "ltrim",
    "rtrim", "reverse", "to_timestamp", "to_date", "date_trunc", "current_timestamp", "year",
    "month", "quarter", "dayofmonth", "dayofyear", "hour", "minute", "second", "from_unixtime",
    "unix_timestamp", "window", "session_window", "window_time", "struct", "abs", "asc", "desc", "asc_nulls_first",
    "asc_nulls_last", "desc_nulls_first", "desc_nulls_last", "sum_distinct", "round",
    "concat_ws", "dayofweek", "date_add", "date_sub", "datediff", "add_months", "last_day",
    "years", "months", "days", "hours", "bucket",
    "split", "array", "size", "cardinality", "element_at", "array_contains", "explode",
    "explode_outer", "posexplode", "posexplode_outer", "sort_array", "array_distinct",
    "array_join", "slice", "array_max", "array_min", "array_compact", "collect_list",
    "collect_set",
]


def col(col: str) -> Column:
    return Column(_core.col(col))


column = col


def lit(col: Any) -> Column:
    return _lit(col)


def expr(str: str) -> Column:
    return Column(_core.parse_expression(str))


def when(condition: Column, value: Any) -> Column:
    branches = [condition, _lit(value)]
    return Column(_core.call("when", [b._c for b in branches]), branches)


def _columns(cols: Any) -> list:
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = cols[0]
    return [_to_col(c) for c in cols]


def _unary(name: str):
    def function(col: Any) -> Column:
        return _call(name, _to_col(col))

    function.__name__ = name
    return function


def coalesce(*cols: Any) -> Column:
    return _call("coalesce", *_columns(cols))


def count(col: Any) -> Column:
    return _call("count", _to_col(col))


def countDistinct(col: Any, *cols: Any) -> Column:
    return _call("count", *_columns((col,) + cols), distinct=True)


count_distinct = countDistinct


def approx_count_distinct(col: Any, rsd: Optional[float] = None) -> Column:
    """Spark's HyperLogLog++ estimate of the number of distinct non-null values; `rsd` is the
    maximum relative standard deviation allowed (default 0.05)."""
    if rsd is None:
        return _call("approx_count_distinct", _to_col(col))
    return _call("approx_count_distinct", _to_col(col), lit(float(rsd)))


def first(col: Any, ignorenulls: bool = False) -> Column:
    return _call("any_value" if ignorenulls else "first", _to_col(col))


def last(col: Any, ignorenulls: bool = False) -> Column:
    return _call("last", _to_col(col))


def sum_distinct(col: Any) -> Column:
    return _call("sum", _to_col(col), distinct=True)


isnull = _unary("isnull")
isnan = _unary("isnan")
sum = _unary("sum")
avg = _unary("avg")
mean = _unary("mean")
min = _unary("min")
max = _unary("max")
any_value = _unary("any_value")
upper = _unary("upper")
lower = _unary("lower")
length = _unary("length")
trim = _unary("trim")
ltrim = _unary("ltrim")
rtrim = _unary("rtrim")
reverse = _unary("reverse")
year = _unary("year")
month = _unary("month")
quarter = _unary("quarter")
dayofmonth = _unary("dayofmonth")
dayofyear = _unary("dayofyear")
hour = _unary("hour")
minute = _unary("minute")
second = _unary("second")
abs = _unary("abs")


def concat(*cols: Any) -> Column:
    return _call("concat", *_columns(cols))


def substring(str: Any, pos: int, len: int) -> Column:
    return _call("substring", _to_col(str), pos, len)


def to_timestamp(col: Any, format: Optional[str] = None) -> Column:
    if format is None:
        return _call("to_timestamp", _to_col(col))
    return _call("to_timestamp", _to_col(col), format)


def to_date(col: Any, format: Optional[str] = None) -> Column:
    if format is None:
        return _call("to_date", _to_col(col))
    return _call("to_date", _to_col(col), format)


def date_trunc(format: str, timestamp: Any) -> Column:
    return _call("date_trunc", format, _to_col(timestamp))


def current_timestamp() -> Column:
    return _call("current_timestamp")


def from_unixtime(timestamp: Any, format: str = "yyyy-MM-dd HH:mm:ss") -> Column:
    return _call("from_unixtime", _to_col(timestamp), format)


def unix_timestamp(timestamp: Any = None, format: str = "yyyy-MM-dd HH:mm:ss") -> Column:
    if timestamp is None:
        return _call("unix_timestamp")
    return _call("unix_timestamp", _to_col(timestamp), format)


def window(
    timeColumn: Any,
    windowDuration: str,
    slideDuration: Optional[str] = None,
    startTime: Optional[str] = None,
) -> Column:
    args = [_to_col(timeColumn), windowDuration, slideDuration or windowDuration]
    if startTime is not None:
        args.append(startTime)
    return _call("window", *args).alias("window")


def session_window(timeColumn: Any, gapDuration: str) -> Column:
    return _call("session_window", _to_col(timeColumn), gapDuration).alias("session_window")


def window_time(windowColumn: Any) -> Column:
    return _call("window_time", _to_col(windowColumn))


def struct(*cols: Any) -> Column:
    return _call("struct", *_columns(cols))


def asc(col: Any) -> Column:
    return _to_col(col).asc()


def desc(col: Any) -> Column:
    return _to_col(col).desc()


def asc_nulls_first(col: Any) -> Column:
    return _to_col(col).asc_nulls_first()


def asc_nulls_last(col: Any) -> Column:
    return _to_col(col).asc_nulls_last()


def desc_nulls_first(col: Any) -> Column:
    return _to_col(col).desc_nulls_first()


def desc_nulls_last(col: Any) -> Column:
    return _to_col(col).desc_nulls_last()


def round(col: Any, scale: int = 0) -> Column:
    return _call("round", _to_col(col), scale)


def floor(col: Any) -> Column:
    return _call("floor", _to_col(col))


def ceil(col: Any) -> Column:
    return _call("ceil", _to_col(col))


def concat_ws(sep: str, *cols: Any) -> Column:
    return _call("concat_ws", sep, *_columns(cols))


def dayofweek(col: Any) -> Column:
    return _call("dayofweek", _to_col(col))


def date_add(start: Any, days: Any) -> Column:
    return _call("date_add", _to_col(start), days)


def date_sub(start: Any, days: Any) -> Column:
    return _call("date_sub", _to_col(start), days)


def datediff(end: Any, start: Any) -> Column:
    return _call("datediff", _to_col(end), _to_col(start))


def add_months(start: Any, months: Any) -> Column:
    return _call("add_months", _to_col(start), months)


def last_day(date: Any) -> Column:
    return _call("last_day", _to_col(date))


def _partition_transform(transform: str, col: Any, argument: int = 0) -> Column:
    # A transform for DataFrameWriterV2.partitionedBy only, as in Spark; it remembers the column.
    name = col if isinstance(col, str) else col._c.name()
    column = _call(transform, _to_col(col))
    column._partition = (transform, name, argument)
    return column


def years(col: Any) -> Column:
    return _partition_transform("years", col)


def months(col: Any) -> Column:
    return _partition_transform("months", col)


def days(col: Any) -> Column:
    return _partition_transform("days", col)


def hours(col: Any) -> Column:
    return _partition_transform("hours", col)


def bucket(numBuckets: Any, col: Any) -> Column:
    if isinstance(numBuckets, Column):
        numBuckets = int(numBuckets._c.name())
    if not isinstance(numBuckets, int):
        raise TypeError(f"numBuckets should be a Column or an int, got {type(numBuckets).__name__}")
    return _partition_transform("bucket", col, numBuckets)


def split(str: Any, pattern: str, limit: int = -1) -> Column:
    return _call("split", _to_col(str), _lit(pattern), _lit(limit))


def array(*cols: Any) -> Column:
    return _call("array", *_columns(cols))


def element_at(col: Any, extraction: Any) -> Column:
    return _call("element_at", _to_col(col), _lit(extraction))


def array_contains(col: Any, value: Any) -> Column:
    return _call("array_contains", _to_col(col), _lit(value))


size = _unary("size")
cardinality = _unary("cardinality")
explode = _unary("explode")
explode_outer = _unary("explode_outer")
posexplode = _unary("posexplode")
posexplode_outer = _unary("posexplode_outer")
array_distinct = _unary("array_distinct")
array_max = _unary("array_max")
array_min = _unary("array_min")
array_compact = _unary("array_compact")
collect_list = _unary("collect_list")
collect_set = _unary("collect_set")


def sort_array(col: Any, asc: bool = True) -> Column:
    return _call("sort_array", _to_col(col), _lit(asc))


def array_join(col: Any, delimiter: str, null_replacement: Optional[str] = None) -> Column:
    if null_replacement is None:
        return _call("array_join", _to_col(col), _lit(delimiter))
    return _call("array_join", _to_col(col), _lit(delimiter), _lit(null_replacement))


def slice(x: Any, start: Any, length: Any) -> Column:
    return _call("slice", _to_col(x), _lit(start), _lit(length))


def _options(options: Any) -> list:
    """Options of a JSON function as Spark passes them: a map of text keys and values."""
    if not options:
        return []
    pairs = []
    for key, value in options.items():
        pairs += [lit(str(key)), lit(str(value))]
    return [_call("map", *pairs)]


def from_json(col: Any, schema: Any, options: Any = None) -> Column:
    from ember.sql.column import _type_name

    text = schema if isinstance(schema, str) else _type_name(schema)
    return _call("from_json", _to_col(col), lit(text), *_options(options))


def to_json(col: Any, options: Any = None) -> Column:
    return _call("to_json", _to_col(col), *_options(options))


def schema_of_json(json: Any, options: Any = None) -> Column:
    return _call("schema_of_json", json if isinstance(json, Column) else lit(json),
                 *_options(options))


def get_json_object(col: Any, path: str) -> Column:
    return _call("get_json_object", _to_col(col), lit(path))


def json_array_length(col: Any) -> Column:
    return _call("json_array_length", _to_col(col))


def json_object_keys(col: Any) -> Column:
    return _call("json_object_keys", _to_col(col))
