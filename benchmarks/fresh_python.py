"""Code the start-up section runs in a fresh Python (not a kernel), by a one-line ``-c``:

    python -c "import sys; sys.path.append(DIR); import fresh_python; fresh_python.imports()"

Each function prints one line of JSON. This module imports only what the original one-off
scripts imported before their clocks started (json, sys, time).
"""

from __future__ import annotations

import json
import sys
import time


def floor_connect() -> None:
    """The SDK floor of start-up: import mcp, then connect a plain Client to the demo server."""
    import asyncio

    t0 = time.perf_counter()
    from mcp import Client, StdioServerParameters

    t1 = time.perf_counter()

    async def main():
        params = StdioServerParameters(command=sys.executable, args=["-m", "nb_elicit.demo"])
        async with Client(params, mode="legacy") as client:
            t2 = time.perf_counter()
            await client.list_tools()
        return t2

    t2 = asyncio.run(main())
    print(json.dumps({"import": t1 - t0, "connect": t2 - t1}))


def imports(connection: str = "nb_elicit._runtime.connection") -> None:
    """What the first connect imports, one after the other, then jsonschema (which only
    values no form control makes need), in seconds each."""
    steps: dict[str, object] = {}
    for name in ("ipywidgets", "mcp", connection, "jsonschema"):
        t0 = time.perf_counter()
        __import__(name)
        steps[name] = time.perf_counter() - t0
    steps["rfc3987_syntax"] = "rfc3987_syntax" in sys.modules
    print(json.dumps(steps))


def first_elicitation(server: str, journal: str) -> None:
    """The SDK floor of the first form: import mcp, start the bench server, connect a plain
    Client and call a tool that asks at once; seconds from the start to each step, the last
    when the elicitation callback is entered (it accepts at once)."""
    import asyncio

    t0 = time.perf_counter()
    import mcp_types as types
    from mcp import Client, StdioServerParameters

    stamps = {"import": time.perf_counter() - t0}

    async def on_elicit(context, params):
        stamps.setdefault("first", time.perf_counter() - t0)
        return types.ElicitResult(action="accept", content={"name": "ada"})

    async def main():
        params = StdioServerParameters(command=sys.executable,
                                       args=[server, "--journal", journal])
        async with Client(params, mode="legacy", elicitation_callback=on_elicit) as client:
            stamps["connect"] = time.perf_counter() - t0
            await client.call_tool("ask", {"tag": "first", "kind": "name"})

    asyncio.run(main())
    print(json.dumps(stamps))
