"""Exceptions raised by nb_elicit.

The tree::

    NbElicitError                 every error nb_elicit raises on purpose
    ├── SchemaError               a requestedSchema outside the elicitation subset
    ├── InvalidRequest            any other elicitation request nb_elicit cannot show
    ├── ConnectError              a server could not be started or reached
    ├── ServerDisconnected        the server went away (exited, crashed, closed the stream)
    ├── ServerError               the server answered a request with a JSON-RPC error
    └── BlockingNotSupported      this kernel cannot receive clicks while a cell awaits

Validation problems with what a person typed are not exceptions: they are shown on the form,
next to the field, and nothing is sent.
"""

from __future__ import annotations

__all__ = [
    "BlockingNotSupported",
    "ConnectError",
    "InvalidRequest",
    "NbElicitError",
    "SchemaError",
    "ServerDisconnected",
    "ServerError",
]


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


class InvalidRequest(NbElicitError, ValueError):
    """An elicitation request that is malformed or of a mode nb_elicit does not handle."""


class ConnectError(NbElicitError):
    """A server could not be started or reached; the message says why, with its last words."""


class ServerDisconnected(NbElicitError):
    """The server went away while nb_elicit was talking to it."""


class ServerError(NbElicitError):
    """The server answered with a JSON-RPC error: ``code`` and ``message`` are the server's."""

    def __init__(self, code: int, message: str):
        self.code = code
        self.message = message
        super().__init__(f"server error {code}: {message}")


class BlockingNotSupported(NbElicitError):
    """The kernel cannot deliver widget events to a cell that awaits (ipykernel < 7.4)."""
