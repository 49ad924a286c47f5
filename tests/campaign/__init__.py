"""The randomized differential streaming campaign: Ember against the real Spark (issue #8).

- generator.py: scenarios from a seed: JSON input files arriving over several runs (out-of-order,
  late and duplicate events, NULL keys and times, empty files, malformed lines, several files per
  run), each run a new query on the same checkpoint with trigger availableNow, once or the default
  (processAllAvailable), `maxFilesPerTrigger`; crossed with query templates (stateless,
  aggregations in complete and update mode, tumbling/sliding/session windows with a watermark,
  the three dedup forms, queries Spark rejects, Iceberg sinks through foreachBatch and toTable).
- runner.py: runs a scenario directory on one engine and records it as JSON (standalone).
- compare.py: what must match between the engines, and the differences (standalone).
- campaign.py: both engines in long-lived processes, classification (pass, documented,
  undocumented, inconclusive), reproductions; `python -m tests.campaign --scenarios 300 --seed 1`.
- test_campaign.py: a fixed subset of 40 scenarios under pytest.
- oracle.py: a second oracle, from outside both engines, for event-time streams (issue #6):
  randomized streams (windows with sizes, slides and start times; session gaps; delays;
  append, update and complete mode; the two watermarked dedups; restarts between runs) whose
  micro-batches and sink rows DuckDB computes from the input files and STREAMING.md's watermark
  rules. test_duckdb_oracle.py runs 24 of them (seed 6) on Ember and on Spark in parallel and
  requires both to equal DuckDB's expectation, batch by batch (Spark skipped without
  pyspark/java or with EMBER_TEST_SPARK=0; EMBER_ORACLE_STREAMS / EMBER_ORACLE_SEED for more);
  wrong variants of each rule (oracle.MUTANTS) must be refuted by Ember's output. Results in
  repros/README.md.
- shrink.py: shrinks a reproduction; minimal.py: the hand-made minimal reproductions of the
  differences found, written to repros/.
"""
