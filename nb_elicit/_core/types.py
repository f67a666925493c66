"""Plain values that cross the layers: where a server is, what it asked, what a tool returned.

They carry no SDK types, so the widgets and the policies can use them without importing the SDK.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ElicitationRequest", "HttpTarget", "StdioTarget", "ToolResult"]


@dataclass(frozen=True)
class StdioTarget:
    """A server started as a subprocess that speaks MCP on its stdin and stdout."""

    command: tuple[str, ...]
    env: dict[str, str] | None = None
    cwd: str | None = None


@dataclass(frozen=True)
class HttpTarget:
    """A server reached over streamable HTTP."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ElicitationRequest:
    """One ``elicitation/create`` (or 2026-07-28 input request), free of SDK types."""

    mode: str
    message: str
    requested_schema: Any = None
    url: str | None = None
    elicitation_id: str | None = None


@dataclass(frozen=True)
class ToolResult:
    """What a tool returned: content blocks as plain dicts, structured content, error flag."""

    content: list[dict]
    structured: Any = None
    is_error: bool = False

    @property
    def text(self) -> str:
        """All text blocks, joined by newlines."""
        return "\n".join(b["text"] for b in self.content if b.get("type") == "text")

    def __repr__(self) -> str:
        text = self.text if len(self.text) <= 80 else self.text[:79] + "…"
        others = len([b for b in self.content if b.get("type") != "text"])
        more = f" + {others} other block{'s' if others > 1 else ''}" if others else ""
        structured = f", structured={self.structured!r}" if self.structured is not None else ""
        return f"ToolResult(text={text!r}{more}{structured}, is_error={self.is_error})"
