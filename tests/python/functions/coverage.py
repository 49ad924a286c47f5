"""Writes the function coverage table of docs/functions.md: every built-in function of the pinned
Spark (its SHOW SYSTEM FUNCTIONS, recorded in spark_answers.json), whether Ember has it, and how
many cases of the generated suite check it against Spark.

    .venv/bin/python -m tests.python.functions.coverage
"""

import json
import pathlib
import re

from . import cases

ROOT = pathlib.Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "functions.md"
START, END = "<!-- coverage:start -->", "<!-- coverage:end -->"


def is_operator(name: str) -> bool:
    return re.search(r"[a-z]", name) is None


def table(ember_functions: set) -> str:
    recorded = json.loads((pathlib.Path(__file__).with_name("spark_answers.json")).read_text())
    spark = sorted(set(recorded["functions"]))
    named = [f for f in spark if not is_operator(f)]
    supported = [f for f in named if f in ember_functions]
    tested = [f for f in supported if f in cases.SIGNATURES]
    lines = [
        START,
        f"Spark {recorded['spark_version']} lists {len(spark)} built-in functions, "
        f"{len(spark) - len(named)} of them operators. Of the other {len(named)}, Ember has "
        f"**{len(supported)}**; {len(tested)} of those are checked case by case against Spark by "
        "the generated suite (`tests/python/functions`), the rest by the tests of their family "
        "(`tests/python/differential`, `tests/python/connect`). Regenerate with "
        "`.venv/bin/python -m tests.python.functions.coverage`.",
        "",
        "| function | Ember | generated cases |",
        "|---|---|---|",
    ]
    for f in spark:
        have = "yes" if f in ember_functions else "no"
        count = len(cases.calls(f)) if f in cases.SIGNATURES else ""
        shown = f.replace("|", "\\|")
        lines.append(f"| `{shown}` | {have} | {count} |")
    lines.append(END)
    return "\n".join(lines)


def ember_functions() -> set:
    from ember.sql import SparkSession

    spark = SparkSession.builder.getOrCreate()
    return {r[0] for r in spark.sql("SHOW SYSTEM FUNCTIONS").collect()}


def updated_doc(functions: set) -> str:
    text = DOC.read_text()
    before, rest = text.split(START, 1)
    _, after = rest.split(END, 1)
    return before + table(functions) + after


if __name__ == "__main__":
    DOC.write_text(updated_doc(ember_functions()))
