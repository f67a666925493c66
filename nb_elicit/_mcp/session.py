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
from collections.abc import Callable
from typing import IO

import httpx2
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.extension import advertise
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import REQUEST_TIMEOUT

from .._core.apps import APP_MIME
from .._core.apps import EXTENSION as APPS_EXTENSION
from .._core.errors import (
    ConnectError,
    ServerDisconnected,
    ServerError,
)
from .._core.tasks import TaskShape
from .._core.types import HttpTarget, SseTarget, StdioTarget, ToolResult
from .auth import SigningClient, oauth_provider
from .client_tasks import ClientTasks
from .era import Era
from .errors import connect_error, map_request_errors
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

__all__ = ["ServerSession"]

# The SDK logs an OAuth failure with its traceback; with no logging configured Python would
# print it into the cell. nb_elicit reports it as one line instead (a configured handler
# still receives it).
logging.getLogger("mcp.client.auth").addHandler(logging.NullHandler())

ProgressHandler = Callable[[float, "float | None", "str | None"], None]


class ServerSession:
    """One open SDK client to one server, in one protocol era (:class:`Era`); what the server
    asks and says goes to ``requests`` (:class:`ServerRequests`)."""

    def __init__(self, target: StdioTarget | HttpTarget, era: Era, requests: ServerRequests,
                 errlog: IO[str] | None = None):
        self.target = target
        self.era = Era(era)
        self._requests = requests
        self._errlog = errlog
        #: The SDK's callbacks: the server's elicitations and notifications, passed on.
        self._listener = Listener(requests, lambda: self.protocol_version, self.tools_changed)
        #: Each tool's ``execution.taskSupport`` (2025-11-25), as the last listing said.
        self._task_support: dict[str, str] = {}
        #: Each tool as the last listing showed it (its ``_meta`` names its app, if any).
        self._tools: dict[str, dict] = {}
        self._listed = False
        #: The server's forms that run as our tasks.
        self._client_tasks = ClientTasks()
        self._client: Client | None = None
        #: What the handshake said (kept: the SDK's client refuses to tell once it is closed).
        self._about: tuple[str | None, str | None, str | None] = (None, None, None)
        self._stop = asyncio.Event()
        self._task: asyncio.Task | None = None
        #: Set when the session ends: its server's stream ended (the server exited, or closed
        #: the stream), or it is closing. Set before the SDK cancels the requests the session
        #: was answering, so one that is cancelled can tell at once whether its server went
        #: away (set) or withdrew it (not set).
        self.ended = asyncio.Event()
        #: The client has ended (closed, or its server exited).
        self.closed = False
        #: A request found the server gone; the client may still be winding down.
        self.lost = False

    @classmethod
    async def open(cls, target: StdioTarget | HttpTarget, era: Era, requests: ServerRequests,
                   errlog: IO[str] | None = None) -> ServerSession:
        """Start the server (or reach it) and finish the handshake; a stdio server's stderr
        goes to ``errlog``. A sign-in that failed on the way is raised as its
        :class:`~nb_elicit.SignInError`, any other failure as one :class:`ConnectError`."""
        session = cls(target, era, requests, errlog)
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
        return self._about[0]

    @property
    def server_name(self) -> str | None:
        return self._about[1]

    @property
    def server_version(self) -> str | None:
        return self._about[2]

    # -- requests -------------------------------------------------------------------------

    async def call_tool(self, name: str, arguments: dict | None, timeout: float | None = None,
                        on_progress: ProgressHandler | None = None,
                        task: bool | None = None) -> ToolResult:
        """Call a tool; ``on_progress(progress, total, message)`` hears its progress.

        A tool the server may run as a task (2025-11-25: its ``taskSupport``; 2026-07-28: the
        server's choice) is followed to its end by the requests' ``follow``; ``task=False``
        calls a tool whose task support is optional without one."""
        progress = None
        if on_progress is not None:
            async def progress(value: float, total: float | None, message: str | None) -> None:
                on_progress(value, total, message)
        try:
            if task is not False and await self._runs_as_task(name):
                result = await self._request(self._call_as_task, name, arguments or {},
                                             timeout, progress)
            else:
                result = await self._request(self._live().call_tool, name, arguments or {},
                                             timeout, progress)
        except ServerError as error:
            if error.code != REQUEST_TIMEOUT or timeout is None:
                raise
            raise ServerError(error.code, f"{name} took longer than the connection's timeout "
                                          f"of {timeout:g} s, so it was cancelled") from None
        return tool_result_of(result)

    async def list_tools(self) -> list[dict]:
        tools = (await self._request(self._live().list_tools)).tools
        for tool in tools:
            execution = getattr(tool, "execution", None)
            self._task_support[tool.name] = getattr(execution, "task_support", None) or "forbidden"
        listed = [_plain(t) for t in tools]
        self._tools = {t["name"]: t for t in listed}
        self._listed = True
        return listed

    async def _output_schema(self, name: str) -> dict | None:
        """The output schema of the tool ``name`` as the server lists it (listed once if it is
        not known yet, as the SDK would list it to check a result); None: none, or not listed."""
        if name not in self._tools:
            with contextlib.suppress(ServerError):
                await self.list_tools()
        return self._tools.get(name, {}).get("outputSchema")

    async def listed_tool(self, name: str) -> dict | None:
        """The tool ``name`` as the server lists it, listed once if need be (and again once the
        server said its list changed); only a server with resources can have apps, so no other
        is asked (None: not listed)."""
        if name not in self._tools and not self._listed and getattr(
                self._server_capabilities(), "resources", None) is not None:
            with contextlib.suppress(ServerError):
                await self.list_tools()
        return self._tools.get(name)

    async def tool_names(self) -> list[str] | None:
        """The names of the server's tools, as its last listing said (listed once, and again
        once the server said its list changed); None if it cannot list them."""
        if not self._listed:
            try:
                await self.list_tools()
            except ServerError:
                return None
        return list(self._tools)

    def attach(self, task_id: str, tool: str, shape: TaskShape) -> RemoteTask:
        """A task of this server known by its id (attached to again, maybe after a restart)."""
        if shape == TaskShape.V2025:
            return attach_legacy(self, tool, task_id)
        return attach_extension(self, tool, task_id)

    @property
    def task_shape(self) -> TaskShape | None:
        """Which tasks this session speaks with its server (None: none)."""
        if self.protocol_version == TASKS_VERSION:
            return TaskShape.V2025 if self._server_runs_tool_tasks() else None
        extensions = getattr(self._server_capabilities(), "extensions", None) or {}
        return TaskShape.EXTENSION if TaskShape.EXTENSION.value in extensions else None

    async def request(self, request, result_type):
        """One request of a shape the SDK's client has no method for (the tasks' requests)."""
        return await self._request(self._live().session.send_request, request, result_type,
                                   answer_to=request.method)

    async def raw_request(self, method: str, params: dict) -> dict:
        """One request whose answer the caller checks itself, as a dict: the SDK's check of a
        2025-11-25 task refuses a status it does not know, which nb_elicit shows as a warning
        instead (see ``_core/tasks.py``)."""
        return await self._request(self._live().session.send_raw, method, params,
                                   answer_to=method)

    async def validate_tool_result(self, name: str, result) -> None:
        await self._live().session.validate_tool_result(name, result)

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

    def _live(self) -> Client:
        if self.closed or self._client is None:
            raise ServerDisconnected("the connection is closed")
        return self._client

    async def _request(self, method, *args, answer_to: str | None = None):
        """``method(*args)``, its failures as nb_elicit's exceptions; ``answer_to`` names the
        request in the line of an answer that does not fit the protocol."""
        with map_request_errors(answer_to, self._went_away):
            return await method(*args)

    def _went_away(self) -> None:
        self.lost = True

    def _end(self) -> None:
        """The session ends (its server's stream ended, or it is closing): no request goes out
        on it any more, and whoever hears of its end hears it now, once."""
        if self.ended.is_set():
            return
        self.lost = True
        self.ended.set()
        self._requests.ended()

    async def _run(self, ready: asyncio.Future) -> None:
        http = None
        try:
            if isinstance(self.target, SseTarget):
                # HTTP+SSE: no read timeout on the event stream (a form may stay open long).
                transport = sse_client(self.target.url, headers=self.target.headers,
                                       timeout=30, sse_read_timeout=None)
            elif isinstance(self.target, HttpTarget):
                sign_in = self._requests.sign_in
                http = SigningClient(sign_in, self.target.url, headers=self.target.headers,
                                     timeout=httpx2.Timeout(30, read=None),
                                     auth=oauth_provider(self.target.url, sign_in))
                transport = streamable_http_client(self.target.url, http_client=http)
            else:
                transport = self._stdio_transport()
            transport = ends_with_its_stream(transport, self._end)
            async with TaskAwareClient(transport, mode=self.era.value,
                                        elicitation_callback=self._listener.elicitation,
                                        message_handler=self._listener.message,
                                        extensions=[TasksExtension(self, self._requests.follow),
                                                    advertise(APPS_EXTENSION,
                                                              {"mimeTypes": [APP_MIME]})],
                                        client_tasks=self._client_tasks) as client:
                self._client = client
                results_wait_for_jsonschema(client.session, self._output_schema)
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

    def _server_capabilities(self):
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
        if name not in self._task_support:
            with contextlib.suppress(ServerError):
                await self.list_tools()
            self._task_support.setdefault(name, "forbidden")  # (not listed: asked once only)
        return self._task_support.get(name, "forbidden") in ("optional", "required")

    async def _call_as_task(self, name: str, arguments: dict, timeout: float | None, progress):
        raw = await self._live().session.send_task_call(name, arguments, TTL_MS, timeout, progress)
        if "task" not in raw:  # the server ran it at once after all
            result = types.CallToolResult.model_validate(raw, by_name=False)
            if not result.is_error:
                await self.validate_tool_result(name, result)
            return result
        result = await self._requests.follow(legacy_task(self, name, raw))
        return types.CallToolResult(content=result.content, structured_content=result.structured,
                                    is_error=result.is_error)

    def _stdio_transport(self):
        command, *args = self.target.command
        params = StdioServerParameters(command=command, args=list(args), env=self.target.env,
                                       cwd=self.target.cwd)
        return stdio_client(params, errlog=self._errlog) if self._errlog else stdio_client(params)

    def tools_changed(self) -> None:
        """The server's tool list changed: the next :meth:`listed_tool` lists it again."""
        self._tools = {}
        self._task_support = {}
        self._listed = False


def _task_of_its_own(coro, name: str) -> asyncio.Task:
    """A task that starts from an empty context, not a copy of the caller's: a session outlives
    the call that opened it (a reconnect, a second era), and requests it hears later must not
    take that finished call for the current one."""
    if sys.version_info >= (3, 11):
        # Background work: owned by its ServerSession: close() waits for it.
        return asyncio.get_running_loop().create_task(coro, name=name,
                                                      context=contextvars.Context())
    return contextvars.Context().run(asyncio.create_task, coro, name=name)


def _plain(model) -> dict:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)
