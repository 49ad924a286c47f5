"""User mistakes: each raises the exception class PySpark raises, with Spark's error condition and
a message naming the problem. The same cases run on the real Spark, which proves the expectations
are Spark's own."""

import pytest


def _events(spark):
    return spark.table("events")


MISTAKES = [
    # (name, mistake, PySpark class, error condition, text the message must contain)
    ("unknown_column", lambda s, F: _events(s).select("nme"),
     "AnalysisException", "UNRESOLVED_COLUMN.WITH_SUGGESTION", "`nme`"),
    ("unknown_column_sql", lambda s, F: s.sql("SELECT nme FROM events"),
     "AnalysisException", "UNRESOLVED_COLUMN.WITH_SUGGESTION", "`nme`"),
    ("sql_syntax", lambda s, F: s.sql("SELECT id FROM events WHERE id >"),
     "ParseException", "PARSE_SYNTAX_ERROR", "Syntax error"),
    ("unknown_table", lambda s, F: s.table("no_such_table"),
     "AnalysisException", "TABLE_OR_VIEW_NOT_FOUND", "`no_such_table`"),
    ("unknown_function", lambda s, F: s.sql("SELECT no_such_fn(id) FROM events"),
     "AnalysisException", "UNRESOLVED_ROUTINE", "`no_such_fn`"),
    ("missing_aggregation", lambda s, F: s.sql("SELECT cat, name FROM events GROUP BY cat"),
     "AnalysisException", "MISSING_AGGREGATION", "name"),
    ("filter_not_boolean", lambda s, F: _events(s).filter(F.col("i")),
     "AnalysisException", "DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN", "\"i\""),
    ("divide_by_zero", lambda s, F: s.sql("SELECT id / 0 FROM events").collect(),
     "ArithmeticException", "DIVIDE_BY_ZERO", "Division by zero"),
    ("cast_invalid_input", lambda s, F: s.sql("SELECT CAST('abc' AS INT) AS x FROM events").collect(),
     "NumberFormatException", "CAST_INVALID_INPUT", "'abc'"),
    ("union_width", lambda s, F: _events(s).select("id").union(_events(s).select("id", "i")),
     "AnalysisException", "NUM_COLUMNS_MISMATCH", "UNION"),
    ("bad_cast", lambda s, F: _events(s).select(F.col("flag").cast("date")),
     "AnalysisException", "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION", "\"BOOLEAN\""),
    ("nested_aggregate", lambda s, F: s.sql("SELECT sum(count(*)) FROM events"),
     "AnalysisException", "NESTED_AGGREGATE_FUNCTION", "aggregate function"),
    ("view_exists", lambda s, F: _events(s).createTempView("events"),
     "AnalysisException", "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS", "`events`"),
    ("missing_path", lambda s, F: s.read.schema("a INT").json("/no/such/dir/x.json"),
     "AnalysisException", "PATH_NOT_FOUND", "/no/such/dir/x.json"),
]


@pytest.mark.parametrize("mistake", MISTAKES, ids=[m[0] for m in MISTAKES])
def test_user_mistake(engine, mistake):
    _, action, exception_class, condition, text = mistake
    with pytest.raises(Exception) as caught:
        action(engine.spark, engine.F)
    error = caught.value
    assert type(error).__name__ == exception_class, f"{type(error).__name__}: {error}"
    assert error.getCondition() == condition, str(error)
    assert text in str(error), str(error)
