"""Fault stress test, in the style of the kill tests: between runs of an aggregation, a
deduplication and a stream-stream join, one file of the checkpoint at a time is deleted or cut to
a random length. Every run either refuses with an error naming the damaged file, or gives exactly
the right output; after a refusal the file is put back and the run must then succeed. Never a
wrong answer. The oracle is DuckDB over the input files.

Seeded and reproducible: EMBER_FAULTS faults in all (default 200, about 35 s), EMBER_FAULT_SEED
the seed (default 21). A failure prints the seed, the fault
number, the file and what was done to it."""

import json
import os
import random
import shutil

import duckdb
import pytest

from ember.sql import SparkSession

FAULTS = int(os.environ.get("EMBER_FAULTS", "200"))
SEED = int(os.environ.get("EMBER_FAULT_SEED", "21"))
QUERIES = ("count", "dedup", "join")
# Runs on one checkpoint before a new one: past the file source log's first compaction (batch
# 9) and the state's first snapshot (version 10).
RUNS_PER_CHECKPOINT = 14


@pytest.fixture(scope="module")
def spark():
    session = SparkSession.builder.getOrCreate()
    session.conf.set("spark.sql.shuffle.partitions", "2")
    return session


def write_input(directory, run):
    """Run r's file: keys 3r .. 3r+5 (overlapping the last run's), value r."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, f"part-{run:03d}.json"), "w") as out:
        for i in range(6):
            out.write(json.dumps({"k": run * 3 + i, "v": run}) + "\n")


def expected(kind, workdir):
    def view(side):
        return f"read_json('{workdir}/{side}/*.json', columns = {{'k': 'INTEGER', 'v': 'INTEGER'}})"

    sql = {
        "count": f"SELECT k, count(*) FROM {view('a')} GROUP BY k",
        "dedup": f"SELECT DISTINCT k FROM {view('a')}",
        "join": f"SELECT a.k, a.v, b.v FROM {view('a')} a JOIN {view('b')} b ON a.k = b.k",
    }[kind]
    return sorted(tuple(r) for r in duckdb.sql(sql).fetchall())


def run_query(spark, kind, workdir, emitted):
    """One availableNow run; `emitted` (batch id -> rows) takes this run's batches, a batch run
    again replacing its rows as an idempotent sink would. Returns the error raised, or None."""
    a = spark.readStream.schema("k INT, v INT").json(f"{workdir}/a")
    if kind == "count":
        df, mode = a.groupBy("k").count(), "complete"
    elif kind == "dedup":
        df, mode = a.dropDuplicates(["k"]), "append"
    else:
        b = spark.readStream.schema("k INT, v INT").json(f"{workdir}/b").withColumnRenamed("v", "w")
        df, mode = a.join(b, "k"), "append"
    this_run = {}

    def collect(batch, batch_id):
        this_run[batch_id] = [tuple(r) for r in batch.collect()]

    try:
        query = (df.writeStream.foreachBatch(collect).outputMode(mode)
                 .option("checkpointLocation", f"{workdir}/checkpoint")
                 .trigger(availableNow=True).start())
        query.awaitTermination()
    except Exception as e:  # noqa: BLE001 - the error is checked by the caller
        return e
    emitted.update(this_run)
    emitted["last"] = max(this_run) if this_run else None
    return None


def output(kind, emitted):
    batches = {b: rows for b, rows in emitted.items() if b != "last"}
    if kind == "count":
        # Complete mode: the last batch holds every group.
        return sorted(batches[emitted["last"]]) if emitted["last"] is not None else None
    if kind == "dedup":
        return sorted((r[0],) for rows in batches.values() for r in rows)
    return sorted(r for rows in batches.values() for r in rows)


def damage(rng, checkpoint):
    files = sorted(os.path.relpath(os.path.join(d, f), checkpoint)
                   for d, _, names in os.walk(checkpoint) for f in names)
    target = rng.choice(files)
    path = os.path.join(checkpoint, target)
    size = os.path.getsize(path)
    if size == 0 or rng.random() < 0.5:
        os.remove(path)
        return target, "deleted"
    keep = rng.randrange(size)
    with open(path, "r+b") as f:
        f.truncate(keep)
    return target, f"cut to {keep} of {size} bytes"


def test_every_damaged_run_refuses_or_is_right(spark, tmp_path):
    rng = random.Random(SEED)
    faults, refused = 0, 0
    checkpoint_number = 0
    while faults < FAULTS:
        kind = QUERIES[checkpoint_number % len(QUERIES)]
        workdir = str(tmp_path / f"{checkpoint_number}-{kind}")
        checkpoint = os.path.join(workdir, "checkpoint")
        checkpoint_number += 1
        emitted = {}
        # Damage a run did not need to refuse stays: a later run may need the file.
        lingering = []
        for run in range(RUNS_PER_CHECKPOINT):
            if faults >= FAULTS:
                break
            write_input(f"{workdir}/a", run)
            write_input(f"{workdir}/b", run)
            where = f"seed {SEED}, checkpoint {workdir}, run {run}"
            if run > 0:
                backup = checkpoint + ".backup"
                shutil.rmtree(backup, ignore_errors=True)
                shutil.copytree(checkpoint, backup)
                target, what = damage(rng, checkpoint)
                faults += 1
                where += f", fault {faults}: {target} {what}"
                error = run_query(spark, kind, workdir, emitted)
                if error is not None:
                    refused += 1
                    message = str(error)
                    named = [t for t in [target, *lingering] if f"checkpoint/{t}" in message]
                    assert named, f"{where} (earlier: {lingering}): unclear error {message}"
                    shutil.rmtree(checkpoint)
                    shutil.copytree(backup, checkpoint)
                    error = run_query(spark, kind, workdir, emitted)
                else:
                    lingering.append(target)
                assert error is None, f"{where}: {error}"
            else:
                assert run_query(spark, kind, workdir, emitted) is None, where
            assert output(kind, emitted) == expected(kind, workdir), f"{where}: wrong answer"
    print(f"{faults} faults over {checkpoint_number} checkpoints: {refused} refused, "
          f"{faults - refused} recovered exactly")
