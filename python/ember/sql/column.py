"""Column: an expression of the DataFrame API, as pyspark.sql.Column.

Every method builds a node of the C++ expression tree; nothing is evaluated here.
"""

from __future__ import annotations

from ember import _core
from ember._lazy import LazyModule
from ember.errors import PySparkTypeError, PySparkValueError
from ember.sql.types import DataType

TYPE_CHECKING = False  # typing costs milliseconds at start-up
if TYPE_CHECKING:
    from typing import Any

pa = LazyModule("pyarrow")


def _arrow_literal(value: Any) -> pa.Array:
    """A one-element arrow array of the Spark type PySpark gives a Python value."""
    import datetime  # here: values of these types take this path, and importing costs
    import decimal

    if isinstance(value, bool):
        return pa.array([value], pa.bool_())
    if isinstance(value, int):
        return pa.array([value], pa.int32() if -(2**31) <= value < 2**31 else pa.int64())
    if isinstance(value, float):
        return pa.array([value], pa.float64())
    if isinstance(value, str):
        return pa.array([value], pa.string())
    if isinstance(value, decimal.Decimal):
        digits = value.as_tuple()
        scale = max(0, -digits.exponent)
        precision = max(len(digits.digits), scale, 1)
        return pa.array([value], pa.decimal128(precision, scale))
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            # PySpark reads a naive datetime as local wall-clock time.
            value = value.astimezone()
        return pa.array([value], pa.timestamp("us", "UTC"))
    if isinstance(value, datetime.date):
        return pa.array([value], pa.date32())
    if isinstance(value, (bytes, bytearray)):
        return pa.array([bytes(value)], pa.binary())
    if value is None:
        return pa.array([None], pa.null())
    raise PySparkTypeError(
        errorClass="UNSUPPORTED_LITERAL",
        messageParameters={"literal": repr(value)},
    )


def _lit(value: Any) -> "Column":
    if isinstance(value, Column):
        return value
    simple = _core.simple_lit(value)  # made in the core, without importing pyarrow
    if simple is not None:
        return Column(simple)
    table = pa.table({"v": _arrow_literal(value)})
    return Column(_core.lit(table.__arrow_c_stream__()))


def _to_col(value: Any) -> "Column":
    """A Column from a Column, or a column name where PySpark takes names."""
    if isinstance(value, Column):
        return value
    if isinstance(value, str):
        return Column(_core.col(value))
    raise PySparkTypeError(
        errorClass="NOT_COLUMN_OR_STR",
        messageParameters={"arg_name": "col", "arg_type": type(value).__name__},
    )


def _call(name: str, *args: Any, distinct: bool = False) -> "Column":
    return Column(_core.call(name, [_lit(a)._c for a in args], distinct))


def _type_name(data_type: Any) -> str:
    if isinstance(data_type, DataType):
        return data_type.simpleString()
    if isinstance(data_type, str):
        return data_type
    raise PySparkTypeError(
        errorClass="NOT_DATATYPE_OR_STR",
        messageParameters={"arg_name": "dataType", "arg_type": type(data_type).__name__},
    )


def _binary(op: str, reverse: bool = False):
    def method(self: "Column", other: Any) -> "Column":
        left, right = (_lit(other), self) if reverse else (self, _lit(other))
        return Column(_core.call(op, [left._c, right._c]))

    return method


class Column:
    def __init__(self, core: Any, branches: Any = None):
        self._c = core
        # Pending when(...) branches, so that .when() and .otherwise() can extend them.
        self._branches = branches

    __add__ = _binary("+")
    __radd__ = _binary("+", reverse=True)
    __sub__ = _binary("-")
    __rsub__ = _binary("-", reverse=True)
    __mul__ = _binary("*")
    __rmul__ = _binary("*", reverse=True)
    __truediv__ = _binary("/")
    __rtruediv__ = _binary("/", reverse=True)
    __mod__ = _binary("%")
    __rmod__ = _binary("%", reverse=True)
    __eq__ = _binary("=")  # type: ignore[assignment]
    __lt__ = _binary("<")
    __le__ = _binary("<=")
    __gt__ = _binary(">")
    __ge__ = _binary(">=")
    __and__ = _binary("and")
    __rand__ = _binary("and", reverse=True)
    __or__ = _binary("or")
    __ror__ = _binary("or", reverse=True)
    eqNullSafe = _binary("<=>")

    def __ne__(self, other: Any) -> "Column":  # type: ignore[override]
        return Column(_core.call("not", [(self == other)._c]))

    def __neg__(self) -> "Column":
        return Column(_core.call("negative", [self._c]))

    def __invert__(self) -> "Column":
        return Column(_core.call("not", [self._c]))

    def __bool__(self) -> bool:
        raise PySparkValueError(errorClass="CANNOT_CONVERT_COLUMN_INTO_BOOL", messageParameters={})

    __hash__ = None  # type: ignore[assignment]

    def __iter__(self):
        raise PySparkTypeError(
            errorClass="NOT_ITERABLE", messageParameters={"objectName": "Column"}
        )

    def __repr__(self) -> str:
        return f"Column<'{self._c.name()}'>"

    def __getattr__(self, name: str) -> "Column":
        if name.startswith("__"):
            raise AttributeError(name)
        return self.getField(name)

    def __getitem__(self, key: Any) -> "Column":
        if isinstance(key, str):
            return self.getField(key)
        raise PySparkTypeError(
            errorClass="NOT_STR", messageParameters={"arg_name": "key", "arg_type": type(key).__name__}
        )

    def getField(self, name: str) -> "Column":
        return Column(self._c.get_field(name))

    def alias(self, *alias: str, **kwargs: Any) -> "Column":
        return Column(self._c.alias(alias[0]))

    name = alias

    def cast(self, dataType: Any) -> "Column":
        return Column(self._c.cast(_type_name(dataType), False))

    astype = cast

    def try_cast(self, dataType: Any) -> "Column":
        return Column(self._c.cast(_type_name(dataType), True))

    def isNull(self) -> "Column":
        return _call("isnull", self)

    def isNotNull(self) -> "Column":
        return _call("isnotnull", self)

    def isNaN(self) -> "Column":
        return _call("isnan", self)

    def isin(self, *values: Any) -> "Column":
        if len(values) == 1 and isinstance(values[0], (list, set, tuple)):
            values = tuple(values[0])
        return _call("in", self, *values)

    def between(self, lowerBound: Any, upperBound: Any) -> "Column":
        return (self >= lowerBound) & (self <= upperBound)

    def like(self, other: str) -> "Column":
        return _call("like", self, other)

    def rlike(self, other: str) -> "Column":
        return _call("rlike", self, other)

    def contains(self, other: Any) -> "Column":
        return _call("like", self, "%" + other + "%")

    def startswith(self, other: str) -> "Column":
        return _call("like", self, other + "%")

    def endswith(self, other: str) -> "Column":
        return _call("like", self, "%" + other)

    def substr(self, startPos: int, length: int) -> "Column":
        return _call("substring", self, startPos, length)

    def when(self, condition: "Column", value: Any) -> "Column":
        if self._branches is None:
            raise TypeError(
                "when() can only be applied on a Column previously generated by when() function"
            )
        branches = self._branches + [condition, _lit(value)]
        return Column(_core.call("when", [b._c for b in branches]), branches)

    def otherwise(self, value: Any) -> "Column":
        if self._branches is None:
            raise TypeError(
                "otherwise() can only be applied on a Column previously generated by when() function"
            )
        branches = self._branches + [_lit(value)]
        return Column(_core.call("when", [b._c for b in branches]))

    def asc(self) -> "Column":
        return Column(self._c.sort(True, True))

    def asc_nulls_first(self) -> "Column":
        return Column(self._c.sort(True, True))

    def asc_nulls_last(self) -> "Column":
        return Column(self._c.sort(True, False))

    def desc(self) -> "Column":
        return Column(self._c.sort(False, False))

    def desc_nulls_first(self) -> "Column":
        return Column(self._c.sort(False, True))

    def desc_nulls_last(self) -> "Column":
        return Column(self._c.sort(False, False))
