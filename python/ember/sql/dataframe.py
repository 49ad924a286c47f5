"""DataFrame: a thin handle on the C++ core's DataFrame, as pyspark.sql.DataFrame."""

import datetime
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Union

import pyarrow as pa

from ember.errors import PySparkTypeError, PySparkValueError
from ember.sql.column import Column, _lit, _to_col
from ember.sql.types import Row, StructType, _create_row, from_arrow_schema

if TYPE_CHECKING:
    from ember.sql.session import SparkSession


class _ArrowStream:
    """Hands an Arrow C stream from the core to any consumer of __arrow_c_stream__."""

    def __init__(self, capsule: Any):
        self._capsule = capsule

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._capsule


def _python_values(column: pa.ChunkedArray) -> List[Any]:
    """Python values as PySpark's collect() returns them."""
    if pa.types.is_timestamp(column.type) and column.type.tz is not None:
        # PySpark gives naive datetimes in the process's local time zone.
        micros = column.cast(pa.int64()).to_pylist()
        epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        return [
            None if m is None
            else (epoch + datetime.timedelta(microseconds=m)).astimezone().replace(tzinfo=None)
            for m in micros
        ]
    if pa.types.is_struct(column.type):
        names = [f.name for f in column.type]
        children = [_python_values(column.combine_chunks().field(i)) if column.num_chunks else []
                    for i in range(len(names))]
        valid = column.is_valid().to_pylist()
        return [
            _create_row(names, [child[i] for child in children]) if valid[i] else None
            for i in range(len(column))
        ]
    return column.to_pylist()


def _rows(table: pa.Table) -> List[Row]:
    names = table.column_names
    columns = [_python_values(c) for c in table.columns]
    return [_create_row(names, values) for values in zip(*columns)] if columns else [
        _create_row([], []) for _ in range(table.num_rows)
    ]


def _show_value(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if value == value else "NaN"
    if isinstance(value, datetime.datetime):
        text = value.strftime("%Y-%m-%d %H:%M:%S")
        if value.microsecond:
            text += ("." + f"{value.microsecond:06d}").rstrip("0")
        return text
    if isinstance(value, Row):
        return "{" + ", ".join(_show_value(v) for v in value) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_show_value(v) for v in value) + "]"
    return str(value)


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
            raise AttributeError(
                f"'DataFrame' object has no attribute '{name}'"
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
        return self._wrap(self._df.drop_duplicates([]))

    def dropDuplicates(self, subset: Optional[List[str]] = None) -> "DataFrame":
        if subset is not None and not isinstance(subset, (list, tuple)):
            raise PySparkTypeError(
                errorClass="NOT_LIST_OR_TUPLE",
                messageParameters={"arg_name": "subset", "arg_type": type(subset).__name__},
            )
        return self._wrap(self._df.drop_duplicates(list(subset or [])))

    drop_duplicates = dropDuplicates

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
    def writeStream(self) -> Any:
        from ember.sql.streaming import DataStreamWriter

        return DataStreamWriter(self)

    # --- actions --------------------------------------------------------------------------

    def toArrow(self) -> pa.Table:
        return pa.table(_ArrowStream(self._df.to_arrow()))

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._df.to_arrow()

    def collect(self) -> List[Row]:
        return _rows(self.toArrow())

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
        return self.toArrow().to_pandas()

    def createOrReplaceTempView(self, name: str) -> None:
        self._session._core.create_temp_view(name, self._df, True)

    def createTempView(self, name: str) -> None:
        self._session._core.create_temp_view(name, self._df, False)

    def _show_string(self, n: int = 20, truncate: Union[bool, int] = True) -> str:
        rows = self.limit(n + 1).collect()
        more = len(rows) > n
        rows = rows[:n]
        width = 20 if truncate is True else int(truncate)
        cells = [[_show_value(v) for v in row] for row in rows]
        if width > 0:
            cells = [[c if len(c) <= width else c[: width - 3] + "..." for c in r] for r in cells]
        names = self.columns
        widths = [max([3, len(name)] + [len(r[i]) for r in cells]) for i, name in enumerate(names)]
        line = "+" + "+".join("-" * w for w in widths) + "+"
        def fmt(values: List[str]) -> str:
            if width > 0:
                return "|" + "|".join(v.rjust(w) for v, w in zip(values, widths)) + "|"
            return "|" + "|".join(v.ljust(w) for v, w in zip(values, widths)) + "|"
        out = [line, fmt(names), line] + [fmt(r) for r in cells] + [line]
        text = "\n".join(out) + "\n"
        if more:
            text += f"only showing top {n} row{'s' if n != 1 else ''}\n"
        return text

    def show(self, n: int = 20, truncate: Union[bool, int] = True, vertical: bool = False) -> None:
        if not isinstance(n, int) or isinstance(n, bool):
            raise PySparkTypeError(
                errorClass="NOT_INT",
                messageParameters={"arg_name": "n", "arg_type": type(n).__name__},
            )
        print(self._show_string(n, truncate))
