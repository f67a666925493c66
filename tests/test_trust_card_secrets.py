"""What the trust card and ``%mcp servers`` show of an entry's own credentials: a token written
into the URL or the command line is masked by the one rule for them (``redact_url``,
``redact_argv``), while ``${env:...}`` and ``${input:...}`` stay as written, so the person sees
which of their secrets goes where. Widgets without a kernel; HOME, the user-config locations
and the Jupyter data directory are temporary.
"""

from __future__ import annotations

import json

import pytest
from helpers.trust_world import card_says, make_world

from nb_elicit._core.configs.servers import find_server
from nb_elicit._core.configs.trust import shown
from nb_elicit._core.secrets.masking import MASK

PATH_TOKEN = "8f3kJ2mQ9xLp4R7tZ1vB"
QUERY_KEY = "abc123XYZ789secret"
ARG_KEY = "sk-live-abcdef123456"
LITERALS = (PATH_TOKEN, QUERY_KEY, ARG_KEY, "hunter22")


@pytest.fixture
def world(tmp_path, monkeypatch):
    return make_world(tmp_path, monkeypatch)


ENTRIES = {
    "remote": {"url": f"https://mcp.example.com/s/{PATH_TOKEN}/mcp?api_key={QUERY_KEY}"
                      "&user=${input:user}&mode=fast",
               "headers": {"X-Team": "${env:TEAM}"}},
    "refs": {"url": "https://mcp.example.com/s/${input:slug}/mcp?api_key=${env:MCP_KEY}"},
    "local": {"command": "npx", "args": [
        "-y", "@x/server", "--api-key", ARG_KEY, "--token=${env:GH_TOKEN}", "--password",
        "hunter22", "--key-file", "${env:KEY_FILE}",
        f"--url=https://h.example/mcp?access_token={QUERY_KEY}", "Authorization: Bearer "
        "${env:GH_TOKEN}", "--name", "my server"]},
}


def write_entries(world):
    world("repo/.mcp.json", {"mcpServers": ENTRIES})


def card(name: str):
    from nb_elicit._ui.trust_card import TrustCard

    return TrustCard(find_server(name))


def test_the_card_masks_a_token_written_into_the_url_and_keeps_its_references(world):
    write_entries(world)
    remote, refs = card("remote"), card("refs")
    url = f"https://mcp.example.com/s/{MASK}/mcp?api_key={MASK}&user=${{input:user}}&mode=fast"
    assert ("URL", url, True) in remote.facts()
    assert ("headers to mcp.example.com", "X-Team: ${env:TEAM}", True) in remote.facts()
    assert ("URL", "https://mcp.example.com/s/${input:slug}/mcp?api_key=${env:MCP_KEY}",
            True) in refs.facts()
    for each in (remote, refs):
        said = card_says(each) + each.text() + json.dumps(each._repr_mimebundle_(), default=str)
        assert not [literal for literal in LITERALS if literal in said]
    assert url in remote._repr_mimebundle_()["text/plain"]


def test_the_card_masks_a_secret_argument_and_keeps_its_references(world):
    write_entries(world)
    local = card("local")
    facts = dict((label, value) for label, value, _ in local.facts())
    assert facts["command"].startswith(f"npx -y @x/server --api-key {MASK} ")  # (as it runs)
    command = facts["as written"]
    assert command == (
        f"npx -y @x/server --api-key {MASK} --token=${{env:GH_TOKEN}} --password {MASK} "
        f"--key-file ${{env:KEY_FILE}} '--url=https://h.example/mcp?access_token={MASK}' "
        "'Authorization: Bearer ${env:GH_TOKEN}' --name 'my server'")
    said = card_says(local) + json.dumps(local._repr_mimebundle_(), default=str)
    assert not [literal for literal in LITERALS if literal in said]
    assert f"as written: {command}" in card_says(local)


def test_a_default_written_into_a_reference_is_masked_in_the_command_line(world):
    world("repo/.mcp.json", {"mcpServers": {"s": {
        "command": "srv", "args": ["--level", "${LOG_LEVEL:-debug}", "--api-key",
                                   "${API_KEY:-sk-live-abcdef123456}"]}}})
    assert shown(find_server("s")).command == (
        f"srv --level ${{LOG_LEVEL:-{MASK}}} --api-key ${{API_KEY:-{MASK}}}")


def test_percent_mcp_servers_shows_the_url_and_command_line_by_the_same_rule(world):
    from nb_elicit._magics import handlers

    write_entries(world)
    table = handlers.servers(None, "")
    targets = {row[0]: row[4] for row in table.rows}
    assert targets == {name: shown(find_server(name)).target for name in ENTRIES}
    assert targets["refs"] == "https://mcp.example.com/s/${input:slug}/mcp?api_key=${env:MCP_KEY}"
    assert targets["remote"].startswith(f"https://mcp.example.com/s/{MASK}/mcp?api_key={MASK}&")
    assert f"--api-key {MASK} --token=${{env:GH_TOKEN}}" in targets["local"]
    for text in (repr(table), table._repr_html_()):
        assert not [literal for literal in LITERALS if literal in text]


def test_a_host_named_by_a_variable_is_shown_as_written(world):
    world("repo/.mcp.json", {"mcpServers": {"v": {
        "url": "https://${env:MCP_HOST}:8443/mcp",
        "headers": {"Authorization": "Bearer ${env:GH_TOKEN}"}}}})
    facts = card("v").facts()
    assert ("URL", "https://${env:MCP_HOST}:8443/mcp", True) in facts
    assert ("headers to ${env:MCP_HOST}:8443", "Authorization: Bearer ${env:GH_TOKEN}",
            True) in facts
