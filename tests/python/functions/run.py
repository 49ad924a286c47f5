"""Evaluates function cases on one engine (Ember's or Spark's SparkSession) as comparable answers."""

import datetime
import decimal
import math


def canonical(value) -> str:
    """A value as text both engines' Python objects agree on: Rows by field, bytes as bytes."""
    if isinstance(value, tuple) and hasattr(value, "asDict"):  # a Row
        fields = getattr(value, "__fields__", None) or list(value.asDict().keys())
        inner = ", ".join(f"{k}={canonical(v)}" for k, v in zip(fields, value))
        return f"Row({inner})"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return repr(bytes(value))
    if isinstance(value, list):
        return "[" + ", ".join(canonical(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{canonical(k)}: {canonical(v)}" for k, v in value.items()) + "}"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    if isinstance(value, (decimal.Decimal, datetime.date, datetime.datetime, datetime.timedelta)):
        return repr(value)
    return repr(value)


def condition(error: Exception) -> str:
    if isinstance(error, (ValueError, OverflowError)) and not hasattr(error, "getCondition"):
        return "PYTHON_CONVERSION"  # a value Python's datetime cannot hold, in collect()
    get = getattr(error, "getCondition", None)
    found = get() if get else None
    return found or type(error).__name__


def _answers(df) -> list:
    rows = df.collect()
    return [{"type": f.dataType.simpleString(), "nullable": f.nullable,
             "value": canonical(rows[0][i])}
            for i, f in enumerate(df.schema.fields)]


def _query_answer(df) -> dict:
    """A whole query's answer: its first column's type, and every row's cells."""
    rows = df.collect()
    f = df.schema.fields[0]
    return {"type": f.dataType.simpleString(), "nullable": f.nullable,
            "value": "; ".join(", ".join(canonical(v) for v in row) for row in rows)}


def evaluate(spark, exprs: list) -> list:
    """The answer of each expression: its type, nullability and value, or its error condition.
    All at once in one SELECT; one by one when that fails. A case that is a whole query
    (aggregates over VALUES) runs alone, and its answer holds all its rows."""
    queries = {e for e in exprs if e.startswith("SELECT ")}
    if queries:
        scalars = evaluate(spark, [e for e in exprs if e not in queries])
        out = []
        for e in exprs:
            if e in queries:
                try:
                    out.append(_query_answer(spark.sql(e)))
                except Exception as error:  # noqa: BLE001 - the error is the answer
                    out.append({"error": condition(error)})
            else:
                out.append(scalars.pop(0))
        return out
    if not exprs:
        return []
    select = "SELECT " + ", ".join(f"{e} AS c{i}" for i, e in enumerate(exprs))
    try:
        return _answers(spark.sql(select))
    except Exception:  # noqa: BLE001 - one of them fails: find which
        pass
    out = []
    for e in exprs:
        try:
            out.append(_answers(spark.sql(f"SELECT {e} AS c0"))[0])
        except Exception as error:  # noqa: BLE001 - the error is the answer
            out.append({"error": condition(error)})
    return out
