"""The %mcp magic through IPython's test shell (a real, in-process InteractiveShell)."""

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest
from helpers.servers import SERVERS, Journal, demo_command
from IPython.core.error import UsageError
from IPython.testing import globalipapp

import nb_elicit
from nb_elicit._magics import _complete
from nb_elicit._runtime.state import kernel_state

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def ip():
    globalipapp.start_ipython()
    shell = globalipapp.get_ipython()
    shell.run_line_magic("load_ext", "nb_elicit")
    yield shell
    shell.run_line_magic("unload_ext", "nb_elicit")


def run(ip, cell: str):
    """Run a cell; return its result, raising what it raised."""
    result = ip.run_cell(cell)
    if result.error_before_exec or result.error_in_exec:
        raise result.error_before_exec or result.error_in_exec
    return result.result


@pytest.mark.parametrize(("cell", "message"), [
    ("%mcp", "%mcp needs a subcommand; see %mcp help"),
    ("%mcp frobnicate", "unknown subcommand 'frobnicate'; use one of: connect, list"),
    ("%mcp tools", "%mcp tools needs a connection name: %mcp tools NAME"),
    ("%mcp call", "%mcp call needs a connection name: %mcp call NAME TOOL [JSON-ARGS]"),
    ("%mcp call demo", "%mcp call needs a tool name: %mcp call demo TOOL [JSON-ARGS]"),
    ("%mcp call nope hello", "no connection named 'nope' (connections: none yet); make one with "
                             "%mcp connect nope -- COMMAND"),
    ("%mcp call demo hello {bad", "the arguments are not valid JSON (Expecting property name "
                                  "enclosed in double quotes at column 2)"),
    ("%mcp call demo hello [1]", "the arguments must be a JSON object"),
    ("%mcp call demo hello '{bad}'", "drop the quotes around them and write one JSON object"),
    ("%mcp cal demo x", "unknown subcommand 'cal'; did you mean call? (%mcp help lists them "
                        "all)"),
    ("%mcp tols demo", "did you mean tools?"),
    ("%mcp connect", "%mcp connect needs a name"),
    ("%mcp connect demo --config /no/such/mcp.json", "/no/such/mcp.json: no such file"),
    ("%mcp connect demo --", "nothing after --"),
    ("%mcp connect demo --bogus 1 -- x", "unknown option --bogus for %mcp connect"),
    ("%mcp connect demo --url http://x -- cmd", "give one of a command, --url, --sse or "
                                                "--config: %mcp connect demo -- COMMAND"),
    ("%mcp connect demo --header 'X: 1' -- cmd", "--header is for --url and --sse servers"),
    ("%mcp connect demo --env NOEQUALS -- cmd", "cannot read 'NOEQUALS'; write it like --env "
                                                "KEY=VALUE"),
    ("%mcp connect nope -- /no/such/server", "could not connect to 'nope' (/no/such/server): "
                                             "command not found: /no/such/server"),
    ("%mcp respond maybe", "unknown policy 'maybe': use one of ask, accept, decline, cancel"),
    ("%mcp respond demo accept {oops", "accept needs a JSON object"),
    ("%mcp log nope", "no connection named 'nope'"),
    ("%mcp mute nope", "no connection named 'nope'"),
    ("%mcp replay /no/such/answers.json", "no recording at /no/such/answers.json"),
    ("%mcp language fr", "unknown language 'fr': use en, zh or auto"),
    ("%mcp limit", "%mcp limit needs a connection name: %mcp limit NAME"),
    ("%mcp connect d --rate-limit lots -- x", "unreadable rate limit 'lots'"),
    ("%mcp connect d --secret-forms maybe -- x", "--secret-forms takes warn or refuse"),
])
def test_usage_errors_say_what_to_type(ip, cell, message):
    with pytest.raises(UsageError) as caught:
        run(ip, cell)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_help_lists_every_subcommand(ip):
    text = repr(run(ip, "%mcp help"))
    for sub in ("connect", "list", "tools", "prompts", "resources", "call", "disconnect",
                "respond", "history", "record", "replay", "language", "mute", "unmute",
                "limit", "log", "tasks", "task", "help"):
        assert f"%mcp {sub}" in text


def test_connect_list_tools_call_with_a_policy_and_disconnect(ip, tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    command = " ".join(demo_command(journal))
    assert "Connected 'demo': nb-elicit-demo 0.1.0" in repr(run(ip, f"%mcp connect demo -- {command}"))
    assert nb_elicit.connections["demo"].status == "connected"
    listing = repr(run(ip, "%mcp list"))
    assert "demo" in listing and "nb-elicit-demo" in listing and "2025-11-25" in listing
    tools = run(ip, "%mcp tools demo")
    assert "contact_info" in repr(tools) and "<table class=\"nb-elicit-table\"" in tools._repr_html_()
    run(ip, '%mcp respond demo accept {"name": "Ada", "email": "ada@example.com", "extra": 1}')
    assert run(ip, "%mcp call demo contact_info") is None  # the call's view shows the result
    run(ip, "%mcp respond demo decline")
    run(ip, "import nb_elicit\nr = await nb_elicit.connections['demo'].call_tool('github_username')")
    assert ip.user_ns["r"].text == "No username: you chose decline."
    assert [(e["action"], e["content"]) for e in journal.entries()] == [
        ("accept", {"name": "Ada", "email": "ada@example.com"}), ("decline", None)]
    history = repr(run(ip, "%mcp history"))
    assert "accept (policy)" in history and "decline (policy)" in history
    assert "Disconnected 'demo'." in repr(run(ip, "%mcp disconnect demo"))
    assert "demo" not in nb_elicit.connections


def test_a_mistyped_tool_is_one_line_that_points_to_the_tools_and_nothing_is_called(
        ip, tmp_path, capsys):
    journal = Journal(tmp_path / "journal.jsonl")
    run(ip, f"%mcp connect demo -- {' '.join(demo_command(journal))}")
    capsys.readouterr()
    with pytest.raises(UsageError) as caught:
        run(ip, "%mcp call demo contac_info")
    assert str(caught.value) == ("demo has no tool 'contac_info'; did you mean contact_info? "
                                 "%mcp tools demo lists them")
    with pytest.raises(UsageError) as caught:
        run(ip, "%mcp call demo nosuchtool {}")
    assert str(caught.value) == "demo has no tool 'nosuchtool'; %mcp tools demo lists them"
    captured = capsys.readouterr()
    assert "demo · nosuchtool" not in captured.out + captured.err  # (no call, no view)
    run(ip, "%mcp respond demo decline")
    run(ip, "%mcp call demo contact_info '{}'")  # (shell-style quotes: taken off)
    assert [e["action"] for e in journal.entries()] == ["decline"]


@pytest.mark.parametrize("quoted", ["'{}'", '"{}"', """'{"name": "Ada"}'""",
                                    '"{\\"name\\": \\"Ada\\"}"', ' {"name": "Ada"} '])
def test_shell_style_quotes_around_the_json_arguments_are_taken_off(quoted):
    from nb_elicit._magics.handlers import _json_arguments

    assert _json_arguments(quoted.strip(), "demo", "t") in ({}, {"name": "Ada"})


@pytest.mark.parametrize("text", ["{bad", "'{bad}'", "[1]", "'[1]'", "'{}\""])
def test_refused_json_arguments_name_no_argument_the_tool_does_not_take(text):
    from nb_elicit._magics.handlers import _json_arguments

    with pytest.raises(UsageError) as caught:
        _json_arguments(text, "demo", "contact_info")
    assert "city" not in str(caught.value) and "Oslo" not in str(caught.value)
    assert "%mcp call demo contact_info {...}" in str(caught.value)


def test_an_accept_policy_that_does_not_fit_the_form_answers_cancel(ip, tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    run(ip, f"%mcp connect demo -- {' '.join(demo_command(journal))}")
    run(ip, '%mcp respond accept {"name": "Ada", "email": "not an email"}')
    run(ip, "%mcp call demo contact_info")
    assert [e["action"] for e in journal.entries()] == ["cancel"]


def test_connect_by_url_with_headers_and_python_access(ip, http_demo):
    run(ip, f"%mcp connect remote --url {http_demo} --header 'Authorization: Bearer s3cret'")
    conn = nb_elicit.connections["remote"]
    assert conn.target.headers == {"Authorization": "Bearer s3cret"}
    run(ip, "%mcp respond remote cancel")
    run(ip, "import nb_elicit\nres = await nb_elicit.connections['remote'].call_tool('contact_info')")
    assert '"action": "cancel"' in ip.user_ns["res"].text


def test_tools_marks_the_tools_that_come_with_an_app_and_those_for_an_app_only(ip, tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    run(ip, f"%mcp connect demo -- {' '.join(demo_command(journal))}")
    tools = run(ip, "%mcp tools demo")
    assert tools.headers == ["tool", "app", "description", "input schema"]
    marks = {row[0]: row[1] for row in tools.rows}
    assert marks["clock"] == "app" and marks["clock_now"] == "app only"
    assert marks["hello"] == "" and marks["contact_info"] == ""
    assert set(marks.values()) == {"app", "app only", ""}


def test_tools_of_a_server_without_apps_has_no_app_column(ip):
    run(ip, f"%mcp connect s2 -- {sys.executable} {SERVERS / 'sdk2_server.py'}")
    tools = run(ip, "%mcp tools s2")
    assert tools.headers == ["tool", "description", "input schema"] and tools.rows


def test_apps_are_switched_per_connection_and_no_apps_connects_without(ip, tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    command = " ".join(demo_command(journal))
    run(ip, f"%mcp connect plain --no-apps -- {command}")
    run(ip, f"%mcp connect demo -- {command}")
    plain, demo = nb_elicit.connections["plain"], nb_elicit.connections["demo"]
    assert not plain.apps.enabled and demo.apps.enabled
    assert repr(run(ip, "%mcp apps plain")).startswith("MCP Apps of 'plain' are off (0 shown now)")
    assert "are on" in repr(run(ip, "%mcp apps plain on")) and plain.apps.enabled
    off = repr(run(ip, "%mcp apps demo off"))
    assert off == ("MCP Apps of 'demo' are off: its tools show their text results only. "
                   "Turn them on with %mcp apps demo on.")
    assert not demo.apps.enabled and plain.apps.enabled
    table = run(ip, "%mcp apps")
    assert table.headers == ["name", "apps", "shown now"]
    assert table.rows == [["plain", "on", "0"], ["demo", "off", "0"]]
    run(ip, "%mcp apps off")
    assert not plain.apps.enabled and not demo.apps.enabled
    run(ip, "%mcp apps ON")
    assert plain.apps.enabled and demo.apps.enabled
    with pytest.raises(UsageError, match=r"usage: %mcp apps \[NAME\] \[on\|off\]"):
        run(ip, "%mcp apps plain demo off")
    with pytest.raises(UsageError, match="no connection named 'nope'"):
        run(ip, "%mcp apps nope off")
    run(ip, "%mcp disconnect plain")
    run(ip, "%mcp disconnect demo")
    assert repr(run(ip, "%mcp apps")).startswith("No connections.")


def test_apps_off_ends_the_apps_shown_now(ip, tmp_path, monkeypatch):
    import nb_elicit._runtime.connection  # noqa: F401 - its modules keep the real check

    monkeypatch.setattr("nb_elicit._runtime.kernel_compat.widget_frontend_attached", lambda: True)
    journal = Journal(tmp_path / "journal.jsonl")
    run(ip, f"%mcp connect demo -- {' '.join(demo_command(journal))}")
    run(ip, "%mcp call demo clock")
    (app,) = nb_elicit.connections["demo"].apps.shown
    assert "(1 shown app ended)" in repr(run(ip, "%mcp apps demo off"))
    assert app.ended and nb_elicit.connections["demo"].apps.shown == []


def test_env_cwd_and_log(ip, tmp_path):
    code = ("import os, sys; print('FLAG', os.environ.get('NB_FLAG'), os.getcwd(), "
            "file=sys.stderr, flush=True); from nb_elicit.demo.server import server; "
            "server.run('stdio')")
    ip.user_ns["code"] = code
    run(ip, f'%mcp connect e --env NB_FLAG=yes --cwd {tmp_path} -- {sys.executable} -c "$code"')
    assert f"FLAG yes {tmp_path}" in repr(run(ip, "%mcp log e"))


def test_respond_shows_and_sets_the_policy(ip):
    assert "Now: ask." in repr(run(ip, "%mcp respond"))
    run(ip, "%mcp respond decline")
    assert "Now: decline." in repr(run(ip, "%mcp respond"))
    run(ip, "%mcp respond demo cancel")
    assert kernel_state().policies.for_connection("demo").action == "cancel"
    assert kernel_state().policies.for_connection("other").action == "decline"


def test_unload_closes_connections_and_waiting_forms(ip, tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    run(ip, f"%mcp connect demo -- {' '.join(demo_command(journal))}")
    conn = nb_elicit.connections["demo"]
    run(ip, "import asyncio, nb_elicit\n"
            "call = nb_elicit.connections['demo'].start_tool('contact_info')\n"
            "await asyncio.sleep(0)")
    run(ip, "import asyncio\nfrom nb_elicit._runtime.state import kernel_state\n"
            "for _ in range(200):\n    if kernel_state().pending.forms(): break\n"
            "    await asyncio.sleep(0.02)")
    (form,) = kernel_state().pending.forms()
    ip.run_line_magic("unload_ext", "nb_elicit")
    run(ip, "await asyncio.sleep(0.5)")
    # (answered cancel by nb_elicit, never left to raise a cancellation into the session)
    assert form.answer.result().action == "cancel" and "unloaded" in form.status.value
    assert form.answered_by == "closed"
    assert conn.status == "closed" and nb_elicit.connections == {}
    ip.run_line_magic("load_ext", "nb_elicit")
    assert "No connections" in repr(run(ip, "%mcp list"))


def test_reload_ext_keeps_the_magic_working(ip):
    ip.run_line_magic("reload_ext", "nb_elicit")
    assert "%mcp connect" in repr(run(ip, "%mcp help"))
    assert sum(f.__name__ == "_await_mcp_lines" for f in ip.input_transformers_post) == 1


class _Event:
    def __init__(self, line):
        self.line = line


def test_tab_completion_offers_subcommands_and_connection_names(ip, monkeypatch):
    assert "connect" in _complete(ip, _Event("%mcp "))
    assert _complete(ip, _Event("%mcp ca")) == list(_complete(ip, _Event("%mcp ")))
    monkeypatch.setitem(nb_elicit.connections, "demo", object())
    assert _complete(ip, _Event("%mcp call ")) == ["demo"]
    assert "decline" in _complete(ip, _Event("%mcp respond "))


def test_an_sdk2_server_through_the_magic(ip):
    run(ip, f"%mcp connect s2 -- {sys.executable} {SERVERS / 'sdk2_server.py'}")
    run(ip, "%mcp respond s2 accept {\"name\": \"Ada\", \"age\": 36}")
    run(ip, "import nb_elicit\nr = await nb_elicit.connections['s2'].call_tool('ask_person')")
    assert ip.user_ns["r"].text == "accept:Ada:36"


def test_mute_and_limit_reach_another_clients_hook_by_its_label(ip, journal):
    """%mcp mute/unmute/limit NAME act on a hook's label when no connection has that name."""
    hook = nb_elicit.elicitation_callback.named("hooked")
    assert "Muted 'hooked'" in repr(run(ip, "%mcp mute hooked"))
    assert hook.muted
    assert "may ask 10/min, burst 5" in repr(run(ip, "%mcp limit hooked 10/min"))
    assert str(hook.rate_limit) == "10/min, burst 5"
    command, *args = demo_command(journal)
    run(ip, "import nb_elicit\nfrom mcp import Client, StdioServerParameters\n"
            f"async with Client(StdioServerParameters(command={command!r}, args={args!r}), "
            "mode='legacy', elicitation_callback=nb_elicit.elicitation_callback.named('hooked')"
            ") as c:\n    r = await c.call_tool('github_username')")
    assert ip.user_ns["r"].content[0].text == "No username: you chose cancel."
    assert "Unmuted 'hooked'" in repr(run(ip, "%mcp unmute hooked"))
    assert not hook.muted
    run(ip, "%mcp limit hooked off")
    assert hook.rate_limit is None
    with pytest.raises(UsageError, match="no connection named 'nobody'"):
        run(ip, "%mcp mute nobody")


def test_rate_limit_mute_and_secret_rule_through_the_magic(ip, tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    command = " ".join(demo_command(journal))
    run(ip, f"%mcp connect demo --rate-limit '2/s burst 3' --secret-forms refuse -- {command}")
    conn = nb_elicit.connections["demo"]
    assert str(conn.rate_limit) == "2/s, burst 3" and conn.guard.secret_forms == "refuse"
    assert "2/s, burst 3" in repr(run(ip, "%mcp list"))
    assert "may ask 10/min, burst 5" in repr(run(ip, "%mcp limit demo 10/min"))
    assert "without a limit" in repr(run(ip, "%mcp limit demo off"))
    assert conn.rate_limit is None
    assert "Muted 'demo'" in repr(run(ip, "%mcp mute demo"))
    assert "muted" in repr(run(ip, "%mcp list"))
    run(ip, "import nb_elicit\nr = await nb_elicit.connections['demo'].call_tool('github_username')")
    assert ip.user_ns["r"].text == "No username: you chose cancel."
    assert "Unmuted" in repr(run(ip, "%mcp unmute demo"))
    assert not conn.muted
    assert [e["action"] for e in journal.entries()] == ["cancel"]


def test_record_and_replay_through_the_magic(ip, tmp_path):
    path = tmp_path / "answers.json"
    assert "record: off" in repr(run(ip, "%mcp record"))
    assert f"Recording answers to {path}" in repr(run(ip, f"%mcp record {path}"))
    assert f"record: to {path}" in repr(run(ip, "%mcp record"))
    assert "Not recording" in repr(run(ip, "%mcp record off"))
    assert "Replaying 0 answers" in repr(run(ip, f"%mcp replay {path}"))
    assert "Not replaying" in repr(run(ip, "%mcp replay off"))


def test_language_through_the_magic(ip):
    try:
        assert "Chinese (zh)" in repr(run(ip, "%mcp language zh"))
        assert "English (en)" in repr(run(ip, "%mcp language en"))
    finally:
        nb_elicit.set_language(None)


def test_list_shows_a_connection_while_it_connects_and_then_connected(ip, tmp_path):
    command = demo_command(Journal(tmp_path / "journal.jsonl"))
    ip.user_ns["command"] = command
    run(ip, "import asyncio\nimport nb_elicit\n"
            "connecting = asyncio.create_task(nb_elicit.connect('seed', command))\n"
            "await asyncio.sleep(0)\n"
            "during = repr(get_ipython().run_line_magic('mcp', 'list'))\n"
            "await connecting\n"
            "after = repr(get_ipython().run_line_magic('mcp', 'list'))")
    during = ip.user_ns["during"].splitlines()
    assert during[0].split()[:5] == ["name", "server", "version", "protocol", "status"]
    assert during[1].split()[:5] == ["seed", "?", "?", "?", "connecting"]
    assert ip.user_ns["after"].splitlines()[1].split()[:2] == ["seed", "nb-elicit-demo"]
    assert "connected" in ip.user_ns["after"]


# -- where %mcp lines may stand (awaited at the top level, plain inside a def) -------------------

def test_a_def_with_mcp_lines_compiles_and_runs(ip):
    run(ip, "def listing():\n"
            "    found = %mcp list\n"
            "    return found\n"
            "def later():\n"
            "    %mcp tools demo\n")  # (a subcommand that talks to a server, in a plain def)
    assert "No connections" in repr(run(ip, "listing()"))
    with pytest.raises(UsageError) as caught:  # no event loop runs a plain cell of this shell
        run(ip, "later()")
    assert "must be awaited here" in str(caught.value) and "\n" not in str(caught.value)


def test_a_class_body_and_an_if_block_hold_mcp_lines(ip):
    run(ip, "class Help:\n    text = %mcp help\n")
    assert "%mcp connect" in repr(ip.user_ns["Help"].text)
    run(ip, "if True:\n    shown = %mcp respond\n")
    assert "Now: ask." in repr(ip.user_ns["shown"])


def test_an_async_def_awaits_its_mcp_lines(ip, tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    run(ip, f"%mcp connect demo -- {' '.join(demo_command(journal))}")
    run(ip, "async def tools_of_demo():\n"
            "    found = %mcp tools demo\n"
            "    def inner():\n"
            "        listed = %mcp list\n"
            "        return listed\n"
            "    return found, inner()\n")
    run(ip, "tools, listing = await tools_of_demo()")
    assert "contact_info" in repr(ip.user_ns["tools"])
    assert "nb-elicit-demo" in repr(ip.user_ns["listing"])


def test_the_transformer_awaits_only_lines_that_need_it_where_await_may_stand():
    from nb_elicit._magics import _await_mcp_lines
    from nb_elicit._magics.commands import AWAITED

    cell = ["x = get_ipython().run_line_magic('mcp', 'tools demo')\n",
            "y = get_ipython().run_line_magic('mcp', 'list')\n",
            "def f():\n",
            "    return get_ipython().run_line_magic('mcp', 'tools demo')\n",
            "for n in 'ab':\n",
            "    get_ipython().run_line_magic('mcp', 'call é hello')\n"]
    assert _await_mcp_lines(cell) == [
        f"x = await get_ipython().run_line_magic('mcp', '{AWAITED}tools demo')\n",
        cell[1], cell[2], cell[3],
        cell[4], f"    await get_ipython().run_line_magic('mcp', '{AWAITED}call é hello')\n"]
    assert _await_mcp_lines(["def broken(:\n"]) == ["def broken(:\n"]


# -- one error boundary: what nb_elicit raises on purpose is one line, for every subcommand -------

def _connect_killable(ip, tmp_path) -> Path:
    """Connect 'demo' to a demo server that writes its process id; the file's path."""
    pid_file = tmp_path / "server.pid"
    ip.user_ns["code"] = (f"import os; open({str(pid_file)!r}, 'w').write(str(os.getpid())); "
                          "from nb_elicit.demo.server import server; server.run('stdio')")
    run(ip, f'%mcp connect demo -- {sys.executable} -c "$code"')
    return pid_file


def _kill(pid_file: Path) -> None:
    pid = int(pid_file.read_text())
    os.kill(pid, signal.SIGKILL)
    for _ in range(200):  # until it is gone (a zombie counts: it answers nothing)
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().split(") ")[1].startswith("Z"):
                    return
        except (FileNotFoundError, ProcessLookupError):  # (reaped, even between open and read)
            return
        time.sleep(0.02)


@pytest.mark.parametrize("line", ["tools demo", "prompts demo", "resources demo",
                                  "call demo hello"])
def test_a_server_that_died_is_one_line_for_every_subcommand(ip, tmp_path, capsys, line):
    pid_file = _connect_killable(ip, tmp_path)
    _kill(pid_file)
    capsys.readouterr()
    result = ip.run_cell(f"%mcp {line}")
    error = result.error_in_exec
    assert isinstance(error, UsageError), repr(error)
    assert "the server went away" in str(error) and "\n" not in str(error)
    shown = capsys.readouterr()
    assert "Traceback" not in shown.out + shown.err
    assert "UsageError: demo · " in shown.err + shown.out


def test_a_bad_argument_the_api_refuses_is_one_line(ip, capsys):
    result = ip.run_cell("%mcp connect z --url ''")
    assert isinstance(result.error_in_exec, UsageError)
    assert str(result.error_in_exec) == ("--url is empty; give an address, like "
                                         "https://example.org/mcp")
    shown = capsys.readouterr()
    assert "Traceback" not in shown.out + shown.err


def test_a_bug_keeps_its_traceback_and_the_table_tells_only_what_it_knows():
    from nb_elicit._core.errors import ServerDisconnected
    from nb_elicit._core.policy import parse_policy
    from nb_elicit._core.secrets.names import words
    from nb_elicit._magics.errors import map_exceptions

    with pytest.raises(KeyError), map_exceptions():  # not in the table
        {}["missing"]
    with pytest.raises(TypeError), map_exceptions():  # Python's own, inside nb_elicit: a bug
        words(None)
    with pytest.raises(ValueError, match="invalid literal"), map_exceptions():  # not ours
        int("x")
    with pytest.raises(UsageError) as caught, map_exceptions():  # nb_elicit's own raise
        parse_policy("maybe")
    assert str(caught.value) == "unknown policy 'maybe': use one of ask, accept, decline, cancel"
    with pytest.raises(UsageError) as caught, map_exceptions():
        raise ServerDisconnected("demo · list_tools: the server went away")
    assert str(caught.value) == "demo · list_tools: the server went away"


# -- one masking path: a policy's secret, a server's stderr, a connect error ----------------------

KEY = "sk-live-9d2e7b3a51"


def _surfaces(value) -> str:
    """Everything a cell could show of a magic's result."""
    shown = [repr(value), str(value)]
    if hasattr(value, "_repr_html_"):
        shown.append(value._repr_html_())
    return "\n".join(shown)


def test_a_policy_from_the_environment_never_shows_its_secret(ip, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("NB_ELICIT_RESPOND", f'accept {{"api_key": "{KEY}", "name": "Ada"}}')
    journal = Journal(tmp_path / "journal.jsonl")
    run(ip, f"%mcp connect demo -- {' '.join(demo_command(journal))}")
    shown = [_surfaces(run(ip, "%mcp respond")), _surfaces(run(ip, "%mcp respond demo")),
             _surfaces(run(ip, "%mcp list")), _surfaces(run(ip, "%mcp history"))]
    captured = capsys.readouterr()
    shown += [captured.out, captured.err]
    run(ip, "%mcp call demo custom_form " + json.dumps({
            "message": "Key?", "requested_schema": {
                "type": "object", "properties": {"api_key": {"type": "string"}}}}))
    assert journal.entries()[-1]["content"] == {"api_key": KEY}  # (what is sent is untouched)
    capsys.readouterr()  # (the call's result: the demo echoes what it got, its own words)
    shown += [_surfaces(run(ip, "%mcp history")), _surfaces(run(ip, "%mcp list"))]
    captured = capsys.readouterr()
    everything = "\n".join([*shown, captured.out, captured.err])
    assert "accept {" in everything and '"name": "Ada"' in everything
    assert KEY not in everything


def test_a_policy_set_by_the_magic_never_shows_its_secret(ip, capsys):
    said = run(ip, f'%mcp respond demo accept {{"password": "{KEY}"}}')
    shown = [_surfaces(said), _surfaces(run(ip, "%mcp respond")),
             repr(kernel_state().policies.for_connection("demo"))]
    captured = capsys.readouterr()
    assert "accept" in shown[0]
    assert KEY not in "\n".join([*shown, captured.out, captured.err])


def test_the_server_log_and_the_connect_error_mask_secret_env_values(ip, capsys):
    ip.user_ns["talk"] = ("import os, sys; print('my token is', os.environ['API_TOKEN'], "
                          "file=sys.stderr, flush=True); from nb_elicit.demo.server import "
                          "server; server.run('stdio')")
    run(ip, f'%mcp connect e --env API_TOKEN={KEY} -- {sys.executable} -c "$talk"')
    log = _surfaces(run(ip, "%mcp log e"))
    assert "my token is" in log and KEY not in log
    ip.user_ns["quit"] = ("import os, sys; print('bad token', os.environ['API_TOKEN'], "
                          "file=sys.stderr, flush=True); sys.exit(3)")
    result = ip.run_cell(f'%mcp connect q --env API_TOKEN={KEY} -- {sys.executable} -c "$quit"')
    assert isinstance(result.error_in_exec, UsageError)
    captured = capsys.readouterr()
    assert "bad token" in captured.out + captured.err
    assert KEY not in str(result.error_in_exec) + captured.out + captured.err
