"""Scenarios from a seed: input streams (JSON files arriving over several runs) crossed with query
templates. `generate(seed, index, small)` is deterministic; `write(scenario, directory)` lays it
out for runner.py."""

import json
import os
import random
from dataclasses import dataclass, field

SCHEMA = "id INT, k STRING, k2 INT, v DOUBLE, t TIMESTAMP"
T0 = 1_714_557_600  # 2024-05-01 10:00:00 UTC, the event times
MTIME0 = 1_750_000_000  # modification times of the input files, 10 s apart, in arrival order


@dataclass
class Scenario:
    name: str
    template: str
    query: str  # the source of query.py
    output_mode: str
    sink: str  # memory | foreach_batch | foreach_batch_iceberg | table
    create_table: bool = False  # for the table sink: CREATE TABLE before the first run
    runs: list = field(default_factory=list)  # [{"trigger", "wait", "files": [{"name", "mtime"}]}]
    files: dict = field(default_factory=dict)  # name -> text
    features: list = field(default_factory=list)  # what the input holds, for the report

    def spec(self):
        return {"name": self.name, "template": self.template, "output_mode": self.output_mode,
                "sink": self.sink, "create_table": self.create_table, "features": self.features, "runs": self.runs}


# ---------------------------------------------------------------- input streams

def _timestamp(seconds, rng):
    text = _format(seconds)
    if rng.random() < 0.1:
        text = text.replace(" ", "T")
    return text


def _format(seconds):
    import time

    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(seconds))


def make_stream(rng, n_runs, small):
    """Per run, a list of files (name, lines). Event time moves forward run by run, with
    out-of-order and late events, duplicates, NULL keys and times, empty files and malformed
    lines."""
    features = set()
    runs = []
    history = []  # events already written, for duplicates
    next_id = 1
    now = T0
    for r in range(n_runs):
        now += rng.choice([3, 7, 12, 25]) * 60
        files = []
        for f in range(rng.randint(1, 3 if small else 4)):
            lines = []
            if rng.random() < 0.1:
                features.add("empty file")
                files.append((f"r{r}-f{f}.json", lines))
                continue
            for _ in range(rng.randint(1, 6 if small else 10)):
                roll = rng.random()
                if history and roll < 0.1:
                    event = dict(rng.choice(history))
                    features.add("duplicate")
                elif history and roll < 0.15:
                    event = dict(rng.choice(history), v=rng.randint(-8, 400) / 4)
                    features.add("same id again")
                else:
                    event = {"id": next_id, "k": rng.choice(["a", "b", "c", "d", None]),
                             "k2": rng.choice([1, 2, 3, None]),
                             "v": rng.choice([rng.randint(-8, 400) / 4] * 9 + [None])}
                    next_id += 1
                    if rng.random() < 0.12:
                        event["t"] = _timestamp(now - rng.randint(15, 60) * 60, rng)
                        features.add("late event")
                    elif rng.random() < 0.03:
                        event["t"] = None
                        features.add("null time")
                    else:
                        event["t"] = _timestamp(now + rng.randint(-300, 300), rng)
                if event["k"] is None:
                    features.add("null key")
                history.append(event)
                lines.append(json.dumps(event))
            now += 60
            if rng.random() < 0.06:
                lines.insert(rng.randint(0, len(lines)),
                             rng.choice(['this is not json', '{"id": 99, "k": "a"', '[1, 2']))
                features.add("malformed line")
            files.append((f"r{r}-f{f}.json", lines))
        if len(files) > 1:
            features.add("several files per run")
        runs.append(files)
    return runs, sorted(features)


# ---------------------------------------------------------------- query templates

def _reader(rng, features):
    lines = ['    events = spark.readStream.schema(SCHEMA).format("json")']
    roll = rng.random()
    if roll < 0.45:
        n = rng.choice([1, 1, 2, 3])
        lines[0] += f'.option("maxFilesPerTrigger", {n})'
        features.append(f"maxFilesPerTrigger={n}")
    elif roll < 0.55:
        n = rng.choice([200, 600, 1500])
        lines[0] += f'.option("maxBytesPerTrigger", {n})'
        features.append(f"maxBytesPerTrigger={n}")
    if rng.random() < 0.1:
        lines[0] += '.option("latestFirst", "true")'
        features.append("latestFirst")
    lines[0] += ".load(source)"
    return lines


def _aggs(rng, time_too=True):
    choices = ['F.count("*").alias("n")', 'F.sum("v").alias("sum_v")', 'F.avg("v").alias("avg_v")',
               'F.min("v").alias("min_v")', 'F.max("v").alias("max_v")', 'F.count("k").alias("n_k")']
    if time_too:
        choices.append('F.max("t").alias("max_t")')
    picked = rng.sample(choices, rng.randint(1, 4))
    return ", ".join(picked)


def _keys(rng):
    return rng.choice([['"k"'], ['"k2"'], ['"k"', '"k2"']])


def stateless(rng, features):
    body = _reader(rng, features)
    steps = []
    filters = ['.where("v > 20")', '.filter(F.col("k").isNotNull())',
               '.where((F.col("k2") % 2 == 1) | F.col("t").isNull())', '.where("id % 3 != 0")']
    projections = ['.select("id", "k", "v")',
                   '.selectExpr("id", "upper(k) AS ku", "v * 2 AS v2", "k2 + 1 AS k3", "t")',
                   '.withColumn("minute", F.minute("t")).withColumn("big", F.when(F.col("v") > 50, "y").otherwise("n"))',
                   '.withColumn("kk", F.coalesce(F.col("k"), F.lit("none"))).drop("k2")']
    if rng.random() < 0.7:
        steps.append(rng.choice(filters))
    steps.append(rng.choice(projections))
    if rng.random() < 0.3:
        steps.append(rng.choice(filters[:1] + filters[3:]))
    body.append("    return events" + "".join(steps))
    return body


def aggregation(rng, features):
    body = _reader(rng, features)
    keys = ", ".join(_keys(rng))
    where = rng.choice(["", "", '.where("v IS NULL OR v < 80")'])
    body.append(f"    return events{where}.groupBy({keys}).agg({_aggs(rng)})")
    return body


def _watermark(rng):
    return rng.choice(["0 seconds", "2 minutes", "5 minutes", "10 minutes"])


def _flatten_window(rng, name, keys, aggs_out):
    return (f'.select(F.col("{name}.start").alias("w_start"), F.col("{name}.end").alias("w_end"), '
            f'{keys}{aggs_out})')


def windowed(rng, features, slide=False):
    body = _reader(rng, features)
    size = rng.choice(["5 minutes", "10 minutes"])
    window = f'F.window("t", "{size}")'
    if not slide and rng.random() < 0.15:
        window = f'F.window("t", "{size}", "{size}", "2 minutes")'  # with a start time
    if slide:
        step = {"5 minutes": rng.choice(["1 minute", "2 minutes"]), "10 minutes": "5 minutes"}[size]
        window = f'F.window("t", "{size}", "{step}")'
    keys = rng.choice([[], ['"k"'], ['"k"', '"k2"']])
    group = ", ".join([window] + keys)
    line = f'    return events.withWatermark("t", "{_watermark(rng)}").groupBy({group}).agg({_aggs(rng)})'
    if rng.random() < 0.4:
        line += (f'.select(F.col("window.start").alias("w_start"), F.col("window.end").alias("w_end"), '
                 f'"*").drop("window")')
    body.append(line)
    return body


def chained_windows(rng, features):
    """A window aggregation over the windows of another (append mode, STREAMING.md 4.1, 5.2)."""
    body = _reader(rng, features)
    body.append(f'    counts = events.withWatermark("t", "{_watermark(rng)}")'
                f'.groupBy(F.window("t", "5 minutes"), "k").agg(F.count("*").alias("n"))')
    body.append('    return counts.groupBy(F.window("window", "10 minutes")).agg(F.sum("n").alias("total"))')
    return body


def stream_static_join(rng, features):
    body = _reader(rng, features)
    how = rng.choice(["inner", "left", "left_semi", "left_anti"])
    body.append('    static = spark.createDataFrame([("a", "alpha"), ("b", "beta"), ("e", "epsilon")], '
                '"k STRING, name STRING")')
    body.append(f'    return events.join(static, "k", "{how}")')
    return body


def session(rng, features):
    body = _reader(rng, features)
    gap = rng.choice(["2 minutes", "5 minutes"])
    body.append(f'    return events.withWatermark("t", "{_watermark(rng)}")'
                f'.groupBy(F.session_window("t", "{gap}"), "k").agg({_aggs(rng)})')
    return body


def dedup(rng, features):
    body = _reader(rng, features)
    cols = rng.choice(['["id"]', '["k", "k2"]', '["id", "k"]'])
    pre = rng.choice(["", "", '.withWatermark("t", "10 minutes")'])
    body.append(f"    return events{pre}.dropDuplicates({cols})")
    return body


def dedup_event_time(rng, features):
    body = _reader(rng, features)
    body.append(f'    return events.withWatermark("t", "{_watermark(rng)}").dropDuplicates(["id", "t"])')
    return body


def dedup_within(rng, features):
    body = _reader(rng, features)
    cols = rng.choice(['["id"]', '["k"]'])
    body.append(f'    return events.withWatermark("t", "{_watermark(rng)}")'
                f'.dropDuplicatesWithinWatermark({cols})')
    return body


def unsupported(rng, features):
    """Queries Spark rejects when they start: both engines must fail, with the same condition.
    Returns the body and the output mode that makes it unsupported."""
    body = _reader(rng, features)
    variant, mode = rng.choice([
        ('events.groupBy("k").count()', "append"),  # aggregation without watermark
        ('events.select("id", "k")', "complete"),  # complete without aggregation
        ('events.groupBy("k").agg(F.countDistinct("v"))', "update"),  # distinct aggregate
        ('events.orderBy("id")', "append"),  # sort without aggregation
        ('events.join(spark.createDataFrame([("a", 1)], "k STRING, x INT"), "k", "right")',
         "append"),  # right outer join of a stream with a static DataFrame
        ('events.withWatermark("t", "5 minutes").groupBy(F.window("t", "5 minutes")).count()'
         '.groupBy("count").count()', "update"),  # stateful after update aggregation
    ])
    body.append(f"    return {variant}")
    return body, mode


# name: (builder, [(output mode, sink)...], weight)
TEMPLATES = {
    "stateless": (stateless, [("append", "foreach_batch"), ("append", "memory"), ("append", "table"),
                              ("update", "foreach_batch")], 3),
    "aggregation_complete": (aggregation, [("complete", "memory"), ("complete", "memory"),
                                           ("complete", "table")], 2),
    "aggregation_update": (aggregation, [("update", "foreach_batch")], 2),
    "window_append": (windowed, [("append", "foreach_batch"), ("append", "memory")], 3),
    "window_update": (windowed, [("update", "foreach_batch")], 2),
    "window_complete": (windowed, [("complete", "memory")], 1),
    "chained_windows": (chained_windows, [("append", "foreach_batch")], 1),
    "stream_static_join": (stream_static_join, [("append", "foreach_batch"), ("append", "memory")], 1),
    "sliding_window": (lambda rng, f: windowed(rng, f, slide=True),
                       [("append", "foreach_batch"), ("update", "foreach_batch")], 1),
    "session_window": (session, [("append", "foreach_batch"), ("complete", "memory")], 1),
    "dedup": (dedup, [("append", "foreach_batch")], 1),
    "dedup_event_time": (dedup_event_time, [("append", "foreach_batch")], 1),
    "dedup_within_watermark": (dedup_within, [("append", "foreach_batch"), ("update", "foreach_batch")], 1),
    "iceberg_stateless": (stateless, [("append", "foreach_batch_iceberg"), ("append", "table")], 1),
    "iceberg_window": (windowed, [("append", "foreach_batch_iceberg"), ("append", "table")], 1),
    "unsupported": (unsupported, [(None, "foreach_batch")], 1),
}


def generate(seed, index, small=False):
    rng = random.Random(f"{seed}/{index}")
    names = list(TEMPLATES)
    template = rng.choices(names, weights=[TEMPLATES[n][2] for n in names])[0]
    build, modes, _ = TEMPLATES[template]
    output_mode, sink = rng.choice(modes)
    query_features = []
    body = build(rng, query_features)
    if isinstance(body, tuple):
        body, output_mode = body
    if template == "iceberg_window" and "w_start" not in body[-1]:
        body[-1] += ('.select(F.col("window.start").alias("w_start"), '
                     'F.col("window.end").alias("w_end"), "*").drop("window")')
    n_runs = rng.randint(1, 3 if small else 4)
    # The memory sink restarts from a checkpoint only in complete mode (both engines must refuse
    # the second run otherwise: tried now and then).
    if sink == "memory" and output_mode != "complete" and rng.random() < 0.9:
        n_runs = 1
    streams, features = make_stream(rng, n_runs, small)
    query = "\n".join([
        "from pyspark.sql import functions as F",
        "",
        f'SCHEMA = "{SCHEMA}"',
        "",
        "",
        "def query(spark, source):",
        *body,
        "",
    ])
    scenario = Scenario(name=f"s{seed}_{index:04d}", template=template, query=query,
                        output_mode=output_mode, sink=sink,
                        create_table=sink == "table" and rng.random() < 0.5)
    arrival = 0
    for files in streams:
        trigger = rng.choice(["availableNow", "availableNow", "once", "default"])
        if trigger == "default":
            wait = "processAllAvailable"
        else:
            wait = rng.choice(["processAllAvailable"] * 12 + ["awaitTermination"] + ["awaitTermination(timeout)"] * 3)
        run = {"trigger": trigger, "wait": wait, "files": []}
        for name, lines in files:
            run["files"].append({"name": name, "mtime": MTIME0 + 10 * arrival})
            scenario.files[name] = "".join(line + "\n" for line in lines)
            arrival += 1
        scenario.runs.append(run)
    scenario.features = features + query_features
    return scenario


def write(scenario, directory):
    os.makedirs(os.path.join(directory, "inputs"), exist_ok=True)
    with open(os.path.join(directory, "scenario.json"), "w") as f:
        json.dump(scenario.spec(), f, indent=1)
    with open(os.path.join(directory, "query.py"), "w") as f:
        f.write(scenario.query)
    for name, text in scenario.files.items():
        with open(os.path.join(directory, "inputs", name), "w") as f:
            f.write(text)
