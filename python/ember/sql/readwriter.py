"""DataFrameReader, as pyspark.sql.DataFrameReader (spark.read)."""

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Union

from ember.errors import PySparkTypeError
from ember.sql.dataframe import DataFrame
from ember.sql.types import StructType

if TYPE_CHECKING:
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
        return self._session.table(tableName)
