from pyspark.sql import functions as F

SCHEMA = "id INT, k STRING, k2 INT, v DOUBLE, t TIMESTAMP"


def query(spark, source):
    events = spark.readStream.schema(SCHEMA).format("json").load(source)
    return events.select("id").where("v > 0")
