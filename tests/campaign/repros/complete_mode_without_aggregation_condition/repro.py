"""Reproduction of scenario complete_mode_without_aggregation_condition (minimal, complete mode, foreach_batch sink,
1 run(s)). Runs the scenario on the real Spark and on Ember, each in a process of its own,
and prints the differences (DIFFERENCE.txt holds what the campaign saw).

    <the project's .venv>/bin/python repro.py

query.py is the query; scenario.json says which files of inputs/ arrive before each run (with
their modification times), the trigger and how each run waits; runner.py runs one engine.
"""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compare import compare  # noqa: E402


def run(engine):
    work = tempfile.mkdtemp(prefix=f"repro-{engine}-")
    out = os.path.join(work, "result.json")
    done = subprocess.run([sys.executable, os.path.join(HERE, "runner.py"), engine, HERE, work, out],
                          env={**os.environ, "TZ": "UTC"}, capture_output=True, text=True)
    if not os.path.exists(out):
        return {"runs": [], "fatal": f"exit code {done.returncode}: {done.stderr[-1500:]}"}
    with open(out) as f:
        return json.load(f)


if __name__ == "__main__":
    spark, ember = run("spark"), run("ember")
    differences = compare(spark, ember)
    print("\n".join(differences) if differences else "no difference")
    sys.exit(1 if differences else 0)
