"""Structured Streaming on Ember: pyspark.sql.streaming's DataStreamReader, DataStreamWriter,
StreamingQuery, StreamingQueryManager and StreamingQueryListener, over the C++ micro-batch
engine."""

import atexit
import json
import os
import sys
import tempfile
import threading
import traceback
import uuid
import weakref
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Union

from ember import _core
from ember.errors import (
    AnalysisException, IllegalArgumentException, PySparkAttributeError, PySparkTypeError,
    SparkRuntimeException,
    PySparkValueError,
)
from ember.sql.dataframe import DataFrame
from ember.sql.readwriter import _option_text, _schema_ddl
from ember.sql.streaming.listener import (
    _CALLBACKS, StreamingQueryListener, StreamingQueryProgress, _event,
)
from ember.sql.types import StructType

if TYPE_CHECKING:
    from ember.sql.session import SparkSession


class DataStreamReader:
    """spark.readStream."""

    def __init__(self, session: "SparkSession"):
        self._session = session
        self._format = "parquet"
        self._schema: Optional[str] = None
        self._options: Dict[str, str] = {}

    def format(self, source: str) -> "DataStreamReader":
        self._format = source
        return self

    def schema(self, schema: Union[StructType, str]) -> "DataStreamReader":
        self._schema = _schema_ddl(schema)
        return self

    def option(self, key: str, value: Any) -> "DataStreamReader":
        self._options[key] = _option_text(value)
        return self

    def options(self, **options: Any) -> "DataStreamReader":
        for k, v in options.items():
            self.option(k, v)
        return self

    def load(self, path: Optional[str] = None, format: Optional[str] = None,
             schema: Any = None, **options: Any) -> DataFrame:
        if format is not None:
            self.format(format)
        if schema is not None:
            self.schema(schema)
        self.options(**options)
        path = path or self._options.get("path") or ""
        core = self._session._core.read_stream(self._format, path, self._schema or "", self._options)
        return DataFrame(core, self._session)

    def table(self, tableName: str) -> DataFrame:
        """A catalog table as a stream: an Iceberg table's appended snapshots, or a session-catalog
        table's files."""
        if not isinstance(tableName, str):
            raise TypeError(f"tableName should be a str, got {type(tableName).__name__}")
        if self._schema:
            core = self._session._core.read_stream("iceberg", tableName, self._schema, self._options)
        else:
            core = _core.read_stream_table(self._session._core, tableName, self._options)
        return DataFrame(core, self._session)

    def _load(self, fmt: str, path: str, schema: Any, options: Dict[str, Any]) -> DataFrame:
        return self.load(path, format=fmt, schema=schema,
                         **{k: v for k, v in options.items() if v is not None})

    def json(self, path: str, schema: Any = None, **options: Any) -> DataFrame:
        return self._load("json", path, schema, options)

    def csv(self, path: str, schema: Any = None, **options: Any) -> DataFrame:
        return self._load("csv", path, schema, options)

    def parquet(self, path: str, **options: Any) -> DataFrame:
        return self._load("parquet", path, None, options)

    def text(self, path: str, **options: Any) -> DataFrame:
        return self._load("text", path, None, options)


_ONE_TIME_SINKS = {"memory", "foreach", "foreachbatch", "console", "noop"}

# Spark's console, noop and foreach sinks describe themselves as JVM objects (Object.toString:
# the class, then an identity hash in hex); Ember prints the same shape.
_JVM = "org.apache.spark.sql.execution."


def _identity(obj: Any) -> str:
    return f"{hash(obj) & 0x7FFFFFFF:x}"


class DataStreamWriter:
    """df.writeStream."""

    def __init__(self, df: DataFrame):
        self._df = df
        self._format: Optional[str] = None
        self._output_mode = "append"
        self._options: Dict[str, str] = {}
        self._name: Optional[str] = None
        self._trigger = ("default", 0)
        self._foreach_batch: Optional[Callable] = None

    def format(self, source: str) -> "DataStreamWriter":
        self._format = source
        return self

    def outputMode(self, outputMode: str) -> "DataStreamWriter":
        if outputMode.lower() not in ("append", "complete", "update"):
            raise IllegalArgumentException(
                f"Unknown output mode {outputMode}. Accepted output modes are 'append', "
                "'complete', 'update'"
            )
        self._output_mode = outputMode.lower()
        return self

    def option(self, key: str, value: Any) -> "DataStreamWriter":
        self._options[key] = _option_text(value)
        return self

    def options(self, **options: Any) -> "DataStreamWriter":
        for k, v in options.items():
            self.option(k, v)
        return self

    def queryName(self, queryName: str) -> "DataStreamWriter":
        if not queryName or not isinstance(queryName, str) or not queryName.strip():
            raise PySparkValueError(
                errorClass="VALUE_NOT_NON_EMPTY_STR",
                messageParameters={"arg_name": "queryName", "arg_value": str(queryName)},
            )
        self._name = queryName
        return self

    def partitionBy(self, *cols: str) -> "DataStreamWriter":
        self._options["__partition_by"] = ",".join(cols)
        return self

    def trigger(self, *, processingTime: Optional[str] = None, once: Optional[bool] = None,
                continuous: Optional[str] = None, availableNow: Optional[bool] = None
                ) -> "DataStreamWriter":
        given = [p for p in (processingTime, once, continuous, availableNow) if p is not None]
        if len(given) != 1:
            raise PySparkValueError(
                errorClass="ONLY_ALLOW_SINGLE_TRIGGER", messageParameters={}
            )
        if processingTime is not None:
            if not isinstance(processingTime, str) or not processingTime.strip():
                raise PySparkValueError(
                    errorClass="VALUE_NOT_NON_EMPTY_STR",
                    messageParameters={"arg_name": "processingTime",
                                       "arg_value": str(processingTime)},
                )
            self._trigger = ("processingTime", _core.interval_ms(processingTime))
        elif once is not None:
            if once is not True:
                raise PySparkValueError(
                    errorClass="VALUE_NOT_TRUE",
                    messageParameters={"arg_name": "once", "arg_value": str(once)},
                )
            self._trigger = ("once", 0)
        elif availableNow is not None:
            if availableNow is not True:
                raise PySparkValueError(
                    errorClass="VALUE_NOT_TRUE",
                    messageParameters={"arg_name": "availableNow", "arg_value": str(availableNow)},
                )
            self._trigger = ("availableNow", 0)
        else:
            raise AnalysisException(
                "Continuous processing is not supported by Ember.",
                errorClass="UNSUPPORTED_FEATURE", sqlState="0A000",
            )
        return self

    def foreachBatch(self, func: Callable[[DataFrame, int], None]) -> "DataStreamWriter":
        if not callable(func):
            raise PySparkTypeError(
                errorClass="NOT_CALLABLE",
                messageParameters={"arg_name": "func", "arg_type": type(func).__name__},
            )
        self._format = "foreachBatch"
        self._foreach_batch = func
        return self

    def foreach(self, f: Any) -> "DataStreamWriter":
        """Spark's ForeachWriter contract: per partition and epoch (Ember runs one partition per
        micro-batch), open(partition_id, epoch_id); when it returns true, process(row) for each
        row; then close(error), with the exception if one was raised. `f` may also be a plain
        function of a row."""
        if callable(f) and not hasattr(f, "process"):
            process, open_, close = f, None, None
        else:
            for name in ("process", "open", "close"):
                attr = getattr(f, name, None)
                if (name == "process" and attr is None) or (attr is not None and not callable(attr)):
                    raise PySparkAttributeError(
                        errorClass="ATTRIBUTE_NOT_CALLABLE",
                        messageParameters={"attr_name": name, "obj_name": "f"},
                    )
            process, open_, close = f.process, getattr(f, "open", None), getattr(f, "close", None)

        def each_row(batch_df: DataFrame, batch_id: int) -> None:
            if open_ is not None and not open_(0, batch_id):
                if close is not None:
                    close(None)
                return
            try:
                for row in batch_df.toLocalIterator():
                    process(row)
            except Exception as error:
                if close is not None:
                    close(error)
                raise
            if close is not None:
                close(None)

        self.foreachBatch(each_row)
        self._format = "foreach"
        return self

    def _checkpoint(self, session: "SparkSession") -> tuple:
        """Spark's checkpoint resolution: the option, the session conf, or a temporary one."""
        location = self._options.get("checkpointLocation")
        if location:
            return location, False
        root = session.conf.get("spark.sql.streaming.checkpointLocation", None)
        if root:
            return _core.query_checkpoint_location(root, self._name or str(uuid.uuid4())), False
        if (self._format or "").lower() in _ONE_TIME_SINKS:
            return os.path.join(tempfile.gettempdir(), f"temporary-{uuid.uuid4()}"), True
        raise AnalysisException(
            'checkpointLocation must be specified either through option("checkpointLocation", '
            '...) or SparkSession.conf.set("spark.sql.streaming.checkpointLocation", ...).',
            errorClass="_LEGACY_ERROR_TEMP_1298",
        )

    def _sink(self, session: "SparkSession") -> Any:
        fmt = (self._format or session.conf.get("spark.sql.sources.default", "parquet")).lower()
        if fmt == "memory":
            if not self._name:
                raise AnalysisException(
                    "queryName must be specified for memory sink", errorClass="_LEGACY_ERROR_TEMP_1217"
                )
            return _core.memory_sink(session._core, self._name, self._output_mode)
        if fmt in ("foreachbatch", "foreach"):
            func = self._foreach_batch
            description = "ForeachBatchSink"
            if fmt == "foreach":
                description = (
                    f"ForeachWriterTable({_JVM}python.streaming.PythonForeachWriter@{_identity(func)},"
                    f"Right({_JVM}streaming.sources.ForeachWriterTable$$$Lambda$1/0x"
                    f"{id(self):016x}@{_identity(self)}))")
            return _core.foreach_batch_sink(lambda core, batch_id: func(DataFrame(core, session), batch_id),
                                            foreach=fmt == "foreach", description=description)
        if fmt == "console":
            rows = int(self._options.get("numRows", 20))
            truncate = self._options.get("truncate", "true").lower() == "true"

            def show(df: DataFrame, batch_id: int) -> None:
                print("-------------------------------------------")
                print(f"Batch: {batch_id}")
                print("-------------------------------------------")
                df.show(rows, truncate)

            return _core.foreach_batch_sink(lambda core, batch_id: show(DataFrame(core, session), batch_id),
                                            description=f"{_JVM}streaming.ConsoleTable$@{_identity(show)}")
        if fmt == "noop":
            return _core.foreach_batch_sink(
                lambda core, batch_id: None,
                description=f"{_JVM}datasources.noop.NoopTable$@{_identity(self)}")
        if fmt in ("parquet", "json", "csv"):
            path = self._options.get("path")
            if not path:
                raise IllegalArgumentException("'path' is not specified")
            partition_by = [c for c in self._options.get("__partition_by", "").split(",") if c]
            retention = next((v for k, v in self._options.items() if k.lower() == "retention"), None)
            return _core.file_sink(session._core, fmt, path, partition_by, retention)
        raise AnalysisException(
            f"The streaming sink '{fmt}' is not supported by Ember yet.",
            errorClass="UNSUPPORTED_FEATURE", sqlState="0A000",
        )

    def start(self, path: Optional[str] = None, format: Optional[str] = None,
              outputMode: Optional[str] = None, partitionBy: Any = None,
              queryName: Optional[str] = None, **options: Any) -> "StreamingQuery":
        if format is not None:
            self.format(format)
        if outputMode is not None:
            self.outputMode(outputMode)
        if queryName is not None:
            self.queryName(queryName)
        if partitionBy is not None:
            self.partitionBy(*([partitionBy] if isinstance(partitionBy, str) else partitionBy))
        self.options(**options)
        if path is not None:
            self._options["path"] = path
        return self._start(self._df.sparkSession, None)

    def _start(self, session: "SparkSession", sink: Any) -> "StreamingQuery":
        if not self._df.isStreaming:
            raise AnalysisException(
                "'writeStream' can be called only on streaming Dataset/DataFrame",
                errorClass="_LEGACY_ERROR_TEMP_3102",
            )
        manager = session.streams
        manager._check_name(self._name)
        checkpoint, temporary = self._checkpoint(session)
        manager._stop_active_run(_checkpoint_query_id(checkpoint), session)
        if sink is None:
            sink = self._sink(session)
        kind, interval = self._trigger
        core = _core.StreamingQuery.start(
            self._df._df, sink, self._name or "", checkpoint, self._output_mode, kind, interval,
            temporary, manager._bus,
        )
        query = StreamingQuery(core, session)
        query._explained = (self._df, self._output_mode)
        manager._register(query)
        return query

    def toTable(self, tableName: str, format: Optional[str] = None,
                outputMode: Optional[str] = None, partitionBy: Any = None,
                queryName: Optional[str] = None, **options: Any) -> "StreamingQuery":
        if outputMode is not None:
            self.outputMode(outputMode)
        if queryName is not None:
            self.queryName(queryName)
        self.options(**options)
        if partitionBy is not None:
            self.partitionBy(*([partitionBy] if isinstance(partitionBy, str) else partitionBy))
        partition_by = [c for c in self._options.pop("__partition_by", "").split(",") if c]
        session = self._df.sparkSession
        fmt = format or self._format or ""
        self._format = "table"
        sink = _core.table_sink(session._core, tableName, self._output_mode, self._df._df, fmt,
                                partition_by)
        return self._start(session, sink)


class StreamingQuery:
    def __init__(self, core: Any, session: "SparkSession"):
        self._q = core
        self._session = session

    @property
    def id(self) -> str:
        return self._q.id

    @property
    def runId(self) -> str:
        return self._q.run_id

    @property
    def name(self) -> Optional[str]:
        return self._q.name or None

    @property
    def isActive(self) -> bool:
        return self._q.is_active

    def processAllAvailable(self) -> None:
        self._q.process_all_available()

    def awaitTermination(self, timeout: Optional[int] = None) -> Optional[bool]:
        if timeout is not None:
            if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
                raise PySparkValueError(
                    errorClass="VALUE_NOT_POSITIVE",
                    messageParameters={"arg_name": "timeout", "arg_value": type(timeout).__name__},
                )
            return self._q.await_termination(float(timeout))
        self._q.await_termination(-1.0)
        return None

    def stop(self) -> None:
        self._q.stop()

    def exception(self) -> Optional[Exception]:
        message = self._q.exception()
        if message is None:
            return None
        try:
            self._q.raise_exception()
        except Exception as error:  # the core builds the StreamingQueryException
            return error
        return None

    @property
    def status(self) -> Dict[str, Any]:
        return json.loads(self._q.status())

    @property
    def lastProgress(self) -> Optional[StreamingQueryProgress]:
        text = self._q.last_progress()
        return StreamingQueryProgress(json.loads(text)) if text else None

    @property
    def recentProgress(self) -> List[StreamingQueryProgress]:
        return [StreamingQueryProgress(json.loads(p)) for p in self._q.recent_progress()]

    def explain(self, extended: bool = False) -> None:
        # Spark explains the last batch's plan; before the first batch there is none.
        ran = any("addBatch" in p.get("durationMs", {}) for p in self.recentProgress)
        explained = getattr(self, "_explained", None)
        if not ran or explained is None:
            print("No physical plan. Waiting for data.")
            return
        df, mode = explained
        print("== Physical Plan ==\n" + _core.explain_stream(df._df, mode, True))


class StreamingQueryManager:
    """spark.streams."""

    def __init__(self) -> None:
        # The active queries, as Spark's manager keeps them: a stopped query (and its sink's
        # rows) is let go once the manager sees it ended.
        self._queries: Dict[str, StreamingQuery] = {}
        # Whether a query ended since resetTerminated(), and the error it sticks with, if any.
        self._ended = False
        self._ended_error: Optional[Exception] = None
        self._lock = threading.Lock()
        self._listeners: List[StreamingQueryListener] = []
        # The engine's listener bus calls one dispatcher; it holds the manager weakly, so a
        # dropped session's manager can go.
        self._bus = _core.StreamingQueryListenerBus()
        manager = weakref.ref(self)

        def dispatch(kind: str, fields: Dict[str, Any]) -> None:
            owner = manager()
            if owner is not None:
                owner._dispatch(kind, fields)

        self._bus.set_dispatcher(dispatch)
        atexit.register(_shutdown, manager, self._bus)

    def addListener(self, listener: StreamingQueryListener) -> None:
        """Registers a StreamingQueryListener for the events of this session's queries."""
        with self._lock:
            self._listeners.append(listener)

    def removeListener(self, listener: StreamingQueryListener) -> None:
        """Stops delivering events to `listener`; unknown listeners are ignored."""
        with self._lock:
            self._listeners = [kept for kept in self._listeners if kept is not listener]

    def _dispatch(self, kind: str, fields: Dict[str, Any]) -> None:
        with self._lock:
            listeners = list(self._listeners)
        if not listeners:
            return
        event = _event(kind, fields)
        for listener in listeners:
            try:
                getattr(listener, _CALLBACKS[kind])(event)
            except Exception:  # noqa: BLE001 - as Spark's bus: log it, go on with the others
                print(f"ERROR StreamingQueryListenerBus: Listener {type(listener).__name__} threw "
                      "an exception", file=sys.stderr)
                traceback.print_exc(file=sys.stderr)

    def _forget_ended(self) -> None:
        """Drops the queries that ended; an error sticks over a later clean end (Spark's
        lastTerminatedQueryException). Called under the lock."""
        for key, q in list(self._queries.items()):
            if not q.isActive:
                del self._queries[key]
                error = q.exception()
                if not self._ended or error is not None:
                    self._ended, self._ended_error = True, error

    @property
    def active(self) -> List[StreamingQuery]:
        with self._lock:
            self._forget_ended()
            return list(self._queries.values())

    def get(self, id: str) -> Optional[StreamingQuery]:
        """The active query of this id, or None (Spark returns active queries only)."""
        with self._lock:
            self._forget_ended()
            return self._queries.get(id)

    def _check_name(self, name: Optional[str]) -> None:
        if name and any(q.name == name for q in self.active):
            raise IllegalArgumentException(
                f"Cannot start query with name {name} as a query with that name is already "
                "active in this SparkSession"
            )

    @staticmethod
    def _same_id_error(query_id: str) -> IllegalArgumentException:
        return IllegalArgumentException(
            f"Cannot start query with id {query_id} as another query with same id is "
            "already active. Perhaps you are attempting to restart a query from "
            "checkpoint that is already active."
        )

    def _stop_active_run(self, query_id: Optional[str], session: Any) -> None:
        """A start on the checkpoint of an active query of this session: Spark stops the active
        run first (spark.sql.streaming.stopActiveRunOnRestart, true by default), or refuses
        before the new one starts (and before any listener hears of it)."""
        active = [q for q in self.active if query_id and q.id == query_id]
        if not active:
            return
        stop = session.conf.get("spark.sql.streaming.stopActiveRunOnRestart", "true")
        if str(stop).strip().lower() != "false":
            for query in active:
                query.stop()
            return
        # Spark's IllegalStateException (PySpark passes it on as a Py4JJavaError), as the core's
        # illegal states are raised.
        raise SparkRuntimeException(
            f"Cannot start query with id {query_id} as another query with same id is already "
            "active. Perhaps you are attempting to restart a query from checkpoint that is "
            "already active. You may stop the old query by setting the SQL configuration: "
            'spark.conf.set("spark.sql.streaming.stopActiveRunOnRestart", true) and retry.'
        )

    def _register(self, query: StreamingQuery) -> None:
        with self._lock:
            self._forget_ended()
            existing = self._queries.get(query.id)
            if existing is not None and existing is not query:
                query._q.stop()
                raise self._same_id_error(query.id)
            self._queries[query.id] = query

    def awaitAnyTermination(self, timeout: Optional[int] = None) -> Optional[bool]:
        import time

        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                self._forget_ended()
                ended, error = self._ended, self._ended_error
            if ended:
                if error is not None:
                    raise error
                return True
            if deadline is not None and time.monotonic() > deadline:
                return False
            time.sleep(0.01)

    def resetTerminated(self) -> None:
        with self._lock:
            self._forget_ended()
            self._ended, self._ended_error = False, None


def _shutdown(manager: "weakref.ref[StreamingQueryManager]", bus: Any) -> None:
    """At interpreter exit, while threads may still take the GIL: stops the session's active
    queries (Spark's JVM stops its queries as it exits), then delivers the queued listener events
    and ends the listener thread, so no engine thread calls into a finalizing interpreter."""
    owner = manager()
    if owner is not None:
        for query in owner.active:
            query.stop()
    bus.close()


def _checkpoint_query_id(checkpoint: str) -> Optional[str]:
    """The query id a checkpoint keeps in its `metadata` file, if it has one."""
    try:
        with open(os.path.join(checkpoint, "metadata")) as f:
            return json.loads(f.read()).get("id")
    except (OSError, ValueError, AttributeError):
        return None
