"""A task's two buttons, on its card's header line: **Cancel task** and **Detach**.

They belong to the task, not to a form, so they stand away from a form's Submit and Decline.
Each click is heard once (a click may be handled on a thread that is not the event loop's: the
flags are read and set under a lock), its callbacks are called in order, and one that fails
stops no other: the card then says so and offers the button again.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable

import ipywidgets as widgets

from .._core.i18n import t
from .._core.tasks.model import TEXT_LIMIT
from .._core.text import shorten
from .kit import Kit
from .prompt import make_button

__all__ = ["TaskButtons"]


class TaskButtons:
    """The buttons (in :attr:`actions`) of a card that ``ended()`` tells has ended or not, and
    that ``say(text, passing)`` says something about its task (see ``TaskCard``)."""

    def __init__(self, kit: Kit, ended: Callable[[], bool],
                 say: Callable[[str, bool], None]):
        self._ended, self._say = ended, say
        self._lock = threading.Lock()
        self._cancel_callbacks: list[Callable[[], object]] = []
        self._detach_callbacks: list[Callable[[], object]] = []
        self._cancelling = self._detaching = False
        self.cancel_button = make_button(t("task_cancel"), "nb-elicit-task-cancel",
                                         t("task_cancel.tip"), kit=kit)
        self.detach_button = make_button(t("task_detach"), "nb-elicit-task-detach",
                                         t("task_detach.tip"), kit=kit)
        self.cancel_button.on_click(lambda _: self._click_cancel())
        self.detach_button.on_click(lambda _: self._click_detach())
        # (on the header's line, at its right end: a form's buttons are under its fields)
        self.actions = widgets.HBox([self.cancel_button, self.detach_button],
                                    layout=widgets.Layout(margin="0 0 0 auto", flex="0 0 auto"),
                                    _dom_classes=("nb-elicit-task-actions",))

    def on_cancel(self, callback: Callable[[], object]) -> None:
        """Call ``callback()`` when the person clicks **Cancel task** (once per click, on the
        thread that handles the click: not always the event loop's)."""
        self._cancel_callbacks.append(callback)

    def on_detach(self, callback: Callable[[], object]) -> None:
        """Call ``callback()`` when the person clicks **Detach** (once per click)."""
        self._detach_callbacks.append(callback)

    def _click_cancel(self) -> None:
        with self._lock:  # (a click may be handled on another thread)
            if self._cancelling or self._ended():
                return
            self._cancelling = True
        self.cancel_button.disabled = True
        self._say(t("task_cancel_sent"), True)
        failure = _call_all(self._cancel_callbacks)
        if failure is not None:
            self.cancel_failed(t("task_click_failed", error=failure))

    def cancel_failed(self, reason: str) -> None:
        """The cancel did not go through: say why, and offer **Cancel task** again."""
        with self._lock:
            self._cancelling = False
        if not self._ended():
            text = t("task_cancel_failed", reason=shorten(str(reason), TEXT_LIMIT, one_line=True))
            self.cancel_button.disabled = False
            self._say(text, False)

    def _click_detach(self) -> None:
        with self._lock:
            if self._detaching or self._ended():
                return
            self._detaching = True
        self.detach_button.disabled = True
        failure = _call_all(self._detach_callbacks)
        if failure is not None:
            with self._lock:
                self._detaching = False
            self.detach_button.disabled = False
            self._say(t("task_detach_failed", reason=t("task_click_failed", error=failure)),
                      False)


def _call_all(callbacks: list[Callable[[], object]]) -> str | None:
    """Call each callback; the kind of the first failure (printed), or None. A failing
    callback stops no other."""
    failure = None
    for callback in list(callbacks):
        try:
            callback()
        except Exception as exc:  # noqa: BLE001 - reported on the card
            failure = failure or type(exc).__name__
            traceback.print_exc()
    return failure
