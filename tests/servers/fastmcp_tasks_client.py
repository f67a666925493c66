"""FastMCP's own client against ``fastmcp_tasks_server.py``, run in the same virtualenv: it
proves that the server's tasks work before nb_elicit is pointed at them.

    python fastmcp_tasks_client.py SCENARIO (--url URL | --stdio PYTHON SCRIPT)

Prints one JSON object: what the client saw. Scenarios:

- ``sum``: ``slow_sum(2, 3)`` as a task; the statuses and status messages seen while polling,
  then the result text.
- ``ask``: ``ask_mid_run("tea")`` as a task; the ``inputRequests`` seen at ``input_required``,
  the question the elicitation handler was shown, then the result text after it answered.
- ``cancel``: ``run_until_cancelled()`` as a task, cancelled once it is working; the status it
  ends in.
- ``plain``: ``slow_sum`` from a client without the tasks extension: the JSON-RPC error.

Importing ``fastmcp_tasks`` is what gives FastMCP's client its task support, so ``plain`` does
not import it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys

from fastmcp import Client
from fastmcp.client.transports import StdioTransport

ANSWER = {"answer": "forty-two"}


def transport(args: argparse.Namespace):
    if args.url:
        return args.url
    python, script = args.stdio
    # A stdio server starts with a minimal environment: hand on the marker file's name.
    env = {k: v for k, v in os.environ.items() if k == "NB_ELICIT_TASKS_MARKER"}
    return StdioTransport(command=python, args=[script], env=env or None)


async def poll(task, seen: dict) -> None:
    """Record each distinct (status, statusMessage) until the task is terminal."""
    while True:
        current = await task.status()
        step = [current.status, current.status_message]
        if not seen["steps"] or seen["steps"][-1] != step:
            seen["steps"].append(step)
        if current.status in ("completed", "failed", "cancelled"):
            return
        await asyncio.sleep(0.05)


async def scenario_sum(client) -> dict:
    from fastmcp_tasks import call_tool_task

    task = await call_tool_task(client, "slow_sum", {"a": 2, "b": 3, "seconds": 1.0})
    seen = {"first": task.create_result.status, "steps": []}
    await poll(task, seen)
    result = await task.result()
    return {**seen, "text": result.content[0].text}


async def scenario_ask(client, asked: list) -> dict:
    from fastmcp_tasks import call_tool_task

    task = await call_tool_task(client, "ask_mid_run", {"topic": "tea"})
    parked = await task.wait(state="input_required", timeout=30)
    result = await task.result()
    return {"input_requests": parked.input_requests, "asked": asked,
            "text": result.content[0].text}


async def scenario_cancel(client) -> dict:
    from fastmcp_tasks import call_tool_task

    task = await call_tool_task(client, "run_until_cancelled", {})
    while (await task.status()).status_message is None:
        await asyncio.sleep(0.05)
    await task.cancel()
    final = await task.wait(timeout=30)
    # The tool hears of the cancel a moment after the task reads cancelled: wait for its mark
    # before leaving, since leaving stops a stdio server.
    marker = os.environ.get("NB_ELICIT_TASKS_MARKER")
    for _ in range(100):
        if not marker or os.path.exists(marker):
            break
        await asyncio.sleep(0.1)
    return {"status": final.status}


async def scenario_plain(client) -> dict:
    from mcp import MCPError

    try:
        await client.call_tool("slow_sum", {"a": 1, "b": 2})
    except MCPError as error:
        return {"code": error.error.code, "message": error.error.message,
                "data": error.error.data}
    return {"code": None}


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=["sum", "ask", "cancel", "plain"])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--url")
    where.add_argument("--stdio", nargs=2, metavar=("PYTHON", "SCRIPT"))
    args = parser.parse_args()
    if args.scenario != "plain":
        import fastmcp_tasks  # noqa: F401 - turns on the client's task support

    asked: list = []

    async def elicitation_handler(message, response_type, params, context):
        asked.append({"message": message, "schema": params.requested_schema})
        return ANSWER

    async with Client(transport(args), elicitation_handler=elicitation_handler) as client:
        run = {"sum": scenario_sum, "cancel": scenario_cancel, "plain": scenario_plain}
        if args.scenario == "ask":
            outcome = await scenario_ask(client, asked)
        else:
            outcome = await run[args.scenario](client)
        outcome["protocol_version"] = client.session.protocol_version
    json.dump(outcome, sys.stdout)


if __name__ == "__main__":
    asyncio.run(main())
