"""pyspark.sql.streaming.listener: StreamingQueryListener, its events, and the progress objects
that `lastProgress` and `QueryProgressEvent.progress` return.

Delivery follows Spark (STREAMING.md 2.1, 2.8): `onQueryStarted` runs before `start()` returns;
the other events run later on one listener thread, in the order the queries posted them. An
exception in a listener is reported (as an unraisable exception) and does not stop the query or
the other listeners.
"""

import json
import uuid
from abc import ABC, abstractmethod
from typing import Any, Dict, List, Optional

__all__ = [
    "StreamingQueryListener", "QueryStartedEvent", "QueryProgressEvent", "QueryIdleEvent",
    "QueryTerminatedEvent", "StreamingQueryProgress", "StateOperatorProgress", "SourceProgress",
    "SinkProgress",
]


class StreamingQueryListener(ABC):
    """Receives the life-cycle events of the session's streaming queries
    (`spark.streams.addListener`)."""

    @abstractmethod
    def onQueryStarted(self, event: "QueryStartedEvent") -> None:
        """Called before `DataStreamWriter.start()` returns, on the thread that called it."""

    @abstractmethod
    def onQueryProgress(self, event: "QueryProgressEvent") -> None:
        """Called after each micro-batch, on the listener thread."""

    # Not abstract, as in PySpark: listeners written before Spark 3.5 do not define it.
    def onQueryIdle(self, event: "QueryIdleEvent") -> None:
        """Called when the query found no new data for `noDataProgressEventInterval`."""

    @abstractmethod
    def onQueryTerminated(self, event: "QueryTerminatedEvent") -> None:
        """Called when the query stopped or failed, on the listener thread."""


class QueryStartedEvent:
    def __init__(self, id: uuid.UUID, runId: uuid.UUID, name: Optional[str], timestamp: str):
        self._id, self._runId, self._name, self._timestamp = id, runId, name, timestamp

    @property
    def id(self) -> uuid.UUID:
        return self._id

    @property
    def runId(self) -> uuid.UUID:
        return self._runId

    @property
    def name(self) -> Optional[str]:
        return self._name

    @property
    def timestamp(self) -> str:
        return self._timestamp


class QueryProgressEvent:
    def __init__(self, progress: "StreamingQueryProgress"):
        self._progress = progress

    @property
    def progress(self) -> "StreamingQueryProgress":
        return self._progress


class QueryIdleEvent:
    def __init__(self, id: uuid.UUID, runId: uuid.UUID, timestamp: str):
        self._id, self._runId, self._timestamp = id, runId, timestamp

    @property
    def id(self) -> uuid.UUID:
        return self._id

    @property
    def runId(self) -> uuid.UUID:
        return self._runId

    @property
    def timestamp(self) -> str:
        return self._timestamp


class QueryTerminatedEvent:
    def __init__(self, id: uuid.UUID, runId: uuid.UUID, exception: Optional[str],
                 errorClassOnException: Optional[str]):
        self._id, self._runId = id, runId
        self._exception, self._errorClassOnException = exception, errorClassOnException

    @property
    def id(self) -> uuid.UUID:
        return self._id

    @property
    def runId(self) -> uuid.UUID:
        return self._runId

    @property
    def exception(self) -> Optional[str]:
        """The failure as "<exception class>: <message>", or None after stop()."""
        return self._exception

    @property
    def errorClassOnException(self) -> Optional[str]:
        """The failure's error condition, or None."""
        return self._errorClassOnException


class _ProgressDict(dict):
    """A dict of Spark's progress JSON whose keys are also attributes (PySpark 4.0's form)."""

    _keys: tuple = ()

    def __init__(self, j: Dict[str, Any]):
        super().__init__(j)
        self._jdict = j

    def __getattr__(self, name: str) -> Any:
        if name in self._keys:
            return self.get(name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def json(self) -> str:
        return json.dumps(self._jdict)

    @property
    def prettyJson(self) -> str:
        return json.dumps(self._jdict, indent=4)

    def __str__(self) -> str:
        return self.prettyJson

    def __repr__(self) -> str:
        return self.prettyJson


class StateOperatorProgress(_ProgressDict):
    _keys = ("operatorName", "numRowsTotal", "numRowsUpdated", "allUpdatesTimeMs", "numRowsRemoved",
             "allRemovalsTimeMs", "commitTimeMs", "memoryUsedBytes", "numRowsDroppedByWatermark",
             "numShufflePartitions", "numStateStoreInstances", "customMetrics")


def _offset_text(offset: Any) -> str:
    """An offset as PySpark shows it: the source's JSON text ("None" before the first)."""
    return "None" if offset is None else json.dumps(offset, separators=(",", ":"), ensure_ascii=False)


class SourceProgress(_ProgressDict):
    _keys = ("description", "startOffset", "endOffset", "latestOffset", "numInputRows",
             "inputRowsPerSecond", "processedRowsPerSecond", "metrics")

    def __init__(self, j: Dict[str, Any]):
        super().__init__(j)
        for key in ("startOffset", "endOffset", "latestOffset"):
            self[key] = _offset_text(j.get(key))
        self["metrics"] = dict(j.get("metrics", {}))


class SinkProgress(_ProgressDict):
    _keys = ("description", "numOutputRows", "metrics")

    def __init__(self, j: Dict[str, Any]):
        super().__init__(j)
        self["metrics"] = dict(j.get("metrics", {}))


def _row(fields: Dict[str, Any]) -> Any:
    from ember.sql.types import Row

    return Row(*fields.keys())(*fields.values())


class StreamingQueryProgress(_ProgressDict):
    """One progress report. As in PySpark, `progress.id` and `progress.runId` are `uuid.UUID`
    while `progress["id"]` is the string."""

    _keys = ("name", "timestamp", "batchId", "batchDuration", "durationMs", "eventTime",
             "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond", "observedMetrics")

    def __init__(self, j: Dict[str, Any]):
        original, j = j, dict(j)
        # The JSON leaves empty maps out; PySpark's object has every field.
        for key in ("durationMs", "eventTime", "observedMetrics"):
            j.setdefault(key, {})
        # A Row per observation, of the JSON's values as they are (timestamps as text), as
        # PySpark's Connect client builds them.
        j["observedMetrics"] = {k: _row(v) for k, v in j["observedMetrics"].items()}
        j["stateOperators"] = [StateOperatorProgress(s) for s in j.get("stateOperators", [])]
        j["sources"] = [SourceProgress(s) for s in j.get("sources", [])]
        if j.get("sink") is not None:
            j["sink"] = SinkProgress(j["sink"])
        super().__init__(j)
        self._jdict = original  # .json is Spark's JSON, offsets as objects

    @classmethod
    def fromJson(cls, j: Dict[str, Any]) -> "StreamingQueryProgress":
        return cls(j)

    @property
    def id(self) -> uuid.UUID:
        return uuid.UUID(self["id"])

    @property
    def runId(self) -> uuid.UUID:
        return uuid.UUID(self["runId"])

    @property
    def stateOperators(self) -> List[StateOperatorProgress]:
        return self["stateOperators"]

    @property
    def sources(self) -> List[SourceProgress]:
        return self["sources"]

    @property
    def sink(self) -> SinkProgress:
        return self["sink"]


def _event(kind: str, fields: Dict[str, Any]) -> Any:
    """The PySpark event for one the engine posted."""
    if kind == "progress":
        return QueryProgressEvent(StreamingQueryProgress(json.loads(fields["progress"])))
    query_id, run_id = uuid.UUID(fields["id"]), uuid.UUID(fields["runId"])
    if kind == "started":
        return QueryStartedEvent(query_id, run_id, fields["name"], fields["timestamp"])
    if kind == "idle":
        return QueryIdleEvent(query_id, run_id, fields["timestamp"])
    return QueryTerminatedEvent(query_id, run_id, fields["exception"],
                                fields["errorClassOnException"])


_CALLBACKS = {"started": "onQueryStarted", "progress": "onQueryProgress", "idle": "onQueryIdle",
              "terminated": "onQueryTerminated"}
