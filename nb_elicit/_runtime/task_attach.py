"""Attaching to a task again (:func:`attach`): one this kernel detached, or one the file of
running tasks keeps (an earlier kernel's), followed in a call of its own, only on the server it
runs on; and asking its server how it is now, without following it (:func:`look_up`, for
``%mcp tasks``)."""

from __future__ import annotations

import asyncio

from .._core.errors import ConnectError, NbElicitError, ServerError
from .._core.i18n import t
from .._core.jsonrpc import METHOD_NOT_FOUND
from .._core.tasks.model import TaskShape, TaskState
from .._core.tasks.store import ServerIdentity
from .._core.types import ToolResult
from .._mcp import Era
from .calls import CallKind
from .runner import CallRunner
from .sessions import SessionPool
from .state import kernel_state
from .tasks import identity

__all__ = ["LOOK_UP_WAIT", "attach", "look_up"]

#: Seconds ``%mcp tasks`` waits for a server's answer about one task.
LOOK_UP_WAIT = 5.0


async def attach(sessions: SessionPool, runner: CallRunner, task_id: str, tool: str | None,
                 timeout: float | None = None) -> ToolResult:
    """Follow a task of the connection of ``sessions`` again, in a call of its own (run by
    ``runner``, ended past ``timeout``): one this kernel detached, or one the file keeps, only
    on the server it runs on."""
    name = sessions.name
    known = kernel_state().tasks.find(name, task_id)  # (this kernel's: detached, say)
    saved = kernel_state().tasks.store.find(name, task_id) if known is None else None
    if saved is not None and saved.followed_elsewhere:
        raise NbElicitError(t("task_followed_elsewhere", task=task_id, kernel=saved.kernel))
    was = known if known is not None else saved
    shape = was.shape if was is not None else None
    tool = tool or (was.tool if was is not None else t("task_unknown_tool"))
    view = runner.view(tool, show_waiting=True)

    async def work() -> ToolResult:
        if shape is not None:
            era = Era(TaskShape(shape).era)
            session = await sessions.session(era)
            assert was is not None  # (a shape is known only of a task known before)
            _same_server(sessions, task_id, was.identity)
            return await runner.follow_task(session.attach(task_id, tool, shape))
        # Not known here: the era whose session speaks tasks with this server.
        for era in (sessions.primary, sessions.primary.other):
            try:
                session = await sessions.session(era)
            except ConnectError:
                continue
            if session.task_shape is not None:
                return await runner.follow_task(session.attach(task_id, tool,
                                                               session.task_shape))
        raise ServerError(METHOD_NOT_FOUND, t("task_no_tasks", server=name))

    return await runner.run(view, work(), CallKind.TOOL, timeout)


async def look_up(sessions: SessionPool, task_id: str) -> TaskState:
    """The state of a task this kernel detached, or that the file keeps, as its server says
    now (``tasks/get``, on the session of its shape if that one is open, only on the server it
    runs on; within :data:`LOOK_UP_WAIT` seconds). Raises what the request raised
    (ServerError, ...), or NbElicitError when no session of its shape is open."""
    name = sessions.name
    known = kernel_state().tasks.find(name, task_id)
    was = known if known is not None else kernel_state().tasks.store.find(name, task_id)
    if was is None:
        raise NbElicitError(t("task_not_known", task=task_id, name=name))
    # Only a session open now is asked: opening one (the other era's handshake) may show a
    # sign-in card, and a listing asks nothing of the person.
    session = sessions.current(Era(TaskShape(was.shape).era))
    if session is None or not session.usable:
        raise NbElicitError(t("task_session_not_open", name=name, task=task_id))
    _same_server(sessions, task_id, was.identity)
    remote = session.attach(task_id, was.tool, TaskShape(was.shape))
    return await asyncio.wait_for(remote.get(), LOOK_UP_WAIT)


def _same_server(sessions: SessionPool, task_id: str, was: ServerIdentity | None) -> None:
    """Refuse to ask a server about a task another server runs (one line): its id means
    nothing there, and its entry in the file stays."""
    now = identity(sessions)
    if was is not None and not was.matches(now):
        raise NbElicitError(t("task_other_server", task=task_id, saved=str(was),
                              name=sessions.name, now=str(now)))
