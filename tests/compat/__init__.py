"""Spark's own PySpark test suites, unchanged, against Ember's and Spark's Connect servers (#23).

- __main__.py: `python -m tests.compat --spark-python DIR SUITE.py ...`: a server per engine and
  suite, the suite's outcomes, OUT/summary.md with both engines side by side and failures by cause.
- servers.py: starting, waiting for and stopping Ember's and Spark's own Connect servers.
- suite.py: runs one test module with unittest in its own process and records each outcome.

Not collected by the project's pytest run (pyproject.toml's testpaths leave this folder out): the
suites are Spark's, read into a folder outside the repository.
"""
