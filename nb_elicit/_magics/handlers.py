"""What each ``%mcp`` subcommand does: ``handler(magic, rest)``, with ``rest`` the words after it.

``magic`` is the :class:`~nb_elicit._magics.commands.McpMagics` instance (its connects under way,
and its look-up of connections). The runtime (ipywidgets, the SDK) is imported on first use.

A handler lets nb_elicit's errors out: the magic tells them in one line, from one table
(:mod:`.errors`). What a handler shows goes through :mod:`.tables`, which masks every secret
nb_elicit was given.
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from IPython.core.error import UsageError

from .._core.i18n import duration, set_language
from .._core.i18n import language as current_language
from .._core.kernel import part
from .._core.policy import ACTIONS, Policies, parse_policy
from .._core.secrets.masking import remember, scrub
from .._core.secrets.names import target_secrets
from .._core.tasks.model import attach_command, status_word
from .._core.text import close_names, visible
from .options import parse_connect, rate_limit
from .tables import HistoryView, Table, TasksView, Text, clean_doc, schema_text

if TYPE_CHECKING:
    from .._core.configs.servers import ConfiguredServer
    from .._core.errors import BlockingNotSupported
    from .._core.tasks.model import TaskState
    from .._core.tasks.store import SavedTask
    from .._runtime.connection import Connection
    from .._runtime.tasks import FinishedTask, TaskRun
    from .commands import McpMagics

#: What ``%mcp tasks`` heard of a task: its state as its server told it, or why it could not
#: be asked.
Told: TypeAlias = "TaskState | str"


class RuntimeApi(Protocol):
    """What the handlers use of the runtime, as :func:`runtime` gives it: the class of its
    names, read only. A Protocol, so that this module names the runtime's types for the
    checker only and still imports no runtime until a subcommand needs it."""

    @property
    def connect(self) -> Callable[..., Awaitable[Connection]]: ...

    @property
    def logout(self) -> Callable[[str], Awaitable[bool]]: ...

    @property
    def connections(self) -> dict[str, Connection]: ...

    @property
    def BlockingNotSupported(self) -> type[BlockingNotSupported]: ...  # noqa: N802

    @property
    def check_blocking_supported(self) -> Callable[..., None]: ...


def runtime() -> RuntimeApi:
    """The runtime modules, imported on first use (they bring in ipywidgets and the SDK)."""
    from .._core import errors as _errors
    from .._runtime import connection as _connection
    from .._runtime import kernel_compat as _kernel_compat

    class Runtime:
        connect = staticmethod(_connection.connect)
        logout = staticmethod(_connection.logout)
        connections = _connection.connections
        BlockingNotSupported = _errors.BlockingNotSupported
        check_blocking_supported = staticmethod(_kernel_compat.check_blocking_supported)

    return Runtime


async def connect(magic: McpMagics, rest: str) -> Text:
    options = parse_connect(rest)
    name, rt = options.name, runtime()
    remember(target_secrets(options))  # (a secret --env value, a credential --header)
    conn = await rt.connect(name, **options.keywords())
    return Text(f"Connected {name!r}: {conn.server_name or '?'} {conn.server_version or ''}"
                f" (protocol {conn.protocol_version}).")


def servers(magic: McpMagics, rest: str) -> Table:
    from .._core.configs.servers import configured_servers
    from .._core.configs.trust import TrustStore, is_own, shown, trust_state

    found = configured_servers()
    live = runtime().connections if found else {}
    store, first = TrustStore(), {s.name: s for s in found if s.active}

    def connected(s: ConfiguredServer) -> str:
        if s.active:
            return live[s.name].status if s.name in live else "no"
        if is_own(s) and not is_own(first[s.name]):
            return f"no (hidden by the project's {first[s.name].file})"
        return "no (an earlier file has this name)"

    rows = [[visible(s.name), visible(s.file), visible(s.key), s.transport, shown(s).target,
             trust_state(s, store), connected(s)] for s in found]
    return Table(["name", "file", "key", "transport", "command or URL", "trust", "connected"],
                 rows,
                 "No MCP servers are configured here (.vscode/mcp.json, .mcp.json, "
                 ".cursor/mcp.json, ... ; see docs/configs.md).")


def list_connections(magic: McpMagics, rest: str) -> Table:
    connections = runtime().connections
    rows = [[name, c.server_name or "?", c.server_version or "?", c.protocol_version or "?",
             c.status + (", muted" if c.muted else ""), str(part(Policies).for_connection(name)),
             str(c.rate_limit or "off")]
            for name, c in connections.items()]
    rows += [[name, "?", "?", "?", "connecting", str(part(Policies).for_connection(name)), "?"]
             for name, task in magic.connecting.items()
             if not task.done() and name not in connections]
    return Table(["name", "server", "version", "protocol", "status", "respond", "rate limit"],
                 rows,
                 "No connections. Make one with %mcp connect NAME -- COMMAND.")


async def tools(magic: McpMagics, rest: str) -> Table:
    found = await (await magic.ready(rest)).list_tools()
    rows = [[t["name"], clean_doc(t.get("description")), schema_text(t.get("inputSchema"))]
            for t in found]
    marks = [_app_mark(t) for t in found]
    if any(marks):  # (a column of its own only where a tool has an app, or is for one)
        rows = [[name, mark, *more] for (name, *more), mark in zip(rows, marks, strict=True)]
        return Table(["tool", "app", "description", "input schema"], rows,
                     f"{rest} has no tools.", code=(0, 3))
    return Table(["tool", "description", "input schema"], rows, f"{rest} has no tools.",
                 code=(0, 2))


def _app_mark(tool: dict[str, Any]) -> str:
    """``%mcp tools``' app column: "app" for a tool that comes with an MCP App, "app only" for
    one meant for its app alone (``visibility: ["app"]``)."""
    from .._core.apps import app_only, resource_uri

    if app_only(tool):
        return "app only"
    return "app" if resource_uri(tool) else ""


async def prompts(magic: McpMagics, rest: str) -> Table:
    found = await (await magic.ready(rest)).list_prompts()
    rows = [[p["name"], clean_doc(p.get("description")),
             ", ".join(a["name"] + ("" if a.get("required") else "?")
                       for a in p.get("arguments", []))]
            for p in found]
    return Table(["prompt", "description", "arguments"], rows, f"{rest} has no prompts.",
                 code=(0, 2))


async def resources(magic: McpMagics, rest: str) -> Table:
    found = await (await magic.ready(rest)).list_resources()
    rows = [[r["uri"], r.get("name", ""), r.get("mimeType", ""),
             clean_doc(r.get("description"))] for r in found]
    return Table(["uri", "name", "type", "description"], rows, f"{rest} has no resources.",
                 code=(0,))


#: The one option of ``%mcp call``: right after the tool's name, or at the end of the line.
NO_TASK = "--no-task"


_LAST_NO_TASK = re.compile(r"(.*\S)\s+--no-task", re.S)


def _no_task(rest: str) -> tuple[str, bool]:
    """``rest`` without its ``--no-task`` (right after the tool's name, or last), and whether it
    had one. JSON arguments neither start nor end with it, so a ``"--no-task"`` inside them
    stays."""
    words = rest.split(None, 2)
    if len(words) < 3:
        return rest, False
    first, *more = words[2].split(None, 1)
    if first == NO_TASK:
        return " ".join([*words[:2], *more]), True
    last = _LAST_NO_TASK.fullmatch(rest.rstrip())
    if last is not None:
        return last.group(1), True
    return rest, False


async def call(magic: McpMagics, rest: str) -> None:
    rest, no_task = _no_task(rest)
    parts = rest.split(None, 2)
    if len(parts) < 2 or parts[1] == NO_TASK:
        raise UsageError(f"%mcp call needs a tool name: %mcp call {parts[0]} TOOL [JSON-ARGS]")
    name, tool = parts[0], parts[1]
    arguments = None
    if len(parts) == 3:
        if parts[2].startswith("--"):
            raise UsageError(f"unknown option {parts[2].split()[0]} for %mcp call; it takes "
                             f"{NO_TASK} only: %mcp call {name} {tool} [JSON-ARGS] [{NO_TASK}]")
        arguments = _json_arguments(parts[2].strip(), name, tool)
    conn = await magic.ready(name)
    await _check_tool(conn, name, tool)
    task = False if no_task else None
    rt = runtime()
    try:
        rt.check_blocking_supported(tell=False)
    except rt.BlockingNotSupported:
        # older kernels, Voilà: the form must not block the cell
        conn.start_tool(tool, arguments, task=task)
        return None
    from .._core.errors import TaskCancelled, TaskDetached

    try:
        await conn.call_tool(tool, arguments, task=task)
    except (TaskCancelled, TaskDetached):
        return None  # the person's own choice, which the task's card already tells
    # The call's view already shows the result; for the value, use the Python API.
    return None


def _json_arguments(text: str, name: str, tool: str) -> dict[str, Any]:
    """The arguments of ``%mcp call``: a JSON object, also with one pair of shell-style quotes
    around it (``'{}'``, ``"{...}"``) when what they hold is a JSON object."""
    inner = _unquoted(text)
    problem: str | None
    try:
        arguments = json.loads(text)
    except json.JSONDecodeError as error:
        arguments, problem = None, f"{error.msg} at column {error.colno}"
    else:
        problem = None
    if not isinstance(arguments, dict) and inner is not None:
        try:  # ('{...}'; or "{\"k\": 1}", a JSON string that holds the object, as a shell has it)
            arguments = json.loads(arguments if isinstance(arguments, str) else inner)
        except json.JSONDecodeError:
            raise UsageError(f"the arguments are not valid JSON ({problem or 'a quoted string'})"
                             "; drop the quotes around them and write one JSON object: "
                             f"%mcp call {name} {tool} {{...}}") from None
    if problem is not None and arguments is None:
        raise UsageError(f"the arguments are not valid JSON ({problem}); write one JSON object: "
                         f"%mcp call {name} {tool} {{...}} (%mcp tools {name} shows the "
                         "arguments it takes)")
    if not isinstance(arguments, dict):
        raise UsageError(f"the arguments must be a JSON object, like: %mcp call {name} {tool} "
                         f"{{...}} (%mcp tools {name} shows the arguments it takes)")
    return arguments


def _unquoted(text: str) -> str | None:
    """``text`` without one pair of matching outer quotes (None: it has none)."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return None


async def _check_tool(conn: Connection, name: str, tool: str) -> None:
    """A tool the server does not list is a mistake told in one line, with the names most
    like it; nothing is called. (A server that cannot list its tools is not asked; one gone is
    told as the call would tell it.)"""
    from .._core.errors import ServerDisconnected

    try:
        names = await conn.tool_names()
    except ServerDisconnected as error:
        raise ServerDisconnected(f"{name} · {tool}: {error}") from None
    if names is None or tool in names:
        return
    close = close_names(tool, names)
    mean = f"did you mean {' or '.join(close)}? " if close else ""
    raise UsageError(f"{name} has no tool {tool!r}; {mean}%mcp tools {name} lists them")


async def tasks(magic: McpMagics, rest: str) -> TasksView | Text:
    from .._runtime.state import kernel_state  # (widgets, not the SDK)

    tasks_kept = kernel_state().tasks
    words = rest.split()
    if words and words[0] == "--forget":
        if len(words) > 3:
            raise UsageError("usage: %mcp tasks --forget [NAME [ID]]")
        gone = tasks_kept.store.forget(*words[1:3])
        return Text(f"Forgot {gone} running task{'' if gone == 1 else 's'} in "
                    f"{tasks_kept.store.path} (the servers were not told).")
    name = words[0] if words else None
    listed = tasks_kept.runs(name)
    saved = tasks_kept.saved(name)
    # The tasks no kernel follows now (detached, an earlier kernel's): their servers are asked
    # how they are, all at once (a server that cannot be asked: what was seen last).
    asked = [(r.connection, r.task_id) for r in listed if r.detached and not r.ended]
    asked += [s.key for s in saved if s.key not in asked]
    told = dict(zip(asked, await asyncio.gather(*(_ask_task(*key) for key in asked)),
                    strict=True))
    now = time.time()
    runs = [[r.connection, r.tool, r.task_id, *_run_row(r, told.get((r.connection, r.task_id)),
                                                         now)] for r in listed]
    kept = [[s.connection, s.tool, s.task_id, *_saved_row(s, told[s.key], now), s.where,
             attach_command(s.connection, s.task_id)] for s in saved]
    # A task this kernel detached from that may still run, and that the file does not list
    # (a stdio server's, which ends with this kernel): the line that attaches to it, here.
    in_file = {s.key for s in saved}
    attach = [_attach_line(r, told.get((r.connection, r.task_id)), in_file) for r in listed]
    headers = ["connection", "tool", "task id", "status", "age"]
    if any(attach):
        headers.append("to attach")
        runs = [[*row, line] for row, line in zip(runs, attach, strict=True)]
    of = f" of {name!r}" if name else ""
    return TasksView(
        Table(headers, runs, code=(1, 2, 5)),
        Table(["connection", "tool", "task id", "status", "age", "server", "to attach"], kept,
              code=(1, 2, 6)),
        saved_caption=("Running on their servers, as this kernel remembers them (an earlier "
                       "kernel's, or detached); connect the same name to the same server, then "
                       "attach with %mcp task NAME ID:"),
        empty=(f"No tasks{of}: this kernel follows none, and remembers none running. A tool "
               "the server runs as a task shows its card in the cell that called it; Detach "
               "leaves it running, to attach to again from here."),
        kept_in=f"kept in {tasks_kept.store.path}")


async def _ask_task(connection: str, task_id: str) -> Told:
    """The task's state as its server tells it now, or why it could not be asked (a str)."""
    from .._core.errors import NbElicitError

    conn = runtime().connections.get(connection)
    if conn is None or conn.status != "connected":
        return f"{connection} is not connected"
    try:
        return await conn.task_state(task_id)
    except asyncio.TimeoutError:
        return "no answer"
    except NbElicitError as error:
        return scrub(str(error))


def _age(state: Told, started: float, now: float) -> str:
    """How long ago the task began: the server's ``createdAt`` when it told one that can be
    believed, else when this kernel first knew of it."""
    age = state.age(now) if not isinstance(state, str) else None
    return duration(age if age is not None else max(0.0, now - started))


def _run_row(run: TaskRun | FinishedTask, told: Told | None, now: float) -> list[str]:
    """A task's status (in words: "Needs your answer", not the protocol's ``input_required``)
    and age as ``%mcp tasks`` shows them: what its server says now (a detached one is asked),
    or what was seen last, and when."""
    if told is not None and not isinstance(told, str):
        word = status_word(told.status)
        return [word if told.terminal else f"{word}, detached", _age(told, run.started, now)]
    age = duration(max(0.0, now - run.started))
    word = status_word(run.status)
    if run.terminal:
        return [word, age]
    if run.ended:
        return [f"no longer followed (last seen {word}{_ago(run.seen_at, now)})", age]
    if run.detached:
        why = f": {told}" if told else ""
        return [f"detached (last seen {word}{_ago(run.seen_at, now)}{why})", age]
    return [word, age]


def _attach_line(run: TaskRun | FinishedTask, told: Told | None,
                 in_file: set[tuple[str, str]]) -> str:
    """``%mcp task NAME ID`` for a run this kernel detached from that has not ended (as far as
    its server said) and that the file of running tasks does not list; "" otherwise."""
    key = (run.connection, run.task_id)
    ended = run.ended or run.terminal or (told is not None and not isinstance(told, str)
                                          and told.terminal)
    if not run.detached or ended or key in in_file:
        return ""
    return attach_command(run.connection, run.task_id)


def _saved_row(saved: SavedTask, told: Told, now: float) -> list[str]:
    if not isinstance(told, str):
        return [status_word(told.status), _age(told, saved.started, now)]
    return [f"not asked: {told}", duration(max(0.0, now - saved.started))]


def _ago(seen_at: float | None, now: float) -> str:
    return "" if seen_at is None else f" {duration(max(0.0, now - seen_at))} ago"


async def task(magic: McpMagics, rest: str) -> None:
    words = rest.split()
    if len(words) != 2:
        raise UsageError(f"%mcp task needs the task's id: %mcp task {words[0]} ID (%mcp tasks "
                         "lists them)")
    name, task_id = words
    conn = await magic.ready(name)
    await conn.attach_task(task_id)
    # The call's view shows the task's card, then its result.
    return None


async def disconnect(magic: McpMagics, rest: str) -> Text:
    await (await magic.ready(rest)).close()
    return Text(f"Disconnected {rest!r}.")


def respond(magic: McpMagics, rest: str) -> Text:
    # The first word names a connection when more follows, or when it is a connection.
    name = None
    head = rest.split(None, 1)
    is_policy = bool(head) and (head[0].lower() in ACTIONS
                                or head[0].lower().startswith("accept"))
    if head and not is_policy and (len(head) > 1 or head[0] in runtime().connections):
        name, rest = head[0], head[1] if len(head) > 1 else ""
    if not rest.strip():
        where = f" {name}" if name else ""
        policies = part(Policies)
        current = policies.for_connection(name) if name else (policies.everywhere or
                                                              policies.for_connection(""))
        return Text(f"Now: {current}. Set with %mcp respond{where} "
                    'ask|decline|cancel|accept {"field": "value"}')
    policy = parse_policy(rest, source=f"%mcp respond{' ' + name if name else ''}")
    part(Policies).set(policy, name)
    return Text(f"Forms {'from ' + repr(name) if name else 'from every server'} are now "
                f"answered: {policy}.")


_SWITCH = ("on", "off")


def apps(magic: McpMagics, rest: str) -> Text | Table:
    words = rest.split()
    switch = words.pop().lower() if words and words[-1].lower() in _SWITCH else None
    if len(words) > 1:
        raise UsageError("usage: %mcp apps [NAME] [on|off]")
    if words:
        name = words[0]
        conn = magic.connection(name)
        ended = len(conn.apps.shown)
        if switch is not None:
            conn.apps.set_enabled(switch == "on")
        if switch == "off":
            gone = f" ({ended} shown app{'' if ended == 1 else 's'} ended)" if ended else ""
            return Text(f"MCP Apps of {name!r} are off: its tools show their text results "
                        f"only{gone}. Turn them on with %mcp apps {name} on.")
        state = "on" if conn.apps.enabled else "off"
        shown = len(conn.apps.shown)
        return Text(f"MCP Apps of {name!r} are {state} ({shown} shown now): a tool that comes "
                    "with an app shows it in the cell of its call, where widgets show. "
                    f"Turn them {'off' if state == 'on' else 'on'} with %mcp apps {name} "
                    f"{'off' if state == 'on' else 'on'}.")
    connections = runtime().connections
    if switch is not None:
        for conn in connections.values():
            conn.apps.set_enabled(switch == "on")
    rows = [[name, "on" if c.apps.enabled else "off", str(len(c.apps.shown))]
            for name, c in connections.items()]
    return Table(["name", "apps", "shown now"], rows,
                 "No connections. Make one with %mcp connect NAME -- COMMAND (--no-apps: "
                 "without MCP Apps).")


def history(magic: McpMagics, rest: str) -> HistoryView:
    return HistoryView()


def record(magic: McpMagics, rest: str) -> Text:
    return _recording("record", rest)


def replay(magic: McpMagics, rest: str) -> Text:
    return _recording("replay", rest)


def _recording(which: str, rest: str) -> Text:
    from .._core.records import recording

    if not rest:
        tape = part(recording.Tape)
        now = tape.recorder if which == "record" else tape.replayer
        state = f"{'to' if which == 'record' else 'from'} {now.path}" if now else "off"
        return Text(f"{which}: {state}. Use %mcp {which} PATH, or %mcp {which} off.")
    try:
        path = shlex.split(rest)[0]
    except ValueError as error:
        raise UsageError(f"cannot read the path: {error}") from None
    try:
        return Text(getattr(recording, which)(None if path == "off" else path))
    except OSError as error:  # (the file named on the line)
        raise UsageError(str(error).splitlines()[0]) from None


def language(magic: McpMagics, rest: str) -> Text:
    if rest:
        set_language(rest)
    now = "Chinese (zh)" if current_language() == "zh" else "English (en)"
    return Text(f"nb_elicit's texts are in {now}. Choose with %mcp language en|zh|auto.")


def mute(magic: McpMagics, rest: str) -> Text:
    magic.asker(rest).mute()
    name = rest.split()[0]
    return Text(f"Muted {name!r}: its requests are answered cancel until %mcp unmute {name}.")


def unmute(magic: McpMagics, rest: str) -> Text:
    magic.asker(rest).unmute()
    return Text(f"Unmuted {rest.split()[0]!r}: its requests show again.")


def limit(magic: McpMagics, rest: str) -> Text:
    name, _, rate = rest.partition(" ")
    conn = magic.asker(name)
    if rate.strip():
        conn.rate_limit = rate_limit(rate)
    return Text(f"{name!r} may ask {conn.rate_limit or 'without a limit'}.")


def log(magic: McpMagics, rest: str) -> Text:
    conn = magic.connection(rest)
    if not conn.log_path:
        return Text(f"{rest!r} is reached over HTTP; it has no stderr here.")
    # Masked like the connect error's last words: the config's inputs, secret env values, ...
    tail = scrub(conn.log_tail(40), target_secrets(conn.target)).rstrip()
    return Text(tail or f"{rest!r} has written nothing to stderr.")


async def logout(magic: McpMagics, rest: str) -> Text:
    name = rest.split()[0]
    if name in magic.connecting:
        await magic.ready(name)
    found = await runtime().logout(name)
    return Text(f"Signed out of {name}: its tokens are forgotten; the next request signs in "
                "again." if found else f"No sign-in was kept for {name}.")
