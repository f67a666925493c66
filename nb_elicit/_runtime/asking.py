"""Answering one elicitation: by the guard, by the respond policy, or by the person.

In order: a muted connection answers ``cancel``; a malformed or oversized request is refused
with a JSON-RPC error; a form that asks for secrets is refused if the connection says so; the
respond policy answers; and what is left for the person (a form, or a URL consent card) is
declined if the server asks more often than its rate limit allows, or shown and waited for.
The widget goes into the view of the call that asked, waits (in the pending registry), and is
closed with a reason when the request goes away. Every outcome is written to the history.
Where no widget frontend is attached, a request answers ``cancel`` after a bounded wait.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from .._core.answer import Answer
from .._core.errors import InvalidRequest, SchemaError
from .._core.history import HISTORY
from .._core.i18n import t
from .._core.limits import MAX_MESSAGE
from .._core.policy import POLICIES, Policy, headless_wait
from .._core.recording import TAPE, Mismatch
from .._core.schema import FormSpec, parse_schema
from .._core.secrets import secret_fields
from .._core.transcript import Asked, shown_fields
from .._core.types import ElicitationRequest
from .._core.url import check_url
from .._core.validate import validate_spec
from .._ui.call_view import CallView
from .._ui.form import ElicitationForm
from .._ui.prompt import PromptWidget
from .._ui.url_card import UrlConsentCard
from .calls import SETTLE, Call
from .guard import Guard
from .kernel_compat import keep_widget_messages_flowing, widget_frontend_attached
from .pending import PENDING

__all__ = ["ask", "check_message", "wait_for_person"]

MODES = ("form", "url")


async def ask(server: str, request: ElicitationRequest, call: Call | None, view: CallView,
              gone: Callable[[], bool], guard: Guard) -> Answer:
    """Answer ``request`` from ``server``; ``gone()`` tells whether the server went away."""
    if guard.muted:
        guard.count_notice("muted", view, lambda n: (
            f"{server} is muted: nb_elicit answered cancel to {_requests(n)}. "
            f"To see its requests again: %mcp unmute {server}"))
        HISTORY.add(server, _text(request.message), "cancel", None, "muted")
        return Answer("cancel")
    guard.forget_notice("muted")
    try:
        check_message(request)
        if request.mode == "url":
            return await _answer_url(server, request, call, view, gone, guard)
        spec = parse_schema(request.requested_schema)
    except (SchemaError, InvalidRequest) as error:
        what = "a form" if isinstance(error, SchemaError) else "a request"
        view.notice(f"{server} sent {what} nb_elicit cannot show, so it answered with an "
                    f"error. {error}")
        HISTORY.add(server, _text(request.message), "error", None, "refused")
        raise
    secrets = secret_fields(spec)
    if secrets and guard.secret_forms == "refuse":
        view.notice(f"{server} asked for what looks like a secret ({', '.join(secrets)}) in a "
                    f"form. This connection refuses such forms, so nb_elicit declined.")
        HISTORY.add(server, request.message, "decline", None, "refused secrets")
        return Answer("decline")
    replayed = _answer_from_recording(server, request, spec, view)
    if replayed is not None:
        return replayed
    policy = POLICIES.for_connection(server)
    if policy.action != "ask":
        return _answer_by_policy(server, policy, request, spec, view)
    if not _within_rate_limit(server, request, view, guard):
        return Answer("decline")
    form = ElicitationForm(request.message, request.requested_schema, server=server)
    answer = await wait_for_person(server, form, call, view, gone)
    HISTORY.add(server, request.message, answer.action, answer.content, form.answered_by,
                request.requested_schema)
    if TAPE.recorder is not None and form.answered_by == "person":
        TAPE.recorder.add(server, view.what, request.requested_schema, request.message,
                          answer.action, answer.content)
    return answer


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


async def _answer_url(server: str, request: ElicitationRequest, call: Call | None,
                      view: CallView, gone: Callable[[], bool], guard: Guard) -> Answer:
    url = check_url(request.url)
    policy = POLICIES.for_connection(server)
    if policy.action in ("decline", "cancel"):
        view.notice(f"{server} asked you to open {url.url}. Answered {policy.action} by the "
                    f"respond policy ({policy.source}).")
        HISTORY.add(server, request.message, policy.action, None, "policy")
        return Answer(policy.action)
    if policy.action == "accept":
        # Consent to open a page is a person's to give: no policy gives it for them.
        view.notice(f"{server} asked you to open {url.url}. A respond policy never consents "
                    f"to a web page, so nb_elicit declined.")
        HISTORY.add(server, request.message, "decline", None, "policy (URL needs a person)")
        return Answer("decline")
    if not _within_rate_limit(server, request, view, guard):
        return Answer("decline")
    card = UrlConsentCard(request.message, url, server=server,
                          elicitation_id=request.elicitation_id)
    guard.remember_card(request.elicitation_id, card)
    answer = await wait_for_person(server, card, call, view, gone)
    HISTORY.add(server, request.message, answer.action, None, card.answered_by)
    return answer


async def wait_for_person(server: str, prompt: PromptWidget, call: Call | None,
                          view: CallView, gone: Callable[[], bool]) -> Answer:
    """Show ``prompt`` in ``view`` and wait for its answer (bounded where nobody can see it)."""
    keep_widget_messages_flowing(prompt)
    view.add_form(prompt)
    loop = asyncio.get_running_loop()
    timer = None
    if not widget_frontend_attached():
        wait = headless_wait()
        timer = loop.call_later(wait, _no_frontend, server, prompt, view, wait)
    if call is not None:
        call.begin_asking()
    try:
        with PENDING.track(prompt, server, call):
            return await prompt.wait()
    except asyncio.CancelledError:
        # The server withdrew the request, or went away: look a moment later which it was.
        loop.call_later(SETTLE, _withdrawn, server, prompt, gone)
        raise
    finally:
        if timer is not None:
            timer.cancel()
        if call is not None:
            call.end_asking()


def _answer_from_recording(server: str, request: ElicitationRequest, spec: FormSpec,
                           view: CallView) -> Answer | None:
    """The recorded answer to this request, if ``%mcp replay`` has one that fits."""
    replayer = TAPE.replayer
    if replayer is None:
        return None
    found = replayer.find(server, view.what, request.requested_schema)
    name = replayer.path.name
    if found is None:
        return None
    if isinstance(found, Mismatch):
        view.notice(f"{server} · {view.what} asked with a form that changed since {name} was "
                    f"recorded (schema {found.recorded} then, {found.asked} now), so nb_elicit "
                    "did not answer from the recording; the respond policy answers instead.")
        return None
    content = found.content if found.action == "accept" else None
    if found.action == "accept":
        detail = _misfit(spec, content or {})
        if detail:
            view.notice(f"The answer recorded in {name} for {server} · {view.what} does not "
                        f"fit the form ({detail}), so the respond policy answers instead.")
            return None
        content = dict(content or {})
    answer = Answer(found.action, content)
    status = f"Answered {answer.action} from the recording {name}."
    view.notice(f"{server} asked: {request.message} {status}",
                asked=Asked(server, request.message, status, answer.action, "replay",
                            shown_fields(spec, answer.content)))
    HISTORY.add(server, request.message, answer.action, answer.content, "replay",
                request.requested_schema)
    return answer


def _within_rate_limit(server: str, request: ElicitationRequest, view: CallView,
                       guard: Guard) -> bool:
    """Whether one more request may be shown to the person; if not, say so (once, counted)."""
    if guard.allow():
        return True
    guard.count_notice("limited", view, lambda n: (
        f"{server} asks too often (limit {guard.rate_limit}): nb_elicit declined "
        f"{_requests(n)} without showing them. It shows the next one in "
        f"{guard.seconds_to_next():.0f} s. Change it with %mcp limit {server} RATE."))
    HISTORY.add(server, _text(request.message), "decline", None, "rate limit")
    return False


def _answer_by_policy(server: str, policy: Policy, request: ElicitationRequest, spec: FormSpec,
                      view: CallView) -> Answer:
    if policy.action == "accept":
        names = {field.name for field in spec}
        content = {k: v for k, v in (policy.content or {}).items() if k in names}
        detail = _misfit(spec, content)
        if detail:
            view.notice(f"{server} asked: {request.message} The respond policy's answer "
                        f"does not fit this form ({detail}), so nb_elicit answered cancel.")
            HISTORY.add(server, request.message, "cancel", None, "policy did not fit")
            return Answer("cancel")
        answer = Answer("accept", content)
    else:
        answer = Answer(policy.action)
    status = f"Answered {answer.action} by the respond policy ({policy.source})."
    view.notice(f"{server} asked: {request.message} {status}",
                asked=Asked(server, request.message, status, answer.action, "policy",
                            shown_fields(spec, answer.content)))
    HISTORY.add(server, request.message, answer.action, answer.content, "policy",
                request.requested_schema)
    return answer


def _misfit(spec: FormSpec, content: dict) -> str:
    """Why an answer given without a person does not fit the form ("" when it does)."""
    return "; ".join(f"{k}: {v}" for k, v in validate_spec(spec, content).items())


def _no_frontend(server: str, prompt: PromptWidget, view: CallView, wait: float) -> None:
    if prompt.answer.done():
        return
    prompt.answered_by = "no frontend"
    if prompt.dismiss():
        view.notice(
            f"No widget frontend is attached (nbclient, nbconvert and papermill show no "
            f"widgets), so nb_elicit answered cancel after {wait:g} s. To answer without a "
            f"person, set a policy: %mcp respond {server} decline|cancel|accept JSON, "
            f"nb_elicit.respond(...), or the environment variable NB_ELICIT_RESPOND.")


def _withdrawn(server: str, prompt: PromptWidget, gone: Callable[[], bool]) -> None:
    disconnected = gone()
    if prompt.abandon(t("disconnected", server=server) if disconnected else
                      t("withdrew", server=server)):
        HISTORY.add(server, prompt.message, "none", None,
                    "disconnected" if disconnected else "withdrawn")


def _requests(count: int) -> str:
    return "1 request" if count == 1 else f"{count:,} requests"


def _text(message: object) -> str:
    text = message if isinstance(message, str) else repr(message)
    return text if len(text) <= 200 else text[:199] + "…"
