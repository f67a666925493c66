"""Servers on the older HTTP+SSE transport: the demo server run with ``--sse PORT`` (the SDK's
SSE server), reached with ``connect(name, sse=URL)`` and by name from a config whose entry says
``"type": "sse"``; an elicitation is answered on it as on streamable HTTP."""

from __future__ import annotations

import json

import pytest
from helpers.servers import drive

import nb_elicit
from nb_elicit._core.types import SseTarget

pytestmark = [pytest.mark.timeout(120)]

CONTACT = {"name": "Ada Lovelace", "email": "ada@example.com", "age": 36}


def test_an_elicitation_is_answered_over_sse(sse_demo, journal, views):
    async def scenario(person):
        person.will("accept", CONTACT)
        conn = await nb_elicit.connect("old", sse=sse_demo)
        assert isinstance(conn.target, SseTarget)
        result = await conn.call_tool("contact_info")
        return conn.server_name, json.loads(result.text)

    server, received = drive(scenario)
    assert server == "nb-elicit-demo"
    assert received == {"action": "accept", "content": CONTACT}
    assert [(e["action"], e["content"]) for e in journal.entries() if "action" in e] == [
        ("accept", CONTACT)]


def test_by_name_from_a_config_whose_type_is_sse(sse_demo, journal, views, tmp_path,
                                                 monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"legacy": {
        "type": "sse", "url": sse_demo, "headers": {"X-Token": "${env:NB_TEST_TOKEN}"}}}}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("NB_TEST_TOKEN", "t0k3n-sse")
    monkeypatch.setenv("NB_ELICIT_TRUST", "legacy")  # (a project file: see tests/test_trust.py)

    async def scenario(person):
        person.will("decline")
        conn = await nb_elicit.connect("legacy")
        assert "t0k3n-sse" not in repr(conn.target)
        assert conn.target.headers == {"X-Token": "t0k3n-sse"}
        return (await conn.call_tool("github_username")).text

    assert drive(scenario) == "No username: you chose decline."
    assert [e["action"] for e in journal.entries() if "action" in e] == ["decline"]


def test_the_magic_takes_sse(sse_demo, journal):
    from nb_elicit._magics.options import parse_connect

    options = parse_connect(f"old --sse {sse_demo}")
    assert (options.sse, options.url, options.command) == (sse_demo, None, None)
