"""Forms for the MCP clients people already drive: the elicitation hooks other clients call.

    client = mcp.Client(url, elicitation_callback=nb_elicit.elicitation_callback)
    client = fastmcp.Client(url, elicitation_handler=nb_elicit.elicitation_handler)
    toolset = MCPToolset(url, elicitation_handler=nb_elicit.elicitation_handler.named("demo"))

Each name is the parameter it plugs into: :data:`elicitation_callback` has the SDK's shape
(``mcp``, ADK, strands, mcp-use), :data:`elicitation_handler` FastMCP's (``fastmcp``,
pydantic-ai, ``langchain.mcp``). Either answers through :func:`~.asking.ask`, the same way as
nb_elicit's own connections: mute, checks, the secret-form rule, the recording, the respond
policy, the rate limit, the backlog, then the person, with :func:`~.asking.write_outcome`
recording each outcome.

Who asks: a label the person chose (``.named("github")``) is a name like a connection's: the
form shows it, and the respond policy, recording, replay, mute and rate limit set for that name
apply (one :class:`~.guard.Guard` per label). An unlabelled hook's request goes by the
framework's session it came through: one guard per session (held weakly), so no two servers
share a backlog, a mute or a rate limit. The name that server gives itself (``serverInfo.name``)
is only a claim: the form shows it as such, escaped (``"github" (named by the server)``), and
it selects no policy, recording or replay entry set for a name; only the policy for every
connection answers it (see :class:`Asker`).

Where the form shows: in the cell the kernel runs now (:func:`~.kernel_compat.running_cell`),
not in the cell whose context the framework's session task inherited (the cell that entered
``async with``). Which thread: a hook called on another thread or loop (strands, ADK's
``Runner.run``) hops to the kernel's loop, where widget messages are handled. When the
kernel's own thread is blocked in a synchronous call, the rules still answer on the hook's own
thread (mute, the respond policy, replay); what only a person could answer is answered
``cancel``, and the cell says, once per burst, which async call to use instead. Nothing is
ever raised into the framework: a failure is an ``ErrorData`` (SDK shape) or ``cancel``
(FastMCP shape, which has no place for an error), with one line in the cell; a form nb_elicit
closes by itself (unload, a cap) is answered ``cancel``. Only the framework's own cancellation
of the request goes on as a cancellation.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from .._core.answer import Answer
from .._core.errors import ArgumentTypeError, InvalidRequest
from .._core.frameworks import blocking_call
from .._core.i18n import t
from .._core.limits import RateLimit, parse_rate_limit
from .._core.notices import NoticeKind
from .._core.outcome import AnsweredBy, Counted, Outcome, Refusal
from .._core.text import shorten, visible
from .._core.types import ElicitationRequest
from .._mcp import every_session
from .._mcp.clocks import install as note_request_clocks
from .._mcp.clocks import paused as paused_clocks
from .._mcp.hooks import HookReply, error_result, plain_request, result_of, server_name_of
from .._ui.call_view import CallView
from . import kernel_compat
from .asking import RequestContext, ask
from .calls import print_for_headless
from .guard import Guard
from .kernel_compat import (
    cell_code_runs,
    in_running_cell,
    kernel_loop,
    kernel_thread_stack,
    running_cell,
    shows_display_updates,
    watch_cells,
)
from .side_shell import in_context, side_shell
from .state import kernel_state

__all__ = ["Asker", "ElicitationCallback", "ElicitationHandler", "ElicitationHook",
           "answer_every_session", "elicitation_callback", "elicitation_handler", "guard_for",
           "labels"]

#: What a hook's request is, where a connection's would name its tool (the framework does
#: not say which tool asked): the history's tool and the recording's key. (Its view's title,
#: "SERVER · question", is in words.)
WHAT = "elicitation"
#: Seconds the kernel's loop has to take a call from another thread before it is judged
#: blocked (a free loop takes it within milliseconds).
LOOP_PROBE = 1.0
#: Characters of a label.
LABEL_LIMIT = 60

def labels() -> list[str]:
    """The labels hooks have been named with so far (names the person chose)."""
    return kernel_state().guards.labels()


def guard_for(server: str) -> Guard:
    """The guard of the requests labelled ``server`` (made on first use): one per label, with
    its backlog, rate limit and mute (kept by the kernel's owner)."""
    return kernel_state().guards.for_label(server)


@dataclass(frozen=True)
class Asker:
    """Who asks, as a hook can tell: ``server``, what the form, the cell and the history show;
    ``guard``, whose rules and backlog hold the request and who owns its form; ``named``,
    whether ``server`` is a name the person chose (a label), which alone selects the respond
    policy, recording and replay set for a name."""

    server: str
    guard: Guard
    named: bool

    @classmethod
    def labelled(cls, label: str) -> Asker:
        return cls(label, guard_for(label), True)

    @classmethod
    def unlabelled(cls, session: object, claim: str | None, framework: str) -> Asker:
        """A request of an unlabelled hook, through ``session`` (the framework's MCP session,
        None where it hands over none): the server's ``claim`` shown as a claim, else the
        framework's name."""
        shown = t("self_named", name=visible(claim)) if claim else framework
        return cls(shown, kernel_state().guards.for_session(session, shown), False)


H = TypeVar("H", bound="ElicitationHook")


class ElicitationHook:
    """What both shapes share: the label, its guard, and answering one request."""

    #: The framework whose name labels requests when neither a label nor the server tells.
    framework = "mcp"
    #: The public name, for ``repr``.
    public_name = ""
    #: How a request nb_elicit cannot show is answered: an ``ErrorData``, or cancel (a shape
    #: with no place for an error).
    refuse_with = Refusal.ERROR

    def __init__(self, label: str | None = None):
        self.label = label
        watch_cells()  # (from the cell that makes it: later cells are then known as they run)
        note_request_clocks()  # (before the framework sends its first request: see paused)

    def named(self: H, label: str, *, rate_limit: str | RateLimit | None = None,
              secret_forms: str | None = None) -> H:
        """The same hook, its requests labelled ``label`` (history, ``%mcp respond LABEL``,
        recording, replay, mute and the rate limit tell servers apart by it);
        ``rate_limit`` (``"10/min"``) and ``secret_forms`` (``"warn"``, ``"refuse"``) as in
        :func:`nb_elicit.connect`, for every hook of that label."""
        if not isinstance(label, str) or not label.strip():
            raise ValueError("a label is a non-empty string, like .named('github')")
        label = shorten(label.strip(), LABEL_LIMIT, one_line=True)
        guard = guard_for(label)
        if rate_limit is not None:
            guard.set_rate_limit(parse_rate_limit(rate_limit) if isinstance(rate_limit, str)
                                 else rate_limit)
        if secret_forms is not None:
            guard.secret_forms = secret_forms
        return type(self)(label)

    @property
    def guard(self) -> Guard | None:
        """The guard of this hook's label (None for an unlabelled hook: each framework
        session has its own)."""
        return guard_for(self.label) if self.label is not None else None

    def asker(self, context: object, claim: str | None = None) -> Asker:
        """Who asks in a request that came with ``context`` (the framework's: its ``session``
        is the MCP session): this hook's label, else the server's claim (``claim``, or the
        name the session's server gave itself)."""
        if self.label is not None:
            return Asker.labelled(self.label)
        return Asker.unlabelled(getattr(context, "session", None),
                                claim or server_name_of(context), self.framework)

    def mute(self) -> None:
        """Answer every further request of this label with cancel, until :meth:`unmute`."""
        self._labelled().muted = True

    def unmute(self) -> None:
        self._labelled().muted = False

    @property
    def muted(self) -> bool:
        return self.label is not None and guard_for(self.label).muted

    @property
    def rate_limit(self) -> RateLimit | None:
        """How often this label's server may ask (None: no limit)."""
        return self._labelled().rate_limit

    @rate_limit.setter
    def rate_limit(self, limit: str | RateLimit | None) -> None:
        self._labelled().set_rate_limit(parse_rate_limit(limit) if isinstance(limit, str)
                                        else limit)

    def _labelled(self) -> Guard:
        if self.label is None:
            raise ValueError(f"this needs a labelled hook: {self.public_name}.named('NAME')")
        return guard_for(self.label)

    def __repr__(self) -> str:
        named = f".named({self.label!r})" if self.label is not None else ""
        return f"<nb_elicit.{self.public_name}{named}>"

    # -- answering ------------------------------------------------------------------------

    async def answer(self, context: object, params: object,
                     claim: str | None = None) -> Answer | BaseException:
        """The person's (or the policy's, ...) answer to one request, or why there is none
        (an exception, which the shape turns into an ``ErrorData`` or ``cancel``); every
        failure has told the cell. Only the framework's own cancellation of this request
        (its server withdrew it) goes on as a cancellation: a form nb_elicit ended by itself
        is answered ``cancel``. ``claim``: the name the framework says the server has, where
        its context does not tell. From the request's arrival to its answer, the framework's
        request clocks of this loop stand still (:func:`paused_clocks`): its timeouts wait for
        the person, and for nb_elicit's own work to show the form."""
        with paused_clocks():
            return await self._answer(context, params, claim)

    async def _answer(self, context: object, params: object,
                      claim: str | None) -> Answer | BaseException:
        asker, message = Asker(self.framework, Guard(server=self.framework), False), None
        cell = contextvars.copy_context()
        try:
            asker = self.asker(context, claim)
            cell = in_running_cell()
            request = plain_request(params, context)
            message = request.message
            here = asyncio.get_running_loop()
            loop = kernel_loop()
            asked: asyncio.Future[Answer | BaseException]
            if loop is None or loop is here:
                # Background work: a task only to run in the cell's context; awaited here,
                # and cancelled with this wait.
                asked = cell.run(here.create_task, _ask_in_cell(asker, request, self.refuse_with))
            elif threading.current_thread() is threading.main_thread() \
                    or _held_by_the_cell() or not await _loop_takes_calls(loop):
                # The kernel's thread is held: the form is shown and answered on a subshell of
                # nb_elicit's own where the kernel has one, else the rules (or cancel) answer.
                side = side_shell() if running_cell() is not None else None
                if side is None:
                    return await _ask_unseen(cell, asker, request, self.refuse_with)
                asked = asyncio.wrap_future(side.run(
                    cell, _ask_in_cell(asker, request, self.refuse_with)))
            else:
                asked = asyncio.wrap_future(asyncio.run_coroutine_threadsafe(
                    in_context(cell, _ask_in_cell(asker, request, self.refuse_with)), loop))
            got = await _outcome_of(asked)
            if got is None:  # (nb_elicit ended it by itself: cancel, and the cell says so)
                _tell(cell, asker, message, Outcome(
                    Answer("cancel"), AnsweredBy.CLOSED, notice_kind=NoticeKind.WARNING,
                    notice=t("n_ended_cancel", server=asker.server)))
                return Answer("cancel")
            return got
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - told in the cell, never raised
            _failed(cell, asker, message, error, self.refuse_with)
            return error


class ElicitationCallback(ElicitationHook):
    """The SDK's shape: ``async (context, params) -> ElicitResult | ErrorData``, for
    ``mcp.Client``/``ClientSession(elicitation_callback=)``, ADK's and strands'
    ``elicitation_callback=``, mcp-use."""

    framework = "mcp"
    public_name = "elicitation_callback"
    refuse_with = Refusal.ERROR

    async def __call__(self, context: object, params: object = None) -> HookReply:
        # (the SDK's ElicitResult or ErrorData, which only the adapter may name)
        got = await self.answer(context, params)
        if isinstance(got, Answer):
            return result_of(got)
        return error_result(got)


class ElicitationHandler(ElicitationHook):
    """FastMCP's shape: ``async (message, response_type, params, context) -> ElicitResult``,
    for ``fastmcp.Client(elicitation_handler=)``, pydantic-ai's ``MCPToolset`` and
    ``langchain.mcp``. An ``ElicitResult`` passes through FastMCP unchanged; a request that
    cannot be shown is answered ``cancel`` (FastMCP's handler has no place for an error)."""

    framework = "fastmcp"
    public_name = "elicitation_handler"
    refuse_with = Refusal.CANCEL

    async def __call__(self, message: object = None, response_type: object = None,
                       params: object = None, context: object = None) -> object:
        # (the SDK's ElicitResult, which only the adapter may name)
        got = await self.answer(context, params if params is not None else {
            "message": message})
        return result_of(got if isinstance(got, Answer) else Answer("cancel"))


async def _outcome_of(
        asked: asyncio.Future[Answer | BaseException]) -> Answer | BaseException | None:
    """What ``asked`` (the request's answering, as a task or a future of the kernel's loop)
    came to. Cancelling this wait (the framework withdrew the request) cancels ``asked`` and
    goes on as a cancellation; None where ``asked`` was cancelled by anything else
    (nb_elicit's own end of it), which is never raised into the framework's session."""
    try:
        await asyncio.wait({asked})
    except asyncio.CancelledError:
        asked.cancel()
        with contextlib.suppress(asyncio.CancelledError):  # (its request ends first, if it can)
            await asyncio.wait({asked})
        raise
    if asked.cancelled():
        return None
    return asked.result()


async def _ask_in_cell(asker: Asker, request: ElicitationRequest,
                       refuse_with: Refusal) -> Answer | BaseException:
    """On the kernel's loop, in the running cell's context: a view of its own in that cell,
    and the request answered there as on a connection."""
    view = CallView(asker.server, t("hook_what"), show_waiting=False)
    if kernel_compat.widget_frontend_attached():
        view.show_when_needed(keyboard=True, in_place=not shows_display_updates())
        # (a request answered by a policy shows nothing)
    context = RequestContext(asker.server, view, asker.guard, named=asker.named, what=WHAT)
    try:
        return await ask(context, request, refuse_with=refuse_with)
    except asyncio.CancelledError:
        raise
    except Exception as error:  # noqa: BLE001 - ask has told the cell (and the history)
        return error
    finally:
        view.finish()
        print_for_headless(view)
        view.freeze_when_answered()


async def _ask_unseen(cell: contextvars.Context, asker: Asker, request: ElicitationRequest,
                      refuse_with: Refusal) -> Answer | BaseException:
    """The kernel's thread is held by a synchronous call, so no form could be answered: the
    rules answer on this thread (mute, checks, replay, the respond policy), and what only a
    person could answer is answered ``cancel``; the cell says which call to use instead,
    once per burst."""
    def blocked() -> Outcome:
        call = blocking_call(kernel_thread_stack())
        return Outcome(Answer("cancel"), AnsweredBy.KERNEL_BLOCKED,
                       notice_kind=NoticeKind.WARNING, counted=Counted(lambda n: " ".join((t(
                           "n_kernel_blocked", server=asker.server,
                           message=shorten(request.message, 200), sync=call.sync,
                           instead=call.instead), t("n_kernel_blocked_more",
                                                    server=asker.server)))))

    context = RequestContext(asker.server, None, asker.guard, named=asker.named, what=WHAT,
                             say=_printer(cell))
    try:
        return await ask(context, request, refuse_with=refuse_with, unseen=blocked)
    except Exception as error:  # noqa: BLE001 - ask has told the cell (and the history)
        return error


def _held_by_the_cell() -> bool:
    """Whether the running cell's own code holds the kernel's thread now (a synchronous call
    in it), where nb_elicit's subshell can answer instead: then the request goes there at once,
    not after :func:`_loop_takes_calls` has waited :data:`LOOP_PROBE` for nothing. Elsewhere
    (no subshell: the rules answer, or cancel) the probe still decides."""
    return running_cell() is not None and cell_code_runs() and side_shell() is not None


async def _loop_takes_calls(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether ``loop`` runs a call handed to it from this thread within :data:`LOOP_PROBE`."""
    taken: concurrent.futures.Future[bool] = concurrent.futures.Future()

    def take() -> None:
        if not taken.done():
            taken.set_result(True)

    try:
        loop.call_soon_threadsafe(take)
    except RuntimeError:  # the loop is closed
        return False
    try:
        await asyncio.wait_for(asyncio.wrap_future(taken), LOOP_PROBE)
    except asyncio.TimeoutError:
        taken.cancel()
        return False
    return True


def _failed(cell: contextvars.Context, asker: Asker, message: str | None, error: BaseException,
            refuse_with: Refusal) -> None:
    server = asker.server
    suffix = "_cancel" if refuse_with is Refusal.CANCEL else ""
    if isinstance(error, InvalidRequest):  # (what the framework handed over is no request)
        how, line = AnsweredBy.REFUSED, t("n_refused_request" + suffix, server=server,
                                 detail=shorten(str(error), 200))
    else:
        how, line = AnsweredBy.FAILED, t("n_failed" + suffix, server=server,
                                error=shorten(repr(error), 200))
    _tell(cell, asker, message, Outcome(Answer("cancel") if suffix else None, how,
                                        notice_kind=NoticeKind.ERROR, notice=line))


def _tell(cell: contextvars.Context, asker: Asker, message: str | None, outcome: Outcome) -> None:
    """An outcome that no view shows: recorded (history), and its line printed in the cell."""
    context = RequestContext(asker.server, None, asker.guard, named=asker.named, what=WHAT,
                             say=_printer(cell))
    context.write_outcome(message if message is not None else "", outcome)


def _printer(cell: contextvars.Context) -> Callable[[str], None]:
    """Print a line in ``cell`` (its stderr: the running cell's, where the form would be)."""
    return lambda line: cell.run(print, line, file=sys.stderr, flush=True)


#: The SDK's shape, unlabelled (requests go by the server's own name).
elicitation_callback = ElicitationCallback()
#: FastMCP's shape, unlabelled.
elicitation_handler = ElicitationHandler()


def answer_every_session(on: bool = True) -> None:
    """Give every ``mcp.ClientSession`` made from now on *without* an elicitation callback of its
    own nb_elicit's :data:`elicitation_callback`, so that a framework with no hook (openai-agents,
    llama-index, agent-framework, smolagents) still shows its server's questions as forms; a
    session that gets ``input_required`` (2026-07-28) has its ``call_tool`` completed with the
    person's answers. A callback a framework passes is never replaced. ``%load_ext nb_elicit``
    turns it on; ``answer_every_session(False)`` turns it off for sessions made later."""
    if not isinstance(on, bool):
        raise ArgumentTypeError(f"answer_every_session takes True or False, not {on!r}")
    every_session.turn(_unlabelled if on else None)


def _unlabelled() -> ElicitationCallback:
    return elicitation_callback
