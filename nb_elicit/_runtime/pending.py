"""The one place that owns the forms still waiting for a person.

Every form an MCP server asked for is registered here while it waits, with the connection and
the call it belongs to, and is always removed in ``finally``. Closing a connection, unloading
the extension or interrupting a call goes through here; each action is idempotent, because a
form answers at most once.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .._core.outcome import AnsweredBy
from .._ui.form import ElicitationForm

__all__ = ["PENDING", "PendingForms"]


@dataclass(frozen=True, eq=False)
class _Entry:
    form: ElicitationForm
    connection: str
    call: object | None


class PendingForms:
    def __init__(self) -> None:
        self._entries: list[_Entry] = []
        self._lock = threading.Lock()

    @contextmanager
    def track(self, form: ElicitationForm, connection: str, call: object | None) -> Iterator[None]:
        entry = _Entry(form, connection, call)
        with self._lock:
            self._entries.append(entry)
        try:
            yield
        finally:
            with self._lock:
                self._entries.remove(entry)

    def forms(self, connection: str | None = None, call: object | None = None) -> list:
        with self._lock:
            return [e.form for e in self._entries
                    if (connection is None or e.connection == connection)
                    and (call is None or e.call is call)]

    def abandon(self, reason: str, connection: str | None = None,
                answered_by: AnsweredBy = AnsweredBy.CLOSED) -> int:
        """Close waiting forms without an answer (their requests are gone), showing ``reason``;
        ``answered_by`` says how they ended (closed, disconnected). How many it closed.
        Each is recorded in the history where it waited (see ``asking.wait_for_person``)."""
        return sum(form.abandon(reason, answered_by) for form in self.forms(connection))

    def dismiss(self, connection: str | None = None, call: object | None = None,
                answered_by: AnsweredBy = AnsweredBy.INTERRUPT) -> int:
        """Answer ``cancel`` for waiting forms on the person's behalf (``answered_by`` says
        why)."""
        return sum(form.dismiss(answered_by=answered_by)
                   for form in self.forms(connection, call))

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


PENDING = PendingForms()
