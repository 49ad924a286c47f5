"""ember.sql.types against the real PySpark 4.0 (its pure-Python parts) as the oracle.

PySpark parses DDL in the JVM, so DDL cases compare with schemas built from pyspark's classes by
hand; `build(m)` takes a types module and builds the same type from either engine's classes.
"""

import pickle
import random
import re

import pyspark.errors as P_errors
import pyspark.sql.types as P
import pytest

import ember.errors as E_errors
import ember.sql.types as E

ATOMIC = [
    "NullType",
    "StringType",
    "BinaryType",
    "BooleanType",
    "DateType",
    "TimestampType",
    "TimestampNTZType",
    "DoubleType",
    "FloatType",
    "ByteType",
    "ShortType",
    "IntegerType",
    "LongType",
]

# Types built the same way from either module `m`.
NESTED = {
    "decimal_default": lambda m: m.DecimalType(),
    "decimal": lambda m: m.DecimalType(38, 18),
    "char": lambda m: m.CharType(5),
    "varchar": lambda m: m.VarcharType(20),
    "interval_day_second": lambda m: m.DayTimeIntervalType(),
    "interval_hour": lambda m: m.DayTimeIntervalType(1),
    "interval_minute_second": lambda m: m.DayTimeIntervalType(2, 3),
    "array": lambda m: m.ArrayType(m.IntegerType()),
    "array_not_null": lambda m: m.ArrayType(m.StringType(), False),
    "map": lambda m: m.MapType(m.StringType(), m.LongType()),
    "map_not_null": lambda m: m.MapType(m.IntegerType(), m.ArrayType(m.DoubleType()), False),
    "struct_empty": lambda m: m.StructType(),
    "struct": lambda m: m.StructType(
        [
            m.StructField("a", m.IntegerType()),
            m.StructField("b", m.StringType(), False),
            m.StructField("c", m.DecimalType(10, 2), True, {"comment": "money"}),
        ]
    ),
    "struct_nested": lambda m: m.StructType(
        [
            m.StructField("id", m.LongType(), False),
            m.StructField(
                "s",
                m.StructType(
                    [
                        m.StructField("x", m.TimestampType()),
                        m.StructField(
                            "y", m.ArrayType(m.StructType([m.StructField("z", m.ByteType())]))
                        ),
                    ]
                ),
            ),
            m.StructField("m", m.MapType(m.StringType(), m.MapType(m.DateType(), m.BinaryType()))),
            m.StructField("weird name`", m.ShortType()),
        ]
    ),
}


def both(build):
    return build(E), build(P)


@pytest.mark.parametrize("name", ATOMIC)
def test_atomic_strings(name):
    e, p = getattr(E, name)(), getattr(P, name)()
    assert repr(e) == repr(p)
    assert e.simpleString() == p.simpleString()
    assert e.typeName() == p.typeName()
    assert e.jsonValue() == p.jsonValue()
    assert e.json() == p.json()


@pytest.mark.parametrize("name", ATOMIC)
def test_atomic_singletons_and_equality(name):
    cls = getattr(E, name)
    assert (cls() is cls()) == (getattr(P, name)() is getattr(P, name)())
    assert cls() == cls() and hash(cls()) == hash(cls())
    for other in ATOMIC:
        if other != name:
            assert cls() != getattr(E, other)()


@pytest.mark.parametrize("key", NESTED)
def test_nested_strings(key):
    e, p = both(NESTED[key])
    assert repr(e) == repr(p)
    assert e.simpleString() == p.simpleString()
    assert e.jsonValue() == p.jsonValue()
    assert e.json() == p.json()


@pytest.mark.parametrize("key", NESTED)
def test_json_round_trip_with_pyspark(key):
    e, p = both(NESTED[key])
    assert E._parse_datatype_json_string(p.json()) == e
    assert P._parse_datatype_json_string(e.json()) == p


@pytest.mark.parametrize("key", [k for k in NESTED if k.startswith("struct")])
def test_tree_string(key):
    e, p = both(NESTED[key])
    assert e.treeString() == p.treeString()
    assert e.treeString(1) == p.treeString(1)


def test_equality_and_hash():
    assert E.DecimalType(10, 2) == E.DecimalType(10, 2)
    assert E.DecimalType(10, 2) != E.DecimalType(10, 3)
    assert E.ArrayType(E.IntegerType()) != E.ArrayType(E.IntegerType(), False)
    assert E.MapType(E.StringType(), E.IntegerType()) == E.MapType(E.StringType(), E.IntegerType())
    s1, s2 = NESTED["struct_nested"](E), NESTED["struct_nested"](E)
    assert s1 == s2 and hash(s1) == hash(s2)
    assert s1 != NESTED["struct"](E)
    assert E.StructField("a", E.IntegerType()) != E.StructField("a", E.IntegerType(), False)
    # The two engines' types never compare equal.
    assert E.IntegerType() != P.IntegerType()


def test_pickle():
    for build in NESTED.values():
        t = build(E)
        assert pickle.loads(pickle.dumps(t)) == t
    assert pickle.loads(pickle.dumps(E.IntegerType())) == E.IntegerType()


def test_type_errors_match_pyspark():
    with pytest.raises(AssertionError):
        E.ArrayType("int")
    with pytest.raises(AssertionError):
        E.StructField(1, E.IntegerType())
    with pytest.raises(AssertionError):
        E.StructType([1])
    assert_same_error(lambda m: m.StructField("a", m.IntegerType()).typeName())
    assert_same_error(lambda m: m.DayTimeIntervalType(5))
    assert_same_error(lambda m: m._parse_datatype_json_string('"nope"'))
    assert_same_error(lambda m: m._parse_datatype_json_string('{"type": "udf"}'))


def assert_same_error(action):
    """`action(m)` raises the same exception class (by name) with the same text in both."""
    errors = []
    for m in (E, P):
        with pytest.raises(Exception) as info:
            action(m)
        errors.append(info.value)
    e, p = errors
    assert type(e).__name__ == type(p).__name__
    assert str(e) == str(p)
    if isinstance(p, P_errors.PySparkException):
        assert e.getCondition() == p.getCondition()
        assert e.getMessageParameters() == p.getMessageParameters()


# ---------------------------------------------------------------------------------------------
# StructType API


def test_struct_access():
    e, p = both(NESTED["struct"])
    assert e.names == p.names
    assert e.fieldNames() == p.fieldNames()
    assert len(e) == len(p) == 3
    assert [f.name for f in e] == [f.name for f in p]
    assert repr(e["b"]) == repr(p["b"])
    assert repr(e[-1]) == repr(p[-1])
    assert repr(e[1:]) == repr(p[1:])
    assert isinstance(e[1:], E.StructType)
    assert e.fields[0] == E.StructField("a", E.IntegerType())
    names = e.fieldNames()
    names.append("x")
    assert e.names == ["a", "b", "c"]


@pytest.mark.parametrize("key", ["nope", 7, -4, 1.5])
def test_struct_access_errors(key):
    assert_same_error(lambda m: NESTED["struct"](m)[key])


def test_struct_add():
    def build(m):
        return (
            m.StructType()
            .add("a", m.IntegerType())
            .add(m.StructField("b", m.StringType(), False))
            .add("c", "integer", False, {"k": 1})
            .add("d", "decimal(10,2)")
            .add("e", m.ArrayType(m.LongType()), True)
        )

    e, p = both(build)
    assert e.json() == p.json()
    assert e.names == p.names
    # Ember also takes the DDL spelling of a type, as Scala's StructType.add does.
    assert E.StructType().add("a", "int").add("b", "ARRAY<STRING>") == E.StructType(
        [E.StructField("a", E.IntegerType()), E.StructField("b", E.ArrayType(E.StringType()))]
    )
    assert_same_error(lambda m: m.StructType().add("a"))


def test_struct_add_returns_self_and_does_not_alias_input():
    fields = [E.StructField("a", E.IntegerType())]
    s = E.StructType(fields)
    assert s.add("b", E.LongType()) is s
    assert len(fields) == 1 and s.names == ["a", "b"]


def test_to_ddl():
    cases = {
        "struct": "a INT,b STRING NOT NULL,c DECIMAL(10,2) COMMENT 'money'",
        "struct_nested": (
            "id BIGINT NOT NULL,"
            "s STRUCT<x: TIMESTAMP, y: ARRAY<STRUCT<z: TINYINT>>>,"
            "m MAP<STRING, MAP<DATE, BINARY>>,"
            "`weird name``` SMALLINT"
        ),
        "struct_empty": "",
    }
    for key, ddl in cases.items():
        schema = NESTED[key](E)
        assert schema.toDDL() == ddl
        if ddl:
            assert E._parse_ddl(ddl) == schema
    quoted = E.StructType(
        [
            E.StructField("1st", E.NullType()),
            E.StructField("it's", E.TimestampNTZType(), True, {"comment": "it's"}),
            E.StructField("s", E.StructType([E.StructField("a-b", E.IntegerType(), False)])),
        ]
    )
    assert quoted.toDDL() == (
        "`1st` VOID,`it's` TIMESTAMP_NTZ COMMENT 'it\\'s',s STRUCT<`a-b`: INT NOT NULL>"
    )
    assert E._parse_ddl(quoted.toDDL()) == quoted


# ---------------------------------------------------------------------------------------------
# DDL parsing

DDL_CASES = [
    (
        "a INT, b STRING, ts TIMESTAMP, d DECIMAL(10,2), s STRUCT<x: INT, y: ARRAY<STRING>>, "
        "m MAP<STRING,INT>",
        lambda m: m.StructType(
            [
                m.StructField("a", m.IntegerType()),
                m.StructField("b", m.StringType()),
                m.StructField("ts", m.TimestampType()),
                m.StructField("d", m.DecimalType(10, 2)),
                m.StructField(
                    "s",
                    m.StructType(
                        [
                            m.StructField("x", m.IntegerType()),
                            m.StructField("y", m.ArrayType(m.StringType())),
                        ]
                    ),
                ),
                m.StructField("m", m.MapType(m.StringType(), m.IntegerType())),
            ]
        ),
    ),
    (
        "event_id INT, company_id STRING, amount DOUBLE, event_ts STRING",
        lambda m: m.StructType(
            [
                m.StructField("event_id", m.IntegerType()),
                m.StructField("company_id", m.StringType()),
                m.StructField("amount", m.DoubleType()),
                m.StructField("event_ts", m.StringType()),
            ]
        ),
    ),
    (
        "a:int, b:string",
        lambda m: m.StructType(
            [m.StructField("a", m.IntegerType()), m.StructField("b", m.StringType())]
        ),
    ),
    (
        "a: array<bigint>, b: map<string, struct<c: double>>",
        lambda m: m.StructType(
            [
                m.StructField("a", m.ArrayType(m.LongType())),
                m.StructField(
                    "b",
                    m.MapType(m.StringType(), m.StructType([m.StructField("c", m.DoubleType())])),
                ),
            ]
        ),
    ),
    (
        "a bigint, b long, c integer, d smallint, e short, f tinyint, g byte, h boolean, "
        "i double, j float, k real, l date, m timestamp, n timestamp_ntz, o timestamp_ltz, "
        "p binary, q numeric, r dec(5), s decimal(38, 18), t void, u char(3), v varchar(9)",
        lambda m: m.StructType(
            [
                m.StructField(name, t)
                for name, t in zip(
                    "abcdefghijklmnopqrstuv",
                    [
                        m.LongType(),
                        m.LongType(),
                        m.IntegerType(),
                        m.ShortType(),
                        m.ShortType(),
                        m.ByteType(),
                        m.ByteType(),
                        m.BooleanType(),
                        m.DoubleType(),
                        m.FloatType(),
                        m.FloatType(),
                        m.DateType(),
                        m.TimestampType(),
                        m.TimestampNTZType(),
                        m.TimestampType(),
                        m.BinaryType(),
                        m.DecimalType(10, 0),
                        m.DecimalType(5, 0),
                        m.DecimalType(38, 18),
                        m.NullType(),
                        m.CharType(3),
                        m.VarcharType(9),
                    ],
                )
            ]
        ),
    ),
    (
        "  `a b` Int NOT NULL COMMENT 'the \\'key\\'',\n  `x``y` sTrInG comment \"c\",\n"
        "  `c.d` STRUCT<`e f`: INT NOT NULL, g STRING COMMENT 'h'>  ",
        lambda m: m.StructType(
            [
                m.StructField("a b", m.IntegerType(), False, {"comment": "the 'key'"}),
                m.StructField("x`y", m.StringType(), True, {"comment": "c"}),
                m.StructField(
                    "c.d",
                    m.StructType(
                        [
                            m.StructField("e f", m.IntegerType(), False),
                            m.StructField("g", m.StringType(), True, {"comment": "h"}),
                        ]
                    ),
                ),
            ]
        ),
    ),
    (
        # Type names are not reserved as field names.
        "date DATE, timestamp TIMESTAMP, string STRING, struct STRUCT<>, "
        "map MAP<INT, ARRAY<MAP<INT,INT>>>",
        lambda m: m.StructType(
            [
                m.StructField("date", m.DateType()),
                m.StructField("timestamp", m.TimestampType()),
                m.StructField("string", m.StringType()),
                m.StructField("struct", m.StructType()),
                m.StructField(
                    "map",
                    m.MapType(
                        m.IntegerType(), m.ArrayType(m.MapType(m.IntegerType(), m.IntegerType()))
                    ),
                ),
            ]
        ),
    ),
    (
        "d INTERVAL DAY TO SECOND, h interval hour, ms interval minute to second",
        lambda m: m.StructType(
            [
                m.StructField("d", m.DayTimeIntervalType(0, 3)),
                m.StructField("h", m.DayTimeIntervalType(1, 1)),
                m.StructField("ms", m.DayTimeIntervalType(2, 3)),
            ]
        ),
    ),
    (
        "a INT -- the key\n, b STRING /* a\nlong comment */, c DATE",
        lambda m: m.StructType(
            [
                m.StructField("a", m.IntegerType()),
                m.StructField("b", m.StringType()),
                m.StructField("c", m.DateType()),
            ]
        ),
    ),
    # A single type, not a schema.
    ("int", lambda m: m.IntegerType()),
    ("STRING", lambda m: m.StringType()),
    ("decimal(10, 10)", lambda m: m.DecimalType(10, 10)),
    ("Array<Short>", lambda m: m.ArrayType(m.ShortType())),
    ("map<string,string>", lambda m: m.MapType(m.StringType(), m.StringType())),
    (
        "struct<a:byte,b:decimal(16,8)>",
        lambda m: m.StructType(
            [m.StructField("a", m.ByteType()), m.StructField("b", m.DecimalType(16, 8))]
        ),
    ),
    # An empty schema reads as an empty struct, as in Spark.
    ("", lambda m: m.StructType()),
]


@pytest.mark.parametrize("ddl, build", DDL_CASES, ids=[c[0][:40] for c in DDL_CASES])
def test_parse_ddl(ddl, build):
    e, p = both(build)
    parsed = E._parse_ddl(ddl)
    assert parsed.json() == p.json()
    assert repr(parsed) == repr(p)
    assert parsed == e
    assert E.DataType.fromDDL(ddl) == e


# The regex tokenizer Ember had before its hand-written one (re costs start-up time): the
# reference for the tokens of every DDL case and of malformed quotes and comments.
_REGEX_TOKEN = re.compile(
    r"""(?P<space>\s+|--[^\n]*|/\*.*?\*/)
      | (?P<word>[A-Za-z0-9_]+)
      | `(?P<ident>(?:[^`]|``)*)`
      | '(?P<single>(?:[^'\\]|\\.)*)'
      | "(?P<double>(?:[^"\\]|\\.)*)"
      | (?P<punct>.)""",
    re.VERBOSE | re.DOTALL,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "b": "\b", "Z": "\x1a"}


def _regex_tokens(text):
    tokens = []
    for m in _REGEX_TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "space":
            continue
        if kind == "ident":
            value = m.group("ident").replace("``", "`")
        elif kind in ("single", "double"):
            kind = "string"
            value = re.sub(r"\\(.)", lambda e: _ESCAPES.get(e.group(1), e.group(1)), m.group(m.lastgroup))
        else:
            value = m.group()
        tokens.append((kind, m.group(), value, m.start()))
    return tokens + [("end", "", "", len(text))]


@pytest.mark.parametrize("ddl", [c[0] for c in DDL_CASES] + [
    "a INT,\nb ARRAY<INT", "  k INT , v DOUBLE\t", "a:int", "x  ", "(,)<>:", "1a_ b2",
    "a INT NOT", "a DECIMAL(1,2,3)", "`a``b` INT", "`a`` INT", "`open", "x STRING COMMENT 'it\\'s'",
    "c STRING COMMENT \"tab\\there\\\\\"", "'unclosed\\'", "a INT -- note\n, b INT", "a /* x */ INT",
    "a /* open", "/*/ a", "a\u00a0INT", "é INT", "a\\",
])
def test_tokenizer_matches_the_regex_one(ddl):
    assert [(t.kind, t.text, t.value, t.pos) for t in E._tokenize(ddl)] == _regex_tokens(ddl)


def test_tokenizer_matches_the_regex_one_on_random_texts():
    rng = random.Random(5)
    for _ in range(3000):
        text = "".join(rng.choice("`'\"\\/*-\n a1_(,)é") for _ in range(rng.randrange(14)))
        assert [(t.kind, t.text, t.value, t.pos) for t in E._tokenize(text)] == _regex_tokens(text), text


@pytest.mark.parametrize(
    "ddl, cls, condition, position",
    [
        ("a INTT", "ParseException", "UNSUPPORTED_DATATYPE", "(line 1, pos 2)"),
        ("a INT,", "ParseException", "PARSE_SYNTAX_ERROR", "(line 1, pos 6)"),
        ("a INT b STRING", "ParseException", "PARSE_SYNTAX_ERROR", "(line 1, pos 6)"),
        ("a INT,\nb ARRAY<INT", "ParseException", "PARSE_SYNTAX_ERROR", "(line 2, pos 11)"),
        ("a MAP<INT>", "ParseException", "PARSE_SYNTAX_ERROR", "(line 1, pos 9)"),
        ("a INT(5)", "ParseException", "UNSUPPORTED_DATATYPE", "(line 1, pos 2)"),
        ("a CHAR", "ParseException", "DATATYPE_MISSING_SIZE", "(line 1, pos 2)"),
        ("a DECIMAL(1,2,3)", "ParseException", "UNSUPPORTED_DATATYPE", "(line 1, pos 2)"),
        ("a INT NOT", "ParseException", "PARSE_SYNTAX_ERROR", "(line 1, pos 9)"),
        ("a INT COMMENT x", "ParseException", "PARSE_SYNTAX_ERROR", "(line 1, pos 14)"),
        ("`a INT", "ParseException", "PARSE_SYNTAX_ERROR", "(line 1, pos 0)"),
        ("a INTERVAL YEAR TO MONTH", "ParseException", "UNSUPPORTED_DATATYPE", "(line 1, pos 2)"),
        ("a DECIMAL(39,2)", "ArithmeticException", "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION", None),
        ("a DECIMAL(2,3)", "ParseException", "_LEGACY_ERROR_TEMP_1228", None),
    ],
)
def test_parse_ddl_errors(ddl, cls, condition, position):
    with pytest.raises(E_errors.PySparkException) as info:
        E._parse_ddl(ddl)
    exc = info.value
    assert type(exc).__name__ == cls
    assert exc.getCondition() == condition
    if position:
        assert exc.getSqlState() in ("42601", "0A000", "42K01")
        text = str(exc)
        assert text.startswith(f"\n[{condition}] ")
        assert f"SQLSTATE: {exc.getSqlState()} {position}\n\n== SQL ==\n{ddl}\n" in text
        column = int(position.split("pos ")[1].rstrip(")"))
        assert ("-" * column + "^^^\n") in text


def test_parse_ddl_error_texts():
    with pytest.raises(E_errors.ParseException) as info:
        E._parse_ddl("a INTT")
    assert str(info.value) == (
        '\n[UNSUPPORTED_DATATYPE] Unsupported data type "INTT". SQLSTATE: 0A000 (line 1, pos 2)\n'
        "\n== SQL ==\na INTT\n--^^^\n"
    )
    with pytest.raises(E_errors.ParseException) as info:
        E._parse_ddl("a INT,")
    assert str(info.value) == (
        "\n[PARSE_SYNTAX_ERROR] Syntax error at or near end of input. SQLSTATE: 42601"
        " (line 1, pos 6)\n\n== SQL ==\na INT,\n------^^^\n"
    )
    with pytest.raises(E_errors.ArithmeticException) as info:
        E._parse_ddl("a DECIMAL(39,2)")
    assert str(info.value) == (
        "[DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION] Decimal precision 39 exceeds max precision 38."
        " SQLSTATE: 22003"
    )
    with pytest.raises(E_errors.ParseException) as info:
        E._parse_ddl("a DECIMAL(2,3)")
    assert str(info.value) == (
        "\nDecimal scale (3) cannot be greater than precision (2).\n== SQL ==\na DECIMAL(2,3)"
    )
    with pytest.raises(E_errors.ParseException) as info:
        E._parse_ddl("a VARCHAR")
    assert str(info.value) == (
        '\n[DATATYPE_MISSING_SIZE] DataType "VARCHAR" requires a length parameter, for example'
        ' "VARCHAR"(10). Please specify the length. SQLSTATE: 42K01 (line 1, pos 2)\n'
        "\n== SQL ==\na VARCHAR\n--^^^\n"
    )


# ---------------------------------------------------------------------------------------------
# Row


def test_row_keyword_form():
    e, p = E.Row(name="Alice", age=11, tags=["x"]), P.Row(name="Alice", age=11, tags=["x"])
    assert repr(e) == repr(p) == "Row(name='Alice', age=11, tags=['x'])"
    assert e == p == ("Alice", 11, ["x"])
    assert e.name == "Alice" and e["age"] == 11 and e[0] == "Alice" and e[-1] == ["x"]
    assert e[:2] == p[:2]
    assert e.asDict() == p.asDict()
    assert ("name" in e) == ("name" in p) and ("Alice" in e) == ("Alice" in p)
    assert e.__fields__ == p.__fields__
    assert len(e) == 3 and list(e) == list(p)


def test_row_order_is_as_given():
    assert list(E.Row(b=1, a=2).asDict()) == ["b", "a"]
    assert repr(E.Row(b=1, a=2)) == repr(P.Row(b=1, a=2))


def test_row_equality_ignores_names():
    assert E.Row(a=1, b=2) == E.Row(x=1, y=2) == (1, 2)
    assert E.Row(a=1) != E.Row(a=2)
    assert hash(E.Row(a=1, b=2)) == hash((1, 2))
    assert {E.Row(a=1): "v"}[(1,)] == "v"


def test_row_factory():
    e_cls, p_cls = E.Row("name", "age"), P.Row("name", "age")
    assert repr(e_cls) == repr(p_cls) == "<Row('name', 'age')>"
    e, p = e_cls("Al", 3), p_cls("Al", 3)
    assert repr(e) == repr(p)
    assert e.age == 3 and e["name"] == "Al"
    assert "name" in e_cls and ("name" in e_cls) == ("name" in p_cls)
    # Fewer values than names: PySpark keeps them, the missing names fail on access.
    short_e, short_p = e_cls("Al"), p_cls("Al")
    assert repr(short_e) == repr(short_p)
    assert_same_error(lambda m: m.Row("name", "age")("Al")["age"])
    assert_same_error(lambda m: m.Row("name", "age")("Al", 3, 4))


def test_row_as_dict_recursive():
    def build(m):
        return m.Row(a=m.Row(b=1, c=[m.Row(d=2)]), e={"f": m.Row(g=3)}, h=None)

    e, p = both(build)
    expected = {"a": {"b": 1, "c": [{"d": 2}]}, "e": {"f": {"g": 3}}, "h": None}
    assert e.asDict(True) == p.asDict(True) == expected
    assert e.asDict() == {"a": E.Row(b=1, c=[E.Row(d=2)]), "e": {"f": E.Row(g=3)}, "h": None}
    assert isinstance(e.asDict()["a"], E.Row)


def test_row_pickle():
    for row in (E.Row(a=1, b="x"), E.Row(1, 2), E.Row("a", "b")(1, E.Row(c=2)), E.Row()):
        copy = pickle.loads(pickle.dumps(row))
        assert copy == row and repr(copy) == repr(row) and type(copy) is E.Row
    assert pickle.loads(pickle.dumps(E.Row(a=1, b=2))).b == 2


def test_row_create_row():
    row = E._create_row(["x", "y"], (1, 2))
    assert repr(row) == repr(P._create_row(["x", "y"], (1, 2))) == "Row(x=1, y=2)"


@pytest.mark.parametrize(
    "action",
    [
        lambda m: m.Row(a=1).b,
        lambda m: m.Row(a=1).__missing__,
        lambda m: m.Row(a=1)["b"],
        lambda m: m.Row(a=1)[3],
        lambda m: m.Row(1, 2).a,
        lambda m: m.Row(1, 2)["a"],
        lambda m: m.Row(1, 2).asDict(),
        lambda m: m.Row(1, a=2),
        lambda m: setattr(m.Row(a=1), "a", 2),
    ],
)
def test_row_errors(action):
    assert_same_error(action)


def test_row_error_is_catchable_as_builtin():
    with pytest.raises(AttributeError):
        E.Row(a=1).b
    assert getattr(E.Row(a=1), "b", "default") == "default"
    assert not hasattr(E.Row(1), "__fields__")
    with pytest.raises(ValueError):
        E.Row(a=1)["b"]
