"""Ember's Connect server for a suite run: `python ember_server.py SPARK_PYTHON --port P`.

The test modules' own classes and functions reach the server pickled by reference (a foreach
writer defined in `pyspark.sql.tests...`), so the given tree's packages are made importable here
as in the suite's process, then `python -m ember.connect` runs with the remaining arguments."""

import runpy
import sys

from suite import extend_installed_packages  # this script's folder is sys.path[0]

spark_python = sys.argv.pop(1)
extend_installed_packages(spark_python, "pyspark.sql.tests.any")
runpy.run_module("ember.connect", run_name="__main__", alter_sys=True)
