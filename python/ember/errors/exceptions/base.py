"""PySpark 4.0's exception classes, with the same names and hierarchy.

An exception carries an error condition (Spark's name for the kind of error, such as
`UNRESOLVED_COLUMN.WITH_SUGGESTION`), its message parameters and an SQLSTATE. Errors from the C++
engine arrive already formatted the way the JVM formats them; errors raised in Python are rendered
from a template in `ember.errors.conditions`.
"""

from __future__ import annotations

from ember.errors.conditions import render

TYPE_CHECKING = False  # typing costs milliseconds at start-up
if TYPE_CHECKING:
    from typing import Any, Dict, Iterable, List, Optional


class PySparkException(Exception):
    """Base class of every error Ember raises on purpose."""

    def __init__(
        self,
        message: Optional[str] = None,
        errorClass: Optional[str] = None,
        messageParameters: Optional[Dict[str, str]] = None,
        sqlState: Optional[str] = None,
        contexts: Optional[List[Any]] = None,
    ):
        if message is None:
            message = render(errorClass, messageParameters)
        self._message = str(message)
        self._errorClass = errorClass
        self._messageParameters = messageParameters
        self._sqlState = sqlState
        self._contexts = contexts or []
        # True when `_message` is already the complete text ("[COND] ... SQLSTATE: ...").
        self._preformatted = False
        # Passing the message on keeps `args`, `repr` and pickling as for any exception.
        super().__init__(self._message)

    @classmethod
    def _formatted(
        cls,
        text: str,
        condition: Optional[str],
        sqlState: Optional[str],
        parameters: Optional[Dict[str, str]] = None,
    ) -> "PySparkException":
        """An exception whose text was formatted by the engine, shown exactly as given."""
        exc = cls(text, errorClass=condition, messageParameters=parameters or {}, sqlState=sqlState)
        exc._preformatted = True
        return exc

    def getCondition(self) -> Optional[str]:
        return self._errorClass

    def getErrorClass(self) -> Optional[str]:
        import warnings

        warnings.warn("Deprecated in 4.0.0, use getCondition instead.", FutureWarning)
        return self.getCondition()

    def getMessageParameters(self) -> Optional[Dict[str, str]]:
        return self._messageParameters

    def getSqlState(self) -> Optional[str]:
        return self._sqlState

    def getMessage(self) -> str:
        if self._preformatted:
            return self._message
        condition = self._errorClass
        # Spark leaves the condition out of the text of its legacy, unnamed errors.
        if condition is None or condition.startswith("_LEGACY_ERROR_"):
            prefix = ""
        else:
            prefix = f"[{condition}] "
        suffix = f" SQLSTATE: {self._sqlState}" if self._sqlState else ""
        return prefix + self._message + suffix

    def getQueryContext(self) -> List[Any]:
        return self._contexts

    def __str__(self) -> str:
        if self._preformatted or self._errorClass is not None:
            return self.getMessage()
        return self._message


class AnalysisException(PySparkException):
    """Failed to analyze a query plan."""


class SessionNotSameException(PySparkException):
    """An operation mixed DataFrames of different sessions."""


class TempTableAlreadyExistsException(AnalysisException):
    """A temporary view of that name already exists."""


class ParseException(AnalysisException):
    """Failed to parse SQL text, a DDL schema or a data type."""


class IllegalArgumentException(PySparkException):
    """An illegal or inappropriate argument."""


class ArithmeticException(PySparkException):
    """An arithmetic error such as overflow or division by zero (ANSI mode)."""


class UnsupportedOperationException(PySparkException):
    """An operation that is not supported, e.g. on a streaming DataFrame."""


class ArrayIndexOutOfBoundsException(PySparkException):
    """An array index out of bounds."""


class DateTimeException(PySparkException):
    """A date or time value that cannot be parsed or represented."""


class NumberFormatException(IllegalArgumentException):
    """A string that cannot be read as a number."""


class StreamingQueryException(PySparkException):
    """The exception that stopped a streaming query."""


class StreamingPythonRunnerInitializationException(PySparkException):
    """Failed to start a Python runner for a streaming query."""


class QueryExecutionException(PySparkException):
    """Failed to execute a query."""


class PythonException(PySparkException):
    """An exception raised by user Python code run by the engine (UDFs, foreachBatch)."""


class SparkRuntimeException(PySparkException):
    """A runtime error with an error condition."""


class SparkUpgradeException(PySparkException):
    """A behaviour that changed between Spark versions."""


class SparkNoSuchElementException(PySparkException):
    """A missing element, such as an unknown configuration key."""


class UnknownException(PySparkException):
    """None of the other exceptions."""


class PySparkValueError(PySparkException, ValueError):
    """ValueError with an error condition."""


class PySparkTypeError(PySparkException, TypeError):
    """TypeError with an error condition."""


class PySparkIndexError(PySparkException, IndexError):
    """IndexError with an error condition."""


class PySparkAttributeError(PySparkException, AttributeError):
    """AttributeError with an error condition."""


class PySparkRuntimeError(PySparkException, RuntimeError):
    """RuntimeError with an error condition."""


class PySparkAssertionError(PySparkException, AssertionError):
    """AssertionError with an error condition; `data` holds the rows that differ."""

    def __init__(
        self,
        message: Optional[str] = None,
        errorClass: Optional[str] = None,
        messageParameters: Optional[Dict[str, str]] = None,
        data: Optional[Iterable[Any]] = None,
        sqlState: Optional[str] = None,
    ):
        super().__init__(message, errorClass, messageParameters, sqlState)
        self.data = data


class PySparkNotImplementedError(PySparkException, NotImplementedError):
    """NotImplementedError with an error condition."""


class RetriesExceeded(PySparkException):
    """A retriable error that was retried too often."""


class PySparkKeyError(PySparkException, KeyError):
    """KeyError with an error condition."""


class PySparkImportError(PySparkException, ImportError):
    """ImportError with an error condition."""


class PickleException(PySparkException):
    """An object that the engine failed to pickle or unpickle."""


def __getattr__(name: str) -> Any:
    # PySparkPicklingError subclasses pickle.PicklingError, _pickle's class: made at first use,
    # as importing _pickle (with functools and collections) costs milliseconds at start-up.
    if name == "PySparkPicklingError":
        from _pickle import PicklingError

        cls = type(name, (PySparkException, PicklingError), {
            "__doc__": "pickle.PicklingError with an error condition.", "__module__": __name__})
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
