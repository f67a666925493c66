"""An app's requests as the runtime answers them, without a kernel: a shown app
(``_runtime/apps.py: ShownApp``) with a stand-in host, in a call's view whose one log
tells what the app did, each event once."""

from __future__ import annotations

import asyncio
import logging

import pytest

from nb_elicit._core.apps import AppResource
from nb_elicit._core.notices import MAX_NOTICES
from nb_elicit._core.records.transcript import transcript_bundle
from nb_elicit._core.types import ToolResult
from nb_elicit._runtime.apps import Apps, ShownApp
from nb_elicit._ui.app_frame import AppFrame
from nb_elicit._ui.call_view import CallView

pytestmark = pytest.mark.timeout(60)

TOOL = {"name": "get-time", "_meta": {"ui": {"resourceUri": "ui://get-time/mcp-app.html"}}}


class CallingHost:
    """The host of the app (``AppHost``): each call of the app's answers at once, in the view
    it is given; the listing is TOOL."""

    name = "apps"

    def __init__(self):
        self.views = []

    async def listed_tool(self, tool: str) -> dict | None:
        return TOOL if tool == TOOL["name"] else None

    async def call_for_app(self, tool: str, arguments: dict, view) -> ToolResult:
        self.views.append(view)
        return ToolResult([{"type": "text", "text": f"time {len(self.views)}"}])

    async def read_for_app(self, uri: str, view) -> dict:
        raise AssertionError("no resource is read here")

    async def ask_consent(self, message, target, make_card, view, consent=None):
        raise AssertionError("no consent is asked here")


class CallingApps(Apps):
    """The apps of a :class:`CallingHost` (``views``: where its calls showed)."""

    def __init__(self):
        super().__init__(CallingHost())
        self.views = self.host.views


def shown_app(apps: Apps) -> ShownApp:
    """The app, shown in a call's view (``app.view``) as ``show_app`` shows it."""
    frame = AppFrame(html="<p>app</p>")
    app = ShownApp(apps, TOOL, AppResource(TOOL["_meta"]["ui"]["resourceUri"], "<p>app</p>"),
                   frame)
    app.view = CallView("apps", "get-time", show_waiting=False)
    app.shown_line = app.view.show_app(app.box)
    return app


def told(app: ShownApp) -> str:
    """The call's transcript, as plain text."""
    return transcript_bundle(app.view.transcript())["text/plain"]


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
    # (one line for a tool it calls again and again; what it returned went to the app, which
    # shows it: the line does not say it again)
    text = told(app)
    assert text.count("The app called get-time") == 1
    assert "Note: The app called get-time 3 times." in text.splitlines()
    assert "time 1" not in text and ": time" not in text


def test_an_app_that_asks_to_close_ends_with_a_line_in_the_place_of_the_shown_line():
    async def scenario():
        app = shown_app(CallingApps())
        app.view.show_result(ToolResult([{"type": "text", "text": "12:00"}]))
        await app.answer("ui/message", {"role": "user",
                                        "content": [{"type": "text", "text": "hello"}]})
        sent = []
        app.frame.send = lambda content, buffers=None: sent.append(content)
        direct = await app.answer("ui/notifications/request-teardown", {})
        return app, direct, sent

    app, direct, sent = asyncio.run(scenario())
    assert direct == {} and app.ended
    assert sent == [{"kind": "teardown"}]
    # The log, in the order things happened: the line that said the app is shown now says why
    # it ended, in its place; the result; what the app said after it. Each said once.
    assert told(app).splitlines() == [
        "[apps · get-time]",
        "Note: The app ended: it asked to close.",
        "Result from apps:",
        "12:00",
        "Note: The app says: hello",
    ]
    assert app.view.call_apps.line == "The app ended: it asked to close."
    html = transcript_bundle(app.view.transcript())["text/html"]
    assert html.count("The app ended") == 1 and "is shown here" not in html
    assert html.index("Result from apps") < html.index("The app says: hello")


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
    assert len(app.view.notices.entries) == 1  # (nothing said but that the app is shown)


def test_past_the_call_s_notices_one_last_line_counts_the_rest():
    async def scenario():
        app = shown_app(CallingApps())
        for i in range(MAX_NOTICES + 5):
            await app.answer("ui/message", {"role": "user",
                                            "content": [{"type": "text", "text": f"tick {i}"}]})
        return app

    app = asyncio.run(scenario())
    texts = [entry.text for entry in app.view.notices.entries]
    assert len(texts) == MAX_NOTICES + 1
    assert f"tick {MAX_NOTICES - 2}" in texts[-2]  # (the first line says the app is shown)
    assert "… and 6 more notices from this call" in texts[-1]
    assert len(app.log.messages) == MAX_NOTICES + 5  # (all of them kept on the result)
