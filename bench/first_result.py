"""Time from a fresh process to its first query result, on Ember or on Spark.

    python bench/first_result.py ember|spark

The same PySpark program runs on both: create a session, build a small DataFrame, aggregate it and
collect. Time it as a whole process, e.g. with `/usr/bin/time -v` or hyperfine.
"""

import sys

if sys.argv[1:] == ["ember"]:
    import ember

    ember.activate()

from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

spark = (
    SparkSession.builder.master("local[2]")
    .config("spark.ui.enabled", "false")
    .config("spark.sql.shuffle.partitions", "2")
    .getOrCreate()
)
df = spark.createDataFrame([(i % 7, float(i)) for i in range(1000)], "k INT, v DOUBLE")
rows = df.groupBy("k").agg(F.sum("v").alias("total")).orderBy("k").collect()
assert len(rows) == 7
spark.stop()
