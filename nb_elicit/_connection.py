"""Connections to MCP servers, and the calls that show forms in the cell that made them.

    conn = await nb_elicit.connect("demo", command=[sys.executable, "-m", "nb_elicit.demo"])
    result = await conn.call_tool("contact_info")      # blocking: the form appears here
    call = conn.start_tool("contact_info")             # non-blocking: returns at once
    result = await call                                # ... and can be awaited later

Protocol eras are chosen per connection and per tool, so nobody has to know about them: a
connection starts in the handshake era (what SDK 1.x servers and ``ctx.elicit`` need), and a
tool that needs the 2026-07-28 era (input-required results) is retried once on a second
session in that era, which is then remembered for that tool. See ``_mcp.needs_other_mode``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from IPython.display import display

from ._answer import Answer
from ._call_view import CallView
from ._errors import (
    ConnectError,
    InvalidRequest,
    NbElicitError,
    SchemaError,
    ServerDisconnected,
    ServerError,
)
from ._form import ElicitationForm
from ._history import HISTORY
from ._kernel_compat import (
    check_blocking_supported,
    keep_widget_messages_flowing,
    widget_frontend_attached,
)
from ._mcp import (
    LEGACY,
    MODERN,
    ElicitationRequest,
    HttpTarget,
    ServerSession,
    StdioTarget,
    ToolResult,
    needs_other_mode,
)
from ._pending import PENDING
from ._policy import POLICIES, Policy, headless_wait
from ._schema import parse_schema
from ._validate import validate_content

__all__ = ["Connection", "ToolCall", "connect", "connections"]

#: Live connections by name, as made by :func:`connect` (and ``%mcp connect``).
connections: dict[str, Connection] = {}

#: How often a waiting cell wakes up, so that Kernel > Interrupt ends it promptly.
_WAKE = 0.2
#: How long after a withdrawn request to look whether the server is gone instead.
_SETTLE = 0.05

_current_call: contextvars.ContextVar[_Call | None] = contextvars.ContextVar(
    "nb_elicit_call", default=None)


async def connect(name: str, command: Sequence[str] | None = None, *, url: str | None = None,
                  headers: dict[str, str] | None = None, env: dict[str, str] | None = None,
                  cwd: str | os.PathLike | None = None) -> Connection:
    """Start a stdio server (``command``) or reach one over streamable HTTP (``url``).

    A stdio server gets the SDK's safe default environment (HOME, LOGNAME, PATH, SHELL, TERM,
    USER) plus ``env``, and runs in ``cwd``. ``headers`` (for example a bearer token) go with
    every HTTP request. An existing connection of the same name is closed first.
    """
    if (command is None) == (url is None):
        raise ValueError("give either command=[...] for a stdio server or url=... for HTTP")
    if command is not None:
        if isinstance(command, str) or not command:
            raise ValueError("command must be a non-empty list, like [sys.executable, 'server.py']")
        target: StdioTarget | HttpTarget = StdioTarget(
            tuple(str(c) for c in command), dict(env) if env else None,
            os.fspath(cwd) if cwd is not None else None)
    else:
        target = HttpTarget(url, dict(headers or {}))
    if name in connections:
        await connections.pop(name).close()
    connection = Connection(name, target)
    await connection._open()
    connections[name] = connection
    return connection


class _Call:
    """One request in flight on a connection, with the view in the cell that made it."""

    def __init__(self, view: CallView):
        self.view = view
        self.asking = 0  # elicitations of this call still being answered
        self.settled = asyncio.Event()
        self.settled.set()

    async def let_answers_out(self, timeout: float) -> None:
        """Give answers just given (a dismissal on interrupt) time to reach the server."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.settled.wait(), timeout)
        await asyncio.sleep(_SETTLE)  # the SDK writes the response on its next turn


class Connection:
    """A live connection to one MCP server. Make one with :func:`connect`."""

    def __init__(self, name: str, target: StdioTarget | HttpTarget):
        self.name = name
        self.target = target
        self._sessions: dict[str, ServerSession] = {}
        self._primary = LEGACY
        self._tool_modes: dict[str, str] = {}
        self._calls: list[_Call] = []
        self._disconnected = False
        self._closed = False
        self._session_lock = asyncio.Lock()
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
        if self._closed:
            return "closed"
        if self._disconnected or all(s.closed for s in self._sessions.values()):
            return "disconnected"
        return "connected"

    @property
    def server_name(self) -> str | None:
        return self._main.server_name if self._sessions else None

    @property
    def server_version(self) -> str | None:
        return self._main.server_version if self._sessions else None

    @property
    def protocol_version(self) -> str | None:
        return self._main.protocol_version if self._sessions else None

    def log_tail(self, lines: int = 20) -> str:
        """The last lines a stdio server wrote to its stderr."""
        if not self.log_path:
            return ""
        with open(self.log_path, encoding="utf-8", errors="replace") as log:
            return "".join(log.readlines()[-lines:])

    def __repr__(self) -> str:
        server = f"{self.server_name} {self.server_version}" if self.server_name else "?"
        return (f"<nb_elicit.Connection {self.name!r}: {server}, "
                f"protocol {self.protocol_version}, {self.status}>")

    # -- requests -------------------------------------------------------------------------

    async def call_tool(self, tool: str, arguments: dict | None = None) -> ToolResult:
        """Call a tool and wait; its forms and then its result appear in this cell."""
        check_blocking_supported()
        view = self._view(f"{tool}", show_waiting=True)
        return await self._in_call(view, self._call_tool(tool, arguments), show=True)

    def start_tool(self, tool: str, arguments: dict | None = None) -> ToolCall:
        """Call a tool without waiting: returns a handle at once; forms and result show here."""
        view = self._view(tool, show_waiting=True)
        task = asyncio.get_running_loop().create_task(
            self._in_call(view, self._call_tool(tool, arguments), show=True, interruptible=False))
        return ToolCall(task, self.name, tool)

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

    async def close(self) -> None:
        """Close the connection: waiting forms close with a reason; a stdio server stops."""
        if self._closed:
            return
        self._closed = True
        PENDING.abandon("The connection was closed.", self.name)
        for session in list(self._sessions.values()):
            await session.close()
        if connections.get(self.name) is self:
            del connections[self.name]
        if self._errlog is not None:
            self._errlog.close()

    # -- internals: sessions --------------------------------------------------------------

    @property
    def _main(self) -> ServerSession:
        return self._sessions.get(self._primary) or next(iter(self._sessions.values()))

    async def _open(self) -> None:
        try:
            await self._session(LEGACY)
        except ConnectError as legacy_error:
            # A server that speaks only the 2026-07-28 protocol refuses the handshake.
            try:
                await self._session(MODERN)
            except ConnectError:
                await self.close()
                raise self._connect_error(legacy_error) from None
            self._primary = MODERN

    def _connect_error(self, error: ConnectError) -> ConnectError:
        where = " ".join(self.target.command) if isinstance(self.target, StdioTarget) else (
            self.target.url)
        text = f"could not connect to {self.name!r} ({where}): {error}"
        tail = self.log_tail(10).strip()
        if tail:
            text += "\nThe server's last words (stderr):\n" + tail
        return ConnectError(text)

    async def _session(self, mode: str) -> ServerSession:
        async with self._session_lock:
            session = self._sessions.get(mode)
            if session is None or session.closed:
                if self._closed:
                    raise ServerDisconnected(f"the connection {self.name!r} is closed")
                session = await ServerSession.open(self.target, mode, self._on_elicit,
                                                   self._errlog)
                self._sessions[mode] = session
            return session

    async def _call_tool(self, tool: str, arguments: dict | None) -> ToolResult:
        if arguments is not None and not isinstance(arguments, dict):
            raise TypeError("arguments must be a dict of the tool's parameters")
        mode = self._tool_modes.get(tool, self._primary)
        try:
            return await (await self._session(mode)).call_tool(tool, arguments)
        except ServerError as error:
            if not needs_other_mode(error, mode):
                raise
            other = MODERN if mode == LEGACY else LEGACY
            try:
                session = await self._session(other)
            except ConnectError:
                raise error from None
            self._tool_modes[tool] = other
            return await session.call_tool(tool, arguments)

    # -- internals: calls and their views --------------------------------------------------

    def _view(self, what: str, show_waiting: bool) -> CallView:
        if self._closed:
            raise ServerDisconnected(f"the connection {self.name!r} is closed; connect again")
        view = CallView(self.name, what, show_waiting=show_waiting)
        display(view)
        return view

    async def _quiet(self, what: str, request: Callable[[ServerSession], Awaitable[Any]]):
        view = self._view(what, show_waiting=False)

        async def run():
            return await request(await self._session(self._primary))

        return await self._in_call(view, run(), show=False)

    async def _in_call(self, view: CallView, work: Awaitable, *, show: bool,
                       interruptible: bool = True):
        call = _Call(view)
        self._calls.append(call)
        token = _current_call.set(call)
        task = asyncio.ensure_future(work)
        try:
            if interruptible:
                # Wake up now and then: Kernel > Interrupt only lands while we are awake.
                while not task.done():
                    await asyncio.wait({task}, timeout=_WAKE)
            result = await task
        except asyncio.CancelledError:
            # Interrupted: waiting forms answer "cancel", then the call itself is cancelled
            # (the SDK tells the server). The answers go first, so that the server hears them.
            if PENDING.dismiss(call=call):
                await call.let_answers_out(timeout=0.5)
            task.cancel()
            view.show_failure(f"Interrupted: {self.name} · {view.what} was cancelled.")
            raise
        except ServerDisconnected as error:
            self._disconnected = True
            PENDING.abandon(f"{self.name} disconnected.", self.name)
            view.show_failure(f"✖ {self.name} · {view.what}: {error}")
            raise ServerDisconnected(f"{self.name} · {view.what}: {error}") from None
        except NbElicitError as error:
            view.show_failure(f"✖ {self.name} · {view.what}: {error}")
            raise
        finally:
            _current_call.reset(token)
            self._calls.remove(call)
            view.finish()
            if not show:
                self._print_for_headless(view)
        if show:
            view.show_result(result)
            self._print_for_headless(view)
        return result

    @staticmethod
    def _print_for_headless(view: CallView) -> None:
        """Where nobody sees widgets (nbclient, papermill), say it in plain text too."""
        if view.lines and not widget_frontend_attached():
            print("\n".join(view.lines))
            view.lines.clear()

    # -- internals: elicitation --------------------------------------------------------------

    async def _on_elicit(self, request: ElicitationRequest) -> Answer:
        call = _current_call.get() or (self._calls[-1] if self._calls else None)
        view = call.view if call is not None else self._stray_view()
        try:
            return await self._ask(request, call, view)
        except (SchemaError, InvalidRequest, asyncio.CancelledError):
            raise
        except Exception as error:
            view.notice(f"nb_elicit failed while showing a request from {self.name}: {error!r}",
                        "error")
            raise

    async def _ask(self, request: ElicitationRequest, call: _Call | None,
                   view: CallView) -> Answer:
        if request.mode == "url":
            view.notice(f"{self.name} asked you to open a web page ({request.url}). nb_elicit "
                        "does not handle URL requests yet, so it declined.")
            HISTORY.add(self.name, request.message, "decline", None, "URL not supported")
            return Answer("decline")
        if request.mode != "form":
            raise InvalidRequest(f"unknown elicitation mode {request.mode!r}")
        try:
            spec = parse_schema(request.requested_schema)
        except SchemaError as error:
            view.notice(f"{self.name} asked with a form nb_elicit cannot show, so it answered "
                        f"with an error. {error}")
            HISTORY.add(self.name, request.message, "error", None, "unsupported schema")
            raise
        policy = POLICIES.for_connection(self.name)
        if policy.action != "ask":
            return self._answer_by_policy(policy, request, spec, view)
        form = ElicitationForm(request.message, request.requested_schema, server=self.name)
        keep_widget_messages_flowing(form)
        view.add_form(form)
        timer = None
        if not widget_frontend_attached():
            wait = headless_wait()
            timer = asyncio.get_running_loop().call_later(wait, self._no_frontend, form, view,
                                                          wait)
        if call is not None:
            call.asking += 1
            call.settled.clear()
        try:
            with PENDING.track(form, self.name, call):
                answer = await form.wait()
        except asyncio.CancelledError:
            asyncio.get_running_loop().call_later(_SETTLE, self._withdrawn, form)
            raise
        finally:
            if timer is not None:
                timer.cancel()
            if call is not None:
                call.asking -= 1
                if not call.asking:
                    call.settled.set()
        HISTORY.add(self.name, request.message, answer.action, answer.content, form.answered_by,
                    request.requested_schema)
        return answer

    def _answer_by_policy(self, policy: Policy, request: ElicitationRequest, spec,
                          view: CallView) -> Answer:
        answer = Answer(policy.action) if policy.action != "accept" else None
        if answer is None:
            names = {field.name for field in spec}
            content = {k: v for k, v in (policy.content or {}).items() if k in names}
            problems = validate_content(request.requested_schema, content)
            if problems:
                detail = "; ".join(f"{k}: {v}" for k, v in problems.items())
                view.notice(f"{self.name} asked: {request.message} The respond policy's answer "
                            f"does not fit this form ({detail}), so nb_elicit answered cancel.")
                HISTORY.add(self.name, request.message, "cancel", None, "policy did not fit")
                return Answer("cancel")
            answer = Answer("accept", content)
        view.notice(f"{self.name} asked: {request.message} Answered {answer.action} by the "
                    f"respond policy ({policy.source}).")
        HISTORY.add(self.name, request.message, answer.action, answer.content, "policy",
                    request.requested_schema)
        return answer

    def _no_frontend(self, form: ElicitationForm, view: CallView, wait: float) -> None:
        if form.answer.done():
            return
        form.answered_by = "no frontend"
        if form.dismiss():
            view.notice(
                f"No widget frontend is attached (nbclient, nbconvert and papermill show no "
                f"widgets), so nb_elicit answered cancel after {wait:g} s. To answer without a "
                f"person, set a policy: %mcp respond {self.name} decline|cancel|accept JSON, "
                f"nb_elicit.respond(...), or the environment variable NB_ELICIT_RESPOND.")

    def _withdrawn(self, form: ElicitationForm) -> None:
        gone = self._disconnected or self._closed or all(s.closed for s in self._sessions.values())
        if form.abandon(f"{self.name} disconnected." if gone else
                        f"{self.name} withdrew this request."):
            HISTORY.add(self.name, form.message, "none",
                        None, "disconnected" if gone else "withdrawn")

    def _stray_view(self) -> CallView:
        """Where a request that belongs to no call of ours is shown: the current cell."""
        return self._view("a request of its own", show_waiting=False)


class ToolCall:
    """A tool call running in the background (see :meth:`Connection.start_tool`).

    ``await call`` gives the :class:`ToolResult` (or raises what the call raised).
    """

    def __init__(self, task: asyncio.Task, server: str, tool: str):
        self._task = task
        self.server, self.tool = server, tool
        task.add_done_callback(_retrieve)

    def __await__(self):
        return self._task.__await__()

    def done(self) -> bool:
        return self._task.done()

    def result(self) -> ToolResult:
        """The result, once done (raises ``asyncio.InvalidStateError`` before)."""
        return self._task.result()

    def cancel(self) -> bool:
        """Cancel the call: waiting forms answer ``cancel`` and the server is told."""
        return self._task.cancel()

    def __repr__(self) -> str:
        state = "done" if self.done() else "running"
        return f"<nb_elicit.ToolCall {self.server} · {self.tool}: {state}>"


def _retrieve(task: asyncio.Task) -> None:
    # The call's view already shows any failure; don't also warn "exception never retrieved".
    if not task.cancelled():
        task.exception()


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:40]
