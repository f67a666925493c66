"""A tool's result, as the widgets a call's view shows under its forms and as plain text."""

from __future__ import annotations

import base64
import html
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from .._core.i18n import t
from .._core.notices import NoticeKind
from .._core.records.transcript import (
    CODE_STYLE,
    block_text,
    image_problem,
    json_text,
    notice_html,
    result_parts,
)
from .._core.types import ToolResult
from .html import text_html
from .kit import Kit

__all__ = ["ResultSlot", "result_box", "result_text"]


class ResultSlot:
    """The place of a call's result in its view: the result, once it came (the transcript
    tells it), and the box that shows it, made when first needed (``made()`` is then called,
    for the view to lay it out)."""

    def __init__(self, kit: Kit, made: Callable[[], None]):
        self._kit, self._made = kit, made
        self.result: ToolResult | None = None
        self.box: widgets.VBox | None = None

    @property
    def widget(self) -> widgets.VBox:
        """The box of the result (made when first needed)."""
        if self.box is None:
            self.box = widgets.VBox(layout=self._kit.plain, _dom_classes=("nb-elicit-result",))
            self._made()
        return self.box

    def told(self) -> dict[str, Any] | None:
        """The result as the transcript tells it (None: none came)."""
        if self.result is None:
            return None
        return {"content": self.result.content, "structured": self.result.structured,
                "is_error": self.result.is_error}


def result_box(server: str, what: str, result: ToolResult) -> widgets.VBox:
    """The result's blocks (text, JSON indented, images), labelled as the server's; an error
    result under a red line that says so."""
    content, structured = result_parts(result.content, result.structured)
    parts = [_render_block(block) for block in content]
    if structured is not None:
        shown = widgets.HTML(f'<pre style="{CODE_STYLE}">{html.escape(structured)}</pre>')
        shown.add_class("nb-elicit-structured")
        parts.append(shown)
    box = widgets.VBox(parts)
    box.add_class("nb-elicit-tool-error" if result.is_error else "nb-elicit-tool-result")
    if result.is_error:
        title = widgets.HTML(text_html(t("transcript_error", server=server, what=what)))
        box.children = (title, *box.children)
        box.layout.border_left = "3px solid var(--jp-error-color1)"
        box.layout.padding = "0 0 0 8px"
    else:  # (labelled: under an answer's table, it would read as the answer again)
        label = widgets.HTML(text_html(t("result_from", server=server)),
                             _dom_classes=("nb-elicit-result-label",))
        box.children = (label, *box.children)
    return box


def result_text(server: str, what: str, result: ToolResult) -> str:
    """A tool result as plain text: text blocks, structured content, and what else came."""
    content, structured = result_parts(result.content, result.structured)
    parts = [block_text(block) for block in content]
    if structured is not None:
        parts.append(structured)
    head = f"{server} · {what} reported an error:\n" if result.is_error else ""
    return head + "\n".join(parts)


def _render_block(block: dict[str, Any]) -> widgets.Widget:
    kind = block.get("type")
    if kind == "text":
        text = str(block.get("text", ""))
        dumped = json_text(text)
        if dumped is not None:  # JSON: indented, in the code font
            return widgets.HTML(f'<pre style="{CODE_STYLE}">{html.escape(dumped)}</pre>')
        return widgets.HTML(text_html(text))
    if kind == "image":
        if image_problem(block) is None:
            data = base64.b64decode(block["data"], validate=True)
            return widgets.Image(value=data, format=block["mimeType"].split("/", 1)[1])
        # (in the image's place)
        notice = widgets.HTML(notice_html(block_text(block), NoticeKind.WARNING))
        notice.add_class("nb-elicit-notice")
        notice.add_class("nb-elicit-notice-warning")
        return notice
    return widgets.HTML(text_html(block_text(block)))
