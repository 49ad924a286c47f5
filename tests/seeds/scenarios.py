"""Each seed's test, step by step as the seed describes it, with its DuckDB oracle. Run as
`python scenarios.py NAME WORKDIR ENGINE` in a process of its own. With ENGINE `ember` it
activates Ember, so `pyspark` in the solutions resolves to Ember; with `spark` the very same code
runs on the real Spark with Iceberg's runtime, which shows the tests are faithful to Spark."""

import json
import os
import sys

import duckdb

ENGINE = sys.argv[3] if len(sys.argv) > 3 else "ember"
if ENGINE == "ember":
    import ember

    ember.activate()

from pyspark.errors import AnalysisException  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import solutions  # noqa: E402

ICEBERG_JAR = os.path.expanduser(
    "~/.m2/repository/org/apache/iceberg/iceberg-spark-runtime-4.0_2.13/1.10.0/"
    "iceberg-spark-runtime-4.0_2.13-1.10.0.jar")


def session(warehouse):
    builder = (SparkSession.builder.appName("seeds")
               .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
               .config("spark.sql.catalog.local.type", "hadoop")
               .config("spark.sql.catalog.local.warehouse", warehouse)
               .config("spark.sql.session.timeZone", "UTC"))
    if ENGINE == "spark":
        builder = (builder.master("local[2]")
                   .config("spark.jars", ICEBERG_JAR)
                   .config("spark.sql.extensions",
                           "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
                   .config("spark.ui.enabled", "false")
                   .config("spark.sql.shuffle.partitions", "2"))
    return builder.getOrCreate()


def write_json(directory, name, rows):
    with open(os.path.join(directory, name), "w") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")


def events(first, count, companies=("acme", "globex", "initech")):
    return [{"event_id": i, "company_id": companies[i % len(companies)], "amount": round(i * 1.25, 2),
             "event_ts": f"2024-05-01 09:{i % 60:02d}:00"} for i in range(first, first + count)]


def json_glob(directory):
    return f"read_json('{directory}/*.json', columns = {{'event_id': 'INTEGER', " \
           "'company_id': 'VARCHAR', 'amount': 'DOUBLE', 'event_ts': 'VARCHAR'})"


def spk10_01(work):
    source, checkpoint = os.path.join(work, "source"), os.path.join(work, "checkpoint")
    os.makedirs(source)
    spark = session(os.path.join(work, "warehouse"))
    table = "local.stream.events"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.stream")
    spark.sql(f"CREATE TABLE {table} (event_id INT, company_id STRING, amount DOUBLE, "
              "event_ts STRING) USING iceberg")
    write_json(source, "batch-000.json", events(0, 50))
    write_json(source, "batch-001.json", events(50, 50))
    solutions.run_batch(spark, source, table, checkpoint)
    assert spark.table(table).count() == 100
    write_json(source, "batch-002.json", events(100, 30))
    solutions.run_batch(spark, source, table, checkpoint)
    solutions.run_batch(spark, source, table, checkpoint)
    got = sorted(tuple(r) for r in spark.sql(
        f"SELECT event_id, company_id, amount, event_ts FROM {table}").collect())
    want = sorted(duckdb.sql(f"SELECT * FROM {json_glob(source)}").fetchall())
    assert len(got) == len(set(got)), "duplicates in the table"
    assert got == want, "the table differs from DuckDB over all the JSON files"


def spk10_02(work):
    source = os.path.join(work, "source")
    os.makedirs(source)
    spark = session(os.path.join(work, "warehouse"))
    for b in range(4):
        write_json(source, f"batch-{b:03d}.json", events(b * 25, 25 + b))
    query = solutions.run_counts(spark, source, "company_counts")
    assert not query.isActive
    got = sorted(tuple(r) for r in spark.sql("SELECT company_id, n FROM company_counts").collect())
    want = sorted(duckdb.sql(
        f"SELECT company_id, count(*) FROM {json_glob(source)} GROUP BY company_id").fetchall())
    assert got == want, (got, want)
    try:
        solutions.run_counts(spark, source, "company_counts_append", output_mode="append")
    except AnalysisException as error:
        assert error.getCondition() == "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION", str(error)
    else:
        raise AssertionError("append on a streaming aggregation must be rejected")


def spk11_01(work):
    source, checkpoint = os.path.join(work, "source"), os.path.join(work, "checkpoint")
    os.makedirs(source)
    spark = session(os.path.join(work, "warehouse"))
    table = "local.stream.window_counts"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.stream")
    spark.sql(f"CREATE TABLE {table} (company_id STRING, w_start TIMESTAMP, n BIGINT) USING iceberg")

    def event(i, company, ts):
        return {"event_id": i, "company_id": company, "amount": 1.0, "event_ts": ts}

    # 1. Events of an early window.
    early = [event(1, "acme", "2024-05-01T10:00:10"), event(2, "acme", "2024-05-01T10:01:00"),
             event(3, "globex", "2024-05-01T10:02:30"), event(4, "acme", "2024-05-01T10:04:59")]
    write_json(source, "run-1.json", early)
    solutions.windowed_counts(spark, source, table, checkpoint)
    # 2. A far-future event moves the watermark past the early window and finalizes it.
    write_json(source, "run-2.json", [event(5, "acme", "2024-05-01T11:00:00")])
    solutions.windowed_counts(spark, source, table, checkpoint)
    # 3. A late event for the finalized window: dropped.
    write_json(source, "run-3.json", [event(6, "acme", "2024-05-01T10:03:00")])
    solutions.windowed_counts(spark, source, table, checkpoint)

    got = sorted((r.company_id, r.w_start, r.n) for r in spark.table(table).collect())
    duck = duckdb.connect()
    duck.execute("SET TimeZone = 'UTC'")
    # The oracle: counts per 5-minute window over the non-late events, for the windows the
    # watermark finalized (ends at or before 11:00 - 10 minutes).
    non_late = [e for e in early] + [event(5, "acme", "2024-05-01T11:00:00")]
    write_json(work, "non_late.json", non_late)
    want = duck.execute(f"""
        SELECT company_id, time_bucket(INTERVAL 5 MINUTE, event_ts::TIMESTAMP) AS w_start, count(*)
        FROM read_json('{work}/non_late.json', columns = {{'event_id': 'INTEGER',
             'company_id': 'VARCHAR', 'amount': 'DOUBLE', 'event_ts': 'VARCHAR'}})
        GROUP BY 1, 2
        HAVING w_start + INTERVAL 5 MINUTE <= TIMESTAMP '2024-05-01 10:50:00'
        ORDER BY 1, 2""").fetchall()
    want = sorted((c, w, n) for c, w, n in want)
    assert got == want, (got, want)
    assert len(got) == len({(c, w) for c, w, _ in got}), "a window was emitted twice"


if __name__ == "__main__":
    name, work = sys.argv[1], sys.argv[2]
    globals()[name](work)
    print(f"{name} on {ENGINE}: ok")
