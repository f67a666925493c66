"""MCP Apps in process: a real SDK server's app shown with its call, and the answers to what the
app asks (``ShownApp.answer``, or the frame's own messages as its front end sends them).

No browser is attached here, so the tests say a widget frontend is (``show_for`` asks
``kernel_compat.widget_frontend_attached``); everything else is real: the demo server and its
clock app, ``tests/servers/apps_server.py`` for the bad apps, the scripted person for the link's
consent card.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys

import pytest
from helpers.fill import fill
from helpers.servers import SERVERS, Journal, demo_command, drive

import nb_elicit
import nb_elicit._runtime.connection  # noqa: F401 - bound before a frontend is said to be there
from nb_elicit._core.apps import APP_MIME, MAX_APP_BYTES
from nb_elicit._core.notices import MAX_NOTICES, Notice
from nb_elicit._core.records.transcript import item_html, transcript_bundle
from nb_elicit._runtime import apps as runtime_apps
from nb_elicit._runtime.state import kernel_state
from nb_elicit._ui.app_frame import AppRequestError
from nb_elicit._ui.url_card import UrlConsentCard
from nb_elicit.demo.clock import APP_FILE, APP_URI

pytestmark = pytest.mark.timeout(120)

APPS_SERVER = [sys.executable, str(SERVERS / "apps_server.py")]
HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>'


@pytest.fixture
def frontend(monkeypatch):
    """A widget frontend is attached (as far as showing apps goes)."""
    monkeypatch.setattr("nb_elicit._runtime.kernel_compat.widget_frontend_attached", lambda: True)


@pytest.fixture
def journal(tmp_path) -> Journal:
    return Journal(tmp_path / "journal.jsonl")


class Sent:
    """What a frame sends its front end (replies, teardown), caught."""

    def __init__(self, frame):
        self.messages: list[dict] = []
        frame.send = lambda content, buffers=None: self.messages.append(content)

    def kinds(self) -> list[str]:
        return [m["kind"] for m in self.messages]


def lines(app) -> list[str]:
    """The lines of the app's call (its one log: requests and notices, the app's lines among
    them), as HTML."""
    return [item_html(item) for item in app.view.transcript().items]


def text_of(app) -> str:
    """The call's transcript, as a person reads it."""
    return transcript_bundle(app.view.transcript())["text/plain"]


async def refused(app, method: str, params: dict) -> AppRequestError:
    with pytest.raises(AppRequestError) as caught:
        await app.answer(method, params)
    return caught.value


def counting_reads(conn) -> list[str]:
    """The URIs ``conn`` reads for its apps from now on (through their host), in order."""
    seen: list[str] = []
    host = conn.apps.host
    read = host.read_for_app

    async def counted(uri, view):
        seen.append(uri)
        return await read(uri, view)

    host.read_for_app = counted
    return seen


# -- shown with the call -----------------------------------------------------------------------

def test_the_clock_app_shows_with_its_call_and_gets_the_input_and_the_result(frontend, journal):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        call = conn.start_tool("clock", {"label": "Kitchen"})
        result = await call
        (app,) = conn.apps.shown
        return conn, call, result, app, call._view.transcript()

    conn, call, result, app, transcript = drive(scenario)
    assert app.view is call._view
    assert app.resource.html == APP_FILE.read_text(encoding="utf-8")  # (sent once, by message)
    assert app.frame.csp == {}  # (the demo's app declares no domains: it reaches nothing)
    assert app.frame.tool["name"] == "clock"
    assert app.frame.tool_input == {"label": "Kitchen"}
    assert app.frame.tool_result["content"] == result.content
    assert app.frame.tool_result["structuredContent"]["time"].endswith(" UTC")
    assert result.text.startswith("Kitchen: ") and "The clock app shows this time" in result.text
    assert result.app is app.log and result.app_messages == [] and result.model_context is None
    told = [item for item in transcript.items if isinstance(item, Notice)]
    assert "An app of demo · clock is shown here" in told[0].text
    # the transcript keeps the text result and that line, and nothing of the app's HTML
    assert call._view.transcript().result["content"] == result.content
    assert "<script" not in json.dumps(call._view.transcript().items, default=str)


def test_the_resource_is_read_once_per_connection_and_uri(frontend):
    async def scenario(person):
        first = await nb_elicit.connect("first", APPS_SERVER)
        second = await nb_elicit.connect("second", APPS_SERVER)
        seen_first, seen_second = counting_reads(first), counting_reads(second)
        for _ in range(3):
            await first.call_tool("with_app")
        await second.call_tool("with_app")
        await second.call_tool("with_app")
        on_server = json.loads((await first.call_tool("reads_so_far")).text)
        return seen_first, seen_second, on_server, len(first.apps.shown), len(second.apps.shown)

    seen_first, seen_second, on_server, shown_first, shown_second = drive(scenario)
    assert seen_first == ["ui://test/app.html"] and seen_second == ["ui://test/app.html"]
    assert on_server == {"ui://test/app.html": 1}  # (first's own server process)
    assert (shown_first, shown_second) == (3, 2)  # (each call shows its app)


# -- what the app asks -------------------------------------------------------------------------

def test_the_app_calls_its_app_only_tool_and_a_line_says_so(frontend, journal):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        await conn.call_tool("clock")
        (app,) = conn.apps.shown
        answers = [await app.answer("tools/call", {"name": "clock_now", "arguments": {}})
                   for _ in range(3)]
        return app, answers, list(app.asks.children)

    app, answers, under_app = drive(scenario)
    for answer in answers:
        assert answer["isError"] is False
        assert answer["content"][0]["text"].startswith("It is ")
        assert answer["structuredContent"]["time"].endswith(" UTC")
    assert [e["tool"] for e in journal.entries()] == ["clock_now"] * 3  # (it reached the server)
    # (one line for the tool, counting its calls)
    assert text_of(app).count("The app called clock_now") == 1
    assert "Note: The app called clock_now 3 times." in text_of(app).splitlines()
    assert "It is " not in text_of(app)  # (what it returned went to the app, which shows it)
    assert app.log.calls == ["clock_now"] * 3
    # (one view under the app holds what its calls may ask; none of its own per call)
    assert under_app == [app.requests_view]


def test_a_form_the_app_s_call_brings_shows_under_the_app(frontend, journal):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        await conn.call_tool("clock")
        (app,) = conn.apps.shown
        answer = asyncio.ensure_future(app.answer("tools/call", {"name": "github_username"}))
        form = await person.wait_for_form(unless=answer)
        under_app = any(form in view.asked for view in app.asks.children)
        fill(form, {"name": "Ada"})
        form.submit_button.click()
        return await answer, under_app, app

    answer, under_app, app = drive(scenario)
    assert under_app
    assert answer["content"][0]["text"] == "Hello, @Ada!"
    assert [(e["tool"], e["action"]) for e in journal.entries()] == [("github_username", "accept")]
    assert "Note: The app called github_username." in text_of(app).splitlines()


def test_a_tool_not_for_apps_is_refused_and_one_for_apps_runs(frontend):
    async def scenario(person):
        conn = await nb_elicit.connect("other", APPS_SERVER)
        await conn.call_tool("with_app")
        (app,) = conn.apps.shown
        model_only = await refused(app, "tools/call", {"name": "for_model", "arguments": {}})
        unknown = await refused(app, "tools/call", {"name": "nowhere", "arguments": {}})
        bad = await refused(app, "tools/call", {"name": 7})
        ok = await app.answer("tools/call", {"name": "for_app", "arguments": {"word": "hi"}})
        return app, model_only, unknown, bad, ok

    app, model_only, unknown, bad, ok = drive(scenario)
    assert model_only.code == -32602
    assert model_only.message == "for_model is not for apps (its visibility is ['model'])"
    assert unknown.code == -32602 and unknown.message == "other has no tool 'nowhere'"
    assert bad.code == -32602
    assert ok["content"][0]["text"] == "for_app got hi"
    assert app.log.calls == ["for_app"]  # (the refused ones never ran)


def test_an_app_s_call_of_a_tool_with_an_app_shows_no_second_app(frontend):
    # (the app's calls go through its host, which runs the tool alone: only a call started in
    # a cell shows its tool's app)
    async def scenario(person):
        conn = await nb_elicit.connect("other", APPS_SERVER)
        await conn.call_tool("with_app")
        (app,) = conn.apps.shown
        answer = await app.answer("tools/call", {"name": "with_app", "arguments": {"word": "hi"}})
        return app, answer, list(conn.apps.shown), app.ended

    app, answer, shown, ended = drive(scenario)
    assert answer["content"][0]["text"] == "<b>hi</b> from with_app"
    assert shown == [app] and not ended
    assert app.log.calls == ["with_app"]


def test_the_app_cannot_reach_a_tool_of_another_connection(frontend, journal):
    async def scenario(person):
        demo = await nb_elicit.connect("demo", demo_command(journal))
        other = await nb_elicit.connect("other", APPS_SERVER)
        await other.list_tools()
        await demo.call_tool("clock")
        (app,) = demo.apps.shown
        errors = [await refused(app, "tools/call", {"name": name, "arguments": {}})
                  for name in ("for_app", "with_app", "reads_so_far")]
        read = await refused(app, "resources/read", {"uri": "ui://test/app.html"})
        on_other = json.loads((await other.call_tool("reads_so_far")).text)
        return errors, read, on_other, list(other.apps.shown)

    errors, read, on_other, shown_on_other = drive(scenario)
    assert [(e.code, e.message) for e in errors] == [
        (-32602, "demo has no tool 'for_app'"), (-32602, "demo has no tool 'with_app'"),
        (-32602, "demo has no tool 'reads_so_far'")]
    assert read.code != 0 and on_other == {}  # (the other server was never asked)
    assert shown_on_other == []


def test_resources_read_goes_to_the_app_s_own_server(frontend):
    async def scenario(person):
        conn = await nb_elicit.connect("other", APPS_SERVER)
        await conn.call_tool("with_app")
        (app,) = conn.apps.shown
        data = await app.answer("resources/read", {"uri": "test://data"})
        itself = await app.answer("resources/read", {"uri": "ui://test/app.html"})
        missing = await refused(app, "resources/read", {"uri": "test://nothing"})
        no_uri = await refused(app, "resources/read", {})
        return data, itself, missing, no_uri

    data, itself, missing, no_uri = drive(scenario)
    assert data["contents"][0]["text"] == "data of apps-test"
    assert itself["contents"][0]["mimeType"] == APP_MIME
    assert missing.code != 0 and "test://nothing" in missing.message
    assert no_uri.code == -32602


def test_messages_and_model_context_land_on_the_result_as_escaped_text(frontend, journal):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        result = await conn.call_tool("clock")
        (app,) = conn.apps.shown
        message = {"role": "user", "content": [{"type": "text", "text": f"look {HOSTILE}"}]}
        context = {"content": [{"type": "text", "text": f"state {HOSTILE}"}],
                   "structuredContent": {"shown": "12:00"}}
        answers = [await app.answer("ui/message", message),
                   await app.answer("ui/update-model-context", context),
                   await app.answer("ui/update-model-context", {"structuredContent": {"n": 2}})]
        return result, app, message, answers

    result, app, message, answers = drive(scenario)
    assert answers == [{}, {}, {}]
    assert result.app_messages == [message]
    assert result.model_context == {"structuredContent": {"n": 2}}  # (the last one)
    shown = "\n".join(lines(app))
    assert "The app says: look &lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in shown
    assert "<img" not in shown and "<script" not in shown
    # (the context goes to the result, for the person's code: one line says it was set, and
    # how often, not what the app already shows)
    assert shown.count("The app set its context") == 1
    assert "The app set its context for the model 2 times" in shown
    assert "state " not in shown


def test_the_messages_an_app_may_leave_are_bounded(frontend, journal):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        result = await conn.call_tool("clock")
        (app,) = conn.apps.shown
        message = {"role": "user", "content": [{"type": "text", "text": "again"}]}
        for _ in range(runtime_apps.MAX_MESSAGES):
            await app.answer("ui/message", message)
        too_many = await refused(app, "ui/message", message)
        too_big = await refused(app, "ui/update-model-context",
                                {"content": [{"type": "text", "text": "x" * 200_000}]})
        return result, app, too_many, too_big

    result, app, too_many, too_big = drive(scenario)
    assert len(result.app_messages) == runtime_apps.MAX_MESSAGES
    assert too_many.code == -32000 and too_big.code == -32602
    assert result.model_context is None
    entries = app.view.notices.entries  # (the call's log is bounded; the last line counts)
    assert len(entries) == MAX_NOTICES + 1 and "more notices" in entries[-1].text


def test_the_display_mode_is_inline_and_other_methods_are_unknown(frontend, journal):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        await conn.call_tool("clock")
        (app,) = conn.apps.shown
        mode = await app.answer("ui/request-display-mode", {"mode": "fullscreen"})
        unknown = await refused(app, "sampling/createMessage", {"messages": []})
        return mode, unknown

    mode, unknown = drive(scenario)
    assert mode == {"mode": "inline"}
    assert unknown.code == -32601


def test_the_app_s_notifications_are_taken_quietly_even_once_it_ended(frontend, journal,
                                                                       caplog):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        await conn.call_tool("clock")
        (app,) = conn.apps.shown
        sent = Sent(app.frame)

        async def notify(method, params):
            app.frame._handle_custom_msg({"kind": "notification", "method": method,
                                          "params": params}, [])
            await asyncio.sleep(0.1)

        await notify("notifications/message", {"level": "info", "data": HOSTILE})
        await notify("ui/notifications/request-teardown", {})
        said = list(lines(app))
        await conn.close()
        await notify("notifications/message", {"level": "info", "data": "late"})
        return app, sent, said

    app, sent, said = drive(scenario)
    # (the log is not shown; on request-teardown the frame closed itself, and the app ends)
    assert [re.sub(r"<[^>]*>", "", line) for line in said] == [
        "Note: The app ended: it asked to close."]  # (in the place of the line that said
    # the app is shown)
    assert sent.kinds() == ["teardown"]  # (the end's; notifications get no answer)
    assert app.ended
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


# -- links -------------------------------------------------------------------------------------

def test_open_link_shows_the_consent_card_and_nothing_happens_before_open(frontend, journal):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        await conn.call_tool("clock")
        (app,) = conn.apps.shown
        asked = asyncio.ensure_future(app.answer("ui/open-link",
                                                 {"url": "https://modelcontextprotocol.io"}))
        card = await person.wait_for_form(unless=asked)
        await asyncio.sleep(0.2)
        before = (asked.done(), card.link.value, text_of(app))
        under_app = any(card in view.asked for view in app.asks.children)
        card.open_button.click()
        answer = await asked
        still_under_app = any(card in view.asked for view in app.asks.children)
        said = (text_of(app), "\n".join(lines(app)))
        return card, before, answer, (under_app, still_under_app), said

    card, before, answer, (under_app, still_under_app), said = drive(scenario)
    assert isinstance(card, UrlConsentCard) and under_app
    done, link, shown = before
    assert not done and "<a " not in link and "agreed" not in shown  # (waits for the person)
    assert card.url.host == "modelcontextprotocol.io"
    assert answer == {}
    assert 'href="https://modelcontextprotocol.io"' in card.link.value  # (now, and only now)
    # What the person chose is told once: the answered card leaves the app's place, and the
    # call's log tells it, the link to the page in it.
    assert not still_under_app
    text, html_lines = said
    assert text.count("modelcontextprotocol.io") == 1 and text.count("agreed") == 1
    assert "You agreed to open the page" in text
    assert html_lines.count('href="https://modelcontextprotocol.io"') == 1


def test_a_file_the_person_saves_keeps_its_card_which_holds_the_link_to_it(frontend, journal):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        await conn.call_tool("clock")
        (app,) = conn.apps.shown
        asked = asyncio.ensure_future(app.answer("ui/download-file", {"contents": [{
            "type": "resource", "resource": {"uri": "file:///r.csv", "mimeType": "text/csv",
                                             "text": "1"}}]}))
        card = await person.wait_for_form(unless=asked)
        card.save_button.click()
        answer = await asked
        kept = any(card in view.asked for view in app.asks.children)
        return card, answer, kept, text_of(app)

    card, answer, kept, text = drive(scenario)
    assert answer == {}
    # (the file is only in the card's link: the card stays, the call's log says it once)
    assert kept and 'download="r.csv"' in card.link.value
    assert text.count("You agreed") == 1


def test_a_link_the_person_does_not_open_is_an_error_result_for_the_app(frontend, journal):
    async def scenario(person):
        person.will("decline")
        conn = await nb_elicit.connect("demo", demo_command(journal))
        await conn.call_tool("clock")
        (app,) = conn.apps.shown
        answer = await app.answer("ui/open-link", {"url": "https://modelcontextprotocol.io"})
        return answer, app

    answer, app = drive(scenario)
    assert answer == {"isError": True}
    # (a choice, told once and plainly: no warning, no error)
    told = text_of(app)
    assert told.count("https://modelcontextprotocol.io") == 1 and "  Declined." in told
    assert "Warning" not in told and "Error" not in told
    assert "nb-elicit-notice-text-warning" not in "".join(lines(app))
    assert not any(isinstance(c, UrlConsentCard) for c in app.requests_view.asked)


def test_every_card_still_waiting_stays_under_the_app_and_a_few_answered_ones(frontend,
                                                                              journal):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        await conn.call_tool("clock")
        (app,) = conn.apps.shown
        asked = [asyncio.ensure_future(app.answer("ui/open-link",
                                                  {"url": f"https://example.com/{i}"}))
                 for i in range(8)]
        first = [await person.wait_for_form(i + 1) for i in range(3)]
        await asyncio.sleep(0.2)
        view = app.requests_view
        shown = [c for c in view.asked if isinstance(c, UrlConsentCard)]
        waiting = shown == first, view.backlog.text
        for i in range(8):
            card = await person.wait_for_form(i + 1)
            card.decline_button.click()
        answers = await asyncio.gather(*asked)
        kept = [c for c in view.asked if isinstance(c, UrlConsentCard)]
        return waiting, answers, len(kept), text_of(app)

    (all_there, backlog), answers, after, told = drive(scenario)
    assert all_there  # (three at once, as for a server's requests; none pushed out)
    assert "5 more requests from demo are waiting" in backlog
    assert answers == [{"isError": True}] * 8
    # (answered, each leaves the app's place; the call's log tells each once)
    assert after == 0
    assert [told.count(f"https://example.com/{i}") for i in range(8)] == [1] * 8


@pytest.mark.parametrize("url", ["javascript:alert(document.cookie)", "data:text/html,<b>x</b>",
                                 "http://example.com/", "file:///etc/passwd", None])
def test_a_link_nb_elicit_refuses_shows_no_card(frontend, journal, url):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        await conn.call_tool("clock")
        (app,) = conn.apps.shown
        error = await refused(app, "ui/open-link", {"url": url})
        return error, app, list(kernel_state().pending.forms()), person.seen

    error, app, pending, seen = drive(scenario)
    assert error.code == -32602
    assert pending == [] and seen == []  # (no card was ever shown)
    assert "The app asked to open a link that nb_elicit refuses" in text_of(app)
    assert "<b>" not in "".join(lines(app))  # (the refused address is shown as text)


# -- apps that are not shown -------------------------------------------------------------------

@pytest.mark.parametrize(("tool", "why"), [
    ("wrong_mime", "the app ui://test/wrong.html is 'text/html', not "
                   "text/html;profile=mcp-app: it is not shown"),
    ("too_large", f"the app ui://test/large.html is {(MAX_APP_BYTES + 1) / 1e6:.1f} MB; "
                  "nb_elicit shows apps up to 8 MB"),
    ("missing_app", "ui://test/missing.html"),
])
def test_a_refused_app_is_one_line_and_the_text_result_stays(frontend, tool, why):
    async def scenario(person):
        conn = await nb_elicit.connect("other", APPS_SERVER)
        call = conn.start_tool(tool)
        result = await call
        return result, call._view.transcript(), list(conn.apps.shown)

    result, transcript, shown = drive(scenario)
    assert shown == []
    assert result.text == f"{tool}'s text result" and result.app is None
    (notice,) = [item for item in transcript.items if isinstance(item, Notice)]
    assert notice.text.startswith("The tool's app is not shown: ") and why in notice.text
    assert "\n" not in notice.text and notice.kind == "warning"
    assert transcript.result["content"] == result.content


def test_without_a_widget_frontend_no_app_is_shown_and_nothing_is_read(journal):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        seen = counting_reads(conn)
        call = conn.start_tool("clock")
        result = await call
        return result, call._view.transcript(), list(conn.apps.shown), seen

    result, transcript, shown, seen = drive(scenario)
    assert shown == [] and seen == [] and result.app is None
    assert "The clock app shows this time" in result.text
    assert not [item for item in transcript.items if isinstance(item, Notice)]


def test_apps_false_shows_none(frontend, journal):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal), apps=False)
        seen = counting_reads(conn)
        result = await conn.call_tool("clock")
        return result, conn.apps.enabled, list(conn.apps.shown), seen

    result, enabled, shown, seen = drive(scenario)
    assert not enabled and shown == [] and seen == [] and result.app is None
    assert result.text


def test_apps_off_ends_the_apps_shown_and_shows_no_more_until_on(frontend, journal):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        await conn.call_tool("clock")
        await conn.call_tool("clock")
        first, second = conn.apps.shown
        sent = [Sent(first.frame), Sent(second.frame)]
        conn.apps.set_enabled(False)
        after_off = await refused(first, "ui/message", {"content": []})
        quiet = await conn.call_tool("clock")
        shown_while_off = list(conn.apps.shown)
        conn.apps.set_enabled(True)
        await conn.call_tool("clock")
        return first, second, sent, after_off, quiet, shown_while_off, list(conn.apps.shown)

    first, second, sent, after_off, quiet, shown_while_off, shown_now = drive(scenario)
    assert first.ended and second.ended
    assert [s.kinds() for s in sent] == [["teardown"], ["teardown"]]
    ended = "The app ended: apps were turned off for 'demo'."
    for app in (first, second):
        assert ended in text_of(app)
        assert Notice(ended, "info") in app.view.transcript().items  # (it stays in the cell)
    assert after_off.code == -32000
    assert shown_while_off == [] and quiet.app is None
    assert len(shown_now) == 1 and shown_now[0] not in (first, second)


def test_closing_the_connection_ends_its_apps_with_a_line(frontend, journal):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        await conn.call_tool("clock")
        (app,) = conn.apps.shown
        sent = Sent(app.frame)
        await conn.close()
        after = await refused(app, "tools/call", {"name": "clock_now"})
        return app, sent, after, list(conn.apps.shown)

    app, sent, after, shown = drive(scenario)
    assert app.ended and shown == []
    assert sent.kinds() == ["teardown"]
    ended = "The app ended: the connection 'demo' was closed."
    assert ended in text_of(app)
    assert Notice(ended, "info") in app.view.transcript().items
    assert after.code == -32000 and after.message == "the app has ended"


# -- a flood -----------------------------------------------------------------------------------

def test_a_flood_of_requests_through_the_frame_keeps_the_loop_answering(frontend, journal):
    """500 requests at once, as the frame's front end would send them if it did not cap them:
    every one is answered, a few tool calls at a time, and the loop keeps running meanwhile."""
    count = 500

    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        await conn.call_tool("clock")
        (app,) = conn.apps.shown
        sent = Sent(app.frame)
        beats = 0

        async def heartbeat():
            nonlocal beats
            while True:
                beats += 1
                await asyncio.sleep(0.01)

        beating = asyncio.ensure_future(heartbeat())
        loop = asyncio.get_running_loop()
        started = loop.time()
        for i in range(count):
            method, params = [
                ("tools/call", {"name": "clock_now", "arguments": {}}),
                ("ui/message", {"role": "user", "content": [{"type": "text", "text": f"m{i}"}]}),
                ("ui/update-model-context", {"content": [{"type": "text", "text": f"c{i}"}]}),
                ("resources/read", {"uri": APP_URI}),
            ][i % 4]
            app.frame._handle_custom_msg({"kind": "request", "id": i, "method": method,
                                          "params": params}, [])
        beats_at_start = beats
        while len([m for m in sent.messages if m["kind"] == "response"]) < count:
            await asyncio.sleep(0.05)
        took = loop.time() - started
        beating.cancel()
        still = await app.answer("ui/request-display-mode", {})
        replies = [m for m in sent.messages if m["kind"] == "response"]
        return replies, beats - beats_at_start, took, still, app

    replies, beats, took, still, app = drive(scenario)
    print(f"{count} requests answered in {took:.2f} s")
    assert sorted(m["id"] for m in replies) == list(range(count))
    errors = [m["error"] for m in replies if "error" in m]
    answered = [m for m in replies if "result" in m]
    assert answered and beats > 0  # (the loop ran between the answers)
    assert all(e["code"] in (-32000, -32602) for e in errors), errors[:3]
    too_many = [e for e in errors if e["message"].startswith("Too many requests at once")]
    calls = [m for m in answered if "structuredContent" in m["result"]]
    assert too_many and calls  # (some calls ran; those past the cap were refused at once)
    assert 0 < len(app.log.messages) <= runtime_apps.MAX_MESSAGES
    assert len(app.view.notices.entries) <= MAX_NOTICES + 1
    assert still == {"mode": "inline"}


# -- the call's view ----------------------------------------------------------------------------
