"""The output slot of one call: a waiting line, then its forms, then its result.

A call displays its view in the cell that made it, at once, while that cell is still the
kernel's current parent. Forms and results arrive later, often from another task; they are
added as children of this view, so they land in the right cell no matter which task adds them.
"""

from __future__ import annotations

import asyncio
import base64
import html
import json
import time

import ipywidgets as widgets

from ._controls import text_html
from ._mcp import ToolResult

__all__ = ["CallView"]

_TICK = 1.0  # seconds between updates of the elapsed time
#: Notices one call shows; past this, one line counts the rest (a flood stays bounded).
MAX_NOTICES = 50


class CallView(widgets.VBox):
    """Shows "waiting for SERVER · TOOL (12 s)", then the forms, then the tool's result."""

    def __init__(self, server: str, what: str, *, show_waiting: bool = True):
        self.server, self.what = server, what
        self.started = time.monotonic()
        self.status = widgets.HTML()
        self.status.add_class("nb-elicit-call-status")
        self.forms = widgets.VBox()
        self.forms.add_class("nb-elicit-forms")
        self.result = widgets.VBox()
        self.result.add_class("nb-elicit-result")
        self._ticker: asyncio.Task | None = None
        self._notices = 0
        self._overflow: widgets.HTML | None = None
        #: Notices and outcome lines as plain text, for runs that show no widgets.
        self.lines: list[str] = []
        super().__init__([self.status, self.forms, self.result])
        self.add_class("nb-elicit-call")
        if show_waiting:
            self._show_waiting()
            self._ticker = asyncio.get_running_loop().create_task(self._tick())

    def _repr_mimebundle_(self, **kwargs):
        # What a reader without widgets sees for this output (saved notebooks, nbconvert).
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            waiting = self.status.value and self._ticker is not None
            bundle["text/plain"] = f"[{self.server} · {self.what}]" if waiting else ""
        return bundle

    def add_form(self, form: widgets.Widget) -> None:
        self.forms.children = (*self.forms.children, form)

    def notice(self, text: str, kind: str = "warning") -> widgets.HTML:
        """A one-line notice under the call (a refused request, a decline, ...)."""
        self._notices += 1
        if self._notices > MAX_NOTICES:
            return self._overflowing()
        self.lines.append(text)
        line = widgets.HTML(text_html(text))
        line.add_class(f"nb-elicit-notice-{kind}")
        line.add_class("nb-elicit-notice")
        self.forms.children = (*self.forms.children, line)
        return line

    def _overflowing(self) -> widgets.HTML:
        more = self._notices - MAX_NOTICES
        text = (f"… and {more:,} more notice{'s' if more > 1 else ''} from this call; "
                "%mcp history lists every request.")
        if self._overflow is None:
            self._overflow = widgets.HTML()
            self._overflow.add_class("nb-elicit-notice")
            self.forms.children = (*self.forms.children, self._overflow)
        if self.lines and self.lines[-1].startswith("… and "):
            self.lines[-1] = text
        else:
            self.lines.append(text)
        self._overflow.value = text_html(text)
        return self._overflow

    def update_notice(self, line: widgets.HTML, text: str) -> None:
        """Say something new in a notice already shown (a count that grew)."""
        old = html.unescape(line.value)
        line.value = text_html(text)
        for i in range(len(self.lines) - 1, -1, -1):
            if self.lines[i] in old:
                self.lines[i] = text
                return
        self.lines.append(text)

    def show_result(self, result: ToolResult) -> None:
        self._stop_ticking()
        self.lines.append(result_text(self.server, self.what, result))
        self.status.value = ""
        self.status.layout.display = "none"
        parts = [_render_block(block) for block in result.content]
        if result.structured is not None:
            dumped = json.dumps(result.structured, indent=2, ensure_ascii=False)
            parts.append(widgets.HTML(f"<pre>{html.escape(dumped)}</pre>"))
        box = widgets.VBox(parts)
        box.add_class("nb-elicit-tool-error" if result.is_error else "nb-elicit-tool-result")
        if result.is_error:
            title = widgets.HTML(text_html(f"{self.server} · {self.what} reported an error:"))
            box.children = (title, *box.children)
            box.layout.border_left = "3px solid var(--jp-error-color1, #d32f2f)"
            box.layout.padding = "0 0 0 8px"
        self.result.children = (box,)

    def show_failure(self, text: str) -> None:
        self._stop_ticking()
        self.lines.append(text)
        self.status.value = text_html(text, "nb-elicit-failure")
        self.status.add_class("nb-elicit-failed")

    def finish(self) -> None:
        """Stop the clock (a call without a displayed result, such as list_tools)."""
        self._stop_ticking()
        if self.status.value and "nb-elicit-failed" not in self.status._dom_classes:
            self.status.value = ""
            self.status.layout.display = "none"

    def _show_waiting(self) -> None:
        elapsed = int(time.monotonic() - self.started)
        self.status.value = text_html(f"Waiting for {self.server} · {self.what} ({elapsed} s)…")

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(_TICK)
            self._show_waiting()

    def _stop_ticking(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None


def result_text(server: str, what: str, result: ToolResult) -> str:
    """A tool result as plain text: text blocks, structured content, and what else came."""
    parts = []
    for block in result.content:
        if block.get("type") == "text":
            parts.append(block.get("text", ""))
        else:
            parts.append(f"[{block.get('type')} content]")
    if result.structured is not None:
        parts.append(json.dumps(result.structured, indent=2, ensure_ascii=False))
    head = f"{server} · {what} reported an error:\n" if result.is_error else ""
    return head + "\n".join(parts)


def _render_block(block: dict) -> widgets.Widget:
    kind = block.get("type")
    if kind == "text":
        return widgets.HTML(text_html(block.get("text", "")))
    if kind == "image" and block.get("mimeType", "").startswith("image/"):
        data = base64.b64decode(block.get("data", ""), validate=False)
        return widgets.Image(value=data, format=block["mimeType"].split("/", 1)[1])
    if kind == "resource_link":
        return widgets.HTML(text_html(f"Resource: {block.get('name', '')} {block.get('uri', '')}"))
    if kind == "resource":
        resource = block.get("resource", {})
        text = resource.get("text")
        shown = text if text is not None else f"Resource: {resource.get('uri')}"
        return widgets.HTML(text_html(shown))
    return widgets.HTML(text_html(f"[{kind} content]"))
