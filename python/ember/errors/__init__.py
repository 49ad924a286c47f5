"""PySpark-compatible exceptions (`pyspark.errors`), and the bridge from the C++ core's errors."""

from __future__ import annotations

from ember.errors.exceptions.base import (
    AnalysisException,
    ArithmeticException,
    ArrayIndexOutOfBoundsException,
    DateTimeException,
    IllegalArgumentException,
    NumberFormatException,
    ParseException,
    PickleException,
    PySparkAssertionError,
    PySparkAttributeError,
    PySparkException,
    PySparkImportError,
    PySparkIndexError,
    PySparkKeyError,
    PySparkNotImplementedError,
    PySparkRuntimeError,
    PySparkTypeError,
    PySparkValueError,
    PythonException,
    QueryExecutionException,
    RetriesExceeded,
    SessionNotSameException,
    SparkNoSuchElementException,
    SparkRuntimeException,
    SparkUpgradeException,
    StreamingPythonRunnerInitializationException,
    StreamingQueryException,
    TempTableAlreadyExistsException,
    UnknownException,
    UnsupportedOperationException,
)

TYPE_CHECKING = False  # typing costs milliseconds at start-up
if TYPE_CHECKING:
    from typing import Any, Dict, Optional

__all__ = [
    "PySparkException",
    "AnalysisException",
    "SessionNotSameException",
    "TempTableAlreadyExistsException",
    "ParseException",
    "IllegalArgumentException",
    "ArithmeticException",
    "UnsupportedOperationException",
    "ArrayIndexOutOfBoundsException",
    "DateTimeException",
    "NumberFormatException",
    "StreamingQueryException",
    "QueryExecutionException",
    "PythonException",
    "UnknownException",
    "SparkRuntimeException",
    "SparkUpgradeException",
    "SparkNoSuchElementException",
    "PySparkTypeError",
    "PySparkValueError",
    "PySparkImportError",
    "PySparkIndexError",
    "PySparkAttributeError",
    "PySparkRuntimeError",
    "PySparkAssertionError",
    "PySparkNotImplementedError",
    "PySparkPicklingError",
    "RetriesExceeded",
    "PySparkKeyError",
    "StreamingPythonRunnerInitializationException",
    "PickleException",
    "from_core",
]

# The core names an error by the JVM class Spark would throw; each maps to the Python class
# PySpark converts that JVM class to.
_CORE_KINDS = {
    cls.__name__: cls
    for cls in (
        AnalysisException,
        ParseException,
        IllegalArgumentException,
        StreamingQueryException,
        QueryExecutionException,
        ArithmeticException,
        NumberFormatException,
        DateTimeException,
        SparkRuntimeException,
        SparkUpgradeException,
        SparkNoSuchElementException,
        UnsupportedOperationException,
        ArrayIndexOutOfBoundsException,
        TempTableAlreadyExistsException,
        PySparkValueError,
        PySparkTypeError,
    )
}
# Spark reports its internal invariant failures as SparkException [INTERNAL_ERROR]; the closest
# class PySpark raises for a runtime failure is SparkRuntimeException.
_CORE_KINDS["IllegalStateException"] = SparkRuntimeException


def from_core(
    kind: str,
    condition: str,
    message: str,
    sqlstate: str,
    parameters: Optional[Dict[str, str]] = None,
) -> PySparkException:
    """Build the Python exception for an error reported by the C++ core.

    `kind` names the exception class (see `_CORE_KINDS`; unknown kinds give UnknownException),
    `condition` and `sqlstate` may be empty. `message` is normally the text Spark would show,
    "[CONDITION] description SQLSTATE: 42703", and `str()` of the result is exactly that text; a
    bare description is completed into that form.
    """
    cls = _CORE_KINDS.get(kind, UnknownException)
    if condition and not message.lstrip("\n").startswith(f"[{condition}]"):
        return cls(
            message,
            errorClass=condition,
            messageParameters=parameters or {},
            sqlState=sqlstate or None,
        )
    return cls._formatted(message, condition or None, sqlstate or None, parameters)


def __getattr__(name: str) -> Any:
    if name == "PySparkPicklingError":  # made at first use, see exceptions.base
        from ember.errors.exceptions import base

        return base.PySparkPicklingError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
