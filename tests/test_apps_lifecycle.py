"""MCP Apps over their lifetime, in process against real SDK servers: the cards an app raises go
the way every request goes (mute, the rate limit, the backlog, the respond policy); an app ends
when it asks, when its frame is torn down, and past the cap of live apps of its connection; its
HTML goes to its frame once, by message, never as synced state; its ``tools/call`` checks the
session's listing and shows nothing of its own.

As in ``test_apps.py``, no browser is attached, so the tests say a widget frontend is."""

from __future__ import annotations

import asyncio
import json
import sys

import ipywidgets as widgets
import pytest
from helpers.servers import SERVERS, Journal, demo_command, drive

import nb_elicit
import nb_elicit._runtime.connection  # noqa: F401 - bound before a frontend is said to be there
from nb_elicit._core.notices import Notice
from nb_elicit._core.policy import parse_policy
from nb_elicit._mcp.session import ServerSession
from nb_elicit._runtime import apps as runtime_apps
from nb_elicit._runtime.state import kernel_state
from nb_elicit._ui.app_frame import AppFrame
from nb_elicit._ui.call_view import CallView
from nb_elicit._ui.download_card import DownloadCard
from nb_elicit._ui.url_card import UrlConsentCard
from nb_elicit.demo.clock import APP_FILE, APP_URI

pytestmark = pytest.mark.timeout(180)

APPS_SERVER = [sys.executable, str(SERVERS / "apps_server.py")]
#: The cap of live apps per connection (the constant, where it exists).
CAP = getattr(runtime_apps, "MAX_LIVE_APPS", 4)


@pytest.fixture
def frontend(monkeypatch):
    """A widget frontend is attached (as far as showing apps goes)."""
    monkeypatch.setattr("nb_elicit._runtime.kernel_compat.widget_frontend_attached", lambda: True)


@pytest.fixture
def journal(tmp_path) -> Journal:
    return Journal(tmp_path / "journal.jsonl")


def open_cards() -> list:
    return [p for p in kernel_state().pending.forms()
            if isinstance(p, UrlConsentCard | DownloadCard)]


def links(app, count: int) -> list[asyncio.Future]:
    return [asyncio.ensure_future(app.answer("ui/open-link", {"url": f"https://example.com/{i}"}))
            for i in range(count)]


def live_frames() -> list[AppFrame]:
    return [w for w in list(widgets.Widget.widgets.values())
            if isinstance(w, AppFrame) and w.comm is not None]


def live_models() -> dict[str, widgets.Widget]:
    """Every live widget, by its model id."""
    return {w.comm.comm_id: w for w in list(widgets.Widget.widgets.values())
            if w.comm is not None}


def synced_bytes(besides: set[str]) -> int:
    """The bytes of the synced state of every live widget but those of ``besides`` (model ids:
    what earlier tests of this process left), as a page or a saved notebook gets it."""
    return sum(len(json.dumps(w.get_state(), default=str))
               for model_id, w in live_models().items() if model_id not in besides)


async def settle(turns: int = 20) -> None:
    for _ in range(turns):
        await asyncio.sleep(0.01)


# -- item: the cards an app raises go the way every request goes ------------------------------

def test_a_muted_connection_s_app_links_show_no_card_and_are_cancelled(frontend, journal):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal), rate_limit="1/min")
        await conn.call_tool("clock")
        (app,) = conn.apps.shown
        conn.mute()
        asked = links(app, 16)
        await settle()
        shown = len(open_cards())
        answers = await asyncio.gather(*asked)
        return shown, answers, person.seen, app

    shown, answers, seen, app = drive(scenario)
    assert shown == 0 and seen == []  # (not one card)
    assert answers == [{"isError": True}] * 16  # (cancelled: nb_elicit answered, not the person)
    told = [n.text for n in app.requests_view.transcript().items if isinstance(n, Notice)]
    assert any("demo is muted, so nb_elicit answered cancel to 16 requests" in t for t in told)


def test_a_rate_limit_of_one_a_minute_shows_one_app_card(frontend, journal):
    async def scenario(person):
        person.will("decline")
        conn = await nb_elicit.connect("demo", demo_command(journal), rate_limit="1/min")
        await conn.call_tool("clock")
        (app,) = conn.apps.shown
        answers = await asyncio.gather(*links(app, 16))
        return answers, person.seen

    answers, seen = drive(scenario)
    assert len(seen) == 1  # (the one the limit lets through; the person declined it)
    assert answers == [{"isError": True}] * 16


def test_app_cards_wait_in_the_backlog_and_at_most_three_show_at_once(frontend, journal):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        await conn.call_tool("clock")
        (app,) = conn.apps.shown
        asked = links(app, 16)
        await settle()
        at_first = len(open_cards())
        answers = []
        while len(answers) < 16:
            card = await person.wait_for_form(len(answers) + 1)
            assert len(open_cards()) <= 3
            card.open_button.click()
            answers.append(card)
        return at_first, await asyncio.gather(*asked), conn.guard.backlog.most_open, app

    at_first, answers, most_open, app = drive(scenario)
    assert at_first == 3 and most_open == 3
    assert answers == [{}] * 16  # (each opened by the person, in turn)
    # (of the answered cards, only the newest few stay under the app)
    cards = [c for c in app.requests_view.asked if isinstance(c, UrlConsentCard)]
    assert len(cards) <= runtime_apps.MAX_ASKS


@pytest.mark.parametrize("policy", ['accept {}', "decline", "cancel"])
def test_a_respond_policy_never_opens_an_app_link_nor_saves_its_file(frontend, journal,
                                                                     policy):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        kernel_state().policies.per_connection["demo"] = parse_policy(policy, "test")
        await conn.call_tool("clock")
        (app,) = conn.apps.shown
        link = await app.answer("ui/open-link", {"url": "https://example.com"})
        file = await app.answer("ui/download-file", {"contents": [{
            "type": "resource", "resource": {"uri": "file:///a.txt", "text": "a"}}]})
        return link, file, person.seen

    link, file, seen = drive(scenario)
    assert seen == []
    assert link == {"isError": True} and file == {"isError": True}


# -- item: apps end --------------------------------------------------------------------------

def test_an_app_that_asks_to_close_ends(frontend, journal):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        call = conn.start_tool("clock")
        await call
        (app,) = conn.apps.shown
        app.frame._handle_custom_msg({"kind": "notification",
                                      "method": "ui/notifications/request-teardown",
                                      "params": {}}, [])
        await settle()
        return app.ended, list(conn.apps.shown), app.frame.comm, call._view

    ended, shown, comm, view = drive(scenario)
    assert ended and shown == []
    assert comm is None  # (its widgets are closed)
    assert Notice("The app ended: it asked to close.", "info") in view.transcript().items


@pytest.mark.parametrize("status", ["torn down", "failed: the app left its page"])
def test_an_app_whose_frame_was_torn_down_ends(frontend, journal, status):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        await conn.call_tool("clock")
        (app,) = conn.apps.shown
        app.frame.set_state({"status": status})  # (as the front end says it)
        await settle()
        return app.ended, list(conn.apps.shown), app.frame.comm

    ended, shown, comm = drive(scenario)
    assert ended and shown == [] and comm is None


def test_25_clock_calls_leave_at_most_the_cap_of_live_apps_and_no_html_in_synced_state(
        frontend, journal):
    html = APP_FILE.read_text(encoding="utf-8")

    async def scenario(person):
        # (frames and state that earlier tests of this process left are not this test's)
        before, models_before = {id(f) for f in live_frames()}, set(live_models())
        conn = await nb_elicit.connect("demo", demo_command(journal))
        views = []
        for _ in range(25):
            call = conn.start_tool("clock")
            await call
            views.append(call._view)
        await settle(50)
        frames = [f for f in live_frames() if id(f) not in before]
        return len(conn.apps.shown), views, frames, synced_bytes(models_before)

    shown, views, frames, state = drive(scenario)
    print(f"after 25 clock calls: {len(frames)} live frames, {state:,} bytes of synced state")
    assert shown == CAP and len(frames) == CAP
    assert state < len(html)  # (not one copy of the app's HTML)
    ended = f"The app ended: {CAP} apps of 'demo' are live at most, and newer ones came."
    for view in views[:-CAP]:
        assert Notice(ended, "info") in view.transcript().items
    # (its place in the cell: a line saying so, in place of the app's widgets)
    assert views[0].call_apps.line == ended


def test_the_html_goes_to_the_frame_once_by_message_and_never_as_state(frontend, journal,
                                                                      monkeypatch):
    html = APP_FILE.read_text(encoding="utf-8")
    pushed = []
    monkeypatch.setattr(AppFrame, "send", lambda self, content, buffers=None: pushed.append(
        (self.model_id, content)))

    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        await conn.call_tool("clock")
        (app,) = conn.apps.shown
        first = [content for model, content in pushed
                 if model == app.frame.model_id and content.get("kind") == "html"]
        sent = []
        app.frame.send = lambda content, buffers=None: sent.append(content)
        state = json.dumps(app.frame.get_state())
        # A view asks (a reloaded page): no HTML, and the app ends there.
        app.frame._handle_custom_msg({"kind": "html"}, [])
        await settle()
        return state, first, sent, app.ended

    state, first, again, ended = drive(scenario)
    assert "html" not in json.loads(state) and "<script" not in state
    # (sent unasked with the frame, the app not held)
    assert first == [{"kind": "html", "html": html, "pushed": True}]
    assert again[0] == {"kind": "html", "gone": True}
    assert ended


# -- item: an app's tools/call ------------------------------------------------------------------

def test_an_app_s_calls_and_reads_list_nothing_and_show_nothing_of_their_own(frontend, journal,
                                                                             monkeypatch):
    listings, shown, made = [], [], []
    list_tools = ServerSession.list_tools
    show = CallView.show
    widget_open = widgets.Widget.open

    def counted_open(self):
        made.append(type(self).__name__)
        return widget_open(self)

    async def counted_list(self):
        listings.append(1)
        return await list_tools(self)

    def counted_show(self, *args, **kwargs):
        shown.append(self.what)
        return show(self, *args, **kwargs)

    monkeypatch.setattr(ServerSession, "list_tools", counted_list)
    monkeypatch.setattr(CallView, "show", counted_show)
    monkeypatch.setattr(widgets.Widget, "open", counted_open)

    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        await conn.call_tool("clock")
        (app,) = conn.apps.shown
        await app.answer("tools/call", {"name": "clock_now", "arguments": {}})
        await settle()
        before = (len(listings), list(shown), len(made))
        for _ in range(3):
            await app.answer("tools/call", {"name": "clock_now", "arguments": {}})
            await app.answer("resources/read", {"uri": APP_URI})
        await settle()
        after = (len(listings), list(shown), len(made))
        return before, after

    before, after = drive(scenario)
    print(f"3 app calls and reads: {after[0] - before[0]} listings, "
          f"{after[2] - before[2]} widget models")
    assert after[0] == before[0]  # (no tools/list per call)
    assert after[1] == before[1] == ["clock"]  # (only the person's call is displayed)
    assert after[2] == before[2]  # (not one widget model made for them)


def test_what_an_app_may_call_follows_the_listing_when_the_server_says_it_changed(frontend):
    async def scenario(person):
        conn = await nb_elicit.connect("other", APPS_SERVER)
        await conn.call_tool("with_app")
        (app,) = conn.apps.shown
        ok = await app.answer("tools/call", {"name": "for_app", "arguments": {}})
        await conn.call_tool("close_for_app")
        await settle(50)
        with pytest.raises(runtime_apps.AppRequestError) as refused:
            await app.answer("tools/call", {"name": "for_app", "arguments": {}})
        return ok, refused.value

    ok, refused = drive(scenario)
    assert ok["content"][0]["text"] == "for_app got ping"
    assert refused.code == -32602
    assert refused.message == "for_app is not for apps (its visibility is ['model'])"
