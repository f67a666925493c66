"""The demo's task tools: ``research`` (runs only as a task) and ``countdown`` (a task when the
client runs tasks, else a plain call). See ``tasks.py`` for how a task tool is written."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Annotated, Any

import anyio
from mcp import MCPError
from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from . import tasks
from .task_wire import DemoTasks

STAGES = ("Gathering sources", "Analysing content", "Synthesising findings", "Writing the report")
#: Long enough to watch the task card go through the stages (6 s in all).
STAGE_SECONDS = 1.5
COUNTDOWN_MAX = 600

Journal = Callable[..., Any]


def interpretations(topic: str) -> list[dict[str, str]]:
    """Three ways to read the topic, for the clarification form (a titled oneOf)."""
    return [{"const": "technical", "title": f"{topic}: the technical side"},
            {"const": "historical", "title": f"{topic}: its history"},
            {"const": "current", "title": f"{topic}: in the news now"}]


def clarification_form(topic: str) -> dict[str, Any]:
    return {"type": "object", "required": ["interpretation"], "properties": {"interpretation": {
        "type": "string", "title": "Which do you mean?", "oneOf": interpretations(topic)}}}


def register(server: MCPServer, demo_tasks: DemoTasks, journal: Journal) -> None:
    """Add the task tools to ``server``, served as tasks by ``demo_tasks``; every answer and
    every cancel goes to the demo's ``journal``."""

    @server.tool()
    async def research(topic: str, ambiguous: bool = False) -> str:
        """Research a topic in four stages, as a task (a client must run it as one). With
        ambiguous, it asks halfway which of three readings of the topic you mean."""
        task = tasks.current()
        if task is None:  # the task wire refuses a plain call; this is for a direct call
            raise ValueError("research runs only as a task")
        received = None
        try:
            for number, stage in enumerate(STAGES, start=1):
                await task.report(f"{stage} ({number} of {len(STAGES)})…")
                if number == 3 and ambiguous:
                    received = await clarify(task, topic, journal)
                    await task.report(f"Going on with: {reading(received)}")
                await anyio.sleep(STAGE_SECONDS)
        except asyncio.CancelledError:
            journal("research", event="cancelled", topic=topic)
            raise
        report = f"Research report on {topic}: {len(STAGES)} stages done."
        if received is not None:
            report += f" Clarification received: {json.dumps(received, sort_keys=True)}."
        return report

    @server.tool()
    async def countdown(ctx: Context,
                        seconds: Annotated[int, Field(ge=0, le=COUNTDOWN_MAX)] = 30) -> str:
        """Count down, saying each second how long is left, until done or cancelled. A task
        when the client runs tasks, else a plain call that reports progress."""
        task = tasks.current()
        left = seconds
        try:
            for left in range(seconds, 0, -1):
                message = f"{left} s left"
                if task is not None:
                    await task.report(message)
                else:
                    await ctx.report_progress(seconds - left, seconds, message)
                await anyio.sleep(1)
        except asyncio.CancelledError:
            journal("countdown", event="cancelled", seconds=seconds, left=left)
            raise
        journal("countdown", event="finished", seconds=seconds)
        return f"Counted down from {seconds} s: done."

    demo_tasks.task_tool("research", "required")
    demo_tasks.task_tool("countdown", "optional")


async def clarify(task: tasks.Task, topic: str, journal: Journal) -> dict[str, Any]:
    """Ask which reading of the topic is meant: what was received (action and content), or
    the error the client answered with."""
    message = f'"{topic}" can be read three ways. Which do you mean?'
    try:
        answer = await task.ask(message, clarification_form(topic))
    except MCPError as error:
        journal("research", message=message, error={"code": error.code, "message": error.message})
        return {"error": {"code": error.code, "message": error.message}}
    journal("research", message=message, action=answer.action, content=answer.content)
    return {"action": answer.action, "content": answer.content}


def reading(received: dict[str, Any]) -> str:
    """What the clarification answered, in words."""
    if received.get("action") != "accept":
        return "the technical side (no clarification)"
    return str((received.get("content") or {}).get("interpretation", "technical"))
