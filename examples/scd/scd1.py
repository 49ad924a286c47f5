"""A type 1 slowly changing dimension: one row per customer, overwritten in place by each change,
so the table shows only the latest state (compare scd2.py, which keeps every version).

The same JSON changes feed a streaming query whose foreachBatch MERGEs the micro-batch into the
Iceberg table local.crm.customers_latest. The MERGE is idempotent (a change older than or as old
as the stored one is ignored), so a re-run batch changes nothing.

    .venv/bin/python examples/scd/scd1.py
"""

import sys
import tempfile
from pathlib import Path

import ember

ember.activate()

from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

from customer_changes import SCHEMA, make_exports, write_export  # noqa: E402

TABLE = "local.crm.customers_latest"

DDL = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
  customer_id INT, name STRING, city STRING, updated_at TIMESTAMP
) USING iceberg
"""

MERGE = f"""
MERGE INTO {TABLE} AS t
USING latest AS s
ON t.customer_id = s.customer_id
WHEN MATCHED AND s.updated_at > t.updated_at THEN UPDATE SET *
WHEN NOT MATCHED THEN INSERT *
"""


def upsert_latest(batch_df, batch_id: int) -> None:
    """Keeps each customer's latest change of the batch, then MERGEs: a target row may match only
    one source row (Spark's MERGE_CARDINALITY_VIOLATION otherwise)."""
    newest = batch_df.groupBy("customer_id").agg(F.max("updated_at").alias("updated_at"))
    (batch_df.join(newest, ["customer_id", "updated_at"])
     .dropDuplicates(["customer_id"])
     .select("customer_id", "name", "city", "updated_at")
     .createOrReplaceTempView("latest"))
    batch_df.sparkSession.sql(MERGE)
    print(f"batch {batch_id}: merged")


def session(warehouse: str) -> SparkSession:
    return (SparkSession.builder.appName("scd1")
            .config("spark.sql.extensions",
                    "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
            .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
            .config("spark.sql.catalog.local.type", "hadoop")
            .config("spark.sql.catalog.local.warehouse", warehouse)
            .config("spark.sql.session.timeZone", "UTC")
            .getOrCreate())


def run(spark: SparkSession, source: str, checkpoint: str) -> None:
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.crm")
    spark.sql(DDL)
    query = (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(source)
             .writeStream.foreachBatch(upsert_latest)
             .option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).start())
    query.awaitTermination()


def main() -> None:
    work = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="ember-scd1-"))
    source = work / "changes"
    source.mkdir(parents=True, exist_ok=True)
    spark = session(str(work / "warehouse"))
    for number, changes in enumerate(make_exports()):
        write_export(source, number, changes)
        if number % 2 == 1:
            run(spark, str(source), str(work / "checkpoint"))
    spark.sql(f"SELECT * FROM {TABLE} ORDER BY customer_id").show(truncate=False)
    print(f"Files in {work}")


if __name__ == "__main__":
    main()
