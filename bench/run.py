"""Runs every benchmark workload on Ember and on Spark, each in a process of its own, checks that
both engines give the same result, and writes docs/benchmarks.md and docs/benchmarks.png.

    .venv/bin/python bench/run.py [--quick | --big]

--quick uses small data (a few minutes on 2 cores, mostly Spark's start-ups); without it the data
is large enough for throughput to show. --big runs only the two large streams (BIG_WORKLOADS: ten
million events over a million keys; five million events under a watermark) and rewrites only
their section at the end of docs/benchmarks.md (its inputs, made once, stay in bench/out/big-data).
Inputs, logs and scratch space go to bench/out/."""

import argparse
import glob
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from importlib.metadata import version

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import data  # noqa: E402

ENGINES = ("ember", "spark")
WORKLOADS = {  # name in workloads.py: its title in the report, and what it does
    "ingest": ("W1 JSON files to Iceberg", "JSON files read as a stream with a schema, "
               "`trigger(availableNow=True)`, `toTable` into an Iceberg table (Hadoop catalog)."),
    "windows": ("W2 windowed count + watermark to Iceberg", "the SPK-11 seed's query: "
                "`withWatermark(\"event_ts\", \"10 minutes\")`, a count per company and 5-minute "
                "window, appended to an Iceberg table; one file per micro-batch "
                "(`maxFilesPerTrigger=1`) so the watermark moves, 2% of the events late."),
    "keys": ("W3 complete-mode aggregation, many keys", "count and sum per company over {keys:,} "
             "companies in `complete` mode to the memory sink, one file per micro-batch."),
    "dedup": ("W4 dropDuplicatesWithinWatermark", "`dropDuplicatesWithinWatermark([\"event_id\"])`"
              " under a 10-minute watermark, 10% of the events repeated, memory sink."),
    "tiny": ("W5 one tiny file per micro-batch", "10-event files, one per micro-batch, filtered "
             "into `foreachBatch`, which collects each batch."),
    "startup": ("W6 start-up to first result", "a fresh process: session, `createDataFrame` of "
                "1,000 rows, `groupBy().agg()`, `collect()`; five processes per engine, the one "
                "with the median time to first result reported (a single start-up varies by 2×)."),
    "rate": ("W7 generated stream, windowed count", "`format(\"rate-micro-batch\")` (no input "
             "files), a count per key (`value % 1000`) and 10-second window in `update` mode, "
             "each batch's changed groups collected by `foreachBatch`."),
    "nexmark": ("Nexmark q0-q5, q7, q8, q11 (one process)", "the queries below, one after the "
                "other in one process per engine."),
}
# The Nexmark streams each query reads, for its events per second.
NEXMARK_INPUTS = {"q0": ["bid"], "q1": ["bid"], "q2": ["bid"], "q3": ["person", "auction"],
                  "q4": ["auction", "bid"], "q5": ["bid"], "q7": ["bid"],
                  "q8": ["person", "auction"], "q11": ["bid"]}
TIMEOUT_S = 1800
BIG_WORKLOADS = {
    "big_keys": ("B1 complete-mode aggregation, 1M keys", "count and sum per company over "
                 "{keys:,} companies in `complete` mode into the memory sink, one file of "
                 "{per_file:,} events per micro-batch ({files} batches): each batch outputs the whole "
                 "result, up to a million rows."),
    "big_windows": ("B2 windowed append under a watermark", "`withWatermark(\"event_ts\", "
                    "\"10 minutes\")`, a count per company ({keys:,} companies) and 5-minute window "
                    "in `append` mode into the memory sink; one file of {per_file:,} events per "
                    "micro-batch ({files} batches), event time advancing {ms} ms per event "
                    "(about {minutes:.0f} minutes per batch), 2% of the events 30 minutes late."),
}
BIG_TIMEOUT_S = 1320  # 22 minutes
BIG_MARKER = "<!-- bench/run.py --big rewrites everything below this line. -->"


STARTUP_RUNS = 5


def median_startup(engine, inputs, out):
    """W6 in STARTUP_RUNS fresh processes: the run with the median time to first result (or a
    failed run), with every run's time in `firsts`."""
    runs = [run(engine, "startup", inputs, out) for _ in range(STARTUP_RUNS)]
    failed = [r for r in runs if "first_result" not in r]
    if failed:
        return failed[0]
    runs.sort(key=lambda r: r["first_result"] - r["spawned"])
    middle = runs[len(runs) // 2]
    middle["firsts"] = [r["first_result"] - r["spawned"] for r in runs]
    return middle


def run(engine, workload, inputs, out, timeout=TIMEOUT_S):
    """One workload on one engine, as a whole process. Its CPU time and peak memory are read by
    the workload itself when it ends (bench/workloads.py); if it failed, wait4's figures of the
    whole process tree stand in (the driver waits for Spark's JVM before exiting)."""
    work = tempfile.mkdtemp(prefix=f"{workload}-{engine}-", dir=out)
    result_path = os.path.join(work, "result.json")
    log_path = os.path.join(out, f"{workload}-{engine}.log")
    with open(log_path, "w") as log:
        spawned = time.time()
        proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "workloads.py"), engine, workload, inputs, work,
             result_path], stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "TZ": "UTC"})
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
    result = {}
    if os.path.exists(result_path):
        with open(result_path) as f:
            result = json.load(f)
    if proc.returncode != 0 and "error" not in result:
        with open(log_path) as log:
            tail = [line.strip() for line in log if line.strip()][-1:] or [""]
        result["error"] = f"exit status {proc.returncode}: {tail[0][:200]}"
        if proc.returncode == -9:
            result["error"] = f"killed after the {timeout / 60:.0f}-minute time limit"
    # The work directory stays until the whole run ends: on some file systems (ext4 without a
    # journal) deleting thousands of files slows the next minute's file creation, the next
    # workload's checkpoint files.
    result["spawned"] = spawned
    # Without the workload's own figures (it failed), those of the whole process tree.
    result.setdefault("cpu", usage.ru_utime + usage.ru_stime)
    result.setdefault("rss_mb", usage.ru_maxrss / 1024)
    return result


def metrics(result, events):
    """The figures of one run: seconds from process start, events per second of the workload
    itself (session start-up excluded), CPU seconds, MB."""
    if result.get("error"):  # the figures of a failed run mean nothing
        return {}
    m = {"cpu": result["cpu"], "rss": result["rss_mb"]}
    if "done" in result:
        m["wall"] = result["done"] - result["spawned"]
        if "queries" not in result:  # Nexmark's queries have figures of their own
            m["eps"] = events / max(result["done"] - result["start"], 1e-9)
    if "first_result" in result:
        m["first"] = result["first_result"] - result["spawned"]
    if result.get("batch_done"):
        latencies = np.diff([result["start"]] + result["batch_done"])
        m["p50"], m["p99"] = np.percentile(latencies, [50, 99]) * 1000
    return m


def same(a, b):
    """'same', 'MISMATCH', or '' when an engine has no result."""
    if not a or not b:
        return ""
    return "same" if a == b else "MISMATCH"


def machine():
    with open("/proc/meminfo") as f:
        ram = int(f.readline().split()[1]) / 1024**2
    with open("/proc/cpuinfo") as f:
        model = next((line.split(":", 1)[1].strip() for line in f
                      if line.startswith("model name")), platform.processor())
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    return {
        "Machine": f"{os.cpu_count()} cores, {ram:.1f} GiB RAM, {model}, {platform.platform()}",
        "Ember": f"{version('ember')} (commit {commit}), Arrow C++ from pyarrow {version('pyarrow')}",
        "Spark": f"pyspark {version('pyspark')} on {java.splitlines()[0] if java else 'java ?'}, "
                 "iceberg-spark-runtime-4.0_2.13 1.10.0",
        "Python": platform.python_version(),
    }


def cell(ember, spark, fmt="{:.2f}"):
    """'ember / spark (ratio×)', the ratio being Ember's figure over Spark's."""
    if ember is None or spark is None:
        shown = [fmt.format(x) if x is not None else "not supported" for x in (ember, spark)]
        return "—" if ember is None and spark is None else " / ".join(shown)
    r = ember / spark if spark else None
    # Three significant digits, so that 0.0028 does not show as 0.00.
    ratio = "" if r is None else f" ({r:.3g}×)" if r < 100 else f" ({r:.0f}×)"
    return f"{fmt.format(ember)} / {fmt.format(spark)}{ratio}"


def report(results, counts, mode, elapsed, loads):
    """docs/benchmarks.md and docs/benchmarks.png from the runs' results."""
    events = {**counts, "startup": 1000, "nexmark": sum(counts["nexmark"].values())}
    m = {(w, e): metrics(results[w, e], events[w]) for w in WORKLOADS for e in ENGINES}
    lines = [
        "# Benchmarks: Ember and Spark",
        "",
        "Generated by `bench/run.py`; do not edit. Each workload is one PySpark program "
        "(`bench/workloads.py`) run as a whole process per engine, on the same generated data "
        "(`bench/data.py`, fixed seeds).",
        "",
        f"- Command: `.venv/bin/python bench/run.py{' --quick' if mode == 'quick' else ''}` "
        f"({mode} mode, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {elapsed / 60:.1f} min)",
        *[f"- {k}: {v}" for k, v in machine().items()],
        f"- Load average (1 min) before and after the run: {loads[0]:.2f}, {loads[1]:.2f}"
        + (" — the machine was busy: figures are noisy" if max(loads) > 1 else ""),
        "- Spark: `local[*]`, `spark.ui.enabled=false`, `spark.sql.shuffle.partitions` = cores, "
        "`spark.driver.memory=4g`.",
        "",
        "Each cell is `Ember / Spark (Ember ÷ Spark)`: below 1× Ember takes less time, CPU or "
        "memory; for events/s, above 1× Ember is faster. **Wall**: from process start to the end "
        "of the workload. **Events/s**: input events over the workload's own time (session "
        "start-up excluded). **CPU**: user + system time of the engine's processes (the Python "
        "process, and Spark's JVM) until the workload ends. **Peak RSS**: the peak resident "
        "memory (`VmHWM`) of the largest of those processes (for Spark, the JVM) when the "
        "workload ends; both figures are read before the harness checks the output. "
        "**First result**: from process start to the first committed micro-batch or collected "
        "answer. **Result**: both engines' outputs compared row by row (sorted; over 100,000 rows, "
        "by count and per-column sums).",
        "",
        "| Workload | Events | Wall s | Events/s | CPU s | Peak RSS MB | First result s | Result |",
        "|---|---:|---|---|---|---|---|---|",
    ]
    for w, (title, _) in WORKLOADS.items():
        e, s = m[w, "ember"], m[w, "spark"]
        digest = same(results[w, "ember"].get("digest"), results[w, "spark"].get("digest"))
        if w == "nexmark":
            digest = "per query, below"
        lines.append(
            f"| {title} | {events[w]:,} | {cell(e.get('wall'), s.get('wall'))} "
            f"| {cell(e.get('eps'), s.get('eps'), '{:,.0f}')} | {cell(e.get('cpu'), s.get('cpu'))} "
            f"| {cell(e.get('rss'), s.get('rss'), '{:.0f}')} | {cell(e.get('first'), s.get('first'))} "
            f"| {digest} |")
    e, s = m["tiny", "ember"], m["tiny", "spark"]
    lines += [
        "",
        f"W5 micro-batch latency ({counts['tiny']:,} events in "
        f"{data.SIZES[mode]['tiny'][0]} files, one file per batch, "
        "time from one `foreachBatch` call's end to the next, the first from the query's start), "
        f"ms: median {cell(e.get('p50'), s.get('p50'), '{:.1f}')}, "
        f"p99 {cell(e.get('p99'), s.get('p99'), '{:.1f}')}.",
        "",
        "The workloads, over JSON-lines files of events (`event_id`, `company_id`, `amount`, "
        "`event_ts`):",
        "",
        *[f"- {title}: {what.format(keys=data.SIZES[mode]['keys'][2])}"
          for title, what in WORKLOADS.values()],
        "",
        "## Nexmark",
        "",
        f"Persons, auctions and bids ({counts['nexmark']['person']:,} / "
        f"{counts['nexmark']['auction']:,} / {counts['nexmark']['bid']:,}) with the Nexmark "
        "generator's field names, from our own deterministic generator. Each query reads the "
        "JSON files with `trigger(availableNow=True)` into the memory sink; its time runs from "
        "building the query to its stopping, in the one process of the suite. Once its output "
        "is checked, its memory-sink table is dropped (`spark.catalog.dropTempView`, on both "
        "engines), so the process's peak memory is its largest query's.",
        "",
        "| Query | Mode | Time s | Events/s | Ember events per CPU second | Rows | Result |",
        "|---|---|---|---|---:|---:|---|",
    ]
    queries = {e: results["nexmark", e].get("queries", {}) for e in ENGINES}
    nexmark_times, per_cpu = {}, {}
    for q, inputs in NEXMARK_INPUTS.items():
        n = sum(counts["nexmark"][i] for i in inputs)
        qe, qs = queries["ember"].get(q, {}), queries["spark"].get(q, {})
        t = nexmark_times[q] = {e: entry["done"] - entry["start"] if "done" in entry else None
                                for e, entry in (("ember", qe), ("spark", qs))}
        rows = (qs.get("digest") or qe.get("digest") or {}).get("rows", "")
        per_cpu[q] = n / qe["cpu"] if qe.get("cpu") else None
        lines.append(
            f"| {q} | {qs.get('mode') or qe.get('mode', '')} | {cell(t['ember'], t['spark'])} "
            f"| {cell(t['ember'] and n / t['ember'], t['spark'] and n / t['spark'], '{:,.0f}')} "
            f"| {f'{per_cpu[q]:,.0f}' if per_cpu[q] else '—'} "
            f"| {rows} | {same(qe.get('digest'), qs.get('digest'))} |")
    lines += [
        "",
        "q4 runs as a batch query on both engines: its aggregations group by auction, not by "
        "event time, so append mode cannot finalize them, and Spark allows a join of two streams "
        "only in append mode. q5 and q7 stream thanks to watermarks on the bids (a window "
        "aggregation joined back to its input, in append mode); q8 is a plain stream-stream join "
        "on the person and its 10-second window, one row per matching auction.",
    ]
    lines += ["", *targets(m, per_cpu)]
    errors = [(w, e, results[w, e]["error"]) for w in WORKLOADS for e in ENGINES
              if results[w, e].get("error")]
    errors += [("nexmark " + q, e, entry["error"]) for e in ENGINES
               for q, entry in queries[e].items() if entry.get("error")]
    if errors:
        lines += ["", "## Errors", ""]
        lines += [f"- {w} on {e}: `` {msg} ``" for w, e, msg in errors]
    write_doc("\n".join(lines) + "\n", big_section())
    chart(m, nexmark_times, mode)


def targets(m, per_cpu):
    """The issue's targets, each with this run's figures and whether it is met."""
    def verdict(ok):
        return "**met**" if ok else "**not met**"

    def ratio(w, key):
        e, s = m[w, "ember"].get(key), m[w, "spark"].get(key)
        return e / s if e is not None and s else None

    lines = ["## Targets", "", "| Target | This run | |", "|---|---|---|"]
    for w in ("ingest", "windows", "keys", "dedup"):
        r = ratio(w, "eps")
        lines.append(f"| {WORKLOADS[w][0]}: at least 20× Spark's events/s | "
                     f"{'—' if r is None else f'{r:.1f}×'} | {verdict(r is not None and r >= 20)} |")
    p50 = m["tiny", "ember"].get("p50")
    lines.append(f"| W5: median per-batch time at most 1 ms | "
                 f"{'—' if p50 is None else f'{p50:.1f} ms'} | {verdict(p50 is not None and p50 <= 1)} |")
    first = m["startup", "ember"].get("first")
    lines.append(f"| W6: start-up to first result at most 50 ms | "
                 f"{'—' if first is None else f'{first * 1000:.0f} ms'} "
                 f"| {verdict(first is not None and first <= 0.05)} |")
    memory = {w: ratio(w, "rss") for w in WORKLOADS}
    worst = max((r for r in memory.values() if r is not None), default=None)
    lines.append(f"| Peak memory at most a tenth of Spark's, every workload | "
                 f"{'—' if worst is None else f'{worst:.2f}× at most'} "
                 f"| {verdict(worst is not None and worst <= 0.1)} |")
    stateless = [per_cpu.get(q) for q in ("q0", "q1", "q2")]
    low = min((x for x in stateless if x), default=None)
    lines.append(f"| Nexmark stateless queries (q0-q2): at least 1,000,000 events per second per "
                 f"core (Ember's events per CPU second) | "
                 f"{'—' if low is None else f'{low:,.0f} at least'} "
                 f"| {verdict(low is not None and low >= 1e6)} |")
    return lines


DOC = os.path.join(ROOT, "docs", "benchmarks.md")


def big_section():
    """The --big section of docs/benchmarks.md as it is (kept when the main part is rewritten)."""
    if not os.path.exists(DOC):
        return ""
    with open(DOC) as f:
        text = f.read()
    return text[text.index(BIG_MARKER):] if BIG_MARKER in text else ""


def write_doc(main_part, big_part):
    with open(DOC, "w") as f:
        f.write(main_part + ("\n" + big_part if big_part else ""))


def big_report(results, counts, elapsed, loads):
    """The --big section: the two large streams on both engines."""
    m = {(w, e): metrics(results[w, e], counts[w]) for w in BIG_WORKLOADS for e in ENGINES}
    state = {e: results["big_windows", e].get("state_rows") or [] for e in ENGINES}
    peak = {e: max((row[2] or 0 for row in state[e]), default=None) if state[e] else None
            for e in ENGINES}
    lines = [
        BIG_MARKER,
        "",
        "## Large streams (`--big`)",
        "",
        "Two larger streams, run apart from the suite above (one engine at a time, one workload "
        "after the other), on inputs from `bench/data.py` (`big_event_files`: fixed-width "
        "JSON lines made with numpy, fixed seeds). Columns as above; **Max state rows**: the "
        "largest `stateOperators[0].numRowsTotal` over the micro-batches' progress. (W3 of the full "
        "mode has a million keys too, over four million events.)",
        "",
        f"- Command: `.venv/bin/python bench/run.py --big` "
        f"({datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {elapsed / 60:.1f} min)",
        *[f"- {k}: {v}" for k, v in machine().items()],
        f"- Load average (1 min) before and after the run: {loads[0]:.2f}, {loads[1]:.2f}"
        + (" — the machine was busy: figures are noisy" if max(loads) > 1.5 else ""),
        "",
        "| Workload | Events | Wall s | Events/s | CPU s | Peak RSS MB | Max state rows | Result |",
        "|---|---:|---|---|---|---|---|---|",
    ]
    for w, (title, _) in BIG_WORKLOADS.items():
        e, s = m[w, "ember"], m[w, "spark"]
        rows = cell(peak["ember"], peak["spark"], "{:,.0f}") if w == "big_windows" else "—"
        digest = same(results[w, "ember"].get("digest"), results[w, "spark"].get("digest"))
        lines.append(
            f"| {title} | {counts[w]:,} | {cell(e.get('wall'), s.get('wall'))} "
            f"| {cell(e.get('eps'), s.get('eps'), '{:,.0f}')} | {cell(e.get('cpu'), s.get('cpu'))} "
            f"| {cell(e.get('rss'), s.get('rss'), '{:.0f}')} | {rows} | {digest} |")
    lines += [""]
    for w, (title, what) in BIG_WORKLOADS.items():
        files, per_file, keys, ms = data.BIG[w]
        lines.append(f"- {title}: " + what.format(keys=keys, per_file=per_file, files=files, ms=ms,
                                                   minutes=per_file * ms / 60_000))
    for e in ENGINES:
        if state[e]:
            totals = [row[2] for row in state[e]]
            lines.append(f"- B2 state rows after each micro-batch, {e.capitalize()}: "
                         f"{', '.join(f'{t:,}' if t is not None else '?' for t in totals)} "
                         f"({len(totals)} micro-batches, "
                         f"{sum(1 for row in state[e] if not row[1])} of them without input).")
    errors = [(w, e, results[w, e]["error"]) for w in BIG_WORKLOADS for e in ENGINES
              if results[w, e].get("error")]
    lines += [f"- Error: {w} on {e}: `` {msg} ``" for w, e, msg in errors]
    with open(DOC) as f:
        text = f.read()
    main_part = text[:text.index(BIG_MARKER)].rstrip("\n") + "\n" if BIG_MARKER in text else text
    write_doc(main_part, "\n".join(lines) + "\n")


def remove_work_dirs(out):
    for engine in ENGINES:
        for work in glob.glob(os.path.join(out, f"*-{engine}-*")):
            shutil.rmtree(work, ignore_errors=True)


def main_big():
    began, loads = time.time(), [os.getloadavg()[0]]
    out = os.path.join(HERE, "out", "big")
    inputs = os.path.join(HERE, "out", "big-data")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    print(f"generating (or reusing) the --big data in {inputs}", flush=True)
    counts = data.generate_big(inputs)
    results = {}
    for workload in BIG_WORKLOADS:
        for engine in ENGINES:
            results[workload, engine] = r = run(engine, workload, inputs, out, BIG_TIMEOUT_S)
            took = (r.get("done") or time.time()) - r["spawned"]
            print(f"{workload:12} {engine:6} {took:7.1f} s  {r.get('error') or ''}", flush=True)
    loads.append(os.getloadavg()[0])
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({f"{w} {e}": r for (w, e), r in results.items()}, f)
    big_report(results, counts, time.time() - began, loads)
    remove_work_dirs(out)
    print("wrote the --big section of docs/benchmarks.md")


def chart(m, nexmark_times, mode):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 5))
    panels = [
        ("Wall time, process start to done (s)", list(WORKLOADS),
         lambda w, e: m[w, e].get("wall"), "log"),
        ("Nexmark query time (s)", list(nexmark_times), lambda q, e: nexmark_times[q][e], "log"),
        ("Peak resident memory (MB)", list(WORKLOADS), lambda w, e: m[w, e].get("rss"), "linear"),
    ]
    for ax, (title, names, value, scale) in zip(axes, panels):
        y = np.arange(len(names))
        for k, (engine, colour) in enumerate((("ember", "tab:orange"), ("spark", "tab:blue"))):
            values = [value(n, engine) or 0 for n in names]
            ax.barh(y + (k - 0.5) * 0.4, values, 0.4, label=engine.capitalize(), color=colour)
        ax.set_yticks(y, [n if n in nexmark_times else WORKLOADS[n][0].split()[0] for n in names])
        ax.invert_yaxis()
        ax.set_xscale(scale)
        ax.set_title(title)
    axes[0].legend()
    fig.suptitle(f"Ember vs Spark 4.0 ({mode} mode; missing bars: not supported)")
    fig.tight_layout()
    fig.savefig(os.path.join(ROOT, "docs", "benchmarks.png"), dpi=100)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small data, a few minutes")
    parser.add_argument("--big", action="store_true",
                        help="only the two large streams (10M and 5M events); their own section")
    args = parser.parse_args()
    if args.big:
        return main_big()
    mode = "quick" if args.quick else "full"
    began, loads = time.time(), [os.getloadavg()[0]]
    out = os.path.join(HERE, "out", mode)
    inputs = os.path.join(out, "data")
    shutil.rmtree(out, ignore_errors=True)
    print(f"generating {mode} data in {inputs}", flush=True)
    counts = data.generate(inputs, mode)
    results = {}
    for workload in WORKLOADS:
        for engine in ENGINES:
            results[workload, engine] = r = (median_startup(engine, inputs, out)
                                             if workload == "startup" else
                                             run(engine, workload, inputs, out))
            took = (r.get("done") or time.time()) - r["spawned"]
            print(f"{workload:8} {engine:6} {took:7.1f} s  {r.get('error') or ''}", flush=True)
    loads.append(os.getloadavg()[0])
    with open(os.path.join(out, "results.json"), "w") as f:  # the raw figures, for later study
        json.dump({f"{w} {e}": r for (w, e), r in results.items()}, f)
    report(results, counts, mode, time.time() - began, loads)
    remove_work_dirs(out)
    print("wrote docs/benchmarks.md and docs/benchmarks.png")


if __name__ == "__main__":
    main()
