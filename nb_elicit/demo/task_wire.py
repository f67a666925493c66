"""The two wire shapes of the demo's tasks, on the SDK's public server hooks.

``DemoTasks`` is an SDK ``Extension`` (``io.modelcontextprotocol/tasks``, advertised in the
2026-07-28 ``server/discover``): its ``intercept_tool_call`` turns a call of a task tool into a
task, and its ``MethodBinding``\\ s serve ``tasks/get``, ``tasks/update`` and ``tasks/cancel``
(2026-07-28), and ``tasks/get``, ``tasks/result``, ``tasks/cancel`` and ``tasks/list``
(2025-11-25). Its ``middleware`` does what a handler cannot on a 2025-11-25 connection, where
the SDK reshapes every spec method's result to that version's schema: it adds
``capabilities.tasks`` to the ``initialize`` result and ``execution.taskSupport`` to the task
tools in ``tools/list``, and answers a task-augmented ``tools/call`` with its
``CreateTaskResult`` (which the reshaping would turn into an invalid ``CallToolResult``).

Which shape a client gets:

- 2025-11-25 with ``params.task`` on the call: a 2025-11-25 task;
- 2026-07-28 with the extension in the request's client capabilities: an extension task;
- neither: a tool whose ``taskSupport`` is ``"optional"`` runs as a plain call; a
  ``"required"`` one is refused: -32601 "... requires task augmentation" (2025-11-25 and
  older), -32021 with ``data.requiredCapabilities`` naming the extension (2026-07-28).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import anyio
import anyio.abc
import mcp_types as types
from mcp import MCPError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.shared.message import ServerMessageMetadata
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field

from .tasks import (
    EXTENSION,
    EXTENSION_ID,
    LEGACY,
    RELATED_TASK,
    Era,
    Question,
    Task,
    TaskStore,
    current,
)

Support = Literal["optional", "required"]

_LEGACY_ONLY = frozenset({LEGACY})
_MODERN = frozenset(MODERN_PROTOCOL_VERSIONS)
_BOTH = _LEGACY_ONLY | _MODERN

#: What a 2025-11-25 server that runs ``tools/call`` as tasks declares.
LEGACY_CAPABILITY: dict[str, dict[str, Any]] = {"list": {}, "cancel": {},
                                                "requests": {"tools": {"call": {}}}}


class UpdateTaskParams(types.RequestParams):
    """``tasks/update`` (2026-07-28 extension): answers to a task's outstanding questions."""

    task_id: str
    input_responses: dict[str, Any] = Field(default_factory=dict)


def _owner(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """The HTTP session a request belongs to: tasks are kept apart per session."""
    headers = getattr(ctx.request, "headers", None)
    return headers.get("mcp-session-id") if headers is not None else None


def _era(ctx: ServerRequestContext[Any, Any]) -> Era:
    return EXTENSION if ctx.protocol_version in _MODERN else LEGACY


def _not_found(task_id: str) -> MCPError:
    return MCPError(code=types.INVALID_PARAMS,
                    message=f"Failed to retrieve task: Task not found ({task_id})")


class DemoTasks(Extension):
    """The demo's tasks, in both wire shapes (see the module's docstring)."""

    identifier = EXTENSION_ID

    def __init__(self) -> None:
        self.store = TaskStore()
        #: Each task tool's ``execution.taskSupport``.
        self.support: dict[str, Support] = {}

    def task_tool(self, name: str, support: Support) -> None:
        """Serve the tool ``name`` as a task (``support``: its ``execution.taskSupport``)."""
        self.support[name] = support

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("tasks/get", types.GetTaskRequestParams, self._get, _BOTH),
            MethodBinding("tasks/cancel", types.CancelTaskRequestParams, self._cancel, _BOTH),
            MethodBinding("tasks/update", UpdateTaskParams, self._update, _MODERN),
            MethodBinding("tasks/result", types.GetTaskPayloadRequestParams, self._result,
                          _LEGACY_ONLY),
            MethodBinding("tasks/list", types.PaginatedRequestParams, self._list, _LEGACY_ONLY),
        ]

    # -- tools/call ----------------------------------------------------------------------------

    async def intercept_tool_call(self, params: types.CallToolRequestParams,
                                  ctx: ServerRequestContext[Any, Any],
                                  call_next: CallNext) -> HandlerResult:
        support = self.support.get(params.name)
        if support is None or current() is not None:
            return await call_next(ctx)  # not a task tool, or its task running it
        if _era(ctx) == EXTENSION and _declares_extension(ctx):
            task = self.store.create(params.name, EXTENSION, _owner(ctx))
            self.store.start(task, lambda: call_next(ctx))
            return {"resultType": "task", **task.extension_view(detailed=False)}
        if support == "optional":
            return await call_next(ctx)
        if _era(ctx) == EXTENSION:
            raise MCPError(
                code=types.MISSING_REQUIRED_CLIENT_CAPABILITY,
                message=f"Tool {params.name!r} runs only as a task: it requires the tasks "
                        f"extension ({EXTENSION_ID}), which the client did not declare",
                data={"requiredCapabilities": {"extensions": {EXTENSION_ID: {}}}})
        raise MCPError(code=types.METHOD_NOT_FOUND,
                       message=f"Tool {params.name!r} requires task augmentation: call it with "
                               "params.task (its execution.taskSupport is 'required')")

    # -- the 2025-11-25 connection: what handlers cannot do there ------------------------------

    async def middleware(self, ctx: ServerRequestContext[Any, Any],
                         call_next: CallNext) -> HandlerResult:
        if ctx.method == "initialize":
            result = await call_next(ctx)
            if isinstance(result, dict) and result.get("protocolVersion") == LEGACY:
                result.setdefault("capabilities", {})["tasks"] = LEGACY_CAPABILITY
            return result
        if ctx.protocol_version != LEGACY:
            return await call_next(ctx)
        if ctx.method == "tools/list":
            result = await call_next(ctx)
            for tool in result.get("tools", []) if isinstance(result, dict) else []:
                if tool.get("name") in self.support:
                    tool["execution"] = {"taskSupport": self.support[tool["name"]]}
            return result
        params = ctx.params if isinstance(ctx.params, Mapping) else {}
        if ctx.method != "tools/call" or not isinstance(params.get("task"), Mapping):
            return await call_next(ctx)
        name = params.get("name")
        if name not in self.support:
            raise MCPError(code=types.METHOD_NOT_FOUND,
                           message=f"Tool {name!r} does not run as a task (its "
                                   "execution.taskSupport is 'forbidden')")
        ttl = params["task"].get("ttl")
        task = self.store.create(name, LEGACY, _owner(ctx), ttl if isinstance(ttl, int) else None)
        session = ctx.session
        # (the SDK's union of a server's notifications leaves out the 2025-11-25 task status it
        # has the type of)
        task.on_change = lambda changed: session.send_notification(
            types.TaskStatusNotification(  # type: ignore[arg-type]
                params=types.TaskStatusNotificationParams.model_validate(changed.legacy_view())))
        self.store.start(task, lambda: call_next(ctx))
        return {"task": task.legacy_view()}

    # -- tasks/* -------------------------------------------------------------------------------

    def _find(self, ctx: ServerRequestContext[Any, Any], task_id: str) -> Task:
        era = _era(ctx)
        if era == EXTENSION and not _declares_extension(ctx):
            raise MCPError(
                code=types.MISSING_REQUIRED_CLIENT_CAPABILITY,
                message=f"{ctx.method} belongs to the tasks extension ({EXTENSION_ID}), which "
                        "the client did not declare",
                data={"requiredCapabilities": {"extensions": {EXTENSION_ID: {}}}})
        task = self.store.find(task_id, era, _owner(ctx))
        if task is None:
            raise _not_found(task_id)
        return task

    async def _get(self, ctx: ServerRequestContext[Any, Any],
                   params: types.GetTaskRequestParams) -> dict[str, Any]:
        task = self._find(ctx, params.task_id)
        return task.extension_view() if task.era == EXTENSION else task.legacy_view()

    async def _cancel(self, ctx: ServerRequestContext[Any, Any],
                      params: types.CancelTaskRequestParams) -> dict[str, Any]:
        task = self._find(ctx, params.task_id)
        if task.era == EXTENSION:
            await task.cancel()
            return {}
        if task.terminal:
            raise MCPError(code=types.INVALID_PARAMS,
                           message=f"Cannot cancel task: already in terminal status "
                                   f"{task.status!r}")
        await task.cancel()
        return task.legacy_view()

    async def _update(self, ctx: ServerRequestContext[Any, Any],
                      params: UpdateTaskParams) -> dict[str, Any]:
        task = self._find(ctx, params.task_id)
        for key, response in params.input_responses.items():
            if key not in task.questions:
                continue  # unknown, or already answered: ignored (SEP-2663)
            try:
                answer = types.ElicitResult.model_validate(response)
            except ValueError:
                raise MCPError(code=types.INVALID_PARAMS,
                               message=f"inputResponses[{key!r}] is not an ElicitResult") from None
            task.answer(key, answer)
        return {}

    async def _list(self, ctx: ServerRequestContext[Any, Any],
                    params: types.PaginatedRequestParams) -> dict[str, Any]:
        if params.cursor is not None:
            raise MCPError(code=types.INVALID_PARAMS, message="Invalid cursor: this server "
                                                              "lists every task on one page")
        return {"tasks": [t.legacy_view() for t in self.store.listed(LEGACY, _owner(ctx))]}

    async def _result(self, ctx: ServerRequestContext[Any, Any],
                      params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
        """Block until the task ends, asking its questions on this request meanwhile; then
        return what the ``tools/call`` would have returned."""
        task = self._find(ctx, params.task_id)
        while not task.terminal:
            question = task.next_unsent()
            if question is None:
                await task.wait_for_change()
            else:
                await _deliver(ctx, task, question)
        if task.error is not None:
            raise MCPError(code=task.error.get("code", types.INTERNAL_ERROR),
                           message=task.error.get("message", "Task failed"),
                           data=task.error.get("data"))
        if task.result is None:
            raise MCPError(code=types.INVALID_PARAMS,
                           message=f"Task {task.task_id} was cancelled: it has no result")
        meta = {**(task.result.get("_meta") or {}), RELATED_TASK: {"taskId": task.task_id}}
        return {**task.result, "_meta": meta}


def _declares_extension(ctx: ServerRequestContext[Any, Any]) -> bool:
    capabilities = ctx.session.client_capabilities
    return bool(capabilities and capabilities.extensions and
                EXTENSION_ID in capabilities.extensions)


async def _deliver(ctx: ServerRequestContext[Any, Any], task: Task, question: Question) -> None:
    """Send one question as ``elicitation/create`` on the open ``tasks/result`` request and
    settle it with the answer; withdrawn (the request cancelled) if the task ends first."""
    question.sent = True
    request = types.ElicitRequest(params=question.params({RELATED_TASK: {"taskId": task.task_id}}))

    async def ask(group: anyio.abc.TaskGroup) -> None:
        try:
            question.settle(await ctx.session.send_request(
                request, types.ElicitResult,
                metadata=ServerMessageMetadata(related_request_id=ctx.request_id)))
        except MCPError as error:
            question.settle(error)
        group.cancel_scope.cancel()

    async def watch(group: anyio.abc.TaskGroup) -> None:
        while not task.terminal and not question.answer.done():
            await task.wait_for_change()
        group.cancel_scope.cancel()

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(ask, group)
            group.start_soon(watch, group)
    finally:
        if not question.answer.done() and not task.terminal:
            question.sent = False  # this request went away: the next tasks/result asks again
