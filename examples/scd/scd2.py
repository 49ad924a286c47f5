"""A type 2 slowly changing dimension kept by a streaming query: every version of a customer, with
the time it became true (valid_from), the time it stopped being true (valid_to, NULL while it is
current) and is_current.

Customer changes arrive as JSON files. A streaming query reads them and, in foreachBatch, MERGEs
each micro-batch into the Iceberg table local.crm.customers. The program is plain PySpark; it
runs on Ember (`ember.activate()`) and, unchanged, on Spark with Iceberg's runtime.

Exactly once: Spark re-runs the last micro-batch when the query stopped between the table commit
and the checkpoint commit, so the function must be idempotent. Here the MERGE is: it applies a
change only if it is newer than the customer's current version and differs from it, so applying
a batch a second time changes nothing. (A change older than the current version is ignored too:
this example assumes changes arrive in time order per customer.)

    .venv/bin/python examples/scd/scd2.py
"""

import sys
import tempfile
from pathlib import Path

import ember

ember.activate()

from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

from customer_changes import SCHEMA, make_exports, write_export  # noqa: E402

TABLE = "local.crm.customers"

DDL = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
  customer_id INT, name STRING, city STRING,
  valid_from TIMESTAMP, valid_to TIMESTAMP, is_current BOOLEAN
) USING iceberg
"""

# The classic SCD2 MERGE. Each change appears twice in the source: keyed by its customer, to close
# the current version (or to insert a new customer), and without a key, to be inserted as the new
# current version. `changes` holds at most one change per customer.
MERGE = f"""
MERGE INTO {TABLE} AS t
USING (
  SELECT c.customer_id AS merge_key, c.* FROM changes c
  UNION ALL
  SELECT NULL AS merge_key, c.* FROM changes c
  JOIN {TABLE} d ON d.customer_id = c.customer_id
  WHERE d.is_current AND c.updated_at > d.valid_from
    AND NOT (d.name <=> c.name AND d.city <=> c.city)
) AS s
ON t.customer_id = s.merge_key
WHEN MATCHED AND t.is_current AND s.updated_at > t.valid_from
     AND NOT (t.name <=> s.name AND t.city <=> s.city) THEN
  UPDATE SET is_current = false, valid_to = s.updated_at
WHEN NOT MATCHED THEN
  INSERT (customer_id, name, city, valid_from, valid_to, is_current)
  VALUES (s.customer_id, s.name, s.city, s.updated_at, NULL, true)
"""


def upsert_to_scd2(batch_df, batch_id: int) -> None:
    """Applies a micro-batch of changes in time order: one MERGE per round, each round taking
    every customer's earliest change not yet applied."""
    spark = batch_df.sparkSession
    pending = batch_df.dropDuplicates(["customer_id", "updated_at"])
    rounds = 0
    while not pending.isEmpty():
        earliest = pending.groupBy("customer_id").agg(F.min("updated_at").alias("updated_at"))
        pending.join(earliest, ["customer_id", "updated_at"]).createOrReplaceTempView("changes")
        spark.sql(MERGE)
        pending = pending.join(earliest, ["customer_id", "updated_at"], "left_anti")
        rounds += 1
    print(f"batch {batch_id}: {rounds} MERGE round(s)")


def session(warehouse: str) -> SparkSession:
    return (SparkSession.builder.appName("scd2")
            .config("spark.sql.extensions",
                    "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
            .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
            .config("spark.sql.catalog.local.type", "hadoop")
            .config("spark.sql.catalog.local.warehouse", warehouse)
            .config("spark.sql.session.timeZone", "UTC")
            .getOrCreate())


def run(spark: SparkSession, source: str, checkpoint: str) -> None:
    """Processes the changes that arrived since the last run, one file per micro-batch."""
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.crm")
    spark.sql(DDL)
    query = (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(source)
             .writeStream.foreachBatch(upsert_to_scd2)
             .option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).start())
    query.awaitTermination()


def main() -> None:
    work = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="ember-scd2-"))
    source = work / "changes"
    source.mkdir(parents=True, exist_ok=True)
    spark = session(str(work / "warehouse"))
    exports = make_exports()
    # Exports arrive over time; the job runs after some of them and picks up where it stopped.
    for number, changes in enumerate(exports):
        write_export(source, number, changes)
        if number % 2 == 1:
            run(spark, str(source), str(work / "checkpoint"))
    spark.sql(f"SELECT * FROM {TABLE} ORDER BY customer_id, valid_from").show(50, truncate=False)
    spark.sql(f"SELECT customer_id, name, city FROM {TABLE} WHERE is_current "
              "ORDER BY customer_id").show()
    print(f"Files in {work}")


if __name__ == "__main__":
    main()
