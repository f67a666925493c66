"""A progress notification as one line: a bar where the total is known, then its text.

The call's view and a task's card both show progress with it; when the call or task completes,
:meth:`ProgressLine.done` fills a bar its server left short. Everything else in it is the
server's: a count that is not a finite number is left out, and the message is shown as
escaped text, shortened to one line.
"""

from __future__ import annotations

import math
from typing import TypeGuard

import ipywidgets as widgets

from .._core.i18n import t
from .._core.tasks.model import TEXT_LIMIT
from .._core.text import shorten, visible
from .html import text_html
from .kit import Kit

__all__ = ["ProgressLine", "progress_text"]


def progress_text(progress: object, total: object, message: object) -> tuple[float | None, str]:
    """The bar's fraction (None: no known total) and the line's text: the message and, in
    brackets, the percentage or the count ("Importing (40%)", "42")."""
    fraction: float | None = None
    amount = f"{progress:g}" if _finite(progress) else ""
    if _finite(progress) and _finite(total) and total > 0:  # (known)
        fraction = max(0.0, min(1.0, progress / total))
        amount = f"{progress / total:.0%}"
    # (the server's text: its invisible characters written out)
    text = visible(shorten(str(message), TEXT_LIMIT, one_line=True)) if message else ""
    return fraction, f"{text} ({amount})" if text and amount else text or amount


class ProgressLine(widgets.HBox):
    """The bar (``bar``, shown while the total is known) and the text (``text``), in a line
    of the class ``css_class``."""

    def __init__(self, css_class: str, kit: Kit):
        self.bar = widgets.FloatProgress(min=0.0, max=1.0, layout=widgets.Layout(width="16em"),
                                         _dom_classes=("nb-elicit-progress-bar",))
        self.text = widgets.HTML(layout=kit.plain, style=kit.style(widgets.HTML),
                                 _dom_classes=("nb-elicit-progress-text",))
        super().__init__((self.bar, self.text), layout=kit.plain, _dom_classes=(css_class,))

    def show(self, progress: float, total: float | None, message: str | None) -> None:
        fraction, shown = progress_text(progress, total, message)
        self.bar.layout.display = None if fraction is not None else "none"
        if fraction is not None:
            self.bar.value = fraction
        self.text.value = text_html(shown) if shown else ""


    def done(self) -> None:
        """The call or task completed: a bar that stopped short of its total (a server that
        reports before each step, never after the last: "1 s left (50%)") shows it full, and
        its line says so, instead of the last report's words."""
        if self.bar.layout.display != "none" and self.bar.value < 1.0:
            self.bar.value = 1.0
            self.text.value = text_html(t("progress_done"))


def _finite(value: object) -> TypeGuard[float]:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))
