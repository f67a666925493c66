"""Shortening text for a cell, a table or an error line: the one place that cuts with "…"."""

from __future__ import annotations

__all__ = ["shorten"]


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
