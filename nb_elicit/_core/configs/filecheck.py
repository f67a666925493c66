"""Reading a JSON file through a pydantic model: one line per mistake, warnings for unknown keys.

Every file nb_elicit reads (server configs, the answers file of ``%mcp record``) comes through
here. A mistake is a :class:`~nb_elicit.ConfigError` of one line that names the file, the key
path and what was expected::

    .vscode/mcp.json: servers.db.args[2]: expected a string

A key the model does not know is not an error: :func:`unknown_keys` lists them, and the caller
warns. Values are never quoted in a message (a config holds tokens). Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from ..errors import ConfigError

__all__ = ["ConfigWarning", "KeyPath", "check", "key_path", "read_json", "unknown_keys",
           "warn_unknown"]

M = TypeVar("M", bound=BaseModel)
#: Where a value is in a file: its keys and list indexes, from the top.
KeyPath = tuple[str | int, ...]

_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


class ConfigWarning(UserWarning):
    """A file nb_elicit read has a key it does not know (and ignored)."""


def key_path(loc: tuple[Any, ...] | list[Any]) -> str:
    """``("servers", "db", "args", 2)`` as ``servers.db.args[2]``; odd keys are quoted."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _PLAIN_KEY.match(str(part)):
            text += ("." if text else "") + str(part)
        else:
            text += f"[{json.dumps(str(part), ensure_ascii=False)}]"
    return text


def read_json(path: Path, shown: str) -> Any:
    """The JSON document in ``path``; a :class:`ConfigError` names ``shown`` when it is not."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ConfigError(f"{shown}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else \
            type(error).__name__
        raise ConfigError(f"{shown}: cannot read it ({reason})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"{shown}: not JSON ({error.msg} at line {error.lineno}, column "
                          f"{error.colno})") from None


def check(model: type[M], data: Any, shown: str, prefix: KeyPath = ()) -> M:
    """``data`` read as ``model``; a :class:`ConfigError` of one line for the first mistake."""
    try:
        return model.model_validate(data, strict=True)
    except ValidationError as error:
        problems = error.errors(include_url=False, include_input=False)
        first = problems[0]
        more = len(problems) - 1
        where = key_path((*prefix, *first["loc"]))
        tail = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
        raise ConfigError(f"{shown}: {where or 'the file'}: {_expected(first)}{tail}") from None


def _expected(problem: ErrorDetails) -> str:
    kind, ctx = problem["type"], problem.get("ctx") or {}
    simple = {
        "string_type": "expected a string",
        "list_type": "expected a list",
        "dict_type": "expected an object",
        "model_type": "expected an object",
        "model_attributes_type": "expected an object",
        "bool_type": "expected true or false",
        "int_type": "expected a whole number",
        "missing": "missing (it is required)",
    }
    if kind in simple:
        return simple[kind]
    if kind == "literal_error":
        return f"expected {ctx.get('expected', 'one of the documented values')}"
    message = str(problem.get("msg", "not valid"))
    return message.removeprefix("Value error, ")


def unknown_keys(model: BaseModel, prefix: KeyPath = ()) -> Iterator[KeyPath]:
    """The key paths of keys ``model`` (and the models inside it) did not know."""
    for key in model.model_extra or {}:
        yield (*prefix, key)
    for name, info in type(model).model_fields.items():
        yield from _unknown_inside(getattr(model, name), (*prefix, info.alias or name))


def _unknown_inside(value: object, prefix: KeyPath) -> Iterator[KeyPath]:
    if isinstance(value, BaseModel):
        yield from unknown_keys(value, prefix)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _unknown_inside(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _unknown_inside(item, (*prefix, index))


def warn_unknown(model: BaseModel, shown: str, prefix: KeyPath = (),
                 skip: int = 0) -> list[str]:
    """Warn (:class:`ConfigWarning`) about every unknown key; return the warnings' texts.

    ``skip`` leaves out unknown keys at the top level of the file (settings files that hold much
    more than nb_elicit reads)."""
    texts = [f"{shown}: {key_path(path)}: unknown key, ignored"
             for path in unknown_keys(model, prefix) if len(path) > skip]
    for text in texts:
        warnings.warn(text, ConfigWarning, stacklevel=3)
    return texts
