"""A connection's calls: the view each shows in its cell, running it there, and where the
server's requests are answered (:class:`CallRunner`).

A tool call shows its app (if it has one), then is called in its era (see
:class:`~.sessions.SessionPool`); a call that first needs pages opened (-32042) shows them and
is retried; a call the server runs as a task shows a task card and is followed to its end.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .._core.answer import Answer
from .._core.errors import ServerDisconnected, UrlElicitationRequired
from .._core.outcome import Consent, Outcome, Refusal
from .._core.tasks.model import attach_command
from .._core.types import ToolResult
from .._mcp import ElicitationRequest, ServerSession
from .._ui.call_view import CallView
from .._ui.prompt import PromptWidget
from .._ui.task_card import TaskCard
from . import kernel_compat
from .asking import RequestContext, ask, ask_consent
from .calls import Call, CallKind, current_call, run_call
from .guard import Guard
from .kernel_compat import shows_display_updates
from .sessions import SessionPool, State
from .state import kernel_state
from .task_follow import follow
from .tasks import TaskRun, identity
from .url_required import ask_before_retry

if TYPE_CHECKING:
    from .._mcp.tasks import RemoteTask

__all__ = ["CallRunner", "ConnectionHost"]

T = TypeVar("T")


class CallRunner:
    """The calls of one connection: their views, running them, and the context in which a
    request of its server is answered."""

    def __init__(self, name: str, sessions: SessionPool, guard: Guard):
        self.name = name
        self.sessions = sessions
        self.guard = guard
        self._calls: list[Call] = []

    # -- views and calls ------------------------------------------------------------------

    def view(self, what: str, show_waiting: bool) -> CallView:
        """The view of a new call, shown in the current cell; one without a waiting line (a
        quiet request, a request of its own) only once something shows in it, and only where
        a widget frontend is there."""
        if self.sessions.state is State.CLOSED:
            raise ServerDisconnected(f"the connection {self.name!r} is closed; connect again")
        view = CallView(self.name, what, show_waiting=show_waiting)
        if show_waiting:
            view.show(keyboard=kernel_compat.widget_frontend_attached(),
                      in_place=not shows_display_updates())
        elif kernel_compat.widget_frontend_attached():
            view.show_when_needed(keyboard=True, in_place=not shows_display_updates())
        return view

    async def run(self, view: CallView, work: Awaitable[T], kind: CallKind,
                  timeout: float | None = None) -> T:
        """``work`` as a call of this connection, of the ``kind`` given, shown in ``view`` (see
        :func:`run_call`); ``timeout``: seconds it may run while none of its forms is open."""
        return await run_call(self.name, view, work, self._calls, kind, timeout=timeout,
                              owner=self.guard, on_disconnect=self._mark_disconnected)

    async def quiet(self, what: str, request: Callable[[ServerSession], Awaitable[T]]) -> T:
        """A request that is no tool call (a listing, a read), on the primary era's session."""
        view = self.view(what, show_waiting=False)

        async def run() -> T:
            return await request(await self.sessions.session())

        return await self.run(view, run(), CallKind.QUIET)

    def _mark_disconnected(self) -> None:
        """A request found the server gone."""
        self.sessions.to(State.DISCONNECTED)

    # -- tool calls -----------------------------------------------------------------------

    async def call_tool(self, tool: str, arguments: dict[str, Any] | None,
                        task: bool | None = None) -> ToolResult:
        """Call; if the server first needs pages opened (-32042), show them and retry. (The
        app a tool comes with is shown by whoever starts the call: see
        :meth:`~.apps.Apps.with_app`.)"""
        while True:
            try:
                return await self._call_tool(tool, arguments, task)
            except UrlElicitationRequired as error:
                if not await ask_before_retry(self.request_context(), tool, error):
                    raise

    async def _call_tool(self, tool: str, arguments: dict[str, Any] | None,
                         task: bool | None = None) -> ToolResult:
        if arguments is not None and not isinstance(arguments, dict):
            raise TypeError("arguments must be a dict of the tool's parameters")
        call = current_call.get()
        progress = call.view.show_progress if call is not None else None
        return await self.sessions.call_tool(tool, arguments, progress, task)

    # -- the server's requests ------------------------------------------------------------

    async def on_elicit(self, request: ElicitationRequest) -> Answer:
        """An elicitation of the server, answered where it belongs."""
        # (ask ends every failure of its own: a line in the cell, an error to the server)
        return await ask(self.request_context(request.related_task), request)

    async def follow_task(self, remote: RemoteTask) -> ToolResult:
        """A call the server runs as a task: its card in the call's cell, followed to its end."""
        call = current_call.get()
        view = call.view if call is not None else self._stray_view()
        card = TaskCard(self.name, remote.tool, remote.task_id, remote.shape.label)
        view.show_task(card)
        run = TaskRun(self.name, remote, card, call=call)
        card.on_cancel(run.ask_cancel)
        card.on_detach(run.ask_detach)
        kernel_state().tasks.begin(run, identity(self.sessions))

        async def ask_one(request: ElicitationRequest) -> Answer:
            return await ask(self.request_context(), request, refuse_with=Refusal.CANCEL)

        return await follow(run, ask_one, hint=attach_command(self.name, remote.task_id))

    def request_context(self, related_task: str | None = None) -> RequestContext:
        """Where a request of this server (a form, a URL card, a sign-in card) is answered.

        Where the SDK tells which call it belongs to, that call (``current_call``): a request
        that comes on a call's own streamable-HTTP response runs in that call's context, and
        so do the requests of a 2026-07-28 call and a -32042 retry. Where the transport cannot
        tell (stdio, HTTP+SSE, HTTP's standalone stream), it may belong to any call running
        now: every one of them but the quiet ones keeps its timeout paused while it is open,
        and it shows in the newest one's cell. A quiet request (list_tools, read_resource, ...)
        never owns it: with no other call running, it shows in a view of its own, in the
        current cell."""
        told = current_call.get()
        if told is None and related_task is not None:  # (2025-11-25: asked inside a task)
            run = kernel_state().tasks.find(self.name, related_task)
            told = run.call if run is not None and run.call in self._calls else None
        calls = [told] if told is not None else [c for c in reversed(self._calls) if not c.quiet]
        view = calls[0].view if calls else self._stray_view()
        return RequestContext(self.name, view, self.guard, self.sessions.gone, calls)

    def context_in(self, view: CallView) -> RequestContext:
        """Where a request answered in ``view`` (an app's own) goes: that view, no call."""
        return RequestContext(self.name, view, self.guard, self.sessions.gone)

    def _stray_view(self) -> CallView:
        """Where a request that belongs to no call of ours is shown: the current cell."""
        return self.view("a request of its own", show_waiting=False)


class ConnectionHost:
    """A connection as the host of its apps (:class:`~.apps.AppHost`): the tools its sessions
    list, an app's calls and reads run by its runner in the app's view of its requests, and
    the app's consent cards answered there, the way its server's requests are.
    ``timeout``: the connection's timeout of a tool call, as it is when the app calls."""

    def __init__(self, runner: CallRunner, timeout: Callable[[], float | None]):
        self.runner = runner
        self.timeout = timeout

    @property
    def name(self) -> str:
        return self.runner.name

    async def listed_tool(self, tool: str) -> dict[str, Any] | None:
        """``tool`` as the session of its era lists it (None: it lists no such tool). The
        session lists once, and again after the server says its list changed."""
        session = await self.runner.sessions.for_tool(tool)
        return await session.listed_tool(tool)

    async def call_for_app(self, tool: str, arguments: dict[str, Any],
                           view: CallView) -> ToolResult:
        runner = self.runner
        return await runner.run(view, runner.call_tool(tool, arguments), CallKind.APP_TOOL,
                                self.timeout())

    async def read_for_app(self, uri: str, view: CallView | None) -> dict[str, Any]:
        runner = self.runner
        if view is None:  # (the app's own resource: a quiet request of its own)
            return await runner.quiet(f"resource {uri}", lambda s: s.read_resource(uri))

        async def read() -> dict[str, Any]:
            return await (await runner.sessions.session()).read_resource(uri)

        return await runner.run(view, read(), CallKind.APP_READ)

    async def ask_consent(self, message: str, target: str, make_card: Callable[[], PromptWidget],
                          view: CallView, consent: Consent = Consent.URL) -> Outcome:
        return await ask_consent(self.runner.context_in(view), message, target, make_card,
                                 consent)
