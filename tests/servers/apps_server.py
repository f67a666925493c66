"""A test server of MCP Apps (``io.modelcontextprotocol/ui``), good and bad, over stdio.

- ``with_app``: comes with the app ``ui://test/app.html`` (its text result has HTML in it);
- ``for_app``: meant for the app alone (``visibility: ["app"]``);
- ``for_model``: not for apps (``visibility: ["model"]``);
- ``wrong_mime``: its app is served as plain ``text/html``;
- ``too_large``: its app is one byte over nb_elicit's limit;
- ``missing_app``: its app's resource does not exist;
- ``wants_permissions``: its app ``ui://test/permissions.html`` asks for the microphone,
  geolocation and clipboard-write (``_meta.ui.permissions``), and for a permission the spec
  does not know;
- ``wants_camera``: its app ``ui://test/camera.html`` asks for the camera alone;
- ``reads_so_far``: how many times each app resource was read (JSON);
- ``close_for_app``: ``for_app`` becomes ``visibility: ["model"]``, and the server says its
  tool list changed (``notifications/tools/list_changed``).

It also serves ``test://data``, a plain resource an app may read.
"""

import json
import sys
from collections import Counter

from mcp.server.mcpserver import Context, MCPServer

APP_MIME = "text/html;profile=mcp-app"
#: nb_elicit's limit (``_core/apps.py: MAX_APP_BYTES``), written out: this server knows no
#: nb_elicit.
LIMIT = 8 * 1024 * 1024
APP_HTML = "<!DOCTYPE html><html><body><p>test app</p></body></html>"

server = MCPServer("apps-test", version="1.0.0")
reads: Counter = Counter()


def with_ui(uri: str | None = None, visibility: list[str] | None = None) -> dict:
    ui: dict = {}
    if uri is not None:
        ui["resourceUri"] = uri
    if visibility is not None:
        ui["visibility"] = visibility
    return {"ui": ui}


@server.tool(meta=with_ui("ui://test/app.html"))
async def with_app(word: str = "hello") -> str:
    """A tool with an app."""
    return f"<b>{word}</b> from with_app"


@server.tool(meta=with_ui(visibility=["app"]))
async def for_app(word: str = "ping") -> str:
    """A tool for the app alone."""
    return f"for_app got {word}"


@server.tool(meta=with_ui(visibility=["model"]))
async def for_model() -> str:
    """A tool the app may not call."""
    return "for_model ran"


@server.tool(meta=with_ui("ui://test/wrong.html"))
async def wrong_mime() -> str:
    return "wrong_mime's text result"


@server.tool(meta=with_ui("ui://test/large.html"))
async def too_large() -> str:
    return "too_large's text result"


@server.tool(meta=with_ui("ui://test/missing.html"))
async def missing_app() -> str:
    return "missing_app's text result"


@server.tool(meta=with_ui("ui://test/permissions.html"))
async def wants_permissions() -> str:
    return "wants_permissions's text result"


@server.tool(meta=with_ui("ui://test/camera.html"))
async def wants_camera() -> str:
    return "wants_camera's text result"


@server.tool()
async def reads_so_far() -> str:
    return json.dumps(dict(reads))


@server.tool()
async def close_for_app(ctx: Context) -> str:
    """for_app is no longer for apps; the tool list changed."""
    server.remove_tool("for_app")
    server.add_tool(for_app, meta=with_ui(visibility=["model"]))
    await ctx.session.send_tool_list_changed()
    return "for_app is for the model alone now"


@server.resource("ui://test/app.html", mime_type=APP_MIME)
def app() -> str:
    reads["ui://test/app.html"] += 1
    return APP_HTML


@server.resource("ui://test/wrong.html", mime_type="text/html")
def wrong() -> str:
    reads["ui://test/wrong.html"] += 1
    return APP_HTML


@server.resource("ui://test/large.html", mime_type=APP_MIME)
def large() -> str:
    reads["ui://test/large.html"] += 1
    return "x" * (LIMIT + 1)


@server.resource("ui://test/permissions.html", mime_type=APP_MIME, meta={"ui": {"permissions": {
    "microphone": {}, "geolocation": {}, "clipboardWrite": {}, "usb": {}}}})
def permissions_app() -> str:
    reads["ui://test/permissions.html"] += 1
    return APP_HTML


@server.resource("ui://test/camera.html", mime_type=APP_MIME, meta={"ui": {"permissions": {
    "camera": {}}}})
def camera_app() -> str:
    reads["ui://test/camera.html"] += 1
    return APP_HTML


@server.resource("test://data", mime_type="text/plain")
def data() -> str:
    return "data of apps-test"


if __name__ == "__main__":
    if len(sys.argv) > 1:
        raise SystemExit("apps_server.py runs over stdio only")
    server.run("stdio")
