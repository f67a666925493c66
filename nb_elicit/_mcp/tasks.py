"""Tasks, in both wire shapes, as :class:`RemoteTask` handles free of SDK types.

- **2025-11-25 experimental tasks** (SEP-1686,
  https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks): a
  ``tools/call`` with ``params.task`` answers a ``CreateTaskResult``; the client polls
  ``tasks/get``, fetches the result with ``tasks/result`` (the server's questions travel while
  that request is open, tagged with the related task), and may ``tasks/cancel``. A server may
  also run *our* answer to its ``elicitation/create`` as a task of the client's
  (:mod:`.client_tasks`).
- **The 2026-07-28 extension** ``io.modelcontextprotocol/tasks`` (SEP-2663): ``tools/call``
  answers a result claimed by the extension (``resultType: "task"``), declared through the SDK's
  extension API (:class:`TasksExtension`, ``ResultClaim``); ``tasks/get`` carries the
  task's ``inputRequests`` while it is ``input_required``, ``tasks/update`` answers them, and
  ``tasks/cancel`` ends it.

mcp 2.3 has the 2025-11-25 types but sends none of those requests, and its ``tools/call``
checks every answer against ``CallToolResult``. :class:`~.session._TaskAwareClient` fills the gap
with the session's lowest layer: the dispatcher's ``send_raw_request`` for the task-augmented
call (JSON-RPC framing stays the SDK's), a capability ad that adds ``tasks``, and the
``tasks/*`` requests a server sends to the client (see ``session.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import mcp_types as types
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, RequestParams, Result
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .._core.answer import Answer
from .._core.errors import ServerError
from .._core.tasks.model import TaskShape, TaskState
from .._core.text import shorten
from .._core.types import ElicitationRequest, ToolResult
from .errors import MALFORMED_LIMIT, malformed, request_of

if TYPE_CHECKING:
    from .client_requests import ClientRequests

__all__ = ["EXTENSION", "RELATED_TASK", "RemoteTask", "TasksExtension", "legacy_task",
           "related_task_of", "tool_result_of"]

#: The extension's identifier (as the capabilities name it).
EXTENSION = TaskShape.EXTENSION.value
#: Where a 2025-11-25 message names the task it belongs to (``_meta``).
RELATED_TASK = "io.modelcontextprotocol/related-task"
#: How long (ms) nb_elicit asks a 2025-11-25 server to keep a task: a day, so that a task
#: detached today can be attached to after a kernel restart.
TTL_MS = 24 * 3600 * 1000

TaskFollower = Callable[["RemoteTask"], Awaitable[ToolResult]]


class RemoteTask:
    """One task on a server: what the runtime follows, in either shape."""

    shape: TaskShape

    def __init__(self, session: ClientRequests, task_id: str, tool: str, first: TaskState,
                 placeholder: bool = False) -> None:
        self._session = session
        self.task_id, self.tool, self.first = task_id, tool, first
        #: Whether ``first`` stands in for a state the server has not told yet (a task known
        #: by its id only, attached to again): its follower asks the server first.
        self.placeholder = placeholder

    async def get(self) -> TaskState:
        """The task's state now (``tasks/get``)."""
        raise NotImplementedError

    async def result(self, state: TaskState) -> ToolResult:
        """The tool's result, once ``state`` is terminal (2025-11-25: ``tasks/result``, which
        blocks until then, and may be asked for at once)."""
        raise NotImplementedError

    def input_requests(self, state: TaskState) -> dict[str, ElicitationRequest]:
        """The questions a 2026-07-28 task waits on in ``state`` (none in 2025-11-25: they
        come as requests of their own)."""
        return {}

    async def answer(self, answers: dict[str, Answer]) -> None:
        """Send the answers to :meth:`input_requests` (``tasks/update``)."""
        raise ServerError(METHOD_NOT_FOUND, "this task shape takes no answers by tasks/update")

    async def cancel(self) -> TaskState | None:
        """Ask the server to cancel (``tasks/cancel``); the state it answered, if any."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<RemoteTask {self.tool} {self.task_id} ({self.shape})>"


# -- 2025-11-25 ---------------------------------------------------------------------------


def _state_2025(task: _LegacyTaskFields | types.Task) -> TaskState:
    return TaskState(task_id=task.task_id, status=task.status, status_message=task.status_message,
                     poll_interval_ms=task.poll_interval, ttl_ms=task.ttl,
                     created_at=task.created_at, last_updated_at=task.last_updated_at)


class _LegacyTaskFields(Result):
    """A 2025-11-25 ``Task`` as ``tasks/get`` and ``tasks/cancel`` answer it, with any status
    (the SDK's own model knows only five; the task card warns about others and ignores them)."""

    model_config = ConfigDict(populate_by_name=True)

    task_id: str = Field(alias="taskId")
    status: str
    status_message: str | None = Field(default=None, alias="statusMessage")
    poll_interval: float | None = Field(default=None, alias="pollInterval")
    ttl: int | None = None
    created_at: str | None = Field(default=None, alias="createdAt")
    last_updated_at: str | None = Field(default=None, alias="lastUpdatedAt")


async def _legacy_request(session: ClientRequests, method: str, task_id: str) -> TaskState:
    raw = await session.raw_request(method, {"taskId": task_id})
    try:
        task = _LegacyTaskFields.model_validate(raw)
    except ValidationError as exc:
        raise malformed(f"the server's answer to {method}", exc) from None
    _same_task(method, task_id, task.task_id)
    return _state_2025(task)


def _same_task(method: str, asked: str, answered: str | None) -> None:
    """A ``tasks/get`` or ``tasks/cancel`` answer about another task than the one asked about
    is malformed: its state is not this task's."""
    if answered is not None and answered != asked:
        raise ServerError(INTERNAL_ERROR, shorten(
            f"the server's answer to {method} is malformed: taskId: it names the task "
            f"{answered!r}, not {asked!r}", MALFORMED_LIMIT, one_line=True))


class _LegacyTask(RemoteTask):
    shape = TaskShape.V2025

    async def get(self) -> TaskState:
        return await _legacy_request(self._session, "tasks/get", self.task_id)

    async def result(self, state: TaskState) -> ToolResult:
        result = await self._session.request(types.GetTaskPayloadRequest(
            params=types.GetTaskPayloadRequestParams(task_id=self.task_id)),
            types.CallToolResult)
        await self._session.validate_tool_result(self.tool, result)
        return tool_result_of(result)

    async def cancel(self) -> TaskState | None:
        return await _legacy_request(self._session, "tasks/cancel", self.task_id)


def legacy_task(session: ClientRequests, tool: str, raw: dict[str, Any]) -> RemoteTask:
    """The task a 2025-11-25 server created for a call (its ``CreateTaskResult``)."""
    try:
        created = types.CreateTaskResult.model_validate(raw, by_name=False)
    except ValidationError as exc:
        raise malformed(f"the server's task for {tool}", exc) from None
    return _LegacyTask(session, created.task.task_id, tool, _state_2025(created.task))


def attach_legacy(session: ClientRequests, tool: str, task_id: str) -> RemoteTask:
    """A 2025-11-25 task known by its id only (attached to again)."""
    return _LegacyTask(session, task_id, tool, TaskState(task_id=task_id, status="working"),
                       placeholder=True)


def related_task_of(meta: object) -> str | None:
    """The task a 2025-11-25 request belongs to, from its ``_meta``."""
    if not isinstance(meta, dict):
        meta = getattr(meta, "model_extra", None) or {}
    related = meta.get(RELATED_TASK)
    if isinstance(related, dict) and isinstance(task_id := related.get("taskId"), str):
        return task_id
    return None


# -- 2026-07-28: io.modelcontextprotocol/tasks ---------------------------------------------


class _TaskFields(Result):
    model_config = ConfigDict(populate_by_name=True)

    task_id: str = Field(alias="taskId")
    status: str
    created_at: str | None = Field(default=None, alias="createdAt")
    last_updated_at: str | None = Field(default=None, alias="lastUpdatedAt")
    ttl_ms: int | None = Field(default=None, alias="ttlMs")
    status_message: str | None = Field(default=None, alias="statusMessage")
    poll_interval_ms: float | None = Field(default=None, alias="pollIntervalMs")

    def state(self, error: str | None = None) -> TaskState:
        return TaskState(task_id=self.task_id, status=self.status,
                         status_message=self.status_message,
                         poll_interval_ms=self.poll_interval_ms, ttl_ms=self.ttl_ms,
                         created_at=self.created_at, last_updated_at=self.last_updated_at,
                         error=error)


class ExtensionTaskCreated(_TaskFields):
    """What ``tools/call`` answers when the server runs the call as a task."""

    result_type: Literal["task"] = Field(alias="resultType")


class ExtensionTaskStatus(_TaskFields):
    """What ``tasks/get`` answers: the task, with its result, error or input requests."""

    result_type: Literal["complete"] | None = Field(default=None, alias="resultType")
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    input_requests: dict[str, Any] | None = Field(default=None, alias="inputRequests")


class _TaskIdParams(RequestParams):
    model_config = ConfigDict(populate_by_name=True)

    task_id: str = Field(serialization_alias="taskId")


class _UpdateParams(_TaskIdParams):
    input_responses: dict[str, Any] = Field(serialization_alias="inputResponses")


class _ExtensionGet(types.Request[_TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: _TaskIdParams


class _ExtensionUpdate(types.Request[_UpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    params: _UpdateParams


class _ExtensionCancel(types.Request[_TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: _TaskIdParams


class _CancelAnswer(Result):
    """What the extension's ``tasks/cancel`` answers: nothing required; a ``taskId``, if it
    names one, must be the task's."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")

    task_id: str | None = Field(default=None, alias="taskId")


class _ExtensionTask(RemoteTask):
    shape = TaskShape.EXTENSION

    def __init__(self, session: ClientRequests, task_id: str, tool: str, first: TaskState,
                 placeholder: bool = False) -> None:
        super().__init__(session, task_id, tool, first, placeholder)
        self._last: ExtensionTaskStatus | None = None

    async def get(self) -> TaskState:
        status = await self._session.request(
            _ExtensionGet(params=_TaskIdParams(task_id=self.task_id)), ExtensionTaskStatus)
        _same_task("tasks/get", self.task_id, status.task_id)
        self._last = status
        return status.state(error=_error_text(status.error) if status.status == "failed"
                            else None)

    async def result(self, state: TaskState) -> ToolResult:
        if self._last is None or self._last.status != "completed":
            await self.get()  # (tools/call said completed already: the result is on tasks/get)
        last = self._last
        if last is None or last.status != "completed":
            raise ServerError(INTERNAL_ERROR,
                              f"the task {self.task_id} has no result ({state.status})")
        try:
            result = types.CallToolResult.model_validate(last.result or {}, by_name=False)
        except ValidationError as exc:
            raise malformed(f"the result of task {self.task_id}", exc) from None
        await self._session.validate_tool_result(self.tool, result)
        return tool_result_of(result)

    def input_requests(self, state: TaskState) -> dict[str, ElicitationRequest]:
        last = self._last
        if last is None or state.status != "input_required" or not last.input_requests:
            return {}
        asked: dict[str, ElicitationRequest] = {}
        for key, payload in last.input_requests.items():
            method = payload.get("method") if isinstance(payload, dict) else None
            if method != "elicitation/create":
                raise ServerError(INVALID_PARAMS, f"the task {self.task_id} asks by {method!r}, "
                                  "which nb_elicit does not answer (only elicitation/create)")
            try:
                request = types.ElicitRequest.model_validate(payload, by_name=False)
            except ValidationError as exc:
                raise ServerError(INVALID_PARAMS, f"the task {self.task_id} asks a malformed "
                                  f"question: {exc.errors()[0]['msg']}") from None
            asked[str(key)] = request_of(request.params)
        return asked

    async def answer(self, answers: dict[str, Answer]) -> None:
        responses = {key: answer.to_result() for key, answer in answers.items()}
        await self._session.request(_ExtensionUpdate(params=_UpdateParams(
            task_id=self.task_id, input_responses=responses)), types.Result)

    async def cancel(self) -> TaskState | None:
        answer = await self._session.request(
            _ExtensionCancel(params=_TaskIdParams(task_id=self.task_id)), _CancelAnswer)
        _same_task("tasks/cancel", self.task_id, answer.task_id)
        return None


def attach_extension(session: ClientRequests, tool: str, task_id: str) -> RemoteTask:
    """A 2026-07-28 task known by its id only (attached to again)."""
    return _ExtensionTask(session, task_id, tool, TaskState(task_id=task_id, status="working"),
                          placeholder=True)


def _error_text(error: object) -> str | None:
    if isinstance(error, dict) and isinstance(message := error.get("message"), str):
        return message
    return None


class TasksExtension(ClientExtension):
    """The client half of ``io.modelcontextprotocol/tasks``: its ad, and the claim that turns a
    task result of ``tools/call`` into the call's own result, by following the task."""

    identifier = EXTENSION

    def __init__(self, session: ClientRequests, follow: TaskFollower) -> None:
        self._session, self._follow = session, follow

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return (ResultClaim(result_type="task", model=ExtensionTaskCreated, resolve=self._resolve,
                            protocol_versions=frozenset(MODERN_PROTOCOL_VERSIONS)),)

    async def _resolve(self, created: ExtensionTaskCreated,
                       context: ClaimContext) -> types.CallToolResult:
        task = _ExtensionTask(self._session, created.task_id, context.tool_name, created.state())
        result = await self._follow(task)
        # (the SDK checks the output schema again; it already passed here)
        # (the content is the wire's plain dicts, which pydantic validates into its blocks)
        return types.CallToolResult(content=result.content,  # type: ignore[arg-type]
                                    structured_content=result.structured,
                                    is_error=result.is_error)


def tool_result_of(result: types.CallToolResult) -> ToolResult:
    def plain(model: BaseModel) -> dict[str, Any]:
        return model.model_dump(mode="json", by_alias=True, exclude_none=True)

    return ToolResult(content=[plain(b) for b in result.content],
                      structured=result.structured_content, is_error=bool(result.is_error))
