"""A deliberately hostile MCP server (SDK 2.x) for the test suite.

It can send any raw ``elicitation/create`` params, flood the client, crash mid-form, withdraw a
request, never answer after the client did, drive URL mode (completion notifications and
the -32042 error), return broken images, and be slow to exit. Every tool returns what came back, as JSON, so
tests can assert on it.

    python hostile_server.py              # stdio
    python hostile_server.py http PORT    # streamable HTTP on 127.0.0.1
"""

import json
import os
import sys
import time

import anyio
import mcp_types as types
from mcp import MCPError, UrlElicitationRequiredError
from mcp.server.mcpserver import Context, MCPServer

#: The name it gives itself (``HOSTILE_NAME`` sets another: a server may claim any name).
NAME = os.environ.get("HOSTILE_NAME", '<img src=x onerror="alert(1)"><b>hostile</b>')
server = MCPServer(NAME, version="6.6.6")

#: Elicitation ids whose out-of-band interaction finished (see ``finish_page``).
FINISHED: set[str] = set()


async def send_raw(ctx: Context, params) -> dict:
    """Send ``elicitation/create`` with exactly these params; the client's answer or error."""
    session = ctx.session
    try:
        result = await session._request_outbound.send_raw_request(  # noqa: SLF001
            "elicitation/create", params, None)
    except MCPError as error:
        return {"error": {"code": error.code, "message": error.message}}
    return {"result": result}


@server.tool()
async def raw(ctx: Context, params_json: str) -> str:
    """Send raw params (a JSON text, so that anything at all can be sent)."""
    return json.dumps(await send_raw(ctx, json.loads(params_json)))


@server.tool()
async def big(ctx: Context, what: str) -> str:
    """Oversized requests, built here so that the test does not ship megabytes as arguments."""
    if what == "message":
        params = {"message": "A" * 1_000_000, "requestedSchema": _schema({})}
    elif what == "properties":
        params = {"message": "Many fields", "requestedSchema": _schema(
            {f"f{i}": {"type": "string"} for i in range(1000)})}
    elif what == "enum":
        params = {"message": "Many choices", "requestedSchema": _schema(
            {"pick": {"type": "string", "enum": [f"v{i}" for i in range(10_000)]}})}
    elif what == "title":
        params = {"message": "Long title", "requestedSchema": _schema(
            {"name": {"type": "string", "title": "T" * 100_000}})}
    else:
        raise ValueError(what)
    return json.dumps(await send_raw(ctx, params))


@server.tool()
async def flood(ctx: Context, count: int = 200) -> str:
    """``count`` elicitations at once; how each was answered."""
    actions: list[str] = []

    async def one(i: int) -> None:
        outcome = await send_raw(ctx, {"message": f"Flood #{i}", "requestedSchema": _schema(
            {"name": {"type": "string"}})})
        actions.append(outcome.get("result", {}).get("action") or "error")

    async with anyio.create_task_group() as group:
        for i in range(count):
            group.start_soon(one, i)
    return json.dumps({a: actions.count(a) for a in sorted(set(actions))})


@server.tool()
async def crash(ctx: Context, after: float = 0.5) -> str:
    """Ask, then exit the process while the form is open."""
    async def exit_soon():
        await anyio.sleep(after)
        os._exit(3)

    async with anyio.create_task_group() as group:
        group.start_soon(exit_soon)
        await send_raw(ctx, {"message": "I will crash", "requestedSchema": _schema({})})
    return "unreachable"


@server.tool()
async def withdraw(ctx: Context, after: float = 0.5) -> str:
    """Ask, then withdraw the request (cancel it) after ``after`` seconds."""
    with anyio.move_on_after(after):
        await send_raw(ctx, {"message": "Going away", "requestedSchema": _schema(
            {"name": {"type": "string"}})})
        return "answered"
    return "withdrawn"


@server.tool()
async def never_answer(ctx: Context) -> str:
    """Ask, take the answer, and then never return."""
    await send_raw(ctx, {"message": "Say anything", "requestedSchema": _schema(
        {"name": {"type": "string"}})})
    await anyio.sleep_forever()
    return "unreachable"


@server.tool()
async def url(ctx: Context, url: str, elicitation_id: str = "page-1",
              complete_after: float = -1, complete_ids: str = "") -> str:
    """A URL-mode request. After an accept, optionally report it (and ``complete_ids``,
    comma-separated, e.g. unknown ones) complete after ``complete_after`` seconds."""
    outcome = await send_raw(ctx, {"mode": "url", "message": "Please sign in on our site",
                                   "url": url, "elicitationId": elicitation_id})
    if complete_after >= 0 and outcome.get("result", {}).get("action") == "accept":
        await anyio.sleep(complete_after)
        ids = [i for i in complete_ids.split(",") if i] or [elicitation_id]
        for done in ids:
            await ctx.session.send_elicit_complete(done)
    return json.dumps(outcome)


@server.tool()
async def needs_pages(ctx: Context, ids: str = "connect-1", url_base: str =
                      "https://auth.example.com/connect") -> str:
    """Refuse with -32042 until every page in ``ids`` is finished (``finish_page``)."""
    wanted = [i for i in ids.split(",") if i]
    if all(i in FINISHED for i in wanted):
        return "done: " + ",".join(wanted)
    raise UrlElicitationRequiredError([
        types.ElicitRequestURLParams(message=f"Connect your account ({i})",
                                     url=f"{url_base}?id={i}", elicitation_id=i)
        for i in wanted if i not in FINISHED], "Connect your accounts first.")


@server.tool()
async def finish_page(ctx: Context, elicitation_id: str) -> str:
    """The person finished a page out of band: remember it and tell the client."""
    FINISHED.add(elicitation_id)
    await ctx.session.send_elicit_complete(elicitation_id)
    return "finished"


@server.tool()
async def url_input_required(ctx: Context, url: str = "https://pay.example.com/checkout"
                             ) -> types.CallToolResult | types.InputRequiredResult:
    """A URL request in the 2026-07-28 style (an input-required result, then a retry)."""
    answers = ctx.input_responses or {}
    if "pay" not in answers:
        return types.InputRequiredResult(
            input_requests={"pay": types.ElicitRequest(params=types.ElicitRequestURLParams(
                message="Pay on our checkout page", url=url, elicitation_id="pay-1"))},
            request_state="pay-1")
    text = f"url:{answers['pay'].action}"
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


@server.tool()
async def ask(ctx: Context, schema_json: str, message: str = "Please answer") -> str:
    """A normal form request with this schema; what came back."""
    return json.dumps(await send_raw(ctx, {"message": message,
                                           "requestedSchema": json.loads(schema_json)}))


@server.tool()
async def ask_later(ctx: Context, schema_json: str, delay: float,
                    message: str = "Please answer") -> str:
    """Like ``ask``, ``delay`` seconds after the call came (other calls may start meanwhile)."""
    await anyio.sleep(delay)
    return json.dumps(await send_raw(ctx, {"message": message,
                                           "requestedSchema": json.loads(schema_json)}))


@server.tool()
async def nap(seconds: float) -> str:
    """Return after ``seconds``, asking nothing."""
    await anyio.sleep(seconds)
    return "rested"


@server.resource("slow://nap")
async def slow_read() -> str:
    """A resource that takes two seconds to read."""
    await anyio.sleep(2)
    return "read slowly"


@server.tool()
async def image(data: str, mime_type: str = "image/png") -> types.CallToolResult:
    """An image block with exactly this data and mimeType, between two text blocks."""
    return types.CallToolResult(content=[
        types.TextContent(type="text", text="before"),
        types.ImageContent(type="image", data=data, mime_type=mime_type),
        types.TextContent(type="text", text="after")])


#: Seconds the process takes to exit once the client closed its stdin (see ``linger``).
LINGER = [0.0]


@server.tool()
async def linger(seconds: float) -> str:
    """From now on, take ``seconds`` to exit when the client closes the connection."""
    LINGER[0] = seconds
    return "lingering"


def _schema(properties: dict) -> dict:
    return {"type": "object", "properties": properties}


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
        if LINGER[0]:
            time.sleep(LINGER[0])
            print(f"lingered {LINGER[0]:g} s", file=sys.stderr, flush=True)
