"""How one elicitation ended, as a value: the answer, who gave it, and what the cell says.

Every way a request can be answered (muted, refused, replayed, a respond policy, the rate limit,
the person, no frontend, an interrupt) produces an :class:`Outcome`; one place in the runtime
writes its notice, its history entry and, for a person's answer, the recording. Pure: no
ipywidgets, no mcp.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum

from .answer import Answer
from .notices import NoticeKind

__all__ = ["AnsweredBy", "Consent", "Counted", "Outcome", "Refusal"]


class AnsweredBy(str, Enum):
    """Who answered a request: the person, or what answered for them; or how it ended without
    an answer. The value is what the history and the transcript show."""

    #: The person, in the form (or on the card).
    PERSON = "person"
    #: The respond policy.
    POLICY = "policy"
    #: The respond policy said accept to a page's consent, which only a person gives: cancel.
    POLICY_URL = "policy (URL needs a person)"
    #: The same, for a file's.
    POLICY_FILE = "policy (FILE needs a person)"
    #: The same, for an app's permissions.
    POLICY_PERMISSION = "policy (PERMISSION needs a person)"
    #: The respond policy's content did not fit the form: cancel.
    POLICY_MISFIT = "policy did not fit"
    #: A recorded answer (``%mcp replay``).
    REPLAY = "replay"
    #: The connection is muted.
    MUTED = "muted"
    #: The request was not one nb_elicit can show.
    REFUSED = "refused"
    #: The form asks for secrets, and the connection refuses those.
    REFUSED_SECRETS = "refused secrets"
    #: Past the rate limit.
    RATE_LIMIT = "rate limit"
    #: The backlog of waiting requests was full.
    BACKLOG_FULL = "backlog full"
    #: The person cancelled it while it waited for its turn.
    CANCELLED_WAITING = "cancelled while waiting"
    #: Nobody could see it: no widget frontend.
    NO_FRONTEND = "no frontend"
    #: The kernel's thread was held by a synchronous call.
    KERNEL_BLOCKED = "kernel blocked"
    #: An interrupt of the calling cell.
    INTERRUPT = "interrupt"
    #: A failure of nb_elicit's own.
    FAILED = "failed"
    #: The server withdrew it.
    WITHDRAWN = "withdrawn"
    #: The server withdrew it while it waited for its turn.
    WITHDRAWN_WAITING = "withdrawn while waiting"
    #: The person cancelled the task it was asked in.
    TASK_CANCELLED = "task cancelled"
    #: The person detached from the task it was asked in.
    TASK_DETACHED = "task detached"
    #: Its server went away.
    DISCONNECTED = "disconnected"
    #: Its connection closed, or nb_elicit was unloaded.
    CLOSED = "closed"

    __str__ = str.__str__
    def __format__(self, format_spec: str) -> str:  # (the text, as __str__: not the member)
        return str.__format__(self, format_spec)

    @property
    def told_by_status(self) -> bool:
        """Whether the status line nb_elicit writes for this way of ending already says it
        ("demo withdrew this request.", "demo disconnected."), so that a transcript does not
        repeat it in brackets."""
        return self in _TOLD_BY_STATUS


_TOLD_BY_STATUS = frozenset({AnsweredBy.WITHDRAWN, AnsweredBy.WITHDRAWN_WAITING,
                             AnsweredBy.TASK_CANCELLED, AnsweredBy.TASK_DETACHED,
                             AnsweredBy.DISCONNECTED})


class Refusal(str, Enum):
    """How nb_elicit answers a request it cannot show (or failed to show)."""

    #: A JSON-RPC error to the server (a classic elicitation).
    ERROR = "error"
    #: ``cancel``, and the cell says why: where the reply has no place for an error (a question
    #: asked inside a 2026-07-28 task, or a framework's hook that takes only a result).
    CANCEL = "cancel"

    __str__ = str.__str__
    def __format__(self, format_spec: str) -> str:  # (the text, as __str__: not the member)
        return str.__format__(self, format_spec)


class Consent(str, Enum):
    """What a consent card asks the person to agree to. The value names its lines in the
    i18n table (``n_<value>_policy``, ``n_<value>_no_policy``)."""

    #: To open a page (a server's URL request, an app's ``ui/open-link``).
    URL = "url"
    #: To save a file an app offers (``ui/download-file``).
    FILE = "file"
    #: To give an app the permissions its resource asks for.
    PERMISSION = "permission"

    @property
    def policy_cannot_give(self) -> AnsweredBy:
        """Who answered when the respond policy said accept, which only a person may give."""
        return {Consent.URL: AnsweredBy.POLICY_URL, Consent.FILE: AnsweredBy.POLICY_FILE,
                Consent.PERMISSION: AnsweredBy.POLICY_PERMISSION}[self]

    __str__ = str.__str__
    def __format__(self, format_spec: str) -> str:  # (the text, as __str__: not the member)
        return str.__format__(self, format_spec)


@dataclass(frozen=True)
class Counted:
    """A notice that covers every request of a call answered the same way (the outcome's
    ``answered_by``), with their count: one line ("declined 195 requests") instead of one
    line per request. ``text(count)`` is the line."""

    text: Callable[[int], str]


@dataclass(frozen=True)
class Outcome:
    """What became of one request.

    ``answer`` is what goes back to the server (None when nothing does: the request was
    withdrawn, or ``error`` is sent instead). ``answered_by`` names who answered: the
    person, or what answered for them. ``notice`` is the line the calling cell shows
    (or ``counted``, for a notice shared by many requests); with ``status``, the line is the
    request itself, as the transcript tells it ("demo asked: ... Answered accept by the
    respond policy.").
    """

    answer: Answer | None
    answered_by: AnsweredBy
    notice: str | None = None
    counted: Counted | None = None
    status: str | None = None
    error: Exception | None = None
    #: Lines shown before the outcome's own: why an earlier way did not answer.
    notes: tuple[str, ...] = ()
    #: What the history calls the action, when it is not the answer's ("retry", "error", ...).
    label: str | None = None
    #: How the notice reads: info (as asked), warning (nb_elicit answered for the person) or
    #: error (the request could not be shown).
    notice_kind: NoticeKind = NoticeKind.INFO

    @property
    def action(self) -> str:
        if self.label is not None:
            return self.label
        if self.answer is not None:
            return self.answer.action
        return "error" if self.error is not None else "none"

    @property
    def by_person(self) -> bool:
        return self.answered_by == AnsweredBy.PERSON

    def noting(self, *notes: str) -> Outcome:
        """The same outcome, with ``notes`` shown before it."""
        return replace(self, notes=(*notes, *self.notes)) if notes else self
