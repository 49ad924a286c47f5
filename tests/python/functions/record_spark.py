"""Records the real Spark's answers to the generated function cases, and Spark's list of built-in
functions, into spark_answers.json (run after changing cases.py; needs pyspark and java):

    TZ=UTC .venv/bin/python -m tests.python.functions.record_spark [function ...]

With function names, only those functions' answers are recorded again.
"""

import json
import os
import pathlib
import sys
import tempfile
import time

from . import cases, run

ANSWERS = pathlib.Path(__file__).with_name("spark_answers.json")


def main(only: list) -> None:
    os.environ["TZ"] = "UTC"
    time.tzset()
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[1]").appName("ember-function-cases")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.warehouse.dir", tempfile.mkdtemp(prefix="ember-cases-"))
             .getOrCreate())
    spark.sparkContext.setLogLevel("OFF")
    spark.conf.set("spark.sql.session.timeZone", cases.TIME_ZONE)
    recorded = json.loads(ANSWERS.read_text()) if ANSWERS.exists() else {}
    recorded["spark_version"] = spark.version
    recorded["functions"] = [r[0] for r in spark.sql("SHOW SYSTEM FUNCTIONS").collect()]
    answers = recorded.setdefault("answers", {})
    for name in sorted(cases.SIGNATURES):
        if only and name not in only:
            continue
        exprs = cases.calls(name)
        answers[name] = dict(zip(exprs, run.evaluate(spark, exprs)))
        print(name, len(exprs), flush=True)
    for name in list(answers):
        if name not in cases.SIGNATURES:
            del answers[name]
    ANSWERS.write_text(json.dumps(recorded, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
