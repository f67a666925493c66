"""The secret values this kernel was given, and masking them wherever they would show.

**The one masking path.** Every surface that shows text goes through this module:
:func:`hide` replaces given values wherever they appear in a text (a server's stderr, a
connect error, a target's command line), and :func:`scrub` does so with every value nb_elicit
was given as a secret so far (:func:`remember`): a respond policy's values under secret names,
the values of secret-named ``--env`` variables and of credential headers. The errors nb_elicit
raises, the ``%mcp`` tables and texts, and the history are scrubbed.

Which names and fields hold a secret is :mod:`.secrets`' and :mod:`.secret_fields`' to say;
this module imports nothing of nb_elicit but :mod:`.kernel` (which imports nothing), so that
everything (the errors first) can use it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..kernel import part

__all__ = ["MASK", "MIN_SEARCHED", "KnownSecrets", "hide", "remember", "scrub", "scrubbed"]

MASK = "••••••"
#: Values shorter than this are masked where they stand (a key, a header), never searched for in
#: free text: "1" or "no" would mask half of every line.
MIN_SEARCHED = 4


class KnownSecrets(set[str]):
    """Every value nb_elicit was given as a secret in this kernel (see :func:`remember`): a
    part of the kernel's owner (:mod:`.kernel`)."""


def hide(text: str, hidden: Iterable[str]) -> str:
    """``text`` with every value of ``hidden`` replaced by :data:`MASK` (the longest first)."""
    for value in sorted(set(hidden), key=len, reverse=True):
        if value:
            text = text.replace(value, MASK)
    return text


def scrub(text: str, also: Iterable[str] = ()) -> str:
    """``text`` with every remembered secret (and those of ``also``) masked."""
    return hide(text, part(KnownSecrets).union(v for v in also if len(v) >= MIN_SEARCHED))


def remember(values: Iterable[str]) -> None:
    """Keep ``values`` as secrets, so that :func:`scrub` masks them wherever they appear."""
    part(KnownSecrets).update(v for v in values if isinstance(v, str) and len(v) >= MIN_SEARCHED)


def scrubbed(value: Any) -> Any:
    """A JSON-like ``value`` with every remembered secret masked inside its strings."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {k: scrubbed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [scrubbed(v) for v in value]
    return value
