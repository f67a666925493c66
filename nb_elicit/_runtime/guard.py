"""What protects the person from one connection's server: backpressure, mute, an optional
rate limit, and the secret-form rule.

Each :class:`~nb_elicit.Connection` has one :class:`Guard`. It holds the connection's
:class:`~nb_elicit._runtime.backlog.Backlog` (a few requests shown at once, the rest waiting in
order) and its rules (:class:`~nb_elicit._core.protection.Protection`), says whether a request
is muted or over the rate limit (both answered ``cancel``: only the person declines), and keeps
the one notice that counts such requests up to date instead of adding a line per request. It
also remembers URL consent cards by elicitation id, so that a
``notifications/elicitation/complete`` finds its card.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

from .._core.limits import DEFAULT_RATE_LIMIT, RateLimit
from .._core.notices import NoticeKind
from .._core.outcome import AnsweredBy
from .._core.protection import Protection
from .backlog import Backlog

if TYPE_CHECKING:
    from .._core.notices import NoticeEntry
    from .._ui.call_view import CallView
    from .._ui.url_card import UrlConsentCard

__all__ = ["Guard", "HookGuards"]

_REMEMBERED_CARDS = 200


class Guard:
    def __init__(self, rate_limit: RateLimit | None = DEFAULT_RATE_LIMIT,
                 secret_forms: str = "warn", server: str = "MCP server"):
        self.backlog = Backlog(server)
        #: The rules themselves (mute, rate limit, secret forms), free of what shows them.
        self.rules = Protection(rate_limit, secret_forms)
        #: The counted notices: who answered -> (view, line, count).
        self._notices: dict[AnsweredBy, tuple[CallView | None, NoticeEntry | None, int]] = {}
        self._cards: OrderedDict[str, UrlConsentCard] = OrderedDict()
        self._completion_listeners: list[Callable[[str], None]] = []

    # -- settings (the rules') ---------------------------------------------------------------

    @property
    def muted(self) -> bool:
        return self.rules.muted

    @muted.setter
    def muted(self, muted: bool) -> None:
        self.rules.muted = muted

    @property
    def rate_limit(self) -> RateLimit | None:
        return self.rules.rate_limit

    def set_rate_limit(self, limit: RateLimit | None) -> None:
        self.rules.set_rate_limit(limit)

    @property
    def secret_forms(self) -> str:
        return self.rules.secret_forms

    @secret_forms.setter
    def secret_forms(self, rule: str) -> None:
        self.rules.secret_forms = rule

    # -- decisions ------------------------------------------------------------------------

    def allow(self) -> bool:
        """Whether one more request fits in the rate limit (and take it)."""
        allowed = self.rules.allow()
        if allowed:
            self._notices.pop(AnsweredBy.RATE_LIMIT, None)  # a later burst: a fresh notice
        return allowed

    def seconds_to_next(self) -> float:
        return self.rules.seconds_to_next()

    def count_notice(self, answered_by: AnsweredBy, view: CallView, text: Callable[[int], str],
                     notice_kind: NoticeKind = NoticeKind.WARNING) -> None:
        """One notice per way of answering (``answered_by``) and view, updated with how many
        requests it covers; ``notice_kind`` is how it reads (info, warning, error)."""
        shown = self._notices.get(answered_by)
        if shown is not None and shown[0] is view:
            _, line, count = shown
            assert line is not None  # (a view's notice always has its line: see below)
            count += 1
            view.update_notice(line, text(count))
        else:
            count = 1
            line = view.notice(text(count), notice_kind)
        self._notices[answered_by] = (view, line, count)

    def count_unseen(self, answered_by: AnsweredBy) -> int:
        """Count one more request answered ``answered_by`` where no view shows it (a line
        printed in the cell, see ``asking.outcome_line``): how many so far, 1 for the first,
        until :meth:`forget_notice` starts anew."""
        shown = self._notices.get(answered_by)
        count = shown[2] + 1 if shown is not None and shown[0] is None else 1
        self._notices[answered_by] = (None, None, count)
        return count

    def forget_notice(self, answered_by: AnsweredBy) -> None:
        self._notices.pop(answered_by, None)

    # -- URL cards and their completion ----------------------------------------------------

    def remember_card(self, elicitation_id: str | None, card: UrlConsentCard) -> None:
        if not elicitation_id:
            return
        self._cards[elicitation_id] = card
        self._cards.move_to_end(elicitation_id)
        while len(self._cards) > _REMEMBERED_CARDS:
            self._cards.popitem(last=False)

    def complete(self, elicitation_id: str) -> bool:
        """The server says this URL interaction is done; unknown or repeated ids are ignored."""
        card = self._cards.get(elicitation_id)
        if card is None or not card.mark_complete():
            return False
        for listener in list(self._completion_listeners):
            listener(elicitation_id)
        return True

    def on_completion(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call ``listener(id)`` for each completion; returns a function that stops it."""
        self._completion_listeners.append(listener)

        def stop() -> None:
            self._completion_listeners.remove(listener)

        return stop


class HookGuards:
    """The guards of the hooks' requests, kept by the kernel's owner: one per label (a name
    the person chose), and one per framework session of unlabelled hooks for as long as the
    session lives (by the session's identity, since sessions need not be hashable, each with
    a weak reference)."""

    def __init__(self) -> None:
        self.by_label: dict[str, Guard] = {}
        self.by_session: dict[int, tuple[weakref.ref[object], Guard]] = {}
        self._lock = threading.Lock()

    def labels(self) -> list[str]:
        """The labels hooks have been named with so far."""
        with self._lock:
            return list(self.by_label)

    def for_label(self, server: str) -> Guard:
        """The guard of the requests labelled ``server`` (made on first use)."""
        with self._lock:
            guard = self.by_label.get(server)
            if guard is None:
                guard = self.by_label[server] = Guard(server=server)
            return guard

    def for_session(self, session: object, shown: str) -> Guard:
        """The guard of the requests that come through ``session``: one per session while it
        lives; a fresh one where the session cannot be held weakly (or there is none)."""
        if session is None:
            return Guard(server=shown)
        key = id(session)
        with self._lock:
            held = self.by_session.get(key)
            if held is not None and held[0]() is session:
                return held[1]
            def forget(_: weakref.ref[object], key: int = key) -> None:
                self.by_session.pop(key, None)

            try:
                # (forgotten when the session goes: its id may then be another's)
                ref = weakref.ref(session, forget)
            except TypeError:  # (not weakly referable)
                return Guard(server=shown)
            guard = Guard(server=shown)
            self.by_session[key] = (ref, guard)
            return guard
