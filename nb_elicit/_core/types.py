"""Plain values that cross the layers: where a server is, what it asked, what a tool returned.

They carry no SDK types, so the widgets and the policies can use them without importing the SDK.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from .secrets.masking import hide
from .secrets.names import redact_argv, redact_url
from .text import shorten

__all__ = ["AppRecord", "ElicitationRequest", "HttpTarget", "SseTarget", "StdioTarget",
           "ToolResult"]


@dataclass(frozen=True, repr=False)
class StdioTarget:
    """A server started as a subprocess that speaks MCP on its stdin and stdout.

    Its repr and :meth:`where` name the environment's keys only, and hide ``hidden`` (values
    given as a config's inputs) wherever they appear in the command, and the credentials a
    command line carries (:func:`~nb_elicit._core.secrets.names.redact_argv`)."""

    command: tuple[str, ...]
    env: dict[str, str] | None = None
    cwd: str | None = None
    hidden: frozenset[str] = field(default=frozenset(), compare=False)

    def where(self) -> str:
        return hide(" ".join(redact_argv(self.command)), self.hidden)

    def __repr__(self) -> str:
        env = f", env keys={sorted(self.env)}" if self.env else ""
        cwd = f", cwd={self.cwd!r}" if self.cwd else ""
        return f"StdioTarget({self.where()!r}{env}{cwd})"


@dataclass(frozen=True, repr=False)
class HttpTarget:
    """A server reached over streamable HTTP. Its repr names the headers, not their values;
    it and :meth:`where` mask the credentials a URL carries
    (:func:`~nb_elicit._core.secrets.names.redact_url`)."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)
    hidden: frozenset[str] = field(default=frozenset(), compare=False)
    #: Sign-in options from a config file's entry (``auth`` / ``oauth``): names, no secrets.
    auth: dict[str, str] = field(default_factory=dict, compare=False)

    def where(self) -> str:
        return redact_url(hide(self.url, self.hidden))

    def __repr__(self) -> str:
        headers = f", header names={sorted(self.headers)}" if self.headers else ""
        return f"{type(self).__name__}({self.where()!r}{headers})"


@dataclass(frozen=True, repr=False)
class SseTarget(HttpTarget):
    """A server reached over the older HTTP+SSE transport (GET an event stream, POST messages)."""


@dataclass(frozen=True)
class ElicitationRequest:
    """One ``elicitation/create`` (or 2026-07-28 input request), free of SDK types."""

    mode: str
    message: str
    requested_schema: Any = None
    url: str | None = None
    elicitation_id: str | None = None
    #: The server's task this was asked in (2025-11-25 ``related-task``), if any.
    related_task: str | None = None


class AppRecord(Protocol):
    """What a tool's app said, as its result keeps it (the runtime's ``AppLog``)."""

    @property
    def messages(self) -> list[dict[str, Any]]: ...

    @property
    def model_context(self) -> dict[str, Any] | None: ...


@dataclass(frozen=True)
class ToolResult:
    """What a tool returned: content blocks as plain dicts, structured content, error flag."""

    content: list[dict[str, Any]]
    #: The tool's ``structuredContent`` (a JSON object), or None.
    structured: dict[str, Any] | None = None
    is_error: bool = False
    #: What the tool's app said and did (an ``AppLog``), when an app was shown with it.
    app: AppRecord | None = field(default=None, compare=False, repr=False)

    @property
    def app_messages(self) -> list[dict[str, Any]]:
        """The messages the tool's app sent (``ui/message``), as they arrive."""
        return self.app.messages if self.app is not None else []

    @property
    def model_context(self) -> dict[str, Any] | None:
        """What the tool's app last set as its model context (``ui/update-model-context``)."""
        return self.app.model_context if self.app is not None else None

    @property
    def text(self) -> str:
        """All text blocks, joined by newlines."""
        return "\n".join(b["text"] for b in self.content if b.get("type") == "text")

    def __repr__(self) -> str:
        text = shorten(self.text, 80)
        others = len([b for b in self.content if b.get("type") != "text"])
        more = f" + {others} other block{'s' if others > 1 else ''}" if others else ""
        structured = f", structured={self.structured!r}" if self.structured is not None else ""
        return f"ToolResult(text={text!r}{more}{structured}, is_error={self.is_error})"
