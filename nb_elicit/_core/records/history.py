"""Every elicitation this kernel saw, and how it was answered (``%mcp history``).

Values of fields that look secret (password, token, API key, card number, ...) are masked
before they are kept, and so is any secret nb_elicit was given (a respond policy's key, ...)
wherever it appears in what was sent (see :mod:`.secrets` and :mod:`.masking`). Pure: no
ipywidgets, no mcp.
"""

from __future__ import annotations

import html
import json
import time
from dataclasses import dataclass, field
from typing import Any

from ..outcome import AnsweredBy
from ..secrets.masking import scrubbed
from ..secrets.names import masked
from ..text import shorten
from .transcript import words_html

__all__ = ["CELL_LIMIT", "History", "HistoryEntry", "table_html"]

#: Characters a table cell shows; a longer text is cut (at a word) and shown whole on hover.
CELL_LIMIT = 240
_CODE_FONT = "font-family: var(--jp-code-font-family); font-size: var(--jp-code-font-size)"
_TH = ("text-align: left; vertical-align: bottom; padding: 4px 12px 4px 4px; font-weight: 600; "
       "border-bottom: 1px solid var(--jp-border-color1); white-space: nowrap")
#: Words never break; a long unbroken string may, as a last resort (see words_html).
_TD = ("text-align: left; vertical-align: top; padding: 4px 12px 4px 4px; white-space: pre-wrap; "
       "word-break: normal; overflow-wrap: break-word; max-width: 48em")


def table_html(headers: list[str], rows: list[list[str]], css_class: str = "nb-elicit-table",
               code: tuple[int, ...] = (), limit: int = CELL_LIMIT,
               nowrap: tuple[int, ...] = ()) -> str:
    """Rows of untrusted text as an HTML table that reads like JupyterLab's own: left-aligned,
    wrapping between words and never inside one (a long unbroken string breaks only where a
    line is full), JupyterLab's own stripes and hover, and each cell longer than ``limit`` cut
    with its whole text in ``title``. ``code``: the columns shown in the code font;
    ``nowrap``: the columns kept on one line (times)."""
    head = "".join(f'<th style="{_TH}">{html.escape(h)}</th>' for h in headers)
    body = []
    for row in rows:
        cells = []
        for i, text in enumerate(row):
            text = str(text)
            shown, title = cut(text, limit), ""
            if shown != text:
                title = f' title="{html.escape(text, quote=True)}"'
            style = f"{_TD}; {_CODE_FONT}" if i in code else _TD
            if i in nowrap:
                style += "; white-space: nowrap"
            cells.append(f'<td style="{style}"{title}>{words_html(shown)}</td>')
        body.append(f"<tr>{''.join(cells)}</tr>")
    return (f'<table class="{css_class}" style="border-collapse: collapse; margin: 4px 0; '
            f'width: auto; table-layout: auto"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>")


def cut(text: str, limit: int = CELL_LIMIT) -> str:
    """``text`` up to ``limit`` characters, cut at a word with "…" when it is longer."""
    return shorten(text, limit, at_word=True)

@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One elicitation, as small as it can be kept (a thousand are): what was sent is kept as
    the JSON text the history shows, not as the dict."""

    at: float
    server: str
    message: str
    action: str
    sent: str | None  # the content sent, secrets masked, as JSON text (None: no content)
    #: Who answered (the person, the policy, no frontend, an interrupt, ...), or how the
    #: request ended without an answer (withdrawn, disconnected, closed, refused, ...).
    answered_by: AnsweredBy
    tool: str = ""  # what the server was doing when it asked (the tool called), if known

    @property
    def content(self) -> dict[str, Any] | None:
        """The content sent, secrets masked."""
        return json.loads(self.sent) if self.sent is not None else None


@dataclass
class History:
    entries: list[HistoryEntry] = field(default_factory=list)
    limit: int = 1000

    def add(self, server: str, message: str, action: str, content: dict[str, Any] | None,
            answered_by: AnsweredBy,
            schema: Any = None, tool: str = "") -> HistoryEntry:
        shown = scrubbed(masked(content, schema))
        sent = None if shown is None else json.dumps(shown, ensure_ascii=False, default=repr)
        entry = HistoryEntry(time.time(), server, message, action, sent, answered_by, tool)
        self.entries.append(entry)
        del self.entries[:-self.limit]
        return entry

    def clear(self) -> None:
        self.entries.clear()

    def as_text(self) -> str:
        if not self.entries:
            return "No elicitations yet."
        lines = []
        for e in self.entries:
            sent = e.sent if e.sent is not None else "-"
            lines.append(f"{_clock(e.at)}  {_asker(e)}  {e.action} ({e.answered_by})  "
                         f"{shorten(str(e.message), 60, one_line=True)}  {sent}")
        return "\n".join(lines)

    def as_html(self) -> str:
        if not self.entries:
            return "<p>No elicitations yet.</p>"
        rows = []
        for e in self.entries:
            sent = e.sent if e.sent is not None else "–"
            rows.append([_clock(e.at), e.server, e.tool or "–", " ".join(e.message.split()),
                         f"{e.action} ({e.answered_by})", sent])
        return table_html(["time", "server", "tool", "message", "action", "sent"], rows,
                          "nb-elicit-table nb-elicit-history", code=(5,), limit=120,
                          nowrap=(0,))


def _asker(entry: HistoryEntry) -> str:
    return f"{entry.server} · {entry.tool}" if entry.tool else entry.server


def _clock(at: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(at))
