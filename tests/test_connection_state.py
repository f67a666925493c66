"""A connection's state (connecting, ready, disconnected, closed) and what changes it.

Real servers over stdio: the hostile test server crashes on request, and a connection that lost
its server starts it again on the next call.
"""

import asyncio
import html
import json

import pytest
from helpers.servers import demo_command, drive, hostile_command

import nb_elicit
from nb_elicit._core.history import HISTORY

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
        await asyncio.sleep(0.3)  # a withdrawal is told from a disconnection a moment later
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
    assert HISTORY.entries[-1].how == "withdrawn"


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
