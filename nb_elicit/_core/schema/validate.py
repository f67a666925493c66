"""Check answer content against its ``requestedSchema``, in plain language per field.

Pure: no ipywidgets, no mcp. The answer as a whole is judged here (an object, no keys outside
the form, no ``null``, the required fields there); each value by its own field
(:meth:`Field.problem <nb_elicit._core.schema.fields.Field.problem>`), since ``parse_schema`` lets
through only the keywords those checks know. The checks are JSON Schema's (draft 2020-12), with
four changes that a form needs: real format checks (``_formats``), server patterns matched
with a timeout, strict types (an integer is a Python ``int``, never ``True`` and never ``2.5``;
``null`` is never an answer), and ``multipleOf`` judged on the decimal numbers people type (0.3
is a multiple of 0.1).

    >>> validate_content({"type": "object", "properties": {"age": {"type": "integer"}}},
    ...                  {"age": 2.5})
    {'age': 'Enter a whole number.'}
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from ..i18n import t
from ..secrets.fields import is_secret
from .fields import FormSpec, NumberField, parse_schema
from .keyword_values import shown_number

__all__ = ["read_number", "validate_content", "validate_spec"]


def validate_content(requested_schema: Mapping[str, object],
                     content: object) -> dict[str, str]:
    """Map each property with a problem to a plain-language message; ``{}`` when all is valid.

    Raises :class:`SchemaError` when the schema itself is outside the elicitation subset.
    A problem with the content as a whole (not an object) is reported under the key ``""``.
    """
    return validate_spec(parse_schema(requested_schema), content)


def validate_spec(spec: FormSpec, content: object) -> dict[str, str]:
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
        elif field.name in content and field.name not in problems:
            try:
                problem = field.problem(content[field.name])
            except RecursionError:  # a list nested deeper than Python reads
                problem = t("v_not_allowed")
            if problem is not None:
                problems[field.name] = problem
    return problems


def read_number(field: NumberField, text: str) -> int | float:
    """The number a person typed, typed as the field wants; ``ValueError`` says what is wrong."""
    text = text.strip().replace("\u2212", "-")
    if _WHOLE.fullmatch(text):
        try:
            return int(text)
        except ValueError:  # more digits than Python makes an int of (4,300)
            raise ValueError(_too_large(field, negative=text.startswith("-"))) from None
    secret = is_secret(field)  # (a hint never repeats what was typed into a secret)
    if _GROUPED.fullmatch(text):  # "1,000": digits grouped with commas
        raise ValueError(_hint("v_no_commas", None if secret else text.replace(",", "")))
    if field.integer:
        raise ValueError(t("v_integer"))
    if _COMMA.fullmatch(text):  # "12,5": a decimal comma
        raise ValueError(_hint("v_decimal_point", None if secret else text.replace(",", ".")))
    value = float(text) if _DECIMAL.fullmatch(text) else math.nan
    if not math.isfinite(value):
        raise ValueError(t("v_number"))
    return value


_WHOLE = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
#: A number written with a decimal comma ("12,5"), and one with its digits grouped by commas
#: ("1,000", "-12,345,678"): a hint says how to write it, rather than only that it is wrong.
_COMMA = re.compile(r"[+-]?[0-9]*,[0-9]+")
_GROUPED = re.compile(r"[+-]?[0-9]{1,3}(,[0-9]{3})+")


def _hint(key: str, example: str | None) -> str:
    """A hint of how to write a number, with ``example`` (None: without one, for a secret)."""
    return t(key, example=example) if example is not None else \
        t(key, example="").rstrip(": ：") + "."


def _too_large(field: NumberField, negative: bool) -> str:
    """What to say of a whole number with too many digits to read: the bound it is beyond."""
    if negative and field.minimum is not None:
        return t("v_minimum", n=shown_number(field.minimum))
    if negative and field.exclusive_minimum is not None:
        return t("v_more_than", n=shown_number(field.exclusive_minimum))
    if not negative and field.maximum is not None:
        return t("v_maximum", n=shown_number(field.maximum))
    if not negative and field.exclusive_maximum is not None:
        return t("v_less_than", n=shown_number(field.exclusive_maximum))
    return t("v_integer") if field.integer else t("v_number")
