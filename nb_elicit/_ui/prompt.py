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
import uuid
from collections.abc import Callable

import ipywidgets as widgets

from .._core.answer import Action, Answer
from .._core.i18n import duration, t
from .._core.outcome import AnsweredBy
from .._core.records.transcript import Asked
from .._core.text import visible
from .html import text_html
from .keyboard import keyboard_script
from .kit import Kit, synced_keys
from .loop import running_loop
from .plain_text import PlainText
from .style import stylesheet

__all__ = ["PromptWidget", "after_answer", "make_button"]

OUTCOMES = {"accept": "submitted", "decline": "declined", "cancel": "dismissed"}


class PromptWidget(PlainText, widgets.VBox):
    """A request from ``server`` that the person answers once (subclasses add the body)."""

    def __init__(self, message: str, server: str, asks: str, **kwargs: object):
        """``asks`` is the header: a text that names the server, already in the language."""
        self.message = message
        self.server = server
        self.answer: concurrent.futures.Future[Answer] = concurrent.futures.Future()
        self._answered_by = AnsweredBy.PERSON
        #: An answer was given but the request went away before it left: it never arrived.
        self._taken_back = False
        #: The request went away: no answer is taken any more, and :meth:`abandon` follows.
        self._closing = False
        self._late_listeners: list[Callable[[], bool]] = []
        self._lock = threading.Lock()
        #: Layout and style models its widgets share (see kit.Kit).
        self.kit = kit = Kit()
        # ("nb-elicit-action": a form lays it next to Submit, see form.py)
        self.decline_button = make_button(t("decline"), ("nb-elicit-decline", "nb-elicit-action"),
                                          t("decline.tip"), kit=kit)
        self.dismiss_button = make_button("✕", "nb-elicit-dismiss", t("dismiss.tip"), kit=kit)
        self.decline_button.on_click(lambda _: self._guarded(self.decline))
        self.dismiss_button.on_click(lambda _: self._guarded(self.dismiss))
        self.status = self.html('<div role="status" aria-live="polite"></div>',
                                "nb-elicit-status")
        self.status_text = ""
        #: This prompt's own class: its stylesheet applies to it alone.
        self.css_class = f"nb-elicit-prompt-{uuid.uuid4().hex[:12]}"
        # Who asks and the message, in one line of text that wraps (✕ stays on its line); the
        # prompt's stylesheet rides along (a <style> element shows nothing).
        self.message_line = self.html(
            f"<style>{stylesheet(self.css_class)}</style>"
            f'<div class="nb-elicit-title" style="white-space: pre-wrap">'
            f'<span class="nb-elicit-server">{html.escape(asks)}</span> '
            f'<span class="nb-elicit-message-text">{html.escape(visible(message, lines=True))}'
            f"</span></div>",
            "nb-elicit-header", "nb-elicit-message")
        self.started = time.monotonic()
        self.waited = self.html("", "nb-elicit-waited")
        # The timer is a small line under the header, so the title keeps the width of the
        # prompt (it wraps late, even at 200% zoom). ✕ follows the title, and the prompt's
        # stylesheet pins it to the top right corner, on the title's first line (no box
        # around the two: one widget model fewer).
        # The prompt's own model opens in body(), once its children are known, so that the
        # frontend gets it whole in one message: until then its traits change quietly.
        self._box_kwargs = kwargs
        self.add_class("nb-elicit-prompt")
        self.add_class(self.css_class)

    def plain_text(self) -> str:
        """This prompt in one line of text, for a reader without widgets (subclasses say what
        they ask)."""
        return f"[{self.server} asks: {visible(self.message)}]"

    def _ipython_display_(self) -> None:
        """Displayed on its own (``display(form)``, nb_elicit's Python API, as
        notebooks/form-gallery.ipynb does), not inside a call's view: the widget, then the
        keyboard script a call's view brings (see :mod:`.keyboard`) for this prompt alone, so
        that its first field takes the focus and the keyboard goes back to the notebook once
        it is answered."""
        from IPython.display import Javascript, display

        # (IPython's display functions carry no annotations)
        display(self._repr_mimebundle_(), raw=True)  # type: ignore[no-untyped-call]
        display(Javascript(keyboard_script(self.css_class)))  # type: ignore[no-untyped-call]

    def body(self, children: list[widgets.Widget]) -> None:
        """Show ``children`` under the header: subclasses call this once, when they are built
        (it opens the prompt's model; classes added before it travel with it)."""
        self._box_kwargs.setdefault("layout", self.kit.plain)
        self._box_kwargs.setdefault("keys", synced_keys(type(self)))
        super().__init__(children=[*self.head_children(), *children], **self._box_kwargs)

    def head_children(self) -> list[widgets.Widget]:
        """The widgets above a prompt's body: who asks, ✕, and how long it has waited."""
        return [self.message_line, self.dismiss_button, self.waited]

    def html(self, value: str = "", *classes: str) -> widgets.HTML:
        """An HTML line with these classes that shares the kit's layout and style."""
        return widgets.HTML(value, layout=self.kit.plain, style=self.kit.style(widgets.HTML),
                            keys=synced_keys(widgets.HTML), _dom_classes=classes)

    def row(self, children: list[widgets.Widget], *classes: str) -> widgets.HBox:
        return widgets.HBox(children, layout=self.kit.plain, _dom_classes=classes)

    # -- answers ------------------------------------------------------------------------------

    def decline(self) -> bool:
        """Answer ``decline``: the person explicitly said no."""
        return self._answer_without_content("decline")

    def dismiss(self, answered_by: AnsweredBy = AnsweredBy.PERSON,
                status: str | None = None) -> bool:
        """Answer ``cancel``: the person closed the request without choosing, or
        ``answered_by`` (an interrupt, no frontend, its connection closed, ...) answered for
        them; ``status`` says why, instead of "Dismissed.". False if it was already answered."""
        return self._answer_without_content("cancel", answered_by, status)

    def on_late_change(self, listener: Callable[[], bool]) -> None:
        """Call ``listener()`` when this request changes after its answer (a URL page reported
        done); it returns True when it showed the change itself (a call's transcript)."""
        self._late_listeners.append(listener)

    def tell_late_change(self) -> bool:
        """Tell the listeners of a change after the answer; True if one of them showed it."""
        return any([listener() for listener in self._late_listeners])

    @property
    def answered_by(self) -> AnsweredBy:
        """Who answered: the person, or what answered for them (an interrupt, no frontend), or
        how it ended without an answer (withdrawn, disconnected, closed, failed)."""
        return self._answered_by

    def abandon(self, reason: str, answered_by: AnsweredBy = AnsweredBy.CLOSED) -> bool:
        """Close without an answer (the request is gone), showing ``reason``; ``answered_by``
        says how it ended. False if it had already ended."""
        with self._lock:
            if self.answer.done():
                return False
            self._end_unanswered(reason, answered_by)
            return True

    def withdraw(self, reason: str,
                 answered_by: AnsweredBy = AnsweredBy.WITHDRAWN) -> bool:
        """The request is gone before an answer left (withdrawn, or its server went away):
        refuse any answer from now on, showing ``reason``, and take back the person's answer
        of a moment ago that has not left (it never reaches the server). An unanswered prompt
        stays unended until :meth:`abandon` ends it. False if it had already ended
        unanswered, or was answered for the person."""
        with self._lock:
            if self.answer.done():
                if (self._taken_back or self.answer.cancelled()
                        or self.answer.exception() is not None
                        or self._answered_by != AnsweredBy.PERSON):
                    return False
                self._taken_back = True  # the person's answer of a moment ago, taken back
            elif self._closing:
                return False
            else:
                self._closing = True
            self._answered_by = answered_by
            self._lock_controls()
            self._set_status(reason)
            return True

    def _end_unanswered(self, reason: str, answered_by: AnsweredBy) -> None:
        self._answered_by = answered_by
        self._lock_controls()
        self._set_status(reason)
        self.answer.cancel()

    async def wait(self) -> Answer:
        """Wait, on the running event loop, for the person's answer.

        Cancelling the wait leaves the widget as it is (unlike ``asyncio.wrap_future``, which
        would cancel the answer too): whoever cancels decides what the widget shows.
        """
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[Answer] = loop.create_future()

        def transfer(answer: concurrent.futures.Future[Answer]) -> None:
            if waiter.done():
                return
            if answer.cancelled():
                waiter.cancel()
            elif (error := answer.exception()) is not None:
                waiter.set_exception(error)
            else:
                waiter.set_result(answer.result())

        def wake(answer: concurrent.futures.Future[Answer]) -> None:
            if running_loop() is loop:  # (answered on the loop's own thread: a turn sooner)
                transfer(answer)
                return
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                loop.call_soon_threadsafe(transfer, answer)

        self.answer.add_done_callback(wake)
        return await waiter

    def show_waited(self, left: float | None = None, paused: bool = False,
                    clock: bool = True) -> None:
        """How long this request has waited, and, when its call has a timeout, the time left
        (``left`` seconds) or that the timeout is paused while the person answers.
        ``clock=False``: not how long it has waited (another clock counts already: the card of
        the task it is asked in), only the timeout, if any."""
        parts = [t("waiting", time=duration(time.monotonic() - self.started))] if clock else []
        if left is not None:
            parts.append(t("timeout_paused") if paused else
                         t("left", time=duration(max(0.0, left))))
        text = " · ".join(parts)
        self.waited.value = (f'<span class="nb-elicit-waited-text">{html.escape(text)}</span>'
                             if text else "")

    # -- for subclasses -----------------------------------------------------------------------

    def _buttons(self) -> list[widgets.Button]:
        """Every button that locks once the request is answered."""
        return [self.decline_button, self.dismiss_button]

    def _lock_body(self) -> None:
        """Lock what the subclass added (fields)."""

    def _answer_without_content(self, action: Action,
                                answered_by: AnsweredBy = AnsweredBy.PERSON,
                                status: str | None = None) -> bool:
        """Answer ``action`` (no content) unless answered already; ``status`` replaces the
        usual line ("Declined.", "Dismissed.")."""
        with self._lock:
            if self.answer.done():
                return False
            # Decided under the lock: a click handled on another thread at this moment either
            # answers first (and this returns False) or finds the request answered.
            self._answered_by = answered_by
            self._finish(Answer(action), status)
            return True

    def _finish(self, answer: Answer, status: str | None = None) -> None:
        if self._closing:  # (the request is gone: this answer could reach no one)
            return
        # The answer first: the widgets lock and say so a moment later, once it has left.
        # (What the transcript tells, status_text, is true at once.)
        self.status_text = status or t(OUTCOMES[answer.action])
        self.answer.set_result(answer)
        after_answer(self._show_answered)

    def _show_answered(self) -> None:
        self._lock_controls()
        self._show_status()

    def _lock_controls(self) -> None:
        self.waited.value = ""
        self._lock_body()
        for button in self._buttons():
            button.disabled = True
        self.add_class("nb-elicit-locked")

    def _set_status(self, text: str, error: bool = False) -> None:
        """The line under the buttons; ``error``: a problem to fix, in the error colour."""
        self.status_text = text
        if error:
            self.status.add_class("nb-elicit-status-error")
        else:
            self.status.remove_class("nb-elicit-status-error")
        self._show_status()

    def _show_status(self) -> None:
        # role="status": announced politely when it changes (sent, declined, withdrawn, ...)
        self.status.value = (f'<div role="status" aria-live="polite">'
                             f'{text_html(self.status_text)}</div>')

    # -- the transcript it leaves---------------------------------------------------------------

    def outcome(self) -> Asked:
        """What this request was and how it ended, for the call's transcript."""
        answer = self.final_answer()
        return Asked(self.server, self.message, self.status_text or t("not_answered"),
                     answer.action if answer else None, self.answered_by,
                     self._shown_fields(answer))

    def final_answer(self) -> Answer | None:
        """The answer given, or None (still waiting, withdrawn, or failed)."""
        if (self._taken_back or not self.answer.done() or self.answer.cancelled()
                or self.answer.exception()):
            return None
        return self.answer.result()

    def _shown_fields(self, answer: Answer | None) -> tuple[tuple[str, ...], ...]:
        return ()

    def _guarded(self, action: Callable[[], object]) -> None:
        """Run a click handler. A bug in it neither breaks the comm nor ends the request: the
        prompt stays open with everything typed, and says that this try did not go (only the
        kind of failure: its text may quote what was typed)."""
        try:
            action()
        except Exception as exc:  # noqa: BLE001 - reported on the widget
            with self._lock:
                if not self.answer.done():
                    self._set_status(t("handler_failed", error=type(exc).__name__), error=True)
            traceback.print_exc()


#: Seconds an answered prompt waits before it locks its widgets and shows its status: the
#: answer leaves first (sending it takes a few turns of the event loop), then the look follows.
SHOW_AFTER = 0.005


def after_answer(callback: Callable[[], object]) -> None:
    """Run ``callback`` a moment later on this thread's event loop (at once without one:
    a click handled on another thread, or no loop at all)."""
    loop = running_loop()
    if loop is None:
        callback()
        return
    # Background work: UI only: a one-off callback, nothing to own.
    loop.call_later(SHOW_AFTER, callback)


def make_button(label: str, css_class: str | tuple[str, ...], tooltip: str, style: str = "",
                kit: Kit | None = None) -> widgets.Button:
    """A button with this class (or classes), given at construction so that its model opens
    whole; a layout given later would orphan the default one, so it shares the kit's."""
    kit = kit or Kit()
    classes = (css_class,) if isinstance(css_class, str) else css_class
    return widgets.Button(description=label, tooltip=tooltip, button_style=style,
                          layout=kit.plain, style=kit.style(widgets.Button),
                          keys=synced_keys(widgets.Button), _dom_classes=classes)
