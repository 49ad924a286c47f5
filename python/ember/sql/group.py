"""GroupedData, as pyspark.sql.GroupedData."""

from __future__ import annotations

from ember.sql import functions as F
from ember.sql.column import Column

TYPE_CHECKING = False  # typing costs milliseconds at start-up
if TYPE_CHECKING:
    from typing import Any, Dict, List
    from ember.sql.dataframe import DataFrame


class GroupedData:
    def __init__(self, df: "DataFrame", keys: List[Column]):
        self._df = df
        self._keys = keys

    def agg(self, *exprs: Any) -> "DataFrame":
        if len(exprs) == 1 and isinstance(exprs[0], dict):
            columns = [_by_name(fn, name) for name, fn in exprs[0].items()]
        else:
            columns = list(exprs)
        core = self._df._df.group_by([k._c for k in self._keys], [c._c for c in columns])
        return self._df._wrap(core)

    def count(self) -> "DataFrame":
        return self.agg(F.count(F.lit(1)).alias("count"))

    def _each(self, fn: str, cols: Any) -> "DataFrame":
        if not cols:
            numeric = ("tinyint", "smallint", "int", "bigint", "float", "double")
            cols = [n for n, t in self._df.dtypes if t in numeric or t.startswith("decimal")]
        return self.agg(*[getattr(F, fn)(c) for c in cols])

    def sum(self, *cols: str) -> "DataFrame":
        return self._each("sum", cols)

    def avg(self, *cols: str) -> "DataFrame":
        return self._each("avg", cols)

    mean = avg

    def min(self, *cols: str) -> "DataFrame":
        return self._each("min", cols)

    def max(self, *cols: str) -> "DataFrame":
        return self._each("max", cols)


def _by_name(function: str, column: str) -> Column:
    name = {"mean": "avg"}.get(function.lower(), function.lower())
    if column == "*" and name == "count":
        return F.count(F.lit(1)).alias("count(1)")
    return getattr(F, name)(column)
