"""The apps shown with a call, in the second output of its view.

An app never moves: freezing the view replaces the view's own output alone, so the app is loaded
once and lives on until it ends. (A widget output updated to another widget would not do:
JupyterLab draws the new one in the old one's place and hides both when the old one is
closed.) The apps have a layout of their own (the view's is closed with it), and a keyboard
script of their own, shown once an app asks the person something.
"""

from __future__ import annotations

import contextvars
import uuid

import ipywidgets as widgets

from .._core.notices import NoticeKind
from .._core.records.transcript import notice_html
from .cell_outputs import CellOutputs, OutputHandle
from .closing import close_soon
from .plain_text import Static

__all__ = ["CallApps"]


class CallApps:
    """The apps of the call whose view has the outputs ``outputs``."""

    def __init__(self, outputs: CellOutputs):
        self._outputs = outputs
        #: The apps' box (see :attr:`apps`).
        self.box: widgets.VBox | None = None
        #: Whether the box shows in the view's second output.
        self.shown = False
        #: The apps' own keyboard script, while they show, and where to display it.
        self._keys: OutputHandle | None = None
        self._keys_later: contextvars.Context | None = None
        self.css_class = f"nb-elicit-apps-{uuid.uuid4().hex[:12]}"
        #: The line in the apps' place once the last of them ended (see :meth:`ended`).
        self.line: str | None = None

    @property
    def apps(self) -> widgets.VBox:
        """The apps' box (made when first needed)."""
        if self.box is None:
            self.box = widgets.VBox(_dom_classes=("nb-elicit-apps", self.css_class))
        return self.box

    @property
    def live(self) -> bool:
        """Whether anything shows in the apps' box (an app, or the line of one that ended)."""
        return self.box is not None and bool(self.box.children)

    def show(self, box: widgets.Widget) -> None:
        """The app in ``box`` shows under the view (a view never displayed has nowhere to
        show it)."""
        self.apps.children = (*self.apps.children, box)
        if self.shown or self._outputs.display_handle is None:
            return
        self.shown = True
        self._outputs.in_second(Static.widget_only(self.apps))
        if self._outputs.keyboard:
            # The apps' own keyboard script, rooted at their box, in this cell once an app asks
            # something (see ask): its forms and cards may come after the call ended, its view
            # frozen, and the view's script never shown (it comes with the view's first form).
            # An app that asks nothing leaves no script output, which would be emptied.
            self._keys_later = contextvars.copy_context()

    def ask(self) -> None:
        """An app asks the person something (a form, a consent card): display the apps'
        keyboard script, once, in the call's cell, so that its first field takes the focus and
        the keyboard goes back to the notebook once it is answered."""
        context, self._keys_later = self._keys_later, None
        if context is not None and self._keys is None and self.shown:
            self._keys = self._outputs.script_later(context, self.css_class)

    def ended(self, box: widgets.Widget, reason: str, tag: str) -> None:
        """The app in ``box`` ended (its connection closed, apps off, the cap, its own request,
        its frame gone): its widgets close. The apps' output of this page is emptied once no
        app lives in it (the call's log says why). For the pages that do not hear the update (a
        reloaded one: it has no display ids), the output's widget keeps one line in the app's
        place, ``reason`` (:attr:`line`), and hides the transcript's line tagged ``tag``, which
        said the app is shown (the transcript there is the one the page had, and would say it
        still is); with no reason, the place is left empty."""
        self.line = reason or None
        line: tuple[widgets.Widget, ...] = ()
        if reason:
            hide = f"<style>.{tag} {{ display: none; }}</style>" if tag else ""
            ended = widgets.HTML(hide + notice_html(reason, NoticeKind.INFO),
                                 _dom_classes=("nb-elicit-notice", "nb-elicit-notice-info",
                                               "nb-elicit-app-ended"))
            ended.ended = True
            line = (ended,)
        self.apps.children = tuple(c for child in self.apps.children
                                   for c in ((child,) if child is not box else line))
        close_soon(box)
        if any(not getattr(child, "ended", False) for child in self.apps.children):
            return  # (another app lives here)
        if self.shown:
            self._outputs.empty_second()
        if self._keys is not None:
            self._keys.update(Static())
            self._keys = None
        self._keys_later = None
        self.shown = False
        if self._outputs.frozen and not self.apps.children:
            close_soon(self.apps)

    def view_frozen(self) -> None:
        """The view froze: an apps' box with nothing in it closes (one that shows lives on)."""
        if self.box is not None and not self.box.children:
            close_soon(self.box)
