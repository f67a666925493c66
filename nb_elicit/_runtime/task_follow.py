"""Following a task to its end (:func:`follow`).

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
``tasks/result`` and the person's **Cancel task** or **Detach**. Polling goes on while a question
is open, so a task that ends on the server withdraws its form. **Cancel task** withdraws the open
questions first, then sends ``tasks/cancel``; from the click on, no ``tasks/update`` is sent
(unless the cancel failed: the task goes on, and its questions are asked again). **Detach**
withdraws them too and ends the call but not the task (the kernel's :class:`~.tasks.Tasks` keep it).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn

from .._core.answer import Answer
from .._core.errors import ServerDisconnected, ServerError, TaskCancelled, TaskDetached
from .._core.i18n import t
from .._core.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, NOT_FOUND
from .._core.tasks.model import STATUSES, TaskShape, TaskState, poll_seconds
from .._core.types import ElicitationRequest, ToolResult
from .asking import BY_CANCEL, BY_DETACH
from .state import kernel_state
from .tasks import TaskRun

__all__ = ["follow"]

#: Seconds a Cancel (or an interrupted call's cancel) waits for the server's answer.
CANCEL_WAIT = 5.0
#: JSON-RPC codes with which a server says it does not know a task (any more): invalid params
#: (the 2025-11-25 spec's answer for an unknown taskId) and not found. Never a timeout or a
#: closed connection: the task may well run on.
UNKNOWN_TASK = (INVALID_PARAMS, NOT_FOUND)

#: How one question asked inside a task is answered (see :func:`follow`).
AskOne = Callable[[ElicitationRequest], Awaitable[Answer]]
#: The answering of one poll's questions, by their keys.
Questions = asyncio.Future[dict[str, Answer]]


async def follow(run: TaskRun, ask_one: AskOne, hint: str) -> ToolResult:
    """Follow ``run`` to its end and return the tool's result.

    ``ask_one(request)`` answers one question asked inside a 2026-07-28 task (an
    :class:`~nb_elicit._core.answer.Answer`); ``hint`` is how to attach again after Detach.
    Cancelled (Interrupt, the call's timeout): the task is cancelled on the server too.
    """
    remote = run.remote
    result_job: asyncio.Task[ToolResult] | None = None
    #: The open questions of a 2026-07-28 task: one job that answers them all.
    questions: Questions | None = None
    if remote.shape == TaskShape.V2025:
        # Background work: owned by follow(): cancelled in its finally.
        result_job = asyncio.ensure_future(remote.result(remote.first))
    try:
        if getattr(remote, "placeholder", False):
            await _poll(run)  # (a task attached to again: what the server says, first)
        else:
            _show(run, remote.first)
        while True:
            if run.cancel_asked:  # (before a Detach clicked after it)
                await _withdraw(questions, BY_CANCEL)  # (the form goes first)
                questions = None
                await _cancel(run)
            if run.detach_asked and not (run.state is not None and run.state.terminal):
                await _withdraw(questions, BY_DETACH)
                questions = None
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
                await _withdraw(questions)
                questions = None
                return await _ended(run, state)
            if questions is not None and questions.done():
                answers, questions = questions.result(), None
                if not run.cancelling:  # (never an answer after a cancel was asked)
                    await remote.answer(answers)
            await _wait(run, result_job, questions, _interval(run))
            if run.detach_asked or run.cancel_asked or (
                    result_job is not None and result_job.done()) or (
                    questions is not None and questions.done()):
                continue
            state = await _poll(run)
            if questions is not None and state.status != "input_required":
                await _withdraw(questions)  # (the server asks them no more)
                questions = None
            elif questions is None and state.status == "input_required" and not run.cancelling:
                asked = remote.input_requests(state)
                if asked:
                    # Background work: owned by follow(): dropped in its finally.
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
        kernel_state().tasks.stop(run)
    if run.card is not None and not run.card.ended:
        run.card.end(run.state or TaskState(task_id=run.task_id, status="working"))


def _interval(run: TaskRun) -> float:
    """Seconds until the next poll: what the server asks for, clamped (the card says so once)."""
    seconds, note = poll_seconds(run.state.poll_interval_ms if run.state is not None else None)
    if note is not None and note != run.poll_note:
        run.poll_note = note
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
    run.saw(state)
    if run.card is not None:
        run.card.update(state)


async def _poll(run: TaskRun) -> TaskState:
    try:
        state = await run.remote.get()
    except ServerError as error:
        if error.code in UNKNOWN_TASK:
            kernel_state().tasks.end(run)
            raise ServerError(error.code, t("task_lost", task=run.task_id,
                                            reason=error.message)) from None
        raise
    _show(run, state)
    # (the state taken; where none was yet, every status so far being one no version knows,
    # the one told now, which is no final one: the task is polled on)
    return run.state if run.state is not None else state


async def _wait(run: TaskRun, result_job: asyncio.Future[ToolResult] | None,
                questions: Questions | None, seconds: float) -> None:
    """Until the next poll is due, or sooner: a click on Cancel or Detach, the result of a
    2025-11-25 task, the answers to the open questions."""
    waits: list[asyncio.Future[Any]] = [run.woken()]
    waits += [job for job in (result_job, questions) if job is not None]
    try:
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waits[0].cancel()


async def _ask_all(asked: dict[str, ElicitationRequest], ask_one: AskOne) -> dict[str, Answer]:
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


async def _withdraw(questions: Questions | None, why: str | None = None) -> None:
    """Withdraw the open questions (their forms say so: the server's withdrawal, or ``why``,
    the person's, `BY_CANCEL` or `BY_DETACH`) and wait until they are gone."""
    if questions is not None and not questions.done():
        questions.cancel(why)
        await asyncio.wait({questions})
    return None


def _drop(questions: Questions | None) -> None:
    if questions is not None and not questions.done():
        questions.cancel()


async def _cancel(run: TaskRun) -> None:
    run.cancel_asked = False
    try:
        state = await asyncio.wait_for(run.remote.cancel(), CANCEL_WAIT)
    except (ServerError, asyncio.TimeoutError) as error:
        reason = error.message if isinstance(error, ServerError) else t("task_no_answer")
        run.cancelling = run.cancel_asked  # (the task goes on: its questions, asked again)
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
    kernel_state().tasks.end(run)
    if run.card is not None:
        run.card.end(run.state or TaskState(task_id=run.task_id, status="cancelled"))


def _detach(run: TaskRun, result_job: asyncio.Future[ToolResult] | None, hint: str) -> NoReturn:
    if result_job is not None:
        result_job.cancel()
    if run.card is not None:
        run.card.detached(hint)
    kernel_state().tasks.detach(run)
    raise TaskDetached(t("task_detached_call", task=run.task_id, hint=hint))


async def _ended_by_result(run: TaskRun, result_job: asyncio.Future[ToolResult]) -> ToolResult:
    """2025-11-25: ``tasks/result`` answered (the task is terminal)."""
    try:
        result = result_job.result()
    except ServerError as error:
        if error.code in UNKNOWN_TASK and run.state is not None and not run.state.terminal:
            kernel_state().tasks.end(run)
            raise ServerError(error.code, t("task_lost", task=run.task_id,
                                            reason=error.message)) from None
        state = await _last_state(run)
        kernel_state().tasks.end(run)
        if run.card is not None:
            run.card.end(state)
        if state.status == "cancelled":
            raise TaskCancelled(t("task_cancelled", task=run.task_id)) from None
        raise error from None
    state = await _last_state(run, default="failed" if result.is_error else "completed")
    kernel_state().tasks.end(run)
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
    kernel_state().tasks.end(run)
    if state.status == "completed":
        result = await run.remote.result(state)
        if run.card is not None:
            run.card.end(state, result.text)
        return result
    if run.card is not None:
        run.card.end(state)
    if state.status == "cancelled":
        raise TaskCancelled(t("task_cancelled", task=run.task_id))
    raise ServerError(INTERNAL_ERROR, t("task_failed", task=run.task_id,
                                reason=state.error or state.status_message or "-"))

