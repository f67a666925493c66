"""The waiting line of a call's view: "Waiting for SERVER · TOOL (12 s, 48 s left)…", ticking.

It is the call's one clock: how long the call has waited, and the time its timeout leaves (or
that the timeout is paused while a person answers). While a form of the call is open, or the
call's task card follows its task, the line hides (the form or the card shows the one clock);
when the call fails, the line says why. The line is one HTML model with a layout of its own
(it hides and shows). It ticks on the kernel's clock (:class:`~.ticker.Ticker`), and with it the
open forms' timers: the call has one clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Protocol

import ipywidgets as widgets

from .._core.i18n import duration, t
from .html import text_html
from .kit import Kit
from .prompt import PromptWidget, after_answer
from .ticker import Ticker

__all__ = ["CallClock", "WaitingLine"]


class CallClock(Protocol):
    """A call's timeout clock, as its waiting line reads it."""

    @property
    def paused(self) -> bool:
        """Whether the timeout is paused (a form of the call is open)."""

    def time_left(self) -> float | None:
        """Seconds left before the timeout (None: no timeout)."""


class WaitingLine:
    """The line (:attr:`widget`) of ``server``'s call ``what``, counted from now, ticking from
    now on if ``show``. ``open_prompts()`` gives the call's forms that wait for an answer,
    ``task_following()`` whether the call's task card follows its task."""

    def __init__(self, server: str, what: str, kit: Kit, *,
                 open_prompts: Callable[[], list[PromptWidget]],
                 task_following: Callable[[], bool], show: bool = True):
        self.server, self.what = server, what
        self._open_prompts, self._task_following = open_prompts, task_following
        self.started = time.monotonic()
        #: The call's timeout clock (``time_left()``, ``paused``), once a call follows it.
        self.clock: CallClock | None = None
        #: Why the call failed, once it did: the line then says it, and ticks no more.
        self.failure: str | None = None
        self.ticker = Ticker(self.tick)
        self.widget = widgets.HTML(self.text() if show else "", style=kit.style(widgets.HTML),
                                   _dom_classes=("nb-elicit-call-status",))
        if show:
            self.ticker.start()

    def follow(self, clock: CallClock) -> None:
        """Show the time left of ``clock`` (a call: ``time_left()`` and ``paused``)."""
        self.clock = clock

    def timeout(self) -> tuple[float | None, bool]:
        """Seconds left before the call's timeout (None: none), and whether it is paused."""
        if self.clock is None:
            return None, False
        return self.clock.time_left(), self.clock.paused

    @property
    def waiting(self) -> bool:
        """Whether the line still tells the wait (it was shown, the call has not ended, and
        has not failed)."""
        return bool(self.widget.value) and self.failure is None

    def again(self) -> None:
        """A request of the call opened or was answered: the line hides or comes back."""
        if self.waiting and self.ticker.ticking:
            self.redraw()

    def tick(self) -> None:
        """Once a second, on the kernel's clock: the line and the open forms' timers."""
        if self.waiting:
            self.redraw()
        for prompt in self._open_prompts():
            self.show_waited(prompt)

    def show_waited(self, prompt: PromptWidget) -> None:
        """How long ``prompt`` (a form of the call) has waited, with the call's timeout, and
        its own clock unless the task card has the one clock."""
        prompt.show_waited(*self.timeout(), clock=not self._task_following())

    def when_answered(self, prompt: PromptWidget, again: Callable[[], None]) -> None:
        """Call ``again()`` on the running event loop once ``prompt`` is answered (the answer
        may come on any thread; ``again`` runs after it has left, see :func:`after_answer`):
        the line comes back, once. Without a running loop the next tick will do."""
        with contextlib.suppress(RuntimeError):
            loop = asyncio.get_running_loop()

            def answered(_answer: object) -> None:
                with contextlib.suppress(RuntimeError):  # the loop is already closed
                    loop.call_soon_threadsafe(after_answer, again)

            prompt.answer.add_done_callback(answered)

    def redraw(self) -> None:
        """The waiting line now. While a request of the call is open it hides: the open form
        shows the one timer (how long it has waited, and that the timeout is paused), so two
        clocks never disagree; so does it while the call's task card follows its task (the
        card has the clock). Hidden, it is not redrawn."""
        hidden = bool(self._open_prompts()) or self._task_following()
        self.widget.layout.display = "none" if hidden else None
        if not hidden or not self.widget.value:
            self.widget.value = self.text()

    def text(self) -> str:
        seconds, paused = self.timeout()
        left = ("" if seconds is None else ", " + t("timeout_paused") if paused else
                t("left_suffix", time=duration(max(0.0, seconds))))
        return text_html(t("waiting_call", server=self.server, what=self.what,
                           elapsed=duration(time.monotonic() - self.started), left=left))

    def clear(self) -> None:
        """The call ended: the line empties and hides."""
        self.widget.value = ""
        self.widget.layout.display = "none"

    def fail(self, text: str) -> None:
        """The call failed: the line says ``text``, shown even where a form hid it."""
        self.ticker.stop()
        self.failure = text
        self.widget.value = text_html(text, "nb-elicit-failure")
        self.widget.layout.display = None
        self.widget.add_class("nb-elicit-failed")
