"""Shortening text for a cell, a table or an error line: the one place that cuts with "…";
and text with its invisible characters made visible. (No words of nb_elicit's own: those are
in :mod:`.i18n`, which the errors this module is used by are told in.)"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable

__all__ = ["close_names", "is_invisible", "shorten", "visible"]


def close_names(word: str, names: Iterable[str], n: int = 2) -> list[str]:
    """The names most like ``word`` (a typo's likely meaning), best first; none if none is
    close (:func:`difflib.get_close_matches`)."""
    return difflib.get_close_matches(word, list(names), n=n, cutoff=0.7)


def shorten(text: str, limit: int | None, *, at_word: bool = False,
            one_line: bool = False) -> str:
    """``text`` in at most ``limit`` characters, its end replaced by "…" when it is longer.

    ``at_word`` cuts at the last space or newline where that keeps more than half of it;
    ``one_line`` first folds every run of white space (newlines included) into one space.
    ``limit=None`` keeps all of it.
    """
    if one_line:
        text = " ".join(text.split())
    if limit is None or len(text) <= limit:
        return text
    head = text[: max(limit - 1, 0)]
    if at_word:
        space = max(head.rfind(" "), head.rfind("\n"))
        head = (head[:space] if space > limit // 2 else head).rstrip()
    return head + "…"


#: Characters that show as nothing, or as a plain space, though they are not one: controls
#: (Cc), format characters (Cf: bidi overrides and isolates, zero-width spaces and joiners),
#: surrogates, private-use and unassigned code points, line and paragraph separators, and every
#: space but the ASCII one (a no-break space inside an argument looks like two arguments).
_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})
#: Letters that render as blank all the same (Hangul fillers).
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")


def is_invisible(char: str) -> bool:
    """Whether the character ``char`` shows as nothing, or as a space it is not (see
    :data:`_INVISIBLE`); a plain space is visible."""
    return char != " " and (unicodedata.category(char) in _INVISIBLE or char in _BLANK_LETTERS)


def visible(text: str, lines: bool = False) -> str:
    """``text`` with each invisible character (see :data:`_INVISIBLE`) written as its escape
    (``\\n``, ``\\t``, ``\\x1b``, ``\\u202e``), so that nothing shown can hide, reorder
    or fake what is around it. Every other character, a plain space included, stays;
    ``lines``: a newline stays too (a message shown on several lines)."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(ascii(c)[1:-1] if is_invisible(c) and not (lines and c == "\n") else c
                   for c in text)
