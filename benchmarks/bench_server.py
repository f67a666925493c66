"""The benchmark's MCP server (stdio): its journal notes when it sends each elicitation and
when the answer arrives, both with ``time.time()``, so that latencies can be measured across
processes.

    python benchmarks/bench_server.py --journal FILE              # stdio
    python benchmarks/bench_server.py --journal FILE --http PORT  # streamable HTTP on
                                                                  # http://127.0.0.1:PORT/mcp
    python benchmarks/bench_server.py --journal FILE --task-poll-ms 1000  # with long_task

Every answered elicitation appends one JSON line to FILE:
``{"tag", "sent", "answered", "action", "content"}`` (``sent`` is taken just before the request
is handed to the SDK, ``answered`` just after the SDK returns the answer). Tools:

- ``ask(tag, kind)``: one elicitation. ``kind`` is ``"name"`` (one required text field) or
  ``"click"`` (one optional checkbox: Submit needs no typing) or ``"ten"`` (ten fields of
  different kinds: the required text field ``name`` and nine optional ones) or ``strings-N``
  (N string fields with titles, every second one required).
- ``pause(seconds)``: answers after ``seconds``, asking nothing.
- ``ask_many(count, tag, kind)``: ``count`` elicitations at once, from an anyio task group.

With ``--task-poll-ms MS`` the server also runs tasks (both wire shapes: 2025-11-25 and the
2026-07-28 extension), with the demo server's task engine (``nb_elicit.demo.tasks``), and has
one more tool:

- ``long_task(tag, seconds)``: sleeps ``seconds`` as a task (taskSupport ``optional``), saying
  nothing meanwhile. Every task it creates, and every ``tasks/get`` answer, says
  ``pollInterval`` (``pollIntervalMs``) ``MS``. The journal gets ``{"tag", "event": "task",
  "task", "started", "poll_ms"}`` when it starts, ``{"tag": TAG + " end", "event": "task end",
  "task", "ended"}`` when it is done, and ``{"tag", "event": "tasks/get", "task", "at",
  "status"}`` for each ``tasks/get`` received (``at``: ``time.time()`` as its handler begins).

Without it the server has no task engine at all (its requests go through no task middleware).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import time

import anyio
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("nb-elicit-bench", version="0.1.0")

SCHEMAS = {
    "name": {
        "type": "object",
        "properties": {"name": {"type": "string", "title": "Name"}},
        "required": ["name"],
    },
    "click": {
        "type": "object",
        "properties": {"ok": {"type": "boolean", "title": "OK"}},
    },
    "ten": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name"},
            "email": {"type": "string", "format": "email", "title": "Email"},
            "site": {"type": "string", "format": "uri", "title": "Web site"},
            "born": {"type": "string", "format": "date", "title": "Born"},
            "height": {"type": "number", "minimum": 0, "maximum": 3, "title": "Height (m)"},
            "pets": {"type": "integer", "minimum": 0, "title": "Pets"},
            "newsletter": {"type": "boolean", "title": "Newsletter"},
            "colour": {"type": "string", "enum": ["red", "green", "blue"], "title": "Colour"},
            "plan": {"type": "string", "title": "Plan", "oneOf": [
                {"const": "free", "title": "Free"}, {"const": "pro", "title": "Pro"}]},
            "days": {"type": "array", "title": "Days", "items": {
                "type": "string", "enum": ["mon", "tue", "wed"]}},
        },
        "required": ["name"],
    },
}



def schema_of(kind: str) -> dict:
    """The schema of ``kind``: one of SCHEMAS, or ``strings-N``: N string fields with titles,
    every second one required (the form build section's ``make_schema("string", N)``)."""
    if kind.startswith("strings-"):
        n = int(kind.removeprefix("strings-"))
        return {"type": "object",
                "properties": {f"f{i}": {"type": "string", "title": f"Text {i}"}
                               for i in range(n)},
                "required": [f"f{i}" for i in range(0, n, 2)]}
    return SCHEMAS[kind]


JOURNAL = os.environ.get("NB_ELICIT_BENCH_JOURNAL", "")


def _write(entry: dict) -> None:
    if JOURNAL:
        with open(JOURNAL, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")


async def _ask(ctx: Context, tag: str, kind: str) -> str:
    schema = schema_of(kind)
    sent = time.time()
    result = await ctx.session.elicit_form(message=f"Benchmark question {tag}",
                                           requested_schema=schema,
                                           related_request_id=ctx.request_id)
    answered = time.time()
    _write({"tag": tag, "sent": sent, "answered": answered, "action": result.action,
            "content": result.content})
    return result.action


@server.tool()
async def ask(ctx: Context, tag: str = "", kind: str = "name") -> str:
    """Ask once; return the action received."""
    return await _ask(ctx, tag, kind)


@server.tool()
async def pause(seconds: float = 0.0) -> str:
    """Answer after ``seconds``, asking nothing (a plain call: its view, without a form)."""
    await anyio.sleep(seconds)
    return f"paused {seconds:g} s"


@server.tool()
async def ask_many(ctx: Context, count: int = 20, tag: str = "", kind: str = "click") -> list:
    """Ask ``count`` questions at once; return the actions received, in order."""
    actions: list = [None] * count

    async def one(i: int) -> None:
        actions[i] = await _ask(ctx, f"{tag}-{i}", kind)

    async with anyio.create_task_group() as group:
        for i in range(count):
            group.start_soon(one, i)
    return actions


def task_server(poll_ms: int) -> MCPServer:
    """The same tools, plus ``long_task`` run as a task whose ``pollInterval`` is ``poll_ms``."""
    from nb_elicit.demo import tasks as engine
    from nb_elicit.demo.task_wire import DemoTasks

    # (the engine answers one interval for every task: the demo's constant, read per answer)
    engine.POLL_INTERVAL_MS = poll_ms
    gets = itertools.count()

    class JournaledTasks(DemoTasks):
        async def _get(self, ctx, params):
            at = time.time()
            view = await super()._get(ctx, params)
            _write({"tag": f"get {params.task_id} {next(gets)}", "event": "tasks/get",
                    "task": params.task_id, "at": at, "status": view.get("status")})
            return view

    tasks = JournaledTasks()
    srv = MCPServer("nb-elicit-bench", version="0.1.0", extensions=[tasks],
                    middleware=[tasks.middleware])
    srv.tool()(ask)
    srv.tool()(pause)
    srv.tool()(ask_many)

    @srv.tool()
    async def long_task(tag: str = "", seconds: float = 30.0) -> str:
        """Sleep ``seconds`` as a task, saying nothing meanwhile."""
        task = engine.current()
        task_id = task.task_id if task is not None else None
        _write({"tag": tag, "event": "task", "task": task_id, "started": time.time(),
                "poll_ms": poll_ms})
        await anyio.sleep(seconds)
        _write({"tag": f"{tag} end", "event": "task end", "task": task_id, "ended": time.time()})
        return f"slept {seconds:g} s"

    tasks.task_tool("long_task", "optional")
    return srv


def main() -> None:
    global JOURNAL
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--journal", metavar="FILE", required=True)
    parser.add_argument("--http", type=int, metavar="PORT",
                        help="serve streamable HTTP on http://127.0.0.1:PORT/mcp, not stdio")
    parser.add_argument("--task-poll-ms", type=int, metavar="MS",
                        help="run tasks too (the long_task tool), asking for polls every MS ms")
    args = parser.parse_args()
    JOURNAL = os.path.abspath(args.journal)
    srv = server if args.task_poll_ms is None else task_server(args.task_poll_ms)
    if args.http is not None:
        srv.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        srv.run("stdio")


if __name__ == "__main__":
    main()
