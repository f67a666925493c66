"""How a ``%mcp`` subcommand's failure is told: one line, from one table.

Every subcommand runs inside :func:`map_exceptions` (in the style of httpx's
``map_exceptions``): an exception whose class (or a base of it) is in :data:`TOLD` becomes one
:class:`UsageError` line, which IPython shows without a traceback; the most specific entry wins.
Any further lines of its text (a server's last words on stderr) are printed above it. Every
other exception is a bug in nb_elicit, and keeps its traceback: a person's mistake is told
because nb_elicit raised one of its own types for it (a wrong argument is an
:class:`~nb_elicit.ConfigError`, ``InvalidArgument`` or ``ArgumentTypeError``, which are also
ValueErrors or TypeErrors), never by where a ValueError came from.

Whatever is told goes through :func:`~nb_elicit._core.secrets.masking.scrub` first: no secret
nb_elicit was given reaches the cell.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from IPython.core.error import UsageError

from .._core.errors import NbElicitError
from .._core.secrets.masking import scrub

__all__ = ["TOLD", "map_exceptions", "told"]

#: How each exception a subcommand may let out is told: its class -> its text (None: not told,
#: the traceback shows).
#: What an exception is told with, by its class (None: not told, a bug's).
Tells = dict[type[BaseException], Callable[[BaseException], "str | None"]]

TOLD: Tells = {
    UsageError: str,  # the magic's own: already one line that says what to type
    # Every error nb_elicit raises on purpose: a connect that failed, a server gone, a wrong
    # argument (ConfigError, InvalidArgument, ArgumentTypeError), ... Any other ValueError or
    # TypeError is a bug's.
    NbElicitError: str,
}


def told(error: BaseException, table: Tells = TOLD) -> str | None:
    """The text ``error`` is told with, by its most specific class in ``table``; None if it is
    not told (a bug)."""
    for cls in type(error).__mro__:
        if cls in table:
            return table[cls](error)
    return None


@contextlib.contextmanager
def map_exceptions(table: Tells = TOLD) -> Iterator[None]:
    """Tell what ``table`` knows as one UsageError line; let everything else through."""
    try:
        yield
    except Exception as error:
        text = told(error, table)
        if text is None:
            raise
        first, *more = scrub(text).strip().splitlines() or [type(error).__name__]
        if more:
            print("\n".join(more))
        raise UsageError(first) from None
