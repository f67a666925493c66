"""The benchmark's MCP server (stdio): its journal notes when it sends each elicitation and
when the answer arrives, both with ``time.time()``, so that latencies can be measured across
processes.

    python benchmarks/bench_server.py --journal FILE              # stdio
    python benchmarks/bench_server.py --journal FILE --http PORT  # streamable HTTP on
                                                                  # http://127.0.0.1:PORT/mcp

Every answered elicitation appends one JSON line to FILE:
``{"tag", "sent", "answered", "action", "content"}`` (``sent`` is taken just before the request
is handed to the SDK, ``answered`` just after the SDK returns the answer). Tools:

- ``ask(tag, kind)``: one elicitation. ``kind`` is ``"name"`` (one required text field) or
  ``"click"`` (one optional checkbox: Submit needs no typing) or ``"ten"`` (ten fields of
  different kinds: the required text field ``name`` and nine optional ones).
- ``ask_many(count, tag, kind)``: ``count`` elicitations at once, from an anyio task group.
"""

from __future__ import annotations

import argparse
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

JOURNAL = os.environ.get("NB_ELICIT_BENCH_JOURNAL", "")


def _write(entry: dict) -> None:
    if JOURNAL:
        with open(JOURNAL, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")


async def _ask(ctx: Context, tag: str, kind: str) -> str:
    schema = SCHEMAS[kind]
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
async def ask_many(ctx: Context, count: int = 20, tag: str = "", kind: str = "click") -> list:
    """Ask ``count`` questions at once; return the actions received, in order."""
    actions: list = [None] * count

    async def one(i: int) -> None:
        actions[i] = await _ask(ctx, f"{tag}-{i}", kind)

    async with anyio.create_task_group() as group:
        for i in range(count):
            group.start_soon(one, i)
    return actions


def main() -> None:
    global JOURNAL
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--journal", metavar="FILE", required=True)
    parser.add_argument("--http", type=int, metavar="PORT",
                        help="serve streamable HTTP on http://127.0.0.1:PORT/mcp, not stdio")
    args = parser.parse_args()
    JOURNAL = os.path.abspath(args.journal)
    if args.http is not None:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
