"""Connections to MCP servers, and the calls that show forms in the cell that made them.

    conn = await nb_elicit.connect("demo", command=[sys.executable, "-m", "nb_elicit.demo"])
    result = await conn.call_tool("contact_info")      # blocking: the form appears here
    call = conn.start_tool("contact_info")             # non-blocking: returns at once
    result = await call                                # ... and can be awaited later

Protocol eras are chosen per connection and per tool, so nobody has to know about them: a
connection starts in the handshake era (what SDK 1.x servers and ``ctx.elicit`` need), and a
tool that needs the 2026-07-28 era (input-required results) is retried once on a second
session in that era, which is then remembered for that tool (:mod:`.sessions`; see
``_mcp.errors.needs_other_era``). A connection's calls are run by :mod:`.runner`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._core.answer import Answer
from .._core.connect_options import ConnectOptions
from .._core.errors import InvalidArgument, ServerDisconnected
from .._core.limits import DEFAULT_RATE_LIMIT, RateLimit, parse_rate_limit
from .._core.secrets.masking import remember
from .._core.secrets.names import target_secrets
from .._core.signin.auth import AuthConfig
from .._core.signin.tokens import forget_server
from .._core.tasks.model import TaskState
from .._core.url import check_address
from .._mcp import ElicitationRequest, HttpTarget, SseTarget, StdioTarget, ToolResult
from .apps import Apps
from .background import Background
from .calls import CallKind, ToolCall
from .configured import configured_target
from .guard import Guard
from .kernel_compat import check_blocking_supported
from .runner import CallRunner, ConnectionHost
from .sessions import SessionPool, State
from .signin import SignIn
from .state import KernelState, kernel_state
from .task_attach import attach, look_up
from .tasks import FinishedTask, TaskRun

if TYPE_CHECKING:
    from .._mcp.tasks import RemoteTask

# (connections: the kernel's owner's, read through __getattr__ below)
__all__ = ["Connection", "ToolCall", "connect", "connections", "logout"]  # noqa: F822



def __getattr__(name: str) -> dict[str, Connection]:
    # ``connections``: the live connections by name, as made by :func:`connect` (and ``%mcp
    # connect``), which the kernel's owner keeps (nb_elicit.connections reads them here).
    if name == "connections":
        return kernel_state().connections
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


async def connect(name: str, command: Sequence[str] | None = None, *, url: str | None = None,
                  headers: dict[str, str] | None = None, env: dict[str, str] | None = None,
                  cwd: str | os.PathLike[str] | None = None,
                  rate_limit: str | RateLimit | None = DEFAULT_RATE_LIMIT,
                  secret_forms: str = "warn", timeout: float | None = None,
                  sse: str | None = None, config: str | os.PathLike[str] | None = None,
                  auth: str | dict[str, Any] | AuthConfig | None = None, trust: bool = False,
                  apps: bool = True, **sign_in: Any) -> Connection:
    """Start a stdio server (``command``) or reach one over streamable HTTP (``url``) or the
    older HTTP+SSE transport (``sse``); with none of them, the server ``name`` of the MCP config
    files (``.vscode/mcp.json``, ``.mcp.json``, ...; or only ``config``), its inputs asked for.
    A server of a project file starts only once the person pressed **Start** on its trust card
    (or ``trust=True``, or ``NB_ELICIT_TRUST``, approves it); see docs/configs.md.

    A stdio server gets the SDK's safe default environment (HOME, LOGNAME, PATH, SHELL, TERM,
    USER) plus ``env``, and runs in ``cwd``. ``headers`` (for example a bearer token) go with
    every HTTP request. An existing connection of the same name is closed first.

    The connection is in ``connections`` (and ``%mcp list``, status ``connecting``) from
    the moment it starts connecting, so a cell that runs while a connect is under way in the
    background finds it; its calls made meanwhile wait for the handshake. A connect that fails
    removes it, and its one-line error is raised to them too.

    At most three of the server's forms are open at once; further requests wait in order and
    are shown as earlier ones are answered (past 100 waiting, nb_elicit answers ``cancel``).
    ``rate_limit`` optionally caps how often the server may ask (``"10/min"``, ``"2/s burst
    4"``; the default, None, is no limit): requests past it are answered ``cancel`` with one
    notice. ``secret_forms="refuse"`` declines forms that ask for what looks like a secret; the
    default, ``"warn"``, shows them with a warning, the secret field masked and empty.
    ``timeout`` (seconds) ends a tool call that takes longer; the time a form of the call is
    open does not count (a person who is answering is never cut off), and the form says so.

    Sign-in (HTTP): a server that answers 401 starts it by itself (``auth="auto"``); a card
    in this cell asks the person to sign in, and the tokens are kept (``token_store="disk"``,
    owner-only files under the Jupyter data directory, or ``"memory"``) and refreshed.
    ``client_id`` (with ``client_secret_env``, the NAME of the environment variable holding
    the secret) uses a pre-registered client; ``auth="client_credentials"``, ``"private_key_jwt"``
    (``private_key_env``) and ``"identity_assertion"`` (``id_token_env``, ``idp_token_endpoint``,
    ...) sign in without a person; ``client_metadata_url`` is the client ID where the server
    supports Client ID Metadata Documents; ``auth="off"`` never signs in. These sign-in options
    (``**sign_in``) are :class:`AuthConfig`'s fields; see docs/sign-in.md.

    ``apps=False`` shows no MCP App of this server (its tools' text results only); see
    docs/apps.md.
    """
    # Every argument is checked before anything happens: a bad one leaves a live connection of
    # the same name as it was.
    # (ConnectOptions takes the values as given and checks and converts them itself: a list
    # command, a PathLike cwd or config, None for no headers or env, a rate limit's text)
    options = ConnectOptions(name, command, url, sse, config, headers, env,  # type: ignore[arg-type]
                             cwd, rate_limit,  # type: ignore[arg-type]
                             secret_forms, timeout, auth, trust, apps, sign_in)
    target: StdioTarget | HttpTarget | None = None  # (a configured server's: read later)
    if options.transport == "stdio":
        assert options.command is not None  # (the stdio transport is the one of a command)
        target = StdioTarget(options.command, options.env or None, options.cwd)
    elif options.transport != "config":
        kind = SseTarget if options.transport == "sse" else HttpTarget
        address = options.url or options.sse
        assert address is not None  # (an HTTP transport is the one of a url or sse)
        target = kind(address, options.headers)
    auth_config = options.auth_config() if target is not None else AuthConfig()
    guard = Guard(options.rate_limit, options.secret_forms, server=name)
    if target is None:
        target = await configured_target(name, config, trust=trust)
        auth_config = options.auth_config(getattr(target, "auth", None))
    # From here on the connection is known, as "connecting": a cell that runs while the
    # handshake does (a connect in the background) finds it, and its requests wait for it.
    remember(target_secrets(target))  # (masked wherever they show: errors, the log, history)
    connection = Connection(name, target, guard, options.timeout, auth=auth_config,
                            apps=options.apps)
    connections = kernel_state().connections
    replaced = connections.get(name)
    connections[name] = connection
    if replaced is not None:
        await replaced.close()  # before the new server starts
    # (a failed one closes the connection, which leaves connections)
    await connection.sessions.open(on_failure=connection.close)
    return connection


async def logout(name: str) -> bool:
    """Forget the sign-in tokens of connection ``name`` (or of the server at URL ``name``);
    whether any were kept. The connection stays; its next request signs in again."""
    connections = kernel_state().connections
    if name in connections:
        return await connections[name].logout()
    if name.startswith(("http://", "https://")):
        return forget_server(check_address(name, "the server's URL"))
    known = ", ".join(connections) or "none"
    raise InvalidArgument(f"no connection named {name!r} (connections: {known}); give its name "
                          "or the server's URL")


class _Requests:
    """What a connection's server asks of it, and what the connection hears of it
    (:class:`~nb_elicit._mcp.ServerRequests`, given to its sessions): forms and tasks go to its
    call runner, a URL interaction done to its guard, a session's end to its sessions."""

    def __init__(self, connection: Connection):
        self._connection = connection

    @property
    def sign_in(self) -> SignIn | None:
        return self._connection.sign_in

    async def elicit(self, request: ElicitationRequest) -> Answer:
        return await self._connection.runner.on_elicit(request)

    async def follow(self, task: RemoteTask) -> ToolResult:
        return await self._connection.runner.follow_task(task)

    def completed(self, elicitation_id: str) -> None:
        self._connection.guard.complete(elicitation_id)

    def ended(self) -> None:
        self._connection.sessions.session_ended()


class Connection:
    """A live connection to one MCP server. Make one with :func:`connect`.

    A facade over its :attr:`sessions` (one per protocol era, and where the connection is) and
    its :attr:`runner` (its calls, their views, and where the server's requests go)."""

    def __init__(self, name: str, target: StdioTarget | HttpTarget, guard: Guard | None = None,
                 timeout: float | None = None, auth: AuthConfig | None = None,
                 apps: bool = True):
        self.name = name
        #: The kernel's owner this connection was made in (which its close leaves).
        self._kept_by: KernelState = kernel_state()
        self.target = target
        #: Seconds a tool call may take (None: no limit).
        self.timeout = timeout
        #: Backpressure, mute, rate limit and the secret-form rule of this connection.
        self.guard = guard or Guard(server=name)
        #: Its sessions, one per protocol era, and its state.
        self.sessions = SessionPool(name, target, _Requests(self))
        #: The work it runs in the background (calls started with :meth:`start_tool`): ended
        #: with the connection.
        self.background = Background(name)
        #: Its calls: their views, running them, and where the server's requests are answered.
        self.runner = CallRunner(name, self.sessions, self.guard)
        #: This connection's MCP Apps: whether they show, and their resources, read once.
        self.apps = Apps(ConnectionHost(self.runner, lambda: self.timeout), enabled=apps)
        #: How this connection signs in (HTTP only; None for stdio).
        self.sign_in: SignIn | None = None
        if isinstance(target, HttpTarget):
            self.sign_in = SignIn(name, target.url, auth or AuthConfig(),
                                  self.runner.request_context)

    # -- what it is -----------------------------------------------------------------------

    @property
    def status(self) -> str:
        """``connecting``, ``connected``, ``disconnected`` (the next request reconnects) or
        ``closed``."""
        return self.sessions.state.value

    @property
    def log_path(self) -> str | None:
        """The file a stdio server's stderr goes to (None for HTTP)."""
        return self.sessions.log_path

    @property
    def server_name(self) -> str | None:
        return self.sessions.server_name

    @property
    def server_version(self) -> str | None:
        main = self.sessions.main
        return main.server_version if main is not None else None

    @property
    def protocol_version(self) -> str | None:
        main = self.sessions.main
        return main.protocol_version if main is not None else None

    @property
    def muted(self) -> bool:
        return self.guard.muted

    def mute(self) -> None:
        """Answer every further request of this server with cancel, until :meth:`unmute`."""
        self.guard.muted = True

    def unmute(self) -> None:
        self.guard.muted = False

    @property
    def rate_limit(self) -> RateLimit | None:
        return self.guard.rate_limit

    @rate_limit.setter
    def rate_limit(self, limit: str | RateLimit | None) -> None:
        self.guard.set_rate_limit(parse_rate_limit(limit) if isinstance(limit, str) else limit)

    def log_tail(self, lines: int = 20) -> str:
        """The last lines a stdio server wrote to its stderr."""
        return self.sessions.log_tail(lines)

    def __repr__(self) -> str:
        if self.sessions.main is None:
            return f"<nb_elicit.Connection {self.name!r}: {self.status}>"
        server = f"{self.server_name} {self.server_version}" if self.server_name else "?"
        return (f"<nb_elicit.Connection {self.name!r}: {server}, "
                f"protocol {self.protocol_version}, {self.status}>")

    # -- requests -------------------------------------------------------------------------

    async def call_tool(self, tool: str, arguments: dict[str, Any] | None = None, *,
                        task: bool | None = None) -> ToolResult:
        """Call a tool and wait; its forms and then its result appear in this cell.

        A tool the server runs as a task shows a task card and is followed to its end;
        ``task=False`` calls a tool whose task support is optional without one."""
        check_blocking_supported()
        view = self.runner.view(f"{tool}", show_waiting=True)
        return await self.runner.run(view, self._with_app(tool, arguments, task), CallKind.TOOL,
                                     self.timeout)

    def start_tool(self, tool: str, arguments: dict[str, Any] | None = None, *,
                   task: bool | None = None) -> ToolCall:
        """Call a tool without waiting: returns a handle at once; forms and result show here."""
        view = self.runner.view(tool, show_waiting=True)
        job = self.background.spawn(
            self.runner.run(view, self._with_app(tool, arguments, task), CallKind.STARTED,
                            self.timeout), tool, awaited=True)
        return ToolCall(job, self.name, tool, view)

    async def _with_app(self, tool: str, arguments: dict[str, Any] | None,
                        task: bool | None) -> ToolResult:
        """The call of ``tool`` a cell started, with the app it comes with shown in its cell
        and given its result (an app's own calls show none: see :class:`ConnectionHost`)."""
        return await self.apps.with_app(
            tool, arguments, lambda: self.runner.call_tool(tool, arguments, task))

    async def attach_task(self, task_id: str, tool: str | None = None) -> ToolResult:
        """Follow a task of this server again (one detached, or an earlier kernel's), in this
        cell, to its end."""
        check_blocking_supported()
        if not isinstance(task_id, str) or not task_id:
            raise TypeError("task_id must be the task's id (a string)")
        return await attach(self.sessions, self.runner, task_id, tool, self.timeout)

    async def task_state(self, task_id: str) -> TaskState:
        """How a task of this server that this kernel does not follow now (detached, or an
        earlier kernel's) is, as the server says now (``tasks/get``); nothing is shown."""
        return await look_up(self.sessions, task_id)

    def tasks(self) -> list[TaskRun | FinishedTask]:
        """This connection's tasks that this kernel follows or followed."""
        return self._kept_by.tasks.runs(self.name)

    async def list_tools(self) -> list[dict[str, Any]]:
        return await self.runner.quiet("list_tools", lambda s: s.list_tools())

    async def tool_names(self) -> list[str] | None:
        """The names of the server's tools (listed once, and again after the server says its
        list changed); None when the server cannot list them."""
        # (straight to the session, as an app's look-up: a listing asks nothing of a person)
        try:
            return await (await self.sessions.session()).tool_names()
        except ServerDisconnected:
            self.sessions.to(State.DISCONNECTED)  # (as a call that found the server gone)
            raise

    async def list_prompts(self) -> list[dict[str, Any]]:
        return await self.runner.quiet("list_prompts", lambda s: s.list_prompts())

    async def get_prompt(self, name: str,
                         arguments: dict[str, str] | None = None) -> dict[str, Any]:
        return await self.runner.quiet(f"prompt {name}", lambda s: s.get_prompt(name, arguments))

    async def list_resources(self) -> list[dict[str, Any]]:
        return await self.runner.quiet("list_resources", lambda s: s.list_resources())

    async def read_resource(self, uri: str) -> dict[str, Any]:
        return await self.runner.quiet(f"resource {uri}", lambda s: s.read_resource(uri))

    async def logout(self) -> bool:
        """Forget the tokens and client registrations kept for this server (every client, on
        disk and in memory); the next request signs in again. Whether there were any."""
        if self.sign_in is None:
            return False
        await self.sessions.wait_handshake()  # (a session half opened would keep the old tokens)
        found = forget_server(self.sign_in.server_url)
        await self.sessions.drop()  # (their providers hold the tokens in memory)
        return found

    async def close(self) -> None:
        """Close the connection: waiting forms close with a reason; a stdio server stops;
        its background work (a call still running) ends."""
        if not self.sessions.to(State.CLOSED):
            return
        self._kept_by.pending.close("The connection was closed.", self.guard)
        self.apps.close()
        if self._kept_by.connections.get(self.name) is self:
            del self._kept_by.connections[self.name]
        try:
            await self.sessions.close()
        finally:
            await self.background.close()  # (its calls have mostly ended with their session)


