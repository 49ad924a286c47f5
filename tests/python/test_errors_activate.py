"""ember.errors against PySpark 4.0's classes and messages, and ember.activate() in subprocesses.

The activation tests run in a fresh interpreter each, because activate() changes how the whole
process imports `pyspark`, and this process has the real PySpark imported.
"""

import glob
import json
import os
import pickle
import subprocess
import sys
import textwrap
import zipfile

import pyspark
import pyspark.errors as P
import pytest

import ember.errors as E
from ember.errors.conditions import MESSAGES, render

CLASSES = [name for name in E.__all__ if name != "from_core"]


def test_same_names_as_pyspark():
    missing = set(P.__all__) - set(E.__all__)
    # Query contexts come from the JVM's plan; Ember reports positions in the message instead.
    assert missing == {"QueryContext", "QueryContextType"}


@pytest.mark.parametrize("name", CLASSES)
def test_hierarchy_matches_pyspark(name):
    e, p = getattr(E, name), getattr(P, name)
    for other in CLASSES:
        assert issubclass(e, getattr(E, other)) == issubclass(p, getattr(P, other)), other
    for builtin in (ValueError, TypeError, IndexError, KeyError, AttributeError, RuntimeError,
                    AssertionError, NotImplementedError, ImportError, pickle.PicklingError):
        assert issubclass(e, builtin) == issubclass(p, builtin), builtin


def test_parse_exception_is_analysis_exception():
    assert issubclass(E.ParseException, E.AnalysisException)
    assert issubclass(E.TempTableAlreadyExistsException, E.AnalysisException)
    assert issubclass(E.NumberFormatException, E.IllegalArgumentException)


def pyspark_templates():
    with open(os.path.join(os.path.dirname(P.__file__), "error-conditions.json")) as f:
        return json.load(f)


def spark_templates():
    """Spark's own conditions, from the JVM jar that ships in the pyspark wheel."""
    jar_dir = os.path.join(os.path.dirname(pyspark.__file__), "jars")
    jars = glob.glob(os.path.join(jar_dir, "spark-common-utils_*.jar"))
    if not jars:
        pytest.skip("no Spark jar in this pyspark")
    with zipfile.ZipFile(jars[0]) as jar:
        return json.loads(jar.read("error/error-conditions.json"))


@pytest.mark.parametrize("condition", sorted(MESSAGES))
def test_templates_are_spark_texts(condition):
    known = pyspark_templates()
    if condition not in known:
        known = spark_templates()
    assert condition in known
    assert MESSAGES[condition] == "\n".join(known[condition]["message"])


@pytest.mark.parametrize(
    "cls, condition, params",
    [
        ("PySparkValueError", "CANNOT_SET_TOGETHER", {"arg_list": "args and kwargs"}),
        ("PySparkTypeError", "NOT_INT_OR_SLICE_OR_STR", {"arg_name": "key", "arg_type": "float"}),
        ("PySparkKeyError", "KEY_NOT_EXISTS", {"key": "x"}),
        ("PySparkAttributeError", "ATTRIBUTE_NOT_SUPPORTED", {"attr_name": "y"}),
        ("PySparkRuntimeError", "READ_ONLY", {"object": "Row"}),
        ("PySparkNotImplementedError", "NOT_IMPLEMENTED", {"feature": "f"}),
        ("PySparkAssertionError", "TOO_MANY_VALUES", {"expected": "1", "item": "x", "actual": "2"}),
    ],
)
def test_python_side_errors_match_pyspark(cls, condition, params):
    e = getattr(E, cls)(errorClass=condition, messageParameters=params)
    p = getattr(P, cls)(errorClass=condition, messageParameters=params)
    assert str(e) == str(p)
    assert e.getMessage() == p.getMessage()
    assert e.getCondition() == p.getCondition() == condition
    assert e.getMessageParameters() == p.getMessageParameters() == params
    assert e.getSqlState() is None and p.getSqlState() is None
    assert e.getQueryContext() == p.getQueryContext() == []


def test_plain_message():
    e, p = E.AnalysisException("something failed"), P.AnalysisException("something failed")
    assert str(e) == str(p) == "something failed"
    assert e.getCondition() is None
    assert repr(E.PySparkValueError("bad")) == "PySparkValueError('bad')"


def test_get_error_class_is_deprecated():
    e = E.AnalysisException(errorClass="X", messageParameters={})
    with pytest.warns(FutureWarning, match="getCondition"):
        assert e.getErrorClass() == "X"


def test_sql_state_and_message():
    e = E.AnalysisException(
        "A column, variable, or function parameter with name `x` cannot be resolved.",
        errorClass="UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
        messageParameters={"objectName": "`x`"},
        sqlState="42703",
    )
    assert str(e) == e.getMessage() == (
        "[UNRESOLVED_COLUMN.WITHOUT_SUGGESTION] A column, variable, or function parameter with "
        "name `x` cannot be resolved. SQLSTATE: 42703"
    )
    assert e.getSqlState() == "42703"
    legacy = E.AnalysisException("old style", errorClass="_LEGACY_ERROR_TEMP_1")
    assert str(legacy) == "old style"


def test_unknown_condition_still_has_a_message():
    assert render("NO_SUCH_CONDITION", {"a": "1", "b": "2"}) == "a=1, b=2"
    e = E.PySparkValueError(errorClass="NO_SUCH_CONDITION", messageParameters={"a": "1"})
    assert str(e) == "[NO_SUCH_CONDITION] a=1"


def test_assertion_error_data():
    e = E.PySparkAssertionError("differs", data=[1, 2])
    assert e.data == [1, 2] and str(e) == "differs"


CORE_TEXT = (
    "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter with name "
    "`amt` cannot be resolved. Did you mean one of the following? [`amount`]. SQLSTATE: 42703"
)


def test_from_core_formatted_text():
    e = E.from_core("AnalysisException", "UNRESOLVED_COLUMN.WITH_SUGGESTION", CORE_TEXT, "42703")
    assert type(e) is E.AnalysisException
    assert str(e) == e.getMessage() == CORE_TEXT
    assert e.getCondition() == "UNRESOLVED_COLUMN.WITH_SUGGESTION"
    assert e.getSqlState() == "42703"
    assert e.getMessageParameters() == {}
    copy = pickle.loads(pickle.dumps(e))
    assert type(copy) is E.AnalysisException and str(copy) == CORE_TEXT
    assert copy.getCondition() == e.getCondition()


def test_from_core_bare_description():
    e = E.from_core(
        "AnalysisException",
        "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION",
        "Invalid streaming output mode: append.",
        "42KDE",
        {"outputMode": "append"},
    )
    assert str(e) == (
        "[STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION] Invalid streaming output mode: append. "
        "SQLSTATE: 42KDE"
    )
    assert e.getMessageParameters() == {"outputMode": "append"}


def test_from_core_parse_error_keeps_leading_newline():
    text = "\n[PARSE_SYNTAX_ERROR] Syntax error at or near 'FROM'. SQLSTATE: 42601 (line 1, pos 7)"
    e = E.from_core("ParseException", "PARSE_SYNTAX_ERROR", text, "42601")
    assert isinstance(e, E.AnalysisException) and str(e) == text


def test_from_core_without_condition():
    e = E.from_core("IllegalArgumentException", "", "requirement failed: bad option", "")
    assert type(e) is E.IllegalArgumentException
    assert str(e) == "requirement failed: bad option"
    assert e.getCondition() is None and e.getSqlState() is None


@pytest.mark.parametrize(
    "kind, cls",
    [
        ("AnalysisException", E.AnalysisException),
        ("ParseException", E.ParseException),
        ("IllegalArgumentException", E.IllegalArgumentException),
        ("StreamingQueryException", E.StreamingQueryException),
        ("QueryExecutionException", E.QueryExecutionException),
        ("ArithmeticException", E.ArithmeticException),
        ("NumberFormatException", E.NumberFormatException),
        ("DateTimeException", E.DateTimeException),
        ("SparkRuntimeException", E.SparkRuntimeException),
        ("UnsupportedOperationException", E.UnsupportedOperationException),
        ("IllegalStateException", E.SparkRuntimeException),
        ("PySparkValueError", E.PySparkValueError),
        ("PySparkTypeError", E.PySparkTypeError),
        ("SomethingNew", E.UnknownException),
    ],
)
def test_from_core_kinds(kind, cls):
    e = E.from_core(kind, "C", "[C] m SQLSTATE: XX000", "XX000")
    assert type(e) is cls
    assert str(e) == "[C] m SQLSTATE: XX000"


def test_captured_path():
    from ember.errors.exceptions import captured

    assert captured.AnalysisException is E.AnalysisException
    assert captured.StreamingQueryException is E.StreamingQueryException


# ---------------------------------------------------------------------------------------------
# activate()


def run_python(code):
    """Run `code` in a fresh interpreter that imports modules as this one does."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_activate_routes_pyspark_to_ember():
    run_python(
        """
        import sys
        import ember
        ember.activate()
        import pyspark
        assert pyspark is ember, pyspark
        from pyspark.sql.types import IntegerType, StructType, Row
        import ember.sql.types
        assert IntegerType is ember.sql.types.IntegerType
        assert Row is ember.sql.types.Row
        import pyspark.sql.types as T
        assert T is ember.sql.types
        assert sys.modules["pyspark.sql.types"] is ember.sql.types
        from pyspark.errors import AnalysisException
        import ember.errors
        assert AnalysisException is ember.errors.AnalysisException
        from pyspark.sql.utils import AnalysisException as Old
        assert Old is AnalysisException
        from pyspark.errors.exceptions.captured import StreamingQueryException
        assert StreamingQueryException is ember.errors.StreamingQueryException
        # Ember's modules keep their own identity.
        assert ember.sql.types.__name__ == "ember.sql.types"
        assert ember.sql.types.__spec__.name == "ember.sql.types"
        assert ember.__spec__.name == "ember"
        # No real PySpark module was loaded.
        real = [n for n, m in sys.modules.items()
                if n.startswith("pyspark") and not m.__name__.startswith("ember")]
        assert not real, real
        """
    )


def test_activate_missing_module_is_import_error():
    out = run_python(
        """
        import ember
        ember.activate()
        for name in ("pyspark.no_such_module", "pyspark.sql.no_such_module", "pyspark.ml.x"):
            try:
                __import__(name)
            except ModuleNotFoundError as e:
                print(type(e).__name__, e.name)
            else:
                raise AssertionError(name)
        try:
            from pyspark.sql.types import NoSuchType
        except ImportError as e:
            print("ImportError")
        """
    )
    assert out.split("\n")[:4] == [
        "ModuleNotFoundError pyspark.no_such_module",
        "ModuleNotFoundError pyspark.sql.no_such_module",
        "ModuleNotFoundError pyspark.ml",
        "ImportError",
    ]


def test_without_activate_real_pyspark_is_untouched():
    out = run_python(
        """
        import ember
        import ember.sql.types
        import pyspark
        from pyspark.sql.types import IntegerType
        print(pyspark.__name__, pyspark.__file__)
        assert IntegerType is not ember.sql.types.IntegerType
        print(IntegerType.__module__)
        """
    )
    name, path, module = out.split()
    assert name == "pyspark" and path == pyspark.__file__
    assert module == "pyspark.sql.types"


def test_activate_after_real_pyspark_raises():
    out = run_python(
        """
        import pyspark.sql.types
        import ember
        try:
            ember.activate()
        except RuntimeError as e:
            print(e)
        """
    )
    assert "real PySpark was imported" in out and "pyspark" in out


def test_activate_twice_and_deactivate():
    run_python(
        """
        import sys
        import ember
        ember.activate()
        ember.activate()
        from pyspark.sql.types import IntegerType as EmberInt
        from pyspark.sql.utils import AnalysisException
        import ember.sql.types, ember.sql
        assert EmberInt is ember.sql.types.IntegerType
        assert ember.sql.utils is ember.errors
        ember.deactivate()
        assert not any(n == "pyspark" or n.startswith("pyspark.") for n in sys.modules)
        # The alias left no trace on Ember's own package.
        assert not hasattr(ember.sql, "utils")
        assert ember.sql.types.__name__ == "ember.sql.types"
        from pyspark.sql.types import IntegerType as RealInt
        assert RealInt is not EmberInt and RealInt.__module__ == "pyspark.sql.types"
        # Both engines' modules now live side by side.
        import pyspark
        assert pyspark.__name__ == "pyspark" and ember.__name__ == "ember"
        try:
            ember.activate()
        except RuntimeError:
            pass
        else:
            raise AssertionError("activate() after the real pyspark must fail")
        """
    )
