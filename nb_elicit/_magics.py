"""The ``%mcp`` line magic: connect to MCP servers and call their tools from notebook cells.

``%load_ext nb_elicit`` registers it. Subcommands that talk to a server run asynchronously: an
input transformer turns every ``%mcp ...`` line into ``await ...`` (and marks it, so the magic
knows), so a cell waits for its call while forms in it still receive clicks and keystrokes
(ipykernel >= 7.4). On older kernels, ``%mcp call`` starts the call and returns at once; its form
and result appear in the cell. A line the transformer did not see (in the same cell as
``%load_ext``) runs in the background instead, and later ``%mcp`` lines wait for its connection.

This module imports neither ipywidgets nor the SDK; the connection module is imported the first
time a subcommand needs it, which keeps ``%load_ext`` quick.
"""

from __future__ import annotations

import asyncio
import html
import inspect
import json
import re
import shlex
import sys
import threading

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class
from IPython.display import display

from ._core.history import HISTORY
from ._core.policy import ACTIONS, POLICIES, parse_policy

__all__ = ["McpMagics", "load", "unload"]

HELP = """\
%mcp connect NAME [--env K=V]... [--cwd DIR] -- COMMAND [ARGS...]   start a stdio server
%mcp connect NAME --url URL [--header 'K: V']...                    reach a server over HTTP
    either form also takes --rate-limit RATE (default 10/min, burst 5; or off)
    and --secret-forms refuse (decline forms that ask for passwords, keys, cards...)
%mcp list                          the connections: server, version, protocol, status
%mcp tools NAME                    the server's tools, with descriptions and input schemas
%mcp prompts NAME                  its prompts
%mcp resources NAME                its resources
%mcp call NAME TOOL [JSON-ARGS]    run a tool here; its forms and result appear in this cell
%mcp disconnect NAME               close a connection (a stdio server stops)
%mcp respond [NAME] ask|decline|cancel|accept JSON
                                   how to answer forms without a person (default: ask)
%mcp history                       every elicitation so far (secret-looking values masked)
%mcp record PATH | off             save the answers you give to a JSON file (secrets never)
%mcp replay PATH | off             answer later runs from that file, without a person
%mcp language [en|zh|auto]        the language of nb_elicit's own texts (auto: the locale)
%mcp mute NAME / %mcp unmute NAME  answer every request of NAME with cancel / show them again
%mcp limit NAME [RATE]             how often NAME may ask: 10/min, 2/s burst 4, or off
%mcp log NAME                      the last lines a stdio server wrote to stderr
%mcp help                          this text

Python: nb_elicit.connections[NAME] is the live connection; await its call_tool(...).
Headless runs: NB_ELICIT_RESPOND="decline" (or cancel, ask, accept {...}) in the environment."""

SUBCOMMANDS = ("connect", "list", "tools", "prompts", "resources", "call", "disconnect",
               "respond", "history", "record", "replay", "language", "mute", "unmute", "limit",
               "log", "help")
_NEEDS_NAME = ("tools", "prompts", "resources", "call", "disconnect", "mute", "unmute", "limit",
               "log")
_SYNC = ("help", "list", "respond", "history", "record", "replay", "language", "mute", "unmute",
         "limit", "log")
#: Marks a magic line that the input transformer awaits (an invisible separator).
_AWAITED = "\u2063"
_MAGIC_CALL = re.compile(
    r"(?<!await )\bget_ipython\(\)\.run_line_magic\(\s*(['\"])mcp\1,\s*(['\"])")


class Table:
    """A small table that shows as HTML in notebooks and as aligned text elsewhere."""

    def __init__(self, headers: list[str], rows: list[list[str]], empty: str = "(none)"):
        self.headers, self.rows, self.empty = headers, rows, empty

    def _repr_html_(self) -> str:
        if not self.rows:
            return f"<p>{html.escape(self.empty)}</p>"
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.headers)
        body = "".join("<tr>" + "".join(f"<td style='text-align:left'><pre style='margin:0'>"
                                         f"{html.escape(c)}</pre></td>" for c in row) + "</tr>"
                       for row in self.rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def __repr__(self) -> str:
        if not self.rows:
            return self.empty
        widths = [max(len(str(c).split("\n")[0]) for c in col)
                  for col in zip(self.headers, *self.rows, strict=True)]
        lines = ["  ".join(h.ljust(w) for h, w in zip(self.headers, widths, strict=True))]
        for row in self.rows:
            lines.append("  ".join(str(c).replace("\n", " ").ljust(w)
                                   for c, w in zip(row, widths, strict=True)))
        return "\n".join(lines)


class Text:
    """Plain text shown as the cell's result (no quotes, unlike a str)."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


@magics_class
class McpMagics(Magics):
    def __init__(self, shell=None, **kwargs):
        super().__init__(shell=shell, **kwargs)
        self._connecting: dict[str, asyncio.Task] = {}

    @line_magic
    def mcp(self, line: str):
        """Talk to MCP servers: ``%mcp help`` lists the subcommands."""
        if line.startswith(_AWAITED):
            return self._dispatch(line[len(_AWAITED):])
        sub, rest = _parse(line)
        if sub in _SYNC:
            return getattr(self, f"_{sub}")(rest)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise UsageError("run %mcp in a cell after the one with %load_ext nb_elicit") from None
        task = loop.create_task(self._in_background(self._dispatch(line)))
        if sub == "connect" and rest.split():
            self._connecting[rest.split()[0]] = task
        return None

    async def _dispatch(self, line: str):
        sub, rest = _parse(line)
        result = getattr(self, f"_{sub}")(rest)
        return await result if inspect.isawaitable(result) else result

    @staticmethod
    async def _in_background(work):
        try:
            result = await work
        except UsageError as error:
            print(f"UsageError: {error}", file=sys.stderr)
            return
        if result is not None:
            display(result)

    # -- subcommands ------------------------------------------------------------------------

    def _help(self, rest: str):
        return Text(HELP)

    async def _connect(self, rest: str):
        options, command = _split_command(rest)
        try:
            words = shlex.split(options)
        except ValueError as error:
            raise UsageError(f"cannot read the options: {error}") from None
        if not words or words[0].startswith("-"):
            raise UsageError("%mcp connect needs a name: %mcp connect NAME -- COMMAND [ARGS...]"
                             " or %mcp connect NAME --url URL")
        name, flags = words[0], _flags(words[1:])
        url = flags.pop("--url", [None])[-1]
        headers = dict(_pair(h, ":", "--header 'Authorization: Bearer TOKEN'")
                       for h in flags.pop("--header", []))
        env = dict(_pair(e, "=", "--env KEY=VALUE") for e in flags.pop("--env", []))
        cwd = flags.pop("--cwd", [None])[-1]
        guard = {"secret_forms": flags.pop("--secret-forms", ["warn"])[-1]}
        if guard["secret_forms"] not in ("warn", "refuse"):
            raise UsageError("--secret-forms takes warn or refuse")
        if "--rate-limit" in flags:
            guard["rate_limit"] = _rate_limit(flags.pop("--rate-limit")[-1])
        if flags:
            raise UsageError(f"unknown option {next(iter(flags))} for %mcp connect; "
                             "see %mcp help")
        if (url is None) == (command is None):
            raise UsageError(f"give either a command or a URL: %mcp connect {name} -- COMMAND "
                             f"[ARGS...], or %mcp connect {name} --url URL")
        if url is not None and (env or cwd):
            raise UsageError("--env and --cwd are for stdio servers, not --url")
        if command is not None and headers:
            raise UsageError("--header is for --url servers, not stdio commands")
        runtime = _runtime()
        try:
            if url is not None:
                conn = await runtime.connect(name, url=url, headers=headers, **guard)
            else:
                conn = await runtime.connect(name, command, env=env or None, cwd=cwd, **guard)
        except runtime.ConnectError as error:
            first, *more = str(error).splitlines()
            if more:
                print("\n".join(more))
            raise UsageError(first) from None
        return Text(f"Connected {name!r}: {conn.server_name or '?'} {conn.server_version or ''}"
                    f" (protocol {conn.protocol_version}).")

    def _list(self, rest: str):
        runtime = _runtime()
        rows = [[name, c.server_name or "?", c.server_version or "?", c.protocol_version or "?",
                 c.status + (", muted" if c.muted else ""), str(POLICIES.for_connection(name)),
                 str(c.rate_limit or "off")]
                for name, c in runtime.connections.items()]
        rows += [[name, "?", "?", "?", "connecting", str(POLICIES.for_connection(name)), "?"]
                 for name, task in self._connecting.items()
                 if not task.done() and name not in runtime.connections]
        return Table(["name", "server", "version", "protocol", "status", "respond", "rate limit"],
                     rows,
                     "No connections. Make one with %mcp connect NAME -- COMMAND.")

    async def _tools(self, rest: str):
        tools = await (await self._ready(rest)).list_tools()
        rows = [[t["name"], t.get("description", "").strip(), _schema_text(t.get("inputSchema"))]
                for t in tools]
        return Table(["tool", "description", "input schema"], rows, f"{rest} has no tools.")

    async def _prompts(self, rest: str):
        prompts = await (await self._ready(rest)).list_prompts()
        rows = [[p["name"], p.get("description", "").strip(),
                 ", ".join(a["name"] + ("" if a.get("required") else "?")
                           for a in p.get("arguments", []))]
                for p in prompts]
        return Table(["prompt", "description", "arguments"], rows, f"{rest} has no prompts.")

    async def _resources(self, rest: str):
        resources = await (await self._ready(rest)).list_resources()
        rows = [[r["uri"], r.get("name", ""), r.get("mimeType", ""),
                 r.get("description", "").strip()] for r in resources]
        return Table(["uri", "name", "type", "description"], rows, f"{rest} has no resources.")

    async def _call(self, rest: str):
        parts = rest.split(None, 2)
        if len(parts) < 2:
            raise UsageError(f"%mcp call needs a tool name: %mcp call {parts[0]} TOOL "
                             "[JSON-ARGS]")
        name, tool = parts[0], parts[1]
        arguments = None
        if len(parts) == 3:
            try:
                arguments = json.loads(parts[2])
            except json.JSONDecodeError as error:
                raise UsageError(f"the arguments are not valid JSON ({error.msg} at column "
                                 f"{error.colno}); for example: %mcp call {name} {tool} "
                                 '{"city": "Oslo"}') from None
            if not isinstance(arguments, dict):
                raise UsageError(f"the arguments must be a JSON object, like: %mcp call {name} "
                                 f'{tool} {{"city": "Oslo"}}')
        conn = await self._ready(name)
        runtime = _runtime()
        try:
            runtime.check_blocking_supported()
        except runtime.BlockingNotSupported:
            conn.start_tool(tool, arguments)  # older kernels: the form must not block the cell
            return None
        try:
            await conn.call_tool(tool, arguments)
        except runtime.NbElicitError as error:
            raise UsageError(str(error)) from None
        # The call's view already shows the result; for the value, use the Python API.
        return None

    async def _disconnect(self, rest: str):
        await (await self._ready(rest)).close()
        return Text(f"Disconnected {rest!r}.")

    def _respond(self, rest: str):
        # The first word names a connection when more follows, or when it is a connection.
        name = None
        head = rest.split(None, 1)
        is_policy = bool(head) and (head[0].lower() in ACTIONS
                                    or head[0].lower().startswith("accept"))
        if head and not is_policy and (len(head) > 1 or head[0] in _runtime().connections):
            name, rest = head[0], head[1] if len(head) > 1 else ""
        if not rest.strip():
            where = f" {name}" if name else ""
            current = POLICIES.for_connection(name) if name else (POLICIES.everywhere or
                                                                  POLICIES.for_connection(""))
            return Text(f"Now: {current}. Set with %mcp respond{where} "
                        'ask|decline|cancel|accept {"field": "value"}')
        try:
            policy = parse_policy(rest, source=f"%mcp respond{' ' + name if name else ''}")
        except ValueError as error:
            raise UsageError(str(error)) from None
        POLICIES.set(policy, name)
        return Text(f"Forms {'from ' + repr(name) if name else 'from every server'} are now "
                    f"answered: {policy}.")

    def _history(self, rest: str):
        return _HistoryView()

    def _record(self, rest: str):
        return self._tape("record", rest)

    def _replay(self, rest: str):
        return self._tape("replay", rest)

    @staticmethod
    def _tape(which: str, rest: str):
        from ._core import recording as _replay

        if not rest:
            now = _replay.TAPE.recorder if which == "record" else _replay.TAPE.replayer
            state = f"{'to' if which == 'record' else 'from'} {now.path}" if now else "off"
            return Text(f"{which}: {state}. Use %mcp {which} PATH, or %mcp {which} off.")
        try:
            path = shlex.split(rest)[0]
        except ValueError as error:
            raise UsageError(f"cannot read the path: {error}") from None
        try:
            return Text(getattr(_replay, which)(None if path == "off" else path))
        except (ValueError, OSError) as error:
            raise UsageError(str(error).splitlines()[0]) from None

    def _language(self, rest: str):
        from ._core.i18n import language, set_language

        if rest:
            try:
                set_language(rest)
            except ValueError as error:
                raise UsageError(str(error)) from None
        now = "Chinese (zh)" if language() == "zh" else "English (en)"
        return Text(f"nb_elicit's texts are in {now}. Choose with %mcp language en|zh|auto.")

    def _mute(self, rest: str):
        self._connection(rest).mute()
        name = rest.split()[0]
        return Text(f"Muted {name!r}: its requests are answered cancel until %mcp unmute {name}.")

    def _unmute(self, rest: str):
        self._connection(rest).unmute()
        return Text(f"Unmuted {rest.split()[0]!r}: its requests show again.")

    def _limit(self, rest: str):
        name, _, rate = rest.partition(" ")
        conn = self._connection(name)
        if rate.strip():
            conn.rate_limit = _rate_limit(rate)
        return Text(f"{name!r} may ask {conn.rate_limit or 'without a limit'}.")

    def _log(self, rest: str):
        conn = self._connection(rest)
        if not conn.log_path:
            return Text(f"{rest!r} is reached over HTTP; it has no stderr here.")
        return Text(conn.log_tail(40).rstrip() or f"{rest!r} has written nothing to stderr.")

    # -- helpers ----------------------------------------------------------------------------

    async def _ready(self, name: str):
        """The named connection, once a connect still under way for it has finished."""
        name = name.split()[0]
        pending = self._connecting.pop(name, None)
        if pending is not None:
            await asyncio.wait({pending})
        return self._connection(name)

    def _connection(self, name: str):
        name = name.split()[0]
        runtime = _runtime()
        if name not in runtime.connections:
            known = ", ".join(runtime.connections) or "none yet"
            raise UsageError(f"no connection named {name!r} (connections: {known}); make one "
                             f"with %mcp connect {name} -- COMMAND")
        return runtime.connections[name]


class _HistoryView:
    def _repr_html_(self) -> str:
        return HISTORY.as_html()

    def __repr__(self) -> str:
        return HISTORY.as_text()


def _runtime():
    """The runtime modules, imported on first use (they bring in ipywidgets and the SDK)."""
    from ._core import errors as _errors
    from ._runtime import connection as _connection
    from ._runtime import kernel_compat as _kernel_compat

    class Runtime:
        connect = staticmethod(_connection.connect)
        connections = _connection.connections
        ConnectError = _errors.ConnectError
        NbElicitError = _errors.NbElicitError
        BlockingNotSupported = _errors.BlockingNotSupported
        check_blocking_supported = staticmethod(_kernel_compat.check_blocking_supported)

    return Runtime


def _parse(line: str) -> tuple[str, str]:
    sub, _, rest = line.strip().partition(" ")
    rest = rest.strip()
    if not sub:
        raise UsageError("%mcp needs a subcommand; see %mcp help")
    if sub not in SUBCOMMANDS:
        raise UsageError(f"unknown subcommand {sub!r}; use one of: {', '.join(SUBCOMMANDS)} "
                         "(see %mcp help)")
    if sub in _NEEDS_NAME and not rest:
        usage = {"call": "%mcp call NAME TOOL [JSON-ARGS]"}.get(sub, f"%mcp {sub} NAME")
        raise UsageError(f"%mcp {sub} needs a connection name: {usage}")
    return sub, rest


def _split_command(rest: str) -> tuple[str, list[str] | None]:
    words = rest.split(" -- ", 1) if " -- " in f" {rest} " else [rest]
    if rest.strip().endswith(" --") or rest.strip() == "--":
        raise UsageError("nothing after --: %mcp connect NAME -- COMMAND [ARGS...]")
    if len(words) == 1:
        return rest, None
    try:
        command = shlex.split(words[1])
    except ValueError as error:
        raise UsageError(f"cannot read the command: {error}") from None
    return words[0], command


def _flags(words: list[str]) -> dict[str, list[str]]:
    flags: dict[str, list[str]] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if not word.startswith("--"):
            raise UsageError(f"unexpected {word!r}; put the server command after --: "
                             "%mcp connect NAME -- COMMAND [ARGS...]")
        key, eq, value = word.partition("=")
        if not eq:
            if i + 1 >= len(words):
                raise UsageError(f"{word} needs a value; see %mcp help")
            value, i = words[i + 1], i + 1
        flags.setdefault(key, []).append(value)
        i += 1
    return flags


def _rate_limit(text: str):
    from ._core.limits import parse_rate_limit

    try:
        return parse_rate_limit(text)
    except ValueError as error:
        raise UsageError(str(error)) from None


def _pair(text: str, sep: str, example: str) -> tuple[str, str]:
    key, found, value = text.partition(sep)
    if not found or not key.strip():
        raise UsageError(f"cannot read {text!r}; write it like {example}")
    return key.strip(), value.strip()


def _schema_text(schema) -> str:
    if not schema:
        return ""
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    if not properties:
        return "(no arguments)"
    return "\n".join(f"{name}{'' if name in required else '?'}: {prop.get('type', 'any')}"
                     for name, prop in properties.items())


def _await_mcp_lines(lines: list[str]) -> list[str]:
    """Input transformer: ``%mcp ...`` lines (already turned into run_line_magic) are awaited,
    and their argument string starts with :data:`_AWAITED` so that the magic knows."""
    return [_MAGIC_CALL.sub(lambda m: f"await {m.group(0)}{_AWAITED}", line) for line in lines]


def _complete(shell, event) -> list[str]:
    words = event.line.split()
    typing_new = event.line.endswith(" ")
    position = len(words) - (0 if typing_new else 1)
    if position <= 1:
        return list(SUBCOMMANDS)
    if position == 2 and words[1] in _NEEDS_NAME:
        from ._runtime import connection as _connection

        return list(_connection.connections)
    if position == 2 and words[1] == "respond":
        from ._runtime import connection as _connection

        return [*ACTIONS, *_connection.connections]
    return []


def _prewarm() -> None:
    # Import the heavy parts (the SDK, jsonschema) in the background, so that the first
    # %mcp connect is quicker, without slowing %load_ext down.
    def run():
        try:
            import jsonschema  # noqa: F401
            import mcp  # noqa: F401
        except Exception:  # noqa: BLE001 - only an optimisation
            pass

    threading.Thread(target=run, name="nb_elicit-prewarm", daemon=True).start()


def load(ip) -> None:
    ip.register_magics(McpMagics)
    if _await_mcp_lines not in ip.input_transformers_post:
        ip.input_transformers_post.append(_await_mcp_lines)
    ip.set_hook("complete_command", _complete, str_key="%mcp")
    _prewarm()


def unload(ip) -> None:
    """Close every connection and every waiting form; remove the magic's input transformer."""
    if _await_mcp_lines in ip.input_transformers_post:
        ip.input_transformers_post.remove(_await_mcp_lines)
    connection_module = sys.modules.get("nb_elicit._runtime.connection")
    if connection_module is None:
        return
    from ._runtime.pending import PENDING

    PENDING.abandon("nb_elicit was unloaded.")
    closing = [conn.close() for conn in list(connection_module.connections.values())]
    connection_module.connections.clear()
    if not closing:
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    if loop is not None:
        for coro in closing:
            loop.create_task(coro)
    else:
        asyncio.run(_gather(closing))


async def _gather(coros):
    await asyncio.gather(*coros, return_exceptions=True)
