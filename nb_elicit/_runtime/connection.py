"""Connections to MCP servers, and the calls that show forms in the cell that made them.

    conn = await nb_elicit.connect("demo", command=[sys.executable, "-m", "nb_elicit.demo"])
    result = await conn.call_tool("contact_info")      # blocking: the form appears here
    call = conn.start_tool("contact_info")             # non-blocking: returns at once
    result = await call                                # ... and can be awaited later

Protocol eras are chosen per connection and per tool, so nobody has to know about them: a
connection starts in the handshake era (what SDK 1.x servers and ``ctx.elicit`` need), and a
tool that needs the 2026-07-28 era (input-required results) is retried once on a second
session in that era, which is then remembered for that tool. See ``_mcp.errors.needs_other_era``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import numbers
import os
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from .._core.answer import Answer
from .._core.auth import AuthConfig, parse_auth
from .._core.errors import (
    ConnectError,
    NbElicitError,
    ServerDisconnected,
    ServerError,
    SignInError,
    UrlElicitationRequired,
)
from .._core.limits import DEFAULT_RATE_LIMIT, RateLimit, parse_rate_limit
from .._core.masking import hide, remember
from .._core.secrets import target_secrets
from .._core.tokens import forget_server
from .._mcp import (
    ElicitationRequest,
    Era,
    HttpTarget,
    ServerSession,
    SseTarget,
    StdioTarget,
    ToolResult,
    needs_other_era,
)
from .._ui.call_view import CallView
from .._ui.task_card import TaskCard
from .apps import Apps, deliver
from .asking import RequestContext, ask
from .calls import Call, ToolCall, current_call, run_call
from .configured import configured_target
from .guard import Guard
from .kernel_compat import check_blocking_supported, widget_frontend_attached
from .pending import PENDING
from .signin import SignIn
from .tasks import TASKS, TaskRun, attach, follow, identity
from .url_required import ask_before_retry

__all__ = ["Connection", "ToolCall", "connect", "connections", "logout"]

#: Live connections by name, as made by :func:`connect` (and ``%mcp connect``).
connections: dict[str, Connection] = {}


async def connect(name: str, command: Sequence[str] | None = None, *, url: str | None = None,
                  headers: dict[str, str] | None = None, env: dict[str, str] | None = None,
                  cwd: str | os.PathLike | None = None,
                  rate_limit: str | RateLimit | None = DEFAULT_RATE_LIMIT,
                  secret_forms: str = "warn", timeout: float | None = None,
                  sse: str | None = None, config: str | os.PathLike | None = None,
                  auth: str | dict | AuthConfig | None = None, trust: bool = False,
                  apps: bool = True, **sign_in: Any) -> Connection:
    """Start a stdio server (``command``) or reach one over streamable HTTP (``url``) or the
    older HTTP+SSE transport (``sse``); with none of them, the server ``name`` of the MCP config
    files (``.vscode/mcp.json``, ``.mcp.json``, ...; or only ``config``), its inputs asked for.
    A server of a project file starts only once the person pressed **Start** on its trust card
    (or ``trust=True``, or ``NB_ELICIT_TRUST``, approves it); see docs/configs.md.

    A stdio server gets the SDK's safe default environment (HOME, LOGNAME, PATH, SHELL, TERM,
    USER) plus ``env``, and runs in ``cwd``. ``headers`` (for example a bearer token) go with
    every HTTP request. An existing connection of the same name is closed first.

    The connection is in :data:`connections` (and ``%mcp list``, status ``connecting``) from
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
    given = [what for what in (command, url, sse) if what is not None]
    if len(given) > 1 or (config is not None and given):
        raise ValueError("give one of command=[...] (stdio), url=... (HTTP), sse=... (HTTP+SSE), "
                         "or only a name (a configured server)")
    if not given:
        if env or cwd is not None or headers:
            raise ValueError("env, cwd and headers come from the config file when connecting "
                             "by name")
        target: StdioTarget | HttpTarget | None = None  # read from the config files later
    elif command is not None:
        if isinstance(command, str) or not command:
            raise ValueError("command must be a non-empty list, like [sys.executable, 'server.py']")
        target = StdioTarget(
            tuple(str(c) for c in command), _strings(env, "env") or None,
            os.fspath(cwd) if cwd is not None else None)
    else:
        if not isinstance(url or sse, str):
            raise TypeError("url must be a string, like 'http://127.0.0.1:8000/mcp'")
        kind = SseTarget if sse is not None else HttpTarget
        target = kind(url or sse, _strings(headers, "headers"))
    auth_config = parse_auth(auth, **sign_in) if target is not None else AuthConfig()
    guard = Guard(parse_rate_limit(rate_limit) if isinstance(rate_limit, str) else rate_limit,
                  secret_forms, server=name)
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, numbers.Real)
                                or not timeout > 0):
        raise ValueError("timeout must be a number of seconds above 0 (or None)")
    if target is None:
        target = await configured_target(name, config, trust=trust)
        auth_config = parse_auth(getattr(target, "auth", None) if auth is None else auth, **sign_in)
    # From here on the connection is known, as "connecting": a cell that runs while the
    # handshake does (a connect in the background) finds it, and its requests wait for it.
    remember(target_secrets(target))  # (masked wherever they show: errors, the log, history)
    connection = Connection(name, target, guard, timeout, auth=auth_config, apps=bool(apps))
    replaced = connections.get(name)
    connections[name] = connection
    if replaced is not None:
        await replaced.close()  # before the new server starts
    await connection._open()  # (a failed one removes itself from connections)
    return connection


async def logout(name: str) -> bool:
    """Forget the sign-in tokens of connection ``name`` (or of the server at URL ``name``);
    whether any were kept. The connection stays; its next request signs in again."""
    if name in connections:
        return await connections[name].logout()
    if name.startswith(("http://", "https://")):
        return forget_server(name)
    known = ", ".join(connections) or "none"
    raise ValueError(f"no connection named {name!r} (connections: {known}); give its name or "
                     "the server's URL")


class State(enum.Enum):
    """Where a connection is; :attr:`Connection.status` is its public name."""

    CONNECTING = "connecting"  # the first handshake is under way
    READY = "connected"  # a session is up, requests go out
    DISCONNECTED = "disconnected"  # the server went away; the next request starts it again
    CLOSED = "closed"  # for good: close() was called (or the first handshake failed)


#: Every change of state a connection may make; any other is ignored (closed stays closed).
_TRANSITIONS: dict[State, frozenset[State]] = {
    State.CONNECTING: frozenset({State.READY, State.CLOSED}),
    State.READY: frozenset({State.DISCONNECTED, State.CLOSED}),
    State.DISCONNECTED: frozenset({State.READY, State.CLOSED}),
    State.CLOSED: frozenset(),
}


class Connection:
    """A live connection to one MCP server. Make one with :func:`connect`."""

    def __init__(self, name: str, target: StdioTarget | HttpTarget, guard: Guard | None = None,
                 timeout: float | None = None, auth: AuthConfig | None = None,
                 apps: bool = True):
        self.name = name
        #: This connection's MCP Apps: whether they show, and their resources, read once.
        self.apps = Apps(self, enabled=apps)
        self.target = target
        #: How this connection signs in (HTTP only; None for stdio).
        self.sign_in: SignIn | None = None
        if isinstance(target, HttpTarget):
            self.sign_in = SignIn(name, target.url, auth or AuthConfig(), self._request_context)
        #: Seconds a tool call may take (None: no limit).
        self.timeout = timeout
        #: Backpressure, mute, rate limit and the secret-form rule of this connection.
        self.guard = guard or Guard(server=name)
        self._sessions: dict[str, ServerSession] = {}
        self._primary = Era.HANDSHAKE
        self._tool_eras: dict[str, Era] = {}
        self._calls: list[Call] = []
        self._state = State.CONNECTING
        self._session_lock = asyncio.Lock()
        #: Set when the first handshake has ended, either way; requests wait for it.
        self._handshake = asyncio.Event()
        #: Why the first handshake failed, for those who waited for it.
        self._handshake_error: ConnectError | None = None
        self.log_path: str | None = None
        if isinstance(target, StdioTarget):
            log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - kept open for the server
                "w+", prefix=f"nb_elicit-{_safe(name)}-", suffix=".log", delete=False)
            self._errlog = log
            self.log_path = log.name
        else:
            self._errlog = None

    # -- what it is -----------------------------------------------------------------------

    @property
    def status(self) -> str:
        """``connecting``, ``connected``, ``disconnected`` (the next request reconnects) or
        ``closed``."""
        return self._state.value

    def _to(self, state: State) -> bool:
        """Move to ``state`` if that is a change a connection may make; whether it moved.

        The one place where the state changes: a session came up (ready), a request found the
        server gone or every session ended (disconnected), close() (closed).
        """
        if state not in _TRANSITIONS[self._state]:
            return False
        self._state = state
        return True

    @property
    def server_name(self) -> str | None:
        return self._main.server_name if self._sessions else None

    @property
    def server_version(self) -> str | None:
        return self._main.server_version if self._sessions else None

    @property
    def protocol_version(self) -> str | None:
        return self._main.protocol_version if self._sessions else None

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
        if not self.log_path:
            return ""
        with open(self.log_path, encoding="utf-8", errors="replace") as log:
            return "".join(log.readlines()[-lines:])

    def __repr__(self) -> str:
        if not self._sessions:
            return f"<nb_elicit.Connection {self.name!r}: {self.status}>"
        server = f"{self.server_name} {self.server_version}" if self.server_name else "?"
        return (f"<nb_elicit.Connection {self.name!r}: {server}, "
                f"protocol {self.protocol_version}, {self.status}>")

    # -- requests -------------------------------------------------------------------------

    async def call_tool(self, tool: str, arguments: dict | None = None, *,
                        task: bool | None = None) -> ToolResult:
        """Call a tool and wait; its forms and then its result appear in this cell.

        A tool the server runs as a task shows a task card and is followed to its end;
        ``task=False`` calls a tool whose task support is optional without one."""
        check_blocking_supported()
        view = self._view(f"{tool}", show_waiting=True)
        return await self._in_call(view, self._call_tool_and_retry(tool, arguments, task),
                                   show=True, timeout=self.timeout)

    def start_tool(self, tool: str, arguments: dict | None = None, *,
                   task: bool | None = None) -> ToolCall:
        """Call a tool without waiting: returns a handle at once; forms and result show here."""
        view = self._view(tool, show_waiting=True)
        job = asyncio.get_running_loop().create_task(
            self._in_call(view, self._call_tool_and_retry(tool, arguments, task), show=True,
                          interruptible=False, timeout=self.timeout))
        return ToolCall(job, self.name, tool, view)

    async def attach_task(self, task_id: str, tool: str | None = None) -> ToolResult:
        """Follow a task of this server again (one detached, or an earlier kernel's), in this
        cell, to its end."""
        check_blocking_supported()
        if not isinstance(task_id, str) or not task_id:
            raise TypeError("task_id must be the task's id (a string)")
        return await attach(self, task_id, tool)

    def tasks(self) -> list[TaskRun]:
        """This connection's tasks that this kernel follows or followed."""
        return TASKS.runs(self.name)

    async def list_tools(self) -> list[dict]:
        return await self._quiet("list_tools", lambda s: s.list_tools())

    async def list_prompts(self) -> list[dict]:
        return await self._quiet("list_prompts", lambda s: s.list_prompts())

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> dict:
        return await self._quiet(f"prompt {name}", lambda s: s.get_prompt(name, arguments))

    async def list_resources(self) -> list[dict]:
        return await self._quiet("list_resources", lambda s: s.list_resources())

    async def read_resource(self, uri: str) -> dict:
        return await self._quiet(f"resource {uri}", lambda s: s.read_resource(uri))

    async def logout(self) -> bool:
        """Forget the tokens and client registrations kept for this server (every client, on
        disk and in memory); the next request signs in again. Whether there were any."""
        if self.sign_in is None:
            return False
        await self._handshake.wait()  # (a session half opened would keep the old tokens)
        found = forget_server(self.sign_in.server_url)
        sessions = list(self._sessions.values())
        self._sessions.clear()  # (their providers hold the tokens in memory)
        for session in sessions:
            session.stop()
        for session in sessions:
            await session.close()
        if self._state is State.READY:
            self._to(State.DISCONNECTED)
        return found

    async def close(self) -> None:
        """Close the connection: waiting forms close with a reason; a stdio server stops."""
        if not self._to(State.CLOSED):
            return
        PENDING.abandon("The connection was closed.", self.name)
        self.apps.close()
        if connections.get(self.name) is self:
            del connections[self.name]
        sessions = list(self._sessions.values())
        for session in sessions:
            session.stop()  # all at once: a caller that stops waiting leaves none running
        try:
            for session in sessions:
                await session.close()
        finally:
            if self._errlog is not None:
                self._errlog.close()

    # -- internals: sessions --------------------------------------------------------------

    @property
    def _main(self) -> ServerSession:
        return self._sessions.get(self._primary) or next(iter(self._sessions.values()))

    async def _open(self) -> None:
        """The first handshake. A failed one closes the connection (which leaves
        ``connections``); requests made meanwhile get its error."""
        try:
            await self._first_session()
            self._to(State.READY)
        except (Exception, asyncio.CancelledError) as error:
            self._handshake_error = _handshake_failed(self.name, error)
            await self.close()
            raise
        finally:
            self._handshake.set()

    async def _first_session(self) -> None:
        try:
            await self._open_session(Era.HANDSHAKE)
        except SignInError:
            raise
        except ConnectError as legacy_error:
            # A server that speaks only the 2026-07-28 protocol refuses the handshake.
            try:
                await self._open_session(Era.V2026)
            except ConnectError:
                raise self._connect_error(legacy_error) from None
            self._primary = Era.V2026

    def _connect_error(self, error: ConnectError) -> ConnectError:
        text = f"could not connect to {self.name!r} ({self.target.where()}): {error}"
        tail = self.log_tail(10).strip()
        if tail:
            text += "\nThe server's last words (stderr):\n" + tail
        return ConnectError(hide(text, self.target.hidden))

    async def _session(self, era: Era) -> ServerSession:
        """The session of this era, (re)opened if there is none or it lost its server.

        A request made while the first handshake runs waits for it; then it uses the era the
        handshake settled on (before, every request asks for the primary era, not yet known),
        or it gets the handshake's error.
        """
        if not self._handshake.is_set():
            await self._handshake.wait()
            if self._handshake_error is not None:
                raise ConnectError(str(self._handshake_error))
            era = self._primary
        return await self._open_session(era)

    async def _open_session(self, era: Era) -> ServerSession:
        async with self._session_lock:
            if self._state is State.CLOSED:
                raise ServerDisconnected(f"the connection {self.name!r} is closed")
            session = self._sessions.get(era)
            if session is None or not session.usable:
                if session is not None:
                    await session.close()  # gone already, or going: let it finish
                session = await ServerSession.open(self.target, era, self._on_elicit,
                                                   self._errlog, self.guard.complete,
                                                   self._session_ended, auth=self.sign_in,
                                                   on_task=self._follow_task)
                if self._state is State.CLOSED:  # closed while the handshake ran
                    await session.close()
                    raise ServerDisconnected(f"the connection {self.name!r} is closed")
                self._sessions[era] = session
            if self._state is not State.CONNECTING:  # (connect() says when the first is up)
                self._to(State.READY)
            return session

    async def _call_tool_and_retry(self, tool: str, arguments: dict | None,
                                   task: bool | None = None, with_app: bool = True
                                   ) -> ToolResult:
        """Call; if the server first needs pages opened (-32042), show them and retry. A tool
        that comes with an app shows it in the call's cell (``with_app``)."""
        app = await self.apps.show_for(tool, arguments) if with_app else None
        try:
            result = await self._call_tool_until_done(tool, arguments, task)
        except BaseException as error:
            deliver(app, None, error)
            raise
        deliver(app, result)
        return dataclasses.replace(result, app=app.log) if app is not None else result

    async def _call_tool_until_done(self, tool: str, arguments: dict | None,
                                    task: bool | None) -> ToolResult:
        while True:
            try:
                return await self._call_tool(tool, arguments, task)
            except UrlElicitationRequired as error:
                if not await ask_before_retry(self._request_context(), tool, error):
                    raise

    async def _call_tool(self, tool: str, arguments: dict | None,
                         task: bool | None = None) -> ToolResult:
        if arguments is not None and not isinstance(arguments, dict):
            raise TypeError("arguments must be a dict of the tool's parameters")
        era = self._tool_eras.get(tool, self._primary)
        call = current_call.get()
        progress = call.view.show_progress if call is not None else None
        try:
            return await (await self._session(era)).call_tool(tool, arguments, None, progress,
                                                              task=task)
        except ServerError as error:
            if not needs_other_era(error, era):
                raise
            other = Era.V2026 if era == Era.HANDSHAKE else Era.HANDSHAKE
            try:
                session = await self._session(other)
            except ConnectError:
                raise error from None
            self._tool_eras[tool] = other
            return await session.call_tool(tool, arguments, None, progress, task=task)

    # -- internals: calls and their views --------------------------------------------------

    def _view(self, what: str, show_waiting: bool) -> CallView:
        if self._state is State.CLOSED:
            raise ServerDisconnected(f"the connection {self.name!r} is closed; connect again")
        view = CallView(self.name, what, show_waiting=show_waiting)
        if show_waiting or widget_frontend_attached():
            # (a quiet request shows nothing unless a form may come)
            view.show(keyboard=widget_frontend_attached())
        return view

    async def _quiet(self, what: str, request: Callable[[ServerSession], Awaitable[Any]]):
        view = self._view(what, show_waiting=False)

        async def run():
            return await request(await self._session(self._primary))

        return await self._in_call(view, run(), show=False, quiet=True)

    async def _in_call(self, view: CallView, work: Awaitable, **options):
        """``work`` as a call of this connection (see :func:`run_call` for the ``options``)."""
        return await run_call(self.name, view, work, self._calls,
                              on_disconnect=self._mark_disconnected, **options)

    def _mark_disconnected(self) -> None:
        """A request found the server gone."""
        self._to(State.DISCONNECTED)

    def _session_ended(self) -> None:
        """A session ended (its server exited, or it was closed)."""
        if not any(s.usable for s in self._sessions.values()):
            self._to(State.DISCONNECTED)

    def _gone(self) -> bool:
        return self._state in (State.DISCONNECTED, State.CLOSED)

    # -- internals: elicitation --------------------------------------------------------------

    async def _on_elicit(self, request: ElicitationRequest) -> Answer:
        # (ask ends every failure of its own: a line in the cell, an error to the server)
        return await ask(self._request_context(request.related_task), request)

    # -- internals: tasks ----------------------------------------------------------------------

    async def _follow_task(self, remote) -> ToolResult:
        """A call the server runs as a task: its card in the call's cell, followed to its end."""
        call = current_call.get()
        view = call.view if call is not None else self._stray_view()
        card = TaskCard(self.name, remote.tool, remote.task_id, remote.shape.label)
        view.show_task(card)
        run = TaskRun(self.name, remote, card, call=call)
        card.on_cancel(run.ask_cancel)
        card.on_detach(run.ask_detach)
        TASKS.begin(run, identity(self))

        async def ask_one(request: ElicitationRequest) -> Answer:
            return await ask(self._request_context(), request, refuse_with="cancel")

        return await follow(run, ask_one, hint=f"%mcp task {self.name} {remote.task_id}")

    def _request_context(self, related_task: str | None = None) -> RequestContext:
        """Where a request of this server (a form, a URL card, a sign-in card) is answered.

        Where the SDK tells which call it belongs to, that call (``current_call``): a request
        that comes on a call's own streamable-HTTP response runs in that call's context, and
        so do the requests of a 2026-07-28 call and a -32042 retry. Where the transport cannot
        tell (stdio, HTTP+SSE, HTTP's standalone stream), it may belong to any call running
        now: every one of them but the quiet ones keeps its timeout paused while it is open,
        and it shows in the newest one's cell. A quiet request (list_tools, read_resource, ...)
        never owns it: with no other call running, it shows in a view of its own, in the
        current cell."""
        told = current_call.get()
        if told is None and related_task is not None:  # (2025-11-25: asked inside a task)
            run = TASKS.find(self.name, related_task)
            told = run.call if run is not None and run.call in self._calls else None
        calls = [told] if told is not None else [c for c in reversed(self._calls) if not c.quiet]
        view = calls[0].view if calls else self._stray_view()
        return RequestContext(self.name, view, self.guard, self._gone, calls)

    def _stray_view(self) -> CallView:
        """Where a request that belongs to no call of ours is shown: the current cell."""
        return self._view("a request of its own", show_waiting=False)


def _handshake_failed(name: str, error: BaseException) -> ConnectError:
    """What a request that waited for the first handshake is told: one line."""
    if isinstance(error, NbElicitError):
        text = str(error).splitlines()[0] if str(error) else type(error).__name__
    elif isinstance(error, asyncio.CancelledError):
        text = f"connecting {name!r} was stopped before it finished"
    else:
        text = f"could not connect to {name!r}: {error!r}"
    return ConnectError(text)


def _strings(mapping: Any, what: str) -> dict[str, str]:
    """``mapping`` (env or headers) as a new dict of strings; TypeError if it is not one."""
    if mapping is None:
        return {}
    if not hasattr(mapping, "items") or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in mapping.items()):
        raise TypeError(f"{what} must be a dict of strings to strings")
    return dict(mapping)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:40]
