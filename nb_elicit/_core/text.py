"""Shortening text for a cell, a table or an error line: the one place that cuts with "…";
and how long something took, in words."""

from __future__ import annotations

from .i18n import t

__all__ = ["duration", "shorten"]


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


def duration(seconds: float) -> str:
    """``12 s`` or ``2 min 05 s``, in the current language."""
    seconds = int(seconds)
    return (t("seconds", n=seconds) if seconds < 60 else
            t("minutes", m=seconds // 60, s=seconds % 60))
