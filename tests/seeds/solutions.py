"""The seeds' solution code, exactly as their hints give it (imports from pyspark)."""

from pyspark.sql.functions import col, window

SCHEMA_10 = "event_id INT, company_id STRING, amount DOUBLE, event_ts STRING"
SCHEMA_11 = "event_id INT, company_id STRING, amount DOUBLE, event_ts TIMESTAMP"


def run_batch(spark, source_dir, table, checkpoint):
    """SPK-10 / 01: exactly-once file stream into Iceberg across restarts."""
    q = (spark.readStream.schema(SCHEMA_10).format("json").load(source_dir)
         .writeStream.outputMode("append")
         .option("checkpointLocation", checkpoint)
         .trigger(availableNow=True)
         .toTable(table))
    q.processAllAvailable()
    q.stop()


def run_counts(spark, source_dir, query_name, output_mode="complete"):
    """SPK-10 / 02: a running per-company count in the memory sink."""
    counts = (spark.readStream.schema(SCHEMA_10).format("json").load(source_dir)
              .groupBy("company_id").count().withColumnRenamed("count", "n"))
    q = (counts.writeStream.format("memory").queryName(query_name)
         .outputMode(output_mode).trigger(availableNow=True).start())
    q.processAllAvailable()
    q.stop()
    return q


def windowed_counts(spark, source_dir, table, checkpoint):
    """SPK-11 / 01: 5-minute windows per company with a 10-minute watermark, appended."""
    q = (spark.readStream.schema(SCHEMA_11).format("json").load(source_dir)
         .withWatermark("event_ts", "10 minutes")
         .groupBy(window("event_ts", "5 minutes"), "company_id").count()
         .select("company_id", col("window.start").alias("w_start"), col("count").alias("n"))
         .writeStream.outputMode("append")
         .option("checkpointLocation", checkpoint)
         .trigger(availableNow=True)
         .toTable(table))
    q.processAllAvailable()
    q.stop()
