"""Minimal reproductions of the differences the campaign found, one hand-made scenario per
difference, in the campaign's format. Each expectation is Spark's behaviour per
../shared/STREAMING.md; repro.py in each directory shows Spark's and Ember's results side by side.

    python -m tests.campaign.minimal [OUT_DIR]     (default tests/campaign/repros)
"""

import json
import os
import sys

from .campaign import write_repro
from .generator import MTIME0, SCHEMA, Scenario


def event(i, k, v, t):
    return json.dumps({"id": i, "k": k, "k2": 1, "v": v, "t": t})


def scenario(name, body, mode, sink, runs, create_table=False):
    """runs: [(trigger, wait, [(file name, [lines])])]"""
    s = Scenario(name=name, template="minimal", output_mode=mode, sink=sink,
                 create_table=create_table,
                 query="\n".join(["from pyspark.sql import functions as F", "",
                                  f'SCHEMA = "{SCHEMA}"', "", "",
                                  "def query(spark, source):", *body, ""]))
    arrival = 0
    for trigger, wait, files in runs:
        run = {"trigger": trigger, "wait": wait, "files": []}
        for file_name, lines in files:
            run["files"].append({"name": file_name, "mtime": MTIME0 + 10 * arrival})
            s.files[file_name] = "".join(line + "\n" for line in lines)
            arrival += 1
        s.runs.append(run)
    return s


READ = '    events = spark.readStream.schema(SCHEMA).format("json").load(source)'
READ_1 = ('    events = spark.readStream.schema(SCHEMA).format("json")'
          '.option("maxFilesPerTrigger", 1).load(source)')
TWO_FILES = [("a.json", [event(1, "a", 1.0, "2024-05-01 10:00:00")]),
             ("b.json", [event(2, "b", 2.0, "2024-05-01 10:01:00")])]

MINIMAL = [
    # awaitTermination() without a timeout: PySpark waits for the end of the query (availableNow
    # ends by itself); Ember raises TypeError from its binding.
    scenario("await_termination_without_timeout", [READ, '    return events.select("id")'],
             "append", "foreach_batch", [("availableNow", "awaitTermination", TWO_FILES[:1])]),
    # Trigger.Once ignores read limits (STREAMING.md 2.6): one batch of both files.
    scenario("once_ignores_max_files_per_trigger", [READ_1, '    return events.select("id")'],
             "append", "foreach_batch", [("once", "processAllAvailable", TWO_FILES)]),
    # eventTime is in the progress only if the query has withWatermark (2.8).
    scenario("no_watermark_no_event_time_in_progress", [READ, '    return events.select("id")'],
             "append", "foreach_batch", [("availableNow", "processAllAvailable", TWO_FILES[:1])]),
    # window() drops rows without a time before the aggregation (4.2): they are not rows
    # dropped by the watermark.
    scenario("null_event_time_is_not_dropped_by_watermark",
             [READ, '    return events.withWatermark("t", "5 minutes")'
                    '.groupBy(F.window("t", "5 minutes")).count()'],
             "append", "foreach_batch",
             [("availableNow", "processAllAvailable",
               [("a.json", [event(1, "a", 1.0, "2024-05-01 10:00:00"), event(2, "a", 1.0, None)])])]),
    # Lateness is judged per group after the partial aggregation (3.6): two late rows of one
    # window are one dropped row for Spark.
    scenario("late_rows_counted_per_group",
             [READ, '    return events.withWatermark("t", "5 minutes")'
                    '.groupBy(F.window("t", "5 minutes")).count()'],
             "append", "foreach_batch",
             [("availableNow", "processAllAvailable",
               [("a.json", [event(1, "a", 1.0, "2024-05-01 10:30:00")])]),
              ("availableNow", "processAllAvailable",
               [("b.json", [event(2, "a", 1.0, "2024-05-01 10:00:00"),
                            event(3, "a", 1.0, "2024-05-01 10:01:00")])])]),
    # A windowed aggregation in update mode (3.6, 5.3).
    scenario("window_aggregation_in_update_mode",
             [READ, '    return events.withWatermark("t", "5 minutes")'
                    '.groupBy(F.window("t", "5 minutes")).count()'],
             "update", "foreach_batch", [("availableNow", "processAllAvailable", TWO_FILES)]),
    # Distinct aggregates are rejected on streams (5.2).
    scenario("distinct_aggregate_rejected",
             [READ, '    return events.groupBy("k").agg(F.countDistinct("v"))'],
             "update", "foreach_batch", [("availableNow", "processAllAvailable", TWO_FILES[:1])]),
    # Complete mode without an aggregation: Spark 4.0.1 raises
    # STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION (STREAMING.md 5.2 says _LEGACY_ERROR_TEMP_3102).
    scenario("complete_mode_without_aggregation_condition", [READ, '    return events.select("id")'],
             "complete", "foreach_batch", [("availableNow", "processAllAvailable", TWO_FILES[:1])]),
    # A stateful operator after an update-mode aggregation is rejected by the global-watermark
    # correctness check (5.2).
    scenario("stateful_after_update_aggregation_rejected",
             [READ, '    return events.withWatermark("t", "5 minutes")'
                    '.groupBy(F.window("t", "5 minutes")).count().groupBy("count").count()'],
             "update", "foreach_batch", [("availableNow", "processAllAvailable", TWO_FILES[:1])]),
    # A filter on a column the preceding projection dropped: Spark's analyzer resolves it from
    # the projection's input (not streaming-specific).
    scenario("filter_on_a_column_projected_away",
             [READ, '    return events.select("id").where("v > 0")'],
             "append", "foreach_batch", [("availableNow", "processAllAvailable", TWO_FILES[:1])]),
    # A window over the window column of another aggregation: chained windows (4.1, 5.2).
    scenario("window_over_a_window_column",
             [READ, '    counts = events.withWatermark("t", "5 minutes")'
                    '.groupBy(F.window("t", "5 minutes")).count()',
              '    return counts.groupBy(F.window("window", "10 minutes")).agg(F.sum("count"))'],
             "append", "foreach_batch",
             [("availableNow", "processAllAvailable",
               [("a.json", [event(1, "a", 1.0, "2024-05-01 10:00:00"),
                            event(2, "a", 1.0, "2024-05-01 10:30:00")])])]),
    # A right outer join of a stream with a static DataFrame is rejected (9.1).
    scenario("stream_static_right_outer_join_rejected",
             [READ, '    static = spark.createDataFrame([("a", 1)], "k STRING, x INT")',
              '    return events.join(static, "k", "right")'],
             "append", "foreach_batch", [("availableNow", "processAllAvailable", TWO_FILES[:1])]),
    # toTable creates the table when it does not exist (7.6).
    scenario("to_table_creates_the_table", [READ, '    return events.select("id", "k")'],
             "append", "table", [("availableNow", "processAllAvailable", TWO_FILES[:1])]),
]


def main(out):
    for s in MINIMAL:
        write_repro(s, os.path.join(out, s.name))
        print(os.path.join(out, s.name))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "repros"))
