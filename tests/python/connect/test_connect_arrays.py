"""Arrays and generators through the real PySpark Connect client: functions arrive by name
(split, explode, posexplode_outer, size, ...), arrays come back as Arrow lists. Checked against
DuckDB on the same lines and against Spark's own output (recorded from Spark 4.0.1)."""

import duckdb
from pyspark.sql import Row
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, IntegerType, StringType, StructField, StructType

LINES = ["apache spark is fast", "spark streaming  word count", "", "ember runs spark programs"]


def test_word_count_against_duckdb(spark):
    lines = spark.createDataFrame([(line,) for line in LINES], "value STRING")
    words = lines.select(F.explode(F.split(lines.value, " ")).alias("word"))
    counts = sorted(tuple(r) for r in words.groupBy("word").count().collect())
    con = duckdb.connect()
    con.execute("CREATE TABLE lines(value VARCHAR)")
    con.executemany("INSERT INTO lines VALUES (?)", [(line,) for line in LINES])
    expected = sorted(con.execute(
        "SELECT word, count(*) FROM (SELECT unnest(string_split(value, ' ')) AS word FROM lines) "
        "GROUP BY word").fetchall())
    assert counts == expected
    lines.createOrReplaceTempView("lines")
    sql = spark.sql("SELECT word, count(*) AS n FROM (SELECT explode(split(value, ' ')) AS word "
                    "FROM lines) GROUP BY word")
    assert sorted(tuple(r) for r in sql.collect()) == expected


def test_generators_and_schemas_are_sparks(spark, capsys):
    df = spark.createDataFrame([(1, ["a", None]), (2, None), (3, [])], "id INT, a ARRAY<STRING>")
    assert df.schema == StructType([StructField("id", IntegerType()),
                                    StructField("a", ArrayType(StringType(), True))])
    out = df.select("id", F.posexplode_outer("a"), F.size("a")).orderBy("id", "pos")
    assert out.columns == ["id", "pos", "col", "size(a)"]
    assert out.collect() == [Row(id=1, pos=0, col="a", **{"size(a)": 2}),
                             Row(id=1, pos=1, col=None, **{"size(a)": 2}),
                             Row(id=2, pos=None, col=None, **{"size(a)": None}),
                             Row(id=3, pos=None, col=None, **{"size(a)": 0})]
    df.orderBy("id").show()
    assert capsys.readouterr().out == (
        "+---+---------+\n"
        "| id|        a|\n"
        "+---+---------+\n"
        "|  1|[a, NULL]|\n"
        "|  2|     NULL|\n"
        "|  3|       []|\n"
        "+---+---------+\n"
        "\n"
    )
