"""A test server in the common SDK 2.x style: tools that call ``ctx.elicit(schema=Model)``.

    python sdk2_server.py              # stdio
    python sdk2_server.py http PORT    # streamable HTTP on 127.0.0.1
"""

import enum
import json
import os
import sys
from typing import Annotated, Literal

import anyio
from mcp.server.mcpserver import AcceptedElicitation, Context, Elicit, MCPServer, Resolve
from pydantic import BaseModel, ConfigDict, Field

server = MCPServer("sdk2-test", version="2.0.0")


class Person(BaseModel):
    name: str
    age: int


def described(result) -> str:
    if isinstance(result, AcceptedElicitation):
        return f"accept:{result.data.name}:{result.data.age}"
    return result.action


@server.tool()
async def ask_person(ctx: Context) -> str:
    return described(await ctx.elicit("Who are you?", schema=Person))


async def who(ctx: Context) -> Elicit[Person]:
    return Elicit("Resolver asks: who are you?", Person)


@server.tool()
async def ask_resolved(person: Annotated[Person, Resolve(who)]) -> str:
    return f"resolved:{person.name}:{person.age}"


class Colour(str, enum.Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Order(BaseModel):
    """Constraints as pydantic writes them: exclusive bounds, multipleOf, no extra keys, a
    Literal, an Enum ($defs + $ref) and a set of Literals (uniqueItems)."""

    model_config = ConfigDict(extra="forbid")

    quantity: int = Field(gt=0, lt=1000, multiple_of=5)
    weight: float = Field(gt=0, le=10, multiple_of=0.1)
    size: Literal["S", "M", "L"]
    colour: Colour = Colour.RED
    extras: set[Literal["gift", "rush"]] = set()


class SdkOrder(BaseModel):
    """The same without the Enum: the SDK's ``ctx.elicit`` refuses a ``$ref`` on its side."""

    model_config = ConfigDict(extra="forbid")

    quantity: int = Field(gt=0, lt=1000, multiple_of=5)
    weight: float = Field(gt=0, le=10, multiple_of=0.1)
    size: Literal["S", "M", "L"]
    extras: set[Literal["gift", "rush"]] = set()


def typed(model: BaseModel) -> str:
    """Each field as [python type, value], so a test sees what the server's model holds."""
    out = {}
    for name, value in model:
        shown = sorted(value) if isinstance(value, set) else getattr(value, "value", value)
        out[name] = [type(value).__name__, shown]
    return json.dumps(out, sort_keys=True)


@server.tool()
async def ask_order(ctx: Context) -> str:
    """Send pydantic's own ``model_json_schema()`` and read the answer back through the model."""
    result = await ctx.request_context.session.elicit_form(
        "Your order?", requested_schema=Order.model_json_schema(),
        related_request_id=ctx.request_id)
    if result.action != "accept":
        return result.action
    return typed(Order.model_validate(result.content))


@server.tool()
async def ask_sdk_order(ctx: Context) -> str:
    result = await ctx.elicit("Your order?", schema=SdkOrder)
    return typed(result.data) if isinstance(result, AcceptedElicitation) else result.action


@server.tool()
async def ask_url(ctx: Context) -> str:
    result = await ctx.elicit_url("Please sign in", url="https://example.com/login",
                                  elicitation_id="login-1")
    return f"url:{result.action}"


@server.tool()
async def ask_then_exit(ctx: Context, after: float = 0.5) -> str:
    async def exit_soon():
        await anyio.sleep(after)
        os._exit(3)

    async with anyio.create_task_group() as group:
        group.start_soon(exit_soon)
        await ctx.elicit("I will exit while you read this", schema=Person)
    return "unreachable"


@server.tool()
async def ask_forever(ctx: Context) -> str:
    """Elicit, and say on stderr what the person answered, or what ended the tool."""
    try:
        answer = described(await ctx.elicit("Take your time", schema=Person))
        print(f"ask_forever got {answer}", file=sys.stderr, flush=True)
        return answer
    except BaseException as error:
        print(f"ask_forever ended by {type(error).__name__}", file=sys.stderr, flush=True)
        raise


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
