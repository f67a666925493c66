"""A FastMCP server (run in its own virtualenv with a pinned ``fastmcp``) that ships an MCP App,
over stdio or, with ``--http PORT``, streamable HTTP on ``http://127.0.0.1:PORT/mcp``.

It is the demo's clock written with FastMCP's own app API (``AppConfig`` on the tool, the
resource and the app-only tool): ``clock`` returns the server's time and comes with
``ui://fastmcp/clock.html``, the demo's clock app (one HTML file, no network), which calls
``clock_now`` (visibility: app only).
"""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

from fastmcp import FastMCP
from fastmcp.apps.config import AppConfig
from fastmcp.tools import ToolResult
from mcp.types import TextContent

APP_URI = "ui://fastmcp/clock.html"
#: The demo's clock app, from this checkout (the server's virtualenv has no nb_elicit).
APP_FILE = (Path(__file__).resolve().parents[2] / "nb_elicit" / "demo" / "static"
            / "clock_app.html")

server = FastMCP("fastmcp-apps")


def _now() -> dict[str, str]:
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    return {"time": now.strftime("%H:%M:%S UTC"), "iso": now.isoformat().replace("+00:00", "Z")}


@server.tool(app=AppConfig(resource_uri=APP_URI))
def clock(label: str = "") -> ToolResult:
    """The server's time, with an app that shows it."""
    now = _now()
    named = f"{label}: " if label else ""
    return ToolResult(content=[TextContent(type="text", text=f"{named}{now['time']} on the "
                                           f"FastMCP server ({now['iso']}).")],
                      structured_content=now)


@server.tool(app=AppConfig(visibility=["app"]))
def clock_now() -> ToolResult:
    """The server's time now; for the clock app (visibility: app only)."""
    now = _now()
    return ToolResult(content=[TextContent(type="text", text=f"It is {now['time']} on the "
                                           "FastMCP server.")], structured_content=now)


@server.resource(APP_URI, name="clock_app", description="The clock tool's app.",
                 app=AppConfig(prefers_border=True))
def clock_app() -> str:
    return APP_FILE.read_text(encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", type=int, metavar="PORT",
                        help="serve streamable HTTP on http://127.0.0.1:PORT/mcp")
    args = parser.parse_args()
    if args.http is None:
        server.run("stdio", show_banner=False)
    else:
        server.run("http", host="127.0.0.1", port=args.http, show_banner=False)


if __name__ == "__main__":
    main()
