"""Check answer content against its ``requestedSchema``, in plain language per field.

Pure: no ipywidgets, no mcp. The checks are JSON Schema's (draft 2020-12), with four changes
that a form needs: real format checks (``_formats``), server patterns matched with a timeout,
strict types (an integer is a Python ``int``, never ``True`` and never ``2.5``; ``null`` is never
an answer), and ``multipleOf`` judged on the decimal numbers people type (0.3 is a multiple of
0.1).

Every keyword of the elicitation subset is checked here directly, in the order jsonschema would
check it (:func:`_direct_errors`). jsonschema itself checks only what that leaves undecided (a
value no form control makes, such as a list of objects in a respond policy's answer): importing
it takes a second or more (with ``rfc3987-syntax`` installed, as every Jupyter server install has
it, it builds a grammar), which a Submit would otherwise spend with the kernel blocked.

    >>> validate_content({"type": "object", "properties": {"age": {"type": "integer"}}},
    ...                  {"age": 2.5})
    {'age': 'Enter a whole number.'}
"""

from __future__ import annotations

import concurrent.futures
import math
import re
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any, NamedTuple

from .formats import (
    PatternTimeout,
    import_format_checks,
    is_date,
    is_date_time,
    is_email,
    is_uri,
    search_pattern,
)
from .i18n import t
from .schema import FormSpec, NumberField, parse_schema

__all__ = ["is_multiple_of", "jsonschema_imported", "plainly_valid", "read_number",
           "validate_content", "validate_spec"]

# jsonschema is imported the first time it is needed (rarely: see the module's docstring).
_engine: tuple[Any, Any] | None = None  # (the Validator class, the FormatChecker)
_engine_lock = threading.Lock()


_importing: concurrent.futures.Future | None = None
_importing_lock = threading.Lock()


def jsonschema_imported() -> concurrent.futures.Future:
    """A future done once jsonschema is imported: at once if it is, else on a thread of its
    own (started by the first call), so that code on an event loop can wait for the import
    without stopping the loop for the second it takes. Done even if the import failed:
    whoever imports it next gets that error."""
    global _importing
    with _importing_lock:
        if _importing is None:
            _importing = concurrent.futures.Future()
            if "jsonschema" in sys.modules:
                _importing.set_result(None)
            else:
                threading.Thread(target=_import_jsonschema, args=(_importing,), daemon=True,
                                 name="nb_elicit-jsonschema").start()
        return _importing


#: The JSON types :func:`plainly_valid` knows, each checked as strictly as jsonschema or more.
_PLAIN_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: _is_integer(v), "number": lambda v: _is_number(v),
    "null": lambda v: v is None, "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list)}


def plainly_valid(schema: Any, value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is valid under ``schema`` by a check that needs no jsonschema: True
    only for a schema of ``type``, ``properties`` and ``required`` (and annotations, and ``x-``
    keywords, which decide nothing) that ``value`` meets, as a tool's output schema made from a
    plain return type is (``{"result": "..."}``). False means "not decided here": jsonschema
    decides (importing it takes a second or more, see the module's docstring)."""
    if not isinstance(schema, dict) or depth > 32:
        return False
    for keyword, limit in schema.items():
        if keyword in _ANNOTATIONS or keyword.startswith("x-"):
            continue
        if keyword == "type":
            kinds = [limit] if isinstance(limit, str) else limit
            if not (isinstance(kinds, list) and kinds
                    and all(isinstance(k, str) and k in _PLAIN_TYPES for k in kinds)):
                return False
            if not any(_PLAIN_TYPES[k](value) for k in kinds):
                return False
        elif keyword == "required":
            if not (isinstance(limit, list) and all(isinstance(k, str) for k in limit)):
                return False
            if isinstance(value, dict) and not all(k in value for k in limit):
                return False
        elif keyword == "properties":
            if not isinstance(limit, dict):
                return False
            if isinstance(value, dict) and not all(
                    plainly_valid(sub, value[k], depth + 1)
                    for k, sub in limit.items() if k in value):
                return False
        else:
            return False
    return True


def _import_jsonschema(done: concurrent.futures.Future) -> None:
    try:
        import jsonschema  # noqa: F401
    except BaseException:  # noqa: BLE001, S110 - the next import raises it where it matters
        pass
    finally:
        done.set_result(None)


def _jsonschema() -> tuple[Any, Any]:
    """The validator class nb_elicit checks with, and its format checker (made once)."""
    global _engine
    if _engine is None:
        with _engine_lock:
            if _engine is None:
                _engine = _make_engine()
    return _engine


def _make_engine() -> tuple[Any, Any]:
    import jsonschema
    from jsonschema import Draft202012Validator, FormatChecker

    import_format_checks()  # (their libraries too, so that the first Submit imports nothing)

    formats = FormatChecker(formats=())
    for name, check in _FORMATS.items():  # (a format says nothing of a value that is not text)
        formats.checks(name)(lambda value, check=check: not isinstance(value, str) or check(value))

    types = Draft202012Validator.TYPE_CHECKER.redefine_many({
        "integer": lambda _, v: _is_integer(v),
        "number": lambda _, v: _is_number(v),
    })

    def bounded_pattern(validator, pattern, instance, schema):
        if not isinstance(instance, str):
            return
        try:
            matched = search_pattern(pattern, instance)
        except PatternTimeout:
            yield jsonschema.ValidationError("pattern timed out", validator="pattern-timeout")
            return
        if not matched:
            yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")

    def exact_multiple_of(validator, step, instance, schema):
        if validator.is_type(instance, "number") and not is_multiple_of(instance, step):
            yield jsonschema.ValidationError(f"{instance!r} is not a multiple of {step!r}")

    validator = jsonschema.validators.extend(
        Draft202012Validator, type_checker=types,
        validators={"pattern": bounded_pattern, "multipleOf": exact_multiple_of},
    )
    return validator, formats


def is_multiple_of(value: int | float, step: int | float) -> bool:
    """Whether ``value`` is a whole number of ``step``s, in decimal as written: 0.3 is a
    multiple of 0.1 (in binary floating point 0.3 / 0.1 is 2.9999999999999996)."""
    return (_decimal(value) / _decimal(step)).denominator == 1


def _decimal(number: int | float) -> Fraction:
    # repr is the shortest text that reads back as the same float: the number as typed
    return Fraction(number) if isinstance(number, int) else Fraction(repr(number))


_FORMAT_HINTS = {"email": "v_email", "uri": "v_uri", "date": "v_date", "date-time": "v_date_time"}
_TYPE_HINTS = {"string": "v_string", "integer": "v_integer", "number": "v_number",
               "boolean": "v_boolean", "array": "v_array"}


def validate_content(requested_schema: Mapping, content: Any) -> dict[str, str]:
    """Map each property with a problem to a plain-language message; ``{}`` when all is valid.

    Raises :class:`SchemaError` when the schema itself is outside the elicitation subset.
    A problem with the content as a whole (not an object) is reported under the key ``""``.
    """
    return validate_spec(parse_schema(requested_schema), content)


def validate_spec(spec: FormSpec, content: Any) -> dict[str, str]:
    """:func:`validate_content` for a schema already parsed into ``spec``."""
    if not isinstance(content, Mapping):
        return {"": t("v_not_object")}
    problems: dict[str, str] = {}
    names = {f.name for f in spec}
    for key, value in content.items():
        if key not in names:
            problems[key] = t("v_not_field")
        elif value is None:
            problems[key] = t("v_null")
    for field in spec:
        if field.required and field.name not in content:
            problems[field.name] = t("v_required")
    for name, prop in _checkable(spec)["properties"].items():
        if name in content and name not in problems:
            error = _first_problem({"type": "object", "properties": {name: prop}},
                                   {name: content[name]})
            if error is not None:
                problems[name] = _message(spec, error)
    return problems


def _first_problem(schema: dict, content: dict):
    """The first problem of a one-property ``content``: by the direct checks, else (for a value
    no form control makes) by jsonschema. A value that jsonschema cannot even quote in its
    message (an int of over 4,300 digits) is not allowed."""
    try:
        errors: Iterable = _direct_errors(schema, content)
    except _Undecided:
        validator_class, formats = _jsonschema()
        errors = validator_class(schema, format_checker=formats).iter_errors(content)
    try:
        return next((error for error in errors if error.path), None)
    except (ValueError, RecursionError):
        return _Error(tuple(content), "unreadable", None)


def _checkable(spec: FormSpec) -> dict:
    """The schema as jsonschema should see it: the properties, never ``required``.

    A multi-select never holds a choice twice, whether or not the server said ``uniqueItems``.
    A keyword that is ``null`` is left out, as the parser reads it.
    """
    properties = {}
    for name, prop in spec.schema.get("properties", {}).items():
        prop = {key: value for key, value in prop.items() if value is not None}
        properties[name] = {**prop, "uniqueItems": True} if prop.get("type") == "array" else prop
    return {"type": "object", "properties": properties}


# -- the keywords of the elicitation subset, checked directly -------------------------------------


class _Error(NamedTuple):
    """A problem as :func:`_message` reads it (the fields it reads of a jsonschema error)."""

    path: tuple
    validator: str  # the keyword
    validator_value: Any  # its value in the schema


class _Undecided(Exception):
    """Something the direct checks leave to jsonschema: a keyword outside the subset, or a value
    no form control makes."""


def _direct_errors(schema: dict, content: dict) -> list[_Error]:
    """What jsonschema's ``iter_errors`` would yield for ``content``, as far as anyone reads it:
    the first problem of each property, properties and keywords in the schema's order. Raises
    :class:`_Undecided` where it cannot tell."""
    errors = []
    for name, prop in schema["properties"].items():
        if name in content:
            error = _first_error(content[name], prop, (name,))
            if error is not None:
                errors.append(error)
    return errors


def _first_error(value: Any, schema: Any, path: tuple) -> _Error | None:
    """The first problem of ``value`` under ``schema`` (every keyword is checked, as jsonschema
    does, so that what it would leave undecided is never skipped)."""
    if not isinstance(schema, dict):
        raise _Undecided("a schema that is not an object")
    first = None
    for keyword, limit in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        check = _CHECKS.get(keyword)
        if check is None:
            raise _Undecided(keyword)
        error = check(value, limit, path)
        if first is None:
            first = error
    return first


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    # (an int of any size is finite: math.isfinite would turn it into a float, and overflow)
    return _is_integer(value) or isinstance(value, float) and math.isfinite(value)


_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str), "integer": _is_integer, "number": _is_number,
    "boolean": lambda v: isinstance(v, bool), "array": lambda v: isinstance(v, list)}
_FORMATS = {"email": is_email, "uri": is_uri, "date": is_date, "date-time": is_date_time}
#: Keywords that decide nothing (jsonschema passes over them).
_ANNOTATIONS = frozenset({"title", "description", "default", "enumNames", "$comment", "examples",
                          "deprecated", "readOnly", "writeOnly"})


def _equal(one: Any, two: Any) -> bool:
    """JSON equality as jsonschema judges it (``True`` is not ``1``), for plain values."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    plain = (int, float, type(None))
    if not isinstance(one, plain) or not isinstance(two, plain):
        raise _Undecided("a value that is not plain")
    return isinstance(one, bool) == isinstance(two, bool) and one == two


def _type(value, limit, path):
    if not isinstance(limit, str) or limit not in _TYPES:
        raise _Undecided(f"type {limit!r}")
    return None if _TYPES[limit](value) else _Error(path, "type", limit)


def _enum(value, limit, path):
    if not isinstance(limit, list):
        raise _Undecided("enum")
    return None if any(_equal(each, value) for each in limit) else _Error(path, "enum", limit)


def _const(value, limit, path):
    return None if _equal(value, limit) else _Error(path, "const", limit)


def _valid_under(value, schemas, path) -> int:
    if not isinstance(schemas, list):
        raise _Undecided("a list of schemas")
    return sum(_first_error(value, each, path) is None for each in schemas)


def _one_of(value, limit, path):
    return None if _valid_under(value, limit, path) == 1 else _Error(path, "oneOf", limit)


def _any_of(value, limit, path):
    return None if _valid_under(value, limit, path) else _Error(path, "anyOf", limit)


def _size(keyword: str, kind: type, too: Callable[[int, Any], bool]):
    """A check of the length of a ``kind`` value (a string's characters, a list's items)."""
    def check(value, limit, path):
        if isinstance(value, kind) and too(len(value), limit):
            return _Error(path, keyword, limit)
        return None
    return check


def _bound(keyword: str, outside: Callable[[Any, Any], bool]):
    def check(value, limit, path):
        if _is_number(value) and outside(value, limit):
            return _Error(path, keyword, limit)
        return None
    return check


def _multiple_of(value, limit, path):
    if _is_number(value) and not is_multiple_of(value, limit):
        return _Error(path, "multipleOf", limit)
    return None


def _pattern(value, limit, path):
    if not isinstance(value, str):
        return None
    try:
        matched = search_pattern(limit, value)
    except PatternTimeout:
        return _Error(path, "pattern-timeout", limit)
    return None if matched else _Error(path, "pattern", limit)


def _format(value, limit, path):
    if limit not in _FORMATS:
        return None  # (jsonschema's checker knows only these four)
    if not isinstance(value, str):
        return None  # (a format says nothing of a value that is not text; its type does)
    return None if _FORMATS[limit](value) else _Error(path, "format", limit)


def _unique(value, limit, path):
    if not limit or not isinstance(value, list):
        return None
    if not all(isinstance(each, str) for each in value):
        raise _Undecided("a list of values that are not all text")
    return None if len(set(value)) == len(value) else _Error(path, "uniqueItems", limit)


def _items(value, limit, path):
    if not isinstance(value, list):
        return None
    first = None
    for index, item in enumerate(value):
        error = _first_error(item, limit, (*path, index))
        if first is None:
            first = error
    return first


_CHECKS: dict[str, Callable[[Any, Any, tuple], _Error | None]] = {
    "type": _type, "enum": _enum, "const": _const, "oneOf": _one_of, "anyOf": _any_of,
    "minLength": _size("minLength", str, lambda n, limit: n < limit),
    "maxLength": _size("maxLength", str, lambda n, limit: n > limit),
    "pattern": _pattern, "format": _format,
    "minimum": _bound("minimum", lambda v, limit: v < limit),
    "maximum": _bound("maximum", lambda v, limit: v > limit),
    "exclusiveMinimum": _bound("exclusiveMinimum", lambda v, limit: v <= limit),
    "exclusiveMaximum": _bound("exclusiveMaximum", lambda v, limit: v >= limit),
    "multipleOf": _multiple_of,
    "items": _items,
    "minItems": _size("minItems", list, lambda n, limit: n < limit),
    "maxItems": _size("maxItems", list, lambda n, limit: n > limit),
    "uniqueItems": _unique,
}


def _message(spec: FormSpec, error) -> str:
    field = spec.field(error.path[0])
    keyword, limit = error.validator, error.validator_value
    in_items = len(error.path) > 1
    if keyword == "type":
        return t(_TYPE_HINTS.get(limit, "v_wrong_type"))
    if keyword == "format":
        return t(_FORMAT_HINTS[limit])
    if keyword == "pattern":
        return _pattern_message(field, limit)
    if keyword == "pattern-timeout":
        return t("v_pattern_timeout", pattern=field.pattern)
    if keyword in _COUNTS:
        return t(_COUNTS[keyword], n=_num(limit), s=_s(limit))
    if keyword == "uniqueItems":
        return t("v_unique")
    if in_items:
        return t("v_listed_items")
    if keyword in ("enum", "oneOf", "anyOf", "const"):
        return t("v_listed")
    return t("v_not_allowed")


def _pattern_message(field, pattern: str) -> str:
    """What a value that misses ``pattern`` should be, in the server's own words where it gave
    any: the field's description, else its title; the raw pattern only as a last resort."""
    if field.description and field.description.strip():
        return t("v_pattern_described", description=field.description.strip())
    if field.title and field.title.strip():
        return t("v_pattern_titled", title=field.title.strip())
    return t("v_pattern", pattern=pattern)


_COUNTS = {"minLength": "v_min_length", "maxLength": "v_max_length", "minimum": "v_minimum",
           "maximum": "v_maximum", "minItems": "v_min_items", "maxItems": "v_max_items",
           "exclusiveMinimum": "v_more_than", "exclusiveMaximum": "v_less_than",
           "multipleOf": "v_multiple_of"}


def read_number(field: NumberField, text: str) -> int | float:
    """The number a person typed, typed as the field wants; ``ValueError`` says what is wrong."""
    text = text.strip().replace("\u2212", "-")
    if _WHOLE.fullmatch(text):
        try:
            return int(text)
        except ValueError:  # more digits than Python makes an int of (4,300)
            raise ValueError(_too_large(field, negative=text.startswith("-"))) from None
    if field.integer:
        raise ValueError(t("v_integer"))
    value = float(text) if _DECIMAL.fullmatch(text) else math.nan
    if not math.isfinite(value):
        raise ValueError(t("v_number"))
    return value


_WHOLE = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _too_large(field: NumberField, negative: bool) -> str:
    """What to say of a whole number with too many digits to read: the bound it is beyond."""
    if negative and field.minimum is not None:
        return t("v_minimum", n=_num(field.minimum))
    if negative and field.exclusive_minimum is not None:
        return t("v_more_than", n=_num(field.exclusive_minimum))
    if not negative and field.maximum is not None:
        return t("v_maximum", n=_num(field.maximum))
    if not negative and field.exclusive_maximum is not None:
        return t("v_less_than", n=_num(field.exclusive_maximum))
    return t("v_integer") if field.integer else t("v_number")


def _num(value: int | float) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _s(n: int) -> str:
    return "" if n == 1 else "s"
