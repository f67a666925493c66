"""Wire-level clients for task tools, built on the SDK's client.

- :func:`legacy_client`: a 2025-11-25 handshake that declares ``capabilities.tasks``; requests
  go out raw through the session's own dispatcher, since ``ClientSession`` checks every
  ``tools/call`` result against ``CallToolResult`` and a ``CreateTaskResult`` is not one.
  Elicitations are answered by a function of the test, and kept with what arrived with them;
  ``notifications/tasks/status`` are kept too.
- :func:`extension_client`: a 2026-07-28 ``mcp.Client``; with ``tasks=True`` it declares the
  extension ``io.modelcontextprotocol/tasks`` and claims ``resultType: "task"``, so
  ``call_tool(..., allow_claimed=True)`` hands back the task as it arrived.

Both return raw dicts, so tests check the exact wire shapes.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Literal

import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.extension import ClientExtension, NotificationBinding, ResultClaim
from mcp.client.session import ClientSession
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ConfigDict

from .servers import REPO

EXTENSION_ID = "io.modelcontextprotocol/tasks"
RELATED_TASK = "io.modelcontextprotocol/related-task"
TERMINAL = ("completed", "failed", "cancelled")

#: How a test answers an elicitation: an ElicitResult, or a coroutine that makes one.
Answer = Callable[[types.ElicitRequestParams],
                  types.ElicitResult | Awaitable[types.ElicitResult]]


Target = list[str] | str
"""A server: its stdio command, or its streamable HTTP URL."""


def stdio(command: list[str]) -> StdioServerParameters:
    """``command`` over stdio, run from the repository (so ``-m nb_elicit...`` is this one)."""
    env = {**get_default_environment(), "PYTHONPATH": str(REPO)}
    return StdioServerParameters(command=command[0], args=command[1:], cwd=str(REPO), env=env)


async def poll(get: Callable[[], Awaitable[dict[str, Any]]], statuses: tuple[str, ...],
               timeout: float) -> dict[str, Any]:
    """Call ``get`` (a ``tasks/get``) until the task's status is one of ``statuses``."""
    deadline = time.monotonic() + timeout
    task = await get()
    while task["status"] not in statuses:
        if time.monotonic() > deadline:
            raise AssertionError(f"the task never reached {statuses}: {task}")
        await asyncio.sleep(0.1)
        task = await get()
    return task


class LegacyClient:
    """A 2025-11-25 session with tasks declared: raw requests, and what the server sent."""

    def __init__(self, dispatcher: JSONRPCDispatcher, session: ClientSession) -> None:
        self.dispatcher = dispatcher
        self.session = session
        self.initialize: dict[str, Any] = {}
        #: Every elicitation/create the server sent: its params as they arrived (``_meta`` too).
        self.asked: list[dict[str, Any]] = []
        #: Every notifications/tasks/status the server sent.
        self.statuses: list[dict[str, Any]] = []

    async def request(self, method: str, params: dict[str, Any] | None = None,
                      timeout: float = 60) -> dict[str, Any]:
        headers = {MCP_PROTOCOL_VERSION_HEADER: "2025-11-25"} if self.initialize else {}
        return await self.dispatcher.send_raw_request(method, params,
                                                      {"timeout": timeout, "headers": headers})

    async def call_as_task(self, name: str, arguments: dict[str, Any] | None = None,
                           ttl: int = 60_000) -> dict[str, Any]:
        return await self.request("tools/call", {"name": name, "arguments": arguments or {},
                                                 "task": {"ttl": ttl}})

    async def until(self, task_id: str, *statuses: str, timeout: float = 30) -> dict[str, Any]:
        return await poll(lambda: self.request("tasks/get", {"taskId": task_id}), statuses,
                          timeout)


@contextlib.asynccontextmanager
async def legacy_client(target: Target, answer: Answer | None = None,
                        tasks: bool = True) -> AsyncIterator[LegacyClient]:
    transport = streamable_http_client(target) if isinstance(target, str) else stdio_client(
        stdio(target))
    async with transport as (read, write):
        dispatcher = JSONRPCDispatcher(read, write)
        client: LegacyClient

        async def elicit(context, params: types.ElicitRequestParams) -> types.ElicitResult:
            client.asked.append(params.model_dump(by_alias=True, mode="json", exclude_none=True))
            result = answer(params) if answer else types.ElicitResult(action="cancel")
            return await result if inspect.isawaitable(result) else result

        async def status(params: types.TaskStatusNotificationParams) -> None:
            client.statuses.append(params.model_dump(by_alias=True, mode="json",
                                                     exclude_none=True))

        bindings = [NotificationBinding(method="notifications/tasks/status",
                                        params_type=types.TaskStatusNotificationParams,
                                        handler=status)]
        session = ClientSession(dispatcher=dispatcher, elicitation_callback=elicit,
                                notification_bindings=bindings)
        client = LegacyClient(dispatcher, session)
        async with session:
            capabilities = types.ClientCapabilities(
                elicitation=types.ElicitationCapability(form=types.FormElicitationCapability()),
                tasks=types.ClientTasksCapability(list=types.TasksListCapability(),
                                                  cancel=types.TasksCancelCapability())
                if tasks else None)
            params = types.InitializeRequestParams(
                protocol_version="2025-11-25", capabilities=capabilities,
                client_info=types.Implementation(name="tasks-test", version="0"))
            client.initialize = await client.request(
                "initialize", params.model_dump(by_alias=True, mode="json", exclude_none=True))
            session.adopt(types.InitializeResult.model_validate(client.initialize))
            await session.send_notification(types.InitializedNotification())
            yield client


# -- 2026-07-28 ------------------------------------------------------------------------------


class RawResult(types.Result):
    """Any result, every field kept as it arrived."""

    model_config = ConfigDict(extra="allow")

    def wire(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, mode="json", exclude_none=True)


class CreatedTask(RawResult):
    result_type: Literal["task"]


class TaskParams(types.RequestParams):
    model_config = ConfigDict(extra="allow")


class AnyRequest(types.Request[TaskParams, str]):
    method: str
    params: TaskParams


class TaskRequest(AnyRequest):
    """A request about one task (``tasks/get``, ``tasks/update``, ...): ``Mcp-Name`` is its id."""

    name_param = "taskId"


class TasksClaim(ClientExtension):
    """Declares the tasks extension and claims ``resultType: "task"`` on ``tools/call``."""

    identifier = EXTENSION_ID

    def claims(self):
        async def unresolved(created: CreatedTask, context) -> types.CallToolResult:
            raise AssertionError("call tools with allow_claimed=True")

        return [ResultClaim(result_type="task", model=CreatedTask, resolve=unresolved,
                            protocol_versions=frozenset(MODERN_PROTOCOL_VERSIONS))]


class ExtensionClient:
    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = await self.client.session.call_tool(name, arguments or {}, allow_claimed=True)
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)

    async def request(self, method: str, **params: Any) -> dict[str, Any]:
        kind = TaskRequest if "taskId" in params else AnyRequest
        request = kind(method=method, params=TaskParams(**params))
        return (await self.client.session.send_request(request, RawResult)).wire()

    async def until(self, task_id: str, *statuses: str, timeout: float = 30) -> dict[str, Any]:
        return await poll(lambda: self.request("tasks/get", taskId=task_id), statuses, timeout)


@contextlib.asynccontextmanager
async def extension_client(target: Target, tasks: bool = True) -> AsyncIterator[ExtensionClient]:
    extensions = [TasksClaim()] if tasks else None
    server = target if isinstance(target, str) else stdio(target)
    async with Client(server, mode="2026-07-28", extensions=extensions) as client:
        yield ExtensionClient(client)
