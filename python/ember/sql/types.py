"""Spark SQL data types and Row, with PySpark 4.0's names, strings, JSON and behaviour.

Besides the type classes this module parses the two textual forms of a type: the JSON that
`DataType.json()` writes (`_parse_datatype_json_string`) and Spark's DDL syntax used by
`DataStreamReader.schema("a INT, b STRING")` and friends (`_parse_ddl`).
"""

from __future__ import annotations

from ember.errors import (
    ArithmeticException,
    ParseException,
    PySparkAttributeError,
    PySparkException,
    PySparkIndexError,
    PySparkKeyError,
    PySparkRuntimeError,
    PySparkTypeError,
    PySparkValueError,
)
from ember.errors.conditions import render

TYPE_CHECKING = False  # typing costs milliseconds at start-up
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, Iterator, List, Optional, Union

__all__ = [
    "DataType",
    "NullType",
    "StringType",
    "CharType",
    "VarcharType",
    "BinaryType",
    "BooleanType",
    "DateType",
    "TimestampType",
    "TimestampNTZType",
    "DecimalType",
    "DoubleType",
    "FloatType",
    "ByteType",
    "ShortType",
    "IntegerType",
    "LongType",
    "DayTimeIntervalType",
    "ArrayType",
    "MapType",
    "StructField",
    "StructType",
    "Row",
]

# Spark's Int.MaxValue, the "no limit" depth of treeString.
_JVM_INT_MAX = 2**31 - 1


class DataType:
    """Base class for data types."""

    def __repr__(self) -> str:
        return type(self).__name__ + "()"

    def __hash__(self) -> int:
        return hash(str(self))

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, type(self)) and self.__dict__ == other.__dict__

    @classmethod
    def typeName(cls) -> str:
        return cls.__name__[: -len("Type")].lower()

    def simpleString(self) -> str:
        return self.typeName()

    def jsonValue(self) -> Union[str, Dict[str, Any]]:
        return self.typeName()

    def json(self) -> str:
        import json  # here, as re below: each costs milliseconds at start-up

        return json.dumps(self.jsonValue(), separators=(",", ":"), sort_keys=True)

    @classmethod
    def fromDDL(cls, ddl: str) -> "DataType":
        return _parse_ddl(ddl)

    def _sql(self) -> str:
        """Spark's `DataType.sql`, the spelling used in DDL."""
        return self.simpleString().upper()

    def _tree_name(self) -> str:
        """The name printSchema shows: the JVM's typeName, which keeps a type's parameters."""
        return self.typeName()

    def _tree_children(self, prefix: str, out: List[str], depth: int) -> None:
        """Append the treeString lines of nested types; atomic types have none."""


class _Singleton(type):
    """Makes `IntegerType()` return one shared instance, as in PySpark.

    Each class keeps its own instance, so ByteType and LongType (both IntegralType) differ.
    """

    def __call__(cls) -> Any:
        instance = cls.__dict__.get("_instance")
        if instance is None:
            instance = super().__call__()
            cls._instance = instance
        return instance


class NullType(DataType, metaclass=_Singleton):
    """The type of NULL, for values whose type cannot be inferred."""

    @classmethod
    def typeName(cls) -> str:
        return "void"


class AtomicType(DataType):
    """Every type that is not null, an array, a map or a struct."""


class NumericType(AtomicType):
    """Numeric types."""


class IntegralType(NumericType, metaclass=_Singleton):
    """Integer types."""


class FractionalType(NumericType):
    """Floating point and decimal types."""


class StringType(AtomicType):
    """UTF-8 strings (collations are not supported)."""


class CharType(AtomicType):
    """A string of fixed length `length` (Spark stores it as a string)."""

    def __init__(self, length: int):
        self.length = length

    def simpleString(self) -> str:
        return "char(%d)" % self.length

    def jsonValue(self) -> str:
        return self.simpleString()

    def __repr__(self) -> str:
        return "CharType(%d)" % self.length

    def _tree_name(self) -> str:
        return self.simpleString()


class VarcharType(AtomicType):
    """A string of at most `length` characters (Spark stores it as a string)."""

    def __init__(self, length: int):
        self.length = length

    def simpleString(self) -> str:
        return "varchar(%d)" % self.length

    def jsonValue(self) -> str:
        return self.simpleString()

    def __repr__(self) -> str:
        return "VarcharType(%d)" % self.length

    def _tree_name(self) -> str:
        return self.simpleString()


class BinaryType(AtomicType, metaclass=_Singleton):
    """Byte arrays."""


class BooleanType(AtomicType, metaclass=_Singleton):
    """Booleans."""


class DateType(AtomicType, metaclass=_Singleton):
    """Dates (datetime.date)."""


class TimestampType(AtomicType, metaclass=_Singleton):
    """Instants (datetime.datetime), shown in the session time zone."""


class TimestampNTZType(AtomicType, metaclass=_Singleton):
    """Timestamps without time zone (naive datetime.datetime)."""

    @classmethod
    def typeName(cls) -> str:
        return "timestamp_ntz"


class DecimalType(FractionalType):
    """Fixed-point decimals of `precision` digits, `scale` of them after the point."""

    def __init__(self, precision: int = 10, scale: int = 0):
        self.precision = precision
        self.scale = scale
        self.hasPrecisionInfo = True  # public in PySpark

    def simpleString(self) -> str:
        return "decimal(%d,%d)" % (self.precision, self.scale)

    def jsonValue(self) -> str:
        return self.simpleString()

    def __repr__(self) -> str:
        return "DecimalType(%d,%d)" % (self.precision, self.scale)

    def _tree_name(self) -> str:
        return self.simpleString()


class DoubleType(FractionalType, metaclass=_Singleton):
    """64-bit floats."""


class FloatType(FractionalType, metaclass=_Singleton):
    """32-bit floats."""


class ByteType(IntegralType):
    """Signed 8-bit integers."""

    def simpleString(self) -> str:
        return "tinyint"


class ShortType(IntegralType):
    """Signed 16-bit integers."""

    def simpleString(self) -> str:
        return "smallint"


class IntegerType(IntegralType):
    """Signed 32-bit integers."""

    def simpleString(self) -> str:
        return "int"


class LongType(IntegralType):
    """Signed 64-bit integers."""

    def simpleString(self) -> str:
        return "bigint"


class DayTimeIntervalType(AtomicType):
    """Day-time intervals (datetime.timedelta), e.g. the difference of two timestamps."""

    DAY = 0
    HOUR = 1
    MINUTE = 2
    SECOND = 3

    _fields = {DAY: "day", HOUR: "hour", MINUTE: "minute", SECOND: "second"}

    def __init__(self, startField: Optional[int] = None, endField: Optional[int] = None):
        if startField is None and endField is None:
            startField, endField = self.DAY, self.SECOND
        elif endField is None:
            endField = startField
        if startField not in self._fields or endField not in self._fields:
            raise PySparkRuntimeError(
                errorClass="INVALID_INTERVAL_CASTING",
                messageParameters={"start_field": str(startField), "end_field": str(endField)},
            )
        self.startField = startField
        self.endField = endField

    def simpleString(self) -> str:
        start, end = self._fields[self.startField], self._fields[self.endField]
        return f"interval {start}" if start == end else f"interval {start} to {end}"

    def jsonValue(self) -> str:
        return self.simpleString()

    def __repr__(self) -> str:
        return "DayTimeIntervalType(%d, %d)" % (self.startField, self.endField)

    def _tree_name(self) -> str:
        return self.simpleString()


class ArrayType(DataType):
    """Arrays of `elementType`; `containsNull` says whether elements may be null."""

    def __init__(self, elementType: DataType, containsNull: bool = True):
        assert isinstance(elementType, DataType), "elementType %s should be an instance of %s" % (
            elementType,
            DataType,
        )
        self.elementType = elementType
        self.containsNull = containsNull

    def simpleString(self) -> str:
        return "array<%s>" % self.elementType.simpleString()

    def __repr__(self) -> str:
        return "ArrayType(%r, %s)" % (self.elementType, self.containsNull)

    def jsonValue(self) -> Dict[str, Any]:
        return {
            "type": self.typeName(),
            "elementType": self.elementType.jsonValue(),
            "containsNull": self.containsNull,
        }

    @classmethod
    def fromJson(cls, json: Dict[str, Any]) -> "ArrayType":
        return ArrayType(_parse_datatype_json_value(json["elementType"]), json["containsNull"])

    def _sql(self) -> str:
        return "ARRAY<%s>" % self.elementType._sql()

    def _tree_children(self, prefix: str, out: List[str], depth: int) -> None:
        if depth > 0:
            out.append(
                f"{prefix}-- element: {self.elementType._tree_name()} "
                f"(containsNull = {str(self.containsNull).lower()})\n"
            )
            self.elementType._tree_children(prefix + "    |", out, depth - 1)


class MapType(DataType):
    """Maps from `keyType` (never null) to `valueType`."""

    def __init__(self, keyType: DataType, valueType: DataType, valueContainsNull: bool = True):
        assert isinstance(keyType, DataType), "keyType %s should be an instance of %s" % (
            keyType,
            DataType,
        )
        assert isinstance(valueType, DataType), "valueType %s should be an instance of %s" % (
            valueType,
            DataType,
        )
        self.keyType = keyType
        self.valueType = valueType
        self.valueContainsNull = valueContainsNull

    def simpleString(self) -> str:
        return "map<%s,%s>" % (self.keyType.simpleString(), self.valueType.simpleString())

    def __repr__(self) -> str:
        return "MapType(%r, %r, %s)" % (self.keyType, self.valueType, self.valueContainsNull)

    def jsonValue(self) -> Dict[str, Any]:
        return {
            "type": self.typeName(),
            "keyType": self.keyType.jsonValue(),
            "valueType": self.valueType.jsonValue(),
            "valueContainsNull": self.valueContainsNull,
        }

    @classmethod
    def fromJson(cls, json: Dict[str, Any]) -> "MapType":
        return MapType(
            _parse_datatype_json_value(json["keyType"]),
            _parse_datatype_json_value(json["valueType"]),
            json["valueContainsNull"],
        )

    def _sql(self) -> str:
        return "MAP<%s, %s>" % (self.keyType._sql(), self.valueType._sql())

    def _tree_children(self, prefix: str, out: List[str], depth: int) -> None:
        if depth > 0:
            out.append(f"{prefix}-- key: {self.keyType._tree_name()}\n")
            self.keyType._tree_children(prefix + "    |", out, depth - 1)
            out.append(
                f"{prefix}-- value: {self.valueType._tree_name()} "
                f"(valueContainsNull = {str(self.valueContainsNull).lower()})\n"
            )
            self.valueType._tree_children(prefix + "    |", out, depth - 1)


class StructField(DataType):
    """A named, typed field of a StructType; `metadata` is a JSON-able dict."""

    def __init__(
        self,
        name: str,
        dataType: DataType,
        nullable: bool = True,
        metadata: Optional[Dict[str, Any]] = None,
    ):
        assert isinstance(dataType, DataType), "dataType %s should be an instance of %s" % (
            dataType,
            DataType,
        )
        assert isinstance(name, str), "field name %s should be a string" % name
        self.name = name
        self.dataType = dataType
        self.nullable = nullable
        self.metadata = metadata or {}

    def simpleString(self) -> str:
        return "%s:%s" % (self.name, self.dataType.simpleString())

    def __repr__(self) -> str:
        return "StructField('%s', %r, %s)" % (self.name, self.dataType, self.nullable)

    def jsonValue(self) -> Dict[str, Any]:
        return {
            "name": self.name,
            "type": self.dataType.jsonValue(),
            "nullable": self.nullable,
            "metadata": self.metadata,
        }

    @classmethod
    def fromJson(cls, json: Dict[str, Any]) -> "StructField":
        return StructField(
            json["name"],
            _parse_datatype_json_value(json["type"]),
            json.get("nullable", True),
            json.get("metadata"),
        )

    def typeName(self) -> str:  # type: ignore[override]
        raise PySparkTypeError(errorClass="INVALID_TYPENAME_CALL", messageParameters={})

    def _ddl_suffix(self) -> str:
        """NOT NULL and COMMENT, as Spark appends them after the type."""
        suffix = "" if self.nullable else " NOT NULL"
        comment = self.metadata.get("comment")
        if comment is not None:
            suffix += " COMMENT '%s'" % str(comment).replace("'", "\\'")
        return suffix

    def _tree(self, prefix: str, out: List[str], depth: int) -> None:
        if depth > 0:
            out.append(
                f"{prefix}-- {_escape_meta_characters(self.name)}: {self.dataType._tree_name()} "
                f"(nullable = {str(self.nullable).lower()})\n"
            )
            self.dataType._tree_children(prefix + "    |", out, depth - 1)


class StructType(DataType):
    """A list of StructFields: the type of a Row and the schema of a DataFrame.

    Iterating yields the fields; `schema["name"]` and `schema[0]` return one field.
    """

    def __init__(self, fields: Optional[List[StructField]] = None):
        self.fields = list(fields or [])
        assert all(
            isinstance(f, StructField) for f in self.fields
        ), "fields should be a list of StructField"
        self.names = [f.name for f in self.fields]

    def add(
        self,
        field: Union[str, StructField],
        data_type: Optional[Union[str, DataType]] = None,
        nullable: bool = True,
        metadata: Optional[Dict[str, Any]] = None,
    ) -> "StructType":
        """Append a field, given whole or as (name, type, nullable, metadata); returns self.

        A type given as a string may be a JSON name ("integer") or a DDL type ("int").
        """
        if not isinstance(field, StructField):
            if data_type is None:
                raise PySparkValueError(
                    errorClass="ARGUMENT_REQUIRED",
                    messageParameters={
                        "arg_name": "data_type",
                        "condition": "passing name of struct_field to create",
                    },
                )
            if isinstance(data_type, str):
                data_type = _DdlParser(data_type).single_type()
            field = StructField(field, data_type, nullable, metadata)
        self.fields.append(field)
        self.names.append(field.name)
        return self

    def __iter__(self) -> Iterator[StructField]:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    def __getitem__(self, key: Union[str, int, slice]) -> Any:
        if isinstance(key, str):
            for field in self.fields:
                if field.name == key:
                    return field
            raise PySparkKeyError(errorClass="KEY_NOT_EXISTS", messageParameters={"key": key})
        if isinstance(key, int):
            try:
                return self.fields[key]
            except IndexError:
                raise PySparkIndexError(
                    errorClass="INDEX_OUT_OF_RANGE",
                    messageParameters={"arg_name": "StructType", "index": str(key)},
                ) from None
        if isinstance(key, slice):
            return StructType(self.fields[key])
        raise PySparkTypeError(
            errorClass="NOT_INT_OR_SLICE_OR_STR",
            messageParameters={"arg_name": "key", "arg_type": type(key).__name__},
        )

    def fieldNames(self) -> List[str]:
        return list(self.names)

    def simpleString(self) -> str:
        return "struct<%s>" % ",".join(f.simpleString() for f in self.fields)

    def __repr__(self) -> str:
        return "StructType([%s])" % ", ".join(repr(f) for f in self.fields)

    def jsonValue(self) -> Dict[str, Any]:
        return {"type": self.typeName(), "fields": [f.jsonValue() for f in self.fields]}

    @classmethod
    def fromJson(cls, json: Dict[str, Any]) -> "StructType":
        return StructType([StructField.fromJson(f) for f in json["fields"]])

    def toDDL(self) -> str:
        """The schema as Spark's DDL, e.g. "a INT NOT NULL,s STRUCT<x: STRING>"."""
        return ",".join(
            f"{_quote_if_needed(f.name)} {f.dataType._sql()}{f._ddl_suffix()}" for f in self.fields
        )

    def treeString(self, maxDepth: int = _JVM_INT_MAX) -> str:
        """The schema as DataFrame.printSchema() prints it."""
        out = ["root\n"]
        depth = maxDepth if maxDepth > 0 else _JVM_INT_MAX
        for field in self.fields:
            field._tree(" |", out, depth)
        return "".join(out)

    def _sql(self) -> str:
        return "STRUCT<%s>" % ", ".join(
            f"{_quote_if_needed(f.name)}: {f.dataType._sql()}{f._ddl_suffix()}"
            for f in self.fields
        )

    def _tree_children(self, prefix: str, out: List[str], depth: int) -> None:
        for field in self.fields:
            field._tree(prefix, out, depth)


def _quote_if_needed(name: str) -> str:
    """Backquote a name unless it is a plain identifier, as Spark's QuotingUtils does."""
    if name.isascii() and name.isidentifier():  # [A-Za-z_][A-Za-z0-9_]*
        return name
    return "`%s`" % name.replace("`", "``")


def _escape_meta_characters(name: str) -> str:
    """Show control characters in a field name as escapes, so the tree stays one line a field."""
    for char, escape in (
        ("\n", "\\n"),
        ("\r", "\\r"),
        ("\t", "\\t"),
        ("\f", "\\f"),
        ("\b", "\\b"),
        ("\u000b", "\\v"),
        ("\u0007", "\\a"),
    ):
        name = name.replace(char, escape)
    return name


# ---------------------------------------------------------------------------------------------
# JSON form: what DataType.json() writes and Spark stores in checkpoints and table metadata.

_JSON_ATOMIC_TYPES: Dict[str, Callable[[], DataType]] = {
    "string": StringType,
    "binary": BinaryType,
    "boolean": BooleanType,
    "decimal": DecimalType,
    "float": FloatType,
    "double": DoubleType,
    "byte": ByteType,
    "short": ShortType,
    "integer": IntegerType,
    "long": LongType,
    "date": DateType,
    "timestamp": TimestampType,
    "timestamp_ntz": TimestampNTZType,
    "void": NullType,
}

_INTERVAL_FIELDS = {name: code for code, name in DayTimeIntervalType._fields.items()}
_JSON_PARAMETRIC_TYPES = [
    (
        r"decimal\(\s*(\d+)\s*,\s*(-?\d+)\s*\)",
        lambda m: DecimalType(int(m.group(1)), int(m.group(2))),
    ),
    (r"char\(\s*(\d+)\s*\)", lambda m: CharType(int(m.group(1)))),
    (r"varchar\(\s*(\d+)\s*\)", lambda m: VarcharType(int(m.group(1)))),
    (
        r"interval (day|hour|minute|second)(?: to (day|hour|minute|second))?",
        lambda m: DayTimeIntervalType(
            _INTERVAL_FIELDS[m.group(1)], _INTERVAL_FIELDS.get(m.group(2) or m.group(1))
        ),
    ),
]


def _parse_datatype_json_string(json_string: str) -> DataType:
    """Parse the output of DataType.json()."""
    import json

    return _parse_datatype_json_value(json.loads(json_string))


def _parse_datatype_json_value(value: Union[str, Dict[str, Any]]) -> DataType:
    if isinstance(value, dict):
        kind = value["type"]
        if kind == "struct":
            return StructType.fromJson(value)
        if kind == "array":
            return ArrayType.fromJson(value)
        if kind == "map":
            return MapType.fromJson(value)
        raise PySparkValueError(
            errorClass="UNSUPPORTED_DATA_TYPE", messageParameters={"data_type": str(kind)}
        )
    if value in _JSON_ATOMIC_TYPES:
        return _JSON_ATOMIC_TYPES[value]()
    import re  # compiled at first use (re caches the patterns), not at every start-up

    for pattern, build in _JSON_PARAMETRIC_TYPES:
        match = re.fullmatch(pattern, value)
        if match:
            return build(match)
    raise PySparkValueError(
        errorClass="CANNOT_PARSE_DATATYPE", messageParameters={"msg": str(value)}
    )


# ---------------------------------------------------------------------------------------------
# DDL form: "a INT, b STRUCT<x: STRING> NOT NULL COMMENT 'c'", or a single type such as "int".

_DDL_ATOMIC_TYPES: Dict[str, Callable[[], DataType]] = {
    "BOOLEAN": BooleanType,
    "TINYINT": ByteType,
    "BYTE": ByteType,
    "SMALLINT": ShortType,
    "SHORT": ShortType,
    "INT": IntegerType,
    "INTEGER": IntegerType,
    "BIGINT": LongType,
    "LONG": LongType,
    "FLOAT": FloatType,
    "REAL": FloatType,
    "DOUBLE": DoubleType,
    "DATE": DateType,
    "TIMESTAMP": TimestampType,
    "TIMESTAMP_LTZ": TimestampType,
    "TIMESTAMP_NTZ": TimestampNTZType,
    "STRING": StringType,
    "BINARY": BinaryType,
    "VOID": NullType,
}
_DDL_DECIMAL_NAMES = ("DECIMAL", "DEC", "NUMERIC")
_DDL_INTERVAL_FIELDS = {name.upper(): code for name, code in _INTERVAL_FIELDS.items()}
_MAX_DECIMAL_PRECISION = 38

_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_STRING_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "b": "\b", "Z": "\x1a"}


class _Token:
    __slots__ = ("kind", "text", "value", "pos")

    def __init__(self, kind: str, text: str, value: str, pos: int):
        self.kind = kind  # word, ident (backquoted), string, punct or end
        self.text = text  # as written, for error messages
        self.value = value  # the identifier or string it denotes
        self.pos = pos  # offset in the parsed text


def _quoted_end(text: str, i: int) -> int:
    """The offset past the quoted text opening at `i` (`...` with `` inside, or '...' and "..."
    with backslash escapes), or -1 when it is never closed. As a regex would, an unclosed `...`
    closes at its last `` instead."""
    quote, j, n, last_pair = text[i], i + 1, len(text), -1
    while j < n:
        c = text[j]
        if c == quote:
            if quote == "`" and text.startswith("``", j):
                last_pair, j = j, j + 2
                continue
            return j + 1
        j += 2 if c == "\\" and quote != "`" else 1
    return last_pair + 1 if last_pair >= 0 else -1


def _unescape(literal: str) -> str:
    """A string literal's backslash escapes resolved; a backslash before a line end stays."""
    out, i = [], 0
    while i < len(literal):
        c = literal[i]
        if c == "\\" and i + 1 < len(literal) and literal[i + 1] != "\n":
            out.append(_STRING_ESCAPES.get(literal[i + 1], literal[i + 1]))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _tokenize(text: str) -> List[_Token]:
    """Words, backquoted identifiers, strings and single punctuation marks, without whitespace,
    `--` comments to the line's end and `/* */` comments (by hand: re costs milliseconds at
    start-up). A quote or comment never closed is a punctuation mark."""
    tokens = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith("--", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i) and text.find("*/", i + 2) >= 0:
            i = text.find("*/", i + 2) + 2
        elif c in _WORD_CHARS:
            start = i
            while i < n and text[i] in _WORD_CHARS:
                i += 1
            tokens.append(_Token("word", text[start:i], text[start:i], start))
        elif c in "`'\"" and (end := _quoted_end(text, i)) > 0:
            inner = text[i + 1:end - 1]
            if c == "`":
                tokens.append(_Token("ident", text[i:end], inner.replace("``", "`"), i))
            else:
                tokens.append(_Token("string", text[i:end], _unescape(inner), i))
            i = end
        else:
            tokens.append(_Token("punct", c, c, i))
            i += 1
    tokens.append(_Token("end", "", "", n))
    return tokens


class _DdlParser:
    """Recursive descent over Spark's DDL grammar for schemas and data types."""

    def __init__(self, text: str):
        self._text = text
        self._tokens = _tokenize(text)
        self._i = 0

    def schema(self) -> StructType:
        """A table schema: `name type [NOT NULL] [COMMENT 'text']`, separated by commas."""
        fields = [self._column(in_struct=False)]
        while self._accept(","):
            fields.append(self._column(in_struct=False))
        self._expect_end()
        return StructType(fields)

    def single_type(self) -> DataType:
        data_type = self._type()
        self._expect_end()
        return data_type

    def _column(self, in_struct: bool) -> StructField:
        token = self._next()
        if token.kind not in ("word", "ident"):
            raise self._syntax_error(token)
        # Only struct fields may separate name and type by a colon ("STRUCT<a: INT>").
        if in_struct:
            self._accept(":")
        data_type = self._type()
        nullable, metadata = True, {}
        while True:
            if self._accept("NOT"):
                self._expect("NULL")
                nullable = False
            elif self._accept("COMMENT"):
                comment = self._next()
                if comment.kind != "string":
                    raise self._syntax_error(comment)
                metadata["comment"] = comment.value
            else:
                return StructField(token.value, data_type, nullable, metadata)

    def _type(self) -> DataType:
        token = self._next()
        if token.kind != "word":
            raise self._syntax_error(token)
        name = token.text.upper()
        if name == "ARRAY":
            self._expect("<")
            element = self._type()
            self._expect(">")
            return ArrayType(element)
        if name == "MAP":
            self._expect("<")
            key = self._type()
            self._expect(",")
            value = self._type()
            self._expect(">")
            return MapType(key, value)
        if name == "STRUCT":
            self._expect("<")
            fields: List[StructField] = []
            if not self._accept(">"):
                fields.append(self._column(in_struct=True))
                while self._accept(","):
                    fields.append(self._column(in_struct=True))
                self._expect(">")
            return StructType(fields)
        if name == "INTERVAL":
            return self._interval(token)
        return self._primitive(token, name, self._parameters())

    def _parameters(self) -> List[int]:
        """The `(10, 2)` after a type name, if any."""
        if not self._accept("("):
            return []
        values = []
        while True:
            token = self._next()
            if token.kind != "word" or not token.text.isdigit():
                raise self._syntax_error(token)
            values.append(int(token.text))
            if not self._accept(","):
                break
        self._expect(")")
        return values

    def _primitive(self, token: _Token, name: str, params: List[int]) -> DataType:
        if not params and name in _DDL_ATOMIC_TYPES:
            return _DDL_ATOMIC_TYPES[name]()
        if name in _DDL_DECIMAL_NAMES and len(params) <= 2:
            return self._decimal(*params)
        if name in ("CHAR", "CHARACTER") and len(params) == 1:
            return CharType(params[0])
        if name == "VARCHAR" and len(params) == 1:
            return VarcharType(params[0])
        if name in ("CHAR", "CHARACTER", "VARCHAR") and not params:
            raise self._error(token, "DATATYPE_MISSING_SIZE", {"type": '"%s"' % name}, "42K01")
        spelled = name + ("(%s)" % ",".join(map(str, params)) if params else "")
        raise self._unsupported(token, spelled)

    def _decimal(self, precision: int = 10, scale: int = 0) -> DecimalType:
        if precision > _MAX_DECIMAL_PRECISION:
            raise ArithmeticException(
                errorClass="DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION",
                messageParameters={
                    "precision": str(precision),
                    "maxPrecision": str(_MAX_DECIMAL_PRECISION),
                },
                sqlState="22003",
            )
        if scale > precision:
            # Spark raises this one while building the type, without a position.
            condition, params = "_LEGACY_ERROR_TEMP_1228", {
                "scale": str(scale),
                "precision": str(precision),
            }
            text = f"\n{render(condition, params)}\n== SQL ==\n{self._text}"
            raise ParseException._formatted(text, condition, None, params)
        return DecimalType(precision, scale)

    def _interval(self, token: _Token) -> DataType:
        """INTERVAL DAY [TO SECOND] and the like; year-month and calendar intervals are not
        supported."""
        start = self._interval_unit()
        end = start
        if start is not None and self._accept("TO"):
            end = self._interval_unit()
            if end is None:
                raise self._syntax_error(self._peek())
        codes = (_DDL_INTERVAL_FIELDS.get(start or ""), _DDL_INTERVAL_FIELDS.get(end or ""))
        if None not in codes and codes[0] <= codes[1]:
            return DayTimeIntervalType(*codes)
        spelled = "INTERVAL"
        if start is not None:
            spelled += f" {start}" if end == start else f" {start} TO {end}"
        raise self._unsupported(token, spelled)

    def _interval_unit(self) -> Optional[str]:
        token = self._peek()
        unit = token.text.upper()
        if token.kind == "word" and unit in ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"):
            self._i += 1
            return unit
        return None

    def _peek(self) -> _Token:
        return self._tokens[self._i]

    def _next(self) -> _Token:
        token = self._tokens[self._i]
        if token.kind != "end":
            self._i += 1
        return token

    def _accept(self, text: str) -> bool:
        """Consume the next token if it is the punctuation or (case-insensitive) keyword."""
        token = self._peek()
        if token.kind in ("word", "punct") and token.text.upper() == text:
            self._i += 1
            return True
        return False

    def _expect(self, text: str) -> None:
        if not self._accept(text):
            raise self._syntax_error(self._peek())

    def _expect_end(self) -> None:
        if self._peek().kind != "end":
            raise self._syntax_error(self._peek())

    def _syntax_error(self, token: _Token) -> ParseException:
        near = "end of input" if token.kind == "end" else "'%s'" % token.text
        return self._error(token, "PARSE_SYNTAX_ERROR", {"error": near, "hint": ""}, "42601")

    def _unsupported(self, token: _Token, spelled: str) -> ParseException:
        return self._error(token, "UNSUPPORTED_DATATYPE", {"typeName": '"%s"' % spelled}, "0A000")

    def _error(
        self, token: _Token, condition: str, params: Dict[str, str], sqlstate: str
    ) -> ParseException:
        """A ParseException laid out as Spark's: message, position, and the text marked."""
        line = self._text.count("\n", 0, token.pos) + 1
        column = token.pos - (self._text.rfind("\n", 0, token.pos) + 1)
        lines = self._text.split("\n")
        text = (
            f"\n[{condition}] {render(condition, params)} SQLSTATE: {sqlstate}"
            f" (line {line}, pos {column})\n\n== SQL ==\n"
            + "".join(s + "\n" for s in lines[:line])
            + "-" * column
            + "^^^\n"
            + "".join(s + "\n" for s in lines[line:])
        )
        return ParseException._formatted(text, condition, sqlstate, params)


def _parse_ddl(ddl: str) -> DataType:
    """Parse a DDL schema ("a INT, b STRING") into a StructType, or a type ("int") into it.

    Tries the forms in Spark's order (PythonSQLUtils.ddlToJson): a table schema, a single type,
    then the legacy "a: int, b: string" read as the inside of a struct. When none parses, the
    error is the one from the table schema, as in Spark.
    """
    try:
        return _DdlParser(ddl).schema()
    except PySparkException as schema_error:
        for text in (ddl, "struct<%s>" % ddl.strip()):
            try:
                return _DdlParser(text).single_type()
            except PySparkException:
                pass
        raise schema_error


# PySpark's name for the same parse.
_parse_datatype_string = _parse_ddl


# ---------------------------------------------------------------------------------------------
# Row


class Row(tuple):
    """A row of a DataFrame: a tuple whose values can also be read by field name.

    `Row(name="Alice", age=11)` makes a row (fields in the order given); `Row("name", "age")`
    makes a row factory, called with the values: `Person = Row("name", "age"); Person("Al", 3)`.
    Rows compare as tuples, ignoring field names.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> "Row":
        if args and kwargs:
            raise PySparkValueError(
                errorClass="CANNOT_SET_TOGETHER", messageParameters={"arg_list": "args and kwargs"}
            )
        if kwargs:
            row = tuple.__new__(cls, kwargs.values())
            row.__fields__ = list(kwargs)
            return row
        return tuple.__new__(cls, args)

    def asDict(self, recursive: bool = False) -> Dict[str, Any]:
        """The row as a dict; with `recursive`, nested Rows (also in lists and dicts) too."""
        names = _field_names(self)
        if names is None:
            raise PySparkTypeError(
                errorClass="CANNOT_CONVERT_TYPE",
                messageParameters={"from_type": "Row", "to_type": "dict"},
            )
        if not recursive:
            return dict(zip(names, self))

        def convert(value: Any) -> Any:
            if isinstance(value, Row):
                return value.asDict(True)
            if isinstance(value, list):
                return [convert(v) for v in value]
            if isinstance(value, dict):
                return {k: convert(v) for k, v in value.items()}
            return value

        return dict(zip(names, (convert(v) for v in self)))

    def __contains__(self, item: Any) -> bool:
        names = _field_names(self)
        return item in names if names is not None else tuple.__contains__(self, item)

    def __call__(self, *args: Any) -> "Row":
        """Make a row with this row's values as field names."""
        if len(args) > len(self):
            raise PySparkValueError(
                errorClass="TOO_MANY_VALUES",
                messageParameters={
                    "expected": str(len(self)),
                    "item": "fields",
                    "actual": str(len(args)),
                },
            )
        return _create_row(list(self), args)

    def __getitem__(self, item: Any) -> Any:
        if isinstance(item, (int, slice)):
            return tuple.__getitem__(self, item)
        try:
            index = _require_field_names(self).index(item)
            return tuple.__getitem__(self, index)
        except IndexError:
            # A factory called with fewer values has more names than values.
            raise PySparkKeyError(
                errorClass="KEY_NOT_EXISTS", messageParameters={"key": str(item)}
            ) from None
        except ValueError:
            raise PySparkValueError(item) from None

    def __getattr__(self, item: str) -> Any:
        if item.startswith("__"):
            raise PySparkAttributeError(
                errorClass="ATTRIBUTE_NOT_SUPPORTED", messageParameters={"attr_name": item}
            )
        try:
            return tuple.__getitem__(self, _require_field_names(self).index(item))
        except (IndexError, ValueError):
            raise PySparkAttributeError(
                errorClass="ATTRIBUTE_NOT_SUPPORTED", messageParameters={"attr_name": item}
            ) from None

    def __setattr__(self, key: Any, value: Any) -> None:
        if key != "__fields__":
            raise PySparkRuntimeError(errorClass="READ_ONLY", messageParameters={"object": "Row"})
        self.__dict__[key] = value

    def __reduce__(self) -> Any:
        names = _field_names(self)
        if names is not None:
            return (_create_row, (names, tuple(self)))
        return (Row, tuple(self))

    def __repr__(self) -> str:
        names = _field_names(self)
        if names is not None:
            return "Row(%s)" % ", ".join("%s=%r" % (k, v) for k, v in zip(names, self))
        return "<Row(%s)>" % ", ".join(repr(v) for v in self)


def _field_names(row: Row) -> Optional[List[str]]:
    return row.__dict__.get("__fields__")


def _require_field_names(row: Row) -> List[str]:
    # A row of bare values has no `__fields__`; PySpark fails on that attribute.
    names = _field_names(row)
    if names is None:
        raise PySparkAttributeError(
            errorClass="ATTRIBUTE_NOT_SUPPORTED", messageParameters={"attr_name": "__fields__"}
        )
    return names


def _create_row(fields: List[str], values: Any) -> Row:
    """A Row of `values` named by `fields`; how engines build result rows."""
    row = Row(*values)
    row.__fields__ = fields
    return row


# --- Arrow ----------------------------------------------------------------------------------
# The core represents Spark's types with Arrow's: IntegerType is int32, TimestampType is
# timestamp[us, UTC], TimestampNTZType timestamp[us], and so on.


def from_arrow_type(t: Any) -> DataType:
    import pyarrow as pa

    simple = [
        (pa.types.is_boolean, BooleanType), (pa.types.is_int8, ByteType),
        (pa.types.is_int16, ShortType), (pa.types.is_int32, IntegerType),
        (pa.types.is_int64, LongType), (pa.types.is_float32, FloatType),
        (pa.types.is_float64, DoubleType), (pa.types.is_string, StringType),
        (pa.types.is_large_string, StringType), (pa.types.is_binary, BinaryType),
        (pa.types.is_date32, DateType), (pa.types.is_null, NullType),
    ]
    for test, cls in simple:
        if test(t):
            return cls()
    if pa.types.is_timestamp(t):
        return TimestampType() if t.tz is not None else TimestampNTZType()
    if pa.types.is_decimal(t):
        return DecimalType(t.precision, t.scale)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return ArrayType(from_arrow_type(t.value_type), t.value_field.nullable)
    if pa.types.is_map(t):
        return MapType(from_arrow_type(t.key_type), from_arrow_type(t.item_type), True)
    if pa.types.is_struct(t):
        return StructType([StructField(f.name, from_arrow_type(f.type), f.nullable) for f in t])
    raise TypeError(f"Unsupported arrow type {t}")


def from_arrow_schema(schema: Any) -> StructType:
    return StructType(
        [StructField(f.name, from_arrow_type(f.type), f.nullable) for f in schema]
    )


def to_arrow_type(dt: DataType) -> Any:
    import pyarrow as pa

    simple = {
        BooleanType: pa.bool_(), ByteType: pa.int8(), ShortType: pa.int16(),
        IntegerType: pa.int32(), LongType: pa.int64(), FloatType: pa.float32(),
        DoubleType: pa.float64(), StringType: pa.string(), BinaryType: pa.binary(),
        DateType: pa.date32(), TimestampType: pa.timestamp("us", "UTC"),
        TimestampNTZType: pa.timestamp("us"), NullType: pa.null(),
        CharType: pa.string(), VarcharType: pa.string(),
    }
    for cls, arrow_type in simple.items():
        if isinstance(dt, cls):
            return arrow_type
    if isinstance(dt, DecimalType):
        return pa.decimal128(dt.precision, dt.scale)
    if isinstance(dt, ArrayType):
        return pa.list_(pa.field("element", to_arrow_type(dt.elementType), dt.containsNull))
    if isinstance(dt, MapType):
        return pa.map_(to_arrow_type(dt.keyType), to_arrow_type(dt.valueType))
    if isinstance(dt, StructType):
        return pa.struct([pa.field(f.name, to_arrow_type(f.dataType), f.nullable) for f in dt.fields])
    raise TypeError(f"Unsupported data type {dt}")


def to_arrow_schema(schema: StructType) -> Any:
    import pyarrow as pa

    return pa.schema([pa.field(f.name, to_arrow_type(f.dataType), f.nullable) for f in schema.fields])


def _infer_type(value: Any) -> DataType:
    """The Spark type PySpark infers for a Python value (None gives NullType)."""
    import datetime as _dt
    import decimal as _decimal

    if value is None:
        return NullType()
    if isinstance(value, bool):
        return BooleanType()
    if isinstance(value, int):
        return LongType()
    if isinstance(value, float):
        return DoubleType()
    if isinstance(value, str):
        return StringType()
    if isinstance(value, _decimal.Decimal):
        return DecimalType(38, 18)
    if isinstance(value, _dt.datetime):
        return TimestampType()
    if isinstance(value, _dt.date):
        return DateType()
    if isinstance(value, (bytes, bytearray)):
        return BinaryType()
    if isinstance(value, Row) and _field_names(value) is not None:
        return StructType([StructField(n, _infer_type(v), True) for n, v in zip(_field_names(value), value)])
    if isinstance(value, dict):
        key = next(iter(value), None)
        return MapType(_infer_type(key), _infer_type(value[key]) if key is not None else NullType(), True)
    if isinstance(value, (list, tuple)):
        return ArrayType(_infer_type(value[0]) if value else NullType(), True)
    raise TypeError(f"not supported type: {type(value)}")
