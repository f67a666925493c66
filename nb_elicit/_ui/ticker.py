"""A callback's place on the kernel's clock (:mod:`.clock`), taken and given up once each.

The call's view (its waiting line and its forms' timers) and a task's card (its age) tick with
it; without a running event loop nothing ticks, and :attr:`Ticker.ticking` says so.
"""

from __future__ import annotations

from collections.abc import Callable

from .clock import Subscription, subscribe

__all__ = ["Ticker"]


class Ticker:
    """Calls ``tick()`` once a second between :meth:`start` and :meth:`stop`."""

    def __init__(self, tick: Callable[[], object]):
        self._tick = tick
        self.subscription: Subscription | None = None

    def start(self) -> None:
        """Tick from now on (once: starting a ticking one changes nothing)."""
        if self.subscription is None:
            self.subscription = subscribe(self._tick)

    def stop(self) -> None:
        """Tick no more (more than once is harmless)."""
        if self.subscription is not None:
            self.subscription.cancel()
            self.subscription = None

    @property
    def ticking(self) -> bool:
        """Whether it ticks (False without a running event loop)."""
        return self.subscription is not None
