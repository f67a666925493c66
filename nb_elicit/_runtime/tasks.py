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

The follower waits on everything at once: the open questions, the poll timer, the open
``tasks/result`` and the person's **Cancel** or **Detach**. Polling goes on while a question
is open, so a task that ends on the server withdraws its form. **Cancel** withdraws the open
questions first, then sends ``tasks/cancel``; from the click on, no ``tasks/update`` is sent
(unless the cancel failed: the task goes on, and its questions are asked again). **Detach**
withdraws them too and ends the call but not the task.

A task on a server that outlives the kernel (HTTP) is kept in the owner-only file of running
tasks (:mod:`nb_elicit._core.task_store`) with its server's identity and the kernel that
follows it, so that ``%mcp task NAME ID`` can attach to it again, in this kernel or the next
one, and only on the same server. A task of a stdio server is not written: it dies with the
kernel. A run that ended leaves :data:`TASKS`, which keeps a light record of the last
:data:`FINISHED_KEPT` (:class:`FinishedTask`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from dataclasses import dataclass, field
from typing import NoReturn

from .._core.answer import Answer
from .._core.errors import (
    ConnectError,
    NbElicitError,
    ServerDisconnected,
    ServerError,
    TaskCancelled,
    TaskDetached,
)
from .._core.i18n import t
from .._core.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, NOT_FOUND
from .._core.task_store import SavedTask, ServerIdentity, TaskStore, this_kernel
from .._core.tasks import STATUSES, TaskShape, TaskState, poll_seconds
from .._core.types import StdioTarget, ToolResult
from .._mcp import Era
from .._ui.task_card import TaskCard
from .asking import BY_CANCEL, BY_DETACH

__all__ = ["TASKS", "FinishedTask", "TaskRun", "Tasks", "identity"]

#: Seconds a Cancel (or an interrupted call's cancel) waits for the server's answer.
CANCEL_WAIT = 5.0
#: JSON-RPC codes with which a server says it does not know a task (any more): invalid params
#: (the 2025-11-25 spec's answer for an unknown taskId) and not found. Never a timeout or a
#: closed connection: the task may well run on.
UNKNOWN_TASK = (INVALID_PARAMS, NOT_FOUND)
#: How many finished runs :data:`TASKS` keeps a light record of (the oldest go first).
FINISHED_KEPT = 100


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
    #: Which server it runs on (None: not known).
    identity: ServerIdentity | None = None
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _loop: asyncio.AbstractEventLoop = field(default_factory=asyncio.get_running_loop)
    _cancel_asked: bool = False
    _detach_asked: bool = False
    #: A cancel was asked (and has not failed): no tasks/update goes out.
    _cancelling: bool = False
    _poll_note: str | None = None

    @property
    def task_id(self) -> str:
        return self.remote.task_id

    @property
    def tool(self) -> str:
        return self.remote.tool

    @property
    def shape(self) -> TaskShape:
        return self.remote.shape

    @property
    def status(self) -> str:
        return self.state.status if self.state is not None else "working"

    @property
    def terminal(self) -> bool:
        """Whether the server reported a final status."""
        return self.state is not None and self.state.terminal

    def ask_cancel(self) -> None:
        """Cancel (from the card's button, maybe on another thread): done by the follower."""
        self._cancelling = True  # (at once: an answer given from now on is not sent)
        self._cancel_asked = True
        self._loop.call_soon_threadsafe(self._wake.set)

    def ask_detach(self) -> None:
        self._detach_asked = True
        self._loop.call_soon_threadsafe(self._wake.set)

    def saved(self) -> SavedTask | None:
        """Its entry in the file of running tasks (None for a stdio server's task)."""
        if self.identity is None or not self.identity.lasting:
            return None
        return SavedTask(connection=self.connection, where=self.identity.where, tool=self.tool,
                         task_id=self.task_id, shape=self.shape, started=self.started,
                         server=self.identity.server, kernel=this_kernel())

    def __repr__(self) -> str:
        return f"<nb_elicit task {self.connection} · {self.tool} {self.task_id}: {self.status}>"


@dataclass(frozen=True)
class FinishedTask:
    """What :data:`TASKS` keeps of a run that ended (its card, call and view are let go)."""

    connection: str
    tool: str
    task_id: str
    shape: TaskShape
    status: str
    started: float
    #: Whether the server reported that final status (else: no longer followed).
    terminal: bool
    ended_at: float = field(default_factory=time.time)
    detached: bool = False
    ended: bool = True

    def __repr__(self) -> str:
        return f"<nb_elicit task {self.connection} · {self.tool} {self.task_id}: {self.status}>"


def identity(connection) -> ServerIdentity:
    """Which server ``connection`` reaches, as a task keeps it: where (``where()``, no
    credential) and the handshake's server name; a stdio server's is not ``lasting`` (its
    tasks end with the kernel, and are not written to the file)."""
    return ServerIdentity(connection.target.where(), connection.server_name,
                          lasting=not isinstance(connection.target, StdioTarget))


class Tasks:
    """The tasks this kernel follows, a light record of those that ended, and the file of those
    still running."""

    def __init__(self, store: TaskStore | None = None):
        self.store = store or TaskStore()
        self._runs: dict[tuple[str, str], TaskRun] = {}
        self._finished: deque[FinishedTask] = deque(maxlen=FINISHED_KEPT)

    def runs(self, connection: str | None = None) -> list[TaskRun | FinishedTask]:
        """The runs this kernel follows (or detached) and the records of those that ended, in
        the order they started."""
        return sorted((r for r in [*self._runs.values(), *self._finished]
                       if connection in (None, r.connection)), key=lambda r: r.started)

    def find(self, connection: str, task_id: str) -> TaskRun | None:
        return self._runs.get((connection, task_id))

    def saved(self, connection: str | None = None) -> list[SavedTask]:
        """Running tasks the file knows of that no kernel follows now: an earlier kernel's,
        or detached (not those another kernel that still runs follows)."""
        return [s for s in self.store.entries()
                if connection in (None, s.connection)
                and not (s.key in self._runs and not self._runs[s.key].detached)
                and not s.followed_elsewhere]

    def begin(self, run: TaskRun, identity: ServerIdentity | None = None) -> None:
        """Follow ``run`` (on the server ``identity``); written to the file if that server
        outlives the kernel."""
        if identity is not None:
            run.identity = identity
        self._runs[(run.connection, run.task_id)] = run
        if run.card is not None:
            run.card.run = run  # (``ToolCall.task``: as long as the card lives, not longer)
        saved = run.saved()
        if saved is not None:
            with contextlib.suppress(OSError):
                self.store.add(saved)

    def end(self, run: TaskRun) -> None:
        """The task is over (a final status, or its server no longer knows it): the run leaves
        the registry and its entry the file."""
        self._finish(run)
        saved = run.saved()
        if saved is not None:
            with contextlib.suppress(OSError):
                self.store.remove(saved)

    def stop(self, run: TaskRun) -> None:
        """This kernel follows the task no more, though it may run on (an error of the
        server's): the run leaves the registry; its entry stays in the file, followed by
        nobody, to attach to later."""
        self._finish(run)
        self._unfollow(run)

    def detach(self, run: TaskRun) -> None:
        """Detached: kept, to attach to again, but its card and call are let go."""
        run.detached = True
        run.card = run.call = None
        self._unfollow(run)

    def _unfollow(self, run: TaskRun) -> None:
        saved = run.saved()
        if saved is not None:
            with contextlib.suppress(OSError):
                self.store.follow(saved, None)

    def _finish(self, run: TaskRun) -> None:
        run.ended = True
        key = (run.connection, run.task_id)
        if self._runs.get(key) is run:
            del self._runs[key]
            self._finished.append(FinishedTask(
                connection=run.connection, tool=run.tool, task_id=run.task_id,
                shape=run.shape, status=run.status, started=run.started,
                terminal=run.terminal))


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
    #: The open questions of a 2026-07-28 task: one job that answers them all.
    questions: asyncio.Future | None = None
    if remote.shape == TaskShape.V2025:
        result_job = asyncio.ensure_future(remote.result(remote.first))
    _show(run, remote.first)
    try:
        while True:
            if run._cancel_asked:  # (before a Detach clicked after it)
                questions = await _withdraw(questions, BY_CANCEL)  # (the form goes first)
                await _cancel(run)
            if run._detach_asked and not (run.state is not None and run.state.terminal):
                questions = await _withdraw(questions, BY_DETACH)
                _detach(run, result_job, hint)
            state = run.state
            if result_job is not None and (result_job.done() or (
                    state is not None and state.terminal)):
                # 2025-11-25: the open tasks/result brings the result (no second one)
                await asyncio.wait({result_job}, timeout=CANCEL_WAIT)
                if result_job.done():
                    return await _ended_by_result(run, result_job)
                result_job.cancel()  # (it did not come: ask for the result once more)
            if state is not None and state.terminal:
                questions = await _withdraw(questions)
                return await _ended(run, state)
            if questions is not None and questions.done():
                answers, questions = questions.result(), None
                if not run._cancelling:  # (never an answer after a cancel was asked)
                    await remote.answer(answers)
            await _wait(run, result_job, questions, _interval(run))
            if run._detach_asked or run._cancel_asked or (
                    result_job is not None and result_job.done()) or (
                    questions is not None and questions.done()):
                continue
            state = await _poll(run)
            if questions is not None and state.status != "input_required":
                questions = await _withdraw(questions)  # (the server asks them no more)
            elif questions is None and state.status == "input_required" and not run._cancelling:
                asked = remote.input_requests(state)
                if asked:
                    questions = asyncio.ensure_future(_ask_all(asked, ask_one))
    except asyncio.CancelledError:
        _drop(questions)
        if not run.ended and not run.detached:
            await _cancel_on_the_way_out(run)
        raise
    except Exception:
        _drop(questions)
        _stopped(run)
        raise
    finally:
        _drop(questions)
        if result_job is not None and not result_job.done():
            result_job.cancel()


def _stopped(run: TaskRun) -> None:
    """Following ended with an error (the server forgot the task, answered nonsense, went
    away), or by Detach: the call says why. Unless detached, this kernel follows the task no
    more (``%mcp tasks``: no longer followed); a task the server still knows keeps its entry
    in the file, to attach to later. The card stops its clock and its buttons, which nothing
    would hear."""
    if not run.detached:
        TASKS.stop(run)
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


async def _wait(run: TaskRun, result_job, questions, seconds: float) -> None:
    """Until the next poll is due, or sooner: a click on Cancel or Detach, the result of a
    2025-11-25 task, the answers to the open questions."""
    run._wake.clear()
    waits = [asyncio.ensure_future(run._wake.wait())]
    waits += [job for job in (result_job, questions) if job is not None]
    try:
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waits[0].cancel()


async def _ask_all(asked: dict, ask_one) -> dict[str, Answer]:
    """Every question of one poll, answered side by side (the backlog keeps a flood in line),
    for one ``tasks/update``."""
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
    return sent


async def _withdraw(questions: asyncio.Future | None, why: str | None = None) -> None:
    """Withdraw the open questions (their forms say so: the server's withdrawal, or ``why``,
    the person's, `BY_CANCEL` or `BY_DETACH`) and wait until they are gone."""
    if questions is not None and not questions.done():
        questions.cancel(why)
        await asyncio.wait({questions})
    return None


def _drop(questions: asyncio.Future | None) -> None:
    if questions is not None and not questions.done():
        questions.cancel()


async def _cancel(run: TaskRun) -> None:
    run._cancel_asked = False
    try:
        state = await asyncio.wait_for(run.remote.cancel(), CANCEL_WAIT)
    except (ServerError, asyncio.TimeoutError) as error:
        reason = error.message if isinstance(error, ServerError) else t("task_no_answer")
        run._cancelling = run._cancel_asked  # (the task goes on: its questions, asked again)
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
    if result_job is not None:
        result_job.cancel()
    if run.card is not None:
        run.card.detached(hint)
    TASKS.detach(run)
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
    raise ServerError(INTERNAL_ERROR, t("task_failed", tool=run.tool, task=run.task_id,
                                reason=state.error or state.status_message or "-"))


async def attach(connection, task_id: str, tool: str | None) -> ToolResult:
    """Follow a task of ``connection`` again, in a call of its own (:meth:`attach_task`): one
    this kernel detached, or one the file keeps, only on the server it runs on."""
    known = TASKS.find(connection.name, task_id)  # (this kernel's: detached, say)
    saved = TASKS.store.find(connection.name, task_id) if known is None else None
    if saved is not None and saved.followed_elsewhere:
        raise NbElicitError(t("task_followed_elsewhere", task=task_id, kernel=saved.kernel))
    was = known if known is not None else saved
    shape = was.shape if was is not None else None
    tool = tool or (was.tool if was is not None else t("task_unknown_tool"))
    view = connection._view(tool, show_waiting=True)

    async def work() -> ToolResult:
        if shape is not None:
            era = Era(TaskShape(shape).era)
            session = await connection._session(era)
            _same_server(connection, task_id, was.identity)
            return await connection._follow_task(session.attach(task_id, tool, shape))
        # Not known here: the era whose session speaks tasks with this server.
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
        raise ServerError(METHOD_NOT_FOUND, t("task_no_tasks", server=connection.name))

    return await connection._in_call(view, work(), show=True, timeout=connection.timeout)


def _same_server(connection, task_id: str, was: ServerIdentity | None) -> None:
    """Refuse to ask a server about a task another server runs (one line): its id means
    nothing there, and its entry in the file stays."""
    now = identity(connection)
    if was is not None and not was.matches(now):
        raise NbElicitError(t("task_other_server", task=task_id, saved=str(was),
                              name=connection.name, now=str(now)))
