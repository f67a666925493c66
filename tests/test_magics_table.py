"""The %mcp subcommand table: help, parsing, completion and handlers all agree with it."""

import html
import inspect
import re
import subprocess
import sys

import pytest
from IPython.core.error import UsageError

import nb_elicit
from nb_elicit._magics import _complete
from nb_elicit._magics import handlers as handler_module
from nb_elicit._magics.commands import COMMANDS, parse
from nb_elicit._magics.options import PARSER

pytestmark = pytest.mark.timeout(120)

NEEDS_NAME = [command.name for command in COMMANDS if command.needs_name]
NO_NAME = [command.name for command in COMMANDS if not command.needs_name]


def run(ip, cell: str):
    result = ip.run_cell(cell)
    if result.error_before_exec or result.error_in_exec:
        raise result.error_before_exec or result.error_in_exec
    return result.result


class _Event:
    def __init__(self, line):
        self.line = line


def test_the_table_names_each_subcommand_once_and_its_usage_starts_with_it():
    names = [command.name for command in COMMANDS]
    assert len(names) == len(set(names))
    for command in COMMANDS:
        assert command.usage and command.help and "\n" not in command.help
        assert all(line.startswith(f"%mcp {command.name}") for line in command.usage)


def test_every_entry_appears_in_help_in_table_order(ip):
    text = repr(run(ip, "%mcp help"))
    where = []
    for command in COMMANDS:
        for line in command.usage:
            assert line in text
        assert command.help in text
        where.append(text.index(command.usage[0]))
    assert where == sorted(where)
    assert text.splitlines()[-2].startswith("Python: nb_elicit.connections[NAME]")
    assert text.splitlines()[-1].startswith("Headless runs: NB_ELICIT_RESPOND=")


def test_connect_help_mentions_every_flag_its_parser_takes():
    (connect,) = [command for command in COMMANDS if command.name == "connect"]
    text = "\n".join(connect.help_lines())
    flags = [flag for action in PARSER._actions for flag in action.option_strings]
    assert flags
    for flag in flags:
        assert flag in text


def test_completion_offers_exactly_the_tables_names(ip):
    names = [command.name for command in COMMANDS]
    assert _complete(ip, _Event("%mcp ")) == names
    assert _complete(ip, _Event(f"%mcp {names[0][:2]}")) == names


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_completion_offers_connection_names_where_the_entry_takes_one(ip, monkeypatch, command):
    monkeypatch.setitem(nb_elicit.connections, "demo", object())
    offered = _complete(ip, _Event(f"%mcp {command.name} "))
    if command.takes_name:
        assert offered == [*command.choices, "demo"]
    else:
        assert offered == []


@pytest.mark.parametrize("name", NEEDS_NAME)
def test_entries_that_need_a_name_refuse_to_run_without_one(ip, name):
    (command,) = [c for c in COMMANDS if c.name == name]
    with pytest.raises(UsageError) as caught:
        run(ip, f"%mcp {name}")
    assert str(caught.value) == f"%mcp {name} needs a connection name: {command.usage[0]}"
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("name", NO_NAME)
def test_entries_that_need_no_name_parse_without_one(name):
    command, rest = parse(name)
    assert command.name == name and rest == ""


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_every_handler_is_callable_and_awaited_exactly_when_the_table_says(command):
    assert callable(command.handler)
    assert inspect.iscoroutinefunction(command.handler) == command.awaited
    assert list(inspect.signature(command.handler).parameters) == ["magic", "rest"]


def test_every_handler_in_the_handlers_module_is_in_the_table():
    in_table = {command.handler for command in COMMANDS}
    defined = {value for name, value in vars(handler_module).items()
               if inspect.isfunction(value) and value.__module__ == handler_module.__name__
               and not name.startswith("_") and name != "runtime"}
    assert defined and defined <= in_table


def test_an_unknown_subcommand_lists_the_tables_names(ip):
    with pytest.raises(UsageError) as caught:
        run(ip, "%mcp frobnicate")
    assert ", ".join(command.name for command in COMMANDS) in str(caught.value)


@pytest.mark.parametrize(("typed", "meant"), [("cal", "call"), ("tols", "tools"),
                                              ("dissconnect", "disconnect"), ("taks", "task")])
def test_a_mistyped_subcommand_says_which_was_meant(typed, meant):
    with pytest.raises(UsageError) as caught:
        parse(f"{typed} demo")
    assert f"did you mean {meant}" in str(caught.value)
    assert ", ".join(command.name for command in COMMANDS) not in str(caught.value)


def test_help_is_a_table_of_every_subcommand_in_notebooks(ip):
    shown = run(ip, "%mcp help")
    page = shown._repr_html_()
    assert page.startswith('<table class="nb-elicit-table"')
    assert page.count("<tr>") == len(COMMANDS) + 1  # (the heading's row)
    assert "subcommand</th>" in page and "what it does</th>" in page
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    for command in COMMANDS:
        assert command.help in text
        for line in command.usage:
            assert line in text
    assert "…" not in page  # (no row is cut)
    assert "Python: nb_elicit.connections[NAME]" in page


def test_every_usage_line_of_help_is_described(ip):
    """A subcommand of several usage lines has its help under them all, not beside the last
    (where it read as about that line only): ``%mcp tasks [NAME]`` is described."""
    lines = repr(run(ip, "%mcp help")).splitlines()
    for command in COMMANDS:
        if len(command.usage) > 1:
            at = lines.index(command.usage[-1])
            assert lines[at + 1] == "    " + command.help
    (tasks,) = [command for command in COMMANDS if command.name == "tasks"]
    assert "NAME: only that connection's" in tasks.help


@pytest.mark.parametrize(("flags", "message"), [
    ("--bogus 1 -- x", "unknown option --bogus for %mcp connect; see %mcp help"),
    ("--bogus=1 -- x", "unknown option --bogus for %mcp connect; see %mcp help"),
    ("--rate 2/s -- x", "unknown option --rate for %mcp connect; see %mcp help"),
    ("--help -- x", "unknown option --help for %mcp connect; see %mcp help"),
    ("-h -- x", "unexpected '-h'; put the server command after --"),
    ("stray -- x", "unexpected 'stray'; put the server command after --"),
    ("--cwd", "--cwd needs a value; see %mcp help"),
    ("--env -- x", "--env needs a value; see %mcp help"),
    ("--url", "--url needs a value; see %mcp help"),
    ("--header 'X: 1' --rate-limit", "--rate-limit needs a value; see %mcp help"),
    ("--env 'A=1 -- x", "cannot read the options: No closing quotation"),
])
def test_a_bad_connect_flag_gives_one_line(ip, capsys, flags, message):
    with pytest.raises(UsageError) as caught:
        run(ip, f"%mcp connect demo {flags}")
    assert str(caught.value) == message or str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)
    captured = capsys.readouterr()
    assert "usage:" not in captured.out + captured.err
    assert "demo" not in nb_elicit.connections


def test_the_connect_flags_are_read_into_options():
    from nb_elicit._magics.options import parse_connect

    options = parse_connect("d --env A=1 --env=B=2 --cwd /tmp --rate-limit '2/s burst 3' "
                            "--secret-forms refuse -- prog --flag 'two words'")
    assert options.name == "d" and options.url is None
    assert options.command == ("prog", "--flag", "two words")
    assert options.env == {"A": "1", "B": "2"} and options.cwd == "/tmp"
    assert options.secret_forms == "refuse"
    assert str(options.rate_limit) == "2/s, burst 3"
    remote = parse_connect("r --url http://h/mcp --header 'A: b c' --header B:1")
    assert remote.url == "http://h/mcp" and remote.command is None
    assert remote.headers == {"A": "b c", "B": "1"}
    assert options.apps and remote.apps
    assert not parse_connect("d --no-apps -- prog").apps
    assert not parse_connect("r --url http://h/mcp --no-apps").apps
    assert not parse_connect("n --no-apps").apps  # (a configured server)


def test_the_magic_package_imports_neither_ipywidgets_nor_the_sdk():
    code = ("import sys, nb_elicit._magics, nb_elicit._magics.handlers, "
            "nb_elicit._magics.options, nb_elicit._magics.tables; "
            "print(sorted({'ipywidgets', 'mcp'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
