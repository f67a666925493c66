"""Exceptions raised by nb_elicit.

The tree::

    NbElicitError                 every error nb_elicit raises on purpose
    ├── SchemaError               a requestedSchema outside the elicitation subset
    ├── InvalidRequest            any other elicitation request nb_elicit cannot show
    ├── ConnectError              a server could not be started or reached
    │   └── SignInError           ... signing in to it failed (the step is named)
    ├── ConfigError               a file nb_elicit reads, or a connect option, is wrong
    ├── InvalidArgument           a value nb_elicit cannot take (a policy, a language, ...)
    ├── ArgumentTypeError         an argument of the wrong type, or an unknown keyword
    ├── ServerDisconnected        the server went away (exited, crashed, closed the stream)
    ├── UnreadableFile            a file nb_elicit keeps is there but unreadable: left as it is
    ├── ServerError               the server answered a request with a JSON-RPC error
    │   └── UrlElicitationRequired    ... -32042: pages to open first, then retry
    ├── BlockingNotSupported      this kernel cannot receive clicks while a cell awaits
    ├── TaskDetached              the person detached; the task keeps running on the server
    ├── TaskCancelled             the task was cancelled (by Cancel, or by the server)
    └── AppRefused                a server's app nb_elicit will not show (in :mod:`.apps`)

Validation problems with what a person typed are not exceptions: they are shown on the form,
next to the field, and nothing is sent.

An error's text and repr never carry a secret nb_elicit was given (a respond policy's key, a
credential header, a secret ``--env`` value): they go through :func:`.masking.scrub`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .secrets.masking import scrub
from .text import shorten

if TYPE_CHECKING:  # (the request type only: types imports what imports this module)
    from .types import ElicitationRequest

__all__ = [
    "ArgumentTypeError",
    "BlockingNotSupported",
    "ConfigError",
    "ConnectError",
    "InvalidArgument",
    "InvalidRequest",
    "NbElicitError",
    "SchemaError",
    "ServerDisconnected",
    "ServerError",
    "SignInError",
    "TaskCancelled",
    "TaskDetached",
    "UnreadableFile",
    "UrlElicitationRequired",
]


class NbElicitError(Exception):
    """Base class of every error nb_elicit raises on purpose."""

    def __str__(self) -> str:
        return scrub(super().__str__())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


class SchemaError(NbElicitError, ValueError):
    """A requestedSchema that no elicitation spec version allows.

    ``problems`` lists ``(path, reason)`` pairs, one per offending spot, in document order;
    the message names every one of them on a single line.
    """

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = list(problems)
        shown = self.problems[:_SHOWN_PROBLEMS]
        detail = "; ".join(f"{shorten(path, 80)}: {reason}" for path, reason in shown)
        if len(self.problems) > len(shown):
            detail += f"; and {len(self.problems) - len(shown)} more problems"
        super().__init__(f"unsupported requestedSchema: {detail}")


_SHOWN_PROBLEMS = 10



class InvalidRequest(NbElicitError, ValueError):
    """An elicitation request that is malformed or of a mode nb_elicit does not handle."""


class ConnectError(NbElicitError):
    """A server could not be started or reached; the message says why, with its last words."""


class ConfigError(NbElicitError, ValueError):
    """A file nb_elicit reads (a server config, an answers file) is wrong, or a server is not in
    any config; one line that names the file, the key path and what was expected. Also a
    connect option with a wrong value (``secret_forms="sometimes"``, a malformed ``url``, an
    http sign-in address), named as it was given."""


class InvalidArgument(NbElicitError, ValueError):
    """A value nb_elicit was given that it cannot take: an unknown respond policy or language,
    a rate limit it cannot read, a connection it does not know. One line that says what it
    takes. (A ValueError, as these were before they had a type of their own.)"""


class ArgumentTypeError(NbElicitError, TypeError):
    """An argument of the wrong type (``url=8000``), or a keyword nb_elicit does not take (an
    unknown sign-in option); one line that names it. (A TypeError too.)"""


class SignInError(ConnectError):
    """Signing in to a server failed: one line naming the server and the step (``step``:
    discovery, registration, cancelled, state, token, scope, refused, no person, ...)."""

    def __init__(self, message: str, step: str = ""):
        super().__init__(message)
        self.step = step


class ServerDisconnected(NbElicitError):
    """The server went away while nb_elicit was talking to it."""


class UnreadableFile(NbElicitError, OSError):
    """A file nb_elicit keeps (the running tasks, the trust consents) is there but cannot be
    read (not JSON, not of its shape): it is left as it is, and the change is not kept. One
    line naming the file; ``strerror`` says what is wrong with it. An OSError too, as a file
    that cannot be written: who keeps a change says so in the same way."""

    def __init__(self, path: object, reason: str):
        super().__init__(f"{path}: {reason}; it is left as it is")
        self.path = str(path)
        self.strerror = f"{reason}; it is left as it is"


class ServerError(NbElicitError):
    """The server answered with a JSON-RPC error: ``code`` and ``message`` are the server's."""

    def __init__(self, code: int, message: str, data: object = None):
        self.code = code
        self.message = message
        self.data = data
        super().__init__(f"server error {code}: {message}")


class UrlElicitationRequired(ServerError):
    """The server needs the person to open web pages first (-32042), then the call may be
    retried. ``requests`` lists them as URL-mode elicitation requests."""

    def __init__(self, code: int, message: str, data: object,
                 requests: list[ElicitationRequest]) -> None:
        super().__init__(code, message, data)
        self.requests = requests


class BlockingNotSupported(NbElicitError):
    """The kernel cannot deliver widget events to a cell that awaits (ipykernel < 7.4)."""


class TaskDetached(NbElicitError):
    """The person detached from a task: the call ended, and the task keeps running on the server
    (``%mcp task NAME ID`` or ``Connection.attach_task`` follows it again)."""


class TaskCancelled(NbElicitError):
    """The task was cancelled (by Cancel, or by the server)."""
