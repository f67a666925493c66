"""What every inline request widget shares: who asks, one answer, and Decline and Dismiss.

:class:`PromptWidget` is the base of the form (:class:`~nb_elicit.ElicitationForm`) and of the
URL consent card. It answers exactly once; ``answer`` is a :class:`concurrent.futures.Future`,
safe to resolve from any thread (ipykernel may handle a click on a subshell thread), and
:meth:`wait` wraps it for the caller's event loop. After any answer the widget locks and says
what happened.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import html
import threading
import time
import traceback
from collections.abc import Callable

import ipywidgets as widgets

from .._core.answer import Answer
from .._core.i18n import t
from .._core.transcript import Asked
from .controls import Kit, text_html

__all__ = ["PromptWidget", "duration", "make_button"]

OUTCOMES = {"accept": "submitted", "decline": "declined", "cancel": "dismissed"}


class PromptWidget(widgets.VBox):
    """A request from ``server`` that the person answers once (subclasses add the body)."""

    def __init__(self, message: str, server: str, asks: str, **kwargs):
        """``asks`` is the header: a text that names the server, already in the language."""
        self.message = message
        self.server = server
        self.answer: concurrent.futures.Future[Answer] = concurrent.futures.Future()
        self._answered_by = "person"
        self._late_listeners: list[Callable[[], bool]] = []
        self._lock = threading.Lock()
        #: Layout and style models its widgets share (see _controls.Kit).
        self.kit = kit = Kit()
        self.decline_button = make_button(t("decline"), "nb-elicit-decline", t("decline.tip"),
                                          kit=kit)
        self.dismiss_button = make_button("✕", "nb-elicit-dismiss", t("dismiss.tip"),
                                          width="2.5em", kit=kit)
        self.decline_button.on_click(lambda _: self._guarded(self.decline))
        self.dismiss_button.on_click(lambda _: self._guarded(self.dismiss))
        self.status = self.html('<div role="status" aria-live="polite"></div>')
        self.status.add_class("nb-elicit-status")
        self.status_text = ""
        asker = widgets.HTML(text_html(asks, "nb-elicit-server"),
                             layout=widgets.Layout(flex="1 1 auto"),
                             style=kit.style(widgets.HTML))
        asker.add_class("nb-elicit-header")
        self.started = time.monotonic()
        self.waited = self.html()
        self.waited.add_class("nb-elicit-waited")
        self.header = widgets.HBox([asker, self.waited, self.dismiss_button],
                                   layout=widgets.Layout(justify_content="space-between"))
        self.message_line = self.html(text_html(message, "nb-elicit-message-text"))
        self.message_line.add_class("nb-elicit-message")
        super().__init__(**kwargs)

    def html(self, value: str = "") -> widgets.HTML:
        """An HTML line that shares the kit's layout and style."""
        return widgets.HTML(value, layout=self.kit.plain, style=self.kit.style(widgets.HTML))

    def row(self, children: list) -> widgets.HBox:
        return widgets.HBox(children, layout=self.kit.plain)

    # -- answers ------------------------------------------------------------------------------

    def decline(self) -> bool:
        """Answer ``decline``: the person explicitly said no."""
        return self._answer_without_content("decline")

    def dismiss(self, by: str = "person") -> bool:
        """Answer ``cancel``: the person closed the request without choosing, or ``by`` (an
        interrupt, no frontend, ...) answered for them. False if it was already answered."""
        return self._answer_without_content("cancel", by)

    def on_late_change(self, listener: Callable[[], bool]) -> None:
        """Call ``listener()`` when this request changes after its answer (a URL page reported
        done); it returns True when it showed the change itself (a call's transcript)."""
        self._late_listeners.append(listener)

    def tell_late_change(self) -> bool:
        """Tell the listeners of a change after the answer; True if one of them showed it."""
        return any([listener() for listener in self._late_listeners])

    @property
    def answered_by(self) -> str:
        """Who answered: "person", or what answered for them ("interrupt", "no frontend")."""
        return self._answered_by

    def abandon(self, reason: str) -> bool:
        """Close without an answer (the request is gone), showing ``reason``."""
        with self._lock:
            if self.answer.done():
                return False
            self._lock_controls()
            self._set_status(reason)
            self.answer.cancel()
            return True

    async def wait(self) -> Answer:
        """Wait, on the running event loop, for the person's answer.

        Cancelling the wait leaves the widget as it is (unlike ``asyncio.wrap_future``, which
        would cancel the answer too): whoever cancels decides what the widget shows.
        """
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()

        def transfer(answer: concurrent.futures.Future) -> None:
            if waiter.done():
                return
            if answer.cancelled():
                waiter.cancel()
            elif answer.exception() is not None:
                waiter.set_exception(answer.exception())
            else:
                waiter.set_result(answer.result())

        def wake(answer: concurrent.futures.Future) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                loop.call_soon_threadsafe(transfer, answer)

        self.answer.add_done_callback(wake)
        return await waiter

    def show_waited(self, left: float | None = None, paused: bool = False) -> None:
        """How long this request has waited, and, when its call has a timeout, the time left
        (``left`` seconds) or that the timeout is paused while the person answers."""
        text = t("waiting", time=duration(time.monotonic() - self.started))
        if left is not None:
            text += " · " + (t("timeout_paused") if paused else
                             t("left", time=duration(max(0.0, left))))
        self.waited.value = (f'<span style="color: var(--jp-content-font-color2)">'
                             f"{html.escape(text)}</span>")

    # -- for subclasses -----------------------------------------------------------------------

    def _buttons(self) -> list[widgets.Button]:
        """Every button that locks once the request is answered."""
        return [self.decline_button, self.dismiss_button]

    def _lock_body(self) -> None:
        """Lock what the subclass added (fields)."""

    def _answer_without_content(self, action: str, by: str = "person") -> bool:
        with self._lock:
            if self.answer.done():
                return False
            # Decided under the lock: a click handled on another thread at this moment either
            # answers first (and this returns False) or finds the request answered.
            self._answered_by = by
            self._finish(Answer(action))
            return True

    def _finish(self, answer: Answer, status: str | None = None) -> None:
        self._lock_controls()
        self._set_status(status or t(OUTCOMES[answer.action]))
        self.answer.set_result(answer)

    def _lock_controls(self) -> None:
        self.waited.value = ""
        self._lock_body()
        for button in self._buttons():
            button.disabled = True
        self.add_class("nb-elicit-locked")

    def _set_status(self, text: str) -> None:
        self.status_text = text
        # role="status": announced politely when it changes (sent, declined, withdrawn, ...)
        self.status.value = f'<div role="status" aria-live="polite">{text_html(text)}</div>'

    # -- the transcript it leaves---------------------------------------------------------------

    def outcome(self) -> Asked:
        """What this request was and how it ended, for the call's transcript."""
        answer = self.final_answer()
        return Asked(self.server, self.message, self.status_text or t("not_answered"),
                     answer.action if answer else None, self.answered_by,
                     self._shown_fields(answer))

    def final_answer(self) -> Answer | None:
        """The answer given, or None (still waiting, withdrawn, or failed)."""
        if not self.answer.done() or self.answer.cancelled() or self.answer.exception():
            return None
        return self.answer.result()

    def _shown_fields(self, answer: Answer | None) -> tuple[tuple[str, str], ...]:
        return ()

    def _guarded(self, action) -> None:
        """Run a click handler; a bug in it fails this answer instead of the comm."""
        try:
            action()
        except Exception as exc:  # noqa: BLE001 - reported on the widget and to the caller
            with self._lock:
                if not self.answer.done():
                    self._lock_controls()
                    self._set_status(f"nb_elicit failed: {exc!r}")
                    self.answer.set_exception(exc)
            traceback.print_exc()


def duration(seconds: float) -> str:
    """``12 s`` or ``2 min 05 s``, in the current language."""
    seconds = int(seconds)
    return (t("seconds", n=seconds) if seconds < 60 else
            t("minutes", m=seconds // 60, s=seconds % 60))


def make_button(label: str, css_class: str, tooltip: str, style: str = "",
                width: str | None = None, kit: Kit | None = None) -> widgets.Button:
    # (A layout is given at construction: one assigned later would orphan the default one.)
    kit = kit or Kit()
    layout = widgets.Layout(width=width) if width else kit.plain
    button = widgets.Button(description=label, tooltip=tooltip, button_style=style,
                            layout=layout, style=kit.style(widgets.Button))
    button.add_class(css_class)
    return button
