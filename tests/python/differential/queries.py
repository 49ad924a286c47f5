"""The differential queries: each one a PySpark program and the same question asked of DuckDB.

A query is a function ``q_name(spark, F)`` that uses only the PySpark API (``spark`` is a
SparkSession of pyspark or of Ember, ``F`` its functions module) and returns a DataFrame, or a list
of tuples when it calls an action such as ``count()``. The decorator pairs it with DuckDB SQL over
the same files. Tables, registered once per engine as temporary views:

- ``events``      the main table, read from Parquet (columns in ``data.EVENTS_DDL``)
- ``events_json`` the same rows, read from JSON lines
- ``dim``         the small join table, read from JSON lines (``data.DIM_DDL``)

``ordered=True`` means the query fixes a total order, so rows are compared in order; otherwise
they are compared as multisets. ``tz`` is the session time zone (``spark.sql.session.timeZone``
for the engine, ``TimeZone`` for DuckDB).

DuckDB differs from Spark in a few places; the SQL spells out Spark's meaning each time:
ASC NULLS FIRST and DESC NULLS LAST are written explicitly, CAST(double AS INT) truncates
(DuckDB rounds), dayofweek counts from 1 = Sunday, and the macros below cover time zones.
"""

from dataclasses import dataclass
from typing import Callable

NEW_YORK = "America/New_York"

# DuckDB macros, created once per DuckDB connection.
DUCKDB_MACROS = [
    # A wall-clock time read in the session zone. In a DST overlap Spark (java.time) takes the
    # earlier instant where DuckDB takes the later one; in a gap both move forward by the gap.
    # Assumes one-hour DST shifts, true for America/New_York.
    """CREATE MACRO spark_local_ts(w) AS CASE
         WHEN ((w - INTERVAL 1 HOUR)::TIMESTAMPTZ + INTERVAL 1 HOUR)::TIMESTAMP = w
         THEN (w - INTERVAL 1 HOUR)::TIMESTAMPTZ + INTERVAL 1 HOUR
         ELSE w::TIMESTAMPTZ END""",
    # date_trunc('hour', ts). DuckDB truncates 01:30 EDT in the overlap to 01:00 EST (after the
    # input); Spark gives 01:00 EDT. New York's offsets are whole hours, so truncate in UTC.
    "CREATE MACRO spark_trunc_hour(t) AS to_timestamp(floor(epoch(t) / 3600) * 3600)",
    # CAST(timestamp AS STRING): seconds, then the fraction without trailing zeros.
    """CREATE MACRO spark_ts_string(t) AS
         strftime(t, '%Y-%m-%d %H:%M:%S') || rtrim(rtrim(strftime(t, '.%f'), '0'), '.')""",
    # Start of the tumbling window of `size` seconds holding t; windows align to the epoch in UTC.
    """CREATE MACRO spark_window_start(t, size) AS to_timestamp(
         (epoch_us(t) - ((epoch_us(t) % (size::BIGINT * 1000000)) + size::BIGINT * 1000000)
                        % (size::BIGINT * 1000000)) // 1000000)""",
    # The struct window() returns. An interval in seconds is added as elapsed time, not on the
    # local calendar, so windows keep their length across DST changes.
    "CREATE MACRO spark_window(start, size) AS {'start': start, 'end': start + to_seconds(size)}",
]


@dataclass(frozen=True)
class Query:
    name: str
    build: Callable  # (spark, F) -> DataFrame or list of tuples
    duckdb: str
    ordered: bool = False
    tz: str = "UTC"


QUERIES: list[Query] = []


def query(duckdb: str, ordered: bool = False, tz: str = "UTC"):
    """Registers the decorated PySpark program with its DuckDB twin."""

    def register(build):
        QUERIES.append(Query(build.__name__, build, duckdb, ordered, tz))
        return build

    return register


# ---------------------------------------------------------------------------------------------
# Projection and arithmetic


@query(
    """SELECT id, i + s, l - i, i * b, i / 4, d / NULLIF(s, 0), i % 7, -d, f::DOUBLE * 2
       FROM events WHERE id < 2000 ORDER BY id""",
    ordered=True,
)
def q_projection_arithmetic(spark, F):
    """+ - * / % over int, long, short, byte; `/` gives a double; float * int gives a double."""
    e = spark.table("events")
    return (
        e.where(F.col("id") < 2000)
        .select(
            "id",
            (F.col("i") + F.col("s")).alias("i_plus_s"),
            (F.col("l") - F.col("i")).alias("l_minus_i"),
            (F.col("i") * F.col("b")).alias("i_times_b"),
            (F.col("i") / 4).alias("i_div_4"),
            (F.col("d") / F.when(F.col("s") != 0, F.col("s"))).alias("d_div_s"),
            (F.col("i") % 7).alias("i_mod_7"),
            (-F.col("d")).alias("neg_d"),
            (F.col("f") * 2).alias("f_times_2"),
        )
        .orderBy("id")
    )


@query(
    """SELECT id, b + s, dec * 3, dec + 1.5, dec / 4, i * 1.5, abs(i),
              round(d::DECIMAL(18,3), 2)::DOUBLE, f::DOUBLE + d
       FROM events WHERE id < 2000 ORDER BY id""",
    ordered=True,
)
def q_numeric_types(spark, F):
    """Type widening of byte + short, decimal arithmetic, abs, Spark's HALF_UP round of doubles."""
    e = spark.table("events")
    return (
        e.where("id < 2000")
        .select(
            "id",
            (F.col("b") + F.col("s")).alias("b_plus_s"),
            (F.col("dec") * 3).alias("dec_times_3"),
            (F.col("dec") + F.lit(1.5).cast("decimal(2,1)")).alias("dec_plus"),
            (F.col("dec") / 4).alias("dec_div_4"),
            F.expr("i * 1.5").alias("i_times_dec"),
            F.abs("i").alias("abs_i"),
            F.round("d", 2).alias("round_d"),
            (F.col("f") + F.col("d")).alias("f_plus_d"),
        )
        .orderBy("id")
    )


@query(
    """SELECT id, CAST(floor(d) AS BIGINT), CAST(ceil(d) AS BIGINT), CAST(floor(f) AS BIGINT),
              CAST(floor(i) AS BIGINT), ceil(dec)::DECIMAL(11,0), floor(dec)::DECIMAL(11,0)
       FROM events WHERE id < 2000 ORDER BY id""",
    ordered=True,
)
def q_floor_ceil(spark, F):
    """floor and ceil: bigints from doubles, floats and ints, decimal(p - s + 1, 0) from decimals."""
    e = spark.table("events")
    return (
        e.where("id < 2000")
        .select("id", F.floor("d"), F.ceil("d"), F.floor("f"), F.floor("i"), F.ceil("dec"),
                F.floor("dec"))
        .orderBy("id")
    )


@query(
    """SELECT id, i * 2 AS twice_i, upper(cat) AS up_cat, d > 500 AS big,
              coalesce(name, 'none') AS name_or_none, CAST(i AS BIGINT) + l AS total
       FROM events WHERE id < 2000 ORDER BY id""",
    ordered=True,
)
def q_select_expr(spark, F):
    """selectExpr with SQL expressions and aliases."""
    return (
        spark.table("events")
        .where("id < 2000")
        .selectExpr(
            "id",
            "i * 2 AS twice_i",
            "upper(cat) AS up_cat",
            "d > 500 AS big",
            "coalesce(name, 'none') AS name_or_none",
            "CAST(i AS BIGINT) + l AS total",
        )
        .orderBy("id")
    )


@query(
    """SELECT id, i + 1 AS i, cat AS category, d, i * 2 AS doubled, 'x' AS tag
       FROM events WHERE id % 50 = 3"""
)
def q_with_column_rename_drop(spark, F):
    """withColumn (new and replacing), withColumnRenamed, drop; the new column reads the old i."""
    return (
        spark.table("events")
        .where(F.col("id") % 50 == 3)
        .select("id", "i", "cat", "name", "d")
        .withColumn("doubled", F.col("i") * 2)
        .withColumn("i", F.col("i") + 1)
        .withColumnRenamed("cat", "category")
        .withColumn("tag", F.lit("x"))
        .drop("name")
    )


# ---------------------------------------------------------------------------------------------
# Filters


@query(
    """SELECT id, i, cat, flag, d FROM events
       WHERE (i > 100 AND cat = 'b') OR (flag IS NULL AND d < 0)"""
)
def q_filter_column(spark, F):
    """Column predicates with &, |, isNull; a null predicate drops the row."""
    e = spark.table("events")
    wanted = (F.col("i") > 100) & (F.col("cat") == "b")
    odd = F.col("flag").isNull() & (F.col("d") < 0)
    return e.where(wanted | odd).select("id", "i", "cat", "flag", "d")


@query(
    """SELECT id, i, flag, name FROM events
       WHERE i BETWEEN -10 AND 10 AND NOT flag AND name IS NOT NULL"""
)
def q_filter_sql_string(spark, F):
    """filter() with a SQL string, chained with a Column filter."""
    return (
        spark.table("events")
        .filter("i BETWEEN -10 AND 10 AND NOT flag")
        .filter(F.col("name").isNotNull())
        .select("id", "i", "flag", "name")
    )


@query(
    """SELECT id, k, dt, cat, cat IN ('a', 'b') AS ab, name IN ('alpha', 'café') AS named
       FROM events
       WHERE k IN (1, 5, 7, 59) AND dt BETWEEN DATE '1950-01-01' AND DATE '1960-12-31'
         AND NOT (cat IN ('c', 'd'))"""
)
def q_isin_between(spark, F):
    """isin (true, false and null results), between on dates, negated isin."""
    e = spark.table("events")
    return e.where(
        F.col("k").isin(1, 5, 7, 59)
        & F.col("dt").between(F.lit("1950-01-01").cast("date"), F.lit("1960-12-31").cast("date"))
        & ~F.col("cat").isin("c", "d")
    ).select(
        "id", "k", "dt", "cat",
        F.col("cat").isin("a", "b").alias("ab"),
        F.col("name").isin("alpha", "café").alias("named"),
    )


@query(
    r"""SELECT id, name, name LIKE '%ana%', name LIKE 'a_b%', name LIKE '100\%%' ESCAPE '\',
              starts_with(name, 'ban'), suffix(name, '5'), contains(name, 'é')
        FROM events WHERE id < 3000 ORDER BY id""",
    ordered=True,
)
def q_like(spark, F):
    """like with % and _ wildcards and an escaped %, startswith, endswith, contains."""
    return (
        spark.table("events")
        .where("id < 3000")
        .select(
            "id", "name",
            F.col("name").like("%ana%").alias("has_ana"),
            F.col("name").like("a_b%").alias("a_any_b"),
            F.col("name").like("100\\%%").alias("percent"),
            F.col("name").startswith("ban").alias("starts"),
            F.col("name").endswith("5").alias("ends"),
            F.col("name").contains("é").alias("accent"),
        )
        .orderBy("id")
    )


# ---------------------------------------------------------------------------------------------
# Nulls and CASE


@query(
    """SELECT id, i IS NULL, name IS NOT NULL, coalesce(i, s, 0),
              CASE WHEN i IS NULL THEN 'missing' WHEN i < 0 THEN 'negative' ELSE 'positive' END,
              CASE WHEN flag THEN d END
       FROM events WHERE id < 2000 ORDER BY id""",
    ordered=True,
)
def q_null_functions(spark, F):
    """isNull, isNotNull, coalesce over int and short, when/otherwise, when without otherwise."""
    return (
        spark.table("events")
        .where("id < 2000")
        .select(
            "id",
            F.col("i").isNull().alias("i_null"),
            F.col("name").isNotNull().alias("has_name"),
            F.coalesce("i", "s", F.lit(0)).alias("first_value"),
            F.when(F.col("i").isNull(), "missing")
            .when(F.col("i") < 0, "negative")
            .otherwise("positive")
            .alias("sign"),
            F.when(F.col("flag"), F.col("d")).alias("d_if_flag"),
        )
        .orderBy("id")
    )


@query(
    """SELECT cat,
              CASE WHEN d IS NULL THEN 'none' WHEN d < 100 THEN 'low'
                   WHEN d < 500 THEN 'mid' ELSE 'high' END AS band,
              count(*) AS n
       FROM events GROUP BY 1, 2"""
)
def q_case_sql(spark, F):
    """SQL CASE WHEN, GROUP BY ordinals."""
    return spark.sql(
        """SELECT cat,
                  CASE WHEN d IS NULL THEN 'none' WHEN d < 100 THEN 'low'
                       WHEN d < 500 THEN 'mid' ELSE 'high' END AS band,
                  count(*) AS n
           FROM events GROUP BY 1, 2"""
    )


@query(
    """SELECT cat, count(*), count(i), count(name), sum(CASE WHEN flag THEN 1 ELSE 0 END)
       FROM events GROUP BY cat"""
)
def q_null_aware_counts(spark, F):
    """count(*) counts rows, count(col) counts non-null values; the null key is a group."""
    return spark.table("events").groupBy("cat").agg(
        F.count("*"), F.count("i"), F.count("name"),
        F.sum(F.when(F.col("flag"), 1).otherwise(0)).alias("flags"),
    )


# ---------------------------------------------------------------------------------------------
# Casts


@query(
    """SELECT id, CAST(i AS VARCHAR), CAST(trunc(d) AS INTEGER), CAST(trunc(d) AS BIGINT),
              CAST(flag AS INTEGER), CAST(dec AS DOUBLE), CAST(i AS DECIMAL(10,2)),
              CAST(f AS DOUBLE), CAST(ts AS DATE), CAST(dt AS TIMESTAMPTZ),
              CAST(CAST(i AS VARCHAR) AS INTEGER), CAST(b AS SMALLINT), CAST(dt AS VARCHAR),
              CAST(l AS DOUBLE), CAST(day_text AS DATE)
       FROM events WHERE id < 2000 ORDER BY id""",
    ordered=True,
)
def q_cast(spark, F):
    """Casts between numbers, strings, booleans, decimals, dates, timestamps (UTC session)."""
    c = F.col
    return (
        spark.table("events")
        .where("id < 2000")
        .select(
            "id",
            c("i").cast("string").alias("i_str"),
            c("d").cast("int").alias("d_int"),  # truncates toward zero
            c("d").cast("bigint").alias("d_long"),
            c("flag").cast("int").alias("flag_int"),
            c("dec").cast("double").alias("dec_double"),
            c("i").cast("decimal(10,2)").alias("i_dec"),
            c("f").cast("double").alias("f_double"),
            c("ts").cast("date").alias("ts_date"),
            c("dt").cast("timestamp").alias("dt_ts"),
            c("i").cast("string").cast("int").alias("round_trip"),
            c("b").cast("smallint").alias("b_short"),
            c("dt").cast("string").alias("dt_str"),
            c("l").cast("double").alias("l_double"),
            c("day_text").cast("date").alias("day"),
        )
        .orderBy("id")
    )


@query(
    """SELECT id, CAST(ts AS DATE), CAST(dt AS TIMESTAMPTZ), spark_ts_string(ts),
              spark_local_ts(tsn), CAST(ts AS TIMESTAMP)
       FROM events WHERE id < 3000 ORDER BY id""",
    ordered=True,
    tz=NEW_YORK,
)
def q_cast_time_zone(spark, F):
    """Casts that depend on the session zone: to date, to string, between timestamp kinds."""
    c = F.col
    return (
        spark.table("events")
        .where("id < 3000")
        .select(
            "id",
            c("ts").cast("date").alias("local_date"),
            c("dt").cast("timestamp").alias("local_midnight"),
            c("ts").cast("string").alias("ts_str"),
            c("tsn").cast("timestamp").alias("ntz_as_ts"),  # gap: forward; overlap: earlier
            c("ts").cast("timestamp_ntz").alias("ts_as_ntz"),  # the local wall clock
        )
        .orderBy("id")
    )


# ---------------------------------------------------------------------------------------------
# Strings


@query(
    """SELECT id, name || '-' || cat, upper(name), lower(name), length(name),
              substring(name, 2, 3), concat_ws('|', name, cat), trim(name)
       FROM events WHERE id < 3000 ORDER BY id""",
    ordered=True,
)
def q_string_functions(spark, F):
    """concat (null if any input is null), upper, lower, length in characters, substring,
    concat_ws (skips nulls), trim; the data has accents, CJK and empty strings."""
    return (
        spark.table("events")
        .where("id < 3000")
        .select(
            "id",
            F.concat("name", F.lit("-"), "cat").alias("joined"),
            F.upper("name").alias("up"),
            F.lower("name").alias("low"),
            F.length("name").alias("len"),
            F.substring("name", 2, 3).alias("sub"),
            F.concat_ws("|", "name", "cat").alias("with_sep"),
            F.trim("name").alias("trimmed"),
        )
        .orderBy("id")
    )


@query(
    """SELECT cat, upper(substring(name, 1, 2)) AS prefix, count(*) AS n,
              max(length(name)) AS longest, min(name) AS first_name
       FROM events WHERE name IS NOT NULL
       GROUP BY cat, upper(substring(name, 1, 2))"""
)
def q_string_sql(spark, F):
    """String functions in SQL, grouping by an expression, min of strings (byte order)."""
    return spark.sql(
        """SELECT cat, upper(substring(name, 1, 2)) AS prefix, count(*) AS n,
                  max(length(name)) AS longest, min(name) AS first_name
           FROM events WHERE name IS NOT NULL
           GROUP BY cat, upper(substring(name, 1, 2))"""
    )


# ---------------------------------------------------------------------------------------------
# Dates and times


DATE_PARTS_SQL = """
    SELECT id, year(ts), month(ts), day(ts), hour(ts), minute(ts), second(ts), CAST(ts AS DATE),
           year(dt), month(dt), day(dt), dayofweek(dt) + 1, hour(tsn), day(tsn)
    FROM events WHERE id < 3000 ORDER BY id"""


def _date_parts(spark, F):
    return (
        spark.table("events")
        .where("id < 3000")
        .select(
            "id",
            F.year("ts"), F.month("ts"), F.dayofmonth("ts"), F.hour("ts"), F.minute("ts"),
            F.second("ts"), F.to_date("ts"),
            F.year("dt"), F.month("dt"), F.dayofmonth("dt"), F.dayofweek("dt"),
            F.hour("tsn"), F.dayofmonth("tsn"),
        )
        .orderBy("id")
    )


@query(DATE_PARTS_SQL, ordered=True)
def q_date_parts_utc(spark, F):
    """year, month, dayofmonth, hour, minute, second, to_date, dayofweek (1 = Sunday) in UTC."""
    return _date_parts(spark, F)


@query(DATE_PARTS_SQL, ordered=True, tz=NEW_YORK)
def q_date_parts_new_york(spark, F):
    """The same in New York: timestamps move to local time (DST and pre-1970 rows), dates and
    timestamp_ntz values do not move."""
    return _date_parts(spark, F)


@query(
    """SELECT id, CAST(day_text AS DATE), CAST(substring(ts_text, 1, 10) AS DATE),
              spark_local_ts(CAST(ts_text AS TIMESTAMP)),
              spark_local_ts(strptime(ts_text, '%Y-%m-%d %H:%M:%S')),
              CAST(day_text AS DATE)
       FROM events WHERE id < 3000 ORDER BY id""",
    ordered=True,
    tz=NEW_YORK,
)
def q_parse_dates_new_york(spark, F):
    """to_date and to_timestamp of strings, with and without a format; wall times inside the
    DST gap move forward, inside the overlap they take the earlier (daylight) offset."""
    return (
        spark.table("events")
        .where("id < 3000")
        .select(
            "id",
            F.to_date("day_text").alias("day"),
            F.to_date("ts_text").alias("day_of_ts"),
            F.to_timestamp("ts_text").alias("ts1"),
            F.to_timestamp("ts_text", "yyyy-MM-dd HH:mm:ss").alias("ts2"),
            F.to_date("day_text", "yyyy-MM-dd").alias("day2"),
        )
        .orderBy("id")
    )


@query(
    """SELECT id, strftime(to_timestamp(epoch), '%Y-%m-%d %H:%M:%S'),
              strftime(to_timestamp(epoch), '%Y-%m-%d %H:%M'),
              CAST(epoch(spark_local_ts(strptime(ts_text, '%Y-%m-%d %H:%M:%S'))) AS BIGINT),
              epoch_us(ts) // 1000000,
              CAST(epoch(CAST(dt AS TIMESTAMPTZ)) AS BIGINT)
       FROM events WHERE id < 3000 ORDER BY id""",
    ordered=True,
    tz=NEW_YORK,
)
def q_unix_time_new_york(spark, F):
    """from_unixtime (formats in the session zone), unix_timestamp of strings, timestamps
    (truncated toward zero, also before 1970) and dates (local midnight)."""
    return (
        spark.table("events")
        .where("id < 3000")
        .select(
            "id",
            F.from_unixtime("epoch").alias("text"),
            F.from_unixtime("epoch", "yyyy-MM-dd HH:mm").alias("minutes"),
            F.unix_timestamp("ts_text", "yyyy-MM-dd HH:mm:ss").alias("parsed"),
            F.unix_timestamp("ts").alias("ts_seconds"),
            F.unix_timestamp("dt").alias("dt_seconds"),
        )
        .orderBy("id")
    )


@query(
    """SELECT id, date_trunc('year', ts), date_trunc('month', ts), date_trunc('week', ts),
              date_trunc('day', ts), spark_trunc_hour(ts)
       FROM events WHERE id < 3000 ORDER BY id""",
    ordered=True,
    tz=NEW_YORK,
)
def q_date_trunc_new_york(spark, F):
    """date_trunc to year, month, week (Monday), day and hour in the session zone."""
    return (
        spark.table("events")
        .where("id < 3000")
        .select(
            "id",
            F.date_trunc("year", "ts").alias("y"),
            F.date_trunc("month", "ts").alias("m"),
            F.date_trunc("week", "ts").alias("w"),
            F.date_trunc("day", "ts").alias("d"),
            F.date_trunc("hour", "ts").alias("h"),
        )
        .orderBy("id")
    )


@query(
    """SELECT date_trunc('month', ts) AS month, count(*) AS n, sum(i) AS total
       FROM events GROUP BY 1"""
)
def q_group_by_month_utc(spark, F):
    """Grouping by a truncated timestamp in UTC, including the null group."""
    return (
        spark.table("events")
        .groupBy(F.date_trunc("month", "ts").alias("month"))
        .agg(F.count("*").alias("n"), F.sum("i").alias("total"))
    )


@query(
    """SELECT spark_trunc_hour(ts) AS hour, hour(ts) AS local_hour, count(*) AS n
       FROM events
       WHERE CAST(ts AS DATE) IN (DATE '2021-03-14', DATE '2021-11-07')
       GROUP BY 1, 2""",
    tz=NEW_YORK,
)
def q_group_by_local_hour_new_york(spark, F):
    """Counts per hour on both local DST-change days: the 23-hour day has no 02:00, the 25-hour
    day has 01:00 twice (two groups with the same local hour)."""
    return (
        spark.table("events")
        .where("to_date(ts) IN (DATE '2021-03-14', DATE '2021-11-07')")
        .groupBy(F.date_trunc("hour", "ts").alias("hour"), F.hour("ts").alias("local_hour"))
        .agg(F.count("*").alias("n"))
    )


@query(
    """SELECT id, hour(tsn), day(tsn), CAST(tsn AS DATE), spark_ts_string(tsn),
              spark_trunc_hour(spark_local_ts(tsn)),
              CAST(CAST(tsn AS DATE) AS TIMESTAMP)
       FROM events WHERE id < 3000 ORDER BY id""",
    ordered=True,
    tz=NEW_YORK,
)
def q_timestamp_ntz_new_york(spark, F):
    """timestamp_ntz ignores the session zone, except date_trunc: it converts its argument to
    a (zoned) timestamp first, so wall times in the DST gap move forward an hour."""
    return (
        spark.table("events")
        .where("id < 3000")
        .select(
            "id",
            F.hour("tsn").alias("h"),
            F.dayofmonth("tsn").alias("d"),
            F.to_date("tsn").alias("day"),
            F.col("tsn").cast("string").alias("text"),
            F.date_trunc("hour", "tsn").alias("hour_start"),
            F.col("tsn").cast("date").cast("timestamp_ntz").alias("day_start"),
        )
        .orderBy("id")
    )


@query(
    """SELECT id, dt + 30, dt - 400, datediff('day', DATE '2000-01-01', dt),
              CAST(dt + INTERVAL 1 MONTH AS DATE), last_day(dt)
       FROM events WHERE id < 3000 ORDER BY id""",
    ordered=True,
)
def q_date_arithmetic(spark, F):
    """date_add, date_sub, datediff, add_months (clamped to the month's end), last_day."""
    return (
        spark.table("events")
        .where("id < 3000")
        .select(
            "id",
            F.date_add("dt", 30).alias("plus_30"),
            F.date_sub("dt", 400).alias("minus_400"),
            F.datediff("dt", F.lit("2000-01-01").cast("date")).alias("since_2000"),
            F.add_months("dt", 1).alias("next_month"),
            F.last_day("dt").alias("month_end"),
        )
        .orderBy("id")
    )


# ---------------------------------------------------------------------------------------------
# The batch window() function


@query(
    """SELECT spark_window(spark_window_start(ts, 3600), 3600) AS window,
              count(*) AS n, sum(i) AS total
       FROM events
       WHERE ts >= TIMESTAMPTZ '2021-03-13 00:00:00Z' AND ts < TIMESTAMPTZ '2021-03-16 00:00:00Z'
       GROUP BY 1""",
    tz=NEW_YORK,
)
def q_window_tumbling(spark, F):
    """groupBy(window(ts, '1 hour')) around the spring DST change; windows align to UTC."""
    e = spark.table("events").where(
        "ts >= TIMESTAMP '2021-03-13 00:00:00Z' AND ts < TIMESTAMP '2021-03-16 00:00:00Z'"
    )
    return e.groupBy(F.window("ts", "1 hour")).agg(
        F.count("*").alias("n"), F.sum("i").alias("total")
    )


@query(
    """SELECT spark_window(spark_window_start(ts, 2592000), 2592000) AS window,
              count(*) AS n
       FROM events WHERE ts IS NOT NULL GROUP BY 1""",
    tz=NEW_YORK,
)
def q_window_all_rows(spark, F):
    """30-day windows over every row: before 1970 the start rounds down; null times vanish."""
    return spark.table("events").groupBy(F.window("ts", "30 days")).agg(F.count("*").alias("n"))


@query(
    """WITH starts AS (
         SELECT spark_window_start(ts, 1800) - to_seconds(1800 * r.n) AS start
         FROM events, range(0, 4) AS r(n)
         WHERE ts >= TIMESTAMPTZ '2021-11-07 00:00:00Z' AND ts < TIMESTAMPTZ '2021-11-08 00:00:00Z')
       SELECT spark_window(start, 7200) AS window, count(*) AS n
       FROM starts GROUP BY 1""",
    tz=NEW_YORK,
)
def q_window_sliding(spark, F):
    """Sliding windows: 2 hours every 30 minutes, each row in four windows."""
    e = spark.table("events").where(
        "ts >= TIMESTAMP '2021-11-07 00:00:00Z' AND ts < TIMESTAMP '2021-11-08 00:00:00Z'"
    )
    return e.groupBy(F.window("ts", "2 hours", "30 minutes")).agg(F.count("*").alias("n"))


# ---------------------------------------------------------------------------------------------
# Aggregation


@query(
    """SELECT cat, count(*), count(i), sum(i), sum(l), avg(d), min(name), max(name), min(dt),
              max(ts), sum(dec), round(avg(dec), 6), count(DISTINCT b), min(f), max(f), sum(s),
              avg(b)
       FROM events GROUP BY cat"""
)
def q_group_by_aggregates(spark, F):
    """count, sum, avg, min, max, countDistinct per group over every type."""
    return spark.table("events").groupBy("cat").agg(
        F.count("*"), F.count("i"), F.sum("i"), F.sum("l"), F.avg("d"), F.min("name"),
        F.max("name"), F.min("dt"), F.max("ts"), F.sum("dec"), F.avg("dec"),
        F.countDistinct("b"), F.min("f"), F.max("f"), F.sum("s"), F.avg("b"),
    )


@query(
    """SELECT cat, flag, sum(b), min(f), max(f), min(ts), max(dt), avg(i), max(dec), min(tsn),
              sum(f), max(flag)
       FROM events GROUP BY cat, flag"""
)
def q_group_by_two_keys(spark, F):
    """Two grouping keys with nulls; sum of a float gives a double."""
    return spark.table("events").groupBy("cat", "flag").agg(
        F.sum("b"), F.min("f"), F.max("f"), F.min("ts"), F.max("dt"), F.avg("i"),
        F.max("dec"), F.min("tsn"), F.sum("f"), F.max("flag"),
    )


@query(
    """SELECT k, count(*) AS n, avg(d) AS avg_d FROM events GROUP BY k
       HAVING avg(d) > 472 ORDER BY k NULLS FIRST""",
    ordered=True,
)
def q_having_api(spark, F):
    """A filter after agg (having), ordered by a key with a null group first."""
    return (
        spark.table("events")
        .groupBy("k")
        .agg(F.count("*").alias("n"), F.avg("d").alias("avg_d"))
        .where(F.col("avg_d") > 472)
        .orderBy("k")
    )


@query(
    """SELECT cat, flag, count(*) AS n, sum(i) AS total FROM events
       GROUP BY cat, flag HAVING count(*) > 1000 AND sum(i) > 0
       ORDER BY cat NULLS FIRST, flag NULLS FIRST""",
    ordered=True,
)
def q_having_sql(spark, F):
    """SQL HAVING and ORDER BY: ASC puts nulls first."""
    return spark.sql(
        """SELECT cat, flag, count(*) AS n, sum(i) AS total FROM events
           GROUP BY cat, flag HAVING count(*) > 1000 AND sum(i) > 0
           ORDER BY cat, flag"""
    )


@query(
    """SELECT count(*), count(dec), sum(l), avg(f), min(i), max(i), min(s), max(b), min(d),
              max(d), min(name), max(name), min(flag), max(flag), min(dt), max(dt), min(ts),
              max(ts), min(tsn), max(tsn), min(dec), max(dec), sum(dec), count(DISTINCT name)
       FROM events"""
)
def q_global_aggregates(spark, F):
    """Aggregates without grouping: one row; min and max of every type, including booleans."""
    return spark.table("events").agg(
        F.count("*"), F.count("dec"), F.sum("l"), F.avg("f"), F.min("i"), F.max("i"),
        F.min("s"), F.max("b"), F.min("d"), F.max("d"), F.min("name"), F.max("name"),
        F.min("flag"), F.max("flag"), F.min("dt"), F.max("dt"), F.min("ts"), F.max("ts"),
        F.min("tsn"), F.max("tsn"), F.min("dec"), F.max("dec"), F.sum("dec"),
        F.countDistinct("name"),
    )


@query(
    """SELECT (SELECT count(*) FROM events),
              (SELECT count(*) FROM events WHERE i > 0 AND cat = 'a'),
              (SELECT count(DISTINCT cat) + count(DISTINCT CASE WHEN cat IS NULL THEN 1 END)
               FROM events),
              (SELECT count(*) FROM dim)"""
)
def q_count_action(spark, F):
    """The count() action: whole table, after a filter, after distinct (null counts), dim."""
    e = spark.table("events")
    return [(
        e.count(),
        e.where((F.col("i") > 0) & (F.col("cat") == "a")).count(),
        e.select("cat").distinct().count(),
        spark.table("dim").count(),
    )]


@query(
    """SELECT k, count(DISTINCT cat), count(DISTINCT cat || ':' || CAST(flag AS VARCHAR)),
              count(DISTINCT dt)
       FROM events GROUP BY k"""
)
def q_count_distinct(spark, F):
    """countDistinct of one and of two columns (rows with any null are not counted)."""
    return spark.table("events").groupBy("k").agg(
        F.countDistinct("cat"), F.countDistinct("cat", "flag"), F.countDistinct("dt"),
    )


# ---------------------------------------------------------------------------------------------
# Ordering and limit


@query(
    "SELECT id, i, name FROM events WHERE id < 500 ORDER BY i NULLS FIRST, id",
    ordered=True,
)
def q_order_asc_nulls_first(spark, F):
    """orderBy ascending puts nulls first."""
    return spark.table("events").where("id < 500").select("id", "i", "name").orderBy("i", "id")


@query(
    "SELECT id, name, dt FROM events WHERE id < 500 ORDER BY name DESC NULLS LAST, id",
    ordered=True,
)
def q_order_desc_nulls_last(spark, F):
    """orderBy descending puts nulls last; strings order by their UTF-8 bytes."""
    return (
        spark.table("events")
        .where("id < 500")
        .orderBy(F.col("name").desc(), F.col("id"))
        .select("id", "name", "dt")
    )


@query(
    """SELECT id, d, f, ts FROM events WHERE id < 400
       ORDER BY f DESC NULLS FIRST, ts ASC NULLS LAST, id""",
    ordered=True,
)
def q_order_explicit_nulls(spark, F):
    """desc_nulls_first and asc_nulls_last."""
    return (
        spark.table("events")
        .where("id < 400")
        .select("id", "d", "f", "ts")
        .orderBy(F.col("f").desc_nulls_first(), F.col("ts").asc_nulls_last(), "id")
    )


@query(
    """SELECT id, dec, ts FROM events ORDER BY dec DESC NULLS LAST, id LIMIT 20""",
    ordered=True,
)
def q_order_limit_desc(spark, F):
    """limit after a descending orderBy over the whole table."""
    return (
        spark.table("events")
        .orderBy(F.desc("dec"), "id")
        .limit(20)
        .select("id", "dec", "ts")
    )


@query(
    """SELECT id, dt, cat FROM events ORDER BY dt NULLS FIRST, cat DESC NULLS LAST, id DESC
       LIMIT 30""",
    ordered=True,
)
def q_order_limit_nulls(spark, F):
    """limit after an ascending orderBy: the rows with null dates come first."""
    return (
        spark.table("events")
        .select("id", "dt", "cat")
        .orderBy(F.asc("dt"), F.desc("cat"), F.desc("id"))
        .limit(30)
    )


@query(
    """SELECT id, name, dt FROM events WHERE id < 1000
       ORDER BY name DESC NULLS LAST, dt NULLS FIRST, id LIMIT 50""",
    ordered=True,
)
def q_order_sql(spark, F):
    """SQL ORDER BY with DESC and default null ordering, LIMIT."""
    return spark.sql(
        """SELECT id, name, dt FROM events WHERE id < 1000
           ORDER BY name DESC, dt, id LIMIT 50"""
    )


# ---------------------------------------------------------------------------------------------
# distinct and dropDuplicates


@query("SELECT DISTINCT cat, flag FROM events")
def q_distinct(spark, F):
    """distinct over two columns with nulls."""
    return spark.table("events").select("cat", "flag").distinct()


@query("SELECT DISTINCT year(dt) AS y, b FROM events WHERE b > 90")
def q_distinct_expression(spark, F):
    """distinct over an expression and a byte column."""
    return spark.table("events").where("b > 90").select(F.year("dt").alias("y"), "b").distinct()


@query("SELECT id, i, name FROM events WHERE id < 1500")
def q_drop_duplicates_subset(spark, F):
    """dropDuplicates on a subset: duplicates are whole copies of a row, so the kept row is
    determined."""
    part = spark.table("events").where("id < 1500").select("id", "i", "name")
    return part.union(part.where("i > 0")).dropDuplicates(["id"])


@query("SELECT DISTINCT cat, flag FROM events")
def q_drop_duplicates_projected(spark, F):
    """dropDuplicates(subset) then selecting only the subset: the same as distinct."""
    return spark.table("events").dropDuplicates(["cat", "flag"]).select("cat", "flag")


@query("SELECT DISTINCT cat, b FROM events")
def q_drop_duplicates_all(spark, F):
    """dropDuplicates() without a subset."""
    return spark.table("events").select("cat", "b").dropDuplicates()


# ---------------------------------------------------------------------------------------------
# union


@query(
    """SELECT id, cat, i FROM events WHERE id < 300
       UNION ALL SELECT id, cat, i FROM events WHERE id >= 200 AND id < 500"""
)
def q_union(spark, F):
    """union keeps duplicates (UNION ALL)."""
    e = spark.table("events")
    a = e.where("id < 300").select("id", "cat", "i")
    b = e.where("id >= 200 AND id < 500").select("id", "cat", "i")
    return a.union(b)


@query(
    """SELECT id, CAST(i AS BIGINT) AS i FROM events WHERE id < 200
       UNION ALL SELECT id, l FROM events WHERE id < 200"""
)
def q_union_widening(spark, F):
    """union by position of int and long columns gives long, named after the first input."""
    e = spark.table("events").where("id < 200")
    return e.select("id", "i").union(e.select("id", "l"))


@query(
    """SELECT id, cat, d FROM events WHERE id < 300
       UNION ALL SELECT id, cat, d FROM events WHERE id % 97 = 0"""
)
def q_union_by_name(spark, F):
    """unionByName matches columns by name, not position."""
    e = spark.table("events")
    a = e.where("id < 300").select("id", "cat", "d")
    b = e.where(F.col("id") % 97 == 0).select("d", "id", "cat")
    return a.unionByName(b)


@query(
    """SELECT id, cat, NULL::DOUBLE AS d FROM events WHERE id < 100
       UNION ALL SELECT id, NULL, d FROM events WHERE id >= 100 AND id < 200"""
)
def q_union_by_name_missing(spark, F):
    """unionByName(allowMissingColumns=True) fills the missing columns with nulls."""
    e = spark.table("events")
    a = e.where("id < 100").select("id", "cat")
    b = e.where("id >= 100 AND id < 200").select("id", "d")
    return a.unionByName(b, allowMissingColumns=True)


# ---------------------------------------------------------------------------------------------
# Joins. `m` is a slice of events; dim has null keys, duplicate keys, and keys events lacks.

M_SQL = "(SELECT id, k, i, d, name FROM events WHERE id < 3000)"


def _m(spark):
    return spark.table("events").where("id < 3000").select("id", "k", "i", "d", "name")


@query(f"SELECT m.k, m.id, m.i, m.d, m.name, x.label, x.weight, x.since "
       f"FROM {M_SQL} m JOIN dim x ON m.k = x.k")
def q_join_inner_on_name(spark, F):
    """Inner join on a column name: one k column, then the left columns, then the right."""
    return _m(spark).join(spark.table("dim"), "k")


@query(f"SELECT m.k, m.id, m.i, m.d, m.name, x.label, x.weight, x.since "
       f"FROM {M_SQL} m LEFT JOIN dim x ON m.k = x.k")
def q_join_left_on_name(spark, F):
    """Left outer join on a name: null keys never match."""
    return _m(spark).join(spark.table("dim"), "k", "left")


@query(f"SELECT x.k, m.id, m.i, m.d, m.name, x.label, x.weight, x.since "
       f"FROM {M_SQL} m RIGHT JOIN dim x ON m.k = x.k")
def q_join_right_on_name(spark, F):
    """Right outer join on a name: the key column comes from the right side."""
    return _m(spark).join(spark.table("dim"), ["k"], "right")


@query(f"SELECT coalesce(m.k, x.k) AS k, m.id, m.i, m.d, m.name, x.label, x.weight, x.since "
       f"FROM {M_SQL} m FULL JOIN dim x ON m.k = x.k")
def q_join_full_on_name(spark, F):
    """Full outer join on a name: the key column is the coalesce of both sides."""
    return _m(spark).join(spark.table("dim"), "k", "full")


@query(f"SELECT m.k, m.id, m.i, m.d, m.name FROM {M_SQL} m WHERE m.k IN (SELECT k FROM dim)")
def q_join_left_semi(spark, F):
    """left_semi: left rows with a match, each once even when dim repeats the key; as in every
    join on names, the key column moves to the front."""
    return _m(spark).join(spark.table("dim"), "k", "left_semi")


@query(f"SELECT m.k, m.id, m.i, m.d, m.name FROM {M_SQL} m "
       f"WHERE NOT EXISTS (SELECT 1 FROM dim x WHERE x.k = m.k)")
def q_join_left_anti(spark, F):
    """left_anti: left rows without a match, including those with a null key."""
    return _m(spark).join(spark.table("dim"), "k", "left_anti")


@query(f"SELECT m.id, m.k, x.k, x.label FROM {M_SQL} m LEFT JOIN dim x "
       f"ON m.k = x.k AND m.i > 0")
def q_join_left_on_condition(spark, F):
    """Left join on a Column condition with aliases; a condition on the left side only
    decides matching, it does not drop left rows."""
    m = _m(spark).alias("m")
    x = spark.table("dim").alias("x")
    return m.join(x, (F.col("m.k") == F.col("x.k")) & (F.col("m.i") > 0), "left").select(
        "m.id", "m.k", "x.k", "x.label"
    )


@query(f"SELECT m.id, m.k, x.k AS dim_k, x.weight FROM {M_SQL} m FULL JOIN dim x ON m.k = x.k")
def q_join_full_on_condition(spark, F):
    """Full outer join on df['k'] == other['k']: both key columns stay."""
    m = _m(spark)
    x = spark.table("dim")
    return m.join(x, m["k"] == x["k"], "full").select(
        m["id"], m["k"], x["k"].alias("dim_k"), x["weight"]
    )


@query(f"SELECT m.id, m.d, x.k, x.label, x.weight FROM {M_SQL} m RIGHT JOIN dim x "
       f"ON m.k = x.k AND m.d < x.weight")
def q_join_right_on_condition(spark, F):
    """Right outer join on an equality plus an inequality."""
    m = _m(spark)
    x = spark.table("dim")
    return m.join(x, (m.k == x.k) & (m.d < x.weight), "right").select(
        m.id, m.d, x.k, x.label, x.weight
    )


@query(f"SELECT m.id, m.k, x.k, x.label FROM {M_SQL} m JOIN dim x ON m.k < x.k - 40")
def q_join_inner_non_equi(spark, F):
    """An inner join on an inequality only (no equality key)."""
    m = _m(spark)
    x = spark.table("dim")
    return m.join(x, m.k < x.k - 40, "inner").select(m.id, m.k, x.k, x.label)


@query(
    """SELECT x.label, count(*) AS n, sum(e.i) AS total, max(e.ts) AS latest
       FROM events e JOIN dim x ON e.k = x.k GROUP BY x.label"""
)
def q_join_sql_aggregate(spark, F):
    """A SQL join of the whole table, then grouping."""
    return spark.sql(
        """SELECT x.label, count(*) AS n, sum(e.i) AS total, max(e.ts) AS latest
           FROM events e JOIN dim x ON e.k = x.k GROUP BY x.label"""
    )


@query(
    """SELECT e.id, e.k, e.name FROM events e
       WHERE e.id < 2000 AND e.k IN (SELECT k FROM dim WHERE weight > 500)"""
)
def q_join_sql_semi(spark, F):
    """LEFT SEMI JOIN in SQL."""
    return spark.sql(
        """SELECT e.id, e.k, e.name FROM events e
           LEFT SEMI JOIN (SELECT k FROM dim WHERE weight > 500) x ON e.k = x.k
           WHERE e.id < 2000"""
    )


# ---------------------------------------------------------------------------------------------
# More SQL


@query(
    """WITH per_cat AS (SELECT cat, avg(d) AS avg_d FROM events GROUP BY cat)
       SELECT e.cat, count(*) AS above, max(e.d) AS top
       FROM events e JOIN per_cat p ON e.cat = p.cat
       WHERE e.d > p.avg_d AND e.k IN (SELECT k FROM dim WHERE k IS NOT NULL)
       GROUP BY e.cat"""
)
def q_sql_cte_subquery(spark, F):
    """A CTE, a join with it, and an IN subquery."""
    return spark.sql(
        """WITH per_cat AS (SELECT cat, avg(d) AS avg_d FROM events GROUP BY cat)
           SELECT e.cat, count(*) AS above, max(e.d) AS top
           FROM events e JOIN per_cat p ON e.cat = p.cat
           WHERE e.d > p.avg_d AND e.k IN (SELECT k FROM dim WHERE k IS NOT NULL)
           GROUP BY e.cat"""
    )


# ---------------------------------------------------------------------------------------------
# The JSON reader


@query("SELECT * FROM events_json WHERE id % 40 = 0")
def q_json_rows(spark, F):
    """Every column of every type read from JSON lines (null values both written as null and
    left out), a sample of rows."""
    return spark.table("events_json").where(F.col("id") % 40 == 0)


@query(
    """SELECT count(*), count(name), sum(l), sum(dec), sum(i), min(ts), max(ts), min(tsn),
              max(tsn), min(dt), max(dt), min(f), max(f), sum(d), min(name), max(name),
              count(flag), sum(b), sum(s)
       FROM events_json"""
)
def q_json_aggregates(spark, F):
    """Aggregates over the whole JSON file: every row parsed the same as DuckDB parses it."""
    return spark.table("events_json").agg(
        F.count("*"), F.count("name"), F.sum("l"), F.sum("dec"), F.sum("i"), F.min("ts"),
        F.max("ts"), F.min("tsn"), F.max("tsn"), F.min("dt"), F.max("dt"), F.min("f"),
        F.max("f"), F.sum("d"), F.min("name"), F.max("name"), F.count("flag"), F.sum("b"),
        F.sum("s"),
    )
