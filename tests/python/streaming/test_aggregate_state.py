"""Streaming aggregation state over many micro-batches: every aggregate function whose buffers are
combined into the stored groups batch by batch, in update and complete mode, across restarts, a
re-run batch and watermark eviction. Oracle: DuckDB over the files each batch has read."""

import json
import os
import random
from datetime import datetime, timedelta

import duckdb
import pytest

from ember.sql import SparkSession
from ember.sql import functions as F

SCHEMA = "seq INT, k STRING, i INT, l BIGINT, d DOUBLE, s STRING, ts TIMESTAMP"
DUCK_COLUMNS = ("{'seq': 'INTEGER', 'k': 'VARCHAR', 'i': 'INTEGER', 'l': 'BIGINT', 'd': 'DOUBLE', "
                "'s': 'VARCHAR', 'ts': 'TIMESTAMP'}")
T0 = datetime(2024, 1, 1, 10, 0, 0)


@pytest.fixture(scope="module")
def spark():
    session = SparkSession.builder.getOrCreate()
    session.conf.set("spark.sql.session.timeZone", "UTC")
    session.conf.set("spark.sql.shuffle.partitions", "3")
    yield session
    session.conf.unset("spark.sql.shuffle.partitions")


def maybe(rng, value, nulls=0.15):
    return None if rng.random() < nulls else value


def write_files(source, first_file, files, rows_per_file, keys, seed=1, minutes_per_file=0):
    """One file per micro-batch (in modification-time order). Keys recur from batch to batch and
    new ones keep coming; every buffer column has NULLs."""
    rng = random.Random(seed + first_file)
    for f in range(first_file, first_file + files):
        path = os.path.join(source, f"f{f:03d}.json")
        with open(path, "w") as out:
            for r in range(rows_per_file):
                seq = f * 1_000_000 + r
                key = None if rng.random() < 0.03 else f"k{rng.randrange(keys + f * 3):04d}"
                at = T0 + timedelta(minutes=f * minutes_per_file, seconds=rng.randrange(50))
                out.write(json.dumps({
                    "seq": seq, "k": key, "i": maybe(rng, rng.randrange(-1000, 1000)),
                    "l": maybe(rng, rng.randrange(0, 60) * 1_000_003),
                    "d": maybe(rng, rng.randrange(-500, 500) / 8),
                    "s": maybe(rng, rng.choice(["", "a", "b", "ab", "é", "zz", "B"]) + str(r % 7)),
                    "ts": maybe(rng, at.strftime("%Y-%m-%dT%H:%M:%SZ"), 0.1)}) + "\n")
        os.utime(path, (1_700_000_000 + f, 1_700_000_000 + f))


def files_in(source):
    return sorted(os.path.join(source, n) for n in os.listdir(source) if n.endswith(".json"))


AGGREGATES = [
    (F.count("*"), "count(*)"), (F.count("d"), "count(d)"), (F.sum("i"), "sum(i)"),
    (F.sum("l"), "sum(l)"), (F.sum("d"), "sum(d)"), (F.min("i"), "min(i)"), (F.max("l"), "max(l)"),
    (F.min("d"), "min(d)"), (F.max("d"), "max(d)"), (F.min("s"), "min(s)"), (F.max("s"), "max(s)"),
    (F.min("ts"), "min(ts)"), (F.max("ts"), "max(ts)"), (F.avg("d"), "avg(d)"),
    (F.first("s"), "first(s ORDER BY seq)"), (F.last("i"), "last(i ORDER BY seq)"),
    (F.approx_count_distinct("l"), "count(DISTINCT l)"),
]
DOUBLES = {5, 8, 9, 14}  # columns compared approximately (sums in another order)
SKETCH = 17


def aggregated(spark, source, aggregates=AGGREGATES):
    df = (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(source))
          .groupBy("k").agg(*[a.alias(f"a{n}") for n, (a, _) in enumerate(aggregates)]))
    return df


def duck_groups(paths, aggregates=AGGREGATES):
    view = f"read_json({paths!r}, columns = {DUCK_COLUMNS})"
    sql = f"SELECT k, {', '.join(d for _, d in aggregates)} FROM {view} GROUP BY k"
    return {r[0]: tuple(r) for r in duckdb.sql(sql).fetchall()}


def assert_rows_match(got_rows, want):
    got = {r[0]: tuple(r) for r in got_rows}
    assert len(got) == len(got_rows), "a group emitted twice in one batch"
    assert sorted(got, key=str) == sorted(want, key=str)
    for key, g in got.items():
        w = want[key]
        for c, (x, y) in enumerate(zip(g, w)):
            if c in DOUBLES and x is not None and y is not None:
                assert x == pytest.approx(y), (key, c)
            elif c == SKETCH:
                # HyperLogLog++ is all but exact at these cardinalities; a lost sketch half is not.
                assert abs(x - y) <= max(1, 0.05 * y), (key, x, y)
            else:
                assert x == y, (key, c, x, y)


def run_batches(spark, source, checkpoint, mode, aggregates=AGGREGATES):
    """Runs the stream over the files not yet read; returns the rows of each batch by id."""
    batches = {}

    def keep(df, batch_id):
        batches[batch_id] = [tuple(r) for r in df.collect()]

    query = (aggregated(spark, source, aggregates).writeStream.foreachBatch(keep).outputMode(mode)
             .option("checkpointLocation", str(checkpoint)).trigger(availableNow=True).start())
    query.processAllAvailable()
    query.stop()
    return batches


def keys_of(path):
    with open(path) as f:
        return {json.loads(line)["k"] for line in f}


def check_batches(batches, paths, mode, first_batch=0, aggregates=AGGREGATES):
    for b, rows in sorted(batches.items()):
        want = duck_groups(paths[:b + 1], aggregates)
        if mode == "update":  # the groups the batch touched, with their values so far
            touched = keys_of(paths[b])
            want = {k: v for k, v in want.items() if k in touched}
        assert_rows_match(rows, want)
    assert sorted(batches) == list(range(first_batch, len(paths)))


@pytest.mark.parametrize("mode", ["update", "complete"])
def test_every_aggregate_combines_across_many_batches(spark, tmp_path, mode):
    source, checkpoint = tmp_path / "in", tmp_path / "cp"
    source.mkdir()
    write_files(source, 0, 8, 120, keys=40)
    batches = run_batches(spark, source, checkpoint, mode)
    check_batches(batches, files_in(source), mode)
    # The sketches merged batch by batch estimate what one sketch over all the rows does.
    whole = (spark.read.schema(SCHEMA).json(str(source)).groupBy("k")
             .agg(F.approx_count_distinct("l").alias("e")).collect())
    if mode == "complete":
        final = {r[0]: r[SKETCH] for r in batches[max(batches)]}
        assert final == {r[0]: r[1] for r in whole}


@pytest.mark.parametrize("mode", ["update", "complete"])
def test_batches_of_mostly_distinct_keys_merge_their_rows_ungrouped(spark, tmp_path, mode):
    """Batches with more groups than half their rows are merged into the state row by row
    (without grouping each batch first) from the next batch on; a batch of few keys turns
    grouping back on. Every aggregate but the sketch, whose buffer is not one row's value."""
    source, checkpoint = tmp_path / "in", tmp_path / "cp"
    source.mkdir()
    write_files(source, 0, 3, 12_000, keys=20_000, seed=5)  # ~9,000 groups a batch, many recur
    write_files(source, 3, 1, 12_000, keys=40, seed=5)      # few keys: grouping pays again
    write_files(source, 4, 2, 12_000, keys=20_000, seed=5)
    aggregates = [a for a in AGGREGATES if "DISTINCT" not in a[1]]
    batches = run_batches(spark, source, checkpoint, mode, aggregates)
    check_batches(batches, files_in(source), mode, aggregates=aggregates)


def test_a_batch_larger_than_a_slice_combines_its_slices_in_order(spark, tmp_path):
    """A file of 270,000 rows in one batch: the aggregation takes them in slices of 131,072 rows,
    each aggregated apart and then combined, so first() and last() must see the slices in order.
    (One file: within a batch of several, rows come in Spark's file packing order.)"""
    source, checkpoint = tmp_path / "in", tmp_path / "cp"
    source.mkdir()
    write_files(source, 0, 1, 270_000, keys=500, seed=11)
    query = (aggregated(spark, source).writeStream.format("memory").queryName("sliced")
             .outputMode("complete").option("checkpointLocation", str(checkpoint))
             .trigger(availableNow=True).start())
    query.processAllAvailable()
    query.stop()
    assert [p["numInputRows"] for p in query.recentProgress] == [270_000]
    got = [tuple(r) for r in spark.sql("SELECT * FROM sliced").collect()]
    # Merged sketches are the sketch of all the rows; 500 estimates are not all within 5%.
    whole = {r[0]: r[1] for r in spark.read.schema(SCHEMA).json(str(source)).groupBy("k")
             .agg(F.approx_count_distinct("l")).collect()}
    assert {r[0]: r[SKETCH] for r in got} == whole
    want = duck_groups(files_in(source))
    assert_rows_match([r[:SKETCH] for r in got], {k: v[:SKETCH] for k, v in want.items()})


@pytest.mark.parametrize("mode", ["update", "complete"])
def test_restart_and_a_rerun_batch_continue_from_the_stored_state(spark, tmp_path, mode):
    """Two runs of six batches; before the second, the first run's last commit is lost, so its
    batch runs again from the state version it first saw (loaded from disk, not from an index
    of the state after it). Twelve versions also make each partition write a snapshot (after
    more than minDeltasForSnapshot, 10, deltas: at version 11)."""
    source, checkpoint = tmp_path / "in", tmp_path / "cp"
    source.mkdir()
    write_files(source, 0, 6, 60, keys=25, seed=7)
    check_batches(run_batches(spark, source, checkpoint, mode), files_in(source), mode)
    os.remove(checkpoint / "commits" / "5")
    write_files(source, 6, 6, 60, keys=25, seed=7)
    batches = run_batches(spark, source, checkpoint, mode)
    check_batches(batches, files_in(source), mode, first_batch=5)
    assert list((checkpoint / "state" / "0").glob("*/11.snapshot"))


def windowed(spark, source, mode, out, checkpoint):
    counts = (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(source))
              .withWatermark("ts", "30 seconds")
              .groupBy(F.window("ts", "1 minute"), "k")
              .agg(F.count("*").alias("n"), F.sum("i").alias("si"), F.max("s").alias("ms"),
                   F.last("d").alias("ld")))
    return (counts.writeStream.foreachBatch(lambda df, b: out.extend(tuple(r) for r in df.collect()))
            .outputMode(mode).option("checkpointLocation", str(checkpoint))
            .trigger(availableNow=True).start())


@pytest.mark.parametrize("mode", ["append", "update"])
def test_evicted_windows_leave_the_state_and_later_ones_still_combine(spark, tmp_path, mode):
    """A minute of event time per batch: each batch closes the windows before it. With 200 keys,
    the removed groups soon outnumber the live ones, so the key index is rebuilt on the way."""
    source, checkpoint = tmp_path / "in", tmp_path / "cp"
    source.mkdir()
    write_files(source, 0, 12, 300, keys=200, seed=3, minutes_per_file=1)
    out = []
    query = windowed(spark, source, mode, out, checkpoint)
    query.processAllAvailable()
    progress = query.recentProgress
    query.stop()
    paths = files_in(source)
    view = f"read_json({paths!r}, columns = {DUCK_COLUMNS})"
    want = duckdb.sql(
        f"SELECT time_bucket(INTERVAL 1 MINUTE, ts) AS w, k, count(*), sum(i), max(s), "
        f"last(d ORDER BY seq), max(max(ts)) OVER () AS wm FROM {view} WHERE ts IS NOT NULL "
        f"GROUP BY w, k").fetchall()
    watermark = want[0][6] - timedelta(seconds=30)
    final = {}
    for window, k, *values in out:
        final[(window["start"], k)] = tuple(values)  # update mode: the last emission wins
    closed = {(w, k): (n, si, ms, ld) for w, k, n, si, ms, ld, _ in want
              if w + timedelta(minutes=1) <= watermark}
    if mode == "append":
        assert len(out) == len(final) == len(closed)  # each closed window once
        assert final == closed
    else:
        assert final == {(w, k): (n, si, ms, ld) for w, k, n, si, ms, ld, _ in want}
    removed = sum(p["stateOperators"][0]["numRowsRemoved"] for p in progress)
    assert removed == len(closed)
    assert progress[-1]["stateOperators"][0]["numRowsTotal"] == len(want) - len(closed)
