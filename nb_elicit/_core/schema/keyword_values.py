"""How ``requestedSchema`` keyword values are read and quoted in :class:`SchemaError` lines.

Numbers a form can work with (finite, no larger than the largest float), counts, and a short,
safe quote of any JSON value (an int of over 4,300 digits has no repr). Pure: no ipywidgets,
no mcp.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from ..limits import MAX_CHOICES
from ..text import shorten
from .shapes import Problems

__all__ = ["brief", "count", "got", "json_type", "number", "shown_number", "too_long",
           "too_many_choices"]


def too_long(text: str, limit: int, what: str = "it") -> str:
    return f"{what} is {len(text):,} characters; the limit is {limit:,}"


def too_many_choices(values: list[Any]) -> str:
    return f"has {len(values):,} choices; the limit is {MAX_CHOICES:,}"


def number(prop: dict[str, Any], key: str, path: str, problems: Problems) -> int | float | None:
    """A number keyword's value, if it is one a form can work with: finite, and no larger than
    the largest float (an integer of any size is a JSON number, but beyond that no bound,
    step or default makes sense, and Python cannot even print one past 4,300 digits)."""
    value = prop.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        problems.add(f"{path}.{key}", f"must be a finite number, not {json_type(value)}")
        return None
    if isinstance(value, float) and not math.isfinite(value):
        problems.add(f"{path}.{key}", f"must be a finite number, not {value}")
        return None
    if abs(value) > _LARGEST:
        problems.add(f"{path}.{key}", f"is too large; the limit is ±{_LARGEST:.4g}")
        return None
    return value


_LARGEST = sys.float_info.max


def count(prop: dict[str, Any], key: str, path: str, problems: Problems) -> int | None:
    value = number(prop, key, path, problems)
    if value is None:
        return None
    if value < 0 or not float(value).is_integer():
        problems.add(f"{path}.{key}", f"must be a whole number >= 0, not {value}")
        return None
    return int(value)


def got(obj: dict[str, Any], key: str) -> str:
    return f", got {brief(obj[key])}" if key in obj else " (it is missing)"


def brief(value: Any) -> str:
    """A server's value as an error message quotes it: its repr, cut to one short line."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # an int of over 4,300 digits, a list nested too deep
        return json_type(value)
    return shorten(text, 60, one_line=True)


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def shown_number(value: int | float) -> str:
    """A keyword's number as a message shows it: ``5``, not ``5.0``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
