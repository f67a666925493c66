"""What a form shows before anyone types, and answers made as if Submit were pressed on it.

A respond policy's ``accept`` and a replayed answer are the same as a person who presses Submit
on the form as shown: they start from the prefilled defaults and lay their own values over
them. So a server gets the same answer from a headless run as from a person who only fills in
what was asked. Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

from typing import Any

from .schema import FormSpec
from .secrets import secret_fields

__all__ = ["as_submitted", "prefilled"]


def prefilled(spec: FormSpec) -> dict[str, Any]:
    """Each field's default as the form shows it; secret-looking fields start empty."""
    secrets = set(secret_fields(spec))
    # (a multi-select's default is kept as a tuple in the frozen spec; it is sent as a list)
    return {f.name: list(f.default) if isinstance(f.default, tuple) else f.default
            for f in spec if f.default is not None and f.name not in secrets}


def as_submitted(spec: FormSpec, given: dict[str, Any]) -> dict[str, Any]:
    """What Submit sends after ``given`` is typed into the form as shown (unknown names are
    left out: the form has nowhere to type them)."""
    names = {f.name for f in spec}
    return {**prefilled(spec), **{k: v for k, v in given.items() if k in names}}
