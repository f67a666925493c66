"""The demo server's tasks: tool calls that run in the background while the client polls them.

One engine serves both wire shapes of MCP tasks (``task_wire.py`` speaks them):

- the 2025-11-25 experimental tasks (``tools/call`` with ``params.task``, then ``tasks/get``,
  ``tasks/result``, ``tasks/cancel``, ``tasks/list``; a question travels as ``elicitation/create``
  on the open ``tasks/result`` request);
- the 2026-07-28 extension ``io.modelcontextprotocol/tasks`` (``tools/call`` answers
  ``resultType: "task"``, then ``tasks/get``, ``tasks/update``, ``tasks/cancel``; a question
  travels as ``inputRequests`` on ``tasks/get``).

A task tool is written once, for both: it reads its task with :func:`current` and calls
:meth:`Task.report` and :meth:`Task.ask`. Tasks live in this process's memory until their TTL
runs out.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Literal

import mcp_types as types
from mcp import MCPError

logger = logging.getLogger(__name__)

#: The 2025-11-25 experimental tasks, and the 2026-07-28 extension.
Era = Literal["2025-11-25", "extension"]
LEGACY: Era = "2025-11-25"
EXTENSION: Era = "extension"
EXTENSION_ID = "io.modelcontextprotocol/tasks"
RELATED_TASK = "io.modelcontextprotocol/related-task"

TERMINAL = frozenset({"completed", "failed", "cancelled"})
#: How long a task is kept (from its creation) unless the client asks for less, and at most.
TTL_MS = 5 * 60_000
MAX_TTL_MS = 60 * 60_000
POLL_INTERVAL_MS = 500

_current: contextvars.ContextVar[Task | None] = contextvars.ContextVar("demo_task", default=None)


def current() -> Task | None:
    """The task the calling tool runs as, or ``None`` when it runs as a plain call."""
    return _current.get()


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(eq=False)
class Question:
    """One question a task asks: a form, and the answer the task waits for."""

    key: str
    message: str
    schema: dict[str, Any]
    answer: asyncio.Future[types.ElicitResult]
    #: (2025-11-25) on its way to the client over an open ``tasks/result``.
    sent: bool = False

    def params(self, meta: dict[str, Any] | None = None) -> types.ElicitRequestFormParams:
        # (the SDK's RequestParamsMeta is an open TypedDict, extra_items=Any: the related task
        # is one of those extra keys, which mypy does not read)
        return types.ElicitRequestFormParams(message=self.message, requested_schema=self.schema,
                                             _meta=meta)  # type: ignore[arg-type]

    def settle(self, result: types.ElicitResult | BaseException) -> None:
        if self.answer.done():
            return
        if isinstance(result, BaseException):
            self.answer.set_exception(result)
        else:
            self.answer.set_result(result)


@dataclass(eq=False)
class Task:
    """One tool call running as a task: its status, its questions, its outcome."""

    task_id: str
    tool: str
    era: Era
    #: Whose task it is: the HTTP session that created it (None over stdio or stateless HTTP).
    owner: str | None
    ttl_ms: int
    status: str = "working"
    status_message: str | None = None
    created_at: str = field(default_factory=_now)
    last_updated_at: str = ""
    created: float = field(default_factory=time.monotonic)
    #: The tool's CallToolResult (wire form), once completed; or the JSON-RPC error it failed with.
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    questions: dict[str, Question] = field(default_factory=dict)
    asked: int = 0
    runner: asyncio.Task[None] | None = None
    #: Told of every status change (2025-11-25: ``notifications/tasks/status``).
    on_change: Callable[[Task], Awaitable[None]] | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self.last_updated_at = self.created_at

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @property
    def expired(self) -> bool:
        return (time.monotonic() - self.created) * 1000 > self.ttl_ms

    # -- what the tool calls -------------------------------------------------------------------

    async def report(self, message: str) -> None:
        """Say what the task is doing now (its ``statusMessage``, status ``working``)."""
        await self._set("working", message)

    async def ask(self, message: str, schema: dict[str, Any]) -> types.ElicitResult:
        """Ask the person one form question and wait for the answer (status ``input_required``
        meanwhile). Raises the client's JSON-RPC error if it could not ask."""
        self.asked += 1
        key = f"{self.tool}-{self.asked}"
        question = Question(key, message, schema, asyncio.get_running_loop().create_future())
        self.questions[key] = question
        await self._set("input_required", message)
        try:
            return await question.answer
        finally:
            self.questions.pop(key, None)
            if self.status == "input_required" and not self.questions:
                await self._set("working", "Answer received.")

    # -- what the wire calls -------------------------------------------------------------------

    def answer(self, key: str, result: types.ElicitResult) -> bool:
        """Settle the outstanding question ``key``; False when there is none of that key."""
        question = self.questions.get(key)
        if question is None or question.answer.done():
            return False
        question.settle(result)
        return True

    def next_unsent(self) -> Question | None:
        return next((q for q in self.questions.values() if not q.sent), None)

    async def cancel(self, message: str = "The task was cancelled by request.") -> None:
        """Mark the task cancelled at once, then stop its tool."""
        if self.terminal:
            return
        await self._set("cancelled", message)
        if self.runner is not None:
            self.runner.cancel()

    async def wait_for_change(self) -> None:
        await self._changed.wait()

    async def _set(self, status: str, message: str | None) -> None:
        if self.terminal:
            return
        self.status, self.status_message, self.last_updated_at = status, message, _now()
        self._changed.set()
        self._changed = asyncio.Event()
        if self.on_change is not None:
            try:
                await self.on_change(self)
            except Exception:  # a status notification is a courtesy: never the task's failure
                logger.debug("status notification for task %s not sent", self.task_id)

    async def _finish(self, result: dict[str, Any] | None, error: dict[str, Any] | None) -> None:
        if self.terminal:
            return
        self.result, self.error = result, error
        if error is not None:
            await self._set("failed", error.get("message"))
        elif result and result.get("isError") and self.era == LEGACY:
            # 2025-11-25: a tool error fails the task; the extension completes it (SEP-2663).
            await self._set("failed", _text_of(result))
        else:
            await self._set("completed", None)

    # -- the wire shapes -----------------------------------------------------------------------

    def legacy_view(self) -> dict[str, Any]:
        """The 2025-11-25 ``Task``."""
        view = {"taskId": self.task_id, "status": self.status, "createdAt": self.created_at,
                "lastUpdatedAt": self.last_updated_at, "ttl": self.ttl_ms,
                "pollInterval": POLL_INTERVAL_MS}
        if self.status_message is not None:
            view["statusMessage"] = self.status_message
        return view

    def extension_view(self, detailed: bool = True) -> dict[str, Any]:
        """The extension's ``Task``; ``detailed``, with what its status carries (the result, the
        error, or the questions outstanding)."""
        view = {"taskId": self.task_id, "status": self.status, "createdAt": self.created_at,
                "lastUpdatedAt": self.last_updated_at, "ttlMs": self.ttl_ms,
                "pollIntervalMs": POLL_INTERVAL_MS}
        if self.status_message is not None:
            view["statusMessage"] = self.status_message
        if not detailed:
            return view
        if self.status == "completed":
            view["result"] = self.result or {"content": []}
        elif self.status == "failed":
            view["error"] = self.error or {"code": types.INTERNAL_ERROR,
                                           "message": self.status_message or "Task failed"}
        elif self.status == "input_required":
            view["inputRequests"] = {
                key: types.ElicitRequest(params=q.params()).model_dump(
                    by_alias=True, mode="json", exclude_none=True)
                for key, q in self.questions.items()}
        return view


def _text_of(result: dict[str, Any]) -> str:
    texts = [block.get("text", "") for block in result.get("content") or []
             if isinstance(block, dict) and block.get("type") == "text"]
    return " ".join(texts) or "The tool failed."


class TaskStore:
    """Every task of this server, by id."""

    def __init__(self) -> None:
        self._tasks: dict[str, Task] = {}

    def create(self, tool: str, era: Era, owner: str | None, ttl_ms: int | None = None) -> Task:
        self._purge()
        ttl = TTL_MS if ttl_ms is None or ttl_ms <= 0 else min(ttl_ms, MAX_TTL_MS)
        task = Task(task_id=str(uuid.uuid4()), tool=tool, era=era, owner=owner, ttl_ms=ttl)
        self._tasks[task.task_id] = task
        return task

    def find(self, task_id: str, era: Era, owner: str | None) -> Task | None:
        """The task of that id, if it was made in this era by this owner and has not expired."""
        self._purge()
        task = self._tasks.get(task_id)
        if task is None or task.era != era or task.owner != owner:
            return None
        return task

    def listed(self, era: Era, owner: str | None) -> list[Task]:
        self._purge()
        return [t for t in self._tasks.values() if t.era == era and t.owner == owner]

    def _purge(self) -> None:
        for task in [t for t in self._tasks.values() if t.expired]:
            del self._tasks[task.task_id]
            if task.runner is not None:
                task.runner.cancel()

    def start(self, task: Task, work: Callable[[], Awaitable[Any]]) -> None:
        """Run ``work`` (the tool call, returning its CallToolResult) as ``task``, in the
        background: :func:`current` is ``task`` inside it."""
        task.runner = asyncio.get_running_loop().create_task(_run(task, work))


async def _run(task: Task, work: Callable[[], Awaitable[Any]]) -> None:
    _current.set(task)
    try:
        outcome = await work()
    except asyncio.CancelledError:
        # By tasks/cancel (already cancelled), or the TTL ran out, or the server stops.
        await task._set("cancelled", task.status_message)
        return
    except MCPError as error:
        await task._finish(None, error.error.model_dump(mode="json", exclude_none=True))
    except Exception as error:  # the tool's own failure is the task's, never the server's
        logger.exception("task %s (%s) failed", task.task_id, task.tool)
        await task._finish(None, {"code": types.INTERNAL_ERROR, "message": str(error)})
    else:
        await task._finish(as_wire(outcome), None)


def as_wire(result: Any) -> dict[str, Any]:
    """A handler's result (a model, or the runner's wire dict) as a wire dict."""
    if hasattr(result, "model_dump"):
        dumped: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        return dumped
    return dict(result or {})
