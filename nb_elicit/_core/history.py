"""Every elicitation this kernel saw, and how it was answered (``%mcp history``).

Values of fields that look secret (password, token, API key, card number, ...) are masked
when the history is shown. Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import html
import json
import time
from dataclasses import dataclass, field
from typing import Any

from .secrets import masked

__all__ = ["HISTORY", "History", "HistoryEntry"]

@dataclass(frozen=True)
class HistoryEntry:
    at: float
    server: str
    message: str
    action: str
    content: dict[str, Any] | None
    how: str  # "person", "policy", "no frontend", "withdrawn", "interrupted", "error"
    tool: str = ""  # what the server was doing when it asked (the tool called), if known


@dataclass
class History:
    entries: list[HistoryEntry] = field(default_factory=list)
    limit: int = 1000

    def add(self, server: str, message: str, action: str, content: dict | None, how: str,
            schema: Any = None, tool: str = "") -> HistoryEntry:
        entry = HistoryEntry(time.time(), server, message, action, masked(content, schema), how,
                             tool)
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
            sent = json.dumps(e.content, ensure_ascii=False) if e.content is not None else "-"
            lines.append(f"{_clock(e.at)}  {_asker(e)}  {e.action} ({e.how})  "
                         f"{_short(e.message)}  {sent}")
        return "\n".join(lines)

    def as_html(self) -> str:
        if not self.entries:
            return "<p>No elicitations yet.</p>"
        rows = []
        for e in self.entries:
            sent = json.dumps(e.content, ensure_ascii=False) if e.content is not None else "–"
            cells = (_clock(e.at), e.server, e.tool or "–", _short(e.message, 80),
                     f"{e.action} ({e.how})", sent)
            rows.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
        head = "".join(f"<th>{h}</th>" for h in ("time", "server", "tool", "message", "action",
                                                 "sent"))
        return (f'<table class="nb-elicit-history"><thead><tr>{head}</tr></thead>'
                f"<tbody>{''.join(rows)}</tbody></table>")


def _asker(entry: HistoryEntry) -> str:
    return f"{entry.server} · {entry.tool}" if entry.tool else entry.server


def _clock(at: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(at))


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


HISTORY = History()
