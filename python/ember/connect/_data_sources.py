"""Python data sources (spark.dataSource.register) as the engine reads and writes them: the client's
pickled DataSource class instantiated with the reader's options, its schema, its batch reader's
partitions read one after the other, and its stream reader's offsets as JSON text, as Spark's
Python worker runs them (its own helpers convert the rows). Called by the engine through
_functions.Runner with the GIL taken for each call."""

from __future__ import annotations

import contextlib
import functools
import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List


def _reported(function: Any) -> Any:
    """An exception of the source's code reaches the client with its traceback, as Spark's
    worker reports it (PythonException); what Spark refuses at analysis (AnalysisError) passes
    as it is."""
    from ._functions import AnalysisError, UserFunctionError, _traceback_text

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except AnalysisError:
            raise
        except Exception as error:
            raise UserFunctionError(_traceback_text(error)) from None

    return call


def _instance(cls: Any, options: Dict[str, str]) -> Any:
    from pyspark.sql.datasource import CaseInsensitiveDict

    return cls(options=CaseInsensitiveDict(options))


@_reported
def schema_text(cls: Any, options: Dict[str, str]) -> str:
    """The source's schema() as DDL text (it may return a StructType or DDL itself)."""
    schema = _instance(cls, options).schema()
    if isinstance(schema, str):
        return schema
    return ", ".join(f"`{field.name.replace('`', '``')}` {field.dataType.simpleString()}"
                     for field in schema.fields)


@_reported
def read(cls: Any, arrow_schema: Any, options: Dict[str, str]) -> Any:
    """A batch read: every partition's rows, in order, as one Arrow batch."""
    from pyspark.errors import PySparkRuntimeError
    from pyspark.sql.datasource import DataSourceReader, InputPartition

    source = _instance(cls, options)
    spark_schema = _spark_schema(arrow_schema)
    reader = _checked(source.reader(spark_schema), DataSourceReader)
    try:
        partitions = reader.partitions()
        if not isinstance(partitions, list):
            raise PySparkRuntimeError(
                errorClass="DATA_SOURCE_TYPE_MISMATCH",
                messageParameters={"expected": "'partitions' to return a list",
                                   "actual": f"'{type(partitions).__name__}'"})
        if not all(isinstance(p, InputPartition) for p in partitions):
            raise PySparkRuntimeError(
                errorClass="DATA_SOURCE_TYPE_MISMATCH",
                messageParameters={
                    "expected": "elements in 'partitions' to be of type 'InputPartition'",
                    "actual": ", ".join(f"'{type(p).__name__}'" for p in partitions)})
        partitions = partitions or [None]
    except NotImplementedError:
        partitions = [None]
    return _batch([_read_partition(reader, p, spark_schema, source) for p in partitions],
                  arrow_schema)


@_reported
def write(cls: Any, options: Dict[str, str], overwrite: bool, batch_id: int, rows: Any) -> None:
    """The rows through the source's writer (its streamWriter for a micro-batch, batch_id >= 0),
    then commit of the writer's message, or abort and the error, as Spark's job does with one
    task."""
    from pyspark.sql import Row
    from pyspark.sql.datasource import DataSourceStreamWriter, DataSourceWriter

    from ._functions import _to_python

    source = _instance(cls, options)
    schema = _spark_schema(rows.schema)
    stream = batch_id >= 0
    writer = (_checked(source.streamWriter(schema, overwrite), DataSourceStreamWriter) if stream
              else _checked(source.writer(schema, overwrite), DataSourceWriter))
    names = rows.schema.names
    columns = [_to_python(column) for column in rows.columns]
    records = (Row(**dict(zip(names, values))) for values in zip(*columns))
    try:
        with _task():
            messages = [writer.write(records)]
    except Exception:
        if stream:
            writer.abort([None], batch_id)
        else:
            writer.abort([None])
        raise
    if stream:
        writer.commit(messages, batch_id)
    else:
        writer.commit(messages)


class StreamReader:
    """A stream reader (DataSourceStreamReader, or a SimpleDataSourceStreamReader through
    PySpark's own wrapper) with offsets as JSON text, as the offset log keeps them."""

    @_reported
    def __init__(self, cls: Any, arrow_schema: Any, options: Dict[str, str]) -> None:
        from pyspark.sql.datasource import DataSourceStreamReader
        from pyspark.sql.datasource_internal import _streamReader

        self._source = _instance(cls, options)
        self._arrow_schema = arrow_schema
        self._spark_schema = _spark_schema(arrow_schema)
        self._reader = _checked(_streamReader(self._source, self._spark_schema),
                                DataSourceStreamReader)

    @_reported
    def initial_offset(self) -> str:
        return json.dumps(self._reader.initialOffset())

    @_reported
    def latest_offset(self) -> str:
        return json.dumps(self._reader.latestOffset())

    @_reported
    def read(self, start: str, end: str) -> Any:
        partitions = self._reader.partitions(json.loads(start), json.loads(end))
        return _batch([_read_partition(self._reader, p, self._spark_schema, self._source)
                       for p in partitions], self._arrow_schema)

    @_reported
    def commit(self, end: str) -> None:
        self._reader.commit(json.loads(end))

    @_reported
    def stop(self) -> None:
        self._reader.stop()


def _checked(made: Any, expected: type) -> Any:
    """A reader or writer of the class Spark requires (DATA_SOURCE_TYPE_MISMATCH, an analysis
    error in Spark)."""
    from ._functions import AnalysisError

    if not isinstance(made, expected):
        raise AnalysisError(
            "DATA_SOURCE_TYPE_MISMATCH",
            f"Expected an instance of {expected.__name__}, but got '{type(made).__name__}'.",
            "42K03")
    return made


@contextlib.contextmanager
def _task() -> Any:
    """A TaskContext (partition 0) while the source's code runs, as in a Spark task: readers
    and writers may ask TaskContext.get() for their partition."""
    from pyspark.taskcontext import TaskContext

    from ._functions import _TASK_CONTEXT

    with _TASK_CONTEXT:
        context = TaskContext()
        context._partitionId = 0
        TaskContext._setTaskContext(context)
        try:
            yield
        finally:
            TaskContext._setTaskContext(None)  # type: ignore[arg-type]


def _spark_schema(arrow_schema: Any) -> Any:
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(arrow_schema)


def _read_partition(reader: Any, partition: Any, spark_schema: Any, source: Any) -> List[Any]:
    """One partition's rows as Arrow batches, checked and converted by Spark's own helper."""
    from collections.abc import Iterator as IteratorType

    from pyspark.errors import PySparkRuntimeError
    from pyspark.sql.worker.plan_data_source_read import records_to_arrow_batches

    with _task():
        output = reader.read(partition)
    if not isinstance(output, IteratorType):
        raise PySparkRuntimeError(
            errorClass="DATA_SOURCE_INVALID_RETURN_TYPE",
            messageParameters={"type": type(output).__name__, "name": source.name(),
                               "supported_types": "iterator"})
    with _task():
        return list(records_to_arrow_batches(output, 10000, spark_schema, source))


def _batch(parts: List[List[Any]], arrow_schema: Any) -> Any:
    """The partitions' batches as one batch of the engine's schema."""
    import pyarrow as pa

    columns: List[List[Any]] = [[] for _ in arrow_schema]
    for batches in parts:
        for batch in batches:
            for i, field in enumerate(arrow_schema):
                column = batch.column(field.name) if field.name in batch.schema.names \
                    else batch.column(i)
                columns[i].append(column.cast(field.type))
    return pa.RecordBatch.from_arrays(
        [pa.concat_arrays(chunks) if chunks else pa.array([], type=field.type)
         for chunks, field in zip(columns, arrow_schema)], schema=arrow_schema)
