"""An oracle for event-time streams that owes nothing to Ember or Spark: DuckDB computes what the
sink must receive, from the input files and the watermark rules of STREAMING.md.

`generate(seed, index)` makes a randomized stream (JSON files arriving over several runs, each run
a restart of the query on the same checkpoint; out-of-order, late and duplicate events, events on
window boundaries, empty files) and a query over it, one of TEMPLATES: tumbling or sliding
windows (sizes, slides, start times, delays drawn at random) in append, update and complete mode,
session windows (several gaps) in append and complete mode, `dropDuplicates(["id", "t"])` and
`dropDuplicatesWithinWatermark(["id"])` under a watermark. It returns a campaign Scenario (runner.py
runs it on either engine) and the Plan the oracle needs.

`expect(plan, scenario, inputs_dir)` returns what runner.py must record, in runner.py's format:
per run, the batches (ids, including no-data batches; `numInputRows`;
`numRowsDroppedByWatermark` where the rule is known; `eventTime.watermark`) and the rows of each
foreachBatch call, or the memory sink's table after the run. Python only replays the micro-batch
loop on scalars (which files each batch reads, STREAMING.md 8.3/2.6; the watermark of each batch,
3.3/3.4; whether a trailing no-data batch runs, 2.5); DuckDB reads the files and does every
window assignment, late filter (3.5: `t <= late watermark` / `end <= late watermark` is late),
aggregation, eviction (`end <= watermark` closes), session merge (4.4, a gaps-and-islands query)
and deduplication (6.2, 6.3) in SQL.

`differences(expected, got)` compares runner.py's record of an engine with the expectation.
"""

import json
import random
from dataclasses import dataclass, field
from datetime import datetime, timezone

import duckdb

from . import generator
from .runner import sorted_rows

SCHEMA = "id INT, k STRING, k2 INT, v DOUBLE, t TIMESTAMP"
DUCK_COLUMNS = "{'id': 'INTEGER', 'k': 'VARCHAR', 'k2': 'INTEGER', 'v': 'DOUBLE', 't': 'TIMESTAMP'}"
T0 = 1_714_557_600  # 2024-05-01 10:00:00 UTC
MTIME0 = 1_750_000_000
US = 1_000_000

# name: (output mode, sink)
TEMPLATES = {
    "tumbling_append": ("append", "foreach_batch"),
    "tumbling_update": ("update", "foreach_batch"),
    "sliding_append": ("append", "foreach_batch"),
    "sliding_update": ("update", "foreach_batch"),
    "window_complete": ("complete", "memory"),
    "session_append": ("append", "foreach_batch"),
    "session_complete": ("complete", "memory"),
    "dedup_event_time": ("append", "foreach_batch"),
    "dedup_within_watermark": ("append", "foreach_batch"),
}
AGGS = {  # output name: (PySpark, DuckDB over raw rows, DuckDB merging partial values)
    "n": ('F.count("*")', "count(*)", "sum(n)"),
    "n_v": ('F.count("v")', "count(v)", "sum(n_v)"),
    "sum_v": ('F.sum("v")', "sum(v)", "sum(sum_v)"),
    "max_v": ('F.max("v")', "max(v)", "max(max_v)"),
    "min_t": ('F.min("t")', "min(t)", "min(min_t)"),
}


# Wrong variants of the rules above, each of which the streams must tell from the right one
# (test_duckdb_oracle.py checks that Ember's output refutes every one of them): a test that
# passes against a mistaken oracle as well would prove little.
MUTANTS = {
    "late_is_strict": "a row or group exactly at the late watermark is kept (< instead of <=)",
    "close_is_strict": "a window closes only when the watermark passes its end (< instead of <=)",
    "late_uses_batch_watermark": "the late filter uses the batch's own watermark, not the previous",
    "no_trailing_no_data_batch": "no no-data batch runs when the watermark advances at the end",
    "delay_ignored": "the watermark is the largest event time, without the delay",
    "watermark_in_micros": "the watermark keeps the microseconds of the largest event time",
    "start_time_ignored": "window() ignores its startTime",
    "complete_drops_late": "complete mode drops late groups too",
    "sessions_touching_split": "sessions exactly one gap apart do not merge",
    "session_late_after_merge": "late sessions are judged after the batch's events merged",
    "dedup_expiry_strict": "dropDuplicatesWithinWatermark keeps a key until the watermark passes "
                           "time + delay (< instead of <=)",
}


class Rules:
    """The comparisons of STREAMING.md 3.5, 4.4 and 6.3, or a mutant of them."""

    def __init__(self, mutant=None):
        assert mutant is None or mutant in MUTANTS, mutant
        self.mutant = mutant
        self.kept = ">=" if mutant == "late_is_strict" else ">"  # value `kept` late watermark
        self.late = "<" if mutant == "late_is_strict" else "<="
        self.closed = "<" if mutant == "close_is_strict" else "<="  # end `closed` watermark
        self.expired = "<" if mutant == "dedup_expiry_strict" else "<="
        self.apart = ">=" if mutant == "sessions_touching_split" else ">"

    def __eq__(self, mutant):
        return self.mutant == mutant


@dataclass
class Plan:
    template: str
    delay: int  # seconds
    keys: list = field(default_factory=list)
    aggs: list = field(default_factory=list)
    window: tuple = None  # (size, slide, start) in seconds
    gap: int = None  # seconds
    max_files: int = None  # maxFilesPerTrigger


def _duration(seconds):
    if seconds % 60 == 0:
        minutes = seconds // 60
        return f"{minutes} minute" if minutes == 1 else f"{minutes} minutes"
    return f"{seconds} seconds"


# ---------------------------------------------------------------- streams and queries

def _time_text(us, rng):
    text = datetime.fromtimestamp(us // US, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    if us % 1000:
        text += f".{us % US:06d}"
    elif us % US:
        text += f".{(us % US) // 1000:03d}"
    return text.replace(" ", "T") if rng.random() < 0.2 else text


def _anchor(plan, rng, top, written):
    """An event time at or above `top` that, as the largest of its batch, puts the watermark
    exactly on a boundary of the query: a window end (windows), the end of an earlier event's
    session (sessions), an earlier event's time (dropDuplicates with the event time) or its
    expiry (dropDuplicatesWithinWatermark). Returns (time, the earlier event or None)."""
    delay = plan.delay * US
    if plan.window:
        _, slide, start = (x * US for x in plan.window)
        boundary = start + -(-(top - delay - start) // slide) * slide  # the first at or above
        return boundary + delay, None
    reach = {"session_append": plan.gap, "session_complete": plan.gap, "dedup_event_time": 0,
             "dedup_within_watermark": plan.delay}[plan.template]
    reach = reach * US + delay
    near = [e for e in written[-20:] if e["t"] + reach >= top]
    if not near:
        return None, None
    e = rng.choice(near)
    return e["t"] + reach, e


def _probe(plan, rng, earlier, boundary, new_event):
    """An event for a batch whose late watermark is `boundary` (two batches after the anchor's):
    exactly at the edge of what is late (in the window ending there; a session ending there; a
    copy of the earlier event), or, for dropDuplicatesWithinWatermark, the earlier event's id
    again once its expiry equals the watermark."""
    if plan.window:
        return new_event(boundary - rng.choice([1, 30, 60]) * US)
    if plan.template == "dedup_event_time":
        return dict(earlier)
    if plan.template == "dedup_within_watermark":
        return dict(earlier, t=boundary + rng.randint(0, 120) * US, v=rng.randint(-8, 400) / 4)
    return dict(new_event(boundary - plan.gap * US), k=earlier["k"], k2=earlier["k2"])


def make_stream(rng, n_runs, plan):
    """Per run, a list of files (name, JSON lines). Event time moves forward file by file; events
    fall on whole minutes or anywhere, some ahead, some behind, some 10 to 40 minutes late;
    exact copies and re-sent ids (same time, a new value, or a later time; never two different
    rows of one id in a run); events a session gap apart. Half of the files end with an anchor
    (_anchor) that sets the watermark on a boundary, followed two batches later (two files
    later, or the next run's first file when the anchor closes a run, after its trailing no-data
    batch) by a probe (_probe) on that boundary: the equality cases of STREAMING.md 3.5."""
    runs, sent, written, pending = [], [], [], []
    next_id, high, file_no = 1, 0, 0
    now = (T0 + rng.randint(0, 59)) * US

    def new_event(t):
        nonlocal next_id
        next_id += 1
        return {"id": next_id - 1, "k": rng.choice(["a", "b", "c", None]), "k2": rng.choice([1, 2]),
                "v": rng.choice([rng.randint(-8, 400) / 4] * 9 + [None]), "t": t}

    for r in range(n_runs):
        files, this_run, varied = [], [], set()
        n_files = rng.randint(1, 4)
        for f in range(n_files):
            now += rng.choice([1, 2, 3, 5, 8]) * 60 * US
            events = []
            if rng.random() < 0.08:
                files.append((f"r{r}-f{f}.json", []))
                file_no += 1
                continue
            taken = {e["id"] for e in this_run} | varied
            for due in [p for p in pending if p[0] <= file_no]:
                pending.remove(due)
                probe = due[1]
                if probe["id"] in taken and probe not in this_run:
                    continue
                events.append(probe)
                if plan.window or plan.gap:  # a new event
                    this_run.append(probe)
                    written.append(probe)
                else:
                    varied.add(probe["id"])
            for _ in range(rng.randint(1, 7)):
                roll = rng.random()
                if this_run and roll < 0.1:
                    events.append(dict(rng.choice(this_run)))  # an exact copy
                    continue
                if sent and roll < 0.18:
                    old = rng.choice(sent)
                    if old["id"] not in taken | varied:
                        event = dict(old, v=rng.randint(-8, 400) / 4)  # re-sent, new value
                        if rng.random() < 0.5:
                            event["t"] = now + rng.randint(-3, 3) * 60 * US
                        varied.add(old["id"])
                        events.append(event)
                        continue
                if plan.gap and written and roll < 0.3:  # one gap after a recent event of its key
                    e = rng.choice(written[-8:])
                    event = dict(new_event(e["t"] + plan.gap * US), k=e["k"], k2=e["k2"])
                else:
                    roll = rng.random()
                    if roll < 0.5:  # on a whole minute
                        t = (now // (60 * US) + rng.randint(-4, 2)) * 60 * US
                    elif roll < 0.88:
                        t = now + rng.randint(-240, 120) * US
                        if rng.random() < 0.2:
                            t += rng.choice([rng.randint(1, 999) * 1000, rng.randint(1, US - 1)])
                    else:  # late
                        t = now - rng.randint(10, 40) * 60 * US
                    event = new_event(t)
                this_run.append(event)
                written.append(event)
                events.append(event)
            top = max([high] + [e["t"] for e in events])
            if rng.random() < 0.5:
                t, earlier = _anchor(plan, rng, top, written)
                if t is not None and t < now + 15 * 60 * US:
                    # microseconds beyond the boundary: the watermark, in ms, stays on it
                    anchor = new_event(t + rng.choice([0, 0, 0, rng.randint(1, 999)]))
                    this_run.append(anchor)
                    written.append(anchor)
                    events.append(anchor)
                    top = t
                    when = file_no + 2 if f < n_files - 1 else ("next run", r + 1)
                    pending.append((when, _probe(plan, rng, earlier, t - plan.delay * US, new_event)))
            high = top
            rng.shuffle(events)
            files.append((f"r{r}-f{f}.json", [json.dumps(dict(e, t=_time_text(e["t"], rng)))
                                              for e in events]))
            file_no += 1
        # a probe for the next run's first file
        pending = [(file_no if isinstance(w, tuple) and w[1] == r + 1 else w, e) for w, e in pending]
        sent += this_run
        runs.append(files)
    return runs


def _query(plan):
    reader = 'spark.readStream.schema(SCHEMA).format("json")'
    if plan.max_files:
        reader += f'.option("maxFilesPerTrigger", {plan.max_files})'
    body = [f"    events = {reader}.load(source)",
            f'    watermarked = events.withWatermark("t", "{_duration(plan.delay)}")']
    keys = "".join(f', "{k}"' for k in plan.keys)
    aggs = ", ".join(f'{AGGS[a][0]}.alias("{a}")' for a in plan.aggs)
    outs = "".join(f', "{c}"' for c in plan.keys + plan.aggs)
    if plan.window:
        size, slide, start = plan.window
        args = f'"t", "{_duration(size)}"'
        if slide != size or start:
            args += f', "{_duration(slide)}"'
        if start:
            args += f', "{_duration(start)}"'
        body.append(f"    return (watermarked.groupBy(F.window({args}){keys}).agg({aggs})")
        body.append(f'            .select(F.col("window.start").alias("w_start"), '
                    f'F.col("window.end").alias("w_end"){outs}))')
    elif plan.gap:
        body.append(f'    return (watermarked.groupBy(F.session_window("t", "{_duration(plan.gap)}")'
                    f"{keys}).agg({aggs})")
        body.append(f'            .select(F.col("session_window.start").alias("s_start"), '
                    f'F.col("session_window.end").alias("s_end"){outs}))')
    elif plan.template == "dedup_event_time":
        body.append('    return watermarked.dropDuplicates(["id", "t"])')
    else:
        body.append('    return watermarked.dropDuplicatesWithinWatermark(["id"])')
    return "\n".join(["from pyspark.sql import functions as F", "", f'SCHEMA = "{SCHEMA}"', "", "",
                      "def query(spark, source):", *body, ""])


def generate(seed, index):
    """(Scenario, Plan), deterministic in (seed, index); the template cycles with the index so
    that every one of them appears in any nine consecutive streams."""
    rng = random.Random(f"oracle/{seed}/{index}")
    names = list(TEMPLATES)
    template = names[index % len(names)]
    output_mode, sink = TEMPLATES[template]
    plan = Plan(template, delay=rng.choice([0, 60, 150, 180, 420, 720]),
                max_files=rng.choice([None, None, 1, 1, 2, 3]))
    if "tumbling" in template or template == "window_complete" and rng.random() < 0.5:
        size = rng.choice([120, 300, 420, 600])
        start = rng.choice([0, 0, 60, 90]) if size > 90 else 0
        plan.window = (size, size, start)
    elif "window" in template or "sliding" in template:
        size, slide = rng.choice([(600, 300), (600, 180), (360, 240), (300, 120), (300, 60)])
        plan.window = (size, slide, rng.choice([0, 0, 30, 60]))
    elif "session" in template:
        plan.gap = rng.choice([60, 120, 240, 300])
    if "dedup" not in template:
        plan.keys = rng.choice([[], ["k"], ["k", "k2"]] if plan.window else [["k"], ["k", "k2"]])
        plan.aggs = rng.sample(list(AGGS), rng.randint(1, 4))
        plan.aggs.sort(key=list(AGGS).index)
    n_runs = rng.randint(2, 4)
    scenario = generator.Scenario(name=f"o{seed}_{index:03d}", template=template,
                                  query=_query(plan), output_mode=output_mode, sink=sink)
    arrival = 0
    for files in make_stream(rng, n_runs, plan):
        trigger = rng.choice(["default", "default", "availableNow", "availableNow", "once"])
        wait = "processAllAvailable" if trigger == "default" else \
            rng.choice(["processAllAvailable", "awaitTermination"])
        run = {"trigger": trigger, "wait": wait, "files": []}
        for name, lines in files:
            run["files"].append({"name": name, "mtime": MTIME0 + 10 * arrival})
            scenario.files[name] = "".join(line + "\n" for line in lines)
            arrival += 1
        scenario.runs.append(run)
    scenario.features = [f"{k}={v}" for k, v in vars(plan).items() if v not in (None, [])]
    return scenario, plan


# ---------------------------------------------------------------- the expectation

def _iso_ms(us):
    """A time as the progress shows it, to the millisecond, in UTC."""
    seconds = datetime.fromtimestamp(us // US, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{seconds}.{us % US // 1000:03d}Z"


def _micro_batches(plan, scenario):
    """[(run, trigger, [file names])] of the data batches, in order: a run's files in
    modification-time order, `maxFilesPerTrigger` at a time, except under Trigger.Once (all)."""
    out = []
    for r, run in enumerate(scenario.runs):
        names = [f["name"] for f in sorted(run["files"], key=lambda f: f["mtime"])]
        step = len(names) if run["trigger"] == "once" or not plan.max_files else plan.max_files
        out.append([names[i:i + step] for i in range(0, len(names), step)])
    return out


def _load(con, plan, scenario, inputs_dir, rules):
    """events(batch, run, id, k, k2, v, t, tu = t in microseconds) and batches(batch, run, data,
    late_wm, evict_wm) in microseconds; returns the batches as dicts."""
    con.execute("CREATE TABLE events (dbatch INT, run INT, id INT, k VARCHAR, k2 INT, v DOUBLE, "
                "t TIMESTAMP)")
    layout = []  # (data batch number, run)
    for r, batches in enumerate(_micro_batches(plan, scenario)):
        for files in batches:
            for name in files:
                if scenario.files[name].strip():
                    path = f"{inputs_dir}/{name}".replace("'", "''")
                    con.execute(f"INSERT INTO events SELECT {len(layout)}, {r}, id, k, k2, v, t FROM "
                                f"read_json('{path}', columns={DUCK_COLUMNS}, "
                                "format='newline_delimited')")
            layout.append((len(layout), r))
    stats = {b: (n, mx) for b, n, mx in con.execute(
        "SELECT dbatch, count(*), max(epoch_us(t)) FROM events GROUP BY dbatch").fetchall()}

    # The micro-batch loop on scalars (STREAMING.md 2.5, 3.3, 3.4). wm: the global watermark
    # (in microseconds here, but a whole number of milliseconds: Spark keeps it in ms, from
    # floorDiv(max event time in µs, 1000)); a batch's eviction watermark is wm when it is planned, its
    # late-event watermark the previous batch's eviction watermark.
    delay = 0 if rules == "delay_ignored" else plan.delay * US
    no_data_batches = TEMPLATES[plan.template][0] != "complete"  # 2.5
    no_data_batches &= rules != "no_trailing_no_data_batch"
    wm, prev_evict, out = 0, 0, []
    for r, run in enumerate(scenario.runs):
        for d, _ in (x for x in layout if x[1] == r):
            n, mx = stats.get(d, (0, None))
            out.append({"batch": len(out), "data": d, "run": r, "rows": n,
                        "late_wm": wm if rules == "late_uses_batch_watermark" else prev_evict,
                        "evict_wm": wm})
            prev_evict = wm
            if mx is not None:  # a batch without rows leaves the watermark as it is
                top = mx if rules == "watermark_in_micros" else mx // 1000 * 1000
                wm = max(wm, top - delay)
        if no_data_batches and run["trigger"] != "once" and wm > prev_evict:
            out.append({"batch": len(out), "data": None, "run": r, "rows": 0,
                        "late_wm": prev_evict, "evict_wm": wm})
            prev_evict = wm
    con.execute("CREATE TABLE batches (batch INT, dbatch INT, run INT, late_wm BIGINT, "
                "evict_wm BIGINT)")
    con.executemany("INSERT INTO batches VALUES (?, ?, ?, ?, ?)",
                    [(x["batch"], x["data"], x["run"], x["late_wm"], x["evict_wm"])
                     for x in out])
    con.execute("""CREATE TABLE events2 AS SELECT b.batch, e.run, e.id, e.k, e.k2, e.v, e.t,
                   epoch_us(e.t) AS tu FROM events e JOIN batches b USING (dbatch)""")
    con.execute("DROP TABLE events")
    con.execute("ALTER TABLE events2 RENAME TO events")
    return out


def _ts(column):
    return f"make_timestamp({column})"


def _cols(plan, alias=""):
    return "".join(f", {alias}{k}" for k in plan.keys)


def _windows_sql(con, plan, rules):
    """assigned(batch, run, late_wm, ws, we, keys, v, t): each event in every window that holds it,
    windows being [start + j*slide, start + j*slide + size) for integer j (STREAMING.md 4.2)."""
    size, slide, start = (x * US for x in plan.window)
    if rules == "start_time_ignored":
        start = 0
    con.execute(f"""
        CREATE TABLE assigned AS
        SELECT e.batch, e.run, b.late_wm, j * {slide} + {start} AS ws,
               j * {slide} + {start} + {size} AS we, e.k, e.k2, e.v, e.t
        FROM events e JOIN batches b USING (batch),
             LATERAL (SELECT unnest(generate_series(
                 CAST(floor((e.tu - {start} - {size})::DOUBLE / {slide}) AS BIGINT) + 1,
                 CAST(floor((e.tu - {start})::DOUBLE / {slide}) AS BIGINT))) AS j)
        WHERE e.t IS NOT NULL""")
    # A check on the SQL itself: every event lies in some window.
    assert con.execute("""SELECT count(*) FROM events e WHERE NOT EXISTS (SELECT 1 FROM assigned a
        WHERE a.batch = e.batch AND a.t = e.t)""").fetchone()[0] == 0


def _same_group(plan, left, right, window=("ws",)):
    cond = [f"{left}.{c} = {right}.{c}" for c in window]
    cond += [f"{left}.{k} IS NOT DISTINCT FROM {right}.{k}" for k in plan.keys]
    return " AND ".join(cond)


def _window_rows(con, plan, mode, rules):
    """Rows [(batch, row...)] for append/update, [(run, row...)] for complete, and the late
    groups of each batch."""
    _windows_sql(con, plan, rules)
    aggs = ", ".join(f"{AGGS[a][1]} AS {a}" for a in plan.aggs)
    # the same, over the rows of `a` in a join
    aggs_of_a = ", ".join(f"{AGGS[a][1].replace('(v)', '(a.v)').replace('(t)', '(a.t)')} AS {a}"
                          for a in plan.aggs)
    select = f"{_ts('ws')}, {_ts('we')}{_cols(plan)}, " + ", ".join(plan.aggs)
    if mode == "complete":  # no late filter, no eviction: everything read so far (3.6)
        late = f"AND a.we {rules.kept} a.late_wm" if rules == "complete_drops_late" else ""
        rows = con.execute(f"""
            SELECT r.run, {_ts('ws')}, {_ts('we')}{_cols(plan, 'a.')}, {aggs_of_a}
            FROM (SELECT DISTINCT run FROM batches) r JOIN assigned a ON a.run <= r.run {late}
            GROUP BY r.run, ws, we{_cols(plan, 'a.')}""").fetchall()
        return rows, {}
    con.execute(f"CREATE TABLE accepted AS SELECT * FROM assigned WHERE we {rules.kept} late_wm")
    dropped = dict(con.execute(f"""SELECT batch, count(*) FROM (
        SELECT DISTINCT batch, ws{_cols(plan)} FROM assigned WHERE we {rules.late} late_wm)
        GROUP BY batch""").fetchall())
    if mode == "append":  # a window is emitted once, by the first batch whose watermark closes it
        rows = con.execute(f"""
            WITH g AS (SELECT ws, we{_cols(plan)}, min(batch) AS first_batch, {aggs}
                       FROM accepted GROUP BY ws, we{_cols(plan)})
            SELECT * FROM (
                SELECT (SELECT min(b.batch) FROM batches b
                        WHERE b.batch >= g.first_batch AND g.we {rules.closed} b.evict_wm)
                       AS out_batch, {select}
                FROM g) WHERE out_batch IS NOT NULL""").fetchall()
    else:  # update: every group the batch touched, with its value over all batches so far
        rows = con.execute(f"""
            WITH touched AS (SELECT DISTINCT batch, ws, we{_cols(plan)} FROM accepted)
            SELECT u.batch, {_ts('u.ws')}, {_ts('u.we')}{_cols(plan, 'u.')}, {aggs_of_a}
            FROM touched u JOIN accepted a ON {_same_group(plan, 'a', 'u')} AND a.batch <= u.batch
            GROUP BY u.batch, u.ws, u.we{_cols(plan, 'u.')}""").fetchall()
    return rows, dropped


MERGE_SESSIONS = """
    WITH o AS (SELECT *, max(se) OVER (PARTITION BY {keys} ORDER BY ss, se
                                       ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach
               FROM {source}),
         i AS (SELECT *, sum(CASE WHEN reach IS NULL OR ss {apart} reach THEN 1 ELSE 0 END)
                         OVER (PARTITION BY {keys} ORDER BY ss, se ROWS UNBOUNDED PRECEDING) AS island
               FROM o)
    SELECT {keys}, min(ss) AS ss, max(se) AS se, {merged} FROM i GROUP BY {keys}, island"""


def _session_rows(con, plan, mode, batches, rules):
    """Sessions batch by batch (STREAMING.md 4.4): the batch's events whose own session
    [t, t + gap) ends at or before the late watermark dropped; the others merged, with the stored
    sessions, into sessions (a gaps-and-islands query: a new session where an event starts after
    every earlier one ended); in append mode, sessions ending at or before the eviction watermark
    emitted and removed."""
    gap = plan.gap * US
    keys = ", ".join(plan.keys)
    partial = ", ".join(f"{AGGS[a][1]} AS {a}" for a in plan.aggs)
    merged = ", ".join(f"{AGGS[a][2]} AS {a}" for a in plan.aggs)
    con.execute(f"""CREATE TABLE state AS SELECT {keys}, tu AS ss, tu AS se, {partial}
                    FROM events WHERE false GROUP BY {keys}, tu""")
    rows, dropped = [], {}
    for b in batches:
        con.execute(f"""CREATE OR REPLACE TABLE raw AS SELECT {keys}, tu AS ss, tu + {gap} AS se,
                        {partial} FROM events WHERE batch = {b['batch']} AND t IS NOT NULL
                        GROUP BY {keys}, tu""")
        late = b["late_wm"]
        # Late: an event's own session [t, t + gap) ends at or before the late watermark; judged
        # per key and time (the partial aggregate), before the batch's sessions merge.
        judged = "fresh" if rules == "session_late_after_merge" else "raw"
        if judged == "fresh":
            con.execute("CREATE OR REPLACE TABLE fresh AS " + MERGE_SESSIONS.format(
                keys=keys, source="raw", merged=merged, apart=rules.apart))
        dropped[b["batch"]] = con.execute(
            f"SELECT count(*) FROM {judged} WHERE se {rules.late} {late}").fetchone()[0]
        con.execute(f"DELETE FROM {judged} WHERE se {rules.late} {late}")
        if judged == "raw":
            con.execute("CREATE OR REPLACE TABLE fresh AS " + MERGE_SESSIONS.format(
                keys=keys, source="raw", merged=merged, apart=rules.apart))
        con.execute("CREATE OR REPLACE TABLE state AS " + MERGE_SESSIONS.format(
            keys=keys, merged=merged, apart=rules.apart,
            source=f"(SELECT {keys}, ss, se, {', '.join(plan.aggs)} FROM state UNION ALL "
                   f"SELECT {keys}, ss, se, {', '.join(plan.aggs)} FROM fresh)"))
        out = f"{_ts('ss')}, {_ts('se')}{_cols(plan)}, {', '.join(plan.aggs)}"
        if mode == "append":
            evict = b["evict_wm"]
            rows += con.execute(
                f"SELECT {b['batch']}, {out} FROM state WHERE se {rules.closed} {evict}").fetchall()
            con.execute(f"DELETE FROM state WHERE se {rules.closed} {evict}")
        elif b is batches[-1] or batches[batches.index(b) + 1]["run"] != b["run"]:
            rows += con.execute(f"SELECT {b['run']}, {out} FROM state").fetchall()
    return rows, dropped


def _dedup_rows(con, plan, batches, rules):
    """dropDuplicates(["id", "t"]) (6.2): a key's first accepted row is emitted, later copies are
    dropped; a key leaves the state once the watermark reaches its time, after which any copy is
    late. dropDuplicatesWithinWatermark(["id"]) (6.3): batch by batch, a key is suppressed from its
    first accepted row until the watermark reaches that row's time plus the delay."""
    con.execute("CREATE TABLE accepted AS SELECT e.* FROM events e JOIN batches b USING (batch) "
                f"WHERE e.t IS NOT NULL AND e.tu {rules.kept} b.late_wm")
    dropped = dict(con.execute(f"""SELECT e.batch, count(*) FROM events e JOIN batches b
        USING (batch) WHERE e.tu {rules.late} b.late_wm GROUP BY e.batch""").fetchall())
    if plan.template == "dedup_event_time":
        rows = con.execute("""
            SELECT DISTINCT a.batch, a.id, a.k, a.k2, a.v, a.t FROM accepted a
            WHERE a.batch = (SELECT min(c.batch) FROM accepted c WHERE c.id = a.id AND c.tu = a.tu)
            """).fetchall()
        return rows, dropped
    con.execute("CREATE TABLE state (id INT, expires BIGINT)")
    rows = []
    for b in batches:
        con.execute(f"""CREATE OR REPLACE TABLE fresh AS SELECT DISTINCT batch, id, k, k2, v, t, tu
            FROM accepted WHERE batch = {b['batch']} AND id NOT IN (SELECT id FROM state)""")
        rows += con.execute("SELECT batch, id, k, k2, v, t FROM fresh").fetchall()
        con.execute(f"INSERT INTO state SELECT id, tu + {plan.delay * US} FROM fresh")
        con.execute(f"DELETE FROM state WHERE expires {rules.expired} {b['evict_wm']}")
    return rows, dropped


def expect(plan, scenario, inputs_dir, mutant=None):
    """What runner.py must record for the scenario: {"runs": [{"batches": [...], "output" or
    "memory": ...}]}; with a mutant (MUTANTS), what a wrong rule would give instead."""
    rules = Rules(mutant)
    mode = TEMPLATES[plan.template][0]
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    batches = _load(con, plan, scenario, inputs_dir, rules)
    if plan.window:
        rows, dropped = _window_rows(con, plan, mode, rules)
    elif plan.gap:
        rows, dropped = _session_rows(con, plan, mode, batches, rules)
    else:
        rows, dropped = _dedup_rows(con, plan, batches, rules)
    con.close()
    runs = []
    for r in range(len(scenario.runs)):
        mine = [b for b in batches if b["run"] == r]
        record = {"batches": [
            {"batchId": b["batch"], "numInputRows": b["rows"],
             "numRowsDroppedByWatermark": 0 if mode == "complete" and plan.window
             else dropped.get(b["batch"], 0),
             "watermark": _iso_ms(b["evict_wm"])} for b in mine]}
        if mode == "complete":
            record["memory"] = {"rows": sorted_rows(row[1:] for row in rows if row[0] == r)}
        else:
            record["output"] = [[b["batch"], sorted_rows(row[1:] for row in rows if row[0] == b["batch"])]
                                for b in mine]
        runs.append(record)
    return {"runs": runs}


def differences(expected, got, engine="Ember"):
    """What an engine's record (runner.py) has that the expectation has not, as text."""
    diffs = []
    if "fatal" in got:
        return [f"{engine}'s process: {got['fatal']}"]
    if len(got["runs"]) != len(expected["runs"]):
        diffs.append(f"{engine} ran {len(got['runs'])} runs, DuckDB expects {len(expected['runs'])}")
    for i, (want, have) in enumerate(zip(expected["runs"], got["runs"])):
        run = f"run {i}"
        if "error" in have:
            diffs.append(f"{run}: {engine} fails: {have['error']['message'][:600]}")
            break
        want_ids = [b["batchId"] for b in want["batches"]]
        have_ids = [b["batchId"] for b in have["batches"]]
        if want_ids != have_ids:
            diffs.append(f"{run} batches: DuckDB expects {want_ids}, {engine} ran {have_ids}")
        else:
            for w, h in zip(want["batches"], have["batches"]):
                for key in ("numInputRows", "numRowsDroppedByWatermark", "watermark"):
                    if w.get(key) is not None and w[key] != h.get(key):
                        diffs.append(f"{run} batch {w['batchId']} {key}: DuckDB {w[key]}, "
                                     f"{engine} {h.get(key)}")
        pairs = []
        if "output" in want:
            got_batches = dict((b, rows) for b, rows in have.get("output", []))
            want_batches = dict((b, rows) for b, rows in want["output"])
            if sorted(got_batches) != sorted(want_batches):
                diffs.append(f"{run} foreachBatch calls: DuckDB expects {sorted(want_batches)}, "
                             f"{engine} made {sorted(got_batches)}")
            pairs = [(f"{run} batch {b} output", want_batches[b], got_batches.get(b, []))
                     for b in sorted(want_batches)]
        if "memory" in want:
            pairs = [(f"{run} memory sink", want["memory"]["rows"],
                      have.get("memory", {}).get("rows", []))]
        for what, w, h in pairs:
            if w != h:
                missing = [r for r in w if r not in h]
                extra = [r for r in h if r not in w]
                diffs.append(f"{what}: DuckDB {len(w)} rows, {engine} {len(h)}; only in DuckDB: "
                             f"{json.dumps(missing[:6])}; only in {engine}: {json.dumps(extra[:6])}")
    return diffs
