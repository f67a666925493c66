"""What a reader without widgets sees of an output (a saved notebook, nbconvert, a headless run).

A widget's text/plain is its :meth:`PlainText.plain_text`, written once here for every widget
that says something in plain text; :class:`Static` is an output with no live widget model in it:
a view's transcript, nothing at all, or a widget that shows itself to widget readers alone.
"""

from __future__ import annotations

from collections.abc import Mapping

import ipywidgets as widgets

__all__ = ["PlainText", "Static"]


class PlainText:
    """Mixin, before the widget class: the widget's bundle carries :meth:`plain_text` as its
    text/plain, instead of the widget's repr that ipywidgets puts there."""

    def _repr_mimebundle_(self, **kwargs: object) -> object:
        # (a mixin: the widget class after it in the class's order has the method)
        bundle: object = super()._repr_mimebundle_(**kwargs)  # type: ignore[misc]
        if isinstance(bundle, dict):
            bundle["text/plain"] = self.plain_text()
        return bundle

    def plain_text(self) -> str:
        """The widget in one line of text ("": nothing to say); subclasses say what it is."""
        return ""


class Static:
    """A display bundle given whole: nothing by default (an emptied output)."""

    def __init__(self, bundle: Mapping[str, object] | None = None):
        self.bundle: Mapping[str, object] = {"text/plain": ""} if bundle is None else bundle

    @classmethod
    def widget_only(cls, widget: widgets.Widget) -> Static:
        """``widget`` where a page shows widgets, and nothing for every other reader (what it
        shows is told elsewhere)."""
        return cls({"application/vnd.jupyter.widget-view+json": {
            "version_major": 2, "version_minor": 0, "model_id": widget.model_id},
            "text/plain": ""})

    def _repr_mimebundle_(self, **kwargs: object) -> Mapping[str, object]:
        return self.bundle
