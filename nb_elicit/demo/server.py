"""The bundled demo MCP server, built with the official SDK.

    python -m nb_elicit.demo                    # stdio
    python -m nb_elicit.demo --http 8765        # streamable HTTP on http://127.0.0.1:8765/mcp
    python -m nb_elicit.demo --sse 8765         # HTTP+SSE on http://127.0.0.1:8765/sse
    python -m nb_elicit.demo --journal out.jsonl # also append every answer it receives to a file

Every tool that asks returns what it received, and ``--journal`` (or the environment variable
``NB_ELICIT_DEMO_JOURNAL``) appends one JSON line per answer to the server's journal, so tests
can check exactly what reached the server. The tools ask in both protocol eras, with the same
journal entries: ``elicitation/create`` requests in the handshake era, input-required results
in the 2026-07-28 era (see ``asking.py``); ``book_table`` asks in the 2026-07-28 style only.
"""

from __future__ import annotations

import base64
import json
import os
import struct
import time
import zlib
from typing import Any

import anyio
import mcp_types as types
from mcp import MCPError
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from .. import __version__
from . import asking, clock, task_tools
from .asking import Withdrawn, both_eras
from .task_wire import DemoTasks

#: The task tools' tasks, in both wire shapes (2025-11-25, and the 2026-07-28 extension).
tasks = DemoTasks()
server = MCPServer("nb-elicit-demo", version=__version__,
                   instructions="Tools that ask the person for input, for trying nb_elicit.",
                   extensions=[tasks], middleware=[tasks.middleware],
                   request_state_security=asking.STATE_SECURITY)

ALL_FIELDS = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Full name", "minLength": 2, "maxLength": 60},
        "email": {"type": "string", "format": "email", "title": "Email"},
        "homepage": {"type": "string", "format": "uri", "title": "Homepage"},
        "birthday": {"type": "string", "format": "date", "title": "Birthday"},
        "meeting": {"type": "string", "format": "date-time", "title": "Meeting time"},
        "age": {"type": "integer", "title": "Age", "minimum": 18, "maximum": 130},
        "budget": {"type": "number", "title": "Budget (EUR)", "minimum": 0},
        "subscribe": {"type": "boolean", "title": "Subscribe to the newsletter"},
        "color": {"type": "string", "title": "Favourite colour",
                  "enum": ["red", "green", "blue"]},
        "size": {"type": "string", "title": "T-shirt size", "enum": ["s", "m", "l"],
                 "enumNames": ["Small", "Medium", "Large"]},
        "plan": {"type": "string", "title": "Plan", "oneOf": [
            {"const": "free", "title": "Free"}, {"const": "pro", "title": "Pro"}]},
        "toppings": {"type": "array", "title": "Toppings", "maxItems": 2,
                     "items": {"type": "string", "enum": ["cheese", "ham", "olives"]}},
        "days": {"type": "array", "title": "Days", "items": {"anyOf": [
            {"const": "mon", "title": "Monday"}, {"const": "tue", "title": "Tuesday"}]}},
    },
    "required": ["name", "email"],
}

GITHUB_USERNAME = {
    "type": "object",
    "properties": {"name": {"type": "string", "title": "GitHub username"}},
    "required": ["name"],
}

CONTACT_INFO = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "Your full name"},
        "email": {"type": "string", "format": "email", "description": "Your email address"},
        "age": {"type": "number", "minimum": 18, "description": "Your age"},
    },
    "required": ["name", "email"],
}


def journal(tool: str, **event: Any) -> None:
    """Append one event to the journal (when one is set)."""
    path = os.environ.get("NB_ELICIT_DEMO_JOURNAL")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            entry = {"tool": tool, **event, "at": time.time()}
            out.write(json.dumps(entry, ensure_ascii=False) + "\n")


async def ask(message: str, schema: dict[str, Any],
              within: float | None = None) -> types.ElicitResult:
    """Ask the calling tool's question in its call's era, and journal the answer."""
    return await asking.ask(journal, message, schema, within)


#: A tool that asks returns its result, or (2026-07-28) a question to answer first. (Those
#: that return a dict say a bare ``dict``: the SDK gives a tool whose result is ``dict[...]``
#: an output schema, which these tools never had.)
Asked = types.InputRequiredResult

#: What withdraw and sign_in say of each answer, in plain words.
ANSWERED = {"accept": "You answered.", "decline": "You declined to answer.",
            "cancel": "You dismissed the question."}
NOT_SIGNED_IN = {"decline": "Not signed in: you declined to open the page.",
                 "cancel": "Not signed in: the page was not opened."}


def received(result: types.ElicitResult) -> dict[str, Any]:
    return {"action": result.action, "content": result.content}


@server.tool()
async def hello(name: str = "world") -> str:
    """Say hello. Asks nothing."""
    return f"Hello, {name}!"


@server.tool()
@both_eras
async def github_username(ctx: Context) -> str | Asked:
    """Ask for a GitHub username (the spec's first example)."""
    result = await ask("Please provide your GitHub username", GITHUB_USERNAME)
    if result.action != "accept":
        return f"No username: you chose {result.action}."
    # (an accepted form has content; were it missing, the call fails here, as it should)
    return f"Hello, @{result.content['name']}!"  # type: ignore[index]


@server.tool()
@both_eras
async def contact_info(ctx: Context) -> dict | Asked:  # type: ignore[type-arg]
    """Ask for contact details: name, email and an age of at least 18."""
    return received(await ask("Please provide your contact information", CONTACT_INFO))


@server.tool()
@both_eras
async def all_fields(ctx: Context) -> dict | Asked:  # type: ignore[type-arg]
    """Ask for one field of every kind, and return exactly what was received."""
    return received(await ask("Please fill in one field of every kind", ALL_FIELDS))


@server.tool()
@both_eras
async def custom_form(ctx: Context, message: str,
                      requested_schema: dict[str, Any]) -> dict | Asked:  # type: ignore[type-arg]
    """Ask with any message and schema you pass in, and return what was received (or the
    error the client answered with, in the handshake era; in the 2026-07-28 era a client
    sends no error back: its call fails instead)."""
    try:
        return received(await ask(message, requested_schema))
    except MCPError as error:
        return {"error": {"code": error.code, "message": error.message}}


@server.tool()
@both_eras
async def two_step(ctx: Context) -> dict | Asked:  # type: ignore[type-arg]
    """Ask twice in one call: a name, then a confirmation that uses it."""
    first = await ask("Step 1 of 2: what should we call you?",
                      {"type": "object", "properties": {"name": {"type": "string"}},
                       "required": ["name"]})
    if first.action != "accept":
        return {"step1": received(first)}
    question = f"Step 2 of 2: create an account for {(first.content or {}).get('name')}?"
    second = await ask(question, {"type": "object", "properties": {"confirm": {
        "type": "boolean", "title": "Yes, create it"}}, "required": ["confirm"]})
    return {"step1": received(first), "step2": received(second)}


@server.tool()
async def book_table(ctx: Context) -> types.CallToolResult | types.InputRequiredResult:
    """Book a table, asking in the 2026-07-28 style only (an input-required result, then a
    retry). In the handshake era the call fails ("Handler returned an invalid result"), which
    tells a client such as nb_elicit to call it again in the 2026-07-28 era."""
    answers = ctx.input_responses or {}
    if "party" not in answers:
        return types.InputRequiredResult(
            input_requests={"party": types.ElicitRequest(params=types.ElicitRequestFormParams(
                message="How many people, and when?",
                requested_schema={"type": "object", "properties": {
                    "people": {"type": "integer", "title": "People", "minimum": 1,
                               "maximum": 12},
                    "day": {"type": "string", "format": "date", "title": "Day"}},
                    "required": ["people"]}))},
            request_state="booking-1",
        )
    # (the question is a form, so its answer is an ElicitResult; any other fails the call where
    # it is read)
    answer: types.ElicitResult = answers["party"]  # type: ignore[assignment]
    journal("book_table", message="How many people, and when?", action=answer.action,
           content=answer.content)
    # (an accepted form has content; were it missing, the call fails here, as it should)
    text = (f"Booked for {answer.content['people']}."  # type: ignore[index]
            if answer.action == "accept"
            else f"Not booked: you chose {answer.action}.")
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                structured_content=received(answer))


@server.tool()
@both_eras
async def withdraw(ctx: Context, after: float = 3.0) -> str | Asked:
    """Ask a question, and withdraw it if nobody answers in time (the argument after, in
    seconds: 3 by default). In the 2026-07-28 era there is no request to withdraw: the form
    stays until answered, and an answer that comes too late is refused (and not read)."""
    try:
        result = await ask(f"Answer within {after:g} s, or I withdraw this.",
                           {"type": "object", "properties": {"answer": {"type": "string"}}},
                           within=after)
    except Withdrawn:
        journal("withdraw", event="withdrawn")
        return "The question was withdrawn."
    return ANSWERED[result.action]


@server.tool()
@both_eras
async def sign_in(ctx: Context, url: str = "https://example.com/nb-elicit/sign-in",
                  done_after: float = 3.0) -> str | Asked:
    """Ask the person to open a web page (URL mode): nb_elicit shows a consent card. Once they
    agree, pretend they finished on that page a little later (the argument done_after, in
    seconds: 3 by default), and say so: with a completion notice in the handshake era, and by
    the call's result alone in the 2026-07-28 era (which has no such notice)."""
    result = await asking.ask_url(journal, "Please sign in to the example service on its own "
                                  "page.", url=url, elicitation_id="demo-sign-in")
    if result.action != "accept":
        return NOT_SIGNED_IN[result.action]
    await anyio.sleep(done_after)
    if not asking.modern(ctx):
        await ctx.session.send_elicit_complete("demo-sign-in")
    return "Signed in: you finished on the sign-in page."


@server.tool()
@both_eras
async def import_rows(ctx: Context, rows: int = 6, delay: float = 0.5) -> str | Asked:
    """Import some rows, reporting progress, and ask once halfway whether to overwrite. In the
    2026-07-28 era the question ends the first call; no progress comes while it waits, and the
    call made with the answer goes on from the row after it."""
    questions = asking.current()
    overwrite = None
    asked = rows // 2 + 1  # (the row the question is about: the one being imported then)
    for i in range(rows):
        if not questions.replaying:  # (rows imported before the question, in an earlier call)
            await ctx.report_progress(i, rows, f"Importing row {i + 1} of {rows}")
            await anyio.sleep(delay)
        if i == rows // 2 and overwrite is None:
            answer = await ask(f"Row {asked} already exists. Overwrite it?",
                               {"type": "object", "required": ["overwrite"], "properties": {
                                   "overwrite": {"type": "boolean", "title": "Overwrite"}}})
            overwrite = (answer.action == "accept"
                         and (answer.content or {}).get("overwrite") is True)
    await ctx.report_progress(rows, rows, "Import finished")
    return f"Imported {rows} rows ({'overwrote' if overwrite else 'kept'} row {asked})."


@server.tool()
async def logo() -> list[types.ContentBlock]:
    """Return a small image, to show how results with images look."""
    return [types.TextContent(type="text", text="A 24x24 gradient:"),
            types.ImageContent(type="image", data=_gradient_png(24), mime_type="image/png")]


@server.tool()
async def fail(reason: str = "This tool always fails.") -> str:
    """Fail on purpose, to show how tool errors look (with ``reason``: a ToolError's text
    reaches the client; any other exception's stays on the server)."""
    raise ToolError(reason)


#: research and countdown: see task_tools.py.
task_tools.register(server, tasks, journal)
#: clock (a tool with an MCP App) and clock_now (for its app): see clock.py.
clock.register(server, journal)


def _gradient_png(size: int) -> str:
    rows = b"".join(b"\x00" + b"".join(bytes((x * 10 % 256, y * 10 % 256, 160))
                                       for x in range(size)) for y in range(size))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
    return base64.b64encode(png).decode("ascii")
