"""Backpressure: a few of one connection's requests are shown at once, the rest wait in order.

A server may ask many questions at once. Instead of refusing some on the person's behalf,
:class:`Backlog` shows at most ``open_at_once`` of a connection's forms and cards at a time and
keeps the others waiting, first come first served; each one is shown as soon as an earlier one
is answered, so a person who keeps up is never refused. The cells with waiting requests say how
many wait, with a button that cancels them all (the person's ``cancel``). Only past
``max_waiting`` does nb_elicit answer by itself: ``cancel``, with one counted notice.

A form is built and shown in one step of the event loop (a dozen widget models, each one message
to the frontend: several milliseconds). In a burst (a flood's first forms, or the next waiting
ones once a few were answered together) :class:`ShowTurns` lets those steps run one at a time,
a moment apart, so that the loop takes other work (a small cell, a click) between two forms
instead of after all of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, overload

from .._core.kernel import part
from .._core.limits import MAX_WAITING, OPEN_AT_ONCE
from .kernel_compat import keep_widget_messages_flowing

if TYPE_CHECKING:
    from .._ui.call_view import CallView

__all__ = ["SHOW_PAUSE", "Backlog", "ShowTurns", "Turn", "show_turn"]


class Turn(Enum):
    """How a request's wait for its turn ended."""

    SHOWN = "shown"  # it holds a place: show it, then call Backlog.done()
    FULL = "full"  # too many were already waiting
    CANCELLED = "cancelled"  # the person cancelled the waiting requests
    TIMED_OUT = "timed out"  # nobody could see it (no frontend) for the bounded wait


@dataclass(eq=False)
class _Waiter:
    future: asyncio.Future[Turn]
    view: CallView  # the view of the call that asked (shows the count)
    loop: asyncio.AbstractEventLoop = field(repr=False)


class Backlog:
    def __init__(self, server: str, open_at_once: int = OPEN_AT_ONCE,
                 max_waiting: int = MAX_WAITING):
        if open_at_once < 1 or max_waiting < 0:
            raise ValueError("open_at_once must be at least 1 and max_waiting at least 0")
        self.server = server
        self.open_at_once, self.max_waiting = open_at_once, max_waiting
        self.open = 0
        self.most_open = 0  # the most ever open at once (for benchmarks and tests)
        self._waiting: deque[_Waiter] = deque()
        # How many of the waiting requests each view asked: the views that show a count, found
        # without a pass over the waiting ones (a flood's arrivals would make that O(n^2)).
        self._views: Counter[CallView] = Counter()
        self._shown_in: set[CallView] = set()  # views that show a waiting count now

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    async def turn(self, view: CallView, timeout: float | None = None,
                   seen: Callable[[], bool] | None = None) -> Turn:
        """Wait until this request may be shown (or cannot be); ``timeout`` bounds the wait,
        unless ``seen()`` says, when it runs out, that a person now sees the forms: then the
        request waits on, unbounded."""
        if self.open < self.open_at_once and not self._waiting:
            self._take()
            return Turn.SHOWN
        if len(self._waiting) >= self.max_waiting:
            return Turn.FULL
        loop = asyncio.get_running_loop()
        waiter = _Waiter(loop.create_future(), view, loop)
        self._waiting.append(waiter)
        self._views[view] += 1
        self._show_counts()
        while True:
            try:
                return await asyncio.wait_for(asyncio.shield(waiter.future), timeout)
            except asyncio.TimeoutError:
                if seen is not None and seen():
                    timeout = None
                    continue
                return self._leave(waiter, Turn.TIMED_OUT)
            except asyncio.CancelledError:  # the request was withdrawn while it waited
                self._leave(waiter, None)
                raise

    def done(self) -> None:
        """A shown request was answered (or went away): the next waiting one is shown."""
        self.open -= 1
        while self._waiting and self.open < self.open_at_once:
            waiter = self._next()
            if not waiter.future.done():
                self._take()
                waiter.future.set_result(Turn.SHOWN)
        self._show_counts()

    def cancel_waiting(self) -> int:
        """The person cancels every waiting request (they answer ``cancel``); how many."""
        cancelled = 0
        while self._waiting:
            waiter = self._next()
            if not waiter.future.done():
                waiter.future.set_result(Turn.CANCELLED)
                cancelled += 1
        self._show_counts()
        return cancelled

    def cancel_waiting_soon(self) -> None:
        """:meth:`cancel_waiting` from any thread (a click may arrive on a subshell thread)."""
        loops = {w.loop for w in self._waiting}
        for loop in loops:
            with contextlib.suppress(RuntimeError):  # that loop is closed
                loop.call_soon_threadsafe(self.cancel_waiting)

    # -- internals ------------------------------------------------------------------------------

    def _next(self) -> _Waiter:
        """The first waiting request leaves the line."""
        waiter = self._waiting.popleft()
        self._forget(waiter.view)
        return waiter

    def _forget(self, view: CallView) -> None:
        self._views[view] -= 1
        if self._views[view] <= 0:
            del self._views[view]

    def _take(self) -> None:
        self.open += 1
        self.most_open = max(self.most_open, self.open)

    @overload
    def _leave(self, waiter: _Waiter, turn: Turn) -> Turn: ...

    @overload
    def _leave(self, waiter: _Waiter, turn: None) -> None: ...

    def _leave(self, waiter: _Waiter, turn: Turn | None) -> Turn | None:
        """A waiter stops waiting by itself; a place it was just given passes on."""
        with contextlib.suppress(ValueError):
            self._waiting.remove(waiter)
            self._forget(waiter.view)
        if waiter.future.done() and waiter.future.result() is Turn.SHOWN:
            self.done()
        elif not waiter.future.done():
            waiter.future.cancel()
        self._show_counts()
        return turn

    def _show_counts(self) -> None:
        now = set(self._views)
        for view in now | self._shown_in:
            line = view.show_backlog(self.server, self.waiting if view in now else 0,
                                     self.cancel_waiting_soon)
            if line is not None:
                keep_widget_messages_flowing(line)  # its button is clicked while cells wait
        self._shown_in = now



#: Seconds between two forms shown in a burst: the loop polls for other work (a cell's
#: request, a click) in between, and ipykernel's IOPub thread, which puts the models' messages
#: on the wire, gets the interpreter too.
SHOW_PAUSE = 0.004


class ShowTurns:
    """The steps that build and show a form, one at a time on each event loop, in the order
    they asked (kept kernel-wide: :func:`show_turn`). A step with none before it runs at once;
    in a burst each waits until the one before it ended and :data:`SHOW_PAUSE` has passed, so
    no turn of the loop builds two forms."""

    def __init__(self) -> None:
        # The last step that asked, by loop (a hook's forms may be shown on a subshell's loop).
        self._last: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Future[None]] \
            = weakref.WeakKeyDictionary()
        #: How many steps waited for one before them (for tests and benchmarks).
        self.waited = 0

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Run the body as this loop's next form step: after the step before it, a moment
        later. A step cancelled while it waits passes its place on at once."""
        loop = asyncio.get_running_loop()
        before = self._last.get(loop)
        mine: asyncio.Future[None] = loop.create_future()
        self._last[loop] = mine
        if before is not None and not before.done():
            self.waited += 1
            try:
                await asyncio.wait((before,))  # (waits without cancelling it)
            except asyncio.CancelledError:
                before.add_done_callback(lambda _: _release(mine))
                raise
        try:
            yield
        finally:
            # Background work: the next step's turn, a moment later; nothing to own.
            loop.call_later(SHOW_PAUSE, _release, mine)


def _release(step: asyncio.Future[None]) -> None:
    if not step.done():
        step.set_result(None)


def show_turn() -> contextlib.AbstractAsyncContextManager[None]:
    """This kernel's next turn to build and show a form (see :class:`ShowTurns`)."""
    return part(ShowTurns).turn()
