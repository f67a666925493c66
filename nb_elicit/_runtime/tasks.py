"""Tasks this kernel follows (:data:`TASKS`), and following one to its end (:class:`TaskRun`).

A call the server runs as a task is followed inside the call itself, so its forms land in its
cell as any call's do, and Interrupt and the call's timeout end it. Following polls
``tasks/get`` at the interval the server asks for (clamped, see :func:`poll_seconds`), shows
each state on the call's :class:`~nb_elicit._ui.task_card.TaskCard`, answers the questions
asked inside the task, and returns the tool's result:

- 2025-11-25: ``tasks/result`` is asked for at once and stays open; the server's questions
  come on it as ``elicitation/create`` requests tagged with the task, answered as any form is.
- 2026-07-28: while the task is ``input_required``, ``tasks/get`` carries its questions; each
  is answered as any form is (person, policy, replay, backlog), then ``tasks/update``.

**Cancel** sends ``tasks/cancel``; **Detach** ends the call but not the task, whose id stays
in the owner-only file of running tasks (:mod:`nb_elicit._core.task_store`), so that
``%mcp task NAME ID`` can attach to it again, in this kernel or the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from typing import NoReturn

from .._core.answer import Answer
from .._core.errors import (
    ConnectError,
    ServerDisconnected,
    ServerError,
    TaskCancelled,
    TaskDetached,
)
from .._core.i18n import t
from .._core.task_store import SavedTask, TaskStore
from .._core.tasks import STATUSES, TaskState, poll_seconds
from .._core.types import ToolResult
from .._mcp import SHAPE_2025, Era
from .._ui.task_card import TaskCard

__all__ = ["TASKS", "TaskCancelled", "TaskDetached", "TaskRun", "Tasks"]

#: Seconds a Cancel (or an interrupted call's cancel) waits for the server's answer.
CANCEL_WAIT = 5.0
#: JSON-RPC codes with which a server says it does not know a task (any more).
UNKNOWN_TASK = (-32602, -32001, -32002, -32600)


@dataclass
class TaskRun:
    """One task this kernel follows (or followed)."""

    connection: str
    remote: object  # the adapter's RemoteTask
    card: TaskCard | None = None
    #: The call that follows it (its forms show in that call's cell).
    call: object = None
    started: float = field(default_factory=time.time)
    state: TaskState | None = None
    detached: bool = False
    ended: bool = False
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _loop: asyncio.AbstractEventLoop = field(default_factory=asyncio.get_running_loop)
    _cancel_asked: bool = False
    _detach_asked: bool = False
    _poll_note: str | None = None

    @property
    def task_id(self) -> str:
        return self.remote.task_id

    @property
    def tool(self) -> str:
        return self.remote.tool

    @property
    def status(self) -> str:
        return self.state.status if self.state is not None else "working"

    def ask_cancel(self) -> None:
        """Cancel (from the card's button, maybe on another thread): done by the follower."""
        self._cancel_asked = True
        self._loop.call_soon_threadsafe(self._wake.set)

    def ask_detach(self) -> None:
        self._detach_asked = True
        self._loop.call_soon_threadsafe(self._wake.set)

    def __repr__(self) -> str:
        return f"<nb_elicit task {self.connection} · {self.tool} {self.task_id}: {self.status}>"


class Tasks:
    """Every task this kernel follows, and the file of those still running."""

    def __init__(self, store: TaskStore | None = None):
        self.store = store or TaskStore()
        self._runs: dict[tuple[str, str], TaskRun] = {}

    def runs(self, connection: str | None = None) -> list[TaskRun]:
        return [r for r in self._runs.values() if connection in (None, r.connection)]

    def find(self, connection: str, task_id: str) -> TaskRun | None:
        return self._runs.get((connection, task_id))

    def saved(self, connection: str | None = None) -> list[SavedTask]:
        """Running tasks the file knows of that this kernel does not follow (an earlier
        kernel's, or detached)."""
        return [s for s in self.store.entries()
                if connection in (None, s.connection)
                and not (s.key in self._runs and not self._runs[s.key].detached)]

    def begin(self, run: TaskRun, where: str) -> None:
        self._runs[(run.connection, run.task_id)] = run
        with contextlib.suppress(OSError):
            self.store.add(SavedTask(connection=run.connection, where=where, tool=run.tool,
                                     task_id=run.task_id, shape=run.remote.shape,
                                     started=run.started))

    def end(self, run: TaskRun) -> None:
        run.ended = True
        with contextlib.suppress(OSError):
            self.store.remove(run.connection, run.task_id)


#: The one registry of this kernel's tasks.
TASKS = Tasks()


async def follow(run: TaskRun, ask_one, hint: str) -> ToolResult:
    """Follow ``run`` to its end and return the tool's result.

    ``ask_one(request)`` answers one question asked inside a 2026-07-28 task (an
    :class:`~nb_elicit._core.answer.Answer`); ``hint`` is how to attach again after Detach.
    Cancelled (Interrupt, the call's timeout): the task is cancelled on the server too.
    """
    remote = run.remote
    result_job = None
    if remote.shape == SHAPE_2025:
        result_job = asyncio.ensure_future(remote.result(remote.first))
    _show(run, remote.first)
    try:
        while True:
            if run._detach_asked:
                _detach(run, result_job, hint)
            if run._cancel_asked:
                await _cancel(run)
            state = run.state
            if result_job is not None and (result_job.done() or (
                    state is not None and state.terminal)):
                # 2025-11-25: the open tasks/result brings the result (no second one)
                await asyncio.wait({result_job}, timeout=CANCEL_WAIT)
                if result_job.done():
                    return await _ended_by_result(run, result_job)
                result_job.cancel()  # (it did not come: ask for the result once more)
            if state is not None and state.terminal:
                return await _ended(run, state)
            await _wait(run, result_job, _interval(run))
            if run._detach_asked or run._cancel_asked or (
                    result_job is not None and result_job.done()):
                continue
            state = await _poll(run)
            if state.status == "input_required":
                asked = remote.input_requests(state)
                if asked:
                    await _answer(run, asked, ask_one)
    except asyncio.CancelledError:
        if not run.ended and not run.detached:
            await _cancel_on_the_way_out(run)
        raise
    except Exception:
        _stopped(run)
        raise
    finally:
        if result_job is not None and not result_job.done():
            result_job.cancel()


def _stopped(run: TaskRun) -> None:
    """Following ended with an error (the server forgot the task, answered nonsense, went
    away), or by Detach: the call says why. Unless detached, this kernel follows the task no
    more (``%mcp tasks``: no longer followed); a task the server still knows keeps its entry
    in the file, to attach to later. The card stops its clock and its buttons, which nothing
    would hear."""
    if not run.detached:
        run.ended = True
    if run.card is not None and not run.card.ended:
        run.card.end(run.state or TaskState(task_id=run.task_id, status="working"))


def _interval(run: TaskRun) -> float:
    """Seconds until the next poll: what the server asks for, clamped (the card says so once)."""
    seconds, note = poll_seconds(run.state.poll_interval_ms if run.state is not None else None)
    if note is not None and note != run._poll_note:
        run._poll_note = note
        if run.card is not None:
            run.card.note(note)
    return seconds


def _show(run: TaskRun, state: TaskState) -> None:
    """Take ``state`` as the task's, unless its status is out of order: after a final one
    (the first final status wins), or one no version of the protocol knows (the card warns)."""
    if run.state is not None and run.state.terminal:
        return
    if state.status not in STATUSES:
        if run.card is not None:
            run.card.update(state)  # (a warning, once per report)
        return
    run.state = state
    if run.card is not None:
        run.card.update(state)


async def _poll(run: TaskRun) -> TaskState:
    try:
        state = await run.remote.get()
    except ServerError as error:
        if error.code in UNKNOWN_TASK:
            TASKS.end(run)
            raise ServerError(error.code, t("task_lost", task=run.task_id,
                                            reason=error.message)) from None
        raise
    _show(run, state)
    return run.state


async def _wait(run: TaskRun, result_job, seconds: float) -> None:
    run._wake.clear()
    waits = [asyncio.ensure_future(run._wake.wait())]
    if result_job is not None:
        waits.append(result_job)
    try:
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waits[0].cancel()


async def _answer(run: TaskRun, asked: dict, ask_one) -> None:
    """Every question of one poll, answered side by side (the backlog keeps a flood in line),
    then sent in one ``tasks/update``."""
    keys = list(asked)
    answers = await asyncio.gather(*(ask_one(asked[key]) for key in keys),
                                   return_exceptions=True)
    sent: dict[str, Answer] = {}
    for key, answer in zip(keys, answers, strict=True):
        if isinstance(answer, asyncio.CancelledError):
            raise answer
        # (``ask_one`` answers cancel to a question nb_elicit cannot show, and the cell says
        # why: tasks/update has no place for an error; anything else is answered cancel too)
        sent[key] = answer if isinstance(answer, Answer) else Answer("cancel")
    await run.remote.answer(sent)


async def _cancel(run: TaskRun) -> None:
    run._cancel_asked = False
    try:
        state = await asyncio.wait_for(run.remote.cancel(), CANCEL_WAIT)
    except (ServerError, asyncio.TimeoutError) as error:
        reason = error.message if isinstance(error, ServerError) else t("task_no_answer")
        if run.card is not None:
            run.card.cancel_failed(reason)
        return
    if state is None:  # (the extension's tasks/cancel answers no state: ask for it)
        with contextlib.suppress(ServerError, asyncio.TimeoutError):
            state = await asyncio.wait_for(run.remote.get(), CANCEL_WAIT)
    if state is not None:
        _show(run, state)
    if run.card is not None and run.state is not None and run.state.status == "cancelled":
        run.card.cancel_confirmed(run.state)


async def _cancel_on_the_way_out(run: TaskRun) -> None:
    """The call was interrupted (or timed out): the task ends on the server too."""
    with contextlib.suppress(Exception, asyncio.CancelledError):
        state = await asyncio.shield(asyncio.wait_for(run.remote.cancel(), CANCEL_WAIT))
        if state is None:  # (the extension's tasks/cancel answers no state: ask for it)
            state = await asyncio.shield(asyncio.wait_for(run.remote.get(), CANCEL_WAIT))
        _show(run, state)
    TASKS.end(run)
    if run.card is not None:
        run.card.end(run.state or TaskState(task_id=run.task_id, status="cancelled"))


def _detach(run: TaskRun, result_job, hint: str) -> NoReturn:
    run.detached = True
    if result_job is not None:
        result_job.cancel()
    if run.card is not None:
        run.card.detached(hint)
    raise TaskDetached(t("task_detached_call", tool=run.tool, task=run.task_id, hint=hint))


async def _ended_by_result(run: TaskRun, result_job) -> ToolResult:
    """2025-11-25: ``tasks/result`` answered (the task is terminal)."""
    try:
        result = result_job.result()
    except ServerError as error:
        if error.code in UNKNOWN_TASK and run.state is not None and not run.state.terminal:
            TASKS.end(run)
            raise ServerError(error.code, t("task_lost", task=run.task_id,
                                            reason=error.message)) from None
        state = await _last_state(run)
        TASKS.end(run)
        if run.card is not None:
            run.card.end(state)
        if state.status == "cancelled":
            raise TaskCancelled(t("task_cancelled", tool=run.tool, task=run.task_id)) from None
        raise error from None
    state = await _last_state(run, default="failed" if result.is_error else "completed")
    TASKS.end(run)
    if run.card is not None:
        run.card.end(state, result.text)
    return result


async def _last_state(run: TaskRun, default: str = "failed") -> TaskState:
    with contextlib.suppress(ServerError, ServerDisconnected):
        state = await asyncio.wait_for(run.remote.get(), CANCEL_WAIT)
        _show(run, state)
    if run.state is not None and run.state.terminal:
        return run.state
    state = TaskState(task_id=run.task_id, status=default)
    _show(run, state)
    return state


async def _ended(run: TaskRun, state: TaskState) -> ToolResult:
    """2026-07-28: a terminal ``tasks/get``."""
    TASKS.end(run)
    if state.status == "completed":
        result = await run.remote.result(state)
        if run.card is not None:
            run.card.end(state, result.text)
        return result
    if run.card is not None:
        run.card.end(state)
    if state.status == "cancelled":
        raise TaskCancelled(t("task_cancelled", tool=run.tool, task=run.task_id))
    raise ServerError(-32603, t("task_failed", tool=run.tool, task=run.task_id,
                                reason=state.error or state.status_message or "-"))


async def attach(connection, task_id: str, tool: str | None) -> ToolResult:
    """Follow a task of ``connection`` again, in a call of its own (:meth:`attach_task`)."""
    from .._mcp import SHAPE_2025  # (the adapter: only once a task is attached to)

    saved = TASKS.store.find(connection.name, task_id)
    tool = tool or (saved.tool if saved is not None else t("task_unknown_tool"))
    view = connection._view(tool, show_waiting=True)

    async def work() -> ToolResult:
        if saved is not None:
            era = Era.HANDSHAKE if saved.shape == SHAPE_2025 else Era.V2026
            session = await connection._session(era)
            return await connection._follow_task(session.attach(task_id, tool, saved.shape))
        # Not in the file: the era whose session speaks tasks with this server.
        primary = connection._primary
        other = Era.V2026 if primary == Era.HANDSHAKE else Era.HANDSHAKE
        for era in (primary, other):
            try:
                session = await connection._session(era)
            except ConnectError:
                continue
            if session.task_shape is not None:
                return await connection._follow_task(session.attach(task_id, tool,
                                                                    session.task_shape))
        raise ServerError(-32601, t("task_no_tasks", server=connection.name))

    return await connection._in_call(view, work(), show=True, timeout=connection.timeout)
