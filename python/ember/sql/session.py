"""SparkSession, as pyspark.sql.SparkSession, backed by a C++ Session."""

import threading
from typing import Any, Dict, Iterable, List, Optional, Union

import pyarrow as pa

from ember import _core
from ember.errors import PySparkTypeError, PySparkValueError
from ember.sql.dataframe import DataFrame
from ember.sql.readwriter import DataFrameReader
from ember.sql.types import (
    DataType, NullType, Row, StructField, StructType, _field_names, _infer_type, _parse_ddl,
    to_arrow_schema, from_arrow_schema, _create_row,
)

_DEFAULTS = {
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.shuffle.partitions": "2",
    "spark.app.name": "ember",
}


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
            errorClass="SQL_CONF_NOT_FOUND",
            messageParameters={"sqlConf": f'"{key}"'},
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
    _lock = threading.RLock()

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
        self.conf = RuntimeConfig(self._core)
        self.catalog = Catalog(self)
        from ember.sql.streaming import StreamingQueryManager

        self.streams = StreamingQueryManager()
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
        table = _to_arrow_table(data, schema)
        return DataFrame(self._core.from_arrow(table.__arrow_c_stream__()), self)


def _to_arrow_table(data: Any, schema: Any) -> pa.Table:
    if isinstance(schema, str):
        parsed = _parse_ddl(schema)
        schema = parsed if isinstance(parsed, StructType) else StructType([StructField("value", parsed)])
    if hasattr(data, "__arrow_c_stream__") and not isinstance(data, (list, tuple)):
        table = pa.table(data)
    elif type(data).__name__ == "DataFrame" and hasattr(data, "to_dict"):  # pandas
        table = pa.Table.from_pandas(data, preserve_index=False)
    else:
        table = None
    if table is not None:
        table = _normalize_arrow(table)
        if isinstance(schema, StructType):
            table = table.rename_columns(schema.names).cast(to_arrow_schema(schema))
        elif isinstance(schema, (list, tuple)):
            table = table.rename_columns(list(schema))
        return table
    rows = list(data)
    names: Optional[List[str]] = None
    if isinstance(schema, (list, tuple)):
        names, schema = list(schema), None
    if rows and isinstance(rows[0], dict):
        names = names or list(rows[0].keys())
        rows = [tuple(r.get(n) for n in names) for r in rows]
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
            raise PySparkValueError(errorClass="CANNOT_INFER_EMPTY_SCHEMA", messageParameters={})
        names = names or [f"_{i + 1}" for i in range(width)]
        fields = []
        for i, name in enumerate(names):
            inferred: DataType = NullType()
            for r in rows:
                if r[i] is not None:
                    inferred = _infer_type(r[i])
                    break
            if isinstance(inferred, NullType):
                raise PySparkValueError(
                    errorClass="CANNOT_DETERMINE_TYPE", messageParameters={}
                )
            fields.append(StructField(name, inferred, True))
        schema = StructType(fields)
    columns = list(zip(*rows)) if rows else [[] for _ in schema.fields]
    arrow_schema = to_arrow_schema(schema)
    arrays = [pa.array([_to_arrow_value(v) for v in col], type=f.type)
              for col, f in zip(columns, arrow_schema)]
    return pa.Table.from_arrays(arrays, schema=arrow_schema)


def _to_arrow_value(value: Any) -> Any:
    import datetime

    if isinstance(value, datetime.datetime) and value.tzinfo is None:
        return value.astimezone()  # naive datetimes are local time, as in PySpark
    if isinstance(value, Row) and _field_names(value) is not None:
        return {n: _to_arrow_value(v) for n, v in zip(_field_names(value), value)}
    return value


def _normalize_arrow(table: pa.Table) -> pa.Table:
    """Arrow types the core does not use, converted to the Spark type they stand for."""
    fields = []
    for f in table.schema:
        t = f.type
        if pa.types.is_large_string(t) or pa.types.is_string_view(t):
            t = pa.string()
        elif pa.types.is_timestamp(t):
            t = pa.timestamp("us", "UTC" if t.tz else None)
        elif pa.types.is_dictionary(t):
            t = t.value_type
        elif pa.types.is_uint8(t) or pa.types.is_uint16(t):
            t = pa.int32()
        elif pa.types.is_uint32(t) or pa.types.is_uint64(t):
            t = pa.int64()
        fields.append(pa.field(f.name, t, f.nullable))
    return table.cast(pa.schema(fields))
