"""Message templates for the error conditions raised by Ember's Python code.

The names and texts are PySpark's, so that `str(exc)` reads as it does there. Engine errors do not
come through here: the C++ core formats its own messages (see `ember.errors.from_core`).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs milliseconds at start-up
if TYPE_CHECKING:
    from typing import Dict, Optional

# Condition -> template; `<name>` is replaced by the message parameter `name`.
MESSAGES: Dict[str, str] = {
    "ARGUMENT_REQUIRED": "Argument `<arg_name>` is required when <condition>.",
    "ATTRIBUTE_NOT_SUPPORTED": "Attribute `<attr_name>` is not supported.",
    "CANNOT_BE_EMPTY": "At least one <item> must be specified.",
    "CANNOT_CONVERT_TYPE": "Cannot convert <from_type> into <to_type>.",
    "CANNOT_PARSE_DATATYPE": "Unable to parse datatype. <msg>.",
    "CANNOT_SET_TOGETHER": "<arg_list> should not be set together.",
    "INDEX_OUT_OF_RANGE": "<arg_name> index out of range, got '<index>'.",
    "INVALID_INTERVAL_CASTING": "Interval <start_field> to <end_field> is invalid.",
    "INVALID_TYPENAME_CALL": (
        "StructField does not have typeName. Use typeName on its type explicitly instead."
    ),
    "KEY_NOT_EXISTS": "Key `<key>` is not exists.",
    "NO_OBSERVE_BEFORE_GET": "Should observe by calling `DataFrame.observe` before `get`.",
    "NOT_IMPLEMENTED": "<feature> is not implemented.",
    "NOT_INT_OR_SLICE_OR_STR": (
        "Argument `<arg_name>` should be an int, slice or str, got <arg_type>."
    ),
    "NOT_LIST_OF_COLUMN": "Argument `<arg_name>` should be a list[Column].",
    "NOT_STR": "Argument `<arg_name>` should be a str, got <arg_type>.",
    "READ_ONLY": "<object> is read-only.",
    "REUSE_OBSERVATION": "An Observation can be used with a DataFrame only once.",
    "TOO_MANY_VALUES": "Expected <expected> values for `<item>`, got <actual>.",
    "UNSUPPORTED_DATA_TYPE": "Unsupported DataType `<data_type>`.",
    "UNSUPPORTED_OPERATION": "<operation> is not supported.",
    "VALUE_NOT_NON_EMPTY_STR": "Value for `<arg_name>` must be a non-empty string, got '<arg_value>'.",
    # Spark SQL conditions that the pure-Python DDL parser raises.
    "PARSE_SYNTAX_ERROR": "Syntax error at or near <error><hint>.",
    "UNSUPPORTED_DATATYPE": "Unsupported data type <typeName>.",
    "DATATYPE_MISSING_SIZE": (
        "DataType <type> requires a length parameter, for example <type>(10). "
        "Please specify the length."
    ),
    "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION": (
        "Decimal precision <precision> exceeds max precision <maxPrecision>."
    ),
    "_LEGACY_ERROR_TEMP_1228": (
        "Decimal scale (<scale>) cannot be greater than precision (<precision>)."
    ),
}


def render(condition: Optional[str], parameters: Optional[Dict[str, str]]) -> str:
    """Fill in the template of `condition`.

    A condition without a template still yields a readable message listing its parameters, so a
    missing entry here never hides the error itself.
    """
    parameters = parameters or {}
    template = MESSAGES.get(condition or "")
    if template is None:
        return ", ".join(f"{k}={v}" for k, v in parameters.items())
    import re  # here: only errors need it, and importing re costs milliseconds at start-up

    return re.sub(r"<([A-Za-z_][A-Za-z0-9_]*)>",
                  lambda m: str(parameters.get(m.group(1), m.group(0))), template)
