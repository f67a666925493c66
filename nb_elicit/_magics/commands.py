"""The ``%mcp`` subcommands: one table, and the magic that dispatches through it.

Each :class:`Subcommand` says how it is typed (its usage lines and one-line help), whether it
needs a connection name, whether it is awaited, and which handler runs it. ``%mcp help``,
parsing, the "needs a NAME" check and tab completion are all read from :data:`COMMANDS`.
Every subcommand runs inside :func:`.errors.map_exceptions`: what nb_elicit raises on purpose
is one line, a bug keeps its traceback.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class
from IPython.display import display

from .._core.connect_options import option
from .._core.policy import ACTIONS
from .._core.text import close_names
from . import handlers
from .errors import map_exceptions
from .tables import HelpView

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from .._runtime.connection import Connection
    from .._runtime.hooks import ElicitationHook

__all__ = ["COMMANDS", "McpMagics", "Subcommand", "help_text", "parse"]

#: Marks a magic line that the input transformer awaits (an invisible separator).
AWAITED = "\u2063"
#: Where a subcommand's one-line help starts in ``%mcp help``.
_HELP_COLUMN = 35


@dataclass(frozen=True)
class Subcommand:
    """One ``%mcp`` subcommand, as typed, explained and run."""

    name: str
    #: How to type it; the first line is also quoted when the connection name is missing.
    usage: tuple[str, ...]
    #: What it does, in one line.
    help: str
    #: ``handler(magic, rest)``; a coroutine function when :attr:`awaited`.
    handler: Callable[[McpMagics, str], object]
    #: It talks to a server: the cell awaits it (or, unmarked, it runs in the background).
    awaited: bool = False
    #: It refuses to run without a connection name as its first word.
    needs_name: bool = False
    #: Its first word may be a connection name (completion offers them).
    optional_name: bool = False
    #: Other words completion offers first, before connection names.
    choices: tuple[str, ...] = ()
    #: What else to know, in lines that follow the help in ``%mcp help`` (indented in its
    #: text; one paragraph in its table).
    more: tuple[str, ...] = ()
    #: Its background run opens the connection it names: later lines wait for it.
    opens_connection: bool = False

    @property
    def takes_name(self) -> bool:
        return self.needs_name or self.optional_name

    def help_lines(self) -> list[str]:
        """Its lines in the text of ``%mcp help``: one usage line with its help beside it, or
        every usage line, then the help under them (so the help is read as about them all)."""
        (first, *others) = self.usage
        if not others and len(first) < _HELP_COLUMN - 1:
            lines = [first.ljust(_HELP_COLUMN) + self.help]
        else:
            lines = [*self.usage, "    " + self.help]
        return lines + ["    " + line.strip() for line in self.more]

    def help_row(self) -> list[str]:
        """Its row in the table of ``%mcp help``: how to type it, and what it does."""
        more = " ".join(line.strip() for line in self.more)
        return ["\n".join(self.usage), self.help + (f"\n{more}" if more else "")]


def show_help(magic: McpMagics, rest: str) -> HelpView:
    return HelpView(["subcommand", "what it does"], [c.help_row() for c in COMMANDS],
                    help_text(), _FOOTER)


COMMANDS: tuple[Subcommand, ...] = (
    Subcommand(
        "connect",
        ("%mcp connect NAME [--env K=V]... [--cwd DIR] -- COMMAND [ARGS...]",
         "%mcp connect NAME --url URL [--header 'K: V']... [--auth MODE] [--client-id ID]",
         "%mcp connect NAME --sse URL [--header 'K: V']...",
         "%mcp connect [--config PATH] [--trust] NAME"),
        "start a stdio server, reach one over HTTP, or one the MCP config files name",
        handlers.connect, awaited=True, opens_connection=True,
        more=("    either form also takes --rate-limit RATE (optional: 10/min, 2/s burst 4)",
              "    and --secret-forms refuse (decline forms that ask for passwords, keys, "
              "cards...)",
              f"    --url also takes --auth {option('auth').metavar}",
              "    (default auto: sign in when asked), --client-id ID --client-secret-env VAR, "
              "--client-metadata-url URL,",
              "    --private-key-env VAR or --private-key-file PATH [--signing-algorithm ES256],",
              "    --id-token-env VAR --idp-token-endpoint URL --idp-client-id ID "
              "[--idp-client-secret-env VAR],",
              "    --issuer URL (see docs/sign-in.md), --token-store "
              f"{option('token_store').metavar}",
              "    and every form takes --no-apps (show no MCP App of this server, only its "
              "text results)")),
    Subcommand("list", ("%mcp list",), "the connections: server, version, protocol, status",
               handlers.list_connections),
    Subcommand("servers", ("%mcp servers",),
               "the servers of the MCP config files here (.vscode/mcp.json, .mcp.json, ...)",
               handlers.servers),
    Subcommand("tools", ("%mcp tools NAME",),
               "the server's tools, with descriptions, input schemas and their MCP Apps",
               handlers.tools, awaited=True, needs_name=True),
    Subcommand("prompts", ("%mcp prompts NAME",), "its prompts",
               handlers.prompts, awaited=True, needs_name=True),
    Subcommand("resources", ("%mcp resources NAME",), "its resources",
               handlers.resources, awaited=True, needs_name=True),
    Subcommand("call", ("%mcp call NAME TOOL [JSON-ARGS] [--no-task]",),
               "run a tool here; its forms and result appear in this cell",
               handlers.call, awaited=True, needs_name=True,
               more=("    a tool the server runs as a task shows its card (Cancel, Detach); "
                     "--no-task: a tool",
                     "    whose task support is optional runs without a task (2025-11-25 "
                     "servers)")),
    Subcommand("tasks", ("%mcp tasks [NAME]", "%mcp tasks --forget [NAME [ID]]"),
               "this kernel's tasks (NAME: only that connection's), and running ones to attach "
               "to again",
               handlers.tasks, awaited=True, optional_name=True,
               more=("    --forget drops entries from the file of running tasks (their servers "
                     "are not told)",)),
    Subcommand("task", ("%mcp task NAME ID",),
               "attach to a running task again; its card and result show here",
               handlers.task, awaited=True, needs_name=True),
    Subcommand("disconnect", ("%mcp disconnect NAME",), "close a connection (a stdio server stops)",
               handlers.disconnect, awaited=True, needs_name=True),
    Subcommand("respond", ("%mcp respond [NAME] ask|decline|cancel|accept JSON",),
               "how to answer forms without a person (default: ask)",
               handlers.respond, optional_name=True, choices=tuple(ACTIONS)),
    Subcommand("apps", ("%mcp apps [NAME] [on|off]",),
               "whether the tools' MCP Apps show in the cells of their calls (default on)",
               handlers.apps, optional_name=True, choices=("on", "off"),
               more=("    off ends the apps shown now; without NAME: every connection",)),
    Subcommand("history", ("%mcp history",),
               "every elicitation so far (secret-looking values masked)", handlers.history),
    Subcommand("record", ("%mcp record PATH | off",),
               "save the answers you give to a JSON file (secrets never)", handlers.record),
    Subcommand("replay", ("%mcp replay PATH | off",),
               "answer later runs from that file, without a person", handlers.replay),
    Subcommand("language", ("%mcp language [en|zh|auto]",),
               "the language of nb_elicit's own texts (auto: the locale)", handlers.language),
    Subcommand("mute", ("%mcp mute NAME",), "answer every request of NAME with cancel",
               handlers.mute, needs_name=True),
    Subcommand("unmute", ("%mcp unmute NAME",), "show NAME's requests again",
               handlers.unmute, needs_name=True),
    Subcommand("limit", ("%mcp limit NAME [RATE]",),
               "how often NAME may ask (off by default): 10/min, 2/s burst 4, or off",
               handlers.limit, needs_name=True),
    Subcommand("log", ("%mcp log NAME",), "the last lines a stdio server wrote to stderr",
               handlers.log, needs_name=True),
    Subcommand("logout", ("%mcp logout NAME",),
               "forget NAME's sign-in tokens; its next request signs in again",
               handlers.logout, awaited=True, needs_name=True),
    Subcommand("help", ("%mcp help",), "this table", show_help),
)

_BY_NAME = {command.name: command for command in COMMANDS}

_FOOTER = (
    "Python: nb_elicit.connections[NAME] is the live connection; await its call_tool(...).",
    'Headless runs: NB_ELICIT_RESPOND="decline" (or cancel, ask, accept {...}) in the '
    "environment.",
)


def help_text() -> str:
    """The text of ``%mcp help``: every subcommand, in table order."""
    lines = [line for command in COMMANDS for line in command.help_lines()]
    return "\n".join([*lines, "", *_FOOTER])


def parse(line: str) -> tuple[Subcommand, str]:
    """The subcommand a ``%mcp`` line names, and the rest of the line."""
    sub, _, rest = line.strip().partition(" ")
    rest = rest.strip()
    if not sub:
        raise UsageError("%mcp needs a subcommand; see %mcp help")
    command = _BY_NAME.get(sub)
    if command is None:
        close = close_names(sub, _BY_NAME)
        if close:
            raise UsageError(f"unknown subcommand {sub!r}; did you mean {' or '.join(close)}? "
                             "(%mcp help lists them all)")
        raise UsageError(f"unknown subcommand {sub!r}; use one of: {', '.join(_BY_NAME)} "
                         "(see %mcp help)")
    if command.needs_name and not rest:
        raise UsageError(f"%mcp {sub} needs a connection name: {command.usage[0]}")
    return command, rest


def _connection_name(rest: str) -> str:
    """The name a ``%mcp connect`` line connects (its first word if it cannot be read)."""
    from .options import parse_connect

    try:
        return parse_connect(rest).name
    except UsageError:
        return rest.split()[0]


@magics_class
class McpMagics(Magics):
    def __init__(self, shell: InteractiveShell | None = None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)
        #: Connects started in the background, by connection name.
        self.connecting: dict[str, asyncio.Task[object]] = {}

    @line_magic
    def mcp(self, line: str) -> object:
        """Talk to MCP servers: ``%mcp help`` lists the subcommands."""
        if line.startswith(AWAITED):
            return self._dispatch(line[len(AWAITED):])
        command, rest = parse(line)
        if not command.awaited:
            with map_exceptions():
                return command.handler(self, rest)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise UsageError(f"%mcp {command.name} talks to a server, so it must be awaited "
                             "here: write it at the top level of a cell or inside an async def, "
                             "in a cell after the one with %load_ext nb_elicit") from None
        # Background work: owned by the magic: a %mcp line run in the background, it reports itself.
        task = loop.create_task(self._in_background(self._dispatch(line)))
        if command.opens_connection and rest.split():
            self.connecting[_connection_name(rest)] = task
        return None

    async def _dispatch(self, line: str) -> object:
        command, rest = parse(line)
        with map_exceptions():
            result = command.handler(self, rest)
            return await result if inspect.isawaitable(result) else result

    @staticmethod
    async def _in_background(work: Coroutine[object, object, object]) -> None:
        try:
            result = await work
        except UsageError as error:
            print(f"UsageError: {error}", file=sys.stderr)
            return
        if result is not None:
            display(result)  # type: ignore[no-untyped-call]  # (IPython's has no annotations)

    async def ready(self, name: str) -> Connection:
        """The named connection, once a connect still under way for it has finished."""
        name = name.split()[0]
        pending = self.connecting.pop(name, None)
        if pending is not None:
            await asyncio.wait({pending})
        return self.connection(name)

    def asker(self, name: str) -> Connection | ElicitationHook:
        """What ``%mcp mute``, ``unmute`` and ``limit`` act on: the named connection, else the
        label of another client's hook (``nb_elicit.elicitation_callback.named(NAME)``, or
        the server name its requests went by)."""
        from .._runtime import hooks

        first = name.split()[0] if name.split() else name
        if first not in handlers.runtime().connections and first in hooks.labels():
            return hooks.elicitation_callback.named(first)
        return self.connection(name)

    def connection(self, name: str) -> Connection:
        """The named connection, or a UsageError that says how to make it."""
        name = name.split()[0]
        runtime = handlers.runtime()
        if name not in runtime.connections:
            known = ", ".join(runtime.connections) or "none yet"
            raise UsageError(f"no connection named {name!r} (connections: {known}); make one "
                             f"with %mcp connect {name} -- COMMAND")
        return runtime.connections[name]
