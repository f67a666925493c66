"""Our answers to a server's forms, run as tasks of the client (2025-11-25, SEP-1686).

A server that sees ``capabilities.tasks.requests.elicitation.create`` may send
``elicitation/create`` with ``params.task``: the client answers at once with a
``CreateTaskResult``, shows the form, and answers the server's ``tasks/get``,
``tasks/result`` (which waits for the person), ``tasks/cancel`` (which takes the form back) and
``tasks/list`` (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks).

mcp 2.3 does not route those requests to a client at all; :class:`ClientTasks` answers them,
and ``session.py`` hands them over before the SDK would refuse them as unknown.
"""

from __future__ import annotations

import asyncio
import collections
import datetime
import uuid
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any

import mcp_types as types
from mcp import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from .tasks import RELATED_TASK

__all__ = ["METHODS", "ClientTasks"]

METHODS = frozenset({"tasks/get", "tasks/result", "tasks/cancel", "tasks/list"})
#: Finished tasks kept for the server to read (the oldest go first).
KEEP = 100
#: How long (ms) a server is told we keep a task, and how often (ms) it may poll.
TTL_MS = 10 * 60 * 1000
POLL_MS = 1000

Answerer = Callable[[Any], Awaitable[types.ElicitResult | types.ErrorData]]


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat().replace("+00:00", "Z")


class _ClientTask:
    def __init__(self, task_id: str,
                 job: asyncio.Task[types.ElicitResult | types.ErrorData]) -> None:
        self.task_id, self.job = task_id, job
        self.status = "working"
        self.created = self.updated = _now()
        self.outcome: types.ElicitResult | types.ErrorData | None = None

    def wire(self) -> dict[str, Any]:
        return {"taskId": self.task_id, "status": self.status, "createdAt": self.created,
                "lastUpdatedAt": self.updated, "ttl": TTL_MS, "pollInterval": POLL_MS}


class ClientTasks:
    """The forms of one session that run as the client's tasks, by task id."""

    def __init__(self) -> None:
        self._tasks: collections.OrderedDict[str, _ClientTask] = collections.OrderedDict()

    def create(self, answer: Awaitable[types.ElicitResult | types.ErrorData]) -> dict[str, Any]:
        """Start answering (the form shows at once); the ``CreateTaskResult`` to send."""
        task_id = f"nb-elicit-{uuid.uuid4().hex}"
        # Background work: owned by ClientTasks: cancelled with the session, cancel_all.
        job = asyncio.ensure_future(answer)
        task = _ClientTask(task_id, job)
        job.add_done_callback(lambda j: self._ended(task, j))
        self._tasks[task_id] = task
        self._forget_old()
        return {"task": task.wire()}

    async def answer(self, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
        """A server's ``tasks/*`` request about one of our tasks."""
        if method == "tasks/list":
            return {"tasks": [task.wire() for task in self._tasks.values()]}
        task = self._task((params or {}).get("taskId"))
        if method == "tasks/get":
            return task.wire()
        if method == "tasks/cancel":
            if task.status in ("completed", "failed", "cancelled"):
                raise MCPError(code=INVALID_PARAMS, message=(
                    f"task {task.task_id} has already ended ({task.status}): it cannot be "
                    "cancelled"))
            task.job.cancel()
            task.status, task.updated = "cancelled", _now()
            return task.wire()
        # tasks/result: wait for the person (a cancelled task answers as cancelled)
        with _suppress_cancelled_job():
            await asyncio.shield(task.job)
        outcome = task.outcome
        if isinstance(outcome, types.ErrorData):
            raise MCPError.from_error_data(outcome)
        if outcome is None:  # cancelled: the form was taken back
            raise MCPError(code=INVALID_PARAMS, message=f"task {task.task_id} was cancelled")
        result = outcome.model_dump(by_alias=True, mode="json", exclude_none=True)
        result.setdefault("_meta", {})[RELATED_TASK] = {"taskId": task.task_id}
        return result

    def cancel_all(self) -> None:
        """The session ends: every form still open is taken back."""
        for task in self._tasks.values():
            task.job.cancel()

    def _task(self, task_id: object) -> _ClientTask:
        task = self._tasks.get(task_id) if isinstance(task_id, str) else None
        if task is None:
            raise MCPError(code=INVALID_PARAMS, message=f"unknown task id {task_id!r}")
        return task

    def _ended(self, task: _ClientTask,
               job: asyncio.Task[types.ElicitResult | types.ErrorData]) -> None:
        if job.cancelled():
            task.status = "cancelled"
        elif job.exception() is not None:
            task.status = "failed"
            task.outcome = types.ErrorData(code=INTERNAL_ERROR, message=f"nb_elicit failed: "
                                                                f"{job.exception()!r}")
        else:
            task.outcome = job.result()
            task.status = "failed" if isinstance(task.outcome, types.ErrorData) else "completed"
        task.updated = _now()

    def _forget_old(self) -> None:
        ended = [t for t in self._tasks.values() if t.status != "working"]
        for task in ended[:max(0, len(self._tasks) - KEEP)]:
            del self._tasks[task.task_id]


class _suppress_cancelled_job:
    def __enter__(self) -> _suppress_cancelled_job:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> bool:
        # The job was cancelled (tasks/cancel, or the session ended): not our request's own
        # cancellation, which shows as the current task cancelling.
        if kind is asyncio.CancelledError:
            current = asyncio.current_task()
            cancelling = getattr(current, "cancelling", None)
            return not (cancelling is not None and cancelling())
        return False
