"""A FastMCP server whose tools run only as tasks (the 2026-07-28 extension
``io.modelcontextprotocol/tasks``, SEP-2663), run in its own virtualenv with pinned ``fastmcp``
and ``fastmcp-tasks``; over stdio, or over streamable HTTP with ``--http PORT``.

- ``slow_sum(a, b, seconds)``: works ``seconds``, reporting progress (the task's
  ``statusMessage``), then returns the sum as text.
- ``ask_mid_run(topic)``: works a moment, then asks a question the SEP-2663 way (it returns an
  ``InputRequiredResult``; the client sees ``inputRequests`` on ``tasks/get`` and answers with
  ``tasks/update``); run again with the answer, it returns what arrived as JSON text:
  ``{"topic": ..., "action": ..., "content": ...}``.
- ``run_until_cancelled()``: sleeps until cancelled; when cancelled it appends a line to the file
  named by ``NB_ELICIT_TASKS_MARKER`` (if set), so a test can tell that the cancel reached it.

Tasks live in memory (``memory://``), so they last as long as the process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time

import mcp_types
from fastmcp import Context, FastMCP
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension

server = FastMCP("fastmcp-tasks-interop")
server.add_extension(TasksExtension(url="memory://"))

TASK = TaskConfig(mode="required")

QUESTION = {
    "type": "object",
    "properties": {"answer": {"type": "string", "title": "Your answer"}},
    "required": ["answer"],
}


@server.tool(task=TASK)
async def slow_sum(a: int, b: int, ctx: Context, seconds: float = 1.0) -> str:
    """Add two numbers slowly, reporting progress as it goes."""
    steps = 4
    for step in range(steps):
        await ctx.report_progress(step, steps, f"Adding, step {step + 1} of {steps}")
        await asyncio.sleep(seconds / steps)
    await ctx.report_progress(steps, steps, "Added")
    return f"{a} + {b} = {a + b}"


@server.tool(task=TASK)
async def ask_mid_run(topic: str, ctx: Context) -> str | mcp_types.InputRequiredResult:
    """Work a moment, ask one question about the topic, and return the answer received."""
    answers = ctx.input_responses or {}
    if "answer" not in answers:
        await ctx.report_progress(1, 2, f"Thinking about {topic}")
        await asyncio.sleep(0.3)
        return mcp_types.InputRequiredResult(input_requests={
            "answer": mcp_types.ElicitRequest(params=mcp_types.ElicitRequestFormParams(
                message=f"What should I know about {topic}?", requested_schema=QUESTION))})
    answer = answers["answer"]
    content = getattr(answer, "content", None)
    return json.dumps({"topic": topic, "action": getattr(answer, "action", None),
                       "content": content}, sort_keys=True)


@server.tool(task=TASK)
async def run_until_cancelled(ctx: Context) -> str:
    """Run until the task is cancelled; leave a mark when it is."""
    started = time.monotonic()
    try:
        while True:
            await ctx.report_progress(time.monotonic() - started, None, "Still running")
            await asyncio.sleep(0.2)
    except asyncio.CancelledError:
        marker = os.environ.get("NB_ELICIT_TASKS_MARKER")
        if marker:
            with open(marker, "a", encoding="utf-8") as out:
                out.write(f"cancelled after {time.monotonic() - started:.1f} s\n")
        raise


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", type=int, metavar="PORT",
                        help="serve streamable HTTP on http://127.0.0.1:PORT/mcp")
    args = parser.parse_args()
    if args.http is None:
        server.run("stdio", show_banner=False)
    else:
        server.run("http", host="127.0.0.1", port=args.http, show_banner=False)


if __name__ == "__main__":
    main()
