"""Answering one elicitation: by the respond policy, or by a form that waits for the person.

The form goes into the view of the call that asked, waits (in the pending registry) for an
answer, and is closed with a reason when the request goes away. Every outcome is written to the
history. Where no widget frontend is attached, the form answers cancel after a bounded wait.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ._answer import Answer
from ._call_view import CallView
from ._calls import SETTLE, Call
from ._errors import InvalidRequest, SchemaError
from ._form import ElicitationForm
from ._history import HISTORY
from ._kernel_compat import keep_widget_messages_flowing, widget_frontend_attached
from ._mcp import ElicitationRequest
from ._pending import PENDING
from ._policy import POLICIES, Policy, headless_wait
from ._schema import FormSpec, parse_schema
from ._validate import validate_spec

__all__ = ["ask"]


async def ask(server: str, request: ElicitationRequest, call: Call | None, view: CallView,
              gone: Callable[[], bool]) -> Answer:
    """Answer ``request`` from ``server``; ``gone()`` tells whether the server went away."""
    if request.mode == "url":
        view.notice(f"{server} asked you to open a web page ({request.url}). nb_elicit "
                    "does not handle URL requests yet, so it declined.")
        HISTORY.add(server, request.message, "decline", None, "URL not supported")
        return Answer("decline")
    if request.mode != "form":
        raise InvalidRequest(f"unknown elicitation mode {request.mode!r}")
    try:
        spec = parse_schema(request.requested_schema)
    except SchemaError as error:
        view.notice(f"{server} asked with a form nb_elicit cannot show, so it answered "
                    f"with an error. {error}")
        HISTORY.add(server, request.message, "error", None, "unsupported schema")
        raise
    policy = POLICIES.for_connection(server)
    if policy.action != "ask":
        return _answer_by_policy(server, policy, request, spec, view)
    return await _answer_by_form(server, request, call, view, gone)


async def _answer_by_form(server: str, request: ElicitationRequest, call: Call | None,
                          view: CallView, gone: Callable[[], bool]) -> Answer:
    form = ElicitationForm(request.message, request.requested_schema, server=server)
    keep_widget_messages_flowing(form)
    view.add_form(form)
    loop = asyncio.get_running_loop()
    timer = None
    if not widget_frontend_attached():
        wait = headless_wait()
        timer = loop.call_later(wait, _no_frontend, server, form, view, wait)
    if call is not None:
        call.begin_asking()
    try:
        with PENDING.track(form, server, call):
            answer = await form.wait()
    except asyncio.CancelledError:
        # The server withdrew the request, or went away: look a moment later which it was.
        loop.call_later(SETTLE, _withdrawn, server, form, gone)
        raise
    finally:
        if timer is not None:
            timer.cancel()
        if call is not None:
            call.end_asking()
    HISTORY.add(server, request.message, answer.action, answer.content, form.answered_by,
                request.requested_schema)
    return answer


def _answer_by_policy(server: str, policy: Policy, request: ElicitationRequest, spec: FormSpec,
                      view: CallView) -> Answer:
    if policy.action == "accept":
        names = {field.name for field in spec}
        content = {k: v for k, v in (policy.content or {}).items() if k in names}
        problems = validate_spec(spec, content)
        if problems:
            detail = "; ".join(f"{k}: {v}" for k, v in problems.items())
            view.notice(f"{server} asked: {request.message} The respond policy's answer "
                        f"does not fit this form ({detail}), so nb_elicit answered cancel.")
            HISTORY.add(server, request.message, "cancel", None, "policy did not fit")
            return Answer("cancel")
        answer = Answer("accept", content)
    else:
        answer = Answer(policy.action)
    view.notice(f"{server} asked: {request.message} Answered {answer.action} by the "
                f"respond policy ({policy.source}).")
    HISTORY.add(server, request.message, answer.action, answer.content, "policy",
                request.requested_schema)
    return answer


def _no_frontend(server: str, form: ElicitationForm, view: CallView, wait: float) -> None:
    if form.answer.done():
        return
    form.answered_by = "no frontend"
    if form.dismiss():
        view.notice(
            f"No widget frontend is attached (nbclient, nbconvert and papermill show no "
            f"widgets), so nb_elicit answered cancel after {wait:g} s. To answer without a "
            f"person, set a policy: %mcp respond {server} decline|cancel|accept JSON, "
            f"nb_elicit.respond(...), or the environment variable NB_ELICIT_RESPOND.")


def _withdrawn(server: str, form: ElicitationForm, gone: Callable[[], bool]) -> None:
    disconnected = gone()
    if form.abandon(f"{server} disconnected." if disconnected else
                    f"{server} withdrew this request."):
        HISTORY.add(server, form.message, "none", None,
                    "disconnected" if disconnected else "withdrawn")
