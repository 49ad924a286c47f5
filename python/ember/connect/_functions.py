"""The Python functions a Connect client sends (foreachBatch, foreach, UDFs), run in this
interpreter when the server lives in it. Spark's server hands each batch to a Python
worker process that connects back as a Connect client of the query's session and reaches the
batch as a cached relation; here the same happens in-process: the engine (C++) caches the batch
and calls `Runner` on the query's thread with the GIL taken for the call only."""

from __future__ import annotations

import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, Tuple


class Runner:
    """Called as runner(command, foreach, session_id, relation_id, batch_id) for each batch of a
    foreachBatch or foreach function, and as runner.call_function(...) for a UDF's."""

    def __init__(self) -> None:
        self.url = ""  # the server's sc:// address, set once it listens
        self._lock = threading.Lock()
        self._sessions: Dict[str, Any] = {}
        # Unpickled once per query's function, as Spark's worker keeps it for a query's life.
        self._functions: Dict[Tuple[str, bytes], Callable] = {}

    def _session(self, session_id: str) -> Any:
        from pyspark.sql.connect.session import SparkSession

        with self._lock:
            spark = self._sessions.get(session_id)
            if spark is None:
                # A client of the query's own session, as Spark's worker is; built directly, so
                # the builder's default session stays the user's.
                spark = SparkSession(f"{self.url}/;session_id={session_id}")
                self._sessions[session_id] = spark
            return spark

    def _function(self, session_id: str, command: bytes) -> Callable:
        from pyspark.serializers import CPickleSerializer

        with self._lock:
            key = (session_id, command)
            function = self._functions.get(key)
            if function is None:
                function = CPickleSerializer().loads(command)
                self._functions[key] = function
            return function

    def call_function(self, command: bytes, eval_type: int, conf: dict, schema: Any,
                      array: Any, return_schema: Any) -> Any:
        """Calls a Python UDF (pickled with its return type) on one batch of its arguments,
        given and returned through Arrow's C data interface. `conf`, here and below: Spark's
        runner conf, the session's settings for how results convert."""
        return _call_function(self._function("", command), eval_type, schema, array,
                              return_schema, _safely(conf))

    def aggregate_groups(self, command: bytes, eval_type: int, conf: dict, schema: Any,
                         array: Any, return_schema: Any, groups_schema: Any, groups: Any) -> Any:
        """Calls a grouped-aggregate pandas_udf on each group of one batch (its rows the
        arguments, group after group), given and returned through Arrow's C data interface:
        a value per group."""
        return _aggregate_groups(self._function("", command), schema, array, return_schema,
                                 groups_schema, groups, _safely(conf))

    def map_batch(self, command: bytes, eval_type: int, conf: dict, schema: Any, array: Any,
                  output_schema: Any) -> Any:
        """Calls a mapInPandas or mapInArrow function on one batch, given and returned through
        Arrow's C data interface."""
        return _map_batch(self._function("", command), eval_type, schema, array, output_schema,
                          _safely(conf))

    def apply_to_groups(self, command: bytes, eval_type: int, rows_schema: Any, rows: Any,
                        groups_schema: Any, groups: Any, other_schema: Any, other_rows: Any,
                        output_schema: Any, state_schema: Any, timeout: Any, batch_time_ms: int,
                        watermark_ms: int, watermark_present: bool, conf: dict) -> Any:
        """Calls an applyInPandas, applyInArrow, applyInPandasWithState or cogroup function on
        each group of one batch, given and returned through Arrow's C data interface: (rows,
        states)."""
        import pyarrow as pa

        call = _GroupCall(
            rows=pa.RecordBatch._import_from_c_capsule(rows_schema, rows),
            groups=pa.RecordBatch._import_from_c_capsule(groups_schema, groups),
            other_rows=(None if other_schema is None
                        else pa.RecordBatch._import_from_c_capsule(other_schema, other_rows)),
            output_schema=pa.Schema._import_from_c_capsule(output_schema),
            state_type=(None if state_schema is None
                        else pa.Schema._import_from_c_capsule(state_schema).field(0).type),
            timeout=timeout, batch_time_ms=batch_time_ms, watermark_ms=watermark_ms,
            watermark_present=watermark_present,
            # Spark's runner conf: how results convert and match the schema.
            safe=_safely(conf),
            by_name=conf["spark.sql.legacy.execution.pandas.groupedMap.assignColumnsByName"]
            .lower() == "true",
            max_records=max(int(conf["spark.sql.execution.arrow.maxRecordsPerBatch"]), 1))
        return _apply_to_groups(self._function("", command), eval_type, call)

    def call_table_function(self, command: bytes, eval_type: int, conf: dict, schema: Any,
                            array: Any, result_schema: Any, analyzed: Any) -> Any:
        """Calls a Python UDTF on a batch of argument rows (its input, as a partition is in
        Spark's worker), given and returned through Arrow's C data interface: its rows, then
        the argument row each came from (terminate()'s: the last one)."""
        import pyarrow as pa

        return _call_table_function(
            self._function("", command), eval_type,
            pa.RecordBatch._import_from_c_capsule(schema, array),
            pa.Schema._import_from_c_capsule(result_schema), analyzed, _safely(conf),
            conf["spark.sql.session.timeZone"])

    def analyze_table_function(self, command: bytes, schema: Any, array: Any,
                               constant: list, tables: list) -> Any:
        """A UDTF's static analyze() for its arguments (one row: a constant argument's value,
        else NULL; `tables`: which are TABLE arguments), as _analyze_table_function gives
        it."""
        import pyarrow as pa

        return _analyze_table_function(self._function("", command),
                                       pa.RecordBatch._import_from_c_capsule(schema, array),
                                       constant, tables)

    def data_source_schema(self, command: bytes, options: dict) -> str:
        """A Python data source's schema() as DDL text."""
        from . import _data_sources

        return _data_sources.schema_text(self._function("", command), options)

    def data_source_read(self, command: bytes, schema: Any, options: dict) -> Any:
        """A batch read of a Python data source: its rows as an Arrow batch of `schema`."""
        import pyarrow as pa

        from . import _data_sources

        return _data_sources.read(self._function("", command),
                                  pa.Schema._import_from_c_capsule(schema), options)

    def data_source_stream(self, command: bytes, schema: Any, options: dict) -> Any:
        """A Python data source's stream reader, whose methods the engine calls."""
        import pyarrow as pa

        from . import _data_sources

        return _data_sources.StreamReader(self._function("", command),
                                          pa.Schema._import_from_c_capsule(schema), options)

    def data_source_write(self, command: bytes, options: dict, overwrite: bool, batch_id: int,
                          schema: Any, array: Any) -> None:
        """Writes rows (a batch through Arrow's C data interface) through a Python data
        source's writer; batch_id < 0 for a batch write."""
        import pyarrow as pa

        from . import _data_sources

        _data_sources.write(self._function("", command), options, overwrite, batch_id,
                            pa.RecordBatch._import_from_c_capsule(schema, array))

    def __call__(self, command: bytes, foreach: bool, session_id: str, relation_id: str,
                 batch_id: int) -> None:
        from pyspark.sql.connect.session import SparkSession

        spark = self._session(session_id)
        # The function may hold the session (a closure over `spark`, a DataFrame): unpickling
        # it looks for the active session of that id, on this thread, as in Spark's worker.
        active = SparkSession._active_session
        previous = getattr(active, "session", None)
        active.session = spark
        try:
            function = self._function(session_id, command)
            batch = spark._create_remote_dataframe(relation_id)
            if foreach:
                _foreach(function[0], batch, batch_id)
            else:
                function(batch, batch_id)
        finally:
            active.session = previous


# pyspark's TaskContext is one per process (a class attribute, as a Python worker runs one task
# at a time): foreach calls of concurrent queries take turns holding it.
_TASK_CONTEXT = threading.Lock()


def _foreach(function: Callable, batch: Any, batch_id: int) -> None:
    """foreach's function takes a partition's rows (one partition per batch here) and reads the
    batch id from the TaskContext, as in a Spark task."""
    with _TASK_CONTEXT:
        _foreach_task(function, batch, batch_id)


def _foreach_task(function: Callable, batch: Any, batch_id: int) -> None:
    from pyspark.taskcontext import TaskContext

    context = TaskContext()
    context._localProperties = {"streaming.sql.batchId": str(batch_id)}
    context._partitionId = 0
    TaskContext._setTaskContext(context)
    try:
        for _ in function(0, iter(batch.collect())):
            pass
    finally:
        TaskContext._setTaskContext(None)  # type: ignore[arg-type]


# Python UDFs ---------------------------------------------------------------------------------
# The engine calls Runner.call_function on one batch's argument columns, on a query's thread with
# the GIL taken for the call: the columns come without a copy (Arrow's C data interface) and the
# result goes back the same way. Values cross as Spark's Python worker gives and takes them.

_BATCHED_UDF = 100  # PythonEvalType.SQL_BATCHED_UDF: a function of a row's values, pickled
_ARROW_BATCHED_UDF = 101  # SQL_ARROW_BATCHED_UDF: the same with useArrow=True
_SCALAR_PANDAS_UDF = 200  # SQL_SCALAR_PANDAS_UDF: a function of pandas Series
_SCALAR_PANDAS_ITER_UDF = 204  # SQL_SCALAR_PANDAS_ITER_UDF: an iterator of Series to one


class UserFunctionError(Exception):
    """A UDF raised: the message is the traceback, as Spark's worker reports it."""


class AnalysisError(Exception):
    """A user's code that Spark refuses while analysing the query, not as its worker's error:
    the engine raises AnalysisException with `condition` and `sql_state`."""

    def __init__(self, condition: str, message: str, sql_state: str) -> None:
        super().__init__(message)
        self.condition, self.message, self.sql_state = condition, message, sql_state


def _call_function(udf: Tuple[Callable, Any], eval_type: int, schema: Any, array: Any,
                   return_schema: Any, safe: bool) -> Any:
    import pyarrow as pa

    batch = pa.RecordBatch._import_from_c_capsule(schema, array)
    return_type = pa.Schema._import_from_c_capsule(return_schema).field(0).type
    function, spark_type = udf
    try:
        if eval_type == _SCALAR_PANDAS_ITER_UDF:  # a function of one iterator
            return _call_on_series_iterator(function, batch, return_type, safe)
        function = _by_keyword(function, batch.schema.names)
        if eval_type == _SCALAR_PANDAS_UDF:
            return _call_on_series(function, batch, return_type, safe)
        return _call_on_rows(function, spark_type, batch, return_type,
                             exact=eval_type == _BATCHED_UDF)
    except Exception as error:
        raise UserFunctionError(_traceback_text(error)) from None


def _aggregate_groups(udf: Tuple[Callable, Any], schema: Any, array: Any, return_schema: Any,
                      groups_schema: Any, groups: Any, safe: bool) -> Any:
    """SQL_GROUPED_AGG_PANDAS_UDF: f(*series) per group, each Series with its own index from 0
    (as each group reaches Spark's worker as batches of its own); the values become one
    Series, converted as a scalar pandas_udf's result is."""
    import pandas as pd
    import pyarrow as pa

    batch = pa.RecordBatch._import_from_c_capsule(schema, array)
    bounds = pa.RecordBatch._import_from_c_capsule(groups_schema, groups)
    return_type = pa.Schema._import_from_c_capsule(return_schema).field(0).type
    function = _by_keyword(udf[0], batch.schema.names)
    try:
        series = [_to_pandas(column) for column in batch.columns]
        values = []
        for offset, length in zip(bounds.column("offset").to_pylist(),
                                  bounds.column("length").to_pylist()):
            values.append(function(*(s.iloc[offset:offset + length].reset_index(drop=True)
                                     for s in series)))
        if pa.types.is_nested(return_type):
            # A list or array is one value: each converts alone, as Spark's worker converts
            # pd.Series([value]) per group.
            return pa.concat_arrays([pa.array([], type=return_type)] + [
                _from_series(pd.Series([value]), return_type, safe) for value in values])
        return _from_series(pd.Series(values), return_type, safe)
    except Exception as error:
        raise UserFunctionError(_traceback_text(error)) from None


def _by_keyword(function: Callable, names: list) -> Callable:
    """`function` taking its arguments in the call's order, each named one (the argument
    column's name: the keyword the call passed it by) by its keyword, the others by position."""
    if not any(names):
        return function

    def call(*values: Any) -> Any:
        return function(*(v for n, v in zip(names, values) if not n),
                        **{n: v for n, v in zip(names, values) if n})

    return call


_ARROW_TABLE_UDF = 301  # SQL_ARROW_TABLE_UDF: an Arrow-optimized UDTF


def _analyze_table_function(handler: Any, batch: Any, constant: list, tables: list) -> Any:
    """Spark's analyze step for a UDTF without a return type: AnalyzeArguments in, the
    AnalyzeResult checked; a failure is Spark's TABLE_VALUED_FUNCTION_FAILED_TO_ANALYZE_IN_PYTHON.
    Gives (the schema as a serialized Connect DataType, the pickled result,
    withSinglePartition, partitionBy's names, orderBy's (name, ascending, nulls: 0 default,
    1 first, 2 last), select's (name, alias))."""
    import inspect

    from pyspark.errors import PySparkValueError
    from pyspark.serializers import CloudPickleSerializer
    from pyspark.sql.connect.types import pyspark_types_to_proto_types
    from pyspark.sql.pandas.types import from_arrow_type
    from pyspark.sql.types import StructType
    from pyspark.sql.udtf import (AnalyzeArgument, AnalyzeResult, OrderingColumn,
                                  PartitioningColumn, SelectedColumn)

    name = handler.__name__
    prefix = f"Failed to evaluate the user-defined table function '{name}'"
    try:
        if not isinstance(inspect.getattr_static(handler, "analyze", None), staticmethod):
            raise PySparkValueError(
                "Failed to execute the user defined table function because it has not "
                "implemented the 'analyze' static method or specified a fixed return type "
                "during registration time. Please add the 'analyze' static method or specify "
                "the return type, and try the query again.")
        args, kwargs = [], {}
        for field, column, is_constant, is_table in zip(batch.schema, batch.columns, constant,
                                                        tables):
            argument = AnalyzeArgument(
                dataType=from_arrow_type(field.type),
                value=_to_python(column)[0] if is_constant else None,
                isTable=is_table, isConstantExpression=is_constant)
            if field.name:
                kwargs[field.name] = argument
            else:
                args.append(argument)
        try:
            inspect.signature(handler.analyze).bind(*args, **kwargs)
        except TypeError as error:
            raise PySparkValueError(
                f"{prefix} because the function arguments did not match the expected "
                f"signature of the static 'analyze' method ({error}). Please update the query "
                "so that this table function call provides arguments matching the expected "
                "signature, or else update the table function so that its static 'analyze' "
                "method accepts the provided arguments, and then try the query again.") from None
        result = handler.analyze(*args, **kwargs)
        if not isinstance(result, AnalyzeResult):
            raise PySparkValueError(
                f"{prefix} because the static 'analyze' method expects a result of type "
                "pyspark.sql.udtf.AnalyzeResult, but instead this method returned a value of "
                f"type: {type(result)}")
        if not isinstance(result.schema, StructType):
            raise PySparkValueError(
                f"{prefix} because the static 'analyze' method expects a result of type "
                "pyspark.sql.udtf.AnalyzeResult with a 'schema' field comprising a StructType, "
                f"but the 'schema' field had the wrong type: {type(result.schema)}")
        if not any(tables) and (result.withSinglePartition or result.partitionBy):
            field = "withSinglePartition' field set to 'true" if result.withSinglePartition \
                else "partitionBy' list set to non-empty"
            raise PySparkValueError(
                f"{prefix} because the static 'analyze' method returned an 'AnalyzeResult' "
                f"object with the '{field}', but the function call did not provide any table "
                "argument. Please update the query so that it provides a table argument, or "
                "else update the table function so that its 'analyze' method returns an "
                "'AnalyzeResult' object without it, and then try the query again.")
        for field, kind in (("partitionBy", PartitioningColumn), ("orderBy", OrderingColumn),
                            ("select", SelectedColumn)):
            value = getattr(result, field)
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, kind) for v in value):
                raise PySparkValueError(
                    f"{prefix} because the static 'analyze' method returned an 'AnalyzeResult' "
                    f"object with the '{field}' field set to a value besides a list or tuple of "
                    f"'{kind.__name__}' objects. Please update the table function and then try "
                    "the query again.")
    except Exception as error:
        raise AnalysisError(
            "TABLE_VALUED_FUNCTION_FAILED_TO_ANALYZE_IN_PYTHON",
            "Failed to analyze the Python user defined table function: "
            + _traceback_text(error), "38000") from None
    nulls = {None: 0, True: 1, False: 2}
    # Pickled as Spark's worker pickles it (cloudpickle: a class of the user's own, such as an
    # AnalyzeResult subclass, goes by value).
    return (pyspark_types_to_proto_types(result.schema).SerializeToString(),
            CloudPickleSerializer().dumps(result), bool(result.withSinglePartition),
            [column.name for column in result.partitionBy],
            [(column.name, bool(column.ascending), nulls[column.overrideNullsFirst])
             for column in result.orderBy],
            [(column.name, column.alias or "") for column in result.select])


def _call_table_function(handler: Any, eval_type: int, batch: Any, result_schema: Any,
                         analyzed: Any, safe: bool, time_zone: str) -> Any:
    """Spark's worker for a UDTF, on one partition: the handler made once, eval() on each
    argument row (by position, or by keyword where the column has a name), then terminate()
    and cleanup(); each row checked and converted as Spark's worker does."""
    try:
        return _run_table_function(handler, eval_type, batch, result_schema, analyzed, safe,
                                   time_zone)
    except Exception as error:
        raise UserFunctionError(_traceback_text(error)) from None


def _run_table_function(handler: Any, eval_type: int, batch: Any, result_schema: Any,
                        analyzed: Any, safe: bool, time_zone: str) -> Any:
    import dataclasses
    import inspect
    import pickle

    import pyarrow as pa

    from pyspark.errors import PySparkRuntimeError
    from pyspark.sql.pandas.types import from_arrow_schema
    from pyspark.sql.udtf import SkipRestOfInputTableException

    output_schema = result_schema.remove(len(result_schema) - 1)
    name = handler.__name__
    init_args = inspect.getfullargspec(handler).args
    create = handler
    if analyzed is not None:
        if len(init_args) > 2:
            raise PySparkRuntimeError(
                errorClass="UDTF_CONSTRUCTOR_INVALID_IMPLEMENTS_ANALYZE_METHOD",
                messageParameters={"name": name})
        if len(init_args) == 2:
            result = pickle.loads(analyzed)
            create = lambda: handler(dataclasses.replace(result))  # noqa: E731
    elif len(init_args) > 1:
        raise PySparkRuntimeError(errorClass="UDTF_CONSTRUCTOR_INVALID_NO_ANALYZE_METHOD",
                                  messageParameters={"name": name})
    try:
        udtf = create()
    except Exception as error:
        raise PySparkRuntimeError(errorClass="UDTF_EXEC_ERROR",
                                  messageParameters={"method_name": "__init__",
                                                     "error": str(error)})
    if not hasattr(udtf, "eval"):
        raise PySparkRuntimeError(
            "Failed to execute the user defined table function because it has not "
            "implemented the 'eval' method. Please add the 'eval' method and try the query "
            "again.")
    names = batch.schema.names
    try:
        inspect.signature(udtf.eval).bind(*[i for i, n in enumerate(names) if not n],
                                          **{n: i for i, n in enumerate(names) if n})
    except TypeError as error:
        raise PySparkRuntimeError(
            errorClass="UDTF_EVAL_METHOD_ARGUMENTS_DO_NOT_MATCH_SIGNATURE",
            messageParameters={"name": name, "reason": str(error)}) from None

    width = len(output_schema)
    spark_type = from_arrow_schema(output_schema)
    arrow = eval_type == _ARROW_TABLE_UDF
    check_nulls = _null_checker(spark_type)
    rows: list = []    # the rows, or with Arrow, a batch per call
    owners: list = []  # per row: its argument row

    def run(method: Callable, owner: Any, args: Any, kwargs: dict) -> None:
        try:
            result = method(*args, **kwargs)
        except SkipRestOfInputTableException:
            raise
        except Exception as error:
            raise PySparkRuntimeError(errorClass="UDTF_EXEC_ERROR",
                                      messageParameters={"method_name": method.__name__,
                                                         "error": str(error)})
        if result is None:
            return
        try:
            iterator = iter(result)
        except TypeError:
            raise PySparkRuntimeError(errorClass="UDTF_RETURN_NOT_ITERABLE",
                                      messageParameters={"type": type(result).__name__,
                                                         "func": method.__name__}) from None
        produced = list(iterator)  # an exception in a generator's body is raised as it is
        for row in produced:
            if not arrow and (type(row) is not tuple or len(row) != width):
                _check_table_function_row(row, width, method.__name__)
            if check_nulls is not None and row is not None:
                check_nulls(row)
        if arrow:
            rows.append(_table_function_frame(produced, output_schema, method.__name__, safe,
                                              time_zone))
            owners.extend([owner] * rows[-1].num_rows)
        else:
            rows.extend(produced)
            owners.extend([owner] * len(produced))

    columns = [_to_python(column) for column in batch.columns]
    positional = [column for column, name in zip(columns, names) if not name]
    keyed = [(name, column) for column, name in zip(columns, names) if name]
    if keyed:
        calls = ((tuple(c[i] for c in positional), {n: c[i] for n, c in keyed})
                 for i in range(batch.num_rows))
    elif positional:
        calls = ((args, {}) for args in zip(*positional))
    else:
        calls = (((), {}) for _ in range(batch.num_rows))
    try:
        try:
            for i, (args, kwargs) in enumerate(calls):
                run(udtf.eval, i, args, kwargs)
        except SkipRestOfInputTableException:
            pass
        if hasattr(udtf, "terminate"):
            # Spark joins terminate()'s rows with the partition's last input row.
            run(udtf.terminate, batch.num_rows - 1 if batch.num_rows else None, (), {})
    finally:
        if hasattr(udtf, "cleanup"):
            udtf.cleanup()

    if arrow:
        columns_out = [pa.concat_arrays([pa.array([], type=field.type)]
                                        + [batch.column(i).cast(field.type) for batch in rows])
                       for i, field in enumerate(output_schema)]
    else:
        # Column by column, each value as Spark's pickled UDTFs convert it (of another type:
        # NULL).
        fields = spark_type.fields
        tuples = [row if type(row) is tuple else _row_tuple(row, fields) for row in rows]
        columns_out = []
        for i, (field, arrow_field) in enumerate(zip(fields, output_schema)):
            coerce = _coercion(field.dataType)
            columns_out.append(pa.array([None if r[i] is None else coerce(r[i]) for r in tuples],
                                        type=arrow_field.type))
    return pa.RecordBatch.from_arrays(columns_out + [pa.array(owners, type=pa.int64())],
                                      schema=result_schema)


def _check_table_function_row(row: Any, width: int, method: str) -> None:
    """Spark's worker's checks of a row that is not a tuple of the schema's width."""
    from pyspark.errors import PySparkRuntimeError

    if row is None:
        return
    if hasattr(row, "__len__") and len(row) != width:
        raise PySparkRuntimeError(
            errorClass="UDTF_RETURN_SCHEMA_MISMATCH",
            messageParameters={"expected": str(width), "actual": str(len(row)), "func": method})
    if not (isinstance(row, (list, dict, tuple)) or hasattr(row, "__dict__")):
        raise PySparkRuntimeError(
            errorClass="UDTF_INVALID_OUTPUT_ROW_TYPE",
            messageParameters={"type": type(row).__name__, "func": method})


def _row_tuple(row: Any, fields: list) -> tuple:
    """A UDTF's row as StructType.toInternal reads it: a tuple or list by position, a dict or
    another object by field name; None is a row of NULLs."""
    if row is None:
        return (None,) * len(fields)
    if isinstance(row, (tuple, list)):
        return tuple(row)
    values = row if isinstance(row, dict) else vars(row)
    return tuple(values.get(field.name) for field in fields)


def _table_function_frame(rows: list, schema: Any, method: str, safe: bool,
                          time_zone: str) -> Any:
    """An Arrow UDTF's rows of one call as Spark's worker converts them: a pandas DataFrame of
    the rows, its columns by position, through PySpark's own UDTF serializer (Arrow casts where
    the values have another type, UDTF_ARROW_TYPE_CAST_ERROR where they cannot)."""
    import pandas as pd
    import pyarrow as pa

    from pyspark.errors import PySparkRuntimeError
    from pyspark.sql.pandas.serializers import ArrowStreamPandasUDTFSerializer

    frame = pd.DataFrame(rows)
    if len(frame) == 0 and len(frame.columns) == 0:
        return pa.RecordBatch.from_pylist([], schema=schema)
    if len(frame.columns) != len(schema):
        raise PySparkRuntimeError(
            errorClass="UDTF_RETURN_SCHEMA_MISMATCH",
            messageParameters={"expected": str(len(schema)), "actual": str(len(frame.columns)),
                               "func": method})
    serializer = ArrowStreamPandasUDTFSerializer(time_zone, safe)
    struct = serializer._create_batch([(frame, pa.struct(list(schema)))]).column(0)
    return pa.RecordBatch.from_struct_array(struct)  # its length, also without columns


def _null_checker(spark_type: Any) -> Any:
    """Spark's check of a UDTF's row against non-nullable columns, fields, elements and map
    values: a None there fails the query, naming the column; None when nothing can fail."""
    from pyspark.errors import PySparkRuntimeError
    from pyspark.sql import types as T

    def fail(column: int) -> None:
        raise PySparkRuntimeError(
            errorClass="UDTF_EXEC_ERROR",
            messageParameters={
                "method_name": "eval' or 'terminate",
                "error": f"Column {column} within a returned row had a value of None, either "
                         "directly or within array/struct/map subfields, but the corresponding "
                         "column type was declared as non-nullable; please update the UDTF to "
                         "return a non-None value at this location or otherwise declare the "
                         "column type as nullable."})

    def check(value: Any, data_type: Any, nullable: bool, column: int) -> None:
        if value is None:
            if not nullable:
                fail(column)
        elif isinstance(data_type, T.ArrayType) and isinstance(value, list):
            for item in value:
                check(item, data_type.elementType, data_type.containsNull, column)
        elif isinstance(data_type, T.MapType) and isinstance(value, dict):
            for key, item in value.items():
                check(key, data_type.keyType, False, column)
                check(item, data_type.valueType, data_type.valueContainsNull, column)
        elif isinstance(data_type, T.StructType) and isinstance(value, tuple):
            for item, field in zip(value, data_type.fields):
                check(item, field.dataType, field.nullable, column)

    def check_row(row: Any) -> None:
        if isinstance(row, tuple):
            for i, (value, field) in enumerate(zip(row, spark_type.fields)):
                check(value, field.dataType, field.nullable, i)

    def nullable(data_type: Any) -> bool:
        if isinstance(data_type, T.ArrayType):
            return data_type.containsNull and nullable(data_type.elementType)
        if isinstance(data_type, T.MapType):
            return data_type.valueContainsNull and nullable(data_type.valueType)
        if isinstance(data_type, T.StructType):
            return all(f.nullable and nullable(f.dataType) for f in data_type.fields)
        return True

    # With every column nullable all the way down (a map's keys aside) nothing can fail.
    return None if nullable(spark_type) else check_row


_MAP_PANDAS_ITER_UDF = 205  # SQL_MAP_PANDAS_ITER_UDF: mapInPandas
_MAP_ARROW_ITER_UDF = 207  # SQL_MAP_ARROW_ITER_UDF: mapInArrow


def _map_batch(udf: Tuple[Callable, Any], eval_type: int, schema: Any, array: Any,
               output_schema: Any, safe: bool) -> Any:
    """A function of an iterator of batches sees one batch per call (a partition of one batch)
    and may give back any number of rows; they must have the declared columns."""
    import pyarrow as pa

    batch = pa.RecordBatch._import_from_c_capsule(schema, array)
    out_schema = pa.Schema._import_from_c_capsule(output_schema)
    function, _ = udf
    try:
        if eval_type == _MAP_PANDAS_ITER_UDF:
            frames = _iterated(function(iter([_frame_to_pandas(batch)])),
                               "iterator of pandas.DataFrame")
            results = [result for result in (_from_pandas(frame, out_schema, safe)
                                             for frame in frames) if result is not None]
        else:
            results = [_from_arrow(result, out_schema)
                       for result in _iterated(function(iter([batch])),
                                               "iterator of pyarrow.RecordBatch")]
    except Exception as error:
        raise UserFunctionError(_traceback_text(error)) from None
    table = pa.Table.from_batches(results, schema=out_schema).combine_chunks()
    return pa.RecordBatch.from_arrays(
        [column.combine_chunks() for column in table.columns], schema=out_schema)


# Functions of groups ------------------------------------------------------------------------
# The engine hands over a batch's groups at once: the rows, group after group, and a row per
# group with its key, where its rows are, and (applyInPandasWithState) its state.

_GROUPED_MAP_PANDAS_UDF = 201  # SQL_GROUPED_MAP_PANDAS_UDF: applyInPandas
_COGROUPED_MAP_PANDAS_UDF = 206  # SQL_COGROUPED_MAP_PANDAS_UDF: cogroup().applyInPandas
_COGROUPED_MAP_ARROW_UDF = 210  # SQL_COGROUPED_MAP_ARROW_UDF: cogroup().applyInArrow
_GROUPED_MAP_PANDAS_UDF_WITH_STATE = 208  # applyInPandasWithState
_GROUPED_MAP_ARROW_UDF = 209  # SQL_GROUPED_MAP_ARROW_UDF: applyInArrow


def _safely(conf: dict) -> bool:
    """spark.sql.execution.pandas.convertToArrowArraySafely: Arrow's safe checks on results."""
    return conf["spark.sql.execution.pandas.convertToArrowArraySafely"].lower() == "true"


class _GroupCall:
    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)


def _apply_to_groups(udf: Tuple[Callable, Any], eval_type: int, call: Any) -> Any:
    import inspect

    import pyarrow as pa

    function, _ = udf
    groups = call.groups
    num_keys = groups.schema.names.index("offset")
    offsets = groups.column(num_keys).to_pylist()
    lengths = groups.column(num_keys + 1).to_pylist()
    states = None
    try:
        if call.other_rows is not None:
            results = _apply_to_cogroups(function, eval_type, call, num_keys, offsets, lengths)
        elif eval_type == _GROUPED_MAP_ARROW_UDF:
            rows = pa.Table.from_batches([call.rows])
            takes_key = len(inspect.getfullargspec(function).args) == 2
            results = []
            for g, (offset, length) in enumerate(zip(offsets, lengths)):
                table = rows.slice(offset, length)
                if takes_key:
                    key = tuple(groups.column(k)[g] for k in range(num_keys))
                    result = function(key, table)
                else:
                    result = function(table)
                results.append(_from_arrow_table(result, call.output_schema))
        else:
            frame = _frame_to_pandas(call.rows)
            keys = [_to_pandas(groups.column(k)) for k in range(num_keys)]
            if eval_type == _GROUPED_MAP_PANDAS_UDF_WITH_STATE:
                results, states = _apply_with_state(function, frame, keys, offsets, lengths, call)
            else:
                takes_key = len(inspect.getfullargspec(function).args) == 2
                results = []
                for g, (offset, length) in enumerate(zip(offsets, lengths)):
                    group = frame.iloc[offset:offset + length].reset_index(drop=True)
                    if takes_key:
                        result = function(tuple(key.iloc[g] for key in keys), group)
                    else:
                        result = function(group)
                    results.append(_group_frame(result, call.output_schema, call.by_name))
        if eval_type not in (_GROUPED_MAP_ARROW_UDF, _COGROUPED_MAP_ARROW_UDF):
            # The groups' frames become Arrow once, together.
            results = [_frames_to_batch(results, call.output_schema, call.safe)]
    except Exception as error:
        raise UserFunctionError(_traceback_text(error)) from None
    table = pa.Table.from_batches(results, schema=call.output_schema).combine_chunks()
    batch = pa.RecordBatch.from_arrays(
        [column.combine_chunks() for column in table.columns], schema=call.output_schema)
    return batch, states


def _apply_to_cogroups(function: Callable, eval_type: int, call: Any, num_keys: int,
                       offsets: list, lengths: list) -> list:
    """cogroup().applyInPandas / applyInArrow: f(left, right) or f(key, left, right) per key,
    a side without the key's rows empty (with its columns)."""
    import inspect

    import pyarrow as pa

    groups = call.groups
    other_offsets = groups.column("other_offset").to_pylist()
    other_lengths = groups.column("other_length").to_pylist()
    takes_key = len(inspect.getfullargspec(function).args) == 3
    # Spark's key: the first side's, unless that side has no rows for it.
    other_keys = range(num_keys + 4, num_keys + 4 + num_keys)
    results = []
    if eval_type == _COGROUPED_MAP_ARROW_UDF:
        left, right = pa.Table.from_batches([call.rows]), pa.Table.from_batches([call.other_rows])
        for g in range(groups.num_rows):
            sides = (left.slice(offsets[g], lengths[g]),
                     right.slice(other_offsets[g], other_lengths[g]))
            columns = range(num_keys) if lengths[g] else other_keys
            key = tuple(groups.column(k)[g] for k in columns)
            result = function(key, *sides) if takes_key else function(*sides)
            results.append(_from_arrow_table(result, call.output_schema))
        return results
    left, right = _frame_to_pandas(call.rows), _frame_to_pandas(call.other_rows)
    keys = [_to_pandas(groups.column(k)) for k in range(num_keys)]
    for g in range(groups.num_rows):
        sides = (left.iloc[offsets[g]:offsets[g] + lengths[g]].reset_index(drop=True),
                 right.iloc[other_offsets[g]:other_offsets[g] + other_lengths[g]]
                 .reset_index(drop=True))
        if takes_key:
            if lengths[g]:
                key = tuple(column.iloc[g] for column in keys)
            else:  # one value each: a Series of the other side's key with NULLs would be floats
                key = tuple(_to_pandas(groups.column(k).slice(g, 1)).iloc[0] for k in other_keys)
            result = function(key, *sides)
        else:
            result = function(*sides)
        results.append(_group_frame(result, call.output_schema, call.by_name))
    return results


def _apply_with_state(function: Callable, frame: Any, keys: list, offsets: list, lengths: list,
                      call: Any) -> Any:
    """applyInPandasWithState: the function takes (key, iterator of frames, GroupState) and
    gives an iterator of frames; each group's state after the call goes back to the engine."""
    import pandas as pd
    import pyarrow as pa

    from pyspark.errors import PySparkTypeError
    from pyspark.sql.pandas.types import from_arrow_type
    from pyspark.sql.streaming.state import GroupState

    groups = call.groups
    spark_state_type = from_arrow_type(call.state_type)
    to_row = _python_converter(call.state_type)
    coerce = _coercion(spark_state_type)
    stored = groups.column("state").to_pylist()
    timed_out = groups.column("timed_out").to_pylist()
    results = []
    values, timeouts, updated, removed = [], [], [], []
    for g, (offset, length) in enumerate(zip(offsets, lengths)):
        state = GroupState(
            optionalValue=None if stored[g] is None else to_row(stored[g]),
            batchProcessingTimeMs=call.batch_time_ms,
            eventTimeWatermarkMs=call.watermark_ms,
            timeoutConf=call.timeout,
            hasTimedOut=timed_out[g],
            watermarkPresent=call.watermark_present,
            defined=stored[g] is not None,
            updated=False,
            removed=False,
            timeoutTimestamp=GroupState.NO_TIMESTAMP,
            keyAsUnsafe=b"",
            valueSchema=spark_state_type,
        )
        key = tuple(column.iloc[g] for column in keys)
        if timed_out[g]:
            frames = iter([pd.DataFrame(columns=frame.columns)])
        else:
            # spark.sql.execution.arrow.maxRecordsPerBatch rows at most in a frame.
            frames = (frame.iloc[start:min(start + call.max_records, offset + length)]
                      .reset_index(drop=True)
                      for start in range(offset, offset + length, call.max_records))
        result = function(key, frames, state)
        if isinstance(result, pd.DataFrame):
            raise PySparkTypeError(
                errorClass="UDF_RETURN_TYPE",
                messageParameters={"expected": "iterable of pandas.DataFrame",
                                   "actual": type(result).__name__})
        try:
            produced = iter(result)
        except TypeError:
            raise PySparkTypeError(
                errorClass="UDF_RETURN_TYPE",
                messageParameters={"expected": "iterable", "actual": type(result).__name__}
            ) from None
        for out in produced:
            results.append(_state_frame(out, call.output_schema))
        values.append(coerce(tuple(state._value)) if state.exists else None)
        timeouts.append(state._timeout_timestamp)
        updated.append(state._updated)
        removed.append(state._removed)
    states = pa.RecordBatch.from_arrays(
        [pa.array(values, type=call.state_type), pa.array(timeouts, type=pa.int64()),
         pa.array(updated, type=pa.bool_()), pa.array(removed, type=pa.bool_())],
        names=["state", "timeout_ms", "updated", "removed"])
    return results, states


def _group_frame(frame: Any, schema: Any, by_name: bool) -> Any:
    """applyInPandas's result by Spark's verify_pandas_result: by name when a label is a
    string (unless assignColumnsByName is off), else by position; an empty frame without
    columns is no rows. The frame's columns in the schema's order, or None for no rows."""
    import pandas as pd

    from pyspark.errors import PySparkRuntimeError, PySparkTypeError

    if not isinstance(frame, pd.DataFrame):
        raise PySparkTypeError(
            errorClass="UDF_RETURN_TYPE",
            messageParameters={"expected": "pandas.DataFrame", "actual": type(frame).__name__})
    if frame.empty and len(frame.columns) == 0:
        return None
    if by_name and any(isinstance(label, str) for label in frame.columns):
        expected, given = set(schema.names), set(frame.columns)
        if expected != given:
            missing = sorted(expected - given)
            extra = sorted(str(label) for label in given - expected)
            raise PySparkRuntimeError(
                errorClass="RESULT_COLUMNS_MISMATCH_FOR_PANDAS_UDF",
                messageParameters={"missing": f" Missing: {', '.join(missing)}." if missing else "",
                                   "extra": f" Unexpected: {', '.join(extra)}." if extra else ""})
        return frame[schema.names]
    if len(frame.columns) != len(schema.names):
        raise PySparkRuntimeError(
            errorClass="RESULT_LENGTH_MISMATCH_FOR_PANDAS_UDF",
            messageParameters={"expected": str(len(schema.names)),
                               "actual": str(len(frame.columns))})
    return frame.set_axis(schema.names, axis=1)


def _state_frame(frame: Any, schema: Any) -> Any:
    """An applyInPandasWithState result frame, checked as Spark's worker checks it: its
    columns in the schema's order, or None for no rows."""
    import pandas as pd

    from pyspark.errors import PySparkRuntimeError, PySparkTypeError

    if not isinstance(frame, pd.DataFrame):
        raise PySparkTypeError(
            errorClass="UDF_RETURN_TYPE",
            messageParameters={"expected": "iterator of pandas.DataFrame",
                               "actual": f"iterator of {type(frame).__name__}"})
    if len(frame.columns) == 0 and frame.empty:
        return None
    if len(frame.columns) != len(schema.names):
        raise PySparkRuntimeError(
            errorClass="RESULT_LENGTH_MISMATCH_FOR_PANDAS_UDF",
            messageParameters={"expected": str(len(schema.names)),
                               "actual": str(len(frame.columns))})
    if all(isinstance(label, str) for label in frame.columns) and set(frame.columns) == set(
            schema.names):
        return frame[schema.names]
    return frame.set_axis(schema.names, axis=1)


def _frames_to_batch(frames: list, schema: Any, safe: bool) -> Any:
    """Frames of the schema's columns as one Arrow batch."""
    import pandas as pd
    import pyarrow as pa

    frames = [frame for frame in frames if frame is not None]
    if not frames:
        return pa.RecordBatch.from_pylist([], schema=schema)
    whole = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    return pa.RecordBatch.from_arrays(
        [_from_series(whole.iloc[:, i], field.type, safe) for i, field in enumerate(schema)],
        schema=schema)


def _from_arrow_table(table: Any, schema: Any) -> Any:
    """applyInArrow's result: a pyarrow.Table with the declared columns, by name."""
    import pyarrow as pa

    from pyspark.errors import PySparkTypeError

    if not isinstance(table, pa.Table):
        raise PySparkTypeError(
            errorClass="UDF_RETURN_TYPE",
            messageParameters={"expected": "pyarrow.Table", "actual": type(table).__name__})
    table = table.combine_chunks()
    return pa.RecordBatch.from_arrays(
        [table.column(name).combine_chunks().cast(field.type)
         for name, field in zip(schema.names, schema)], schema=schema)


def _frame_to_pandas(batch: Any) -> Any:
    import pandas as pd

    return pd.DataFrame({name: _to_pandas(column)
                         for name, column in zip(batch.schema.names, batch.columns)})


def _iterated(result: Any, expected: str) -> Any:
    """A function's result as the iterator Spark's worker requires (UDF_RETURN_TYPE)."""
    from pyspark.errors import PySparkTypeError

    try:
        return iter(result)
    except TypeError:
        raise PySparkTypeError(
            errorClass="UDF_RETURN_TYPE",
            messageParameters={"expected": expected, "actual": type(result).__name__}
        ) from None


def _from_pandas(frame: Any, schema: Any, safe: bool) -> Any:
    """mapInPandas's frame by Spark's rule: columns by name when the frame's labels are strings,
    else by position; columns beyond the schema's are left out, and an empty frame without
    columns is no rows (None)."""
    import pandas as pd
    import pyarrow as pa

    from pyspark.errors import PySparkRuntimeError, PySparkTypeError

    if not isinstance(frame, pd.DataFrame):
        raise PySparkTypeError(
            errorClass="UDF_RETURN_TYPE",
            messageParameters={"expected": "iterator of pandas.DataFrame",
                               "actual": f"iterator of {type(frame).__name__}"})
    if frame.empty and len(frame.columns) == 0:
        return None
    if all(isinstance(label, str) for label in frame.columns):
        missing = [name for name in schema.names if name not in frame.columns]
        if missing:
            # Spark names the unexpected columns only beside missing ones.
            extra = [label for label in frame.columns if label not in schema.names]
            raise PySparkRuntimeError(
                errorClass="RESULT_COLUMNS_MISMATCH_FOR_PANDAS_UDF",
                messageParameters={"missing": f" Missing: {', '.join(missing)}.",
                                   "extra": f" Unexpected: {', '.join(extra)}." if extra else ""})
        columns = [frame[name] for name in schema.names]
    else:
        if len(frame.columns) < len(schema.names):
            raise PySparkRuntimeError(
                errorClass="RESULT_LENGTH_MISMATCH_FOR_PANDAS_UDF",
                messageParameters={"expected": str(len(schema.names)),
                                   "actual": str(len(frame.columns))})
        columns = [frame.iloc[:, i] for i in range(len(schema.names))]
    return pa.RecordBatch.from_arrays(
        [_from_series(column, field.type, safe) for column, field in zip(columns, schema)],
        schema=schema)


def _from_arrow(batch: Any, schema: Any) -> Any:
    import pyarrow as pa

    from pyspark.errors import PySparkTypeError

    if not isinstance(batch, pa.RecordBatch):
        raise PySparkTypeError(
            errorClass="UDF_RETURN_TYPE",
            messageParameters={"expected": "iterator of pyarrow.RecordBatch",
                               "actual": f"iterator of {type(batch).__name__}"})
    return pa.RecordBatch.from_arrays(
        [batch.column(name).cast(field.type) for name, field in zip(schema.names, schema)],
        schema=schema)


def _traceback_text(error: BaseException) -> str:
    """The traceback from the user's code down, without this module's frames (Spark's
    simplifiedTraceback leaves out pyspark's own frames the same way)."""
    import traceback

    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(error), error, tb))


def _call_on_rows(function: Callable, spark_type: Any, batch: Any, return_type: Any,
                  exact: bool) -> Any:
    import pyarrow as pa

    columns = [_to_python(column) for column in batch.columns]
    if columns:
        results = [function(*row) for row in zip(*columns)]
    else:
        results = [function() for _ in range(batch.num_rows)]
    if exact:
        # A value of another type than the declared one is NULL, as Spark's pickled UDFs
        # convert them (EvaluatePython.makeFromJava); a string type takes the value's text.
        coerce = _coercion(spark_type)
        results = [coerce(value) for value in results]
    return pa.array(results, type=return_type)


def _call_on_series(function: Callable, batch: Any, return_type: Any, safe: bool) -> Any:
    import pandas as pd

    from pyspark.errors import PySparkRuntimeError, PySparkTypeError

    series = [_to_pandas(column) for column in batch.columns]
    result = function(*series)
    if not isinstance(result, pd.Series):
        raise PySparkTypeError(
            errorClass="UDF_RETURN_TYPE",
            messageParameters={"expected": "pandas.Series",
                               "actual": type(result).__name__},
        )
    if len(result) != batch.num_rows:
        raise PySparkRuntimeError(
            errorClass="SCHEMA_MISMATCH_FOR_PANDAS_UDF",
            messageParameters={"expected": str(batch.num_rows), "actual": str(len(result))},
        )
    return _from_series(result, return_type, safe)


def _from_series(series: Any, arrow_type: Any, safe: bool) -> Any:
    """A pandas Series as an Arrow array of `arrow_type`; naive datetimes are local times. As
    Spark's worker converts it: with Arrow's safe checks only when `safe`
    (spark.sql.execution.pandas.convertToArrowArraySafely, off by default), a failure naming
    the Series."""
    import pandas as pd
    import pyarrow as pa

    from pyspark.errors import PySparkTypeError, PySparkValueError

    if pa.types.is_timestamp(arrow_type) and arrow_type.tz is not None:
        series = pd.to_datetime(series)
        if series.dt.tz is None:
            series = series.dt.tz_localize(_local_zone())
    try:
        array = pa.Array.from_pandas(series, type=arrow_type, safe=safe)
    except (TypeError, ValueError) as error:
        message = (f"Exception thrown when converting pandas.Series ({series.dtype}) with name "
                   f"'{series.name}' to Arrow Array ({arrow_type}).")
        if isinstance(error, TypeError):
            raise PySparkTypeError(message) from error
        if safe:
            message += (" It can be caused by overflows or other unsafe conversions warned by "
                        "Arrow. Arrow safe type check can be disabled by using SQL config "
                        "`spark.sql.execution.pandas.convertToArrowArraySafely`.")
        raise PySparkValueError(message) from error
    # An empty Series of another type may come back chunked.
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


def _call_on_series_iterator(function: Callable, batch: Any, return_type: Any,
                             safe: bool) -> Any:
    """An iterator UDF sees the batches of a partition; here each call is one batch (a
    partition of one batch), with Spark's checks of what the iterator gives back."""
    import pandas as pd

    from pyspark.errors import PySparkRuntimeError

    series = [_to_pandas(column) for column in batch.columns]
    inputs = iter([series[0] if len(series) == 1 else tuple(series)])
    results = []
    produced = 0
    for result in function(inputs):
        produced += len(result)
        if produced > batch.num_rows:
            raise PySparkRuntimeError(errorClass="PANDAS_UDF_OUTPUT_EXCEEDS_INPUT_ROWS",
                                      messageParameters={})
        results.append(result)
    if next(inputs, None) is not None:
        raise PySparkRuntimeError(
            errorClass="STOP_ITERATION_OCCURRED_FROM_SCALAR_ITER_PANDAS_UDF",
            messageParameters={})
    if produced != batch.num_rows:
        raise PySparkRuntimeError(
            errorClass="RESULT_LENGTH_MISMATCH_FOR_SCALAR_ITER_PANDAS_UDF",
            messageParameters={"output_length": str(produced),
                               "input_length": str(batch.num_rows)})
    whole = pd.concat(results, ignore_index=True) if results else pd.Series([], dtype=object)
    return _call_on_series(lambda *_: whole, batch, return_type, safe)


def _local_zone() -> Any:
    import datetime

    return datetime.datetime.now().astimezone().tzinfo


def _to_python(column: Any) -> list:
    """A column's values as Spark's worker hands them to a UDF: structs as Rows, maps as dicts,
    timestamps as naive local datetimes."""
    convert = _python_converter(column.type)
    values = column.to_pylist()
    return values if convert is None else [None if v is None else convert(v) for v in values]


def _python_converter(arrow_type: Any) -> Any:
    import pyarrow as pa

    if pa.types.is_struct(arrow_type):
        from pyspark.sql import Row

        fields = [(f.name, _python_converter(f.type)) for f in arrow_type]
        return lambda v: Row(**{name: (v[name] if c is None or v[name] is None else c(v[name]))
                                for name, c in fields})
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        item = _python_converter(arrow_type.value_type)
        if item is None:
            return None
        return lambda v: [None if x is None else item(x) for x in v]
    if pa.types.is_map(arrow_type):
        key = _python_converter(arrow_type.key_type) or (lambda x: x)
        item = _python_converter(arrow_type.item_type) or (lambda x: x)
        return lambda v: {key(k): (None if x is None else item(x)) for k, x in v}
    if pa.types.is_timestamp(arrow_type) and arrow_type.tz is not None:
        return lambda v: v.astimezone().replace(tzinfo=None)
    return None


def _to_pandas(column: Any) -> Any:
    import pyarrow as pa

    series = column.to_pandas()
    if pa.types.is_timestamp(column.type) and column.type.tz is not None:
        series = series.dt.tz_convert(_local_zone()).dt.tz_localize(None)
    return series


def _coercion(spark_type: Any) -> Callable[[Any], Any]:
    """How a pickled UDF's result becomes a value of `spark_type`: the value itself when it has
    the type's Python class, else NULL; a string type takes any value's text."""
    import datetime
    import decimal

    from pyspark.sql import types as T

    def only(*classes: type, exclude: tuple = ()) -> Callable[[Any], Any]:
        return lambda v: v if isinstance(v, classes) and not isinstance(v, exclude) else None

    if isinstance(spark_type, T.BooleanType):
        return only(bool)
    if isinstance(spark_type, T.IntegralType):
        bits = {T.ByteType: 8, T.ShortType: 16, T.IntegerType: 32, T.LongType: 64}[
            type(spark_type)]
        low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        return lambda v: (v if isinstance(v, int) and not isinstance(v, bool)
                          and low <= v <= high else None)
    if isinstance(spark_type, T.FractionalType) and not isinstance(spark_type, T.DecimalType):
        return only(float)
    if isinstance(spark_type, T.DecimalType):
        return only(decimal.Decimal)
    if isinstance(spark_type, T.StringType):
        return _text
    if isinstance(spark_type, T.BinaryType):
        return lambda v: bytes(v) if isinstance(v, (bytes, bytearray)) else None
    if isinstance(spark_type, T.DateType):
        return only(datetime.date, exclude=(datetime.datetime,))
    if isinstance(spark_type, (T.TimestampType, T.TimestampNTZType)):
        aware = isinstance(spark_type, T.TimestampType)
        return lambda v: ((v.astimezone() if aware and v.tzinfo is None else v)
                          if isinstance(v, datetime.datetime) else None)
    if isinstance(spark_type, T.ArrayType):
        item = _coercion(spark_type.elementType)
        return lambda v: ([None if x is None else item(x) for x in v]
                          if isinstance(v, (list, tuple)) else None)
    if isinstance(spark_type, T.MapType):
        key, value = _coercion(spark_type.keyType), _coercion(spark_type.valueType)
        return lambda v: ([(key(k), None if x is None else value(x)) for k, x in v.items()]
                          if isinstance(v, dict) else None)
    if isinstance(spark_type, T.StructType):
        fields = [(f.name, _coercion(f.dataType)) for f in spark_type.fields]

        def struct(v: Any) -> Any:
            if isinstance(v, dict):
                values = [v.get(name) for name, _ in fields]
            elif isinstance(v, (tuple, list)) and len(v) == len(fields):
                values = list(v)
            else:
                return None
            return {name: None if x is None else c(x) for (name, c), x in zip(fields, values)}

        return struct
    return lambda v: v


def _text(value: Any) -> Any:
    """A value's text as Java's toString gives it for what Spark's worker sends back."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
    return str(value)
