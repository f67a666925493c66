"""A connection's sessions, one per protocol era, and where the connection is (:class:`State`).

A connection starts in the handshake era (what SDK 1.x servers and ``ctx.elicit`` need); a
server that speaks only the 2026-07-28 protocol refuses the handshake, and the 2026-07-28 era
becomes the connection's primary one. A tool that needs the other era (input-required results,
see ``_mcp.errors.needs_other_era``) is retried once on a session of that era, which is then
remembered for that tool (:meth:`SessionPool.for_tool`). A session that lost its server is
opened again by the next request that needs it.
"""

from __future__ import annotations

import asyncio
import enum
import tempfile
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TextIO, cast

from .._core.errors import (
    ConnectError,
    NbElicitError,
    ServerDisconnected,
    ServerError,
    SignInError,
)
from .._core.secrets.masking import hide
from .._core.types import ToolResult
from .._mcp import Era, HttpTarget, ServerRequests, ServerSession, StdioTarget, needs_other_era

if TYPE_CHECKING:
    from .._mcp.session import ProgressHandler

__all__ = ["SessionPool", "State"]


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


class SessionPool:
    """The sessions of one connection (one per era), its state, and its server's stderr log.

    ``requests`` (the connection's) answers what the server asks of every session, and hears
    what it must (:class:`~nb_elicit._mcp.ServerRequests`); a session's end it passes on to
    :meth:`session_ended`."""

    def __init__(self, name: str, target: StdioTarget | HttpTarget, requests: ServerRequests):
        self.name = name
        self.target = target
        self._requests = requests
        self._sessions: dict[Era, ServerSession] = {}
        #: The era of the first handshake, and of every request that names no tool.
        self.primary = Era.HANDSHAKE
        self._tool_eras: dict[str, Era] = {}
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
            # (a text-mode temporary file is a TextIO, which typeshed's wrapper type does not say)
            self._errlog: TextIO | None = cast(TextIO, log)
            self.log_path = log.name
        else:
            self._errlog = None

    # -- state ----------------------------------------------------------------------------

    @property
    def state(self) -> State:
        return self._state

    def to(self, state: State) -> bool:
        """Move to ``state`` if that is a change a connection may make; whether it moved.

        The one place where the state changes: a session came up (ready), a request found the
        server gone or every session ended (disconnected), close() (closed).
        """
        if state not in _TRANSITIONS[self._state]:
            return False
        self._state = state
        return True

    def gone(self) -> bool:
        """Whether the server is gone (for now, or for good)."""
        return self._state in (State.DISCONNECTED, State.CLOSED)

    # -- what the server is ---------------------------------------------------------------

    @property
    def main(self) -> ServerSession | None:
        """The session of the primary era (or any open one); None before the first."""
        if not self._sessions:
            return None
        return self._sessions.get(self.primary) or next(iter(self._sessions.values()))

    @property
    def server_name(self) -> str | None:
        main = self.main
        return main.server_name if main is not None else None

    def current(self, era: Era) -> ServerSession | None:
        """The session of ``era`` as it is now (None: none was opened), not reopened."""
        return self._sessions.get(era)

    def era_for(self, tool: str) -> Era:
        """The era ``tool`` is called in: the one it needed once, else the primary one."""
        return self._tool_eras.get(tool, self.primary)

    def log_tail(self, lines: int = 20) -> str:
        """The last lines a stdio server wrote to its stderr."""
        if not self.log_path:
            return ""
        with open(self.log_path, encoding="utf-8", errors="replace") as log:
            return "".join(log.readlines()[-lines:])

    # -- opening --------------------------------------------------------------------------

    async def open(self, on_failure: Callable[[], Awaitable[None]]) -> None:
        """The first handshake. A failed one calls ``on_failure`` (the connection closes);
        requests made meanwhile get its error."""
        try:
            await self._first_session()
            self.to(State.READY)
        except (Exception, asyncio.CancelledError) as error:
            self._handshake_error = _handshake_failed(self.name, error)
            await on_failure()
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
            self.primary = Era.V2026

    def _connect_error(self, error: ConnectError) -> ConnectError:
        text = f"could not connect to {self.name!r} ({self.target.where()}): {error}"
        tail = self.log_tail(10).strip()
        if tail:
            text += "\nThe server's last words (stderr):\n" + tail
        return ConnectError(hide(text, self.target.hidden))

    async def session(self, era: Era | None = None) -> ServerSession:
        """The session of ``era`` (None: the primary one), (re)opened if there is none or it
        lost its server.

        A request made while the first handshake runs waits for it; then it uses the era the
        handshake settled on (before, every request asks for the primary era, not yet known),
        or it gets the handshake's error.
        """
        if not self._handshake.is_set():
            await self._handshake.wait()
            if self._handshake_error is not None:
                raise ConnectError(str(self._handshake_error))
            era = self.primary
        return await self._open_session(era if era is not None else self.primary)

    async def for_tool(self, tool: str) -> ServerSession:
        """The session ``tool`` is called on (see :meth:`era_for`)."""
        return await self.session(self.era_for(tool))

    async def _open_session(self, era: Era) -> ServerSession:
        async with self._session_lock:
            if self._state is State.CLOSED:
                raise ServerDisconnected(f"the connection {self.name!r} is closed")
            session = self._sessions.get(era)
            if session is None or not session.usable:
                if session is not None:
                    await session.close()  # gone already, or going: let it finish
                session = await ServerSession.open(self.target, era, self._requests,
                                                   self._errlog)
                if self._is_closed():  # closed while the handshake ran
                    await session.close()
                    raise ServerDisconnected(f"the connection {self.name!r} is closed")
                self._sessions[era] = session
            if self._state is not State.CONNECTING:  # (connect() says when the first is up)
                self.to(State.READY)
            return session

    def _is_closed(self) -> bool:
        """Whether the connection is closed now (read anew after an await)."""
        return self._state is State.CLOSED

    def session_ended(self) -> None:
        """A session ended (its server exited, or it was closed): the connection is
        disconnected once none is left that requests can go out on."""
        if not any(s.usable for s in self._sessions.values()):
            self.to(State.DISCONNECTED)

    # -- calling a tool in its era -----------------------------------------------------------

    async def call_tool(self, tool: str, arguments: dict[str, Any] | None,
                        progress: ProgressHandler | None,
                        task: bool | None = None) -> ToolResult:
        """Call ``tool`` in its era; if the server says it needs the other one, once more in
        that era, which is then remembered for the tool."""
        era = self.era_for(tool)
        try:
            return await (await self.session(era)).call_tool(tool, arguments, None, progress,
                                                             task=task)
        except ServerError as error:
            if not needs_other_era(error, era):
                raise
            try:
                session = await self.session(era.other)
            except ConnectError:
                raise error from None
            self._tool_eras[tool] = era.other
            return await session.call_tool(tool, arguments, None, progress, task=task)

    # -- closing ----------------------------------------------------------------------------

    async def wait_handshake(self) -> None:
        await self._handshake.wait()

    async def drop(self) -> None:
        """Close every session (their sign-in providers hold the tokens in memory); the next
        request opens them again."""
        sessions = list(self._sessions.values())
        self._sessions.clear()
        for session in sessions:
            session.stop()
        for session in sessions:
            await session.close()
        if self._state is State.READY:
            self.to(State.DISCONNECTED)

    async def close(self) -> None:
        """Close every session (a stdio server stops) and the server's log."""
        sessions = list(self._sessions.values())
        for session in sessions:
            session.stop()  # all at once: a caller that stops waiting leaves none running
        try:
            for session in sessions:
                await session.close()
        finally:
            if self._errlog is not None:
                self._errlog.close()


def _handshake_failed(name: str, error: BaseException) -> ConnectError:
    """What a request that waited for the first handshake is told: one line."""
    if isinstance(error, NbElicitError):
        text = str(error).splitlines()[0] if str(error) else type(error).__name__
    elif isinstance(error, asyncio.CancelledError):
        text = f"connecting {name!r} was stopped before it finished"
    else:
        text = f"could not connect to {name!r}: {error!r}"
    return ConnectError(text)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:40]
