"""The generated function suite: every case of cases.py on Ember, equal to the real Spark's recorded
answer (type, nullability and value, or the error condition)."""

import json
import math
import os
import pathlib
import time

import pytest

from . import cases, run

os.environ["TZ"] = "UTC"
time.tzset()

RECORDED = json.loads(pathlib.Path(__file__).with_name("spark_answers.json").read_text())


def same(want: dict, have: dict) -> bool:
    """Equal answers; doubles may differ in their last bits (Java's Math against the C library,
    and the JVM's own results differ between interpreted and compiled code), never in sign."""
    if want == have:
        return True
    if set(want) != set(have) or any(want[k] != have[k] for k in want if k != "value"):
        return False
    try:
        a, b = float(want["value"]), float(have["value"])
    except (KeyError, ValueError):
        return False
    return a != 0 and b != 0 and math.isclose(a, b, rel_tol=1e-15)


@pytest.fixture(scope="module")
def ember():
    from ember.sql import SparkSession

    spark = SparkSession.builder.appName("ember-function-cases").getOrCreate()
    spark.conf.set("spark.sql.session.timeZone", cases.TIME_ZONE)
    return spark


@pytest.mark.parametrize("name", sorted(cases.SIGNATURES))
def test_function(ember, name):
    expected = RECORDED["answers"].get(name)
    assert expected is not None, f"no Spark answers for {name}: run record_spark.py {name}"
    exprs = cases.calls(name)
    assert sorted(expected) == sorted(exprs), f"cases of {name} changed: run record_spark.py {name}"
    got = dict(zip(exprs, run.evaluate(ember, exprs)))
    wrong = []
    for expr in exprs:
        want, have = dict(expected[expr]), dict(got[expr])
        if name in cases.TYPE_ONLY:
            want.pop("value", None), have.pop("value", None)
        if expr in cases.DIFFERENCES:
            if same(want, have):
                wrong.append(f"{expr} agrees with Spark now: remove it from cases.DIFFERENCES")
        elif not same(want, have):
            wrong.append(f"{expr}\n    Spark: {want}\n    Ember: {have}")
    assert not wrong, f"{len(wrong)} of {len(exprs)} cases differ:\n" + "\n".join(wrong)


def test_every_case_is_of_a_spark_function():
    """Nothing is counted that Spark lacks."""
    assert sorted(set(cases.SIGNATURES) - set(RECORDED["functions"])) == []


def test_coverage_table_is_current(ember):
    """docs/functions.md lists what SHOW FUNCTIONS says now."""
    from . import coverage

    functions = {r[0] for r in ember.sql("SHOW SYSTEM FUNCTIONS").collect()}
    assert coverage.DOC.read_text() == coverage.updated_doc(functions), (
        "run: .venv/bin/python -m tests.python.functions.coverage")
