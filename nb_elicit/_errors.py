"""Exceptions raised by nb_elicit.

The tree::

    NbElicitError                 every error nb_elicit raises on purpose
    └── SchemaError               a requestedSchema outside the elicitation subset

Validation problems with what a person typed are not exceptions: they are shown on the form,
next to the field, and nothing is sent.
"""

from __future__ import annotations

__all__ = ["NbElicitError", "SchemaError"]


class NbElicitError(Exception):
    """Base class of every error nb_elicit raises on purpose."""


class SchemaError(NbElicitError, ValueError):
    """A requestedSchema that no elicitation spec version allows.

    ``problems`` lists ``(path, reason)`` pairs, one per offending spot, in document order;
    the message names every one of them on a single line.
    """

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = list(problems)
        detail = "; ".join(f"{path}: {reason}" for path, reason in self.problems)
        super().__init__(f"unsupported requestedSchema: {detail}")
