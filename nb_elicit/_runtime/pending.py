"""The one place that owns the forms still waiting for a person (:class:`PendingForms`, one
per kernel, kept by the kernel's owner: see :mod:`.state`).

Every form an MCP server asked for is registered here while it waits, with its owner and the
call it belongs to, and is always removed in ``finally``. Closing a connection, unloading the
extension or interrupting a call goes through here; each action is idempotent, because a form
answers at most once.

The owner is the object a request came through: a connection's guard, or the guard of the hook
(label or framework session) that asked. It is compared by identity, never by name: closing the
connection ``demo`` closes the forms of that connection only, not those of a hook labelled
``demo`` nor of a server that calls itself ``demo``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .._core.outcome import AnsweredBy
from .._ui.form import ElicitationForm

__all__ = ["PendingForms"]


@dataclass(frozen=True, eq=False)
class _Entry:
    form: ElicitationForm
    owner: object
    call: object | None


class PendingForms:
    def __init__(self) -> None:
        self._entries: list[_Entry] = []
        self._lock = threading.Lock()

    @contextmanager
    def track(self, form: ElicitationForm, owner: object, call: object | None) -> Iterator[None]:
        entry = _Entry(form, owner, call)
        with self._lock:
            self._entries.append(entry)
        try:
            yield
        finally:
            with self._lock:
                self._entries.remove(entry)

    def forms(self, owner: object | None = None,
              call: object | None = None) -> list[ElicitationForm]:
        """The waiting forms (of ``owner``, of ``call``: each compared by identity)."""
        with self._lock:
            return [e.form for e in self._entries
                    if (owner is None or e.owner is owner)
                    and (call is None or e.call is call)]

    def abandon(self, reason: str, owner: object,
                answered_by: AnsweredBy = AnsweredBy.DISCONNECTED) -> int:
        """End ``owner``'s waiting forms without an answer (their requests are gone: the
        server went away), showing ``reason``; ``answered_by`` says how they ended. How many
        it ended. Each is recorded in the history where it waited (see
        ``asking.wait_for_person``)."""
        return sum(form.abandon(reason, answered_by) for form in self.forms(owner))

    def close(self, reason: str, owner: object | None = None) -> int:
        """nb_elicit closes waiting forms by itself (a connection closed, the extension
        unloaded; ``owner`` None: every form): each is answered ``cancel``, never left to
        raise a cancellation into the session that asked, and shows ``reason``. How many it
        closed."""
        return sum(form.dismiss(answered_by=AnsweredBy.CLOSED, status=reason)
                   for form in self.forms(owner))

    def dismiss(self, owner: object | None = None, call: object | None = None,
                answered_by: AnsweredBy = AnsweredBy.INTERRUPT) -> int:
        """Answer ``cancel`` for waiting forms on the person's behalf (``answered_by`` says
        why)."""
        return sum(form.dismiss(answered_by=answered_by)
                   for form in self.forms(owner, call))

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
