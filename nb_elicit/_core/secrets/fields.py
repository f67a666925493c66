"""Which fields of a parsed form ask for a secret: a text (not a date) or number field whose
name or title names one (the words: :mod:`.secrets`). Such a field is masked as typed, never
prefilled, and shown as ``••••••`` in history and transcripts."""

from __future__ import annotations

from ..schema.fields import Field, FormSpec, NumberField, TextField
from .names import looks_secret

__all__ = ["is_secret", "secret_fields"]


def is_secret(field: Field) -> bool:
    """Whether a parsed field is a secret: a text (not a date) or number field named like one."""
    typed_in = isinstance(field, NumberField) or (
        isinstance(field, TextField) and field.format not in ("date", "date-time"))
    return typed_in and looks_secret(field.name, field.title)


def secret_fields(spec: FormSpec) -> list[str]:
    """The names of a form spec's secret fields, in form order."""
    return [f.name for f in spec if is_secret(f)]
