"""Shrinks a campaign reproduction: drops runs, then files, then lines, as long as the scenario
still shows the same kinds of differences, and writes the smallest one as a new reproduction.

    python -m tests.campaign.shrink REPRO_DIR OUT_DIR
"""

import json
import os
import sys
import tempfile
import threading

from .campaign import Worker, difference_kinds, write_repro
from .compare import compare
from .generator import Scenario


def load(directory):
    with open(os.path.join(directory, "scenario.json")) as f:
        spec = json.load(f)
    with open(os.path.join(directory, "query.py")) as f:
        query = f.read()
    files = {}
    for run in spec["runs"]:
        for file in run["files"]:
            with open(os.path.join(directory, "inputs", file["name"])) as f:
                files[file["name"]] = f.read()
    return Scenario(name=spec["name"], template=spec["template"], query=query,
                    output_mode=spec["output_mode"], sink=spec["sink"],
                    create_table=spec.get("create_table", False), runs=spec["runs"],
                    files=files, features=spec.get("features", []))


def without(scenario, name, run_index=None, file_name=None, line_index=None):
    """A copy of the scenario without one run, one file or one line."""
    runs = [dict(r, files=list(r["files"])) for r in scenario.runs]
    files = dict(scenario.files)
    if run_index is not None:
        for file in runs.pop(run_index)["files"]:
            del files[file["name"]]
    elif line_index is None:
        for run in runs:
            run["files"] = [f for f in run["files"] if f["name"] != file_name]
        del files[file_name]
    else:
        lines = files[file_name].splitlines(keepends=True)
        del lines[line_index]
        files[file_name] = "".join(lines)
    return Scenario(name=name, template=scenario.template, query=scenario.query,
                    output_mode=scenario.output_mode, sink=scenario.sink,
                    create_table=scenario.create_table, runs=runs, files=files,
                    features=scenario.features)


class Judge:
    """Runs candidates on both engines (one long-lived worker each)."""

    def __init__(self, root):
        self.root = root
        self.workers = {e: Worker(e, os.path.join(root, "work")) for e in ("spark", "ember")}
        self.count = 0

    def run(self, scenario):
        directory = os.path.join(self.root, "candidates", scenario.name)
        write_repro(scenario, directory)
        results = {}

        def one(engine):
            results[engine] = self.workers[engine].run(directory)

        threads = [threading.Thread(target=one, args=(e,)) for e in self.workers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return results["spark"], results["ember"]

    def stop(self):
        for w in self.workers.values():
            w.stop()


def shrink(directory, out, log=print):
    scenario = load(directory)
    base = scenario.name
    with tempfile.TemporaryDirectory(prefix="shrink-") as root:
        judge = Judge(root)
        try:
            spark, ember = judge.run(scenario)
            diffs = compare(spark, ember)
            target = set(difference_kinds(diffs))
            if not diffs or "fatal" in spark:
                log(f"{base}: no difference to shrink")
                return None
            log(f"{base}: shrinking, keeping {sorted(target)}")
            n = [0]

            def attempt(current, **change):
                """The current scenario with one change if it still shows the target, else None."""
                n[0] += 1
                candidate = without(current, f"{base}_c{n[0]}", **change)
                s, e = judge.run(candidate)
                d = compare(s, e)
                if "fatal" not in s and target <= set(difference_kinds(d)):
                    return candidate, s, e, d
                return None

            best = (scenario, spark, ember, diffs)
            for i in reversed(range(len(scenario.runs))):
                if len(best[0].runs) > 1:
                    best = attempt(best[0], run_index=i) or best
            for name in [f["name"] for r in best[0].runs for f in r["files"]]:
                if sum(len(r["files"]) for r in best[0].runs) > 1:
                    best = attempt(best[0], file_name=name) or best
            for name in [f["name"] for r in best[0].runs for f in r["files"]]:
                for i in reversed(range(len(best[0].files[name].splitlines()))):
                    best = attempt(best[0], file_name=name, line_index=i) or best
            minimal, spark, ember, diffs = best
            minimal.name = f"{base}_min"
            write_repro(minimal, out, diffs, spark, ember)
            log(f"{base}: {n[0]} candidates; minimal reproduction in {out}")
            return out
        finally:
            judge.stop()


if __name__ == "__main__":
    shrink(sys.argv[1], sys.argv[2])
