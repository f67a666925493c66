"""Widget updates drawn a moment later, together: a burst of changes (a hundred requests arriving
at once) sends one message for each thing it changed instead of a hundred.

The call's view draws its notices' counts and its backlog line through it. What the transcript
and the plain text say changes at once; only the widgets wait.
"""

from __future__ import annotations

from collections.abc import Callable

from .loop import running_loop

__all__ = ["DRAW_EVERY", "DrawSoon"]

#: Seconds a changing count waits before it is drawn.
DRAW_EVERY = 0.05


class DrawSoon:
    """The updates not drawn yet, by what they draw; ``live()`` says whether the widgets are
    still shown (a frozen view draws nothing)."""

    def __init__(self, live: Callable[[], bool]):
        self._live = live
        self._pending: dict[object, Callable[[], None]] = {}

    def soon(self, key: object, draw: Callable[[], None]) -> None:
        """Run ``draw`` :data:`DRAW_EVERY` seconds from the first change not yet drawn, once for
        each ``key``, with what is true then; at once without a running event loop."""
        loop = running_loop()
        if loop is None:
            draw()
            return
        if not self._pending:
            # Background work: UI only: the view's next draw; a frozen view draws nothing.
            loop.call_later(DRAW_EVERY, self.now)
        self._pending[key] = draw

    def now(self) -> None:
        """Draw what waits, at once (the widgets end as they would have been shown)."""
        pending, self._pending = self._pending, {}
        if self._live():
            for draw in pending.values():
                draw()
