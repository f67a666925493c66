"""How one elicitation ended, as a value: the answer, who gave it, and what the cell says.

Every way a request can be answered (muted, refused, replayed, a respond policy, the rate limit,
the person, no frontend, an interrupt) produces an :class:`Outcome`; one place in the runtime
writes its notice, its history entry and, for a person's answer, the recording. Pure: no
ipywidgets, no mcp.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from .answer import Answer

__all__ = ["Counted", "Outcome"]


@dataclass(frozen=True)
class Counted:
    """A notice that covers every request of one ``kind`` in a call, with their count: one line
    ("declined 195 requests") instead of one line per request."""

    kind: str
    text: Callable[[int], str]


@dataclass(frozen=True)
class Outcome:
    """What became of one request.

    ``answer`` is what goes back to the server (None when nothing does: the request was
    withdrawn, or ``error`` is sent instead). ``answered_by`` names who answered:
    ``"person"``, or what answered for them. ``notice`` is the line the calling cell shows
    (or ``counted``, for a notice shared by many requests); with ``status``, the line is the
    request itself, as the transcript tells it ("demo asked: ... Answered accept by the
    respond policy.").
    """

    answer: Answer | None
    answered_by: str
    notice: str | None = None
    counted: Counted | None = None
    status: str | None = None
    error: Exception | None = None
    #: Lines shown before the outcome's own: why an earlier way did not answer.
    notes: tuple[str, ...] = ()
    #: What the history calls the action, when it is not the answer's ("retry", "error", ...).
    label: str | None = None
    #: How the notice reads: "info" (as asked), "warning" (nb_elicit answered for the person)
    #: or "error" (the request could not be shown).
    kind: str = "info"

    @property
    def action(self) -> str:
        if self.label is not None:
            return self.label
        if self.answer is not None:
            return self.answer.action
        return "error" if self.error is not None else "none"

    @property
    def by_person(self) -> bool:
        return self.answered_by == "person"

    def noting(self, *notes: str) -> Outcome:
        """The same outcome, with ``notes`` shown before it."""
        return replace(self, notes=(*notes, *self.notes)) if notes else self
