"""A hostile MCP server (tests/servers/hostile_server.py) against an in-process client.

Each case: the server gets a JSON-RPC error or a decline, nothing is left pending, and the next
normal elicitation on the same connection still works. The same cases in a real kernel, with
``1+1`` answered after each, are in test_kernel_hostile.py.
"""

import asyncio
import html
import json

import ipywidgets as widgets
import pytest
from helpers.fill import fill
from helpers.schemas import EVERYTHING
from helpers.servers import drive, hostile_command
from ipywidgets.widgets import widget as widget_module

import nb_elicit
from nb_elicit._runtime.state import kernel_state
from nb_elicit._ui.html import inline_text

pytestmark = pytest.mark.timeout(120)

HOSTILE = hostile_command()
NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}



async def raw(conn, params) -> dict:
    return json.loads((await conn.call_tool("raw", {"params_json": json.dumps(params)})).text)


async def still_works(conn, person) -> dict:
    """A normal form right after: the person accepts it, the server gets the content."""
    person.will("accept", {"name": "Ada"})
    result = await conn.call_tool("ask", {"schema_json": json.dumps(NAME_FORM)})
    return json.loads(result.text)


def run_case(send, *, rate_limit=None, timeout: float = 180, **connect):
    async def scenario(person):
        conn = await nb_elicit.connect("hostile", HOSTILE, rate_limit=rate_limit, **connect)
        outcome = await send(conn, person)
        after = await still_works(conn, person)
        return outcome, after, len(kernel_state().pending)

    outcome, after, pending = drive(scenario, timeout)
    assert after == {"result": {"action": "accept", "content": {"name": "Ada"}}}
    assert pending == 0
    return outcome


def error_of(outcome: dict) -> tuple[int, str]:
    assert "error" in outcome, outcome
    return outcome["error"]["code"], outcome["error"]["message"]


# -- malformed requests -------------------------------------------------------------------------

EMPTY = {"type": "object", "properties": {}}


@pytest.mark.parametrize("params", [
    pytest.param({"requestedSchema": EMPTY}, id="missing-message"),
    pytest.param({"message": 5, "requestedSchema": EMPTY}, id="number-message"),
    pytest.param({"message": None, "requestedSchema": EMPTY}, id="null-message"),
    pytest.param({"message": "x", "requestedSchema": "a string"}, id="schema-not-object"),
    pytest.param({"message": "x", "requestedSchema": [1, 2]}, id="schema-a-list"),
    pytest.param({"mode": "video", "message": "x", "requestedSchema": EMPTY}, id="unknown-mode"),
    pytest.param({"mode": "url", "message": "x", "url": "https://a.example"},
                 id="url-without-id"),
    pytest.param({"mode": "form", "message": "x"}, id="form-without-schema"),
])
def test_malformed_requests_get_invalid_params(params):
    code, _ = error_of(run_case(lambda conn, person: raw(conn, params)))
    assert code == -32602


# -- unsupported schemas --------------------------------------------------------------------------

@pytest.mark.parametrize(("prop", "path"), [
    ({"type": "object", "properties": {"x": {"type": "string"}}}, "properties.a"),
    ({"type": "array", "items": {"type": "object", "properties": {}}}, "properties.a.items"),
    ({"$ref": "#/definitions/x"}, "properties.a.$ref"),
    ({"type": "matrix"}, "properties.a.type"),
    ({"type": "string", "pattern": "(unclosed"}, "properties.a.pattern"),
])
def test_unsupported_schemas_get_invalid_params_naming_the_path(views, prop, path):
    params = {"message": "x", "requestedSchema": {"type": "object", "properties": {"a": prop}}}
    code, message = error_of(run_case(lambda conn, person: raw(conn, params)))
    assert code == -32602
    assert f"{path}:" in message
    notice = views[0].asked[0]
    assert "cannot show" in notice.value and html.escape(path) in notice.value


# -- sizes --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("what", "limit"), [
    ("message", "the limit is 10,000"),
    ("properties", "has 1,000 fields; the limit is 100"),
    ("enum", "the limit is 1,000"),
    ("title", "the limit is 2,000"),
])
def test_oversized_requests_are_refused_naming_the_limit(what, limit):
    outcome = run_case(lambda conn, person: conn.call_tool("big", {"what": what}))
    code, message = error_of(json.loads(outcome.text))
    assert code == -32602
    assert limit in message


# -- regular expressions ------------------------------------------------------------------------

def test_a_catastrophic_pattern_gives_a_message_instead_of_hanging(views):
    schema = {"type": "object", "properties": {"w": {"type": "string", "pattern": "^(a|aa)+$"}}}

    async def send(conn, person):
        call = asyncio.ensure_future(conn.call_tool("ask", {"schema_json": json.dumps(schema)}))
        form = await person.wait_for_form()
        form.controls["w"].widget.value = "a" * 40 + "!"
        loop = asyncio.get_running_loop()
        started = loop.time()
        form.submit_button.click()
        took = loop.time() - started
        problem = (form.controls["w"].error_text or "")
        form.controls["w"].widget.value = "aaaa"
        form.submit_button.click()
        return json.loads((await call).text), problem, took

    outcome, problem, took = run_case(send)
    assert outcome == {"result": {"action": "accept", "content": {"w": "aaaa"}}}
    assert "pattern" in problem.lower() or "too long" in problem.lower()
    assert took < 10  # generous: a hang would never return


# -- untrusted text -----------------------------------------------------------------------------

EVIL = '<img src=x onerror="alert(1)"><script>alert(2)</script>'


def test_html_in_every_server_text_is_shown_literally(views):
    schema = {"type": "object", "title": EVIL, "properties": {
        "a": {"type": "string", "title": EVIL, "description": EVIL},
        "b": {"type": "string", "oneOf": [{"const": "x", "title": EVIL}]},
        "c": {"type": "string", "enum": ["y"], "enumNames": [EVIL]}}}

    async def send(conn, person):
        call = asyncio.ensure_future(conn.call_tool(
            "ask", {"schema_json": json.dumps(schema), "message": EVIL}))
        form = await person.wait_for_form()
        snapshot = _all_text(form)
        form.decline_button.click()
        return json.loads((await call).text), snapshot, conn.server_name

    outcome, (htmls, plain), server_name = run_case(send)
    assert outcome == {"result": {"action": "decline"}}
    assert server_name.startswith("<img")  # the hostile server's own name ...
    shown = "".join(htmls)
    assert "<img" not in shown and "<script" not in shown  # ... and nothing of it as HTML
    assert html.escape(EVIL) in shown  # the message and description, escaped
    assert inline_text(EVIL) in shown  # the titles, escaped into their inputs' labels
    assert EVIL in plain  # option labels go through ipywidgets as text


def _all_text(widget) -> tuple[list[str], list[str]]:
    htmls, plain = [], []

    def walk(w):
        if isinstance(w, widgets.HTML):
            htmls.append(w.value)
        else:
            # a field's label is its input's description, escaped into inline HTML
            kind = htmls if getattr(w, "description_allow_html", False) else plain
            kind.append(str(getattr(w, "description", "")))
            plain.extend(str(o) for o in getattr(w, "_options_labels", ()))
        for child in getattr(w, "children", ()):
            walk(child)

    walk(widget)
    return htmls, plain


# -- flood, rate limit and mute -----------------------------------------------------------------

# Marked once: alone it takes about 3 s, but in the niced range run of the full suite it took
# more than 120 s once and more than 180 s twice in three runs, while the same test passed in
# the 3.11 run beside it every time (not explained yet). The backlog's rules run on every version
# in test_backlog. Hang guards: 300 s for the scenario, 360 s for the test.
@pytest.mark.once
@pytest.mark.timeout(360)
def test_a_flood_of_200_is_held_by_backpressure_and_a_person_who_keeps_up_answers_all(
        views, monkeypatch):
    """Three forms at a time, 100 waiting in order, the rest cancelled with one notice: the
    person answers every form shown, and nothing is declined on their behalf."""
    # The scripted person sees every form, as a person at a widget frontend does. Without a
    # frontend each waiting request would wait at most NB_ELICIT_HEADLESS_WAIT (10 s) for its
    # turn, and a loaded machine can take longer than that to show and answer 103 forms one
    # after another: the last ones were then cancelled as unseen, which is not this test's case.
    monkeypatch.setattr("nb_elicit._runtime.kernel_compat.widget_frontend_attached", lambda: True)
    async def send(conn, person):
        before = len(widget_module._instances)
        call = asyncio.ensure_future(conn.call_tool("flood", {"count": 200}))
        await person.wait_for_form(3)
        # (all 200 have come once the overflow's notice counts 97: on a loaded machine they come
        # slowly, and one still on its way once the person answers would be shown in the place
        # of an answered one, a 104th form that no scripted answer is left for)
        while not any("answered cancel to 97 requests" in w.value for w in views[0].asked
                      if "nb-elicit-notice" in w._dom_classes):
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
        shown, waiting = len(kernel_state().pending), conn.guard.backlog.waiting
        line = views[-1].backlog.text
        growth = len(widget_module._instances) - before
        for _ in range(100):
            person.will("accept", {"name": "Ada"})
        # (the three shown before the person had a script)
        for form in kernel_state().pending.forms():
            fill(form, {"name": "Ada"})
            form.submit_button.click()
        counts = json.loads((await call).text)
        return counts, shown, waiting, line, growth, conn.guard.backlog.most_open

    counts, shown, waiting, line, growth, most_open = run_case(send, timeout=300)
    assert (shown, waiting, most_open) == (3, 100, 3)
    assert line == "100 more requests from hostile are waiting."
    assert counts == {"accept": 103, "cancel": 97}
    notices = [w.value for w in views[0].asked if "nb-elicit-notice" in w._dom_classes]
    assert len(notices) == 1 and "answered cancel to 97 requests" in notices[0]
    assert views[0].backlog.text == ""  # nothing waits any more
    assert growth < 3 * 60  # widgets for 3 forms and one line, not 200 forms


def test_forms_shown_together_after_answers_given_together_are_built_one_per_loop_turn(
        views, monkeypatch):
    """The person answers the three open forms at once: the next three are each built in a
    turn of the event loop of their own (a cell waits for one form's build at most), and all
    six are answered."""
    monkeypatch.setattr("nb_elicit._runtime.kernel_compat.widget_frontend_attached", lambda: True)
    from nb_elicit._ui.form import ElicitationForm

    built, turns = [], [0]
    made = ElicitationForm.__init__

    def counted(form, message, *args, **kwargs):
        made(form, message, *args, **kwargs)
        built.append((message, turns[0]))

    monkeypatch.setattr(ElicitationForm, "__init__", counted)

    async def send(conn, person):
        loop = asyncio.get_running_loop()

        def tick():  # counts the turns of the loop
            turns[0] += 1
            loop.call_soon(tick)

        loop.call_soon(tick)
        call = asyncio.ensure_future(conn.call_tool("flood", {"count": 6}))
        await person.wait_for_form(3)
        while conn.guard.backlog.waiting < 3:
            await asyncio.sleep(0.01)
        for form in kernel_state().pending.forms():  # (in one step: answered together)
            fill(form, {"name": "Ada"})
            form.submit_button.click()
        for _ in range(3):
            person.will("accept", {"name": "Ada"})
        return json.loads((await call).text)

    assert run_case(send) == {"accept": 6}
    flood = [turn for message, turn in built if message.startswith("Flood #")]
    assert len(flood) == 6
    assert len(set(flood[3:])) == 3


def test_the_person_can_cancel_every_waiting_request_at_once(views):
    async def send(conn, person):
        call = asyncio.ensure_future(conn.call_tool("flood", {"count": 20}))
        await person.wait_for_form(3)
        await asyncio.sleep(0.3)
        cancel = [w for w in views[-1].children if "nb-elicit-backlog" in w._dom_classes]
        (button,) = [b for b in cancel[0].children if "nb-elicit-cancel-waiting" in b._dom_classes]
        button.click()
        await asyncio.sleep(0.3)
        for form in kernel_state().pending.forms():
            form.dismiss_button.click()
        return json.loads((await call).text)

    assert run_case(send) == {"cancel": 20}
    notices = [w.value for w in views[0].asked if "nb-elicit-notice" in w._dom_classes]
    assert any("You cancelled 17 requests from hostile" in n for n in notices)
    assert [e.answered_by for e in kernel_state().history.entries
            if e.answered_by == "cancelled while waiting"] == ["cancelled while waiting"] * 17


def test_an_optional_rate_limit_answers_cancel_never_decline(views):
    async def send(conn, person):
        for _ in range(5):
            person.will("accept", {"name": "Ada"})
        counts = json.loads((await conn.call_tool("flood", {"count": 10})).text)
        await asyncio.sleep(1.2)  # the limit lets one more through each second
        return counts

    counts = run_case(send, rate_limit="60/min burst 5")
    assert counts == {"accept": 5, "cancel": 5}
    notices = [w.value for w in views[0].asked if "nb-elicit-notice" in w._dom_classes]
    assert len(notices) == 1 and "answered cancel to 5 requests" in notices[0]


def test_a_flood_answered_by_a_policy_keeps_the_cell_bounded(views):
    async def send(conn, person):
        nb_elicit.respond("decline", connection="hostile")
        try:
            return json.loads((await conn.call_tool("flood", {"count": 200})).text)
        finally:
            kernel_state().policies.clear()

    assert run_case(send, rate_limit="10/min") == {"decline": 200}  # policies are not limited
    lines = views[0].asked
    assert len(lines) == 51
    assert "and 150 more notices" in lines[-1].value


def test_mute_answers_cancel_with_one_counted_notice_until_unmuted(views):
    async def send(conn, person):
        conn.mute()
        first = await raw(conn, {"message": "1", "requestedSchema": NAME_FORM})
        second = await raw(conn, {"message": "2", "requestedSchema": NAME_FORM})
        conn.unmute()
        return first, second

    first, second = run_case(send)
    assert first == second == {"result": {"action": "cancel"}}
    texts = [w.value for v in views[:2] for w in v.asked]
    assert any("muted" in t and "1 request" in t for t in texts)
    assert [e.answered_by for e in kernel_state().history.entries[-3:-1]] == ["muted", "muted"]


# -- lifecycle ----------------------------------------------------------------------------------

def test_a_server_that_crashes_mid_form_closes_it_with_a_reason():
    async def scenario(person):
        conn = await nb_elicit.connect("hostile", HOSTILE)
        call = asyncio.ensure_future(conn.call_tool("crash", {"after": 0.5}))
        form = await person.wait_for_form()
        with pytest.raises(nb_elicit.ServerDisconnected):
            await call
        await asyncio.sleep(0.2)
        return form, len(kernel_state().pending)

    form, pending = drive(scenario)
    assert form.answer.cancelled() and "disconnected" in form.status.value
    assert pending == 0


def test_a_withdrawn_request_closes_its_form_and_the_next_one_works():
    async def send(conn, person):
        result = await conn.call_tool("withdraw", {"after": 0.5})
        form = await person.wait_for_form()
        await asyncio.sleep(0.2)
        return result.text, form

    text, form = run_case(send)
    assert text == "withdrawn"
    assert form.answer.cancelled() and "withdrew" in form.status.value


def test_a_server_that_never_answers_after_submit_can_still_be_cancelled():
    async def send(conn, person):
        person.will("accept", {"name": "Ada"})
        call = asyncio.ensure_future(conn.call_tool("never_answer"))
        form = await person.wait_for_form()
        await asyncio.sleep(0.5)
        running = not call.done()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        return running, form

    running, form = run_case(send)
    assert running
    assert "Submitted." in form.status.value


# -- forms that ask for secrets -----------------------------------------------------------------

SECRET = {"type": "object", "properties": {"api_key": {"type": "string", "default": "sk-123"},
                                           "max_tokens": {"type": "integer", "default": 512}}}


def test_a_connection_can_refuse_forms_that_ask_for_secrets(views):
    outcome = run_case(lambda conn, person: raw(conn, {"message": "Your key",
                                                       "requestedSchema": SECRET}),
                       secret_forms="refuse")
    assert outcome == {"result": {"action": "decline"}}
    assert "refuses such forms" in views[0].asked[0].value


def test_by_default_a_secret_form_shows_with_a_warning_and_the_secret_not_prefilled(views):
    async def send(conn, person):
        call = asyncio.ensure_future(raw(conn, {"message": "Your key", "requestedSchema": SECRET}))
        form = await person.wait_for_form()
        warned = form.secret_fields
        content = form.content
        form.dismiss_button.click()
        return await call, warned, content

    outcome, warned, content = run_case(send)
    assert outcome == {"result": {"action": "cancel"}}
    assert warned == ["api_key"] and content == {"max_tokens": 512}


def test_a_connection_that_refuses_secret_forms_still_answers_forms_without_one(views):
    # The "everything" server's form warns against a PIN in a description, and a settings form
    # asks for max_tokens: neither asks for a secret, so neither is refused, and every default
    # the person saw is sent.
    settings = {"type": "object", "properties": {
        "max_tokens": {"type": "integer", "default": 1024},
        "temperature": {"type": "number", "default": 0.7}}}

    async def send(conn, person):
        person.will("accept", {"name": "Ada"}).will("accept", {})
        first = await raw(conn, {"message": EVERYTHING["message"],
                                 "requestedSchema": EVERYTHING["requestedSchema"]})
        second = await raw(conn, {"message": "Settings", "requestedSchema": settings})
        return first, second

    first, second = run_case(send, secret_forms="refuse")
    defaults = {name: prop["default"]
                for name, prop in EVERYTHING["requestedSchema"]["properties"].items()
                if "default" in prop}
    assert first == {"result": {"action": "accept", "content": {"name": "Ada", **defaults}}}
    assert second == {"result": {"action": "accept",
                                 "content": {"max_tokens": 1024, "temperature": 0.7}}}
