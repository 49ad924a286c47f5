"""python -m tests.compat --spark-python DIR [--engine ember|spark|both] SUITE.py ...

Runs Spark's own PySpark test files, unchanged, against a Spark Connect server: Ember's and/or
Spark's own (started from the pinned pyspark's jars). For each engine and suite file: a fresh
server on 127.0.0.1, the suite in a process of its own with SPARK_CONNECT_TESTING_REMOTE pointing
at it (and SPARK_SKIP_CONNECT_COMPAT_TESTS=1, which makes the installed pyspark behave as the
pure Connect client, pyspark-client, that Spark's own remote test runs use), then the server is
stopped. Outcomes go to OUT/<engine>/<suite>.jsonl, and OUT/summary.md holds the counts per suite
for every engine that has results there, side by side, and the failures grouped by cause
(exception class and the first line of its message).

Spark's test files are not in this repository: DIR is a folder laid out as Spark's `python/`
(pyspark/sql/tests/..., test_support/...), read from Spark's repository at the pinned version's
tag (docs/compatibility.md says how). Suite paths are files under DIR.
"""

import argparse
import collections
import datetime
import json
import os
import subprocess
import sys
import time

from .servers import Server

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OUTCOMES = ["passed", "failed", "error", "timeout", "skipped", "xfail", "xpass"]


def suite_id(spark_python, path):
    return os.path.relpath(os.path.abspath(path), os.path.abspath(spark_python))


def run_suite(engine, spark_python, path, out, python, test_timeout, suite_timeout, log):
    sid = suite_id(spark_python, path)
    base = os.path.join(out, engine, sid.replace(os.sep, "__")[:-3])
    results = base + ".jsonl"
    if os.path.exists(results):
        os.remove(results)
    spark_root = os.path.dirname(os.path.abspath(spark_python))
    server = Server(engine, python, spark_python, base + ".server")
    started = time.time()
    try:
        server.wait_ready()
        log(f"[{engine}] {sid}: server {server.url} ready in {time.time() - started:.0f} s")
        env = dict(os.environ)
        env["SPARK_CONNECT_TESTING_REMOTE"] = server.url
        env["SPARK_SKIP_CONNECT_COMPAT_TESTS"] = "1"
        for key in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED", "PYSPARK_SUBMIT_ARGS"):
            env.pop(key, None)
        command = [python, os.path.join(HERE, "suite.py"), os.path.abspath(spark_python),
                   os.path.abspath(path), results, str(test_timeout)]
        with open(base + ".client.log", "w") as client_log:
            process = subprocess.Popen(command, cwd=spark_root, env=env, stdout=client_log,
                                       stderr=subprocess.STDOUT, preexec_fn=lambda: os.nice(10))
            try:
                process.wait(timeout=suite_timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                with open(results, "a") as f:
                    f.write(json.dumps({"test": sid, "outcome": "timeout",
                                        "cause": f"suite killed after {suite_timeout} s"}) + "\n")
        if not server.alive():
            with open(results, "a") as f:
                f.write(json.dumps({"test": sid, "outcome": "note",
                                    "cause": "the server exited during the suite"}) + "\n")
    except RuntimeError as e:
        with open(results, "a") as f:
            f.write(json.dumps({"test": sid, "outcome": "error",
                                "cause": f"server did not start: {str(e).splitlines()[0]}"}) + "\n")
    finally:
        server.stop()
    counts = tally(read_results(results))
    log(f"[{engine}] {sid}: " + ", ".join(f"{counts[o]} {o}" for o in OUTCOMES if counts[o])
        + f" ({time.time() - started:.0f} s)")


def read_results(path):
    """One final record per test (a test with several failing subtests counts once)."""
    records = collections.OrderedDict()
    if not os.path.exists(path):
        return []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            record = json.loads(line)
            if record.get("event") == "start" or record.get("outcome") == "note":
                continue
            records.setdefault(record["test"], record)
    return list(records.values())


def tally(records):
    counts = collections.Counter(r["outcome"] for r in records)
    counts["total"] = len(records)
    return counts


def cell(counts):
    if not counts["total"]:
        return "not run"
    text = f"{counts['passed']} / {counts['total']}"
    other = [f"{counts[o]} {o}" for o in OUTCOMES[1:] if counts[o]]
    return text + (f" ({', '.join(other)})" if other else "")


def provenance(python):
    """Which Ember served (the package the servers' interpreter imports) and the runner's commit."""
    probe = "import ember, os; print(os.path.dirname(ember.__file__))"
    where = subprocess.run([python, "-c", probe], capture_output=True,
                           text=True).stdout.strip() or "not importable"
    rev = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip() or "?"
    return f"Ember package {where}; runner at commit {rev}"


def summary(spark_python, suites, out, python):
    engines = [e for e in ("ember", "spark") if os.path.isdir(os.path.join(out, e))]
    lines = [f"# Spark's PySpark suites over Spark Connect ({datetime.date.today()})", "",
             f"{provenance(python)}. Cells: passed / tests, then the rest.", "",
             "| Suite | " + " | ".join(engines) + " |",
             "|---|" + "---|" * len(engines)]
    per_engine = {e: {} for e in engines}
    for path in suites:
        sid = suite_id(spark_python, path)
        row = []
        for engine in engines:
            name = sid.replace(os.sep, "__")[:-3] + ".jsonl"
            records = read_results(os.path.join(out, engine, name))
            per_engine[engine][sid] = records
            row.append(cell(tally(records)))
        lines.append(f"| `{sid}` | " + " | ".join(row) + " |")
    totals = []
    for engine in engines:
        counts = tally([r for records in per_engine[engine].values() for r in records])
        totals.append(cell(counts))
    lines.append("| **all** | " + " | ".join(totals) + " |")
    for engine in engines:
        causes = collections.defaultdict(list)
        for records in per_engine[engine].values():
            for r in records:
                if r["outcome"] in ("failed", "error", "timeout", "xpass"):
                    causes[r.get("cause", r["outcome"])].append(r["test"])
        lines += ["", f"## Failures on {engine}, by cause", ""]
        if not causes:
            lines.append("none")
        for cause, tests in sorted(causes.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            names = ", ".join(t.rsplit(".", 2)[-2] + "." + t.rsplit(".", 1)[-1]
                              if t.count(".") >= 2 else t for t in tests)
            lines.append(f"- {len(tests)} x `{cause}`: {names}")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(prog="python -m tests.compat", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("suites", nargs="*", help="test files under --spark-python")
    parser.add_argument("--spark-python", required=True,
                        help="a folder laid out as Spark's python/ (tests and test_support)")
    parser.add_argument("--engine", choices=["ember", "spark", "both"], default="both")
    parser.add_argument("--out", default=os.path.join(REPO, "build", "compat"))
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter for the servers and the suites (default: this one)")
    parser.add_argument("--test-timeout", type=int, default=300)
    parser.add_argument("--suite-timeout", type=int, default=3600)
    parser.add_argument("--summary-only", action="store_true",
                        help="only rewrite OUT/summary.md from the results there")
    args = parser.parse_args()
    if not args.suites:
        parser.error("name at least one suite file")

    def log(line):
        print(line, flush=True)

    if not args.summary_only:
        for engine in ["ember", "spark"] if args.engine == "both" else [args.engine]:
            os.makedirs(os.path.join(args.out, engine), exist_ok=True)
            for path in args.suites:
                run_suite(engine, args.spark_python, path, args.out, args.python,
                          args.test_timeout, args.suite_timeout, log)
    text = summary(args.spark_python, args.suites, args.out, args.python)
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write(text)
    print(text)


main()
