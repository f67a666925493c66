"""Answering one elicitation: by the guard, a recording, the respond policy, or the person.

In order: a muted connection answers ``cancel``; a malformed or oversized request is refused
with a JSON-RPC error; a form that asks for secrets is refused if the connection says so; a
recording (``%mcp replay``) answers if it has a fitting answer; the respond policy answers; and
what is left for the person (a form, or a URL consent card) waits for its turn in the
connection's backlog (a few are shown at once), then is shown and waited for. nb_elicit answers
``cancel`` by itself only past the backlog's cap, past an optional rate limit, or where no
widget frontend is attached (after a bounded wait). Only the person ever declines.

Each of those ways returns an :class:`~nb_elicit._core.outcome.Outcome`, and
:func:`write_outcome` is the one place that turns it into the cell's notice, the history entry
and, for a person's answer, the recording. A request travels as one :class:`RequestContext`:
its connection, the call(s) it may belong to, and the view that shows it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple, cast

from .._core.answer import Action, Answer
from .._core.errors import InvalidRequest, SchemaError
from .._core.i18n import t
from .._core.limits import MAX_MESSAGE
from .._core.notices import NoticeKind
from .._core.outcome import AnsweredBy, Consent, Counted, Outcome, Refusal
from .._core.policy import Policy, headless_wait
from .._core.records.recording import Mismatch
from .._core.records.transcript import Asked, shown_fields
from .._core.schema.fields import FormSpec, parse_schema
from .._core.schema.prefill import as_submitted
from .._core.schema.validate import validate_spec
from .._core.secrets.fields import secret_fields
from .._core.text import shorten
from .._core.types import ElicitationRequest
from .._core.url import CheckedUrl, check_url
from .._ui.call_view import CallView
from .._ui.form import ElicitationForm
from .._ui.prompt import PromptWidget
from .._ui.url_card import UrlConsentCard
from . import kernel_compat
from .backlog import Turn, show_turn
from .calls import Call
from .guard import Guard
from .kernel_compat import count_views, keep_widget_messages_flowing
from .side_shell import held_here
from .state import kernel_state

__all__ = ["RequestContext", "Ruled", "ask", "ask_consent", "by_rules", "check_message",
           "how_gone", "outcome_line", "wait_for_person", "write_outcome"]

MODES = ("form", "url")


class RequestContext:
    """Where one request of a server is answered: its connection (the name ``server``, its
    ``guard``, ``gone()``: whether its server went away), the ``calls`` it may belong to, and
    the ``view`` that shows it.

    ``calls`` is the one call that asked, where the SDK tells (a request on a call's own HTTP
    response, or of a 2026-07-28 call, runs inside that call); where the transport cannot tell
    (stdio, HTTP+SSE), every call of the connection that was running when the request came,
    quiet ones (list_tools, read_resource, ...) left out. Each keeps its timeout paused while
    the request is open, so the call that really asked is never cut off while the person
    answers. The first is the call whose cell shows the request (an interrupt there dismisses
    it)."""

    def __init__(self, server: str, view: CallView | None, guard: Guard | None = None,
                 gone: Callable[[], bool] = lambda: False, calls: Sequence[Call] = (), *,
                 named: bool = True, what: str | None = None,
                 say: Callable[[str], None] | None = None):
        self.server = server
        self.view = view
        #: The guard of the connection or hook the request came through: its rules, and the
        #: owner of its forms (:mod:`.pending`, by identity).
        self.guard = guard if guard is not None else Guard(server=server)
        self.gone = gone
        self.calls = tuple(calls)
        #: Whether ``server`` is a name the person chose (a connection's, a hook's label):
        #: only such a name selects a respond policy, a recording's entries and replay. A name
        #: a server gives itself is a claim, and selects none of them.
        self.named = named
        self._what = what
        #: Where a request with no view tells its outcome (a line in the cell).
        self.say = say

    @property
    def call(self) -> Call | None:
        """The call whose cell shows the request (None: it shows in a view of its own)."""
        return self.calls[0] if self.calls else None

    @property
    def what(self) -> str:
        """What the server was doing when it asked, as the view names it."""
        if self._what is not None or self.view is None:
            return self._what or ""
        return self.view.what

    @property
    def policy(self) -> Policy:
        """The respond policy that answers this request: the one set for its name, where the
        person chose the name; else the one for every connection."""
        policies = kernel_state().policies
        return policies.for_connection(self.server) if self.named else policies.for_anyone()

    @contextlib.contextmanager
    def asking(self) -> Iterator[None]:
        """While the person is (or will be) answering: the calls' timeouts stand still."""
        for call in self.calls:
            call.begin_asking()
        try:
            yield
        finally:
            for call in self.calls:
                call.end_asking()

    def write_outcome(self, message: object, outcome: Outcome, spec: FormSpec | None = None,
                      schema: object = None, in_cell: bool = True) -> None:
        """Record ``outcome`` (see :func:`write_outcome`); ``in_cell=False`` when the prompt
        already says it, so the cell gets no line of its own. With no view, the line goes to
        ``say``, once per way of answering while the same way repeats (a burst of muted or
        unseen requests is one line; each is in the history)."""
        write_outcome(self.server, message, self.view if in_cell else None, self.guard,
                      outcome, spec=spec, schema=schema, tool=self.what, recorded=self.named)
        if self.view is None and in_cell and self.say is not None:
            line = outcome_line(self.server, message, outcome, self.guard)
            if line:
                self.say(line)

    def __repr__(self) -> str:
        return f"<RequestContext {self.server} · {self.what}: {len(self.calls)} call(s)>"


async def ask(context: RequestContext, request: ElicitationRequest, *,
              refuse_with: Refusal = Refusal.ERROR,
              unseen: Callable[[], Outcome] | None = None) -> Answer:
    """Answer ``request`` of ``context.server``. A failure of nb_elicit's own ends here too: a
    line in the cell, an error to the server, and no form left open.

    ``refuse_with=Refusal.CANCEL``: a request nb_elicit cannot show (or failed to) is answered
    ``cancel`` instead of an error, and the cell says so (a question asked inside a 2026-07-28
    task: its ``tasks/update`` has no place for an error).

    The rules answer first, needing neither a frontend nor the kernel's loop: mute, the
    checks, the secret-form rule, replay and the respond policy. ``unseen``: no person can be
    shown the request (the kernel's thread is held), so what the rules leave is answered by
    ``unseen()`` instead of the rate limit, the backlog and the person."""
    server = context.server
    spec = None
    cancel = refuse_with is Refusal.CANCEL
    suffix = "_cancel" if cancel else ""
    try:
        ruled = by_rules(context, request)
        spec, outcome = ruled.spec, ruled.outcome
        if outcome is None:
            if unseen is not None:
                outcome = unseen()
            elif request.mode == "url":
                assert ruled.url is not None  # (the rules leave a page to a person with it)
                outcome = await _url_by_person(context, request, ruled.url)
            else:
                assert spec is not None  # (the rules leave a form to a person with its spec)
                outcome = await _form_by_person(context, request, spec)
            outcome = outcome.noting(*ruled.notes)
        if outcome.answered_by is not AnsweredBy.KERNEL_BLOCKED:
            context.guard.forget_notice(AnsweredBy.KERNEL_BLOCKED)  # (a later burst: told anew)
    except (SchemaError, InvalidRequest) as error:
        key = "n_refused_form" if isinstance(error, SchemaError) else "n_refused_request"
        detail = str(error).removeprefix("unsupported requestedSchema: ")
        outcome = Outcome(Answer("cancel") if cancel else None, AnsweredBy.REFUSED,
                          error=None if cancel else error, notice_kind=NoticeKind.ERROR,
                          notice=t(key + suffix, server=server, detail=detail))
    except Exception as error:  # noqa: BLE001 - a bug of ours: told, and sent as an error
        outcome = Outcome(Answer("cancel") if cancel else None, AnsweredBy.FAILED,
                          error=None if cancel else error, notice_kind=NoticeKind.ERROR,
                          notice=t("n_failed" + suffix, server=server, error=_text(repr(error))))
    context.write_outcome(request.message, outcome, spec=spec,
                          schema=request.requested_schema if request.mode == "form" else None)
    if outcome.error is not None:
        raise outcome.error
    assert outcome.answer is not None  # (each outcome made here has an answer or an error)
    return outcome.answer


def write_outcome(server: str, message: object, view: CallView | None, guard: Guard | None,
                  outcome: Outcome, spec: FormSpec | None = None, schema: object = None,
                  tool: str | None = None, recorded: bool = True) -> None:
    """The one place an outcome is told: the cell's notice, the history, the recording.

    ``tool`` is what the server was doing when it asked; by default, the view's call.
    ``recorded=False``: the name is a server's claim, which the recording does not key."""
    if tool is None:
        tool = view.what if view is not None else ""
    if view is not None:
        for note in outcome.notes:
            view.notice(note, NoticeKind.WARNING)
        if outcome.counted is not None and guard is not None:
            guard.count_notice(outcome.answered_by, view, outcome.counted.text,
                               outcome.notice_kind)
        elif outcome.status is not None:
            content = outcome.answer.content if outcome.answer is not None else None
            view.notice(f"{t('transcript_asked', server=server)} {message} {outcome.status}",
                        outcome.notice_kind, asked=Asked(
                server, _text(message, limit=None), outcome.status, outcome.action,
                outcome.answered_by, shown_fields(spec, content) if spec is not None else ()))
        elif outcome.notice is not None:
            view.notice(outcome.notice, outcome.notice_kind)
    content = outcome.answer.content if outcome.answer is not None else None
    kernel_state().history.add(server, _text(message), outcome.action, content,
                               outcome.answered_by, schema, tool)
    recorder = kernel_state().tape.recorder
    if (recorded and recorder is not None and outcome.by_person and outcome.answer is not None
            and schema is not None and view is not None):
        recorder.add(server, tool, schema, _text(message, limit=None),
                     outcome.answer.action, content)



def outcome_line(server: str, message: object, outcome: Outcome, guard: Guard) -> str:
    """The line a cell shows for ``outcome`` where no view shows it ("" for a burst's
    repeat: a counted outcome's line shows once until another way of answering comes)."""
    lines = list(outcome.notes)
    if outcome.counted is not None:
        if guard.count_unseen(outcome.answered_by) == 1:
            lines.append(outcome.counted.text(1))
    elif outcome.status is not None:
        lines.append(f"{t('transcript_asked', server=server)} {_text(message)} "
                     f"{outcome.status}")
    elif outcome.notice is not None:
        lines.append(outcome.notice)
    return "\n".join(f"nb_elicit: {line}" for line in lines)


def check_message(request: ElicitationRequest) -> None:
    """Refuse a request whose mode or message nb_elicit will not show."""
    if request.mode not in MODES:
        raise InvalidRequest(f"unknown elicitation mode {request.mode!r}; nb_elicit declared "
                             f"{' and '.join(MODES)}")
    if not isinstance(request.message, str):
        raise InvalidRequest("the request needs a message string")
    if len(request.message) > MAX_MESSAGE:
        raise InvalidRequest(f"the message is {len(request.message):,} characters; the limit "
                             f"is {MAX_MESSAGE:,}")


# -- each way of answering returns an Outcome ------------------------------------------------------

class Ruled(NamedTuple):
    """What the rules made of a request before any person: its form (``spec``) or its page
    (``url``), the outcome when a rule answered it, and lines for the cell (why a recording
    did not answer)."""

    outcome: Outcome | None
    spec: FormSpec | None = None
    url: CheckedUrl | None = None
    notes: tuple[str, ...] = ()


def by_rules(context: RequestContext, request: ElicitationRequest) -> Ruled:
    """Answer ``request`` by the rules, if they answer it: mute, the checks (SchemaError,
    InvalidRequest), the secret-form rule, replay, the respond policy. Needs neither a
    frontend nor the kernel's loop."""
    outcome = _muted(context.server, context.guard)
    if outcome is not None:
        return Ruled(outcome)
    check_message(request)
    if request.mode == "url":
        url = check_url(request.url)
        return Ruled(_consent_by_rules(context, url.url), url=url)
    spec = parse_schema(request.requested_schema)
    return _form_by_rules(context, request, spec)


def _muted(server: str, guard: Guard) -> Outcome | None:
    if not guard.muted:
        guard.forget_notice(AnsweredBy.MUTED)
        return None
    return Outcome(Answer("cancel"), AnsweredBy.MUTED, counted=Counted(lambda n: t(
        "n_muted", server=server, requests=_requests(n))))


def _form_by_rules(context: RequestContext, request: ElicitationRequest,
                   spec: FormSpec) -> Ruled:
    server, guard = context.server, context.guard
    secrets = secret_fields(spec)
    if secrets and guard.secret_forms == "refuse":
        return Ruled(Outcome(Answer("decline"), AnsweredBy.REFUSED_SECRETS,
                             notice_kind=NoticeKind.WARNING, notice=t(
                                 "n_secrets_refused", server=server, fields=", ".join(secrets))),
                     spec)
    replayed = _from_recording(context, request, spec) if context.named else None
    if isinstance(replayed, Outcome):
        return Ruled(replayed, spec)
    notes = (replayed,) if replayed else ()
    policy = context.policy
    if policy.action != "ask":
        return Ruled(_by_policy(server, request.message, policy, spec).noting(*notes), spec)
    return Ruled(None, spec, notes=notes)


async def _form_by_person(context: RequestContext, request: ElicitationRequest,
                          spec: FormSpec) -> Outcome:
    limited = _rate_limited(context.server, context.guard)
    if limited is not None:
        return limited
    return await _by_person(context, request.message, lambda: ElicitationForm(
        request.message, request.requested_schema, server=context.server))


async def _url_by_person(context: RequestContext, request: ElicitationRequest,
                         url: CheckedUrl) -> Outcome:
    def card() -> UrlConsentCard:
        made = UrlConsentCard(request.message, url, server=context.server,
                              elicitation_id=request.elicitation_id)
        context.guard.remember_card(request.elicitation_id, made)
        return made

    return await _consent_by_person(context, request.message, card)


def _consent_by_rules(context: RequestContext, target: str,
                      consent: Consent = Consent.URL) -> Outcome | None:
    """The respond policy's part in a consent card (to open ``target``, a page; or,
    ``Consent.FILE``, to save it; ``Consent.PERMISSION``, to give an app ``target``, its
    permissions): it may say no, never yes."""
    server = context.server
    policy = context.policy
    if policy.action in ("decline", "cancel"):
        said = cast(Action, policy.action)  # (a policy's action is "ask" or an Action)
        return Outcome(Answer(said), AnsweredBy.POLICY, notice=t(
            f"n_{consent.value}_policy", server=server, source=policy.source, action=policy.action,
            url=target))
    if policy.action == "accept":
        # Consent to open a page is a person's to give: no policy gives it for them. Nor does
        # nb_elicit say no for them (decline is the person's word): it answers cancel.
        return Outcome(Answer("cancel"), consent.policy_cannot_give,
                       notice_kind=NoticeKind.WARNING,
                       notice=t(f"n_{consent.value}_no_policy", server=server, url=target))
    return None


async def _consent_by_person(context: RequestContext, message: object,
                             make_card: Callable[[], PromptWidget]) -> Outcome:
    """A consent card for the person: the rate limit and the backlog hold it."""
    limited = _rate_limited(context.server, context.guard)
    if limited is not None:
        return limited
    return await _by_person(context, message, make_card)


async def ask_consent(context: RequestContext, message: str, target: str,
                      make_card: Callable[[], PromptWidget],
                      consent: Consent = Consent.URL) -> Outcome:
    """A consent card nb_elicit raises for a server's app (``ui/open-link``, a file of
    ``ui/download-file``, the permissions its resource asks for): the way a server's URL
    request goes (mute, the respond policy, the rate limit, the backlog), told and recorded by
    :func:`write_outcome`. The outcome says what became of it (``by_person``: the person
    answered)."""
    try:
        outcome = _muted(context.server, context.guard)
        if outcome is None:
            outcome = _consent_by_rules(context, target, consent)
        if outcome is None:
            outcome = await _consent_by_person(context, message, make_card)
    except Exception as error:  # noqa: BLE001 - a bug of ours: told, and answered cancel
        outcome = Outcome(Answer("cancel"), AnsweredBy.FAILED, notice_kind=NoticeKind.ERROR,
                          notice=t("n_failed_cancel", server=context.server,
                                   error=_text(repr(error))))
    context.write_outcome(message, outcome)
    return outcome


def _from_recording(context: RequestContext, request: ElicitationRequest,
                    spec: FormSpec) -> Outcome | str | None:
    """The recorded answer to this request, if ``%mcp replay`` has one that fits; else why
    not (a line for the cell), or None when there is nothing to replay."""
    replayer = kernel_state().tape.replayer
    if replayer is None:
        return None
    server, what = context.server, context.what
    found = replayer.find(server, what, request.requested_schema)
    name = replayer.path.name
    if found is None:
        return None
    if isinstance(found, Mismatch):
        return t("n_replay_changed", server=server, what=what, name=name,
                 then=found.recorded, now=found.asked)
    content = None
    if found.action == "accept":
        content = as_submitted(spec, found.content or {})
        detail = _misfit(spec, content)
        if detail:
            return t("n_replay_misfit", server=server, what=what, name=name,
                     detail=detail)
    return Outcome(Answer(found.action, content), AnsweredBy.REPLAY,
                   status=t("n_replayed", action=found.action, name=name))


def _by_policy(server: str, message: str, policy: Policy, spec: FormSpec) -> Outcome:
    if policy.action != "accept":  # (decline or cancel: "ask" never comes here)
        return Outcome(Answer(cast(Action, policy.action)), AnsweredBy.POLICY,
                       status=t("n_by_policy", action=policy.action, source=policy.source))
    content = as_submitted(spec, policy.content or {})
    detail = _misfit(spec, content)
    if detail:
        return Outcome(Answer("cancel"), AnsweredBy.POLICY_MISFIT,
                       notice_kind=NoticeKind.WARNING, notice=t(
                           "n_policy_misfit", server=server, message=message, detail=detail))
    return Outcome(Answer("accept", content), AnsweredBy.POLICY,
                   status=t("n_by_policy", action="accept", source=policy.source))


def _rate_limited(server: str, guard: Guard) -> Outcome | None:
    """None if one more request may be shown to the person; else the outcome that says so."""
    if guard.allow():
        return None
    return Outcome(Answer("cancel"), AnsweredBy.RATE_LIMIT, notice_kind=NoticeKind.WARNING,
                   counted=Counted(lambda n: t(
            "n_rate_limited", server=server, limit=guard.rate_limit, requests=_requests(n),
            seconds=f"{guard.seconds_to_next():.0f}")))


async def _by_person(context: RequestContext, message: object,
                     make_prompt: Callable[[], PromptWidget]) -> Outcome:
    """Wait for this request's turn in the backlog, then show it (made only then: a waiting
    request costs no widgets) and wait for the person."""
    server, backlog = context.server, context.guard.backlog
    wait = None if kernel_compat.widget_frontend_attached() else headless_wait()
    try:
        with context.asking():  # waiting for the person, shown or not: the timeouts pause
            turn = await backlog.turn(_view_of(context), wait,
                                      seen=kernel_compat.widget_frontend_attached)
    except asyncio.CancelledError as error:  # withdrawn (or its server went away) while waiting
        _record_gone(context, message, None, how_gone(context, error))
        raise
    if turn is Turn.FULL:
        return Outcome(Answer("cancel"), AnsweredBy.BACKLOG_FULL,
                       notice_kind=NoticeKind.WARNING, counted=Counted(lambda n: t(
                           "n_backlog_full", server=server, most=backlog.max_waiting,
                           requests=_requests(n))))
    if turn is Turn.CANCELLED:
        return Outcome(Answer("cancel"), AnsweredBy.CANCELLED_WAITING, counted=Counted(
            lambda n: t("n_cancelled_waiting", server=server, requests=_requests(n))))
    if turn is Turn.TIMED_OUT:
        return _no_frontend(server)
    try:
        try:
            # (one form built and shown per turn of the loop: a burst's forms come a moment
            # apart, with a cell or a click let in between; see backlog.ShowTurns)
            with context.asking():
                async with show_turn():
                    prompt = make_prompt()
        except asyncio.CancelledError as error:  # withdrawn before its form was built
            _record_gone(context, message, None, how_gone(context, error))
            raise
        answer = await wait_for_person(context, prompt)
    finally:
        backlog.done()
    if prompt.answered_by == AnsweredBy.NO_FRONTEND:
        return _no_frontend(server)
    return Outcome(answer, prompt.answered_by)


def _no_frontend(server: str) -> Outcome:
    return Outcome(Answer("cancel"), AnsweredBy.NO_FRONTEND, notice_kind=NoticeKind.WARNING,
                   counted=Counted(lambda n: t("n_no_frontend", server=server,
                                               requests=_requests(n),
                                               seconds=f"{headless_wait():g}")))


async def wait_for_person(context: RequestContext, prompt: PromptWidget) -> Answer:
    """Show ``prompt`` in the context's view and wait for its answer (bounded where nobody can
    see it). A prompt that ends without an answer (withdrawn, its server gone, its connection
    closed) is recorded here, once."""
    keep_widget_messages_flowing(prompt)
    loop = asyncio.get_running_loop()
    timer = None
    # (asking first: the form shows at once that the calls' timeouts are paused)
    with context.asking():
        try:
            attached = kernel_compat.widget_frontend_attached()
            if not attached:
                count_views(prompt)  # (a frontend that shows it says so: then it waits on)
            _view_of(context).add_form(prompt)
            held_here(context.view)  # (on nb_elicit's subshell: its messages come there)
            if not attached:
                # Background work: this wait's own timer, cancelled in its finally.
                timer = loop.call_later(headless_wait(), _unless_seen, prompt)
            with kernel_state().pending.track(prompt, context.guard, context.call):
                return await prompt.wait()
        except asyncio.CancelledError as error:
            # The request is gone: no answer can reach the server any more, so the prompt
            # refuses one at once (and takes back one given a moment ago that never left),
            # and says whether it was withdrawn or its server went away.
            gone = how_gone(context, error)
            prompt.withdraw(*gone)
            _record_gone(context, prompt.message, prompt, gone)
            raise
        except Exception:  # a failure of nb_elicit's own: the prompt does not stay open
            prompt.abandon(t("failed_request"), answered_by=AnsweredBy.FAILED)
            raise
        finally:
            if timer is not None:
                timer.cancel()


def _unless_seen(prompt: PromptWidget) -> None:
    """The no-frontend wait is over: the prompt is answered ``cancel`` unless, by now, a
    frontend showed it or another of our widgets (it looks again, rather than decide once)."""
    if not kernel_compat.widget_frontend_attached():
        prompt.dismiss(AnsweredBy.NO_FRONTEND)


def _view_of(context: RequestContext) -> CallView:
    """The view a person answers ``context``'s request in: a request shown to a person has
    one (only those answered unseen, by the rules, come without)."""
    assert context.view is not None
    return context.view


def _misfit(spec: FormSpec, content: dict[str, Any]) -> str:
    """Why an answer given without a person does not fit the form ("" when it does)."""
    return "; ".join(f"{k}: {v}" for k, v in validate_spec(spec, content).items())


#: The messages a request's asyncio task is cancelled with when the person withdrew it (Cancel
#: or Detach on the card of the task it was asked in): how it ended, in the history.
BY_CANCEL, BY_DETACH = AnsweredBy.TASK_CANCELLED, AnsweredBy.TASK_DETACHED
#: Those messages, and the text the form ends with.
BY_PERSON = {BY_CANCEL: "withdrew_task_cancelled", BY_DETACH: "withdrew_task_detached"}


def withdrawal(context: RequestContext,
               error: asyncio.CancelledError) -> tuple[str, AnsweredBy]:
    """What a request cancelled by ``error`` says and how it ended: withdrawn for the person
    when the cancellation's message is one of `BY_PERSON`, else withdrawn by its server."""
    why = error.args[0] if error.args else None
    if why in BY_PERSON:
        return t(BY_PERSON[why]), AnsweredBy(why)
    return t("withdrew", server=context.server), AnsweredBy.WITHDRAWN


def how_gone(context: RequestContext,
             error: asyncio.CancelledError) -> tuple[str, AnsweredBy]:
    """What a request cancelled by ``error`` says and how it ended, decided at once: its
    server went away (``context.gone()``), else :func:`withdrawal`.

    No wait is needed to tell the two apart: a session whose server went away has ended (its
    ``ended`` is set, and the connection is disconnected) before the SDK cancels the
    requests it was answering (see ``_mcp/session.py``, ``ServerSession.ended``)."""
    if context.gone():
        return t("disconnected", server=context.server), AnsweredBy.DISCONNECTED
    return withdrawal(context, error)


def _record_gone(context: RequestContext, message: object, prompt: PromptWidget | None,
                 gone: tuple[str, AnsweredBy]) -> None:
    """A request went away unanswered: end its prompt (what it says, how it ended: ``gone``)
    and record it. ``prompt`` is None for a request still waiting for its turn."""
    reason, how = gone
    if prompt is None:
        if how not in BY_PERSON and how != AnsweredBy.DISCONNECTED:
            how = AnsweredBy.WITHDRAWN_WAITING
    else:
        prompt.abandon(reason, how)  # (an answer taken back already says so)
        how = prompt.answered_by
    context.write_outcome(message, Outcome(None, how), in_cell=False)


def _requests(count: int) -> str:
    return t("n_request_one") if count == 1 else t("n_requests", n=f"{count:,}")


def _text(message: object, limit: int | None = 200) -> str:
    return shorten(message if isinstance(message, str) else repr(message), limit)
