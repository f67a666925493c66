"""Check answer content against its ``requestedSchema``, in plain language per field.

Pure: no ipywidgets, no mcp. jsonschema does the checking, with four changes that a form needs:
real format checks (``_formats``), server patterns matched with a timeout, strict types (an
integer is a Python ``int``, never ``True`` and never ``2.5``; ``null`` is never an answer), and
``multipleOf`` judged on the decimal numbers people type (0.3 is a multiple of 0.1).

    >>> validate_content({"type": "object", "properties": {"age": {"type": "integer"}}},
    ...                  {"age": 2.5})
    {'age': 'Enter a whole number.'}
"""

from __future__ import annotations

import contextlib
import math
import re
import threading
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

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

__all__ = ["is_multiple_of", "read_number", "validate_content", "validate_spec", "warm_up",
           "warming_or_warm"]

# jsonschema is imported the first time something is validated, not when this module is: its
# import can take more than a second (with ``rfc3987-syntax`` installed, as every Jupyter
# server install has it, it builds a grammar), and read_number, which every form's number
# fields use, needs none of it. warm_up() imports it in the background ahead of time; when it
# is called is decided in ``_runtime/warmup.py`` (never on the way to the first form).
_engine: tuple[Any, Any] | None = None  # (the Validator class, the FormatChecker)
_engine_lock = threading.Lock()
_WARM_UP_THREAD = "nb_elicit-validate-warm-up"


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
    for name, check in (("email", is_email), ("uri", is_uri), ("date", is_date),
                        ("date-time", is_date_time)):
        formats.checks(name)(check)

    types = Draft202012Validator.TYPE_CHECKER.redefine_many({
        "integer": lambda _, v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda _, v: (isinstance(v, (int, float)) and not isinstance(v, bool)
                                and math.isfinite(v)),
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


def warm_up() -> None:
    """Import jsonschema and make the validator in a background thread, unless done already
    (validating waits for it, if it comes first)."""
    if not warming_or_warm():
        threading.Thread(target=_quietly_make, name=_WARM_UP_THREAD, daemon=True).start()


def warming_or_warm() -> bool:
    """Whether the validator is made, or being made in the background."""
    return _engine is not None or any(th.name == _WARM_UP_THREAD for th in threading.enumerate())


def _quietly_make() -> None:
    with contextlib.suppress(Exception):  # only an optimisation: validating will say why
        _jsonschema()


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
    validator_class, formats = _jsonschema()
    validator = validator_class(_checkable(spec), format_checker=formats)
    for error in validator.iter_errors(dict(content)):
        if error.path and error.path[0] not in problems:
            problems[error.path[0]] = _message(spec, error)
    return problems


def _checkable(spec: FormSpec) -> dict:
    """The schema as jsonschema should see it: the properties, never ``required``.

    A multi-select never holds a choice twice, whether or not the server said ``uniqueItems``.
    """
    properties = {}
    for name, prop in spec.schema.get("properties", {}).items():
        properties[name] = {**prop, "uniqueItems": True} if prop.get("type") == "array" else prop
    return {"type": "object", "properties": properties}


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
        return int(text)
    if field.integer:
        raise ValueError(t("v_integer"))
    value = float(text) if _DECIMAL.fullmatch(text) else math.nan
    if not math.isfinite(value):
        raise ValueError(t("v_number"))
    return value


_WHOLE = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _num(value: int | float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _s(n: int) -> str:
    return "" if n == 1 else "s"
