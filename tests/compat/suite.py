"""Runs one of Spark's PySpark test modules with unittest and records every outcome as a JSON line.

    python suite.py SPARK_PYTHON SUITE_FILE OUT_JSONL TEST_TIMEOUT_SECONDS

Run as a script in a process of its own (the runner starts it with the test's environment and
its working directory at Spark's repository root). The module is loaded as unittest.main() would
load it (every TestCase class in its namespace), under its own dotted name
(`pyspark.sql.tests.connect...`): the installed pyspark ships no `pyspark.sql.tests`, so the given
tree's folders are appended to the installed packages' `__path__`, after the installed ones, and
the installed pyspark is left as it is.

Each line is `{"event": "start", "test": ...}` or `{"test": ..., "outcome": passed|failed|error|
skipped|xfail|xpass|timeout, "cause": ..., "detail": ...}`; a line is flushed as soon as it is
known, so a suite killed from outside keeps what it ran.
"""

import importlib
import json
import os
import re
import signal
import sys
import traceback
import unittest


def module_name(spark_python, suite_file):
    rel = os.path.relpath(os.path.abspath(suite_file), os.path.abspath(spark_python))
    if rel.startswith("..") or not rel.endswith(".py"):
        raise SystemExit(f"{suite_file} is not a .py file under {spark_python}")
    return rel[:-3].replace(os.sep, ".")


def extend_installed_packages(spark_python, name):
    """Makes name's packages importable from spark_python where the installed pyspark lacks them."""
    parts = name.split(".")
    for i in range(1, len(parts)):
        package = ".".join(parts[:i])
        folder = os.path.join(spark_python, *parts[:i])
        try:
            module = importlib.import_module(package)
        except ImportError:
            return  # from here on the given tree's own __init__.py files hold the packages
        path = getattr(module, "__path__", None)
        if path is not None and folder not in list(path):
            path.append(folder)


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TMP = re.compile(r"/tmp/[^\s'\"`,;)\]]+")
_JVM_ID = re.compile(r"\b(?:Some|ExecutionId|operationId)\([^)]*\)|\bSQLSTATE: \w+")


def first_raised(exc):
    """The exception that started the chain: a test's cleanup (a `finally:` that stops queries or
    drops tables) often fails too and hides it. The chain is followed past `raise ... from None`
    (the Connect client raises its errors so, which hides the exception a cleanup interrupted),
    and gRPC's own errors in it are the transport, not the cause."""
    chain, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__
    causes = [e for e in chain if not type(e).__module__.startswith("grpc")]
    return (causes or chain)[-1]


def cause_of(exc_type, exc):
    """The first raised exception's class and the first line of its message, with run-specific
    ids masked, so that failures of one cause group together."""
    if isinstance(exc, BaseException):
        exc = first_raised(exc)
        exc_type = type(exc)
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    first = lines[0].strip() if lines else ""
    first = _TMP.sub("<tmp>", _UUID.sub("<uuid>", first))
    first = _JVM_ID.sub("", first)
    if len(first) > 240:
        first = first[:237] + "..."
    return f"{exc_type.__name__}: {first}" if first else exc_type.__name__


class TestTimeout(Exception):
    pass


class Recorder(unittest.TestResult):
    def __init__(self, out, timeout):
        super().__init__()
        self.out = out
        self.timeout = timeout

    def _write(self, record):
        self.out.write(json.dumps(record) + "\n")
        self.out.flush()

    def _outcome(self, test, outcome, err=None, reason=None):
        record = {"test": test.id(), "outcome": outcome}
        if err is not None:
            exc_type, exc, tb = err
            if exc_type is TestTimeout:
                record["outcome"] = "timeout"
            record["cause"] = cause_of(exc_type, exc)
            record["detail"] = "".join(traceback.format_exception(exc_type, exc, tb))[-6000:]
        if reason is not None:
            record["cause"] = reason
        self._write(record)

    def startTest(self, test):
        super().startTest(test)
        self._write({"event": "start", "test": test.id()})
        signal.alarm(self.timeout)

    def stopTest(self, test):
        signal.alarm(0)
        super().stopTest(test)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._outcome(test, "passed")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._outcome(test, "failed", err)

    def addError(self, test, err):
        # Also class and module fixtures (setUpClass, tearDownClass): their id names them.
        super().addError(test, err)
        self._outcome(test, "error", err)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._outcome(test, "skipped", reason=reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._outcome(test, "xfail")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._outcome(test, "xpass")

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            self._outcome(test, "failed" if failed else "error", err)


def main():
    spark_python, suite_file, out_path, timeout = sys.argv[1:5]
    name = module_name(spark_python, suite_file)

    def on_alarm(signum, frame):
        raise TestTimeout(f"the test ran longer than {timeout} s")

    signal.signal(signal.SIGALRM, on_alarm)
    with open(out_path, "a") as out:
        recorder = Recorder(out, int(timeout))
        try:
            extend_installed_packages(spark_python, name)
            tests = unittest.defaultTestLoader.loadTestsFromName(name)
        except BaseException:
            exc_type, exc, tb = sys.exc_info()
            recorder._write({"test": name, "outcome": "error", "cause": cause_of(exc_type, exc),
                             "detail": traceback.format_exc()[-6000:]})
            return 1
        tests.run(recorder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
