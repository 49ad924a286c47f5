"""Observation, as pyspark.sql.Observation: named metrics of a DataFrame, computed by an action."""

from __future__ import annotations

from ember.errors import (
    IllegalArgumentException, PySparkAssertionError, PySparkTypeError, PySparkValueError,
)

TYPE_CHECKING = False  # typing costs milliseconds at start-up
if TYPE_CHECKING:
    from typing import Any, Dict, Optional

    from ember.sql.column import Column
    from ember.sql.dataframe import DataFrame


class Observation:
    """Metrics (aggregate expressions) of a DataFrame, computed over the rows an action runs
    through it: `df.observe(observation, *exprs)`, then an action, then `observation.get`, a dict
    of the metrics by name. An Observation serves one DataFrame, and only batch ones; before an
    action `get` is an empty dict, as in PySpark's Connect client. The engine's rules for the
    metrics are Spark's (INVALID_OBSERVED_METRICS)."""

    def __init__(self, name: Optional[str] = None) -> None:
        if name is not None:
            if not isinstance(name, str):
                raise PySparkTypeError(
                    errorClass="NOT_STR",
                    messageParameters={"arg_name": "name", "arg_type": type(name).__name__},
                )
            if name == "":
                raise PySparkValueError(
                    errorClass="VALUE_NOT_NON_EMPTY_STR",
                    messageParameters={"arg_name": "name", "arg_value": name},
                )
        self._name = name
        self._df: Optional[DataFrame] = None
        self._result: Optional[Dict[str, Any]] = None

    def _on(self, df: DataFrame, *exprs: Column) -> DataFrame:
        if self._df is not None:
            raise PySparkAssertionError(errorClass="REUSE_OBSERVATION", messageParameters={})
        if df.isStreaming:
            raise IllegalArgumentException(
                errorClass="UNSUPPORTED_OPERATION",
                messageParameters={"operation": "Streaming DataFrame with Observation"},
            )
        if self._name is None:
            import uuid

            self._name = str(uuid.uuid4())
        observed = df._wrap(df._df.observe(self._name, [c._c for c in exprs]))
        self._df = observed
        return observed

    @property
    def get(self) -> Dict[str, Any]:
        """The metrics by name, of the latest action that computed them before the first `get`
        that found them (PySpark keeps the first action's)."""
        if self._df is None:
            raise PySparkAssertionError(errorClass="NO_OBSERVE_BEFORE_GET", messageParameters={})
        if self._result is None:
            capsule = self._df._session._core.last_observed_metrics(self._name)
            if capsule is None:
                return {}
            from ember.sql.dataframe import _ArrowStream, _rows, pa

            table = pa.RecordBatchReader.from_stream(_ArrowStream(capsule)).read_all()
            self._result = _rows(table)[0].asDict()
        return dict(self._result)
