"""A connection's state (connecting, ready, disconnected, closed) and what changes it.

Real servers over stdio: the hostile test server crashes on request, and a connection that lost
its server starts it again on the next call.
"""

import asyncio
import html
import json
import sys

import pytest
from helpers.servers import demo_command, drive, hostile_command

import nb_elicit
from nb_elicit._runtime.state import kernel_state

pytestmark = pytest.mark.timeout(120)

NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}}


def test_a_connection_that_reconnects_is_connected_again_and_withdrawals_say_so():
    async def scenario(person):
        conn = await nb_elicit.connect("hostile", hostile_command(), rate_limit=None)
        states = [conn.status]
        with pytest.raises(nb_elicit.ServerDisconnected):
            await conn.call_tool("crash", {"after": 0.3})  # its form stays unanswered
        states.append(conn.status)
        person.will("accept", {"name": "Ada"})
        again = await conn.call_tool("ask", {"schema_json": json.dumps(NAME_FORM)})
        states.append(conn.status)
        withdrawn = await conn.call_tool("withdraw", {"after": 0.3})
        states.append(conn.status)
        await conn.close()
        states.append(conn.status)
        return states, json.loads(again.text), withdrawn.text, person.seen

    states, again, withdrawn, person_seen = drive(scenario)
    assert states == ["connected", "disconnected", "connected", "connected", "closed"]
    assert again == {"result": {"action": "accept", "content": {"name": "Ada"}}}
    assert withdrawn == "withdrawn"
    form = person_seen[-1]
    assert form.message == "Going away"
    assert html.unescape(form.status.value).count("hostile withdrew this request.") == 1
    assert kernel_state().history.entries[-1].answered_by == "withdrawn"


@pytest.mark.parametrize("bad", [
    {"timeout": 0}, {"timeout": "soon"}, {"timeout": float("nan")}, {"env": {"LEVEL": 3}},
    {"secret_forms": "sometimes"}, {"rate_limit": "lots"}, {"command": "python server.py"},
    {"command": None, "url": "http://127.0.0.1:1/mcp", "headers": {"X-Token": None}},
], ids=lambda bad: ",".join(f"{k}={v!r}" for k, v in bad.items() if v is not None))
def test_a_bad_argument_to_connect_leaves_the_live_connection_of_that_name_alone(journal, bad):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        with pytest.raises((ValueError, TypeError)):
            await nb_elicit.connect("demo", **{"command": demo_command(journal), **bad})
        still = nb_elicit.connections.get("demo") is conn, conn.status
        return still, (await conn.call_tool("hello")).text

    still, text = drive(scenario)
    assert still == (True, "connected")
    assert text == "Hello, world!"


def test_a_closed_connection_still_says_what_it_was(journal):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        before = (conn.server_name, conn.protocol_version)
        await conn.close()
        return before, repr(conn), (conn.server_name, conn.protocol_version)

    before, text, after = drive(scenario)
    assert before[0] == "nb-elicit-demo" and before[1]
    assert after == before
    assert "closed" in text and "nb-elicit-demo" in text


# -- a form whose request went away: refused at once, and in the history once -------------------

from helpers.fill import fill  # noqa: E402
from helpers.servers import hostile_command as _hostile  # noqa: E402


def entries_for(message: str) -> list[tuple[str, str]]:
    return [(e.action, e.answered_by) for e in kernel_state().history.entries
            if e.message == message]


def test_a_click_just_after_a_withdrawal_is_refused_and_recorded_as_withdrawn(journal, views):
    """A withdrawal is told from a disconnection at once (the session has not ended), and
    leaves no window for an answer: nothing can be sent, so the form says withdrawn."""
    kernel_state().history.clear()

    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        call = conn.start_tool("withdraw", {"after": 0.5})
        form = await person.wait_for_form(unless=call)
        fill(form, {"answer": "too late"})
        while form in kernel_state().pending.forms():  # the server withdrew it: its wait has ended
            await asyncio.sleep(0.005)
        form.submit_button.click()
        result = await call
        return form, result.text

    form, text = drive(scenario)
    assert text == "The question was withdrawn."
    status = html.unescape(form.status.value)
    assert "demo withdrew this request." in status and "Submitted" not in status
    assert form.final_answer() is None and form.outcome().action is None
    assert entries_for(form.message) == [("none", "withdrawn")]
    assert [e.get("event") for e in journal.entries()] == ["withdrawn"]


def test_an_answer_given_as_the_request_is_withdrawn_is_taken_back():
    """A Submit that lands while the request is being withdrawn never reaches the server: the
    form says so instead of "Submitted."."""
    from nb_elicit import ElicitationForm

    form = ElicitationForm("Who?", NAME_FORM, server="demo")
    fill(form, {"name": "Ada"})
    form.submit_button.click()
    assert form.withdraw("demo withdrew this request.")
    assert form.final_answer() is None and form.outcome().action is None
    assert form.answered_by == "withdrawn"
    assert "withdrew" in form.status_text and form.submit_button.disabled


def test_a_form_closed_by_its_server_dying_is_in_the_history_once(views):
    """The session ended the moment its server's stream did: the form, cancelled after
    that, says disconnected at once."""
    kernel_state().history.clear()

    async def scenario(person):
        conn = await nb_elicit.connect("hostile", _hostile(), rate_limit=None)
        session = conn.sessions.main
        with pytest.raises(nb_elicit.ServerDisconnected):
            await conn.call_tool("crash", {"after": 0.3})
        assert session.ended.is_set() and conn.status == "disconnected"
        return person.seen[-1]

    form = drive(scenario)
    assert "hostile disconnected." in html.unescape(form.status.value)
    assert entries_for("I will crash") == [("none", "disconnected")]


def test_a_form_closed_with_its_connection_is_in_the_history_once(views):
    kernel_state().history.clear()

    async def scenario(person):
        conn = await nb_elicit.connect("hostile", _hostile(), rate_limit=None)
        call = conn.start_tool("ask", {"schema_json": json.dumps(NAME_FORM),
                                       "message": "Still there?"})
        form = await person.wait_for_form(unless=call)
        await conn.close()
        await asyncio.sleep(0.5)
        return form

    form = drive(scenario)
    assert "The connection was closed." in html.unescape(form.status.value)
    assert entries_for("Still there?") == [("cancel", "closed")]


# -- a connection exists from its first moment ---------------------------------------------------

def test_a_connection_is_known_while_it_connects_and_a_call_made_then_waits_and_works(journal):
    async def scenario(person):
        connecting = asyncio.create_task(nb_elicit.connect("demo", demo_command(journal)))
        await asyncio.sleep(0)  # the connect has started, its handshake has not ended
        conn = nb_elicit.connections["demo"]
        before = conn.status, repr(conn)
        tools = asyncio.create_task(conn.list_tools())
        hello = await conn.call_tool("hello", {"name": "Ada"})
        return before, hello.text, [t["name"] for t in await tools], await connecting, conn

    before, text, tools, connected, conn = drive(scenario)
    assert before == ("connecting", "<nb_elicit.Connection 'demo': connecting>")
    assert text == "Hello, Ada!"
    assert "hello" in tools
    assert connected is conn


def test_a_connect_that_fails_removes_its_connection_and_those_who_waited_get_its_error():
    broken = [sys.executable, "-c", "import sys; print('no server here', file=sys.stderr)"]

    async def scenario(person):
        connecting = asyncio.create_task(nb_elicit.connect("broken", broken))
        await asyncio.sleep(0)
        conn = nb_elicit.connections["broken"]
        waiting = asyncio.create_task(conn.call_tool("hello"))
        with pytest.raises(nb_elicit.ConnectError) as connect_error:
            await connecting
        with pytest.raises(nb_elicit.ConnectError) as call_error:
            await waiting
        return conn, dict(nb_elicit.connections), str(connect_error.value), str(call_error.value)

    conn, left, connect_text, call_text = drive(scenario)
    assert left == {}
    assert conn.status == "closed"
    assert "no server here" in connect_text  # (the server's last words, on later lines)
    assert call_text == connect_text.splitlines()[0]
    assert call_text.startswith("could not connect to 'broken'")


def test_a_connect_closes_the_connection_it_replaces_and_takes_its_place_at_once(journal):
    async def scenario(person):
        old = await nb_elicit.connect("demo", demo_command(journal))
        connecting = asyncio.create_task(nb_elicit.connect("demo", demo_command(journal)))
        await asyncio.sleep(0)
        new = nb_elicit.connections["demo"]
        seen = new is not old, new.status, old.status
        await connecting
        return seen, new.status, (await new.call_tool("hello")).text

    seen, status, text = drive(scenario)
    assert seen == (True, "connecting", "closed")
    assert status == "connected"
    assert text == "Hello, world!"
