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
