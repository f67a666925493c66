"""Calls in flight: the view each one shows in its cell, and waiting for them.

A call displays its view in the cell that made it, records itself as the current call (so that
forms the server asks for inside it land in that view; where the transport cannot tell which
call a request belongs to, see ``CallRunner.request_context``), and waits with light
wake-ups so that Kernel > Interrupt ends it promptly. A connection's ``timeout`` counts only
the time nobody is answering one of the call's forms: a person who is typing is never cut off.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import enum
import time
from collections.abc import Awaitable, Callable, Generator
from typing import TYPE_CHECKING, Any, TypeVar

from .._core.errors import (
    NbElicitError,
    ServerDisconnected,
    ServerError,
    TaskCancelled,
    TaskDetached,
)
from .._core.i18n import t
from .._core.jsonrpc import REQUEST_TIMEOUT
from .._core.outcome import AnsweredBy
from .._core.types import ToolResult
from .._ui.call_view import CallView
from . import kernel_compat
from .state import kernel_state

if TYPE_CHECKING:
    from .tasks import TaskRun

T = TypeVar("T")

__all__ = ["Call", "CallKind", "ToolCall", "current_call", "print_for_headless", "run_call"]

#: How often a waiting cell wakes up, so that Kernel > Interrupt ends it promptly.
WAKE = 0.2

current_call: contextvars.ContextVar[Call | None] = contextvars.ContextVar(
    "nb_elicit_call", default=None)


class CallKind(enum.Enum):
    """What a call is, which says how :func:`run_call` runs it: one value per kind of call,
    so that no caller puts together a set of flags that no call has.

    Each one says whether the call shows its result in its view (``shows_result``); whether
    it wakes up now and then so that Kernel > Interrupt lands (``interruptible``: not a call
    nobody waits for in its cell); whether it is ``quiet`` (it owns no form but one the SDK
    says it asked); and whether its view is not its own but outlives it (``keeps_view``: the
    one view of an app's requests, which the call neither writes its failure in, its caller
    tells, nor finishes or freezes)."""

    #: A tool call (or a task attached again) awaited in its cell: its result shows there.
    TOOL = ("tool", True, True, False, False)
    #: A tool call started in the background (``start_tool``): its result shows in its cell,
    #: which nobody waits in.
    STARTED = ("started", True, False, False, False)
    #: A request that is no tool call (a listing, a read): nothing shows but its forms.
    QUIET = ("quiet", False, True, True, False)
    #: A tool call an app makes: its forms show in the app's view of its requests.
    APP_TOOL = ("app tool", False, True, False, True)
    #: A ``resources/read`` of an app, quiet, in the app's view of its requests.
    APP_READ = ("app read", False, True, True, True)

    def __init__(self, label: str, shows_result: bool, interruptible: bool, quiet: bool,
                 keeps_view: bool):
        self.label = label
        self.shows_result = shows_result
        self.interruptible = interruptible
        self.quiet = quiet
        self.keeps_view = keeps_view


class Call:
    """One request in flight on a connection, with the view in the cell that made it."""

    def __init__(self, view: CallView, timeout: float | None = None,
                 kind: CallKind = CallKind.TOOL):
        self.view = view
        self.kind = kind
        #: A quiet request (list_tools, read_resource, ...): it never owns a form it may not
        #: have asked for.
        self.quiet = kind.quiet
        #: Seconds the call may run while nobody is answering one of its forms (None: no limit).
        self.timeout = timeout
        self._asking = 0  # elicitations of this call still being answered
        #: The tasks answering them, each with how many it answers now.
        self._answering: dict[asyncio.Task[Any], int] = {}
        self._started = time.monotonic()
        self._paused_at: float | None = None
        self._paused_for = 0.0

    def begin_asking(self) -> None:
        """A request of this call is being answered, by the current task."""
        if not self._asking:
            self._paused_at = time.monotonic()
        self._asking += 1
        task = asyncio.current_task()
        if task is not None:
            self._answering[task] = self._answering.get(task, 0) + 1

    def end_asking(self) -> None:
        task = asyncio.current_task()
        if task in self._answering:
            self._answering[task] -= 1
            if not self._answering[task]:
                del self._answering[task]
        self._asking -= 1
        if not self._asking and self._paused_at is not None:
            self._paused_for += time.monotonic() - self._paused_at
            self._paused_at = None

    @property
    def paused(self) -> bool:
        """Whether the timeout is paused: one of this call's forms is open."""
        return self._asking > 0

    def time_left(self) -> float | None:
        """Seconds left before the timeout ends the call (None: no timeout)."""
        if self.timeout is None:
            return None
        now = time.monotonic()
        paused = self._paused_for + (now - self._paused_at if self._paused_at is not None else 0)
        return self.timeout - (now - self._started - paused)

    async def let_answers_out(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until answers just given (a dismissal on
        interrupt) have been written for the server: until the tasks that were answering have
        ended. The SDK writes a response in the task that ran its handler, right after the
        handler returns (``JSONRPCDispatcher._handle_request`` in
        ``mcp/shared/jsonrpc_dispatcher.py``: ``await self._write_result(...)``), onto the one
        write stream that later carries the call's own cancellation, so the server hears the
        answers first."""
        me = asyncio.current_task()
        answering = [task for task in self._answering if task is not me]
        if answering:
            await asyncio.wait(answering, timeout=timeout)


async def run_call(server: str, view: CallView, work: Awaitable[T], calls: list[Call],
                   kind: CallKind, *, timeout: float | None = None,
                   on_disconnect: Callable[[], None] = lambda: None, owner: object) -> T:
    """Run ``work`` as a call of ``server`` of the ``kind`` given (see :class:`CallKind`),
    shown in ``view``; return its result.

    ``owner`` owns the forms of ``server`` (its guard, see :mod:`.pending`): they end when the
    server goes away.

    ``timeout`` ends the call once it has run that long with none of its forms open."""
    call = Call(view, timeout, kind)
    show, keep_view = kind.shows_result, kind.keeps_view
    view.follow(call)
    calls.append(call)
    token = current_call.set(call)
    # Background work: owned by run_call: awaited, or cancelled, before it returns.
    task = asyncio.ensure_future(work)
    succeeded = False
    try:
        if kind.interruptible or timeout is not None:
            # Wake up now and then: Kernel > Interrupt only lands while we are awake, and the
            # timeout is checked (it stands still while a form is open).
            while not task.done():
                await asyncio.wait({task}, timeout=WAKE)
                left = call.time_left()
                if left is not None and left <= 0 and not task.done():
                    task.cancel()  # the SDK tells the server
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                    raise ServerError(REQUEST_TIMEOUT, (
                        f"{view.what} took longer than the connection's timeout of "
                        f"{timeout:g} s, so it was cancelled"))
        result = await task
        succeeded = True
    except asyncio.CancelledError:
        # Interrupted: waiting forms answer "cancel", then the call itself is cancelled
        # (the SDK tells the server). The answers go first, so that the server hears them.
        if kernel_state().pending.dismiss(call=call, answered_by=AnsweredBy.INTERRUPT):
            await call.let_answers_out(timeout=0.5)
        task.cancel()
        if not keep_view:
            view.show_failure(f"Interrupted: {server} · {view.what} was cancelled.")
        raise
    except ServerDisconnected as error:
        on_disconnect()
        kernel_state().pending.abandon(t("disconnected", server=server), owner,
                        answered_by=AnsweredBy.DISCONNECTED)
        if not keep_view:
            view.show_failure(f"✖ {server} · {view.what}: {error}")
        raise ServerDisconnected(f"{server} · {view.what}: {error}") from None
    except (TaskCancelled, TaskDetached) as error:
        # The person's choice (or the server's cancel), which the task's card tells, once, in
        # plain words, in the transcript too: no failure line.
        if not keep_view and getattr(view, "task_card", None) is None:
            view.show_failure(f"✖ {server} · {view.what}: {error}")
        raise
    except NbElicitError as error:
        if not keep_view:
            view.show_failure(f"✖ {server} · {view.what}: {error}")
        raise
    finally:
        current_call.reset(token)
        calls.remove(call)
        if not keep_view:
            view.finish()
            if not show:
                print_for_headless(view)
            if not succeeded:
                view.freeze_when_answered()
    if keep_view:
        return result
    if show:
        assert isinstance(result, ToolResult)  # (a kind that shows its result is a tool call)
        # A view frozen at once shows its result in the transcript alone (a flood's tool may
        # return hundreds of blocks: no widgets are made for them only to be closed unseen).
        view.show_result(result, render=not view.can_freeze())
        print_for_headless(view)
    view.freeze_when_answered()
    return result


def print_for_headless(view: CallView) -> None:
    """Where nobody sees widgets (nbclient, papermill), say it in plain text too."""
    if view.lines and not kernel_compat.widget_frontend_attached():
        print("\n".join(view.take_lines()))


class ToolCall:
    """A tool call running in the background (see
    :meth:`~nb_elicit._runtime.connection.Connection.start_tool`).

    ``await call`` gives the :class:`ToolResult` (or raises what the call raised).
    """

    def __init__(self, task: asyncio.Task[ToolResult], server: str, tool: str,
                 view: CallView | None = None):
        self._task = task
        self.server, self.tool = server, tool
        self._view = view
        task.add_done_callback(_retrieve)

    @property
    def task(self) -> TaskRun | None:
        """The server's task this call runs as (a :class:`~nb_elicit._runtime.tasks.TaskRun`:
        ``task_id``, ``status``), once the server said so; None for a call that is no task."""
        from .tasks import TaskRun

        card = getattr(self._view, "task_card", None)
        run = card.run if card is not None else None
        # (the card keeps its run as an object: the widgets know no runtime type)
        return run if isinstance(run, TaskRun) else None

    def __await__(self) -> Generator[Any, None, ToolResult]:
        return self._task.__await__()

    def done(self) -> bool:
        return self._task.done()

    def result(self) -> ToolResult:
        """The result, once done (raises ``asyncio.InvalidStateError`` before)."""
        return self._task.result()

    def cancel(self) -> bool:
        """Cancel the call: waiting forms answer ``cancel`` and the server is told."""
        return self._task.cancel()

    def __repr__(self) -> str:
        state = "done" if self.done() else "running"
        return f"<nb_elicit.ToolCall {self.server} · {self.tool}: {state}>"


def _retrieve(task: asyncio.Task[Any]) -> None:
    # The call's view already shows any failure; don't also warn "exception never retrieved".
    if not task.cancelled():
        task.exception()
