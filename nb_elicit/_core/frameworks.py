"""Which synchronous call of a framework holds the kernel, and which async call to use instead.

An elicitation hook (``nb_elicit.elicitation_callback``, ``nb_elicit.elicitation_handler``)
called while the kernel's main thread is blocked in a synchronous call (ADK's ``Runner.run``,
pydantic-ai's ``run_sync``, strands' ``agent(...)``, ...) cannot show a form that anybody could
answer: widget messages are handled on the kernel's event loop, and the loop is held. The hook
answers ``cancel`` at once, and the cell says, in one line, which async call to use instead.
This module knows the calls; it reads plain (module, function) pairs of the blocked stack.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["BLOCKING_CALLS", "BlockingCall", "blocking_call"]


@dataclass(frozen=True)
class BlockingCall:
    """A synchronous call (``sync``) and the async call that does the same (``instead``)."""

    module: str
    function: str
    sync: str
    instead: str

    def matches(self, module: str, function: str) -> bool:
        return function == self.function and (module == self.module
                                              or module.startswith(self.module + "."))


#: The synchronous calls of the frameworks that run MCP sessions, most specific first.
BLOCKING_CALLS = (
    BlockingCall("google.adk", "run", "Runner.run(...)",
                 "async for event in runner.run_async(...)"),
    BlockingCall("pydantic_ai", "run_sync", "agent.run_sync(...)", "await agent.run(...)"),
    BlockingCall("strands", "__call__", "agent(...)", "await agent.invoke_async(...)"),
    BlockingCall("langgraph", "invoke", "graph.invoke(...)", "await graph.ainvoke(...)"),
    BlockingCall("langchain", "invoke", "agent.invoke(...)", "await agent.ainvoke(...)"),
    BlockingCall("langchain_core", "invoke", "chain.invoke(...)", "await chain.ainvoke(...)"),
    BlockingCall("fastmcp", "run", "a synchronous FastMCP run", "await client.call_tool(...)"),
    BlockingCall("asyncio.runners", "run", "asyncio.run(...)",
                 "await the coroutine in the cell (top-level await)"),
)

#: What is said when no known call is on the stack.
UNKNOWN = BlockingCall("", "", "a synchronous call",
                       "the framework's async call, awaited in the cell")


def blocking_call(stack: Iterable[tuple[str, str]]) -> BlockingCall:
    """The known synchronous call nearest the cell in ``stack`` (pairs of module and function,
    innermost first), else :data:`UNKNOWN`."""
    found = UNKNOWN
    for module, function in stack:
        for call in BLOCKING_CALLS:
            if call.matches(module or "", function or ""):
                found = call  # (keep going outwards: the outermost is the cell's own call)
                break
    return found
