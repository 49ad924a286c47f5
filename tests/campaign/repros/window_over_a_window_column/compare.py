"""Compares what two engines did in one scenario (runner.py's JSON): the differences as text.

All inputs of a run are in the source directory before the run's query starts and every file has
its own modification time, so both engines must make the same micro-batches (Spark's
FileStreamSource takes files in modification-time order, `maxFilesPerTrigger` at a time except
under Trigger.Once). Hence everything below must match exactly, batch by batch: which batches ran
(including no-data batches), `numInputRows`, `stateOperators[0].numRowsDroppedByWatermark`,
`eventTime.watermark`, the rows each foreachBatch call received (as multisets), the memory sink's
table and the Iceberg table after each run.

    python compare.py SPARK_JSON EMBER_JSON
"""

import json
import sys


def _error_key(error):
    return error.get("condition") or error.get("type")


def _rows_diff(what, want, got):
    if want == got:
        return []
    missing = list(want)
    extra = []
    for row in got:
        if row in missing:
            missing.remove(row)
        else:
            extra.append(row)
    return [f"{what}: Spark has {len(want)} rows, Ember {len(got)}; "
            f"only in Spark: {json.dumps(missing[:8])}{' ...' if len(missing) > 8 else ''}; "
            f"only in Ember: {json.dumps(extra[:8])}{' ...' if len(extra) > 8 else ''}"]


def _table_diff(what, want, got):
    if "error" in want or "error" in got:
        if _error_key(want.get("error") or {}) == _error_key(got.get("error") or {}):
            return []
        return [f"{what}: Spark {json.dumps(want.get('error'))[:300]}, "
                f"Ember {json.dumps(got.get('error'))[:300]}"]
    out = []
    if want["columns"] != got["columns"]:
        out.append(f"{what} columns: Spark {want['columns']}, Ember {got['columns']}")
    return out + _rows_diff(what, want["rows"], got["rows"])


def compare(spark, ember):
    """The differences between Spark's result and Ember's, [] if none."""
    if "fatal" in spark or "fatal" in ember:
        if "fatal" in ember and "fatal" not in spark:
            return [f"Ember's process: {ember['fatal']}"]
        if "fatal" in spark and "fatal" not in ember:
            return [f"Spark's process: {spark['fatal']}"]
        return [f"Spark's process: {spark['fatal']}; Ember's process: {ember['fatal']}"]
    diffs = []
    for i, (want, got) in enumerate(zip(spark["runs"], ember["runs"])):
        run = f"run {i}"
        if "error" in want or "error" in got:
            if "error" in want and "error" in got:
                if _error_key(want["error"]) != _error_key(got["error"]):
                    diffs.append(f"{run}: Spark fails with {_error_key(want['error'])}, "
                                 f"Ember with {_error_key(got['error'])}: "
                                 f"{got['error']['message'][:400]}")
            elif "error" in got:
                diffs.append(f"{run}: Ember fails, Spark does not: {got['error']['type']} "
                             f"{got['error']['message'][:600]}")
            else:
                diffs.append(f"{run}: Spark fails, Ember does not: {want['error']['type']} "
                             f"{want['error']['message'][:600]}")
            return diffs
        if want["schema"] != got["schema"]:
            diffs.append(f"{run} schema: Spark {want['schema']}, Ember {got['schema']}")
        want_ids = [b["batchId"] for b in want["batches"]]
        got_ids = [b["batchId"] for b in got["batches"]]
        if want_ids != got_ids:
            diffs.append(f"{run} batches: Spark ran {want_ids}, Ember ran {got_ids}")
        else:
            for w, g in zip(want["batches"], got["batches"]):
                for key in ("numInputRows", "numRowsDroppedByWatermark", "watermark", "missing"):
                    if w.get(key) != g.get(key):
                        diffs.append(f"{run} batch {w['batchId']} {key}: Spark {w.get(key)}, "
                                     f"Ember {g.get(key)}")
        if "output" in want:
            w_batches = dict((b, rows) for b, rows in want["output"])
            g_batches = dict((b, rows) for b, rows in got["output"])
            if sorted(w_batches) != sorted(g_batches):
                diffs.append(f"{run} foreachBatch calls: Spark {sorted(w_batches)}, "
                             f"Ember {sorted(g_batches)}")
                diffs += _rows_diff(f"{run} all foreachBatch rows",
                                    sorted((r for rows in w_batches.values() for r in rows), key=json.dumps),
                                    sorted((r for rows in g_batches.values() for r in rows), key=json.dumps))
            else:
                for b in sorted(w_batches):
                    diffs += _rows_diff(f"{run} batch {b} output", w_batches[b], g_batches[b])
        if "memory" in want:
            diffs += _table_diff(f"{run} memory sink", want["memory"], got["memory"])
        if "table" in want:
            diffs += _table_diff(f"{run} Iceberg table", want["table"], got["table"])
    if len(spark["runs"]) != len(ember["runs"]):
        diffs.append(f"Spark ran {len(spark['runs'])} runs, Ember {len(ember['runs'])}")
    return diffs


if __name__ == "__main__":
    with open(sys.argv[1]) as a, open(sys.argv[2]) as b:
        found = compare(json.load(a), json.load(b))
    print("\n".join(found) if found else "no difference")
    sys.exit(1 if found else 0)
