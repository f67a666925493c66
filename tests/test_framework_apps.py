"""``nb_elicit.show_app`` without a kernel, through a stand-in framework session (the shape of
pydantic-ai's ``MCPToolset``): what it keeps of a session once its apps ended, and how a
failure of the framework's session reaches the app (one line, no traceback in a log)."""

from __future__ import annotations

import asyncio
import gc
import logging
import weakref

import pytest

import nb_elicit
from nb_elicit._core.apps import APP_MIME

pytestmark = pytest.mark.timeout(120)

URI = "ui://stand-in/app.html"
TOOL = {"name": "clock", "_meta": {"ui": {"resourceUri": URI, "visibility": ["model", "app"]}},
        "inputSchema": {"type": "object"}}
#: An app's HTML, big enough that keeping it for every session would show.
HTML = "<html><body>" + "x" * 1_000_000 + "</body></html>"


class Listing:
    async def list_tools(self):
        return [TOOL]


class Toolset:
    """What show_app uses of pydantic-ai's MCPToolset; ``fails`` is what its calls raise."""

    def __init__(self, fails: BaseException | None = None):
        self.client = Listing()
        self.fails = fails
        self.calls = 0

    async def read_resource_for_app(self, uri: str) -> dict:
        return {"contents": [{"uri": uri, "mimeType": APP_MIME, "text": HTML}]}

    async def call_tool_for_app(self, name: str, arguments: dict) -> dict:
        self.calls += 1
        if isinstance(self.fails, asyncio.CancelledError):
            await asyncio.Event().wait()  # (cancelled from outside, see the test)
        if self.fails is not None:
            raise self.fails
        return {"content": [{"type": "text", "text": "12:00"}]}


RECORD = {"resource_uri": URI, "tool": "clock", "tool_input": {}}


@pytest.fixture(autouse=True)
def frontend(monkeypatch):
    """A widget frontend is attached (told yes); nothing is displayed for real."""
    monkeypatch.setattr("nb_elicit._runtime.kernel_compat.widget_frontend_attached", lambda: True)
    monkeypatch.setattr("nb_elicit._ui.cell_outputs.display", lambda *a, **kw: None)


def test_sessions_and_their_html_are_let_go_once_their_apps_end():
    async def scenario():
        sessions, registries = [], []
        for n in range(12):
            toolset = Toolset()
            shown = await nb_elicit.show_app(RECORD, toolset, server=f"agent-{n}")
            assert shown is not None and shown.resource.html == HTML
            sessions.append(weakref.ref(toolset))
            registries.append(weakref.ref(shown.apps))
            shown.end("ended by the test")
            del shown, toolset
        await asyncio.sleep(0.1)  # (the ended apps' widgets close over a few turns)
        return sessions, registries

    sessions, registries = asyncio.run(scenario())
    gc.collect()
    alive = [ref for ref in sessions if ref() is not None]
    assert not alive, f"{len(alive)} of {len(sessions)} sessions alive after their apps ended"
    assert not [ref for ref in registries if ref() is not None]  # (and the HTML they read)


def test_a_session_is_kept_while_its_app_lives_and_its_html_read_once():
    async def scenario():
        toolset = Toolset()
        first = await nb_elicit.show_app(RECORD, toolset, server="agent")
        second = await nb_elicit.show_app(RECORD, toolset, server="agent")
        same = first.apps is second.apps  # (one registry per session while an app lives)
        first.end("ended by the test")
        again = await nb_elicit.show_app(RECORD, toolset, server="agent")
        kept = again.apps is second.apps
        answer = await again.answer("tools/call", {"name": "clock", "arguments": {}})
        second.end("ended by the test")
        again.end("ended by the test")
        return same, kept, answer

    same, kept, answer = asyncio.run(scenario())
    assert same and kept
    assert answer["content"][0]["text"] == "12:00"


@pytest.mark.parametrize("failure", [
    RuntimeError("the toolset is closed\n  at line 2"),
    ConnectionResetError(104, "Connection reset by peer"),
    ValueError(""),
])
def test_a_failure_of_the_framework_s_session_is_one_line_to_the_app_not_a_traceback(
        failure, caplog):
    async def scenario():
        shown = await nb_elicit.show_app(RECORD, Toolset(fails=failure), server="agent")
        sent = []
        shown.frame.send = sent.append  # (what goes to the front end)
        requests = [m for m in sent if m.get("kind") == "response"]
        shown.frame._handle_custom_msg({"kind": "request", "id": 1, "method": "tools/call",
                                        "params": {"name": "clock", "arguments": {}}}, [])
        for _ in range(600):  # (a hang guard: answered within a few turns)
            requests[:] = [m for m in sent if m.get("kind") == "response"]
            if requests:
                break
            await asyncio.sleep(0.05)
        lines = [entry.text for entry in shown.view.notices.entries]
        shown.end("ended by the test")
        return requests, lines

    with caplog.at_level(logging.DEBUG):
        requests, lines = asyncio.run(scenario())
    (response,) = requests
    error = response["error"]
    assert "\n" not in error["message"] and type(failure).__name__ in error["message"]
    # (what the error table knows, a transport's failure, it says as for a connection)
    assert error["message"].startswith(
        "the server went away" if isinstance(failure, OSError) else
        "agent: the framework's session failed (")
    assert not [r for r in caplog.records if r.exc_info], "a traceback reached the log"
    assert any("clock" in line and "failed" in line and "\n" not in line for line in lines)


def test_cancelling_a_framework_app_s_call_still_cancels_it():
    async def scenario():
        toolset = Toolset(fails=asyncio.CancelledError())
        shown = await nb_elicit.show_app(RECORD, toolset, server="agent")
        call = asyncio.ensure_future(shown.answer("tools/call", {"name": "clock",
                                                                 "arguments": {}}))
        while not toolset.calls:
            await asyncio.sleep(0.01)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(call, 30)
        shown.end("ended by the test")

    asyncio.run(scenario())
