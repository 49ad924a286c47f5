"""The randomized differential campaign: scenarios from a seed, each run on the real Spark and on
Ember (one long-lived process per engine, running scenarios one after the other), compared by
compare.py, classified, and written out.

Outcomes per scenario:
- pass: no difference;
- documented: Ember fails with an error listed in KNOWN (and in docs/compatibility.md) where
  Spark runs; counted by kind;
- undocumented: any other difference; a self-contained reproduction is written to
  <out>/repros/<scenario>/ (run `python repro.py` there);
- inconclusive: Spark's process died or timed out, so there is no oracle.
"""

import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

from . import generator
from .compare import compare

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "runner.py")

# Ember's errors for what it does not support yet, as docs/compatibility.md lists them:
# (kind, text that Ember's error message contains).
KNOWN = [
    # Every streaming feature the templates use is supported now; add an entry here (and in
    # docs/compatibility.md) only for a difference that is meant to stay.
]

# Ember bugs the campaign found (minimal reproductions in tests/campaign/repros/): they stay
# undocumented differences (failures), but the summary attributes each difference to one of them
# by its text, so that a new bug stands out as "unexplained".
BUGS = [
    ("awaitTermination() raises TypeError", r"await_termination\(\): incompatible"),
    ("windowed aggregation fails in update mode", r"not supported in join non-key field"),
    ("toTable does not create the table", r"TABLE_OR_VIEW_NOT_FOUND.*`out`"),
    ("eventTime.watermark without withWatermark", r"watermark: Spark None, Ember 1970-01-01"),
    ("numRowsDroppedByWatermark counts NULL times, and rows instead of groups",
     r"numRowsDroppedByWatermark: Spark"),
    ("distinct aggregate accepted", r"Distinct aggregations are not supported"),
    ("complete mode without aggregation: error condition",
     r"Spark fails with STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION, Ember with _LEGACY_ERROR_TEMP_3102"),
    ("global-watermark correctness check missing", r"Detected pattern of possible 'correctness'"),
    ("filter on a column projected away", r"UNRESOLVED_COLUMN"),
    ("window() over a window column rejected", r"Cannot resolve \"window\(window,"),
    ("stream-static right outer join accepted", r"RightOuter join with a streaming DataFrame"),
]
# Trigger.Once honouring read limits changes the batches, hence any number or row after it.
ONCE_BUG = "Trigger.Once honours maxFilesPerTrigger/maxBytesPerTrigger"

TIMEOUT = {"spark": 300, "ember": 120}


class Worker:
    """runner.py --serve for one engine; restarted after a crash or a timeout."""

    def __init__(self, engine, root):
        self.engine, self.root = engine, root
        self.process = None
        self.log_path = os.path.join(root, f"{engine}.log")

    def _start(self):
        os.makedirs(self.root, exist_ok=True)
        self.log = open(self.log_path, "a")
        self.process = subprocess.Popen(
            [sys.executable, RUNNER, "--serve", self.engine, os.path.join(self.root, self.engine)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True,
            start_new_session=True, env={**os.environ, "TZ": "UTC"})
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.process, self.lines), daemon=True).start()
        self._expect("@@READY", 600)

    @staticmethod
    def _read(process, lines):
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    def _expect(self, prefix, timeout):
        deadline = time.time() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.time()))
            except queue.Empty:
                raise TimeoutError(f"no answer within {timeout} s") from None
            if line is None:
                code = self.process.wait()
                raise RuntimeError(f"died with exit code {code}: {self._log_tail()}")
            if line.startswith(prefix):
                return line[len(prefix):].strip()

    def _log_tail(self):
        self.log.flush()
        with open(self.log_path, errors="replace") as f:
            lines = [line for line in f.read().splitlines()[-30:] if line.strip()]
        return " | ".join(lines[-6:])[-1500:]

    def run(self, scenario_dir):
        try:
            if self.process is None:
                self._start()
            self.process.stdin.write(scenario_dir + "\n")
            self.process.stdin.flush()
            with open(self._expect("@@DONE", TIMEOUT[self.engine])) as f:
                return json.load(f)
        except (TimeoutError, RuntimeError, OSError) as error:
            self.stop()
            return {"runs": [], "fatal": f"{type(error).__name__}: {error}"}

    def stop(self):
        if self.process is not None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process.wait()
            self.process = None
            self.log.close()


def classify(spark, ember, diffs):
    """pass, documented:<kind>, inconclusive or undocumented."""
    if "fatal" in spark:
        return "inconclusive"
    if not diffs:
        return "pass"
    if len(diffs) == 1:
        failed = [r for r in ember["runs"] if "error" in r]
        index = len(ember["runs"]) - 1
        if failed and index < len(spark["runs"]) and "error" not in spark["runs"][index]:
            for kind, text in KNOWN:
                if text in failed[0]["error"]["message"]:
                    return f"documented:{kind}"
    return "undocumented"


def known_bugs(record):
    """The BUGS that explain the record's differences, plus "unexplained" if some are not."""
    found = set()
    for d in record["differences"]:
        names = [name for name, pattern in BUGS if re.search(pattern, d)]
        if names:
            found.add(names[0])
        elif record.get("once_with_limit"):
            found.add(ONCE_BUG)
        else:
            found.add("unexplained")
    return sorted(found)


def signature(diffs):
    """What kinds of differences these are, without the numbers: groups the report."""
    return " + ".join(difference_kinds(diffs))


def difference_kinds(diffs):
    kinds = set()
    for d in diffs:
        d = re.sub(r"^run \d+ ", "", d)
        m = re.match(r"run \d+: (Ember fails, Spark does not: \S+)", d) or \
            re.match(r"run \d+: (Spark fails.*?)(:|$)", d)
        if m:
            kinds.add(m.group(1)[:80])
        elif d.startswith("batch ") and " output" in d:
            kinds.add("batch output rows")
        elif d.startswith("batch "):
            kinds.add("progress " + d.split(":")[0].split()[-1])
        else:
            kinds.add(re.sub(r"[:;(].*", "", d)[:60])
    return sorted(kinds)


REPRO = '''"""Reproduction of scenario {name} ({template}, {output_mode} mode, {sink} sink,
{n_runs} run(s)). Runs the scenario on the real Spark and on Ember, each in a process of its own,
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
    work = tempfile.mkdtemp(prefix=f"repro-{{engine}}-")
    out = os.path.join(work, "result.json")
    done = subprocess.run([sys.executable, os.path.join(HERE, "runner.py"), engine, HERE, work, out],
                          env={{**os.environ, "TZ": "UTC"}}, capture_output=True, text=True)
    if not os.path.exists(out):
        return {{"runs": [], "fatal": f"exit code {{done.returncode}}: {{done.stderr[-1500:]}}"}}
    with open(out) as f:
        return json.load(f)


if __name__ == "__main__":
    spark, ember = run("spark"), run("ember")
    differences = compare(spark, ember)
    print("\\n".join(differences) if differences else "no difference")
    sys.exit(1 if differences else 0)
'''


def write_repro(scenario, repro_dir, diffs=None, spark=None, ember=None):
    """A self-contained reproduction: the scenario, runner.py, compare.py and repro.py (plus what
    the campaign saw, if given)."""
    shutil.rmtree(repro_dir, ignore_errors=True)
    generator.write(scenario, repro_dir)
    shutil.copy(RUNNER, repro_dir)
    shutil.copy(os.path.join(HERE, "compare.py"), repro_dir)
    with open(os.path.join(repro_dir, "repro.py"), "w") as f:
        f.write(REPRO.format(name=scenario.name, template=scenario.template,
                             output_mode=scenario.output_mode, sink=scenario.sink,
                             n_runs=len(scenario.runs)))
    if diffs is not None:
        with open(os.path.join(repro_dir, "DIFFERENCE.txt"), "w") as f:
            f.write("\n".join(diffs) + "\n")
    for engine, result in (("spark", spark), ("ember", ember)):
        if result is not None:
            with open(os.path.join(repro_dir, f"{engine}.result.json"), "w") as f:
                json.dump(result, f, indent=1)


def run_campaign(seed, indices, out, small=False, log=print):
    """Runs the scenarios; returns the list of per-scenario records (also in out/results.jsonl)."""
    os.makedirs(out, exist_ok=True)
    scenarios = []
    for i in indices:
        s = generator.generate(seed, i, small)
        directory = os.path.join(out, "scenarios", s.name)
        shutil.rmtree(directory, ignore_errors=True)
        generator.write(s, directory)
        scenarios.append((s, directory))

    results = {"spark": {}, "ember": {}}
    ready = threading.Condition()

    def drive(engine):
        worker = Worker(engine, os.path.join(out, "work"))
        try:
            for s, directory in scenarios:
                result = worker.run(directory)
                with ready:
                    results[engine][s.name] = result
                    ready.notify_all()
        finally:
            worker.stop()

    threads = [threading.Thread(target=drive, args=(e,), daemon=True) for e in ("ember", "spark")]
    for t in threads:
        t.start()
    records = []
    started = time.time()
    with open(os.path.join(out, "results.jsonl"), "w") as journal:
        for n, (s, directory) in enumerate(scenarios, 1):
            with ready:
                ready.wait_for(lambda: s.name in results["spark"] and s.name in results["ember"])
                spark, ember = results["spark"].pop(s.name), results["ember"].pop(s.name)
            diffs = compare(spark, ember)
            outcome = classify(spark, ember, diffs)
            record = {"name": s.name, "template": s.template, "output_mode": s.output_mode,
                      "sink": s.sink, "outcome": outcome, "differences": diffs,
                      "signature": signature(diffs) if outcome == "undocumented" else None,
                      "features": s.features,
                      "once_with_limit": any(r["trigger"] == "once" for r in s.runs)
                      and "PerTrigger" in s.query}
            if outcome == "undocumented":
                record["repro"] = os.path.join(out, "repros", s.name)
                write_repro(s, record["repro"], diffs, spark, ember)
            records.append(record)
            journal.write(json.dumps(record) + "\n")
            journal.flush()
            log(f"[{n}/{len(scenarios)} {time.time() - started:.0f}s] {s.name} {s.template} "
                f"{s.output_mode}/{s.sink}: {outcome}"
                + (f" ({record['signature']})" if record["signature"] else ""))
    for t in threads:
        t.join()
    return records


def summary(records):
    outcomes = Counter(r["outcome"] for r in records)
    lines = [f"scenarios: {len(records)}",
             f"passes: {outcomes['pass']}",
             f"documented differences: {sum(v for k, v in outcomes.items() if k.startswith('documented'))}"]
    for kind, count in sorted(outcomes.items()):
        if kind.startswith("documented:"):
            lines.append(f"  {kind[len('documented:'):]}: {count}")
    lines.append(f"undocumented differences: {outcomes['undocumented']}")
    signatures = Counter(r["signature"] for r in records if r["outcome"] == "undocumented")
    for sig, count in signatures.most_common():
        examples = [r["name"] for r in records if r["signature"] == sig][:5]
        lines.append(f"  {count} x {sig}  e.g. {', '.join(examples)}")
    kinds = Counter(k for r in records if r["outcome"] == "undocumented"
                    for k in difference_kinds(r["differences"]))
    lines.append("undocumented differences by kind (a scenario can show several):")
    for kind, count in kinds.most_common():
        lines.append(f"  {count} x {kind}")
    bugs = Counter(b for r in records if r["outcome"] == "undocumented" for b in known_bugs(r))
    lines.append("undocumented differences by the Ember bug that explains them (tests/campaign/repros):")
    for bug, count in bugs.most_common():
        lines.append(f"  {count} x {bug}")
    unexplained = [r["name"] for r in records
                   if r["outcome"] == "undocumented" and "unexplained" in known_bugs(r)]
    if unexplained:
        lines.append(f"  unexplained: {', '.join(unexplained)}")
    lines.append(f"inconclusive (Spark failed): {outcomes['inconclusive']}")
    return "\n".join(lines)
