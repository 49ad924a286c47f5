"""SparkSession, as pyspark.sql.SparkSession, backed by a C++ Session."""

from __future__ import annotations

# threading's RLock, without importing threading (and functools with it) at start-up.
from _thread import RLock

import _signal

from ember import _core
from ember._lazy import LazyModule
from ember.errors import PySparkTypeError, PySparkValueError
from ember.sql.dataframe import DataFrame
from ember.sql.readwriter import DataFrameReader
from ember.sql.types import (
    ArrayType, BooleanType, ByteType, DataType, DoubleType, IntegerType, LongType, MapType,
    NullType, Row, ShortType, StringType, StructField, StructType, _field_names,
    _infer_type, _parse_ddl,
    to_arrow_schema, to_arrow_type, from_arrow_schema, _create_row,
)

TYPE_CHECKING = False  # typing costs milliseconds at start-up
if TYPE_CHECKING:
    from typing import Any, Dict, Iterable, List, Optional, Union

pa = LazyModule("pyarrow")
pc = LazyModule("pyarrow.compute")

_DEFAULTS = {
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.shuffle.partitions": "2",
    "spark.app.name": "ember",
    "spark.sql.execution.arrow.pyspark.enabled": "false",
}


def _interrupt_on_ctrl_c() -> None:
    """Ctrl-C raises KeyboardInterrupt in the program (and ends a wait on a query) also when
    the process started with SIGINT ignored, as a shell starts a job in the background: PySpark's
    SparkContext installs its SIGINT handler the same way. A handler of the program's own stays."""
    try:
        if _signal.getsignal(_signal.SIGINT) in (_signal.SIG_IGN, _signal.SIG_DFL, None):
            _signal.signal(_signal.SIGINT, _signal.default_int_handler)
    except ValueError:  # not the main thread, where only the main thread may set handlers
        pass


class RuntimeConfig:
    """spark.conf."""

    _unset = object()

    def __init__(self, core: Any):
        self._core = core

    def set(self, key: str, value: Any) -> None:
        self._core.set_conf(key, "true" if value is True else "false" if value is False else str(value))

    def get(self, key: str, default: Any = _unset) -> Optional[str]:
        value = self._core.get_conf(key)
        if value is not None:
            return value
        if default is not RuntimeConfig._unset:
            return default
        if key in _DEFAULTS:
            return _DEFAULTS[key]
        from ember.errors import SparkNoSuchElementException

        raise SparkNoSuchElementException(
            f'The SQL config "{key}" cannot be found. Please verify that the config exists.',
            errorClass="SQL_CONF_NOT_FOUND",
            messageParameters={"sqlConf": f'"{key}"'},
            sqlState="42K0I",
        )

    def unset(self, key: str) -> None:
        self._core.unset_conf(key)

    def getAll(self) -> Dict[str, str]:
        return dict(self._core.all_conf())

    def isModifiable(self, key: str) -> bool:
        return key.startswith("spark.sql.")


class Catalog:
    """spark.catalog: temporary views for now."""

    def __init__(self, session: "SparkSession"):
        self._session = session

    def dropTempView(self, viewName: str) -> bool:
        return self._session._core.drop_temp_view(viewName)

    def listTables(self, dbName: Optional[str] = None) -> List[Any]:
        return [Row(name=n, catalog=None, namespace=[], description=None, tableType="TEMPORARY",
                    isTemporary=True) for n in self._session._core.temp_view_names()]

    def tableExists(self, tableName: str, dbName: Optional[str] = None) -> bool:
        return tableName.lower() in self._session._core.temp_view_names()


class SparkSession:
    _active: Optional["SparkSession"] = None
    _lock = RLock()

    class Builder:
        def __init__(self) -> None:
            self._options: Dict[str, str] = {}

        def config(self, key: Optional[str] = None, value: Any = None, conf: Any = None,
                   *, map: Optional[Dict[str, Any]] = None) -> "SparkSession.Builder":
            items = dict(map or {})
            if conf is not None:
                items.update(dict(conf.getAll()))
            if key is not None:
                items[key] = value
            for k, v in items.items():
                self._options[k] = "true" if v is True else "false" if v is False else str(v)
            return self

        def appName(self, name: str) -> "SparkSession.Builder":
            return self.config("spark.app.name", name)

        def master(self, master: str) -> "SparkSession.Builder":
            # One process is the whole "cluster"; the master URL is accepted and ignored.
            return self.config("spark.master", master)

        def enableHiveSupport(self) -> "SparkSession.Builder":
            return self

        def getOrCreate(self) -> "SparkSession":
            with SparkSession._lock:
                session = SparkSession._active
                if session is None:
                    session = SparkSession(self._options)
                else:
                    for k, v in self._options.items():
                        session._core.set_conf(k, v)
                return session

        def create(self) -> "SparkSession":
            return SparkSession(self._options)

    builder = Builder()

    def __init__(self, options: Optional[Dict[str, str]] = None):
        conf = dict(_DEFAULTS)
        conf.update(options or {})
        self._core = _core.Session.make(conf)
        _interrupt_on_ctrl_c()
        self.conf = RuntimeConfig(self._core)
        self.catalog = Catalog(self)
        self._streams: Optional["StreamingQueryManager"] = None
        with SparkSession._lock:
            SparkSession._active = self

    def __enter__(self) -> "SparkSession":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @classmethod
    def getActiveSession(cls) -> Optional["SparkSession"]:
        return cls._active

    @classmethod
    def active(cls) -> "SparkSession":
        return cls._active or cls.builder.getOrCreate()

    @property
    def version(self) -> str:
        return "4.0.1"

    @property
    def streams(self) -> "StreamingQueryManager":
        # Made on first use: programs without streaming queries need not load the streaming
        # module nor start the listener bus.
        with SparkSession._lock:
            if self._streams is None:
                from ember.sql.streaming import StreamingQueryManager

                self._streams = StreamingQueryManager()
            return self._streams

    @property
    def read(self) -> DataFrameReader:
        return DataFrameReader(self)

    @property
    def readStream(self) -> "DataStreamReader":
        from ember.sql.streaming import DataStreamReader

        return DataStreamReader(self)

    def newSession(self) -> "SparkSession":
        return SparkSession(self.conf.getAll())

    def stop(self) -> None:
        with SparkSession._lock:
            if SparkSession._active is self:
                SparkSession._active = None

    def sql(self, sqlQuery: str, args: Any = None, **kwargs: Any) -> DataFrame:
        return DataFrame(self._core.sql(sqlQuery), self)

    def table(self, tableName: str) -> DataFrame:
        return DataFrame(self._core.table(tableName), self)

    def range(self, start: int, end: Optional[int] = None, step: int = 1,
              numPartitions: Optional[int] = None) -> DataFrame:
        if end is None:
            start, end = 0, start
        return DataFrame(self._core.range(start, end, step), self)

    def createDataFrame(self, data: Any, schema: Any = None, samplingRatio: Any = None,
                        verifySchema: bool = True) -> DataFrame:
        data = _to_arrow_table(self, data, schema)
        if not isinstance(data, _core.DataFrame):
            data = self._core.from_arrow(data.__arrow_c_stream__())
        return DataFrame(data, self)


def _is_pandas(data: Any) -> bool:
    return type(data).__name__ == "DataFrame" and type(data).__module__.startswith("pandas")


# Spark types whose Python values the core converts itself (exact bool, int, float, str).
_CORE_TYPE_NAMES = {
    BooleanType: "boolean", ByteType: "tinyint", ShortType: "smallint", IntegerType: "int",
    LongType: "bigint", DoubleType: "double", StringType: "string",
}


def _to_arrow_table(session: "SparkSession", data: Any, schema: Any) -> Any:
    """The data as an Arrow table, or a core DataFrame made without pyarrow when the rows hold
    only values of simple types."""
    if isinstance(schema, str):
        parsed = _parse_ddl(schema)
        schema = parsed if isinstance(parsed, StructType) else StructType([StructField("value", parsed)])
    time_zone = session.conf.get("spark.sql.session.timeZone")
    if _is_pandas(data):
        arrow = str(session.conf.get("spark.sql.execution.arrow.pyspark.enabled", "false"))
        return _from_pandas(data, schema, arrow.lower() == "true", time_zone)
    if hasattr(data, "__arrow_c_stream__") and not isinstance(data, (list, tuple)):
        table = pa.table(data)
        target = to_arrow_schema(schema) if isinstance(schema, StructType) else None
        table = _normalize_arrow(table, time_zone, target)
        if target is not None:
            # As in PySpark, the names must match: Table.cast raises otherwise.
            table = table.cast(target)
        elif isinstance(schema, (list, tuple)):
            table = table.rename_columns(list(schema))
        return table
    rows = list(data)
    names: Optional[List[str]] = None
    if isinstance(schema, (list, tuple)):
        names, schema = list(schema), None
    if rows and isinstance(rows[0], dict):
        # Fields by name: the schema's, or when inferring each row's keys in sorted order, the
        # rows merged as PySpark merges their inferred structs (new keys go last).
        if isinstance(schema, StructType):
            keys = schema.names
        else:
            keys = list(dict.fromkeys(k for r in rows for k in sorted(r.keys())))
        rows = [tuple(r.get(k) for k in keys) for r in rows]
        names = names or keys
    elif rows and isinstance(rows[0], Row) and _field_names(rows[0]) is not None:
        names = names or _field_names(rows[0])
    elif rows and not isinstance(rows[0], (tuple, list)):
        rows = [(r,) for r in rows]
        names = names or ["value"]
    width = len(rows[0]) if rows else (len(schema.fields) if isinstance(schema, StructType) else 0)
    if isinstance(schema, DataType) and not isinstance(schema, StructType):
        schema = StructType([StructField("value", schema)])
    if schema is None:
        if not rows:
            raise _empty_schema_error()
        names = names or [f"_{i + 1}" for i in range(width)]
        schema = StructType([
            StructField(name, _infer_column([r[i] for r in rows]), True)
            for i, name in enumerate(names)
        ])
    columns = list(zip(*rows)) if rows else [[] for _ in schema.fields]
    types = [_CORE_TYPE_NAMES.get(type(f.dataType)) for f in schema.fields]
    if None not in types:
        core = session._core.from_columns(
            schema.names, types, [f.nullable for f in schema.fields], columns)
        if core is not None:
            return core
    arrow_schema = to_arrow_schema(schema)
    arrays = [pa.array([_to_arrow_value(v, f.type) for v in col], type=f.type)
              for col, f in zip(columns, arrow_schema)]
    return pa.Table.from_arrays(arrays, schema=arrow_schema)


def _infer_column(values: Iterable[Any]) -> DataType:
    """The type PySpark infers for a column: the types of all its values, merged."""
    inferred: DataType = NullType()
    for value in values:
        if value is not None:
            inferred = _merge_types(inferred, _infer_type(value))
    if not _has_null_type(inferred):
        return inferred
    raise PySparkValueError(
        "Some of types cannot be determined after inferring.",
        errorClass="CANNOT_DETERMINE_TYPE", messageParameters={},
    )


def _merge_types(a: DataType, b: DataType) -> DataType:
    """The type of values inferred as `a` in some rows and `b` in others (PySpark's rule)."""
    if isinstance(a, NullType):
        return b
    if isinstance(b, NullType) or a == b:
        return a
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return ArrayType(_merge_types(a.elementType, b.elementType), True)
    if isinstance(a, MapType) and isinstance(b, MapType):
        return MapType(_merge_types(a.keyType, b.keyType),
                       _merge_types(a.valueType, b.valueType), True)
    if isinstance(a, StructType) and isinstance(b, StructType):
        theirs = {f.name: f.dataType for f in b.fields}
        fields = [
            StructField(f.name, _merge_types(f.dataType, theirs.get(f.name, NullType())), True)
            for f in a.fields
        ]
        fields += [f for f in b.fields if f.name not in a.names]
        return StructType(fields)
    raise PySparkTypeError(
        f"Can not merge type `{type(a).__name__}` and `{type(b).__name__}`.",
        errorClass="CANNOT_MERGE_TYPE",
        messageParameters={"data_type1": type(a).__name__, "data_type2": type(b).__name__},
    )


def _has_null_type(t: DataType) -> bool:
    if isinstance(t, NullType):
        return True
    if isinstance(t, ArrayType):
        return _has_null_type(t.elementType)
    if isinstance(t, MapType):
        return _has_null_type(t.keyType) or _has_null_type(t.valueType)
    if isinstance(t, StructType):
        return any(_has_null_type(f.dataType) for f in t.fields)
    return False


def _empty_schema_error() -> PySparkValueError:
    return PySparkValueError(
        "Can not infer schema from an empty dataset.",
        errorClass="CANNOT_INFER_EMPTY_SCHEMA", messageParameters={},
    )


def _from_pandas(frame: Any, schema: Any, arrow: bool, time_zone: str) -> pa.Table:
    """A pandas DataFrame as PySpark converts it (the index is dropped).

    By default (spark.sql.execution.arrow.pyspark.enabled false) PySpark converts the values
    row by row: integers become bigint, floats double (NaN stays NaN), naive datetimes are local
    time. With Arrow enabled it keeps pandas' types, reads NaN as null and naive datetimes in the
    session time zone.
    """
    names = [str(c) for c in frame.columns]
    if isinstance(schema, StructType):
        names = schema.names
    elif isinstance(schema, (list, tuple)):
        names, schema = [str(n) for n in schema], None
    target = to_arrow_schema(schema) if isinstance(schema, StructType) else None
    if arrow:
        table = pa.Table.from_pandas(frame, preserve_index=False)
        table = _normalize_arrow(table.rename_columns(names), time_zone, target)
    else:
        if target is None and len(frame) == 0:
            raise _empty_schema_error()
        arrays = []
        for i in range(len(frame.columns)):
            wanted = target.field(i).type if target is not None else None
            arrays.append(_pandas_column(frame.iloc[:, i], wanted))
        table = pa.Table.from_arrays(arrays, names=names)
        table = _normalize_arrow(table, time_zone, target)
    if target is not None:
        table = table.cast(target)
    return table


def _pandas_column(series: Any, wanted: Any) -> pa.Array:
    """One pandas column as PySpark's row-by-row conversion types it."""
    kind = getattr(series.dtype, "kind", "O")
    numpy_dtype = type(series.dtype).__module__.startswith("numpy")
    naive_wanted = wanted is not None and pa.types.is_timestamp(wanted) and wanted.tz is None
    if kind in "iu" and numpy_dtype:
        return pa.array(series.to_numpy(), from_pandas=False).cast(pa.int64())
    if kind == "f" and numpy_dtype:
        return pa.array(series.to_numpy(), from_pandas=False).cast(pa.float64())
    if kind == "b" and numpy_dtype:
        return pa.array(series.to_numpy(), from_pandas=False)
    if kind == "M":
        if getattr(series.dt, "tz", None) is None and not naive_wanted:
            # Naive values are local time, as PySpark reads each datetime.
            import time

            if time.timezone == 0 and not time.daylight:
                series = series.dt.tz_localize("UTC")
            else:
                import pandas as pd

                return pa.array(
                    [None if pd.isna(v) else v.to_pydatetime(warn=False).astimezone()
                     for v in series.tolist()],
                    pa.timestamp("us", "UTC"),
                )
        return pa.array(series, from_pandas=True)
    import pandas as pd

    # pandas marks a missing value in an object column with None, NaN, NaT or NA.
    values = [
        None if v is None or v is pd.NaT or v is pd.NA or (isinstance(v, float) and v != v)
        else v
        for v in series.tolist()
    ]
    kind_type = wanted if wanted is not None else to_arrow_type(_infer_column(values))
    return pa.array([_to_arrow_value(v, kind_type) for v in values], type=kind_type)


def _to_arrow_value(value: Any, t: Any = None) -> Any:
    """A Python value of a row made ready for pa.array with Arrow type `t`."""
    import datetime

    if value is None:
        return None
    if isinstance(value, datetime.datetime) and value.tzinfo is None:
        if t is not None and pa.types.is_timestamp(t) and t.tz is None:
            return value  # TIMESTAMP_NTZ keeps the wall-clock time
        return value.astimezone()  # naive datetimes are local time, as in PySpark
    struct = t is not None and pa.types.is_struct(t)
    if isinstance(value, Row) and _field_names(value) is not None:
        types = {f.name: f.type for f in t} if struct else {}
        return {n: _to_arrow_value(v, types.get(n)) for n, v in zip(_field_names(value), value)}
    if struct and isinstance(value, (tuple, list)):
        return {f.name: _to_arrow_value(v, f.type) for f, v in zip(t, value)}
    if struct and isinstance(value, dict):
        return {f.name: _to_arrow_value(value.get(f.name), f.type) for f in t}
    if isinstance(value, dict):
        item = t.item_type if t is not None and pa.types.is_map(t) else None
        return {k: _to_arrow_value(v, item) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        element = t.value_type if t is not None and pa.types.is_list(t) else None
        return [_to_arrow_value(v, element) for v in value]
    return value


def _normalize_arrow(table: pa.Table, time_zone: str, target: Any = None) -> pa.Table:
    """Arrow types the core does not use, converted to the Spark type they stand for.

    A timestamp without a time zone is a TimestampType in the session time zone, as PySpark
    reads Arrow data, unless the target schema asks for a TIMESTAMP_NTZ there.
    """
    columns = []
    for i, (f, column) in enumerate(zip(table.schema, table.columns)):
        t = f.type
        wanted = target.field(i).type if target is not None and i < len(target) else None
        if pa.types.is_large_string(t) or pa.types.is_string_view(t):
            column = column.cast(pa.string())
        elif pa.types.is_timestamp(t):
            if t.tz is None and not (wanted is not None and pa.types.is_timestamp(wanted)
                                     and wanted.tz is None):
                column = pc.assume_timezone(column.cast(pa.timestamp("us")), time_zone)
            column = column.cast(pa.timestamp("us", "UTC" if column.type.tz else None))
        elif pa.types.is_dictionary(t):
            column = column.cast(t.value_type)
        elif pa.types.is_uint8(t) or pa.types.is_uint16(t):
            column = column.cast(pa.int32())
        elif pa.types.is_uint32(t) or pa.types.is_uint64(t):
            column = column.cast(pa.int64())
        columns.append(column)
    schema = pa.schema(
        [pa.field(f.name, c.type, f.nullable) for f, c in zip(table.schema, columns)]
    )
    return pa.Table.from_arrays(columns, schema=schema)
