"""Where the engine's threads meet the Python interpreter: errors carrying bytes that are not
UTF-8, Ctrl-C while a caller waits on a query, and an interpreter that exits while queries run
Python code on every batch. Each program runs in a process of its own (boundary_programs.py),
on Ember and, where Spark is on, on the real Spark for the behaviour to match."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from differential.conftest import spark_enabled

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "boundary_programs.py")
ENV = {**os.environ, "TZ": "UTC", "PYTHONFAULTHANDLER": "1"}
spark_on = pytest.mark.skipif(not spark_enabled()[0], reason=f"Spark is off: {spark_enabled()[1]}")


def run(name, engine, workdir, timeout=120):
    workdir = os.path.join(str(workdir), engine)
    os.makedirs(workdir, exist_ok=True)
    return subprocess.run([sys.executable, PROGRAM, name, workdir, engine], capture_output=True,
                          timeout=timeout, env=ENV)


def last_json(result):
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:].decode(errors="replace")
    return json.loads(result.stdout.decode().strip().split("\n")[-1])


def test_an_error_quoting_bytes_that_are_not_utf8_is_the_querys_exception(tmp_path):
    """Before: the message's 0xff byte raised UnicodeDecodeError from processAllAvailable and
    from every later spark.streams call, and the process could abort at exit."""
    for attempt in range(3):  # the abort at exit was one run in two
        outcome = last_json(run("malformed_bytes", "ember", tmp_path / str(attempt)))
        assert outcome == {"raised": "StreamingQueryException", "condition": "STREAM_FAILED",
                           "replacement_char": True, "active": 0,
                           "exception_type": "StreamingQueryException"}


@spark_on
def test_an_error_quoting_bytes_that_are_not_utf8_as_spark(tmp_path):
    spark = last_json(run("malformed_bytes", "spark", tmp_path))
    ember = last_json(run("malformed_bytes", "ember", tmp_path))
    # Spark's message names the file without quoting the record; Ember's quotes it, with U+FFFD.
    for key in ("raised", "condition", "active", "exception_type"):
        assert ember[key] == spark[key], key


def interrupt_await(engine, workdir):
    """Seconds from SIGINT to the process's end, and its output."""
    workdir = os.path.join(str(workdir), engine)
    os.makedirs(workdir)
    child = subprocess.Popen([sys.executable, PROGRAM, "await_forever", workdir, engine],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    try:
        assert child.stdout.readline().strip() == b"started"
        time.sleep(1.0)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=30)
        return time.monotonic() - sent, out.decode(), child.returncode
    finally:
        child.kill()
        child.wait()


def test_ctrl_c_interrupts_await_termination(tmp_path):
    """Before: awaitTermination() waited in C++ with Python's signal handler unable to run, so
    Ctrl-C did nothing until the query ended (never, here)."""
    _, out, code = interrupt_await("ember", tmp_path)
    assert out.strip().endswith("interrupted")
    assert code == 0


@spark_on
def test_ctrl_c_ends_the_wait_promptly_as_in_spark(tmp_path):
    """Classic PySpark ends the wait with a Py4JError (its SIGINT handler cancels the jobs and
    the gateway call fails); Ember raises KeyboardInterrupt, as the Spark Connect client does
    (docs/compatibility.md). Either way the wait ends at once."""
    spark_seconds, _, spark_code = interrupt_await("spark", tmp_path)
    ember_seconds, ember_out, _ = interrupt_await("ember", tmp_path)
    assert spark_code != 0 and spark_seconds < 10
    assert ember_out.strip().endswith("interrupted") and ember_seconds < 10


def interrupt_then_stop(call, workdir, ignore_sigint):
    """Seconds from SIGINT to the process's end, and its output; with `ignore_sigint` the
    process starts with SIGINT ignored, as a shell starts a job in the background."""
    os.makedirs(workdir)
    reset = signal.SIG_IGN if ignore_sigint else signal.SIG_DFL
    child = subprocess.Popen([sys.executable, PROGRAM, "interrupt_then_stop", str(workdir), "ember",
                              call], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, reset))
    try:
        assert child.stdout.readline().strip() == b"started"
        time.sleep(1.0)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
        return time.monotonic() - sent, out.decode() + err.decode()[-2000:], child.returncode
    finally:
        child.kill()
        child.wait()


@pytest.mark.parametrize("ignore_sigint", [False, True], ids=["sigint", "sigint_ignored_at_start"])
@pytest.mark.parametrize("call", ["awaitTermination", "processAllAvailable", "awaitAnyTermination"])
def test_ctrl_c_interrupts_every_blocking_call_and_stop_ends_the_query(tmp_path, call,
                                                                        ignore_sigint):
    """Before: in a process started with SIGINT ignored (a job a shell starts in the background)
    Ctrl-C did nothing, where PySpark's SparkContext installs its own SIGINT handler and
    interrupts the wait. Each blocking call raises KeyboardInterrupt within a second or so of the
    signal, and stop() then ends the query and the process."""
    for attempt in range(3):  # stop() after the interrupt hung in 2 runs of 3
        seconds, out, code = interrupt_then_stop(call, tmp_path / str(attempt), ignore_sigint)
        assert out.split("\n")[:2] == ["interrupted", "stopped False"], out
        assert code == 0, out
        # processAllAvailable's batch sleeps 3 s: stop() waits for it to end.
        assert seconds < (6 if call == "processAllAvailable" else 3), (seconds, out)


def test_leaving_the_interpreter_while_queries_call_python(tmp_path):
    """Before: a query's thread could take the GIL while the interpreter finalized (the process
    aborted) or be joined by a destructor holding the GIL it waited for (the process hung)."""
    for attempt in range(8):
        result = run("exit_while_running", "ember", tmp_path / str(attempt), timeout=60)
        text = (result.stdout + result.stderr).decode(errors="replace")
        assert result.returncode == 0, text[-4000:]
        assert "leaving True" in text
        assert "Fatal Python error" not in text
