"""The backlog line of a call's view: "N more requests from SERVER are waiting", with a button
that cancels them all.

It is made when the first request waits (a view that never has a backlog makes none of its
models); it hides when nothing waits, and its count is drawn a moment later (:mod:`.draw_soon`),
so that a burst of requests sends one update.
"""

from __future__ import annotations

from collections.abc import Callable

import ipywidgets as widgets

from .._core.i18n import t
from .draw_soon import DrawSoon
from .html import text_html

__all__ = ["BacklogLine"]


class BacklogLine:
    """The line (:attr:`widget`, None until a request waits); ``made()`` is called when it is
    made, for the view to lay it out."""

    def __init__(self, draws: DrawSoon, made: Callable[[], None]):
        self._draws, self._made = draws, made
        self.widget: widgets.HBox | None = None
        #: What the line says ("" when nothing waits), at once (the widget follows soon).
        self.text = ""
        self._cancel_all: Callable[[], object] | None = None

    def show(self, server: str, count: int, cancel_all: Callable[[], object]
             ) -> widgets.HBox | None:
        """``count`` more requests of ``server`` wait (0: none; the line hides); its button
        calls ``cancel_all()`` (safe from any thread). Returns the line, once it exists."""
        self._cancel_all = cancel_all
        if self.widget is None:
            if not count:
                return None
            button = widgets.Button(description=t("cancel_waiting"),
                                    tooltip=t("cancel_waiting.tip"),
                                    _dom_classes=("nb-elicit-cancel-waiting",))
            button.on_click(self._on_cancel_all)
            line = widgets.HTML(_dom_classes=("nb-elicit-backlog-text",))
            self.widget = widgets.HBox([line, button], _dom_classes=("nb-elicit-backlog",))
            self._made()
        self.text = (t("backlog_one", server=server) if count == 1 else
                     t("backlog_many", n=count, server=server)) if count else ""
        self._draws.soon("backlog", self._draw)
        return self.widget

    def _on_cancel_all(self, _: object) -> None:
        if self._cancel_all is not None:
            self._cancel_all()

    def _draw(self) -> None:
        # (drawn only when show() asked for it, after it made the line, which then stays)
        assert self.widget is not None
        text = self.text
        self.widget.children[0].value = text_html(text) if text else ""
        self.widget.layout.display = None if text else "none"
