"""DataFrameReader, as pyspark.sql.DataFrameReader (spark.read)."""

from __future__ import annotations

import time

from ember.errors import PySparkTypeError
from ember.sql.dataframe import DataFrame
from ember.sql.types import StructType

TYPE_CHECKING = False  # typing costs milliseconds at start-up
if TYPE_CHECKING:
    from typing import Any, Dict, List, Optional, Union
    from ember.sql.session import SparkSession


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _schema_ddl(schema: Union[StructType, str]) -> str:
    if isinstance(schema, StructType):
        return schema.toDDL()
    if isinstance(schema, str):
        return schema
    raise PySparkTypeError(
        errorClass="NOT_STR_OR_STRUCT",
        messageParameters={"arg_name": "schema", "arg_type": type(schema).__name__},
    )


class DataFrameReader:
    def __init__(self, session: "SparkSession"):
        self._session = session
        self._format = "parquet"
        self._schema: Optional[str] = None
        self._options: Dict[str, str] = {}

    def format(self, source: str) -> "DataFrameReader":
        self._format = source
        return self

    def schema(self, schema: Union[StructType, str]) -> "DataFrameReader":
        self._schema = _schema_ddl(schema)
        return self

    def option(self, key: str, value: Any) -> "DataFrameReader":
        self._options[key] = _option_text(value)
        return self

    def options(self, **options: Any) -> "DataFrameReader":
        for k, v in options.items():
            self.option(k, v)
        return self

    def load(self, path: Union[str, List[str], None] = None, format: Optional[str] = None,
             schema: Any = None, **options: Any) -> DataFrame:
        if format:
            self.format(format)
        if schema is not None:
            self.schema(schema)
        self.options(**options)
        paths = [path] if isinstance(path, str) else list(path or [])
        core = self._session._core.read_files(self._format, paths, self._schema or "", self._options)
        return DataFrame(core, self._session)

    def _read(self, fmt: str, path: Any, schema: Any, options: Dict[str, Any]) -> DataFrame:
        options = {k: v for k, v in options.items() if v is not None}
        return self.load(path, format=fmt, schema=schema, **options)

    def json(self, path: Any, schema: Any = None, **options: Any) -> DataFrame:
        return self._read("json", path, schema, options)

    def csv(self, path: Any, schema: Any = None, **options: Any) -> DataFrame:
        return self._read("csv", path, schema, options)

    def parquet(self, *paths: str, **options: Any) -> DataFrame:
        return self._read("parquet", list(paths), None, options)

    def text(self, paths: Any, **options: Any) -> DataFrame:
        return self._read("text", paths, None, options)

    def table(self, tableName: str) -> DataFrame:
        # Iceberg's read options for time travel.
        version = self._options.get("snapshot-id") or self._options.get("versionAsOf")
        if version:
            return self._session.sql(f"SELECT * FROM {tableName} VERSION AS OF {int(version)}")
        millis = self._options.get("as-of-timestamp")
        if millis:
            # Milliseconds since the epoch, as an exact UTC instant.
            seconds, fraction = divmod(int(millis), 1000)
            at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{fraction:03d}Z"
            return self._session.sql(f"SELECT * FROM {tableName} TIMESTAMP AS OF '{at}'")
        timestamp = self._options.get("timestampAsOf")
        if timestamp:
            text = timestamp.replace("'", "''")
            return self._session.sql(f"SELECT * FROM {tableName} TIMESTAMP AS OF '{text}'")
        return self._session.table(tableName)


class DataFrameWriter:
    """df.write: files (parquet, json, csv) under a path, or tables in Iceberg catalogs and the
    session catalog."""

    def __init__(self, df: DataFrame):
        self._df = df
        self._mode = "errorifexists"
        self._format: Optional[str] = None
        self._options: Dict[str, str] = {}
        self._partition_by: List[str] = []

    def mode(self, saveMode: Optional[str]) -> "DataFrameWriter":
        self._mode = (saveMode or "errorifexists").lower()
        if self._mode == "default":
            self._mode = "errorifexists"
        return self

    def partitionBy(self, *cols: Any) -> "DataFrameWriter":
        if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
            cols = tuple(cols[0])
        self._partition_by = list(cols)
        return self

    def save(self, path: Optional[str] = None, format: Optional[str] = None,
             mode: Optional[str] = None, partitionBy: Any = None, **options: Any) -> None:
        if format is not None:
            self.format(format)
        if mode is not None:
            self.mode(mode)
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        self.options(**options)
        self._df._df.save(self._format or "", path, self._options, self._mode, self._partition_by)

    def parquet(self, path: str, mode: Optional[str] = None, partitionBy: Any = None,
                compression: Optional[str] = None) -> None:
        self.save(path, "parquet", mode, partitionBy)

    def json(self, path: str, mode: Optional[str] = None, **options: Any) -> None:
        self.save(path, "json", mode, None)

    def csv(self, path: str, mode: Optional[str] = None, **options: Any) -> None:
        self.save(path, "csv", mode, None)

    def format(self, source: str) -> "DataFrameWriter":
        self._format = source
        return self

    def option(self, key: str, value: Any) -> "DataFrameWriter":
        self._options[key] = _option_text(value)
        return self

    def options(self, **options: Any) -> "DataFrameWriter":
        for k, v in options.items():
            self.option(k, v)
        return self

    def saveAsTable(self, name: str, format: Optional[str] = None, mode: Optional[str] = None,
                    partitionBy: Any = None, **options: Any) -> None:
        if mode is not None:
            self.mode(mode)
        if format is not None:
            self.format(format)
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        self._df.sparkSession._core.save_as_table(name, self._df._df, self._format or "",
                                                  self._mode, self._partition_by)

    def insertInto(self, tableName: str, overwrite: Optional[bool] = None) -> None:
        overwrite = overwrite if overwrite is not None else self._mode == "overwrite"
        self._df.sparkSession._core.insert_into(tableName, self._df._df, overwrite)


class DataFrameWriterV2:
    """df.writeTo(table)."""

    def __init__(self, df: DataFrame, table: str):
        self._df = df
        self._table = table
        self._partitioning: list = []
        self._properties: dict = {}
        self._provider = ""

    def using(self, provider: str) -> "DataFrameWriterV2":
        self._provider = provider
        return self

    def option(self, key: str, value: Any) -> "DataFrameWriterV2":
        return self

    def options(self, **options: Any) -> "DataFrameWriterV2":
        return self

    def tableProperty(self, property: str, value: str) -> "DataFrameWriterV2":
        self._properties[property] = str(value)
        return self

    def partitionedBy(self, col: Any, *cols: Any) -> "DataFrameWriterV2":
        """Columns (names or col(...)) and years/months/days/hours/bucket of one."""
        terms = []
        for c in (col,) + cols:
            if isinstance(c, str):
                terms.append(("identity", c, 0))
            elif getattr(c, "_partition", None):
                terms.append(c._partition)
            else:
                terms.append(("identity", c._c.name(), 0))
        self._partitioning = terms
        return self

    def _write(self, mode: str) -> None:
        self._df.sparkSession._core.write_table(self._table, self._df._df, mode,
                                                self._partitioning, self._properties,
                                                self._provider)

    def append(self) -> None:
        self._write("append")

    def create(self) -> None:
        self._write("create")

    def createOrReplace(self) -> None:
        self._write("create_or_replace")

    def replace(self) -> None:
        self._write("replace")

    def overwritePartitions(self) -> None:
        self._write("overwrite")
