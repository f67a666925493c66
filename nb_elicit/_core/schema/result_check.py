"""A tool's structured result checked against its output schema without jsonschema, where the
schema is plain enough to decide by itself.

The SDK checks a tool's structured result with jsonschema, whose first import takes a second or
more (see ``_mcp/jsonschema_import.py``). Most output schemas need none of it: a tool with a plain
return type (``-> str``) has the schema ``{"result": {"type": "string"}}``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["plainly_valid"]


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    # (an int of any size is finite: math.isfinite would turn it into a float, and overflow)
    return _is_integer(value) or isinstance(value, float) and math.isfinite(value)


#: The JSON types :func:`plainly_valid` knows, each checked as strictly as jsonschema or more.
_PLAIN_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool),
    "integer": _is_integer, "number": _is_number,
    "null": lambda v: v is None, "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list)}

#: Keywords that decide nothing (jsonschema passes over them).
_ANNOTATIONS = frozenset({"title", "description", "default", "enumNames", "$comment", "examples",
                          "deprecated", "readOnly", "writeOnly"})


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
