"""The demo's MCP App (SEP-1865, extension ``io.modelcontextprotocol/ui``): ``clock`` returns
the server's time and comes with an app, ``ui://demo/clock.html``; the app calls ``clock_now``
(meant for the app alone: ``visibility: ["app"]``) from its button.

The app is one HTML file with its script inline (``static/clock_app.html``), built from
``scripts/app-host/src/clock_app.html`` and ``clock_app.js`` by ``scripts/build_app_host.py``
with the official app side (``App`` of ``@modelcontextprotocol/ext-apps``): it needs no network,
so it declares no Content Security Policy domains.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.server.mcpserver import MCPServer

APP_URI = "ui://demo/clock.html"
APP_MIME = "text/html;profile=mcp-app"
APP_FILE = Path(__file__).parent / "static" / "clock_app.html"

Journal = Callable[..., Any]


def _now() -> dict[str, str]:
    """The time of day, as the result says it and the app shows it: one time, said once."""
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    return {"time": now.strftime("%H:%M:%S UTC")}


def _result(text: str, now: dict[str, str]) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                structured_content=now)


def register(server: MCPServer, journal: Journal) -> None:
    """Add ``clock``, ``clock_now`` and the app's resource to ``server``; each call of
    ``clock_now`` goes to the demo's ``journal``."""

    @server.tool(meta={"ui": {"resourceUri": APP_URI}})
    async def clock(label: str = "") -> types.CallToolResult:
        """The server's time, with an app that shows it (where widgets show) and can ask the
        server again, send a message and open a link."""
        now = _now()
        named = f"{label}: " if label else ""
        return _result(f"{named}{now['time']} on the server. The clock app shows this time "
                       "where widgets show.", now)

    @server.tool(meta={"ui": {"visibility": ["app"]}})
    async def clock_now() -> types.CallToolResult:
        """The server's time now; for the clock app (visibility: app only)."""
        now = _now()
        journal("clock_now", event="called", time=now["time"])
        return _result(f"It is {now['time']} on the server.", now)

    @server.resource(APP_URI, name="clock_app", title="Demo clock",
                     description="The clock tool's app (one HTML file, no network).",
                     mime_type=APP_MIME, meta={"ui": {"prefersBorder": True}})
    def clock_app() -> str:
        return APP_FILE.read_text(encoding="utf-8")
