"""The cases of the generated function suite: for each of Spark's built-in functions Ember supports,
SQL expressions built from the argument kinds of its signatures.

A signature names one value kind per argument. Its cases vary one argument at a time through every
value of its kind (NULL, empty and extreme values among them) while the others keep their first
value, so a function of n arguments gets the sum of its kinds' sizes rather than their product.
`EXTRA` adds hand-written expressions where a kind cannot say it (a pattern, a format, a lambda).

The answers of the real Spark are recorded by `record_spark.py` into `spark_answers.json`;
`test_functions.py` checks Ember's against them.
"""

# The session time zone of every case: DST edges only show in a zone that has DST.
TIME_ZONE = "America/Los_Angeles"

VALUES = {
    "int": ["7", "-3", "0", "2147483647", "-2147483648", "CAST(NULL AS INT)"],
    "small": ["2", "0", "-1", "5", "CAST(NULL AS INT)"],  # counts, positions, lengths
    "bigint": ["7L", "-9223372036854775808L", "9223372036854775807L", "0L", "CAST(NULL AS BIGINT)"],
    "double": ["2.5D", "-1.75D", "0.0D", "-0.0D", "1.0E308D", "4.9E-324D",
               "CAST('NaN' AS DOUBLE)", "CAST('Infinity' AS DOUBLE)",
               "CAST('-Infinity' AS DOUBLE)", "CAST(NULL AS DOUBLE)"],
    "unit": ["0.5D", "1.0D", "-1.0D", "0.0D", "2.0D", "CAST('NaN' AS DOUBLE)",
             "CAST(NULL AS DOUBLE)"],  # inside and outside [-1, 1]
    "decimal": ["CAST(12.345 AS DECIMAL(10,3))", "CAST(-0.5 AS DECIMAL(3,1))",
                "CAST(NULL AS DECIMAL(10,2))"],
    "string": ["'Spark SQL'", "''", "'  padded  '", "'ÅßΩ漢字🙂'", "'a,b,,c'",
               "CAST(NULL AS STRING)"],
    "char": ["'a'", "''", "'漢'", "CAST(NULL AS STRING)"],
    "binary": ["X'537061726B'", "X''", "X'00FF'", "CAST(NULL AS BINARY)"],
    "boolean": ["true", "false", "CAST(NULL AS BOOLEAN)"],
    "date": ["DATE'2024-02-29'", "DATE'1970-01-01'", "DATE'2024-03-10'",
             "DATE'9999-12-31'", "CAST(NULL AS DATE)"],
    "timestamp": ["TIMESTAMP'2024-03-10 01:59:59'", "TIMESTAMP'2024-03-10 03:00:00'",
                  "TIMESTAMP'2024-11-03 01:30:00'", "TIMESTAMP'1969-12-31 23:59:59.999999'",
                  "TIMESTAMP'2024-02-29 12:34:56.789'", "CAST(NULL AS TIMESTAMP)"],
    "array": ["array(3, 1, 2)", "array(1, NULL, 1)", "CAST(array() AS ARRAY<INT>)",
              "CAST(NULL AS ARRAY<INT>)"],
    "strings": ["array('b', 'a', 'c')", "array('a', NULL)", "CAST(array() AS ARRAY<STRING>)",
                "CAST(NULL AS ARRAY<STRING>)"],
    "map": ["map('a', 1, 'b', NULL)", "CAST(map() AS MAP<STRING,INT>)",
            "CAST(NULL AS MAP<STRING,INT>)"],
    "any": ["1", "'x'", "2.5D", "DATE'2024-02-29'", "array(1)", "NULL"],
}

# Signatures: one tuple of kinds per way of calling the function.
SIGNATURES = {}

# Hand-written cases: patterns, formats, lambdas and what kinds cannot express.
EXTRA = {}

# Functions whose value differs from call to call: only the type is compared.
TYPE_ONLY = set()

# Cases where Ember's answer is known to differ from Spark's, and why (docs/compatibility.md).
# The suite fails when one of them comes to agree, so that the entry goes.
DIFFERENCES = {
    "between(2.5D, 2.5D, CAST('NaN' AS DOUBLE))": "comparisons read NaN as IEEE does (unordered); "
                                                  "Spark orders it above every other double",
    "SELECT raise_error('boom') FROM VALUES (1) AS t(v) WHERE v > 5": "a raise_error of constants "
                                                                      "fails even where no row "
                                                                      "reaches it",
    "try_mod(CAST(1.5 AS DECIMAL(3,1)), CAST(2 AS DECIMAL(2,0)))": "the remainder of decimals is "
                                                                   "a DOUBLE, as for %",
    "from_json('{\"a\":1}', 'not a type')": "a DDL schema with an unknown type where Spark's "
                                             "parser stops earlier is UNSUPPORTED_DATATYPE, not "
                                             "PARSE_SYNTAX_ERROR",
    "decimal(1.0E308D)": "a double beyond the decimal is ARITHMETIC_OVERFLOW, not Spark's "
                         "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION",
    "string(array(1))": "CAST of arrays, maps and structs to text is not built",
    "string(4.9E-324D)": "Java 17's Double.toString writes 4.9E-324, not the shortest 5.0E-324",
    "unbase64('U3BhcmsgU1FM====')": "Java's MIME decoder refuses padding beyond the last group",
    "nvl(1, 'x')": "Ember evaluates every argument: a cast that fails in one not taken fails",
    "ifnull(1, 'x')": "Ember evaluates every argument: a cast that fails in one not taken fails",
    "timestamp_millis(9223372036854775807L)": "overflow is ARITHMETIC_OVERFLOW; Spark raises a "
                                               "bare java.lang.ArithmeticException",
    "timestamp_millis(-9223372036854775808L)": "as above",
    "timestamp_seconds(9223372036854775807L)": "as above",
    "timestamp_seconds(-9223372036854775808L)": "as above",
    "dateadd(DATE'2024-02-29', 2147483647)": "a date beyond the INT range of days is "
                                              "ARITHMETIC_OVERFLOW; Spark wraps around silently",
    "SELECT max_by(NULL, o) FROM VALUES (1), (2) AS t(o)": "an aggregate whose result is of the "
                                                           "NULL type fails (max(NULL) too)",
    "SELECT min_by(NULL, o) FROM VALUES (1), (2) AS t(o)": "as above",
    "array_append(array(DATE'2024-01-01'), TIMESTAMP'2024-01-02 03:04:05')":
        "a cast of ARRAY<DATE> to ARRAY<TIMESTAMP> takes midnight in UTC, not the session zone",
    "array_prepend(array(DATE'2024-01-01'), TIMESTAMP'2024-01-02 03:04:05')": "as above",
    "map_zip_with(map(2, 'a', 1, 'b'), map(3, 'x', 1, 'y'), (k, v1, v2) -> v2)":
        "map_zip_with's entries come in first-appearance order, Spark's in its hash map's order",
    "SELECT map_zip_with(m, n, (k, v1, v2) -> v1 IS NULL OR v2 IS NULL) FROM VALUES "
    "(map('a', 1), map('a', 2, 'b', 3)), (map('c', 2), map('d', 1)) AS t(m, n)": "as above",
}


def sig(names, *signatures, extra=(), type_only=False):
    for name in names.split():
        SIGNATURES[name] = list(signatures)
        EXTRA[name] = [e.replace("{f}", name) for e in extra]
        if type_only:
            TYPE_ONLY.add(name)


def calls(name: str) -> list:
    """The SQL expressions of a function's cases, without repeats, in a stable order."""
    out = []
    for kinds in SIGNATURES.get(name, []):
        first = [VALUES[k][0] for k in kinds]
        out.append(f"{name}({', '.join(first)})")
        for i, kind in enumerate(kinds):
            for value in VALUES[kind][1:]:
                args = list(first)
                args[i] = value
                out.append(f"{name}({', '.join(args)})")
    out += EXTRA.get(name, [])
    seen = set()
    return [c for c in out if not (c in seen or seen.add(c))]


# --- math ---
sig("sqrt cbrt exp expm1 ln log10 log2 log1p sin cos tan asin acos atan sinh cosh tanh asinh "
    "acosh atanh cot sec csc degrees radians rint sign signum",
    ("double",), ("unit",), ("int",), ("decimal",), extra=["{f}('2.5')"])
sig("log", ("double",), ("double", "double"), ("unit", "double"))
sig("atan2 hypot nanvl", ("double", "double"), ("unit", "unit"))
sig("pi e", ())
sig("factorial", ("small",), ("int",), extra=["factorial(20)", "factorial(21)", "factorial(5L)"])
sig("positive", ("int",), ("double",), ("decimal",), ("bigint",))
sig("shiftleft shiftright shiftrightunsigned", ("int", "small"), ("bigint", "small"),
    extra=["{f}(1, 33)", "{f}(-8L, 65)", "{f}(CAST(-5 AS TINYINT), 1)"])
sig("pmod mod", ("int", "small"), ("double", "unit"), ("bigint", "small"),
    extra=["{f}(-7, 3)", "{f}(7, -3)", "{f}(-7.5D, 2.0D)", "{f}(1, 0)"])

# --- strings ---
sig("lpad rpad", ("string", "small"), ("string", "small", "string"),
    extra=["{f}('abc', 8, 'xy')", "{f}('abcdef', 3, 'x')", "{f}('ab', 5, '')",
           "{f}('漢字', 5, 'ñ')"])
sig("ascii", ("string",), ("char",), extra=["ascii(65)"])
sig("chr char", ("int",), ("bigint",), extra=["{f}(65)", "{f}(256 + 66)", "{f}(0)", "{f}(233)"])
sig("locate position", ("string", "string"), ("string", "string", "small"),
    extra=["{f}('b', 'abcb')", "{f}('b', 'abcb', 3)", "{f}('', 'abc', 2)", "{f}('字', '漢字字')",
           "{f}('b', 'abc', 9)"])
sig("instr", ("string", "string"), extra=["instr('abcb', 'b')", "instr('漢字字', '字')",
                                          "instr('abc', '')"])
sig("initcap", ("string",), extra=["initcap('hello wORLD-foo  bar_baz')", "initcap('élan ßx')"])
sig("translate", ("string", "string", "string"),
    extra=["translate('AaBbCc', 'abc', '12')", "translate('aabb', 'aa', 'xy')",
           "translate('漢字', '字', 'x')"])
sig("levenshtein", ("string", "string"), ("string", "string", "small"),
    extra=["levenshtein('kitten', 'sitting')", "levenshtein('kitten', 'sitting', 2)",
           "levenshtein('漢字', '漢')"])
sig("soundex", ("string",), extra=["soundex('Robert')", "soundex('Tymczak')", "soundex('Ashcraft')",
                                   "soundex('Pfister')", "soundex('1abc')", "soundex('a')"])
sig("substring_index", ("string", "string", "small"),
    extra=["substring_index('www.apache.org', '.', 2)", "substring_index('www.apache.org', '.', -2)",
           "substring_index('a..b..c', '..', -1)", "substring_index('abc', '.', 5)"])
sig("split_part", ("string", "string", "small"),
    extra=["split_part('11.12.13', '.', 3)", "split_part('11.12.13', '.', -1)",
           "split_part('11.12.13', '.', 4)", "split_part('11.12.13', '', 1)",
           "split_part('a,,b', ',', 2)"])
sig("find_in_set", ("string", "string"),
    extra=["find_in_set('ab', 'abc,b,ab,c,def')", "find_in_set('a,b', 'a,b')",
           "find_in_set('', 'a,,b')"])
sig("overlay", ("string", "string", "small"), ("string", "string", "small", "small"),
    extra=["overlay('Spark SQL', '_', 6)", "overlay('Spark SQL', 'CORE', 7)",
           "overlay('Spark SQL', 'ANSI ', 7, 0)", "overlay('Spark SQL', 'tructured', 2, 4)",
           "overlay('漢字', 'x', 2, 1)"])
sig("replace", ("string", "string"), ("string", "string", "string"),
    extra=["replace('ABCabc', 'abc', 'DEF')", "replace('aaa', 'aa', 'b')", "replace('abc', '', 'x')"])
sig("repeat", ("string", "small"), extra=["repeat(12, 2)"])
sig("space", ("small",))
sig("octet_length bit_length len", ("string",), ("binary",), extra=["{f}(123)"])
sig("hex", ("bigint",), ("int",), ("string",), ("binary",), extra=["hex(-1)", "hex(255L)"])
sig("unhex", ("string",), extra=["unhex('537061726B')", "unhex('F')", "unhex('GG')", "unhex('abc')"])
sig("bin", ("bigint",), ("int",), extra=["bin(13)", "bin(-1)"])
sig("base64", ("binary",), ("string",), extra=["base64(repeat('abcdefgh', 12))"])
sig("unbase64", ("string",), extra=["unbase64('U3BhcmsgU1FM')", "unbase64('U3Bh\\ncmsg')",
                                    "unbase64('U3BhcmsgU1FM====')", "unbase64('!!')"])
sig("md5 sha1 sha crc32", ("binary",), ("string",))
sig("sha2", ("binary", "small"), ("string", "small"),
    extra=["sha2('abc', 224)", "sha2('abc', 256)", "sha2('abc', 384)", "sha2('abc', 512)",
           "sha2('abc', 1)"])

# --- conditional ---
sig("nvl ifnull", ("int", "int"), ("string", "string"), ("any", "any"),
    extra=["{f}(NULL, 1.5D)", "{f}(1, 2L)"])
sig("nvl2", ("int", "int", "int"), ("any", "string", "string"))
sig("nullif", ("int", "int"), ("string", "string"), extra=["nullif(1, 1)", "nullif('a', 'a')",
                                                            "nullif(1, 1.0D)", "nullif(NULL, 1)"])
sig("zeroifnull nullifzero", ("int",), ("double",), ("bigint",), ("decimal",))
sig("if", ("boolean", "int", "int"), ("boolean", "string", "string"),
    extra=["if(1 < 2, 'a', 2)", "if(NULL, 1, 2)"])
sig("greatest least", ("int", "int"), ("double", "double"), ("string", "string"),
    ("date", "date"), extra=["{f}(1, 2.5D, 3L)", "{f}(NULL, NULL)", "{f}(1, NULL, 3)",
                             "{f}(CAST('NaN' AS DOUBLE), 1.0D)"])
sig("equal_null", ("int", "int"), ("string", "string"), extra=["equal_null(NULL, NULL)"])
sig("typeof", ("any",), ("decimal",), ("array",), ("map",), ("timestamp",), ("binary",))
sig("tinyint smallint int bigint float double decimal", ("int",), ("double",), ("string",),
    ("boolean",), ("decimal",),
    extra=["{f}(CAST(1e12 AS DECIMAL(20,0)))", "{f}(CAST(300.5 AS DECIMAL(5,1)))",
           "{f}(CAST(-1e30 AS DECIMAL(38,0)))"])
sig("boolean", ("int",), ("string",), ("boolean",))
sig("string", ("any",), ("double",), ("decimal",), ("timestamp",), ("boolean",))
sig("binary", ("string",), ("binary",))
sig("date", ("string",), ("timestamp",), ("date",))
sig("timestamp", ("string",), ("date",), ("timestamp",))

# --- aggregates: whole queries over VALUES ---
NUMBERS = "VALUES (1, 2.5D), (1, -1.0D), (1, NULL), (2, 4.0D), (3, NULL) AS t(k, v)"
FLAGS = "VALUES (1, true), (1, false), (2, true), (2, NULL), (3, NULL) AS t(k, b)"


def aggregate(names, rows, column):
    for name in names.split():
        SIGNATURES[name] = []
        EXTRA[name] = [
            f"SELECT {name}({column}) FROM {rows}",
            f"SELECT {name}({column}) FROM {rows} WHERE k > 5",
            f"SELECT {name}({column}), k FROM {rows} GROUP BY k ORDER BY k",
        ]


aggregate("stddev stddev_samp std stddev_pop variance var_samp var_pop skewness kurtosis",
          NUMBERS, "v")
aggregate("bool_and every bool_or some any", FLAGS, "b")
aggregate("count_if", FLAGS, "b")
aggregate("array_agg", NUMBERS, "v")
EXTRA["skewness"].append("SELECT skewness(v) FROM VALUES (1.0D), (1.0D) AS t(v)")
EXTRA["kurtosis"].append("SELECT kurtosis(v) FROM VALUES (1.0D), (2.0D), (10.0D) AS t(v)")
EXTRA["stddev"].append("SELECT stddev(v) FROM VALUES (1.0D) AS t(v)")

# --- existing functions, checked here too ---
sig("sort_array", ("array",), ("array", "boolean"), ("strings", "boolean"))
sig("round", ("double",), ("decimal",), ("int",), extra=["round(2.345D, 2)", "round(-2.5D)",
                                                         "round(1234.5D, -2)", "round(2.5, 0)"])

# --- date and time ---
sig("unix_date weekday weekofyear dayname monthname", ("date",), ("timestamp",),
    extra=["{f}('2024-12-30')", "{f}(DATE'2021-01-03')"])
sig("date_from_unix_date", ("int",), extra=["date_from_unix_date(19782)", "date_from_unix_date(-1)"])
sig("unix_micros unix_millis unix_seconds", ("timestamp",), extra=["{f}('2024-01-01 00:00:00')"])
sig("timestamp_micros timestamp_millis", ("bigint",),
    extra=["{f}(1704067200000)", "{f}(-1)", "{f}(1234567)"])
sig("timestamp_seconds", ("bigint",), ("double",),
    extra=["timestamp_seconds(1704067200)", "timestamp_seconds(-1)", "timestamp_seconds(1.5D)",
           "timestamp_seconds(CAST(1.25 AS DECIMAL(5,2)))"])
sig("from_utc_timestamp to_utc_timestamp", ("timestamp", "string"),
    extra=["{f}(TIMESTAMP'2024-03-10 10:30:00', 'America/New_York')",
           "{f}(TIMESTAMP'2024-11-03 05:30:00', 'Europe/Paris')", "{f}('2024-01-01 12:00:00', 'UTC')",
           "{f}(TIMESTAMP'2024-06-01 00:00:00', 'Asia/Kolkata')"])
sig("current_timezone", ())
sig("current_date curdate now localtimestamp", (), type_only=True)
sig("dateadd", ("date", "int"), extra=["dateadd('2024-02-28', 1)"])
sig("date_diff", ("date", "date"), extra=["date_diff('2024-03-01', '2024-02-28')"])
sig("date_format",
    extra=["date_format(TIMESTAMP'2024-02-29 12:34:56', 'dd MMM yyyy HH:mm:ss')",
           "date_format(TIMESTAMP'2024-02-29 12:34:56', 'yyyy-MM-dd')",
           "date_format(DATE'2024-12-31', 'EEE, MMM dd yy')",
           "date_format(CAST(NULL AS TIMESTAMP), 'yyyy')"])
sig("to_unix_timestamp unix_timestamp", ("timestamp",), ("string",),
    extra=["{f}('2024-01-01', 'yyyy-MM-dd')", "{f}(DATE'2024-01-01')"])

# --- more aggregates (functions_aggregate.cc, exec/aggregate_kernels.cc) ---
PAIRS = ("VALUES (1, 1.0D, 2.0D), (1, 2.0D, 4.5D), (1, NULL, 3.0D), (1, 4.0D, NULL), "
         "(1, 3.0D, 7.0D), (2, 5.0D, 1.0D), (3, NULL, 1.0D), (4, 1.0D, 1.0D), (4, 1.0D, 2.0D), "
         "(5, 1.0D, 3.0D), (5, 2.0D, 3.0D), (6, CAST('NaN' AS DOUBLE), 1.0D), (6, 2.0D, 2.0D) "
         "AS t(k, y, x)")
aggregate("corr covar_pop covar_samp regr_count regr_avgx regr_avgy regr_sxx regr_syy regr_sxy "
          "regr_slope regr_intercept regr_r2", PAIRS, "y, x")
for _name in ("corr covar_pop covar_samp regr_count regr_avgx regr_avgy regr_sxx regr_syy "
              "regr_sxy regr_slope regr_intercept regr_r2").split():
    EXTRA[_name] += [
        f"SELECT {_name}(y, x) FROM VALUES (1, 2), (2, 2), (2, 3), (2, 4) AS t(y, x)",
        f"SELECT {_name}(y, x) FROM VALUES (1, 2), (2, NULL), (NULL, 3), (2, 4) AS t(y, x)",
        f"SELECT {_name}(y, x) FROM VALUES (CAST(1.5 AS DECIMAL(4,1)), 2L) AS t(y, x)",
        f"SELECT {_name}(y, x) FROM VALUES (1.0E300D, 1.0D), (-1.0E300D, 2.0D) AS t(y, x)",
        f"SELECT {_name}(y, x) FROM VALUES (CAST('Infinity' AS DOUBLE), 1.0D), (1.0D, 2.0D) "
        "AS t(y, x)",
        f"SELECT {_name}(y, 'a') FROM VALUES (1) AS t(y)",
        f"SELECT {_name}(y, x) FROM VALUES (true, 1) AS t(y, x)",
    ]
BY = ("VALUES (1, 'a', 3), (1, 'b', 5), (1, 'c', 5), (1, 'd', NULL), (2, 'e', NULL), (3, 'f', 1), "
      "(4, NULL, 9), (4, 'g', 2) AS t(k, v, o)")
aggregate("max_by min_by", BY, "v, o")
for _name in ("max_by", "min_by"):
    EXTRA[_name] += [
        f"SELECT {_name}(v, o) FROM VALUES ('a', 1.0D), ('b', CAST('NaN' AS DOUBLE)), ('c', 2.0D), "
        "('d', -0.0D), ('e', 0.0D) AS t(v, o)",
        f"SELECT {_name}(v, o) FROM VALUES (1, 'x'), (2, 'ab'), (3, 'b') AS t(v, o)",
        f"SELECT {_name}(v, o) FROM VALUES (DATE'2024-01-01', DATE'2020-01-01'), "
        "(DATE'2025-01-01', DATE'2021-01-01') AS t(v, o)",
        f"SELECT {_name}(v, o) FROM VALUES (array(1), 2L), (array(2), 1L) AS t(v, o)",
        f"SELECT {_name}(v, o) FROM VALUES (1, map(1, 2)) AS t(v, o)",
        f"SELECT {_name}(NULL, o) FROM VALUES (1), (2) AS t(o)",
        f"SELECT {_name}(v, true) FROM VALUES (1), (2) AS t(v)",
    ]
BITS = "VALUES (1, 12), (1, 10), (1, NULL), (2, -1), (2, 7), (3, NULL) AS t(k, v)"
aggregate("bit_and bit_or bit_xor", BITS, "v")
for _name in ("bit_and", "bit_or", "bit_xor"):
    EXTRA[_name] += [
        f"SELECT {_name}(v) FROM VALUES (CAST(-3 AS TINYINT)), (CAST(6 AS TINYINT)) AS t(v)",
        f"SELECT {_name}(v) FROM VALUES (CAST(300 AS SMALLINT)), (CAST(-7 AS SMALLINT)) AS t(v)",
        f"SELECT {_name}(v) FROM VALUES (9223372036854775807L), (-9223372036854775808L), (5L) "
        "AS t(v)",
        f"SELECT {_name}(v) FROM VALUES (1.5D) AS t(v)",
        f"SELECT {_name}(v) FROM VALUES ('3') AS t(v)",
        f"SELECT {_name}(NULL) FROM VALUES (1) AS t(v)",
    ]
aggregate("median", NUMBERS, "v")
aggregate("percentile", NUMBERS, "v, 0.25")
EXTRA["median"] += [
    "SELECT median(v) FROM VALUES (1), (2), (3), (4) AS t(v)",
    "SELECT median(v) FROM VALUES (1.0D), (CAST('NaN' AS DOUBLE)), (3.0D) AS t(v)",
    "SELECT median(v) FROM VALUES (9223372036854775807L), (9223372036854775806L) AS t(v)",
    "SELECT median(v) FROM VALUES (CAST(1.25 AS DECIMAL(5,2))), (CAST(2.5 AS DECIMAL(5,2))) AS t(v)",
    "SELECT median(v) FROM VALUES ('a') AS t(v)",
    "SELECT median(v) FROM VALUES (1.0E308D), (1.0E308D), (-1.0E308D) AS t(v)",
]
EXTRA["percentile"] += [
    "SELECT percentile(v, array(0.25, 0.5, 1.0)) FROM VALUES (0), (10), (20), (35) AS t(v)",
    "SELECT percentile(v, array(0.25, 0.5)), k FROM VALUES (1, 2.5D), (1, NULL), (2, NULL) "
    "AS t(k, v) GROUP BY k ORDER BY k",
    "SELECT percentile(v, 0.3) FROM VALUES (0), (10) AS t(v)",
    "SELECT percentile(v, 0) FROM VALUES (3), (1), (2) AS t(v)",
    "SELECT percentile(v, 1) FROM VALUES (3), (1), (2) AS t(v)",
    "SELECT percentile(v, 0.5, f) FROM VALUES (1, 3), (2, 1), (3, 0), (4, NULL) AS t(v, f)",
    "SELECT percentile(v, 0.5, f) FROM VALUES (1, -1) AS t(v, f)",
    "SELECT percentile(v, 1.5) FROM VALUES (1) AS t(v)",
    "SELECT percentile(v, -0.1) FROM VALUES (1) AS t(v)",
    "SELECT percentile(v, NULL) FROM VALUES (1) AS t(v)",
    "SELECT percentile(v, v) FROM VALUES (1) AS t(v)",
    "SELECT percentile(v, array(0.5, 2.0)) FROM VALUES (1) AS t(v)",
    "SELECT percentile(v, 0.5, 1.5D) FROM VALUES (1) AS t(v)",
    "SELECT percentile(v, 0.5) FROM VALUES (CAST('NaN' AS DOUBLE)), (1.0D), "
    "(CAST('Infinity' AS DOUBLE)), (-0.0D), (0.0D) AS t(v)",
]
aggregate("percentile_approx approx_percentile", NUMBERS, "v, 0.5")
for _name in ("percentile_approx", "approx_percentile"):
    EXTRA[_name] += [
        f"SELECT {_name}(v, array(0, 0.25, 0.5, 0.75, 1)) FROM VALUES (1), (2), (3), (4), (5), (6), "
        "(7) AS t(v)",
        f"SELECT {_name}(v, 0.5, 100) FROM VALUES (1L), (2L), (3L), (4L) AS t(v)",
        f"SELECT {_name}(v, 0.4) FROM VALUES (DATE'2024-01-03'), (DATE'2024-01-01'), "
        "(DATE'2024-01-02') AS t(v)",
        f"SELECT {_name}(v, 0.5) FROM VALUES (TIMESTAMP'2024-01-03 10:00:00'), "
        "(TIMESTAMP'2024-01-01 00:00:00') AS t(v)",
        f"SELECT {_name}(v, 0.5) FROM VALUES (CAST(1.25 AS DECIMAL(5,2))), "
        "(CAST(2.5 AS DECIMAL(5,2))), (CAST(-4 AS DECIMAL(5,2))) AS t(v)",
        f"SELECT {_name}(v, 0.99) FROM VALUES (CAST('NaN' AS DOUBLE)), (1.0D), (2.0D) AS t(v)",
        f"SELECT {_name}(v, 0.5) FROM VALUES (CAST(3 AS TINYINT)), (CAST(-2 AS TINYINT)) AS t(v)",
        f"SELECT {_name}(v, 1.5) FROM VALUES (1) AS t(v)",
        f"SELECT {_name}(v, 0.5, 0) FROM VALUES (1) AS t(v)",
        f"SELECT {_name}(v, NULL) FROM VALUES (1) AS t(v)",
        f"SELECT {_name}(v, 0.5) FROM VALUES ('a') AS t(v)",
    ]
MODES = ("VALUES (1, 'a'), (1, 'b'), (1, 'b'), (1, NULL), (1, NULL), (1, NULL), (2, NULL), "
         "(3, 'x') AS t(k, v)")
aggregate("mode", MODES, "v")
EXTRA["mode"] += [
    "SELECT mode(v) FROM VALUES (3), (1), (3), (2), (2), (2) AS t(v)",
    "SELECT mode(v, true) FROM VALUES (3), (1), (3), (2), (2), (1) AS t(v)",
    "SELECT mode(v, true) FROM VALUES ('b'), ('a'), ('b'), ('a') AS t(v)",
    "SELECT mode(v) FROM VALUES (1.0D), (CAST('NaN' AS DOUBLE)), (CAST('NaN' AS DOUBLE)) AS t(v)",
    "SELECT mode(v) FROM VALUES (DATE'2024-01-01'), (DATE'2024-01-01'), (DATE'2023-01-01') AS t(v)",
    "SELECT mode(v, 1) FROM VALUES (1) AS t(v)",
]
TEXTS = "VALUES (1, 'a'), (1, 'b'), (1, NULL), (1, 'c'), (2, NULL), (3, '') AS t(k, v)"
aggregate("string_agg listagg", TEXTS, "v")
for _name in ("string_agg", "listagg"):
    EXTRA[_name] += [
        f"SELECT {_name}(v, ', ') FROM {TEXTS}",
        f"SELECT {_name}(v, '-'), k FROM {TEXTS} GROUP BY k ORDER BY k",
        f"SELECT {_name}(v, NULL) FROM {TEXTS}",
        f"SELECT {_name}(v, X'2C') FROM VALUES (X'01'), (X'02') AS t(v)",
        f"SELECT {_name}(v) FROM VALUES (X'01'), (X'02') AS t(v)",
        f"SELECT {_name}(v, ',') FROM VALUES (X'01'), (X'02') AS t(v)",
        f"SELECT {_name}(v) FROM VALUES (1), (2) AS t(v)",
        f"SELECT {_name}(v, v) FROM VALUES ('a'), ('b') AS t(v)",
    ]

# --- JSON ---
JSONS = ["'{\"a\":1,\"b\":\"x\"}'", "'{\"a\":\"1\",\"b\":2.50}'", "'{\"a\":null}'", "'{}'", "''",
         "'  '", "'[{\"a\":1},{\"a\":2}]'", "'[]'", "'{\"a\":1'", "'not json'", "'1'",
         "'{\"a\":1} trailing'", "'{\"a\":2147483648}'", "'{\"b\":{\"c\":[1,2]},\"a\":-3}'",
         "'{\"a\":1,\"a\":2}'", "'{''a'':5}'", "'{\"a\":1.0}'", "'{\"b\":true}'",
         "'{\"b\":\"\\\\u00e9\\\\n\\\\\\\"q\"}'", "'{\"A\":1}'", "CAST(NULL AS STRING)"]
sig("from_json",
    extra=[f"from_json({j}, '{s}')" for j in JSONS
           for s in ("a INT, b STRING", "a BIGINT", "b STRING", "a DOUBLE, b DOUBLE",
                     "ARRAY<STRUCT<a: INT>>", "MAP<STRING, INT>", "a DECIMAL(4,1), b DECIMAL(3,2)",
                     "b BOOLEAN", "b STRUCT<c: ARRAY<INT>>", "a TINYINT")] + [
        "from_json('{\"a\":1,\"b\":\"x\"}', 'a INT, b STRING', map('mode', 'FAILFAST'))",
        "from_json('{\"a\":1}', 'a INT', map('mode', 'DROPMALFORMED'))",
        "from_json('{bad', 'a INT', map('mode', 'PERMISSIVE'))",
        "from_json('{\"a\":1}', 'a INT', map('allowSingleQuotes', 'false'))",
        "from_json('{''a'':1}', 'a INT', map('allowSingleQuotes', 'false'))",
        "from_json('{\"t\":\"2024-03-10 01:59:59\",\"d\":\"2024-02-29\"}', 't TIMESTAMP, d DATE')",
        "from_json('{\"t\":\"2024-03-10T10:00:00Z\"}', 't TIMESTAMP')",
        "from_json('{\"t\":1700000000}', 't TIMESTAMP')",
        "from_json('{\"t\":\"nope\",\"x\":1}', 't TIMESTAMP, x INT')",
        "from_json('{\"t\":[\"2024-01-01 00:00:00\"]}', 't ARRAY<TIMESTAMP>')",
        "from_json('{\"d\":\"2024-1-5\"}', 'd DATE')",
        "from_json('{\"a\":NaN,\"b\":\"NaN\"}', 'a DOUBLE, b DOUBLE')",
        "from_json('{\"b\":\"Infinity\",\"a\":\"-INF\"}', 'a DOUBLE, b FLOAT')",
        "from_json('{\"b\":\"U3Bhcms=\"}', 'b BINARY')",
        "from_json('{\"a\":[1,\"x\",3]}', 'a ARRAY<INT>')",
        "from_json('{\"a\":[{\"b\":1},{\"b\":\"x\"}]}', 'a ARRAY<STRUCT<b: INT>>')",
        "from_json('{\"a\":{\"k\":1,\"j\":\"x\"}}', 'a MAP<STRING, INT>')",
        "from_json('{\"a\":{\"k\":{\"x\":1}}}', 'a MAP<STRING, STRUCT<x: INT, y: INT>>')",
        "from_json('{\"a\":12345678901234567890}', 'a DECIMAL(20,0)')",
        "from_json('{\"a\":1.5e3}', 'a STRING')",
        "from_json('{\"a\":[1, {\"x\": [true, null]}, \"s\"]}', 'a STRING')",
        "from_json('{\"a\":1}', '{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"long\","
        "\"nullable\":true,\"metadata\":{}}]}')",
        "from_json('{\"a\":1}', 'a INT, a INT')",
        "from_json('{\"a\":1}', 'not a type')",
        "from_json('{\"a\":1}', 'MAP<INT, INT>')",
        "from_json(1, 'a INT')",
    ])
sig("to_json",
    extra=["to_json(named_struct('a', 1, 'b', 'x'))", "to_json(named_struct('a', NULL, 'b', 'x'))",
           "to_json(array(1, NULL, 3))", "to_json(map('k', 1, 'j', NULL))",
           "to_json(array(named_struct('a', 1)))", "to_json(CAST(NULL AS STRUCT<a: INT>))",
           "to_json(named_struct('d', 2.5D, 'f', CAST(1e10 AS DOUBLE), 'n', CAST('NaN' AS DOUBLE), "
           "'i', CAST('Infinity' AS DOUBLE), 'z', -0.0D, 'g', CAST(0.1 AS FLOAT)))",
           "to_json(named_struct('dec', CAST(12.30 AS DECIMAL(5,2)), 'big', 9223372036854775807L, "
           "'t', true))",
           "to_json(named_struct('s', 'q\"b\\\\\\\\s\\n\\t\\u0001é漢🙂/'))",
           "to_json(named_struct('t', TIMESTAMP'2024-03-10 01:59:59.5', 'd', DATE'2024-02-29'))",
           "to_json(named_struct('t', TIMESTAMP'2024-11-03 01:30:00'))",
           "to_json(named_struct('t', TIMESTAMP'1969-12-31 23:59:59.999999'))",
           "to_json(named_struct('b', X'00FF41'))",
           "to_json(named_struct('m', map('x', array(1, 2)), 'e', array()))",
           "to_json(named_struct('a', named_struct('b', CAST(NULL AS INT))))",
           "to_json(map(1, 'a', 2, 'b'))", "to_json(array(map('a', 1)))",
           "to_json(array('a', NULL))",
           "to_json(named_struct('a', 1), map('ignoreNullFields', 'false'))",
           "to_json(named_struct('a', CAST(NULL AS INT)), map('ignoreNullFields', 'false'))",
           "to_json(named_struct('t', TIMESTAMP'2024-03-10 01:59:59'), "
           "map('timestampFormat', 'dd/MM/yyyy HH:mm'))",
           "to_json(1)"])
GET = ["'{\"a\":{\"b\":[10,{\"c\":\"x\"}],\"n\":null,\"f\":1.50,\"t\":true},\"s\":\"str\"}'",
       "'[1,2,{\"a\":3}]'", "'{\"a\":1'", "CAST(NULL AS STRING)", "'{\"k\":\"v\"} trailing'"]
sig("get_json_object",
    extra=[f"get_json_object({j}, '{p}')" for j in GET
           for p in ("$", "$.a", "$.a.b", "$.a.b[0]", "$.a.b[1].c", "$.a.b[2]", "$.a.n", "$.a.f",
                     "$.a.t", "$.s", "$[2].a", "$[0]", "$.missing", "a", "$..a",
                     "$.a.b[*]", "$[*]", "$.a.*", "$.a.b[*].c", "")] + [
        "get_json_object('{\"a\":1}', NULL)", "get_json_object('{\"a b\":1}', '$.a b')",
        "get_json_object('{\"a\":\"\\\\u00e9\"}', '$.a')",
        "get_json_object('{\"a\":[[1,2],[3]]}', '$.a[*][*]')",
        "get_json_object('{\"a\":[{\"b\":[1]},{\"b\":[2,3]}]}', '$.a[*].b')",
        "get_json_object('{\"a\":[{\"b\":[1]},{\"b\":[2,3]}]}', '$.a[*].b[*]')",
        "get_json_object('{\"a\":[{\"b\":1}]}', '$.a[*].b')",
        "get_json_object('{\"a\":[{\"b\":\"x\"}]}', '$.a[*].b')",
        "get_json_object('{\"a\":[1.0, 2e2]}', '$.a')"])
sig("json_tuple",
    extra=["SELECT json_tuple('{\"a\":1,\"b\":\"x\",\"c\":{\"d\":[1, 2]}}', 'a', 'b', 'c', 'z')",
           "SELECT json_tuple('not json', 'a')", "SELECT json_tuple(CAST(NULL AS STRING), 'a', 'b')",
           "SELECT json_tuple('{\"a\":null,\"b\":1.50}', 'a', 'b')",
           "SELECT json_tuple('[1]', 'a')",
           "SELECT v FROM VALUES ('{\"x\":1}'), ('{\"x\":2}') AS t(j) "
           "LATERAL VIEW json_tuple(j, 'x') jt AS v ORDER BY v"])
sig("schema_of_json",
    extra=["schema_of_json('{\"a\":1,\"b\":\"x\",\"c\":[1.5, 2],\"d\":null,\"e\":{\"z\":true,"
           "\"y\":[]}}')", "schema_of_json('[{\"a\":1},{\"b\":2}]')", "schema_of_json('1')",
           "schema_of_json('{\"a\":12345678901234567890}')", "schema_of_json('{\"a b\":1}')",
           "schema_of_json('{\"a\":[1, \"x\"]}')", "schema_of_json('{\"a\":[{\"x\":1},{\"x\":2.5}]}')",
           "schema_of_json('[]')",
           "schema_of_json('{\"a\":1}', map('primitivesAsString', 'true'))",
           "schema_of_json(CAST(NULL AS STRING))"])
sig("json_array_length",
    extra=["json_array_length('[1,2,[3,4]]')", "json_array_length('[]')",
           "json_array_length('{\"a\":1}')", "json_array_length('[1,2')",
           "json_array_length(CAST(NULL AS STRING))", "json_array_length('')",
           "json_array_length('[1] x')", "json_array_length(5)"])
sig("json_object_keys",
    extra=["json_object_keys('{\"b\":1,\"a\":{\"c\":2}}')", "json_object_keys('{}')",
           "json_object_keys('[1]')", "json_object_keys('{\"a\":1')",
           "json_object_keys('{\"a\":1,\"a\":2}')", "json_object_keys(CAST(NULL AS STRING))",
           "json_object_keys('')"])

# --- regular expressions (Java's syntax, run on RE2) ---
REGEX_ROWS = ("VALUES ('a1b22', '[a-z](\\\\d+)'), ('x-9', '(\\\\d)'), ('no digits', '(\\\\d)'), "
              "(NULL, '(a)'), ('abc', NULL), ('a😀b', '(.)b') AS t(s, p)")
sig("regexp_extract", ("string", "string"), ("string", "string", "small"),
    extra=[r"regexp_extract('100-200', '(\\d+)-(\\d+)', 1)",
           r"regexp_extract('100-200', '(\\d+)-(\\d+)', 2)",
           r"regexp_extract('100-200', '(\\d+)-(\\d+)')", r"regexp_extract('100-200', '(\\d+)', 0)",
           r"regexp_extract('100-200', '(\\d+)-(\\d+)', 3)", "regexp_extract('ab', '(a)|(b)', 2)",
           "regexp_extract('abc', 'x(y)', 1)", "regexp_extract('abc', 'x', 3)",
           "regexp_extract('abc', '(a)', -1)", "regexp_extract('abc', '(', 1)",
           "regexp_extract('a{b', 'a{b', 0)", "regexp_extract('a{2}', 'a{2}', 0)",
           "regexp_extract('漢字😀x', '(.)x', 1)", "regexp_extract('AbC', '(?i)abc', 0)",
           r"regexp_extract('a.b', '\\Q.\\E', 0)", "regexp_extract('abc', '(?<first>a)(?<rest>.*)', 2)",
           r"regexp_extract('aa', '(a)\\1', 0)", "regexp_extract('abc', '[b-]+', 0)",
           r"regexp_extract('x\ny', '.+', 0)", r"regexp_extract('x\ry', '(?s).+', 0)",
           r"regexp_extract('a\u000Bb', 'a\\sb', 0)", r"regexp_extract('AB12', '\\p{Alpha}+', 0)",
           r"regexp_extract('Ab', '\\p{Lu}\\p{Ll}', 0)", r"regexp_extract('ÅB', '\\p{IsLatin}+', 0)",
           r"regexp_extract('AAA', '\\u0041+', 0)", r"regexp_extract('a]b', '[]a]+', 0)",
           r"regexp_extract('tab\there', '\\t(h)', 1)", "regexp_extract(12345, '3(4)', 1)",
           f"SELECT regexp_extract(s, p) FROM {REGEX_ROWS}",
           f"SELECT regexp_extract(s, p, 0) FROM {REGEX_ROWS}"])
sig("regexp_extract_all", ("string", "string"), ("string", "string", "small"),
    extra=[r"regexp_extract_all('100-200, 300-400', '(\\d+)-(\\d+)', 1)",
           r"regexp_extract_all('100-200, 300-400', '(\\d+)-(\\d+)', 2)",
           r"regexp_extract_all('100-200, 300-400', '(\\d+)-(\\d+)')",
           r"regexp_extract_all('100-200, 300-400', '(\\d+)-(\\d+)', 0)",
           r"regexp_extract_all('100-200, 300-400', '(\\d+)-(\\d+)', 3)",
           "regexp_extract_all('abc', 'x*', 0)", "regexp_extract_all('ab', '(a)|(b)', 2)",
           "regexp_extract_all('abc', 'x', 3)", "regexp_extract_all('abc', '[', 0)",
           "regexp_extract_all('漢字😀', '.', 0)", "regexp_extract_all('', '', 0)",
           f"SELECT regexp_extract_all(s, p) FROM {REGEX_ROWS}"])
sig("regexp_replace", ("string", "string", "string"), ("string", "string", "string", "small"),
    extra=[r"regexp_replace('100-200', '(\\d+)', 'num')",
           r"regexp_replace('100-200', '(\\d+)-(\\d+)', '$2-$1')",
           r"regexp_replace('a.b', '\\.', '\\$')", r"regexp_replace('a.b', '\\.', '\\\\')",
           "regexp_replace('abc', 'b', '$')", "regexp_replace('abc', '(b)', '$2')",
           "regexp_replace('abc', '(b)', '$12')", "regexp_replace('abc', '(b)', '$1$0')",
           "regexp_replace('abc', 'b*', '-')", "regexp_replace('abc', '', '-')",
           "regexp_replace('aaa', 'a', 'b', 2)", "regexp_replace('abc', '^', 'x', 2)",
           "regexp_replace('abc', 'a', 'x', 10)", "regexp_replace('abc', 'c', 'x', 3)",
           "regexp_replace('abc', 'c', 'x', 4)", "regexp_replace('', 'x*', 'y', 1)",
           "regexp_replace('😀a😀', 'a', 'x', 3)", "regexp_replace('漢字漢', '漢', 'x', 2)",
           "regexp_replace('abc', '(', 'x')", "regexp_replace('abc', 'b', 'x', 0)",
           "regexp_replace('abc', 'b', 'x', CAST(NULL AS INT))",
           "regexp_replace('a b', ' ', 'x', 1 + 1)",
           f"SELECT regexp_replace(s, p, '<$0>') FROM {REGEX_ROWS}"])
sig("regexp_count", ("string", "string"),
    extra=["regexp_count('Steven Jones and Stephen Smith are the best players', 'Ste(v|ph)en')",
           "regexp_count('abcdefghijklmnopqrstuvwxyz', '[a-z]{3}')", "regexp_count('abc', '')",
           "regexp_count('abc', 'x*')", "regexp_count('abc', '(')",
           r"regexp_count('a\nb\r\nc', '.')", r"regexp_count('a\nb', '(?s).')",
           r"regexp_count('a\nb\n', 'b$')", r"regexp_count('ab1_', '\\w')",
           f"SELECT regexp_count(s, p) FROM {REGEX_ROWS}"])
sig("regexp_instr", ("string", "string"),
    extra=["regexp_instr('user@spark.apache.org', '@[^.]*')", "regexp_instr('😀ab', 'b')",
           "regexp_instr('abc', 'x')", "regexp_instr('abc', 'b', 1)", "regexp_instr('abc', 'b', 0)",
           "regexp_instr('abc', '')", "regexp_instr('abc', '(')",
           f"SELECT regexp_instr(s, p) FROM {REGEX_ROWS}"])
sig("regexp_substr", ("string", "string"),
    extra=["regexp_substr('Steven Jones and Stephen Smith are the best players', 'Ste(v|ph)en')",
           "regexp_substr('Steven Jones and Stephen Smith are the best players', 'Jeck')",
           "regexp_substr('abc', 'x*')", "regexp_substr('abc', '(')",
           f"SELECT regexp_substr(s, p) FROM {REGEX_ROWS}"])
DIFFERENCES.update({
    r"regexp_extract('aa', '(a)\\1', 0)": "RE2 has no backreferences: UNSUPPORTED_FEATURE",
    r"regexp_count('a\nb\n', 'b$')": "Java's $ also matches before a final line terminator; "
                                        "RE2's only at the end",
})

# --- more strings: pieces, formats, URLs, masks, UTF-8 and charsets ---
sig("left right", ("string", "small"),
    extra=["{f}('漢字😀ab', 3)", "{f}('abc', 10)", "{f}(12345, 2)", "{f}('abc', -2147483648)"])
sig("btrim", ("string",), ("string", "string"),
    extra=["btrim('  a b  ')", "btrim('xyaxy', 'xy')", "btrim('漢a漢', '漢')", "btrim('\tab\t')",
           "btrim('aaa', 'a')", "btrim('ab', '')"])
sig("elt", ("small", "string", "string"),
    extra=["elt(1, 'a', 'b')", "elt(2, 'a', 'b')", "elt(3, 'a', 'b')", "elt(0, 'a', 'b')",
           "elt(-1, 'a')", "elt(1, 2, 3)", "elt(2, 'a', NULL)", "elt(1, X'01', X'02')",
           "elt(CAST(NULL AS INT), 'a')", "elt('1', 'a', 'b')"])
sig("luhn_check", ("string",),
    extra=["luhn_check('79927398713')", "luhn_check('79927398710')", "luhn_check('8112189876')",
           "luhn_check('0')", "luhn_check('00')", "luhn_check('1234 5678')", "luhn_check('-18')",
           "luhn_check(79927398713)", "luhn_check('４２')"])
sig("mask", ("string",),
    extra=["mask('AbCD123-@$#')", "mask('AbCD123-@$#', 'Q')", "mask('AbCD123-@$#', 'Q', 'q')",
           "mask('AbCD123-@$#', 'Q', 'q', 'd')", "mask('AbCD123-@$#', 'Q', 'q', 'd', 'o')",
           "mask('AbCD123-@$#', NULL, 'q', 'd', 'o')", "mask('AbCD123-@$#', NULL, NULL, NULL, NULL)",
           "mask('ÅßΩ漢字🙂Zz9')", "mask('abc', 'XY')", "mask('abc', '')", "mask('abc', '漢')",
           "mask(CAST(NULL AS STRING), 'Q')"])
sig("url_encode", ("string",),
    extra=["url_encode('https://spark.apache.org/a b?x=1&y=é')", "url_encode('~*-._')",
           "url_encode('a+b')"])
sig("url_decode try_url_decode", ("string",),
    extra=["{f}('https%3A%2F%2Fspark.apache.org')", "{f}('a+b%20c')", "{f}('%E6%BC%A2%e5%ad%97')",
           "{f}('%')", "{f}('%2')", "{f}('%zz')", "{f}('%FF')", "{f}('100%')"])
sig("is_valid_utf8 make_valid_utf8 validate_utf8 try_validate_utf8", ("string",),
    extra=["{f}(X'61FF62')", "{f}(X'C3A9')", "{f}(X'ED9FBF')", "{f}(X'EDA080')", "{f}(X'F4908080')",
           "{f}(X'C0AF')", "{f}(X'E282')", "{f}(X'')", "{f}(CAST(X'80' AS STRING))", "{f}(123)"])

# --- collection functions (functions_collection.cc, exec/collection_kernels.cc) ---
sig("array_size", ("array",), ("strings",),
    extra=["array_size(map(1, 2))", "array_size(array(array(1), NULL))", "array_size(1)",
           "array_size(array())"])
sig("array_append array_prepend", ("array", "int"), ("strings", "string"),
    extra=["{f}(array(1, 2), 2.5D)", "{f}(array(1, 2), 3L)", "{f}(array('a'), 1)",
           "{f}(array(1, 2), NULL)", "{f}(array(array(1)), array(2, NULL))",
           "{f}(array(DATE'2024-01-01'), TIMESTAMP'2024-01-02 03:04:05')", "{f}(1, 1)",
           "{f}(array(true), false)", "{f}(array(X'01'), X'02')"])
sig("array_position", ("array", "int"), ("strings", "string"),
    extra=["array_position(array(3, 1, 2, 1), 1)", "array_position(array(1, 2), 1L)",
           "array_position(array(1L, 2L), 1)", "array_position(array(1, 2), 1.0D)",
           "array_position(array(1, 2), 'a')", "array_position(array(1), NULL)",
           "array_position(NULL, 1)", "array_position(array(array(1), array(2)), array(2))",
           "array_position(array(CAST('NaN' AS DOUBLE)), CAST('NaN' AS DOUBLE))",
           "array_position(array(-0.0D), 0.0D)", "array_position(array(0.0D), -0.0D)",
           "array_position(array(NULL, 2), 2)", "array_position(array(struct(1, 'a')), struct(1, 'a'))"])
sig("array_remove", ("array", "int"), ("strings", "string"),
    extra=["array_remove(array(1, NULL, 1, 2), 1)", "array_remove(array(1, 2), NULL)",
           "array_remove(array(1, 2), 1.5D)", "array_remove(array(1, 2), 'a')",
           "array_remove(NULL, 1)", "array_remove(array(array(1), array(2)), array(1))",
           "array_remove(array(CAST('NaN' AS DOUBLE), 1.0D), CAST('NaN' AS DOUBLE))",
           "array_remove(array(-0.0D, 0.0D, 1.0D), 0.0D)", "array_remove(array(1L, 2L), 2)"])
sig("array_repeat", ("int", "small"), ("string", "small"), ("array", "small"),
    extra=["array_repeat(NULL, 2)", "array_repeat('a', NULL)", "array_repeat('a', 2L)",
           "array_repeat('a', '2')", "array_repeat('a', CAST(2 AS TINYINT))",
           "array_repeat(1, 2147483647)", "array_repeat(2.5D, 3)", "array_repeat(DATE'2024-02-29', 2)"])
sig("array_insert", ("array", "small", "int"), ("strings", "small", "string"),
    extra=["array_insert(array(1, 2, 3), 0, 9)", "array_insert(array(1, 2, 3), 5, 9)",
           "array_insert(array(1, 2, 3), 4, 9)", "array_insert(array(1, 2, 3), -1, 9)",
           "array_insert(array(1, 2, 3), -3, 9)", "array_insert(array(1, 2, 3), -4, 9)",
           "array_insert(array(1, 2, 3), -5, 9)", "array_insert(array(1, 2, 3), -7, 9)",
           "array_insert(array(1, 2, 3), 1, NULL)", "array_insert(array(1, 2, 3), 2, 2.5D)",
           "array_insert(array(1, 2), 2L, 4)", "array_insert(array(1, 2), NULL, 3)",
           "array_insert(array(1, 2), '1', 3)", "array_insert(array(1, 2), 1, 'a')",
           "array_insert(1, 1, 1)", "array_insert(array(1, 2), CAST(1 AS TINYINT), 3)",
           "array_insert(array(1), 2147483647, 1)", "array_insert(array(1, 2), 1, 3L)",
           "array_insert(array(array(1)), 2, array(NULL))"])
sig("arrays_overlap", ("array", "array"), ("strings", "strings"),
    extra=["arrays_overlap(array(1, 2), array(2, 3))", "arrays_overlap(array(1, NULL), array(3))",
           "arrays_overlap(array(1, NULL), array(1))", "arrays_overlap(array(1), array(NULL))",
           "arrays_overlap(CAST(array() AS ARRAY<INT>), array(NULL))",
           "arrays_overlap(array(NULL), CAST(array() AS ARRAY<INT>))",
           "arrays_overlap(array(1, 2), array(1.5D))", "arrays_overlap(array(1), array(1L))",
           "arrays_overlap(array(1), array('a'))", "arrays_overlap(array(1), NULL)",
           "arrays_overlap(array(CAST('NaN' AS DOUBLE)), array(CAST('NaN' AS DOUBLE)))",
           "arrays_overlap(array(0.0D), array(-0.0D))",
           "arrays_overlap(array(array(1)), array(array(1)))",
           "arrays_overlap(array(1), array(DATE'2024-01-01'))"])
sig("array_union array_except array_intersect", ("array", "array"), ("strings", "strings"),
    extra=["{f}(array(1, 2, NULL, 2, 3), array(3, NULL, 1))", "{f}(array(1, 2, NULL), array(2))",
           "{f}(array(1, NULL), array(NULL))", "{f}(array(1), array(2.5D))",
           "{f}(array(1), array(1L))", "{f}(array(1), array('a'))", "{f}(array(1), NULL)",
           "{f}(array('b', 'a', 'b'), array('a', 'c'))",
           "{f}(array(0.0D, -0.0D, CAST('NaN' AS DOUBLE)), array(CAST('NaN' AS DOUBLE), -0.0D))",
           "{f}(array(-0.0D), array(0.0D))", "{f}(array(array(1), array(2), array(1)), array(array(1)))",
           "{f}(array(DATE'2024-01-01'), array(DATE'2024-01-01', DATE'2024-01-02'))",
           "{f}(array(X'01', X'01'), array(X'02'))", "{f}(array(true, false), array(true))"])
sig("flatten", extra=[
    "flatten(array(array(1, 2), array(3)))", "flatten(array(array(1, 2), NULL))",
    "flatten(array(array(1, NULL), array()))", "flatten(CAST(NULL AS ARRAY<ARRAY<INT>>))",
    "flatten(array(1, 2))", "flatten(array(array(array(1)), array(array(2, 3))))",
    "flatten(array(array('a'), array('b', NULL)))", "flatten(CAST(array() AS ARRAY<ARRAY<INT>>))",
    "flatten(array(CAST(NULL AS ARRAY<INT>)))", "flatten(NULL)", "flatten(array(array(1), array(2L)))"])
sig("arrays_zip", ("array", "strings"), ("array",),
    extra=["arrays_zip()", "arrays_zip(array(1, 2), array('a'))", "arrays_zip(1)",
           "arrays_zip(array(1), array(array(2)), CAST(array() AS ARRAY<STRING>))",
           "SELECT arrays_zip(a, b) FROM VALUES (array(1), array(2)) AS t(a, b)",
           "SELECT arrays_zip(a, b.x, array(3)) FROM VALUES (array(1), named_struct('x', array(2, 3))) "
           "AS t(a, b)"])
sig("sequence", ("small", "small"), ("int", "int"),
    extra=["sequence(1, 5)", "sequence(5, 1)", "sequence(1, 5, 2)", "sequence(5, 1, -2)",
           "sequence(1, 6, 2)", "sequence(1, 5, -1)", "sequence(1, 5, 0)", "sequence(1, 1, 0)",
           "sequence(1L, 3L)", "sequence(1, 3L)", "sequence(CAST(1 AS TINYINT), CAST(3 AS TINYINT))",
           "sequence(1, 3, 1L)", "sequence(1, CAST(NULL AS INT))", "sequence(1.0D, 3.0D)",
           "sequence('1', '3')", "sequence(-2147483648, 2147483647)",
           "sequence(0L, 9223372036854775807L, 4611686018427387904L)",
           "sequence(9223372036854775807L, 9223372036854775806L)",
           "sequence(DATE'2024-01-01', DATE'2024-01-05')", "sequence(DATE'2024-01-10', DATE'2024-01-01')",
           "sequence(DATE'2024-01-01', DATE'2024-01-10', INTERVAL 3 DAY)",
           "sequence(DATE'2024-01-10', DATE'2024-01-01', INTERVAL -3 DAY)",
           "sequence(DATE'2024-01-01', DATE'2024-01-10', INTERVAL -1 DAY)",
           "sequence(DATE'2024-01-01', DATE'2024-01-10', 1)",
           "sequence(TIMESTAMP'2024-03-10 00:00:00', TIMESTAMP'2024-03-10 05:00:00', INTERVAL 1 HOUR)",
           "sequence(TIMESTAMP'2024-01-01 00:00:00', TIMESTAMP'2024-01-01 00:01:00', INTERVAL 20 SECOND)",
           "sequence(TIMESTAMP'2024-01-01 01:00:00', TIMESTAMP'2024-01-01 00:00:00', INTERVAL -30 MINUTE)",
           "sequence(DATE'2024-01-01', TIMESTAMP'2024-01-01 12:00:00', INTERVAL 5 HOUR)",
           "sequence(1, 2, 3, 4)"])
sig("array_sort", ("array",), ("strings",),
    extra=["array_sort(array(3, NULL, 1, 2))", "array_sort(array('b', NULL, 'a'))",
           "array_sort(array(CAST('NaN' AS DOUBLE), 1.0D, -0.0D, 0.0D, NULL, "
           "CAST('-Infinity' AS DOUBLE)))",
           "array_sort(array(array(2), array(1, 2), NULL, array(1)))", "array_sort(array(map(1, 2)))",
           "array_sort(1)", "array_sort(array(struct(1, 'b'), struct(0, 'a')))",
           "array_sort(array(DATE'2024-01-02', DATE'2024-01-01'))",
           "array_sort(array(3, 1, 2), (l, r) -> r - l)",
           "array_sort(array(3, 1, 2), (l, r) -> CASE WHEN l < r THEN 1 WHEN l > r THEN -1 ELSE 0 END)",
           "array_sort(array(3, 1, 2), (l, r) -> NULL)", "array_sort(array(3, 1), (l, r) -> 1L)",
           "array_sort(array(3, 1), (l, r) -> 'a')",
           "array_sort(array('bb', 'a', 'ccc', 'dd'), (l, r) -> length(l) - length(r))",
           "array_sort(array('bb', 'a', 'ccc', 'dd'), (l, r) -> 0)",
           "array_sort(CAST(NULL AS ARRAY<INT>), (l, r) -> l - r)",
           "array_sort(array(2, NULL, 1), (l, r) -> CASE WHEN l IS NULL THEN 1 WHEN r IS NULL THEN -1 "
           "ELSE l - r END)"])
sig("zip_with", extra=[
    "zip_with(array(1, 2, 3), array('a', 'b'), (x, y) -> concat(x, y))",
    "zip_with(array(1, 2), array(10, 20), (x, y) -> x + y)",
    "zip_with(array(1, 2), CAST(NULL AS ARRAY<INT>), (x, y) -> x + y)",
    "zip_with(array(1, 2), array(10, 20), x -> x)", "zip_with(array(1, 2), 1, (x, y) -> x)",
    "zip_with(array(1), array(2, 3), (x, y) -> x IS NULL)",
    "zip_with(CAST(array() AS ARRAY<INT>), array(1), (x, y) -> coalesce(x, y * 2))",
    "zip_with(array(1, 2), array(3, 4), (x, y) -> array(x, y))",
    "zip_with(array('a'), array(1.5D), (x, y) -> struct(x, y))",
    "SELECT zip_with(a, b, (x, y) -> x * k + y) FROM VALUES (array(1, 2), array(3), 10), "
    "(array(5), NULL, 1), (array(), array(7, 8), 2) AS t(a, b, k)"])
sig("map_zip_with", extra=[
    "map_zip_with(map(1, 'a', 2, 'b'), map(1, 'x', 3, 'y'), (k, v1, v2) -> concat(v1, v2))",
    "map_zip_with(map(1, 'a'), map(1L, 'x'), (k, v1, v2) -> k)",
    "map_zip_with(map(1, 'a'), map('1', 'x'), (k, v1, v2) -> k)",
    "map_zip_with(map(1, 'a'), CAST(NULL AS MAP<INT,STRING>), (k, v1, v2) -> k)",
    "map_zip_with(map(2, 'a', 1, 'b'), map(3, 'x', 1, 'y'), (k, v1, v2) -> v2)",
    "map_zip_with(map(1, 'a'), map(1, 'x'), (k, v1) -> k)",
    "map_zip_with(map('a', 1), map('b', 2), (k, v1, v2) -> coalesce(v1, 0) + coalesce(v2, 0))",
    "map_zip_with(map(1, 2), 1, (k, v1, v2) -> k)",
    "SELECT map_zip_with(m, n, (k, v1, v2) -> v1 IS NULL OR v2 IS NULL) FROM VALUES "
    "(map('a', 1), map('a', 2, 'b', 3)), (map('c', 2), map('d', 1)) AS t(m, n)"])
sig("shuffle", ("array",), ("strings",), extra=["shuffle(1)", "shuffle(array(1, 2, 3, 4, 5))"],
    type_only=True)

# --- hashes ---
sig("xxhash64 hash", ("int",), ("bigint",), ("double",), ("string",), ("binary",), ("boolean",),
    ("date",), ("timestamp",), ("decimal",), ("array",), ("strings",),
    extra=["{f}(1, 'a', 2.5D)", "{f}(NULL)", "{f}(NULL, 1)", "{f}(CAST(1 AS TINYINT))",
           "{f}(CAST(1 AS SMALLINT))", "{f}(CAST(1.5 AS FLOAT))", "{f}(-0.0D)",
           "{f}(CAST(12345678901234567890.5 AS DECIMAL(30,1)))", "{f}(named_struct('a', 1, 'b', 'x'))",
           "{f}('abcde')", "{f}('ab')", "{f}('漢字')", "{f}(map('a', 1))", "{f}()"])

# --- try_ arithmetic ---
sig("try_add try_subtract try_multiply try_divide try_mod", ("int", "int"), ("bigint", "bigint"),
    ("double", "double"), ("small", "small"),
    extra=["{f}(2147483647, 1)", "{f}(-2147483648, -1)", "{f}(9223372036854775807L, 2L)",
           "{f}(-9223372036854775808L, -1L)", "{f}(7, 0)", "{f}(7.5D, 0.0D)", "{f}(1, 2.5D)",
           "{f}(CAST(5 AS TINYINT), CAST(127 AS TINYINT))", "{f}('3', 2)", "{f}(NULL, 1)",
           "{f}(CAST(1.5 AS DECIMAL(3,1)), CAST(2 AS DECIMAL(2,0)))", "{f}(-7, 3)", "{f}(7, -3)"])

# --- dates, errors, session values ---
sig("make_date", ("int", "small", "small"),
    extra=["make_date(2024, 2, 29)", "make_date(2023, 2, 29)", "make_date(2024, 13, 1)",
           "make_date(2024, 4, 31)", "make_date(2024, 1, 0)", "make_date(-44, 3, 15)",
           "make_date(2024, 2, CAST(NULL AS INT))", "make_date('2024', '5', '6')",
           "make_date(CAST(2024 AS SMALLINT), CAST(5 AS TINYINT), 6)", "make_date(2024L, 1, 1)"])
sig("date_part datepart", ("string", "timestamp"),
    extra=[f"{{f}}('{u}', {v})" for u in ("YEAR", "y", "quarter", "MONTH", "week", "DAY", "dow",
                                          "doy", "HOUR", "minute", "nope")
           for v in ("TIMESTAMP'2024-03-10 01:59:59'", "DATE'2024-12-30'")])
sig("trunc", ("date", "string"),
    extra=[f"trunc({d}, '{u}')" for d in ("DATE'2024-05-17'", "DATE'2024-01-01'",
                                           "TIMESTAMP'2024-11-03 01:30:00'", "'2024-08-31'")
           for u in ("YEAR", "yyyy", "yy", "quarter", "MONTH", "mm", "mon", "week", "day", "")])
sig("next_day", ("date", "string"),
    extra=[f"next_day({d}, '{w}')" for d in ("DATE'2024-05-17'", "DATE'1969-12-31'")
           for w in ("MO", "tue", "Wednesday", "THU", "fr", "SAT", "sun", "friday", "xx")])
sig("try_to_timestamp to_timestamp_ltz to_timestamp_ntz", ("string",), ("date",), ("timestamp",),
    extra=["{f}('2024-03-10 02:30:00')", "{f}('2024-11-03 01:30:00')", "{f}('bad')",
           "{f}('10/03/2024 14:05', 'dd/MM/yyyy HH:mm')", "{f}('2024-01-01T10:00:00Z')",
           "{f}('nope', 'yyyy')"])
sig("convert_timezone",
    extra=["convert_timezone('Europe/Brussels', 'America/Los_Angeles', "
           "TIMESTAMP_NTZ'2021-12-06 00:00:00')",
           "convert_timezone('Asia/Kolkata', TIMESTAMP_NTZ'2024-03-10 02:30:00')",
           "convert_timezone('UTC', 'Asia/Tokyo', '2024-01-01 00:00:00')",
           "convert_timezone('UTC', 'Asia/Tokyo', CAST(NULL AS TIMESTAMP_NTZ))",
           "convert_timezone('America/Los_Angeles', 'UTC', TIMESTAMP_NTZ'2024-11-03 01:30:00')"])
sig("assert_true", extra=["assert_true(1 < 2)", "assert_true(1 > 2)", "assert_true(NULL)",
                          "assert_true(false, 'custom')", "assert_true(1)",
                          "SELECT assert_true(v > 0) FROM VALUES (1), (2) AS t(v)",
                          "SELECT assert_true(v > 1) FROM VALUES (1), (2) AS t(v) WHERE v > 5"])
sig("raise_error", extra=["raise_error('boom')", "raise_error(NULL)",
                          "SELECT raise_error('boom') FROM VALUES (1) AS t(v) WHERE v > 5",
                          "raise_error(1)"])
sig("current_database current_schema current_catalog", ())
sig("current_user user session_user version", (), type_only=True)
sig("bit_count", ("int",), ("bigint",), ("boolean",),
    extra=["bit_count(CAST(-1 AS TINYINT))", "bit_count(CAST(-1 AS SMALLINT))", "bit_count(-1)",
           "bit_count(2.5D)", "bit_count('7')"])

# --- random values, buckets, bits, ranges, timestamps from fields ---
sig("rand random randn uuid", (), type_only=True,
    extra=["{f}(7)", "{f}(7L)", "{f}(NULL)"])
EXTRA["uuid"] = []
EXTRA["rand"] += ["rand(1.5D)", "SELECT rand(v) FROM VALUES (1) AS t(v)"]
sig("width_bucket", ("double", "double", "double", "small"),
    extra=["width_bucket(5.3D, 0.2D, 10.6D, 5)", "width_bucket(-2.1D, 1.3D, 3.4D, 3)",
           "width_bucket(8.1D, 0.0D, 5.7D, 4)", "width_bucket(-0.9D, 5.2D, 0.5D, 2)",
           "width_bucket(5.3D, 10.6D, 0.2D, 5)", "width_bucket(1, 1, 1, 2)",
           "width_bucket(1.0D, 0.0D, 2.0D, 0)", "width_bucket(1, 0, 10, 3L)",
           "width_bucket(CAST('NaN' AS DOUBLE), 0.0D, 1.0D, 3)"])
sig("bit_get getbit", ("int", "small"), ("bigint", "small"),
    extra=["{f}(11, 0)", "{f}(11, 2)", "{f}(-1, 31)", "{f}(1, 32)", "{f}(1L, 63)", "{f}(1L, 64)",
           "{f}(CAST(-1 AS TINYINT), 7)", "{f}(CAST(1 AS TINYINT), 8)", "{f}(5, -1)",
           "{f}(5, NULL)", "{f}(2.5D, 1)"])
sig("between", ("int", "int", "int"), ("double", "double", "double"), ("string", "string", "string"),
    extra=["between(2, 1, 3)", "between(5, 1, 3)", "between(2, NULL, 3)", "between(5, NULL, 3)",
           "between('b', 'a', 'c')", "between(DATE'2024-01-02', '2024-01-01', '2024-01-03')",
           "between(1.5D, 1, 2)"])
sig("make_timestamp make_timestamp_ltz try_make_timestamp try_make_timestamp_ltz",
    ("int", "small", "small", "small", "small", "decimal"),
    extra=["{f}(2024, 3, 10, 2, 30, 0)", "{f}(2024, 11, 3, 1, 30, 0)", "{f}(2024, 2, 29, 23, 59, 59.999999)",
           "{f}(2024, 1, 1, 0, 0, 60)", "{f}(2024, 1, 1, 0, 0, 60.5)", "{f}(2024, 2, 30, 0, 0, 0)",
           "{f}(2024, 1, 1, 24, 0, 0)", "{f}(2024, 1, 1, 0, 60, 0)", "{f}(2024, 13, 1, 0, 0, 0)",
           "{f}(2024, 1, 1, 0, 0, 0, 'Asia/Kolkata')", "{f}(2024, 1, 1, 0, 0, 1.5D)",
           "{f}(2024, 1, 1, 0, 0, NULL)"])
sig("make_timestamp_ntz try_make_timestamp_ntz", ("int", "small", "small", "small", "small", "decimal"),
    extra=["{f}(2024, 3, 10, 2, 30, 0)", "{f}(2024, 1, 1, 0, 0, 60)", "{f}(2024, 1, 1, 0, 0, 60.5)",
           "{f}(2024, 2, 30, 0, 0, 0)", "{f}(2024, 2, 29, 23, 59, 59.999999)"])

# --- window functions: whole queries over VALUES, the window's column first, every row ---
WINDOW_ROWS = ("VALUES ('a', 1), ('a', 2), ('a', 2), ('a', NULL), ('b', 5), ('b', 3), (NULL, 7), "
               "(NULL, 7), ('c', NULL) AS t(k, v)")
WINDOW_TEXT = "VALUES ('a', 'x'), ('a', 'y'), ('a', NULL), ('b', 'z') AS t(k, s)"


def window_case(call, over, rows=WINDOW_ROWS, columns="k, v"):
    return f"SELECT {call} OVER ({over}), {columns} FROM {rows} ORDER BY 2, 3, 1"


for _name in "row_number rank dense_rank percent_rank cume_dist".split():
    SIGNATURES[_name] = []
    EXTRA[_name] = [
        window_case(f"{_name}()", "PARTITION BY k ORDER BY v"),
        window_case(f"{_name}()", "ORDER BY v DESC NULLS LAST, k"),
        window_case(f"{_name}()", "PARTITION BY k ORDER BY v DESC, k"),
        f"SELECT {_name}() OVER (PARTITION BY k), k, v FROM {WINDOW_ROWS}",
        f"SELECT {_name}() FROM {WINDOW_ROWS}",
        window_case(f"{_name}()", "PARTITION BY k ORDER BY v ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING"),
    ]
EXTRA["row_number"] += [
    f"SELECT row_number() OVER w, k, v FROM {WINDOW_ROWS} WINDOW w AS (PARTITION BY k ORDER BY v) "
    "ORDER BY 2, 3, 1",
    f"SELECT row_number() OVER (ORDER BY v, k) AS n, sum(v) OVER (PARTITION BY k), k, v "
    f"FROM {WINDOW_ROWS} ORDER BY 1",
    f"SELECT row_number() OVER (PARTITION BY k ORDER BY v) * 10 + 1, k, v FROM {WINDOW_ROWS} "
    "WHERE v IS NOT NULL ORDER BY 2, 3, 1",
]
SIGNATURES["ntile"] = []
EXTRA["ntile"] = [
    window_case("ntile(3)", "PARTITION BY k ORDER BY v"),
    window_case("ntile(2)", "ORDER BY v, k"),
    window_case("ntile(20)", "ORDER BY v, k"),
    window_case("ntile(0)", "ORDER BY v"),
    window_case("ntile(v)", "ORDER BY v"),
]
for _name in ("lag", "lead"):
    SIGNATURES[_name] = []
    EXTRA[_name] = [
        window_case(f"{_name}(v)", "PARTITION BY k ORDER BY v"),
        window_case(f"{_name}(v, 2, -1)", "PARTITION BY k ORDER BY v"),
        window_case(f"{_name}(v, 1, v * 10)", "ORDER BY v, k"),
        window_case(f"{_name}(v) IGNORE NULLS", "ORDER BY k, v"),
        window_case(f"{_name}(v, 2, 0) IGNORE NULLS", "ORDER BY k, v"),
        window_case(f"{_name}(s, 1, 'none')", "PARTITION BY k ORDER BY s", WINDOW_TEXT, "k, s"),
        window_case(f"{_name}(v, 0)", "PARTITION BY k ORDER BY v"),
        f"SELECT {_name}(v) OVER (PARTITION BY k), k, v FROM {WINDOW_ROWS}",
        f"SELECT v - {_name}(v) OVER (PARTITION BY k ORDER BY v), k, v FROM {WINDOW_ROWS} "
        "ORDER BY 2, 3, 1",
    ]
SIGNATURES["nth_value"] = []
EXTRA["nth_value"] = [
    window_case("nth_value(v, 2)", "PARTITION BY k ORDER BY v"),
    window_case("nth_value(v, 2)", "PARTITION BY k ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING "
                "AND UNBOUNDED FOLLOWING"),
    window_case("nth_value(v, 1) IGNORE NULLS", "PARTITION BY k ORDER BY v"),
    window_case("nth_value(v, 0)", "PARTITION BY k ORDER BY v"),
]
_WINDOW_AGGREGATES = {
    "sum": ["sum(v)"], "avg": ["avg(v)"], "count": ["count(v)", "count(*)"],
    "min": ["min(v)"], "max": ["max(v)"], "first_value": ["first_value(v)"],
    "last_value": ["last_value(v)"], "first": ["first(v, true)"], "last": ["last(v) IGNORE NULLS"],
}
for _name, _calls in _WINDOW_AGGREGATES.items():
    SIGNATURES.setdefault(_name, [])
    EXTRA.setdefault(_name, [])
    for _call in _calls:
        EXTRA[_name] += [
            window_case(_call, "PARTITION BY k ORDER BY v"),
            window_case(_call, "ORDER BY v, k"),
            window_case(_call, "PARTITION BY k ORDER BY v ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING"),
            window_case(_call, "PARTITION BY k ORDER BY v ROWS BETWEEN CURRENT ROW AND UNBOUNDED "
                        "FOLLOWING"),
            window_case(_call, "ORDER BY v, k ROWS BETWEEN 2 FOLLOWING AND 3 FOLLOWING"),
            window_case(_call, "ORDER BY k, v ROWS 2 PRECEDING"),
        ]
        # Without an order the frame is the whole partition, in no order: only for aggregates
        # that do not depend on one.
        if not _name.startswith(("first", "last")):
            EXTRA[_name] += [window_case(_call, "PARTITION BY k"), window_case(_call, "")]
EXTRA["max"].append(window_case("max(s)", "PARTITION BY k ORDER BY s", WINDOW_TEXT, "k, s"))
EXTRA["count"] += [
    window_case("count(DISTINCT v)", "PARTITION BY k"),
    window_case("count(v)", "PARTITION BY k ORDER BY v RANGE BETWEEN UNBOUNDED PRECEDING AND "
                "UNBOUNDED FOLLOWING"),
]
EXTRA["sum"] += [
    window_case("sum(v)", "PARTITION BY k ORDER BY v RANGE BETWEEN CURRENT ROW AND UNBOUNDED "
                "FOLLOWING"),
    window_case("upper(k)", "PARTITION BY k"),
]
