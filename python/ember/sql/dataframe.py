"""DataFrame: a thin handle on the C++ core's DataFrame, as pyspark.sql.DataFrame."""

from __future__ import annotations

from ember._lazy import LazyModule
from ember.errors import PySparkAttributeError, PySparkTypeError, PySparkValueError
from ember.sql.column import Column, _lit, _to_col
from ember.sql.types import Row, StructType, _create_row, _escape_meta_characters, from_arrow_schema

TYPE_CHECKING = False  # typing costs milliseconds at start-up
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, Iterator, List, Optional, Union
    from ember.sql.session import SparkSession

pa = LazyModule("pyarrow")
pc = LazyModule("pyarrow.compute")


class _ArrowStream:
    """Hands an Arrow C stream from the core to any consumer of __arrow_c_stream__."""

    def __init__(self, capsule: Any):
        self._capsule = capsule

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._capsule


# --- Arrow arrays to Python values --------------------------------------------------------------
# Both collect() and show() walk an Arrow array by its type: leaves convert column-wise, nested
# types convert their children once and regroup them by row.


def _nested(array: pa.Array, leaf: Callable[[pa.Array], List[Any]],
            make_struct: Callable[[List[str], List[Any]], Any],
            make_list: Callable[[List[Any]], Any],
            make_map: Callable[[List[Any], List[Any]], Any]) -> List[Any]:
    """Values of `array`, None where null; `leaf` converts arrays of non-nested types."""
    t = array.type
    if pa.types.is_struct(t):
        names = [f.name for f in t]
        children = [_nested(c, leaf, make_struct, make_list, make_map) for c in array.flatten()]
        valid = array.is_valid().to_pylist()
        return [make_struct(names, [c[i] for c in children]) if valid[i] else None
                for i in range(len(array))]
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_map(t):
        offsets = array.offsets.to_pylist()
        start, end = offsets[0], offsets[-1]
        valid = array.is_valid().to_pylist()

        def values(child: pa.Array) -> List[Any]:
            return _nested(child.slice(start, end - start), leaf, make_struct, make_list, make_map)

        if pa.types.is_map(t):
            keys, items = values(array.keys), values(array.items)
            return [make_map(keys[offsets[i] - start: offsets[i + 1] - start],
                             items[offsets[i] - start: offsets[i + 1] - start])
                    if valid[i] else None for i in range(len(array))]
        elements = values(array.values)
        return [make_list(elements[offsets[i] - start: offsets[i + 1] - start])
                if valid[i] else None for i in range(len(array))]
    return leaf(array)


def _python_leaf(array: pa.Array) -> List[Any]:
    """Python values as PySpark's collect() returns them."""
    t = array.type
    if pa.types.is_timestamp(t) and t.tz is not None:
        import datetime  # here, as the imports of show() below: importing costs at start-up

        # PySpark gives naive datetimes in the process's local time zone.
        micros = array.cast(pa.timestamp("us", t.tz)).cast(pa.int64()).to_pylist()
        epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        return [
            None if m is None
            else (epoch + datetime.timedelta(microseconds=m)).astimezone().replace(tzinfo=None)
            for m in micros
        ]
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return [None if v is None else bytearray(v) for v in array.to_pylist()]
    return array.to_pylist()


def _python_values(column: Union[pa.Array, pa.ChunkedArray]) -> List[Any]:
    """A column's values as collect() gives them: Rows for structs, lists, dicts for maps."""
    if isinstance(column, pa.ChunkedArray):
        return [v for chunk in column.chunks for v in _python_values(chunk)]
    return _nested(column, _python_leaf, _create_row, list,
                   lambda keys, items: dict(zip(keys, items)))


def _rows(table: pa.Table) -> List[Row]:
    return _make_rows(table.column_names, [_python_values(c) for c in table.columns],
                      table.num_rows)


def _make_rows(names: List[str], columns: List[List[Any]], num_rows: int) -> List[Row]:
    return [_create_row(names, values) for values in zip(*columns)] if columns else [
        _create_row([], []) for _ in range(num_rows)
    ]


# --- show() ---------------------------------------------------------------------------------------


def _java_number(x: float, single: bool) -> str:
    """A float as the JVM prints it (Double.toString, or Float.toString when `single`): the
    shortest digits that read back as the same value, plain for 1e-3 <= |x| < 1e7 and as
    d.dddE<n> otherwise."""
    import decimal
    import math
    import struct

    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    if single:
        for precision in range(1, 10):
            text = "%.*e" % (precision - 1, x)
            if struct.unpack("<f", struct.pack("<f", float(text)))[0] == x:
                break
    else:
        text = repr(x)
    sign, digit_tuple, exponent = decimal.Decimal(text).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    point = len(digits) + exponent  # the decimal point sits after this many digits
    minus = "-" if sign else ""
    if -3 < point <= 7:
        if point <= 0:
            return f"{minus}0.{'0' * -point}{digits}"
        if point >= len(digits):
            return f"{minus}{digits}{'0' * (point - len(digits))}.0"
        return f"{minus}{digits[:point]}.{digits[point:]}"
    return f"{minus}{digits[0]}.{digits[1:] or '0'}E{point - 1}"


def _format_time(value: Any) -> str:
    text = (f"{value.year:04d}-{value.month:02d}-{value.day:02d} "
            f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}")
    if value.microsecond:
        text += f".{value.microsecond:06d}".rstrip("0")
    return text


def _show_leaf(time_zone: str) -> Callable[[pa.Array], List[Any]]:
    """Text of each value of a non-nested array as Spark's show() prints it."""

    def leaf(array: pa.Array) -> List[Any]:
        t = array.type
        if pa.types.is_timestamp(t):
            if t.tz is not None:
                # The wall-clock time in the session time zone.
                array = pc.local_timestamp(array.cast(pa.timestamp("us", time_zone)))
            fmt: Callable[[Any], str] = _format_time
        elif pa.types.is_boolean(t):
            fmt = lambda v: "true" if v else "false"  # noqa: E731
        elif pa.types.is_float64(t) or pa.types.is_float32(t):
            single = pa.types.is_float32(t)
            fmt = lambda v: _java_number(v, single)  # noqa: E731
        elif pa.types.is_decimal(t):
            fmt = lambda v: format(v, "f")  # noqa: E731
        elif pa.types.is_binary(t) or pa.types.is_large_binary(t):
            fmt = lambda v: "[" + " ".join("%02X" % b for b in v) + "]"  # noqa: E731
        elif pa.types.is_date(t):
            fmt = lambda v: v.isoformat()  # noqa: E731
        else:
            fmt = str
        return ["NULL" if v is None else fmt(v) for v in array.to_pylist()]

    return leaf


def _show_texts(column: pa.ChunkedArray, time_zone: str) -> List[str]:
    leaf = _show_leaf(time_zone)
    texts: List[str] = []
    for chunk in column.chunks:
        texts.extend(_nested(
            chunk, leaf,
            lambda names, values: "{" + ", ".join(values) + "}",
            lambda values: "[" + ", ".join(values) + "]",
            lambda keys, items: "{" + ", ".join(f"{k} -> {v}" for k, v in zip(keys, items)) + "}",
        ))
    return ["NULL" if t is None else t for t in texts]


# Characters the JVM counts as two columns wide when show() pads a cell. Compiled at first use
# (re caches it): compiling takes milliseconds, at import that would be every program's.
_FULL_WIDTH = (
    "[\u1100-\u115F\u2E80-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF"
    "\uFE10-\uFE19\uFE30-\uFE6F\uFF00-\uFF60\uFFE0-\uFFE6]"
)


def _utf16_length(text: str) -> int:
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def _display_width(text: str) -> int:
    """Columns `text` takes in show(): its length in UTF-16 units, full-width ones counted twice."""
    import re

    return _utf16_length(text) + len(re.findall(_FULL_WIDTH, text))


def _utf16_prefix(text: str, units: int) -> str:
    """The first `units` UTF-16 units of `text`, a split surrogate pair becoming "?"."""
    if _utf16_length(text) == len(text):
        return text[:units]
    out, used = [], 0
    for c in text:
        size = 2 if ord(c) > 0xFFFF else 1
        if used + size > units:
            if used < units:
                out.append("?")
            break
        out.append(c)
        used += size
    return "".join(out)


def _truncate_cell(text: str, truncate: int) -> str:
    if truncate <= 0 or _utf16_length(text) <= truncate:
        return text
    if truncate < 4:
        return _utf16_prefix(text, truncate)
    return _utf16_prefix(text, truncate - 3) + "..."


def _pad_left(text: str, width: int) -> str:
    return " " * (width - _display_width(text)) + text


def _pad_right(text: str, width: int) -> str:
    return text + " " * (width - _display_width(text))


class DataFrame:
    def __init__(self, core: Any, session: "SparkSession"):
        self._df = core
        self._session = session

    # --- metadata -------------------------------------------------------------------------

    @property
    def sparkSession(self) -> "SparkSession":
        return self._session

    @property
    def isStreaming(self) -> bool:
        return self._df.is_streaming

    @property
    def schema(self) -> StructType:
        return from_arrow_schema(pa.Schema._import_from_c_capsule(self._df.schema()))

    @property
    def columns(self) -> List[str]:
        return self.schema.names

    @property
    def dtypes(self) -> List[tuple]:
        return [(f.name, f.dataType.simpleString()) for f in self.schema.fields]

    def printSchema(self, level: Optional[int] = None) -> None:
        print(self.schema.treeString(level) if level else self.schema.treeString())

    def explain(self, extended: Any = None, mode: Optional[str] = None) -> None:
        if self.isStreaming:
            from ember import _core

            print("== Physical Plan ==\n" + _core.explain_stream(self._df, "append", False))
            return
        print("== Physical Plan ==\n" + self._df.explain())

    def __repr__(self) -> str:
        return "DataFrame[" + ", ".join(f"{n}: {t}" for n, t in self.dtypes) + "]"

    # --- columns --------------------------------------------------------------------------

    def __getitem__(self, item: Union[str, int, Column, list]) -> Any:
        if isinstance(item, str):
            return Column(self._df.col(item))
        if isinstance(item, int):
            return Column(self._df.col(self.columns[item]))
        if isinstance(item, Column):
            return self.filter(item)
        if isinstance(item, (list, tuple)):
            return self.select(*item)
        raise PySparkTypeError(
            errorClass="NOT_COLUMN_OR_INT_OR_LIST_OR_STR_OR_TUPLE",
            messageParameters={"arg_name": "item", "arg_type": type(item).__name__},
        )

    def __getattr__(self, name: str) -> Column:
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self.columns:
            raise PySparkAttributeError(
                errorClass="ATTRIBUTE_NOT_SUPPORTED", messageParameters={"attr_name": name}
            )
        return self[name]

    def col(self, name: str) -> Column:
        return self[name]

    # --- transformations ------------------------------------------------------------------

    def _wrap(self, core: Any) -> "DataFrame":
        return DataFrame(core, self._session)

    @staticmethod
    def _cols(cols: Any) -> List[Column]:
        if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
            cols = cols[0]
        return [_to_col(c) for c in cols]

    def select(self, *cols: Any) -> "DataFrame":
        return self._wrap(self._df.select([c._c for c in self._cols(cols)]))

    def selectExpr(self, *expr: Any) -> "DataFrame":
        from ember.sql.functions import expr as parse

        if len(expr) == 1 and isinstance(expr[0], list):
            expr = expr[0]
        return self.select(*[parse(e) for e in expr])

    def filter(self, condition: Any) -> "DataFrame":
        if isinstance(condition, str):
            from ember.sql.functions import expr as parse

            condition = parse(condition)
        if not isinstance(condition, Column):
            raise PySparkTypeError(
                errorClass="NOT_COLUMN_OR_STR",
                messageParameters={"arg_name": "condition", "arg_type": type(condition).__name__},
            )
        return self._wrap(self._df.filter(condition._c))

    where = filter

    def withColumn(self, colName: str, col: Column) -> "DataFrame":
        if not isinstance(col, Column):
            raise PySparkTypeError(
                errorClass="NOT_COLUMN",
                messageParameters={"arg_name": "col", "arg_type": type(col).__name__},
            )
        return self._wrap(self._df.with_columns([colName], [col._c]))

    def withColumns(self, colsMap: Dict[str, Column]) -> "DataFrame":
        return self._wrap(
            self._df.with_columns(list(colsMap.keys()), [c._c for c in colsMap.values()])
        )

    def withColumnRenamed(self, existing: str, new: str) -> "DataFrame":
        return self._wrap(self._df.with_columns_renamed([(existing, new)]))

    def withColumnsRenamed(self, colsMap: Dict[str, str]) -> "DataFrame":
        return self._wrap(self._df.with_columns_renamed(list(colsMap.items())))

    def toDF(self, *cols: str) -> "DataFrame":
        return self.select(*[Column(self._df.col(old)).alias(new) for old, new in zip(self.columns, cols)])

    def drop(self, *cols: Any) -> "DataFrame":
        return self._wrap(self._df.drop([_to_col(c)._c if isinstance(c, str) else c._c for c in cols]))

    def withWatermark(self, eventTime: str, delayThreshold: str) -> "DataFrame":
        if not eventTime or not isinstance(eventTime, str):
            raise PySparkTypeError(
                errorClass="NOT_STR",
                messageParameters={"arg_name": "eventTime", "arg_type": type(eventTime).__name__},
            )
        if not delayThreshold or not isinstance(delayThreshold, str):
            raise PySparkTypeError(
                errorClass="NOT_STR",
                messageParameters={"arg_name": "delayThreshold",
                                   "arg_type": type(delayThreshold).__name__},
            )
        return self._wrap(self._df.with_watermark(eventTime, delayThreshold))

    def observe(self, observation: Any, *exprs: Column) -> "DataFrame":
        """The same rows; an action also computes `exprs`, aggregate expressions over the rows
        that pass here, for `observation` (an Observation, or a name under which a streaming
        query's progress reports them in `observedMetrics`)."""
        from ember.sql.observation import Observation

        if len(exprs) == 0:
            raise PySparkValueError(errorClass="CANNOT_BE_EMPTY", messageParameters={"item": "exprs"})
        if not all(isinstance(c, Column) for c in exprs):
            raise PySparkTypeError(errorClass="NOT_LIST_OF_COLUMN", messageParameters={"arg_name": "exprs"})
        if isinstance(observation, Observation):
            return observation._on(self, *exprs)
        if isinstance(observation, str):
            return self._wrap(self._df.observe(observation, [c._c for c in exprs]))
        raise PySparkTypeError(
            errorClass="NOT_LIST_OF_COLUMN",
            messageParameters={"arg_name": "observation", "arg_type": type(observation).__name__},
        )

    def alias(self, alias: str) -> "DataFrame":
        return self._wrap(self._df.alias(alias))

    def groupBy(self, *cols: Any) -> "GroupedData":
        from ember.sql.group import GroupedData

        return GroupedData(self, self._cols(cols))

    groupby = groupBy

    def agg(self, *exprs: Any) -> "DataFrame":
        return self.groupBy().agg(*exprs)

    def orderBy(self, *cols: Any, ascending: Any = None) -> "DataFrame":
        columns = self._cols(cols)
        if ascending is not None:
            flags = ascending if isinstance(ascending, list) else [ascending] * len(columns)
            columns = [c.asc() if a else c.desc() for c, a in zip(columns, flags)]
        return self._wrap(self._df.order_by([c._c for c in columns]))

    sort = orderBy

    def limit(self, num: int) -> "DataFrame":
        return self._wrap(self._df.limit(num))

    def distinct(self) -> "DataFrame":
        return self._wrap(self._df.distinct())

    def dropDuplicates(self, subset: Optional[List[str]] = None) -> "DataFrame":
        return self._wrap(self._df.drop_duplicates(_subset(subset)))

    drop_duplicates = dropDuplicates

    def dropDuplicatesWithinWatermark(self, subset: Optional[List[str]] = None) -> "DataFrame":
        return self._wrap(self._df.drop_duplicates_within_watermark(_subset(subset)))

    drop_duplicates_within_watermark = dropDuplicatesWithinWatermark

    def union(self, other: "DataFrame") -> "DataFrame":
        return self._wrap(self._df.union(other._df, False, False))

    unionAll = union

    def unionByName(self, other: "DataFrame", allowMissingColumns: bool = False) -> "DataFrame":
        return self._wrap(self._df.union(other._df, True, allowMissingColumns))

    def join(self, other: "DataFrame", on: Any = None, how: Optional[str] = None) -> "DataFrame":
        how = how or "inner"
        if on is None:
            return self._wrap(self._df.join_using(other._df, [], "cross" if how == "inner" else how))
        if isinstance(on, str):
            on = [on]
        if isinstance(on, (list, tuple)) and all(isinstance(o, str) for o in on):
            return self._wrap(self._df.join_using(other._df, list(on), how))
        if isinstance(on, (list, tuple)):
            condition = on[0]
            for c in on[1:]:
                condition = condition & c
            on = condition
        return self._wrap(self._df.join_on(other._df, on._c, how))

    def crossJoin(self, other: "DataFrame") -> "DataFrame":
        return self._wrap(self._df.join_using(other._df, [], "cross"))

    @property
    def write(self) -> Any:
        from ember.sql.readwriter import DataFrameWriter

        return DataFrameWriter(self)

    def writeTo(self, table: str) -> Any:
        from ember.sql.readwriter import DataFrameWriterV2

        return DataFrameWriterV2(self, table)

    @property
    def writeStream(self) -> Any:
        from ember.sql.streaming import DataStreamWriter

        return DataStreamWriter(self)

    # --- actions --------------------------------------------------------------------------

    def toArrow(self) -> pa.Table:
        # Not pa.table(): it imports pandas (half a second) to ask whether this is a pandas frame.
        return pa.RecordBatchReader.from_stream(_ArrowStream(self._df.to_arrow())).read_all()

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._df.to_arrow()

    def collect(self) -> List[Row]:
        result = self._df.collect()
        if isinstance(result, tuple):  # columns of simple types, converted by the core
            return _make_rows(*result)
        return _rows(pa.RecordBatchReader.from_stream(_ArrowStream(result)).read_all())

    def toLocalIterator(self, prefetchPartitions: bool = False) -> Iterator[Row]:
        return iter(self.collect())

    def count(self) -> int:
        return self._df.count()

    def take(self, num: int) -> List[Row]:
        return self.limit(num).collect()

    def head(self, n: Optional[int] = None) -> Any:
        if n is None:
            rows = self.take(1)
            return rows[0] if rows else None
        return self.take(n)

    def first(self) -> Optional[Row]:
        return self.head()

    def isEmpty(self) -> bool:
        return len(self.take(1)) == 0

    def toPandas(self) -> Any:
        """A pandas DataFrame with PySpark's column types: timestamps as naive datetime64[ns] in
        the session time zone, dates and decimals as objects, structs as Rows, arrays as lists,
        maps as dicts and binaries as bytearrays."""
        table = self.toArrow()
        time_zone = self._session.conf.get("spark.sql.session.timeZone")
        objects = {}
        columns = []
        for i, (field, column) in enumerate(zip(table.schema, table.columns)):
            t = field.type
            if pa.types.is_timestamp(t):
                if t.tz is not None:
                    column = pc.local_timestamp(column.cast(pa.timestamp("us", time_zone)))
                column = column.cast(pa.timestamp("ns"))
            elif pa.types.is_nested(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
                objects[i] = _python_values(column)
                column = pa.nulls(len(column), pa.null())
            columns.append(column)
        table = pa.Table.from_arrays(columns, names=table.column_names)
        frame = table.to_pandas(date_as_object=True, coerce_temporal_nanoseconds=True)
        if objects:
            import pandas as pd

            for i, values in objects.items():
                frame.isetitem(i, pd.Series(values, index=frame.index, dtype=object))
        return frame

    def createOrReplaceTempView(self, name: str) -> None:
        self._session._core.create_temp_view(name, self._df, True)

    def createTempView(self, name: str) -> None:
        self._session._core.create_temp_view(name, self._df, False)

    def _show_string(self, n: int = 20, truncate: Union[bool, int] = True,
                     vertical: bool = False) -> str:
        """The text show() prints, laid out as Spark's Dataset.showString."""
        table = self.limit(n + 1).toArrow() if n >= 0 else self.limit(1).toArrow()
        rows = max(n, 0)
        more = table.num_rows > rows
        table = table.slice(0, rows)
        width = 20 if truncate is True else int(truncate)
        time_zone = self._session.conf.get("spark.sql.session.timeZone")
        names = [_escape_meta_characters(name) for name in table.column_names]
        columns = [
            [_truncate_cell(_escape_meta_characters(text), width)
             for text in _show_texts(column, time_zone)]
            for column in table.columns
        ]
        cells = [list(row) for row in zip(*columns)] if columns else [[]] * table.num_rows
        lines: List[str] = []
        if vertical:
            if not cells:
                lines.append("(0 rows)")
            else:
                name_width = max([3] + [_display_width(name) for name in names])
                value_width = max([3] + [_display_width(c) for row in cells for c in row])
                for i, row in enumerate(cells):
                    header = f"-RECORD {i}"
                    lines.append(header + "-" * (name_width + value_width + 5 - len(header)))
                    lines.extend(
                        f" {_pad_right(name, name_width)} | {_pad_right(value, value_width)} "
                        for name, value in zip(names, row)
                    )
                lines.append("")
        else:
            widths = [max([3, _display_width(name)] + [_display_width(row[i]) for row in cells])
                      for i, name in enumerate(names)]
            pad = _pad_left if width > 0 else _pad_right
            rule = "+" + "+".join("-" * w for w in widths) + "+"

            def line(values: List[str]) -> str:
                return "|" + "|".join(pad(v, w) for v, w in zip(values, widths)) + "|"

            lines = [rule, line(names), rule] + [line(row) for row in cells] + [rule, ""]
        if more:
            if lines and lines[-1] == "":
                lines.pop()
            lines.append(f"only showing top {rows} row{'' if rows == 1 else 's'}")
        return "\n".join(lines)

    def show(self, n: int = 20, truncate: Union[bool, int] = True, vertical: bool = False) -> None:
        if not isinstance(n, int) or isinstance(n, bool):
            raise PySparkTypeError(
                errorClass="NOT_INT",
                messageParameters={"arg_name": "n", "arg_type": type(n).__name__},
            )
        print(self._show_string(n, truncate, vertical))


def _subset(subset: Any) -> List[str]:
    """The columns of dropDuplicates(subset): a list or tuple, or None for all of them."""
    if subset is not None and not isinstance(subset, (list, tuple)):
        raise PySparkTypeError(
            errorClass="NOT_LIST_OR_TUPLE",
            messageParameters={"arg_name": "subset", "arg_type": type(subset).__name__},
        )
    return list(subset or [])
