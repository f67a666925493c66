"""How a ``%mcp`` subcommand's failure is told: one line, from one table.

Every subcommand runs inside :func:`map_exceptions` (in the style of httpx's
``map_exceptions``): an exception whose class (or a base of it) is in :data:`TOLD` becomes one
:class:`UsageError` line, which IPython shows without a traceback; the most specific entry wins.
Any further lines of its text (a server's last words on stderr) are printed above it. Every
other exception is a bug in nb_elicit, and keeps its traceback.

Whatever is told goes through :func:`~nb_elicit._core.masking.scrub` first: no secret nb_elicit
was given reaches the cell.
"""

from __future__ import annotations

import contextlib
import linecache
from collections.abc import Callable, Iterator
from pathlib import Path

from IPython.core.error import UsageError

from .._core.errors import NbElicitError
from .._core.masking import scrub

__all__ = ["TOLD", "map_exceptions", "told"]

#: The package whose own ``raise`` statements are mistakes told to the person.
_PACKAGE = Path(__file__).resolve().parent.parent


def _on_purpose(error: BaseException) -> str | None:
    """The text of a ValueError or TypeError that nb_elicit raised on purpose about an argument
    (the innermost frame is a ``raise`` statement in nb_elicit's own code, so its message was
    written for the person); None for any other, which is a bug."""
    tb = error.__traceback__
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    filename = tb.tb_frame.f_code.co_filename
    try:
        ours = Path(filename).resolve().is_relative_to(_PACKAGE)
    except (OSError, ValueError):
        ours = False
    if not ours or not linecache.getline(filename, tb.tb_lineno).lstrip().startswith("raise "):
        return None
    return str(error)


#: How each exception a subcommand may let out is told: its class -> its text (None: not told,
#: the traceback shows).
TOLD: dict[type[BaseException], Callable[[BaseException], str | None]] = {
    UsageError: str,  # the magic's own: already one line that says what to type
    NbElicitError: str,  # every error nb_elicit raises on purpose (connect, a server gone, ...)
    ValueError: _on_purpose,  # a bad argument, said by the API (never a bug's ValueError)
    TypeError: _on_purpose,
}


def told(error: BaseException, table: dict = TOLD) -> str | None:
    """The text ``error`` is told with, by its most specific class in ``table``; None if it is
    not told (a bug)."""
    for cls in type(error).__mro__:
        if cls in table:
            return table[cls](error)
    return None


@contextlib.contextmanager
def map_exceptions(table: dict = TOLD) -> Iterator[None]:
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
