"""One clock for the kernel: every live view and card that shows a time ticks with it.

One asyncio task per event loop calls each subscriber once a second, while anything subscribes:
it starts with the first subscriber and stops with the last. Subscribers are plain callbacks,
called on the loop's own thread; one that fails is reported to the loop's exception handler
and unsubscribed, and stops no other. Without a running loop nothing ticks
(:func:`subscribe` returns None). A loop that closes takes its clock with it: the task ends
with the loop, and unsubscribing after that is harmless.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import Callable

from .._core.kernel import part
from .loop import running_loop

__all__ = ["TICK", "LoopClocks", "Subscription", "clock_task", "subscribe"]

#: Seconds between ticks.
TICK = 1.0


class _Clock:
    """The clock of one event loop: its subscribers, and the task that ticks while there are."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        # Weakly: the clock is the value of a WeakKeyDictionary keyed by this loop, and a
        # strong reference here would keep the loop (and so the entry) alive for ever.
        self._loop = weakref.ref(loop)
        self.subscribers: dict[int, Callable[[], object]] = {}
        self.task: asyncio.Task[None] | None = None
        self._next = 0

    def add(self, callback: Callable[[], object]) -> Subscription:
        self._next += 1
        self.subscribers[self._next] = callback
        if self.task is None or self.task.done():
            loop = self._loop()
            assert loop is not None  # (only called from a running loop, which is alive)
            # Background work: kernel-wide, the clock's own; it ends when nothing ticks.
            self.task = loop.create_task(self._run(), name="nb_elicit clock")
        return Subscription(self, self._next)

    def remove(self, key: int) -> None:
        if self.subscribers.pop(key, None) is None or self.subscribers:
            return
        task, self.task = self.task, None
        if task is not None:
            with contextlib.suppress(RuntimeError):  # (the loop is already closed)
                task.cancel()

    async def _run(self) -> None:
        while self.subscribers:
            await asyncio.sleep(TICK)
            for key, callback in list(self.subscribers.items()):
                if key not in self.subscribers:  # (unsubscribed by an earlier callback)
                    continue
                try:
                    callback()
                except Exception as exc:  # noqa: BLE001 - reported; the others still tick
                    self.subscribers.pop(key, None)
                    asyncio.get_running_loop().call_exception_handler({
                        "message": "a clock subscriber failed", "exception": exc})
        if self.task is asyncio.current_task():
            self.task = None


class Subscription:
    """A callback's place on its loop's clock; :meth:`cancel` gives it up (more than once is
    harmless)."""

    def __init__(self, clock: _Clock, key: int):
        self._clock: _Clock | None = clock
        self._key = key

    def cancel(self) -> None:
        clock, self._clock = self._clock, None
        if clock is not None:
            clock.remove(self._key)

    @property
    def active(self) -> bool:
        return self._clock is not None and self._key in self._clock.subscribers


class LoopClocks(weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Clock]):
    """The clock of each event loop that has one (a loop that goes away takes its clock): a
    part of the kernel's owner (:mod:`nb_elicit._core.kernel`)."""


def _clocks() -> LoopClocks:
    return part(LoopClocks)


def subscribe(callback: Callable[[], object]) -> Subscription | None:
    """Call ``callback()`` once a second on this thread's running event loop, until the
    returned subscription is cancelled; None (nothing ticks) without a running loop."""
    loop = running_loop()
    if loop is None:
        return None
    clocks = _clocks()
    clock = clocks.get(loop)
    if clock is None:
        clock = clocks[loop] = _Clock(loop)
    return clock.add(callback)


def clock_task(loop: asyncio.AbstractEventLoop | None = None) -> asyncio.Task[None] | None:
    """The task that ticks on ``loop`` (by default the running one), or None while nothing
    subscribes there."""
    loop = loop or running_loop()
    clock = _clocks().get(loop) if loop is not None else None
    return clock.task if clock is not None else None
