"""An app's requests as the runtime answers them, without a kernel: a shown app
(``_runtime/apps.py: ShownApp``) with a stand-in connection."""

from __future__ import annotations

import asyncio
import logging

import pytest

from nb_elicit._core.apps import AppResource
from nb_elicit._core.types import ToolResult
from nb_elicit._runtime.apps import MAX_LINES, Apps, ShownApp
from nb_elicit._runtime.guard import Guard
from nb_elicit._ui.app_frame import AppFrame

pytestmark = pytest.mark.timeout(60)

TOOL = {"name": "get-time", "_meta": {"ui": {"resourceUri": "ui://get-time/mcp-app.html"}}}


class Connection:
    """What ``ShownApp`` uses of a connection: its name, guard, tools."""

    name = "apps"

    def __init__(self):
        self.guard = Guard(server=self.name)

    def _gone(self) -> bool:
        return False

    async def list_tools(self) -> list[dict]:
        return [TOOL]


class CallingApps(Apps):
    """Each call of the app's answers at once, in the view it is given; the listing is TOOL."""

    def __init__(self):
        super().__init__(Connection())
        self.views = []

    async def listed_tool(self, tool: str) -> dict | None:
        return TOOL if tool == TOOL["name"] else None

    async def call_for_app(self, tool: str, arguments: dict, view) -> ToolResult:
        self.views.append(view)
        return ToolResult([{"type": "text", "text": f"time {len(self.views)}"}])


def shown_app(apps: Apps) -> ShownApp:
    frame = AppFrame(html="<p>app</p>")
    return ShownApp(apps, TOOL, AppResource(TOOL["_meta"]["ui"]["resourceUri"], "<p>app</p>"),
                    frame)


def test_an_app_s_calls_share_one_view_that_stays_while_the_app_lives():
    async def scenario():
        apps = CallingApps()
        app = shown_app(apps)
        results = []
        for _ in range(3):
            results.append(await app.answer("tools/call", {"name": "get-time",
                                                           "arguments": {}}))
            await asyncio.sleep(0.1)  # (the finished call's view closes over a few turns)
        return apps, app, results

    apps, app, results = asyncio.run(scenario())
    assert [r["content"][0]["text"] for r in results] == ["time 1", "time 2", "time 3"]
    # (one view for every request of the app, made once, never frozen or closed by a call)
    assert len({id(view) for view in apps.views}) == 1
    (view,) = set(apps.views)
    assert view is app.requests_view and not view.frozen and view.comm is not None
    assert app.asks.children == (view,)
    assert "The app called get-time 3 times; the last: time 3" in app.lines.children[-1].value
    assert len(app.lines.children) == 1  # (one line for a tool it calls again and again)


def test_an_app_that_asks_to_close_ends_with_a_line():
    async def scenario():
        app = shown_app(CallingApps())
        sent = []
        app.frame.send = lambda content, buffers=None: sent.append(content)
        direct = await app.answer("ui/notifications/request-teardown", {})
        return app, direct, sent

    app, direct, sent = asyncio.run(scenario())
    assert direct == {} and app.ended
    assert sent == [{"kind": "teardown"}]
    assert [line.value for line in app.lines.children] == [
        '<div style="white-space: pre-wrap; line-height: normal">'
        'The app ended: it asked to close.</div>']


@pytest.mark.parametrize(("method", "params"), [
    ("notifications/message", {"level": "info", "data": "This is log text."}),
])
def test_the_apps_notifications_are_taken_without_a_warning(method, params, caplog):
    async def scenario():
        app = shown_app(CallingApps())
        direct = await app.answer(method, params)
        # As the front end sends it: a notification, no answer expected.
        app.frame._handle_custom_msg({"kind": "notification", "method": method,
                                      "params": params}, [])
        for _turn in range(20):
            await asyncio.sleep(0)
        return app, direct

    with caplog.at_level(logging.DEBUG, logger="nb_elicit"):
        app, direct = asyncio.run(scenario())
    assert direct == {}
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert app.lines.children == ()  # (nothing said under the app)


def test_past_the_shown_lines_one_last_line_counts_the_rest():
    async def scenario():
        app = shown_app(CallingApps())
        for i in range(MAX_LINES + 5):
            await app.answer("ui/message", {"role": "user",
                                            "content": [{"type": "text", "text": f"tick {i}"}]})
        return app

    app = asyncio.run(scenario())
    texts = [line.value for line in app.lines.children]
    assert len(texts) == MAX_LINES + 1
    assert f"tick {MAX_LINES - 1}" in texts[-2]
    assert "… and 5 more from the app" in texts[-1]
    assert len(app.log.messages) == MAX_LINES + 5  # (all of them kept on the result)
