"""The import path `pyspark.errors.exceptions.captured`.

In PySpark these classes wrap exceptions captured from the JVM and subclass the ones in `base`.
Ember has no JVM, so they are the same classes: catching either name catches the error.
"""

from ember.errors.exceptions.base import (  # noqa: F401
    AnalysisException,
    ArithmeticException,
    ArrayIndexOutOfBoundsException,
    DateTimeException,
    IllegalArgumentException,
    NumberFormatException,
    ParseException,
    PythonException,
    QueryExecutionException,
    SparkNoSuchElementException,
    SparkRuntimeException,
    SparkUpgradeException,
    StreamingQueryException,
    UnknownException,
    UnsupportedOperationException,
)
