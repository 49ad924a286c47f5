"""The Python functions a Connect client sends with a streaming query (foreachBatch, foreach),
run in this interpreter when the server lives in it. Spark's server hands each batch to a Python
worker process that connects back as a Connect client of the query's session and reaches the
batch as a cached relation; here the same happens in-process: the engine (C++) caches the batch
and calls `Runner` on the query's thread with the GIL taken for the call only."""

from __future__ import annotations

import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, Tuple


class Runner:
    """Called as runner(command, foreach, session_id, relation_id, batch_id) for each batch."""

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
