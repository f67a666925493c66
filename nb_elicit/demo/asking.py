"""How the demo's tools ask the person, in both protocol eras, each tool written once.

A tool decorated with :func:`both_eras` asks with :func:`ask` (a form) or :func:`ask_url`
(URL mode), one question after another, as if the answer came back at once:

- in the handshake era (2025-06-18, 2025-11-25) each question is an ``elicitation/create``
  request the server sends while the call waits for it;
- in the 2026-07-28 era a server sends no requests of its own. The first question that has no
  answer yet ends the call with an ``InputRequiredResult`` (the question in ``inputRequests``,
  the call's state in ``requestState``); the client asks the person and calls the tool again
  with the answer in ``inputResponses``, echoing the state. The tool then runs again from the
  top: the questions answered in earlier rounds are answered from the state, and
  :attr:`Questions.replaying` tells the tool that it is going again over what it did before
  its last question, so that it need not do it twice (``import_rows`` reports no row twice).
  A retry without the answer is asked the same question again.

Each answer is written to the journal once, in the round it arrives, with the same entry in
both eras. The state is the only memory between rounds: the server keeps nothing per client.
It comes back from the client, so it is not trusted as it comes: the SDK seals it on the way
out (AES-GCM under a key of this process, bound to the tool, its arguments and a lifetime,
:data:`STATE_TTL`) and refuses a state it did not seal, and :meth:`Questions._read_state`
checks every field of what it holds. An answer only counts for the question the state says
was asked; an answer to any other question is ignored.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import json
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp_types as types
from mcp import MCPError
from mcp.server.mcpserver import Context
from mcp.server.request_state import RequestStateSecurity
from mcp_types.version import is_version_at_least
from pydantic import ValidationError

Journal = Callable[..., Any]

#: The first protocol version in which a tool asks by returning an input-required result.
INPUT_REQUIRED_VERSION = "2026-07-28"
#: How long a question of the 2026-07-28 era may wait for its answer, in seconds: the sealed
#: state expires then, and an answer given later is refused (-32602). The SDK's own default is
#: ten minutes; a person at a notebook may take longer.
STATE_TTL = 3600.0
#: How the demo's servers seal their ``requestState`` (a key made when the process starts).
STATE_SECURITY = RequestStateSecurity.ephemeral(ttl=STATE_TTL)
#: More answers than this in one state is no state this server made.
MAX_QUESTIONS = 20

_current: contextvars.ContextVar[Questions | None] = contextvars.ContextVar(
    "demo_questions", default=None)


class Withdrawn(Exception):
    """A question asked with ``within`` seconds was not answered in time."""


class _Unanswered(Exception):
    """The call stops here until the client answers (2026-07-28): what to return instead."""

    def __init__(self, result: types.InputRequiredResult):
        super().__init__("input required")
        self.result = result


def modern(ctx: Context) -> bool:
    """Whether this call is in the 2026-07-28 era (questions travel in input-required
    results), rather than the handshake era (``elicitation/create`` requests)."""
    version = ctx.protocol_version
    return version is not None and is_version_at_least(version, INPUT_REQUIRED_VERSION)


def both_eras(tool: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """Let ``tool`` ask in either era: each call gets its :class:`Questions`, and a question
    without an answer yet (2026-07-28) becomes the call's input-required result.

    Put it under ``@server.tool()``; the tool's signature, annotations and docstring are kept.
    """

    @functools.wraps(tool)
    async def call(*args: Any, **kwargs: Any) -> Any:
        ctx = next(value for value in (*args, *kwargs.values()) if isinstance(value, Context))
        token = _current.set(Questions(ctx, tool.__name__))
        try:
            return await tool(*args, **kwargs)
        except _Unanswered as unanswered:
            return unanswered.result
        finally:
            _current.reset(token)

    return call


def current() -> Questions:
    """The questions of the calling tool (see :func:`both_eras`)."""
    questions = _current.get()
    if questions is None:
        raise RuntimeError("a tool that asks is decorated with both_eras")
    return questions


async def ask(journal: Journal, message: str, schema: dict[str, Any],
              within: float | None = None) -> types.ElicitResult:
    """Ask the person to fill in a form; the journal gets the answer (or the client's error,
    handshake era), as ``{"tool", "message", "action", "content"}``. With ``within``, an
    answer that does not come in that many seconds raises :class:`Withdrawn`."""
    questions = current()
    params = types.ElicitRequestFormParams(message=message, requested_schema=schema)

    def entry(answer: types.ElicitResult) -> dict[str, Any]:
        return {"message": message, "action": answer.action, "content": answer.content}

    if questions.modern:
        return questions.answer(params, journal, entry, within)
    ctx = questions.ctx
    try:
        with anyio.fail_after(within) if within is not None else contextlib.nullcontext():
            # (the SDK's Context.session has no annotation; its elicit_form gives this)
            result: types.ElicitResult = await ctx.session.elicit_form(
                message=message, requested_schema=schema, related_request_id=ctx.request_id)
    except TimeoutError:
        raise Withdrawn from None
    except MCPError as error:
        journal(questions.tool, message=message,
                error={"code": error.code, "message": error.message})
        raise
    journal(questions.tool, **entry(result))
    return result


async def ask_url(journal: Journal, message: str, url: str,
                  elicitation_id: str) -> types.ElicitResult:
    """Ask the person to open ``url`` (URL mode); the journal gets
    ``{"tool", "message": "url", "action", "url"}``. ``elicitation_id`` names the request in
    the handshake era (the 2026-07-28 era has no such id, nor a completion notice)."""
    questions = current()

    def entry(answer: types.ElicitResult) -> dict[str, Any]:
        return {"message": "url", "action": answer.action, "url": url}

    if questions.modern:
        params = types.ElicitRequestURLParams(message=message, url=url)
        return questions.answer(params, journal, entry)
    ctx = questions.ctx
    # (the SDK's Context.session has no annotation; its elicit_url gives this)
    result: types.ElicitResult = await ctx.session.elicit_url(
        message, url=url, elicitation_id=elicitation_id, related_request_id=ctx.request_id)
    journal(questions.tool, **entry(result))
    return result


class Questions:
    """The questions of one tool call, and (2026-07-28) their answers so far."""

    def __init__(self, ctx: Context, tool: str):
        self.ctx, self.tool = ctx, tool
        self.modern = modern(ctx)
        #: The answers this round knows, in the order of the questions: those of earlier
        #: rounds (from the state), then the one that arrived in this round.
        self._answers: list[types.ElicitResult] = []
        #: The index in _answers of the answer that arrived in this round, if one did.
        self._fresh: int | None = None
        #: How many questions earlier rounds asked (the last of them waits for its answer).
        self._seen = 0
        #: Until when that last question waits (time.time()), if it was asked with ``within``.
        self._deadline: float | None = None
        self._asked = 0
        if self.modern and ctx.request_state is not None:
            self._read_state(ctx.request_state, ctx.input_responses or {})

    @property
    def replaying(self) -> bool:
        """Whether the tool goes again over what it did in an earlier round (2026-07-28):
        true until it asks the last question an earlier round asked."""
        return self._asked < self._seen

    def answer(self, params: types.ElicitRequestParams, journal: Journal,
               entry: Callable[[types.ElicitResult], dict[str, Any]],
               within: float | None = None) -> types.ElicitResult:
        """The answer to the next question (2026-07-28): from an earlier round, or the one
        that arrived in this round (written to the journal now); else the call stops here
        and returns the question."""
        index, self._asked = self._asked, self._asked + 1
        waiting = index == self._seen - 1  # (the question the state says was asked)
        if waiting and self._deadline is not None and time.time() > self._deadline:
            raise Withdrawn  # (an answer that came too late is not read)
        if index < len(self._answers):
            answer = self._answers[index]
            if index == self._fresh:
                journal(self.tool, **entry(answer))
            return answer
        if waiting:  # asked again (the client sent no answer): its time runs on
            deadline = self._deadline
        else:
            deadline = time.time() + within if within is not None else None
        state = {"tool": self.tool, "answers": [_dumped(a) for a in self._answers],
                 "asked": self._key(index), "deadline": deadline}
        raise _Unanswered(types.InputRequiredResult(
            input_requests={self._key(index): types.ElicitRequest(params=params)},
            request_state=json.dumps(state, separators=(",", ":"))))

    def _key(self, index: int) -> str:
        return f"{self.tool}-{index + 1}"

    def _read_state(self, state: str, responses: types.InputResponses) -> None:
        """Take the answers of earlier rounds from ``state``, and the one for the question it
        says was asked from ``responses``; anything that is not what this server wrote is
        refused (-32602)."""
        try:
            data = json.loads(state)
            if not isinstance(data, dict) or data.get("tool") != self.tool:
                raise ValueError("another tool's state")
            answers = data["answers"]
            if not isinstance(answers, list) or len(answers) >= MAX_QUESTIONS:
                raise ValueError("answers")
            self._answers = [types.ElicitResult.model_validate(a) for a in answers]
            if data["asked"] != self._key(len(self._answers)):
                raise ValueError("asked")
            deadline = data["deadline"]
            if deadline is not None and (isinstance(deadline, bool)
                                         or not isinstance(deadline, int | float)
                                         or not math.isfinite(deadline)):
                raise ValueError("deadline")
        except (ValueError, KeyError, TypeError, ValidationError):
            raise MCPError(code=types.INVALID_PARAMS,
                           message=f"{self.tool}: the request state is not one this server "
                                   "gave") from None
        self._deadline = deadline
        self._seen = len(self._answers) + 1
        fresh = responses.get(data["asked"])
        if fresh is None:
            return  # no answer yet: the question is asked again
        if not isinstance(fresh, types.ElicitResult):
            raise MCPError(code=types.INVALID_PARAMS,
                           message=f"{self.tool}: the answer to {data['asked']} is no "
                                   "elicitation result")
        self._fresh = len(self._answers)
        self._answers.append(fresh)


def _dumped(answer: types.ElicitResult) -> dict[str, Any]:
    """An answer as the state keeps it: its action, and its content if it has one."""
    kept: dict[str, Any] = {"action": answer.action}
    if answer.content is not None:
        kept["content"] = answer.content
    return kept
