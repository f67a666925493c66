"""The outputs a call's view has in its cell, and their freezing.

A view shows in the cell that made it: its own output (the view), and a second one, its
keyboard script (:mod:`.keyboard`), shown with its first form, which the call's apps take
over (the script then gets a third output of its own). Every display of a view goes through
here, in the cell the view was made in, even when a form or an app comes from another task.

Freezing makes a finished view plain: its own output is replaced by the call's transcript
(static HTML and text, no widget model), the script's outputs are emptied (a script that has
run has nothing more to do), and the view's models can be closed. The apps' output is left as
it is while an app lives in it. Where the frontend applies no update to an output already
shown (Voilà: :attr:`CellOutputs.in_place`), nothing is replaced: the ended view stays, live.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable
from typing import Protocol

import ipywidgets as widgets
from IPython.display import Javascript, display

from .._core.records.transcript import Transcript, transcript_bundle
from .keyboard import keyboard_script
from .plain_text import Static

__all__ = ["CellOutputs", "OutputHandle"]


class OutputHandle(Protocol):
    """An output displayed with a display id (IPython's ``DisplayHandle``, which has no
    annotations): what it shows can be replaced."""

    def update(self, obj: object, **kwargs: object) -> None:
        """Show ``obj`` in the output instead."""


class CellOutputs:
    """The outputs of ``view`` (a widget with a ``show(keyboard, in_place=...)`` method), whose
    keyboard script is rooted at ``css_class``."""

    def __init__(self, view: widgets.Widget, css_class: str):
        self._view, self._css_class = view, css_class
        #: Set when the view is displayed: where the transcript goes when it is frozen.
        self.display_handle: OutputHandle | None = None
        #: The view's second output: its keyboard script, then its apps.
        self.script_handle: OutputHandle | None = None
        #: The keyboard script's own output, when the apps took the second one first.
        self.keys_handle: OutputHandle | None = None
        #: The view is frozen: its transcript shows in its place, its models are closing.
        self.frozen = False
        #: True where the frontend applies no display update to an output already shown
        #: (Voilà), so that the ended view stays in place, live, result included, instead of
        #: a transcript the page would never draw.
        self.in_place = False
        #: Whether :meth:`show` asked for the keyboard script (the apps get theirs then too).
        self.keyboard = False
        #: Where and how to display the view once something shows in it.
        self._show_later: tuple[contextvars.Context, bool, bool] | None = None
        #: Where to display the keyboard script with the first form.
        self._keyboard_later: contextvars.Context | None = None

    def show(self, keyboard: bool, in_place: bool) -> None:
        """Display the view in the current cell; its keyboard script follows in the same cell
        with the first form or card shown in it (:meth:`keyboard_now`): a call that shows none
        leaves no script output, which freezing would only empty. ``in_place``: see
        :attr:`in_place`; the script then follows at once, since such a page (Voilà) draws only
        what a cell displayed while it ran, and a form of ``start_tool`` comes after."""
        self._show_later = None
        self.in_place = in_place
        # (IPython's display functions carry no annotations)
        self.display_handle = display(self._view, display_id=True)  # type: ignore[no-untyped-call]
        self.keyboard = keyboard
        if keyboard:
            self._keyboard_later = contextvars.copy_context()
            if in_place:  # (and no transcript will take the view's place: nothing to empty)
                self.keyboard_now()

    def keyboard_now(self) -> None:
        """Display the keyboard script, once, if :meth:`show` asked for it: in the view's
        second output, or, when the call's apps hold that one already, in one of its own."""
        context, self._keyboard_later = self._keyboard_later, None
        if context is None or self.frozen:
            return
        script = Javascript(keyboard_script(self._css_class))  # type: ignore[no-untyped-call]
        handle: OutputHandle = context.run(display, script, display_id=True)
        if self.script_handle is None:
            self.script_handle = handle
        else:
            self.keys_handle = handle

    def show_when_needed(self, keyboard: bool, in_place: bool) -> None:
        """:meth:`show`, in the cell that runs now, but only once something shows in the view (a
        form, a notice, a failure line: :meth:`show_now`). A request that shows nothing (a
        listing, a request answered without a person) then leaves nothing in its cell: no output
        that would be replaced by an empty one a moment later (saved as such), and no view the
        page is still drawing when it is taken away (JupyterLab then logs "Could not add child
        view to box")."""
        if self.display_handle is None:
            self._show_later = (contextvars.copy_context(), keyboard, in_place)

    def show_now(self) -> None:
        """Display the view now if it waits for something to show, in the cell it was made
        in (through the view's own ``show``)."""
        later, self._show_later = self._show_later, None
        if later is not None and self.display_handle is None and not self.frozen:
            context, keyboard, in_place = later
            context.run(functools.partial(self._view.show, keyboard, in_place=in_place))

    def in_second(self, shown: object) -> None:
        """Show ``shown`` in the view's second output (its script has run), made now in the
        running cell if the view has none yet."""
        if self.script_handle is not None:
            self.script_handle.update(shown)
        else:
            self.script_handle = display(shown, display_id=True)  # type: ignore[no-untyped-call]

    def empty_second(self) -> None:
        if self.script_handle is not None:
            self.script_handle.update(Static())

    def script_later(self, context: contextvars.Context, css_class: str) -> OutputHandle:
        """Display a keyboard script rooted at ``css_class`` in ``context``'s cell; its
        display handle."""
        script = Javascript(keyboard_script(css_class))  # type: ignore[no-untyped-call]
        handle: OutputHandle = context.run(display, script, display_id=True)
        return handle

    def retell(self, transcript: Callable[[], Transcript]) -> bool:
        """A frozen view's transcript is drawn again (something was added to its log, long
        after the call returned). Whether the view is frozen."""
        if self.frozen and self.display_handle is not None:
            self.display_handle.update(Static(transcript_bundle(transcript())))
        return self.frozen

    def freeze(self, transcript: Callable[[], Transcript | None], keep_second: bool) -> bool:
        """Put ``transcript()`` (None: nothing) in the view's place and empty its script's
        outputs, the second one unless ``keep_second`` (an app lives there). False, with
        nothing replaced, where the view stays in place (:attr:`in_place`)."""
        self._keyboard_later = None
        if self.in_place:
            return False
        self.frozen = True
        if self.display_handle is not None:
            told = transcript()
            self.display_handle.update(Static(None if told is None else transcript_bundle(told)))
        if not keep_second:
            self.empty_second()
        if self.keys_handle is not None:
            self.keys_handle.update(Static())
        return True
