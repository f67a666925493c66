"""What a form shows before anyone types, what counts as given, and answers made as if Submit
were pressed on it.

One rule decides which fields an answer holds, for the form's controls and for headless
answers alike (:func:`is_given`): a field is sent when it shows a value, and left out when it
shows nothing. An empty text box shows nothing, whether the person emptied it or the server's
default was ``""``; so does an optional multi-select with nothing ticked, and an optional
checkbox or choice that was never set (or was cleared). A default the form shows counts as
what the person saw and confirmed, so it is sent. Nothing invents ``0``, ``false``, ``""`` or
``null``.

A respond policy's ``accept`` and a replayed answer are the same as a person who presses Submit
on the form as shown: they start from the prefilled defaults and lay their own values over
them, under the same rule. So a server gets the same answer from a headless run as from a
person who only fills in what was asked. Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

from typing import Any

from ..secrets.fields import secret_fields
from .fields import Field, FormSpec, MultiChoiceField, TextField

__all__ = ["as_submitted", "is_given", "prefilled"]


def is_given(field: Field, value: Any) -> bool:
    """Whether ``value``, as ``field`` shows it, is sent: not when it shows nothing.

    Nothing is ``None`` (no value at all), an empty text (a text box shows ``""`` exactly as it
    shows no value), and for an optional multi-select an empty list (no box ticked; a required
    one sends ``[]``, which its ``minItems`` may then refuse).
    """
    if value is None:
        return False
    if isinstance(field, TextField) and value == "":
        return False
    if isinstance(field, MultiChoiceField) and not field.required:
        return not (isinstance(value, (list, tuple)) and len(value) == 0)
    return True


def prefilled(spec: FormSpec) -> dict[str, Any]:
    """Each field's default as the form shows it, where it shows one (:func:`is_given`);
    secret-looking fields start empty."""
    secrets = set(secret_fields(spec))
    # (a multi-select's default is kept as a tuple in the frozen spec; it is sent as a list)
    return {f.name: list(f.default) if isinstance(f.default, tuple) else f.default
            for f in spec if is_given(f, f.default) and f.name not in secrets}


def as_submitted(spec: FormSpec, given: dict[str, Any]) -> dict[str, Any]:
    """What Submit sends after ``given`` is entered into the form as shown: a value that shows
    nothing (:func:`is_given`) empties its field, and unknown names are left out (the form has
    nowhere to enter them)."""
    content = prefilled(spec)
    for field in spec:
        if field.name in given:
            value = given[field.name]
            if is_given(field, value):
                content[field.name] = value
            else:
                content.pop(field.name, None)
    return content
