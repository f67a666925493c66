"""Two more ways frameworks hand over a server's question: the Claude Agent SDK's
``Elicitation`` hook (:func:`claude_hooks`) and LangGraph's ``mcp_elicitation`` interrupt
(:func:`answer_interrupt`). Both are answered by the same hook machinery as
``elicitation_callback`` (:class:`~.hooks.ElicitationHook`: the running cell, the hop to the
kernel's loop, ``asking.ask``), and neither imports its framework.

    options = ClaudeAgentOptions(mcp_servers=..., hooks=nb_elicit.claude_hooks())

    result = await agent.ainvoke(inputs, config)
    while result.get("__interrupt__"):
        resume = await nb_elicit.answer_interrupt(result["__interrupt__"][0])
        result = await agent.ainvoke(Command(resume=resume), config)
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from .._core.answer import Answer
from .._core.outcome import Refusal
from .._core.text import shorten
from .hooks import LABEL_LIMIT, ElicitationHook

__all__ = ["ClaudeHookMatcher", "answer_interrupt", "claude_hooks"]

#: Seconds the Claude CLI waits for a hook (its own default is 60 s: a person needs longer).
CLAUDE_HOOK_TIMEOUT = 3600.0
#: Requests one interrupt may carry (the rest are answered cancel).
MAX_INTERRUPT_REQUESTS = 100

#: What a Claude hook returns: ``{"hookSpecificOutput": {...}}``.
ClaudeHookOutput = dict[str, dict[str, object]]
#: A Claude hook as the Claude Agent SDK calls it: ``(input_data, tool_use_id, context)``.
ClaudeHook = Callable[[object, object, object], Awaitable[ClaudeHookOutput]]
#: The value LangGraph resumes with: ``{"responses": {key: {"action": ..., "content": ...}}}``.
InterruptAnswers = dict[str, dict[str, dict[str, object]]]


class _DictHook(ElicitationHook):
    """A hook whose framework hands the request over as a plain dict (no error channel:
    what cannot be shown is answered cancel)."""

    refuse_with = Refusal.CANCEL

    async def ask_dict(self, request: dict[str, object], server: str | None = None,
                       claim: str | None = None) -> Answer:
        """Answer ``request``: under this hook's label, else ``server`` (a name the person
        chose, as a label), else as the server ``claim`` (a name the person did not choose).
        Never raises but the framework's own cancellation: a failure is ``cancel``, told in
        the cell."""
        label = self.label or _name(server)
        hook = type(self)(label) if label != self.label else self
        got = await hook.answer(None, request, claim=_name(claim))
        return got if isinstance(got, Answer) else Answer("cancel")


def _name(value: object) -> str | None:
    """``value`` as a name: a string with something but white space in it, one line, cut to
    :data:`~.hooks.LABEL_LIMIT` characters; else None."""
    if not isinstance(value, str) or not value.strip():
        return None
    return shorten(value.strip(), LABEL_LIMIT, one_line=True)


class _ClaudeHook(_DictHook):
    framework = "claude"
    public_name = "claude_hooks()"

    async def __call__(self, input_data: object = None, tool_use_id: object = None,
                       context: object = None) -> ClaudeHookOutput:
        data = input_data if isinstance(input_data, dict) else {}
        # (the key of the person's mcp_servers option, which the CLI names: a label)
        answer = await self.ask_dict(data, data.get("mcp_server_name"))
        output: dict[str, Any] = {"hookEventName": "Elicitation", "action": answer.action}
        if answer.action == "accept" and answer.content is not None:
            output["content"] = dict(answer.content)
        return {"hookSpecificOutput": output}


@dataclass
class ClaudeHookMatcher:
    """What the Claude Agent SDK reads of a ``HookMatcher``: ``matcher``, ``hooks``,
    ``timeout``."""

    matcher: str | None = None
    hooks: list[ClaudeHook] = field(default_factory=list)
    timeout: float | None = CLAUDE_HOOK_TIMEOUT


def claude_hooks(label: str | None = None, *, timeout: float = CLAUDE_HOOK_TIMEOUT
                 ) -> dict[str, list[ClaudeHookMatcher]]:
    """``hooks=`` for ``ClaudeAgentOptions``: the CLI's ``Elicitation`` hook, answered by
    nb_elicit's forms. Requests go by ``label``, else by the MCP server's name the CLI gives.
    ``timeout`` (seconds) is how long the CLI waits for the person (its default is 60 s)."""
    hook = _ClaudeHook(label) if label is None else _ClaudeHook().named(label)
    return {"Elicitation": [ClaudeHookMatcher(hooks=[hook], timeout=timeout)]}


class _InterruptHook(_DictHook):
    framework = "langgraph"
    public_name = "answer_interrupt"


async def answer_interrupt(interrupt: object, server: str | None = None) -> InterruptAnswers:
    """Show the forms of LangGraph's ``mcp_elicitation`` interrupt (an ``Interrupt`` or its
    ``value``) and return the value to resume with: ``{"responses": {key: {"action": ...,
    "content": ...}}}``. Its requests are answered at once where they can be (a respond
    policy, a recording) and shown together otherwise; ``server`` labels them (without it,
    they show the interrupt's tool name as the server's claim, which selects no policy,
    recording or replay set for a name)."""
    payload = getattr(interrupt, "value", interrupt)
    if not isinstance(payload, dict) or payload.get("type") != "mcp_elicitation":
        raise ValueError("answer_interrupt takes LangGraph's mcp_elicitation interrupt (its "
                         "value has type 'mcp_elicitation')")
    requests = payload.get("requests")
    if not isinstance(requests, list):
        raise ValueError("the interrupt has no list of requests")
    # (the tool's name is the server's: a claim, never the key to a name the person chose)
    tool = payload.get("tool_name")
    keyed = [(str(r.get("key", i)), r) for i, r in enumerate(requests) if isinstance(r, dict)]

    hook = _InterruptHook()  # (it holds nothing: its guards are the kernel's owner's)

    async def one(request: dict[str, object]) -> dict[str, object]:
        return (await hook.ask_dict(request, server, claim=tool)).to_result()

    answers = await asyncio.gather(*(one(r) for _, r in keyed[:MAX_INTERRUPT_REQUESTS]))
    responses = dict(zip([k for k, _ in keyed[:MAX_INTERRUPT_REQUESTS]], answers, strict=True))
    for key, _ in keyed[MAX_INTERRUPT_REQUESTS:]:
        responses[key] = {"action": "cancel"}
    return {"responses": responses}
