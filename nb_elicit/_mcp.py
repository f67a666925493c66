"""The one module that imports the MCP SDK (``mcp`` 2.x).

Everything above this module speaks in plain Python: targets, :class:`ElicitationRequest`,
:class:`~nb_elicit.Answer`, :class:`ToolResult` and nb_elicit's own exceptions. When the SDK
changes its API, this is the file that changes.

A :class:`ServerSession` keeps one SDK ``Client`` open inside a task of its own, because the
SDK's task groups must be entered and left by the same task, while calls come from notebook
cells. Elicitation requests reach the handler given to :meth:`ServerSession.open`; whatever it
raises is turned into a JSON-RPC error here, and only here.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import sys
from collections.abc import Awaitable, Callable
from enum import Enum
from typing import IO, Any

import anyio
import httpx2
import mcp_types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    REQUEST_TIMEOUT,
    URL_ELICITATION_REQUIRED,
)

from ._core.answer import Answer
from ._core.errors import (
    ConnectError,
    InvalidRequest,
    NbElicitError,
    SchemaError,
    ServerDisconnected,
    ServerError,
    UrlElicitationRequired,
)
from ._core.types import ElicitationRequest, HttpTarget, SseTarget, StdioTarget, ToolResult

__all__ = ["ElicitationRequest", "Era", "HttpTarget", "ServerSession", "SseTarget", "StdioTarget",
           "ToolResult"]



class Era(str, Enum):
    """A session's protocol era, by the value the SDK's ``Client(mode=...)`` takes for it."""

    #: The handshake era (2025-06-18, 2025-11-25): ``initialize`` first, then a session in
    #: which the server may send its own requests (``ctx.elicit``) at any time.
    HANDSHAKE = "legacy"
    #: The 2026-07-28 era: the SDK's "auto" mode tries it first, and falls back to the
    #: handshake only where the server does not speak it.
    V2026 = "auto"

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup

_GONE = (httpx2.HTTPError, OSError, anyio.ClosedResourceError, anyio.BrokenResourceError,
         anyio.EndOfStream)


ElicitHandler = Callable[[ElicitationRequest], Awaitable[Answer]]
CompleteHandler = Callable[[str], None]
ProgressHandler = Callable[[float, "float | None", "str | None"], None]
EndHandler = Callable[[], None]

#: Protocol versions that have no URL mode (a client on them cannot have declared it).
_FORM_ONLY_VERSIONS = ("2025-06-18",)


def needs_other_mode(error: ServerError, mode: Era) -> bool:
    """Whether a call that failed this way would work on a session of the other protocol era.

    SDK 2.x servers that call ``ctx.elicit`` need a legacy session (the 2026-07-28 protocol has
    no back-channel for server-initiated requests); tools that return input-required results
    need a 2026-07-28 session (on a legacy one the SDK calls their result invalid).
    """
    if error.code == INVALID_REQUEST and "no back-channel" in error.message:
        return True
    return (mode == Era.HANDSHAKE and error.code == INTERNAL_ERROR
            and error.message == "Handler returned an invalid result")


class ServerSession:
    """One open SDK client to one server, in one protocol era (:class:`Era`)."""

    def __init__(self, target: StdioTarget | HttpTarget, mode: Era, handler: ElicitHandler,
                 errlog: IO[str] | None = None, on_complete: CompleteHandler | None = None,
                 on_end: EndHandler | None = None):
        self.target = target
        self.mode = Era(mode)
        self._handler = handler
        self._on_complete = on_complete
        self._on_end = on_end
        self._errlog = errlog
        self._client: Client | None = None
        self._stop = asyncio.Event()
        self._task: asyncio.Task | None = None
        #: The client has ended (closed, or its server exited).
        self.closed = False
        #: A request found the server gone; the client may still be winding down.
        self.lost = False

    @classmethod
    async def open(cls, target: StdioTarget | HttpTarget, mode: Era, handler: ElicitHandler,
                   errlog: IO[str] | None = None,
                   on_complete: CompleteHandler | None = None,
                   on_end: EndHandler | None = None) -> ServerSession:
        """Start the server (or reach it) and finish the handshake.

        ``handler`` answers elicitation requests; ``on_complete(elicitation_id)`` hears
        ``notifications/elicitation/complete``; ``on_end()`` hears that the session ended.
        """
        session = cls(target, mode, handler, errlog, on_complete, on_end)
        ready: asyncio.Future = asyncio.get_running_loop().create_future()
        session._task = _task_of_its_own(session._run(ready), name=f"nb_elicit:{target}")
        await ready
        return session

    # -- what the server is ---------------------------------------------------------------

    @property
    def usable(self) -> bool:
        """Whether requests can go out on this session."""
        return not self.closed and not self.lost

    @property
    def protocol_version(self) -> str | None:
        return self._client.protocol_version if self._client else None

    @property
    def server_name(self) -> str | None:
        info = self._client.server_info if self._client else None
        return info.name if info else None

    @property
    def server_version(self) -> str | None:
        info = self._client.server_info if self._client else None
        return info.version if info else None

    # -- requests -------------------------------------------------------------------------

    async def call_tool(self, name: str, arguments: dict | None, timeout: float | None = None,
                        on_progress: ProgressHandler | None = None) -> ToolResult:
        """Call a tool; ``on_progress(progress, total, message)`` hears its progress."""
        progress = None
        if on_progress is not None:
            async def progress(value: float, total: float | None, message: str | None) -> None:
                on_progress(value, total, message)
        try:
            result = await self._request(self._live().call_tool, name, arguments or {},
                                         timeout, progress)
        except ServerError as error:
            if error.code != REQUEST_TIMEOUT or timeout is None:
                raise
            raise ServerError(error.code, f"{name} took longer than the connection's timeout "
                                          f"of {timeout:g} s, so it was cancelled") from None
        return ToolResult(content=[_plain(b) for b in result.content],
                          structured=result.structured_content, is_error=bool(result.is_error))

    async def list_tools(self) -> list[dict]:
        return [_plain(t) for t in (await self._request(self._live().list_tools)).tools]

    async def list_prompts(self) -> list[dict]:
        return [_plain(p) for p in (await self._request(self._live().list_prompts)).prompts]

    async def get_prompt(self, name: str, arguments: dict[str, str] | None) -> dict:
        return _plain(await self._request(self._live().get_prompt, name, arguments))

    async def list_resources(self) -> list[dict]:
        result = await self._request(self._live().list_resources)
        return [_plain(r) for r in result.resources]

    async def read_resource(self, uri: str) -> dict:
        return _plain(await self._request(self._live().read_resource, uri))

    def stop(self) -> None:
        """Ask the client to close (and a stdio server to stop), without waiting for it."""
        self._stop.set()

    async def close(self) -> None:
        """Close the client (and stop a stdio server), and wait until it has; idempotent.

        A caller cancelled while it waits is cancelled (the close goes on without it); only
        what the close itself raised is kept quiet.
        """
        self.stop()
        task = self._task
        if task is None:
            return
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            cancelling = getattr(current, "cancelling", None)  # (3.11+)
            if not task.done() or (cancelling is not None and cancelling()):
                raise  # the caller's own cancellation
            # else the session's task itself was cancelled: it has ended all the same
        except Exception:  # noqa: BLE001, S110 - the session's failure; it has ended either way
            pass

    # -- internals ------------------------------------------------------------------------

    def _live(self) -> Client:
        if self.closed or self._client is None:
            raise ServerDisconnected("the connection is closed")
        return self._client

    async def _request(self, method, *args):
        try:
            return await method(*args)
        except MCPError as exc:
            error = _from_mcp_error(exc)
        except _GONE as exc:
            error = ServerDisconnected(f"the server went away ({_describe(exc)})")
        if isinstance(error, ServerDisconnected):
            self.lost = True
        raise error

    async def _run(self, ready: asyncio.Future) -> None:
        http = None
        try:
            if isinstance(self.target, SseTarget):
                # HTTP+SSE: no read timeout on the event stream (a form may stay open long).
                transport = sse_client(self.target.url, headers=self.target.headers,
                                       timeout=30, sse_read_timeout=None)
            elif isinstance(self.target, HttpTarget):
                http = httpx2.AsyncClient(headers=self.target.headers,
                                          timeout=httpx2.Timeout(30, read=None))
                transport = streamable_http_client(self.target.url, http_client=http)
            else:
                transport = self._stdio_transport()
            async with Client(transport, mode=self.mode.value, elicitation_callback=self._on_elicit,
                              message_handler=self._on_message) as client:
                self._client = client
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as exc:  # noqa: BLE001 - reported to whoever waits on `ready`
            if not ready.done():
                ready.set_exception(ConnectError(_describe(exc)))
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
        finally:
            self.closed = True
            if not ready.done():
                ready.set_exception(ConnectError("the connection closed during the handshake"))
            if http is not None:
                with contextlib.suppress(Exception):
                    await http.aclose()
            if self._on_end is not None:
                self._on_end()

    def _stdio_transport(self):
        command, *args = self.target.command
        params = StdioServerParameters(command=command, args=list(args), env=self.target.env,
                                       cwd=self.target.cwd)
        return stdio_client(params, errlog=self._errlog) if self._errlog else params

    async def _on_message(self, message) -> None:
        if isinstance(message, types.ElicitCompleteNotification) and self._on_complete:
            self._on_complete(message.params.elicitation_id)

    async def _on_elicit(self, context, params) -> types.ElicitResult | types.ErrorData:
        """The single place where what the handler raises becomes a JSON-RPC error."""
        request = _request_of(params)
        if request.mode == "url" and self.protocol_version in _FORM_ONLY_VERSIONS:
            return types.ErrorData(code=INVALID_PARAMS, message=(
                f"URL mode does not exist in protocol {self.protocol_version}, so nb_elicit "
                "did not declare it"))
        try:
            answer = await self._handler(request)
        except (SchemaError, InvalidRequest) as exc:
            return types.ErrorData(code=INVALID_PARAMS, message=str(exc))
        except Exception as exc:  # noqa: BLE001 - a bug of ours is an internal error
            return types.ErrorData(code=INTERNAL_ERROR, message=f"nb_elicit failed: {exc!r}")
        return types.ElicitResult(**answer.to_result())


def _task_of_its_own(coro, name: str) -> asyncio.Task:
    """A task that starts from an empty context, not a copy of the caller's.

    A session outlives the request that opened it (a reconnect, or a second protocol era, is
    opened inside a tool call); it must not carry that call's context variables along, or
    requests it hears later would take the finished call for the current one.
    """
    if sys.version_info >= (3, 11):
        return asyncio.get_running_loop().create_task(coro, name=name,
                                                      context=contextvars.Context())
    return contextvars.Context().run(asyncio.create_task, coro, name=name)


def _request_of(params) -> ElicitationRequest:
    return ElicitationRequest(
        mode=getattr(params, "mode", None) or "form",
        message=params.message,
        requested_schema=getattr(params, "requested_schema", None),
        url=getattr(params, "url", None),
        elicitation_id=getattr(params, "elicitation_id", None),
    )


def _from_mcp_error(exc: MCPError) -> NbElicitError:
    if exc.code == CONNECTION_CLOSED:
        return ServerDisconnected(f"the server went away ({exc.message})")
    if exc.code == URL_ELICITATION_REQUIRED:
        requests = _url_requests(exc.data)
        if requests:
            return UrlElicitationRequired(exc.code, exc.message, exc.data, requests)
    return ServerError(exc.code, exc.message, exc.data)


def _url_requests(data: Any) -> list[ElicitationRequest]:
    """The URL requests listed in a -32042 error's data (entries that are not are dropped)."""
    entries = data.get("elicitations") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return []
    requests = []
    for entry in entries[:20]:
        try:
            params = types.ElicitRequestURLParams.model_validate(entry)
        except Exception:  # noqa: BLE001 - a malformed entry is simply not shown
            continue
        requests.append(_request_of(params))
    return requests


def _describe(exc: BaseException) -> str:
    """The innermost cause of an SDK failure, in one line (ExceptionGroups unwrapped)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return exc.message
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    text = str(exc) or type(exc).__name__
    return text if isinstance(exc, NbElicitError) else f"{type(exc).__name__}: {text}"


def _plain(model) -> dict:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)
