"""MCP config files people already have: both dialects, every variable form, the search order,
bad files refused in one exact line, unknown keys warned about, inputs never shown; and
connecting by name to a real server (inputs from the environment, as in headless runs).

Every test points HOME and the user-config locations at a temporary folder: the real user's
config files are never read.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import pytest
from helpers.servers import SERVERS, drive
from IPython.core.error import UsageError

import nb_elicit
from nb_elicit._core.configs.filecheck import ConfigWarning
from nb_elicit._core.configs.servers import (
    Place,
    expand,
    find_server,
    input_env_name,
    inputs_needed,
    load,
    places,
)
from nb_elicit._core.errors import ConfigError
from nb_elicit._magics.options import parse_connect

SECRET = "s3cr3t-Value-42"


@pytest.fixture
def world(tmp_path, monkeypatch):
    """home/ with a repository home/repo (holding .git) and a notebook folder repo/nb/sub; the
    kernel's cwd is that folder. Returns a function that writes a file under home/."""
    home = tmp_path / "home"
    notebook = home / "repo" / "nb" / "sub"
    notebook.mkdir(parents=True)
    (home / "repo" / ".git").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("APPDATA", str(home / "AppData"))
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))  # (consents: tests/test_trust)
    monkeypatch.delenv("NB_ELICIT_TRUST", raising=False)
    monkeypatch.chdir(notebook)
    for name in list(os.environ):
        if name.startswith("NB_ELICIT_INPUT_"):
            monkeypatch.delenv(name)

    def write(relative: str, document) -> Path:
        path = home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        text = document if isinstance(document, str) else json.dumps(document)
        path.write_text(text, encoding="utf-8")
        return path

    write.home = home
    write.notebook = notebook
    return write


def place(path: Path, workspace: Path | None = None, settings: bool = False) -> Place:
    return Place(path, path.name, workspace or path.parent, settings=settings)


# -- each format, as its documentation shows it ------------------------------------------------

VSCODE = {  # VS Code: .vscode/mcp.json (servers, inputs, type)
    "inputs": [{"type": "promptString", "id": "perplexity-key",
                "description": "Perplexity API Key", "password": True}],
    "servers": {
        "Perplexity": {"type": "stdio", "command": "npx", "args": ["-y", "server-perplexity-ask"],
                       "env": {"PERPLEXITY_API_KEY": "${input:perplexity-key}"}},
        "fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"]},
        "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"},
        "legacy": {"type": "sse", "url": "http://localhost:8931/events"},
        "node": {"type": "stdio", "command": "node", "args": ["${workspaceFolder}/server.js"],
                 "envFile": "${workspaceFolder}/.env"},
    },
}
CLAUDE_CODE = {  # Claude Code: .mcp.json (mcpServers, ${VAR} and ${VAR:-default})
    "mcpServers": {
        "shared-server": {"command": "/path/to/server", "args": [], "env": {}},
        "api-server": {"type": "http", "url": "${API_BASE_URL:-https://api.example.com}/mcp",
                       "headers": {"Authorization": "Bearer ${API_KEY}"}},
    },
}
CURSOR = {  # Cursor: .cursor/mcp.json and ~/.cursor/mcp.json (type inferred)
    "mcpServers": {
        "server-name": {"command": "npx", "args": ["-y", "mcp-server"],
                        "env": {"API_KEY": "${env:CURSOR_KEY}"}},
        "remote": {"url": "http://localhost:3000/mcp", "headers": {"API_KEY": "value"}},
        "old-remote": {"url": "http://localhost:3001/sse"},
    },
}
CLAUDE_DESKTOP = {  # claude_desktop_config.json: servers among the app's other settings
    "mcpServers": {"filesystem": {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-filesystem", "${userHome}/Desktop"]}},
    "globalShortcut": "Ctrl+Space",
}
JUPYTER_AI = {  # Jupyter AI: .jupyter/mcp/config.json
    "mcpServers": {"jupyter": {"command": "uvx", "args": ["jupyter-mcp-server"],
                               "env": {"PORT": 8888}},
                   "hub": {"type": "streamable-http", "url": "http://127.0.0.1:8888/mcp"}},
}


def test_vscode_file(world):
    path = world("repo/.vscode/mcp.json", VSCODE)
    world("repo/.env", "# comment\nexport DEBUG=1\nNAME='quoted value'\n")
    servers = load(place(path, workspace=path.parent.parent))
    assert [(s.name, s.key, s.transport) for s in servers] == [
        ("Perplexity", "servers.Perplexity", "stdio"), ("fetch", "servers.fetch", "stdio"),
        ("github", "servers.github", "http"), ("legacy", "servers.legacy", "sse"),
        ("node", "servers.node", "stdio")]
    perplexity = servers[0]
    assert [spec.id for spec in inputs_needed(perplexity)] == ["perplexity-key"]
    assert inputs_needed(perplexity)[0].password is True
    resolved = expand(perplexity, {"perplexity-key": SECRET}, environ={})
    assert resolved.command == ("npx", "-y", "server-perplexity-ask")
    assert resolved.env == {"PERPLEXITY_API_KEY": SECRET}
    assert resolved.cwd == str(world.home / "repo")  # a project server runs in its workspace
    assert SECRET not in repr(resolved) and SECRET not in repr(perplexity)
    node = expand(servers[4], environ={})
    assert node.command == ("node", f"{world.home / 'repo'}/server.js")
    assert node.env == {"DEBUG": "1", "NAME": "quoted value"}
    github = expand(servers[2], environ={})
    assert (github.transport, github.url) == ("http", "https://api.githubcopilot.com/mcp/")


def test_claude_code_file(world):
    servers = load(place(world("repo/.mcp.json", CLAUDE_CODE)))
    assert [(s.name, s.key, s.transport) for s in servers] == [
        ("shared-server", "mcpServers.shared-server", "stdio"),
        ("api-server", "mcpServers.api-server", "http")]
    api = expand(servers[1], environ={"API_KEY": "k"})
    assert api.url == "https://api.example.com/mcp"
    assert api.headers == {"Authorization": "Bearer k"}
    api = expand(servers[1], environ={"API_KEY": "k", "API_BASE_URL": "http://local"})
    assert api.url == "http://local/mcp"
    with pytest.raises(ConfigError) as error:
        expand(servers[1], environ={})
    assert str(error.value) == (".mcp.json: mcpServers.api-server.headers.Authorization: the "
                                "environment variable API_KEY is not set (give a default: "
                                "${API_KEY:-value})")


def test_cursor_file(world):
    servers = load(place(world("repo/.cursor/mcp.json", CURSOR),
                         workspace=world.home / "repo"))
    assert [(s.name, s.transport) for s in servers] == [
        ("server-name", "stdio"), ("remote", "http"), ("old-remote", "sse")]
    assert expand(servers[0], environ={"CURSOR_KEY": "c"}).env == {"API_KEY": "c"}
    assert expand(servers[0], environ={}).env == {"API_KEY": ""}  # ${env:...} unset: empty


def test_claude_desktop_file_keeps_quiet_about_the_apps_other_settings(world, recwarn):
    path = world(".config/Claude/claude_desktop_config.json", CLAUDE_DESKTOP)
    (server,) = load(place(path, settings=True))
    assert expand(server, environ={}, home="/home/ada").command == (
        "npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/ada/Desktop")
    assert [w for w in recwarn if issubclass(w.category, ConfigWarning)] == []


def test_jupyter_ai_file(world):
    path = world("repo/.jupyter/mcp/config.json", JUPYTER_AI)
    jupyter, hub = load(place(path, workspace=world.home / "repo"))
    assert expand(jupyter, environ={}).env == {"PORT": "8888"}  # numbers, as VS Code takes them
    assert (hub.transport, expand(hub, environ={}).url) == ("http", "http://127.0.0.1:8888/mcp")


# -- variables ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("${env:COLOR}", "blue"),
    ("${env:NOT_SET}", ""),
    ("${COLOR}", "blue"),
    ("${COLOR:-red}", "blue"),
    ("${NOT_SET:-red}", "red"),
    ("${NOT_SET:-}", ""),
    ("${workspaceFolder}/x", "{workspace}/x"),
    ("${workspaceFolderBasename}", "repo"),
    ("${userHome}", "{home}"),
    ("a${/}b${pathSeparator}c", f"a{os.sep}b{os.sep}c"),
    ("--key=${input:key}", f"--key={SECRET}"),
    ("${env:NB_ELICIT_PYTHON}", sys.executable),
    ("$COLOR and ${COLOR}", "$COLOR and blue"),
])
def test_every_variable_form(world, text, expected):
    path = world("repo/.vscode/mcp.json", {
        "inputs": [{"type": "promptString", "id": "key"}],
        "servers": {"s": {"type": "stdio", "command": "run", "args": [text]}}})
    (server,) = load(place(path, workspace=world.home / "repo"))
    resolved = expand(server, {"key": SECRET}, environ={"COLOR": "blue"}, home=world.home)
    assert resolved.command[1] == expected.format(workspace=world.home / "repo", home=world.home)


def test_nb_elicit_python_can_be_set_in_the_environment(world):
    path = world("repo/.mcp.json", {"mcpServers": {"s": {"command": "${env:NB_ELICIT_PYTHON}"}}})
    (server,) = load(place(path))
    assert expand(server, environ={"NB_ELICIT_PYTHON": "/opt/py"}).command == ("/opt/py",)


@pytest.mark.parametrize(("document", "message"), [
    ({"servers": {"s": {"command": "run", "args": ["${config:editor.fontSize}"]}}},
     "mcp.json: servers.s.args[0]: unknown variable ${config:editor.fontSize}; expected "
     "env:VAR, VAR, VAR:-default, workspaceFolder, userHome or input:ID"),
    ({"servers": {"s": {"command": "run", "env": {"K": "${input:nope}"}}}},
     "mcp.json: servers.s.env.K: expected an input with id 'nope' in \"inputs\""),
    ({"inputs": [{"type": "command", "id": "pick", "command": "shellCommand.execute"}],
      "servers": {"s": {"command": "run", "args": ["${input:pick}"]}}},
     "mcp.json: servers.s.args[0]: the input 'pick' runs a VS Code command; expected a "
     "promptString or pickString input"),
])
def test_variables_nb_elicit_cannot_expand(world, document, message):
    (server,) = load(place(world("mcp.json", document)))
    with pytest.raises(ConfigError) as error:
        inputs_needed(server)
        expand(server, {}, environ={})
    assert str(error.value) == message


def test_input_env_names():
    assert input_env_name("perplexity-key") == "NB_ELICIT_INPUT_PERPLEXITY_KEY"
    assert input_env_name("db.password") == "NB_ELICIT_INPUT_DB_PASSWORD"


# -- the search order --------------------------------------------------------------------------

def test_the_search_order(world):
    home = world.home
    shown = [p.shown for p in places(platform="linux") if not p.path.name.startswith("config")]
    assert shown == [
        ".vscode/mcp.json", ".mcp.json", ".cursor/mcp.json",  # the notebook's folder
        "../.vscode/mcp.json", "../.mcp.json", "../.cursor/mcp.json",  # its parent
        "../../.vscode/mcp.json", "../../.mcp.json", "../../.cursor/mcp.json",  # the repository
        "~/.cursor/mcp.json", "~/.config/Claude/claude_desktop_config.json",
        "~/.config/Code/User/mcp.json"]
    mac = [p.shown for p in places(platform="darwin") if not p.project]
    assert mac[1:] == ["~/Library/Application Support/Claude/claude_desktop_config.json",
                       "~/Library/Application Support/Code/User/mcp.json"]
    windows = [p.shown for p in places(platform="win32") if not p.project]
    assert windows[1:] == ["~/AppData/Claude/claude_desktop_config.json",
                           "~/AppData/Code/User/mcp.json"]
    assert all(p.path.is_relative_to(home) for p in places())


def stdio(command: str) -> dict:
    return {"command": command}


def test_first_hit_wins_from_the_notebook_up_then_the_user_files(world):
    world(".cursor/mcp.json", {"mcpServers": {"demo": stdio("user-cursor"),
                                              "only-user": stdio("u")}})
    world(".config/Claude/claude_desktop_config.json", {"mcpServers": {"desk": stdio("d")}})
    world(".config/Code/User/mcp.json", {"servers": {"code": stdio("c")}})
    world("repo/.cursor/mcp.json", {"mcpServers": {"demo": stdio("repo-cursor")}})
    world("repo/nb/.mcp.json", {"mcpServers": {"demo": stdio("nb-claude")}})
    world("repo/nb/sub/.cursor/mcp.json", {"mcpServers": {"demo": stdio("here-cursor")}})
    assert expand(find_server("demo")).command == ("here-cursor",)
    world("repo/nb/sub/.mcp.json", {"mcpServers": {"demo": stdio("here-claude")}})
    assert expand(find_server("demo")).command == ("here-claude",)
    world("repo/nb/sub/.vscode/mcp.json", {"servers": {"demo": stdio("here-vscode")}})
    assert expand(find_server("demo")).command == ("here-vscode",)
    assert find_server("only-user").file == "~/.cursor/mcp.json"
    assert find_server("desk").file == "~/.config/Claude/claude_desktop_config.json"
    assert find_server("code").file == "~/.config/Code/User/mcp.json"
    listed = [(s.name, s.file, s.active) for s in nb_elicit.configured_servers()]
    assert listed == [
        ("demo", ".vscode/mcp.json", True), ("demo", ".mcp.json", False),
        ("demo", ".cursor/mcp.json", False), ("demo", "../.mcp.json", False),
        ("demo", "../../.cursor/mcp.json", False), ("demo", "~/.cursor/mcp.json", False),
        ("only-user", "~/.cursor/mcp.json", True),
        ("desk", "~/.config/Claude/claude_desktop_config.json", True),
        ("code", "~/.config/Code/User/mcp.json", True)]


def test_the_search_stops_at_the_repository_root_and_before_home(world, monkeypatch):
    world(".mcp.json", {"mcpServers": {"in-home": stdio("h")}})
    world("outer/.mcp.json", {"mcpServers": {"above-repo": stdio("a")}})
    world("outer/repo2/.git/HEAD", "ref")
    world("outer/repo2/nb/x.txt", "")
    monkeypatch.chdir(world.home / "outer" / "repo2" / "nb")
    with pytest.raises(ConfigError) as error:
        find_server("above-repo")
    assert str(error.value) == ("no server named 'above-repo' in the MCP config files (there "
                                "are none here, nor in the user's)")
    monkeypatch.chdir(world.home / "outer")  # no repository: up to, not into, home
    assert find_server("above-repo").file == ".mcp.json"
    with pytest.raises(ConfigError, match="no server named 'in-home'"):
        find_server("in-home")


def test_an_explicit_config_file_is_the_only_one_read(world):
    world("repo/nb/sub/.mcp.json", {"mcpServers": {"demo": stdio("here")}})
    other = world("elsewhere/.vscode/mcp.json", {"servers": {"demo": {
        "command": "there", "args": ["${workspaceFolder}"]}}})
    server = find_server("demo", config=other)
    assert expand(server).command == ("there", str(world.home / "elsewhere"))
    with pytest.raises(ConfigError) as error:
        find_server("nothing", config=other)
    assert str(error.value) == f"{other}: no server named 'nothing'"


# -- bad files: one line each, exactly ------------------------------------------------------

#: A config with a trailing comma.
NOT_JSON = '{"servers": {"db": {"command": "x",}}}'


def _json_error(text: str) -> str:
    """Python's own words for why ``text`` is not JSON (its column differs between versions)."""
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        return f"{error.msg} at line {error.lineno}, column {error.colno}"
    raise AssertionError(f"{text!r} is JSON")


@pytest.mark.parametrize(("text", "message"), [
    ('{"servers": {"db": {"command": "x", "args": ["a", "b", 3]}}}',
     ".vscode/mcp.json: servers.db.args[2]: expected a string"),
    ('{"servers": {"db": {"command": ["python"]}}}',
     ".vscode/mcp.json: servers.db.command: expected a string"),
    ('{"servers": {"db": {"type": "websocket", "url": "ws://x"}}}',
     ".vscode/mcp.json: servers.db.type: expected 'stdio', 'http', 'streamable-http' or 'sse'"),
    ('{"servers": {"db": {"command": "x", "env": ["A=1"]}}}',
     ".vscode/mcp.json: servers.db.env: expected an object"),
    ('{"servers": {"db": {"command": "x", "env": {"A": true}}}}',
     ".vscode/mcp.json: servers.db.env.A: expected a string"),
    ('{"servers": {"db": {"url": "http://x", "headers": {"X-Key": 1}}}}',
     ".vscode/mcp.json: servers.db.headers.X-Key: expected a string"),
    ('{"servers": {"my db": {"command": 1, "args": "a"}}}',
     '.vscode/mcp.json: servers["my db"].command: expected a string (and 1 more problem)'),
    ('{"servers": []}', ".vscode/mcp.json: servers: expected an object"),
    ('{"servers": {"db": "python server.py"}}', ".vscode/mcp.json: servers.db: expected an "
                                                "object"),
    ('[]', ".vscode/mcp.json: the file: expected an object"),
    ('{"inputs": [{"id": "k"}], "servers": {}}',
     ".vscode/mcp.json: inputs[0].type: missing (it is required)"),
    ('{"inputs": [{"type": "promptString", "id": "k", "password": "yes"}]}',
     ".vscode/mcp.json: inputs[0].password: expected true or false"),
    ('{"servers": {"db": {}}}',
     '.vscode/mcp.json: servers.db: expected "command" (a stdio server) or "url" (an HTTP '
     'server)'),
    ('{"servers": {"db": {"type": "stdio", "url": "http://x"}}}',
     '.vscode/mcp.json: servers.db: a stdio server needs "command"'),
    ('{"servers": {"db": {"type": "sse", "command": "x"}}}',
     '.vscode/mcp.json: servers.db: a server of type sse needs "url"'),
    ('{"servers": {"db": {"command": "x", "url": "http://x"}}}',
     '.vscode/mcp.json: servers.db: has both "command" and "url"; expected one of them'),
    (NOT_JSON, ".vscode/mcp.json: not JSON (" + _json_error(NOT_JSON) + ")"),
])
def test_a_bad_file_is_refused_in_one_exact_line(world, text, message):
    world("repo/nb/sub/.vscode/mcp.json", text)
    with pytest.raises(ConfigError) as error:
        find_server("db")
    assert str(error.value) == message


def test_an_env_file_that_is_missing_or_wrong(world):
    path = world("repo/.vscode/mcp.json", {"servers": {"s": {"command": "x", "envFile": ".env"}}})
    (server,) = load(place(path, workspace=world.home / "repo"))
    with pytest.raises(ConfigError) as error:
        expand(server, environ={})
    assert str(error.value) == "mcp.json: servers.s.envFile: no such file"
    world("repo/.env", "GOOD=1\nthis line is wrong\n")
    with pytest.raises(ConfigError) as error:
        expand(server, environ={})
    assert str(error.value) == ("mcp.json: servers.s.envFile: line 2 of the env file: expected "
                                "KEY=VALUE")
    assert "GOOD" not in str(error.value)


def test_a_message_never_quotes_a_value(world):
    world("repo/nb/sub/.mcp.json", json.dumps({"mcpServers": {"db": {
        "command": "x", "env": {"TOKEN": ["do-not-show-me"]}}}}))
    with pytest.raises(ConfigError) as error:
        find_server("db")
    assert "do-not-show-me" not in str(error.value)


def test_unknown_keys_are_warnings_not_errors(world):
    world("repo/nb/sub/.vscode/mcp.json", {
        "servers": {"db": {"command": "x", "disabled": True, "autoApprove": []}},
        "inputs": [{"type": "promptString", "id": "k", "placeholder": "..."}],
        "extra": 1})
    with pytest.warns(ConfigWarning) as caught:
        server = find_server("db")
    assert server.transport == "stdio"
    assert [str(w.message) for w in caught] == [
        ".vscode/mcp.json: extra: unknown key, ignored",
        ".vscode/mcp.json: servers.db.disabled: unknown key, ignored",
        ".vscode/mcp.json: servers.db.autoApprove: unknown key, ignored",
        ".vscode/mcp.json: inputs[0].placeholder: unknown key, ignored"]


# -- %mcp connect NAME, %mcp servers -----------------------------------------------------------

def test_connect_by_name_parses(world):
    assert parse_connect("demo").name == "demo"
    options = parse_connect("--config .vscode/mcp.json demo")
    assert (options.name, options.config, options.command, options.url) == (
        "demo", ".vscode/mcp.json", None, None)
    sse = parse_connect("old --sse http://127.0.0.1:1/sse --header 'A: b'")
    assert (sse.sse, sse.headers) == ("http://127.0.0.1:1/sse", {"A": "b"})
    for line, message in [
        ("demo --config x -- cmd", "give one of a command, --url, --sse or --config"),
        ("demo --url http://x --sse http://y", "give one of a command, --url, --sse"),
        ("demo --env A=1", "--env and --cwd are for stdio commands"),
        ("demo --header 'A: b'", "--header is for --url and --sse servers"),
        ("--config x", "%mcp connect needs a name"),
    ]:
        with pytest.raises(UsageError, match=message.replace("(", r"\(")):
            parse_connect(line)


def test_percent_mcp_servers_lists_name_file_key_transport_and_status(world):
    from nb_elicit._magics import handlers

    world("repo/.vscode/mcp.json", VSCODE)
    world("repo/nb/sub/.mcp.json", {"mcpServers": {"fetch": stdio("x")}})
    table = handlers.servers(None, "")
    assert table.headers == ["name", "file", "key", "transport", "command or URL", "trust",
                             "connected"]
    assert table.rows[0] == ["fetch", ".mcp.json", "mcpServers.fetch", "stdio", "x",
                             "project: not trusted", "no"]
    assert ["fetch", "../../.vscode/mcp.json", "servers.fetch", "stdio", "uvx mcp-server-fetch",
            "project: not trusted", "no (an earlier file has this name)"] in table.rows
    assert ["legacy", "../../.vscode/mcp.json", "servers.legacy", "sse",
            "http://localhost:8931/events", "project: not trusted", "no"] in table.rows
    assert SECRET not in repr(table) and "perplexity-key" not in repr(table)


def test_percent_mcp_servers_says_what_is_wrong(world):
    from nb_elicit._magics import handlers
    from nb_elicit._magics.errors import map_exceptions

    world("repo/.mcp.json", '{"mcpServers": {"a": {"args": "x"}}}')
    with pytest.raises(UsageError) as error, map_exceptions():  # (the magic's error boundary)
        handlers.servers(None, "")
    assert str(error.value) == "../../.mcp.json: mcpServers.a.args: expected a list"


# -- connecting by name to a real server -------------------------------------------------------

def env_server_config(extra_env: dict | None = None) -> dict:
    return {
        "inputs": [{"type": "promptString", "id": "db-password", "description": "Database "
                    "password", "password": True}],
        "servers": {"envy": {
            "type": "stdio", "command": "${env:NB_ELICIT_PYTHON}",
            "args": [str(SERVERS / "env_server.py")],
            "env": {"GREETING": "${env:NB_TEST_GREETING}", "DB_PASSWORD": "${input:db-password}",
                    **(extra_env or {})}}}}


def test_connect_by_name_with_an_input_from_the_environment(world, monkeypatch):
    world("repo/.vscode/mcp.json", env_server_config())
    monkeypatch.setenv("NB_ELICIT_TRUST", "envy")  # (a project file: see tests/test_trust.py)
    monkeypatch.setenv("NB_TEST_GREETING", "hello from the kernel")
    monkeypatch.setenv("NB_ELICIT_INPUT_DB_PASSWORD", SECRET)

    async def scenario(person):
        conn = await nb_elicit.connect("envy")
        assert SECRET not in repr(conn) and SECRET not in repr(conn.target)
        greeting = (await conn.call_tool("getenv", {"name": "GREETING"})).text
        digest = (await conn.call_tool("digest", {"name": "DB_PASSWORD"})).text
        cwd = (await conn.call_tool("cwd")).text
        return greeting, digest, cwd

    greeting, digest, cwd = drive(scenario)
    assert greeting == "hello from the kernel"
    assert digest == hashlib.sha256(SECRET.encode()).hexdigest()
    assert Path(cwd) == world.home / "repo"


def test_a_missing_input_names_its_environment_variable(world, monkeypatch):
    world("repo/.vscode/mcp.json", env_server_config())
    monkeypatch.setenv("NB_ELICIT_TRUST", "envy")

    async def scenario(person):
        with pytest.raises(nb_elicit.ConnectError) as error:
            await nb_elicit.connect("envy")
        return str(error.value)

    assert drive(scenario) == (
        "'envy' needs the input 'db-password' of ../../.vscode/mcp.json, and no widget "
        "frontend is attached to ask for it: set NB_ELICIT_INPUT_DB_PASSWORD in the kernel's "
        "environment")


def test_a_failed_connect_hides_the_input(world, monkeypatch):
    config = env_server_config()
    config["servers"]["envy"]["args"] = ["-c", "import sys; sys.exit(3)", "${input:db-password}"]
    world("repo/.vscode/mcp.json", config)
    monkeypatch.setenv("NB_ELICIT_INPUT_DB_PASSWORD", SECRET)
    monkeypatch.setenv("NB_ELICIT_TRUST", "envy")

    async def scenario(person):
        with pytest.raises(nb_elicit.ConnectError) as error:
            await nb_elicit.connect("envy")
        return str(error.value)

    message = drive(scenario)
    assert "could not connect to 'envy'" in message and "••••••" in message
    assert SECRET not in message


def test_connect_checks_its_arguments_first():
    async def scenario(person):
        with pytest.raises(ValueError, match="give one of command"):
            await nb_elicit.connect("x", ["a"], config="y.json")
        with pytest.raises(ValueError, match="come from the config file"):
            await nb_elicit.connect("x", env={"A": "1"})

    drive(scenario)
