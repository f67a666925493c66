"""One open SDK client to one server (:class:`ServerSession`), on stdio, streamable HTTP or
HTTP+SSE, in one protocol era (:class:`~.era.Era`).

A session keeps its SDK ``Client`` open inside a task of its own, because the SDK's task groups
must be entered and left by the same task, while calls come from notebook cells. What its
server asks of the client, and what the client must hear of it, goes to the
:class:`~.server_requests.ServerRequests` it was made with (its connection's).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import sys
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TextIO, cast

import mcp_types as types
from mcp import Client
from mcp.client.extension import advertise
from mcp_types import REQUEST_TIMEOUT

from .._core.apps import APP_MIME
from .._core.apps import EXTENSION as APPS_EXTENSION
from .._core.errors import ConnectError, ServerError
from .._core.tasks.model import TaskShape
from .._core.types import HttpTarget, StdioTarget, ToolResult
from .client_requests import ClientRequests
from .client_tasks import ClientTasks
from .era import Era
from .errors import connect_error
from .sdk_patches import (
    TASKS_VERSION,
    TaskAwareClient,
    ends_with_its_stream,
    results_wait_for_jsonschema,
)
from .server_requests import Listener, ServerRequests
from .tasks import (
    TTL_MS,
    RemoteTask,
    TasksExtension,
    attach_extension,
    attach_legacy,
    legacy_task,
    tool_result_of,
)
from .tool_listing import ToolListing
from .transports import transport_to

if TYPE_CHECKING:
    from mcp.shared.dispatcher import ProgressFnT

    from .sdk_patches import TaughtSession

__all__ = ["ServerSession"]

# (Keep mcp_types first, then the SDK's package, then its modules: %load_ext imports this
# module on a thread of its own while the cell that loaded it may import the SDK too, and two
# threads importing the SDK at once can deadlock on its module locks, which Python breaks by
# handing one a half-imported module. This order leaves the cell's import the time to finish
# first; a module of the SDK imported first here did not (tests/test_hooks_kernel.py).)

# The SDK logs an OAuth failure with its traceback; with no logging configured Python would
# print it into the cell. nb_elicit reports it as one line instead (a configured handler
# still receives it).
logging.getLogger("mcp.client.auth").addHandler(logging.NullHandler())

ProgressHandler = Callable[[float, "float | None", "str | None"], None]


class ServerSession(ClientRequests):
    """One open SDK client to one server, in one protocol era (:class:`Era`); what the server
    asks and says goes to ``requests`` (:class:`ServerRequests`)."""

    def __init__(self, target: StdioTarget | HttpTarget, era: Era, requests: ServerRequests,
                 errlog: TextIO | None = None) -> None:
        self.target = target
        self.era = Era(era)
        self._requests = requests
        self._errlog = errlog
        #: The server's tools, as its last listing said.
        self._tools = ToolListing(lambda: self.list_tools())
        #: The SDK's callbacks: the server's elicitations and notifications, passed on.
        self._listener = Listener(requests, lambda: self.protocol_version, self._tools.changed)
        #: The server's forms that run as our tasks.
        self._client_tasks = ClientTasks()
        self._client: Client | None = None
        #: What the handshake said (kept: the SDK's client refuses to tell once it is closed).
        self._about: tuple[str | None, str | None, str | None] = (None, None, None)
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: Set when the session ends: its server's stream ended (the server exited, or closed
        #: the stream), or it is closing. Set before the SDK cancels the requests the session
        #: was answering, so one that is cancelled can tell at once whether its server went
        #: away (set) or withdrew it (not set).
        self.ended = asyncio.Event()

    @classmethod
    async def open(cls, target: StdioTarget | HttpTarget, era: Era, requests: ServerRequests,
                   errlog: TextIO | None = None) -> ServerSession:
        """Start the server (or reach it) and finish the handshake; a stdio server's stderr
        goes to ``errlog``. A sign-in that failed on the way is raised as its
        :class:`~nb_elicit.SignInError`, any other failure as one :class:`ConnectError`."""
        session = cls(target, era, requests, errlog)
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        session._task = _task_of_its_own(session._run(ready), name=f"nb_elicit:{target}")
        await ready
        return session

    # -- what the server is ---------------------------------------------------------------

    @property
    def protocol_version(self) -> str | None:
        return self._about[0]

    @property
    def server_name(self) -> str | None:
        return self._about[1]

    @property
    def server_version(self) -> str | None:
        return self._about[2]

    @property
    def task_shape(self) -> TaskShape | None:
        """Which tasks this session speaks with its server (None: none)."""
        if self.protocol_version == TASKS_VERSION:
            return TaskShape.V2025 if self._server_runs_tool_tasks() else None
        extensions = getattr(self._server_capabilities(), "extensions", None) or {}
        return TaskShape.EXTENSION if TaskShape.EXTENSION.value in extensions else None

    # -- requests -------------------------------------------------------------------------

    async def call_tool(self, name: str, arguments: dict[str, Any] | None,
                        timeout: float | None = None,
                        on_progress: ProgressHandler | None = None,
                        task: bool | None = None) -> ToolResult:
        """Call a tool; ``on_progress(progress, total, message)`` hears its progress.

        A tool the server may run as a task (2025-11-25: its ``taskSupport``; 2026-07-28: the
        server's choice) is followed to its end by the requests' ``follow``; ``task=False``
        calls a tool whose task support is optional without one."""
        progress: ProgressFnT | None = None
        if on_progress is not None:
            async def heard(progress: float, total: float | None, message: str | None) -> None:
                on_progress(progress, total, message)

            progress = heard
        try:
            if task is not False and await self._runs_as_task(name):
                result = await self._request(self._call_as_task(name, arguments or {}, timeout,
                                                                progress))
            else:
                result = await self._request(self._live().call_tool(name, arguments or {},
                                                                    timeout, progress))
        except ServerError as error:
            if error.code != REQUEST_TIMEOUT or timeout is None:
                raise
            raise ServerError(error.code, f"{name} took longer than the connection's timeout "
                                          f"of {timeout:g} s, so it was cancelled") from None
        return tool_result_of(result)

    async def list_tools(self) -> list[dict[str, Any]]:
        return self._tools.keep((await self._request(self._live().list_tools())).tools)

    async def listed_tool(self, name: str) -> dict[str, Any] | None:
        """The tool ``name`` as the server lists it, listed once if need be (and again once the
        server said its list changed); only a server with resources can have apps, so no other
        is asked (None: not listed)."""
        resources = getattr(self._server_capabilities(), "resources", None)
        return await self._tools.tool(name, may_have_apps=resources is not None)

    async def tool_names(self) -> list[str] | None:
        """The names of the server's tools, as its last listing said (listed once, and again
        once the server said its list changed); None if it cannot list them."""
        return await self._tools.names()

    def attach(self, task_id: str, tool: str, shape: TaskShape) -> RemoteTask:
        """A task of this server known by its id (attached to again, maybe after a restart)."""
        if shape == TaskShape.V2025:
            return attach_legacy(self, tool, task_id)
        return attach_extension(self, tool, task_id)

    def stop(self) -> None:
        """Ask the client to close (and a stdio server to stop), without waiting for it."""
        self._end()
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

    def _end(self) -> None:
        """The session ends (its server's stream ended, or it is closing): no request goes out
        on it any more, and whoever hears of its end hears it now, once."""
        if self.ended.is_set():
            return
        self.lost = True
        self.ended.set()
        self._requests.ended()

    async def _run(self, ready: asyncio.Future[None]) -> None:
        http = None
        try:
            transport, http = transport_to(self.target, self._requests.sign_in, self._errlog)
            async with TaskAwareClient(ends_with_its_stream(transport, self._end),
                                        mode=self.era.value,
                                        elicitation_callback=self._listener.elicitation,
                                        message_handler=self._listener.message,
                                        extensions=[TasksExtension(self, self._requests.follow),
                                                    advertise(APPS_EXTENSION,
                                                              {"mimeTypes": [APP_MIME]})],
                                        client_tasks=self._client_tasks) as client:
                self._client = client
                results_wait_for_jsonschema(client.session, self._tools.output_schema)
                info = client.server_info
                self._about = (client.protocol_version, info.name if info else None,
                               info.version if info else None)
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as exc:  # noqa: BLE001 - reported to whoever waits on `ready`
            if not ready.done():
                ready.set_exception(connect_error(exc))
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
        finally:
            self.closed = True
            self._client_tasks.cancel_all()
            if not ready.done():
                ready.set_exception(ConnectError("the connection closed during the handshake"))
            if http is not None:
                with contextlib.suppress(Exception):
                    await http.aclose()
            self._end()

    def _server_capabilities(self) -> types.ServerCapabilities | None:
        client = self._client
        return client.session.server_capabilities if client is not None else None

    def _server_runs_tool_tasks(self) -> bool:
        tasks = getattr(self._server_capabilities(), "tasks", None)
        requests = getattr(tasks, "requests", None)
        return getattr(getattr(requests, "tools", None), "call", None) is not None

    async def _runs_as_task(self, name: str) -> bool:
        """Whether a call of ``name`` goes out as a 2025-11-25 task (the 2026-07-28 extension
        needs no asking: the server answers with a task, and the claim follows it)."""
        if self.protocol_version != TASKS_VERSION or not self._server_runs_tool_tasks():
            return False
        return await self._tools.may_run_as_task(name)

    async def _call_as_task(self, name: str, arguments: dict[str, Any], timeout: float | None,
                            progress: ProgressFnT | None) -> types.CallToolResult:
        # (the SDK's session, taught send_task_call by sdk_patches.teach_tasks)
        session = cast("TaughtSession", self._live().session)
        raw = await session.send_task_call(name, arguments, TTL_MS, timeout, progress)
        if "task" not in raw:  # the server ran it at once after all
            result = types.CallToolResult.model_validate(raw, by_name=False)
            if not result.is_error:
                await self.validate_tool_result(name, result)
            return result
        followed = await self._requests.follow(legacy_task(self, name, raw))
        # (the content is the wire's plain dicts, which pydantic validates into its blocks)
        return types.CallToolResult(content=followed.content,  # type: ignore[arg-type]
                                    structured_content=followed.structured,
                                    is_error=followed.is_error)


def _task_of_its_own(coro: Coroutine[object, object, None], name: str) -> asyncio.Task[None]:
    """A task that starts from an empty context, not a copy of the caller's: a session outlives
    the call that opened it (a reconnect, a second era), and requests it hears later must not
    take that finished call for the current one."""
    if sys.version_info >= (3, 11):
        # Background work: owned by its ServerSession: close() waits for it.
        return asyncio.get_running_loop().create_task(coro, name=name,
                                                      context=contextvars.Context())
    return contextvars.Context().run(asyncio.create_task, coro, name=name)

