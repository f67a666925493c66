"""What nb_elicit teaches the SDK's client that mcp 2.3 has no public way for, in one place:
the 2025-11-25 tasks (:class:`TaskAwareClient`, through the session's own hooks), a read stream
that says when its server went away (:func:`ends_with_its_stream`), and structured results
checked without importing jsonschema on the event loop (:func:`results_wait_for_jsonschema`).
``tests/test_tasks_adapter.py`` fails if the SDK's insides these use change."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any, Protocol

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.session import ClientRequestContext, ClientSession
from mcp_types import INTERNAL_ERROR
from mcp_types import methods as wire_methods

from .._core.errors import ServerError
from .._core.schema.result_check import plainly_valid
from .._core.tasks.model import TaskShape
from .._core.text import shorten
from .client_tasks import METHODS as CLIENT_TASK_METHODS
from .client_tasks import ClientTasks
from .errors import MALFORMED_LIMIT
from .jsonschema_import import jsonschema_imported

if TYPE_CHECKING:
    from mcp.client._transport import ReadStream, Transport, WriteStream
    from mcp.shared.dispatcher import CallOptions, DispatchContext, ProgressFnT
    from mcp.shared.message import SessionMessage
    from mcp.shared.transport_context import TransportContext

__all__ = ["TASKS_AD", "TASKS_VERSION", "TaskAwareClient", "ends_with_its_stream",
           "results_wait_for_jsonschema", "teach_tasks"]

#: The protocol version of the experimental tasks (SEP-1686).
TASKS_VERSION = TaskShape.V2025.value
#: What nb_elicit declares of the 2025-11-25 tasks: it lists and cancels its own tasks, and
#: runs a server's forms as tasks when asked.
TASKS_AD = types.ClientTasksCapability(
    list=types.TasksListCapability(), cancel=types.TasksCancelCapability(),
    requests=types.ClientTasksRequestsCapability(elicitation=types.TasksElicitationCapability(
        create=types.TasksCreateElicitationCapability())))


@dataclasses.dataclass
class TaskAwareClient(Client):
    """The SDK's client, taught the 2025-11-25 tasks that mcp 2.3 has types for but does not
    speak (SEP-1686): its capability ad gains ``tasks``; the server's ``tasks/*`` requests and
    its ``elicitation/create`` with ``params.task`` are answered by :class:`ClientTasks`
    before the SDK would refuse them; and a task-augmented ``tools/call`` (and ``tasks/get``,
    ``tasks/cancel``) go out through the dispatcher's ``send_raw_request``, as the SDK's own
    ``send_request`` does, but without its check of the answer (a ``CreateTaskResult`` is no
    ``CallToolResult``; a status the SDK does not know is nb_elicit's to judge). These use the
    session's own hooks (``_build_capabilities``, ``_on_request``, ``_stamp``,
    ``_dispatcher``): mcp 2.3 has no public one for them; ``tests/test_tasks_adapter.py``
    fails if they change."""

    client_tasks: ClientTasks | None = None

    async def _build_session(self, exit_stack: AsyncExitStack) -> ClientSession:
        session = await super()._build_session(exit_stack)
        teach_tasks(session, self.client_tasks or ClientTasks())
        return session


class TaughtSession(Protocol):
    """The SDK's ``ClientSession`` as :func:`teach_tasks` leaves it: with the two requests it
    gains there, which ``ClientSession``'s own type cannot name."""

    async def send_raw(self, method: str, params: dict[str, Any], timeout: float | None = None,
                       progress: ProgressFnT | None = None) -> dict[str, Any]: ...

    async def send_task_call(self, name: str, arguments: dict[str, Any], ttl: int,
                             timeout: float | None,
                             progress: ProgressFnT | None) -> dict[str, Any]: ...


def teach_tasks(session: ClientSession, client_tasks: ClientTasks) -> None:
    build_capabilities, on_request = session._build_capabilities, session._on_request

    def capabilities(version: str) -> types.ClientCapabilities:
        ad = build_capabilities(version)
        return ad.model_copy(update={"tasks": TASKS_AD}) if version == TASKS_VERSION else ad

    async def answer(dctx: DispatchContext[TransportContext], method: str,
                     params: Mapping[str, Any] | None) -> dict[str, Any]:
        if (session.protocol_version or TASKS_VERSION) == TASKS_VERSION:
            if method in CLIENT_TASK_METHODS:
                return await client_tasks.answer(method, dict(params or {}))
            if method == "elicitation/create" and isinstance(params, Mapping) \
                    and params.get("task") is not None:
                request = wire_methods.parse_server_request(method, TASKS_VERSION, params)
                # (the dispatchers that drive callbacks give every request an id: the SDK's own
                # _on_request, which this one stands in front of, asserts the same)
                assert dctx.request_id is not None
                context = ClientRequestContext(session=session, request_id=dctx.request_id,
                                               meta=request.params.meta)
                return client_tasks.create(session._elicitation_callback(context,
                                                                         request.params))
        return await on_request(dctx, method, params)

    async def send_raw(method: str, params: dict[str, Any], timeout: float | None = None,
                       progress: ProgressFnT | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {"method": method, "params": params}
        opts: CallOptions = {}
        session._stamp(data, opts)
        if timeout is not None:
            opts["timeout"] = timeout
        if progress is not None:
            opts["on_progress"] = progress
        return await session._dispatcher.send_raw_request(method, data.get("params"), opts)

    async def send_task_call(name: str, arguments: dict[str, Any], ttl: int,
                             timeout: float | None,
                             progress: ProgressFnT | None) -> dict[str, Any]:
        data = types.CallToolRequest(params=types.CallToolRequestParams(
            name=name, arguments=arguments, task=types.TaskMetadata(ttl=ttl))).model_dump(
            by_alias=True, mode="json", exclude_none=True)
        return await send_raw("tools/call", data["params"], timeout, progress)

    # (the SDK has no hook for these: its own methods are replaced on this one session, and
    # TaughtSession names the two it gains for their callers)
    session._build_capabilities = capabilities  # type: ignore[method-assign]
    session._on_request = answer  # type: ignore[method-assign]
    session.send_raw = send_raw  # type: ignore[attr-defined]
    session.send_task_call = send_task_call  # type: ignore[attr-defined]


@contextlib.asynccontextmanager
async def ends_with_its_stream(
        transport: Transport, on_end: Callable[[], None],
        ) -> AsyncIterator[tuple[_WatchedStream, WriteStream[SessionMessage]]]:
    """``transport`` (the SDK's ``Transport``: its read and write streams), with ``on_end()``
    called the moment its read stream ends. The SDK's dispatcher reads that stream until it
    ends, then cancels the requests it was answering (``JSONRPCDispatcher.run`` in
    ``mcp/shared/jsonrpc_dispatcher.py``: the read loop, then ``tg.cancel_scope.cancel()``);
    so a request cancelled because its server went away finds the session ended already."""
    async with transport as (read_stream, write_stream):
        yield _WatchedStream(read_stream, on_end), write_stream


class _WatchedStream:
    """A read stream (the SDK's ``ReadStream`` protocol) that calls ``on_end()`` when it ends:
    at its end of stream, or when it is closed under its reader."""

    def __init__(self, stream: ReadStream[SessionMessage | Exception],
                 on_end: Callable[[], None]) -> None:
        self._stream, self._on_end = stream, on_end

    @property
    def last_context(self) -> object:
        """The sender's context of the last item, where the stream keeps one (the SDK reads
        it with ``getattr``)."""
        return getattr(self._stream, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        try:
            return await self._stream.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._on_end()
            raise

    async def aclose(self) -> None:
        await self._stream.aclose()

    def __aiter__(self) -> _WatchedStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _WatchedStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def results_wait_for_jsonschema(
        session: ClientSession,
        output_schema: Callable[[str], Awaitable[dict[str, Any] | None]]) -> None:
    """The SDK checks a structured tool result with jsonschema, imported on the event loop the
    first time: a second or more (``rfc3987-syntax``, which Jupyter installs, builds a grammar
    as jsonschema imports it) in which the kernel answers nothing, and the cell waits. A result
    that :func:`~nb_elicit._core.schema.result_check.plainly_valid` finds valid under its tool's
    output schema (``await output_schema(name)``; a plain return type's ``{"result": ...}``)
    needs no jsonschema; any other waits, without blocking, for the import on a thread of its
    own. A result off the tool's output schema is one line (the SDK raises a RuntimeError)."""
    check = session.validate_tool_result

    async def validate_tool_result(name: str, result: types.CallToolResult) -> None:
        if result.structured_content is not None:  # (as an output schema requires)
            schema = await output_schema(name)
            if schema is not None and plainly_valid(schema, result.structured_content):
                return
            await asyncio.wrap_future(jsonschema_imported())
        try:
            await check(name, result)
        except RuntimeError as exc:  # (the SDK's word for a result off the output schema)
            raise ServerError(INTERNAL_ERROR, shorten(str(exc), MALFORMED_LIMIT,
                                                      one_line=True)) from None

    # (the SDK has no hook for its check: this session's method is replaced)
    session.validate_tool_result = validate_tool_result  # type: ignore[method-assign]
